"""Accounting: what each static instruction cost (cycles, iterations, bank conflicts, stalls by
cause), each pipe's busy cycles and count, and the slices a ``--trace`` draws.
"""

from __future__ import annotations

from collections import defaultdict

from attrs import define, field

from vcore.emulator.jobs import PIPES, Job
from vcore.emulator.result import TraceLog

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
    """The engine's part that owns what the run cost: per instruction (``stats``), per stall cause
    (``stall_totals``), per pipe (``busy`` cycles and ``count``), and a ``--trace``'s slices."""

    def __init__(self, trace: bool) -> None:
        self.stats: dict[int, PcStats] = defaultdict(PcStats)
        self.stall_totals: dict = defaultdict(int)
        self.busy = dict.fromkeys(PIPES, 0)
        self.count = dict.fromkeys(PIPES, 0)
        self.busy_until = dict.fromkeys(PIPES, 0)
        self.tracing = trace
        self.slices: list = []  # (pipe, pc, start, end, job), at most ``limit`` of them
        self.releases: list = []  # per slice, the cycle its pipe could start the next instruction
        self.parents: dict = {}  # slice index -> the index of the function's slice it is inside
        self.limit = TRACE_LIMIT
        self.dropped = 0  # slices counted past the limit, not kept

    def stall(self, pc: int, cause: str, cycles: int) -> None:
        if cycles > 0:
            self.stats[pc].stalls[cause] += cycles
            self.stall_totals[cause] += cycles

    def function_stalls(self, begin: int, launch: int, stalls: dict, conflicts: dict) -> None:
        """A vector function's: its launch (on ``VF.BEGIN``), what its instructions waited for room
        (``{pc: {cause: cycles}}``) and the cycles its accesses' own rows took in the banks."""
        self.stall(begin, "launch", launch)
        for pc, causes in stalls.items():
            for cause, cycles in causes.items():
                self.stall(pc, cause, cycles)
        for pc, cycles in conflicts.items():
            self.stats[pc].bank_conflict += cycles
            self.stall_totals["bank_conflict"] += cycles

    def add_cycles(self, pc: int, cycles: int) -> None:
        """Cycles of an instruction inside a vector function (its function's launch counts them)."""
        self.stats[pc].cycles += cycles

    def account(self, job: Job, pipe: str, cycles: int, conflicts: int, release: int) -> None:
        """A job placed on ``pipe``: its cycles, iterations and conflicts, its pipe's busy cycles;
        ``release`` is the cycle the pipe can start its next instruction (for the trace)."""
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
        if self.tracing and pipe != "S":  # the run loop traces S itself
            self.trace_slice(pipe, job.pc, job.start, end, job, release)
        if job.placed is not None:
            job.placed(job)

    def trace_slice(self, pipe: str, pc: int, start: int, end: int, job, release: int | None = None) -> None:
        """``release``: the cycle the pipe could start its next instruction (None: ``end``)."""
        if len(self.slices) < self.limit:
            self.slices.append((pipe, pc, start, end, job))
            self.releases.append(end if release is None else release)
        else:
            self.dropped += 1

    def trace_inside(self, outer: Job, slices: list) -> None:
        """A vector function's instructions ``(pc, start, end, release, job)``, cycles from its start,
        as slices inside the function's slice ``outer`` on V (just traced; none if it was not kept)."""
        parent = len(self.slices) - 1
        if parent < 0 or self.slices[parent][4] is not outer:
            return  # the function's own slice was not kept (past the trace limit)
        base = outer.start
        for pc, start, end, release, job in slices:
            self.trace_slice("V", pc, base + start, base + end, job, base + release)
            self.parents[len(self.slices) - 1] = parent

    def trace_log(self, flows: tuple, gm_bytes) -> TraceLog:
        """The slices as a value, with the flag arrows ``flows`` (``Flags.arrows``) and, for each copy
        (a DMA's slice), the GM bytes ``gm_bytes(job)`` its cost follows from."""
        copies = {i: gm_bytes(job) for i, (pipe, _, _, _, job) in enumerate(self.slices)
                  if pipe in ("MTE2", "MTE3") and job is not None and job.nbytes}
        return TraceLog(tuple(self.slices), tuple(self.releases), flows, self.dropped, dict(self.parents), copies)
