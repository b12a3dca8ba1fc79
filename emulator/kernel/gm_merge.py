"""GM between the cores of a kernel: what each core accessed in a phase, the bytes it wrote, their
merge at the SYNCALL, and the races between cores of the phase. Everything is interval arithmetic
in numpy over the phase's accesses (one record per DMA, LD or ST), never over bytes one by one.
"""

from __future__ import annotations

import numpy as np
from attrs import frozen

_EMPTY = np.zeros(0, dtype=np.int64)


def merged(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The union of the intervals [starts, ends) as sorted disjoint intervals."""
    keep = ends > starts
    starts, ends = starts[keep], ends[keep]
    if not starts.size:
        return _EMPTY, _EMPTY
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], ends[order]
    reach = np.maximum.accumulate(e)
    new = np.ones(s.size, dtype=bool)
    new[1:] = s[1:] > reach[:-1]
    first = np.flatnonzero(new)
    return s[first], np.maximum.reduceat(e, first)


@frozen
class Accesses:
    """A core's GM accesses in one phase, one interval per transfer block: write or read, the bytes
    [start, end), the instruction's pc, and the cycles the access ran, [began, ended)."""

    write: np.ndarray
    start: np.ndarray
    end: np.ndarray
    pc: np.ndarray
    began: np.ndarray
    ended: np.ndarray

    @classmethod
    def of(cls, log: list) -> Accesses:
        """From a machine's ``gm_log`` records (write, addr, bytes, pitch, blocks, pc, job), read once
        the phase has run (its jobs' times are fixed)."""
        if not log:
            return cls(np.zeros(0, dtype=bool), _EMPTY, _EMPTY, _EMPTY, _EMPTY, _EMPTY)
        rec = np.array([(*r[:6], r[6].start, r[6].end) for r in log], dtype=np.int64)
        blocks = rec[:, 4]
        which = np.repeat(np.arange(len(rec)), blocks)
        nth = np.arange(which.size) - np.repeat(np.cumsum(blocks) - blocks, blocks)
        start = rec[which, 1] + nth * rec[which, 3]
        return cls(rec[which, 0].astype(bool), start, start + rec[which, 2], rec[which, 5], rec[which, 6],
                   rec[which, 7])


@frozen
class Writes:
    """Bytes written to GM: sorted disjoint intervals and their bytes, end to end."""

    start: np.ndarray
    end: np.ndarray
    data: np.ndarray

    @classmethod
    def of(cls, gm: np.ndarray, accesses: Accesses) -> Writes:
        """What a core wrote in its phase, read back from its GM."""
        start, end = merged(accesses.start[accesses.write], accesses.end[accesses.write])
        data = np.concatenate([gm[a:b] for a, b in zip(start.tolist(), end.tolist(), strict=True)]) if start.size \
            else np.zeros(0, dtype=np.uint8)
        return cls(start, end, data)


def apply_writes(gm: np.ndarray, writes: Writes) -> None:
    at = 0
    for a, b in zip(writes.start.tolist(), writes.end.tolist(), strict=True):
        gm[a:b] = writes.data[at:at + b - a]
        at += b - a


def merge_writes(parts: list[Writes]) -> Writes:
    """Every core's writes as one set; where two cores wrote the same byte (a race, reported) the
    higher core's byte is kept, so the result does not depend on timing or on processes."""
    parts = [w for w in parts if w.start.size]
    if not parts:
        return Writes(_EMPTY, _EMPTY, np.zeros(0, dtype=np.uint8))
    start, end = merged(np.concatenate([w.start for w in parts]), np.concatenate([w.end for w in parts]))
    lengths = end - start
    offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))  # each merged interval's place in ``data``
    data = np.empty(int(lengths.sum()), dtype=np.uint8)  # (every byte is some core's: the intervals' union)
    for w in parts:  # cores in order: a later core's bytes win
        k = np.searchsorted(start, w.start, side="right") - 1
        at = 0
        for place, a, b in zip((offsets[k] + w.start - start[k]).tolist(), w.start.tolist(), w.end.tolist(),
                               strict=True):
            data[place:place + b - a] = w.data[at:at + b - a]
            at += b - a
    return Writes(start, end, data)


def _coverage(bounds: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """For each elementary segment [bounds[i], bounds[i+1]): how many of the intervals cover it."""
    diff = np.zeros(bounds.size + 1, dtype=np.int64)
    np.add.at(diff, np.searchsorted(bounds, starts), 1)
    np.add.at(diff, np.searchsorted(bounds, ends), -1)
    return np.cumsum(diff)[:-1]


def _first_overlap(a: tuple, b: tuple) -> tuple[int, int] | None:
    """The first overlap of two sets of sorted disjoint intervals (starts, ends), or None."""
    (sa, ea), (sb, eb) = a, b
    # For each interval of a: the intervals of b that start before it ends and end after it starts.
    lo = np.searchsorted(eb, sa, side="right")
    hi = np.searchsorted(sb, ea, side="left")
    hit = np.flatnonzero(hi > lo)
    if not hit.size:
        return None
    i = hit[0]
    j = lo[i]
    return int(max(sa[i], sb[j])), int(min(ea[i], eb[j]))


def between_cores(outcomes: list, who) -> list[dict]:
    """The races between cores in one phase: a core writing GM bytes that another core writes or
    reads. One record per pair of (core, instruction) groups, each with its first overlap; ``who(pc)``
    names an instruction."""
    cores = [o for o in outcomes if o.accesses.start.size]
    if len(cores) < 2:
        return []
    per_core_w = [merged(o.accesses.start[o.accesses.write], o.accesses.end[o.accesses.write]) for o in cores]
    per_core_a = [merged(o.accesses.start, o.accesses.end) for o in cores]
    bounds = np.unique(np.concatenate([x for s, e in per_core_a for x in (s, e)]))
    writers = _coverage(bounds, np.concatenate([s for s, _ in per_core_w]), np.concatenate([e for _, e in per_core_w]))
    users = _coverage(bounds, np.concatenate([s for s, _ in per_core_a]), np.concatenate([e for _, e in per_core_a]))
    racy = (writers >= 2) | ((writers >= 1) & (users >= 2))
    if not racy.any():
        return []
    before = np.concatenate([[0], np.cumsum(racy)])
    groups = []  # (core, pc, write, (starts, ends), (first cycle, last)) of the accesses on a racy segment
    for o in cores:
        acc = o.accesses
        touch = before[np.searchsorted(bounds, acc.end)] > before[np.searchsorted(bounds, acc.start)]
        for pc in np.unique(acc.pc[touch]).tolist():
            for write in (True, False):
                pick = touch & (acc.pc == pc) & (acc.write == write)
                if pick.any():
                    groups.append((o.core, pc, write, merged(acc.start[pick], acc.end[pick]),
                                   (int(acc.began[pick].min()), int(acc.ended[pick].max()))))
    races = []
    for i, (core_a, pc_a, w_a, iv_a, time_a) in enumerate(groups):
        for core_b, pc_b, w_b, iv_b, time_b in groups[i + 1:]:
            if core_a == core_b or not (w_a or w_b):
                continue
            hit = _first_overlap(iv_a, iv_b)
            if hit is None:
                continue
            if w_a and w_b:
                kind, first, second = "WAW", (core_a, pc_a), (core_b, pc_b)
            else:  # the writer first
                kind, first, second = ("RAW", (core_a, pc_a), (core_b, pc_b)) if w_a else \
                    ("RAW", (core_b, pc_b), (core_a, pc_a))
            # latent unless the two ran at once (the cores of a phase start together): only order
            # (a SYNCALL between them) would make it safe
            met = time_a[0] < time_b[1] and time_b[0] < time_a[1]
            races.append({"kind": kind, "first": dict(who(first[1]), core=first[0]),
                          "second": dict(who(second[1]), core=second[0]), "space": "gm", "start": hit[0],
                          "end": hit[1], "count": 1, "cores": [first[0], second[0]], "latent": not met})
    return races
