"""A hardware loop's schedule in closed form (``schedule_loop``): its passes are fed to the function's
``Scheduler`` one by one until the scheduler's state at a pass's start repeats that at an earlier
pass's start, shifted by some cycles (llvm-mca's steady state: the same queue, the same units', ports'
and banks' occupancy and register ready times relative to the front end's cycle; on the 950, where
the banks turn with the rows, also at another place in the banks' period); every later period of
passes then repeats that one exactly, so the state after the last pass is that after a pass of the
first period, moved on by the whole periods (their stalls and bank cycles, the blocks they touch, the
state shifted by their cycles). The result is the pass-by-pass schedule's, to the cycle.
"""

from __future__ import annotations

import math

from vcore.emulator.timing.ub_ports import turned, turns
from vcore.isa.types import BLOCK_BYTES

STEADY_SEARCH = 1024  # passes fed while looking for a repeat; a loop that has none by then is fed whole
_FORGET_EVERY = 16  # passes searched between forgetting the cycles before the front end's (as a prune)
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
    """The passes fed one by one until the state at a pass's start repeats an earlier pass's, then the
    state the last pass leaves at once (``_jump``); with no repeat in ``STEADY_SEARCH`` passes, the rest
    one by one. A loop whose UB accesses all move on by the same rows a pass, on banks that turn with
    them (``ub_ports.turns``), has its states compared as pass 0's accesses would see them (each turned
    back by its pass's rows): two passes whose operands sit at different places in the banks' period
    then repeat each other as well as two at the same place."""
    ports, passes = sched.fn.ports, loop.passes
    turn = 0
    if period is None:
        turn = _turn(sched.fn, loop)
        period = 1 if turn else _key_period(ports.period_rows, loop.steps)
    seen: dict = {}
    memos: dict = {}  # by rows, the UB uses turned back so far (``_snapshot``): a loop's cycles use few
    states: list = []  # per pass searched: its state (turned back), front end's cycle, stalls and bank cycles
    t = 0
    while t < passes:
        if t < STEADY_SEARCH:
            if not t % _FORGET_EVERY:
                forget_before(sched, sched.front)
            rows = -t * turn % ports.period_rows
            state, ref = _snapshot(sched, margin, memos.setdefault(rows, {}), rows)
            key = (t % period, state)
            earlier = seen.get(key)
            if earlier is not None:
                _jump(sched, loop, states, earlier, (t, ref), turn)
                return
            seen[key] = t
            states.append((state, ref, dict(sched.stalls), dict(sched.conflicts)))
        sched.feed(loop.pass_jobs(t))
        t += 1
    forget_before(sched, sched.front)


def _jump(sched, loop, states: list, first: int, now: tuple, turn: int) -> None:
    """The state after the loop's last pass, pass ``t`` (``now``: it and its front end's cycle) having
    repeated pass ``first``: every pass from ``first`` on repeats the one a period (``t - first`` passes)
    before it, shifted by the cycles a period takes (and turned by its rows), so the last pass leaves the
    state a pass of the first period left, moved on by the whole periods between, with their stalls and
    bank cycles; the blocks of the passes from ``t`` on are noted at once."""
    t, ref = now
    length = t - first
    periods, left = divmod(loop.passes - first, length)
    state, ref_then, stalls, conflicts = states[first + left]
    ref_first, stalls_first, conflicts_first = states[first][1:]
    _restore(sched, state, ref_then + periods * (ref - ref_first), loop.passes * turn)
    for table, then, start in ((sched.stalls, stalls, stalls_first), (sched.conflicts, conflicts, conflicts_first)):
        for key, cycles in table.items():  # (every key is in by pass t: each period adds the same)
            table[key] = then.get(key, 0) + periods * (cycles - start.get(key, 0))
    _note_blocks(sched, loop, t, loop.passes)


def _turn(fn, loop) -> int:
    """The rows every UB access of ``loop`` moves on a pass, modulo the banks' period, when they all move
    alike on banks that turn (``ub_ports.turns``); else 0 (pass ``t``'s state is then compared only
    with those of the passes whose accesses fall at the same places: ``_key_period``)."""
    rows = fn.ports.period_rows
    if not turns(fn.ports):
        return 0
    moved = {step // BLOCK_BYTES % rows for job, step in zip(loop.jobs, loop.steps, strict=True)
             if "ub" in job.footprint_reads or "ub" in job.footprint_writes}
    return moved.pop() if len(moved) == 1 else 0


def _delta(after: dict, before: dict) -> dict:
    return {key: cycles - before.get(key, 0) for key, cycles in after.items() if cycles != before.get(key, 0)}


def _restore(sched, state: tuple, ref: int, rows: int = 0) -> None:
    """The scheduler put in a state ``_snapshot`` took, relative to the front end's cycle ``ref`` (the
    tables ``feed`` holds are changed in place), its UB use turned ``rows`` rows on (``ub_ports.turned``)."""
    waiting, usage, special, busy, ready, membar_floor, ub_end, last = state
    sched.waiting[:] = [ref + w for w in waiting]  # (sorted: a heap)
    fn = sched.fn
    _fill(sched.usage, {ref + c: list(turned(fn.ports, u, rows) if rows else u) for c, u in usage})
    _fill(sched.special_busy, {ref + c: n for c, n in special})
    for (name, table), held in zip(sched.busy.items(), busy, strict=True):
        _fill(table, {ref + c: n for c, n in held})
        cap = fn.units[name]  # (a unit is full where it holds its capacity: Scheduler.feed's rule)
        _fill(sched.full[name], {ref + c: ref + c + 1 for c, n in held if n == cap})
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


def _snapshot(sched, margin: int, memo: dict | None = None, rows: int = 0) -> tuple:
    """The scheduler's state relative to the front end's cycle ``ref``, with what no later job can
    tell apart made equal (a cycle before ``ref`` is never issued in again), its UB use turned ``rows``
    rows on (``ub_ports.turned``; ``memo``: the uses turned by as many rows so far); and ``ref``. (A unit's full
    cycles are not in it: they are those it holds at its capacity.)"""
    ref = sched.front
    if rows:
        ports = sched.fn.ports
        usage = []
        for c, use in sched.usage.items():
            if c >= ref:
                u = tuple(use)
                moved = memo.get(u)
                if moved is None:
                    moved = memo[u] = turned(ports, u, rows)
                usage.append((c - ref, moved))
    else:
        usage = [(c - ref, tuple(u)) for c, u in sched.usage.items() if c >= ref]
    usage.sort()
    state = (
        tuple(sorted([w - ref if w > ref else 0 for w in sched.waiting])),
        tuple(usage),
        tuple(sorted([(c - ref, n) for c, n in sched.special_busy.items() if c >= ref])),
        tuple([tuple(sorted([(c - ref, n) for c, n in held.items() if c >= ref])) for held in sched.busy.values()]),
        tuple([tuple(sorted([(space, when - ref) for space, when in table.items() if when > ref]))
               for table in sched.ready_at]),
        max(sched.membar_floor - ref, -margin),
        max(sched.ub_end - ref, -margin),
        max(sched.last - ref, 0),
    )
    return state, ref


def forget_before(sched, floor: int) -> None:
    """Forget the scheduler's cycles before ``floor`` (no job issues before the front end's cycle any
    more), in place: ``Scheduler.feed`` and a loop fed inside it hold the same tables."""
    for table in (sched.usage, sched.special_busy, *sched.busy.values(), *sched.full.values()):
        for cycle in [cycle for cycle in table if cycle < floor]:
            del table[cycle]


def _note_blocks(sched, loop, first: int, end: int) -> None:
    """The UB blocks passes ``first`` to ``end`` touch, noted at once (their accesses are affine)."""
    plans = sched.fn.plans
    for job, step in zip(loop.jobs, loop.steps, strict=True):
        plan = plans[job.pc]
        if plan.ub:
            writing = plan.ub == 2
            _, lo, hi = (job.footprint_writes if writing else job.footprint_reads)["ub"]
            sched.runs[writing].add_passes(lo, hi, step // BLOCK_BYTES, first, end)
