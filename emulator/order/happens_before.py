"""Happens-before (CONTRACT section 12): which accesses the hardware orders, whatever this run's timing;
two conflicting accesses that nothing orders are a *latent* race, named once per pair of instructions.

Each pipe keeps a vector clock, one counter per pipe. An instruction is an event of its pipe: its
pipe's counter goes up, and its clock takes in what orders it:

- its pipe's own order where the profile guarantees it (S, MTE2 and MTE3 always; V on the 950, whose
  scoreboard orders a V instruction after the V results it touches); on a2 two V instructions are
  ordered only by a ``BARRIER V`` (or ``ALL``) between them: V's accesses carry the number of V
  barriers before them, its *epoch*, and those of one epoch are unordered among themselves;
- the scalar unit's dispatch order: an instruction takes S's clock as it stands when S hands it
  over (every earlier scalar instruction has completed then);
- a ``SETFLAG a, b, e`` carries pipe a's clock (everything earlier on a has completed) to the
  ``WAITFLAG a, b, e`` that consumes it, and so to everything after that wait on b;
- ``BARRIER ALL`` (and ``SYNCALL``): everything later after everything earlier.

Memory keeps, per 32-byte block of UB and GM, the clock value of its last write (by the writer's pipe)
and of the last read on each pipe, with the instruction's sequence number and pc. An access checks
them against its clock in a few numpy operations over its blocks (a constant per access, never a
search over history), then records itself. Accesses inside a vector function are ordered by MEMBAR
and register dependencies: ``emulator.functions.races`` checks those.
"""

from __future__ import annotations

import mmap

import numpy as np

from vcore.emulator.jobs import Job, footprint
from vcore.emulator.order.races import precise

PIPE_INDEX = {"S": 0, "V": 1, "MTE2": 2, "MTE3": 3}
_V = PIPE_INDEX["V"]
# The spaces checked: a register is touched by one pipe, but the special registers (spr: RSVDCNT, AR,
# MRGCNT0..3) are written by V and read by S (CONTRACT 13.10).
_MEMORY = ("ub", "gm", "spr")
_EXACT_KEPT = 4096  # byte-exact accesses (LD, ST, an unaligned DMA's GM side) kept to narrow a race


def _zeros(shape, dtype) -> np.ndarray:
    """A zeroed array in an anonymous mapping of its own, its pages made on first touch and never as
    2 MB huge pages (a GM's record is large and touched sparsely: one huge page a touch would cost
    megabytes a core)."""
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    area = mmap.mmap(-1, max(size, 1))
    if hasattr(area, "madvise") and hasattr(mmap, "MADV_NOHUGEPAGE"):
        area.madvise(mmap.MADV_NOHUGEPAGE)
    return np.frombuffer(area, dtype=dtype, count=int(np.prod(shape))).reshape(shape)


class Shadow:
    """One memory space's record, per 32-byte block: which access last wrote it and which last read it,
    on each pipe (their ids in the engine's table of accesses; 0 is none), with the largest clock of
    any write and any read of the space on each pipe, so that an access that comes after all of them
    is cleared without a look at its blocks."""

    def __init__(self, blocks: int) -> None:
        self.w = _zeros((4, blocks), np.int64)  # row q: pipe q's last write
        self.r = _zeros((4, blocks), np.int64)
        self.lo, self.hi = blocks, 0  # the blocks ever recorded lie in [lo, hi)
        self.w_max = [0, 0, 0, 0]  # per pipe, the largest clock of a write here
        self.r_max = [0, 0, 0, 0]  # per pipe, the largest clock of a read here
        # per pipe, the blocks its writes (reads) have ever touched lie in [lo, hi): an access outside
        # them has nothing of that pipe's to be checked against
        self.w_span = [[blocks, 0] for _ in range(4)]
        self.r_span = [[blocks, 0] for _ in range(4)]
        self.v_epoch_max = 0  # the latest epoch of a V write here (a2)


COMPACT_MIN = 4096  # accesses the table gains between two compactions, at least


class Table:
    """The accesses recorded (its id; id 0 is "none"): the clock and epoch of each in arrays, for the
    checks over many blocks at once, and its (seq, pc, start, end) for naming a race (``info``, a row
    each). Grown by doubling, and compacted (``compact``) to the accesses a shadow still names, so that
    it keeps no history: at most about as many bytes as the shadows it serves."""

    def __init__(self) -> None:
        self.clocks = np.zeros(1024, dtype=np.int64)
        self.epochs = np.zeros(1024, dtype=np.int64)
        self.info = np.zeros((1024, 4), dtype=np.int64)
        self.size = 1  # (id 0: none)
        self.compact_at = COMPACT_MIN  # the id at which to compact
        self.scanned = 0  # the shadow entries compactions have read, in all (tests bound its growth)

    def compact(self, shadows) -> None:
        """Keep only the accesses the ``shadows`` name (the last of each pipe, per block), renumbered
        in order, and rewrite the shadows' ids: the table then holds what a later access can still
        meet, however many accesses came before. A compaction reads the shadows' whole touched range
        (a stream over GM: megabytes), so it waits until the table has grown by its live size, by
        COMPACT_MIN, and to a sixth of the shadows' entries (48 bytes an access against 8 an entry):
        its cost per access stays bounded whatever the range."""
        scanned = sum(2 * shadow.w.shape[0] * (shadow.hi - shadow.lo) for shadow in shadows)
        if self.size < scanned // 6:
            self.compact_at = scanned // 6
            return
        self.scanned += scanned
        named, places = [np.zeros(1, dtype=np.int64)], []
        for shadow in shadows:
            for ids in (shadow.w[:, shadow.lo:shadow.hi], shadow.r[:, shadow.lo:shadow.hi]):
                where = np.nonzero(ids)
                named.append(ids[where])
                places.append((ids, where))
        live = np.unique(np.concatenate(named))
        for (ids, where), found in zip(places, named[1:], strict=True):  # (id 0, "none", stays 0)
            ids[where] = np.searchsorted(live, found)
        size = max(1024, 2 * live.size)
        clocks, epochs, info = np.zeros(size, np.int64), np.zeros(size, np.int64), np.zeros((size, 4), np.int64)
        clocks[:live.size], epochs[:live.size], info[:live.size] = self.clocks[live], self.epochs[live], self.info[live]
        self.clocks, self.epochs, self.info, self.size = clocks, epochs, info, live.size
        self.compact_at = live.size + max(live.size, COMPACT_MIN)

    def add(self, clock: int, epoch: int, info: tuple) -> int:
        k = self.size
        if k == len(self.clocks):
            self.clocks = np.concatenate([self.clocks, np.zeros_like(self.clocks)])
            self.epochs = np.concatenate([self.epochs, np.zeros_like(self.epochs)])
            self.info = np.concatenate([self.info, np.zeros_like(self.info)])
        self.clocks[k] = clock
        self.epochs[k] = epoch
        self.info[k] = info
        self.size = k + 1
        return k


_WHERE_KEPT = 256  # the block indices of this many runs arrays are kept (by the array, held)
_where_kept: dict = {}  # id(runs) -> (runs, its blocks): an instruction run again hands over the same runs


def _where(entry) -> slice | np.ndarray:
    """The blocks of a footprint entry ``(runs, first, end)``: a slice, or the indices of its runs."""
    runs, lo, hi = entry
    if runs is None:
        return slice(lo, hi)
    kept = _where_kept.get(id(runs))
    if kept is not None and kept[0] is runs:
        return kept[1]
    starts = runs[:, 0]
    lengths = runs[:, 1] - starts
    first = int(lengths[0])
    if (lengths == first).all():  # runs of one length (a block stride): no repeat needed
        blocks = (starts[:, None] + np.arange(first)).ravel()
    else:
        blocks = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(int(lengths.sum()))
    if len(_where_kept) >= _WHERE_KEPT:
        _where_kept.clear()
    _where_kept[id(runs)] = (runs, blocks)
    return blocks


class Order:
    """The engine's part that owns happens-before: each pipe's vector clock, a2's V epochs, a shadow
    per memory space of the last accesses to each block, the table of accesses recorded, and the
    byte-exact accesses kept to narrow a race. The pairs it finds are named by ``races``
    (``emulator.order.races.RaceCheck.name_latent``). S's clock as it stands is the engine's: it
    stamps each job S hands over (``Job.s_clock``) with what ``event`` returned for S."""

    def __init__(self, sizes: dict[str, int], v_ordered: bool, races) -> None:
        self.sizes = sizes  # space -> its size in bytes (ub, gm, spr)
        self.races = races
        self.clocks = {pipe: [0, 0, 0, 0] for pipe in PIPE_INDEX}
        self.s_seen = dict.fromkeys(PIPE_INDEX)  # per pipe, the S clock it last took in
        self.v_ordered = v_ordered  # the 950: V orders itself; a2: only a barrier orders two V instructions
        self.v_epoch = 1
        self.v_known = 0  # a2: the V events V knows through other pipes (a flag from one that waited for V)
        self.shadows: dict[str, Shadow] = {}
        self.table = Table()
        self.exact_of: dict = {}  # seq -> a byte-exact job's (``exact``, ``exact_writes``), the latest _EXACT_KEPT

    # -- clocks ------------------------------------------------------------------------------------

    def event(self, job: Job, pipe: str, joined: tuple | None = None) -> list:
        """Make ``job`` an event of ``pipe``: its clock takes in S's at its dispatch and ``joined`` (a
        flag's clock), and its pipe's counter goes up. Returns the pipe's clock (the job's own)."""
        clock = self.clocks[pipe]
        s_clock = job.s_clock
        if s_clock is not None and s_clock is not self.s_seen[pipe]:  # S's clock changes seldom
            self.s_seen[pipe] = s_clock
            self._join(clock, pipe, s_clock)
        if joined is not None:
            self._join(clock, pipe, joined)
        clock[PIPE_INDEX[pipe]] += 1
        return clock

    def _join(self, clock: list, pipe: str, source: tuple) -> None:
        for i in range(4):
            clock[i] = max(clock[i], source[i])
        if pipe == "V" and source[_V] > self.v_known:
            self.v_known = source[_V]

    def barrier_all(self) -> tuple:
        """BARRIER ALL or SYNCALL: everything dispatched after it is ordered after everything before.
        Returns the joined clock, S's clock from now on."""
        joined = [max(c[i] for c in self.clocks.values()) for i in range(4)]
        for pipe in PIPE_INDEX:
            self.clocks[pipe] = list(joined)
        self.v_epoch += 1
        self.v_known = joined[_V]
        return tuple(joined)

    def barrier(self, pipe: str) -> None:
        """BARRIER p: later p instructions after earlier ones (a2's V: a new epoch)."""
        if pipe == "V":
            self.v_epoch += 1

    # -- memory ------------------------------------------------------------------------------------
    def _shadow(self, space: str) -> Shadow:
        shadow = self.shadows.get(space)
        if shadow is None:
            shadow = self.shadows[space] = Shadow(-(-self.sizes[space] // 32))
        return shadow

    def access(self, job: Job, pipe: str, clock: list) -> None:
        """Check a placed job's UB and GM accesses against what nothing orders before it, then record
        them. ``clock`` is the job's (its pipe's, just advanced: what ``event`` returned)."""
        if job.footprint_reads is None or job.footprint_writes is None:
            job.footprint_reads, job.footprint_writes = footprint(job.reads), footprint(job.writes)
        sides = [(space, entry, False) for space, entry in job.footprint_reads.items() if space in _MEMORY]
        sides += [(space, entry, True) for space, entry in job.footprint_writes.items() if space in _MEMORY]
        if not sides:
            return
        if job.exact is not None or job.exact_writes is not None:
            self.exact_of[job.seq] = (job.exact, job.exact_writes)
            if len(self.exact_of) > _EXACT_KEPT:
                for old in list(self.exact_of)[:_EXACT_KEPT // 2]:
                    del self.exact_of[old]
        p = PIPE_INDEX[pipe]
        mine = clock[p]
        v_unordered = p == _V and not self.v_ordered  # a2's V: its own writes go by epoch
        table = self.table
        me = table.add(mine, self.v_epoch, (job.seq, job.pc, job.start, job.end))
        for space, entry, mine_writes in sides:
            shadow = self.shadows.get(space) or self._shadow(space)
            at = _where(entry)
            if entry[1] < shadow.lo:  # noqa: PLR1730 (no call: the complexity guard counts them)
                shadow.lo = entry[1]
            if entry[2] > shadow.hi:  # noqa: PLR1730
                shadow.hi = entry[2]
            w_max, r_max = shadow.w_max, shadow.r_max
            # each pipe's last write, and for a write each other pipe's last read: late unless this
            # access is ordered after it (a pipe's own are: its order, or a2's V's in-order start)
            if (w_max[0] > clock[0] or w_max[1] > clock[1] or w_max[2] > clock[2] or w_max[3] > clock[3]
                    or v_unordered or (mine_writes and (r_max[0] > clock[0] or r_max[1] > clock[1]
                                                        or r_max[2] > clock[2] or r_max[3] > clock[3]))):
                self._check(job, shadow, space, at, p, clock, v_unordered, mine_writes, entry[1], entry[2])
            span = (shadow.w_span if mine_writes else shadow.r_span)[p]
            if entry[1] < span[0]:  # noqa: PLR1730
                span[0] = entry[1]
            if entry[2] > span[1]:  # noqa: PLR1730
                span[1] = entry[2]
            if mine_writes:
                shadow.w[p, at] = me
                w_max[p] = max(w_max[p], mine)
                if p == _V:
                    shadow.v_epoch_max = self.v_epoch
            else:
                shadow.r[p, at] = me
                r_max[p] = max(r_max[p], mine)
        if me >= table.compact_at:
            table.compact(list(self.shadows.values()))

    def _check(self, job: Job, shadow: Shadow, space: str, at, p: int, clock: list, v_unordered: bool,
               mine_writes: bool, lo: int, hi: int) -> None:
        """The checks of one side of an access (see ``access``), over its blocks ``at`` (in [lo, hi))."""
        clocks = self.table.clocks
        for q in range(4):
            if shadow.w_span[q][0] >= hi or shadow.w_span[q][1] <= lo:
                continue  # (pipe q never wrote these blocks)
            if q == p:
                if not (v_unordered and shadow.v_epoch_max >= self.v_epoch and shadow.w_max[_V] > self.v_known):
                    continue
                ids = shadow.w[q, at]  # a2's V: an earlier V write of this epoch no round trip covered
                late = (clocks[ids] > self.v_known) & (self.table.epochs[ids] >= self.v_epoch)
            elif shadow.w_max[q] > clock[q]:
                ids = shadow.w[q, at]
                late = clocks[ids] > clock[q]
            else:
                continue
            if late.any():
                self._latent_found(job, space, at, late, ids, write=True, mine_write=mine_writes)
        if mine_writes:
            for q in range(4):
                if q != p and shadow.r_max[q] > clock[q] and shadow.r_span[q][0] < hi and lo < shadow.r_span[q][1]:
                    ids = shadow.r[q, at]
                    late = clocks[ids] > clock[q]
                    if late.any():
                        self._latent_found(job, space, at, late, ids, write=False, mine_write=True)

    def _latent_found(self, job: Job, space: str, at, late: np.ndarray, ids: np.ndarray, write: bool,
                      mine_write: bool) -> None:
        """Name the pairs: ``job`` and each access recorded in ``ids`` (a write when ``write``) on the
        blocks ``at`` that nothing orders before it (``late``)."""
        blocks = np.arange(at.start, at.stop) if isinstance(at, slice) else at
        blocks = blocks[late]
        others = ids[late]
        info = self.table.info
        for other_id in np.unique(others).tolist():
            hit = blocks[others == other_id]
            where = (space, int(hit.min()) * 32, (int(hit.max()) + 1) * 32)
            other = tuple(info[other_id].tolist())
            seq = other[0]
            mine = (job.seq, job.pc, job.start, job.end)
            if seq < job.seq:  # the other access is the earlier in program order
                first, second, first_writes, second_writes = other, mine, write, mine_write
            else:
                first, second, first_writes, second_writes = mine, other, mine_write, write
            kind = "WAW" if first_writes and second_writes else ("RAW" if first_writes else "WAR")
            # did they meet in this run's timing? the later acted before the earlier's write landed
            # (RAW, WAW), or its write landed before the earlier read (WAR)
            met = second[3] <= first[2] if kind == "WAR" else second[2] < first[3]
            self._latent_race(kind, first, second, where, job, not met)

    def _latent_race(self, kind: str, first: tuple, second: tuple, where: tuple, job: Job, latent: bool) -> None:
        # each side's bytes (``Job.exact``; its writes' own, ``exact_writes``, if it has them): the
        # first writes unless a WAR, the second unless a RAW
        mine = (job.exact, job.exact_writes)
        sides = [mine if seq == job.seq else self.exact_of.get(seq, (None, None)) for seq in (first[0], second[0])]
        exact_first = sides[0][1] if kind != "WAR" and sides[0][1] is not None else sides[0][0]
        exact_second = sides[1][1] if kind != "RAW" and sides[1][1] is not None else sides[1][0]
        if exact_first is not None or exact_second is not None:
            where = precise(where, exact_first, exact_second)
            if where is None:
                return
        self.races.name_latent(kind, first[1], second[1], where, latent)
