"""vcore's public face: load programs from text or ``.vbin`` onto an emulated core and run them.

See ``vcore.api`` and docs/api.md. ``Machine``, ``RunResult`` and ``Report`` are the emulator's own
types (and ``DataWarning``, what ``Machine.write`` warns with), re-exported here so that
``import vcore`` is all a script needs; so is ``trace_events``, the Chrome trace of a run (a
machine's or a kernel's) made with ``trace=True``. The assembler, the ISA table and the emulator are
its sub-packages ``vcore.assembler``, ``vcore.isa`` and ``vcore.emulator`` (the repository's top-level
folders ``assembler/``, ``isa/`` and ``emulator/``, installed under ``vcore``).
"""

__version__ = "0.1.0"  # the distribution's version (pyproject.toml reads it from here)

from vcore.api import load_bytes, load_file, load_kernel, load_text
from vcore.assembler import AsmError
from vcore.emulator import Fault, Machine, ProfileError, ProgramError, RunResult, load_profile
from vcore.emulator.kernel.launch import LaunchError
from vcore.emulator.memory_data import DataWarning
from vcore.emulator.report import Report
from vcore.emulator.trace import trace_events
from vcore.loading import LoadError, load_program, read_program_file

__all__ = ["AsmError", "DataWarning", "Fault", "LaunchError", "LoadError", "Machine", "ProfileError", "ProgramError",
           "Report", "RunResult", "load_bytes", "load_file", "load_kernel", "load_profile", "load_program", "load_text",
           "read_program_file", "trace_events"]
