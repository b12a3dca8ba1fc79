"""Long runs keep bounded state: flag history, trace slices. And the double-set warning still
fires whichever of the second set and the first wait is scheduled first."""

from __future__ import annotations

from timing_support import run

from vcore.emulator.timing import accounting
from vcore.emulator.trace import trace_events


def test_second_set_before_the_first_wait_takes_it_warns_once():
    # MTE2 is busy with a 64-block DMA, so its waits take the flags long after V set it twice.
    text = """\
    DMA.GM2UB [0x0], gm[0x0], len=64
    SETFLAG V, MTE2, 0
    SETFLAG V, MTE2, 0
    WAITFLAG V, MTE2, 0
    WAITFLAG V, MTE2, 0
    HALT
"""
    m, r, rep = run(text)
    assert r.fault is None
    assert len(m.flag_warnings()) == 1, m.flag_warnings()
    assert "V -> MTE2 event 0 set again" in m.flag_warnings()[0]


def test_set_wait_loop_keeps_no_flag_history():
    text = """\
    MOV S1, 0
loop:
    SETFLAG V, MTE3, 1
    WAITFLAG V, MTE3, 1
    ADD S1, S1, 1
    BLT S1, 3000, loop
    HALT
"""
    m, r, rep = run(text)
    assert r.fault is None and m.flag_warnings() == []
    assert all(len(q) <= 1 for q in m.engine.flags.sets.values())
    assert len(m.engine.flags.last_consume) == 1


def test_trace_keeps_at_most_its_limit_and_says_how_many_it_dropped(monkeypatch):
    monkeypatch.setattr(accounting, "TRACE_LIMIT", 50)
    m, r, rep = run("    MOV S1, 0\nloop:\n    ADD S1, S1, 1\n    BLT S1, 100, loop\n    HALT\n", trace=True)
    assert r.fault is None
    assert len(m.engine.accounting.slices) == 50
    # 1 MOV + 100 ADD + 100 BLT + HALT = 202 instructions, each one S slice
    assert m.engine.accounting.dropped == 202 - 50
    assert trace_events(m.result)["metadata"]["truncated_slices"] == 152
