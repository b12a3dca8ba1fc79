"""Traces of whole kernels (issue 33, item 3): a process per core named ``core K`` with a ``blocks``
track, each block's slices on its core at the cycle it started there, SYNCALL arrivals and releases
as instants with arrows from each arrival to the release, the GM bytes a cycle of all cores' copies
as a counter, the same trace for every number of processes, and the time axis in cycles. Expected
cycles are worked out by hand from the profile's keys (as tests/emulator/test_kernel.py and
test_kernel_blocks.py do); every trace also passes the format checker (tests/trace_format.py)."""

from __future__ import annotations

import json
import math
from collections import defaultdict

import pytest
from kernel_programs import COUNTDOWN, SYNCED
from trace_format import check_trace, ns

from vcore.assembler import assemble
from vcore.emulator import load_profile
from vcore.emulator.kernel import trace as kernel_trace
from vcore.emulator.kernel.cores import Kernel
from vcore.emulator.trace import COUNTER, trace_events

P950 = load_profile("950")
SYNCALL, SWITCH = P950["chip"]["syncall"], P950["chip"]["block_switch"]  # 200, 83
DMA = P950["dma"]

# COUNTDOWN: block k takes 3k + 3 cycles on S; SYNCED: with a SYNCALL before HALT, all go on at the last
# arrival plus chip.syncall (tests/emulator/kernel_programs.py, test_kernel.py).


def traced(text: str, cores: int | None = None, blocks: int | None = None, jobs: int = 1, time: str = "cycles",
           profile=P950) -> dict:
    k = Kernel(assemble(text, "k.asm"), profile, cores, jobs=jobs, blocks=blocks)
    result = k.run(trace=True)
    return check_trace(json.loads(json.dumps(trace_events(result, time))))


def processes(trace: dict) -> dict[int, str]:
    return {e["pid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "process_name"}


def threads(trace: dict) -> dict[tuple[int, int], str]:
    return {(e["pid"], e["tid"]): e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}


def on_track(trace: dict, core: int, track: str, ph: str = "X") -> list[dict]:
    names = threads(trace)
    return [e for e in trace["traceEvents"] if e["ph"] == ph and e["pid"] == core + 1
            and names.get((e["pid"], e.get("tid"))) == track]


def cycles_of(e: dict) -> tuple[int, int]:
    """A slice's cycles as drawn on the cycles axis (1 cycle = 1 ns)."""
    return ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0))


def test_each_core_is_a_process_named_core_k_with_a_blocks_track_first():
    trace = traced(SYNCED, cores=4)
    assert processes(trace) == {1: "core 0", 2: "core 1", 3: "core 2", 4: "core 3", 5: "chip"}
    for core in range(4):
        tracks = sorted((tid, name) for (pid, tid), name in threads(trace).items() if pid == core + 1)
        assert [name for _, name in tracks] == ["blocks", "S", "V", "MTE2", "MTE3"]
        (block,) = on_track(trace, core, "blocks")
        release = 3 * 4 - 1 + SYNCALL  # the SYNCALL's own 2 cycles and HALT's 1 follow
        assert block["name"] == f"block {core}" and cycles_of(block) == (0, release + 3)
        assert block["args"] == {"block": core, "start_cycle": 0, "end_cycle": release + 3, "cycles": release + 3}
    assert trace["metadata"]["cores"] == 4 and trace["metadata"]["blocks"] == 4


def test_syncall_arrivals_and_releases_with_an_arrow_from_each_arrival_to_the_release():
    trace = traced(SYNCED, cores=4)
    release = 3 * 4 - 1 + SYNCALL
    events = trace["traceEvents"]
    arrivals = {e["pid"] - 1: e for e in events if e["ph"] == "i" and e["name"] == "SYNCALL arrival"}
    releases = {e["pid"] - 1: e for e in events if e["ph"] == "i" and e["name"] == "SYNCALL release"}
    assert {c: ns(e["ts"]) for c, e in arrivals.items()} == {c: 3 * c + 2 for c in range(4)}
    assert {c: ns(e["ts"]) for c, e in releases.items()} == dict.fromkeys(range(4), release)
    names = threads(trace)
    assert all(names[e["pid"], e["tid"]] == "S" for e in (*arrivals.values(), *releases.values()))
    # one arrow a core, from its arrival to the release on core 3, which arrived last
    starts = {e["id"]: e for e in events if e["ph"] == "s" and e["cat"] == "syncall"}
    ends = {e["id"]: e for e in events if e["ph"] == "f" and e["cat"] == "syncall"}
    assert starts.keys() == ends.keys() and len(starts) == 4
    assert sorted((s["pid"] - 1, ns(s["ts"])) for s in starts.values()) == [(c, 3 * c + 2) for c in range(4)]
    assert {(e["pid"] - 1, ns(e["ts"])) for e in ends.values()} == {(3, release)}
    # each core's SYNCALL slice on S holds its arrival and the release (it ends after its own 2 cycles)
    for core in range(4):
        (sync,) = [e for e in on_track(trace, core, "S") if e["name"] == "SYNCALL"]
        assert cycles_of(sync) == (3 * core + 2, release + 2)


def test_each_block_is_drawn_on_its_core_at_the_cycle_it_started_there():
    # Blocks take 3, 6, 9, 12, 15 cycles; on two cores: core 0 runs blocks 0, 2, 4 at 0, 86, 178, core 1
    # blocks 1 and 3 at 0 and 89 (tests/emulator/test_kernel_blocks.py works the schedule out).
    trace = traced(COUNTDOWN, blocks=5, cores=2)
    assert SWITCH == 83
    assert processes(trace) == {1: "core 0", 2: "core 1", 3: "chip"}
    expected = {0: [(0, 0, 3), (2, 86, 95), (4, 178, 193)], 1: [(1, 0, 6), (3, 89, 101)]}
    for core, blocks in expected.items():
        drawn = on_track(trace, core, "blocks")
        assert [(e["args"]["block"], *cycles_of(e)) for e in drawn] == blocks
        assert [e["name"] for e in drawn] == [f"block {b}" for b, _, _ in blocks]
        s_slices = on_track(trace, core, "S")
        # block b's instructions: MOV, then (BEQ, SUB, JMP) b times, BEQ, HALT, a cycle each, from its start
        assert [cycles_of(e)[0] for e in s_slices] == [start + c for _, start, end in blocks
                                                       for c in range(end - start)]
        assert [e["args"]["start_cycle"] for e in s_slices] == [cycles_of(e)[0] for e in s_slices]
        movs = [e for e in s_slices if e["name"] == "MOV S1, BLOCKIDX"]
        assert [cycles_of(e)[0] for e in movs] == [start for _, start, _ in blocks]
    assert trace["metadata"]["blocks"] == 5 and trace["metadata"]["total_cycles"] == 1073 + 5 + 193


@pytest.mark.parametrize(("text", "launch"), [(SYNCED, {"cores": 4}), (COUNTDOWN, {"blocks": 37, "cores": 3})],
                         ids=["cores", "blocks"])
def test_the_trace_is_the_same_byte_for_byte_for_every_number_of_processes(text, launch):
    dumps = {jobs: json.dumps(traced(text, **launch, jobs=jobs, time="real")) for jobs in (1, 2, 3)}
    assert dumps[1] == dumps[2] == dumps[3]


# Core k copies (k + 1) * 16 blocks of 32 bytes from GM, from the cycle it reaches the copy.
COPIES = """
.gmfill 0x0, f32, 4096, 1.5
    MOV S1, BLOCKIDX
    BEQ S1, 0, one
    BEQ S1, 1, two
    DMA.GM2UB [0x0], gm[0x0], len=48
    JMP done
one:
    DMA.GM2UB [0x0], gm[0x0], len=16
    JMP done
two:
    DMA.GM2UB [0x0], gm[0x0], len=32
done:
    SETFLAG MTE2, S, 0
    WAITFLAG MTE2, S, 0
    HALT
"""


def test_the_gm_counter_is_the_bytes_a_cycle_of_every_core_s_copies_moving_then():
    trace = traced(COPIES, cores=3)
    copies = []  # (start, end, bytes a cycle) of each core's copy, from its slice on MTE2
    for core in range(3):
        (copy,) = [e for e in on_track(trace, core, "MTE2") if e["name"].startswith("DMA")]
        start, end = copy["args"]["start_cycle"], copy["args"]["results_cycle"]
        nbytes = (core + 1) * 16 * 32
        # the data lands after the fixed cost plus the bytes at the burst rate, or the bytes at the
        # sustained rate (each core gets at most a third of the chip's GM bandwidth), whichever is longer
        sustained = min(DMA["gm2ub_bytes_per_cycle"], P950["chip"]["gm_bytes_per_cycle"] / 3)
        assert end - start >= max(math.ceil(DMA["gm2ub_setup"] + nbytes / DMA["gm2ub_burst_bytes_per_cycle"]),
                                  math.ceil(nbytes / sustained))
        copies.append((start, end, nbytes / (end - start)))
    counter = [e for e in trace["traceEvents"] if e["ph"] == "C"]
    assert counter and all(e["name"] == COUNTER and e["pid"] == 4 for e in counter)  # on the chip's process
    points = sorted({c for s, e, _ in copies for c in (s, e)})
    assert [ns(e["ts"]) for e in counter] == points
    for e in counter:
        at = ns(e["ts"])
        assert e["args"]["GM to UB"] == pytest.approx(sum(r for s, end, r in copies if s <= at < end), abs=1e-3)
        assert e["args"]["UB to GM"] == 0
    assert counter[-1]["args"] == {"GM to UB": 0, "UB to GM": 0}
    assert trace["metadata"]["gm_share_per_core"] == pytest.approx(P950["chip"]["gm_bytes_per_cycle"] / 3, abs=1e-4)


def test_real_time_is_the_default_and_rounds_each_cycle_to_the_nanosecond():
    trace = traced(SYNCED, cores=2, time="real")
    assert trace["metadata"]["time"] == "real" and trace["metadata"]["clock_ghz"] == P950.clock_ghz
    for e in trace["traceEvents"]:
        if e["ph"] == "X":
            assert ns(e["ts"]) == round(e["args"]["start_cycle"] / P950.clock_ghz)
            assert ns(e["ts"]) + ns(e["dur"]) == round(e["args"]["end_cycle"] / P950.clock_ghz)


def test_on_the_cycles_axis_every_slice_has_its_width():
    trace = traced(SYNCED, cores=2)
    meta = trace["metadata"]
    assert meta["time"] == "cycles" and meta["clock_ghz"] == P950.clock_ghz and "1 cycle" in meta["time_axis"]
    slices = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert slices and all(cycles_of(e) == (e["args"]["start_cycle"], e["args"]["end_cycle"]) for e in slices)
    assert all(e["dur"] >= 0.001 for e in slices)


def test_a_kernel_past_the_trace_limit_keeps_its_first_blocks_and_says_how_many_slices_it_left_out(monkeypatch):
    # Blocks 0..3 draw 3, 6, 9, 12 S slices; a limit of 10 keeps blocks 0 and 1 (9 slices), then none.
    monkeypatch.setattr(kernel_trace, "KERNEL_TRACE_LIMIT", 10)
    trace = traced(COUNTDOWN, blocks=4, cores=2)
    drawn = defaultdict(list)
    for core in range(2):
        drawn[core] = [cycles_of(e)[0] for e in on_track(trace, core, "S")]
        assert len(on_track(trace, core, "blocks")) == 2  # every block on its core's blocks track
    assert (len(drawn[0]), len(drawn[1])) == (3, 6)
    assert trace["metadata"]["truncated_slices"] == 9 + 12


def test_without_trace_true_there_is_no_trace_to_draw():
    k = Kernel(assemble(SYNCED, "k.asm"), P950, 2, jobs=1)
    result = k.run()
    assert result.trace is None
    with pytest.raises(ValueError, match="trace=True"):
        trace_events(result)
    with pytest.raises(ValueError, match="real or cycles"):
        trace_events(Kernel(assemble(SYNCED, "k.asm"), P950, 2, jobs=1).run(trace=True), "seconds")


def test_a_faulting_core_still_leaves_a_well_formed_trace():
    text = "    MOV S1, BLOCKIDX\n    MOV S3, 3\n    BEQ S1, 0, bad\n    HALT\nbad:\n    LD.u32 S2, gm[S3]\n    HALT\n"
    k = Kernel(assemble(text, "k.asm"), P950, 2, jobs=1)
    result = k.run(trace=True)
    assert result.fault is not None
    trace = check_trace(trace_events(result))
    assert processes(trace) == {1: "core 0", 2: "core 1", 3: "chip"}


def test_the_api_runs_a_kernel_traced(tmp_path):
    import vcore

    path = tmp_path / "k.asm"
    path.write_text(SYNCED)
    k = vcore.load_kernel(path, cores=2, jobs=1)
    result = k.run(trace=True)
    trace = check_trace(vcore.trace_events(result, time="cycles"))
    assert processes(trace)[2] == "core 1" and trace["metadata"]["time"] == "cycles"


def test_arrivals_at_one_cycle_point_to_the_release_on_the_lowest_core():
    # Every core: MOV (1 cycle), then SYNCALL: all arrive at cycle 1, and go on at 1 + chip.syncall.
    trace = traced("    MOV S1, BLOCKIDX\n    SYNCALL\n    HALT\n", cores=3)
    events = trace["traceEvents"]
    assert sorted((e["pid"] - 1, ns(e["ts"])) for e in events if e["ph"] == "s" and e["cat"] == "syncall") == \
        [(0, 1), (1, 1), (2, 1)]
    assert {(e["pid"] - 1, ns(e["ts"])) for e in events if e["ph"] == "f" and e["cat"] == "syncall"} == \
        {(0, 1 + SYNCALL)}
