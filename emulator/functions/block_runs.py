"""The UB blocks a vector function's accesses touch, as runs (``BlockRuns``): noted one access at a
time, or an affine run of a loop's passes at once, and merged now and then, so a long function keeps at
most the runs of UB, not one per access; whether two of them share a block (a function whose accesses
never meet cannot race)."""

from __future__ import annotations

import itertools

import numpy as np

from vcore.emulator.jobs import merge_runs

_RUNS_AT_ONCE = 4096  # passes of a loop whose blocks (apart) are noted in one array


class BlockRuns:
    """The UB blocks a launch's accesses touch, as runs: noted one by one (``firsts``, ``ends``),
    merged now and then, so a long function keeps at most the runs of UB, not one per access."""

    __slots__ = ("ends", "firsts", "merged", "overlap")

    def __init__(self) -> None:
        self.firsts: list = []
        self.ends: list = []
        self.merged = None  # (n, 2) sorted disjoint runs folded in so far
        self.overlap = False  # whether two of the runs noted share a block

    def add(self, entry) -> None:
        """The blocks of one footprint entry ``(runs, first, end)`` (None: a scatter of no lanes)."""
        if entry is None:
            return
        runs, lo, hi = entry
        if runs is None:
            self.firsts.append(lo)
            self.ends.append(hi)
        else:
            self.firsts.extend(runs[:, 0].tolist())
            self.ends.extend(runs[:, 1].tolist())

    def add_many(self, firsts: np.ndarray, ends: np.ndarray) -> None:
        """Many runs at once (a loop's passes run in closed form: one access's blocks at each pass)."""
        self.fold()
        self.fold(np.stack((firsts.astype(np.int64), ends.astype(np.int64)), axis=1))

    def add_passes(self, lo: int, hi: int, step: int, first: int, end: int) -> None:
        """The blocks ``[lo, hi)`` moved on ``step`` blocks a pass, in passes ``first`` to ``end``: one
        run when they touch or overlap (and whether they overlap), else a run a pass."""
        if end <= first:
            return
        if abs(step) <= hi - lo:
            low, high = sorted((first * step, (end - 1) * step))
            self.firsts.append(lo + low)  # (as ``add`` notes one run)
            self.ends.append(hi + high)
            self.overlap = self.overlap or (end - first > 1 and abs(step) < hi - lo)
            return
        for start in range(first, end, _RUNS_AT_ONCE):
            firsts = lo + np.arange(start, min(end, start + _RUNS_AT_ONCE), dtype=np.int64) * step
            self.add_many(firsts, firsts + (hi - lo))

    def fold(self, more: np.ndarray | None = None) -> None:
        """Merge the runs noted so far (and ``more``, an (n, 2) array) into ``merged``."""
        if not self.firsts and more is None:
            return
        runs = np.stack((np.array(self.firsts, dtype=np.int64), np.array(self.ends, dtype=np.int64)), axis=1)
        if more is not None:
            runs = np.concatenate((runs, more))
        if self.merged is not None:
            runs = np.concatenate((self.merged, runs))
        order = np.argsort(runs[:, 0], kind="stable")
        if len(runs) > 1 and (np.maximum.accumulate(runs[order, 1])[:-1] > runs[order[1:], 0]).any():
            self.overlap = True
        self.merged = merge_runs(runs)
        self.firsts, self.ends = [], []

    def footprint(self) -> dict:
        """``{}`` or ``{"ub": (runs or None, first block, end block)}``, merged."""
        if self.merged is None and len(self.firsts) <= 256:  # a few runs: merged in Python
            found, overlap = _few_runs(self.firsts, self.ends)
            self.overlap = self.overlap or overlap
            return found
        self.fold()
        runs = self.merged
        first, end = int(runs[0, 0]), int(runs[-1, 1])
        return {"ub": (None, first, end) if len(runs) == 1 else (runs, first, end)}


def _few_runs(firsts: list, ends: list) -> tuple[dict, bool]:
    """A few runs merged, and whether two of them share a block."""
    if not firsts:
        return {}, False
    pairs = zip(firsts, ends, strict=True)
    if any(b < a for a, b in itertools.pairwise(firsts)):  # not in address order (two streams, say)
        pairs = sorted(pairs)
    merged: list = []
    overlap = False
    for lo, hi in pairs:
        if merged and lo <= merged[-1][1]:
            overlap = overlap or lo < merged[-1][1]
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    if len(merged) == 1:
        return {"ub": (None, merged[0][0], merged[0][1])}, overlap
    return {"ub": (np.array(merged, dtype=np.int64), merged[0][0], merged[-1][1])}, overlap
