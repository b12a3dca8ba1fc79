"""The 950 V scoreboard: a V instruction starts once the V results it reads or overwrites are ready,
in registers (by space) and in UB (by the blocks of V writers still in flight).
"""

from __future__ import annotations

from itertools import chain

from vcore.emulator.jobs import REGISTER_SPACES, Job
from vcore.emulator.order.races import overlap


class Scoreboard:
    """The engine's part that owns the 950's V scoreboard: the cycle each register's V result is
    ready, and the V jobs writing UB whose results may still be in flight."""

    def __init__(self) -> None:
        self.register_ready: dict = {}  # register space -> cycle its V result is ready
        self.v_recent: list[Job] = []  # V jobs writing UB whose results may still be in flight

    def depends(self, job: Job, ready: int) -> int:
        """950: the cycle the V results a job reads or overwrites are ready (at least its dispatch)."""
        depends = job.dispatch
        ready_at = self.register_ready
        memory_touched = False
        for space in chain(job.footprint_reads, job.footprint_writes):
            if space in REGISTER_SPACES:
                depends = max(depends, ready_at.get(space, 0))
            else:
                memory_touched = True
        if memory_touched and self.v_recent:
            depends = self._memory_depends(job, ready, depends)
        return depends

    def _memory_depends(self, job: Job, ready: int, depends: int) -> int:
        """``depends``, or later: the end of a V job still in flight that writes memory this one
        reads or writes. Only writers still in flight when this job could start can delay it. V
        touches no memory but UB, so single runs of UB blocks are compared here directly."""
        recent = self.v_recent
        if recent[0].end < ready or recent[-1].end < ready:
            recent = self.v_recent = [e for e in recent if e.end >= ready]
        mine = (job.footprint_reads.get("ub"), job.footprint_writes.get("ub"))
        for earlier in recent:
            if earlier.end > depends:
                theirs = earlier.footprint_writes.get("ub")  # none: a scatter refined to no lanes
                if theirs is None:
                    continue
                for found in mine:
                    if found is None:
                        continue
                    if found[0] is None and theirs[0] is None:
                        hit = found[1] < theirs[2] and theirs[1] < found[2]
                    else:
                        hit = overlap({"ub": theirs}, {"ub": found}) is not None
                    if hit:
                        depends = earlier.end
                        break
        return depends

    def record(self, job: Job) -> None:
        """When a V job's results will be ready: per register, and in the list of memory writers."""
        memory = False
        for space in job.footprint_writes:
            if space in REGISTER_SPACES:
                self.register_ready[space] = job.end
            else:
                memory = True
        if memory:
            self.v_recent.append(job)
