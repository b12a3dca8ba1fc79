"""A hardware loop's schedule in closed form (``schedule_loop``): its passes are fed to the function's
``Scheduler`` one by one until the scheduler's state at a pass's start repeats that at an earlier
pass's start, shifted by some cycles (llvm-mca's steady state: the same queue, the same units', ports'
and banks' occupancy and register ready times relative to the front end's cycle); every later
period of passes then repeats that one exactly, so whole periods are accounted for at once (their
stalls and bank cycles, the blocks they touch, the state moved on by the shift) and the passes left
over are fed one by one again. The result is the pass-by-pass schedule's, to the cycle.
"""

from __future__ import annotations

import math

import numpy as np

STEADY_SEARCH = 1024  # passes fed while looking for a repeat; a loop that has none by then is fed whole
_RUNS_AT_ONCE = 4096  # passes whose blocks (apart) are noted in one array


def schedule_loop(sched, loop) -> None:
    """Feed ``loop`` (a ``FastLoop``) to ``sched`` (a ``Scheduler``), in closed form where its schedule repeats."""
    passes = loop.passes
    period = _key_period(sched.fn.ports.period_rows, loop.steps)
    margin = sched.fn.membar_cycles
    seen: dict = {}
    t = 0
    searching = True
    while t < passes:
        if searching and t < STEADY_SEARCH:
            state, ref = _snapshot(sched, margin)
            key = (t % period, state)
            earlier = seen.get(key)
            if earlier is not None:
                then, ref_then, stalls, conflicts = earlier
                length = t - then
                periods = (passes - t) // length
                if periods:
                    _advance(sched, periods, periods * (ref - ref_then), stalls, conflicts)
                    _note_blocks(sched, loop, t, t + periods * length)
                    t += periods * length
                searching = False
                continue
            seen[key] = (t, ref, dict(sched.stalls), dict(sched.conflicts))
        sched.feed(loop.pass_jobs(t))
        t += 1
    _advance(sched, 0, 0, sched.stalls, sched.conflicts)  # (forgets the cycles before the front end's, as a prune)


def _key_period(rows: int, steps: list) -> int:
    """Passes after which every UB operand falls at the same place in the banks' period of ``rows``
    blocks again (the scheduler prices an access by that place and its length)."""
    period = 1
    for step in steps:
        blocks = step // 32
        period = math.lcm(period, rows // math.gcd(blocks, rows))
    return period


def _snapshot(sched, margin: int) -> tuple:
    """The scheduler's state relative to the front end's cycle ``ref``, with what no later job can
    tell apart made equal (a cycle before ``ref`` is never issued in again), and ``ref``."""
    ref = sched.front
    state = (
        tuple(sorted(max(w - ref, 0) for w in sched.waiting)),
        _cycles(sched.usage, ref, tuple),
        _cycles(sched.special_busy, ref),
        tuple(_cycles(cycles, ref) for cycles in sched.busy.values()),
        tuple(tuple(sorted(c - ref for c in cycles if c >= ref)) for cycles in sched.full.values()),
        tuple(sorted((space, when - ref) for space, when in sched.ready_at.items() if when > ref)),
        max(sched.membar_floor - ref, -margin),
        max(sched.ub_end - ref, -margin),
        max(sched.last - ref, 0),
    )
    return state, ref


def _cycles(table: dict, ref: int, value=None) -> tuple:
    """A table by cycle from ``ref`` on, relative to it (``value``: how to show an entry's value)."""
    return tuple(sorted((cycle - ref, value(v) if value is not None else v)
                        for cycle, v in table.items() if cycle >= ref))


def _advance(sched, periods: int, shift: int, stalls: dict, conflicts: dict) -> None:
    """Move the scheduler on by ``periods`` repeats of the period just seen: every cycle by ``shift``,
    its stalls and bank cycles by ``periods`` times what the period added (``stalls``, ``conflicts``:
    as they stood at its start)."""
    floor = sched.front
    sched.front += shift
    sched.waiting[:] = [w + shift for w in sched.waiting]  # (a heap stays one)
    for table in (sched.usage, sched.special_busy, *sched.busy.values()):
        _shift(table, floor, shift)
    for table in sched.full.values():
        _shift(table, floor, shift, shift)
    _shift(sched.ready_at, None, shift)
    sched.membar_floor += shift
    sched.ub_end += shift
    sched.last += shift
    for key, cycles in list(sched.stalls.items()):
        sched.stalls[key] = cycles + periods * (cycles - stalls.get(key, 0))
    for pc, cycles in list(sched.conflicts.items()):
        sched.conflicts[pc] = cycles + periods * (cycles - conflicts.get(pc, 0))


def _shift(table: dict, floor: int | None, shift: int, by: int = 0) -> None:
    """A table by cycle (or, ``floor`` None, of cycles), in place (the scheduler's ``feed`` holds it):
    its cycles from ``floor`` on moved on by ``shift``, the rest dropped; its values by ``by``."""
    if floor is None:
        moved = {key: when + shift for key, when in table.items()}
    else:
        moved = {cycle + shift: value + by if by else value for cycle, value in table.items() if cycle >= floor}
    table.clear()
    table.update(moved)


def _note_blocks(sched, loop, first: int, end: int) -> None:
    """The UB blocks passes ``first`` to ``end`` touch, noted at once (their accesses are affine): an
    access whose passes touch or overlap as one run (and whether they overlap), else a run a pass."""
    plans = sched.fn.plans
    for job, step in zip(loop.jobs, loop.steps, strict=True):
        plan = plans[job.pc]
        if not plan.ub:
            continue
        writing = plan.ub == 2
        _, lo, hi = (job.footprint_writes if writing else job.footprint_reads)["ub"]
        side, blocks = sched.runs[writing], step // 32
        if abs(blocks) <= hi - lo:  # one run: the passes' blocks touch or overlap
            low, high = sorted((first * blocks, (end - 1) * blocks))
            side.add_many(np.array([lo + low]), np.array([hi + high]))
            side.overlap = side.overlap or (end - first > 1 and abs(blocks) < hi - lo)
            continue
        for start in range(first, end, _RUNS_AT_ONCE):
            t = np.arange(start, min(end, start + _RUNS_AT_ONCE), dtype=np.int64)
            firsts = lo + t * blocks
            side.add_many(firsts, firsts + (hi - lo))
