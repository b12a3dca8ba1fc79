"""The parse tree of one source line: expressions, operands, keyword fields, statements."""

from __future__ import annotations

from attrs import frozen

from vcore.assembler.diagnostics import Location
from vcore.assembler.lexer import Token


def span(first: Location, last: Location) -> Location:
    if first.line != last.line:
        return first
    return Location(first.file, first.line, first.col, max(1, last.col + last.length - first.col), first.via)


@frozen
class Num:
    value: int | float  # float for float literals
    loc: Location
    text: str | None = None  # a float literal as written, so it can be rounded once, exactly


@frozen
class Name:
    name: str
    loc: Location


@frozen
class Unary:
    op: str
    operand: object
    loc: Location


@frozen
class Binary:
    op: str
    left: object
    right: object
    loc: Location


@frozen
class Bits:
    """``bits(EXPR)``: a raw bit pattern where a float value is expected."""

    expr: object
    loc: Location


@frozen
class Defined:
    """``defined(NAME)``: 1 when a constant NAME is defined, in a ``.if`` or ``.elif`` expression."""

    name: str
    loc: Location


@frozen
class Reg:
    bank: str  # "V", "P" or "S"
    index: int
    loc: Location


@frozen
class Mem:
    space: str  # "ub" or "gm"
    reg: Reg | None
    offset: object | None  # expression; negated when written [Sn - EXPR]
    loc: Location


@frozen
class Group:
    """``(A, B)``: the bit-mode mask's two words."""

    items: tuple
    loc: Location


@frozen
class Field:
    name: str  # lower case
    value: object
    loc: Location  # of the name
    value_loc: Location


@frozen
class Statement:
    """An instruction: mnemonic (upper case), type suffix (lower case), operands, keyword fields.
    ``suffix2`` is a second dotted part: the source type of ``VCONV.D.S``, the type of ``VCMP.C.T``
    (whose ``suffix`` is then the condition)."""

    mnemonic: str
    mnemonic_loc: Location
    suffix: str | None
    suffix_loc: Location | None
    operands: tuple
    fields: tuple[Field, ...]
    end: Location
    line: int
    suffix2: str | None = None
    suffix2_loc: Location | None = None


@frozen
class Directive:
    name: str  # lower case, without the dot
    loc: Location
    args: tuple
    end: Location
    line: int


@frozen
class Line:
    labels: tuple[Token, ...]
    statement: Statement | Directive | None
