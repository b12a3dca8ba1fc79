"""A run's memory does not grow with the instructions it runs, and its work grows no faster than they
do (issue 30, outcome 1), for the kinds of program the issue measured: a vector function launched
again and again (each launch with another S value, so each is laid out anew), one that stores to the
same UB bytes every pass, and a scalar tiling loop of DMAs, flags and a tensor instruction.

Growth is tested by doubling: the same program at N and 4N passes, peak memory (tracemalloc, which
numpy reports to) within 10%, and Python calls (deterministic, unlike wall time) at most 4.6 times
(counted at a quarter of the size: counting is slow).
What a run keeps per address (the last access of each pipe, GM's undo log) grows with the bytes a
program touches, at most UB and GM, never with how often it touches them: the tiling loop here goes
round the same 16 KiB of GM, as the issue's programs go round UB.
"""

from __future__ import annotations

import pytest
from timing_support import count_calls, peak_memory

import vcore
from vcore.emulator.functions import launch as functions
from vcore.emulator.functions import schedule
from vcore.emulator.order import happens_before

PROGRAMS = {
    # a launch a pass, each with another S7: the "launched 50 times" function (it kept every
    # launch's jobs alive until Python's collector ran, 870 bytes an instruction)
    "launches": lambda n: f"""\
    MOV S7, 0
top:
    MOV S1, 0x0
    MOV S3, 0x8000
    VF.BEGIN
    LOOP 100
        PSET.b16 P0, ALL
        VLD.f16 V0, [S1]
        VADDS.f16 V1, V0, S7, P0
        VST.f16 [S3], V1, P0, post=128
    ENDLOOP
    VF.END
    ADD S7, S7, 1
    BLT S7, {n}, top
    HALT
""",
    # one launch, its loop storing to the same bytes every pass (races each pass with the next)
    "same address": lambda n: f"""\
    VF.BEGIN
    LOOP {200 * n}
        PSET.b16 P0, ALL
        VLD.f16 V0, [0x20000]
        VADDS.f16 V1, V0, S7, P0
        VST.f16 [0x20000], V1, P0
    ENDLOOP
    VF.END
    HALT
""",
    # DMA in, flags, VADD, flags, DMA out, round 16 KiB of GM; 60 passes a unit of n, so that the small size
    # already fills what is bounded (the order check's table grows to a sixth of its GM shadows' entries, some
    # 3,400 accesses here, before its first compaction)
    "tiling": lambda n: f"""\
    MOV S1, 0
    MOV S3, 0
    SETFLAG V, MTE2, 0
    SETFLAG MTE3, V, 0
tile:
    WAITFLAG V, MTE2, 0
    DMA.GM2UB [0x0], gm[S1], len=8
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    WAITFLAG MTE3, V, 0
    VADD.f32 [0x1000], [0x0], [0x0]
    SETFLAG V, MTE2, 0
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    ADD S2, S1, 0x10000
    DMA.UB2GM gm[S2], [0x1000], len=8
    SETFLAG MTE3, V, 0
    ADD S1, S1, 256
    AND S1, S1, 0x3fff
    ADD S3, S3, 1
    BLT S3, {60 * n}, tile
    WAITFLAG V, MTE2, 0
    WAITFLAG MTE3, V, 0
    HALT
""",
}


@pytest.mark.parametrize("kind", sorted(PROGRAMS))
def test_memory_stays_and_work_grows_with_the_instructions_run(monkeypatch, kind):
    monkeypatch.setattr(functions, "CHUNK", 256)  # a long launch holds a chunk of items: both sizes are many
    monkeypatch.setattr(happens_before, "COMPACT_MIN", 64)  # the order check's table, compacted as often
    # a function's schedule prunes its tables and merges its block runs as often (with loops in closed
    # form few passes are fed one by one: the small size must already fill what is bounded)
    monkeypatch.setattr(schedule, "_PRUNE_EVERY", 256)
    monkeypatch.setattr(schedule, "_FOLD_RUNS", 256)
    program = PROGRAMS[kind]
    vcore.load_text(program(80)).run()  # warm the caches and lazy imports (a compaction's, a prune's)
    small, small_peak = peak_memory(vcore.load_text(program(20)).run)
    large, large_peak = peak_memory(vcore.load_text(program(80)).run)
    assert small.fault is None and large.fault is None, (small.fault, large.fault)
    assert large.instructions >= 3.9 * small.instructions
    assert large_peak <= 1.10 * small_peak + 64 * 1024, (small_peak, large_peak)
    assert count_calls(vcore.load_text(program(20)).run)[1] <= 4.6 * count_calls(vcore.load_text(program(5)).run)[1]


def _gm_stream(tiles: int) -> str:
    # each tile: 8 KiB in from fresh GM, 8 KiB out to fresh GM, 128 MiB apart: the touched range grows
    return f"""\
    MOV S1, 0
    MOV S2, 0x8000000
    MOV S3, 0
top:
    DMA.GM2UB [0x0], gm[S1], len=256
    SETFLAG MTE2, MTE3, 0
    WAITFLAG MTE2, MTE3, 0
    DMA.UB2GM gm[S2], [0x0], len=256
    SETFLAG MTE3, MTE2, 0
    WAITFLAG MTE3, MTE2, 0
    ADD S1, S1, 8192
    ADD S2, S2, 8192
    ADD S3, S3, 1
    BLT S3, {tiles}, top
    HALT
"""


def test_the_order_checks_compactions_read_a_bounded_number_of_entries_an_access(monkeypatch):
    # The order check's table is compacted by reading the shadows of every block touched so far (a
    # stream over GM: a range as wide as the stream, here 128 MiB). Compacting whenever the table had
    # doubled read that whole range each time: 135 M entries for 500 tiles, 206 M for 2000 (1024
    # tiles of a 32 KiB add: 4.7 s). A compaction now waits until the table is a sixth of what it
    # reads, so what compactions read stays within a few entries an access.
    monkeypatch.setattr(happens_before, "COMPACT_MIN", 64)
    for tiles in (500, 2000):
        m = vcore.load_text(_gm_stream(tiles), gm_size=0x10000000)
        result = m.run()
        assert result.fault is None
        assert m.engine.order.table.scanned <= 16 * result.instructions, (tiles, m.engine.order.table.scanned)
