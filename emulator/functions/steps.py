"""A vector function run one instruction a step (a debugger's run, one that may pause): ``Stepper``
performs each of the launch's jobs in program order on the function's own registers and a copy of UB,
which the debugger shows; the function's V job moves its data when it starts, as in a whole run.
"""

from __future__ import annotations

from contextlib import suppress

import numpy as np

from vcore.emulator.faults import Fault
from vcore.emulator.functions.expand import FunctionStopped
from vcore.emulator.jobs import land


class Stepper:
    """A function run one instruction a step (a paused run): each step performs its job, in program
    order, on the function's registers and its copy of UB as they stood at its launch (``ctx``), and
    sets S as it stood then. What the program computes is its V job's: that job is handed to V at the
    launch and moves the data at its start, with the races, times and faults a whole run names there."""

    def __init__(self, function, ctx, steps: list, stopped: FunctionStopped | None) -> None:
        self.function, self.ctx, self.steps, self.stopped = function, ctx, steps, stopped
        self.k = 0

    def loops(self) -> tuple:
        """(iteration, count) of each loop the next instruction is in, outermost first."""
        return self.steps[self.k][3] if self.k < len(self.steps) else ()

    def at_limit(self, m) -> None:
        """The run reached --max-instructions before the next step: when the steps end here because the
        function met that limit, raise its fault (which names the function's open loops) as its whole
        run's launch does; else return."""
        if self.k == len(self.steps) and self.stopped is not None and self.stopped.fault.kind == "limit":
            self.step(m)

    def step(self, m) -> int:
        if self.k == len(self.steps):  # the instruction that faults
            m.stepper = None
            raise self.stopped.fault
        _, job, s_after, _ = self.steps[self.k]
        if job is not None:
            # A job's own fault (a gather's index outside UB) is the V job's to meet when it starts, as
            # in a whole run: the steps only show the data.
            with np.errstate(all="ignore"), suppress(Fault):
                land(job.perform())
        self.ctx.s[:] = s_after
        self.k += 1
        if self.k == len(self.steps):
            if self.stopped is not None:
                return self.stopped.pc
            m.stepper = None
            return self.function.after
        return self.steps[self.k][0]
