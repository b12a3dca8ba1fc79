"""Flags: a SETFLAG marks its event set once its pipe's earlier work is done, the WAITFLAG that consumes
it holds its pipe until then; a flag set twice with no wait between is warned about, and pipes that all
wait for flags nothing will set are a deadlock.
"""

from __future__ import annotations

from emulator.faults import Fault
from emulator.jobs import Job


class Flags:
    """The engine's flag bookkeeping (a mixin of ``emulator.timing.engine.Engine``). A flag set again
    before its previous set was taken is warned about once per flag; the check is made as sets and
    waits are scheduled, so it keeps only the sets not yet taken."""

    def _flag_set(self, job: Job, when: int, clock: tuple) -> None:
        """``clock``: the setting pipe's vector clock (``order.happens_before``), for the wait that takes it."""
        key = job.flag
        previous = self.last_consume.get(key)
        if not self.sets[key] and previous is not None and when < previous[1]:
            self._double_set(key, previous[0], (when, job.pc))
        self.sets[key].append((when, job.pc, clock))
        if self.trace_on:
            self.set_jobs[key].append(job)

    def _double_set(self, key: tuple, first: int, again: tuple) -> None:
        """``again`` is (cycle, pc) of the second SETFLAG."""
        if key not in self.flag_warned:
            self.flag_warned.add(key)
            self.flag_warnings.append(f"flag {key[0]} -> {key[1]} event {key[2]} set again at cycle {again[0]} by "
                                      f"{self.m.describe(again[1])} while still set (since cycle {first})")

    def _flag_consume(self, job: Job, ready: int) -> int:
        """The cycle the wait ``job`` takes its set; the set's clock goes to ``job.flag_clock``."""
        waiting = self.sets[job.flag]
        set_at, _, job.flag_clock = waiting.popleft()
        when = max(ready, set_at)
        if waiting and waiting[0][0] < when:  # the next set came before this one was taken
            self._double_set(job.flag, set_at, waiting[0][:2])
        self.last_consume[job.flag] = (set_at, when)
        if self.trace_on and self.set_jobs[job.flag]:
            self.flows.append((self.set_jobs[job.flag].popleft(), job))
        return when

    def _deadlock(self, extra: str = "") -> None:
        waiting = []
        for pipe, queue in self.queue.items():  # V, MTE2, MTE3
            if queue:
                head = queue[0]
                flag = f" for SETFLAG {', '.join(map(str, head.flag))}" if head.flag else ""
                waiting.append(f"{pipe} waits at {self.m.describe(head.pc)}{flag}")
        if extra:
            waiting.append(extra)
        first = next((q[0] for q in self.queue.values() if q), None)
        fault = Fault("deadlock: every pipe waits for a flag that nothing will set:\n    " + "\n    ".join(waiting),
                      kind="deadlock")
        raise self.m.fault_at(fault, first.pc if first is not None else self.m.pc)
