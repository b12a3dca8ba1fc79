"""Accounting: what each static instruction cost (cycles, iterations, bank conflicts, stalls by
cause), each pipe's busy cycles and count, and the slices a ``--trace`` draws.
"""

from __future__ import annotations

from collections import defaultdict

from attrs import define, field

from emulator.jobs import Job

TRACE_LIMIT = 500_000  # slices kept for --trace; later ones are counted, not kept


@define
class PcStats:
    """What one static instruction cost, summed over its runs."""

    cycles: int = 0
    iterations: int = 0
    bank_conflict: int = 0
    stalls: dict = field(factory=lambda: defaultdict(int))
    busy: int = 0  # its share of its pipe's busy cycles: those of its runs no earlier run of the pipe covered


class Accounting:
    """The engine's accounting and trace slices (a mixin of ``emulator.timing.engine.Engine``)."""

    def _stall(self, pc: int, cause: str, cycles: int) -> None:
        if cycles > 0:
            self.stats[pc].stalls[cause] += cycles
            self.stall_totals[cause] += cycles

    def function_stalls(self, begin: int, launch: int, stalls: dict, conflicts: dict) -> None:
        """A vector function's: its launch (on ``VF.BEGIN``), what its instructions waited for room
        (``{pc: {cause: cycles}}``) and the cycles its accesses' own rows took in the banks."""
        self._stall(begin, "launch", launch)
        for pc, causes in stalls.items():
            for cause, cycles in causes.items():
                self._stall(pc, cause, cycles)
        for pc, cycles in conflicts.items():
            self.stats[pc].bank_conflict += cycles
            self.stall_totals["bank_conflict"] += cycles

    def _account(self, job: Job, pipe: str, cycles: int, conflicts: int) -> None:
        stats = self.stats[job.pc]
        stats.cycles += cycles
        stats.iterations += job.iterations
        stats.bank_conflict += conflicts
        self.stall_totals["bank_conflict"] += conflicts
        self.count[pipe] += 1
        begin = max(job.start, self.busy_until[pipe])
        end = job.start + cycles
        if end > begin:
            self.busy[pipe] += end - begin
            self.busy_until[pipe] = end
            stats.busy += end - begin
        if self.trace_on and pipe != "S":  # the run loop traces S itself
            self.trace_slice(pipe, job.pc, job.start, end, job, self.free[pipe])  # _place has just set it
        if job.placed is not None:
            job.placed(job)

    def trace_slice(self, pipe: str, pc: int, start: int, end: int, job, release: int | None = None) -> None:
        """``release``: the cycle the pipe could start its next instruction (None: ``end``)."""
        if len(self.slices) < self.trace_limit:
            self.slices.append((pipe, pc, start, end, job))
            self.releases.append(end if release is None else release)
        else:
            self.slices_dropped += 1
