"""The pipelined cycle model: S dispatches in program order, V, MTE2 and MTE3 run their queues in
order and overlap, flags and barriers order them, and data moves as if at simulated times.

Each job is scheduled once: its start and end follow from its pipe, its flags and the profile's
costs. The work per instruction is constant: nothing here iterates over cycles. Data moves in one
of two ways, and the schedule is the same in both:

- timed (``timed=True``): a job is performed at its start on the state as it is then, and its
  writes land at its end. A consumer that nothing orders after its producer reads stale data, as
  on hardware, and the engine names the race.
- in program order (``timed=False``, the fast way): a job is performed when it is dispatched.
  Where no two jobs race, that is the same data: every read then sees the last write before it in
  program order, and no later one. The engine checks, as it schedules each job, whether it overlaps
  in time with a job of another pipe that touches the same bytes, a superset of every race the
  timed run would name; at the first such pair it raises ``Diverged`` and the machine runs the
  program again, timed.
"""

from __future__ import annotations

import heapq
from collections import defaultdict, deque
from itertools import chain

import numpy as np
from attrs import define, field

from emulator.costs import CostModel
from emulator.faults import Fault
from emulator.jobs import REGISTER_SPACES, Job, footprint, runs_of

PIPES = ("S", "V", "MTE2", "MTE3")
QUEUED = ("V", "MTE2", "MTE3")
_LANE32 = np.arange(32, dtype=np.int64)
_END, _START = 0, 1  # at one time, writes land before reads happen
_PRUNE_EVERY = 256  # landings between prunes of the landed-jobs log
TRACE_LIMIT = 500_000  # slices kept for --trace; later ones are counted, not kept
_new_job = object.__new__
_RECENT_PRUNE = 64  # scheduled jobs a pipe keeps for the program-order race check between prunes


class Diverged(Exception):
    """A program-order run found two jobs whose data could depend on timing (or a fault inside the
    engine, whose state only a timed run gives exactly): the program must be run timed."""


@define
class PcStats:
    """What one static instruction cost, summed over its runs."""

    cycles: int = 0
    iterations: int = 0
    bank_conflict: int = 0
    stalls: dict = field(factory=lambda: defaultdict(int))


@define
class Race:
    kind: str  # RAW, WAR, WAW
    first: dict  # the earlier instruction in program order: pc, line, pipe, text
    second: dict
    space: str
    start: int
    end: int
    count: int = 1


def overlap(a: dict, b: dict) -> tuple[str, int, int] | None:
    """The first shared space of two footprints and the byte range where their blocks meet."""
    for space, (runs, lo, hi) in a.items():
        found = b.get(space)
        if found is None:
            continue
        other, other_lo, other_hi = found
        if hi <= other_lo or other_hi <= lo:
            continue
        if runs is None and other is None:
            return space, max(lo, other_lo) * 32, min(hi, other_hi) * 32
        mine = runs if runs is not None else np.array([[lo, hi]], dtype=np.int64)
        theirs = other if other is not None else np.array([[other_lo, other_hi]], dtype=np.int64)
        # For each run of ``mine``, the last run of ``theirs`` starting before it ends.
        j = np.searchsorted(theirs[:, 0], mine[:, 1], side="left") - 1
        hit = (j >= 0) & (theirs[np.maximum(j, 0), 1] > mine[:, 0])
        if hit.any():
            k = int(np.flatnonzero(hit)[0])
            o = theirs[j[k]]
            return space, int(max(mine[k, 0], o[0])) * 32, int(min(mine[k, 1], o[1])) * 32
    return None


class Engine:
    """Schedules, performs and accounts the jobs of one machine."""

    def __init__(self, machine, strict: bool = False, max_cycles: int | None = None, trace: bool = False,
                 timed: bool = True) -> None:
        self.m = machine
        self.pipe_of = machine.pipes  # pc -> pipe
        self.timed = timed
        self.costs = CostModel(machine.profile)
        self.in_order_v = bool(machine.profile["vector"]["in_order_results"])
        self.register_caps = machine.profile["register"]
        self.strict = strict
        self.max_cycles = max_cycles
        self.cycle_limit = float("inf") if max_cycles is None else max_cycles
        self.queue = {p: deque() for p in QUEUED}
        self.queue_depth = machine.profile["scalar"]["queue_depth"]
        self.waiting_start = {p: deque() for p in QUEUED}  # start cycles of scheduled jobs, in order
        self.free = dict.fromkeys(PIPES, 0)
        self.done = dict.fromkeys(PIPES, 0)
        self.busy = dict.fromkeys(PIPES, 0)
        self.busy_until = dict.fromkeys(PIPES, 0)
        self.count = dict.fromkeys(PIPES, 0)
        self.events: list = []
        self.inflight: dict[str, dict[int, Job]] = {p: {} for p in QUEUED}  # started, not landed, per pipe
        self.other_inflight = {p: tuple(self.inflight[q] for q in QUEUED if q != p) for p in QUEUED}
        # Jobs that have landed but could still race with an earlier job that has not started.
        self.landed: list[Job] = []
        # Per pipe, the sequence numbers of its data jobs not yet started: a pipe starts them in order.
        self.unstarted: dict[str, deque] = {p: deque() for p in QUEUED}
        self.plans: dict = {}  # pc -> what scheduling a register instruction needs (``_plan``)
        self.sets: dict = defaultdict(deque)  # flag -> (cycle, pc) of each set not yet taken
        self.last_consume: dict = {}  # flag -> (set cycle, consume cycle) of its latest consumed set
        self.v_recent: list[Job] = []  # V jobs writing UB/GM whose results may still be in flight
        self.register_ready: dict = {}  # register space -> cycle its V result is ready
        self.v_cycle = [-1, 0, 0, 0, 0]
        self.function_started = False  # register co-issue: cycle, slots, register writes, UB reads, UB writes
        self.seq = 0
        self.stats: dict[int, PcStats] = defaultdict(PcStats)
        self.stall_totals: dict = defaultdict(int)
        self.races: dict = {}
        self.flag_warnings: list[str] = []
        self.flag_warned: set = set()
        self.trace_on = trace
        self.slices: list = []  # (pipe, pc, start, end, job), at most trace_limit of them
        self.releases: list = []  # per slice, the cycle its pipe could start the next instruction
        self.trace_limit = TRACE_LIMIT
        self.slices_dropped = 0
        self.flows: list = []  # (set job, wait job)
        self.set_jobs: dict = defaultdict(deque)
        self.pending_writes: dict[int, list] = {}
        # Program order: per pipe, the scheduled data jobs a job scheduled later could overlap.
        self.recent: dict[str, list[Job]] = {p: [] for p in QUEUED}
        self.ordered = {p: p != "V" or self.in_order_v for p in QUEUED}
        # The lists a job of each pipe is checked against: the other pipes', and its own if unordered.
        self.rivals = {p: tuple(self.recent[q] for q in QUEUED if q != p or not self.ordered[p]) for p in QUEUED}
        # Program order: what GM held before the run wrote it, each 32-byte block kept once (at its
        # first write), so the log never outgrows GM however often a program writes it.
        self.gm_undo: list = []  # (start byte, bytes before)
        self.gm_kept: np.ndarray | None = None  # per GM block: already in the log

    # -- dispatch from the scalar unit -----------------------------------------------------------
    def submit(self, job: Job) -> None:
        """Take a job from the scalar unit at its dispatch, on its instruction's pipe."""
        m = self.m
        pipe = self.pipe_of[job.pc]
        self.seq += 1
        job.seq, job.dispatch, job.pipe = self.seq, m.now, pipe
        if pipe == "S":
            self._on_s(job)
            return
        queue = self.queue[pipe]
        if job.kind == "data":
            if self.timed:
                self.unstarted[pipe].append(job.seq)
            else:
                self._perform_now(job)
            if not queue:  # nothing waits ahead of it, and a data job unblocks no other pipe
                plan = self.plans.get(job.pc)
                if plan is not None:
                    self._schedule_register(job, plan)
                else:
                    queue.append(job)
                    self._schedule_head(pipe)
            else:
                queue.append(job)
                self.schedule()
        else:
            queue.append(job)
            self.schedule()
        waiting = self.waiting_start[pipe]
        if len(waiting) > self.queue_depth:
            self._respect_queue_depth(pipe, job)
        if self.timed:
            self.advance(self.horizon())

    def submit_register(self, pc: int, perform, reads: dict, writes: dict, apply) -> None:
        """``submit`` for a register instruction: a job on V with its footprints, a ``perform``
        that returns what lands its writes (None: it reads nothing, and ``apply`` is what lands; a
        program-order run never performs, so binders pass None then), and an ``apply`` that
        performs and lands at once. The common case of ``submit``, written out."""
        job = _new_job(Job)
        job.pc, job.perform, job.footprint_reads, job.footprint_writes, job.apply = pc, perform, reads, writes, apply
        job.lands = True
        self.seq += 1
        job.seq, job.dispatch, job.pipe = self.seq, self.m.now, "V"
        if self.timed:
            self.unstarted["V"].append(job.seq)
        else:
            try:
                apply()
            except Fault:  # the state at a job's fault is the timed run's: what had started by then
                raise Diverged from None
        queue = self.queue["V"]
        plan = None if queue else self.plans.get(pc)
        if plan is not None:
            self._schedule_register(job, plan)
        else:
            queue.append(job)
            if len(queue) == 1:
                self._schedule_head("V")
            else:
                self.schedule()
        if len(self.waiting_start["V"]) > self.queue_depth:
            self._respect_queue_depth("V", job)
        if self.timed:
            self.advance(self.horizon())

    def _respect_queue_depth(self, pipe: str, job: Job) -> None:
        """A pipe's queue holds ``scalar.queue_depth`` instructions that have not started; the scalar
        unit waits for a free slot before it reads on."""
        m, waiting = self.m, self.waiting_start[pipe]
        now = m.now
        while waiting and waiting[0] <= now:
            waiting.popleft()
        excess = len(waiting) - self.queue_depth
        if excess > 0:
            when = waiting[excess - 1]
            self._stall(job.pc, "queue_full", when - now)
            m.now = when
            while waiting and waiting[0] <= when:
                waiting.popleft()

    def _on_s(self, job: Job) -> None:
        """SETFLAG S, WAITFLAG ..., S and BARRIER S / ALL: they act at dispatch, in program order."""
        m, cost = self.m, self.costs.sync_cost(job.kind).occupancy
        if job.kind == "set":
            self._flag_set(job, m.now)
        elif job.kind == "wait":
            key = job.flag
            while not self.sets[key]:
                if not self.schedule():
                    self._deadlock(extra=f"S waits at {self.m.describe(job.pc)} for SETFLAG {', '.join(map(str, key))}")
            when = self._flag_consume(job, m.now)
            self._stall(job.pc, "flag_wait", when - m.now)
            m.now = when
        else:  # BARRIER S or BARRIER ALL (pipe_of gives S for ALL)
            inst = self.m.inst_at(job.pc)
            if inst.operands[0] == "ALL":
                self.drain_schedule()
                when = max(m.now, *self.done.values())
                for pipe in PIPES:
                    self.free[pipe] = max(self.free[pipe], when)
                self._stall(job.pc, "barrier", when - m.now)
                m.now = when
        job.start, job.end = m.now, m.now + cost
        m.now += cost  # the run loop adds the issue cycle on top; a sync on S costs its own cycles too
        self._account(job, "S", cost, 0)

    # -- flags -------------------------------------------------------------------------------------
    # A flag set again before its previous set was taken is warned about once per flag. The check
    # is made as sets and waits are scheduled, so it keeps only the sets not yet taken.
    def _flag_set(self, job: Job, when: int) -> None:
        key = job.flag
        previous = self.last_consume.get(key)
        if not self.sets[key] and previous is not None and when < previous[1]:
            self._double_set(key, previous[0], (when, job.pc))
        self.sets[key].append((when, job.pc))
        if self.trace_on:
            self.set_jobs[key].append(job)

    def _double_set(self, key: tuple, first: int, again: tuple) -> None:
        """``again`` is (cycle, pc) of the second SETFLAG."""
        if key not in self.flag_warned:
            self.flag_warned.add(key)
            self.flag_warnings.append(f"flag {key[0]} -> {key[1]} event {key[2]} set again at cycle {again[0]} by "
                                      f"{self.m.describe(again[1])} while still set (since cycle {first})")

    def _flag_consume(self, job: Job, ready: int) -> int:
        waiting = self.sets[job.flag]
        set_at, _ = waiting.popleft()
        when = max(ready, set_at)
        if waiting and waiting[0][0] < when:  # the next set came before this one was taken
            self._double_set(job.flag, set_at, waiting[0])
        self.last_consume[job.flag] = (set_at, when)
        if self.trace_on and self.set_jobs[job.flag]:
            self.flows.append((self.set_jobs[job.flag].popleft(), job))
        return when

    # -- scheduling --------------------------------------------------------------------------------
    def schedule(self) -> bool:
        """Schedule every queue head that can be; True when anything was scheduled."""
        progress_any = False
        progress = True
        while progress:
            progress = False
            for pipe in QUEUED:
                while self.queue[pipe] and self._schedule_head(pipe):
                    progress = progress_any = True
        return progress_any

    def _schedule_head(self, pipe: str) -> bool:
        queue = self.queue[pipe]
        job = queue[0]
        kind = job.kind
        if kind == "wait" and not self.sets[job.flag]:
            return False
        queue.popleft()
        if kind == "data":
            plan = self.plans.get(job.pc)
            if plan is None:
                inst = self.m.inst_at(job.pc)
                cost = self.costs.job_cost(inst, job)
                if self.costs.is_transfer(inst):
                    self._schedule_transfer(job, pipe, cost)
                    return True
                self._footprints(job)
                plan = self._plan(job, cost)
                if job.refine is None:  # a refined footprint may touch memory one time and not the next
                    self.plans[job.pc] = plan
            self._schedule_register(job, plan)
            return True
        ready = max(job.dispatch, self.free[pipe])
        if kind == "wait":
            start = self._flag_consume(job, ready)
            self._stall(job.pc, "flag_wait", start - ready)
        else:  # set, barrier
            start = max(ready, self.done[pipe])
            self._stall(job.pc, "barrier" if kind == "barrier" else "drain", start - ready)
            if kind == "set":
                self._flag_set(job, start)
        self._place(job, pipe, start, self.costs.sync_cost(kind), 0)
        return True

    def _place(self, job: Job, pipe: str, start: int, cost, conflicts: int) -> None:
        """Fix a job's times, account them, and queue its start and end events."""
        job.start, job.end = start, start + cost.latency
        if job.end > self.cycle_limit:
            raise self.m.fault_at(Fault(f"--max-cycles {self.max_cycles} reached", kind="limit"), job.pc)
        self.free[pipe] = start + cost.occupancy
        self.done[pipe] = max(self.done[pipe], job.end)
        self._account(job, pipe, cost.latency, conflicts)
        self.waiting_start[pipe].append(start)
        if job.kind == "data":
            if self.timed:
                heapq.heappush(self.events, (job.start, _START, job.seq, job))
                heapq.heappush(self.events, (job.end, _END, job.seq, job))
            else:
                self._check_overlaps(job, pipe)

    def _schedule_transfer(self, job: Job, pipe: str, cost) -> None:
        """A tensor instruction (V) or a DMA (MTE2/MTE3), whose cost follows from its operands."""
        ready = max(job.dispatch, self.free[pipe])
        start = ready
        if pipe == "V":
            self._footprints(job)
            if self.in_order_v:
                depends = self._scoreboard(job, ready)
                start = max(ready, depends)
                self._stall(job.pc, "dependency", depends - ready)
        self._place(job, pipe, start, cost, cost.conflicts)
        if pipe == "V" and self.in_order_v:
            self._record_results(job)

    @staticmethod
    def _footprints(job: Job) -> None:
        if job.footprint_reads is None or job.footprint_writes is None:
            job.footprint_reads, job.footprint_writes = footprint(job.reads), footprint(job.writes)

    def _scoreboard(self, job: Job, ready: int) -> int:
        """950: the cycle the V results a job reads or overwrites are ready (at least its dispatch)."""
        depends = job.dispatch
        ready_at = self.register_ready
        memory_touched = False
        for space in chain(job.footprint_reads, job.footprint_writes):
            if space in REGISTER_SPACES:
                depends = max(depends, ready_at.get(space, 0))
            else:
                memory_touched = True
        if memory_touched and self.v_recent:
            depends = self._memory_depends(job, ready, depends)
        return depends

    def _memory_depends(self, job: Job, ready: int, depends: int) -> int:
        """``depends``, or later: the end of a V job still in flight that writes memory this one
        reads or writes. Only writers still in flight when this job could start can delay it; a
        register instruction may co-issue one cycle before ``ready``. V touches no memory but UB,
        so single runs of UB blocks are compared here directly."""
        recent = self.v_recent
        if recent[0].end < ready or recent[-1].end < ready:
            recent = self.v_recent = [e for e in recent if e.end >= ready]
        mine = (job.footprint_reads.get("ub"), job.footprint_writes.get("ub"))
        for earlier in recent:
            if earlier.end > depends:
                theirs = earlier.footprint_writes.get("ub")  # none: a scatter refined to no lanes
                if theirs is None:
                    continue
                for found in mine:
                    if found is None:
                        continue
                    if found[0] is None and theirs[0] is None:
                        hit = found[1] < theirs[2] and theirs[1] < found[2]
                    else:
                        hit = overlap({"ub": theirs}, {"ub": found}) is not None
                    if hit:
                        depends = earlier.end
                        break
        return depends

    def _record_results(self, job: Job) -> None:
        """When a V job's results will be ready: per register, and in the list of memory writers."""
        memory = False
        for space in job.footprint_writes:
            if space in REGISTER_SPACES:
                self.register_ready[space] = job.end
            else:
                memory = True
        if memory:
            self.v_recent.append(job)

    @staticmethod
    def _plan(job: Job, cost) -> tuple:
        """What a register instruction's scheduling needs that depends on its pc alone: its cost,
        the registers it reads or writes, whether it touches memory, and its co-issue ports."""
        reads, writes = job.footprint_reads, job.footprint_writes
        touched = tuple(space for space in chain(reads, writes) if space in REGISTER_SPACES)
        written = tuple(space for space in writes if space in REGISTER_SPACES)
        memory = len(touched) < len(reads) + len(writes)
        return (cost.latency, cost.occupancy, touched, written, memory, len(written) < len(writes),
                len(written), int("ub" in reads), int("ub" in writes))

    def _schedule_register(self, job: Job, plan: tuple) -> None:
        """A register instruction on V: after the results it depends on (950), launched with the
        program's vector function, co-issuing two per cycle within the documented port limits.
        The hottest path of a register loop, so it is written out in one piece: ``_place``,
        ``_account`` and ``_record_results`` for a job whose cost and ports ``plan`` holds."""
        latency, occupancy, touched, written, memory, writes_memory, reg_writes, ub_reads, ub_writes = plan
        pc, dispatch = job.pc, job.dispatch
        if job.footprint_writes is None:  # binders set both footprints or neither
            job.footprint_reads, job.footprint_writes = footprint(job.reads), footprint(job.writes)
        free = self.free
        ready = free["V"]
        if dispatch > ready:
            ready = dispatch
        depends = dispatch
        ordered = self.in_order_v
        if ordered:  # the scoreboard
            ready_at = self.register_ready
            for space in touched:
                when = ready_at.get(space, 0)
                if when > depends:
                    depends = when
            if memory and self.v_recent:
                depends = self._memory_depends(job, ready, depends)
        if depends > ready:
            start = depends
            self.stats[pc].stalls["dependency"] += depends - ready  # _stall, written out
            self.stall_totals["dependency"] += depends - ready
        else:
            start = ready
        if not self.function_started:
            # The program's register instructions form one vector function, launched once.
            self.function_started = True
            launch = dispatch + self.register_caps["function_startup"]
            if launch > start:
                self._stall(pc, "function_startup", launch - start)
                start = launch
        # Co-issue beside the previous register instruction when it issued in the cycle before
        # ``start`` with a one-cycle occupancy, this one was ready then, and the ports allow.
        cycle = self.v_cycle
        if cycle[0] == start - 1 and free["V"] == start and depends <= cycle[0]:
            caps = self.register_caps
            slots, writes, reads, ubw = cycle[1] + 1, cycle[2] + reg_writes, cycle[3] + ub_reads, cycle[4] + ub_writes
            if (slots <= caps["issue_width"] and writes <= caps["register_writes"] and reads + ubw <= caps["ub_reads"]
                    and ubw <= 1):
                self.v_cycle = [cycle[0], slots, writes, reads, ubw]
                start = cycle[0]
            else:
                self.v_cycle = [start, 1, reg_writes, ub_reads, ub_writes]
        else:
            self.v_cycle = [start, 1, reg_writes, ub_reads, ub_writes]
        # _place and _account
        end = start + latency
        job.start, job.end = start, end
        if end > self.cycle_limit:
            raise self.m.fault_at(Fault(f"--max-cycles {self.max_cycles} reached", kind="limit"), pc)
        free["V"] = start + occupancy
        if end > self.done["V"]:
            self.done["V"] = end
        self.stats[pc].cycles += latency  # (a register instruction counts no iterations)
        self.count["V"] += 1
        begin = self.busy_until["V"]
        if start > begin:
            begin = start
        if end > begin:
            self.busy["V"] += end - begin
            self.busy_until["V"] = end
        if self.trace_on:
            self.trace_slice("V", pc, start, end, job, start + occupancy)
        self.waiting_start["V"].append(start)
        if self.timed:
            heapq.heappush(self.events, (start, _START, job.seq, job))
            heapq.heappush(self.events, (end, _END, job.seq, job))
        elif not ordered:
            self._check_overlaps(job, "V")
        elif memory:  # only V touches registers: there V orders itself on 950
            mte2, mte3 = self.rivals["V"]
            if mte2 or mte3:
                self._check_overlaps(job, "V")
            else:  # nothing of another pipe to overlap: _check_overlaps, written out
                mine = self.recent["V"]
                mine.append(job)
                if not len(mine) % _RECENT_PRUNE:
                    self._prune_recent()
        # _record_results
        if ordered:
            ready_at = self.register_ready
            for space in written:
                ready_at[space] = end
            if writes_memory:
                self.v_recent.append(job)

    def drain_schedule(self) -> None:
        while any(self.queue.values()):
            if not self.schedule():
                self._deadlock()

    def _deadlock(self, extra: str = "") -> None:
        waiting = []
        for pipe in QUEUED:
            if self.queue[pipe]:
                head = self.queue[pipe][0]
                flag = f" for SETFLAG {', '.join(map(str, head.flag))}" if head.flag else ""
                waiting.append(f"{pipe} waits at {self.m.describe(head.pc)}{flag}")
        if extra:
            waiting.append(extra)
        first = next((q[0] for q in self.queue.values() if q), None)
        fault = Fault("deadlock: every pipe waits for a flag that nothing will set:\n    " + "\n    ".join(waiting),
                      kind="deadlock")
        raise self.m.fault_at(fault, first.pc if first is not None else self.m.pc)

    # -- program order -----------------------------------------------------------------------------
    def _perform_now(self, job: Job) -> None:
        """Perform a job and land its writes at dispatch (program order), keeping what GM held."""
        if job.footprint_reads is None or job.footprint_writes is None:
            job.footprint_reads, job.footprint_writes = footprint(job.reads), footprint(job.writes)
        gm = job.footprint_writes.get("gm")
        if gm is not None:
            self._keep_gm(gm[1], gm[2])
        try:
            if job.apply is not None:
                job.apply()
            elif job.lands:
                job.perform()()
            elif job.perform is not None:
                job.perform()
        except Fault:  # the state at a job's fault is the timed run's: what had started by then
            raise Diverged from None

    def _check_overlaps(self, job: Job, pipe: str) -> None:
        """Diverged when this job and one scheduled before it overlap in time and touch the same
        bytes, with at least one writing, and no pipe orders the two. The pair (a, b), a first in
        program order, overlaps when b starts before a ends: a timed run names a race only then."""
        reads, writes = job.footprint_reads, job.footprint_writes
        if not reads and not writes:
            return
        seq, start, end = job.seq, job.start, job.end
        for jobs in self.rivals[pipe]:
            for other in jobs:
                meet = (start < other.end or start < other.start) if other.seq < seq else \
                    (other.start < end or other.start < start)
                if meet and (overlap(other.footprint_writes, reads) or overlap(other.footprint_writes, writes)
                             or overlap(writes, other.footprint_reads)):
                    raise Diverged
        mine = self.recent[pipe]
        mine.append(job)
        if not len(mine) % _RECENT_PRUNE:
            self._prune_recent()

    def _prune_recent(self) -> None:
        """Forget the jobs that no job scheduled later can overlap: those that ended before any
        later start can be, and that come before every job still waiting in a queue in program
        order (a waiting job, earlier than them, could start at any time)."""
        floor = self.horizon() - 2  # a register instruction can co-issue a cycle early
        waiting = [q[0].seq for q in self.queue.values() if q]
        oldest = min(waiting) if waiting else self.seq + 1
        for jobs in self.recent.values():
            jobs[:] = [j for j in jobs if j.end > floor or j.seq > oldest]

    def _keep_gm(self, lo: int, hi: int) -> None:
        """Log what GM blocks [lo, hi) hold, for those not logged yet."""
        gm = self.m.gm
        if self.gm_kept is None:
            self.gm_kept = np.zeros(-(-gm.size // 32), dtype=bool)
        kept = self.gm_kept
        fresh = np.flatnonzero(~kept[lo:hi]) + lo
        if fresh.size:
            kept[fresh] = True
            for first, end in runs_of(fresh):
                start = int(first) * 32
                self.gm_undo.append((start, gm[start:min(int(end) * 32, gm.size)].copy()))

    def undo_gm(self) -> None:
        """Put back what GM held before this program-order run wrote it."""
        for lo, before in reversed(self.gm_undo):
            self.m.gm[lo:lo + before.size] = before
        self.gm_undo.clear()
        self.gm_kept = None

    # -- performing --------------------------------------------------------------------------------
    def horizon(self) -> float:
        """Events before this time cannot be preceded by any job not yet scheduled."""
        limit = self.m.now
        for pipe, q in self.queue.items():
            if q:
                limit = min(limit, max(self.free[pipe], q[0].dispatch))
        return limit

    def advance(self, until: float) -> None:
        events = self.events
        while events and events[0][0] < until:
            _, phase, _, job = heapq.heappop(events)
            if phase == _END:
                self._land(job)
            else:
                self._start(job)

    def _start(self, job: Job) -> None:
        if job.refine is not None:
            job.reads, job.writes = job.refine()
            job.footprint_reads = job.footprint_writes = None
        if job.footprint_reads is None or job.footprint_writes is None:
            job.footprint_reads, job.footprint_writes = footprint(job.reads), footprint(job.writes)
        spaces_w = job.footprint_writes
        unstarted = self.unstarted[job.pipe]
        if unstarted[0] == job.seq:
            unstarted.popleft()
        else:
            unstarted.remove(job.seq)
        self._check_races(job)
        m = self.m
        if job.lands:
            try:
                landing = job.perform() if job.perform is not None else job.apply
            except Fault as fault:
                raise m.fault_at(fault, job.pc) from None
            self.pending_writes[job.seq] = landing
            self.inflight[job.pipe][job.seq] = job
            return
        saved = [(space, self._indices(space, *found)) for space, found in spaces_w.items()]
        old = [m.flat(space)[idx].copy() for space, idx in saved]
        try:
            if job.perform is not None:
                job.perform()
        except Fault as fault:
            raise m.fault_at(fault, job.pc) from None
        landing = []
        for (space, idx), before in zip(saved, old, strict=True):
            flat = m.flat(space)
            after = flat[idx]
            changed = after != before
            if changed.any():
                where = np.flatnonzero(changed) + idx.start if isinstance(idx, slice) else idx[changed]
                landing.append((space, where, after[changed]))
            flat[idx] = before
        self.pending_writes[job.seq] = landing
        self.inflight[job.pipe][job.seq] = job

    def _land(self, job: Job) -> None:
        landing = self.pending_writes.pop(job.seq, ())
        if callable(landing):
            landing()
        else:
            for space, idx, values in landing:
                self.m.flat(space)[idx] = values
        self.inflight[job.pipe].pop(job.seq, None)
        # Only a job earlier in program order that has not started yet can still race with this one.
        if self._oldest_unstarted() < job.seq:
            self.landed.append(job)
            if len(self.landed) % _PRUNE_EVERY == 0:
                oldest = self._oldest_unstarted()
                self.landed = [j for j in self.landed if j.seq > oldest]

    def _oldest_unstarted(self) -> int:
        oldest = self.seq + 1
        for waiting in self.unstarted.values():
            if waiting and waiting[0] < oldest:
                oldest = waiting[0]
        return oldest

    def _indices(self, space: str, runs, lo: int, hi: int):
        """The byte positions of runs of blocks: a slice for one run, else an index array."""
        size = self.m.flat(space).size
        if runs is None:
            return slice(lo * 32, min(hi * 32, size))
        lengths = (runs[:, 1] - runs[:, 0]) * 32
        offsets = np.repeat(runs[:, 0] * 32 - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
        idx = np.arange(int(lengths.sum()), dtype=np.int64) + offsets
        return idx[idx < size]

    # -- races -------------------------------------------------------------------------------------
    def _check_races(self, job: Job) -> None:
        """Compare a starting job with every job that overlaps it in time or ran out of order.

        Two jobs of one pipe that orders itself cannot race: MTE2 and MTE3 run one transfer at a
        time, and the 950 V scoreboard orders every V job after the V results it touches."""
        pipe = job.pipe
        ordered = self.ordered[pipe]
        if ordered and not self.landed:
            first, second = self.other_inflight[pipe]
            if not first and not second:  # nothing another pipe has in flight: nothing to race with
                return
        for other_pipe, jobs in self.inflight.items():
            if jobs and not (ordered and other_pipe == pipe):
                for other in jobs.values():
                    self._pair(job, other)
        for other in self.landed:
            if other.seq > job.seq and not (ordered and other.pipe == pipe):
                self._pair(job, other)

    def _pair(self, job: Job, other: Job) -> None:
        """``other`` has started before ``job``; name their races with the earlier one first."""
        if other.seq < job.seq:  # other's write is in flight while job reads or writes
            self._race("RAW", other, job, overlap(other.footprint_writes, job.footprint_reads))
            self._race("WAW", other, job, overlap(other.footprint_writes, job.footprint_writes))
        else:  # a later instruction ran first: it read what job will write, or wrote what job reads
            self._race("RAW", job, other, overlap(job.footprint_writes, other.footprint_reads))
            self._race("WAR", job, other, overlap(other.footprint_writes, job.footprint_reads))
            self._race("WAW", job, other, overlap(other.footprint_writes, job.footprint_writes))

    def _race(self, kind: str, first: Job, second: Job, where) -> None:
        if where is None:
            return
        key = (kind, first.pc, second.pc)
        race = self.races.get(key)
        if race is not None:
            race.count += 1
            return
        space, start, end = where
        if space in REGISTER_SPACES:  # reported as bytes of the register file, V or P
            base = int(space[1:]) * 256
            space, start, end = space[0], base + start, base + end
        self.races[key] = race = Race(kind, self.m.who(first.pc), self.m.who(second.pc), space, start, end)
        if self.strict:
            raise self.m.fault_at(Fault(f"race ({kind}): {describe_race(race)}", kind="race"), second.pc)

    # -- accounting --------------------------------------------------------------------------------
    def _stall(self, pc: int, cause: str, cycles: int) -> None:
        if cycles > 0:
            self.stats[pc].stalls[cause] += cycles
            self.stall_totals[cause] += cycles

    def _account(self, job: Job, pipe: str, cycles: int, conflicts: int) -> None:
        stats = self.stats[job.pc]
        stats.cycles += cycles
        stats.iterations += job.iterations
        stats.bank_conflict += conflicts
        self.stall_totals["bank_conflict"] += conflicts
        self.count[pipe] += 1
        begin = max(job.start, self.busy_until[pipe])
        end = job.start + cycles
        if end > begin:
            self.busy[pipe] += end - begin
            self.busy_until[pipe] = end
        if self.trace_on and pipe != "S":  # the run loop traces S itself
            self.trace_slice(pipe, job.pc, job.start, end, job, self.free[pipe])  # _place has just set it

    def trace_slice(self, pipe: str, pc: int, start: int, end: int, job, release: int | None = None) -> None:
        """``release``: the cycle the pipe could start its next instruction (None: ``end``)."""
        if len(self.slices) < self.trace_limit:
            self.slices.append((pipe, pc, start, end, job))
            self.releases.append(end if release is None else release)
        else:
            self.slices_dropped += 1

    def land_started(self) -> None:
        """Land the writes of every job that has started (after a fault stops the run)."""
        for job in sorted((j for jobs in self.inflight.values() for j in jobs.values()), key=lambda j: j.end):
            self._land(job)

    # -- the end -----------------------------------------------------------------------------------
    def finish(self) -> int:
        """Drain every pipe; returns the total cycles."""
        self.drain_schedule()
        self.advance(float("inf"))
        for key, waiting in self.sets.items():
            if len(waiting) >= 2:  # set twice and never taken
                self._double_set(key, waiting[0][0], waiting[1])
        return max(self.m.now, *self.done.values())


def describe_race(race: Race) -> str:
    """One sentence naming both instructions, the bytes and what goes wrong."""
    space = {"ub": "UB", "gm": "GM", "V": "vector-register", "P": "mask-register"}.get(race.space, race.space)
    first, second = race.first, race.second
    a = f"{first['where']} ({first['pipe']}: {first['text']})"
    b = f"{second['where']} ({second['pipe']}: {second['text']})"
    where = f"{space} bytes 0x{race.start:x}..0x{race.end:x}"
    what = {
        "RAW": f"{b} reads {where} while the write of {a} to them is in flight: it reads stale data",
        "WAW": f"{b} writes {where} while the write of {a} to them is in flight: the final value depends on timing",
        "WAR": f"{b} writes {where} before {a} has read them: the earlier instruction may read the new data",
    }[race.kind]
    return what + "; order them with SETFLAG/WAITFLAG or BARRIER"
