"""The program-order run: jobs are performed when they are dispatched, which gives the timed run's
data exactly when no two jobs could race; the first pair that could (overlapping in time, touching the
same bytes, one writing, unordered) raises ``Diverged`` and the machine runs the program again timed.
GM is put back from an undo log that keeps each 32-byte block once.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vcore.emulator.faults import Fault
from vcore.emulator.jobs import PIPES, Job, footprint, land, runs_of
from vcore.emulator.order.races import overlap

_RECENT_PRUNE = 64  # scheduled jobs a pipe keeps for the program-order race check between prunes


class Diverged(Exception):
    """A program-order run found two jobs whose data could depend on timing (or a fault inside the
    engine, whose state only a timed run gives exactly): the program must be run timed."""


class ProgramOrder:
    """The engine's part that owns a program-order run's check and undo: per pipe, the scheduled data
    jobs a job scheduled later could overlap, and the log of what GM held before the run wrote it.

    ``unscheduled()`` is the engine's (``Engine.unscheduled``): the earliest cycle work not yet
    scheduled can start, and the sequence number of the earliest job still waiting in a queue."""

    def __init__(self, gm: np.ndarray, v_ordered: bool, unscheduled: Callable[[], tuple]) -> None:
        self.gm = gm
        self.unscheduled = unscheduled
        self.recent: dict[str, list[Job]] = {p: [] for p in PIPES}
        ordered = {p: p != "V" or v_ordered for p in PIPES}
        # The lists a job of each pipe is checked against: the other pipes', and its own if unordered.
        self.rivals = {p: tuple(self.recent[q] for q in PIPES if q != p or not ordered[p]) for p in PIPES}
        # What GM held before the run wrote it, each 32-byte block kept once (at its first write), so
        # the log never outgrows GM however often a program writes it.
        self.gm_undo: list = []  # (start byte, bytes before)
        self.gm_kept: np.ndarray | None = None  # per GM block: already in the log

    def perform_now(self, job: Job) -> None:
        """Perform a job and land its writes at dispatch (program order), keeping what GM held."""
        if job.footprint_reads is None or job.footprint_writes is None:
            job.footprint_reads, job.footprint_writes = footprint(job.reads), footprint(job.writes)
        gm = job.footprint_writes.get("gm")
        if gm is not None:
            self._keep_gm(gm[1], gm[2])
        try:
            if job.perform is not None:
                land(job.perform())
                job.perform = None  # (what it made it from, a launch's items, goes with it: a job is kept longer)
        except Fault:  # the state at a job's fault is the timed run's: what had started by then
            raise Diverged from None

    def check(self, job: Job, pipe: str) -> None:
        """Diverged when this job and one scheduled before it overlap in time and touch the same
        bytes, with at least one writing, and no pipe orders the two. The pair (a, b), a first in
        program order, overlaps when b starts before a ends: a timed run names a race only then."""
        reads, writes = job.footprint_reads, job.footprint_writes
        if not reads and not writes:
            return
        seq, start, end = job.seq, job.start, job.end
        for jobs in self.rivals[pipe]:
            for other in jobs:
                meet = (start < other.end or start < other.start) if other.seq < seq else \
                    (other.start < end or other.start < start)
                if meet and (overlap(other.footprint_writes, reads) or overlap(other.footprint_writes, writes)
                             or overlap(writes, other.footprint_reads)):
                    raise Diverged
        mine = self.recent[pipe]
        mine.append(job)
        if not len(mine) % _RECENT_PRUNE:
            self._prune_recent()

    def _prune_recent(self) -> None:
        """Forget the jobs that no job scheduled later can overlap: those that ended before any
        later start can be, and that come before every job still waiting in a queue in program
        order (a waiting job, earlier than them, could start at any time)."""
        horizon, oldest = self.unscheduled()
        floor = horizon - 2  # a margin: pruning less than it may costs nothing but memory
        for jobs in self.recent.values():
            jobs[:] = [j for j in jobs if j.end > floor or j.seq > oldest]

    def _keep_gm(self, lo: int, hi: int) -> None:
        """Log what GM blocks [lo, hi) hold, for those not logged yet."""
        gm = self.gm
        if self.gm_kept is None:
            self.gm_kept = np.zeros(-(-gm.size // 32), dtype=bool)
        kept = self.gm_kept
        fresh = np.flatnonzero(~kept[lo:hi])
        if fresh.size:
            if fresh.size == hi - lo:  # all of them (a tile written for the first time): one run
                kept[lo:hi] = True
                runs = ((lo, hi),)
            else:
                fresh += lo
                kept[fresh] = True
                runs = runs_of(fresh)
            for first, end in runs:
                start = int(first) * 32
                self.gm_undo.append((start, gm[start:min(int(end) * 32, gm.size)].copy()))

    def undo_gm(self) -> None:
        """Put back what GM held before this program-order run wrote it."""
        for lo, before in reversed(self.gm_undo):
            self.gm[lo:lo + before.size] = before
        self.gm_undo.clear()
        self.gm_kept = None
