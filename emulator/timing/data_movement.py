"""Timed data movement: a job is performed at its simulated start on the state as it is then, and the
writes it returns land at its end (so an unordered consumer reads stale data, as on hardware); events run in
time order, with writes landing before reads at one cycle.
"""

from __future__ import annotations

import heapq

from emulator.faults import Fault
from emulator.jobs import Job, footprint, hold, land

_END, _START = 0, 1  # at one time, writes land before reads happen
_PRUNE_EVERY = 256  # landings between prunes of the landed-jobs log


class DataMovement:
    """The engine's timed performing and landing of jobs (a mixin of ``emulator.timing.engine.Engine``)."""

    def horizon(self) -> float:
        """Events before this time cannot be preceded by any job not yet scheduled."""
        limit = self.m.now
        for pipe, q in self.queue.items():
            if q:
                limit = min(limit, max(self.free[pipe], q[0].dispatch))
        return limit

    def advance(self, until: float) -> None:
        events = self.events
        while events and events[0][0] < until:
            _, phase, _, job = heapq.heappop(events)
            if phase == _END:
                self._land(job)
            else:
                self._start(job)

    def _start(self, job: Job) -> None:
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
        self._check_races(job)
        try:
            self.pending_writes[job.seq] = hold(job.perform()) if job.perform is not None else ()
        except Fault as fault:
            raise self.m.fault_at(fault, job.pc) from None
        self.inflight[job.pipe][job.seq] = job

    def _land(self, job: Job) -> None:
        land(self.pending_writes.pop(job.seq, ()))
        self.inflight[job.pipe].pop(job.seq, None)
        # Only a job earlier in program order that has not started yet can still race with this one.
        if self._oldest_unstarted() < job.seq:
            self.landed.append(job)
            if len(self.landed) % _PRUNE_EVERY == 0:
                oldest = self._oldest_unstarted()
                self.landed = [j for j in self.landed if j.seq > oldest]

    def _oldest_unstarted(self) -> int:
        oldest = self.seq + 1
        for waiting in self.unstarted.values():
            if waiting and waiting[0] < oldest:
                oldest = waiting[0]
        return oldest

    def land_started(self) -> None:
        """Land the writes of every job that has started (after a fault stops the run)."""
        for job in sorted((j for jobs in self.inflight.values() for j in jobs.values()), key=lambda j: j.end):
            self._land(job)
