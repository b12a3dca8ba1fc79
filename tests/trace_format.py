"""A checker of the Chrome trace-event format as Perfetto reads it (the JSON that ``--trace`` writes).

``problems(trace)`` lists what is wrong, ``check_trace(trace)`` asserts there is nothing. It reads
the events as Perfetto's JSON importer does: timestamps are microseconds that it rounds to the
nanosecond, events are taken in order of time (in file order at one time), and

- every event has a known phase, a ``pid``, a name and (but metadata) a finite ``ts`` >= 0;
- metadata names every process a non-metadata event uses (``process_name``) and every thread a
  thread event uses (``thread_name``: X, B/E, thread-scoped instants, flow events);
- the complete (``X``) slices of one thread, and its thread-scoped instants (slices of no
  length), nest or are disjoint at the nanosecond, and in cycles too where their ``args`` give
  ``start_cycle`` and ``end_cycle``;
- B/E pair on their thread; async ``b``/``e`` pair per (category, id): each ``b`` has its ``e``,
  with the same name, no earlier; their ids (and an ``n``'s) are strings, the only ids of async
  events that Perfetto's newer JSON reader takes;
- each flow (``s``/``t``/``f`` by (category, name, id), or ``bind_id`` with ``flow_out``/``flow_in``
  on slices) has exactly one start and one end, the start no later than the end, and each end of a
  v1 flow has a slice open on its thread when Perfetto reads it, to bind to;
- counters (``C``) have args, every value a finite number.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict

PHASES = set("XBEbenIisftCM")
THREAD_PHASES = set("XBEsft")  # events Perfetto puts on a thread's track (instants: by their scope)
METADATA = {"process_name", "process_sort_index", "process_labels", "thread_name", "thread_sort_index"}


def ns(us: float) -> int:
    """A JSON time (microseconds) as Perfetto keeps it: rounded to the nanosecond."""
    return math.floor(us * 1000 + 0.5)


def _number(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _thread_event(e: dict) -> bool:
    return e["ph"] in THREAD_PHASES or (e["ph"] in "iI" and e.get("s", "t") == "t")


def _fields(events: list) -> list[str]:
    out = []
    for k, e in enumerate(events):
        where = f"event {k} ({e.get('ph')!r} {e.get('name')!r})"
        if not isinstance(e, dict) or e.get("ph") not in PHASES:
            out.append(f"{where}: unknown phase")
            continue
        if not isinstance(e.get("pid"), int):
            out.append(f"{where}: no integer pid")
        if not isinstance(e.get("name"), str):
            out.append(f"{where}: no name")
        if e["ph"] != "M" and not (_number(e.get("ts")) and e["ts"] >= 0):
            out.append(f"{where}: ts {e.get('ts')!r} is not a finite time >= 0")
        if (_thread_event(e) or (e["ph"] == "M" and e.get("name", "").startswith("thread_"))) \
                and not isinstance(e.get("tid"), int):
            out.append(f"{where}: no integer tid")
        if e["ph"] == "X" and not (_number(e.get("dur")) and e["dur"] >= 0):
            out.append(f"{where}: dur {e.get('dur')!r} is not a finite length >= 0")
        if e["ph"] in "iI" and e.get("s", "t") not in "tpg":
            out.append(f"{where}: instant scope {e.get('s')!r}")
        if e["ph"] == "C":
            args = e.get("args")
            if not isinstance(args, dict) or not args or not all(_number(v) for v in args.values()):
                out.append(f"{where}: a counter's args must be numbers, not {args!r}")
        if e["ph"] in "bens" + "tf" and "id" not in e:
            out.append(f"{where}: no id")
        elif e["ph"] in "ben" and not isinstance(e["id"], str):
            out.append(f"{where}: an async slice's id must be a string (Perfetto's JSON reader drops others)")
        if e["ph"] == "M":
            if e.get("name") not in METADATA:
                out.append(f"{where}: unknown metadata")
            elif e["name"].endswith("_name") and not isinstance(e.get("args", {}).get("name"), str):
                out.append(f"{where}: no name in args")
            elif e["name"].endswith("sort_index") and not isinstance(e.get("args", {}).get("sort_index"), int):
                out.append(f"{where}: no integer sort_index in args")
    return out


def _names(events: list) -> list[str]:
    processes = {e["pid"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]) for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    out = []
    for pid in sorted({e["pid"] for e in events if e["ph"] != "M"} - processes):
        out.append(f"pid {pid} has no process_name")
    for pid, tid in sorted({(e["pid"], e["tid"]) for e in events if e["ph"] != "M" and "tid" in e
                            and (_thread_event(e) or e["ph"] in "ben")} - threads):
        out.append(f"thread (pid {pid}, tid {tid}) has no thread_name")
    named = [(e["pid"], e["tid"]) for e in events if e["ph"] == "M" and e["name"] == "thread_name"]
    if len(named) != len(set(named)):
        out.append("a thread is named twice")
    return out


def _extent_ns(e: dict) -> tuple[int, int]:
    start = ns(e["ts"])
    return start, start + (ns(e["dur"]) if e["ph"] == "X" else 0)


def _extent_cycles(e: dict) -> tuple[int, int] | None:
    args = e.get("args") or {}
    if e["ph"] == "X" and isinstance(args.get("start_cycle"), int) and isinstance(args.get("end_cycle"), int):
        return args["start_cycle"], args["end_cycle"]
    return None


def misnested(events: list, extent) -> list[str]:
    """The slices (X, and thread instants) that start inside an earlier one of their thread and end
    after it; slices taken by start, the longer first at one start."""
    tracks = defaultdict(list)
    for k, e in enumerate(events):
        if e["ph"] == "X" or (e["ph"] in "iI" and e.get("s", "t") == "t"):
            span = extent(e)
            if span is not None:
                tracks[e["pid"], e["tid"]].append((span[0], -span[1], k, e))
    out = []
    for (pid, tid), slices in tracks.items():
        slices.sort(key=lambda s: s[:3])
        open_ends: list[int] = []  # ends of the slices open at this start, innermost last
        for start, minus_end, _, e in slices:
            end = -minus_end
            while open_ends and open_ends[-1] <= start:
                open_ends.pop()
            if end < start:
                out.append(f"(pid {pid}, tid {tid}) {e['name']!r} ends before it starts")
            elif open_ends and end > open_ends[-1]:
                out.append(f"(pid {pid}, tid {tid}) {e['name']!r} [{start}, {end}) overlaps the slice open "
                           f"there (to {open_ends[-1]}) without nesting")
            open_ends.append(end)
    return out


def _reading_order(events: list) -> list[int]:
    """The events (but metadata) in the order Perfetto reads them: by nanosecond, then file order."""
    return sorted((k for k, e in enumerate(events) if e["ph"] != "M"), key=lambda k: (ns(events[k]["ts"]), k))


def _pairs(events: list) -> list[str]:
    out = []
    order = _reading_order(events)
    open_async: dict = defaultdict(list)  # (cat, id) -> names of the b's open
    b_stacks: dict = defaultdict(list)  # (pid, tid) -> names of the B's open
    for k in order:
        e = events[k]
        key = (e.get("cat"), str(e.get("id")))
        if e["ph"] == "b":
            open_async[key].append(e["name"])
        elif e["ph"] == "e":
            if not open_async[key]:
                out.append(f"event {k}: async end {key} with no begin open")
            elif open_async[key].pop() != e["name"]:
                out.append(f"event {k}: async end {key} named unlike its begin")
        elif e["ph"] == "B":
            b_stacks[e["pid"], e["tid"]].append(e["name"])
        elif e["ph"] == "E":
            if not b_stacks[e["pid"], e["tid"]]:
                out.append(f"event {k}: E with no B open on its thread")
            else:
                b_stacks[e["pid"], e["tid"]].pop()
    out += [f"async begin {key} never ends" for key, names in open_async.items() if names]
    out += [f"B on {key} never ends" for key, names in b_stacks.items() if names]
    return out


def _flows(events: list) -> list[str]:
    """Each v1 flow has one start and one end, each bound to a slice of its thread as Perfetto binds
    it: a flow event takes the slice on top of its thread's stack when it is read (a slice read
    there pops those that have ended by its start), and that slice must hold the flow's time; an
    ``f`` without ``"bp": "e"`` binds to the next slice to begin there instead. Each v2 flow
    (``bind_id``) has one slice it leaves and one it enters."""
    out = []
    ends: dict = defaultdict(list)  # (cat, name, id) -> [(phase, reading position)]
    stacks: dict = defaultdict(list)  # (pid, tid) -> [(start ns, end ns)] of the slices open
    waiting: dict = defaultdict(list)  # (pid, tid) -> flow ends waiting for the next slice there
    for position, k in enumerate(_reading_order(events)):
        e = events[k]
        if not _thread_event(e):
            continue
        key, at = (e["pid"], e["tid"]), ns(e["ts"])
        stack = stacks[key]
        if e["ph"] == "X" or e["ph"] in "iI":
            while stack and stack[-1][1] <= at:
                stack.pop()
            stack.append(_extent_ns(e))
            waiting[key].clear()
        elif e["ph"] in "sft":
            if e["ph"] == "f" and e.get("bp") != "e":
                waiting[key].append(k)
            elif not stack or not stack[-1][0] <= at <= stack[-1][1]:
                out.append(f"event {k}: flow {e['ph']} {e.get('id')!r} at {at} ns binds to no slice of its thread "
                           f"that holds that time (the one on top there: {stack[-1] if stack else None})")
            ends[e.get("cat"), e["name"], str(e.get("id"))].append((e["ph"], position))
    out += [f"event {k}: flow end with no slice after it on its thread" for ks in waiting.values() for k in ks]
    for key, found in ends.items():
        phases = sorted(p for p, _ in found)
        if phases.count("s") != 1 or phases.count("f") != 1:
            out.append(f"flow {key} has ends {phases}: it needs one start and one end")
        elif dict(found)["s"] > dict(found)["f"]:
            out.append(f"flow {key} ends before it starts")
    v2: dict = defaultdict(list)
    for e in events:
        if "bind_id" in e:
            for side in ("flow_out", "flow_in"):
                if e.get(side):
                    v2[e["bind_id"]].append(side)
    for bind_id, sides in v2.items():
        if sorted(sides) != ["flow_in", "flow_out"]:
            out.append(f"flow bind_id {bind_id!r} has ends {sorted(sides)}")
    return out


def problems(trace: dict) -> list[str]:
    """What is wrong with ``trace`` (a dict as ``json.load`` gives it) as Perfetto reads it."""
    try:
        json.dumps(trace, allow_nan=False)
    except (TypeError, ValueError) as err:
        return [f"not plain JSON: {err}"]
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        return ["no traceEvents list"]
    if trace.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        return [f"displayTimeUnit {trace['displayTimeUnit']!r}"]
    events = trace["traceEvents"]
    out = _fields(events)
    if out:
        return out
    return (_names(events) + misnested(events, _extent_ns) + misnested(events, _extent_cycles) + _pairs(events)
            + _flows(events))


def check_trace(trace: dict) -> dict:
    """Assert that ``trace`` is a well-formed trace; give it back."""
    found = problems(trace)
    assert not found, "\n".join(found[:20]) + (f"\n... and {len(found) - 20} more" if len(found) > 20 else "")
    return trace
