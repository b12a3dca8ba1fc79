"""A statement's operands against a row of the ISA table: their shapes and their values.

``shape_fits`` says whether a written operand (a register of a bank, a ``[...]`` or ``gm[...]``
reference, an expression, a bare name) has the shape an operand kind takes; a mnemonic's row is the
first whose operands all fit (``assembler.instructions.select_row``). ``operand_value`` turns a
fitting operand into the value ``isa.Inst`` holds (a register number, a ``UbRef``/``GmRef``, a
``RegOrImm``, an element's bits, a pipe or pattern name), evaluating expressions with the assembly's
``Symbols``; ``KIND_WORDS`` names each kind in messages.
"""

from __future__ import annotations

from vcore.assembler.diagnostics import LocatedError
from vcore.assembler.expressions import Symbols
from vcore.assembler.syntax import Group, Mem, Name, Reg
from vcore.isa import CORE_VALUES, Kind, RegOrImm
from vcore.isa.model import AR_VALUES, SPECIAL_REGISTERS, SPR_VALUES, GmRef, UbRef
from vcore.isa.types import ElementType

KIND_WORDS = {
    Kind.VREG: "a vector register V0..V31",
    Kind.PREG: "a mask register P0..P7",
    Kind.SREG: "a scalar register S0..S31",
    Kind.UB: "a UB operand [addr]",
    Kind.UB_BYTE: "a UB operand [addr]",
    Kind.GM: "a GM operand gm[addr]",
    Kind.SCALAR: "a scalar value or register",
    Kind.SRC: "a scalar register or an expression",
    Kind.IMM: "a scalar register or an expression",
    Kind.TARGET: "a label",
    Kind.PIPE: "a pipe (S, V, MTE2, MTE3)",
    Kind.BARRIER_PIPE: "a pipe (S, V, MTE2, MTE3) or ALL",
    Kind.EVENT: "an event number 0..7",
    Kind.PATTERN: "a mask pattern",
    Kind.CORE: "BLOCKIDX or BLOCKNUM",
    Kind.SPR: "a special register RSVDCNT or MRGCNT0..MRGCNT3",
    Kind.AR: "AR",
    Kind.FIXED: "a pattern number 1..7",
}


def shape_fits(kind: Kind, node) -> bool:
    """Whether the written operand ``node`` has the shape an operand of ``kind`` takes."""
    if kind in (Kind.UB, Kind.UB_BYTE):
        return isinstance(node, Mem) and node.space == "ub"
    if kind is Kind.GM:
        return isinstance(node, Mem) and node.space == "gm"
    if kind is Kind.VREG:
        return isinstance(node, Reg) and node.bank == "V"
    if kind is Kind.PREG:
        return isinstance(node, Reg) and node.bank == "P"
    if kind in (Kind.SREG,):
        return isinstance(node, Reg) and node.bank == "S"
    if kind in (Kind.SCALAR, Kind.SRC, Kind.IMM):
        if kind is Kind.IMM and isinstance(node, Name) and node.name.upper() in (*CORE_VALUES, *SPECIAL_REGISTERS):
            return False  # MOV Sd, BLOCKIDX and MOV Sd, RSVDCNT are forms of their own
        return (isinstance(node, Reg) and node.bank == "S") or not isinstance(node, (Reg, Mem, Group))
    if kind is Kind.CORE:
        return isinstance(node, Name) and node.name.upper() in CORE_VALUES
    if kind is Kind.SPR:
        return isinstance(node, Name) and node.name.upper() in SPR_VALUES
    if kind is Kind.AR:
        return isinstance(node, Name) and node.name.upper() in AR_VALUES
    return not isinstance(node, (Reg, Mem, Group))


def operand_value(symbols: Symbols, operand, node, etype: ElementType | None):
    """The value of the written operand ``node`` for the row's ``operand`` (a ``LocatedError`` if it
    does not fit); ``etype`` is the instruction's element type, for a scalar value's bits."""
    kind = operand.kind
    if not shape_fits(kind, node):
        if isinstance(node, Reg):
            raise LocatedError(node.loc, f"bad register {node.bank}{node.index}: expected {KIND_WORDS[kind]}")
        raise LocatedError(node.loc, f"expected {KIND_WORDS[kind]} for {operand.name}, found something else")
    if kind in (Kind.VREG, Kind.PREG, Kind.SREG):
        return node.index
    if kind in (Kind.UB, Kind.UB_BYTE, Kind.GM):
        offset = symbols.eval_int(node.offset) if node.offset is not None else 0
        ref = GmRef if kind is Kind.GM else UbRef
        return ref(node.reg.index if node.reg is not None else None, offset)
    if kind is Kind.SCALAR:
        if isinstance(node, Reg):
            return RegOrImm(node.index)
        return RegOrImm(None, symbols.element_bits(node, etype))
    if kind in (Kind.SRC, Kind.IMM):
        if isinstance(node, Reg):
            return RegOrImm(node.index)
        value = symbols.eval_int(node)
        if kind is Kind.IMM and not -(1 << 63) <= value < 1 << 64:
            raise LocatedError(node.loc, f"constant {value} does not fit 64 bits: MOV takes -2^63 .. 2^64-1")
        if kind is Kind.IMM and value >= 1 << 63:  # MOV: a 64-bit pattern written unsigned, kept as Sd holds it
            value -= 1 << 64
        return RegOrImm(None, value)
    if kind in (Kind.TARGET, Kind.EVENT, Kind.FIXED):
        return symbols.eval_int(node)
    # PIPE, BARRIER_PIPE, PATTERN: a bare name.
    if not isinstance(node, Name):
        raise LocatedError(node.loc, f"expected {KIND_WORDS[kind]}")
    return node.name.upper()
