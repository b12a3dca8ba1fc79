"""The emulated vector core: ``Machine`` runs a decoded program on UB, GM and register state."""

from emulator.faults import Fault, ProgramError
from emulator.machine import Machine, RunResult
from emulator.profile import Profile, ProfileError, load_profile

__all__ = ["Fault", "Machine", "Profile", "ProfileError", "ProgramError", "RunResult", "load_profile"]
