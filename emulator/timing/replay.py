"""Tiling loops in steady state (docs/timing.md, "Tiling loops in steady state"): once the engine's
state at the end of a loop's pass is the state at the end of the pass before, shifted, and that pass
was the same shift of the one before it, later passes that hand over the same jobs reuse its schedule.
``emulator.timing.steady_state`` says what "the same, shifted" means.

``LoopReplay`` watches the taken backward branches of a program-order run. While it watches a loop it
keeps each pass's jobs and the data jobs the engine placed (with their clocks and costs); at each pass
end it captures the engine's state. Three pass ends in steady state make the pass between the last two
the model (``Replay``). The replay then takes the jobs the scalar unit hands over itself: each job must
be the model's (its instruction, its dispatch cycle, its cost, its footprints moved by the pass's
stride), and is performed at once, with its sequence number and clock; at each pass end the data jobs
the model placed in its pass are given their times and checked by happens-before (``Order.access``).
Anything else (another job, another branch, the run's end) installs the state of the last pass end in
the engine and hands the jobs of the pass under way to it again.
"""

from __future__ import annotations

from collections import deque

from vcore.emulator.timing.steady_state import (
    JOB,
    add_passes,
    capture,
    install,
    moved,
    shifted,
    shifts,
    strides_of,
    tally,
)

KEPT_PASSES = 80  # passes whose jobs are kept: a job the state names must be one of theirs (or static); the
# pipes may run passes behind the scalar unit (its queues hold up to scalar.queue_depth jobs not started)
WATCH_PASSES = 12  # pass ends of one shape (queue lengths, flags) a loop is watched for a steady state ...
WATCH_LIMIT = 64  # ... and pass ends in all (while its queues still fill), before it is left alone a while
QUIET_PASSES = 256  # pass ends a loop that did not settle runs unwatched (doubled each time again)


class PassEnd:
    """What a watched loop looked like at one pass's end: the engine's state (``capture``), the scalar
    unit's cycle, the horizon and the accounting, the pass just ended (its jobs with their dispatch and
    the cycle after, the data jobs placed during it) and how often the loop's body has run."""

    def __init__(self, engine, jobs: list, placed: list, executed: int) -> None:
        self.state, self.now, self.horizon = capture(engine), engine.now, engine.horizon()
        self.counts, self.jobs, self.placed, self.executed = tally(engine.accounting), jobs, placed, executed


class Kept:
    """The jobs of a watched or replayed loop's last ``KEPT_PASSES`` passes, numbered; while watched,
    each job's (pass number, index) too, by its id (the jobs are held, so no id is reused)."""

    def __init__(self) -> None:
        self.passes: deque = deque()  # (pass number, its jobs)
        self.places: dict = {}
        self.number = 0
        self.limit = KEPT_PASSES  # passes kept: while a loop replays, as many as its state still names

    def add(self, jobs: list, watched: bool) -> None:
        self.number += 1
        self.passes.append((self.number, jobs))
        if watched:
            for i, job in enumerate(jobs):
                self.places[id(job)] = (self.number, i)
        while len(self.passes) > self.limit:
            old = self.passes.popleft()[1]
            if self.places:
                for job in old:
                    self.places.pop(id(job), None)

    def job(self, number: int, index: int):
        """The job at ``index`` of kept pass ``number``."""
        return self.passes[number - self.passes[0][0]][1][index]

    def clear(self) -> None:
        self.passes.clear()
        self.places.clear()
        self.limit = KEPT_PASSES


class LoopReplay:
    """A machine's replay of tiling loops: which loop it watches (by its branch's pc, and its body's
    words), the pass ends seen, the kept passes' jobs, the loops that did not settle (left alone for a
    while), and the ``Replay`` under way. It takes over the state's ``submit`` and ``scalar_access``
    while it watches or replays, and swaps the run loop's backward branches for watched ones for a run
    that may replay."""

    def __init__(self, state, code, tally) -> None:
        self.state = state  # the CoreState whose ``submit`` and ``scalar_access`` it takes over
        self.code = code
        self.tally = tally  # (it counts the instructions of the passes replayed)
        self.ops, self.plain, self.watched = code.ops, {}, {}
        for b in code.bound:
            if (b.inst.row.family in ("branch", "jump") and b.inst.operands[-1] <= b.pc
                    and code.ops[b.pc // 8] is b.run):  # (not one inside a vector function)
                self.plain[b.pc // 8], self.watched[b.pc // 8] = b.run, self._watched(b.run, b.pc)
        self.engine = None  # set for a run that may replay (``start``)
        self.loop: int | None = None
        self.body = slice(0, 0)
        self.ends: list[PassEnd] = []  # the last three
        self.watched_ends = self.same_shape = 0  # pass ends watched, and the last of one shape in a row
        self.quiet: dict = {}  # branch pc -> (pass ends left unwatched, times it failed to settle)
        self.jobs: list = []  # the pass under way: (job, dispatch, cycle after)
        self.placed: list = []  # data jobs placed during it: (job, pipe, clock with V's epoch and knowledge, cost)
        self.kept = Kept()
        self.replay: Replay | None = None
        self.passes = 0  # passes replayed in all (tests and the bench read it)

    def _watched(self, op, pc: int):
        def run(state):
            target = op(state)
            if target <= pc:
                self.pass_end(pc, target)
            return target
        return run

    def start(self, engine) -> None:
        """A run begins with ``engine`` (None: a run that does not replay: timed, traced, limited in cycles)."""
        self.engine = engine
        for index, op in (self.watched if engine is not None else self.plain).items():
            self.ops[index] = op
        self.forget()

    def forget(self) -> None:
        """Watch nothing: the engine takes the jobs again."""
        self.loop, self.ends, self.jobs, self.placed, self.replay = None, [], [], [], None
        self.watched_ends = self.same_shape = 0
        self.kept.clear()
        if self.engine is not None:
            self.engine.observer = None
            self.state.connect(self.engine)

    def body_count(self) -> int:
        """How many times the instructions of the loop's body have run (the replayed count's measure)."""
        return sum(self.tally.per_word[self.body])

    # -- watching ------------------------------------------------------------------------------------
    def pass_end(self, pc: int, target: int) -> None:
        """The branch at ``pc`` goes back to ``target``: a pass of the loop between them has ended."""
        if self.replay is not None:
            if pc == self.loop and self.replay.whole():
                self.passes += 1
                self.replay.pass_end()
                return
            self.stop()
        if pc != self.loop:
            self.forget()
            left, fails = self.quiet.get(pc, (0, 0))
            if left > 0:
                self.quiet[pc] = (left - 1, fails)
                return
            self._watch(pc, target)
            return
        jobs, self.jobs = self.jobs, []
        self.kept.add([job for job, _, _ in jobs], True)
        end = PassEnd(self.engine, jobs, self.placed, self.body_count())
        self.placed = []
        self.same_shape = self.same_shape + 1 if end.state[0] == self.ends[-1].state[0] else 0
        self.watched_ends += 1
        self.ends = [*self.ends[-2:], end]
        if len(self.ends) == 3 and self._settled():
            return
        if self.same_shape >= WATCH_PASSES or self.watched_ends > WATCH_LIMIT:
            left, fails = self.quiet.get(pc, (0, 0))
            self.quiet[pc] = (QUIET_PASSES << fails, fails + 1)
            self.forget()

    def _watch(self, pc: int, target: int) -> None:
        """Start watching the loop ending at ``pc``: from now on each job and each placement is kept."""
        self.loop, self.body = pc, slice(target // 8, pc // 8 + 1)
        engine = self.engine
        self.state.submit = self._watch_submit
        self.state.scalar_access = self._impure_access
        engine.observer = self._observe
        self.ends.append(PassEnd(engine, [], [], self.body_count()))

    def _watch_submit(self, job) -> None:
        engine = self.engine
        if job.pc in self.code.functions or job.kind == "syncall" or job.priced_at_start:
            self._impure()  # a vector function's launch, SYNCALL: the loop is scheduled pass by pass
            engine.submit(job)
            return
        dispatch = engine.now
        engine.submit(job)
        self.jobs.append((job, dispatch, engine.now))

    def _impure_access(self, job) -> None:
        """LD or ST in a watched or replayed loop: it is scheduled pass by pass."""
        self._impure()
        self.engine.scalar_access(job)

    def _impure(self) -> None:
        """The loop watched (or replayed: the engine takes its state back) is scheduled pass by pass
        from now on."""
        loop = self.loop
        self.stop()
        self.quiet[loop] = (1 << 30, 0)
        self.forget()

    def _observe(self, job, pipe: str, clock, cost) -> None:
        order = self.engine.order  # (a2's V epoch and what V knows of itself enter its access's check)
        self.placed.append((job, pipe, (*clock, order.v_epoch, order.v_known), cost))

    def _settled(self) -> bool:
        """Whether the last three pass ends are one steady state; if so, replay from here on."""
        a, b, c = self.ends[-3:]
        places = self.kept.places
        moves = shifts(a.state, b.state, (a.now, b.now), places, a.horizon)
        if moves is None or shifts(b.state, c.state, (b.now, c.now), places, b.horizon) != moves:
            return False
        replay = Replay.of(self, b, c, moves)
        if replay is None:
            return False
        self.replay = replay
        self.kept.places.clear()  # (the replay has taken the places it needs: ``Replay.named``)
        self.engine.observer = None
        self.state.submit = replay.submit
        return True

    def stop(self) -> None:
        """End a replay (if one is under way): the engine takes the state of the last pass end and the
        jobs of the pass under way."""
        replay = self.replay
        if replay is None:
            return
        engine = self.engine
        install(engine, replay.last.state[0], replay.state_now())
        add_passes(engine.accounting, replay.counts[0], replay.counts[1], replay.windows)
        now = engine.now
        current, dispatched = replay.current, replay.dispatched
        self.forget()
        for job, dispatch in zip(current, dispatched, strict=True):  # (performed already: the engine schedules them)
            engine.now = dispatch
            engine.submit(job)
        engine.now = now


class Replay:
    """One settled loop replayed: the model pass (its jobs with how each of their numbers moves a
    pass, the placements of its window, each memory space's stride), the state at its end (``last``)
    and how it moves a pass, the accounting of a pass; and how far the replay has come: whole passes
    (``windows``), the jobs of the pass under way, and what pass ``j`` after the model adds."""

    def __init__(self, owner: LoopReplay, model: tuple, last: PassEnd, moves: list, counts: tuple) -> None:
        self.owner, self.engine, self.kept = owner, owner.engine, owner.kept
        self.model, self.placed, self.strides, self.groups = model
        self.last, self.moves, self.counts, self.counted = last, moves, counts, last.executed
        self.dt, self.dseq = counts[2], len(self.model)
        places = owner.kept.places
        self.named = {id(leaf[1]): places[id(leaf[1])] for leaf in last.state[1]
                      if leaf[0] == JOB and id(leaf[1]) in places}  # the jobs the state names: their places
        self.i, self.windows, self.current, self.dispatched = 0, 0, [], []
        self.values(1)
        # From now on only the passes the state or a placement names are kept (the oldest, and one more).
        oldest = min([number for number, _ in self.named.values()] +
                     [owner.kept.number + offset for offset, *_ in self.placed] + [owner.kept.number])
        owner.kept.limit = owner.kept.number - oldest + 2

    @classmethod
    def of(cls, owner: LoopReplay, b: PassEnd, c: PassEnd, moves: list) -> Replay | None:
        """The replay of the pass ended at ``c`` as the model, or None when it is not the pass ended at
        ``b`` shifted: the same instructions at the same cycles after the pass starts, the same costs,
        footprints moved by one stride a space, the same placements."""
        old, new = b.jobs, c.jobs
        if len(old) != len(new) or not new:
            return None
        code, costs, places, number = owner.code, owner.engine.costs, owner.kept.places, owner.kept.number
        dt = c.now - b.now
        for (x, dx, ax), (y, dy, ay) in zip(old, new, strict=True):
            if x.pc != y.pc or dy - dx != dt or ay - ax != dt or y.seq - x.seq != len(new):
                return None
        strides = strides_of([x for x, _, _ in old], [y for y, _, _ in new])
        if strides is None or len(b.placed) != len(c.placed):
            return None
        model, groups = [], {}
        for (x, _, _), (y, dy, ay) in zip(old, new, strict=True):
            clock = _delta(x.s_clock, y.s_clock)
            if clock is False:
                return None
            group = groups.setdefault((y.s_clock, clock), len(groups)) if clock is not None else None
            cost = None
            if y.kind == "data":  # what decides its cost: a DMA's GM bytes, a tensor's iterations if UB stays
                timing = code.inst_at(y.pc).row.timing
                cost = costs.dma_key(y) if timing.startswith("dma.") else \
                    (y.iterations,) if timing.startswith("tensor.") and not strides.get("ub") else \
                    costs.job_cost(code.inst_at(y.pc), y)
            fixed = not any(strides.get(space) for f in (y.footprint_reads, y.footprint_writes) for space in f or ())
            model.append((y.pc, dy, ay, y.seq, group, cost, fixed, y))
        placed = []
        for (x, px, cx, kx), (y, py, cy, ky) in zip(b.placed, c.placed, strict=True):
            wx, wy = places.get(id(x)), places.get(id(y))
            if wx is None or wy is None or wx[1] != wy[1] or wy[0] - wx[0] != 1 or px != py or kx != ky:
                return None
            clock = _delta(cx, cy)
            if clock is False or clock is None or y.end - y.start != x.end - x.start or y.start - x.start != dt:
                return None
            placed.append((wy[0] - number, wy[1], py, y.start, y.end, cy, clock))
        return cls(owner, (model, placed, strides, list(groups)), c, moves, (b.counts, c.counts, dt))

    def values(self, j: int) -> None:
        """What pass ``j`` after the model adds: cycles, sequence numbers, S's clocks as its jobs take them."""
        self.j, self.shift, self.seq_shift = j, j * self.dt, j * self.dseq
        self.clocks = [(c[0] + j * d[0], c[1] + j * d[1], c[2] + j * d[2], c[3] + j * d[3])
                       for c, d in self.groups]

    def submit(self, job) -> None:
        """The scalar unit hands over a job: the model's next, performed and given its numbers; else the
        replay stops and the engine takes it."""
        i = self.i
        model = self.model
        engine = self.engine
        if i < len(model):
            pc, dispatch, after, seq, group, cost, fixed, like = model[i]
            if job.pc == pc and engine.now == dispatch + self.shift and (
                    job.kind != "data" or self._same_data(job, like, cost, fixed)):
                job.seq, job.dispatch, job.pipe = seq + self.seq_shift, engine.now, like.pipe
                if group is not None:
                    job.s_clock = self.clocks[group]
                self.current.append(job)
                self.dispatched.append(engine.now)
                engine.now = after + self.shift
                self.i = i + 1
                return
        self.owner.stop()
        engine.submit(job)

    def _same_data(self, job, like, cost, fixed: bool) -> bool:
        """Perform a data job now (program order), and say whether it is the model's, moved, and costs
        what it cost (``cost``: a DMA's key; a tensor instruction's iterations when UB does not move, its
        footprints then its very addresses; else its cost)."""
        engine = self.engine
        engine.program_order.perform_now(job)
        same = fixed and job.footprint_reads is like.footprint_reads and job.footprint_writes is like.footprint_writes
        if not (same or moved(job, like, self.j, self.strides)):
            return False
        if cost.__class__ is tuple:
            return job.iterations == cost[0] if len(cost) == 1 else engine.costs.dma_key(job) == cost
        return engine.costs.job_cost(self.owner.code.inst_at(job.pc), job) == cost

    def whole(self) -> bool:
        """Whether the pass under way has handed over all the model's jobs."""
        return self.i == len(self.model)

    def pass_end(self) -> None:
        """A pass replayed whole: its window's placements get their times and their order checks."""
        j, dt, order, kept = self.j, self.dt, self.engine.order, self.kept
        kept.add(self.current, False)
        self.current, self.dispatched = [], []
        number, jobs = kept.number, kept.passes[-1][1]
        for offset, index, pipe, start, end, clock, dclock in self.placed:
            job = jobs[index] if offset == 0 else kept.job(number + offset, index)
            job.start, job.end = start + j * dt, end + j * dt
            order.v_epoch, order.v_known = clock[4] + j * dclock[4], clock[5] + j * dclock[5]
            order.access(job, pipe, [clock[0] + j * dclock[0], clock[1] + j * dclock[1], clock[2] + j * dclock[2],
                                     clock[3] + j * dclock[3]])
        self.windows += 1
        counted = self.owner.body_count()
        self.owner.tally.replayed += counted - self.counted
        self.counted = counted
        self.i = 0
        self.values(j + 1)

    def state_now(self) -> list:
        """The leaves of the state at the last pass end (``last``'s, moved on by the whole passes replayed)."""
        w, named, kept = self.windows, self.named, self.kept

        def job_at(job):
            number, index = named[id(job)]
            return kept.job(number + w, index)

        return shifted(self.last.state[1], self.moves, w, job_at)


def _delta(a, b):
    """Per component, how far clock ``b`` lies from ``a`` (None: neither is set; False: one only)."""
    if a is None or b is None:
        return None if a is b else False
    return tuple(y - x for x, y in zip(a, b, strict=True))
