"""Chrome trace events (the JSON Perfetto and chrome://tracing open): tracks named by pipe, a slice
per instruction instance named by its source text, and a flow arrow from each SETFLAG to its WAITFLAG.

The slices of one track never overlap (Chrome's format wants those of a thread nested or disjoint):

- ``S``, ``V``, ``MTE2``, ``MTE3``: one slice per instruction for the cycles it holds its pipe, from
  its start to the cycle the pipe can start the next one; the gaps are the pipe's idle cycles. (S
  also shows the cycles in which it hands each instruction to its pipe.)
- A vector function is one slice on ``V`` for its whole run, and its instructions are slices inside
  it, at their own issue cycles (Perfetto draws them under it); an instruction issued while another
  of the function still holds its slot (dual issue, or out of order) goes on ``V (overlap 1)``, ....
- ``V (overlap 1)``, ...: a slice that overlaps one already on its pipe's track, which happens only
  when register instructions issue in the same cycle (dual issue) or out of order.
- ``V in flight``, ``V in flight (overlap 1)``, ...: from the cycle the pipe is released to the
  cycle the instruction's results land, where that comes later. Results in flight together are
  drawn one above the other; ``MTE2 in flight`` and ``MTE3 in flight`` likewise, for copies whose
  data lands after their pipe has taken the next one.

Extra tracks exist only where needed, and sit right under their pipe's; tids follow the display order.

Timestamps are microseconds at the profile's clock, each cycle boundary rounded to a whole nanosecond,
the resolution Perfetto keeps: a cycle is shorter than that, and separately rounded starts and
durations would make neighbouring slices overlap there. So a slice shorter than a nanosecond may
show with no width; its exact cycles are in ``args``. Each slice carries its own cycles in ``args``:
``start_cycle``, ``end_cycle`` and ``cycles`` (their difference), and ``pc``, ``line``, ``iterations``.
A pipe's slice also names the cycle the instruction's results land (``results_cycle``) and
``latency``, its cycles as the report counts them (start to results), when those differ.
"""

from __future__ import annotations

import heapq
from collections import defaultdict, deque

from vcore.emulator.result import RunResult
from vcore.emulator.timing.engine import PIPES


class _Lanes:
    """Greedy lanes for slices taken in order of their start: each goes to the lowest-numbered lane
    whose last slice has ended by its start, so slices of one lane never overlap."""

    def __init__(self) -> None:
        self.busy: list = []  # (end, lane) of each lane's last slice
        self.free: list = []  # lanes whose last slice has ended
        self.count = 0

    def take(self, start: int, end: int) -> int:
        busy, free = self.busy, self.free
        if self.count == 1 and busy[0][0] <= start:  # one lane, free again: the common case
            busy[0] = (end, 0)
            return 0
        while busy and busy[0][0] <= start:
            heapq.heappush(free, heapq.heappop(busy)[1])
        if free:
            lane = heapq.heappop(free)
        else:
            lane, self.count = self.count, self.count + 1
        heapq.heappush(busy, (end, lane))
        return lane


def _track_name(pipe: str, in_flight: bool, lane: int) -> str:
    name = f"{pipe} in flight" if in_flight else pipe
    return f"{name} (overlap {lane})" if lane else name


def trace_events(result: RunResult) -> dict:
    """The Chrome trace of a run made with ``trace=True``, from its result alone."""
    log = result.trace
    if log is None:
        raise ValueError("trace_events() needs the result of a run made with trace=True")
    ns_per_cycle = 1 / result.clock_ghz

    def ns(cycle: int) -> int:  # the nanosecond a cycle boundary falls in, rounded (cycles are not negative)
        return int(cycle * ns_per_cycle + 0.5)

    slices = log.slices
    releases = [max(release, s[2]) for s, release in zip(slices, log.releases, strict=True)]
    about = {e.pc: (e.text, {"pc": f"0x{e.pc:04x}"} if e.line is None else {"pc": f"0x{e.pc:04x}", "line": e.line})
             for e in result.per_pc}  # pc -> its text and the args every slice of it has

    # Lay out: every slice on a lane of its pipe's track, every tail on a lane of its in-flight track,
    # taken by start, in program order at one start (the sort is stable).
    lanes = {(pipe, in_flight): _Lanes() for pipe in PIPES for in_flight in (False, True)}
    issue_lane = [0] * len(slices)
    parents = log.parents
    nested_free: dict = {}  # a function's slice -> the cycle its own track is free again for its instructions
    for i in sorted(range(len(slices)), key=[s[2] for s in slices].__getitem__):
        parent = parents.get(i)
        if parent is not None and nested_free.get(parent, slices[parent][2]) <= slices[i][2]:
            issue_lane[i] = issue_lane[parent]  # inside the function's slice, on its track
            nested_free[parent] = releases[i]
        else:  # a slice of its own, or a function's instruction issued beside another: a lane free then
            issue_lane[i] = lanes[slices[i][0], False].take(slices[i][2], releases[i])
    tail_lane = {}
    for i in sorted((i for i, s in enumerate(slices) if s[3] > releases[i]), key=releases.__getitem__):
        tail_lane[i] = lanes[slices[i][0], True].take(releases[i], slices[i][3])

    tid_of = {}
    events = [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": f"vcore ({result.profile})"}}]
    for pipe in PIPES:
        for in_flight in (False, True):
            count = lanes[pipe, in_flight].count
            for lane in range(count if in_flight else max(count, 1)):  # every pipe has its own track
                tid = tid_of[pipe, in_flight, lane] = len(tid_of) + 1
                events.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": tid,
                               "args": {"name": _track_name(pipe, in_flight, lane)}})
                events.append({"ph": "M", "name": "thread_sort_index", "pid": 1, "tid": tid,
                               "args": {"sort_index": tid}})

    # Each end of an arrow follows its slice in the file, on its track: Perfetto binds it to the slice
    # on top there when it reads it, and a slice under a nanosecond long can share its start with the next.
    flow_at: dict = {}  # id(job) -> the flow events of a V, MTE2 or MTE3 SETFLAG or WAITFLAG
    on_s: dict = defaultdict(list)  # pc -> (job, event) of an S one (whose slices the run loop makes)
    for flow_id, pair in enumerate(log.flows, start=1):
        for job, event in zip(pair, ({"ph": "s"}, {"ph": "f", "bp": "e"}), strict=True):
            event.update({"id": flow_id, "name": "flag", "cat": "flag", "pid": 1,
                          "tid": tid_of[job.pipe, False, 0], "ts": ns(job.start) / 1000})
            if job.pipe == "S":
                on_s[job.pc].append((job, event))
            else:
                flow_at.setdefault(id(job), []).append(event)
    # An S pc's slices come in time order: so do its flag ends once sorted, and one pointer matches them.
    on_s = {pc: deque(sorted(items, key=lambda item: item[0].start)) for pc, items in on_s.items()}
    unmatched: list = []

    for i, (pipe, pc, start, end, job) in enumerate(slices):
        release = releases[i]
        name, common = about[pc]
        if job is not None and job.iterations:
            common = {**common, "iterations": job.iterations}
        tid = tid_of[pipe, False, issue_lane[i]]
        args = {**common, "start_cycle": start, "end_cycle": release, "cycles": release - start}
        if end != release:
            args["results_cycle"] = end
            args["latency"] = end - start
        at, until = ns(start), ns(release)
        events.append({"ph": "X", "name": name, "cat": pipe, "pid": 1, "tid": tid,
                       "ts": at / 1000, "dur": (until - at) / 1000, "args": args})
        if job is not None:
            flows = flow_at.pop(id(job), ())
        else:  # the S slice of an instruction's run holds the cycle its SETFLAG or WAITFLAG acts
            flows, pending = [], on_s.get(pc)
            while pending and pending[0][0].start < start:  # before this slice: its slice was not kept
                unmatched.append(pending.popleft()[1])
            while pending and (pending[0][0].start < end or pending[0][0].start == start):
                flows.append(pending.popleft()[1])
        for event in flows:
            event["tid"] = tid
            events.append(event)
        if end > release:
            args = {**common, "start_cycle": release, "end_cycle": end, "cycles": end - release,
                    "issued_cycle": start}
            events.append({"ph": "X", "name": name, "cat": f"{pipe} in flight", "pid": 1,
                           "tid": tid_of[pipe, True, tail_lane[i]],
                           "ts": until / 1000, "dur": (ns(end) - until) / 1000, "args": args})
    # the ends whose slices were not kept (a trace past the engine's trace_limit), on their pipe's track
    events.extend(e for flows in flow_at.values() for e in flows)
    events.extend(unmatched)
    events.extend(e for pending in on_s.values() for _, e in pending)
    meta = {"profile": result.profile, "clock_ghz": result.clock_ghz}
    if log.dropped:  # the engine keeps at most its trace_limit slices
        meta["truncated_slices"] = log.dropped
    return {"traceEvents": events, "displayTimeUnit": "ns", "metadata": meta}
