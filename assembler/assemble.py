"""Two passes from source text to a ``Program``: lay out addresses, then evaluate and encode.

Every problem becomes a located ``Diagnostic``; all of them are reported together in one ``AsmError``.
"""

from __future__ import annotations

import difflib
import math
import re
from fractions import Fraction

import attrs

from assembler.diagnostics import AsmError, Diagnostic, LocatedError, Location
from assembler.lexer import strip_comment, tokenize
from assembler.parser import parse_line
from assembler.preprocess import Expander, read_source
from assembler.suggest import unknown_mnemonic
from assembler.syntax import Binary, Bits, Directive, Field, Group, Mem, Name, Num, Reg, Statement, Unary
from isa import CORE_VALUES, MNEMONICS, TYPES, Inst, Instruction, Kind, Mask, MaskMode, RegOrImm, encode, problems
from isa.functions import layout, operand_problem
from isa.model import GmRef, UbRef
from isa.program import DataRecord, Program, SourceLine
from isa.types import ElementType
from isa.values import float_bits, int_bits

REGISTER_NAME = re.compile(r"[VvPpSs][0-9]+$")
_CORE_WORDS = {"BLOCKIDX": "block index, 0..N-1", "BLOCKNUM": "number of cores N"}
WIDE_MOV = next(row for row in MNEMONICS["MOV"] if row.form == "scalar-mov-wide")
DATA_DIRECTIVES = {"ub": ("ub", "list"), "gm": ("gm", "list"), "ubfill": ("ub", "fill"), "gmfill": ("gm", "fill")}
DIRECTIVES = ("equ", *DATA_DIRECTIVES)
EXPANSION_DIRECTIVES = ("include", "macro", "endm", "rept", "endr")  # handled by assembler.preprocess
MAX_SHIFT = 127
MAX_MAGNITUDE = 1 << 128  # expressions stay far inside this, and no input can make a huge integer
U32_MAX = (1 << 32) - 1
# Register instructions outside a vector function (CONTRACT section 11: an error). True only while
# the programs written before vector functions are moved into them.
BARE_REGISTERS = False
_KIND_WORDS = {
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
}


def _truncating_div(a: int, b: int) -> int:
    """Division rounding toward zero, as in C."""
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


def _apply(op: str, a: int, b: int) -> int:
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
    if op == "|":
        return a | b
    if op == "<<":
        return a << b
    return a >> b


_MNEMONICS = frozenset(m.upper() for m in MNEMONICS)


def all_mnemonics() -> list[str]:
    return sorted(MNEMONICS)


def _suggest(word: str, choices) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.5)
    return f"; did you mean {close[0]}?" if close else ""


def _node_loc(node) -> Location:
    return node.loc


def _shape_fits(kind: Kind, node) -> bool:
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
        if kind is Kind.IMM and isinstance(node, Name) and node.name.upper() in CORE_VALUES:
            return False  # MOV Sd, BLOCKIDX is its own form
        return (isinstance(node, Reg) and node.bank == "S") or not isinstance(node, (Reg, Mem, Group))
    if kind is Kind.CORE:
        return isinstance(node, Name) and node.name.upper() in CORE_VALUES
    return not isinstance(node, (Reg, Mem, Group))


def _read_text(path: str) -> str:
    return read_source(path).decode("utf-8-sig")


class _Assembler:
    def __init__(self, text: str, filename: str, defines: dict[str, int] | None = None, read=_read_text) -> None:
        self.filename = filename
        self.text = text
        self.defines = dict(defines or {})
        # Each file's lines (only \n ends a line: a form feed or U+2028 inside a comment must not
        # shift line numbers), and each expanded line's text by its place (a macro's body after
        # its arguments went in): what a diagnostic quotes.
        self.files: dict[str, list[str]] = {filename: [line.removesuffix("\r") for line in text.split("\n")]}
        self.expanded: dict[tuple, str] = {}

        def reading(path: str) -> str:
            found = read(path)
            self.files[path] = [line.removesuffix("\r") for line in found.split("\n")]
            return found

        self.expander = Expander(reading, self._rept_count, lambda name: name.upper() in _MNEMONICS)
        self.constants_only = False  # evaluating a .rept count: labels are not known yet
        self.diagnostics: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []
        self.labels: dict[str, tuple[int, Location]] = {}
        self.equs: dict[str, tuple[object, Location]] = {}
        self.evaluating: set[str] = set()
        self.equ_values: dict[str, int] = {}
        self.failed_equs: set[str] = set()

    # -- diagnostics -------------------------------------------------------------------------
    def error(self, location: Location, message: str, severity: str = "error") -> None:
        if not message:
            return
        source = self.source_of(location)
        found = Diagnostic(location, message, source.rstrip("\n"), severity)
        (self.warnings if severity == "warning" else self.diagnostics).append(found)

    def source_of(self, location: Location) -> str:
        """The text of the line a location is in, as expanded."""
        found = self.expanded.get((location.file, location.line, location.via))
        if found is not None:
            return found
        lines = self.files.get(location.file, ())
        return lines[location.line - 1] if 0 < location.line <= len(lines) else ""

    def _rept_count(self, item, location: Location) -> int:
        """A .rept count: an expression of constants (.equ above it, -D), evaluated where it stands."""
        line = parse_line(tokenize(item.text, item.file, item.line, item.via), item.line)
        args = line.statement.args if isinstance(line.statement, Directive) else ()
        if len(args) != 1:
            raise LocatedError(location, ".rept is written .rept COUNT")
        self.constants_only = True
        try:
            return self.eval_int(args[0])
        finally:
            self.constants_only = False

    def warn_s0_written(self, row: Instruction, stmt: Statement, inst: Inst, given: dict[str, Field]) -> None:
        """S0 reads as 0 and ignores writes: a destination S0 (or a post= base S0) is almost surely a
        slip (a loop counter in S0 never counts), so say so, though the program is valid."""
        for operand, node, value in zip(row.operands, stmt.operands, inst.operands, strict=True):
            if operand.writes and value == 0:
                self.error(node.loc, f"{row.mnemonic} writes S0, which reads as 0 and ignores writes: "
                                     f"the result is lost (use S1..S31)", "warning")
            elif (operand.kind is Kind.UB and isinstance(value, UbRef) and value.reg == 0
                  and "post" in given and inst.kw("post")):
                self.error(given["post"].loc, "post= updates the base register S0, which ignores writes: the "
                                              "address never moves (use S1..S31)", "warning")

    # -- symbols and expressions -------------------------------------------------------------
    def define(self, name: str, location: Location, what: str) -> bool:
        if REGISTER_NAME.match(name):  # an operand that says S16 is the register, whatever is defined
            self.error(location, f"'{name}' is a register name: a {what} cannot be called that (an operand "
                                 f"{name} always means the register)")
            return False
        if name.upper() in CORE_VALUES:
            self.error(location, f"'{name}' is a reserved name (MOV Sd, {name.upper()} reads the core's "
                                 f"{_CORE_WORDS[name.upper()]}): a {what} cannot be called that")
            return False
        previous = self.labels.get(name) or self.equs.get(name)
        if previous is not None:
            self.error(location, f"duplicate {what} '{name}' (first defined at line {previous[1].line})")
            return False
        if what == "label" and name in self.defines:
            self.error(location, f"'{name}' is defined with -D, so a label cannot be called that")
            return False
        return True

    def value_of(self, name: str, location: Location) -> int:
        if name in self.defines:  # -D wins over a .equ of the same name
            return self.defines[name]
        if name in self.labels:
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
        known = list(self.labels) + list(self.equs) + list(self.defines)
        later = " (a .rept count may use only constants defined above it)" if self.constants_only else ""
        raise LocatedError(location, f"undefined symbol '{name}'{_suggest(name, known)}{later}")

    def _equ_order(self) -> list[str]:
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
            return {"-": -value, "+": value, "~": ~value}[node.op]
        if isinstance(node, Binary):
            # a + b + c ... leans left: walk its spine instead of recursing, so length costs no depth
            spine = []
            while isinstance(node, Binary):
                spine.append(node)
                node = node.left
            value = self.eval_int(node)
            for level in reversed(spine):
                b, op = self.eval_int(level.right), level.op
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

    # -- pass 1 ------------------------------------------------------------------------------
    def select_row(self, stmt: Statement) -> Instruction:
        rows = MNEMONICS.get(stmt.mnemonic)
        if rows is None:
            raise LocatedError(stmt.mnemonic_loc, unknown_mnemonic(stmt.mnemonic, all_mnemonics(), stmt.suffix))
        for row in rows:
            if all(_shape_fits(o.kind, n) for o, n in zip(row.operands, stmt.operands, strict=False)):
                return row
        return rows[0]

    @staticmethod
    def size_of(row: Instruction, stmt: Statement) -> int:
        masked = row.has_mask and any(f.name in ("mask", "count") for f in stmt.fields)
        return (row.words + (2 if masked else 0)) * 8

    # -- pass 2 ------------------------------------------------------------------------------
    def element_type(self, row: Instruction, stmt: Statement) -> tuple[ElementType | None, ElementType | None,
                                                                         str | None]:
        """The type, the source type (VCONV.D.S) and the condition (VCMP.C.T) the mnemonic names."""
        if row.conditions:
            if stmt.suffix is None or stmt.suffix2 is None:
                raise LocatedError(stmt.suffix_loc or stmt.mnemonic_loc,
                                   f"{row.mnemonic} is written {row.mnemonic}.{row.part}.T, {row.part} one of "
                                   f"{', '.join(row.conditions)} (e.g. {row.mnemonic}.{row.conditions[-1]}.f16)")
            cond = stmt.suffix.upper()
            if cond not in row.conditions:
                raise LocatedError(stmt.suffix_loc, f"unknown {row.part_word} '.{stmt.suffix}': {row.mnemonic} "
                                                    "takes " + ", ".join(row.conditions))
            return self._one_type(row, row.types, stmt.suffix2, stmt.suffix2_loc, stmt), None, cond
        if row.source_types:
            if stmt.suffix is None or stmt.suffix2 is None:
                raise LocatedError(stmt.suffix_loc or stmt.mnemonic_loc,
                                   f"{row.mnemonic} names two types, destination then source: "
                                   f"{row.mnemonic}.D.S (VCONV.f16.f32 converts f32 to f16)")
            dst = self._one_type(row, row.types, stmt.suffix, stmt.suffix_loc, stmt)
            src = self._one_type(row, row.source_types, stmt.suffix2, stmt.suffix2_loc, stmt)
            return dst, src, None
        if stmt.suffix2 is not None:
            raise LocatedError(stmt.suffix2_loc, f"{row.mnemonic} takes one type suffix")
        if not row.typed:
            if stmt.suffix is not None:
                raise LocatedError(stmt.suffix_loc, f"{row.mnemonic} takes no type suffix")
            return None, None, None
        return self._one_type(row, row.types, stmt.suffix, stmt.suffix_loc, stmt), None, None

    def _one_type(self, row: Instruction, allowed, suffix: str | None, loc, stmt: Statement) -> ElementType:
        choices = ", ".join("." + t for t in allowed)
        if suffix is None:
            raise LocatedError(stmt.mnemonic_loc, f"{row.mnemonic} needs a type suffix ({choices})")
        etype = TYPES.get(suffix)
        if etype is None:
            raise LocatedError(loc, f"unknown type '.{suffix}'{_suggest(suffix, TYPES)}")
        if etype.name not in allowed:
            raise LocatedError(loc, f"{row.mnemonic} does not take .{etype.name} (takes {choices})")
        return etype

    def operand_value(self, operand, node, etype: ElementType | None):
        kind = operand.kind
        if not _shape_fits(kind, node):
            if isinstance(node, Reg):
                raise LocatedError(node.loc, f"bad register {node.bank}{node.index}: expected {_KIND_WORDS[kind]}")
            raise LocatedError(node.loc, f"expected {_KIND_WORDS[kind]} for {operand.name}, found something else")
        if kind in (Kind.VREG, Kind.PREG, Kind.SREG):
            return node.index
        if kind in (Kind.UB, Kind.UB_BYTE, Kind.GM):
            offset = self.eval_int(node.offset) if node.offset is not None else 0
            ref = GmRef if kind is Kind.GM else UbRef
            return ref(node.reg.index if node.reg is not None else None, offset)
        if kind is Kind.SCALAR:
            if isinstance(node, Reg):
                return RegOrImm(node.index)
            return RegOrImm(None, self.element_bits(node, etype))
        if kind in (Kind.SRC, Kind.IMM):
            if isinstance(node, Reg):
                return RegOrImm(node.index)
            value = self.eval_int(node)
            if kind is Kind.IMM and not -(1 << 63) <= value < 1 << 64:
                raise LocatedError(node.loc, f"constant {value} does not fit 64 bits: MOV takes -2^63 .. 2^64-1")
            if kind is Kind.IMM and value >= 1 << 63:  # MOV: a 64-bit pattern written unsigned, kept as Sd holds it
                value -= 1 << 64
            return RegOrImm(None, value)
        if kind in (Kind.TARGET, Kind.EVENT):
            return self.eval_int(node)
        # PIPE, BARRIER_PIPE, PATTERN: a bare name.
        if not isinstance(node, Name):
            raise LocatedError(node.loc, f"expected {_KIND_WORDS[kind]}")
        return node.name.upper()

    def keyword_values(self, row: Instruction, stmt: Statement) -> tuple[tuple, Mask | None, dict[str, Field]]:
        given: dict[str, Field] = {}
        for f in stmt.fields:
            if f.name in given:
                raise LocatedError(f.loc, f"field {f.name}= given twice")
            names = [k.name for k in row.keywords] + (["mask", "count"] if row.has_mask else [])
            if f.name not in names:
                fields = ", ".join(n + "=" for n in names) or "none"
                raise LocatedError(f.loc, f"unknown field {f.name}= for {row.mnemonic} (fields: {fields})"
                                   + _suggest(f.name, names))
            given[f.name] = f
        values = []
        for spec in row.keywords:
            f = given.get(spec.name)
            if f is None:
                values.append(spec.default)
            elif spec.preg:
                if not (isinstance(f.value, Reg) and f.value.bank == "P"):
                    raise LocatedError(f.value_loc, f"{spec.name}= takes a mask register P0..P7")
                values.append(f.value.index)
            elif spec.choices:
                name = f.value.name.lower() if isinstance(f.value, Name) else None
                if name not in spec.choices:
                    raise LocatedError(f.value_loc, f"{spec.name}= takes one of {', '.join(spec.choices)}"
                                       + (_suggest(name, spec.choices) if name else ""))
                values.append(spec.choices.index(name))
            else:
                values.append(self.eval_int(f.value))
        mask = None
        if "count" in given:
            for other in ("repeat", "mask"):
                if other in given:
                    raise LocatedError(given["count"].loc, f"count= cannot be combined with {other}=")
            mask = Mask(MaskMode.COUNT, self.eval_int(given["count"].value))
        elif "mask" in given:
            value = given["mask"].value
            if isinstance(value, Group):
                if len(value.items) != 2:
                    raise LocatedError(value.loc, "a bit mask is written (LOW, HIGH)")
                mask = Mask(MaskMode.BITS, *(self.mask_word(item) for item in value.items))
            else:
                mask = Mask(MaskMode.CONTINUOUS, self.eval_int(value))
        return tuple(values), mask, given

    def instruction(self, row: Instruction, stmt: Statement) -> Inst:
        etype, source, cond = self.element_type(row, stmt)
        if len(stmt.operands) > len(row.operands):
            extra = stmt.operands[len(row.operands)]
            raise LocatedError(_node_loc(extra), f"unexpected operand: {row.mnemonic} takes {len(row.operands)}")
        if len(stmt.operands) < len(row.operands):
            missing = row.operands[len(stmt.operands)]
            raise LocatedError(stmt.end, f"missing operand {missing.name} ({_KIND_WORDS[missing.kind]}) "
                                         f"for {row.syntax}")
        operands = tuple(self.operand_value(o, n, etype) for o, n in zip(row.operands, stmt.operands, strict=True))
        keywords, mask, given = self.keyword_values(row, stmt)
        inst = Inst(row, etype, operands, keywords, mask, source, cond)
        self.warn_s0_written(row, stmt, inst, given)
        found = problems(inst)
        if found:
            slot, message = found[0]
            where = {o.name: n.loc for o, n in zip(row.operands, stmt.operands, strict=True)}
            where.update({name: f.value_loc for name, f in given.items()})
            where["type"] = stmt.suffix_loc or stmt.mnemonic_loc
            where["condition"] = stmt.suffix_loc or stmt.mnemonic_loc
            if row.conditions:
                where["type"] = stmt.suffix2_loc
            where["source_type"] = stmt.suffix2_loc or stmt.mnemonic_loc
            raise LocatedError(where.get(slot, stmt.end), message)
        return inst

    def data_record(self, directive: Directive) -> DataRecord:
        space, kind = DATA_DIRECTIVES[directive.name]
        args = directive.args
        least = 4 if kind == "fill" else 3
        if len(args) < least:
            form = "ADDR, TYPE, COUNT, VALUE" if kind == "fill" else "ADDR, TYPE, v0, v1, ..."
            raise LocatedError(directive.end, f".{directive.name} needs {form}")
        if kind == "fill" and len(args) > 4:
            raise LocatedError(_node_loc(args[4]), f"unexpected operand: .{directive.name} takes 4")
        addr = self.eval_int(args[0])
        if not 0 <= addr <= U32_MAX:
            raise LocatedError(_node_loc(args[0]), f"address {addr} out of range 0..0x{U32_MAX:x}")
        type_node = args[1]
        etype = TYPES.get(type_node.name.lower()) if isinstance(type_node, Name) else None
        if etype is None or etype.kind == "mask":
            data_types = ", ".join(t.name for t in TYPES.values() if t.kind != "mask")
            raise LocatedError(_node_loc(type_node), f"expected an element type ({data_types})")
        if kind == "fill":
            count = self.eval_int(args[2])
            if not 1 <= count <= U32_MAX:
                raise LocatedError(_node_loc(args[2]), f"count {count} out of range 1..{U32_MAX}")
            values = [args[3]]
        else:
            count = len(args) - 2
            values = args[2:]
        if addr + count * etype.size > U32_MAX + 1:
            raise LocatedError(_node_loc(args[0]), "data runs past the 4 GiB address space")
        payload = b"".join(self.element_bits(v, etype).to_bytes(etype.size, "little") for v in values)
        return DataRecord(space, kind, etype.name, addr, count, payload)

    def run(self) -> Program:
        parsed = []
        label_slots: list[tuple[str, int]] = []  # each label and the statement it stands before
        pc = 0
        for item in self.expander.expand(self.text, self.filename):
            self.expanded[(item.file, item.line, item.via)] = item.shown or item.text
            try:
                line = parse_line(tokenize(item.text, item.file, item.line, item.via), item.line)
            except LocatedError as err:
                self.error(err.location, err.message)
                continue
            except RecursionError:
                self.error(Location(item.file, item.line, 1, 1, item.via), TOO_DEEP)
                continue
            for label in line.labels:
                if self.define(label.text, label.location, "label"):
                    self.labels[label.text] = (pc, label.location)
                    label_slots.append((label.text, len(parsed)))
            stmt = line.statement
            if isinstance(stmt, Directive):
                if stmt.name == "equ":
                    self.pass1_equ(stmt)
                elif stmt.name in EXPANSION_DIRECTIVES:
                    self.error(stmt.loc, f".{stmt.name} stands alone on its line (no label before it)")
                elif stmt.name not in DIRECTIVES:
                    self.error(stmt.loc, f"unknown directive '.{stmt.name}'"
                                         + _suggest(stmt.name, DIRECTIVES).replace("mean ", "mean ."))
                else:
                    parsed.append((stmt, None, None))
            elif isinstance(stmt, Statement):
                try:
                    row = self.select_row(stmt)
                except LocatedError as err:
                    self.error(err.location, err.message)
                    continue
                parsed.append((stmt, row, pc))
                pc += self.size_of(row, stmt)
        for err in self.expander.errors:
            self.error(err.location, err.message)
        while self._widen_movs(parsed, label_slots):
            pass
        for name in self._equ_order():
            location = self.equs[name][1]
            try:
                self.value_of(name, location)
            except LocatedError as err:
                self.error(err.location, err.message)
                self.failed_equs.add(name)
            except RecursionError:
                self.error(location, TOO_DEEP)
                self.failed_equs.add(name)
        statements = {at: stmt for stmt, row, at in parsed if row is not None}
        functions, problems = layout(((at, row) for stmt, row, at in parsed if row is not None), BARE_REGISTERS)
        for at, message in problems:
            self.error(statements[at].mnemonic_loc, message)
        words: list[int] = []
        data: list[DataRecord] = []
        data_source: list[tuple] = []
        source: dict[int, SourceLine] = {}
        for stmt, row, at in parsed:
            try:
                if row is None:
                    data.append(self.data_record(stmt))
                    code = strip_comment(self.source_of(stmt.loc))[stmt.loc.col - 1:]
                    data_source.append((_program_line(stmt.loc), stmt.loc.col, code.strip()))
                    continue
                inst = self.instruction(row, stmt)
            except LocatedError as err:
                self.error(err.location, err.message)
                continue
            except RecursionError:
                self.error(stmt.loc if isinstance(stmt, Directive) else stmt.mnemonic_loc, TOO_DEEP)
                continue
            assert at == len(words) * 8 or self.diagnostics
            self.check_in_function(inst, stmt, functions)
            words += encode(inst)
            # The statement as written, without its label or comment: reports and faults quote it.
            code = strip_comment(self.source_of(stmt.mnemonic_loc))[stmt.mnemonic_loc.col - 1:]
            source[at] = SourceLine(_program_line(stmt.mnemonic_loc), code.strip(), stmt.mnemonic_loc.col)
        if self.diagnostics:
            raise AsmError(self.diagnostics)
        labels = {name: pc for name, (pc, _) in self.labels.items()}
        warnings = AsmError(self.warnings).diagnostics
        return Program(tuple(words), tuple(data), source, self.filename, labels, tuple(data_source), warnings)

    def _widen_movs(self, parsed: list, label_slots: list) -> bool:
        """Give the two-word MOV to each MOV whose constant does not fit the one-word form's 50 bits,
        and lay the program out again (labels move, so constants that use them may change: the
        caller repeats until nothing more widens). True when a MOV was widened."""
        self.equ_values.clear()
        widened = False
        for k, (stmt, row, at) in enumerate(parsed):
            if row is None or row.form != "scalar-mov" or len(stmt.operands) != 2 or isinstance(stmt.operands[1], Reg):
                continue
            try:
                value = self.eval_int(stmt.operands[1])
            except (LocatedError, RecursionError):
                continue  # its error is reported in pass 2
            if value >= 1 << 63:
                value -= 1 << 64  # as Sd holds it
            if not -(1 << 49) <= value < 1 << 49 and value >= -(1 << 63):
                parsed[k] = (stmt, WIDE_MOV, at)
                widened = True
        self.equ_values.clear()
        if widened:
            pc, starts = 0, []
            for k, (stmt, row, _) in enumerate(parsed):
                starts.append(pc)
                if row is not None:
                    parsed[k] = (stmt, row, pc)
                    pc += self.size_of(row, stmt)
            starts.append(pc)
            for name, slot in label_slots:
                self.labels[name] = (starts[slot], self.labels[name][1])
        return widened

    def check_in_function(self, inst: Inst, stmt: Statement, functions) -> None:
        """What only the operands' values show: a branch into a function, a negative loop count."""
        found = operand_problem(inst, functions)
        if found is not None:
            operand = stmt.operands[0] if inst.row.family == "loop" else stmt.operands[-1]
            self.error(_node_loc(operand), found)

    def pass1_equ(self, directive: Directive) -> None:
        args = directive.args
        if len(args) != 2 or not isinstance(args[0], Name):
            self.error(directive.loc if not args else _node_loc(args[0]), ".equ is written .equ NAME, EXPR")
            return
        name = args[0]
        if self.define(name.name, name.loc, "constant"):
            self.equs[name.name] = (args[1], name.loc)


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


TOO_DEEP = "expression nested too deeply, or a chain of constants too long, for the assembler"


def parse_define(text: str) -> tuple[str, int]:
    """``NAME=VALUE`` of ``-D``: VALUE is a constant expression (4096, 0x1000, 64 * 4, -1). Raises
    ValueError with the reason."""
    name, eq, value = text.partition("=")
    name = name.strip()
    if not eq or not value.strip():
        raise ValueError(f"-D {text}: write -D NAME=VALUE")
    if not re.fullmatch(r"[A-Za-z_.$][\w.$]*", name):
        raise ValueError(f"-D {text}: '{name}' is not a name")
    if REGISTER_NAME.match(name):
        raise ValueError(f"-D {text}: '{name}' is a register name")
    if name.upper() in _MNEMONICS:
        raise ValueError(f"-D {text}: '{name}' is an instruction")
    if name.upper() in CORE_VALUES:
        raise ValueError(f"-D {text}: '{name}' is a reserved name (the core's {_CORE_WORDS[name.upper()]}, read "
                         f"with MOV Sd, {name.upper()})")
    evaluator = _Assembler("", "-D")
    try:
        tokens = tokenize(value, "-D", 1)
        line = parse_line(tokenize(".equ X, " + value, "-D", 1), 1) if tokens else None
        args = line.statement.args if line is not None and isinstance(line.statement, Directive) else ()
        if len(args) != 2:
            raise ValueError(f"-D {text}: '{value}' is not a constant expression")
        evaluator.constants_only = True
        return name, evaluator.eval_int(args[1])
    except LocatedError as err:
        raise ValueError(f"-D {text}: {err.message}") from None


def _program_line(location: Location) -> int:
    """The line of the program (not of a macro body or an included file) a statement came from."""
    return location.via[-1].line if location.via else location.line


def assemble(text: str, filename: str = "<input>", defines: dict[str, int] | None = None, read=_read_text) -> Program:
    """Assemble source text; raises ``AsmError`` with every diagnostic. ``defines`` are -D
    constants (they win over a .equ of the same name); ``read(path)`` reads an included file."""
    return _Assembler(text, filename, defines, read).run()
