"""Which programs a profile refuses before they run, located like an assembly error: vector
functions and register instructions on a profile without them, 950-only conversions elsewhere, and a
``.vbin`` that breaks the function rules its source would have broken."""

from __future__ import annotations

from vcore.emulator.faults import ProgramError
from vcore.emulator.profiles.profile import Profile
from vcore.isa import Inst, decode_program
from vcore.isa.functions import check
from vcore.isa.only_950 import needs_950
from vcore.isa.program import Program
from vcore.isa.text import inst_text


def check_profile_runs(program: Program, profile: Profile, decoded) -> None:
    """Refuse a program with vector functions or register instructions on a profile without vector
    functions (the A2 has none: run there, they would give wrong answers, not faults), or with a
    conversion that only the 950 has (a pair, or ``sat``), or an integer division."""
    _check_functions_allowed(program, profile, decoded)
    isa = profile["machine"]["isa"]
    if isa != "950":
        for pc, inst in decoded:
            reason = needs_950(inst, profile.name, isa)
            if reason is not None:
                refuse(program, pc, inst, reason)


def check_program(program: Program, profile: Profile) -> None:
    """Raise ProgramError, located, when ``profile`` would refuse ``program`` at load: what ``vcore
    asm --profile`` checks without running it (the function rules too, for a ``.vbin``)."""
    decoded = decode_program(program.words)
    check_profile_runs(program, profile, decoded)
    problems = check(decoded)[1]
    if problems:
        pc, message = problems[0]
        refuse(program, pc, dict(decoded)[pc], message)


def _check_functions_allowed(program: Program, profile: Profile, decoded) -> None:
    if profile["machine"]["vector_functions"]:
        return
    pc, inst = next(((pc, inst) for pc, inst in decoded if inst.row.register or inst.row.structure),
                    (None, None))
    if inst is None:
        return
    what = ("starts a vector function" if inst.row.family == "vf_begin" else
            "is a register (vector-function) instruction" if inst.row.register else "belongs in a vector function")
    need = "register instructions" if inst.row.register else "vector functions"
    refuse(program, pc, inst, f"{inst.row.mnemonic} {what}, and the {profile.name} profile has no vector "
                              f"functions: {need} need the 950 profile (--profile 950)")


REPEAT_ZERO_950 = "repeat=0 is not guaranteed to be a no-operation on the 950"
# The tensor instructions whose 950 form is a register sequence the documents do not promise to skip
# at repeat=0 (CONTRACT 13.4, 13.6): vcore runs it as a no-operation, and warns on the 950.
_WARN_REPEAT_ZERO = ("gathermask", "sort")


def profile_warnings(program: Program, profile: Profile) -> list[str]:
    """The warnings a program gets when it is loaded for ``profile``, located like the assembler's:
    on the 950, ``repeat=0`` on VGATHERM, VSORT32 and VMRGSORT."""
    if profile["machine"]["isa"] != "950":
        return []
    found = []
    for pc, inst in decode_program(program.words):
        if inst.row.family in _WARN_REPEAT_ZERO and inst.kw("repeat") == 0:
            found.append(_located(program, pc, inst, "warning", REPEAT_ZERO_950))
    return found


def _located(program: Program, pc: int, inst: Inst, severity: str, message: str) -> str:
    src = (program.source or {}).get(pc)
    if src is None:
        return f"{program.filename}: {severity}: {message}\n  at pc 0x{pc:04x}: {inst_text(inst)}"
    return (f"{program.filename}:{src.line}:{src.col}: {severity}: {message}\n"
            f"    {src.text}\n    ^{'~' * (len(src.text.split()[0]) - 1)}")


def refuse(program: Program, pc: int, inst: Inst, message: str) -> None:
    """Raise ProgramError for the instruction at ``pc``: its source line and a caret when the program
    has its source, else its pc and disassembly."""
    raise ProgramError(_located(program, pc, inst, "error", message))
