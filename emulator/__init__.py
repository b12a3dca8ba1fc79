"""The emulated vector core: ``Machine`` runs a decoded program on UB, GM and register state."""

from vcore.emulator.admission import check_program, profile_warnings
from vcore.emulator.check import check_emulator
from vcore.emulator.faults import Fault, ProgramError
from vcore.emulator.machine import Machine
from vcore.emulator.profiles.profile import Profile, ProfileError, load_profile
from vcore.emulator.result import RunResult

check_emulator()  # after importing machine, which registers every family

__all__ = ["Fault", "Machine", "Profile", "ProfileError", "ProgramError", "RunResult", "check_program", "load_profile",
           "profile_warnings"]
