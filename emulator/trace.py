"""Chrome trace events (the JSON Perfetto and chrome://tracing open): tracks named by pipe, a slice
per instruction instance named by its source text, a flow arrow from each SETFLAG to its WAITFLAG,
and a counter of the GM bytes a cycle the copies move. A kernel's trace (``emulator.kernel.trace``)
is made of the same parts, a process per core.

The slices of one track never overlap (Chrome's format wants those of a thread nested or disjoint):

- ``S``, ``V``, ``MTE2``, ``MTE3``: one slice per instruction for the cycles it holds its pipe, from
  its start to the cycle the pipe can start the next one; the gaps are the pipe's idle cycles. (S
  also shows the cycles in which it hands each instruction to its pipe.)
- A vector function is one slice on ``V`` for its whole run, and its instructions are slices inside
  it, at their own issue cycles (Perfetto draws them under it); an instruction issued while another
  of the function still holds its slot (dual issue, or out of order) goes on ``V (overlap 1)``, ....
- ``V in flight``, ``MTE2 in flight``, ``MTE3 in flight``: async slices (``b``/``e``, an id each) from
  the cycle the pipe is released to the cycle the instruction's results land, where that comes
  later; results in flight together overlap there, and Perfetto stacks them on one track per pipe.
  Each is named by its track; its ``args`` name the instruction.

Extra tracks exist only where needed, and sit right under their pipe's; tids follow the display order.

The time axis (``time``): ``real`` (the default) is microseconds at the profile's clock, each cycle
boundary rounded to a whole nanosecond, the resolution Perfetto keeps: a cycle is shorter than that,
and separately rounded starts and durations would make neighbouring slices overlap there. So a slice
shorter than a nanosecond may show with no width. ``cycles`` puts 1 cycle at 1 ns: every slice has
its width, and the metadata gives the clock. Each slice carries its own cycles in ``args``:
``start_cycle``, ``end_cycle`` and ``cycles`` (their difference), and ``pc``, ``line``, ``iterations``.
A pipe's slice also names the cycle the instruction's results land (``results_cycle``) and
``latency``, its cycles as the report counts them (start to results), when those differ.
"""

from __future__ import annotations

from collections import defaultdict

from vcore.emulator.result import RunResult
from vcore.emulator.timing.engine import PIPES
from vcore.emulator.trace_layout import CoreTrace, core_trace

TIME_MODES = ("real", "cycles")
COUNTER = "GM bandwidth (bytes/cycle)"  # the counter track of the copies' GM bytes a cycle
DIRECTIONS = {"MTE2": "GM to UB", "MTE3": "UB to GM"}  # the counter's series, by the copy's pipe
_CYCLE_ARGS = ("start_cycle", "end_cycle", "results_cycle", "issued_cycle")  # args that name a cycle


class Timeline:
    """Cycles on the time axis: ``real``, at the clock, each cycle boundary rounded to the nanosecond;
    ``cycles``, 1 cycle a nanosecond."""

    def __init__(self, clock_ghz: float, time: str = "real") -> None:
        if time not in TIME_MODES:
            raise ValueError(f"the time axis is real or cycles, not {time!r}")
        self.time, self.clock_ghz = time, clock_ghz
        self.ns_per_cycle = 1.0 if time == "cycles" else 1 / clock_ghz

    def ns(self, cycle: int) -> int:
        """The nanosecond a cycle boundary falls in, rounded (cycles are not negative)."""
        return int(cycle * self.ns_per_cycle + 0.5)

    def metadata(self) -> dict:
        meta = {"clock_ghz": self.clock_ghz, "time": self.time}
        if self.time == "cycles":
            real = 1 / self.clock_ghz
            meta["time_axis"] = f"1 ns on the time axis is 1 cycle ({real:.4g} ns at {self.clock_ghz} GHz)"
        return meta


class Ids:
    """The numbers of a trace's flag arrows and async slices, unique in the trace, in the order given."""

    def __init__(self) -> None:
        self.flows = 0
        self.slices = 0

    def flow(self) -> int:
        self.flows += 1
        return self.flows

    def slice(self) -> int:
        self.slices += 1
        return self.slices


def track_name(pipe: str, lane: int) -> str:
    return f"{pipe} (overlap {lane})" if lane else pipe


def pipe_tracks(lanes: dict) -> list[tuple[str, int]]:
    """The tracks of the pipes, ``(pipe, lane)`` in display order: each pipe's own (lane 0, even when
    it has no slice), then the lanes under it that ``lanes`` (pipe -> count) asks for."""
    return [(pipe, lane) for pipe in PIPES for lane in range(lanes.get(pipe, 1))]


class Process:
    """One process of a trace (a core, or the run's only one): its tracks, a thread each, in the
    order of ``tracks`` (``(name, lane)`` each), and the events placed on it."""

    def __init__(self, pid: int, name: str, tracks: list, timeline: Timeline, ids: Ids,
                 sort_index: int | None = None) -> None:
        self.pid, self.timeline, self.ids = pid, timeline, ids
        self.tid = {key: tid for tid, key in enumerate(tracks, start=1)}
        self.events = [{"ph": "M", "name": "process_name", "pid": pid, "args": {"name": name}}]
        if sort_index is not None:
            self.events.append({"ph": "M", "name": "process_sort_index", "pid": pid,
                                "args": {"sort_index": sort_index}})
        for key, tid in self.tid.items():
            self.events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                                "args": {"name": track_name(*key)}})
            self.events.append({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid,
                                "args": {"sort_index": tid}})

    def slice(self, track: tuple, name: str, cat: str, start: int, end: int, args: dict) -> None:
        ns = self.timeline.ns
        at = ns(start)
        self.events.append({"ph": "X", "name": name, "cat": cat, "pid": self.pid, "tid": self.tid[track],
                            "ts": at / 1000, "dur": (ns(end) - at) / 1000, "args": args})

    def instant(self, track: tuple, name: str, cycle: int, args: dict) -> None:
        self.events.append({"ph": "i", "s": "t", "name": name, "cat": name, "pid": self.pid, "tid": self.tid[track],
                            "ts": self.timeline.ns(cycle) / 1000, "args": args})

    def flow_end(self, track: tuple, phase: str, flow: int, cycle: int, name: str) -> None:
        """An end of arrow ``flow`` (``s`` its start, ``f`` its end), bound to the slice on top of
        ``track`` at ``cycle``: the one just written there."""
        event = {"ph": phase, "id": flow, "name": name, "cat": name, "pid": self.pid, "tid": self.tid[track],
                 "ts": self.timeline.ns(cycle) / 1000}
        if phase == "f":
            event["bp"] = "e"
        self.events.append(event)

    def place(self, core: CoreTrace, offset: int = 0) -> None:
        """A core's (or block's) layout, ``offset`` cycles on (its cycles in ``args`` too)."""
        ns, pid, tid, out = self.timeline.ns, self.pid, self.tid, self.events
        flows: dict = {}  # its arrows' numbers -> the trace's
        for e in core.events:
            kind = e[0]
            if kind == "X":
                _, pipe, lane, name, cat, start, end, args = e
                at = ns(start + offset)
                out.append({"ph": "X", "name": name, "cat": cat, "pid": pid, "tid": tid[pipe, lane], "ts": at / 1000,
                            "dur": (ns(end + offset) - at) / 1000, "args": _shifted(args, offset)})
            elif kind == "b":
                _, pipe, name, start, end, args = e
                # a string id: Perfetto's newer JSON reader takes only strings as the ids of async slices
                common = {"name": name, "cat": name, "id": f"0x{self.ids.slice():x}", "pid": pid, "tid": tid[pipe, 0]}
                out.append({"ph": "b", **common, "ts": ns(start + offset) / 1000, "args": _shifted(args, offset)})
                out.append({"ph": "e", **common, "ts": ns(end + offset) / 1000})
            else:  # an end of a flag arrow
                _, pipe, lane, flow, at = e
                if flow not in flows:
                    flows[flow] = self.ids.flow()
                self.flow_end((pipe, lane), kind, flows[flow], at + offset, "flag")


def _shifted(args: dict, offset: int) -> dict:
    if not offset:
        return args
    return {k: v + offset if k in _CYCLE_ARGS else v for k, v in args.items()}


def gm_counter(copies, timeline: Timeline, pid: int) -> list[dict]:
    """The counter of GM bytes a cycle the copies ``(pipe, start, end, bytes)`` move, a series per
    direction: each copy moves its bytes evenly from its start to the cycle its data lands, and the
    counter is the sum over the copies moving then (whichever core's)."""
    change: dict = defaultdict(lambda: dict.fromkeys(DIRECTIONS.values(), 0.0))
    for pipe, start, end, nbytes in copies:
        if end > start:
            rate, series = nbytes / (end - start), DIRECTIONS[pipe]
            change[start][series] += rate
            change[end][series] -= rate
    level = dict.fromkeys(DIRECTIONS.values(), 0.0)
    points: dict = {}  # ns -> the counter's values from then on (the last change in a nanosecond wins)
    for cycle in sorted(change):
        for series, delta in change[cycle].items():
            level[series] += delta
        points[timeline.ns(cycle)] = {series: max(round(value, 3), 0.0) + 0.0 for series, value in level.items()}
    return [{"ph": "C", "name": COUNTER, "pid": pid, "ts": at / 1000, "args": values} for at, values in points.items()]


def trace_events(result, time: str = "real") -> dict:
    """The Chrome trace of a run made with ``trace=True`` (a machine's ``RunResult``, or a kernel's
    result), from that result alone; ``time`` is the time axis, ``real`` or ``cycles``."""
    if result.trace is None:
        raise ValueError("trace_events() needs the result of a run made with trace=True")
    if not isinstance(result, RunResult):  # a kernel's: its trace places its blocks on their cores
        return result.trace.events(time)
    timeline = Timeline(result.clock_ghz, time)
    core = core_trace(result)
    process = Process(1, f"vcore ({result.profile})", pipe_tracks(core.lanes), timeline, Ids())
    process.place(core)
    meta = {"profile": result.profile, **timeline.metadata()}
    if core.dropped:  # the engine keeps at most its trace_limit slices
        meta["truncated_slices"] = core.dropped
    return {"traceEvents": process.events + gm_counter(core.copies, timeline, 1), "displayTimeUnit": "ns",
            "metadata": meta}


__all__ = ["COUNTER", "DIRECTIONS", "TIME_MODES", "Ids", "Process", "Timeline", "gm_counter", "pipe_tracks",
           "trace_events", "track_name"]
