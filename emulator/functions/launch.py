"""Vector functions (the function shape, CONTRACT section 7): ``VF.BEGIN`` ... ``VF.END`` blocks with
hardware loops, run on V as one job.

Nothing on a function's scalar lane depends on vector or UB data (it holds MOV and the scalar ALU on
a copy of S, ``post=`` and PUPDATE updates, and loop counts), so when the scalar unit reaches
``VF.BEGIN`` the function is laid out at once (``Function.launch``): its instructions run on a
``FunctionContext`` in the order its loops give (``emulator.functions.expand``), each register
instruction handing over its job; ``emulator.functions.schedule`` places them (when each issues and
completes); and the engine gets one V job whose footprint is everything the function touches and
whose cost is its whole run, so flags, barriers and races treat it as one V instruction.

When that job starts, ``Function.perform`` runs the jobs on a scratch copy of UB in program order
and checks which UB accesses nothing orders (``emulator.functions.races``); with such a race it runs
them again at their scheduled times (``emulator.functions.timed``), so a load that overtakes an
unordered store reads the old data, as the cycle model says. A launch of more than ``CHUNK`` items
goes through each step a chunk at a time and keeps none of them: its data makes them again from its
launch's S values. A paused run hands over the same job, and shows the function one instruction a
step on a copy of its own (``emulator.functions.steps``). What a launch runs on is
``emulator.functions.context``'s.
"""

from __future__ import annotations

import gc

import numpy as np

from vcore.emulator.faults import Fault
from vcore.emulator.functions.block_state import BlockState
from vcore.emulator.functions.body import Body, Kept, KeptSchedules, arguments_of, laid_out_by, replay
from vcore.emulator.functions.context import FunctionContext
from vcore.emulator.functions.driven import DrivenLaunch, PreviewSettle
from vcore.emulator.functions.expand import Expansion, fresh, jobs_of, note_slices
from vcore.emulator.functions.fast_data import perform_loop
from vcore.emulator.functions.fast_loops import FastLoop
from vcore.emulator.functions.fast_order import ordered_loop
from vcore.emulator.functions.races import InnerOrder, byte_span, report
from vcore.emulator.functions.schedule import (
    LOOP,
    MEMBAR,
    SCALAR,
    InnerPlan,
    Schedule,
    Scheduler,
    limits,
    schedule,
    ub_unit,
)
from vcore.emulator.functions.steps import Stepper
from vcore.emulator.functions.timed import TimedPerform
from vcore.emulator.jobs import Job, footprint, land
from vcore.emulator.semantics.registry import MASKED_LANES, NO_UB, implements
from vcore.emulator.state import SPR_PLACES
from vcore.emulator.timing.costs import Cost
from vcore.isa import Inst
from vcore.isa.functions import FunctionSpan
from vcore.isa.model import Kind
from vcore.isa.types import BLOCK_BYTES


@implements("vf_begin", "vf_end", "loop", "endloop", "membar", bank_rule=NO_UB)
def bind_structure(inst: Inst, pc: int):
    """The structure rows have no action of their own: the machine runs a function from its
    ``VF.BEGIN`` (``Function.launch``), and control never reaches the others from outside."""

    def run(m):
        raise Fault(f"control reached {inst.row.mnemonic} at pc 0x{pc:04x} from outside its vector function: a "
                    f"function runs only from its VF.BEGIN")

    return run


class Function:
    """One ``VF.BEGIN`` ... ``VF.END`` block of a program, bound: it owns its body (``body``, whose
    fields it shows as its own), what its schedule costs and needs from the profile, its instructions'
    plans and UB slots, and the schedules it keeps (``kept``)."""

    def __init__(self, span: FunctionSpan, bound_at: dict, costs) -> None:
        self.begin = span.begin
        self.after = span.end + bound_at[span.end].inst.size
        body = [bound_at[pc] for pc in sorted(bound_at) if span.begin < pc <= span.end]
        self.body = Body.of(body, span.loops)
        self.costs = costs
        caps = costs.register
        # the launch, and a push of the scalar arguments (the S registers the function names) per 16
        self.kept = KeptSchedules(sorted(arguments_of(b.inst for b in body)), sorted(laid_out_by(b.inst for b in body)))
        self.launch_cycles = caps["vf_launch"] + -(-len(self.kept.arguments) // 16) * caps["vf_param_push"]
        (self.loop_startup, self.membar_cycles, self.window, self.register_writes, self.ports, self.special_units,
         self.units) = limits(costs)
        self.scalar_cycles = {b.pc: costs.s_cycles(b.inst) for b in body if self.kinds[self.pcs.index(b.pc)] == SCALAR}
        self.plans: dict[int, InnerPlan] = {}
        self.beats: dict = {}  # pc << 32 | first row in the banks' period << 16 | rows -> its UB beats
        # Its UB accesses, one slot each (emulator.functions.races), and which write; none writes: no race
        accesses = [b for b in body if ub_unit(b.inst.row)]
        self.ub_slots = {b.pc: slot for slot, b in enumerate(accesses)}
        self.slot_pcs = [b.pc for b in accesses]
        self.slot_writes = [ub_unit(b.inst.row) == "store" for b in accesses]
        self.may_race = any(self.slot_writes)
        self.masked_lanes = {b.pc: (_mask_operand(b.inst), b.inst.type.size) for b in body
                             if b.inst.row.family in MASKED_LANES}
        self._block_state: BlockState | None = None
        self.fast_shapes: dict = {}  # a loop's body index -> its shape in closed form, or None (fast_loops)
        self.loop_schedules: dict = {}  # what scheduling a loop in closed form did, by its entry (steady)
        # AR, when it reads or writes it (VSQZ ..., ar; CLRAR): its V job's footprint in the space spr
        self.ar = {"spr": (None, AR_BLOCK, AR_BLOCK + 1)} if any(b.inst.row.family == "clrar" or (
            b.inst.row.family == "vsqueeze" and len(b.inst.operands) == 4) for b in body) else None

    # The body's fields, as its readers (the expansion, the scheduler, the stepper) ask for them.
    @property
    def pcs(self) -> list:
        return self.body.pcs

    @property
    def runs(self) -> list:
        return self.body.runs

    @property
    def kinds(self) -> list:
        return self.body.kinds

    @property
    def counts(self) -> list:
        return self.body.counts

    @property
    def match(self) -> list:
        return self.body.match

    @property
    def index(self) -> dict:
        return self.body.index

    @property
    def insts(self) -> dict:
        return self.body.insts

    def block_state(self, blocks: int) -> BlockState:
        """Per UB block, what a later access can still race with (made at the first launch that needs it)."""
        if self._block_state is None:
            self._block_state = BlockState(len(self.slot_pcs), blocks)
        return self._block_state

    def account(self, counts: dict, accounting) -> None:
        """Each instruction's cycles in ``accounting`` (``emulator.timing.accounting``): its latency (a
        LOOP its start-up, a MEMBAR its cycles, a scalar instruction its own) times how often it ran."""
        for pc, n in counts.items():
            kind = self.kinds[self.index[pc]]
            if kind is None:
                plan = self.plans.get(pc)
                cycles = plan.latency if plan is not None else 0
            else:
                cycles = {LOOP: self.loop_startup, MEMBAR: self.membar_cycles, SCALAR: self.scalar_cycles.get(pc, 0)
                          }.get(kind, 0)
            if cycles:
                accounting.add_cycles(pc, n * cycles)

    # -- the launch: its schedule, and one job on V -------------------------------------------------------
    def launch(self, m) -> int:
        # Python's cyclic garbage collector is paused while a launch is laid out or performed: a launch
        # makes a job (a few objects) per instruction, at most ``CHUNK`` items at a time, which reference
        # counting frees chunk by chunk (nothing in a chunk refers back to it once the next is made);
        # the collector would otherwise scan every live job again and again as they are made, which
        # doubled the time of a long launch. It runs as before once the launch is done.
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._launch(m)
        finally:
            if collecting:
                gc.enable()

    def _launch(self, m) -> int:
        """VF.BEGIN's action on the scalar unit: lay the function out and hand it to V as one job.
        A fault inside it stops the run at its instruction; the instructions before it run. A launch
        of more than ``CHUNK`` items is laid out a chunk at a time and keeps none of them: its data
        moves by making them again when the job starts (``perform``)."""
        if self.body.driven:  # laid out as its data moves, when it starts
            budget = m.instruction_budget()
            launch = DrivenLaunch(self, m, list(m.state.s), budget)
            if m.stepping:
                return self._step_through(m, launch.job, {}, 0, budget)
            m.submit(launch.job)
            return self.after
        ctx = FunctionContext(m, [])
        launched_s = list(ctx.s)
        key = self.kept.key(ctx.s)
        budget = m.instruction_budget()
        engine = m.engine
        accounting = engine.accounting
        kept = self.kept.get(key)
        slices = None  # a long launch's instructions' trace slices, kept as it is laid out
        long_kept = kept is not None and kept.starts is None and kept.instructions <= budget
        if long_kept and not accounting.tracing:
            plan, counts, stopped = kept.plan, kept.counts, None  # a long launch laid out before
        else:
            expansion = Expansion(self, ctx, budget, fast=m.fast_loops and not accounting.tracing)
            items = expansion.next(CHUNK)
            if expansion.done:  # a short launch: its items stay for its data
                stopped = expansion.stopped
                counts = stopped.counts if stopped is not None else expansion.counted()
                if kept is not None and kept.starts is not None and stopped is None:
                    plan = replay(kept, items)
                else:
                    plan = schedule(self, items)._replace(fast=expansion.fast_instructions)
                    if stopped is None and not plan.refined:
                        self.kept.keep(key, Kept(plan._replace(items=None), [job.start for job in jobs_of(items)],
                                                 [job.end for job in jobs_of(items)], counts, sum(counts.values())))
            else:
                scheduler = Scheduler(self)
                slices = [] if accounting.tracing else None
                while True:
                    scheduler.feed(items)
                    if slices is not None:
                        note_slices(slices, items, self.plans, keep=False)
                    if expansion.done:
                        break
                    items = None  # (only one chunk at a time is alive)
                    items = expansion.next(CHUNK)
                stopped = expansion.stopped
                counts = stopped.counts if stopped is not None else expansion.counted()
                plan = scheduler.result()._replace(fast=expansion.fast_instructions)
                items = ctx.items = None  # a long launch keeps none of its items: its data makes them again
                if stopped is None and not plan.refined:
                    self.kept.keep(key, Kept(plan, None, None, counts, sum(counts.values())))
        self.account(counts, accounting)
        # Gathers and scatters cost what their indices ask of the sub-banks: a launch that holds any
        # is scheduled again once it has run (``perform``), and a timed run places it only then.
        priced = plan.refined
        if not priced:
            engine.function_stalls(self.begin, self.launch_cycles, plan.stalls, plan.conflicts)
        job = Job(self.begin, None, footprint_reads=plan.reads if self.ar is None else {**plan.reads, **self.ar},
                  footprint_writes=plan.writes if self.ar is None else {**plan.writes, **self.ar})
        job.cost = Cost(plan.cycles, plan.cycles)
        job.priced_at_start = priced
        if accounting.tracing:
            job.placed = lambda outer: accounting.trace_inside(outer, slices if slices is not None else
                                                               note_slices([], plan.items, self.plans))
        job.perform = lambda: self.perform(m, ctx, plan, job, launched_s, budget)
        if m.stepping:
            return self._step_through(m, job, counts, plan.fast, budget)
        m.add_function_counts(counts, plan.fast)
        m.submit(job)
        if stopped is not None:
            m.pc = stopped.pc  # the fault names the function's instruction, once what came before has run
            raise stopped.fault
        return self.after

    def _step_through(self, m, job: Job, counts: dict, fast: int, budget: int) -> int:
        """A paused run's launch: its V job is handed over and moves the function's data when it starts,
        as a whole run's does (so both name the same races, times and data), while ``Stepper`` runs the
        function's instructions one a step on registers and a copy of UB of their own, for the debugger
        to show. Returns the pc of its first step (the run loop counts each step as it runs)."""
        try:
            m.submit(job)
        except Fault:  # placing it faulted (a race under --strict, a limit): none of its steps ran, but
            m.add_function_counts(counts, fast)  # a whole run has counted its instructions by then: so does this
            raise
        preview = FunctionContext(m, [], preview=True)
        if self.body.driven:
            preview.settler = PreviewSettle(preview)
        steps: list = []
        launched = list(preview.s)
        expansion = Expansion(self, preview, budget, steps)
        expansion.next()
        preview.s[:] = launched  # (the steps set S as each runs: until the first, S is the launch's)
        m.stepper = Stepper(self, preview, steps, expansion.stopped)
        return steps[0][0] if steps else expansion.stopped.pc

    def price(self, engine, items: list, outer: Job) -> Schedule:
        """Schedule a launch whose gathers and scatters have run (their lanes known), give its V job
        ``outer`` that cost, and count its stalls."""
        return self.priced(engine, schedule(self, items), outer)

    def priced(self, engine, plan: Schedule, outer: Job) -> Schedule:
        outer.cost = Cost(plan.cycles, plan.cycles)
        engine.function_stalls(self.begin, self.launch_cycles, plan.stalls, plan.conflicts)
        return plan

    # -- the data: when the V job starts -----------------------------------------------------------------
    def perform(self, m, ctx: FunctionContext, plan: Schedule, outer: Job, launched_s: list, budget: int):
        collecting = gc.isenabled()  # paused, as in ``launch``
        gc.disable()
        try:
            return self._perform(m, ctx, plan, outer, launched_s, budget)
        finally:
            if collecting:
                gc.enable()

    def _perform(self, m, ctx: FunctionContext, plan: Schedule, outer: Job, launched_s: list, budget: int):
        """Run the function's jobs on the scratch copy of UB, in program order, checking which of its
        UB accesses nothing orders (``InnerOrder``); with such a race, run them again at their
        scheduled times (``TimedPerform``), so a load that overtakes an unordered store reads the old
        data, as the cycle model says. A launch with gathers or scatters is priced again now, and
        its V job ``outer`` given that cost. Returns the UB blocks the function wrote."""
        scratch = ctx.ub
        lo, hi = byte_span(plan.reads, plan.writes)
        scratch[lo:hi] = m.ub[lo:hi]
        ctx.spr[:] = m.spr
        items = plan.items
        order = None
        if self.may_race and not plan.apart:  # (a stream's accesses never meet: nothing to check)
            if plan.fast:  # some accesses meet: the order check follows them pass by pass
                items = None
            order = InnerOrder(self, scratch, None if items is None else jobs_of(items))
        if items is not None:  # a short launch: its items are at hand, and their times
            fresh(ctx)
            self.in_order(m, items, order, ctx)
            if plan.refined:
                self.price(m.engine, items, outer)
        else:  # a long one: made again, chunk by chunk (timed again only for its price)
            ctx = self._context(m, launched_s)
            expansion = Expansion(self, ctx, budget, fast=m.fast_loops)
            scheduler = Scheduler(self) if plan.refined else None
            while not expansion.done:
                chunk = expansion.next(CHUNK)
                self.in_order(m, chunk, order, ctx)
                if scheduler is not None:
                    scheduler.feed(chunk)
                if order is not None:
                    order.flush()
                chunk = None  # (only one chunk at a time is alive)
            if scheduler is not None:
                self.priced(m.engine, scheduler.result(), outer)
        races = order.finish() if order is not None else None
        if races:
            # Nothing orders some accesses: the data is what their scheduled times give.
            scratch[lo:hi] = m.ub[lo:hi]
            ctx.spr[:] = m.spr
            wanted = {k for race in races for k in (race[2], race[4])}
            times = self._timed(m, ctx, items, launched_s, budget, wanted)
            report(m.engine, races, times.__getitem__)
        return self.written(m, ctx, plan)

    def written(self, m, ctx: FunctionContext, plan: Schedule) -> tuple:
        """A launch's writes, once its data has moved: the UB blocks it wrote, from the scratch copy,
        and AR as it left it."""
        ar = () if self.ar is None else ((m.spr, slice(*AR_BYTES), ctx.spr[slice(*AR_BYTES)]),)
        entry = plan.writes.get("ub")
        if entry is None:
            return ar
        runs, first, end = entry
        if runs is None:
            where = slice(first * BLOCK_BYTES, end * BLOCK_BYTES)
        else:
            where = np.concatenate([np.arange(a * BLOCK_BYTES, b * BLOCK_BYTES) for a, b in runs])
        return ((m.ub, where, ctx.ub[where]), *ar)

    def _passes(self, m, ctx: FunctionContext, loop: FastLoop, order: InnerOrder, first: int) -> None:
        """Passes ``first`` on of a loop in closed form, run pass by pass (its jobs made again from S as
        each pass starts), each seen by ``order``."""
        kept, ctx.s = ctx.s, loop.s_at(first)
        runs, body = self.runs, loop.shape.body
        per = max(1, CHUNK // len(body))  # passes a chunk
        for start in range(first, loop.passes, per):
            ctx.items = []
            for _ in range(start, min(loop.passes, start + per)):
                for j in body:
                    runs[j](ctx)
            jobs, ctx.items = ctx.items, None
            self.in_order(m, jobs, order, ctx)
            order.flush()
        ctx.s = kept

    def _context(self, m, launched_s: list) -> FunctionContext:
        """A long launch's context made again: S as at its launch, V and P zero, the scratch UB."""
        ctx = FunctionContext(m, [])
        ctx.s[:] = launched_s
        return ctx

    def in_order(self, m, items: list, order: InnerOrder | None, ctx: FunctionContext) -> None:
        """Perform the items' jobs in program order, each landing at once, each seen by ``order``.
        A job's own fault (a gather index outside UB) is placed at its instruction (``m.fault_at``)."""
        p = ctx.p
        item = None
        try:
            for item in items:
                if item.__class__ is tuple:
                    if item[0] == MEMBAR and order is not None:
                        order.membar()
                    continue
                if item.__class__ is FastLoop:  # a loop in closed form (with ``order``: where nothing meets)
                    if order is None:
                        perform_loop(ctx, item)
                    else:  # all passes but the last at once, if nothing can meet; the rest pass by pass
                        done = ordered_loop(self, ctx, item, order)
                        self._passes(m, ctx, item, order, item.passes - 1 if done else 0)
                    continue
                if item.refine is not None:  # a gather's or scatter's precise blocks, from its indices now
                    item.reads, item.writes = item.refine()
                    item.footprint_reads, item.footprint_writes = footprint(item.reads), footprint(item.writes)
                written = item.perform()
                if order is not None:
                    order.step(item, written, p)
                if len(written) == 3 and written[0].__class__ is not tuple:  # jobs.land, for one bare write
                    array, index, values = written
                    array[index] = values
                else:
                    land(written)
        except Fault as fault:
            raise m.fault_at(fault, item.pc) from None

    def _timed(self, m, ctx: FunctionContext, items: list | None, launched_s: list, budget: int,
               wanted: set) -> dict:
        """Perform the launch's jobs again, at their scheduled times (a long launch: made again and
        scheduled again); returns the times of the ``wanted`` jobs (by index in program order)."""
        if items is not None:
            fresh(ctx)
            timed = TimedPerform(ctx, self.plans)
            jobs = jobs_of(items)
            timed.add(jobs)
            timed.finish()
            return {k: (jobs[k].start, jobs[k].end) for k in wanted}
        outer, ctx = ctx, self._context(m, launched_s)
        timed = TimedPerform(ctx, self.plans)
        expansion, scheduler = Expansion(self, ctx, budget), Scheduler(self)
        times: dict = {}
        while not expansion.done:
            chunk = expansion.next(CHUNK)
            scheduler.feed(chunk)
            first = timed.k
            jobs = jobs_of(chunk)
            times.update((k, (jobs[k - first].start, jobs[k - first].end)) for k in wanted
                         if first <= k < first + len(jobs))
            timed.add(jobs)
            timed.run_until(scheduler.front)  # no job still to come starts before the front end's cycle
            chunk = jobs = None  # (only one chunk at a time is alive)
        timed.finish()
        outer.spr[:] = ctx.spr  # (AR as this run left it: the launch lands it)
        return times


_AR = SPR_PLACES["AR"]
AR_BYTES = (_AR[0], _AR[0] + _AR[1])
AR_BLOCK = _AR[0] // BLOCK_BYTES
CHUNK = 8192  # items a launch lays out and performs at a time: a longer launch keeps none of them


def _mask_operand(inst: Inst) -> int:
    """The mask register of an instruction of a masked family: its last mask-register operand."""
    return [value for value, operand in zip(inst.operands, inst.row.operands, strict=True)
            if operand.kind is Kind.PREG][-1]
