"""A vector function's schedule: when each of its instructions issues and completes, relative to
the launch, under the issue rules of the profile's ``register`` section (docs/timing.md, "Vector
functions"): out of order from a queue of ``vf_window`` instructions waiting to issue, after the
register results it reads (registers renamed), within its unit's, the transcendental units', the
register write ports' and UB's banks' room each cycle (``emulator.timing.ub_ports``), and after a MEMBAR.
Where the room keeps an instruction waiting, the cycles are its stalls, by cause.
"""

from __future__ import annotations

from heapq import heappush, heapreplace
from typing import NamedTuple

from vcore.emulator.functions.block_runs import BlockRuns
from vcore.emulator.functions.fast_loops import FastLoop
from vcore.emulator.functions.steady import forget_before, schedule_loop
from vcore.emulator.jobs import REGISTER_SPACES, Job, footprint
from vcore.emulator.order.races import overlap
from vcore.emulator.timing.ub_ports import beats, fits, ports_of, rows_key, sub_bank_cycles, take, whole_ub
from vcore.isa.classes import CLASSES, STRIDED

_BUSY = {"load": "load_unit", "store": "store_unit", "exec": "issue_width"}  # the stall of a full unit
# What a function's expansion records besides jobs: a marker ``(kind, pc)``.
LOOP, ENDLOOP, MEMBAR, SCALAR, END = "loop", "endloop", "membar", "scalar", "end"
_PRUNE_EVERY = 2048  # jobs scheduled between prunes of the issue tables
_FOLD_RUNS = 4096  # block runs noted before they are merged (a long function's footprint stays bounded)


class InnerPlan(NamedTuple):
    """What scheduling an instruction inside a function needs that depends on its pc alone."""

    latency: int
    occupancy: int  # cycles it holds its unit at least (a block-strided access: more when its banks need more)
    unit: str  # load, store or exec: the unit it occupies for ``occupancy`` cycles
    special: int  # cycles it holds a transcendental unit (exp, ln, sqrt, div), from its issue; 0: none
    reads: tuple  # register spaces read
    writes: tuple  # register spaces written
    v_writes: int  # how many of them are vector registers (the write ports' limit counts those)
    ub: int  # 0: no UB access; 1: it reads UB; 2: it writes UB
    whole_ub: bool  # a gather or scatter: every group's ports, for its occupancy
    alone: bool  # single-issue: no other instruction of its unit issues in its cycle
    reader: int  # how it takes its register sources from the bypass (isa.classes.READERS): the table it reads
    # per reader (isa.classes.READERS): the cycles before its results land that a dependent one may issue (the bypass)
    to_other: int
    to_alu: int
    to_store: int
    blocks: bool = False  # a datablock-mode access (blk=): its beats by ``ub_ports.beats``'s rule for those


class Schedule(NamedTuple):
    """What a launch's schedule gives: the function's whole run, from its launch to its last result,
    what its instructions waited for, and the UB blocks it touches. Each job's own times are on the
    job (``job.start`` and ``job.end``, relative to the launch)."""

    cycles: int
    items: list | None  # the launch's items (jobs and markers) in program order; None: not kept (a long one)
    refined: bool  # some job's blocks are known only when it runs (a gather, a scatter)
    stalls: dict  # pc -> {cause: cycles} its instructions waited for room (issue_width, ub_port, ...)
    conflicts: dict  # pc -> cycles its accesses' own rows took beyond the unit's (a bank asked twice)
    reads: dict  # the footprint of the UB blocks its jobs read ({} or {"ub": (runs, first, end)})
    writes: dict  # and of those they write
    apart: bool  # no UB block is written by one of its accesses and touched by another: nothing can race
    fast: int = 0  # the instructions it ran in loops in closed form (emulator.functions.fast_loops)


def limits(costs) -> tuple:
    """The profile's limits a ``Scheduler`` reads from the ``fn`` it schedules (a function, or a tensor
    instruction's function): its loop start-up and MEMBAR cycles, the queue's depth, the register write
    ports, UB's ports, the transcendental units and each unit's instructions a cycle."""
    caps = costs.register
    return (caps["vf_loop_startup"], caps["vf_membar"], caps["vf_window"], caps["register_writes"],
            ports_of(costs.banks.kind, caps["ub_reads"]), caps["transcendental_units"],
            {"load": caps["vf_load_units"], "store": caps["vf_store_units"], "exec": caps["issue_width"]})


def ub_unit(row) -> str | None:
    """The unit through which a row accesses UB inside a function, its class's: ``load`` (it reads UB),
    ``store`` (it writes UB), or None (it does not access UB)."""
    unit = CLASSES[row.timing].unit
    return unit if unit in ("load", "store") else None


def plan_of(fn, job: Job) -> InnerPlan:
    """What scheduling ``job`` needs that depends on its pc alone, worked out once per pc, from its class's
    units (``isa.classes``): the unit it issues on, any transcendental unit it holds, all of UB's ports."""
    plan = fn.plans.get(job.pc)
    if plan is None:
        inst = fn.insts[job.pc]
        if job.footprint_reads is None or job.footprint_writes is None:
            job.footprint_reads, job.footprint_writes = footprint(job.reads), footprint(job.writes)
        cost = fn.costs.register_cost(inst)
        cls = CLASSES[inst.row.timing]
        unit = cls.unit
        reads = tuple(s for s in job.footprint_reads if s in REGISTER_SPACES)
        writes = tuple(s for s in job.footprint_writes if s in REGISTER_SPACES)
        # a gather's or scatter's blocks are known only when it runs: it accesses UB whatever its footprint
        memory_reads = len(reads) < len(job.footprint_reads) or (cls.whole_ub and unit == "load")
        memory_writes = len(writes) < len(job.footprint_writes) or (cls.whole_ub and unit == "store")
        occupancy, special = cost.occupancy, 0
        if "transcendental" in cls.units[1:] and fn.special_units:  # its own unit, an issue slot
            occupancy, special = 1, cost.occupancy
        blocks = cls.occupancy == STRIDED and inst.row.keyword("blk") is not None and inst.kw("blk") is not None
        plan = InnerPlan(cost.latency, occupancy, unit, special, reads, writes,
                         sum(space[0] == "V" for space in writes), 2 if memory_writes else int(memory_reads),
                         cls.whole_ub, fn.costs.single_issue(inst), cls.reader, *_early(fn, cls, cost.latency),
                         blocks)
        fn.plans[job.pc] = plan
    return plan


def _early(fn, cls, latency: int) -> tuple:
    return bypass(fn.costs.register, cls, latency)


def bypass(reg: dict, cls, latency: int) -> tuple:
    """For each reader (``isa.classes.READERS``), the cycles before a result of ``cls`` lands that a dependent
    instruction of that kind may issue: its register sources reach it through the bypass
    (``register.forward``, ``forward_alu`` after an ALU result, ``forward_store``), never before the
    cycle after its producer issues."""
    forward, alu, store = reg["forward"], reg["forward_alu"], reg["forward_store"]
    return tuple(max(0, min(cycles, latency - 1)) for cycles in (forward, alu if cls.alu_result else forward, store))


def _access_beats(fn, plan: InnerPlan, entry, key: int | None = None) -> tuple:
    """The beats of a UB access (``emulator.timing.ub_ports``), its footprint ``entry``, kept (with a
    ``key``) in ``fn.beats`` by its pc and where it falls in the banks' period (``Scheduler.feed``'s key)."""
    ports = fn.ports
    found = beats(ports, rows_key(ports, entry), plan.ub == 2, plan.blocks) if entry is not None else ()
    if key is not None:
        fn.beats[key] = found
    return found


class Scheduler:
    """A launch's schedule, fed its items a chunk at a time (``feed``) in program order: it fixes each
    job's start and end (cycles from the launch) under the issue rules of the profile's ``register``
    section, cycle by cycle, and keeps only what a later job can still meet (the issue queue, the
    units' and ports' cycles from the front end's on, each register's ready cycle), so a function of
    any length is scheduled in bounded memory. ``result()`` gives the ``Schedule``."""

    def __init__(self, fn) -> None:
        self.fn = fn
        self.waiting: list = []  # the issue cycles of the latest ``window`` instructions to issue (a min-heap)
        # cycle -> [vector register writes, then UB's use (emulator.timing.ub_ports): its reads' banks, accesses
        # and reads, its writes' banks, accesses and groups]
        self.usage: dict = {}
        self.special_busy: dict = {}  # cycle -> transcendental units busy
        self.busy: dict = {"load": {}, "store": {}, "exec": {}}  # unit -> cycle -> instructions it holds then
        self.full: dict = {"load": {}, "store": {}, "exec": {}}  # unit -> a full cycle -> a later one to try
        # per reader (isa.classes.READERS): register space -> the cycle a dependent instruction of that kind
        # may issue after its latest result (through the bypass)
        self.ready_at: tuple = ({}, {}, {})
        self.stalls: dict = {}  # (pc, cause) -> cycles
        self.conflicts: dict = {}  # pc -> cycles
        self.front = fn.launch_cycles  # the earliest issue cycle the front end allows: no later job starts before
        self.membar_floor = 0
        self.ub_end = 0
        self.last = self.front
        self.count = 0  # jobs fed so far, one by one (the prunes' cadence)
        self.refined = False
        self.runs = (BlockRuns(), BlockRuns())  # the UB blocks read, written

    def feed(self, items: list) -> None:
        """Schedule the next items (jobs, markers, loops; in program order): each job gets its times. The hottest
        loop of a register kernel: flat, on locals, for the usual job (a run of UB blocks, a cycle of its unit)."""
        fn = self.fn
        ports, writes_cap, window, special_cap, plans, beat_cache = (fn.ports, fn.register_writes, fn.window,
                                                                     fn.special_units, fn.plans, fn.beats)
        period, high, access_bias, read_bias = ports.period_rows, ports.high, ports.access_bias, ports.read_bias
        waiting, usage, special_busy, readies = self.waiting, self.usage, self.special_busy, self.ready_at
        ready_other, ready_alu, ready_store = readies
        stalls, conflicts, (read_runs, write_runs), unit_state = self.stalls, self.conflicts, self.runs, self._units()
        front, membar_floor, ub_end, last, k = self.front, self.membar_floor, self.ub_end, self.last, self.count
        for item in items:
            if item.__class__ is not Job:  # a marker (the front end or UB's floor moves), or a loop in closed form
                front, membar_floor, ub_end, last, k = self._other_item(item, front, membar_floor, ub_end, last, k)
                continue
            plan = plans.get(item.pc)
            if plan is None or item.footprint_writes is None:
                plan = _planned(fn, item)
            latency, occupancy, unit, special, reads, writes, v_writes, ub, _, alone, reader, to_o, to_a, to_s, _ = plan
            ready = membar_floor if ub else 0  # after a MEMBAR before it, and its sources' results
            ready_at = readies[reader]
            for space in reads:
                when = ready_at.get(space, 0)
                if when > ready:
                    ready = when
            window_wait = 0
            if len(waiting) == window and waiting[0] > front:  # it enters the queue when one leaves it
                if waiting[0] > ready:  # the cycles it would not have waited for its sources anyway
                    window_wait = waiting[0] - max(ready, front)
                front = waiting[0]
            if front > ready:
                ready = front
            ub_beats, writing = (), ub == 2
            if ub:
                entry = (item.footprint_writes if writing else item.footprint_reads).get("ub")
                if entry is None or entry[0] is not None or plan.whole_ub or item.refine is not None:
                    ub_beats, occupancy = self._other_access(item, plan, entry, occupancy)
                else:  # one run of blocks (BlockRuns.add, written out), its beats cached by where it falls
                    _, lo, hi = entry
                    side = write_runs if writing else read_runs
                    side.firsts.append(lo)
                    side.ends.append(hi)
                    key = item.pc << 32 | (lo % period) << 16 | (hi - lo)
                    ub_beats = beat_cache.get(key) or _access_beats(fn, plan, entry, key)
                if len(ub_beats) > occupancy:  # its rows ask some bank (or group) more than once
                    conflicts[item.pc] = conflicts.get(item.pc, 0) + len(ub_beats) - occupancy
                    occupancy = len(ub_beats)
            # the first cycle from ``ready`` with room in its unit, the transcendental units, the
            # register write ports and UB's banks; each cycle passed is a stall of its cause
            (units, cap, skip), cycle = unit_state[unit], ready
            waited_for = since = None  # the stall going on: its cause and first cycle (added up when it ends)
            while True:
                after = cycle + 1
                if cycle in skip:  # the unit is full then: the first cycle after that it is not
                    cause, after = _BUSY[unit], _past_full(skip, cycle)
                elif (occupancy > 1 and not all(units.get(cycle + j, 0) < cap for j in range(1, occupancy))) or (
                        alone and units.get(cycle, 0)):
                    cause = _BUSY[unit]
                elif special and not all(special_busy.get(cycle + j, 0) < special_cap for j in range(special)):
                    cause = "transcendental_unit"
                else:
                    cause, used = None, usage.get(cycle)
                    if used is not None:
                        if v_writes and used[0] + v_writes > writes_cap:
                            cause = "write_ports"
                        elif ub_beats:
                            if writing:
                                cause = fits(ports, used, ub_beats[0], True)
                            elif (used[1] | used[4]) & ub_beats[0].banks:  # a read (ub_ports.fits, written out)
                                cause = "bank_group"
                            elif (used[2] + used[5] + ub_beats[0].accesses + access_bias) & high or \
                                    (used[3] + ub_beats[0].reads + read_bias) & high:
                                cause = "ub_port"
                    if cause is None and len(ub_beats) > 1:
                        cause = _later_beats(ports, usage, cycle, ub_beats, writing)
                if cause != waited_for:
                    if waited_for is not None:
                        key = (item.pc, waited_for)
                        stalls[key] = stalls.get(key, 0) + cycle - since
                    waited_for, since = cause, cycle
                if cause is None:
                    break
                cycle = after
            if v_writes or ub_beats:
                if used is None:  # (``used``: the cycle's use, as the search left it)
                    used = usage[cycle] = [0, 0, 0, 0, 0, 0, 0]
                used[0] += v_writes
                if len(ub_beats) == 1 and not writing:  # a read of one beat (ub_ports.take, written out)
                    beat = ub_beats[0]
                    used[1] |= beat.banks
                    used[2] += beat.accesses
                    used[3] += beat.reads
                elif ub_beats:
                    take(usage, used, cycle, ub_beats, writing)
            if special:  # a transcendental unit, from its issue on
                _hold_special(special_busy, cycle, special)
            if occupancy == 1 and not alone:
                held = units[cycle] = units.get(cycle, 0) + 1
                if held == cap:
                    skip[cycle] = cycle + 1
            else:
                _hold(units, skip, cap, cycle, occupancy, alone)
            if window_wait:
                stalls[item.pc, "window_full"] = stalls.get((item.pc, "window_full"), 0) + window_wait
            end = cycle + latency + occupancy - plan.occupancy  # an access's extra beats deliver it later
            item.start, item.end = cycle, end
            for space in writes:  # its results, as each kind of dependent instruction may take them (the bypass)
                ready_other[space], ready_alu[space], ready_store[space] = end - to_o, end - to_a, end - to_s
            if end > last:
                last = end
            if ub and end > ub_end:
                ub_end = end
            if len(waiting) < window:
                heappush(waiting, cycle)
            elif cycle > waiting[0]:
                heapreplace(waiting, cycle)
            k += 1
            if not k % _PRUNE_EVERY:  # nothing issues before the front end's cycle any more
                self._prune(front)
        self.front, self.membar_floor, self.ub_end, self.last, self.count = front, membar_floor, ub_end, last, k

    def _other_item(self, item, *where: int) -> tuple:
        """A marker ``(kind, pc)`` or a ``FastLoop`` (``emulator.functions.steady``), from ``feed``'s ``where``
        (its front end's cycle, UB's floor, its last UB access's and last result's, its jobs so far);
        returns them after it. The tables ``feed`` holds are changed in place."""
        if item.__class__ is tuple:
            front, membar_floor, ub_end, last, k = where
            return (*_marker(self.fn, self.waiting, item, front, membar_floor, ub_end), ub_end, last, k)
        assert item.__class__ is FastLoop, item
        self.front, self.membar_floor, self.ub_end, self.last, self.count = where
        schedule_loop(self, item)
        return self.front, self.membar_floor, self.ub_end, self.last, self.count

    def _units(self) -> dict:
        """unit -> (cycle -> instructions it holds then, its capacity, a full cycle -> a later one to try)."""
        return {name: (self.busy[name], self.fn.units[name], self.full[name]) for name in self.busy}

    def _other_access(self, item: Job, plan: InnerPlan, entry, occupancy: int) -> tuple:
        """The beats and occupancy of a UB access ``feed`` does not write out (several runs of blocks,
        none, a gather or a scatter, a footprint refined at its start), its blocks noted."""
        if item.refine is not None:
            self.refined = True
        writing = plan.ub == 2
        self.runs[writing].add(entry)
        if not plan.whole_ub:
            return _access_beats(self.fn, plan, entry), occupancy
        # a gather or scatter: every port, for its lanes' cycles in the sub-banks
        ports = self.fn.ports
        if item.lanes is not None:
            sub_bank = sub_bank_cycles(ports, item.lanes, self.fn.costs.gather_rate(self.fn.insts[item.pc]))
            if sub_bank > occupancy:
                key = (item.pc, "sub_bank")
                self.stalls[key] = self.stalls.get(key, 0) + sub_bank - occupancy
                occupancy = sub_bank
        return (whole_ub(ports, writing),) * occupancy, occupancy

    def _prune(self, floor: int) -> None:
        """Forget the cycles before ``floor`` (no job issues before the front end's cycle any more), in
        place (a loop in closed form is fed inside an outer ``feed``, which holds the same tables), and
        merge the block runs noted."""
        forget_before(self, floor)
        for side in self.runs:
            if len(side.firsts) > _FOLD_RUNS:
                side.fold()

    def result(self, items: list | None = None) -> Schedule:
        """The schedule so far (``items``: the launch's items, kept with it when given)."""
        by_pc: dict = {}
        for (pc, cause), cycles in self.stalls.items():
            by_pc.setdefault(pc, {})[cause] = cycles
        reads, writes = self.runs[0].footprint(), self.runs[1].footprint()
        apart = not self.runs[1].overlap and overlap(reads, writes) is None
        return Schedule(max(self.last, self.front), items, self.refined, by_pc, dict(self.conflicts), reads, writes,
                        apart)


def schedule(fn, items: list) -> Schedule:
    """The schedule of a launch whose items are all at hand (kept with it)."""
    scheduler = Scheduler(fn)
    scheduler.feed(items)
    return scheduler.result(items)


def _marker(fn, waiting: list, item: tuple, front: int, membar_floor: int, ub_end: int) -> tuple[int, int]:
    """The front end's cycle and UB's floor after a marker ``(kind, pc)`` (``waiting``: the issue queue)."""
    kind, pc = item
    if len(waiting) == fn.window and waiting[0] > front:  # the queue is full: the front end waits
        front = waiting[0]
    if kind == LOOP:  # the front end reaches the loop and starts it
        front += fn.loop_startup
    elif kind == MEMBAR:  # UB accesses after it issue after those before it end
        membar_floor = max(membar_floor, ub_end) + fn.membar_cycles
    else:  # the scalar lane
        front += fn.scalar_cycles[pc]
    return front, membar_floor


def _planned(fn, item: Job) -> InnerPlan:
    """``plan_of`` a job, its footprints worked out first when its binder left them (it sets both or neither)."""
    if item.footprint_writes is None:
        item.footprint_reads, item.footprint_writes = footprint(item.reads), footprint(item.writes)
    return plan_of(fn, item)


def _past_full(skip: dict, cycle: int) -> int:
    """The first cycle from ``cycle`` when a unit is not full (``skip``: a full cycle -> a later one to
    try), each full cycle passed pointing there from now on."""
    first = cycle
    while cycle in skip:
        cycle = skip[cycle]
    while first != cycle:
        after = skip[first]
        skip[first] = cycle
        first = after
    return cycle


def _later_beats(ports, usage: dict, cycle: int, beats: tuple, writing: bool) -> str | None:
    """Why the beats after an access's first do not fit the cycles after ``cycle`` (None: they fit)."""
    for j in range(1, len(beats)):
        used = usage.get(cycle + j)
        if used is not None:
            cause = fits(ports, used, beats[j], writing)
            if cause is not None:
                return cause
    return None


def _hold_special(busy: dict, cycle: int, cycles: int) -> None:
    """A job holds a transcendental unit (``busy``: cycle -> units busy) for ``cycles`` from ``cycle``."""
    for j in range(cycles):
        busy[cycle + j] = busy.get(cycle + j, 0) + 1


def _hold(units: dict, skip: dict, cap: int, cycle: int, occupancy: int, alone: bool) -> None:
    """A job holds its unit for ``occupancy`` cycles from ``cycle`` (``alone``: its issue cycle is the
    unit's whole width); a cycle the unit is then full at is noted in ``skip``."""
    if alone:
        units[cycle] = cap
        skip[cycle] = cycle + 1
    for j in range(1 if alone else 0, occupancy):
        held = units[cycle + j] = units.get(cycle + j, 0) + 1
        if held == cap:
            skip[cycle + j] = cycle + j + 1
