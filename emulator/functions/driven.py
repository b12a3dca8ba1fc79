"""A vector function whose layout follows its data (``DrivenLaunch``): one that holds a ``VSQZ ...,
cnt=Sn``, which sets the function's own copy of Sn to the number of lanes its mask keeps. What its
scalar lane does after that (an address, a loop count) then depends on vector data, so it cannot be
laid out when the scalar unit reaches ``VF.BEGIN``, as every other function is
(``emulator.functions.launch``).

Such a launch hands V one job whose footprint is all of UB (and AR when it uses it) until it starts,
as ``VTRANS5HD``'s is until it reads its lists. When it starts (``Job.refine``: before its races
are checked and it is placed, with every earlier event run) it is laid out as its data moves: its
instructions run in program order on the launch's own registers and a copy of UB, each ``cnt=``
first performing the jobs made before it (``Settle``), so that it counts its mask as the data leave
it. Its schedule, races, counts and stalls then come as a laid-out launch's do, a chunk at a time.
A race inside it is named with both lines, but its data stay program order's: the counts that lay
out the rest of the function are read from them.
"""

from __future__ import annotations

from contextlib import suppress

import numpy as np

from vcore.emulator.faults import Fault
from vcore.emulator.functions.context import FunctionContext
from vcore.emulator.functions.expand import Expansion, jobs_of, note_slices
from vcore.emulator.functions.races import InnerOrder, report
from vcore.emulator.functions.schedule import Scheduler
from vcore.emulator.jobs import Job, land
from vcore.emulator.timing.costs import Cost
from vcore.isa.types import BLOCK_BYTES

CHUNK = 8192  # items laid out, performed and scheduled at a time (as ``launch.CHUNK``)


def driven(inst) -> bool:
    """Whether an instruction sets a scalar register from vector data (``cnt=Sn``)."""
    return any(spec.sreg and value is not None for spec, value in zip(inst.row.keywords, inst.keywords, strict=True))


def count_lanes(ctx, pm: int, width: int) -> int:
    """The active lanes of ``Pm`` at lanes of ``width`` bytes, as the context holds it."""
    return int(np.count_nonzero(ctx.p[pm][::width]))


class Settle:
    """A driven launch's items as they are made, a piece at a time (at a ``cnt=``, and at the end of
    each chunk): each scheduled (``scheduler``), then performed in program order, each seen by the
    launch's order check (``order``); at a ``cnt=``, then the mask counted."""

    def __init__(self, fn, m, ctx, scheduler: Scheduler, order: InnerOrder | None, slices: list | None) -> None:
        self.fn, self.m, self.ctx, self.scheduler, self.order, self.slices = fn, m, ctx, scheduler, order, slices
        self.chunk: list | None = None
        self.done = 0  # the chunk's items scheduled and performed

    def __call__(self, pm: int, width: int) -> int:
        self.rest(self.ctx.items)
        return count_lanes(self.ctx, pm, width)

    def rest(self, chunk: list) -> list:
        """Schedule and perform the chunk's items not yet done; returns them."""
        if chunk is not self.chunk:
            self.chunk, self.done = chunk, 0
        new = chunk[self.done:]
        self.done = len(chunk)
        self.scheduler.feed(new)
        if self.slices is not None:
            note_slices(self.slices, new, self.fn.plans, keep=False)
        self.fn.in_order(self.m, new, self.order, self.ctx)
        return new


class PreviewSettle:
    """A paused run's ``cnt=`` (its steps are laid out at the launch, and each performed as it is
    stepped): perform every job made so far from the launch's registers and UB, count the mask, and
    put the registers and UB back."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.start = (ctx.v.copy(), ctx.p.copy(), ctx.ub.copy(), ctx.spr.copy())

    def __call__(self, pm: int, width: int) -> int:
        ctx = self.ctx
        for job in jobs_of(ctx.items):
            with np.errstate(all="ignore"), suppress(Fault):  # (the V job meets its faults)
                land(job.perform())
        k = count_lanes(ctx, pm, width)
        for now, then in zip((ctx.v, ctx.p, ctx.ub, ctx.spr), self.start, strict=True):
            np.copyto(now, then)
        return k


class DrivenLaunch:
    """One launch of a driven function, from its S values at ``VF.BEGIN``: its V job (``job``), laid
    out and performed when it starts (``refine``), its writes then landed by the engine (``perform``)."""

    def __init__(self, fn, m, launched_s: list, budget: int) -> None:
        self.fn, self.m, self.launched_s, self.budget = fn, m, launched_s, budget
        self.counted = not m.stepping  # a paused run's loop counts its steps itself
        self.writes: tuple = ()
        whole = {"ub": (None, 0, m.ub.size // BLOCK_BYTES)}
        if fn.ar is not None:
            whole = {**whole, **fn.ar}
        self.job = job = Job(fn.begin, self.perform, footprint_reads=whole, footprint_writes=whole)
        job.cost = Cost(fn.launch_cycles, fn.launch_cycles)
        job.priced_at_start = True
        job.refine = self.refine

    def perform(self):
        return self.writes

    def refine(self) -> tuple:
        """Lay the launch out as its data moves (``_run``); returns its footprint's entries."""
        m = self.m
        try:
            plan, races = self._run()
        except Fault as fault:
            raise m.fault_at(fault, self.fn.begin) from None
        if races:
            report(m.engine, races, self._times({k for race in races for k in (race[2], race[4])}).__getitem__)
        return _entries(plan.reads), _entries(plan.writes)

    def _context(self, own: bool) -> FunctionContext:
        """The launch's context: S as at its launch, V and P zero, UB and AR as they are now (``own``:
        registers and a copy of UB of its own, else the machine's workspace)."""
        m = self.m
        ctx = FunctionContext(m, [], preview=own)
        ctx.s[:] = self.launched_s
        if not own:
            ctx.ub[:] = m.ub
        ctx.spr[:] = m.spr
        return ctx

    def _run(self):
        fn, m = self.fn, self.m
        engine = m.engine
        accounting = engine.accounting
        ctx = self._context(own=False)
        order = InnerOrder(fn, ctx.ub, None) if fn.may_race else None
        scheduler = Scheduler(fn)
        slices = [] if accounting.tracing else None
        settle = ctx.settler = Settle(fn, m, ctx, scheduler, order, slices)
        expansion = Expansion(fn, ctx, self.budget)
        while not expansion.done:
            settle.rest(expansion.next(CHUNK))
            if order is not None:
                order.flush()
        stopped = expansion.stopped
        counts = stopped.counts if stopped is not None else expansion.counted()
        plan = scheduler.result()
        if self.counted:
            m.add_function_counts(counts, 0)
        fn.account(counts, accounting)
        fn.priced(engine, plan, self.job)
        if slices is not None:
            self.job.placed = lambda outer: accounting.trace_inside(outer, slices)
        if stopped is not None:
            raise m.fault_at(stopped.fault, stopped.pc)
        self.writes = fn.written(m, ctx, plan)
        return plan, order.finish() if order is not None else None

    def _times(self, wanted: set) -> dict:
        """The scheduled times of the ``wanted`` jobs (by index in program order): the launch laid out
        again, as its data moved, on registers and a copy of UB of its own."""
        ctx = self._context(own=True)
        settle = ctx.settler = Settle(self.fn, self.m, ctx, Scheduler(self.fn), None, None)
        expansion = Expansion(self.fn, ctx, self.budget)
        times: dict = {}
        first = 0
        while not expansion.done:
            chunk = expansion.next(CHUNK)
            settle.rest(chunk)
            jobs = jobs_of(chunk)
            times.update((k, (jobs[k - first].start, jobs[k - first].end)) for k in wanted
                         if first <= k < first + len(jobs))
            first += len(jobs)
        return times


def _entries(entry_map: dict) -> list:
    """A footprint (``space -> (runs, first, end)``) as the entries ``emulator.jobs.footprint`` takes."""
    return [(space, (first, end) if runs is None else runs) for space, (runs, first, end) in entry_map.items()]
