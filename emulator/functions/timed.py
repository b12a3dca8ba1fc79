"""A racy vector function's data (``Function.perform``, once ``InnerOrder`` has found UB accesses
that nothing orders): ``TimedPerform`` runs the launch's jobs at their scheduled times, registers
renamed, a chunk at a time.
"""

from __future__ import annotations

import heapq

from vcore.emulator.jobs import as_writes, hold, land


class TimedPerform:
    """A racy launch's data (``Function.perform``): its jobs run in the order of their starts, each
    reading the registers program order gives it (the versions of its sources' producers: registers
    are renamed) and UB as it is at its start; its UB writes land at its end, its register results at
    once (in their own version). Fed in program order a chunk at a time (``add``), it runs the jobs
    that start before any job still to come (``run_until``), keeping only the versions a waiting
    reader still needs."""

    def __init__(self, ctx, plans: dict) -> None:
        self.ctx, self.plans = ctx, plans
        self.rows = {**{f"V{i}": (ctx.v, i) for i in range(32)}, **{f"P{i}": (ctx.p, i) for i in range(8)}}
        self.version: dict = {}  # (job index, register space) -> the register's bytes after that job
        self.readers: dict = {}  # (job index, register space) -> readers that have not run yet
        self.latest: dict = {}  # register space -> its latest writer so far in program order
        self.ready: list = []  # (start, job index, job, [(space, writer)]) not run yet
        self.pending: list = []  # (end, job index, held UB writes)
        self.k = 0

    def add(self, jobs) -> None:
        latest, readers, plans = self.latest, self.readers, self.plans
        for job in jobs:
            plan = plans[job.pc]  # (a register write is always of the whole register: no other source)
            sees = []
            for space in plan.reads:
                writer = latest.get(space)
                sees.append((space, writer))
                if writer is not None:
                    readers[writer, space] = readers.get((writer, space), 0) + 1
            for space in plan.writes:
                old = latest.get(space)
                latest[space] = self.k
                if old is not None and not readers.get((old, space)):
                    self.version.pop((old, space), None)  # superseded, and nobody waits for it
            heapq.heappush(self.ready, (job.start, self.k, job, sees))
            self.k += 1

    def run_until(self, front: float) -> None:
        """Run the jobs that start at or before ``front`` (no job still to come starts earlier)."""
        ready, pending, rows, version, readers, latest = (self.ready, self.pending, self.rows, self.version,
                                                           self.readers, self.latest)
        ub = self.ctx.ub
        while ready and ready[0][0] <= front:
            start, k, job, sees = heapq.heappop(ready)
            while pending and pending[0][0] <= start:  # at one cycle, writes land before reads happen
                land(heapq.heappop(pending)[2])
            for space, writer in sees:
                array, row = rows[space]
                array[row] = version[writer, space] if writer is not None else 0
                if writer is not None:
                    left = readers[writer, space] - 1
                    if left:
                        readers[writer, space] = left
                    else:
                        del readers[writer, space]
                        if latest.get(space) != writer:
                            version.pop((writer, space), None)
            to_ub = []
            for write in as_writes(job.perform()):
                if write[0] is ub:
                    to_ub.append(write)
                else:
                    land((write,))
            for space in self.plans[job.pc].writes:
                if latest.get(space) == k or readers.get((k, space)):
                    array, row = rows[space]
                    version[k, space] = array[row].copy()
            if to_ub:
                heapq.heappush(pending, (job.end, k, hold(to_ub)))

    def finish(self) -> None:
        self.run_until(float("inf"))
        while self.pending:
            land(heapq.heappop(self.pending)[2])
