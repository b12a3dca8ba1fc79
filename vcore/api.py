"""The Python API: load a program (assembly text, a ``.asm``/``.vbin`` file, or ``.vbin`` bytes)
onto a fresh ``Machine``. The command line is a thin layer on these functions and on ``Machine``.

    import numpy as np
    import vcore

    m = vcore.load_text("    VADDS.f32 [0x100], [0x0], 1.0\\n    HALT\\n", profile="950")
    m.write("ub", 0x0, np.arange(64, dtype=np.float32))   # or values and a type: ..., [1.5, 2.5], "f32")
    result = m.run()                      # RunResult: instructions, fault, total_cycles, ...
    m.read("ub", 0x100, "f32", 4)         # array([1., 2., 3., 4.], dtype=float32)
    report = m.report()                   # Report: total_cycles, pipes, per_pc, races, ...

Errors are values with a place: ``AsmError`` (assembly, with file:line:col), ``LoadError`` (a file
that cannot be read or decoded), ``ProfileError``, ``ProgramError`` (a program the profile cannot run:
register instructions on a2); a runtime fault is ``result.fault``. ``program.warnings`` holds the
assembler's warnings (a write to S0), each with ``.location`` and ``format()``.
"""

from __future__ import annotations

import os

from vcore.emulator import Machine, load_profile
from vcore.emulator.kernel.cores import Kernel
from vcore.emulator.kernel.launch import LaunchError
from vcore.emulator.machine import DEFAULT_GM_SIZE
from vcore.emulator.profiles.profile import Profile
from vcore.loading import load_program, read_program_file


def _machine(program, profile: Profile | str, gm_size: int) -> Machine:
    return Machine(program, load_profile(profile) if isinstance(profile, str) else profile, gm_size)


def load_text(text: str, profile: Profile | str = "950", gm_size: int = DEFAULT_GM_SIZE,
              filename: str = "<text>") -> Machine:
    """Assemble ``text`` and load it; ``filename`` names it in messages."""
    return _machine(load_program(text, filename), profile, gm_size)


def load_bytes(blob: bytes, profile: Profile | str = "950", gm_size: int = DEFAULT_GM_SIZE,
               filename: str = "<bytes>") -> Machine:
    """Load a ``.vbin`` image (or UTF-8 assembly text given as bytes)."""
    return _machine(load_program(blob, filename), profile, gm_size)


def load_file(path: str | os.PathLike, profile: Profile | str = "950", gm_size: int = DEFAULT_GM_SIZE,
              defines: dict | None = None) -> Machine:
    """Load a ``.asm`` or ``.vbin`` file (told apart by content, not by name); ``defines`` are the
    ``-D NAME=VALUE`` constants of an ``.asm`` (they win over its ``.equ``)."""
    return _machine(read_program_file(path, defines or {}), profile, gm_size)


def load_kernel(path: str | os.PathLike, cores: int | None = None, profile: Profile | str = "950",
                jobs: int | None = None, gm_size: int = DEFAULT_GM_SIZE, defines: dict | None = None,
                blocks: int | None = None) -> Kernel:
    """Load a file as a kernel: of ``cores`` cores, a block each (``vcore run --cores``), or of ``blocks``
    blocks on at most ``cores`` cores (default: the profile's ``chip.cores``; ``vcore run --blocks``),
    run in ``jobs`` processes (default: the CPU count; the result is the same for every value). The
    kernel has ``write``, ``run``, ``read(space, addr, type, count, core=0)``, ``scalars(core)`` and
    ``report()``; ``write`` takes what ``Machine.write`` takes; after ``run(trace=True)``,
    ``vcore.trace_events(result)`` is its trace, a process per core (the same for every ``jobs``).
    A launch the profile's chip cannot make is a ``LaunchError`` (a ``ValueError``); a SYNCALL with
    more blocks than cores, a ``ProgramError`` at its line."""
    if cores is None and blocks is None:
        raise LaunchError("a kernel needs cores=N or blocks=B")
    return Kernel(read_program_file(path, defines or {}), load_profile(profile) if isinstance(profile, str)
                  else profile, cores, gm_size=gm_size, jobs=jobs, blocks=blocks)


__all__ = ["load_bytes", "load_file", "load_kernel", "load_text"]
