"""The shape of vector functions in a program: where each ``VF.BEGIN`` ... ``VF.END`` block and each
hardware loop begins and ends, and what breaks the rules (CONTRACT section 7).

One walk over the instructions in text order, shared by the assembler (which turns a problem into a
located diagnostic) and the emulator (which refuses a ``.vbin`` with the same problem): the two
cannot disagree about what a function is.
"""

from __future__ import annotations

from collections.abc import Iterable

from attrs import frozen

from vcore.isa.model import Instruction
from vcore.isa.table import FUNCTION_SCALAR_FAMILIES

MAX_LOOP_DEPTH = 4  # hardware loops nest at most this deep (documented: VLOOPv2)
_SCALAR_LANE = "MOV, ADD, SUB, MUL, AND, OR, XOR, SHL, SHR"


@frozen
class Loop:
    """A hardware loop: the pcs of its ``LOOP`` and its ``ENDLOOP``."""

    begin: int
    end: int


@frozen
class FunctionSpan:
    """A vector function: the pcs of its ``VF.BEGIN`` and its ``VF.END``, and its loops."""

    begin: int
    end: int
    loops: tuple[Loop, ...]

    def holds(self, pc: int) -> bool:
        """Whether ``pc`` is inside the function (after VF.BEGIN, up to and including VF.END)."""
        return self.begin < pc <= self.end


def allowed_inside(row: Instruction) -> bool:
    """Whether a row may stand inside a vector function."""
    return row.register or (row.structure and row.family != "vf_begin") or row.family in FUNCTION_SCALAR_FAMILIES


def layout(items: Iterable[tuple[int, Instruction]], bare_registers: bool = False
           ) -> tuple[list[FunctionSpan], list[tuple[int, str]]]:
    """The functions of a program given as ``(pc, row)`` in text order, and its problems as
    ``(pc, message)``: a register instruction outside a function (allowed when ``bare_registers``),
    anything a function may not hold, unmatched or too deeply nested loops, unclosed functions."""
    functions: list[FunctionSpan] = []
    problems: list[tuple[int, str]] = []
    begin: int | None = None  # the open function's VF.BEGIN
    loops: list[int] = []  # the open loops' LOOPs, outermost first
    closed: list[Loop] = []
    for pc, row in items:
        family = row.family
        if begin is None:
            if family == "vf_begin":
                begin, loops, closed = pc, [], []
            elif row.structure:
                problems.append((pc, f"{row.mnemonic} outside a vector function: it belongs between VF.BEGIN and "
                                     f"VF.END" if family != "vf_end" else "VF.END without a VF.BEGIN before it"))
            elif row.register and not bare_registers:
                problems.append((pc, f"{row.mnemonic} is a register instruction, which runs only inside a vector "
                                     f"function: put it between VF.BEGIN and VF.END"))
            continue
        if family == "vf_begin":
            problems.append((pc, "VF.BEGIN inside a vector function (functions do not nest): end the open one "
                                 "with VF.END first"))
        elif family == "vf_end":
            for open_loop in loops:
                problems.append((open_loop, "LOOP without an ENDLOOP before its function's VF.END"))
            functions.append(FunctionSpan(begin, pc, tuple(sorted(closed, key=lambda lp: lp.begin))))
            begin = None
        elif family == "loop":
            if len(loops) == MAX_LOOP_DEPTH:
                problems.append((pc, f"hardware loops nest at most {MAX_LOOP_DEPTH} deep; this LOOP is the "
                                     f"{MAX_LOOP_DEPTH + 1}th: merge two loops or split the function"))
            loops.append(pc)
        elif family == "endloop":
            if loops:
                closed.append(Loop(loops.pop(), pc))
            else:
                problems.append((pc, "ENDLOOP without a LOOP before it in this function"))
        elif row.family == "mov_spr":
            name = "AR" if row.op == "ar" else "RSVDCNT (or MRGCNTk)"
            problems.append((pc, f"MOV Sd, {name} cannot be inside a vector function: the scalar unit reads "
                                 f"the special register, after VF.END (ordered after the V work that writes it by "
                                 f"a V-to-S flag or BARRIER ALL)"))
        elif not allowed_inside(row):
            what = (f"{row.mnemonic} with UB operands is a tensor instruction, which" if row.family == "tensor"
                    else row.mnemonic)
            problems.append((pc, f"{what} cannot be inside a vector function: a function holds register "
                                 f"instructions, LOOP/ENDLOOP, MEMBAR and the scalar {_SCALAR_LANE}; put it before "
                                 f"VF.BEGIN or after VF.END"))
    if begin is not None:
        problems.append((begin, "VF.BEGIN without a VF.END: the function must end before the program does"))
    return functions, problems


BRANCH_INTO = ("a branch cannot go into a vector function: a function runs from its VF.BEGIN, which the branch "
               "may target")


def operand_problem(inst, functions: list[FunctionSpan]) -> str | None:
    """What only an instruction's operand values show: a branch into a function, a negative loop count."""
    family = inst.row.family
    if family == "loop":
        count = inst.operands[0]
        if count.reg is None and count.imm < 0:
            return f"a loop runs 0 or more times, not {count.imm}"
    elif family in ("branch", "jump"):
        target = inst.operands[-1]
        if any(f.holds(target) for f in functions):
            return BRANCH_INTO
    return None


def check(decoded) -> tuple[list[FunctionSpan], list[tuple[int, str]]]:
    """``layout`` of decoded instructions ``(pc, Inst)``, with the problems of their operands too."""
    decoded = list(decoded)
    functions, problems = layout((pc, inst.row) for pc, inst in decoded)
    problems += [(pc, found) for pc, inst in decoded if (found := operand_problem(inst, functions))]
    return functions, sorted(problems)
