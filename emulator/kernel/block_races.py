"""Races between the blocks of a launch in rounds (CONTRACT section 14): two different blocks
accessing the same GM bytes, at least one writing, whichever cores ran them and in whatever order
(no SYNCALL can separate them: such a launch has none).

Each block hands in its footprint (``footprint``): per instruction and direction (a group), the
GM bytes it touched as sorted disjoint intervals and the cycles they were touched in. The check runs
once, over every block's footprint, in interval arithmetic: per group, how many blocks cover each
stretch of bytes (and, where one does, which); then per pair of groups whether some stretch is
covered by two different blocks. Its cost grows with the blocks' intervals, never with pairs of
blocks, so a launch of 65535 blocks is checked as quickly as its footprints can be sorted.
"""

from __future__ import annotations

import numpy as np

from vcore.emulator.kernel.gm_merge import Accesses, merged

# The columns of a footprint row (and, with the block in front, of the rows the check takes).
PC, WRITE, START, END, T0, T1 = range(6)
WIDTH = 6


def footprint(acc: Accesses) -> np.ndarray:
    """A block's GM footprint: one row per interval (pc, write, start, end, first cycle, last cycle),
    the intervals of one instruction and direction merged, its cycles those of all its accesses."""
    if not acc.start.size:
        return np.zeros((0, WIDTH), dtype=np.int64)
    key = acc.pc * 2 + acc.write
    rows = []
    for k in np.unique(key).tolist():  # one group per static instruction and direction: a handful
        pick = key == k
        s, e = merged(acc.start[pick], acc.end[pick])
        group = np.empty((s.size, WIDTH), dtype=np.int64)
        group[:, PC], group[:, WRITE] = k >> 1, k & 1
        group[:, START], group[:, END] = s, e
        group[:, T0], group[:, T1] = acc.began[pick].min(), acc.ended[pick].max()
        rows.append(group)
    return np.concatenate(rows)


class _Group:
    """One instruction and direction over every block: the bounds of its stretches, and per stretch
    how many blocks cover it and the sum of their numbers (the block itself where one does)."""

    def __init__(self, rows: np.ndarray) -> None:
        self.rows = rows  # block, then the footprint's columns
        self.pc, self.write = int(rows[0, 1 + PC]), bool(rows[0, 1 + WRITE])
        starts, ends = rows[:, 1 + START], rows[:, 1 + END]
        self.bounds = np.unique(np.concatenate([starts, ends]))
        self.count = self._cover(starts, ends, np.ones(len(rows), dtype=np.int64))
        self.ids = self._cover(starts, ends, rows[:, 0])

    def _cover(self, starts, ends, weights) -> np.ndarray:
        diff = np.zeros(self.bounds.size + 1, dtype=np.int64)
        np.add.at(diff, np.searchsorted(self.bounds, starts), weights)
        np.add.at(diff, np.searchsorted(self.bounds, ends), -weights)
        return np.cumsum(diff)[:-2] if self.bounds.size > 1 else np.zeros(0, dtype=np.int64)

    def at(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Blocks covering, and their numbers' sum, at each of ``points`` (stretch starts)."""
        if not self.count.size:
            return np.zeros(points.size, dtype=np.int64), np.zeros(points.size, dtype=np.int64)
        j = np.searchsorted(self.bounds, points, side="right") - 1
        inside = (j >= 0) & (j < self.count.size)
        j = np.clip(j, 0, self.count.size - 1)
        return np.where(inside, self.count[j], 0), np.where(inside, self.ids[j], 0)

    def blocks_at(self, point: int) -> np.ndarray:
        """The blocks whose intervals hold byte ``point``, in order."""
        rows = self.rows
        return np.unique(rows[(rows[:, 1 + START] <= point) & (rows[:, 1 + END] > point), 0])


def _pair(xs: np.ndarray, ys: np.ndarray) -> tuple[int, int]:
    """Two different blocks, one of ``xs`` and one of ``ys``: the lowest such pair."""
    options = []
    other = ys[ys != xs[0]]
    if other.size:
        options.append((int(xs[0]), int(other[0])))
    other = xs[xs != ys[0]]
    if other.size:
        options.append((int(other[0]), int(ys[0])))
    return min(options, key=lambda p: (min(p), max(p)))


def between_blocks(rows: np.ndarray, start: np.ndarray, core: np.ndarray, who) -> list[dict]:
    """The races between blocks: ``rows`` are every block's footprint rows with the block in front,
    ``start`` and ``core`` each block's start cycle and core, ``who(pc)`` names an instruction. One
    record per pair of groups that race, naming the lowest pair of blocks on the first bytes."""
    if not rows.size:
        return []
    key = rows[:, 1 + PC] * 2 + rows[:, 1 + WRITE]
    order = np.argsort(key, kind="stable")
    rows, key = rows[order], key[order]
    cuts = np.flatnonzero(np.diff(key)) + 1
    groups = [_Group(part) for part in np.split(rows, cuts)]
    races = []
    for i, one in enumerate(groups):
        for two in groups[i:]:
            if one.write or two.write:
                race = _race(one, two, start, core, who)
                if race is not None:
                    races.append(race)
    return races


def _race(one: _Group, two: _Group, start: np.ndarray, core: np.ndarray, who) -> dict | None:
    bounds = np.union1d(one.bounds, two.bounds)
    if bounds.size < 2:
        return None
    points = bounds[:-1]
    c1, s1 = one.at(points)
    if one is two:
        racy = c1 >= 2
    else:
        c2, s2 = two.at(points)
        racy = (c1 >= 1) & (c2 >= 1) & ((c1 >= 2) | (c2 >= 2) | (s1 != s2))
    if not racy.any():
        return None
    first = int(np.argmax(racy))
    clean = np.flatnonzero(~racy[first:])  # the first racy stretch, and the racy ones right after it
    end = first + int(clean[0]) if clean.size else racy.size
    lo, hi = int(bounds[first]), int(bounds[end])
    xs = one.blocks_at(lo)
    x, y = (int(xs[0]), int(xs[1])) if one is two else _pair(xs, two.blocks_at(lo))
    # the blocks taking part: any with an interval of either group on a racy stretch
    before = np.concatenate([[0], np.cumsum(racy)])
    taking = set()
    for g in (one, two):
        r = g.rows
        touch = before[np.searchsorted(bounds, r[:, 1 + END])] > before[np.searchsorted(bounds, r[:, 1 + START])]
        taking.update(np.unique(r[touch, 0]).tolist())
    sides = [(x, one), (y, two)]
    if one.write and two.write:
        sides.sort(key=lambda side: side[0])  # the lower block first
    elif not one.write:
        sides.reverse()  # the writer first
    (bf, gf), (bs, gs) = sides
    tf, ts = _times(gf, bf, start), _times(gs, bs, start)
    met = tf[0] < ts[1] and ts[0] < tf[1]
    return {"kind": "WAW" if one.write and two.write else "RAW",
            "first": dict(who(gf.pc), block=bf, core=int(core[bf])),
            "second": dict(who(gs.pc), block=bs, core=int(core[bs])), "space": "gm", "start": lo, "end": hi,
            "count": len(taking), "blocks": [bf, bs], "cores": [int(core[bf]), int(core[bs])], "latent": not met}


def _times(group: _Group, block: int, start: np.ndarray) -> tuple[int, int]:
    """The cycles ``block`` touched GM by ``group``'s instruction, on the launch's clock."""
    row = group.rows[group.rows[:, 0] == block][0]
    return int(row[1 + T0] + start[block]), int(row[1 + T1] + start[block])


def race_text(race: dict, rounds: bool) -> str:
    """The sentence for a race between blocks; ``rounds``: more blocks than cores (no SYNCALL)."""
    a, b = race["first"], race["second"]
    span = f"GM bytes 0x{race['start']:x}..0x{race['end']:x}"
    one = f"block {a['block']} (core {a['core']}) {a['where']} ({a['pipe']}: {a['text']})"
    two = f"block {b['block']} (core {b['core']}) {b['where']} ({b['pipe']}: {b['text']})"
    what = "latent race between blocks" if race.get("latent") else "race between blocks"
    fix = ("give each block its own bytes: with more blocks than cores nothing orders two blocks, whichever cores "
           "run them" if rounds else "give each block its own bytes, or put a SYNCALL between them")
    if race["kind"] == "WAW":
        return f"{what} (WAW): {one} and {two} both write {span}: which value stays depends on timing; {fix}"
    return (f"{what} (RAW): {one} writes {span} that {two} reads: a block sees another block's GM writes only "
            f"across a SYNCALL; {fix}")


__all__ = ["WIDTH", "between_blocks", "footprint", "race_text"]
