"""One core's trace laid out in cycles (``CoreTrace``), from a traced run's result alone: which track
each slice goes on, the results still in flight, the flag arrows, and the GM bytes each copy moves.
``emulator.trace`` puts it on the time axis as Chrome trace events; a kernel's trace places the
layouts of its blocks on their cores (``emulator.kernel.trace``). A ``CoreTrace`` is a plain value
(tuples, ints, strings and small dicts), sent as it is from a worker process to the kernel's.

Tracks: every pipe has its own (lane 0); a slice that overlaps one already on its pipe's track (a
vector function's instructions issued two a cycle or out of order) goes on lane 1, 2, ... under
it, the lowest free one, so the slices of a lane nest or are disjoint. The cycles from the one a
pipe is free again to the one an instruction's results land are an async slice on its pipe's
in-flight track (``V in flight``): those overlap freely, and the viewer stacks them itself.
"""

from __future__ import annotations

import heapq
from collections import defaultdict, deque

from attrs import frozen

from vcore.emulator.result import RunResult
from vcore.emulator.timing.engine import PIPES

COPY_PIPES = ("MTE2", "MTE3")  # the pipes whose copies move GM bytes: GM to UB, UB to GM


@frozen
class CoreTrace:
    """A core's (or a block's) trace in its own cycles.

    ``events``, in the order they are written:

    - ``("X", pipe, lane, name, cat, start, end, args)``: a slice on a pipe's track;
    - ``("s" | "f", pipe, lane, flow, at)``: an end of flag arrow ``flow`` (numbered from 1 in this
      trace), right after the slice it belongs to;
    - ``("b", pipe, name, start, end, args)``: a slice on the pipe's in-flight track.

    ``lanes``: the tracks each pipe needs (at least 1); ``copies``: ``(pipe, start, end, bytes)`` of
    each copy, the GM bytes its cost follows from moved from its start to the cycle its data
    lands; ``end``: the run's last cycle; ``dropped``: slices past the engine's limit, not kept."""

    events: tuple
    lanes: dict
    copies: tuple
    end: int
    dropped: int = 0

    @property
    def slices(self) -> int:
        """How many slices it draws (complete and in flight)."""
        return sum(1 for e in self.events if e[0] in "Xb")


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


def _issue_lanes(log, releases: list) -> tuple[list, dict]:
    """Every slice on a lane of its pipe's track, taken by start, in program order at one start (the
    sort is stable); a vector function's instructions inside its slice while that lane is free."""
    slices, parents = log.slices, log.parents
    lanes = {pipe: _Lanes() for pipe in PIPES}
    lane_of = [0] * len(slices)
    nested_free: dict = {}  # a function's slice -> the cycle its own lane is free again for its instructions
    for i in sorted(range(len(slices)), key=[s[2] for s in slices].__getitem__):
        parent = parents.get(i)
        if parent is not None and nested_free.get(parent, slices[parent][2]) <= slices[i][2]:
            lane_of[i] = lane_of[parent]  # inside the function's slice, on its lane
            nested_free[parent] = releases[i]
        else:  # a slice of its own, or a function's instruction issued beside another: a lane free then
            lane_of[i] = lanes[slices[i][0]].take(slices[i][2], releases[i])
    return lane_of, {pipe: max(lanes[pipe].count, 1) for pipe in PIPES}


def core_trace(result: RunResult) -> CoreTrace:
    """The layout of a run made with ``trace=True``, from its result alone."""
    log = result.trace
    if log is None:
        raise ValueError("a trace needs the result of a run made with trace=True")
    slices = log.slices
    releases = [max(release, s[2]) for s, release in zip(slices, log.releases, strict=True)]
    about = {e.pc: (e.text, {"pc": f"0x{e.pc:04x}"} if e.line is None else {"pc": f"0x{e.pc:04x}", "line": e.line})
             for e in result.per_pc}  # pc -> its text and the args every slice of it has
    lane_of, lanes = _issue_lanes(log, releases)

    # Each end of an arrow follows its slice, on its track: a viewer binds it to the slice on top of
    # that track when it reads it, and a slice under a nanosecond long can share its start with the next.
    flow_at: dict = {}  # id(job) -> the flow ends of a V, MTE2 or MTE3 SETFLAG or WAITFLAG
    on_s: dict = defaultdict(list)  # pc -> (job, end) of an S one (whose slices the run loop makes)
    for flow, pair in enumerate(log.flows, start=1):
        for job, phase in zip(pair, "sf", strict=True):
            end = [phase, job.pipe, 0, flow, job.start]
            if job.pipe == "S":
                on_s[job.pc].append((job, end))
            else:
                flow_at.setdefault(id(job), []).append(end)
    # An S pc's slices come in time order: so do its flag ends once sorted, and one pointer matches them.
    on_s = {pc: deque(sorted(items, key=lambda item: item[0].start)) for pc, items in on_s.items()}
    unmatched: list = []

    events: list = []
    for i, (pipe, pc, start, end, job) in enumerate(slices):
        release, lane = releases[i], lane_of[i]
        name, common = about[pc]
        if job is not None and job.iterations:
            common = {**common, "iterations": job.iterations}
        args = {**common, "start_cycle": start, "end_cycle": release, "cycles": release - start}
        if end != release:
            args["results_cycle"] = end
            args["latency"] = end - start
        events.append(("X", pipe, lane, name, pipe, start, release, args))
        if job is not None:
            flows = flow_at.pop(id(job), ())
        else:  # the S slice of an instruction's run holds the cycle its SETFLAG or WAITFLAG acts
            flows, pending = [], on_s.get(pc)
            while pending and pending[0][0].start < start:  # before this slice: its slice was not kept
                unmatched.append(pending.popleft()[1])
            while pending and (pending[0][0].start < end or pending[0][0].start == start):
                flows.append(pending.popleft()[1])
        for flow_end in flows:
            flow_end[2] = lane
            events.append(tuple(flow_end))
        if end > release:
            events.append(("b", pipe, f"{pipe} in flight", release, end,
                           {"instruction": name, **common, "start_cycle": release, "end_cycle": end,
                            "cycles": end - release, "issued_cycle": start}))
    # the ends whose slices were not kept (a trace past the engine's limit), on their pipe's track
    events.extend(tuple(e) for flows in flow_at.values() for e in flows)
    events.extend(tuple(e) for e in unmatched)
    events.extend(tuple(e) for pending in on_s.values() for _, e in pending)
    copies = tuple((slices[i][0], slices[i][2], slices[i][3], nbytes) for i, nbytes in sorted(log.gm_bytes.items()))
    return CoreTrace(tuple(events), lanes, copies, result.total_cycles, log.dropped)


__all__ = ["COPY_PIPES", "CoreTrace", "core_trace"]
