"""Work handed to a pipe: what it reads and writes and how to perform it.

The scalar unit decodes an instruction, resolves its addresses from the scalar registers at
dispatch, and submits a ``Job``. The timing engine decides when it starts and ends; ``perform``
runs at the start on the state as it then is, and its writes land at the end.

Footprints are lists of ``(space, runs)``: ``runs`` is either one half-open range of 32-byte
blocks as a tuple ``(lo, hi)`` (registers and contiguous operands, compared without numpy), or an
(n, 2) int64 array of sorted, disjoint ranges. A contiguous operand is one run, whatever its size,
so comparing footprints costs the same for ``repeat=1`` and ``repeat=255``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from attrs import define, field

from isa.types import BLOCK_BYTES

EMPTY_RUNS = np.zeros((0, 2), dtype=np.int64)


def runs_of(ids: np.ndarray) -> np.ndarray:
    """Sorted disjoint runs covering a set of block ids (any order, repeats allowed)."""
    ids = np.unique(np.asarray(ids, dtype=np.int64))
    if ids.size == 0:
        return EMPTY_RUNS
    breaks = np.flatnonzero(np.diff(ids) != 1)
    starts = np.concatenate(([ids[0]], ids[breaks + 1]))
    ends = np.concatenate((ids[breaks] + 1, [ids[-1] + 1]))
    return np.stack((starts, ends), axis=1)


def merge_runs(runs: np.ndarray) -> np.ndarray:
    """Sort and merge overlapping or touching runs."""
    if len(runs) <= 1:
        return runs
    runs = runs[np.argsort(runs[:, 0], kind="stable")]
    reach = np.maximum.accumulate(runs[:, 1])
    new = np.concatenate(([True], runs[1:, 0] > reach[:-1]))
    starts = runs[new, 0]
    ends = np.maximum.reduceat(runs[:, 1], np.flatnonzero(new))
    return np.stack((starts, ends), axis=1)


def span(space: str, lo: int, hi: int):
    """The blocks covering bytes [lo, hi) of a space."""
    if hi <= lo:
        return space, EMPTY_RUNS
    return space, (lo // BLOCK_BYTES, (hi - 1) // BLOCK_BYTES + 1)


def blocks(space: str, byte_addresses: np.ndarray) -> tuple[str, np.ndarray]:
    """The blocks holding the given byte addresses."""
    return space, runs_of(np.asarray(byte_addresses, dtype=np.int64) // BLOCK_BYTES)


_VREGS = tuple(("V", (i * 8, i * 8 + 8)) for i in range(32))
_PREGS = tuple(("P", (i * 8, i * 8 + 8)) for i in range(8))


def vreg(index: int):
    """A vector register as 8 blocks of the register file space ``V``."""
    return _VREGS[index]


def preg(index: int):
    """A mask register: 256 entries, 8 blocks of 32 in space ``P``."""
    return _PREGS[index]


@define(slots=True, eq=False)
class Job:
    """One dynamic instruction on a pipe. The engine fills in the times and the sequence number."""

    pc: int
    perform: Callable[[], None] | None  # None for synchronisation jobs and repeat=0
    reads: list = field(factory=list)  # [(space, runs)]
    writes: list = field(factory=list)
    kind: str = "data"  # data, set, wait, barrier
    lands: bool = False  # perform() returns the closure that lands its writes (no snapshot needed)
    iterations: int = 0
    conflicts: Callable | None = None  # conflicts(cost_model) -> bank-conflict cycles of a tensor instruction
    nbytes: int = 0  # DMA bytes moved
    flag: tuple | None = None  # (src pipe, dst pipe, event) of SETFLAG / WAITFLAG
    refine: Callable[[], tuple[list, list]] | None = None  # precise footprint, evaluated at the start
    seq: int = 0
    pipe: str = ""
    dispatch: int = 0
    start: int = 0
    end: int = 0
    footprint_reads: dict | None = None  # space -> merged runs, set by the engine
    footprint_writes: dict | None = None
