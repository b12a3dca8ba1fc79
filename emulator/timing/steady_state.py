"""The engine's state at a loop's pass end, as numbers of their kinds (``emulator.timing.replay``).

``capture`` reads what decides the engine's future: the pipes' queues and their start cycles, when each
pipe is free and its last result lands, the flags set and not yet taken, the 950 scoreboard, the jobs
the program-order check still compares with, the vector clocks and a2's V epoch, and where each pipe's
busy cycles stand. Every cycle, clock component, sequence number, epoch and job in it is a leaf of its
kind. Two captures are the same state shifted (``shifts``) when every leaf moves by the pass's amount
of its kind (the scalar unit's cycles, the events of the clock component's pipe, the jobs handed over,
the barriers, a job one pass on) or stays; a cycle that stays must lie in the past, where no later
comparison can tell it from another, and a clock component that stays must lie below every one that
moves. ``shifted`` moves a capture on by whole passes, ``install`` puts it into the engine; ``tally``
and ``add_passes`` do the same for the accounting, and ``strides_of`` and ``moved`` compare the jobs
of two passes' footprints.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from vcore.emulator.jobs import PIPES, QUEUED, Job

TIME, CLOCK, SEQ, EPOCH, JOB = range(5)


# -- the engine's state as numbers of their kinds --------------------------------------------------
def capture(engine) -> tuple:
    """The engine's state at a pass's end: ``(shape, leaves)``; ``shape`` holds what must be equal
    (pcs, flags, lengths), ``leaves`` the numbers of each kind, ``(kind, value)`` or for a clock
    component ``(CLOCK, value, i)``, and the jobs ``(JOB, job)``."""
    leaves: list = []
    add = leaves.append

    def time(t):
        add((TIME, t))

    def clock(c):
        for i, v in enumerate(c):
            add((CLOCK, v, i))

    def job(j):
        add((JOB, j))
        add((SEQ, j.seq))
        time(j.dispatch)
        time(j.start)
        time(j.end)
        if j.s_clock is not None:
            clock(j.s_clock)
        return j.pc, j.s_clock is not None

    shape: list = []  # (what must be equal; the lengths of the filtered lists ``install`` reads from it)
    for p in QUEUED:
        shape.append(tuple(job(j) for j in engine.queue[p]))
        waiting = [t for t in engine.waiting_start[p] if t > engine.now]  # (the rest is dropped before use)
        shape.append(("waiting", len(waiting)))
        for t in waiting:
            time(t)
    for p in PIPES:
        time(engine.free[p])
        time(engine.done[p])
    add((SEQ, engine.seq))
    clock(engine.s_clock)
    flags = engine.flags
    for key in sorted(k for k, v in flags.sets.items() if v):
        shape.append((key, tuple(pc for _, pc, _ in flags.sets[key])))
        for when, _, c in flags.sets[key]:
            time(when)
            clock(c)
    for key in sorted(flags.last_consume):
        shape.append(key)
        time(flags.last_consume[key][0])
        time(flags.last_consume[key][1])
    shape.append((len(flags.warnings), len(flags.warned_flags)))
    board = engine.scoreboard
    if board is not None:
        for space in sorted(board.register_ready):
            shape.append(space)
            time(board.register_ready[space])
        horizon = engine.horizon()  # (no job placed from now on starts before it)
        shape.append(("v_recent", tuple(job(j) for j in board.v_recent if j.end >= horizon)))
    horizon, oldest = engine.unscheduled()
    floor = horizon - 2  # (``ProgramOrder._prune_recent``'s: the jobs it would keep)
    for p in PIPES:
        shape.append(("recent", tuple(job(j) for j in engine.program_order.recent[p]
                                      if j.end > floor or j.seq > oldest)))
    order = engine.order
    for p in PIPES:
        clock(order.clocks[p])
        seen = order.s_seen[p]
        shape.append(seen is None)
        if seen is not None:
            clock(seen)
    add((EPOCH, order.v_epoch))
    add((CLOCK, order.v_known, 1))
    for p in PIPES:
        time(engine.accounting.busy_until[p])
    return tuple(shape), leaves


def shifts(before: tuple, after: tuple, now: tuple, places: dict, horizon: int) -> list | None:
    """How each number moves from one pass's end to the next: a list of (kind, delta) per leaf
    (delta 0: static) when the two states are the same up to the shift, else None. ``now`` is the
    scalar unit's cycle at the two ends, ``horizon`` the first end's (``Engine.horizon``: no job placed
    later starts before it); ``places`` maps a job to its (pass, index)."""
    (shape_a, a), (shape_b, b) = before, after
    if shape_a != shape_b or len(a) != len(b):
        return None
    dt = now[1] - now[0]
    delta: dict = {}
    moves = []
    lowest_moving: dict = {}
    statics = []
    for x, y in zip(a, b, strict=True):
        kind = x[0]
        if kind == JOB:
            pa, pb = places.get(id(x[1])), places.get(id(y[1]))
            if x[1] is y[1]:
                moves.append((JOB, 0))
            elif pa is None or pb is None or pa[1] != pb[1] or pb[0] - pa[0] != 1:
                return None
            else:
                moves.append((JOB, 1))
            continue
        key = (kind, x[2]) if kind == CLOCK else kind
        d = y[1] - x[1]
        if d == 0:
            statics.append((key, x[1]))
            moves.append((kind, 0))
            continue
        if kind == TIME:
            if d != dt:
                return None
        elif delta.setdefault(key, d) != d:
            return None
        low = lowest_moving.get(key)
        lowest_moving[key] = x[1] if low is None else min(low, x[1])
        moves.append((kind, d))
    for key, value in statics:  # a static number must not be overtaken by a moving one
        if key == TIME:
            if value > horizon:
                return None
        elif key in lowest_moving and value > lowest_moving[key]:
            return None
    return moves


def shifted(leaves: list, moves: list, m: int, job_at) -> list:
    """The leaves ``m`` passes on (``job_at(job)``: the job of the same place ``m`` passes later)."""
    out = []
    for leaf, (kind, d) in zip(leaves, moves, strict=True):
        if kind == JOB:
            out.append(job_at(leaf[1]) if d else leaf[1])
        else:
            out.append(leaf[1] + m * d)
    return out


def install(engine, shape: tuple, values: list) -> None:
    """Put a captured state (its ``shape``, its leaves as ``shifted`` moved them) into the engine, which
    has not moved since the capture (the order of ``capture``)."""
    lengths = iter([entry[1] if entry[0] == "waiting" else len(entry[1]) for entry in shape
                    if entry.__class__ is tuple and len(entry) == 2 and entry[0] in ("waiting", "v_recent", "recent")])
    it = iter(values)
    take = it.__next__

    def job():
        j = take()
        j.seq, j.dispatch, j.start, j.end = take(), take(), take(), take()
        if j.s_clock is not None:
            j.s_clock = (take(), take(), take(), take())
        return j

    for p in QUEUED:
        n = len(engine.queue[p])
        engine.queue[p] = deque(job() for _ in range(n))
        engine.waiting_start[p] = deque(take() for _ in range(next(lengths)))
    for p in PIPES:
        engine.free[p], engine.done[p] = take(), take()
    engine.seq = take()
    engine.s_clock = (take(), take(), take(), take())
    flags = engine.flags
    for key in sorted(k for k, v in flags.sets.items() if v):
        flags.sets[key] = deque((take(), pc, (take(), take(), take(), take())) for _, pc, _ in flags.sets[key])
    for key in sorted(flags.last_consume):
        flags.last_consume[key] = (take(), take())
    board = engine.scoreboard
    if board is not None:
        for space in sorted(board.register_ready):
            board.register_ready[space] = take()
        board.v_recent = [job() for _ in range(next(lengths))]
    recent = engine.program_order.recent
    for p in PIPES:
        recent[p][:] = [job() for _ in range(next(lengths))]  # (in place: the check's rivals name these lists)
    order = engine.order
    for p in PIPES:
        order.clocks[p][:] = [take(), take(), take(), take()]
        if order.s_seen[p] is not None:
            order.s_seen[p] = (take(), take(), take(), take())
    order.v_epoch = take()
    order.v_known = take()
    for p in PIPES:
        engine.accounting.busy_until[p] = take()


# -- what a pass cost, in the accounting ---------------------------------------------------------
def tally(accounting) -> tuple:
    stats = {pc: (s.cycles, s.iterations, s.bank_conflict, s.busy, dict(s.stalls))
             for pc, s in accounting.stats.items()}
    return stats, dict(accounting.stall_totals), dict(accounting.busy), dict(accounting.count)


def add_passes(accounting, before: tuple, after: tuple, m: int) -> None:
    """Add ``m`` times what the accounting gained from ``before`` to ``after`` (``tally``)."""
    stats_a, totals_a, busy_a, count_a = before
    stats_b, totals_b, busy_b, count_b = after
    for pc, (cycles, iterations, conflicts, busy, stalls) in stats_b.items():
        c0, i0, k0, b0, s0 = stats_a.get(pc, (0, 0, 0, 0, {}))
        s = accounting.stats[pc]
        s.cycles += m * (cycles - c0)
        s.iterations += m * (iterations - i0)
        s.bank_conflict += m * (conflicts - k0)
        s.busy += m * (busy - b0)
        for cause, cycles_b in stalls.items():
            if cycles_b != s0.get(cause, 0):
                s.stalls[cause] += m * (cycles_b - s0.get(cause, 0))
    for cause, v in totals_b.items():
        if v != totals_a.get(cause, 0):
            accounting.stall_totals[cause] += m * (v - totals_a.get(cause, 0))
    for p in PIPES:
        accounting.busy[p] += m * (busy_b[p] - busy_a[p])
        accounting.count[p] += m * (count_b[p] - count_a[p])


def strides_of(old: list, new: list) -> dict | None:
    """Per memory space, how far one pass's footprints lie from the pass before's (one stride for
    every job that touches the space), or None when they do not move as one."""
    strides: dict = {}
    for a, b in zip(old, new, strict=True):
        for read_a, read_b in ((a.footprint_reads, b.footprint_reads), (a.footprint_writes, b.footprint_writes)):
            fa, fb = read_a or {}, read_b or {}
            if fa.keys() != fb.keys():
                return None
            for space, (runs_a, lo_a, hi_a) in fa.items():
                runs_b, lo_b, hi_b = fb[space]
                d = lo_b - lo_a
                if hi_b - hi_a != d or strides.setdefault(space, d) != d or (runs_a is None) != (runs_b is None):
                    return None
                if runs_a is not None and not np.array_equal(runs_a + d, runs_b):
                    return None
    return strides


def moved(job: Job, model: Job, m: int, strides: dict) -> bool:
    """Whether ``job``'s footprints are ``model``'s moved ``m`` strides."""
    for mine, theirs in ((job.footprint_reads, model.footprint_reads), (job.footprint_writes, model.footprint_writes)):
        f, g = mine or {}, theirs or {}
        if f.keys() != g.keys():
            return False
        for space, (runs, lo, hi) in f.items():
            runs_g, lo_g, hi_g = g[space]
            d = m * strides.get(space, 0)
            if lo != lo_g + d or hi != hi_g + d or (runs is None) != (runs_g is None):
                return False
            if runs is not None and not np.array_equal(runs, runs_g + d):
                return False
    return True
