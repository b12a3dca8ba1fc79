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

import heapq
import itertools
from typing import NamedTuple

import numpy as np

from emulator.costs import Cost
from emulator.faults import Fault
from emulator.jobs import REGISTER_SPACES, Job, as_writes, footprint, hold, land, merge_runs
from emulator.semantics import implements
from emulator.state import State
from isa import Inst
from isa.functions import FunctionSpan
from isa.table import FUNCTION_SCALAR_FAMILIES
from isa.types import BLOCK_BYTES

_new_job = object.__new__
_UNIT = {"vld": "load", "pld": "load", "vgather_ub": "load", "vst": "store", "pst": "store", "vscatter": "store"}
# What the expansion records besides jobs: a marker ``(kind, pc)``.
LOOP, ENDLOOP, MEMBAR, SCALAR, END = "loop", "endloop", "membar", "scalar", "end"
_PRUNE_EVERY = 2048  # jobs scheduled between prunes of the issue tables


@implements("vf_begin", "vf_end", "loop", "endloop", "membar")
def bind_structure(inst: Inst, pc: int):
    """The structure rows have no action of their own: the machine runs a function from its
    ``VF.BEGIN`` (``Function.launch``), and control never reaches the others from outside."""

    def run(m):
        raise Fault(f"control reached {inst.row.mnemonic} at pc 0x{pc:04x} from outside its vector function: a "
                    f"function runs only from its VF.BEGIN")

    return run


class InnerPlan(NamedTuple):
    """What scheduling an instruction inside a function needs that depends on its pc alone."""

    latency: int
    occupancy: int
    unit: str  # load, store or exec: the unit it occupies for ``occupancy`` cycles
    reads: tuple  # register spaces read
    writes: tuple  # register spaces written
    v_writes: int  # how many of them are vector registers (the write ports' limit counts those)
    ub_reads: int  # 1 when it reads UB
    ub_writes: int  # 1 when it writes UB


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


class Schedule(NamedTuple):
    """A launch's jobs with their times (``job.start`` and ``job.end``, relative to the launch) and
    the function's whole run, from its launch to its last result."""

    cycles: int
    jobs: list  # the launch's jobs, in program order
    membars: list  # per MEMBAR, how many jobs came before it
    runs: tuple  # the UB blocks the jobs read and write: ((firsts, ends, job indices), (the same))
    refined: bool  # some job's blocks are known only when it runs (a gather, a scatter)


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
        self.launch_cycles = caps["vf_launch"]
        self.loop_startup = caps["vf_loop_startup"]
        self.membar_cycles = caps["vf_membar"]
        self.window = caps["vf_window"]
        self.caps = (caps["register_writes"], caps["ub_reads"])
        self.units = {"load": caps["vf_load_units"], "store": caps["vf_store_units"], "exec": caps["issue_width"]}
        self.scalar_cycles = {b.pc: costs.s_cycles(b.inst) for b in body if self.kinds[self.pcs.index(b.pc)] == SCALAR}
        self.plans: dict[int, InnerPlan] = {}

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
    def plan(self, job: Job) -> InnerPlan:
        plan = self.plans.get(job.pc)
        if plan is None:
            inst = self.insts[job.pc]
            if job.footprint_reads is None or job.footprint_writes is None:
                job.footprint_reads, job.footprint_writes = footprint(job.reads), footprint(job.writes)
            cost = self.costs.register_cost(inst)
            reads = tuple(s for s in job.footprint_reads if s in REGISTER_SPACES)
            writes = tuple(s for s in job.footprint_writes if s in REGISTER_SPACES)
            memory_reads = len(reads) < len(job.footprint_reads) or inst.row.family == "vgather_ub"
            memory_writes = len(writes) < len(job.footprint_writes) or inst.row.family == "vscatter"
            plan = InnerPlan(cost.latency, cost.occupancy, _UNIT.get(inst.row.family, "exec"), reads, writes,
                             sum(space[0] == "V" for space in writes), int(memory_reads), int(memory_writes))
            self.plans[job.pc] = plan
        return plan

    def schedule(self, items: list) -> Schedule:
        """Fix each job's start and end (cycles from the launch): the issue rules of the profile's
        ``register`` section, per cycle. The hottest loop of a register kernel: written out flat."""
        writes_cap, ub_cap = self.caps
        window = self.window
        usage: dict = {}  # cycle -> [vector register writes, UB reads, UB writes]
        busy: dict = {"load": {}, "store": {}, "exec": {}}  # unit -> cycle -> instructions it holds then
        full: dict = {"load": {}, "store": {}, "exec": {}}  # unit -> a full cycle -> a later one to try
        capacity = self.units
        unit_state = {name: (busy[name], capacity[name], full[name]) for name in busy}
        ready_at: dict = {}  # register space -> the cycle its latest result is ready
        starts: list = []
        front = self.launch_cycles  # the earliest issue cycle the front end allows
        membar_floor = ub_end = 0
        last = front
        jobs: list = []
        membars: list = []  # per MEMBAR, how many jobs came before it
        runs = read_runs, write_runs = ([], [], []), ([], [], [])  # UB blocks read, written: (firsts, ends, jobs)
        refined = False
        plan_of = self.plans
        for item in items:
            if item.__class__ is tuple:
                kind, pc = item
                floor = starts[-window] if len(starts) >= window else 0
                if floor > front:
                    front = floor
                if kind == LOOP:  # the front end reaches the loop and starts it
                    front += self.loop_startup
                elif kind == MEMBAR:
                    if ub_end > membar_floor:
                        membar_floor = ub_end
                    membar_floor += self.membar_cycles
                    membars.append(len(jobs))
                else:  # the scalar lane
                    front += self.scalar_cycles[pc]
                continue
            plan = plan_of.get(item.pc)
            if plan is None or item.footprint_writes is None:
                if item.footprint_writes is None:  # binders set both footprints or neither
                    item.footprint_reads, item.footprint_writes = footprint(item.reads), footprint(item.writes)
                plan = self.plan(item)
            latency, occupancy, unit, reads, writes, v_writes, ub_reads, ub_writes = plan
            k = len(starts)
            ready = front
            if k >= window and starts[k - window] > ready:
                ready = starts[k - window]
            for space in reads:  # its sources' results
                when = ready_at.get(space, 0)
                if when > ready:
                    ready = when
            if ub_reads or ub_writes:
                if membar_floor > ready:
                    ready = membar_floor
                if item.refine is not None:
                    refined = True
                for side, fp in ((read_runs, item.footprint_reads), (write_runs, item.footprint_writes)):
                    entry = fp.get("ub")
                    if entry is not None:
                        blocks, lo, hi = entry
                        if blocks is None:  # one run (_add_runs, written out)
                            side[0].append(lo)
                            side[1].append(hi)
                            side[2].append(k)
                        else:
                            _add_runs(side, entry, k)
            # the first cycle from ``ready`` when its unit, the register write ports and UB's allow
            units, cap, skip = unit_state[unit]
            cycle = ready
            while True:
                if cycle in skip:  # the unit is full then: the first cycle after that it is not
                    first = cycle
                    while cycle in skip:
                        cycle = skip[cycle]
                    while first != cycle:  # each full cycle passed points there from now on
                        after = skip[first]
                        skip[first] = cycle
                        first = after
                if occupancy > 1 and not all(units.get(cycle + j, 0) < cap for j in range(1, occupancy)):
                    cycle += 1
                    continue
                used = usage.get(cycle)
                if used is None or (used[0] + v_writes <= writes_cap and used[2] + ub_writes <= 1
                                    and used[1] + used[2] + ub_reads + ub_writes <= ub_cap):
                    break
                cycle += 1
            if used is None:
                usage[cycle] = [v_writes, ub_reads, ub_writes]
            else:
                used[0] += v_writes
                used[1] += ub_reads
                used[2] += ub_writes
            if occupancy == 1:
                held = units[cycle] = units.get(cycle, 0) + 1
                if held == cap:
                    skip[cycle] = cycle + 1
            else:
                for j in range(occupancy):
                    held = units[cycle + j] = units.get(cycle + j, 0) + 1
                    if held == cap:
                        skip[cycle + j] = cycle + j + 1
            end = cycle + latency
            item.start = cycle
            item.end = end
            for space in writes:
                ready_at[space] = end
            if end > last:
                last = end
            if (ub_reads or ub_writes) and end > ub_end:
                ub_end = end
            starts.append(cycle)
            jobs.append(item)
            if not k % _PRUNE_EVERY and k:
                floor = min(starts[-window:])
                usage = {c: u for c, u in usage.items() if c >= floor}
                busy = {name: {c: n for c, n in cycles.items() if c >= floor} for name, cycles in busy.items()}
                full = {name: {c: n for c, n in cycles.items() if c >= floor} for name, cycles in full.items()}
                unit_state = {name: (busy[name], capacity[name], full[name]) for name in busy}
        return Schedule(max(last, front), jobs, membars, runs, refined)

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
        steps: list | None = [] if stepping else None
        stopped = None
        try:
            counts = self.expand(ctx, m.instruction_budget(), steps)
        except FunctionStopped as stop:
            counts, stopped = stop.counts, stop
        engine = m.engine
        plan = self.schedule(items)
        self.account(counts, engine.stats)
        reads, writes = (_as_footprint(firsts, ends) for firsts, ends, _ in plan.runs)
        job = Job(self.begin, None, footprint_reads=reads, footprint_writes=writes)
        job.cost = Cost(plan.cycles, plan.cycles)
        if engine.trace_on:
            job.placed = lambda outer: _trace_inside(engine, outer, plan.jobs, self.plans)
        if stepping:  # the steps move the data (``Stepper``); the job keeps the function's time on V
            m.stepper = Stepper(self, ctx, steps, stopped, plan)
            m.submit(job)
            m.settle()
            return steps[0][0] if steps else stopped.pc
        m.add_function_counts(counts)
        job.perform = lambda: self.perform(m, ctx, plan, reads, writes)
        m.submit(job)
        if stopped is not None:
            m.pc = stopped.pc  # the fault names the function's instruction, once what came before has run
            raise stopped.fault
        return self.after

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
                    _land_noting_masks(written, ub, k, masked)
            return plan.runs, masked
        for job in jobs:
            self._running = job
            if job.refine is not None:  # a gather's or scatter's precise blocks, from its indices now
                job.reads, job.writes = job.refine()
                job.footprint_reads, job.footprint_writes = footprint(job.reads), footprint(job.writes)
            land(job.perform())
        return _runs(jobs), masked

    def perform(self, m, ctx: FunctionContext, plan: Schedule, reads: dict, writes: dict):
        """Run the function's jobs on the scratch copy of UB and return the UB blocks it wrote."""
        scratch = ctx.ub
        lo, hi = _byte_span(reads, writes)
        scratch[lo:hi] = m.ub[lo:hi]
        ctx.v.fill(0)  # every function starts with V and P zero (the file is shared by launches)
        ctx.p.fill(False)
        jobs = plan.jobs
        try:
            runs, masked = self._perform_in_order(jobs, plan, scratch)
        except Fault as fault:  # a job's own fault (a gather index outside UB): at its instruction
            raise m.fault_at(fault, self._running.pc) from None
        races = inner_races(jobs, plan.membars, runs, self.plans, masked)
        if races:
            m.engine.function_races(races)
            # Nothing orders some accesses: the data is what their scheduled times give.
            scratch[lo:hi] = m.ub[lo:hi]
            _perform_timed(ctx, jobs, self.plans)
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
                 stopped: FunctionStopped | None, plan: Schedule) -> None:
        self.function, self.ctx, self.steps, self.stopped, self.plan = function, ctx, steps, stopped, plan
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
                _land_noting_masks(job.perform(), self.ctx.ub, self.index[id(job)], self.masked)
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
        """The races of the function, found once its steps have run (as its launch finds them)."""
        jobs = self.plan.jobs
        found = inner_races(jobs, self.plan.membars, _runs(jobs), self.function.plans, self.masked)
        if found:
            m.engine.function_races(found)


def _land_noting_masks(written, ub: np.ndarray, k: int, masked: dict) -> None:
    """Land job ``k``'s writes; for a masked store to UB (one write with a ``where``), note in
    ``masked`` the blocks it wrote lanes of: only those count as touched in ``inner_races``."""
    if written and written[0].__class__ is not tuple and len(written) == 4:
        array, index, values, where = written
        np.copyto(array[index], values, where=where)
        if array is ub and index.__class__ is slice:
            masked[k] = index.start // BLOCK_BYTES + np.flatnonzero(where.reshape(-1, BLOCK_BYTES).any(axis=1))
        return
    land(written)


def _perform_timed(ctx: FunctionContext, jobs: list, plans: dict) -> None:
    """Run a launch's jobs in the order of their starts: each reads the registers program order
    gives it (the versions of its sources' producers: registers are renamed) and UB as it is at its
    start; its UB writes land at its end, its register results at once (in their own version)."""
    rows = {**{f"V{i}": (ctx.v, i) for i in range(32)}, **{f"P{i}": (ctx.p, i) for i in range(8)}}
    version: dict = {}  # (job index, register space) -> the register's bytes after that job
    latest: dict = {}  # register space -> the job index of its latest writer so far in program order
    sees = []  # per job: for each register it reads, the writer whose version it reads
    for k, job in enumerate(jobs):
        plan = plans[job.pc]  # (a register write is always of the whole register: no other source)
        sees.append([(space, latest.get(space)) for space in plan.reads])
        for space in plan.writes:
            latest[space] = k
    pending: list = []  # (end, program index, held UB writes)
    for k in sorted(range(len(jobs)), key=lambda k: (jobs[k].start, k)):
        job = jobs[k]
        while pending and pending[0][0] <= job.start:  # at one cycle, writes land before reads happen
            land(heapq.heappop(pending)[2])
        for space, writer in sees[k]:
            array, row = rows[space]
            array[row] = version[writer, space] if writer is not None else 0
        to_ub = []
        for write in as_writes(job.perform()):
            if write[0] is ctx.ub:
                to_ub.append(write)
            else:
                land((write,))
        for space in plans[job.pc].writes:
            array, row = rows[space]
            version[k, space] = array[row].copy()
        if to_ub:
            heapq.heappush(pending, (job.end, k, hold(to_ub)))
    while pending:
        land(heapq.heappop(pending)[2])


def _add_runs(into: tuple, entry, k: int) -> None:
    """Add the UB blocks of one footprint entry (job ``k``'s) to ``(firsts, ends, job indices)``."""
    if entry is None:  # a scatter refined to no lanes
        return
    firsts, ends, owners = into
    blocks, lo, hi = entry
    if blocks is None:
        firsts.append(lo)
        ends.append(hi)
        owners.append(k)
    else:
        firsts.extend(blocks[:, 0].tolist())
        ends.extend(blocks[:, 1].tolist())
        owners.extend([k] * len(blocks))


def _runs(jobs: list) -> tuple:
    """The UB blocks each job reads and writes, as ``Schedule.runs`` holds them."""
    runs: tuple = ([], [], []), ([], [], [])
    for k, job in enumerate(jobs):
        _add_runs(runs[0], job.footprint_reads.get("ub"), k)
        _add_runs(runs[1], job.footprint_writes.get("ub"), k)
    return runs


def _as_footprint(firsts: list, ends: list) -> dict:
    """The footprint of runs of UB blocks, merged: a few runs in Python, many in numpy."""
    if not firsts:
        return {}
    if len(firsts) > 256:
        runs = merge_runs(np.stack((np.array(firsts, dtype=np.int64), np.array(ends, dtype=np.int64)), axis=1))
        first, end = int(runs[0, 0]), int(runs[-1, 1])
        return {"ub": (None, first, end) if len(runs) == 1 else (runs, first, end)}
    pairs = zip(firsts, ends, strict=True)
    if any(b < a for a, b in itertools.pairwise(firsts)):  # not in address order (two streams, say)
        pairs = sorted(pairs)
    merged: list = []
    for lo, hi in pairs:
        if merged and lo <= merged[-1][1]:
            if hi > merged[-1][1]:
                merged[-1][1] = hi
        else:
            merged.append([lo, hi])
    if len(merged) == 1:
        return {"ub": (None, merged[0][0], merged[0][1])}
    return {"ub": (np.array(merged, dtype=np.int64), merged[0][0], merged[-1][1])}


def _byte_span(*footprints: dict) -> tuple[int, int]:
    entries = [fp["ub"] for fp in footprints if "ub" in fp]
    if not entries:
        return 0, 0
    return min(e[1] for e in entries) * BLOCK_BYTES, max(e[2] for e in entries) * BLOCK_BYTES


def inner_races(jobs: list, membars: list, runs: tuple, plans: dict, masked: dict | None = None) -> list:
    """The pairs of a function's UB accesses to the same blocks, one a write, that neither a MEMBAR
    between them nor a chain of register dependencies orders: ``(kind, earlier job, later job, first
    byte, end byte)``, once per pair of jobs. One sort over every accessed block. ``masked``: per
    masked store, the blocks it wrote lanes of, which replace its whole VL."""
    (read_lo, read_hi, readers), (write_lo, write_hi, writers) = runs
    if not writers or len(readers) + len(writers) < 2:
        return []
    lo = np.array(read_lo + write_lo, dtype=np.int64)
    hi = np.array(read_hi + write_hi, dtype=np.int64)
    order = np.argsort(lo, kind="stable")
    if not (np.maximum.accumulate(hi[order])[:-1] > lo[order][1:]).any():
        return []  # no two accesses meet at all (a stream: the common case), so none can race
    if masked:  # a masked store touches only the blocks of its active lanes
        keep = [i for i, k in enumerate(writers) if k not in masked]
        write_lo = [write_lo[i] for i in keep]
        write_hi = [write_hi[i] for i in keep]
        writers = [writers[i] for i in keep]
        for k, blocks in masked.items():
            write_lo.extend(blocks.tolist())
            write_hi.extend((blocks + 1).tolist())
            writers.extend([k] * len(blocks))
        if not writers:
            return []
        lo = np.array(read_lo + write_lo, dtype=np.int64)
        hi = np.array(read_hi + write_hi, dtype=np.int64)
    owners = np.array(readers + writers, dtype=np.int64)
    writing = np.zeros(lo.size, dtype=np.int64)
    writing[len(readers):] = 1
    length = hi - lo
    access = np.repeat(np.arange(lo.size), length)  # one row per accessed block
    block = np.arange(access.size) - np.repeat(np.cumsum(length) - length, length) + lo[access]
    owner = owners[access]
    write = writing[access]
    epoch = np.searchsorted(np.array(membars, dtype=np.int64), owner, side="right") if membars else 0
    key = epoch * (int(hi.max()) + 1) + block
    order = np.lexsort((owner, key))
    key, owner, write, block = key[order], owner[order], write[order], block[order]
    starts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    sizes = np.diff(np.append(starts, key.size))
    writes_in = np.add.reduceat(write, starts)
    # how many accesses of a block are by a job other than the one before them in the block
    distinct = np.add.reduceat(np.concatenate(([1], (owner[1:] != owner[:-1]) | (key[1:] != key[:-1])))
                               .astype(np.int64), starts)
    suspects = np.flatnonzero((sizes >= 2) & (writes_in > 0) & (distinct >= 2))
    if not suspects.size:
        return []
    found: dict = {}
    for g in suspects.tolist():
        a, b = int(starts[g]), int(starts[g] + sizes[g])
        group = list(zip(owner[a:b].tolist(), write[a:b].tolist(), strict=True))
        at = int(block[a])
        for x in range(len(group)):
            first, first_writes = group[x]
            for y in range(x + 1, len(group)):
                second, second_writes = group[y]
                if first == second or not (first_writes or second_writes):
                    continue
                kind = "WAW" if first_writes and second_writes else "RAW" if first_writes else "WAR"
                pair = (kind, first, second)
                span = found.get(pair)
                found[pair] = (at, at + 1) if span is None else (min(span[0], at), max(span[1], at + 1))
    producers = _producers(jobs, plans)
    races = []
    for (kind, first, second), (lo_block, hi_block) in found.items():
        if not _depends(second, first, producers):
            races.append((kind, jobs[first], jobs[second], lo_block * BLOCK_BYTES, hi_block * BLOCK_BYTES))
    return races


def _producers(jobs: list, plans: dict) -> list:
    """Per job, the jobs whose register results it reads (its sources' latest writers)."""
    writer_of: dict = {}
    producers = []
    for k, job in enumerate(jobs):
        plan = plans[job.pc]
        producers.append([writer_of[space] for space in plan.reads if space in writer_of])
        for space in plan.writes:
            writer_of[space] = k
    return producers


def _depends(later: int, earlier: int, producers: list) -> bool:
    """Whether job ``later`` reads, through a chain of register results, a result of job ``earlier``."""
    todo, seen = [later], set()
    while todo:
        k = todo.pop()
        for p in producers[k]:
            if p == earlier:
                return True
            if p > earlier and p not in seen:
                seen.add(p)
                todo.append(p)
    return False


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


def _kind(inst: Inst) -> str | None:
    """How the expansion treats an instruction inside a function (None: a register instruction)."""
    family = inst.row.family
    if family in FUNCTION_SCALAR_FAMILIES:
        return SCALAR
    return {"loop": LOOP, "endloop": ENDLOOP, "membar": MEMBAR, "vf_end": END}.get(family)
