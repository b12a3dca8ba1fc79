"""vcore's public face: load programs from text or ``.vbin`` onto an emulated core and run them.

See ``vcore.api`` and docs/api.md. ``Machine``, ``RunResult`` and ``Report`` are the emulator's own
types (and ``DataWarning``, what ``Machine.write`` warns with), re-exported here so that
``import vcore`` is all a script needs; so is ``trace_events``, the Chrome trace of a run (a
machine's or a kernel's) made with ``trace=True``.
"""

from assembler import AsmError
from emulator import Fault, Machine, ProfileError, ProgramError, RunResult, load_profile
from emulator.kernel.launch import LaunchError
from emulator.memory_data import DataWarning
from emulator.report import Report
from emulator.trace import trace_events
from vcore.api import load_bytes, load_file, load_kernel, load_text
from vcore.loading import LoadError, load_program, read_program_file

__all__ = ["AsmError", "DataWarning", "Fault", "LaunchError", "LoadError", "Machine", "ProfileError", "ProgramError",
           "Report", "RunResult", "load_bytes", "load_file", "load_kernel", "load_profile", "load_program", "load_text",
           "read_program_file", "trace_events"]
