"""The vector-function rules of an assembly (CONTRACT section 7), as located diagnostics.

``isa.functions`` walks the instructions once, for the assembler and for the emulator alike, and
says what breaks the shape of a function (a register instruction outside one, an unmatched
``VF.BEGIN`` or ``ENDLOOP``, loops nested too deep, an instruction a function may not hold);
``function_layout`` places each such problem at its statement's mnemonic. ``misplaced_operand`` adds
what only an operand's value shows once it is evaluated: a branch into a function, a negative
``LOOP`` count, placed at that operand.
"""

from __future__ import annotations

from vcore.assembler.diagnostics import Location
from vcore.assembler.syntax import Statement
from vcore.isa import Inst
from vcore.isa.functions import FunctionSpan, layout, operand_problem

# Register instructions outside a vector function (CONTRACT section 11: an error). True only while
# the programs written before vector functions are moved into them.
BARE_REGISTERS = False


def function_layout(parsed: list) -> tuple[list[FunctionSpan], list[tuple[Location, str]]]:
    """The functions of the laid-out statements ``parsed`` ((statement, row or None, pc) each), and
    the problems of their shape, each at its statement's mnemonic."""
    statements = {at: stmt for stmt, row, at in parsed if row is not None}
    functions, problems = layout(((at, row) for stmt, row, at in parsed if row is not None), BARE_REGISTERS)
    return functions, [(statements[at].mnemonic_loc, message) for at, message in problems]


def misplaced_operand(inst: Inst, stmt: Statement, functions: list[FunctionSpan]) -> tuple[Location, str] | None:
    """What only the operands' values show: a branch into a function, a negative loop count."""
    found = operand_problem(inst, functions)
    if found is None:
        return None
    operand = stmt.operands[0] if inst.row.family == "loop" else stmt.operands[-1]
    return operand.loc, found
