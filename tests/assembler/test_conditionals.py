"""CONTRACT 13.8: the comparison and logical operators of every constant expression, and conditional
assembly (.if, .elif, .else, .endif, .ifdef, .ifndef, .error).

Every expected value is worked out by hand from the contract's precedence table and rules (C's order,
all binary operators to the left); where a case checks an order, the other grouping is written
beside it with a different value, so the case fails if the order is wrong. Messages are the
contract's, word for word, and places (line, column) are counted by hand on the source text.
"""

from __future__ import annotations

import pytest

from vcore.assembler import AsmError, assemble, disassemble, listing, parse_define
from vcore.assembler.assemble import TOO_DEEP
from vcore.isa import decode_program


def _mov_value(expr: str, prelude: str = "", **kw) -> int:
    """The immediate that ``MOV S1, expr`` encodes (decoded from its word)."""
    program = assemble(prelude + f"    MOV S1, {expr}\n    HALT\n", "t.asm", **kw)
    inst = decode_program(program.words)[-2][1]
    assert inst.operands[1].reg is None
    return inst.operands[1].imm


def _errors(text: str, filename: str = "t.asm", **kw) -> list[tuple[str, int, int, str]]:
    """(file, line, column, message) of each diagnostic, in source order."""
    with pytest.raises(AsmError) as info:
        assemble(text, filename, **kw)
    return [(d.location.file, d.location.line, d.location.col, d.message) for d in info.value.diagnostics]


# ---------------------------------------------------------------------------------------------------
# Operators: the precedence table, each level against its neighbours
# ---------------------------------------------------------------------------------------------------
# (expression, its value by the table, the other grouping written out, that grouping's value): each
# pair of adjacent levels both ways round, so a level bound too loosely or too tightly fails a case.
ORDER = [
    # 1 (unary - ~ !) binds tighter than 2 (* / %)
    ("!0 * 5", 5, "!(0 * 5)", 1),
    ("~0 * 2", -2, "~(0 * 2)", -1),
    # 2 over 3 (+ -)
    ("2 + 3 * 4", 14, "(2 + 3) * 4", 20),
    ("10 - 4 / 2", 8, "(10 - 4) / 2", 3),
    ("7 % 4 + 1", 4, "7 % (4 + 1)", 2),
    # 3 over 4 (<< >>)
    ("1 << 2 + 1", 8, "(1 << 2) + 1", 5),
    ("16 >> 1 + 1", 4, "(16 >> 1) + 1", 9),
    # 4 over 5 (< <= > >=)
    ("1 << 2 < 5", 1, "1 << (2 < 5)", 2),
    ("5 > 16 >> 2", 1, "(5 > 16) >> 2", 0),
    ("4 <= 1 << 2", 1, "(4 <= 1) << 2", 0),
    ("17 >> 2 >= 5", 0, "17 >> (2 >= 5)", 17),
    # 5 over 6 (== !=)
    ("3 == 3 < 4", 0, "(3 == 3) < 4", 1),
    ("2 != 2 >= 1", 1, "(2 != 2) >= 1", 0),
    # 6 over 7 (&)
    ("2 & 2 == 2", 0, "(2 & 2) == 2", 1),
    ("2 == 2 & 2", 0, "2 == (2 & 2)", 1),
    # 7 over 8 (^)
    ("6 ^ 3 & 5", 7, "(6 ^ 3) & 5", 5),
    ("5 & 3 ^ 6", 7, "5 & (3 ^ 6)", 5),
    # 8 over 9 (|)
    ("1 | 1 ^ 1", 1, "(1 | 1) ^ 1", 0),
    ("1 ^ 1 | 1", 1, "1 ^ (1 | 1)", 0),
    # 9 over 10 (&&)
    ("0 && 2 | 1", 0, "(0 && 2) | 1", 1),
    ("2 | 1 && 0", 0, "2 | (1 && 0)", 2),
    # 10 over 11 (||)
    ("1 || 0 && 0", 1, "(1 || 0) && 0", 0),
    ("0 && 0 || 1", 1, "0 && (0 || 1)", 0),
    # all binary operators associate to the left
    ("10 - 4 - 3", 3, "10 - (4 - 3)", 9),
    ("100 / 10 / 5", 2, "100 / (10 / 5)", 50),
    ("64 >> 2 >> 1", 8, "64 >> (2 >> 1)", 32),
    ("3 > 2 > 1", 0, "3 > (2 > 1)", 1),
    ("1 == 2 == 0", 1, "1 == (2 == 0)", 0),
]


@pytest.mark.parametrize(("expr", "value", "other", "other_value"), ORDER, ids=[row[0] for row in ORDER])
def test_each_level_binds_as_the_table_says(expr, value, other, other_value):
    assert value != other_value  # the case tells the two groupings apart
    assert _mov_value(expr) == value
    assert _mov_value(other) == other_value


@pytest.mark.parametrize(("expr", "value"), [
    # what each operator gives: comparisons and logic are 1 or 0, ^ is exclusive or
    ("1 < 2", 1), ("2 < 2", 0), ("2 <= 2", 1), ("3 <= 2", 0), ("3 > 2", 1), ("2 > 2", 0), ("2 >= 2", 1),
    ("1 >= 2", 0), ("5 == 5", 1), ("5 == 6", 0), ("5 != 6", 1), ("5 != 5", 0), ("12 ^ 10", 6), ("!0", 1),
    ("!7", 0), ("!-1", 0), ("!!9", 1), ("2 && 3", 1), ("2 && 0", 0), ("0 || 5", 1), ("0 || 0", 0), ("-4 || 0", 1),
    # exact, unbounded, signed comparison
    ("0xFFFFFFFF > 0", 1), ("-1 < 0", 1), ("-1 < 0xFFFFFFFFFFFFFFFF", 1), ("-1 == 0xFFFFFFFFFFFFFFFF", 0),
    ("(1 << 100) > (1 << 99)", 1), ("-(1 << 70) < -(1 << 69)", 1), ("~0 == -1", 1),
    # the two-character operators are tokens: no spaces needed
    ("1<=2", 1), ("3>=4", 0), ("3!=3", 0), ("2==2", 1), ("1&&0", 0), ("0||1", 1), ("1<2", 1), ("1<<2<5", 1),
])
def test_what_each_new_operator_gives(expr, value):
    assert _mov_value(expr) == value


@pytest.mark.parametrize(("expr", "value"), [
    # expressions valid before keep their values (C's order: | & << + * already followed it)
    ("1 | 2 & 3", 3), ("1 + 2 << 3", 24), ("2 * 3 + 4", 10), ("-7 / 2", -3), ("-7 % 2", -1), ("~0 & 0xFF", 255),
    ("1 << 4 | 1", 17), ("6 & 3 << 1", 6), ("0x10 - 1 & ~3", 12), ("-(2 + 3) * 4", -20), ("1 - -1", 2),
])
def test_expressions_valid_before_keep_their_values(expr, value):
    assert _mov_value(expr) == value


def test_and_and_or_do_not_evaluate_a_right_operand_that_cannot_matter():
    assert _mov_value("0 && (1/0)") == 0
    assert _mov_value("1 || (1/0)") == 1
    assert _mov_value("0 && nosuch") == 0  # not evaluated: not looked up either
    assert _mov_value("0 && (1/0) || 1") == 1
    # when the left operand does not decide, the right one is evaluated, errors and all
    #               1234567890123456789012
    assert _errors("    MOV S1, 1 && (1/0)\n") == [("t.asm", 1, 21, "division by zero")]
    assert _errors("    MOV S1, 0 || (1/0)\n") == [("t.asm", 1, 21, "division by zero")]


def test_the_operators_stand_in_every_constant_expression():
    text = """\
.equ BIG, 1000 > 999
.ub 0x0, u8, 1 < 2, 3 == 4, 6 ^ 5
.rept 1 + (2 >= 2)
    NOP
.endr
    VADD.f16 [0], [0], [0], repeat=1 + (BIG && 1)
    MOV S1, BIG
    HALT
"""
    program = assemble(text, "t.asm")
    assert program.data[0].payload == bytes([1, 0, 3])
    insts = [inst for _, inst in decode_program(program.words)]
    assert [inst.row.mnemonic for inst in insts] == ["NOP", "NOP", "VADD", "MOV", "HALT"]
    assert insts[3].operands[1].imm == 1
    assert insts[2].kw("repeat") == 2
    assert parse_define("N=3 > 2") == ("N", 1)
    assert parse_define("M=1<<4 | 1 ^ 3") == ("M", 18)  # 16 | (1 ^ 3)


def test_the_new_operators_keep_expressions_integer():
    #               12345678901234567
    assert _errors("    MOV S1, !1.5\n") == [("t.asm", 1, 14, "expected an integer, found 1.5")]
    assert _errors("    MOV S1, 1 < < 2\n") == [("t.asm", 1, 17, "expected an operand, found '<'")]


# ---------------------------------------------------------------------------------------------------
# Conditional assembly
# ---------------------------------------------------------------------------------------------------

def _texts(text: str, **kw) -> list[str]:
    """The statements a program assembles, in order, as written."""
    program = assemble(text, "t.asm", **kw)
    return [program.source[pc].text for pc in sorted(program.source)]


CONTRACT_EXAMPLE = """\
.ifndef TILE
.equ TILE, 64
.endif
.if TILE % 32 != 0 || TILE > 4096
.error "TILE must be a multiple of 32, at most 4096"
.elif TILE >= 1024 && defined(FAST)
    MOV S1, 1                   ; large tiles, fast path
.else
    MOV S1, 2                   ; default path
.endif
    HALT
"""


@pytest.mark.parametrize(("defines", "want"), [
    ({}, ["MOV S1, 2", "HALT"]),                               # TILE = 64 from the .equ: the default path
    ({"TILE": 2048, "FAST": 0}, ["MOV S1, 1", "HALT"]),        # FAST is defined (its value does not matter)
    ({"TILE": 2048}, ["MOV S1, 2", "HALT"]),
    ({"TILE": 4096, "FAST": 1}, ["MOV S1, 1", "HALT"]),        # 4096 is "at most 4096"
])
def test_the_contracts_example_takes_its_branches(defines, want):
    assert _texts(CONTRACT_EXAMPLE, defines=defines) == want


@pytest.mark.parametrize("tile", [48, 4128, 0x10000])
def test_the_contracts_example_refuses_a_bad_tile_with_its_own_message(tile):
    assert _errors(CONTRACT_EXAMPLE, defines={"TILE": tile}) == [
        ("t.asm", 5, 1, "TILE must be a multiple of 32, at most 4096")]


CHAIN = """\
.if A == 1
    MOV S1, 1
.elif A == 2
    MOV S1, 2
.elif A >= 2
    MOV S1, 3
.else
    MOV S1, 4
.endif
    HALT
"""


@pytest.mark.parametrize(("a", "want"), [(1, "MOV S1, 1"), (2, "MOV S1, 2"), (5, "MOV S1, 3"), (0, "MOV S1, 4"),
                                         (-1, "MOV S1, 4")])
def test_the_first_true_branch_is_assembled_and_only_it(a, want):
    assert _texts(CHAIN, defines={"A": a}) == [want, "HALT"]


def test_without_a_true_branch_or_an_else_nothing_is_assembled():
    assert _texts(".if 0\n    NOP\n.elif 2 < 1\n    NOP\n.endif\n    HALT\n") == ["HALT"]
    assert _texts(".if 7\n    NOP\n.endif\n    HALT\n") == ["NOP", "HALT"]  # any value but 0 is true
    assert _texts(".if -1\n    NOP\n.endif\n    HALT\n") == ["NOP", "HALT"]


IFDEF = """\
lab:    NOP
.equ ABOVE, 0
.ifdef ABOVE
    MOV S1, 1
.endif
.ifdef lab
    MOV S1, 2
.endif
.ifdef BELOW
    MOV S1, 3
.endif
.ifndef CLI
    MOV S1, 4
.elif CLI == 0
    MOV S1, 5
.else
    MOV S1, 6
.endif
.equ BELOW, 1
    HALT
"""


@pytest.mark.parametrize(("defines", "last"), [({}, "MOV S1, 4"), ({"CLI": 0}, "MOV S1, 5"), ({"CLI": 7}, "MOV S1, 6")])
def test_ifdef_asks_for_a_constant_defined_above_or_by_minus_d(defines, last):
    # ABOVE is defined (its value 0 does not matter); a label is not a constant; BELOW is not defined
    # yet where it is asked; .elif and .else follow an .ifndef as they follow a .if
    assert _texts(IFDEF, defines=defines) == ["NOP", "MOV S1, 1", last, "HALT"]


def test_defined_is_1_for_a_defined_constant_and_0_otherwise():
    text = """\
.equ HAVE, 5
lab:
.if defined(HAVE) && !defined(NOPE) && !defined(lab) && defined(CLI) + defined(HAVE) == 2
    MOV S1, 1
.endif
.if defined(TILE) && TILE > 4
    MOV S1, 2
.endif
.if !defined(TILE) || TILE > 4
    MOV S1, 3
.endif
    HALT
"""
    # TILE is undefined: the right operands that name it are not evaluated, so no error
    assert _texts(text, defines={"CLI": 1}) == ["MOV S1, 1", "MOV S1, 3", "HALT"]
    assert _texts(text, defines={"CLI": 1, "TILE": 8}) == ["MOV S1, 1", "MOV S1, 2", "MOV S1, 3", "HALT"]
    assert _texts(text) == ["MOV S1, 3", "HALT"]


def test_defined_stands_only_in_if_and_elif_expressions():
    message = "defined(NAME) is valid only in .if/.elif expressions"
    #               123456789012345
    assert _errors("    MOV S1, defined(X)\n") == [("t.asm", 1, 13, message)]
    assert _errors(".equ D, defined(X)\n    MOV S1, D\n") == [("t.asm", 1, 9, message)]
    # nor in a constant a .if uses: the .equ's own expression is not the .if's
    assert _errors(".equ D, defined(X)\n.if D\n.endif\n") == [("t.asm", 1, 9, message)]
    assert _errors(".if defined(3)\n.endif\n") == [("t.asm", 1, 13, "defined(NAME) takes a name, found '3'")]


def test_an_if_expression_is_of_numbers_and_constants_defined_above():
    text = ".equ A, 3\n.if A * 2 == 6 && N == 4\n    NOP\n.endif\n    HALT\n"
    assert _texts(text, defines={"N": 4}) == ["NOP", "HALT"]
    #                   12345678
    assert _errors(".if TILE > 4\n.endif\n") == [("t.asm", 1, 5, "undefined symbol 'TILE' in .if")]
    # a constant defined below the .if is not defined yet
    assert _errors(".if B\n.endif\n.equ B, 1\n") == [("t.asm", 1, 5, "undefined symbol 'B' in .if")]
    labels = "labels have no value during conditional assembly; use .equ"
    assert _errors("top: NOP\n.if top == 0\n.endif\n") == [("t.asm", 2, 5, labels)]
    assert _errors("top: NOP\n.if 0\n.elif top\n.endif\n") == [("t.asm", 3, 7, labels)]
    # through a constant: the label is told where the constant names it
    assert _errors("top: NOP\n.equ T, top + 1\n.if T\n.endif\n") == [("t.asm", 2, 9, labels)]
    assert _errors(".if 1 / 0\n.endif\n") == [("t.asm", 1, 9, "division by zero")]
    assert _errors(".if 1.5\n.endif\n") == [("t.asm", 1, 5, "expected an integer, found 1.5")]


def test_an_if_in_error_assembles_no_branch():
    # only the expression's error: neither branch is assembled (their unknown mnemonics are not read)
    text = ".if nosuch\n    FROB\n.elif 1\n    FROB\n.else\n    FROB\n.endif\n    HALT\n"
    assert _errors(text) == [("t.asm", 1, 5, "undefined symbol 'nosuch' in .if")]


@pytest.mark.parametrize(("text", "want"), [
    (".if\n.endif\n", (1, 1, ".if is written .if EXPR")),
    (".if 0\n.elif\n.endif\n", (2, 1, ".elif is written .elif EXPR")),
    (".if 1, 2\n.endif\n", (1, 5, ".if is written .if EXPR")),
    (".ifdef\n.endif\n", (1, 1, ".ifdef is written .ifdef NAME")),
    (".ifndef A B\n.endif\n", (1, 1, ".ifndef is written .ifndef NAME")),
    (".ifdef 3\n.endif\n", (1, 1, ".ifdef is written .ifdef NAME")),
])
def test_a_conditional_directive_without_its_operand_says_how_it_is_written(text, want):
    assert [e[1:] for e in _errors(text)] == [want]


SKIPPED = """\
.if 0
    FROB S99, [[[
.equ A, 1 / 0
here:
.ub 0x0, u8, 7
.include "nosuch.asm"
.macro NEVER
    NOP
.endm
    NEVER
.error "not this one"
.rept 100000000
.endr
.endif
.ifdef A
    MOV S1, 1
.endif
    HALT
"""


def test_a_branch_not_taken_is_not_read():
    # its lines are not parsed, its .equ, label and data do not take effect, its .include is not read,
    # its .macro defines nothing, its .error and its .rept do nothing
    program = assemble(SKIPPED, "t.asm")
    assert [s.text for s in program.source.values()] == ["HALT"]
    assert program.data == () and program.labels == {}
    #                                  1234567
    assert _errors(SKIPPED + "    NEVER\n")[0][1:3] == (19, 5)  # NEVER is no macro: an unknown mnemonic


def test_ifs_inside_a_branch_not_taken_are_counted_not_evaluated():
    text = """\
.if 0
.if 1
    MOV S1, 1
.elif nosuch
.else
    MOV S1, 2
.endif
.ifdef
.endif
    MOV S1, 3
.else
    MOV S1, 4
.endif
    HALT
"""
    assert _texts(text) == ["MOV S1, 4", "HALT"]


def test_an_elif_after_a_taken_branch_is_not_evaluated():
    text = ".if 1\n    MOV S1, 1\n.elif 1 / 0\n.elif nosuch\n.elif\n.else\n    MOV S1, 2\n.endif\n    HALT\n"
    assert _texts(text) == ["MOV S1, 1", "HALT"]


def test_comments_may_follow_the_directives():
    text = ".if 1 ; yes\n    NOP\n.else // no\n    HALT\n.endif ; done\n    HALT\n"
    assert _texts(text) == ["NOP", "HALT"]


def test_directives_are_case_insensitive():
    assert _texts(".IF 0\n    NOP\n.Else\n    HALT\n.ENDIF\n") == ["HALT"]


def test_ifs_nest_64_deep_and_no_deeper():
    deep = ".if 1\n" * 64 + "    NOP\n" + ".endif\n" * 64 + "    HALT\n"
    assert _texts(deep) == ["NOP", "HALT"]
    deeper = ".if 1\n" * 65 + "    NOP\n" + ".endif\n" * 65 + "    HALT\n"
    assert _errors(deeper) == [("t.asm", 65, 1, ".if nested deeper than 64")]
    # inside a branch not taken too: the blocks are counted all the same
    skipped = ".if 0\n" + "    .ifdef X\n" * 64 + "    .endif\n" * 64 + ".endif\n"
    assert _errors(skipped) == [("t.asm", 65, 5, ".if nested deeper than 64")]


def test_the_nesting_counts_the_blocks_around_a_macros_use():
    # 63 blocks open around the use, 2 in the body: the body's second is the 65th
    body = ".macro TWO\n.if 1\n.if 1\n    NOP\n.endif\n.endif\n.endm\n"
    text = body + ".if 1\n" * 63 + "    TWO\n" + ".endif\n" * 63
    assert [e[1:] for e in _errors(text)] == [(3, 1, ".if nested deeper than 64")]
    assert _texts(body + ".if 1\n" * 62 + "    TWO\n" + ".endif\n" * 62) == ["NOP"]


def test_misplaced_elif_else_and_endif():
    text = """\
.if 1
.else
.elif 1
.else
.endif extra
.endif
.else
.elif 1
    HALT
"""
    assert _errors(text) == [
        ("t.asm", 3, 1, "'.elif' after '.else' (the '.else' at line 2 comes last)"),
        ("t.asm", 4, 1, "a second '.else' for the '.if' at line 1 (its '.else' is at line 2)"),
        ("t.asm", 5, 8, "extra text after '.endif' (a comment starts with ; or //)"),
        ("t.asm", 6, 1, "'.endif' without '.if'"),
        ("t.asm", 7, 1, "'.else' without '.if'"),
        ("t.asm", 8, 1, "'.elif' without '.if'"),
    ]
    #                         1234567
    assert _errors(".if 0\n  .else 1\n.endif\n") == [
        ("t.asm", 2, 9, "extra text after '.else' (a comment starts with ; or //)")]


def test_the_structure_is_checked_inside_a_branch_not_taken_too():
    text = ".if 0\n.if 1\n.else\n.else\n.endif\n.endif\n"
    assert _errors(text) == [("t.asm", 4, 1, "a second '.else' for the '.if' at line 2 (its '.else' is at line 3)")]


@pytest.mark.parametrize(("text", "line", "col"), [
    ("a: .if 1\n.endif\n", 1, 1),
    ("a: .ifdef X\n.endif\n", 1, 1),
    ("a: .ifndef X\n.endif\n", 1, 1),
    (".if 0\na: b: .elif 1\n.endif\n", 2, 1),
    (".if 0\n  a: .else\n.endif\n", 2, 3),
    (".if 1\na:.endif\n", 2, 1),
])
def test_a_label_cannot_stand_on_a_conditional_line(text, line, col):
    assert _errors(text) == [("t.asm", line, col, "a label cannot stand on a .if line")]


def test_an_if_still_open_at_the_end_of_the_file_is_told_at_its_line():
    assert _errors("    NOP\n  .if 1\n    NOP\n") == [("t.asm", 2, 3, "'.if' has no '.endif'")]
    # each open block is told, an inner one and an .ifdef too
    assert _errors(".if 1\n.ifdef X\n.endif\n.if 0\n.ifndef X\n") == [
        ("t.asm", 1, 1, "'.if' has no '.endif'"), ("t.asm", 4, 1, "'.if' has no '.endif'"),
        ("t.asm", 5, 1, "'.ifndef' has no '.endif'")]


def test_an_if_may_not_straddle_a_macro_body():
    text = ".macro M\n    NOP\n.if 1\n.endm\n.endif\n    M\n"
    assert _errors(text) == [("t.asm", 4, 1, "'.if' at line 3 is not closed before '.endm'"),
                             ("t.asm", 5, 1, "'.endif' without '.if'")]
    # an .endif in the body cannot close a .if around the definition either (the macro is not defined)
    text = ".if 1\n.macro M\n.endif\n.endm\n.endif\n"
    assert _errors(text) == [("t.asm", 3, 1, "'.endif' without '.if'")]
    assert _errors(".macro M\n.else\n.endm\n") == [("t.asm", 2, 1, "'.else' without '.if'")]


def test_an_if_may_not_straddle_a_rept_block():
    text = ".rept 2\n.if 1\n.endr\n.endif\n"
    assert _errors(text) == [("t.asm", 3, 1, "'.if' at line 2 is not closed before '.endr'"),
                             ("t.asm", 4, 1, "'.endif' without '.if'")]
    # a nested .rept is checked when its enclosing block is expanded
    text = ".rept 2\n.rept 3\n.if 1\n.endr\n.endif\n.endr\n"
    errors = [e[1:] for e in _errors(text)]
    assert errors == [(4, 1, "'.if' at line 3 is not closed before '.endr'"), (5, 1, "'.endif' without '.if'")]


def test_an_if_may_not_straddle_an_included_file(tmp_path):
    (tmp_path / "opens.asm").write_text(".if 1\n    NOP\n")
    (tmp_path / "closes.asm").write_text("    NOP\n.endif\n")
    main = tmp_path / "main.asm"
    main.write_text('.include "opens.asm"\n.if 1\n.include "closes.asm"\n    HALT\n')
    with pytest.raises(AsmError) as info:
        assemble(main.read_text(), str(main))
    found = [(d.location.file, d.location.line, d.location.col, d.message, [s.line for s in d.location.via])
             for d in info.value.diagnostics]
    assert found == [
        (str(tmp_path / "opens.asm"), 1, 1, "'.if' has no '.endif'", [1]),
        (str(main), 2, 1, "'.if' has no '.endif'", []),
        (str(tmp_path / "closes.asm"), 2, 1, "'.endif' without '.if'", [3]),
    ]


def test_an_if_closed_inside_an_included_file_works(tmp_path):
    (tmp_path / "lib.asm").write_text(".ifndef WIDTH\n.equ WIDTH, 8\n.endif\n")
    main = tmp_path / "main.asm"
    main.write_text('.include "lib.asm"\n.if WIDTH == 8\n    MOV S1, WIDTH\n.endif\n    HALT\n')
    program = assemble(main.read_text(), str(main))
    assert [s.text for s in program.source.values()] == ["MOV S1, WIDTH", "HALT"]


def test_in_a_macro_body_an_if_is_evaluated_at_each_use_after_the_arguments_go_in():
    text = """\
.macro PICK n
.if \\n > 4
    MOV S1, \\n
.elif \\@ == 2
    MOV S2, \\n
.else
    MOV S3, \\n
.endif
.endm
    PICK 5
    PICK 1
    PICK 2
    HALT
"""
    # use 1: 5 > 4; use 2: 1 is not, but \\@ is 2; use 3: neither
    assert _texts(text) == ["MOV S1, 5", "MOV S2, 1", "MOV S3, 2", "HALT"]


def test_a_macro_is_defined_in_a_taken_branch_and_not_in_one_not_taken():
    text = """\
.if 1
.macro SET
    MOV S1, 1
.endm
.else
.macro SET
    MOV S1, 2
.endm
.endif
    SET
    HALT
"""
    assert _texts(text) == ["MOV S1, 1", "HALT"]  # and no duplicate definition


def test_in_a_rept_block_an_if_is_evaluated_at_each_repetition():
    text = """\
.rept 3
.ifndef ONCE
.equ ONCE, 1
    MOV S1, 1
.else
    MOV S2, 2
.endif
.endr
    HALT
"""
    assert _texts(text) == ["MOV S1, 1", "MOV S2, 2", "MOV S2, 2", "HALT"]
    nested = ".equ N, 2\n.if N > 1\n.rept N\n.if N == 2\n    NOP\n.endif\n.endr\n.endif\n    HALT\n"
    assert _texts(nested) == ["NOP", "NOP", "HALT"]


def test_error_stops_the_assembly_with_its_text_where_it_is_taken():
    #                            1234567
    assert _errors("    NOP\n  .error \"no; not this\"  ; why\n") == [("t.asm", 2, 3, "no; not this")]
    assert _texts('.if 0\n.error "skipped"\n.endif\n    HALT\n') == ["HALT"]
    assert _errors('.if 0\n.else\n.error "taken"\n.endif\n') == [("t.asm", 3, 1, "taken")]
    assert _errors(".error\n") == [("t.asm", 1, 1, '.error is written .error "TEXT"')]
    assert _errors(".error TEXT\n") == [("t.asm", 1, 1, '.error is written .error "TEXT"')]
    assert _errors('.error ""\n') == [("t.asm", 1, 1, '.error is written .error "TEXT"')]


def test_error_in_a_macro_tells_its_use():
    text = '.macro NEED n\n.if \\n < 2\n.error "need 2 or more, not \\n"\n.endif\n.endm\n    NEED 3\n    NEED 1\n'
    with pytest.raises(AsmError) as info:
        assemble(text, "t.asm")
    [diagnostic] = info.value.diagnostics
    assert (diagnostic.location.line, diagnostic.location.col, diagnostic.message) == (3, 1, "need 2 or more, not 1")
    assert [(s.line, s.what) for s in diagnostic.location.via] == [(7, "in the use of macro NEED here")]


def test_the_listing_omits_the_lines_of_branches_not_taken():
    text = ".if 1\n    NOP\n.else\n    ADD S1, S1, 1\n.endif\n.ifdef X\n    MOV S1, 1\n.endif\n    HALT\n"
    program = assemble(text, "t.asm")
    # address, word, line, text: the NOP of line 2 and the HALT of line 9, nothing of lines 4 and 7
    assert [line.split()[2:] for line in listing(program).splitlines()] == [["2", "NOP"], ["9", "HALT"]]


def test_conditional_assembly_changes_only_which_lines_are_assembled():
    with_ifs = ".equ N, 3\n.if N > 2\n    ADD S1, S1, N\n.else\n    SUB S1, S1, N\n.endif\n    HALT\n"
    plain = ".equ N, 3\n    ADD S1, S1, N\n    HALT\n"
    program, expected = assemble(with_ifs, "t.asm"), assemble(plain, "t.asm")
    assert program.words == expected.words
    assert disassemble(program) == disassemble(expected)
    assert [s.line for s in program.source.values()] == [3, 7]  # each its own line of the program


def test_a_too_deep_if_or_rept_expression_is_an_error_not_a_crash():
    deep = "(" * 3000 + "1" + ")" * 3000  # past Python's recursion limit, whatever the platform's stack
    assert _errors(f".if {deep}\n.endif\n") == [("t.asm", 1, 5, TOO_DEEP)]
    assert _errors(f".rept {deep}\n.endr\n") == [("t.asm", 1, 7, TOO_DEEP)]  # it raised RecursionError
