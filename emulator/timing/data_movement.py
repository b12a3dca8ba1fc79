"""Timed data movement: a job is performed at its simulated start on the state as it is then, and the
writes it returns land at its end (so an unordered consumer reads stale data, as on hardware); events run in
time order, with writes landing before reads at one cycle.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable

from vcore.emulator.faults import Fault
from vcore.emulator.jobs import PIPES, Job, footprint, hold
from vcore.emulator.jobs import land as land_writes

_END, _START = 0, 1  # the phases of an event: at one time, writes land before reads happen
_PRUNE_EVERY = 256  # landings between prunes of the landed-jobs log


class DataMovement:
    """The engine's part that owns a timed run's data in motion: the start and end events still to
    run, the writes each started job holds until its end, the jobs in flight per pipe, each pipe's
    data jobs not yet started, and the landed jobs an earlier one could still race with.

    ``check_races(job, inflight, others, landed)`` is the race check's (``RaceCheck.at_start``),
    called as each job starts; ``fault_at(fault, pc)`` places a job's own fault at its instruction."""

    def __init__(self, check_races: Callable, fault_at: Callable) -> None:
        self.check_races = check_races
        self.fault_at = fault_at
        self.events: list = []  # (time, phase, seq, job), a heap
        self.pending_writes: dict = {}  # seq -> the writes its perform returned, until its end
        # Started, not landed, per pipe (S: its LD and ST, the only S work that touches memory).
        self.inflight: dict[str, dict[int, Job]] = {p: {} for p in PIPES}
        self.other_inflight = {p: tuple(self.inflight[q] for q in PIPES if q != p) for p in PIPES}
        # Jobs that have landed but could still race with an earlier job that has not started.
        self.landed: list[Job] = []
        # Per pipe, the sequence numbers of its data jobs not yet started: a pipe starts them in order.
        self.unstarted: dict[str, deque] = {p: deque() for p in PIPES}

    def dispatched(self, job: Job) -> None:
        """A data job handed to its pipe (``job.pipe``), to start later in its pipe's order."""
        self.unstarted[job.pipe].append(job.seq)

    def placed(self, job: Job) -> None:
        """A data job whose times are fixed: its start (unless it has started) and its end events."""
        if not job.started:  # (a job priced at its start has started)
            heapq.heappush(self.events, (job.start, _START, job.seq, job))
        heapq.heappush(self.events, (job.end, _END, job.seq, job))

    def start_now(self, job: Job) -> None:
        """An LD or ST: it starts now (every event before it has run), and lands at its end."""
        self.unstarted[job.pipe].append(job.seq)
        self.start(job)
        heapq.heappush(self.events, (job.end, _END, job.seq, job))

    def start_at(self, job: Job, start: int) -> None:
        """Start ``job`` now at ``start``, once every event before it (and every landing at it) has run."""
        events = self.events
        while events and (events[0][0] < start or (events[0][0] == start and events[0][1] == _END)):
            _, phase, _, early = heapq.heappop(events)
            if phase == _END:
                self.land(early)
            else:
                self.start(early)
        self.start(job)

    def advance(self, until: float) -> None:
        """Run every event before ``until``."""
        events = self.events
        while events and events[0][0] < until:
            _, phase, _, job = heapq.heappop(events)
            if phase == _END:
                self.land(job)
            else:
                self.start(job)

    def start(self, job: Job) -> None:
        if job.refine is not None:
            job.reads, job.writes = job.refine()
            job.footprint_reads = job.footprint_writes = None
        if job.footprint_reads is None or job.footprint_writes is None:
            job.footprint_reads, job.footprint_writes = footprint(job.reads), footprint(job.writes)
        unstarted = self.unstarted[job.pipe]
        if unstarted[0] == job.seq:
            unstarted.popleft()
        else:
            unstarted.remove(job.seq)
        self.check_races(job, self.inflight, self.other_inflight[job.pipe], self.landed)
        try:
            self.pending_writes[job.seq] = hold(job.perform()) if job.perform is not None else ()
        except Fault as fault:
            raise self.fault_at(fault, job.pc) from None
        job.perform = None  # (what it made it from, a launch's items, goes with it: a job is kept longer)
        self.inflight[job.pipe][job.seq] = job

    def land(self, job: Job) -> None:
        land_writes(self.pending_writes.pop(job.seq, ()))
        self.inflight[job.pipe].pop(job.seq, None)
        # Only a job earlier in program order that has not started yet can still race with this one.
        if self._oldest_unstarted() < job.seq:
            self.landed.append(job)
            if len(self.landed) % _PRUNE_EVERY == 0:
                oldest = self._oldest_unstarted()
                self.landed = [j for j in self.landed if j.seq > oldest]

    def _oldest_unstarted(self) -> float:
        """The sequence number of the earliest data job not yet started (none: after every job)."""
        oldest = float("inf")
        for waiting in self.unstarted.values():
            if waiting and waiting[0] < oldest:
                oldest = waiting[0]
        return oldest

    def land_started(self) -> None:
        """Land the writes of every job that has started (after a fault stops the run)."""
        for job in sorted((j for jobs in self.inflight.values() for j in jobs.values()), key=lambda j: j.end):
            self.land(job)
