"""The emulated vector core: ``Machine`` runs a decoded program on UB, GM and register state."""

from emulator.admission import check_program, profile_warnings
from emulator.check import check_emulator
from emulator.faults import Fault, ProgramError
from emulator.machine import Machine
from emulator.profiles.profile import Profile, ProfileError, load_profile
from emulator.result import RunResult

check_emulator()  # after importing machine, which registers every family

__all__ = ["Fault", "Machine", "Profile", "ProfileError", "ProgramError", "RunResult", "check_program", "load_profile",
           "profile_warnings"]
