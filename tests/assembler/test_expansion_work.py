"""Macro expansion that produces nothing still ends (issue 28, item 9): every line the expander reads,
every macro use and every repetition is a step, and an expansion of more than MAX_STEPS steps stops
with one located error naming the limit, however few lines it produced.

The limits are the preprocessor's (docs/language.md lists them): 65536 lines produced, 262144 steps.
"""

from __future__ import annotations

import pytest

from vcore.assembler import AsmError, assemble
from vcore.assembler.preprocess import MAX_LINES, MAX_STEPS

STEPS = 262144  # docs/language.md
LIMIT = f"the expansion passes its limit of {STEPS} steps"


def _errors(text: str):
    with pytest.raises(AsmError) as info:
        assemble(text, "t.asm")
    return info.value.diagnostics


def _doubling(levels: int) -> str:
    """M0 is empty; M(k) uses M(k-1) twice: a use of M(levels) is 2^levels uses of M0, and no line."""
    lines = [".macro M0", ".endm"]
    for k in range(1, levels + 1):
        lines += [f".macro M{k}", f"    M{k - 1}", f"    M{k - 1}", ".endm"]
    return "\n".join(lines) + f"\n    M{levels}\n    HALT\n"


def test_the_limits_are_the_documented_ones():
    assert (MAX_LINES, MAX_STEPS) == (65536, STEPS)


def test_a_million_uses_of_an_empty_macro_are_stopped_at_the_limit():
    # 2^20 uses of M0: no line produced, so the 65536-line limit alone let it run (and 2^40 hung)
    (diag,) = _errors(_doubling(20))
    assert diag.message.startswith(LIMIT), diag.message
    top = _doubling(20).count("\n") - 1  # the use of M20, by hand: the line before HALT
    assert diag.location.via[-1].line == top and diag.location.via[-1].what == "in the use of macro M20 here"


def test_two_to_the_forty_uses_end_quickly_with_one_error():
    diags = _errors(_doubling(40))
    assert [d.message.split(" (")[0] for d in diags] == [LIMIT]


def test_a_rept_of_an_empty_macro_counts_its_repetitions():
    # 65536 repetitions of a use of a macro that uses an empty one 8 times: no line, 65536 * 10 steps
    text = (".macro E\n.endm\n.macro F\n" + "    E\n" * 8 + ".endm\n"
            ".rept 65536\n    F\n.endr\n    HALT\n")
    (diag,) = _errors(text)
    assert diag.message.startswith(LIMIT) and diag.location.file == "t.asm"
    assert "of the .rept here" in diag.location.via[-1].what and diag.location.via[-1].line == 13


def test_nested_empty_repts_count_their_repetitions():
    (diag,) = _errors(".rept 32768\n.rept 1024\n.endr\n.endr\n    HALT\n")
    assert diag.message.startswith(LIMIT)
    assert (diag.location.line, diag.location.via[-1].line) == (2, 1)


def test_the_lines_skipped_in_a_rept_0_are_counted_too():
    # each use of B reads a .rept 0 block of 4000 lines and produces nothing
    text = ".macro B\n.rept 0\n" + "    NOP\n" * 4000 + ".endr\n.endm\n" + ".rept 100\n    B\n.endr\n    HALT\n"
    (diag,) = _errors(text)
    assert diag.message.startswith(LIMIT)


def test_an_expansion_under_the_limit_is_untouched():
    # 2^12 uses of M0 and 4096 repetitions of one line: well under both limits
    program = assemble(_doubling(12) + ".rept 4096\n    NOP\n.endr\n", "t.asm")
    assert len(program.words) == 4097


def test_the_lines_limit_still_stops_with_one_error():
    # 2^17 lines produced by 2^15 uses of a four-line macro (comments: quick to assemble): the lines
    # limit, told once
    text = _doubling(15).replace(".macro M0\n.endm", ".macro M0\n" + "    ; a line\n" * 4 + ".endm")
    diags = _errors(text)
    assert [d.message for d in diags] == [f"the expansion passes its limit of {MAX_LINES} lines"]


def test_a_sweep_over_a_runaway_expansion_ends_with_its_rows(tmp_path):
    from click.testing import CliRunner

    from vcore.cli import main

    prog = tmp_path / "p.asm"
    prog.write_text(".equ N, 1\n" + _doubling(40))
    r = CliRunner().invoke(main, ["sweep", str(prog), "-D", "N=1", "--jobs", "1"])
    assert r.exit_code == 0, r.output
    assert r.output.count(LIMIT) == 1, r.output
