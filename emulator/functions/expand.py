"""A vector function's launch as its items: its instructions in the order its hardware loops give,
run on the launch's own context (a copy of S, its V and P), each register instruction handing over
its job, a chunk at a time (``Expansion``); and what a fault inside it stops (``FunctionStopped``).
"""

from __future__ import annotations

from vcore.emulator.faults import Fault
from vcore.emulator.functions.fast_loops import FastLoop, enter
from vcore.emulator.functions.schedule import ENDLOOP, LOOP, MEMBAR, SCALAR
from vcore.emulator.jobs import Job
from vcore.emulator.timing.accounting import TRACE_LIMIT


class FunctionStopped(Exception):
    """The expansion of a function met a fault at ``pc``: what ran before it still runs."""

    def __init__(self, fault: Fault, pc: int, counts: dict) -> None:
        super().__init__(fault.message)
        self.fault, self.pc, self.counts = fault, pc, counts


class Expansion:
    """A launch's instructions in the order its loops give, a chunk at a time: ``next`` runs the body
    on the context (its own S, V, P) until it has collected about ``limit`` items (jobs and markers,
    checked at each ENDLOOP) or the function ends (``done``). ``budget``: the instructions it may run
    before the run's limit; a fault stops it (``stopped``). ``fast``: a loop that qualifies is one
    item, a ``FastLoop`` (``emulator.functions.fast_loops``). ``steps``, when given, receives ``(pc,
    job or None, S after it, (iteration, count) of each open loop)`` for every instruction run."""

    def __init__(self, fn, ctx, budget: int, steps: list | None = None, fast: bool = False) -> None:
        self.fn, self.ctx, self.budget, self.steps, self.fast = fn, ctx, budget, steps, fast
        self.fast_instructions = 0  # those run in closed form (``fast``: qualifying loops are)
        self.i = 0
        self.stack: list = []  # [index of LOOP, iterations left, iterations in all]
        self.counts = [0] * len(fn.pcs)
        self.ran = 0
        self.done = False
        self.stopped: FunctionStopped | None = None

    def counted(self) -> dict:
        """How many times each pc ran so far."""
        return {pc: count for pc, count in zip(self.fn.pcs, self.counts, strict=True) if count}

    def next(self, limit: int = 0) -> list:
        """The next chunk of items (``limit`` 0: all the rest)."""
        fn, ctx, steps = self.fn, self.ctx, self.steps
        pcs, runs, kinds, match, counts_of = fn.pcs, fn.runs, fn.kinds, fn.match, fn.counts
        items = ctx.items = []
        counts, stack, budget = self.counts, self.stack, self.budget
        i, n, ran = self.i, len(pcs), self.ran
        weight = 0  # the jobs of this chunk's loops in closed form, which weigh in as the jobs they stand for
        try:
            while i < n:
                if ran == budget:  # this instruction would pass --max-instructions
                    raise self._stop(Fault("--max-instructions reached inside a vector function", kind="limit"), i)
                kind = kinds[i]
                counts[i] += 1
                ran += 1
                before = len(items)
                if steps is not None:  # which iteration of each open loop this instruction runs in
                    inside = tuple((total - left + 1, total) for _, left, total in stack)
                    here = pcs[i]
                if kind is None:  # a register instruction: its binder hands over its job
                    try:
                        runs[i](ctx)
                    except Fault as fault:
                        raise self._stop(fault, i) from None
                elif kind == SCALAR:  # the scalar lane: its binder does the work, the front end spends its cycles
                    runs[i](ctx)
                    items.append((SCALAR, pcs[i]))
                elif kind == ENDLOOP:
                    top = stack[-1]
                    top[1] -= 1
                    if top[1]:
                        i = top[0]  # its LOOP: the body again, after it
                    else:
                        stack.pop()
                    if limit and len(items) + weight >= limit and steps is None:  # a chunk's worth: go on next time
                        self.i, self.ran = i + 1, ran
                        ctx.items = None  # (its jobs refer to the context: no cycle left for the collector)
                        return items
                elif kind == LOOP:
                    count = counts_of[i]
                    times = count.imm if count.reg is None else ctx.s[count.reg]
                    if times < 0:  # (a negative immediate is refused before the program runs)
                        raise self._stop(Fault(f"LOOP count S{count.reg} = {times} is negative"), i)
                    items.append((LOOP, pcs[i]))
                    if times == 0:
                        i = match[i]  # its ENDLOOP: go on after it
                    elif self.fast and steps is None and (loop := enter(fn, ctx, i, times, budget - ran)) is not None:
                        # its passes in closed form (emulator.functions.fast_loops)
                        items.append(loop)
                        for j in loop.shape.body:
                            counts[j] += times
                        counts[loop.shape.end] += times
                        ran += loop.instructions
                        self.fast_instructions += loop.instructions
                        weight += loop.instructions
                        i = loop.shape.end
                        if limit and len(items) + weight >= limit:  # a chunk's worth, as at an ENDLOOP
                            self.i, self.ran = i + 1, ran
                            ctx.items = None
                            return items
                    else:
                        stack.append([i, times, times])
                elif kind == MEMBAR:
                    items.append((MEMBAR, pcs[i]))
                if steps is not None:
                    job = items[-1] if len(items) > before and items[-1].__class__ is Job else None
                    steps.append((here, job, tuple(ctx.s), inside))
                i += 1
        except FunctionStopped as stop:
            self.stopped = stop
        self.i, self.ran, self.done = i, ran, True
        ctx.items = None
        return items

    def _stop(self, fault: Fault, i: int) -> FunctionStopped:
        """A fault inside the function at body index ``i``, with the iteration of each open loop,
        and how often each instruction ran up to it (the faulting one included)."""
        fn = self.fn
        if self.stack:
            where = ", ".join(f"iteration {total - left + 1} of {total} of the LOOP at "
                              f"{self.ctx.machine.describe(fn.pcs[j])}" for j, left, total in self.stack)
            fault.message = f"{fault.message} ({where})"
        return FunctionStopped(fault, fn.pcs[i], self.counted())


def jobs_of(items: list) -> list:
    """The jobs among a launch's items (the rest are markers and loops in closed form)."""
    return [item for item in items if item.__class__ is not tuple and item.__class__ is not FastLoop]


def fresh(ctx) -> None:
    """Every function starts with V and P zero (the register file is shared by launches)."""
    ctx.v.fill(0)
    ctx.p.fill(False)


def note_slices(slices: list, items: list, plans: dict, keep: bool = True) -> list:
    """Add the items' jobs to a launch's trace slices ``(pc, start, end, release, job)``, up to the trace's
    limit (``keep`` False: without the jobs, which a long launch does not keep)."""
    room = TRACE_LIMIT - len(slices)
    for job in jobs_of(items):
        if room <= 0:
            break
        slices.append((job.pc, job.start, job.end, job.start + plans[job.pc].occupancy, job if keep else None))
        room -= 1
    return slices
