"""Fuzz the assembler with token soup: only ``AsmError`` may come out, with located diagnostics.

Inputs are lines of plausible tokens (mnemonics of the table with any type suffix, registers with any
number, numbers in every literal form including huge ones, labels, directives, brackets, keyword
fields, operators, unicode, tabs, form feeds, NUL bytes, very long lines), valid instructions with
a few tokens mutated, and structured stress (deep nesting of expressions, macros, .rept and .if
blocks, long expression chains, long .equ chains). For every input:

- ``assemble`` returns a Program or raises ``AsmError``; anything else (IndexError, RecursionError,
  ValueError, OverflowError, AssertionError...) is a bug;
- each diagnostic names the file, a line of the source (only ``\\n`` ends a line) and a column
  inside that line (at most one past its end), a non-empty message, and formats;
- a program that assembles is well formed: its .vbin reads back, its words decode, its source
  map names instruction starts, and it keeps the vector-function rules (section 7).

Valid instructions stand in the smallest program that holds them (``strategies.in_context``: a
register instruction between VF.BEGIN and VF.END, a LOOP before an ENDLOOP ...), so that the near
misses and respellings built from them are about their own tokens.
"""

from __future__ import annotations

import re

import fuzz_support as F
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from vcore import isa
from vcore.assembler import AsmError, assemble, inst_text
from vcore.isa import decode_program
from vcore.isa.program import from_bytes, to_bytes

S = F.load_strategies()

pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")

FILE = "soup.asm"
MNEMONICS = sorted(isa.MNEMONICS)
TYPE_NAMES = sorted(isa.TYPES)
KEYWORDS = sorted({kw.name for row in isa.TABLE for kw in row.keywords} | {"mask", "count"})
DIRECTIVES = ["equ", "ub", "gm", "ubfill", "gmfill", "EQU", "Ub", "text", "", "u b", "macro", "endm", "rept",
              "endr", "include", "MACRO", "Rept", "if", "elif", "else", "endif", "ifdef", "ifndef", "error", "IF",
              "Endif", "error \"stop\""]
LABELS = ["loop", "end", "L1", "top", "_x", "a" * 40, "S1", "V0", "gm", "bits", "inf", "nan", "ALL", "MTE2"]
PIPES = [*isa.BARRIER_PIPES, "mte2", "v", "all", "MTE4"]
PATTERNS = [*isa.PATTERNS, "vl8", "VL0", "VL256", "M5"]
WEIRD = ["\t", "\f", "\v", "\r", "\0", "\x1b", "\u00a0", "\u2028", "\ufeff", "\u0661", "\U0001d7d9", "\uff11",
         "é", "ß", "€", "😀", "İ", "ǅ", "\\", "\"", "'", "#", "$", "@", "!", "?", "`", "{", "}", "<", ">", "^"]


def _case(text: str) -> st.SearchStrategy[str]:
    return st.sampled_from([text, text.lower(), text.upper(), text.swapcase()])


def _number() -> st.SearchStrategy[str]:
    """Numbers in every literal form: decimal, hex, binary, underscores, floats, signs, huge."""
    small = st.integers(-(1 << 70), 1 << 70)
    return st.one_of(
        S.edgy_int(-(1 << 64), 1 << 64).map(str),
        small.map(hex), small.map(bin), small.map(lambda n: f"0X{abs(n):X}"),
        st.sampled_from(["0", "00", "007", "0x", "0b", "0x_", "0b_", "0x_1", "1_000", "1__0", "1_", "_1", "0xg",
                         "0b2", "1.", ".5", "1.5", "-2e-3", "1e999", "-1e999", "1e-999", "2.5e+3", "1e", "1.e5",
                         "inf", "-inf", "nan", "-nan", "INF", "NaN", "1.0e0x", "0.0", "-0.0", "65504", "65505",
                         "3.4e38", "1e39", "448", "449", "57344", "bits(0x7e00)", "bits(-1)", "bits(1 << 40)",
                         "bits(1.5)", "bits()", "1" * 400, "0x" + "f" * 600, "0b" + "1" * 2000]),
        st.integers(1, 4400).map(lambda n: "9" * n),  # past Python's 4300-digit int() limit, too
        st.integers(1, 400).map(lambda n: "1" * n + "." + "5" * n),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
    )


def _register() -> st.SearchStrategy[str]:
    return st.builds(lambda bank, n: f"{bank}{n}", st.sampled_from("SVPsvpQ"),
                     st.one_of(S.edgy_int(0, 40), st.sampled_from(["00", "01", "031", "9" * 30, "0" * 4300 + "1"])))


def _mnemonic() -> st.SearchStrategy[str]:
    suffix = st.one_of(st.just(""), st.sampled_from(TYPE_NAMES).map(lambda t: "." + t),
                       st.sampled_from([".", ".x", ".16", ".F16", ".gm2ub", ".UB2GM", ". f16", "..f16", ".f16.f16"]))
    return st.builds(lambda m, s: m + s, st.sampled_from([*MNEMONICS, "DMA", "dma", "VFOO", "MOVE", "B"]).flatmap(
        _case), suffix)


def _field() -> st.SearchStrategy[str]:
    name = st.one_of(st.sampled_from(KEYWORDS).flatmap(_case), st.sampled_from(["foo", "mask ", "Mask", "=", ""]))
    value = st.one_of(_number(), _register(), st.sampled_from(["(1, 2)", "(0, 0)", "(~0, ~0)", "(1,)", "()",
                                                               "(1, 2, 3)", "((1, 2))", "(-1, 0)", "P8", "S1"]))
    return st.builds(lambda n, v: f"{n}={v}", name, value)


def _memory() -> st.SearchStrategy[str]:
    inner = st.one_of(_number(), _register(), st.builds(lambda r, n: f"{r} + {n}", _register(), _number()),
                      st.builds(lambda r, n: f"{r} - {n}", _register(), _number()), st.just(""), st.just("S1 + S2"))
    return st.builds(lambda gm, e: f"{gm}[{e}]", st.sampled_from(["", "", "gm", "GM", "gm ", "ub"]), inner)


def _token() -> st.SearchStrategy[str]:
    return st.one_of(
        _mnemonic(), _register(), _number(), _field(), _memory(),
        st.sampled_from(LABELS), st.sampled_from(LABELS).map(lambda s: s + ":"),
        st.sampled_from(DIRECTIVES).map(lambda d: "." + d), st.sampled_from(TYPE_NAMES),
        st.sampled_from(PIPES), st.sampled_from(PATTERNS),
        st.sampled_from(["[", "]", "(", ")", ",", ",", ",", "=", ":", ".", "+", "-", "*", "/", "%", "<<", ">>", "&",
                         "|", "~", "<", ">", "<<<", "**", ";", "//", "; comment", "// comment, with [brackets]",
                         "bits(", "gm[", "repeat=", "mask=(", "count=", "<=", ">=", "==", "!=", "&&", "||", "!", "^",
                         "defined(", "defined(x)", "\n.endif\n"]),
        st.sampled_from(WEIRD),
        st.text(max_size=6),
    )


TOKEN = _token()
_SEPARATORS = st.sampled_from(["", " ", " ", " ", "  ", "\t", ", ", ",", " , ", "\f", "\0"])


@st.composite
def _line(draw) -> str:
    tokens = draw(st.lists(TOKEN, max_size=12))
    parts = []
    for tok in tokens:
        parts.append(tok)
        parts.append(draw(_SEPARATORS))
    line = "".join(parts)
    if draw(st.integers(0, 30)) == 0:  # a very long line: one chunk of it repeated
        line = line * draw(st.integers(20, 400))
    return line


@st.composite
def _soup(draw) -> str:
    lines = draw(st.lists(_line(), min_size=1, max_size=8))
    newline = draw(st.sampled_from(["\n", "\n", "\r\n", "\n\n"]))
    return newline.join(lines) + draw(st.sampled_from(["", "\n", "\r", "\0"]))


# -- checking -----------------------------------------------------------------------------------

def _check_diagnostics(text: str, err: AsmError) -> None:
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    assert err.diagnostics, "an AsmError without diagnostics"
    assert str(err)
    for d in err.diagnostics:
        loc = d.location
        where = f"{loc.line}:{loc.col} ({d.message!r})"
        assert loc.file == FILE, where
        assert 1 <= loc.line <= len(lines), where
        line = lines[loc.line - 1]
        assert 1 <= loc.col <= len(line) + 1, f"{where}: column outside a line of {len(line)} characters"
        assert loc.length >= 1, where
        assert loc.col + loc.length - 1 <= len(line) + 1, f"{where}: length {loc.length} runs past the line"
        assert d.message.strip(), where
        assert d.source_line == line.rstrip("\n"), where
        formatted = d.format()
        assert formatted.startswith(f"{FILE}:{loc.line}:{loc.col}: error: "), formatted


def _check_program(program) -> None:
    blob = to_bytes(program)
    again = from_bytes(blob)
    assert again.words == program.words and again.data == program.data
    decoded = decode_program(program.words)
    starts = {pc for pc, _ in decoded}
    assert set(program.source or {}) == starts
    assert not S.function_problems(decoded), "the assembler accepted a program that breaks section 7"


def check_assembly(text: str) -> None:
    """The one property: assemble ``text``; only AsmError, with good diagnostics, or a sound program."""
    try:
        program = assemble(text, FILE)
    except AsmError as err:
        _check_diagnostics(text, err)
        return
    except Exception as exc:
        if F.known_bug(exc) is None:
            raise
        return
    _check_program(program)


# -- properties ---------------------------------------------------------------------------------

@F.fuzz(300)
@given(_soup())
@example("VADD.f16 [0], [0], [0], mask=(1, 2)\n\tNOP\f\n\0")
@example(".equ A, B\n.equ B, A\nMOV S1, A")
@example("x: x:\nJMP x\n.ub 0, f16, 1e999, -nan, bits(0x7e00)")
def test_fuzz_assembler_token_soup(text):
    F.tried("asm: token soup")
    check_assembly(text)


_TOKENS_OF_TEXT = re.compile(r"\s+|[A-Za-z_][\w.]*|0[xX][0-9a-fA-F]+|\d+(?:\.\d*)?|<<|>>|.")


@st.composite
def _mutated_valid(draw) -> str:
    """Valid instruction lines (and data directives) with a few tokens deleted, doubled, swapped or
    replaced by soup: near misses that reach operand, field and range checking."""
    insts = draw(st.lists(S.insts(), min_size=1, max_size=4))
    lines: list[str] = []
    own: list[int] = []  # the index in ``lines`` of each instruction itself (not of its context)
    for inst in insts:
        placed = S.in_context(inst)
        own.append(len(lines) + placed.line - 1)
        lines += placed.text.removesuffix("\n").split("\n")
    if draw(st.booleans()):
        own.append(len(lines))
        lines.append(draw(st.sampled_from([".ub 0x100, f16, 1.0, 2.0", ".ubfill 0x200, u8, 4, 255",
                                           ".gm 0, s32, -1", ".gmfill 0x40, f32, 16, inf", ".equ N, 8",
                                           "loop: ADD S1, S1, 1", "BNE S1, N, loop"])))
    k = draw(st.sampled_from(own)) if draw(st.integers(0, 4)) else draw(st.integers(0, len(lines) - 1))
    tokens = list(_TOKENS_OF_TEXT.findall(lines[k]))
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["delete", "double", "swap", "replace", "insert"]))
        if not tokens:
            tokens = [draw(TOKEN)]
        i = draw(st.integers(0, len(tokens) - 1))
        if how == "delete":
            del tokens[i]
        elif how == "double":
            tokens.insert(i, tokens[i])
        elif how == "swap":
            j = draw(st.integers(0, len(tokens) - 1))
            tokens[i], tokens[j] = tokens[j], tokens[i]
        elif how == "replace":
            tokens[i] = draw(TOKEN)
        else:
            tokens.insert(i, draw(TOKEN))
    lines[k] = "".join(tokens)
    return "\n".join(lines) + "\n"


@F.fuzz(300)
@given(_mutated_valid())
def test_fuzz_assembler_mutated_valid_lines(text):
    F.tried("asm: mutated valid lines")
    check_assembly(text)


@st.composite
def _stress(draw) -> str:
    """Structures whose size, not content, is the hazard: nesting, chains, many operands."""
    n = draw(st.one_of(st.integers(1, 64), st.integers(1, 6000)))
    kind = draw(st.sampled_from(["parens", "unary", "sum", "product", "shift", "equ-chain", "equ-chain-back",
                                 "operands", "fields", "mask-group", "labels", "brackets", "bits", "macro-chain",
                                 "macro-self", "rept-nest", "rept-unclosed", "if-nest", "if-skipped", "logic"]))
    if kind == "macro-chain":  # each macro uses the one before: nested n deep (refused past 64)
        lines = [".macro M0 a\n    ADD S1, S1, \\a\n.endm"]
        lines += [f".macro M{i} a\n    M{i - 1} \\a\n.endm" for i in range(1, n)]
        return "\n".join(lines) + f"\n    M{n - 1} 1\nHALT\n"
    if kind == "macro-self":
        return ".macro M\n" + "    M\n" * min(n, 4) + ".endm\n    M\n"
    if kind == "rept-nest":  # 2^depth lines (a .rept past the expansion limit: test_macros_includes_defines)
        depth = min(n, 11)
        return ".rept 2\n" * depth + "    NOP\n" + ".endr\n" * depth + "HALT\n"
    if kind == "rept-unclosed":
        return ".rept 2\n" * n + "    NOP\n"
    if kind == "if-nest":  # refused past 64 deep
        return ".if 1\n" * n + "    NOP\n" + ".endif\n" * draw(st.sampled_from([n, n - 1, n + 1]))
    if kind == "if-skipped":  # blocks inside a branch not taken are counted, not evaluated
        return ".if 0\n" + ".if x\n" * n + ".else\n" * min(n, 3) + ".endif\n" * n + ".endif\nHALT\n"
    if kind == "logic":  # a long chain of the operators of conditional assembly, in a .if and in an operand
        chain = draw(st.sampled_from([" && ", " || ", " < ", " == ", " != ", " ^ ", ">="])).join(["1"] * n)
        return f".if {chain}\n    MOV S1, {chain}\n.endif\n"
    if kind == "parens":
        body = "(" * n + "1" + ")" * draw(st.sampled_from([n, n - 1, n + 1]))
        return f"MOV S1, {body}\n"
    if kind == "unary":
        return f"MOV S1, {draw(st.sampled_from(['-', '~', '+', '- ', '~-'])) * n}1\n"
    if kind == "sum":
        return f"MOV S1, {' + '.join(['1'] * n)}\n"
    if kind == "product":
        return f".equ X, {'*'.join(['3'] * n)}\nMOV S1, X & 0xff\n"
    if kind == "shift":
        return f"MOV S1, {' << '.join(['1'] * n)}\n"
    if kind == "equ-chain":
        lines = [f".equ C{i}, C{i + 1} + 1" for i in range(n)] + [f".equ C{n}, 0", "MOV S1, C0"]
        return "\n".join(lines) + "\n"
    if kind == "equ-chain-back":
        lines = [".equ C0, 1"] + [f".equ C{i}, C{i - 1} * 2 + 1" for i in range(1, n)] + [f"MOV S1, C{n - 1} & 1"]
        return "\n".join(lines) + "\n"
    if kind == "operands":
        return "NOP " + ", ".join(["S1"] * n) + "\n"
    if kind == "fields":
        return "VADD.f16 [0], [0], [0], " + ", ".join(f"repeat={i % 256}" for i in range(n)) + "\n"
    if kind == "mask-group":
        return "VADD.f16 [0], [0], [0], mask=(" + ", ".join(["1"] * n) + ")\n"
    if kind == "labels":
        return "".join(f"L{i}: " for i in range(n)) + "NOP\n" + f"JMP L{n - 1}\n"
    if kind == "brackets":
        return S.in_context(isa.MNEMONICS["VLD"][0], text="VLD.f16 V0, " + "[" * n + "S1" + "]" * n).text
    return "VADDS.f16 [0], [0], " + "bits(" * n + "1" + ")" * n + "\n"


@F.fuzz(150)
@given(_stress())
def test_fuzz_assembler_structural_stress(text):
    F.tried("asm: structural stress")
    check_assembly(text)


# -- metamorphic: spellings the contract makes equivalent --------------------------------------

_PIECES = re.compile(r"(?P<float>\d+\.\d*(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|\.\d+(?:[eE][+-]?\d+)?)"
                     r"|(?P<int>0[xX][0-9a-fA-F]+|\d+)|(?P<ident>[A-Za-z_]\w*)|(?P<ws>\s+)|(?P<other>.)")


@st.composite
def _respelled(draw) -> tuple[str, str]:
    """Valid instruction lines, and the same lines respelled as the contract allows: any case of
    mnemonics, suffixes, registers, keywords, pipes and patterns; integers in hex, binary or decimal;
    blanks after commas and around + and -, tabs; labels; comments (; and //); blank lines; CRLF."""
    # Each instruction in its context (the context's lines are respelled too); a branch that would
    # land inside one of the functions this makes goes to the function's VF.BEGIN instead.
    insts = []
    for inst in draw(st.lists(S.insts(), min_size=1, max_size=6)):
        before, after = S.context(inst.row)
        insts += [*before, inst, *after]
    plain = [inst_text(inst) for inst in S.outside_functions(insts)]
    out = []
    for k, line in enumerate(plain):
        pieces = []
        for m in _PIECES.finditer(line):
            kind, text = m.lastgroup, m.group()
            if kind == "ident" and text.lower() != "bits":
                text = draw(_case(text))
            elif kind == "int" and not (pieces and pieces[-1] == "."):  # not a type suffix like .16
                value = int(text, 0)
                text = draw(st.sampled_from([str(value), hex(value), f"0X{value:X}", bin(value),
                                             f"{value:_}" if value >= 10000 else str(value)]))
            elif kind == "other" and text == ",":
                text += draw(st.sampled_from(["", " ", "\t", "  "]))
            elif kind == "ws":
                text = draw(st.sampled_from([" ", "\t", "  ", " \t "]))
            elif kind == "other" and text in "+-" and pieces and pieces[-1].strip():
                text = draw(st.sampled_from([text, f" {text} ", f"{text} "]))
            pieces.append(text)
        respelled = "".join(pieces)
        if draw(st.booleans()):
            respelled = f"L{k}_{draw(st.integers(0, 99))}: " + respelled
        respelled = draw(st.sampled_from(["", " ", "\t"])) + respelled
        respelled += draw(st.sampled_from(["", " ", "\t", " ; a comment, with [S1] and 0x", "// VADD.f16 x",
                                           ";", "  //"]))
        out.append(respelled)
        if draw(st.integers(0, 3)) == 0:
            out.append(draw(st.sampled_from(["", "   ", "; only a comment", "\t// another", "label_only_" + str(k)
                                             + ":"])))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return "\n".join(plain) + "\n", newline.join(out) + newline


@F.fuzz(200)
@given(_respelled())
def test_fuzz_assembler_respellings_assemble_identically(case):
    F.tried("asm: equivalent respellings")
    plain, respelled = case
    try:
        expected = assemble(plain, FILE)
        got = assemble(respelled, FILE)
    except Exception as exc:
        if F.known_bug(exc) is None:
            raise
        return
    assert got.words == expected.words, respelled
    assert got.data == expected.data
