"""Parse one tokenized line into a ``Line``: labels, then an instruction or a directive."""

from __future__ import annotations

import re

from vcore.assembler.diagnostics import LocatedError
from vcore.assembler.lexer import Token
from vcore.assembler.syntax import (
    Binary,
    Bits,
    Defined,
    Directive,
    Field,
    Group,
    Line,
    Mem,
    Name,
    Num,
    Reg,
    Statement,
    Unary,
    span,
)

_REGISTER = re.compile(r"([VvPpSs])([0-9]+)$")
# Binary operators by how tightly they bind (higher binds tighter): C's order, all to the left.
_PRECEDENCE = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, "<=": 7, ">": 7, ">=": 7,
               "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10}
_REGISTER_LIMIT = {"V": 32, "P": 8, "S": 32}


def register_of(token: Token) -> Reg | None:
    """A register token (V0..V31, P0..P7, S0..S31, any case), or None. Out-of-range numbers are errors."""
    if token.kind != "ident":
        return None
    m = _REGISTER.match(token.text)
    if m is None:
        return None
    bank, digits = m.group(1).upper(), m.group(2).lstrip("0") or "0"
    index = int(digits) if len(digits) <= 6 else 1 << 30  # any number that long is out of range
    if index >= _REGISTER_LIMIT[bank]:
        top = _REGISTER_LIMIT[bank] - 1
        raise LocatedError(token.location, f"bad register {token.text}: {bank} registers are {bank}0..{bank}{top}")
    return Reg(bank, index, token.location)


class _Cursor:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.pos = 0

    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def peek(self, n: int = 1) -> Token:
        return self.tokens[min(self.pos + n, len(self.tokens) - 1)]

    def next(self) -> Token:
        tok = self.tokens[self.pos]
        if tok.kind != "end":
            self.pos += 1
        return tok

    def last(self) -> Token:
        return self.tokens[max(0, self.pos - 1)]

    def expect_op(self, text: str, what: str) -> Token:
        if not self.tok.is_op(text):
            raise LocatedError(self.tok.location, f"expected {what}, found {_describe(self.tok)}")
        return self.next()


def _describe(tok: Token) -> str:
    return "end of line" if tok.kind == "end" else repr(tok.text)


def parse_expr(cur: _Cursor, min_prec: int = 1):
    left = _parse_unary(cur)
    while cur.tok.kind == "op" and _PRECEDENCE.get(cur.tok.text, 0) >= min_prec:
        op = cur.next()
        right = parse_expr(cur, _PRECEDENCE[op.text] + 1)
        left = Binary(op.text, left, right, span(_loc(left), _loc(right)))
    return left


def _loc(node):
    return node.loc


def _parse_unary(cur: _Cursor):
    tok = cur.tok
    if tok.kind == "op" and tok.text in ("-", "~", "!", "+"):
        cur.next()
        operand = _parse_unary(cur)
        return Unary(tok.text, operand, span(tok.location, _loc(operand)))
    if tok.kind in ("int", "float"):
        cur.next()
        try:
            value = tok.value
        except ValueError:  # Python refuses int() of more than 4300 digits; 0x_ has no digits at all
            digits = tok.text.replace("_", "")
            if len(digits) > 4300:
                raise LocatedError(tok.location, f"number too long ({len(tok.text)} characters)") from None
            raise LocatedError(tok.location, f"malformed number '{tok.text}': no digits after the prefix") from None
        return Num(value, tok.location, tok.text if tok.kind == "float" else None)
    if tok.kind == "ident":
        if tok.text.lower() == "bits" and cur.peek().is_op("("):
            cur.next()
            cur.next()
            inner = parse_expr(cur)
            close = cur.expect_op(")", "')'")
            return Bits(inner, span(tok.location, close.location))
        if tok.text.lower() == "defined" and cur.peek().is_op("("):
            return _parse_defined(cur)
        if register_of(tok) is not None:
            raise LocatedError(tok.location, f"register {tok.text} cannot stand in an expression")
        cur.next()
        return Name(tok.text, tok.location)
    if tok.is_op("("):
        cur.next()
        inner = parse_expr(cur)
        cur.expect_op(")", "')'")
        return inner
    raise LocatedError(tok.location, f"expected an operand, found {_describe(tok)}")


def _parse_defined(cur: _Cursor) -> Defined:
    """``defined(NAME)``, the cursor at ``defined``."""
    start = cur.next()
    cur.next()
    name = cur.tok
    if name.kind != "ident":
        raise LocatedError(name.location, f"defined(NAME) takes a name, found {_describe(name)}")
    cur.next()
    close = cur.expect_op(")", "')'")
    return Defined(name.text, span(start.location, close.location))


def _parse_mem(cur: _Cursor, space: str, start: Token):
    cur.expect_op("[", "'['")
    reg = register_of(cur.tok)
    offset = None
    if reg is not None:
        cur.next()
        if reg.bank != "S":
            raise LocatedError(reg.loc, f"bad register {reg.bank}{reg.index}: an address register must be S0..S31")
        if cur.tok.is_op("+") or cur.tok.is_op("-"):
            # The sign binds to the first term only: [S1 - 32 + 64] is S1 + ((-32) + 64).
            offset = parse_expr(cur)
    else:
        offset = parse_expr(cur)
    close = cur.expect_op("]", "']'")
    return Mem(space, reg, offset, span(start.location, close.location))


def parse_operand(cur: _Cursor):
    tok = cur.tok
    if tok.is_op("["):
        return _parse_mem(cur, "ub", tok)
    if tok.kind == "ident" and tok.text.lower() == "gm" and cur.peek().is_op("["):
        cur.next()
        return _parse_mem(cur, "gm", tok)
    reg = register_of(tok)
    if reg is not None:
        cur.next()
        return reg
    if tok.is_op("(") and _is_group(cur):
        cur.next()
        items = [_group_item(cur)]
        while cur.tok.is_op(","):
            cur.next()
            items.append(_group_item(cur))
        close = cur.expect_op(")", "')'")
        return Group(tuple(items), span(tok.location, close.location))
    return parse_expr(cur)


def _group_item(cur: _Cursor):
    """An entry of a ``(A, B, ...)`` group: an expression, or a register alone (VMRGSORT's ``len=(32, S3)``;
    a field that takes constants says so)."""
    reg = register_of(cur.tok)
    if reg is not None and (cur.peek().is_op(",") or cur.peek().is_op(")")):
        cur.next()
        return reg
    return parse_expr(cur)


def _is_group(cur: _Cursor) -> bool:
    """Whether the '(' at the cursor opens a comma-separated group rather than an expression."""
    depth = 0
    for tok in cur.tokens[cur.pos:]:
        if tok.is_op("("):
            depth += 1
        elif tok.is_op(")"):
            depth -= 1
            if depth == 0:
                return False
        elif tok.is_op(",") and depth == 1:
            return True
    return False


def _parse_args(cur: _Cursor, name_at: int = -1):
    """Operands and keyword fields; the operand at position ``name_at`` is read as a bare name."""
    operands, fields = [], []
    if cur.tok.kind == "end":
        return operands, fields
    while True:
        tok = cur.tok
        if tok.kind == "ident" and cur.peek().is_op("=") and register_of(tok) is None:
            cur.next()
            cur.next()
            value_start = cur.tok
            value = parse_operand(cur)
            fields.append(Field(tok.text.lower(), value, tok.location, span(value_start.location, cur.last().location)))
        elif fields and tok.kind == "ident" and cur.peek().kind in ("op", "end") and not cur.peek().is_op("(") \
                and register_of(tok) is None:  # a field written as its bare name (``, sat``)
            cur.next()
            fields.append(Field(tok.text.lower(), None, tok.location, tok.location))
        else:
            if fields:
                raise LocatedError(tok.location, "positional operand after keyword fields")
            if len(operands) == name_at and tok.kind == "ident" and cur.peek().kind in ("op", "end"):
                operands.append(Name(cur.next().text, tok.location))
            else:
                operands.append(parse_operand(cur))
        if cur.tok.kind == "end":
            return operands, fields
        if not cur.tok.is_op(","):
            raise LocatedError(cur.tok.location, f"unexpected {_describe(cur.tok)} after operand (expected ',')")
        cur.next()


def parse_operands(tokens: list[Token]) -> tuple[list, list[Field]]:
    """The operands and keyword fields that ``tokens`` hold, up to the end of the line."""
    return _parse_args(_Cursor(tokens))


def parse_line(tokens: list[Token], lineno: int) -> Line:
    cur = _Cursor(tokens)
    labels = []
    while cur.tok.kind == "ident" and cur.peek().is_op(":"):
        labels.append(cur.next())
        cur.next()
    tok = cur.tok
    if tok.kind == "end":
        return Line(tuple(labels), None)
    if tok.is_op("."):
        name = cur.peek()
        if name.kind != "ident":
            raise LocatedError(tok.location, "expected a directive name after '.'")
        cur.next()
        cur.next()
        operands, fields = _parse_args(cur, name_at=1 if name.text.lower() != "equ" else 0)
        if fields:
            raise LocatedError(fields[0].loc, f"directive .{name.text} takes no keyword fields")
        return Line(tuple(labels), Directive(name.text.lower(), span(tok.location, name.location), tuple(operands),
                                             cur.tok.location, lineno))
    if tok.kind != "ident":
        raise LocatedError(tok.location, f"expected a mnemonic, found {_describe(tok)}")
    cur.next()
    mnemonic, mnemonic_loc = tok.text.upper(), tok.location
    parts = []
    while cur.tok.is_op("."):
        cur.next()
        part = cur.tok
        if part.kind not in ("ident", "int"):
            raise LocatedError(part.location, "expected a type suffix after '.'")
        cur.next()
        if mnemonic in ("DMA", "VF") and not parts and "." not in mnemonic:  # dotted mnemonics, not suffixes
            mnemonic = f"{mnemonic}.{part.text.upper()}"
            mnemonic_loc = span(tok.location, part.location)
        elif len(parts) == 2:
            raise LocatedError(part.location, "too many dotted parts: a mnemonic takes at most two "
                                              "(VCONV.D.S, VCMP.C.T)")
        else:
            parts.append((part.text.lower(), part.location))
    suffix, suffix_loc = parts[0] if parts else (None, None)
    suffix2, suffix2_loc = parts[1] if len(parts) > 1 else (None, None)
    operands, fields = _parse_args(cur)
    return Line(tuple(labels), Statement(mnemonic, mnemonic_loc, suffix, suffix_loc, tuple(operands), tuple(fields),
                                         cur.tok.location, lineno, suffix2, suffix2_loc))
