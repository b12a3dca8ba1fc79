"""The Chrome trace (CONTRACT 4, `--trace`): a track per pipe (and, under it, tracks for what overlaps
there), one slice per instruction run named by its source text, results still in flight as async
slices on one in-flight track per pipe, and a flow arrow from each SETFLAG to the WAITFLAG that
consumes it. That no track's slices overlap: test_timing_trace_tracks.py; the format as a whole:
tests/trace_format.py."""

from __future__ import annotations

import json
import re
from collections import Counter

from timing_support import row, vcore
from timing_support import run_pinned as run
from trace_format import check_trace as check_format

PROGRAM = """\
.gmfill 0x0, f32, 64, 5.0
.ubfill 0x2080, f32, 64, 2.0
    MOV S1, 0
loop:
    DMA.GM2UB [0x0], gm[0x0], len=8
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    VADD.f32 [0x4100], [0x0], [0x2080]
    SETFLAG V, MTE3, 1
    WAITFLAG V, MTE3, 1
    DMA.UB2GM gm[0x1000], [0x4100], len=8
    SETFLAG MTE3, MTE2, 2
    WAITFLAG MTE3, MTE2, 2
    ADD S1, S1, 1
    BLT S1, 3, loop
    HALT
"""
PASSES = 3
PIPES = ("S", "V", "MTE2", "MTE3")
# a pipe's own track, and the tracks under it: what overlaps there (results in flight are async slices)
TRACK = re.compile(r"(S|V|MTE2|MTE3)( \(overlap [1-9][0-9]*\))?")
SOURCE_LINES = {line.strip() for line in PROGRAM.splitlines() if line.strip() and not line.startswith(".")}


def pipe_of(text: str) -> str:
    """The pipe an instruction runs on, from its text (CONTRACT 3.6, the ISA table's pipe column)."""
    mnemonic = text.split(maxsplit=1)[0]
    if mnemonic in ("SETFLAG", "WAITFLAG"):
        src, dst = (p.strip() for p in text.split(None, 1)[1].split(",")[:2])
        return src if mnemonic == "SETFLAG" else dst
    if mnemonic == "DMA.GM2UB":
        return "MTE2"
    if mnemonic == "DMA.UB2GM":
        return "MTE3"
    if mnemonic.startswith(("V", "P")):
        return "V"
    return "S"


def check_trace(trace: dict, waits: int) -> None:
    trace = check_format(json.loads(json.dumps(trace)))  # plain JSON, no numpy or other objects
    events = trace["traceEvents"]
    names = [e for e in events if e["ph"] == "M" and e["name"] == "thread_name"]
    tid_of = {e["args"]["name"]: e["tid"] for e in names}
    assert len(tid_of) == len(names) == len(set(tid_of.values()))  # one track a name, one name a track
    assert set(PIPES) <= set(tid_of)  # every pipe has its track, named by the pipe
    matches = {name: TRACK.fullmatch(name) for name in tid_of}
    assert all(matches.values()), tid_of
    # displayed in pipe order, each pipe's own track first, then the others under it
    sort_index = {e["tid"]: e["args"]["sort_index"] for e in events if e["name"] == "thread_sort_index"}
    shown = sorted(tid_of, key=lambda name: sort_index[tid_of[name]])
    assert [matches[name][1] for name in shown] == sorted((matches[name][1] for name in shown), key=PIPES.index)
    assert [name for name in shown if name in PIPES] == list(PIPES)
    assert all(shown.index(matches[name][1]) <= shown.index(name) for name in shown)
    assert shown == sorted(tid_of, key=tid_of.get)  # the tids follow the same order, for viewers that sort by tid
    pipe_of_tid = {tid: matches[name][1] for name, tid in tid_of.items()}

    slices = [e for e in events if e["ph"] == "X"]
    assert slices
    for e in slices:
        assert e["name"] in SOURCE_LINES, e
        assert e["ts"] >= 0 and e["dur"] >= 0, e  # a slice shorter than the nanosecond Perfetto keeps has none
        assert e["args"]["cycles"] == e["args"]["end_cycle"] - e["args"]["start_cycle"] > 0, e
        assert e["tid"] in pipe_of_tid
        if pipe_of_tid[e["tid"]] != "S":  # S also shows the cycle it hands each instruction to its pipe
            assert pipe_of_tid[e["tid"]] == pipe_of(e["name"]), e
        assert e["cat"] == pipe_of_tid[e["tid"]]
    # results in flight: an async slice on its pipe's in-flight track, after the instruction's slice there
    for e in (e for e in events if e["ph"] == "b"):
        pipe = pipe_of(e["args"]["instruction"])
        assert e["name"] == e["cat"] == f"{pipe} in flight" and e["tid"] == tid_of[pipe], e
        assert e["args"]["instruction"] in SOURCE_LINES
        assert e["args"]["cycles"] == e["args"]["end_cycle"] - e["args"]["start_cycle"] > 0, e
        assert any(x["args"]["end_cycle"] == e["args"]["start_cycle"] == x["args"]["start_cycle"] + x["args"]["cycles"]
                   and x["args"]["start_cycle"] == e["args"]["issued_cycle"] and x["name"] == e["args"]["instruction"]
                   for x in slices if x["tid"] == tid_of[pipe]), e
    # every instruction that is not S's own has a slice on its pipe per run
    on_pipe = Counter(e["name"] for e in slices if pipe_of_tid[e["tid"]] == pipe_of(e["name"]))
    for text in SOURCE_LINES:
        if text.endswith(":"):
            continue
        expected = 1 if text in ("MOV S1, 0", "HALT") else PASSES
        assert on_pipe[text] == expected, text

    starts = [e for e in events if e["ph"] == "s"]
    finishes = [e for e in events if e["ph"] == "f"]
    assert len(starts) == len(finishes) == waits
    by_id = {e["id"]: e for e in starts}
    assert len(by_id) == len(starts)  # ids unique
    for f in finishes:
        s = by_id.pop(f["id"])
        assert s["ts"] <= f["ts"]
        set_slice = [e for e in slices
                     if e["tid"] == s["tid"] and e["name"].startswith("SETFLAG") and e["ts"] == s["ts"]]
        wait_slice = [e for e in slices
                      if e["tid"] == f["tid"] and e["name"].startswith("WAITFLAG") and e["ts"] == f["ts"]]
        assert len(set_slice) == 1 and len(wait_slice) == 1, (s, f)
        # the arrow joins a SETFLAG a, b, e to a WAITFLAG a, b, e: the set's pipe a, the wait's pipe b
        set_args = set_slice[0]["name"].split(None, 1)[1]
        assert wait_slice[0]["name"] == f"WAITFLAG {set_args}"
        assert pipe_of_tid[s["tid"]] == pipe_of(set_slice[0]["name"])
        assert pipe_of_tid[f["tid"]] == pipe_of(wait_slice[0]["name"])
    assert by_id == {}


def test_trace_events_are_valid_and_complete():
    for profile in ("a2", "950"):
        m, r, rep = run(PROGRAM, profile, trace=True)
        assert r.fault is None and rep["races"] == []
        from vcore.emulator.trace import trace_events

        # 3 WAITFLAGs a pass, 3 passes: 9 SETFLAG -> WAITFLAG arrows
        check_trace(trace_events(m.result), waits=3 * PASSES)


def test_trace_durations_are_the_cycles_at_the_clock():
    from vcore.emulator.trace import trace_events

    m, r, rep = run("    VADD.f32 [0x4100], [0x0], [0x2080], repeat=16\n    HALT\n", "a2", trace=True)
    trace = check_format(trace_events(m.result))
    tid = {e["args"]["name"]: e["tid"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
    (vadd,) = [e for e in trace["traceEvents"] if e["ph"] == "X" and e["tid"] == tid["V"]]
    (tail, tail_end) = [e for e in trace["traceEvents"] if e["ph"] in "be" and e["tid"] == tid["V"]]
    assert vadd["name"] == tail["args"].pop("instruction") == "VADD.f32 [0x4100], [0x0], [0x2080], repeat=16"
    assert tail["name"] == tail_end["name"] == "V in flight" and tail["id"] == tail_end["id"]
    # V is busy 32 cycles (16 iterations of 2) from cycle 0; the results land a cycle later (tensor.startup),
    # 33 cycles after the start, as the report counts them
    assert rep["total_cycles"] == 33 and row(rep, "VADD")["cycles"] == 33
    assert vadd["args"] == {"pc": "0x0000", "line": 1, "iterations": 16, "start_cycle": 0, "end_cycle": 32,
                            "cycles": 32, "results_cycle": 33, "latency": 33}
    assert tail["args"] == {"pc": "0x0000", "line": 1, "iterations": 16, "start_cycle": 32, "end_cycle": 33,
                            "cycles": 1, "issued_cycle": 0}
    # at 1.8 GHz a cycle is 1/1.8 ns; each cycle boundary is rounded to the nanosecond: 32 cycles end at
    # 17.8 ns, so at 18 ns, and 33 cycles end at 18.3 ns, so at 18 ns too: the tail has no width there
    assert (vadd["ts"], vadd["dur"]) == (0, 0.018)
    assert (tail["ts"], tail_end["ts"]) == (0.018, 0.018)
    assert trace["metadata"] == {"profile": "a2", "clock_ghz": 1.8, "time": "real"}
    # on the cycles axis a cycle is a nanosecond: the tail has its width
    trace = check_format(trace_events(m.result, time="cycles"))
    (vadd,) = [e for e in trace["traceEvents"] if e["ph"] == "X" and e["tid"] == tid["V"]]
    (tail, tail_end) = [e for e in trace["traceEvents"] if e["ph"] in "be" and e["tid"] == tid["V"]]
    assert (vadd["ts"], vadd["dur"], tail["ts"], tail_end["ts"]) == (0, 0.032, 0.032, 0.033)
    assert trace["metadata"]["time"] == "cycles" and trace["metadata"]["clock_ghz"] == 1.8


def test_trace_via_cli(tmp_path):
    path = tmp_path / "p.asm"
    path.write_text(PROGRAM)
    out = tmp_path / "t.json"
    res = vcore("run", path, "--profile", "a2", "--report", "none", "--trace", out)
    assert res.returncode == 0, res.stderr
    check_trace(json.loads(out.read_text()), waits=3 * PASSES)


def test_building_the_trace_of_many_s_flags_is_linear():
    """Flags whose pipe is S were matched to their S slices by a scan of every pending one: a loop of
    20,000 SETFLAG S / WAITFLAG S took 110 s to trace (0.8 s to run). Ten times the passes must cost
    about ten times the work, far from a hundred. Each size is timed at its best of three with the
    garbage collector off: its full collections grow with the heap and, on a busy CI machine, made
    one 5,000-pass build look 40 times a 500-pass one with a linear algorithm."""
    import gc
    import time

    from vcore.assembler import assemble
    from vcore.emulator import Machine
    from vcore.emulator.trace import trace_events

    def build(passes: int) -> tuple[float, dict]:
        text = f"    MOV S1, {passes}\nloop:\n    SETFLAG S, V, 0\n    WAITFLAG S, V, 0\n    SUB S1, S1, 1\n" \
               "    BNE S1, 0, loop\n"
        machine = Machine(assemble(text), "950")
        machine.run(trace=True)
        gc.collect()
        gc.disable()
        try:
            began = time.perf_counter()
            trace = trace_events(machine.result)
            return time.perf_counter() - began, trace
        finally:
            gc.enable()

    small, _ = min((build(500) for _ in range(3)), key=lambda found: found[0])
    large, trace = min((build(5000) for _ in range(3)), key=lambda found: found[0])
    arrows = [e for e in trace["traceEvents"] if e["ph"] in ("s", "f")]
    assert len(arrows) == 2 * 5000  # one arrow a pass, both ends
    assert large < 30 * small, (large, small)


def test_the_gm_counter_spreads_each_copy_s_gm_bytes_over_its_cycles():
    """A copy moves the GM bytes its cost follows from, evenly from its start to the cycle its data
    lands. 256 bytes from gm[0x20] straddle three of the 950's 128-byte windows where two would hold
    them: the copy costs a whole window more, 384 bytes (docs/timing.md, "DMA")."""
    from vcore.emulator.trace import COUNTER, trace_events

    m, r, rep = run("    DMA.GM2UB [0x0], gm[0x20], len=8\n    HALT\n", "950", trace=True)
    assert m.profile["dma"]["gm_window"] == 128
    trace = check_format(trace_events(m.result, time="cycles"))
    (copy,) = [e for e in trace["traceEvents"] if e["ph"] == "X" and e["cat"] == "MTE2"]
    start, lands = copy["args"]["start_cycle"], copy["args"].get("results_cycle", copy["args"]["end_cycle"])
    counter = [(round(e["ts"] * 1000), e["args"]) for e in trace["traceEvents"] if e["ph"] == "C"]
    assert all(e["name"] == COUNTER for e in trace["traceEvents"] if e["ph"] == "C")
    assert counter == [(start, {"GM to UB": round(384 / (lands - start), 3), "UB to GM": 0}),
                       (lands, {"GM to UB": 0, "UB to GM": 0})]
