"""The pipelined cycle model: S dispatches in program order, V, MTE2 and MTE3 run their queues in
order and overlap, flags and barriers order them. Each job is scheduled once: its start and end
follow from its pipe, its flags and the profile's costs, whatever the number of cycles. Data moves
timed (``data_movement``) or in program order (``program_order``); the schedule is the same.

The engine is dispatch (this module) composed with parts that each own their state behind a few
methods: ``Flags``, ``Scoreboard``, ``DataMovement``, ``ProgramOrder``, ``RaceCheck``, ``Order``
(happens-before) and ``Accounting``. A part is handed what it needs as arguments, or the public
method of the one other part it uses; none reads what another stores.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from vcore.emulator.faults import AtSyncAll, Fault
from vcore.emulator.jobs import PIPES, QUEUED, Job, footprint
from vcore.emulator.order.happens_before import Order
from vcore.emulator.order.races import Race, RaceCheck, describe_race, overlap
from vcore.emulator.result import TraceLog
from vcore.emulator.state import SPR_BYTES
from vcore.emulator.timing.accounting import TRACE_LIMIT, Accounting, PcStats
from vcore.emulator.timing.costs import Cost, CostModel
from vcore.emulator.timing.data_movement import DataMovement
from vcore.emulator.timing.flags import Flags
from vcore.emulator.timing.program_order import Diverged, ProgramOrder
from vcore.emulator.timing.scoreboard import Scoreboard

__all__ = ["PIPES", "QUEUED", "TRACE_LIMIT", "Diverged", "Engine", "PcStats", "Race", "describe_race", "overlap"]


class Engine:
    """Schedules the jobs of one machine, and owns their dispatch: the scalar unit's cycle (``now``),
    the queue of each pipe S hands work to, when each pipe is free and its last result lands, the
    sequence numbers and S's vector clock it stamps on each job, and a kernel's SYNCALL release.
    Flags, the 950 scoreboard, timed data movement, the program-order check, races, happens-before
    and accounting are its parts. (A vector function's instructions are scheduled inside it, by
    ``emulator.functions.launch``; the engine sees the function as one V job.)

    ``code`` is the program bound (``emulator.code.Code``): each pc's pipe and instruction, and the
    names of places for messages and faults; ``gm`` the GM a program-order run may have to put
    back, ``ub_size`` UB's size; ``now`` the scalar unit's cycle to start from."""

    def __init__(self, code, costs: CostModel, gm: np.ndarray, ub_size: int, cores: int = 1, *,
                 strict: bool = False, max_cycles: int | None = None, trace: bool = False, timed: bool = True,
                 now: int = 0) -> None:
        self.code = code
        self.pipe_of = code.pipes  # pc -> pipe
        self.costs = costs
        self.cores = cores
        self.timed = timed
        self.cycle_limit = float("inf") if max_cycles is None else max_cycles
        self.now = now  # the scalar unit's cycle: the dispatch time of the next instruction
        # Set by a kernel: the cycle it releases this core from the SYNCALL it waits at.
        self.syncall_release: int | None = None
        self.queue = {p: deque() for p in QUEUED}
        self.queue_depth = costs.scalar["queue_depth"]
        self.waiting_start = {p: deque() for p in QUEUED}  # start cycles of scheduled jobs, in order
        self.free = dict.fromkeys(PIPES, 0)
        self.done = dict.fromkeys(PIPES, 0)
        self.seq = 0
        self.s_clock = (0, 0, 0, 0)  # S's vector clock as it stands: what S hands over is ordered after it
        in_order_v = bool(costs.profile["vector"]["in_order_results"])
        # The parts.
        self.accounting = Accounting(trace)
        self.flags = Flags(code.describe, trace)
        self.scoreboard = Scoreboard() if in_order_v else None  # the 950's; a2's V does not order itself
        self.race_check = RaceCheck(code, strict, in_order_v)
        self.order = Order({"ub": ub_size, "gm": gm.size, "spr": SPR_BYTES}, in_order_v, self.race_check)
        self.movement = DataMovement(self.race_check.at_start, code.fault_at)
        self.program_order = ProgramOrder(gm, in_order_v, self.unscheduled)
        # Called with (job, pipe, clock, cost) as each data job on V, MTE2 or MTE3 is placed (a watched
        # loop's pass, ``emulator.timing.replay``); None: nobody watches.
        self.observer = None

    # -- dispatch from the scalar unit -----------------------------------------------------------
    def submit(self, job: Job) -> None:
        """Take a job from the scalar unit at its dispatch, on its instruction's pipe."""
        pipe = self.pipe_of[job.pc]
        self.seq += 1
        job.seq, job.dispatch, job.pipe = self.seq, self.now, pipe
        if pipe == "S":
            self._on_s(job)
            return
        job.s_clock = self.s_clock
        queue = self.queue[pipe]
        if job.kind == "data":
            if self.timed:
                self.movement.dispatched(job)
            else:
                self.program_order.perform_now(job)
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
            self.movement.advance(self.horizon())

    def _respect_queue_depth(self, pipe: str, job: Job) -> None:
        """A pipe's queue holds ``scalar.queue_depth`` instructions that have not started; the scalar
        unit waits for a free slot before it reads on."""
        waiting = self.waiting_start[pipe]
        if self.queue[pipe] and self.queue[pipe][0].priced_at_start:  # the queue holds it, placed or not
            self._force_priced()
            self.schedule()
        now = self.now
        while waiting and waiting[0] <= now:
            waiting.popleft()
        excess = len(waiting) - self.queue_depth
        if excess > 0:
            when = waiting[excess - 1]
            self.accounting.stall(job.pc, "queue_full", when - now)
            self.now = when
            while waiting and waiting[0] <= when:
                waiting.popleft()

    def _s_event(self, job: Job, joined: tuple | None = None) -> tuple:
        """``job`` an event of S (``Order.event``): S's clock moves on; returns it."""
        self.s_clock = clock = tuple(self.order.event(job, "S", joined))
        return clock

    def _on_s(self, job: Job) -> None:
        """SETFLAG S, WAITFLAG ..., S and BARRIER S / ALL: they act at dispatch, in program order."""
        cost = self.costs.sync_cost(job.kind).occupancy
        if job.kind == "set":
            self.flags.set(job, self.now, self._s_event(job))
        elif job.kind == "wait":
            key = job.flag
            while not self.flags.is_set(key):
                if not self.schedule() and not self._force_priced():
                    self._deadlock(job.pc, f"S waits at {self.code.describe(job.pc)} for SETFLAG "
                                           f"{', '.join(map(str, key))}")
            when = self.flags.consume(job, self.now)
            self._s_event(job, job.flag_clock)
            self.accounting.stall(job.pc, "flag_wait", when - self.now)
            self.now = when
        elif job.kind == "syncall":
            self._syncall(job)
            self.s_clock = self.order.barrier_all()
        else:  # BARRIER S or BARRIER ALL (pipe_of gives S for ALL)
            inst = self.code.inst_at(job.pc)
            if inst.operands[0] == "ALL":
                self.drain_schedule()
                when = max(self.now, *self.done.values())
                for pipe in PIPES:
                    self.free[pipe] = max(self.free[pipe], when)
                self.accounting.stall(job.pc, "barrier", when - self.now)
                self.now = when
                self.s_clock = self.order.barrier_all()
        job.start, job.end = self.now, self.now + cost
        self.now += cost  # the run loop adds the issue cycle on top; a sync on S costs its own cycles too
        self.accounting.account(job, "S", cost, 0, job.end)

    def _syncall(self, job: Job) -> None:
        """SYNCALL: every pipe of this core drains and its data lands; a core of a kernel then pauses
        (``AtSyncAll``) until the kernel sets ``syncall_release``, the cycle the last core arrived
        plus ``chip.syncall``; a core on its own waits for itself."""
        self.drain_schedule()
        self.movement.advance(float("inf"))
        arrival = max(self.now, *self.done.values())
        if self.cores == 1:
            release = arrival + self.costs.syncall
        elif self.syncall_release is None:
            raise AtSyncAll(arrival)
        else:
            release, self.syncall_release = max(arrival, self.syncall_release), None
        for pipe in PIPES:
            self.free[pipe] = max(self.free[pipe], release)
        self.accounting.stall(job.pc, "syncall", release - self.now)
        self.now = release

    def scalar_access(self, job: Job) -> None:
        """LD and ST: a data job on S that starts at the scalar unit's cycle and is performed then
        (the scalar unit waits its cycles for it), ordered after earlier S work but not after other
        pipes' work unless a flag or barrier says so; its writes land at its end."""
        now = self.now
        self.seq += 1
        job.seq, job.dispatch, job.pipe = self.seq, now, "S"
        job.start, job.end = now, now + self.costs.s_cycles(self.code.inst_at(job.pc))
        _footprints(job)
        self.s_clock = clock = tuple(self.order.event(job, "S"))  # (``_s_event``, written out: LD and ST are hot)
        self.order.access(job, "S", clock)
        if not self.timed:
            self.program_order.perform_now(job)
            self.program_order.check(job, "S")
            return
        self.schedule()  # what can be placed is; what cannot waits for a flag set later than now
        self.movement.advance(now + 1)  # everything up to this cycle, writes landing before reads
        self.movement.start_now(job)

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
        if kind == "wait" and not self.flags.is_set(job.flag):
            return False
        if job.priced_at_start and self.timed and not self._price_at_start(job, pipe, force):
            return False
        queue.popleft()
        if kind == "data":  # a tensor instruction, a DMA or a vector function
            self._schedule_transfer(job, pipe, self.costs.job_cost(self.code.inst_at(job.pc), job))
            return True
        ready = max(job.dispatch, self.free[pipe])
        if kind == "wait":
            start = self.flags.consume(job, ready)
            self.accounting.stall(job.pc, "flag_wait", start - ready)
            self.order.event(job, pipe, job.flag_clock)
        else:  # set, barrier
            start = max(ready, self.done[pipe])
            self.accounting.stall(job.pc, "barrier" if kind == "barrier" else "drain", start - ready)
            clock = self.order.event(job, pipe)
            if kind == "set":
                self.flags.set(job, start, tuple(clock))
            else:
                self.order.barrier(pipe)
        self._place(job, pipe, start, self.costs.sync_cost(kind), 0)
        return True

    def _price_at_start(self, job: Job, pipe: str, force: bool) -> bool:
        """A job whose cost follows from the data it reads (a vector function's gathers: their
        indices) is performed at its start before it is placed, once nothing not yet scheduled can
        start before it (or, ``force``, when nothing else can move): every event before its start
        is run first, so it reads what it would at its start. False: not yet."""
        start = max(job.dispatch, self.free[pipe])
        if pipe == "V" and self.scoreboard is not None:
            _footprints(job)
            start = max(start, self.scoreboard.depends(job, start))
        if not force:
            if self.now < start:  # the scalar unit may still hand over work that starts earlier
                return False
            for other, q in self.queue.items():
                if other != pipe and q and max(self.free[other], q[0].dispatch) < start:
                    return False
        self.movement.start_at(job, start)  # performed now: its perform prices it (``job.cost``)
        job.priced_at_start = False
        job.started = True
        job.start = start  # (its footprint may be refined now: placing it goes by this start, no earlier)
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
            raise self.code.fault_at(Fault(f"--max-cycles {self.cycle_limit} reached", kind="limit"), job.pc)
        free = self.free[pipe] = start + cost.occupancy
        self.done[pipe] = max(self.done[pipe], job.end)
        self.accounting.account(job, pipe, cost.latency, conflicts, free)
        self.waiting_start[pipe].append(start)
        if job.kind == "data":
            if self.timed:
                self.movement.placed(job)
            else:
                self.program_order.check(job, pipe)

    def _schedule_transfer(self, job: Job, pipe: str, cost) -> None:
        """A tensor instruction (V) or a DMA (MTE2/MTE3), whose cost follows from its operands."""
        priced = cost
        ready = max(job.dispatch, self.free[pipe])
        start = ready
        scoreboard = self.scoreboard
        if pipe == "V":
            _footprints(job)
            if scoreboard is not None:
                depends = scoreboard.depends(job, ready)
                if job.started:  # performed at its start already (``_price_at_start``)
                    depends = max(depends, job.start)
                start = max(ready, depends)
                self.accounting.stall(job.pc, "dependency", depends - ready)
        elif start + cost.latency < self.done[pipe]:  # DMAs overlap on their pipe but land in order
            cost = Cost(cost.occupancy, self.done[pipe] - start)
        self._place(job, pipe, start, cost, cost.conflicts)
        order = self.order
        clock = order.event(job, pipe)
        order.access(job, pipe, clock)
        if pipe == "V" and scoreboard is not None:
            scoreboard.record(job)
        if self.observer is not None:
            self.observer(job, pipe, clock, priced)

    def drain_schedule(self) -> None:
        while any(self.queue.values()):
            if not self.schedule() and not self._force_priced():
                self._deadlock()

    def _deadlock(self, pc: int | None = None, extra: str = "") -> None:
        """Every pipe waits for a flag nothing will set: a fault naming what each waits for, at the
        first queue's head (or at ``pc``, the instruction S waits at, when no queue holds any)."""
        waiting = []
        for pipe, queue in self.queue.items():  # V, MTE2, MTE3
            if queue:
                head = queue[0]
                flag = f" for SETFLAG {', '.join(map(str, head.flag))}" if head.flag else ""
                waiting.append(f"{pipe} waits at {self.code.describe(head.pc)}{flag}")
        if extra:
            waiting.append(extra)
        first = next((q[0] for q in self.queue.values() if q), None)
        fault = Fault("deadlock: every pipe waits for a flag that nothing will set:\n    " + "\n    ".join(waiting),
                      kind="deadlock")
        raise self.code.fault_at(fault, first.pc if first is not None else pc)

    # -- what the parts ask of dispatch --------------------------------------------------------------
    def horizon(self) -> int:
        """Events before this time cannot be preceded by any job not yet scheduled."""
        limit = self.now
        for pipe, q in self.queue.items():
            if q:
                limit = min(limit, max(self.free[pipe], q[0].dispatch))
        return limit

    def unscheduled(self) -> tuple[int, int]:
        """Where the work not yet scheduled stands: the earliest cycle it can start (``horizon``),
        and the sequence number of the earliest job waiting in a queue (none: after every job)."""
        waiting = [q[0].seq for q in self.queue.values() if q]
        return self.horizon(), min(waiting) if waiting else self.seq + 1

    # -- the end, and what the run found -------------------------------------------------------------
    def finish(self) -> int:
        """Drain every pipe; returns the total cycles."""
        self.drain_schedule()
        self.movement.advance(float("inf"))
        self.flags.finish()
        return self.last_cycle()

    def last_cycle(self) -> int:
        """The scalar unit's cycle, or the cycle the last result scheduled lands if later."""
        return max(self.now, *self.done.values())

    def settle(self) -> None:
        """Land every scheduled result (a paused run's view; timing is unchanged)."""
        self.movement.advance(float("inf"))

    def land_started(self) -> None:
        """Land the writes of every job that has started (after a fault stops the run)."""
        self.movement.land_started()

    def undo_gm(self) -> None:
        """Put back what GM held before this program-order run wrote it."""
        self.program_order.undo_gm()

    def pipe_state(self, pipe: str) -> tuple[int, int, int]:
        """(instructions queued and not yet scheduled, the cycle it is free from, the cycle its
        latest scheduled result lands) of a pipe S hands work to."""
        return len(self.queue[pipe]), self.free[pipe], self.done[pipe]

    def function_stalls(self, begin: int, launch: int, stalls: dict, conflicts: dict) -> None:
        """A vector function's stalls and bank conflicts (``Accounting.function_stalls``)."""
        self.accounting.function_stalls(begin, launch, stalls, conflicts)

    def function_races(self, found: list) -> None:
        """Races inside a vector function (``RaceCheck.function_races``)."""
        self.race_check.function_races(found)

    def all_races(self) -> list[Race]:
        """Every race found so far (``RaceCheck.all_races``)."""
        return self.race_check.all_races()

    def flag_warnings(self) -> list[str]:
        """The flag warnings so far (``Flags``)."""
        return self.flags.warned()

    def trace_log(self) -> TraceLog:
        """A ``--trace`` run's slices and flag arrows, and the GM bytes of its copies, as a value."""
        return self.accounting.trace_log(self.flags.arrows(), lambda job: self.costs.dma_key(job)[1])


def _footprints(job: Job) -> None:
    if job.footprint_reads is None or job.footprint_writes is None:
        job.footprint_reads, job.footprint_writes = footprint(job.reads), footprint(job.writes)
