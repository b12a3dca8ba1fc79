"""The pipelined cycle model: S dispatches in program order, V, MTE2 and MTE3 run their queues in
order and overlap, flags and barriers order them. Each job is scheduled once: its start and end
follow from its pipe, its flags and the profile's costs, whatever the number of cycles. Data moves
timed (``data_movement``) or in program order (``program_order``); the schedule is the same.
"""

from __future__ import annotations

import heapq
from collections import defaultdict, deque

import numpy as np

from emulator.faults import AtSyncAll, Fault
from emulator.jobs import Job, footprint
from emulator.order.happens_before import Order
from emulator.order.races import Race, RaceCheck, describe_race, overlap
from emulator.timing.accounting import TRACE_LIMIT, Accounting, PcStats
from emulator.timing.costs import Cost, CostModel
from emulator.timing.data_movement import _END, _START, DataMovement
from emulator.timing.flags import Flags
from emulator.timing.program_order import Diverged, ProgramOrder
from emulator.timing.scoreboard import Scoreboard

PIPES = ("S", "V", "MTE2", "MTE3")
QUEUED = ("V", "MTE2", "MTE3")
_LANE32 = np.arange(32, dtype=np.int64)
_new_job = object.__new__



__all__ = ["PIPES", "QUEUED", "TRACE_LIMIT", "Diverged", "Engine", "PcStats", "Race", "describe_race", "overlap"]


class Engine(Flags, Scoreboard, DataMovement, ProgramOrder, RaceCheck, Order, Accounting):
    """Schedules the jobs of one machine: dispatch, queues and barriers live here; flags, the 950
    scoreboard, timed data movement, the program-order check, races and accounting are its parts,
    one module each. (A vector function's instructions are scheduled inside it, by
    ``emulator.functions.launch``; the engine sees the function as one V job.)"""

    def __init__(self, machine, strict: bool = False, max_cycles: int | None = None, trace: bool = False,
                 timed: bool = True) -> None:
        self.m = machine
        self.pipe_of = machine.pipes  # pc -> pipe
        self.timed = timed
        self.costs = CostModel(machine.profile, machine.cores)
        self.in_order_v = bool(machine.profile["vector"]["in_order_results"])
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
        # Started, not landed, per pipe (S: its LD and ST, the only S work that touches memory).
        self.inflight: dict[str, dict[int, Job]] = {p: {} for p in PIPES}
        self.other_inflight = {p: tuple(self.inflight[q] for q in PIPES if q != p) for p in PIPES}
        # Jobs that have landed but could still race with an earlier job that has not started.
        self.landed: list[Job] = []
        # Per pipe, the sequence numbers of its data jobs not yet started: a pipe starts them in order.
        self.unstarted: dict[str, deque] = {p: deque() for p in PIPES}
        self.sets: dict = defaultdict(deque)  # flag -> (cycle, pc) of each set not yet taken
        self.last_consume: dict = {}  # flag -> (set cycle, consume cycle) of its latest consumed set
        self.v_recent: list[Job] = []  # V jobs writing UB/GM whose results may still be in flight
        self.register_ready: dict = {}  # register space -> cycle its V result is ready
        self.seq = 0
        self.stats: dict[int, PcStats] = defaultdict(PcStats)
        self.stall_totals: dict = defaultdict(int)
        self.races: dict = {}
        self.flag_warnings: list[str] = []
        self.flag_warned: set = set()
        self.trace_on = trace
        self.slices: list = []  # (pipe, pc, start, end, job), at most trace_limit of them
        self.trace_parents: dict = {}  # slice index -> the index of the function's slice it is inside
        self.releases: list = []  # per slice, the cycle its pipe could start the next instruction
        self.trace_limit = TRACE_LIMIT
        self.slices_dropped = 0
        self.flows: list = []  # (set job, wait job)
        self.set_jobs: dict = defaultdict(deque)
        self.pending_writes: dict = {}  # seq -> the writes its perform returned, until its end
        # Program order: per pipe, the scheduled data jobs a job scheduled later could overlap.
        self.recent: dict[str, list[Job]] = {p: [] for p in PIPES}
        self.ordered = {p: p != "V" or self.in_order_v for p in PIPES}
        # The lists a job of each pipe is checked against: the other pipes', and its own if unordered.
        self.rivals = {p: tuple(self.recent[q] for q in PIPES if q != p or not self.ordered[p]) for p in PIPES}
        # Program order: what GM held before the run wrote it, each 32-byte block kept once (at its
        # first write), so the log never outgrows GM however often a program writes it.
        self._order_setup(self.in_order_v)
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
        job.s_clock = self.s_clock
        queue = self.queue[pipe]
        if job.kind == "data":
            if self.timed:
                self.unstarted[pipe].append(job.seq)
            else:
                self._perform_now(job)
            if not queue:  # nothing waits ahead of it, and a data job unblocks no other pipe
                queue.append(job)
                self._schedule_head(pipe)
            else:
                queue.append(job)
                self.schedule()
        else:
            queue.append(job)
            self.schedule()
        waiting = self.waiting_start[pipe]
        if len(waiting) > self.queue_depth or (
                queue and queue[0].priced_at_start and len(waiting) + len(queue) > self.queue_depth):
            self._respect_queue_depth(pipe, job)
        if self.timed:
            self.advance(self.horizon())

    def _respect_queue_depth(self, pipe: str, job: Job) -> None:
        """A pipe's queue holds ``scalar.queue_depth`` instructions that have not started; the scalar
        unit waits for a free slot before it reads on."""
        m, waiting = self.m, self.waiting_start[pipe]
        if self.queue[pipe] and self.queue[pipe][0].priced_at_start:  # the queue holds it, placed or not
            self._force_priced()
            self.schedule()
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
            self._flag_set(job, m.now, tuple(self._event(job, "S")))
        elif job.kind == "wait":
            key = job.flag
            while not self.sets[key]:
                if not self.schedule() and not self._force_priced():
                    self._deadlock(extra=f"S waits at {self.m.describe(job.pc)} for SETFLAG {', '.join(map(str, key))}")
            when = self._flag_consume(job, m.now)
            self._event(job, "S", job.flag_clock)
            self._stall(job.pc, "flag_wait", when - m.now)
            m.now = when
        elif job.kind == "syncall":
            self._syncall(job)
            self._order_barrier_all()
        else:  # BARRIER S or BARRIER ALL (pipe_of gives S for ALL)
            inst = self.m.inst_at(job.pc)
            if inst.operands[0] == "ALL":
                self.drain_schedule()
                when = max(m.now, *self.done.values())
                for pipe in PIPES:
                    self.free[pipe] = max(self.free[pipe], when)
                self._stall(job.pc, "barrier", when - m.now)
                m.now = when
                self._order_barrier_all()
        job.start, job.end = m.now, m.now + cost
        m.now += cost  # the run loop adds the issue cycle on top; a sync on S costs its own cycles too
        self._account(job, "S", cost, 0)

    def _syncall(self, job: Job) -> None:
        """SYNCALL: every pipe of this core drains and its data lands; a core of a kernel then pauses
        (``AtSyncAll``) until the kernel sets ``m.syncall_release``, the cycle the last core arrived
        plus ``chip.syncall``; a core on its own waits for itself."""
        m = self.m
        self.drain_schedule()
        self.advance(float("inf"))
        arrival = max(m.now, *self.done.values())
        if m.cores == 1:
            release = arrival + self.costs.syncall
        elif m.syncall_release is None:
            raise AtSyncAll(arrival)
        else:
            release, m.syncall_release = max(arrival, m.syncall_release), None
        for pipe in PIPES:
            self.free[pipe] = max(self.free[pipe], release)
        self._stall(job.pc, "syncall", release - m.now)
        m.now = release

    def scalar_access(self, job: Job) -> None:
        """LD and ST: a data job on S that starts at the scalar unit's cycle and is performed then
        (the scalar unit waits its cycles for it), ordered after earlier S work but not after other
        pipes' work unless a flag or barrier says so; its writes land at its end."""
        m = self.m
        self.seq += 1
        job.seq, job.dispatch, job.pipe = self.seq, m.now, "S"
        job.start, job.end = m.now, m.now + self.costs.s_cycles(m.inst_at(job.pc))
        self._footprints(job)
        self._order_access(job, "S", self._event(job, "S"))
        if not self.timed:
            self._perform_now(job)
            self._check_overlaps(job, "S")
            return
        self.schedule()  # what can be placed is; what cannot waits for a flag set later than now
        self.advance(m.now + 1)  # everything up to this cycle, writes landing before reads
        self.unstarted["S"].append(job.seq)
        self._start(job)
        heapq.heappush(self.events, (job.end, _END, job.seq, job))

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

    def _schedule_head(self, pipe: str, force: bool = False) -> bool:
        queue = self.queue[pipe]
        job = queue[0]
        kind = job.kind
        if kind == "wait" and not self.sets[job.flag]:
            return False
        if job.priced_at_start and self.timed and not self._price_at_start(job, pipe, force):
            return False
        queue.popleft()
        if kind == "data":  # a tensor instruction, a DMA or a vector function
            self._schedule_transfer(job, pipe, self.costs.job_cost(self.m.inst_at(job.pc), job))
            return True
        ready = max(job.dispatch, self.free[pipe])
        if kind == "wait":
            start = self._flag_consume(job, ready)
            self._stall(job.pc, "flag_wait", start - ready)
            self._event(job, pipe, job.flag_clock)
        else:  # set, barrier
            start = max(ready, self.done[pipe])
            self._stall(job.pc, "barrier" if kind == "barrier" else "drain", start - ready)
            clock = self._event(job, pipe)
            if kind == "set":
                self._flag_set(job, start, tuple(clock))
            else:
                self._order_barrier(pipe)
        self._place(job, pipe, start, self.costs.sync_cost(kind), 0)
        return True

    def _price_at_start(self, job: Job, pipe: str, force: bool) -> bool:
        """A job whose cost follows from the data it reads (a vector function's gathers: their
        indices) is performed at its start before it is placed, once nothing not yet scheduled can
        start before it (or, ``force``, when nothing else can move): every event before its start
        is run first, so it reads what it would at its start. False: not yet."""
        start = max(job.dispatch, self.free[pipe])
        if pipe == "V" and self.in_order_v:
            self._footprints(job)
            start = max(start, self._scoreboard(job, start))
        if not force:
            if self.m.now < start:  # the scalar unit may still hand over work that starts earlier
                return False
            for other, q in self.queue.items():
                if other != pipe and q and max(self.free[other], q[0].dispatch) < start:
                    return False
        if job.perform is None and not force:  # a debugger's steps move its data: it waits for them
            return False
        events = self.events
        while events and (events[0][0] < start or (events[0][0] == start and events[0][1] == _END)):
            _, phase, _, early = heapq.heappop(events)
            if phase == _END:
                self._land(early)
            else:
                self._start(early)
        self._start(job)  # performed now: its perform prices it (``job.cost``)
        job.priced_at_start = False
        job.started = True
        return True

    def _force_priced(self) -> bool:
        """Place a queue head that waits to be priced at its start, when nothing else can move."""
        for pipe in QUEUED:
            queue = self.queue[pipe]
            if queue and queue[0].priced_at_start and self._schedule_head(pipe, force=True):
                return True
        return False

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
                if not job.started:  # (a job priced at its start has started)
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
        elif start + cost.latency < self.done[pipe]:  # DMAs overlap on their pipe but land in order
            cost = Cost(cost.occupancy, self.done[pipe] - start)
        self._place(job, pipe, start, cost, cost.conflicts)
        self._order_access(job, pipe, self._event(job, pipe))
        if pipe == "V" and self.in_order_v:
            self._record_results(job)

    @staticmethod
    def _footprints(job: Job) -> None:
        if job.footprint_reads is None or job.footprint_writes is None:
            job.footprint_reads, job.footprint_writes = footprint(job.reads), footprint(job.writes)

    def drain_schedule(self) -> None:
        while any(self.queue.values()):
            if not self.schedule() and not self._force_priced():
                self._deadlock()

    # -- the end -----------------------------------------------------------------------------------
    def finish(self) -> int:
        """Drain every pipe; returns the total cycles."""
        self.drain_schedule()
        self.advance(float("inf"))
        for key, waiting in self.sets.items():
            if len(waiting) >= 2:  # set twice and never taken
                self._double_set(key, waiting[0][0], waiting[1])
        return max(self.m.now, *self.done.values())
