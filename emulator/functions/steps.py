"""A vector function run one instruction a step (a debugger's run, one that may pause): ``Stepper``
performs each of the launch's jobs in program order on the machine's UB and the function's registers,
its UB order checked as a launch's is (``emulator.functions.races.InnerOrder``).
"""

from __future__ import annotations

import numpy as np

from emulator.functions.expand import FunctionStopped, fresh, jobs_of
from emulator.functions.races import InnerOrder, report
from emulator.functions.schedule import MEMBAR, Schedule, schedule
from emulator.jobs import Job, footprint, land


class Stepper:
    """A function run one instruction a step (a debugger's run): each step performs its job, in
    program order, on the machine's UB and the function's registers, and sets S as it stood then."""

    def __init__(self, function, ctx, steps: list,
                 stopped: FunctionStopped | None, plan: Schedule, outer: Job) -> None:
        self.function, self.ctx, self.steps, self.stopped, self.plan = function, ctx, steps, stopped, plan
        self.outer = outer  # the V job, scheduled again once the steps ran when it holds gathers or scatters
        self.k = 0
        fresh(ctx)
        self.order = InnerOrder(function, ctx.ub, jobs_of(plan.items)) if function.may_race and not plan.apart else None

    def loops(self) -> tuple:
        """(iteration, count) of each loop the next instruction is in, outermost first."""
        return self.steps[self.k][3] if self.k < len(self.steps) else ()

    def at_limit(self, m) -> None:
        """The run reached --max-instructions before the next step: when the steps end here because the
        function met that limit, raise its fault (which names the function's open loops) as its whole
        run's launch does, and report the races of the steps that ran; else return."""
        if self.k == len(self.steps) and self.stopped is not None and self.stopped.fault.kind == "limit":
            self.step(m)

    def step(self, m) -> int:
        if self.k == len(self.steps):  # the instruction that faults
            m.stepper = None
            self._races(m)
            raise self.stopped.fault
        pc, job, s_after, _ = self.steps[self.k]
        fn = self.function
        if job is not None:
            if job.refine is not None:  # a gather's or scatter's precise blocks, from its indices now
                job.reads, job.writes = job.refine()
                job.footprint_reads, job.footprint_writes = footprint(job.reads), footprint(job.writes)
            with np.errstate(all="ignore"):
                written = job.perform()
                if self.order is not None:
                    self.order.step(job, written, self.ctx.p)
                land(written)
        elif fn.kinds[fn.index[pc]] == MEMBAR and self.order is not None:
            self.order.membar()
        self.ctx.s[:] = s_after
        self.k += 1
        if self.k == len(self.steps):
            if self.stopped is not None:
                return self.stopped.pc
            m.stepper = None
            self._races(m)
            return self.function.after
        return self.steps[self.k][0]

    def _races(self, m) -> None:
        """The races of the function, found once its steps have run (as its launch finds them). A
        function with gathers or scatters is scheduled again now (its lanes known: the times its
        races name), and priced when its V job starts, as a whole run's ``perform`` prices it then:
        a job that never starts (its pipe deadlocked) counts no stalls, as in a whole run."""
        if self.plan.refined:
            fn, engine, outer, items = self.function, m.engine, self.outer, self.plan.items
            self.plan = schedule(fn, items)
            if outer.started:  # forced onto V before its steps ran: priced now
                fn.price(engine, items, outer)
            else:
                def priced() -> tuple:
                    fn.price(engine, items, outer)
                    return ()  # the steps moved its data

                outer.perform = priced  # the engine places it once it has performed it at its start
        if self.order is not None:
            races = self.order.finish()
            if races:
                jobs = jobs_of(self.plan.items)
                report(m.engine, races, lambda k: (jobs[k].start, jobs[k].end))
