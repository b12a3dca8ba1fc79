"""A vector function's schedule: when each of its instructions issues and completes, relative to
the launch, under the issue rules of the profile's ``register`` section (docs/timing.md, "Vector
functions"): out of order in a window, after the register results it reads (registers renamed),
within its unit's, the register write ports' and UB's room each cycle, and after a MEMBAR.
"""

from __future__ import annotations

from typing import NamedTuple

from emulator.function_races import add_runs
from emulator.jobs import REGISTER_SPACES, Job, footprint

_UNIT = {"vld": "load", "pld": "load", "vgather_ub": "load", "vst": "store", "pst": "store", "vscatter": "store"}
# What a function's expansion records besides jobs: a marker ``(kind, pc)``.
LOOP, ENDLOOP, MEMBAR, SCALAR, END = "loop", "endloop", "membar", "scalar", "end"
_PRUNE_EVERY = 2048  # jobs scheduled between prunes of the issue tables


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
    alone: bool  # single-issue: no other instruction of its unit issues in its cycle


class Schedule(NamedTuple):
    """A launch's jobs with their times (``job.start`` and ``job.end``, relative to the launch) and
    the function's whole run, from its launch to its last result."""

    cycles: int
    jobs: list  # the launch's jobs, in program order
    membars: list  # per MEMBAR, how many jobs came before it
    runs: tuple  # the UB blocks the jobs read and write: ((firsts, ends, job indices), (the same))
    refined: bool  # some job's blocks are known only when it runs (a gather, a scatter)


def plan_of(fn, job: Job) -> InnerPlan:
    """What scheduling ``job`` needs that depends on its pc alone, worked out once per pc."""
    plan = fn.plans.get(job.pc)
    if plan is None:
        inst = fn.insts[job.pc]
        if job.footprint_reads is None or job.footprint_writes is None:
            job.footprint_reads, job.footprint_writes = footprint(job.reads), footprint(job.writes)
        cost = fn.costs.register_cost(inst)
        reads = tuple(s for s in job.footprint_reads if s in REGISTER_SPACES)
        writes = tuple(s for s in job.footprint_writes if s in REGISTER_SPACES)
        memory_reads = len(reads) < len(job.footprint_reads) or inst.row.family == "vgather_ub"
        memory_writes = len(writes) < len(job.footprint_writes) or inst.row.family == "vscatter"
        plan = InnerPlan(cost.latency, cost.occupancy, _UNIT.get(inst.row.family, "exec"), reads, writes,
                         sum(space[0] == "V" for space in writes), int(memory_reads), int(memory_writes),
                         fn.costs.single_issue(inst))
        fn.plans[job.pc] = plan
    return plan



def schedule(fn, items: list) -> Schedule:
    """Fix each job's start and end (cycles from the launch): the issue rules of the profile's
    ``register`` section, per cycle. The hottest loop of a register kernel: written out flat."""
    writes_cap, ub_cap = fn.caps
    window = fn.window
    usage: dict = {}  # cycle -> [vector register writes, UB reads, UB writes]
    busy: dict = {"load": {}, "store": {}, "exec": {}}  # unit -> cycle -> instructions it holds then
    full: dict = {"load": {}, "store": {}, "exec": {}}  # unit -> a full cycle -> a later one to try
    capacity = fn.units
    unit_state = {name: (busy[name], capacity[name], full[name]) for name in busy}
    ready_at: dict = {}  # register space -> the cycle its latest result is ready
    starts: list = []
    front = fn.launch_cycles  # the earliest issue cycle the front end allows
    membar_floor = ub_end = 0
    last = front
    jobs: list = []
    membars: list = []  # per MEMBAR, how many jobs came before it
    runs = read_runs, write_runs = ([], [], []), ([], [], [])  # UB blocks read, written: (firsts, ends, jobs)
    refined = False
    plans = fn.plans
    for item in items:
        if item.__class__ is tuple:
            kind, pc = item
            floor = starts[-window] if len(starts) >= window else 0
            front = max(front, floor)
            if kind == LOOP:  # the front end reaches the loop and starts it
                front += fn.loop_startup
            elif kind == MEMBAR:
                membar_floor = max(membar_floor, ub_end)
                membar_floor += fn.membar_cycles
                membars.append(len(jobs))
            else:  # the scalar lane
                front += fn.scalar_cycles[pc]
            continue
        plan = plans.get(item.pc)
        if plan is None or item.footprint_writes is None:
            if item.footprint_writes is None:  # binders set both footprints or neither
                item.footprint_reads, item.footprint_writes = footprint(item.reads), footprint(item.writes)
            plan = plan_of(fn, item)
        latency, occupancy, unit, reads, writes, v_writes, ub_reads, ub_writes, alone = plan
        k = len(starts)
        ready = front
        if k >= window and starts[k - window] > ready:
            ready = starts[k - window]
        for space in reads:  # its sources' results
            when = ready_at.get(space, 0)
            ready = max(ready, when)
        if ub_reads or ub_writes:
            ready = max(ready, membar_floor)
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
                        add_runs(side, entry, k)
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
            if (occupancy > 1 and not all(units.get(cycle + j, 0) < cap for j in range(1, occupancy))) or (
                    alone and units.get(cycle, 0)):
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
        end = cycle + latency
        item.start = cycle
        item.end = end
        for space in writes:
            ready_at[space] = end
        last = max(last, end)
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
