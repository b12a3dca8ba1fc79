"""The Chrome trace (CONTRACT 4, `--trace`): one track per pipe, one slice per instruction run named by
its source text, and a flow arrow from each SETFLAG to the WAITFLAG that consumes it."""

from __future__ import annotations

import json
from collections import Counter

from timing_support import run, vcore

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
    trace = json.loads(json.dumps(trace))  # plain JSON, no numpy or other objects
    events = trace["traceEvents"]
    names = [e for e in events if e["ph"] == "M" and e["name"] == "thread_name"]
    tid_of = {e["args"]["name"]: e["tid"] for e in names}
    assert sorted(tid_of) == sorted(["S", "V", "MTE2", "MTE3"])
    assert Counter(e["args"]["name"] for e in names) == Counter({"S": 1, "V": 1, "MTE2": 1, "MTE3": 1})
    assert len(set(tid_of.values())) == 4
    pipe_of_tid = {tid: pipe for pipe, tid in tid_of.items()}

    slices = [e for e in events if e["ph"] == "X"]
    assert slices
    for e in slices:
        assert e["name"] in SOURCE_LINES, e
        assert e["ts"] >= 0 and e["dur"] > 0, e
        assert e["tid"] in pipe_of_tid
        if pipe_of_tid[e["tid"]] != "S":  # S also shows the cycle it hands each instruction to its pipe
            assert pipe_of_tid[e["tid"]] == pipe_of(e["name"]), e
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
        from emulator.trace import trace_events

        # 3 WAITFLAGs a pass, 3 passes: 9 SETFLAG -> WAITFLAG arrows
        check_trace(trace_events(m), waits=3 * PASSES)


def test_trace_durations_are_the_cycles_at_the_clock():
    from emulator.trace import trace_events

    m, r, rep = run("    VADD.f32 [0x4100], [0x0], [0x2080], repeat=16\n    HALT\n", "a2", trace=True)
    trace = trace_events(m)
    v_tid = next(e["tid"] for e in trace["traceEvents"] if e["name"] == "thread_name" and e["args"]["name"] == "V")
    (vadd,) = [e for e in trace["traceEvents"] if e["ph"] == "X" and e["tid"] == v_tid]
    assert vadd["name"] == "VADD.f32 [0x4100], [0x0], [0x2080], repeat=16"
    # 33 cycles (16 * 2 + 1) from cycle 0, at 1.8 GHz = 1800 cycles a microsecond
    assert vadd["ts"] == 0
    assert abs(vadd["dur"] - 33 / 1800) < 1e-12
    assert vadd["args"]["cycles"] == 33


def test_trace_via_cli(tmp_path):
    path = tmp_path / "p.asm"
    path.write_text(PROGRAM)
    out = tmp_path / "t.json"
    res = vcore("run", path, "--profile", "a2", "--report", "none", "--trace", out)
    assert res.returncode == 0, res.stderr
    check_trace(json.loads(out.read_text()), waits=3 * PASSES)
