"""A vector function's schedule: when each of its instructions issues and completes, relative to
the launch, under the issue rules of the profile's ``register`` section (docs/timing.md, "Vector
functions"): out of order from a queue of ``vf_window`` instructions waiting to issue, after the
register results it reads (registers renamed), within its unit's, the transcendental units', the
register write ports' and UB's banks' room each cycle (``emulator.timing.ub_ports``), and after a MEMBAR.
Where the room keeps an instruction waiting, the cycles are its stalls, by cause.
"""

from __future__ import annotations

import itertools
from heapq import heappush, heapreplace
from typing import NamedTuple

import numpy as np

from emulator.jobs import REGISTER_SPACES, Job, footprint, merge_runs
from emulator.order.races import overlap
from emulator.timing.ub_ports import beats, fits, rows_key, sub_bank_cycles, take, whole_ub

# The families that access UB inside a function and the unit each takes: loads read UB, stores write it.
UB_UNIT = {"vld": "load", "pld": "load", "vgather_ub": "load", "vst": "store", "pst": "store", "vscatter": "store"}
_BUSY = {"load": "load_unit", "store": "store_unit", "exec": "issue_width"}  # the stall of a full unit
_WHOLE_UB = ("vgather_ub", "vscatter")  # they take all of UB's ports for their cycles
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


def plan_of(fn, job: Job) -> InnerPlan:
    """What scheduling ``job`` needs that depends on its pc alone, worked out once per pc."""
    plan = fn.plans.get(job.pc)
    if plan is None:
        inst = fn.insts[job.pc]
        if job.footprint_reads is None or job.footprint_writes is None:
            job.footprint_reads, job.footprint_writes = footprint(job.reads), footprint(job.writes)
        cost = fn.costs.register_cost(inst)
        family = inst.row.family
        reads = tuple(s for s in job.footprint_reads if s in REGISTER_SPACES)
        writes = tuple(s for s in job.footprint_writes if s in REGISTER_SPACES)
        memory_reads = len(reads) < len(job.footprint_reads) or family == "vgather_ub"
        memory_writes = len(writes) < len(job.footprint_writes) or family == "vscatter"
        occupancy, special = cost.occupancy, 0
        if inst.row.timing == "reg.transcendental" and fn.special_units:  # its own unit, an issue slot
            occupancy, special = 1, cost.occupancy
        plan = InnerPlan(cost.latency, occupancy, UB_UNIT.get(family, "exec"), special, reads, writes,
                         sum(space[0] == "V" for space in writes), 2 if memory_writes else int(memory_reads),
                         family in _WHOLE_UB, fn.costs.single_issue(inst))
        fn.plans[job.pc] = plan
    return plan


def _access_beats(fn, plan: InnerPlan, entry, cache: dict | None, key: int | None) -> tuple:
    """The beats of a UB access (``emulator.timing.ub_ports``), its footprint ``entry``, kept in ``cache``
    (its pc's) by ``key`` (where it falls in the banks' period)."""
    ports = fn.ports
    found = beats(ports, rows_key(ports, entry), plan.ub == 2) if entry is not None else ()
    if cache is not None:
        cache[key] = found
    return found


class BlockRuns:
    """The UB blocks a launch's accesses touch, as runs: noted one by one (``firsts``, ``ends``),
    merged now and then, so a long function keeps at most the runs of UB, not one per access."""

    __slots__ = ("ends", "firsts", "merged", "overlap")

    def __init__(self) -> None:
        self.firsts: list = []
        self.ends: list = []
        self.merged = None  # (n, 2) sorted disjoint runs folded in so far
        self.overlap = False  # whether two of the runs noted share a block

    def add(self, entry) -> None:
        """The blocks of one footprint entry ``(runs, first, end)`` (None: a scatter of no lanes)."""
        if entry is None:
            return
        runs, lo, hi = entry
        if runs is None:
            self.firsts.append(lo)
            self.ends.append(hi)
        else:
            self.firsts.extend(runs[:, 0].tolist())
            self.ends.extend(runs[:, 1].tolist())

    def fold(self) -> None:
        if not self.firsts:
            return
        runs = np.stack((np.array(self.firsts, dtype=np.int64), np.array(self.ends, dtype=np.int64)), axis=1)
        if self.merged is not None:
            runs = np.concatenate((self.merged, runs))
        order = np.argsort(runs[:, 0], kind="stable")
        if len(runs) > 1 and (np.maximum.accumulate(runs[order, 1])[:-1] > runs[order[1:], 0]).any():
            self.overlap = True
        self.merged = merge_runs(runs)
        self.firsts, self.ends = [], []

    def footprint(self) -> dict:
        """``{}`` or ``{"ub": (runs or None, first block, end block)}``, merged."""
        if self.merged is None and len(self.firsts) <= 256:  # a few runs: merged in Python
            found, overlap = _few_runs(self.firsts, self.ends)
            self.overlap = self.overlap or overlap
            return found
        self.fold()
        runs = self.merged
        first, end = int(runs[0, 0]), int(runs[-1, 1])
        return {"ub": (None, first, end) if len(runs) == 1 else (runs, first, end)}


def _few_runs(firsts: list, ends: list) -> tuple[dict, bool]:
    """A few runs merged, and whether two of them share a block."""
    if not firsts:
        return {}, False
    pairs = zip(firsts, ends, strict=True)
    if any(b < a for a, b in itertools.pairwise(firsts)):  # not in address order (two streams, say)
        pairs = sorted(pairs)
    merged: list = []
    overlap = False
    for lo, hi in pairs:
        if merged and lo <= merged[-1][1]:
            overlap = overlap or lo < merged[-1][1]
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    if len(merged) == 1:
        return {"ub": (None, merged[0][0], merged[0][1])}, overlap
    return {"ub": (np.array(merged, dtype=np.int64), merged[0][0], merged[-1][1])}, overlap


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
        self.ready_at: dict = {}  # register space -> the cycle its latest result is ready
        self.stalls: dict = {}  # (pc, cause) -> cycles
        self.conflicts: dict = {}  # pc -> cycles
        self.front = fn.launch_cycles  # the earliest issue cycle the front end allows: no later job starts before
        self.membar_floor = 0
        self.ub_end = 0
        self.last = self.front
        self.count = 0  # jobs scheduled so far
        self.refined = False
        self.runs = (BlockRuns(), BlockRuns())  # the UB blocks read, written

    def feed(self, items: list) -> None:
        """Schedule the next items (jobs and markers, in program order): each job gets its times.
        The hottest loop of a register kernel: written out flat, on locals."""
        fn = self.fn
        writes_cap = fn.register_writes
        window = fn.window
        ports = fn.ports
        period = ports.period_rows
        high, access_bias, read_bias = ports.high, ports.access_bias, ports.read_bias
        beat_cache = fn.beats
        waiting, usage, special_busy = self.waiting, self.usage, self.special_busy
        special_cap = fn.special_units
        busy, full = self.busy, self.full
        capacity = fn.units
        unit_state = {name: (busy[name], capacity[name], full[name]) for name in busy}
        ready_at, stalls, conflicts = self.ready_at, self.stalls, self.conflicts
        front, membar_floor, ub_end, last = self.front, self.membar_floor, self.ub_end, self.last
        k = self.count
        read_runs, write_runs = self.runs
        refined = self.refined
        plans = fn.plans
        for item in items:
            if item.__class__ is tuple:
                kind, pc = item
                if len(waiting) == window and waiting[0] > front:  # the queue is full: the front end waits
                    front = waiting[0]
                if kind == LOOP:  # the front end reaches the loop and starts it
                    front += fn.loop_startup
                elif kind == MEMBAR:
                    membar_floor = max(membar_floor, ub_end)
                    membar_floor += fn.membar_cycles
                else:  # the scalar lane
                    front += fn.scalar_cycles[pc]
                continue
            plan = plans.get(item.pc)
            if plan is None or item.footprint_writes is None:
                if item.footprint_writes is None:  # binders set both footprints or neither
                    item.footprint_reads, item.footprint_writes = footprint(item.reads), footprint(item.writes)
                plan = plan_of(fn, item)
            latency, occupancy, unit, special, reads, writes, v_writes, ub, _, alone = plan
            ready = 0
            for space in reads:  # its sources' results
                when = ready_at.get(space, 0)
                if when > ready:
                    ready = when
            if ub and membar_floor > ready:
                ready = membar_floor
            window_wait = 0
            if len(waiting) == window and waiting[0] > front:  # it enters the queue when one leaves it
                if waiting[0] > ready:  # the cycles it would not have waited for its sources anyway
                    window_wait = waiting[0] - max(ready, front)
                front = waiting[0]
            if front > ready:
                ready = front
            ub_beats = ()
            writing = ub == 2
            if ub:
                if item.refine is not None:
                    refined = True
                side, fp = (write_runs, item.footprint_writes) if writing else (read_runs, item.footprint_reads)
                entry = fp.get("ub")
                if plan.whole_ub:  # a gather or scatter: every port, for its lanes' cycles in the sub-banks
                    side.add(entry)
                    if item.lanes is not None:
                        sub_bank = sub_bank_cycles(ports, item.lanes)
                        if sub_bank > occupancy:
                            key = (item.pc, "sub_bank")
                            stalls[key] = stalls.get(key, 0) + sub_bank - occupancy
                            occupancy = sub_bank
                    ub_beats = (whole_ub(ports, writing),) * occupancy
                elif entry is not None and entry[0] is None:  # one run (BlockRuns.add, written out)
                    _, lo, hi = entry
                    side.firsts.append(lo)
                    side.ends.append(hi)
                    mine = beat_cache.get(item.pc)
                    if mine is None:
                        mine = beat_cache[item.pc] = {}
                    key = (lo % period) << 16 | (hi - lo)
                    ub_beats = mine.get(key) or _access_beats(fn, plan, entry, mine, key)
                else:
                    side.add(entry)
                    ub_beats = _access_beats(fn, plan, entry, None, None)
                if len(ub_beats) > occupancy:  # its rows ask some bank (or group) more than once
                    conflicts[item.pc] = conflicts.get(item.pc, 0) + len(ub_beats) - occupancy
                    occupancy = len(ub_beats)
            # the first cycle from ``ready`` when its unit, the transcendental units, the register
            # write ports and UB's banks all have room; each cycle passed is a stall of its cause
            units, cap, skip = unit_state[unit]
            cycle = ready
            while True:
                if cycle in skip:  # the unit is full then: the first cycle after that it is not
                    first = was = cycle
                    while cycle in skip:
                        cycle = skip[cycle]
                    while first != cycle:  # each full cycle passed points there from now on
                        after = skip[first]
                        skip[first] = cycle
                        first = after
                    key = (item.pc, _BUSY[unit])
                    stalls[key] = stalls.get(key, 0) + cycle - was
                cause = None
                if (occupancy > 1 and not all(units.get(cycle + j, 0) < cap for j in range(1, occupancy))) or (
                        alone and units.get(cycle, 0)):
                    cause = _BUSY[unit]
                elif special and not all(special_busy.get(cycle + j, 0) < special_cap for j in range(special)):
                    cause = "transcendental_unit"
                else:
                    used = usage.get(cycle)
                    if used is not None:
                        if v_writes and used[0] + v_writes > writes_cap:
                            cause = "write_ports"
                        elif ub_beats:
                            if writing:
                                cause = fits(ports, used, ub_beats[0], True)
                            elif used[1] & ub_beats[0].banks:  # a read (ub_ports.fits, written out)
                                cause = "bank_group"
                            elif (used[2] + ub_beats[0].accesses + access_bias) & high or \
                                    (used[3] + ub_beats[0].reads + read_bias) & high:
                                cause = "ub_port"
                    if cause is None and len(ub_beats) > 1:
                        for j in range(1, len(ub_beats)):
                            used = usage.get(cycle + j)
                            if used is not None:
                                cause = fits(ports, used, ub_beats[j], writing)
                                if cause is not None:
                                    break
                if cause is None:
                    break
                key = (item.pc, cause)
                stalls[key] = stalls.get(key, 0) + 1
                cycle += 1
            if v_writes or ub_beats:
                used = usage.get(cycle)
                if used is None:
                    used = usage[cycle] = [0, 0, 0, 0, 0, 0, 0]
                used[0] += v_writes
                if len(ub_beats) == 1 and not writing:  # a read of one beat (ub_ports.take, written out)
                    beat = ub_beats[0]
                    used[1] |= beat.banks
                    used[2] += beat.accesses
                    used[3] += beat.reads
                else:
                    for j, beat in enumerate(ub_beats):
                        if j:
                            used = usage.get(cycle + j)
                            if used is None:
                                used = usage[cycle + j] = [0, 0, 0, 0, 0, 0, 0]
                        take(used, beat, writing)
            for j in range(special):
                special_busy[cycle + j] = special_busy.get(cycle + j, 0) + 1
            if alone:  # its issue cycle is the unit's whole width
                units[cycle] = cap
                skip[cycle] = cycle + 1
                for j in range(1, occupancy):
                    held = units[cycle + j] = units.get(cycle + j, 0) + 1
                    if held == cap:
                        skip[cycle + j] = cycle + j + 1
            elif occupancy == 1:
                held = units[cycle] = units.get(cycle, 0) + 1
                if held == cap:
                    skip[cycle] = cycle + 1
            else:
                for j in range(occupancy):
                    held = units[cycle + j] = units.get(cycle + j, 0) + 1
                    if held == cap:
                        skip[cycle + j] = cycle + j + 1
            if window_wait:
                key = (item.pc, "window_full")
                stalls[key] = stalls.get(key, 0) + window_wait
            end = cycle + latency + occupancy - plan.occupancy  # an access's extra beats deliver it later
            item.start = cycle
            item.end = end
            for space in writes:
                ready_at[space] = end
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
                floor = front
                usage = {c: u for c, u in usage.items() if c >= floor}
                special_busy = {c: u for c, u in special_busy.items() if c >= floor}
                busy = {name: {c: n for c, n in cycles.items() if c >= floor} for name, cycles in busy.items()}
                full = {name: {c: n for c, n in cycles.items() if c >= floor} for name, cycles in full.items()}
                unit_state = {name: (busy[name], capacity[name], full[name]) for name in busy}
                for side in (read_runs, write_runs):
                    if len(side.firsts) > _FOLD_RUNS:
                        side.fold()
        self.usage, self.special_busy, self.busy, self.full = usage, special_busy, busy, full
        self.front, self.membar_floor, self.ub_end, self.last = front, membar_floor, ub_end, last
        self.count, self.refined = k, refined

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
