"""Tiling loops in steady state (issue 30, outcome 3; docs/timing.md, "How vcore gets there quickly").

A scalar loop of DMA, flags and tensor instructions whose passes the engine schedules the same way,
shifted, reuses the schedule of the pass before (``emulator.timing.replay``). Every test here runs a
program both ways, replayed (the default) and pass by pass (``fast_loops=False``), and compares the
report (all but its two counts of instructions run the quick way), UB, GM, S and the fault, byte for
byte; the identity over every program in ``programs/`` is tests/timing/test_fast_loops.py's, and the
fuzzer is tests/fuzz/test_fuzz_tiling_replay.py. The rest pins how a replay ends (the loop's end, a
pass that differs, a fault, the instruction limit), what keeps a loop pass by pass, and the work saved.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from timing_support import count_calls

import vcore

# DMA in, flags, an add, flags, DMA out, every pass a tile of 256 bytes further in GM (the bench's loop).
TILING = """\
    MOV S1, 0x40000
    MOV S2, 0x100000
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
{extra}    SETFLAG V, MTE2, 0
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    DMA.UB2GM gm[S2], [0x1000], len=8
    SETFLAG MTE3, V, 0
    ADD S1, S1, {step}
    ADD S2, S2, 256
    ADD S3, S3, 1
    BLT S3, {passes}, tile
    WAITFLAG V, MTE2, 0
    WAITFLAG MTE3, V, 0
    HALT
"""


def tiling(passes: int = 200, extra: str = "", step: int = 256) -> str:
    return TILING.format(passes=passes, extra=extra, step=step)


def outcome(text: str, fast: bool, profile: str = "950", **run):
    m = vcore.load_text(text, profile=profile)
    m.write("gm", 0x40000, np.arange(1 << 16, dtype=np.float32))
    result = m.run(fast_loops=fast, **run)
    report = m.report().to_json()
    counts = report.pop("fast_loop_instructions"), report.pop("replayed_instructions")
    state = (json.dumps(report, sort_keys=True), m.ub.tobytes(), m.gm[: 1 << 21].tobytes(), list(m.s),
             str(result.fault))
    return state, counts, m


def both_ways(text: str, profile: str = "950", **run):
    """The replayed run's machine and its count of replayed instructions, once it gives what pass by
    pass gives."""
    slow, slow_counts, _ = outcome(text, False, profile, **run)
    fast, (_, replayed), m = outcome(text, True, profile, **run)
    assert slow_counts == (0, 0)
    assert fast == slow
    return m, replayed


@pytest.mark.parametrize("profile", ["950", "a2"])
def test_a_tiling_loop_is_replayed_and_reports_as_pass_by_pass(profile):
    m, replayed = both_ways(tiling(), profile)
    assert m.replay.passes > 150  # (a handful of passes settle it; the last pass is scheduled by the engine)
    assert replayed == 15 * m.replay.passes  # each pass runs 15 instructions
    assert f"{replayed} of them in tiling-loop passes" in m.report().to_text()


def test_a_pass_that_differs_ends_the_replay_and_a_later_steady_state_starts_another():
    # pass 100 skips its add (a branch on the counter): the engine schedules it, then settles again
    extra = "    BEQ S3, 100, skip\n    VADDS.f32 [0x2000], [0x1000], 1.0\nskip:\n"
    m, _ = both_ways(tiling(300, extra))
    assert m.replay.passes > 250


def test_an_ld_in_a_replayed_pass_hands_the_loop_back_to_the_engine():
    extra = "    BNE S3, 150, noload\n    LD.s32 S7, [0x3000]\nnoload:\n"
    m, replayed = both_ways(tiling(300, extra))
    assert 100 < m.replay.passes < 150
    assert replayed == 16 * m.replay.passes  # (the BNE taken: one instruction a pass more)


def test_a_pass_whose_cost_differs_is_scheduled_by_the_engine():
    # the DMA in steps 32 bytes: its bursts straddle GM's windows differently from pass to pass
    both_ways(tiling(200, step=32))


@pytest.mark.parametrize("passes", [300, 4200])
def test_a_fault_in_a_replayed_pass_is_the_same_fault(passes):
    # S1 walks past the end of GM (16 MiB) in the last case
    m, _ = both_ways(tiling(passes, step=4096))
    assert (m.result.fault is not None) == (passes == 4200)


@pytest.mark.parametrize("limit", [2000, 2007])
def test_the_instruction_limit_inside_a_replayed_pass_is_the_same_stop(limit):
    m, _ = both_ways(tiling(), max_instructions=limit)
    assert m.result.fault.kind == "limit"


def test_a_latent_race_with_what_came_before_the_loop_is_named_as_pass_by_pass():
    # before the loop MTE3 writes GM where pass 120's DMA in reads, and the loop never orders MTE2 after
    # MTE3: a latent race, found in a replayed pass
    text = """\
    DMA.UB2GM gm[0x40000 + 120 * 256], [0x3000], len=8
    MOV S1, 0x40000
    MOV S3, 0
    SETFLAG V, MTE2, 0
tile:
    WAITFLAG V, MTE2, 0
    DMA.GM2UB [0x0], gm[S1], len=8
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    VADDS.f32 [0x1000], [0x0], 1.0
    SETFLAG V, MTE2, 0
    ADD S1, S1, 256
    ADD S3, S3, 1
    BLT S3, 200, tile
    WAITFLAG V, MTE2, 0
    HALT
"""
    m, _ = both_ways(text)
    assert m.replay.passes > 150
    assert [(r.kind, r.first["line"], r.second["line"], r.latent) for r in m.races()] == [("RAW", 1, 7, True)]


def test_a_kernel_of_cores_runs_timed_and_replays_nothing(tmp_path):
    # (each core moves data at simulated times from the start, to pause at a SYNCALL drained: docs/timing.md)
    each_core = "\n".join(("    MOV S9, BLOCKIDX", "    MUL S9, S9, 0x8000", "    MOV S1, 0x40000",
                           "    ADD S1, S1, S9",
                           "    ADD S2, S2, S9"))
    text = tiling(120).replace("    MOV S1, 0x40000", each_core)
    path = tmp_path / "tiles.asm"
    path.write_text(text)
    reports = []
    for fast in (True, False):
        k = vcore.load_kernel(path, cores=2, jobs=1)
        k.run(fast_loops=fast)
        report = k.report().to_json()
        replayed = report.pop("replayed_instructions")
        report.pop("fast_loop_instructions")
        reports.append((json.dumps(report, sort_keys=True), replayed))
    (fast, replayed), (slow, none) = reports
    assert fast == slow
    assert replayed == none == 0


@pytest.mark.parametrize(("why", "text", "run"), [
    ("traced", tiling(), {"trace": True}),
    ("a cycle limit", tiling(), {"max_cycles": 10**9}),
    ("LD in the loop", tiling(extra="    LD.s32 S7, [0x3000]\n"), {}),
    ("a vector function in the loop", tiling(extra="    VF.BEGIN\n    PSET.b32 P0, ALL\n    VF.END\n"), {}),
    ("addresses moving apart", tiling(step=512), {}),
])
def test_what_keeps_a_tiling_loop_pass_by_pass(why, text, run):
    m, replayed = both_ways(text, **run)
    assert m.replay.passes == 0 and replayed == 0, why


def test_a_replayed_pass_costs_a_fraction_of_the_calls_of_one_scheduled_by_the_engine():
    def calls(passes: int, fast: bool) -> int:
        m = vcore.load_text(tiling(passes))
        return count_calls(lambda: m.run(fast_loops=fast))[1]

    # the calls 400 more passes cost, each way (what a run costs once, whatever its passes, drops out):
    # measured 330 against 546 a pass of 15 instructions; what is left is the instructions' own work
    # (their jobs, their data, happens-before's record of each access)
    replayed, scheduled = (calls(800, fast) - calls(400, fast) for fast in (True, False))
    assert replayed < 2 / 3 * scheduled
