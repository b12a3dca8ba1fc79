"""Vector functions (the function shape, CONTRACT section 7): ``VF.BEGIN`` ... ``VF.END`` blocks with
hardware loops, run on V as one job.

Nothing on a function's scalar lane depends on vector or UB data (it holds MOV and the scalar ALU on
a copy of S, ``post=`` and PUPDATE updates, and loop counts), so when the scalar unit reaches
``VF.BEGIN`` the whole function is laid out at once, in four steps, each a part of this module:

1. ``expand``: the function's instructions run on a ``FunctionContext`` (its own copy of S, its own
   V and P registers, zero at launch) in the order the hardware loops give; each register
   instruction's binder resolves its addresses there and hands over its job, which the context
   collects instead of the engine.
2. ``schedule``: when each of those jobs issues and completes, relative to the launch: out of order
   within the profile's instruction window, after the register results it reads (registers are
   renamed: a later write never waits for an earlier read), within the issue rules, the units'
   occupancy, and after every earlier UB access where a ``MEMBAR`` stands between.
3. One job on V (``Function.launch``) whose footprint is everything the function touches and whose
   cost is its whole run: flags, barriers and races treat the function as one V instruction.
4. Its ``perform`` runs the function's jobs on a scratch copy of UB, checks which of its UB accesses
   nothing orders (``inner_races``), and returns the UB blocks the function wrote. Without such a
   race the jobs run in program order, which then gives exactly what the timed order gives; with
   one they run again at their scheduled times (``_perform_timed``): registers as program order
   gives them (renamed), UB as it stands at each job's start, so a load that overtakes an
   unordered store reads the old data, as the cycle model says.

A debugger run (one that may pause) steps through the function instead: ``Stepper`` performs one
of its instructions per step, in program order, on the machine's UB and the function's registers.
"""

from __future__ import annotations

import numpy as np

from emulator.costs import Cost
from emulator.faults import Fault
from emulator.function_races import as_footprint, byte_span, inner_races, land_noting_masks, perform_timed, runs_of
from emulator.function_schedule import END, ENDLOOP, LOOP, MEMBAR, SCALAR, InnerPlan, Schedule, schedule
from emulator.jobs import Job, footprint, land
from emulator.semantics import implements
from emulator.state import State
from emulator.ub_ports import ports_of
from isa import Inst
from isa.functions import FunctionSpan
from isa.model import Kind
from isa.table import FUNCTION_SCALAR_FAMILIES
from isa.types import BLOCK_BYTES

_new_job = object.__new__


@implements("vf_begin", "vf_end", "loop", "endloop", "membar")
def bind_structure(inst: Inst, pc: int):
    """The structure rows have no action of their own: the machine runs a function from its
    ``VF.BEGIN`` (``Function.launch``), and control never reaches the others from outside."""

    def run(m):
        raise Fault(f"control reached {inst.row.mnemonic} at pc 0x{pc:04x} from outside its vector function: a "
                    f"function runs only from its VF.BEGIN")

    return run


class FunctionContext(State):
    """A function's own state at one launch: a copy of S0..S31, V and P registers that start zero,
    and UB as the machine's scratch copy. Its ``submit`` collects jobs instead of scheduling them."""

    def __init__(self, m, items: list, stepping: bool = False) -> None:  # not State.__init__: no UB of its own
        self.machine = m
        self.s = list(m.s)
        # One register file serves every launch (their data moves one launch at a time), zeroed
        # when a launch starts to move data: its typed views are then made once per machine.
        self.v, self.p, self.v_as, self.v_rows = m.function_registers()
        self.v.fill(0)
        self.p.fill(False)
        self.lane_masks = m.lane_masks  # keyed by a mask's bytes: the same in every state
        # A stepped function works on the machine's UB itself; a launched one on the scratch copy.
        self.ub, self._views = (m.ub, m._views) if stepping else m.function_scratch()
        self.gm = m.gm
        self.items = items

    def submit(self, job: Job) -> None:
        self.items.append(job)

    def submit_register(self, pc: int, perform, reads: dict, writes: dict) -> None:
        job = _new_job(Job)
        job.pc, job.perform, job.footprint_reads, job.footprint_writes = pc, perform, reads, writes
        self.items.append(job)


class FunctionStopped(Exception):
    """The expansion of a function met a fault at ``pc``: what ran before it still runs."""

    def __init__(self, fault: Fault, pc: int, counts: dict) -> None:
        super().__init__(fault.message)
        self.fault, self.pc, self.counts = fault, pc, counts


class Function:
    """One ``VF.BEGIN`` ... ``VF.END`` block of a program, bound: its body and what it costs."""

    def __init__(self, span: FunctionSpan, bound_at: dict, costs) -> None:
        self.span = span
        self.begin, self.end = span.begin, span.end
        self.after = span.end + bound_at[span.end].inst.size
        body = [bound_at[pc] for pc in sorted(bound_at) if span.begin < pc <= span.end]
        self.pcs = [b.pc for b in body]
        self.runs = [b.run for b in body]
        self.kinds = [_kind(b.inst) for b in body]
        self.counts = [b.inst.operands[0] if b.inst.row.family == "loop" else None for b in body]
        self.insts = {b.pc: b.inst for b in body}
        index = self.index = {pc: i for i, pc in enumerate(self.pcs)}
        self.match = [0] * len(body)  # LOOP <-> ENDLOOP, by body index
        for loop in span.loops:
            self.match[index[loop.begin]], self.match[index[loop.end]] = index[loop.end], index[loop.begin]
        self.costs = costs
        caps = costs.register
        # the launch, and a push of the scalar arguments (the S registers the function names) per 16
        self.arguments = sorted(_arguments(b.inst for b in body))  # what S registers the body names
        self.launch_cycles = caps["vf_launch"] + -(-len(self.arguments) // 16) * caps["vf_param_push"]
        self.loop_startup = caps["vf_loop_startup"]
        self.membar_cycles = caps["vf_membar"]
        self.window = caps["vf_window"]
        self.register_writes = caps["register_writes"]
        self.ports = ports_of(costs.banks.kind, caps["ub_reads"])
        self.special_units = caps["transcendental_units"]
        self.units = {"load": caps["vf_load_units"], "store": caps["vf_store_units"], "exec": caps["issue_width"]}
        self.scalar_cycles = {b.pc: costs.s_cycles(b.inst) for b in body if self.kinds[self.pcs.index(b.pc)] == SCALAR}
        self.plans: dict[int, InnerPlan] = {}
        self.beats: dict = {}  # pc -> (first row in the banks' period << 16 | rows) -> its UB beats
        # The S registers it names, at launch -> (the launch's Schedule, its jobs' starts and ends,
        # its footprint). A launch's items depend on those values alone (nothing on the scalar lane
        # reads data), so a launch from the same values has the same schedule: a loop that launches
        # a function again and again schedules it once. Gathers and scatters (priced by their data)
        # are not kept.
        self.schedules: dict = {}

    # -- 1. the function's instructions, in the order its loops give ------------------------------------
    def expand(self, ctx: FunctionContext, budget: int, steps: list | None = None) -> dict:
        """Run the body on ``ctx`` (collecting jobs and markers in ``ctx.items``); returns how many
        times each pc ran. ``budget``: the instructions it may run before the run's limit. ``steps``,
        when given, receives ``(pc, job or None, S after it, (iteration, count) of each open loop)``
        for every instruction run."""
        pcs, runs, kinds, match, counts_of = self.pcs, self.runs, self.kinds, self.match, self.counts
        items = ctx.items
        counts = [0] * len(pcs)
        stack: list = []  # [index of LOOP, iterations left, iterations in all]
        i, n, ran = 0, len(pcs), 0
        while i < n:
            if ran == budget:  # this instruction would pass --max-instructions
                raise self._stopped(ctx, Fault("--max-instructions reached inside a vector function", kind="limit"),
                                    i, stack, counts)
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
                    raise self._stopped(ctx, fault, i, stack, counts) from None
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
            elif kind == LOOP:
                count = counts_of[i]
                times = count.imm if count.reg is None else ctx.s[count.reg]
                if times < 0:  # (a negative immediate is refused before the program runs)
                    raise self._stopped(ctx, Fault(f"LOOP count S{count.reg} = {times} is negative"), i, stack, counts)
                items.append((LOOP, pcs[i]))
                if times == 0:
                    i = match[i]  # its ENDLOOP: go on after it
                else:
                    stack.append([i, times, times])
            elif kind == MEMBAR:
                items.append((MEMBAR, pcs[i]))
            if steps is not None:
                job = items[-1] if len(items) > before and items[-1].__class__ is Job else None
                steps.append((here, job, tuple(ctx.s), inside))
            i += 1
        return {pc: count for pc, count in zip(pcs, counts, strict=True) if count}

    def _stopped(self, ctx, fault: Fault, i: int, stack: list, counts: list) -> FunctionStopped:
        """A fault inside the function at body index ``i``, with the iteration of each open loop,
        and how often each instruction ran up to it (the faulting one included)."""
        if stack:
            where = ", ".join(f"iteration {total - left + 1} of {total} of the LOOP at "
                              f"{ctx.machine.describe(self.pcs[j])}" for j, left, total in stack)
            fault.message = f"{fault.message} ({where})"
        ran = {pc: count for pc, count in zip(self.pcs, counts, strict=True) if count}
        return FunctionStopped(fault, self.pcs[i], ran)

    # -- 2. when each job issues and completes -------------------------------------------------------
    def account(self, counts: dict, stats) -> None:
        """Each instruction's cycles in ``stats``: its latency (a LOOP its start-up, a MEMBAR its
        cycles, a scalar instruction its own) times how often it ran."""
        for pc, n in counts.items():
            kind = self.kinds[self.index[pc]]
            if kind is None:
                plan = self.plans.get(pc)
                cycles = plan.latency if plan is not None else 0
            else:
                cycles = {LOOP: self.loop_startup, MEMBAR: self.membar_cycles, SCALAR: self.scalar_cycles.get(pc, 0)
                          }.get(kind, 0)
            if cycles:
                stats[pc].cycles += n * cycles

    # -- 3. the launch: one job on V ------------------------------------------------------------------
    def launch(self, m) -> int:
        """VF.BEGIN's action on the scalar unit: lay the function out and hand it to V as one job.
        A fault inside it stops the run at its instruction; the instructions before it run."""
        stepping = m.stepping
        items: list = []
        ctx = FunctionContext(m, items, stepping)
        key = tuple([ctx.s[r] for r in self.arguments])
        steps: list | None = [] if stepping else None
        stopped = None
        try:
            counts = self.expand(ctx, m.instruction_budget(), steps)
        except FunctionStopped as stop:
            counts, stopped = stop.counts, stop
        engine = m.engine
        kept = self.schedules.get(key) if stopped is None else None
        if kept is None:
            plan = schedule(self, items)
            reads, writes = (as_footprint(firsts, ends) for firsts, ends, _ in plan.runs)
            if stopped is None and not plan.refined:
                if len(self.schedules) >= _KEPT_SCHEDULES:
                    self.schedules.clear()
                self.schedules[key] = (plan._replace(jobs=None), [job.start for job in plan.jobs],  # not its jobs:
                                       [job.end for job in plan.jobs], reads, writes)  # they hold their data
        else:
            plan, reads, writes = _replay(kept, items)
        self.account(counts, engine.stats)
        # Gathers and scatters cost what their indices ask of the sub-banks: a launch that holds any
        # is scheduled again once it has run (``perform``, or a debugger's last step), and a timed run
        # places it only then.
        priced = plan.refined
        if not priced:
            engine.function_stalls(self.begin, self.launch_cycles, plan.stalls, plan.conflicts)
        job = Job(self.begin, None, footprint_reads=reads, footprint_writes=writes)
        job.cost = Cost(plan.cycles, plan.cycles)
        job.priced_at_start = priced
        if engine.trace_on:
            job.placed = lambda outer: _trace_inside(engine, outer, plan.jobs, self.plans)
        if stepping:  # the steps move the data (``Stepper``); the job keeps the function's time on V
            m.stepper = Stepper(self, ctx, steps, stopped, plan, job, items if priced else None)
            m.submit(job)
            m.settle()
            return steps[0][0] if steps else stopped.pc
        m.add_function_counts(counts)
        job.perform = lambda: self.perform(m, ctx, plan, reads, writes, job, items if priced else None)
        m.submit(job)
        if stopped is not None:
            m.pc = stopped.pc  # the fault names the function's instruction, once what came before has run
            raise stopped.fault
        return self.after

    def price(self, engine, items: list, outer: Job) -> Schedule:
        """Schedule a launch whose gathers and scatters have run (their lanes known), give its V job
        ``outer`` that cost, and count its stalls."""
        plan = schedule(self, items)
        outer.cost = Cost(plan.cycles, plan.cycles)
        engine.function_stalls(self.begin, self.launch_cycles, plan.stalls, plan.conflicts)
        return plan

    # -- 4. the data -----------------------------------------------------------------------------------

    def _perform_in_order(self, jobs: list, plan: Schedule, ub: np.ndarray) -> tuple:
        """Perform the jobs in program order, each landing at once; returns the UB blocks they
        read and wrote (``Schedule.runs``, refined where a job's blocks are known only now) and, per
        masked store, the blocks it wrote lanes of (its footprint is its whole VL)."""
        masked: dict = {}  # job index -> the UB blocks a masked store wrote lanes of
        if not plan.refined:
            for k, job in enumerate(jobs):
                self._running = job
                written = job.perform()
                if len(written) == 3 and written[0].__class__ is not tuple:  # jobs.land, for one bare write
                    array, index, values = written
                    array[index] = values
                else:
                    land_noting_masks(written, ub, k, masked)
            return plan.runs, masked
        for job in jobs:
            self._running = job
            if job.refine is not None:  # a gather's or scatter's precise blocks, from its indices now
                job.reads, job.writes = job.refine()
                job.footprint_reads, job.footprint_writes = footprint(job.reads), footprint(job.writes)
            land(job.perform())
        return runs_of(jobs), masked

    def perform(self, m, ctx: FunctionContext, plan: Schedule, reads: dict, writes: dict, outer: Job,
                items: list | None):
        """Run the function's jobs on the scratch copy of UB and return the UB blocks it wrote. With
        ``items`` (its gathers and scatters cost what their lanes ask), schedule them again once they
        have run, and give the V job ``outer`` that cost."""
        scratch = ctx.ub
        lo, hi = byte_span(reads, writes)
        scratch[lo:hi] = m.ub[lo:hi]
        ctx.v.fill(0)  # every function starts with V and P zero (the file is shared by launches)
        ctx.p.fill(False)
        jobs = plan.jobs
        try:
            runs, masked = self._perform_in_order(jobs, plan, scratch)
        except Fault as fault:  # a job's own fault (a gather index outside UB): at its instruction
            raise m.fault_at(fault, self._running.pc) from None
        if items is not None:
            plan = self.price(m.engine, items, outer)
        races = inner_races(jobs, plan.membars, runs, self.plans, masked)
        if races:
            m.engine.function_races(races)
            # Nothing orders some accesses: the data is what their scheduled times give.
            scratch[lo:hi] = m.ub[lo:hi]
            perform_timed(ctx, jobs, self.plans)
        entry = writes.get("ub")
        if entry is None:
            return ()
        runs, first, end = entry
        if runs is None:
            where = slice(first * BLOCK_BYTES, end * BLOCK_BYTES)
        else:
            where = np.concatenate([np.arange(a * BLOCK_BYTES, b * BLOCK_BYTES) for a, b in runs])
        return m.ub, where, scratch[where]


class Stepper:
    """A function run one instruction a step (a debugger's run): each step performs its job, in
    program order, on the machine's UB and the function's registers, and sets S as it stood then."""

    def __init__(self, function: Function, ctx: FunctionContext, steps: list,
                 stopped: FunctionStopped | None, plan: Schedule, outer: Job, items: list | None) -> None:
        self.function, self.ctx, self.steps, self.stopped, self.plan = function, ctx, steps, stopped, plan
        self.outer, self.items = outer, items  # the V job, and what to schedule again once the steps ran
        self.k = 0
        self.masked: dict = {}  # as ``Function._perform_in_order`` finds them
        self.index = {id(job): k for k, job in enumerate(plan.jobs)}

    def loops(self) -> tuple:
        """(iteration, count) of each loop the next instruction is in, outermost first."""
        return self.steps[self.k][3] if self.k < len(self.steps) else ()

    def step(self, m) -> int:
        if self.k == len(self.steps):  # the instruction that faults
            m.stepper = None
            self._races(m)
            raise self.stopped.fault
        _, job, s_after, _ = self.steps[self.k]
        if job is not None:
            if job.refine is not None:  # a gather's or scatter's precise blocks, from its indices now
                job.reads, job.writes = job.refine()
                job.footprint_reads, job.footprint_writes = footprint(job.reads), footprint(job.writes)
            with np.errstate(all="ignore"):
                land_noting_masks(job.perform(), self.ctx.ub, self.index[id(job)], self.masked)
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
        """The races of the function, found once its steps have run (as its launch finds them); a
        function with gathers or scatters is priced now, as its ``perform`` prices it."""
        if self.items is not None and self.stopped is None:
            self.plan = self.function.price(m.engine, self.items, self.outer)
            self.outer.priced_at_start = False  # the engine may place it now
        jobs = self.plan.jobs
        found = inner_races(jobs, self.plan.membars, runs_of(jobs), self.function.plans, self.masked)
        if found:
            m.engine.function_races(found)


def _trace_inside(engine, outer: Job, jobs: list, plans: dict) -> None:
    """The function's instructions as slices inside the function's slice on V, at their own cycles."""
    parent = len(engine.slices) - 1
    if parent < 0 or engine.slices[parent][4] is not outer:
        return  # the function's own slice was not kept (past the trace limit)
    base = outer.start
    for job in jobs:
        start = base + job.start
        engine.trace_slice("V", job.pc, start, base + job.end, job, start + plans[job.pc].occupancy)
        engine.trace_parents[len(engine.slices) - 1] = parent


_KEPT_SCHEDULES = 64  # launches' schedules kept per function (by the S values they name); more: start again


def _replay(kept: tuple, items: list) -> tuple:
    """A kept schedule for this launch's ``items`` (the same S gave the same items): its jobs are
    these items' jobs, at the kept times. Returns the Schedule and the function's footprint."""
    plan, starts, ends, reads, writes = kept
    jobs = [item for item in items if item.__class__ is not tuple]
    for job, start, end in zip(jobs, starts, ends, strict=True):
        job.start = start
        job.end = end
        if job.footprint_writes is None:  # binders set both footprints or neither
            job.footprint_reads, job.footprint_writes = footprint(job.reads), footprint(job.writes)
    return plan._replace(jobs=jobs), reads, writes


def _arguments(insts) -> set:
    """The scalar registers a function's instructions name (S0 aside): what its launch pushes."""
    named = set()
    for inst in insts:
        for value, operand in zip(inst.operands, inst.row.operands, strict=True):
            named.add(value if operand.kind is Kind.SREG else getattr(value, "reg", None))
    return named - {None, 0}


def _kind(inst: Inst) -> str | None:
    """How the expansion treats an instruction inside a function (None: a register instruction)."""
    family = inst.row.family
    if family in FUNCTION_SCALAR_FAMILIES:
        return SCALAR
    return {"loop": LOOP, "endloop": ENDLOOP, "membar": MEMBAR, "vf_end": END}.get(family)
