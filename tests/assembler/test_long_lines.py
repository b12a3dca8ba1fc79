"""One very long line (issue 28, item 10): no "did you mean" search for a token no mnemonic or name
is that long, and a diagnostic echoes a window of the line around its caret, not the whole line.

Lines of ordinary length are echoed whole, as before (tests/cli/test_bad_input_corpus.py checks
that for every case of its corpus).
"""

from __future__ import annotations

import time

import pytest

from vcore.assembler import AsmError, assemble, suggest
from vcore.assembler.diagnostics import Diagnostic, Location
from vcore.isa import MNEMONICS

WINDOW = 100  # columns of a long line that a diagnostic shows (assembler.diagnostics.SHOWN_COLUMNS)


def _error(source: str) -> AsmError:
    with pytest.raises(AsmError) as info:
        assemble(source, "t.asm")
    return info.value


def test_a_token_longer_than_any_name_is_not_compared_with_every_mnemonic(monkeypatch):
    calls = []
    monkeypatch.setattr(suggest, "_distance", lambda a, b: calls.append((a, b)) or 99)
    message = suggest.unknown_mnemonic("X" * 65, MNEMONICS)
    assert calls == []
    assert "did you mean" not in message


def test_a_token_of_a_mnemonic_s_length_still_gets_its_suggestion():
    assert suggest.unknown_mnemonic("VADDD", MNEMONICS) == "unknown mnemonic 'VADDD'; did you mean VADD?"
    # 64 characters: still compared (and too far from any mnemonic to be one)
    assert "did you mean" not in suggest.unknown_mnemonic("V" + "Q" * 63, MNEMONICS)


def test_the_message_names_a_long_token_by_its_start_and_length():
    for source, what, n in [("X" * 1_000_000, "unknown mnemonic", 1_000_000),
                            ("MOV S1, " + "X" * 1_000_000, "undefined symbol", 1_000_000),
                            ("MOV S1, 1" + "0" * 999, "constant", 1000)]:
        head = _error(source + "\n").diagnostics[0].format().split("\n")[0]
        assert head.startswith("t.asm:1:") and what in head, head[:200]
        assert len(head) < 200 and f"{n} characters" in head, head[:400]


def test_a_short_token_in_a_message_is_shown_whole():
    name = "n" * 64
    diag = _error(f"MOV S1, {name}\n").diagnostics[0]
    assert diag.format().split("\n")[0] == f"t.asm:1:9: error: undefined symbol '{name}'"


def test_a_long_line_is_echoed_as_a_window_around_the_caret():
    line = "    MOV S1, " + " " * 500 + "nosuch" + " " * 500 + "; the end"
    col = line.index("nosuch") + 1  # by hand: the column of the undefined symbol
    (diag,) = _error(line + "\n").diagnostics
    assert (diag.location.line, diag.location.col, diag.message) == (1, col, "undefined symbol 'nosuch'")
    _, shown, caret = diag.format().split("\n")[:3]
    assert shown.startswith("...") and shown.endswith("...")
    assert len(shown) <= WINDOW + 6
    assert caret.index("^") == shown.index("nosuch") and caret.strip() == "^~~~~~"


@pytest.mark.parametrize(("col", "length"), [(1, 1), (2, 5), (400, 3), (996, 10), (1001, 1), (1002, 1)])
def test_the_caret_sits_under_its_column_of_the_shown_text(col, length):
    line = "".join(f"{i:05d}" for i in range(200))  # 1000 columns, no stretch of them twice
    text = Diagnostic(Location("t.asm", 1, col, length), "m", line).format()
    _, shown, caret = text.split("\n")
    assert len(shown) <= WINDOW + 6
    at = caret.index("^")
    core = shown.removeprefix("...").removesuffix("...")
    assert line.count(core) == 1
    start = line.index(core)  # where the shown part begins
    assert at - (3 if shown.startswith("...") else 0) + start == col - 1
    assert not caret[:at].strip()
    assert len(caret) - at == min(length, max(1, len(line) - (col - 1)))
    assert shown.startswith("...") == (start > 0)


def test_a_tab_before_the_caret_stays_in_the_padding_of_a_long_line():
    line = "\tloop" + "x" * 16 + ":\tNOSUCH" + " " * 300 + "; long comment"
    (diag,) = _error(line + "\n").diagnostics
    assert diag.location.col == 24
    _, shown, caret = diag.format().split("\n")[:3]
    assert shown == line[:WINDOW] + "..."
    assert caret == "\t" + " " * 21 + "\t^~~~~~"


def test_a_line_of_ordinary_length_is_echoed_whole():
    line = "    MOV S1, nosuch ; " + "c" * 90
    (diag,) = _error(line + "\n").diagnostics
    assert diag.format().split("\n")[1] == line


def test_a_megabyte_line_is_reported_briefly():
    err = _error("X" * 1_000_000 + "\n")
    (diag,) = err.diagnostics
    assert (diag.location.line, diag.location.col) == (1, 1)
    assert len(str(err)) < 600, str(err)[:800]


def _seconds(source: str) -> float:
    start = time.perf_counter()
    with pytest.raises(AsmError):
        assemble(source, "t.asm")
    return time.perf_counter() - start


@pytest.mark.parametrize("shape", ["X{}", "MOV S1, {}", "NOP ; {}"])
def test_the_time_grows_linearly_with_the_line(shape):
    """A 4 MB line takes about 4 times a 1 MB line (quadratic would be 16): a ratio, not a wall clock."""
    def source(n: int) -> str:
        return shape.format("X" * n) + "\nBOGUS\n"  # the last line: an error even when the long one is none

    _seconds(source(1000))  # warm up
    small = min(_seconds(source(1 << 20)) for _ in range(2))
    large = _seconds(source(1 << 22))
    assert large < 8 * small + 0.05, (small, large)
