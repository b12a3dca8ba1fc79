"""Operand geometry of tensor instructions: which elements each iteration touches.

Iteration r, block b of an operand is at ``base + (r * rep + b * blk) * 32``. Index arrays are built
once per (iterations, strides, element size) and cached, so an instruction costs a few numpy calls
whatever its repeat count.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from isa.types import BLOCK_BYTES, BLOCKS_PER_VL, VL_BYTES


@lru_cache(maxsize=4096)
def element_offsets(iterations: int, rep: int, blk: int, esize: int) -> np.ndarray:
    """(iterations, lanes) element offsets from the operand base, read-only."""
    per_block = BLOCK_BYTES // esize
    lanes = VL_BYTES // esize
    lane = np.arange(lanes, dtype=np.int64)
    within = (lane // per_block) * blk * per_block + lane % per_block
    rows = np.arange(iterations, dtype=np.int64)[:, None] * (rep * per_block)
    out = rows + within[None, :]
    out.setflags(write=False)
    return out


@lru_cache(maxsize=4096)
def block_offsets(iterations: int, rep: int, blk: int) -> np.ndarray:
    """(iterations, 8) byte offsets of each iteration's datablocks from the operand base."""
    rows = np.arange(iterations, dtype=np.int64)[:, None] * rep
    out = (rows + np.arange(BLOCKS_PER_VL, dtype=np.int64)[None, :] * blk) * BLOCK_BYTES
    out.setflags(write=False)
    return out


def extent(iterations: int, rep: int, blk: int) -> int:
    """Bytes from the base to the end of the last block any iteration touches (iterations >= 1)."""
    return ((iterations - 1) * rep + (BLOCKS_PER_VL - 1) * blk + 1) * BLOCK_BYTES


_SCAN_BLOCK = 1 << 16


@lru_cache(maxsize=4096)
def dependency_distance(iterations: int, delta_bytes: int, dst_rep: int, dst_blk: int, src_rep: int,
                        src_blk: int) -> int:
    """The smallest d >= 1 such that some iteration r's destination may overlap the source of
    iteration r + d (``delta_bytes`` = dst base - src base); ``iterations`` when none can.

    Iterations closer than this never depend on each other, so they run as one numpy pass. The
    test is on each iteration's byte span, so it errs on the side of a dependency.
    """
    if iterations <= 1:
        return max(iterations, 1)
    dst_span = ((BLOCKS_PER_VL - 1) * dst_blk + 1) * BLOCK_BYTES
    src_span = ((BLOCKS_PER_VL - 1) * src_blk + 1) * BLOCK_BYTES
    # Scanned in blocks of d, so the memory is bounded whatever the iteration count.
    for lo in range(1, iterations, _SCAN_BLOCK):
        d = np.arange(lo, min(lo + _SCAN_BLOCK, iterations), dtype=np.int64)
        # (dst start of r) - (src start of r + d) = delta + r*(dst_rep - src_rep)*32 - d*src_rep*32, r in [0, R-1-d]
        first = delta_bytes - d * src_rep * BLOCK_BYTES
        last = first + (iterations - 1 - d) * (dst_rep - src_rep) * BLOCK_BYTES
        low, high = np.minimum(first, last), np.maximum(first, last)
        where = np.flatnonzero((low < src_span) & (high > -dst_span))
        if where.size:
            return int(d[where[0]])
    return iterations
