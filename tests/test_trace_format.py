"""The trace-event checker (tests/trace_format.py) that every trace test uses: a well-formed trace
passes it, and each kind of defect it looks for is caught."""

from __future__ import annotations

import copy

import pytest
from trace_format import check_trace, problems


def good() -> dict:
    """Two processes; threads with nested slices, an instant, a flow between them, an async slice, a counter."""
    return {"traceEvents": [
        {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "core 0"}},
        {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "S"}},
        {"ph": "M", "name": "thread_sort_index", "pid": 1, "tid": 1, "args": {"sort_index": 1}},
        {"ph": "M", "name": "process_name", "pid": 2, "args": {"name": "core 1"}},
        {"ph": "M", "name": "thread_name", "pid": 2, "tid": 1, "args": {"name": "S"}},
        {"ph": "X", "name": "outer", "pid": 1, "tid": 1, "ts": 0.0, "dur": 0.010,
         "args": {"start_cycle": 0, "end_cycle": 10}},
        {"ph": "X", "name": "inner", "pid": 1, "tid": 1, "ts": 0.002, "dur": 0.003,
         "args": {"start_cycle": 2, "end_cycle": 5}},
        {"ph": "i", "name": "arrival", "s": "t", "pid": 1, "tid": 1, "ts": 0.006},
        {"ph": "s", "name": "sync", "cat": "sync", "id": 1, "pid": 1, "tid": 1, "ts": 0.006},
        {"ph": "X", "name": "wait", "pid": 2, "tid": 1, "ts": 0.004, "dur": 0.008},
        {"ph": "f", "bp": "e", "name": "sync", "cat": "sync", "id": 1, "pid": 2, "tid": 1, "ts": 0.009},
        {"ph": "b", "name": "V in flight", "cat": "V in flight", "id": "0x7", "pid": 1, "tid": 1, "ts": 0.003},
        {"ph": "e", "name": "V in flight", "cat": "V in flight", "id": "0x7", "pid": 1, "tid": 1, "ts": 0.011},
        {"ph": "C", "name": "GM", "pid": 2, "ts": 0.004, "args": {"read": 12.5, "write": 0}},
    ], "displayTimeUnit": "ns"}


def broken(change) -> dict:
    trace = copy.deepcopy(good())
    change(trace["traceEvents"])
    return trace


def _event(name):
    return lambda events: next(e for e in events if e.get("name") == name)


def test_a_well_formed_trace_passes():
    assert problems(good()) == []
    check_trace(good())


@pytest.mark.parametrize(("defect", "change", "says"), [
    ("unknown phase", lambda ev: ev.append({"ph": "Q", "name": "q", "pid": 1, "ts": 0}), "unknown phase"),
    ("no pid", lambda ev: _event("inner")(ev).pop("pid"), "no integer pid"),
    ("negative ts", lambda ev: _event("inner")(ev).update(ts=-1), "not a finite time"),
    ("nan dur", lambda ev: _event("inner")(ev).update(dur=float("nan")), "not plain JSON"),
    ("no dur", lambda ev: _event("inner")(ev).pop("dur"), "not a finite length"),
    ("process unnamed", lambda ev: ev.append({"ph": "X", "name": "x", "pid": 3, "tid": 1, "ts": 0, "dur": 0}),
     "pid 3 has no process_name"),
    ("thread unnamed", lambda ev: ev.append({"ph": "X", "name": "x", "pid": 1, "tid": 9, "ts": 0, "dur": 0}),
     "(pid 1, tid 9) has no thread_name"),
    ("thread named twice", lambda ev: ev.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": 1,
                                                  "args": {"name": "S again"}}), "named twice"),
    ("partial overlap", lambda ev: _event("inner")(ev).update(dur=0.009), "overlaps the slice open there"),
    ("partial overlap in cycles", lambda ev: _event("inner")(ev)["args"].update(end_cycle=11),
     "overlaps the slice open there"),
    ("async end missing", lambda ev: ev.remove(next(e for e in ev if e["ph"] == "e")), "never ends"),
    ("async end before begin", lambda ev: next(e for e in ev if e["ph"] == "e").update(ts=0.001),
     "no begin open"),
    ("async end of another id", lambda ev: next(e for e in ev if e["ph"] == "e").update(id="0x8"), "no begin open"),
    ("async id a number", lambda ev: [e.update(id=7) for e in ev if e["ph"] in "be"], "must be a string"),
    ("async end renamed", lambda ev: next(e for e in ev if e["ph"] == "e").update(name="other"), "named unlike"),
    ("flow without its end", lambda ev: ev.remove(next(e for e in ev if e["ph"] == "f")), "one start and one end"),
    ("flow end before start", lambda ev: next(e for e in ev if e["ph"] == "f").update(ts=0.005),
     "ends before it starts"),
    ("flow start with no slice", lambda ev: next(e for e in ev if e["ph"] == "s").update(ts=0.0105),
     "binds to no slice"),
    ("flow end with no slice", lambda ev: next(e for e in ev if e["ph"] == "f").update(ts=0.013),
     "binds to no slice"),
    ("counter with a string", lambda ev: _event("GM")(ev)["args"].update(read="fast"), "must be numbers"),
    ("counter with no args", lambda ev: _event("GM")(ev).pop("args"), "must be numbers"),
    ("instant scope", lambda ev: _event("arrival")(ev).update(s="x"), "instant scope"),
    ("metadata without a name", lambda ev: ev[1]["args"].pop("name"), "no name in args"),
    ("v2 flow with one end", lambda ev: _event("wait")(ev).update(bind_id=5, flow_in=True), "bind_id 5"),
])
def test_each_defect_is_caught(defect, change, says):
    found = problems(broken(change))
    assert any(says in p for p in found), (defect, found)
    with pytest.raises(AssertionError):
        check_trace(broken(change))
