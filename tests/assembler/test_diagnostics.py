"""Assembler diagnostics (exact line and 1-based column, message fragment) and the language features of
CONTRACT.md section 2, checked through the words and data records the assembler produces."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
import strategies as S  # tests/strategies.py: tests/conftest.py puts tests/ on the path

from vcore import isa
from vcore.assembler import AsmError, assemble
from vcore.isa import GmRef, RegOrImm, UbRef, decode, decode_program
from vcore.isa.program import Program

REGISTER_ROW = isa.MNEMONICS["VLD"][0]  # any register row: they all need VF.BEGIN ... VF.END around them


def _errors(source: str) -> list:
    with pytest.raises(AsmError) as info:
        assemble(source, "t.asm")
    return info.value.diagnostics


def _one_error(source: str):
    diags = _errors(source)
    assert len(diags) == 1, [d.message for d in diags]
    return diags[0]


def _words(source: str) -> tuple[int, ...]:
    return assemble(source, "t.asm").words


def _register_words(source: str) -> tuple[int, ...]:
    """The words of register instructions (and lines a function may hold), assembled inside a function."""
    placed = S.in_context(REGISTER_ROW, text=source, words=())  # words: the context's alone
    words = _words(placed.text)
    assert words[:placed.index] + words[len(words) - len(placed.words) + placed.index:] == placed.words
    return words[placed.index:len(words) - len(placed.words) + placed.index]


def _reg(source: str, line: int, col: int, fragments: list[str], id: str):
    """A case whose statements are register instructions: inside a function, its line moved to match."""
    placed = S.in_context(REGISTER_ROW, text=source)
    return pytest.param(placed.text, line + placed.line - 1, col, fragments, id=id)


def _mov_value(expr: str, prelude: str = "") -> int:
    """The immediate that ``MOV S1, expr`` encodes (decoded from its word)."""
    program = assemble(prelude + f"MOV S1, {expr}\n", "t.asm")
    inst = decode_program(program.words)[-1][1]
    assert inst.operands[1].reg is None
    return inst.operands[1].imm


# ---------------------------------------------------------------------------------------------------
# One test per class of diagnostic: (source, line, column, fragment of the message)
# Columns are 1-based and counted by hand on the source text (marked with a ruler where it helps).
# ---------------------------------------------------------------------------------------------------
#         1234567890123456789012345678901234567890
T3 = "VADD.f16 [0], [0], [0], "  # 24 characters: a field written after it starts at column 25

DIAGNOSTICS = [
    # value out of range: the column of the value
    pytest.param(T3 + "repeat=256", 1, 32, ["repeat", "256", "0..255"], id="repeat-256"),
    pytest.param(T3 + "dstblk=0", 1, 32, ["dstblk", "1..255"], id="dstblk-0"),
    pytest.param("VEXP.f32 [0], [0], srcrep=4096", 1, 27, ["srcrep", "0..4095"], id="srcrep-4096"),
    pytest.param("DMA.GM2UB [0], gm[0], len=0", 1, 27, ["len", "1..65535"], id="dma-len-0"),
    pytest.param(T3 + "mask=129", 1, 30, ["129", "1..128", "f16"], id="mask-129-f16"),
    pytest.param("VADD.f32 [0], [0], [0], mask=65", 1, 30, ["1..64", "f32"], id="mask-65-f32"),
    pytest.param("VADD.f32 [0], [0], [0], mask=(1, 1)", 1, 30, ["HIGH must be 0"], id="mask-high-f32"),
    pytest.param(T3 + "mask=(0, 0)", 1, 30, ["no lane"], id="mask-zero"),
    pytest.param(T3 + "mask=(1, 2, 3)", 1, 30, ["(LOW, HIGH)"], id="mask-three-words"),
    pytest.param(T3 + "count=0", 1, 31, ["count=0", "1..4294967295"], id="count-0"),
    pytest.param(T3 + "count=4294967296", 1, 31, ["1..4294967295"], id="count-2^32"),
    pytest.param("MOV S1, 18446744073709551616", 1, 9, ["does not fit 64 bits", "2^64-1"], id="mov-imm-range"),
    pytest.param("MOV S1, -9223372036854775809", 1, 9, ["does not fit 64 bits", "-2^63"], id="mov-imm-range-low"),
    pytest.param("VCONV.f32.s8 [0], [256]", 1, 11, ["no conversion from s8 to f32", "f16, s16, s32"],
                 id="conv-pair"),
    pytest.param("VCONV.f32.f16 [0], [256], round=floor", 1, 33, ["always exact", "no round="], id="conv-exact-round"),
    pytest.param("VCONV.s32.f32 [0], [256], round=odd", 1, 33, ["round=odd", "f32 to f16"], id="conv-odd"),
    pytest.param("VCONV.f16.f32 [0], [256], round=half", 1, 33, ["round= takes one of", "rint"], id="conv-mode"),
    pytest.param("VCONV.f16 [0], [256]", 1, 7, ["VCONV.D.S"], id="conv-one-type"),
    pytest.param("VCMP.f16 [0], [256], [512]", 1, 6, ["VCMP.C.T", "EQ"], id="cmp-no-condition"),
    pytest.param("VCMP.LTE.f16 [0], [256], [512]", 1, 6, ["unknown condition", "LE"], id="cmp-bad-condition"),
    pytest.param("VDIV.s8 [0], [256], [512]", 1, 6, ["does not take .s8", ".f16"], id="vdiv-8-bit"),
    pytest.param("LD.u32 S1, [0x102]", 1, 12, ["not aligned to 4"], id="ld-misaligned"),
    pytest.param("ST.u16 gm[0x3], S1", 1, 8, ["not aligned to 2"], id="st-misaligned"),
    pytest.param("VADD.f16.f32 [0], [0], [0]", 1, 10, ["takes one type suffix"], id="two-suffixes"),
    pytest.param(".equ S16, 0x2400", 1, 6, ["register name", "S16"], id="equ-register-name"),
    pytest.param("p3: NOP", 1, 1, ["register name", "p3"], id="label-register-name"),
    pytest.param("VCONV.s16.s32 [0], [256], round=rint", 1, 33, ["never rounds", "saturates"],
                 id="conv-integer-round"),
    pytest.param("SETFLAG V, S, 8", 1, 15, ["event", "0..7"], id="event-8"),
    _reg("VLD.f16 V0, [S1 + 16]", 1, 13, ["multiple of 32"], id="reg-offset-unaligned"),
    _reg("VLD.f16 V0, [0x40000]", 1, 13, ["out of range"], id="ub-address-range"),
    _reg("VLD.f16 V0, [0], post=2", 1, 23, ["post=", "register base"], id="post-needs-register"),
    pytest.param(".ub 0, s8, 1, -128, 128", 1, 21, ["128", "-128..127", "s8"], id="data-s8-range"),
    pytest.param(".ubfill 0, f16, 0, 1.0", 1, 17, ["count 0"], id="fill-count-0"),
    # unknown mnemonic, with a suggestion
    pytest.param("NOP\n    HALTT", 2, 5, ["unknown mnemonic", "HALTT", "did you mean HALT"], id="unknown-mnemonic"),
    pytest.param("SETFLG V, S, 1", 1, 1, ["unknown mnemonic", "did you mean SETFLAG"], id="unknown-mnemonic-2"),
    pytest.param(".ubfil 0, f16, 1, 1.0", 1, 1, ["unknown directive", "did you mean .ubfill"], id="unknown-directive"),
    # type suffixes
    pytest.param("VADD.f17 [0], [0], [0]", 1, 6, ["unknown type", "f17", "did you mean f16"], id="bad-suffix"),
    pytest.param("VADD.s8 [0], [0], [0]", 1, 6, ["does not take .s8"], id="type-not-allowed"),
    _reg("VEXP.s32 V0, V1, P0", 1, 6, ["does not take .s32"], id="type-not-allowed-reg"),
    pytest.param("VADD [0], [0], [0]", 1, 1, ["needs a type suffix", ".f16"], id="missing-type"),
    pytest.param("HALT.f16", 1, 6, ["takes no type suffix"], id="suffix-on-untyped"),
    pytest.param(".ub 0, f64, 1", 1, 8, ["expected an element type"], id="data-bad-type"),
    # registers
    _reg("VLD.f16 V32, [S1]", 1, 9, ["V32", "V0..V31"], id="V32"),
    _reg("VST.f16 [S1], V0, P8", 1, 19, ["P8", "P0..P7"], id="P8"),
    pytest.param("MOV S32, 1", 1, 5, ["S32", "S0..S31"], id="S32"),
    _reg("VST.f16 [S1], V0, V1", 1, 19, ["V1", "mask register"], id="V-for-P"),
    _reg("VLD.f16 V0, [V1]", 1, 14, ["V1", "S0..S31"], id="V-as-address"),
    _reg("VSUB.u32 V0, V1, V2, P0, carry=V1", 1, 32, ["carry=", "mask register"], id="carry-not-P"),
    # missing operand: reported at the end of the statement (before any comment)
    pytest.param("VADD.f16 [0], [0] ; c", 1, 18, ["missing operand", "src1"], id="missing-operand"),
    pytest.param(".ub 0, f16", 1, 11, [".ub needs"], id="data-missing-values"),
    # trailing junk
    pytest.param(T3 + "[0]", 1, 25, ["unexpected operand", "takes 3"], id="extra-operand"),
    pytest.param("NOP 1", 1, 5, ["unexpected operand", "takes 0"], id="extra-operand-nop"),
    pytest.param("MOV S1, 5 6", 1, 11, ["unexpected '6'"], id="junk-after-operand"),
    pytest.param("VADD.f16 [0], [0], [0] x", 1, 24, ["unexpected 'x'"], id="junk-after-last-operand"),
    pytest.param("MOV S1, (1 + 2", 1, 15, ["expected ')'"], id="unclosed-paren"),
    _reg("VLD.f16 V0, [S1", 1, 16, ["expected ']'"], id="unclosed-bracket"),
    pytest.param(T3 + "repeat=2, [0]", 1, 35, ["positional operand after keyword"], id="positional-after-field"),
    # symbols
    pytest.param("JMP nowhere", 1, 5, ["undefined symbol 'nowhere'"], id="undefined-label"),
    pytest.param("a:\nNOP\na: NOP", 3, 1, ["duplicate label 'a'", "line 1"], id="duplicate-label"),
    pytest.param(".equ a, 1\na: NOP", 2, 1, ["duplicate label 'a'"], id="label-after-equ"),
    pytest.param("MOV S1, N\n.equ N, UNDEF + 1", 2, 9, ["undefined symbol 'UNDEF'"], id="undefined-in-equ"),
    pytest.param("MOV S1, NOPE", 1, 9, ["undefined symbol 'NOPE'"], id="undefined-constant"),
    pytest.param("MOV S1, X\n.equ X, X + 1", 2, 9, ["defined in terms of itself"], id="circular-equ"),
    # count= / mask= / fields
    pytest.param(T3 + "count=5, repeat=2", 1, 25, ["count= cannot be combined with repeat="], id="count-repeat"),
    pytest.param(T3 + "mask=3, count=5", 1, 33, ["count= cannot be combined with mask="], id="count-mask"),
    pytest.param(T3 + "repaet=2", 1, 25, ["unknown field repaet=", "did you mean repeat"], id="unknown-field"),
    _reg("ADD S1, S1, 1\nVLD.f16 V0, [S1], mask=3", 2, 19, ["unknown field mask="], id="mask-on-register-op"),
    pytest.param(T3 + "repeat=1, repeat=2", 1, 35, ["repeat= given twice"], id="field-twice"),
    _reg("VSUB.f16 V0, V1, V2, P0, carry=P1", 1, 32, ["carry=", "u32"], id="carry-needs-u32"),
    pytest.param("DMA.GM2UB [0], gm[0]", 1, 21, ["len= is required"], id="required-field"),
    # arithmetic
    pytest.param("MOV S1, 1/0", 1, 11, ["division by zero"], id="div-zero"),
    pytest.param("MOV S1, 7 % 0", 1, 13, ["division by zero"], id="mod-zero"),
    pytest.param("MOV S1, 1 << 200", 1, 14, ["shift count 200"], id="shift-range"),
    pytest.param("VADDS.s16 [0], [0], 1.5", 1, 21, ["expected an integer"], id="float-for-int"),
    # characters and tokens
    pytest.param("MOV S1, 3 $ 4", 1, 11, ["unexpected character '$'"], id="bad-character"),
    pytest.param("MOV S1, 0b102", 1, 9, ["malformed number"], id="malformed-number"),
    pytest.param("SETFLAG V, ALL, 1", 1, 12, ["pipe must be one of"], id="all-is-not-a-flag-pipe"),
    _reg("PSET.b8 P0, VL5", 1, 13, ["pattern must be one of"], id="bad-pattern"),
]


@pytest.mark.parametrize(("source", "line", "col", "fragments"), DIAGNOSTICS)
def test_diagnostic(source, line, col, fragments):
    diag = _one_error(source)
    assert (diag.location.line, diag.location.col) == (line, col), diag.message
    for fragment in fragments:
        assert fragment in diag.message
    assert diag.location.file == "t.asm"


def test_several_errors_in_one_file_are_all_reported():
    source = "\n".join([
        "start:",                                  # 1 fine
        "    VADD.f16 [0], [0], [0], repeat=256",  # 2 range           col 36
        "    MOV S1, 5",                           # 3 fine
        "    VLD.f16 V32, [S1]",                   # 4 bad register    col 13
        "    FROB S1",                             # 5 unknown         col 5
        "    JMP nowhere",                         # 6 undefined       col 9
        "    MOV S2, 1 $ 2",                       # 7 bad character   col 15
        "start:",                                  # 8 duplicate       col 1
        "    HALT",                                # 9 fine
    ])
    diags = _errors(source)
    assert [(d.location.line, d.location.col) for d in diags] == [(2, 36), (4, 13), (5, 5), (6, 9), (7, 15), (8, 1)]
    assert "duplicate label 'start'" in diags[-1].message


def test_formatted_message_has_source_line_and_caret():
    source = "NOP\n  MOV S1, 1 / 0   ; oops\nHALT\n"
    with pytest.raises(AsmError) as info:
        assemble(source, "prog.asm")
    lines = str(info.value).splitlines()
    assert lines[0] == "prog.asm:2:15: error: division by zero"
    assert lines[1] == "  MOV S1, 1 / 0   ; oops"
    assert lines[2].index("^") == 14
    assert lines[2][:14] == " " * 14
    assert lines[1][14] == "0"


def test_formatted_errors_are_in_source_order():
    with pytest.raises(AsmError) as info:
        assemble("JMP b\nJMP a\n", "p.asm")
    text = str(info.value)
    assert text.index("p.asm:1:5:") < text.index("p.asm:2:5:")
    assert text.count("error:") == 2


# ---------------------------------------------------------------------------------------------------
# Bugs found while writing these tests, now fixed; each test keeps its bug away
# ---------------------------------------------------------------------------------------------------

def test_register_minus_expression_is_left_associative():
    # [S1 - 32 + 64] is S1 + 32 (one datablock), as everywhere else in expressions.
    inst = decode(_register_words("VLD.f16 V0, [S1 - 32 + 64]"))
    assert inst.operands[1] == UbRef(1, 32)


@pytest.mark.parametrize(("expr", "value"), [("2 * -3", -6), ("5 + -1", 4), ("3 & -1", 3), ("0 | -8", -8),
                                             ("1 - -1", 2), ("0x10 + -0x10", 0)])
def test_negative_right_operand(expr, value):
    assert _mov_value(expr) == value


def test_huge_right_operand_of_or():
    # 1 << 63 is fine as a mask word; `1 | 1 << 63` also evaluates 1 << (1 << 63) behind the scenes.
    inst = decode_program(_words("VADD.f16 [0], [0], [0], mask=(1 | 1 << 63, 0)"))[0][1]
    assert inst.mask.low == (1 << 63) | 1


@pytest.mark.parametrize("separator", ["\x0c", "\x0b", "\u2028", "\x85", "\x1c"])
def test_only_newlines_end_a_line(separator):
    source = f"NOP ; page {separator}break\nHALTT\n"
    diag = _one_error(source)
    assert (diag.location.line, diag.location.col) == (2, 1)


def test_caret_lines_up_under_tab_indented_source():
    with pytest.raises(AsmError) as info:
        assemble("\tMOV S1, 1 / 0\n", "tab.asm")
    _, source_line, caret_line = str(info.value).splitlines()[:3]
    assert caret_line.expandtabs().index("^") == source_line.expandtabs().index("0")


@pytest.mark.parametrize("source", [".equ N, UNDEFINED\nNOP", ".equ N, N + 1\nNOP"])
def test_unused_equ_with_an_error_is_reported(source):
    diag = _one_error(source)
    assert diag.location.line == 1


def test_error_in_an_equ_used_twice_is_reported_once():
    diags = _errors("MOV S1, N\nMOV S2, N\n.equ N, UNDEF\n")
    assert [(d.location.line, d.location.col) for d in diags] == [(3, 9)]


# ---------------------------------------------------------------------------------------------------
# Language features
# ---------------------------------------------------------------------------------------------------

def test_labels_backward_forward_and_on_the_statement_line():
    words = _words("top:\n    NOP\nloop: JMP loop\n    BEQ S1, S2, top\n    BNE S1, 3, done\n    NOP\ndone: HALT\n"
                   "    JMP done + 8\n")
    insts = dict(decode_program(words))
    assert insts[8].operands == (8,)              # loop: the JMP's own address
    assert insts[16].operands[2] == 0              # top
    assert insts[24].operands[2] == 40             # done (forward)
    assert insts[48].operands == (48,)             # done + 8 (an expression over a label)


def test_label_alone_and_several_labels_on_one_line():
    program = assemble("a: b:\nc:\n  NOP\nd: HALT\n", "t.asm")
    assert program.labels == {"a": 0, "b": 0, "c": 0, "d": 8}


def test_equ_with_forward_reference():
    source = "MOV S1, N\n.equ N, M * 2 + LAST\n.equ M, 3\nNOP\nLAST: HALT\n"
    inst = decode_program(_words(source))[0][1]
    assert inst.operands[1].imm == 3 * 2 + 16  # LAST is at pc 16


@pytest.mark.parametrize(("expr", "value"), [
    ("1 + 2 * 3", 7),
    ("(1 + 2) * 3", 9),
    ("10 - 4 - 3", 3),            # left associative
    ("100 / 7", 14),
    ("100 % 7", 2),
    ("2 * 3 % 4", 2),             # * and % share a level, left to right
    ("-7 / 2", -3),               # C semantics: truncation toward zero
    ("-7 % 2", -1),
    ("1 << 4", 16),
    ("256 >> 4", 16),
    ("1 << 2 + 1", 8),            # + binds tighter than <<
    ("0xF0 & 0x3C", 0x30),
    ("0xF0 | 0x0F", 0xFF),
    ("6 & 3 << 1", 6),            # << binds tighter than &
    ("4 | 1 & 2", 4),             # & binds tighter than |
    ("(4 | 1) & 2", 0),
    ("~0", -1),
    ("~5 & 0xFF", 0xFA),          # unary binds tightest
    ("-(2 + 3)", -5),
    ("-2 * 3", -6),
    ("0b101 + 0x10 + 10", 31),
    ("((((1))))", 1),
    ("-562949953421312", -(1 << 49)),
])
def test_expression_operators_and_precedence(expr, value):
    assert _mov_value(expr) == value


def test_case_insensitivity_of_mnemonics_registers_types_keywords():
    pairs = [
        ("VADD.f16 [0x1000], [0x0], [0x800], repeat=2", "vadd.F16 [0X1000], [0x0], [0x800], REPEAT=2"),
        ("VLD.f32 V7, [S2], post=-64, blk=3", "Vld.F32 v7, [s2], POST=-64, Blk=3"),
        ("SETFLAG MTE2, V, 5", "setflag mte2, v, 5"),
        ("BARRIER ALL", "barrier all"),
        ("PSET.b32 P7, Q", "pset.B32 p7, q"),
        ("DMA.GM2UB [S1 + 96], gm[S2 - 5], len=1", "dma.gm2ub [s1 + 96], GM[s2 - 5], LEN=1"),
        ("VSUB.u32 V1, V2, V3, P4, carry=P5", "vsub.U32 v1, v2, v3, p4, CARRY=p5"),
        ("VADDS.f16 [0], [0], inf", "VADDS.f16 [0], [0], INF"),
    ]
    registers = ("VLD.f32", "PSET.b32", "VSUB.u32")  # register instructions: compared inside a function
    for canonical, mixed in pairs:
        words = _register_words if canonical.startswith(registers) else _words
        assert words(mixed) == words(canonical), mixed


def test_both_comment_styles():
    plain = _words("NOP\nMOV S1, 5\nHALT\n")
    commented = _words("; a whole-line comment\n// another one\nNOP ; trailing\nMOV S1, 5 // trailing, with ; inside\n"
                       "HALT;no space\n   ; indented\n")
    assert commented == plain


def test_keyword_fields_in_any_order_give_the_same_words():
    a = _words("VMUL.s32 [0], [0x20], [0x40], repeat=3, dstblk=2, src0blk=0, src1blk=5, dstrep=16, src0rep=0, "
               "src1rep=255, mask=(1, 0)")
    b = _words("VMUL.s32 [0], [0x20], [0x40], mask=(1, 0), src1rep=255, src0rep=0, dstrep=16, src1blk=5, "
               "src0blk=0, dstblk=2, repeat=3")
    assert a == b
    c = _words("DMA.UB2GM gm[0x100], [S2], len=4, dstgap=1, srcgap=2, blocks=3")
    d = _words("DMA.UB2GM gm[0x100], [S2], blocks=3, srcgap=2, dstgap=1, len=4")
    assert c == d


def test_explicit_defaults_give_the_same_words():
    assert _words("VADD.f16 [0], [0], [0], repeat=1, dstblk=1, src0rep=8") == _words("VADD.f16 [0], [0], [0]")


@pytest.mark.parametrize(("operand", "ref"), [
    ("[0x1000]", UbRef(None, 0x1000)),
    ("[4 * 32 + 1]", UbRef(None, 129)),      # absolute addresses are byte addresses (faults are the emulator's)
    ("[S5]", UbRef(5, 0)),
    ("[S5 + 64]", UbRef(5, 64)),
    ("[S5 - 64]", UbRef(5, -64)),
    ("[S5 + BLK * 32]", UbRef(5, 96)),
    ("[S0 + 131040]", UbRef(0, 131040)),
    ("[S1 - 131072]", UbRef(1, -131072)),
])
def test_ub_memory_operands(operand, ref):
    inst = decode(_register_words(f".equ BLK, 3\nVLD.f16 V0, {operand}"))
    assert inst.operands[1] == ref


@pytest.mark.parametrize(("operand", "ref"), [
    ("gm[0x1234]", GmRef(None, 0x1234)),
    ("gm[0xFFFFFFFF]", GmRef(None, 0xFFFFFFFF)),
    ("gm[S3]", GmRef(3, 0)),
    ("gm[S3 + 5]", GmRef(3, 5)),              # GM offsets are bytes, any alignment
    ("gm[S3 - 5]", GmRef(3, -5)),
    ("GM[s31 + (1 << 26) - 1]", GmRef(31, (1 << 26) - 1)),
])
def test_gm_memory_operands(operand, ref):
    inst = decode(_words(f"DMA.GM2UB [0], {operand}, len=1")[:2])
    assert inst.operands[1] == ref


def test_scalar_operands_register_or_immediate():
    insts = [i for _, i in decode_program(_words(
        "VADDS.f32 [0], [0], S7\nVADDS.f32 [0], [0], -0.5\nVADDS.s16 [0], [0], -1\nVADDS.u32 [0], [0], 0xFFFFFFFF\n"
        "VADDS.bf16 [0], [0], 1\nADD S1, S2, S3\nADD S1, S2, -8796093022208\n"))]
    assert insts[0].operands[2] == RegOrImm(7)
    assert insts[1].operands[2] == RegOrImm(None, 0xBF000000)
    assert insts[2].operands[2] == RegOrImm(None, 0xFFFF)
    assert insts[3].operands[2] == RegOrImm(None, 0xFFFFFFFF)
    assert insts[4].operands[2] == RegOrImm(None, 0x3F80)
    assert insts[5].operands[2] == RegOrImm(3)
    assert insts[6].operands[2] == RegOrImm(None, -(1 << 43))


# -- data directives ----------------------------------------------------------------------------------

NP = {"f16": np.dtype("<f2"), "bf16": np.dtype(ml_dtypes.bfloat16), "f32": np.dtype("<f4"),
      "e4m3": np.dtype(ml_dtypes.float8_e4m3fn), "e5m2": np.dtype(ml_dtypes.float8_e5m2),
      "s8": np.dtype("i1"), "u8": np.dtype("u1"), "s16": np.dtype("<i2"), "u16": np.dtype("<u2"),
      "s32": np.dtype("<i4"), "u32": np.dtype("<u4")}

DATA_CASES = [
    ("f16", "1.5, -2e-3, 65504, 6e-8, -0.0, inf, -inf, nan",
     [1.5, -2e-3, 65504, 6e-8, -0.0, math.inf, -math.inf, math.nan]),
    ("bf16", "1, -3.5, 3e38, 1e-40, inf", [1, -3.5, 3e38, 1e-40, math.inf]),
    ("f32", "0.1, -1e-45, 3.4028234e38, -inf, nan", [0.1, -1e-45, 3.4028234e38, -math.inf, math.nan]),
    ("e4m3", "1.0, -448, 0.001953125, 0.3", [1.0, -448, 0.001953125, 0.3]),
    ("e5m2", "1.0, -57344, inf, 1.5e-5", [1.0, -57344, math.inf, 1.5e-5]),
    ("s8", "-128, 127, 0, -1", [-128, 127, 0, -1]),
    ("u8", "0, 255, 0x7f", [0, 255, 0x7F]),
    ("s16", "-32768, 32767, 1 << 10", [-32768, 32767, 1024]),
    ("u16", "0xFFFF, 0", [0xFFFF, 0]),
    ("s32", "-2147483648, 2147483647", [-2147483648, 2147483647]),
    ("u32", "0xFFFFFFFF, 12345", [0xFFFFFFFF, 12345]),
]


FLOATS = ("f16", "bf16", "f32", "e4m3", "e5m2")


def _expected_bytes(type_name: str, values) -> bytes:
    """Each value rounded once (nearest even) from a double to the type, by numpy / ml_dtypes."""
    source = np.float64 if type_name in FLOATS else np.int64
    return np.array(values, dtype=source).astype(NP[type_name]).tobytes()


@pytest.mark.parametrize(("type_name", "text", "values"), DATA_CASES, ids=[c[0] for c in DATA_CASES])
@pytest.mark.parametrize("space", ["ub", "gm"])
def test_list_directive_every_type(space, type_name, text, values):
    program = assemble(f".{space} 0x40, {type_name}, {text}\n", "t.asm")
    (rec,) = program.data
    assert (rec.space, rec.kind, rec.type, rec.addr, rec.count) == (space, "list", type_name, 0x40, len(values))
    got = np.frombuffer(rec.payload, dtype=NP[type_name])
    want = np.frombuffer(_expected_bytes(type_name, values), dtype=NP[type_name])
    if type_name not in FLOATS:
        assert got.tolist() == [int(v) for v in values]
    else:
        g, w = got.astype(np.float64), want.astype(np.float64)
        assert np.array_equal(g, w, equal_nan=True)
        assert np.array_equal(np.signbit(g), np.signbit(w))  # -0.0 stays negative
    assert rec.payload == _expected_bytes(type_name, values)


@pytest.mark.parametrize("type_name", sorted(NP))
@pytest.mark.parametrize("space", ["ub", "gm"])
def test_fill_directive_every_type(space, type_name):
    value = {"s8": "-5", "u8": "200", "s16": "-300", "u16": "60000", "s32": "-70000", "u32": "4000000000"}.get(
        type_name, "-1.25")
    program = assemble(f".{space}fill 0x100, {type_name}, 1000, {value}\n", "t.asm")
    (rec,) = program.data
    assert (rec.space, rec.kind, rec.type, rec.addr, rec.count) == (space, "fill", type_name, 0x100, 1000)
    (element,) = np.frombuffer(rec.payload, dtype=NP[type_name])
    assert float(element) == float(value)
    assert len(rec.data()) == 1000 * NP[type_name].itemsize


@pytest.mark.parametrize(("type_name", "text", "bits"), [
    # by hand: f16 = 1 sign, 5 exponent (bias 15), 10 fraction bits
    ("f16", "1.5, 65504, 6e-8, -0.0, inf, -inf, nan, -2",
     [0x3E00, 0x7BFF, 0x0001, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xC000]),
    # bf16 = the top half of an f32
    ("bf16", "1, -3.5, inf", [0x3F80, 0xC060, 0x7F80]),
    ("f32", "1.0, -2.5, 1e-45", [0x3F800000, 0xC0200000, 0x00000001]),
    # e4m3fn: bias 7, no inf, 448 = S.1111.110 is the largest; 2**-9 the smallest subnormal; 0.3 -> 0.3125
    ("e4m3", "1.0, -448, 0.001953125, 0.3", [0x38, 0xFE, 0x01, 0x2A]),
    # e5m2: bias 15, 57344 = 0.11110.11 is the largest finite, 2**-16 the smallest subnormal
    ("e5m2", "1.0, -57344, inf, 1.52587890625e-5", [0x3C, 0xFB, 0x7C, 0x01]),
])
def test_float_data_bits_by_hand(type_name, text, bits):
    (rec,) = assemble(f".ub 0, {type_name}, {text}\n", "t.asm").data
    size = NP[type_name].itemsize
    got = [int.from_bytes(rec.payload[i:i + size], "little") for i in range(0, len(rec.payload), size)]
    assert [hex(b) for b in got] == [hex(b) for b in bits]


def test_data_directive_bits_and_expressions():
    program = assemble(".equ BASE, 0x200\n.ub BASE + 0x20, f16, bits(0x7C01), bits(0x8001)\n"
                       ".gm 0, u16, 1 << 15, ~0 & 0xFFFF\n", "t.asm")
    a, b = program.data
    assert a.addr == 0x220 and a.payload == bytes([0x01, 0x7C, 0x01, 0x80])
    assert np.frombuffer(b.payload, dtype="<u2").tolist() == [0x8000, 0xFFFF]


def test_data_directives_keep_source_order_and_take_no_text_space():
    program = assemble(".gm 8, u8, 1\nNOP\n.ubfill 0, s32, 2, -1\n.ub 4, u8, 2\n", "t.asm")
    assert [(r.space, r.kind) for r in program.data] == [("gm", "list"), ("ub", "fill"), ("ub", "list")]
    assert program.words == (0x55,)
    assert isinstance(program, Program)
