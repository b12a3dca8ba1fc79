"""The assembler's names and the values its expressions stand for.

``Symbols`` holds the program's labels, its ``.equ`` constants and the ``-D`` defines, says why a name
cannot be defined (a register name, a reserved word, a duplicate), and evaluates expressions over
those names: integers (C's operators and their order, truncating division, comparisons of the
exact values, ``&&`` and ``||`` that skip a right operand that cannot matter, bounded shifts and
magnitudes, a long sum walked without recursion), float operands (exact fractions, so that a value
is rounded to its element type once), 64-bit mask words, and the bit pattern of a value written for
an element type. A constant is evaluated when first used; ``equ_order`` gives an order in which
evaluating them never recurses deeply. A name that does not resolve is a ``LocatedError`` saying why.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import attrs

from vcore.assembler.diagnostics import LocatedError, Location, did_you_mean
from vcore.assembler.syntax import Binary, Bits, Defined, Group, Mem, Name, Num, Reg, Unary
from vcore.isa import CORE_VALUES
from vcore.isa.model import SPECIAL_REGISTERS
from vcore.isa.types import ElementType
from vcore.isa.values import float_bits, int_bits

REGISTER_NAME = re.compile(r"[VvPpSs][0-9]+$")
CORE_WORDS = {"BLOCKIDX": "block index, 0..N-1", "BLOCKNUM": "number of cores N"}
# Names of special registers (isa.model.SPECIAL_REGISTERS: RSVDCNT, AR, MRGCNT0..3), reserved in any case:
# MOV Sd, RSVDCNT reads one, so none can be a label or a constant.
MAX_SHIFT = 127
MAX_MAGNITUDE = 1 << 128  # expressions stay far inside this, and no input can make a huge integer


def _truncating_div(a: int, b: int) -> int:
    """Division rounding toward zero, as in C."""
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


_COMPARE = {"<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__, "==": int.__eq__, "!=": int.__ne__}
_SHORT_CIRCUIT = {"&&": 0, "||": 1}  # the left value (as 0 or 1) that decides the result without the right


def _apply(op: str, a: int, b: int) -> int:
    """``a op b`` for a binary operator other than ``&&`` and ``||``: comparisons of the exact
    (unbounded, signed) values give 1 or 0."""
    if op in _COMPARE:
        return int(_COMPARE[op](a, b))
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        return _truncating_div(a, b)
    if op == "%":
        return a - b * _truncating_div(a, b)
    if op == "&":
        return a & b
    if op == "^":
        return a ^ b
    if op == "|":
        return a | b
    if op == "<<":
        return a << b
    return a >> b


class Symbols:
    """The labels, ``.equ`` constants and ``-D`` defines of one assembly, and the evaluator of the
    expressions that use them."""

    def __init__(self, defines: dict[str, int] | None = None) -> None:
        self.defines = dict(defines or {})
        self.constants_only = False  # evaluating a .rept count or a .if: labels are not known yet
        self.conditional = False  # evaluating a .if or .elif: defined(NAME) stands, labels have no value
        self.labels: dict[str, tuple[int, Location]] = {}
        self.equs: dict[str, tuple[object, Location]] = {}
        self.evaluating: set[str] = set()
        self.equ_values: dict[str, int] = {}
        self.failed_equs: set[str] = set()

    def refusal(self, name: str, what: str) -> str | None:
        """Why ``name`` cannot be defined as a ``what`` (label or constant), or None if it can."""
        if REGISTER_NAME.match(name):  # an operand that says S16 is the register, whatever is defined
            return (f"'{name}' is a register name: a {what} cannot be called that (an operand "
                    f"{name} always means the register)")
        if name.upper() in CORE_VALUES:
            return (f"'{name}' is a reserved name (MOV Sd, {name.upper()} reads the core's "
                    f"{CORE_WORDS[name.upper()]}): a {what} cannot be called that")
        if name.upper() in SPECIAL_REGISTERS:
            return f"'{name}' is a reserved name (a special register's): a {what} cannot be called that"
        previous = self.labels.get(name) or self.equs.get(name)
        if previous is not None:
            return f"duplicate {what} '{name}' (first defined at line {previous[1].line})"
        if what == "label" and name in self.defines:
            return f"'{name}' is defined with -D, so a label cannot be called that"
        return None

    def value_of(self, name: str, location: Location) -> int:
        if name in self.defines:  # -D wins over a .equ of the same name
            return self.defines[name]
        if name in self.labels:
            if self.conditional:
                raise LocatedError(location, "labels have no value during conditional assembly; use .equ")
            if self.constants_only:
                raise LocatedError(location, f"'{name}' is a label: a .rept count must be a constant (.equ or -D)")
            return self.labels[name][0]
        if name in self.equ_values:
            return self.equ_values[name]
        if name in self.failed_equs:
            raise LocatedError(location, "")  # its error is reported once, at the .equ
        if name in self.equs:
            if name in self.evaluating:
                raise LocatedError(location, f"constant '{name}' is defined in terms of itself")
            self.evaluating.add(name)
            try:
                value = self.eval_int(self.equs[name][0])
            finally:
                self.evaluating.discard(name)
            self.equ_values[name] = value
            return value
        if name.upper() in CORE_VALUES:
            raise LocatedError(location, f"{name.upper()} is not a constant: read it into a register with "
                                         f"MOV Sd, {name.upper()} and compute with the register")
        if name.upper() in SPECIAL_REGISTERS:
            raise LocatedError(location, f"{name.upper()} is reserved for a special register: it is not a constant")
        known = list(self.equs) + list(self.defines)
        if self.conditional:
            raise LocatedError(location, f"undefined symbol '{name}' in .if{did_you_mean(name, known)}")
        later = " (a .rept count may use only constants defined above it)" if self.constants_only else ""
        known += list(self.labels)
        raise LocatedError(location, f"undefined symbol '{name}'{did_you_mean(name, known)}{later}")

    def is_defined(self, name: str) -> bool:
        """Whether ``name`` is a constant defined so far (a .equ above, or -D): .ifdef's question."""
        return name in self.defines or name in self.equs

    def equ_order(self) -> list[str]:
        """The constants in an order where those a constant uses come before it (a depth-first
        walk kept on an explicit stack), so that evaluating them never recurses deeply."""
        order: list[str] = []
        seen: set[str] = set()
        for root in self.equs:
            if root in seen:
                continue
            seen.add(root)
            stack = [(root, iter(_names_in(self.equs[root][0])))]
            while stack:
                name, uses = stack[-1]
                for used in uses:
                    if used in self.equs and used not in seen:
                        seen.add(used)
                        stack.append((used, iter(_names_in(self.equs[used][0]))))
                        break
                else:
                    stack.pop()
                    order.append(name)
        return order

    def eval_int(self, node) -> int:
        if isinstance(node, Num):
            if isinstance(node.value, float):
                raise LocatedError(node.loc, f"expected an integer, found {node.value!r}")
            return node.value
        if isinstance(node, Name):
            return self.value_of(node.name, node.loc)
        if isinstance(node, Unary):
            value = self.eval_int(node.operand)
            return {"-": -value, "+": value, "~": ~value, "!": int(value == 0)}[node.op]
        if isinstance(node, Binary):
            # a + b + c ... leans left: walk its spine instead of recursing, so length costs no depth
            spine = []
            while isinstance(node, Binary):
                spine.append(node)
                node = node.left
            value = self.eval_int(node)
            for level in reversed(spine):
                op = level.op
                if op in _SHORT_CIRCUIT:  # the right operand is evaluated only when the left does not decide
                    left = int(value != 0)
                    value = left if left == _SHORT_CIRCUIT[op] else int(self.eval_int(level.right) != 0)
                    continue
                b = self.eval_int(level.right)
                if op in ("/", "%") and b == 0:
                    raise LocatedError(level.right.loc, "division by zero")
                if op in ("<<", ">>") and not 0 <= b <= MAX_SHIFT:
                    raise LocatedError(level.right.loc, f"shift count {b} out of range 0..{MAX_SHIFT}")
                value = _apply(op, value, b)
                if abs(value) >= MAX_MAGNITUDE:
                    raise LocatedError(level.loc, "value out of range of a 128-bit number")
            return value
        if isinstance(node, Bits):
            raise LocatedError(node.loc, "bits(...) stands only where a float value is expected")
        if isinstance(node, Defined):
            if not self.conditional or self.evaluating:  # not in a .equ, even one a .if uses
                raise LocatedError(node.loc, "defined(NAME) is valid only in .if/.elif expressions")
            return int(self.is_defined(node.name))
        raise LocatedError(node.loc, "expected an expression")

    def _eval_float(self, node) -> float | Fraction:
        """A float operand: exact (a Fraction) for literals and integers, so that it is rounded to
        the element type once; a float for inf and nan."""
        if isinstance(node, Num) and isinstance(node.value, float):
            if node.text is not None and math.isfinite(node.value) and node.value != 0:  # 0: keep its sign
                return Fraction(node.text.replace("_", ""))
            return node.value
        if isinstance(node, Name) and node.name.lower() in ("inf", "nan") and node.name not in self.equs:
            return float(node.name.lower())
        if isinstance(node, Unary) and node.op in ("-", "+"):
            value = self._eval_float(node.operand)
            if node.op == "+":
                return value
            return -float(value) if value == 0 else -value  # -0 stays a signed zero
        if isinstance(node, (Reg, Mem, Group)):
            raise LocatedError(node.loc, "expected a number")
        value = self.eval_int(node)
        return Fraction(value) if value else 0.0

    def mask_word(self, node) -> int:
        """A 64-bit mask word; a negative value is its two's complement, so ~0 is all ones."""
        value = self.eval_int(node)
        if -(1 << 63) <= value < 0:
            value &= (1 << 64) - 1
        return value

    def element_bits(self, node, etype: ElementType) -> int:
        """The bit pattern of a value written for element type ``etype``."""
        if isinstance(node, Bits):
            value = self.eval_int(node.expr)
            if not 0 <= value < 1 << etype.bits:
                raise LocatedError(node.loc, f"bits(0x{value:x}) does not fit {etype.name}")
            return value
        if etype.is_float:
            try:
                # Rounded to nearest even like any IEEE conversion: a finite value past the largest
                # one becomes inf (NaN in e4m3, which has no infinity).
                return float_bits(self._eval_float(node), etype)
            except OverflowError:
                raise LocatedError(node.loc, f"value too large for {etype.name}") from None
        value = self.eval_int(node)
        lo, hi = etype.int_range()
        if not lo <= value <= hi:
            raise LocatedError(node.loc, f"value {value} out of range {lo}..{hi} of {etype.name}")
        return int_bits(value, etype)


def _names_in(node) -> list[str]:
    """Every name an expression uses (walked without recursion)."""
    names, todo = [], [node]
    while todo:
        item = todo.pop()
        if isinstance(item, Name):
            names.append(item.name)
        elif isinstance(item, tuple):
            todo.extend(item)
        elif attrs.has(type(item)):
            todo.extend(v for v in attrs.astuple(item, recurse=False) if isinstance(v, tuple) or attrs.has(type(v)))
    return names
