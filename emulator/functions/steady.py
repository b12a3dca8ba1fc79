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
_PATHS = "paths"  # in a function's loop_schedules: the paths its loops' searches took, by what prices their passes
_PATHS_KEPT = 8  # (more: start again; a path holds a state a pass searched)


def schedule_loop(sched, loop) -> None:
    """Feed ``loop`` (a ``FastLoop``) to ``sched`` (a ``Scheduler``), in closed form where its schedule
    repeats; a loop entered again from a state seen before (its function's ``loop_schedules``, by the
    state and what prices its passes) takes the state it left then, shifted, and its stalls again; one
    entered from another state is searched again, and its passes compared with the passes searched the
    last time too (``_feed``'s ``known``): once it falls into that path, it goes on along it."""
    fn = sched.fn
    margin, rows = fn.membar_cycles, fn.ports.period_rows
    entry, ref = _snapshot(sched, margin)
    places = tuple(base // BLOCK_BYTES % rows for base in loop.bases)  # each access's place in the banks' period
    how = (loop.shape.end, tuple(loop.steps), places)  # what prices its passes
    key = (*how, loop.passes, entry)
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
    paths = fn.loop_schedules.setdefault(_PATHS, {})
    path = _feed(sched, loop, margin, known=paths.get(how))
    if path is not None:
        if len(paths) >= _PATHS_KEPT:
            paths.clear()
        paths[how] = path
    state, end = _snapshot(sched, margin)
    if len(fn.loop_schedules) >= _KEPT:
        fn.loop_schedules.clear()
    fn.loop_schedules[key] = (state, end - ref, _delta(sched.stalls, stalls), _delta(sched.conflicts, conflicts))


def feed_passes(sched, loop, period: int) -> None:
    """Feed the passes of ``loop`` (``passes`` of them, ``pass_jobs(t)`` each pass's items) to ``sched``,
    in closed form where its state repeats a whole number of ``period`` passes later (every operand then
    at the same places in the banks): a tensor instruction's function (``emulator.functions.tensor_vf``)."""
    _feed(sched, loop, sched.fn.membar_cycles, period)


def _feed(sched, loop, margin: int, period: int | None = None, known: tuple | None = None) -> tuple | None:
    """The passes fed one by one until the state at a pass's start repeats an earlier pass's, or that of
    a pass of ``known`` (the path an earlier search of the loop took), then the state the last pass
    leaves at once (``_land``); with no repeat in ``STEADY_SEARCH`` passes, the rest one by one. Returns
    the path searched (None: it fell into ``known``): ``(seen, states, period)``, ``seen`` each state's
    pass, ``states`` each pass's state, front end's cycle, stalls and bank cycles, and ``period`` None
    or ``(first pass, passes, then the front end's cycle, stalls and bank cycles after them)``.

    A loop whose UB accesses all move on by the same rows a pass, on banks that turn with them
    (``ub_ports.turns``), has its states compared as pass 0's accesses would see them (each turned back
    by its pass's rows): two passes whose operands sit at different places in the banks' period then
    repeat each other as well as two at the same place."""
    ports, passes = sched.fn.ports, loop.passes
    turn = 0
    if period is None:
        turn = _turn(sched.fn, loop)
        period = 1 if turn else _key_period(ports.period_rows, loop.steps)
    seen: dict = {}
    memos: dict = {}  # by rows, the UB uses turned back so far (``_snapshot``): a loop's cycles use few
    states: list = []
    t = 0
    while t < min(passes, STEADY_SEARCH):
        if not t % _FORGET_EVERY:
            forget_before(sched, sched.front)
        rows = -t * turn % ports.period_rows
        state, ref = _snapshot(sched, margin, memos.setdefault(rows, {}), rows)
        key = (t % period, state)
        earlier = seen.setdefault(key, t)  # (one hash of the state)
        if earlier != t:  # from pass ``earlier`` on, every ``t - earlier`` passes repeat
            path = (seen, states, (earlier, t - earlier, ref, dict(sched.stalls), dict(sched.conflicts)))
            if _land(sched, loop, path, earlier, (t, ref), turn):
                return path
        states.append((state, ref, dict(sched.stalls), dict(sched.conflicts)))
        was = known[0].get(key) if known is not None else None
        if was is not None and _land(sched, loop, known, was, (t, ref), turn):
            return None
        sched.feed(loop.pass_jobs(t))
        t += 1
    for rest in range(t, passes):
        sched.feed(loop.pass_jobs(rest))
    forget_before(sched, sched.front)
    return seen, states, None


def _land(sched, loop, path: tuple, v: int, now: tuple, turn: int) -> bool:
    """Put ``sched`` in the state the loop's last pass leaves, pass ``t`` (``now``: it and its front end's
    cycle) starting as pass ``v`` of ``path`` did (shifted, turned): every later pass goes on as that
    path's did, so the last leaves the state of the path's pass as many passes on (``_at``), shifted by
    the cycles from pass ``v`` to that pass, with the stalls and bank cycles of the passes between; the
    blocks of the passes from ``t`` on are noted at once. False (nothing done) when that pass is past
    those searched and the path has no period, or the passes between meet a stall or a bank conflict
    this run has not (where it comes among those met is told only pass by pass)."""
    t, ref = now
    there = _at(path, v + loop.passes - t)
    if there is None:
        return False
    state, ref_there, stalls, conflicts = there
    _, ref_v, stalls_v, conflicts_v = path[1][v]
    moves = ((sched.stalls, stalls, stalls_v), (sched.conflicts, conflicts, conflicts_v))
    if any(key not in table and cycles != before.get(key, 0) for table, after, before in moves
           for key, cycles in after.items()):
        return False
    _restore(sched, state, ref + ref_there - ref_v, loop.passes * turn)
    for table, after, before in moves:
        for key in table:
            table[key] += after.get(key, 0) - before.get(key, 0)
    _note_blocks(sched, loop, t, loop.passes)
    return True


def _at(path: tuple, x: int) -> tuple | None:
    """Pass ``x`` of a searched ``path``: its state (turned back), front end's cycle, stalls and bank
    cycles; past the passes searched, by the period (None when the path has none)."""
    _, states, period = path
    if x < len(states):
        return states[x]
    if period is None:
        return None
    first, length, ref_end, stalls_end, conflicts_end = period
    periods, left = divmod(x - first, length)
    state, ref, stalls, conflicts = states[first + left]
    _, ref_first, stalls_first, conflicts_first = states[first]
    return (state, ref + periods * (ref_end - ref_first), _more(stalls, periods, stalls_end, stalls_first),
            _more(conflicts, periods, conflicts_end, conflicts_first))


def _more(at: dict, periods: int, end: dict, start: dict) -> dict:
    """Stalls (or bank cycles) ``at`` a pass, with ``periods`` more periods, each from ``start`` to ``end``."""
    return {key: at.get(key, 0) + periods * (cycles - start.get(key, 0)) for key, cycles in end.items()}


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
