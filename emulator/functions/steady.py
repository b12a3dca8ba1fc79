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

from vcore.isa.types import BLOCK_BYTES

STEADY_SEARCH = 1024  # passes fed while looking for a repeat; a loop that has none by then is fed whole
_KEPT = 64  # loop schedules a function keeps, by the state its loop was entered from (more: start again)


def schedule_loop(sched, loop) -> None:
    """Feed ``loop`` (a ``FastLoop``) to ``sched`` (a ``Scheduler``), in closed form where its schedule
    repeats; a loop entered again from a state seen before (its function's ``loop_schedules``, by the
    state and what prices its passes) takes the state it left then, shifted, and its stalls again."""
    fn = sched.fn
    margin, rows = fn.membar_cycles, fn.ports.period_rows
    entry, ref = _snapshot(sched, margin)
    places = tuple(base // BLOCK_BYTES % rows for base in loop.bases)  # each access's place in the banks' period
    key = (loop.shape.end, loop.passes, tuple(loop.steps), places, entry)
    found = fn.loop_schedules.get(key)
    if found is not None:
        state, moved, stalls, conflicts = found
        _restore(sched, state, ref + moved)
        for table, delta in ((sched.stalls, stalls), (sched.conflicts, conflicts)):
            for what, cycles in delta.items():
                table[what] = table.get(what, 0) + cycles
        _note_blocks(sched, loop, 0, loop.passes)
        return
    stalls, conflicts = dict(sched.stalls), dict(sched.conflicts)
    _feed(sched, loop, margin)
    state, end = _snapshot(sched, margin)
    if len(fn.loop_schedules) >= _KEPT:
        fn.loop_schedules.clear()
    fn.loop_schedules[key] = (state, end - ref, _delta(sched.stalls, stalls), _delta(sched.conflicts, conflicts))


def feed_passes(sched, loop, period: int) -> None:
    """Feed the passes of ``loop`` (``passes`` of them, ``pass_jobs(t)`` each pass's items) to ``sched``,
    in closed form where its state repeats a whole number of ``period`` passes later (every operand then
    at the same places in the banks): a tensor instruction's function (``emulator.functions.tensor_vf``)."""
    _feed(sched, loop, sched.fn.membar_cycles, period)


def _feed(sched, loop, margin: int, period: int | None = None) -> None:
    """The passes fed one by one until the state repeats, whole periods at once, the rest one by one."""
    passes = loop.passes
    if period is None:
        period = _key_period(sched.fn.ports.period_rows, loop.steps)
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


def _delta(after: dict, before: dict) -> dict:
    return {key: cycles - before.get(key, 0) for key, cycles in after.items() if cycles != before.get(key, 0)}


def _restore(sched, state: tuple, ref: int) -> None:
    """The scheduler put in a state ``_snapshot`` took, relative to the front end's cycle ``ref`` (the
    tables ``feed`` holds are changed in place)."""
    waiting, usage, special, busy, full, ready, membar_floor, ub_end, last = state
    sched.waiting[:] = [ref + w for w in waiting]  # (sorted: a heap)
    _fill(sched.usage, {ref + c: list(u) for c, u in usage})
    _fill(sched.special_busy, {ref + c: n for c, n in special})
    for table, held in zip(sched.busy.values(), busy, strict=True):
        _fill(table, {ref + c: n for c, n in held})
    for table, cycles in zip(sched.full.values(), full, strict=True):
        _fill(table, {ref + c: ref + c + 1 for c in cycles})
    for table, entries in zip(sched.ready_at, ready, strict=True):
        _fill(table, {space: ref + when for space, when in entries})
    sched.front, sched.membar_floor, sched.ub_end, sched.last = ref, ref + membar_floor, ref + ub_end, ref + last


def _fill(table: dict, entries: dict) -> None:
    table.clear()
    table.update(entries)


def _key_period(rows: int, steps: list) -> int:
    """Passes after which every UB operand falls at the same place in the banks' period of ``rows``
    blocks again (the scheduler prices an access by that place and its length)."""
    period = 1
    for step in steps:
        blocks = step // BLOCK_BYTES
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
        tuple(tuple(sorted((space, when - ref) for space, when in table.items() if when > ref))
              for table in sched.ready_at),
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
    for table in sched.ready_at:
        _shift(table, None, shift)
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
    """The UB blocks passes ``first`` to ``end`` touch, noted at once (their accesses are affine)."""
    plans = sched.fn.plans
    for job, step in zip(loop.jobs, loop.steps, strict=True):
        plan = plans[job.pc]
        if plan.ub:
            writing = plan.ub == 2
            _, lo, hi = (job.footprint_writes if writing else job.footprint_reads)["ub"]
            sched.runs[writing].add_passes(lo, hi, step // BLOCK_BYTES, first, end)
