"""CONTRACT 13.8: the comparison and logical operators of every constant expression, and conditional
assembly (.if, .elif, .else, .endif, .ifdef, .ifndef, .error).

Every expected value is worked out by hand from the contract's precedence table and rules (C's order,
all binary operators to the left); where a case checks an order, the other grouping is written
beside it with a different value, so the case fails if the order is wrong. Messages are the
contract's, word for word, and places (line, column) are counted by hand on the source text.
"""

from __future__ import annotations

import pytest

from assembler import AsmError, assemble, parse_define
from isa import decode_program


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
