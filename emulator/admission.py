"""Which programs a profile refuses before they run, located like an assembly error: vector
functions and register instructions on a profile without them, 950-only conversions elsewhere, and a
``.vbin`` that breaks the function rules its source would have broken."""

from __future__ import annotations

from emulator.faults import ProgramError
from emulator.profiles.profile import Profile
from isa import Inst, decode_program
from isa.conversions import ONLY_950
from isa.functions import check
from isa.program import Program
from isa.text import inst_text


def check_profile_runs(program: Program, profile: Profile, decoded) -> None:
    """Refuse a program with vector functions or register instructions on a profile without vector
    functions (the A2 has none: run there, they would give wrong answers, not faults), or with a
    conversion that only the 950 has (a pair, or ``sat``), or an integer division."""
    _check_functions_allowed(program, profile, decoded)
    if profile["machine"]["isa"] != "950":
        for pc, inst in decoded:
            if inst.row.op in ("div", "rem") and inst.type is not None and not inst.type.is_float:
                refuse(program, pc, inst, f"{inst.row.mnemonic}.{inst.type.name} needs the 950 profile: the "
                                          f"{profile.name} divides only f16 and f32")
            if inst.row.op == "conv" and inst.kw("sat"):  # SatMode (CONTRACT 13.12): the 950's alone
                refuse(program, pc, inst, f"VCONV.{inst.type.name}.{inst.source.name} sat needs the 950 profile "
                                          f"({profile.name} has no saturating conversion)")
            if inst.row.family == "trans5hd" and inst.type.name == "bf16":
                refuse(program, pc, inst, f"VTRANS5HD.bf16 needs the 950 profile ({profile.name} has no bf16 "
                                          f"TransDataTo5HD)")
            if inst.row.op == "conv" and (inst.type.name, inst.source.name) in ONLY_950:
                refuse(program, pc, inst, f"VCONV.{inst.type.name}.{inst.source.name} (from {inst.source.name} to "
                                          f"{inst.type.name}) exists on the 950 only, and the {profile.name} "
                                          f"profile's instruction set is {profile['machine']['isa']}: such "
                                          f"conversions need the 950 profile (--profile 950)")


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


def refuse(program: Program, pc: int, inst: Inst, message: str) -> None:
    """Raise ProgramError for the instruction at ``pc``: its source line and a caret when the program
    has its source, else its pc and disassembly."""
    src = (program.source or {}).get(pc)
    if src is None:
        raise ProgramError(f"{program.filename}: error: {message}\n  at pc 0x{pc:04x}: {inst_text(inst)}")
    raise ProgramError(f"{program.filename}:{src.line}:{src.col}: error: {message}\n"
                       f"    {src.text}\n    ^{'~' * (len(src.text.split()[0]) - 1)}")
