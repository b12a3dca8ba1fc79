"""Two passes from source text to a ``Program``: lay out addresses, then evaluate and encode.

This is the driver. Pass 1 expands the source (``assembler.preprocess``: includes, macros,
repetitions), parses each line (``assembler.parser``), defines its labels and ``.equ`` constants
(``assembler.expressions.Symbols``) and lays out each statement's address from the row its operands
fit (``assembler.instructions``), giving the two-word MOV to a constant that needs it until the layout
holds. Pass 2 evaluates the constants, checks the shape of the vector functions
(``assembler.structure``) and turns each statement into its words (``assembler.instructions``) or its
data record (``assembler.data``), keeping each one's source line for reports and faults. Every problem
becomes a located ``Diagnostic``; all of them are reported together in one ``AsmError``.
``parse_define`` reads the ``NAME=VALUE`` of ``-D``.
"""

from __future__ import annotations

import re

from vcore.assembler.data import DATA_DIRECTIVES, data_record
from vcore.assembler.diagnostics import AsmError, Diagnostic, LocatedError, Location, did_you_mean
from vcore.assembler.expressions import CORE_WORDS, REGISTER_NAME, SPECIAL_REGISTERS, Symbols
from vcore.assembler.instructions import instruction, select_row, size_of
from vcore.assembler.lexer import strip_comment, tokenize
from vcore.assembler.parser import parse_line, parse_operands
from vcore.assembler.preprocess import Expander, read_source
from vcore.assembler.structure import function_layout, misplaced_operand
from vcore.assembler.syntax import Directive, Name, Reg, Statement
from vcore.isa import CORE_VALUES, MNEMONICS, Inst, encode
from vcore.isa.program import DataRecord, Program, SourceLine

WIDE_MOV = next(row for row in MNEMONICS["MOV"] if row.form == "scalar-mov-wide")
DIRECTIVES = ("equ", *DATA_DIRECTIVES)
# Handled by assembler.preprocess (and assembler.conditionals).
EXPANSION_DIRECTIVES = ("include", "macro", "endm", "rept", "endr", "error", "if", "ifdef", "ifndef", "elif", "else",
                        "endif")
TOO_DEEP = "expression nested too deeply, or a chain of constants too long, for the assembler"
_MNEMONICS = frozenset(m.upper() for m in MNEMONICS)


def _read_text(path: str) -> str:
    return read_source(path).decode("utf-8-sig")


class _Assembler:
    """One assembly: the source files' lines, the expansion, the symbols, and the diagnostics found."""

    def __init__(self, text: str, filename: str, defines: dict[str, int] | None = None, read=_read_text) -> None:
        self.filename = filename
        self.text = text
        # Each file's lines (only \n ends a line: a form feed or U+2028 inside a comment must not
        # shift line numbers), and each expanded line's text by its place (a macro's body after
        # its arguments went in): what a diagnostic quotes.
        self.files: dict[str, list[str]] = {filename: [line.removesuffix("\r") for line in text.split("\n")]}
        self.expanded: dict[tuple, str] = {}

        def reading(path: str) -> str:
            found = read(path)
            self.files[path] = [line.removesuffix("\r") for line in found.split("\n")]
            return found

        self.symbols = Symbols(defines)
        self.expander = Expander(reading, self._directive_value, lambda name: name.upper() in _MNEMONICS,
                                 self.symbols.is_defined)
        self.diagnostics: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []

    # -- diagnostics -------------------------------------------------------------------------
    def error(self, location: Location, message: str, severity: str = "error") -> None:
        if not message:
            return
        source = self.source_of(location)
        found = Diagnostic(location, message, source.rstrip("\n"), severity)
        (self.warnings if severity == "warning" else self.diagnostics).append(found)

    def warn(self, location: Location, message: str) -> None:
        self.error(location, message, "warning")

    def source_of(self, location: Location) -> str:
        """The text of the line a location is in, as expanded."""
        found = self.expanded.get((location.file, location.line, location.via))
        if found is not None:
            return found
        lines = self.files.get(location.file, ())
        return lines[location.line - 1] if 0 < location.line <= len(lines) else ""

    def _directive_value(self, item, word: str, location: Location) -> int:
        """The value of the expression at ``location`` on a ``.rept`` line (its count) or a ``.if`` or
        ``.elif`` line (``word``): constants only (.equ above it, -D), evaluated where it stands."""
        symbols = self.symbols
        at = location.col - 1  # the expression alone, at its own columns
        try:
            tokens = tokenize(" " * at + item.text[at:], item.file, item.line, item.via)
            args, fields = parse_operands(tokens)
            if fields:
                raise LocatedError(fields[0].loc, f"directive .{word} takes no keyword fields")
            if len(args) != 1:
                raise LocatedError(location, f".{word} is written .{word} {'COUNT' if word == 'rept' else 'EXPR'}")
            symbols.constants_only = True
            symbols.conditional = word != "rept"
            return symbols.eval_int(args[0])
        except RecursionError:
            raise LocatedError(location, TOO_DEEP) from None
        finally:
            symbols.constants_only = symbols.conditional = False

    def define(self, name: str, location: Location, what: str) -> bool:
        """Whether ``name`` may be defined as a ``what`` (label or constant); if not, say why."""
        refusal = self.symbols.refusal(name, what)
        if refusal is not None:
            self.error(location, refusal)
            return False
        return True

    def run(self) -> Program:
        symbols = self.symbols
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
                    symbols.labels[label.text] = (pc, label.location)
                    label_slots.append((label.text, len(parsed)))
            stmt = line.statement
            if isinstance(stmt, Directive):
                if stmt.name == "equ":
                    self.pass1_equ(stmt)
                elif stmt.name in EXPANSION_DIRECTIVES:
                    self.error(stmt.loc, f".{stmt.name} stands alone on its line (no label before it)")
                elif stmt.name not in DIRECTIVES:
                    self.error(stmt.loc, f"unknown directive '.{stmt.name}'"
                                         + did_you_mean(stmt.name, DIRECTIVES).replace("mean ", "mean ."))
                else:
                    parsed.append((stmt, None, None))
            elif isinstance(stmt, Statement):
                try:
                    row = select_row(stmt)
                except LocatedError as err:
                    self.error(err.location, err.message)
                    continue
                parsed.append((stmt, row, pc))
                pc += size_of(row, stmt)
        for err in self.expander.errors:
            self.error(err.location, err.message)
        while self._widen_movs(parsed, label_slots):
            pass
        for name in symbols.equ_order():
            location = symbols.equs[name][1]
            try:
                symbols.value_of(name, location)
            except LocatedError as err:
                self.error(err.location, err.message)
                symbols.failed_equs.add(name)
            except RecursionError:
                self.error(location, TOO_DEEP)
                symbols.failed_equs.add(name)
        functions, problems = function_layout(parsed)
        for location, message in problems:
            self.error(location, message)
        words: list[int] = []
        data: list[DataRecord] = []
        data_source: list[tuple] = []
        source: dict[int, SourceLine] = {}
        for stmt, row, at in parsed:
            try:
                if row is None:
                    data.append(data_record(symbols, stmt))
                    code = strip_comment(self.source_of(stmt.loc))[stmt.loc.col - 1:]
                    data_source.append((_program_line(stmt.loc), stmt.loc.col, code.strip()))
                    continue
                inst = instruction(symbols, row, stmt, self.warn)
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
        labels = {name: pc for name, (pc, _) in symbols.labels.items()}
        warnings = AsmError(self.warnings).diagnostics
        return Program(tuple(words), tuple(data), source, self.filename, labels, tuple(data_source), warnings)

    def _widen_movs(self, parsed: list, label_slots: list) -> bool:
        """Give the two-word MOV to each MOV whose constant does not fit the one-word form's 50 bits,
        and lay the program out again (labels move, so constants that use them may change: the
        caller repeats until nothing more widens). True when a MOV was widened."""
        self.symbols.equ_values.clear()
        widened = False
        for k, (stmt, row, at) in enumerate(parsed):
            if row is None or row.form != "scalar-mov" or len(stmt.operands) != 2 or isinstance(stmt.operands[1], Reg):
                continue
            try:
                value = self.symbols.eval_int(stmt.operands[1])
            except (LocatedError, RecursionError):
                continue  # its error is reported in pass 2
            if value >= 1 << 63:
                value -= 1 << 64  # as Sd holds it
            if not -(1 << 49) <= value < 1 << 49 and value >= -(1 << 63):
                parsed[k] = (stmt, WIDE_MOV, at)
                widened = True
        self.symbols.equ_values.clear()
        if widened:
            pc, starts = 0, []
            for k, (stmt, row, _) in enumerate(parsed):
                starts.append(pc)
                if row is not None:
                    parsed[k] = (stmt, row, pc)
                    pc += size_of(row, stmt)
            starts.append(pc)
            for name, slot in label_slots:
                self.symbols.labels[name] = (starts[slot], self.symbols.labels[name][1])
        return widened

    def check_in_function(self, inst: Inst, stmt: Statement, functions) -> None:
        """What only the operands' values show: a branch into a function, a negative loop count."""
        found = misplaced_operand(inst, stmt, functions)
        if found is not None:
            self.error(*found)

    def pass1_equ(self, directive: Directive) -> None:
        args = directive.args
        if len(args) != 2 or not isinstance(args[0], Name):
            self.error(directive.loc if not args else args[0].loc, ".equ is written .equ NAME, EXPR")
            return
        name = args[0]
        if self.define(name.name, name.loc, "constant"):
            self.symbols.equs[name.name] = (args[1], name.loc)


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
        raise ValueError(f"-D {text}: '{name}' is a reserved name (the core's {CORE_WORDS[name.upper()]}, read "
                         f"with MOV Sd, {name.upper()})")
    if name.upper() in SPECIAL_REGISTERS:
        raise ValueError(f"-D {text}: '{name}' is a reserved name (a special register's)")
    evaluator = Symbols()
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


def assemble(text: str, filename: str = "<input>", defines: dict | None = None, read=_read_text) -> Program:
    """Assemble source text; raises ``AsmError`` with every diagnostic. ``defines`` are -D
    constants (they win over a .equ of the same name), each an int or a constant expression as -D
    takes it (``"8 * 2048"``): a ValueError names a bad one. ``read(path)`` reads an included file."""
    return _Assembler(text, filename, _constants(defines), read).run()


def _constants(defines: dict | None) -> dict[str, int] | None:
    """-D constants as ints: an expression is read as ``-D NAME=VALUE`` reads it (``parse_define``)."""
    if not defines:
        return defines
    out = {}
    for name, value in defines.items():
        if isinstance(value, str):
            key, number = parse_define(f"{name}={value}")
            out[key] = number
        elif isinstance(value, int) and not isinstance(value, bool):
            out[name] = value
        else:
            raise ValueError(f"-D {name}={value!r}: the value must be an int or a constant expression")
    return out
