"""Flags: a SETFLAG marks its event set once its pipe's earlier work is done, the WAITFLAG that consumes
it holds its pipe until then; a flag set twice with no wait between is warned about. (Pipes that all
wait for flags nothing will set are a deadlock, which the engine names from its queues.)
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable

from vcore.emulator.jobs import Job


class Flags:
    """The engine's part that owns the flags: each flag's sets not yet taken, its latest consumed
    set, the warnings about flags set twice, and (traced) the arrows from a set to the wait that
    takes it. A flag set again before its previous set was taken is warned about once per flag; the
    check is made as sets and waits are scheduled, so it keeps only the sets not yet taken."""

    def __init__(self, describe: Callable[[int], str], trace: bool) -> None:
        self.describe = describe  # pc -> "line N (text)", for the warnings
        self.sets: dict = defaultdict(deque)  # flag -> (cycle, pc, clock) of each set not yet taken
        self.last_consume: dict = {}  # flag -> (set cycle, consume cycle) of its latest consumed set
        self.warnings: list[str] = []
        self.warned_flags: set = set()
        self.tracing = trace
        self.set_jobs: dict = defaultdict(deque)  # flag -> its setting jobs not yet taken (traced)
        self.flows: list = []  # (set job, wait job)

    def is_set(self, flag: tuple) -> bool:
        """Whether ``flag`` has a set that no wait has taken yet."""
        return bool(self.sets[flag])

    def set(self, job: Job, when: int, clock: tuple) -> None:
        """``clock``: the setting pipe's vector clock (``order.happens_before``), for the wait that takes it."""
        key = job.flag
        previous = self.last_consume.get(key)
        if not self.sets[key] and previous is not None and when < previous[1]:
            self._double_set(key, previous[0], (when, job.pc))
        self.sets[key].append((when, job.pc, clock))
        if self.tracing:
            self.set_jobs[key].append(job)

    def _double_set(self, key: tuple, first: int, again: tuple) -> None:
        """``again`` is (cycle, pc) of the second SETFLAG."""
        if key not in self.warned_flags:
            self.warned_flags.add(key)
            self.warnings.append(f"flag {key[0]} -> {key[1]} event {key[2]} set again at cycle {again[0]} by "
                                 f"{self.describe(again[1])} while still set (since cycle {first})")

    def consume(self, job: Job, ready: int) -> int:
        """The cycle the wait ``job`` takes its set; the set's clock goes to ``job.flag_clock``."""
        waiting = self.sets[job.flag]
        set_at, _, job.flag_clock = waiting.popleft()
        when = max(ready, set_at)
        if waiting and waiting[0][0] < when:  # the next set came before this one was taken
            self._double_set(job.flag, set_at, waiting[0][:2])
        self.last_consume[job.flag] = (set_at, when)
        if self.tracing and self.set_jobs[job.flag]:
            self.flows.append((self.set_jobs[job.flag].popleft(), job))
        return when

    def warned(self) -> list[str]:
        """The warnings so far: a flag set again while still set, each a sentence."""
        return list(self.warnings)

    def arrows(self) -> tuple:
        """(set job, wait job) of each set a wait took, in the order taken (a traced run's)."""
        return tuple(self.flows)

    def finish(self) -> None:
        """At the end of the run: a flag set twice and never taken is warned about too."""
        for key, waiting in self.sets.items():
            if len(waiting) >= 2:
                self._double_set(key, waiting[0][0], waiting[1])
