"""Races: two unordered accesses to the same bytes, at least one a write, that overlap in simulated
time (or run out of program order); each is named once per pair of instructions, with both places.

``RaceCheck`` is the engine's part that compares a starting job with the jobs in flight and those
that ran before it out of order (handed to it by ``emulator.timing.data_movement``), and keeps every
race found, those the order of the instructions shows (``emulator.order.happens_before``) too.
"""

from __future__ import annotations

import numpy as np
from attrs import define

from vcore.emulator.faults import Fault
from vcore.emulator.jobs import PIPES, REGISTER_SPACES, Job
from vcore.isa.model import Kind


@define
class Race:
    kind: str  # RAW, WAR, WAW
    first: dict  # the earlier instruction in program order: pc, line, pipe, text
    second: dict
    space: str
    start: int
    end: int
    count: int = 1
    inside: bool = False  # both accesses are in one vector function: a MEMBAR orders them
    latent: bool = False  # nothing orders the two, but they did not overlap in this run's timing
    advice: str = ""  # what would order them: a flag (its pipes and an event) or a barrier


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


def _hit(pattern: tuple, lo: int, hi: int) -> tuple[int, int] | None:
    """The first bytes of [lo, hi) that a run of ``pattern`` (base, pitch, length, count) covers."""
    base, pitch, length, count = pattern
    k = max(0, (lo - base - length) // pitch + 1) if pitch else 0  # the first run that may end after lo
    if k >= count:
        return None
    start = base + k * pitch
    if start >= hi:
        return None
    return max(lo, start), min(hi, start + length)


def _common(a: tuple, b: tuple) -> tuple | bool | None:
    """The bytes two patterns (base, pitch, length, count) share, as a pattern, or None when they share
    none: for patterns of one pitch whose runs each lie inside one period of it (so a run of each is
    at one offset in its period: VTRANS5HD's half blocks, a DMA's rows); else False (not worked out)."""
    pitch = a[1]
    if b[1] != pitch or not pitch or a[0] % pitch + a[2] > pitch or b[0] % pitch + b[2] > pitch:
        return False
    lo, hi = max(a[0] % pitch, b[0] % pitch), min(a[0] % pitch + a[2], b[0] % pitch + b[2])
    first = max(a[0] // pitch, b[0] // pitch)  # the periods both have runs in
    last = min(a[0] // pitch + a[3], b[0] // pitch + b[3]) - 1
    if lo >= hi or first > last:
        return None
    return first * pitch + lo, pitch, hi - lo, last - first + 1


def precise(where: tuple, a: dict | None, b: dict | None) -> tuple | None:
    """A block-level overlap ``where`` (space, start, end) between two accesses, narrowed to the bytes
    they share when one (or both) is byte-exact (``Job.exact``, ``Job.exact_writes``): None when they
    share no byte. Two patterns of several runs each are narrowed when they have one pitch
    (``_common``), else left at the blocks (a race found there is kept)."""
    space, start, end = where
    pa, pb = (a or {}).get(space), (b or {}).get(space)
    if pa is None and pb is None:
        return where
    if pa is not None and pb is not None and pa[3] > 1 and pb[3] > 1:
        both = _common(pa, pb)
        if both is False:
            return where
        found = None if both is None else _hit(both, start, end)
        return None if found is None else (space, *found)
    one, other = (pa, pb) if pa is not None and (pb is None or pa[3] == 1) else (pb, pa)
    if one[3] == 1:  # a single run of bytes, against the other's pattern or its whole blocks
        lo, hi = max(start, one[0]), min(end, one[0] + one[2])
        if lo >= hi:
            return None
        found = (lo, hi) if other is None else _hit(other, lo, hi)
    else:  # the other has whole blocks: the pattern's first bytes inside the shared blocks
        found = _hit(one, start, end)
    return None if found is None else (space, *found)


class RaceCheck:
    """The engine's part that owns the races found, each named once per pair of instructions: those
    met in this run's timing as jobs started (``races``) and those the order of the instructions
    shows whatever the timing (``latent``, found by ``emulator.order.happens_before.Order``).

    ``code`` names instructions (``who``, ``fault_at``, its ``bound`` instructions for the flags
    a program uses); with ``strict`` the first race is a fault."""

    def __init__(self, code, strict: bool, v_ordered: bool) -> None:
        self.code = code
        self.strict = strict
        self.ordered = {p: p != "V" or v_ordered for p in PIPES}  # a pipe that orders its own jobs
        self.races: dict = {}  # (kind, first pc, second pc) -> Race met in this run's timing
        self.latent: dict = {}  # (kind, first pc, second pc) -> Race the order shows
        self._flag_events: dict | None = None

    def at_start(self, job: Job, inflight: dict, others: tuple, landed: list) -> None:
        """Compare a starting job with every job that overlaps it in time (``inflight``, per pipe;
        ``others``: those of the other pipes) or ran out of order (``landed``).

        Two jobs of one pipe that orders itself cannot race: MTE2 and MTE3 run one transfer at a
        time, and the 950 V scoreboard orders every V job after the V results it touches."""
        pipe = job.pipe
        ordered = self.ordered[pipe]
        if ordered and not landed and not any(others):
            return  # nothing another pipe has in flight: nothing to race with
        for other_pipe, jobs in inflight.items():
            if jobs and not (ordered and other_pipe == pipe):
                for other in jobs.values():
                    self._pair(job, other)
        for other in landed:
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
        a, b = first.exact, second.exact  # the bytes of each side: the first writes unless a WAR, the
        if first.exact_writes is not None and kind != "WAR":  # second unless a RAW
            a = first.exact_writes
        if second.exact_writes is not None and kind != "RAW":
            b = second.exact_writes
        if a is not None or b is not None:
            where = precise(where, a, b)
        if where is not None:
            self._name_race(kind, first.pc, second.pc, where)

    def function_races(self, found: list) -> None:
        """Races inside a vector function (``emulator.functions.races.InnerOrder``): accesses of one
        launch that no MEMBAR or register dependency orders, ``(kind, first, second, start byte, end
        byte, times found)`` per pair of instructions (the first pair of accesses found names it)."""
        for kind, first, second, start, end, times in found:
            # they overlapped when the later one acted before the earlier one's write had landed (RAW,
            # WAW), or its write landed before the earlier one read (WAR): else only order says so
            met = second.end <= first.start if kind == "WAR" else second.start < first.end
            self._name_race(kind, first.pc, second.pc, ("ub", start, end), inside=True, latent=not met, times=times)

    def advice(self, first: dict, second: dict) -> str:
        """What orders two instructions of these pipes: a flag from the first's pipe to the second's
        (an event the program does not use for that pair, if one is left), or a barrier on one pipe."""
        a, b = first["pipe"], second["pipe"]
        if a == b:
            return f"put BARRIER {a} between them"
        used = self.flag_events().get((a, b), set())
        event = next((e for e in range(8) if e not in used), None)
        event = str(event) if event is not None else "EVENT"
        return (f"order them with SETFLAG {a}, {b}, {event} after {first['where']} and WAITFLAG {a}, {b}, {event} "
                f"before {second['where']}")

    def flag_events(self) -> dict:
        """(source pipe, destination pipe) -> the events the program's flags use."""
        if self._flag_events is None:
            self._flag_events = {}
            for bound in self.code.bound:
                if bound.inst.row.operands[-1:] and bound.inst.row.operands[-1].kind is Kind.EVENT:  # SET/WAITFLAG
                    src, dst, event = bound.inst.operands
                    self._flag_events.setdefault((src, dst), set()).add(event)
        return self._flag_events

    def all_races(self) -> list[Race]:
        """Every race found: those met in this run's timing as the accesses ran (``latent`` False), in
        the order found, then those the order of the instructions shows (``emulator.order.happens_before``), latent
        unless their times met (a paused run lands its jobs early, so only their times tell)."""
        return [*self.races.values(), *(r for key, r in self.latent.items() if key not in self.races)]

    def _name_race(self, kind: str, first: int, second: int, where, inside: bool = False,
                   latent: bool = False, times: int = 1) -> None:
        key = (kind, first, second)
        race = self.races.get(key)
        if race is not None:
            race.count += times
            return
        space, start, end = where
        if space in REGISTER_SPACES:  # reported as bytes of the register file, V or P
            base = int(space[1:]) * 256
            space, start, end = space[0], base + start, base + end
        a, b = self.code.who(first), self.code.who(second)
        self.races[key] = race = Race(kind, a, b, space, start, end, times, inside=inside, latent=latent,
                                      advice="" if inside else self.advice(a, b))
        if self.strict:
            raise self.code.fault_at(Fault(race_title(race), kind="race"), second)

    def name_latent(self, kind: str, first: int, second: int, where: tuple, latent: bool) -> None:
        """A pair of instructions (pcs ``first`` and ``second``) that nothing orders, found by the
        order of the instructions, on the bytes ``where`` (space, start, end); ``latent`` unless
        their times met in this run."""
        key = (kind, first, second)
        race = self.latent.get(key)
        if race is not None:
            race.count += 1
            return
        space, start, end = where
        a, b = self.code.who(first), self.code.who(second)
        self.latent[key] = race = Race(kind, a, b, space, start, end, latent=latent, advice=self.advice(a, b))
        if self.strict:
            raise self.code.fault_at(Fault(race_title(race), kind="race"), second)


def race_title(race: Race) -> str:
    """A race in one line, as its warning and its ``--strict`` fault say it: ``race (KIND): ...``, or
    ``latent race (KIND): ...`` when only the order of the instructions shows it."""
    return f"{'latent ' if race.latent else ''}race ({race.kind}): {describe_race(race)}"


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
    if race.inside:  # two accesses of one vector function: nothing orders them, whatever this run's timing
        what = {
            "RAW": f"{b} reads {where}, which {a} writes before it in the same vector function",
            "WAW": f"{b} writes {where}, which {a} writes before it in the same vector function",
            "WAR": f"{b} writes {where}, which {a} reads before it in the same vector function",
        }[race.kind]
        return what + ", and nothing orders them: what it sees depends on timing; put a MEMBAR between them"
    if race.latent:  # nothing orders them; this run's timing kept them apart
        what = {
            "RAW": f"{b} reads {where}, which {a} writes",
            "WAW": f"{b} writes {where}, which {a} writes too",
            "WAR": f"{b} writes {where}, which {a} reads",
        }[race.kind]
        what += (", and nothing orders the two: this run's timing kept them apart, but a change of clocks, "
                 "contention or tile size can let them meet")
    return what + f"; {race.advice or 'order them with SETFLAG/WAITFLAG or BARRIER'}"
