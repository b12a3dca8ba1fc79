"""Each instruction's share of its pipe's busy cycles (issue 28, item 4).

Pipelined copies are in flight together: 32 copies back to back on MTE3 each take their whole
transfer time from start to end, which the report's ``cycles`` sums (the contract's "cycles it
occupied its pipe, summed"), so a line's ``cycles`` can exceed its pipe's busy cycles many times over.
The verdict and the table's ``busy`` column use each run's share instead: the cycles of it that no
earlier run of the pipe covered, so a pipe's entries add up to its busy cycles, and the share the
verdict names is at most 100%. Checked by hand on that program, and on every example program.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import vcore
from vcore.inline import build, read_setup

PROGRAMS = Path(__file__).resolve().parents[2] / "programs"

COPIES = """\
    MOV S1, 0
loop:
    DMA.UB2GM gm[S2], [0x0], len=64      ; 2 KiB each, back to back: pipelined on MTE3
    ADD S2, S2, 2048
    ADD S1, S1, 1
    BLT S1, 32, loop
    HALT
"""


def test_pipelined_copies_name_a_share_of_their_pipes_busy_cycles():
    m = vcore.load_text(COPIES)
    r = m.run()
    assert r.fault is None
    report = m.report()
    copy = next(e for e in report.per_pc if e.text.startswith("DMA.UB2GM"))
    busy = report.pipes["MTE3"].busy_cycles
    assert copy.count == 32
    assert copy.cycles > busy  # the runs overlap: their spans summed pass the pipe's busy cycles
    assert copy.busy_cycles == busy  # the only MTE3 instruction: all of the pipe's busy cycles are its
    verdict = report.verdict()
    found = re.search(r"most at line 3: (\d+) of its (\d+) busy cycles, (\d+)%", verdict)
    assert found, verdict
    assert (int(found.group(1)), int(found.group(2)), int(found.group(3))) == (busy, busy, 100)
    assert f"its 32 runs were in flight {copy.cycles} cycles in all" in verdict
    json = report.to_json()
    assert [e["busy_cycles"] for e in json["per_pc"] if e["pipe"] == "MTE3"] == [busy]
    # the table's header says what each column counts; the busy column holds the share
    text = report.to_text()
    assert "busy  in flight" in text and "its share of its pipe's busy cycles" in text
    row = next(line for line in text.splitlines() if "DMA.UB2GM" in line)
    assert row.split()[4:6] == [str(busy), str(copy.cycles)]


def _examples() -> list:
    return sorted(PROGRAMS.rglob("*.asm"))


@pytest.mark.parametrize("path", _examples(), ids=lambda p: str(p.relative_to(PROGRAMS)))
def test_a_pipes_entries_add_up_to_its_busy_cycles(path):
    # V, MTE2 and MTE3 exactly; S's busy cycles also count the cycle S hands each instruction over,
    # at least the S entries' own share. A kernel's pipes are summed over cores: one core's table.
    setup = read_setup(path)
    m = build(setup)
    m.run(**setup.limits())
    report = m.report()
    if report.per_core:
        return
    for pipe, entry in report.pipes.items():
        share = sum(e.busy_cycles for e in report.per_pc if e.pipe == pipe)
        if pipe == "S":
            assert share <= entry.busy_cycles
        else:
            assert share == entry.busy_cycles, (pipe, share, entry.busy_cycles)
    for e in report.per_pc:
        assert 0 <= e.busy_cycles <= max(e.cycles, 0)
