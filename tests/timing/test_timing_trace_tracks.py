"""No track of the Chrome trace (`--trace`) has slices that overlap without nesting.

Chrome's trace format wants the complete ("X") slices of one thread, a track in Perfetto, either
nested or disjoint; a slice that starts inside another and ends after it is drawn wrongly, or
dropped. Back-to-back V instructions overlap in time (each result lands after the pipe has taken the
next instruction), so the trace must lay them out on tracks where they do not. Checked here on every
example program, on each profile that can run it, in whole cycles (from the slices' ``args``) and in
the whole nanoseconds Perfetto turns the timestamps into; and on programs built to overlap.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from pathlib import Path

import pytest
from timing_support import run, run_pinned
from trace_format import check_trace as check_format

from vcore.assembler import assemble
from vcore.emulator import Fault, Machine
from vcore.emulator.trace import trace_events

try:  # a program the profile cannot run at all (a register instruction on a2)
    from vcore.emulator.faults import ProgramError
except ImportError:
    ProgramError = Fault

PROGRAMS = sorted((Path(__file__).resolve().parents[2] / "programs").glob("*.asm"))


def perfetto_ns(us: float) -> int:
    """A JSON timestamp or duration (microseconds) as Perfetto stores it: rounded to the nanosecond."""
    return math.floor(us * 1000 + 0.5)


def in_cycles(e: dict) -> tuple[int, int]:
    return e["args"]["start_cycle"], e["args"]["start_cycle"] + e["args"]["cycles"]


def in_perfetto(e: dict) -> tuple[int, int]:
    start = perfetto_ns(e["ts"])
    return start, start + perfetto_ns(e["dur"])


def misnested(events: list, extent) -> list:
    """The X events that start inside an earlier slice of their track (pid, tid) and end after it.
    Slices are taken by start, the longer first at one start: each must lie inside the innermost
    slice still open at its start, or start at or after the end of every earlier one."""
    tracks = defaultdict(list)
    for e in events:
        if e["ph"] == "X":
            tracks[e["pid"], e["tid"]].append((*extent(e), e))
    bad = []
    for slices in tracks.values():
        slices.sort(key=lambda s: (s[0], -s[1]))
        enclosing: list[int] = []  # ends of the slices open at this start, innermost last
        for start, end, e in slices:
            while enclosing and enclosing[-1] <= start:
                enclosing.pop()
            if enclosing and end > enclosing[-1]:
                bad.append((start, end, e["tid"], e["name"]))
            enclosing.append(end)
    return bad


def track_names(trace: dict) -> dict[int, str]:
    return {e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}


def check_well_formed(trace: dict, clock_ghz: float) -> None:
    check_format(trace)
    events = trace["traceEvents"]
    assert misnested(events, in_cycles) == []
    assert misnested(events, in_perfetto) == []
    slices = [e for e in events if e["ph"] == "X"]
    for e in slices:  # the timestamps are the cycles at the clock, to the nanosecond
        start, end = in_cycles(e)
        assert abs(e["ts"] * 1000 - start / clock_ghz) <= 0.5 + 1e-9, e
        assert abs((e["ts"] + e["dur"]) * 1000 - end / clock_ghz) <= 0.5 + 1e-9, e
    # Each arrow leaves the SETFLAG slice on the set's pipe's track and enters the WAITFLAG slice on
    # the wait's. Perfetto reads the events by time (in file order at one time) and binds an end of an
    # arrow to the slice on top of its track then: read them so.
    names = track_names(trace)
    at = {k: perfetto_ns(e["ts"]) for k, e in enumerate(events) if "ts" in e and "tid" in e}
    stacks, bound = defaultdict(list), {}
    for k in sorted(at, key=lambda k: (at[k], k)):
        e = events[k]
        stack = stacks[e["pid"], e["tid"]]
        if e["ph"] == "X":
            while stack and stack[-1][0] <= at[k]:
                stack.pop()
            stack.append((in_perfetto(e)[1], e))
        elif e["ph"] in ("s", "f"):
            assert stack, e
            assert (e["ph"], e["id"]) not in bound
            bound[e["ph"], e["id"]] = (k, e, stack[-1][1])
    ids = {flow_id for _, flow_id in bound}
    assert len(bound) == 2 * len(ids)
    for flow_id in ids:
        (k_set, arrow_set, set_slice), (k_wait, arrow_wait, wait_slice) = bound["s", flow_id], bound["f", flow_id]
        assert k_set < k_wait  # the arrow starts before it ends, in the file too
        assert set_slice["name"].startswith("SETFLAG ") and wait_slice["name"].startswith("WAITFLAG ")
        assert wait_slice["name"] == "WAITFLAG " + set_slice["name"].split(None, 1)[1]
        for arrow, flagged in ((k_set, set_slice), (k_wait, wait_slice)):  # (an S wait starts before it acts)
            assert in_perfetto(flagged)[0] <= at[arrow] <= in_perfetto(flagged)[1]
        src, dst = (p.strip() for p in set_slice["name"].split(None, 1)[1].split(",")[:2])
        assert names[arrow_set["tid"]] == src and names[arrow_wait["tid"]] == dst


def runs_on(text: str, profile: str) -> bool:
    """Whether the program runs on the profile: the one it declares (``; PROFILE``, else 950) must;
    another may refuse it, because its data does not fit that profile's UB or it needs what that
    profile lacks (as tests/emulator/test_program_order.py decides)."""
    declared = re.search(r"^\s*;\s*PROFILE\s+(\S+)", text, re.MULTILINE | re.IGNORECASE)
    if (declared.group(1) if declared is not None else "950") == profile:
        return True
    try:
        Machine(assemble(text), profile)
    except (Fault, ProgramError):
        return False
    return True


@pytest.mark.parametrize("profile", ["950", "a2"])
@pytest.mark.parametrize("path", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_every_example_programs_tracks_nest_or_are_disjoint(path, profile):
    text = path.read_text()
    if not runs_on(text, profile):
        pytest.skip(f"{profile} cannot run it")
    m = Machine(assemble(text), profile)
    m.run(trace=True)  # some example programs fault on purpose: their trace must be as good
    trace = trace_events(m.result)
    assert [e for e in trace["traceEvents"] if e["ph"] == "X"]
    check_well_formed(trace, m.profile.clock_ghz)


BACK_TO_BACK = """\
.ubfill 0x0, f32, 256, 1.5
.ubfill 0x400, f32, 256, 2.0
    VADD.f32 [0x1000], [0x0], [0x400], repeat=4
    VMUL.f32 [0x2000], [0x0], [0x400], repeat=4
    VSUB.f32 [0x3000], [0x0], [0x400], repeat=4
    VMAX.f32 [0x4000], [0x0], [0x400], repeat=4
    HALT
"""


@pytest.mark.parametrize("profile", ["a2", "950"])
def test_back_to_back_independent_v_instructions_do_not_overlap_on_a_track(profile):
    """Four tensor instructions that read the same operands and write apart: nothing orders one after
    another's results, so each starts when V has finished issuing the one before, a cycle before
    that one's results land (tensor.startup; on the pinned profiles, whose 950 prices tensor
    instructions by their rates: a function's results land as it ends, test_tensor_functions)."""
    m, r, rep = run_pinned(BACK_TO_BACK, profile, trace=True)
    assert r.fault is None and rep["races"] == []
    trace = trace_events(m.result)
    check_well_formed(trace, m.profile.clock_ghz)
    names = track_names(trace)
    slices = [e for e in trace["traceEvents"] if e["ph"] == "X" and names[e["tid"]] != "S"]
    on_v = [in_cycles(e) for e in slices if names[e["tid"]] == "V"]
    in_flight = [(e["args"]["start_cycle"], e["args"]["end_cycle"]) for e in trace["traceEvents"]
                 if e["ph"] == "b" and e["name"] == "V in flight"]
    assert len(slices) == len(on_v) == len(in_flight) == 4
    # V's track: each instruction from its start to the next one's, back to back, without a gap
    assert [start for start, _ in on_v[1:]] == [end for _, end in on_v[:-1]]
    # its results land a cycle later, on the track under it, while the next instruction has started
    assert in_flight == [(end, end + 1) for _, end in on_v]
    assert in_flight[-1][1] == rep["total_cycles"]


DUAL_ISSUE = """\
.ubfill 0x0, f32, 256, 1.5
    VF.BEGIN
    VLD.f32 V0, [0x0]
    PSET.b32 P0, ALL
    VLD.f32 V1, [0x100]
    PSET.b32 P1, ALL
    VF.END
    HALT
"""


def test_dual_issued_register_instructions_get_a_second_v_track():
    """A vector function is one slice on V with its instructions inside it. The 950 issues two a cycle:
    the second of a pair goes on the track under V's; the loads' 9 cycles of latency, in flight
    together, are two async slices on V's in-flight track, which the viewer stacks."""
    m, r, rep = run_pinned(DUAL_ISSUE, "950", trace=True)  # register.vf_launch 8, no argument push
    assert r.fault is None
    trace = trace_events(m.result)
    check_well_formed(trace, m.profile.clock_ghz)
    names = track_names(trace)
    by_track = defaultdict(list)
    for e in trace["traceEvents"]:
        if e["ph"] == "X" and names[e["tid"]] != "S":
            by_track[names[e["tid"]]].append((e["name"].split(",")[0], *in_cycles(e)))
        elif e["ph"] == "b":
            by_track[e["name"]].append((e["args"]["instruction"].split(",")[0], e["args"]["start_cycle"],
                                        e["args"]["end_cycle"]))
    # VF.BEGIN reaches V at 0 and its first instruction issues register.vf_launch = 8 later. The load
    # unit takes one VLD a cycle (vf_load_units 1): VLD V0 at 8, VLD V1 at 9. Both PSETs issue at 8,
    # beside the load (issue_width 2 compute instructions a cycle; one vector register write, one UB
    # read). The last result is VLD V1's, 9 after it issued: 18, the function's end.
    assert by_track == {
        "V": [("VF.BEGIN", 0, 18), ("VLD.f32 V0", 8, 9), ("VLD.f32 V1", 9, 10)],
        "V (overlap 1)": [("PSET.b32 P0", 8, 9)],
        "V (overlap 2)": [("PSET.b32 P1", 8, 9)],
        "V in flight": [("VLD.f32 V0", 9, 17), ("VLD.f32 V1", 10, 18)],
    }
    assert sorted(names.values()) == ["MTE2", "MTE3", "S", "V", "V (overlap 1)", "V (overlap 2)"]
    assert rep["total_cycles"] == 18


FLAGS = """\
.gmfill 0x0, f32, 64, 5.0
    MOV S1, 0
loop:
    DMA.GM2UB [0x0], gm[0x0], len=8
    SETFLAG MTE2, S, 0
    WAITFLAG MTE2, S, 0
    SETFLAG S, V, 1
    WAITFLAG S, V, 1
    VADDS.f32 [0x100], [0x0], 1.0
    VADDS.f32 [0x200], [0x0], 2.0
    SETFLAG V, MTE2, 2
    WAITFLAG V, MTE2, 2
    ADD S1, S1, 1
    BLT S1, 3, loop
    HALT
"""


@pytest.mark.parametrize("profile", ["a2", "950"])
def test_arrows_join_their_flag_slices_on_every_pipe_s_too(profile):
    """Flags set and waited for on S (whose slices the scalar unit's loop makes), on V while a result
    is in flight, and on MTE2, three passes: nine arrows, each from its SETFLAG's slice to its
    WAITFLAG's, though a WAITFLAG on V, a cycle long, may round to no width and share its start with the
    next slice there."""
    m, r, rep = run(FLAGS, profile, trace=True)
    assert r.fault is None and rep["races"] == []
    trace = trace_events(m.result)
    check_well_formed(trace, m.profile.clock_ghz)  # it checks where every arrow starts and ends
    names = track_names(trace)
    arrows = [(e["ph"], names[e["tid"]]) for e in trace["traceEvents"] if e["ph"] in ("s", "f")]
    assert sorted(arrows) == sorted([("s", "MTE2"), ("f", "S"), ("s", "S"), ("f", "V"), ("s", "V"), ("f", "MTE2")] * 3)
