"""Operand geometry of tensor instructions: which elements each iteration touches.

Most operands are datablocks: iteration r, block b of an operand is at ``base + (r * rep + b * blk)
* 32``, and an iteration covers 8 blocks (fewer for the narrower operand of a conversion). The bit
operands of compare and select are bytes instead: iteration r has the ``count`` bytes at ``base + r
* count``. A ``Layout`` says which; index arrays are built once per (layout, iterations) and cached,
so an instruction costs a few numpy calls whatever its repeat count.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from attrs import frozen

from vcore.isa.types import BLOCK_BYTES, BLOCKS_PER_VL


@frozen
class Layout:
    """Where an operand's elements of each iteration are.

    ``esize``: bytes of an element; ``blocks``: datablocks an iteration covers (0 for an operand
    whose iteration is ``bit_bytes`` contiguous bytes: the bits of a compare, the 8 elements VBRCB
    reads); ``blk``/``rep``: the block and repeat strides in datablocks (unused for those)."""

    esize: int
    blocks: int = BLOCKS_PER_VL
    blk: int = 1
    rep: int = BLOCKS_PER_VL
    bit_bytes: int = 0  # an operand of contiguous runs (bits, VBRCB's source): bytes an iteration
    run_step: int | None = None  # such an operand's bytes from one iteration to the next (default: bit_bytes)

    @property
    def count(self) -> int:
        """Elements an iteration holds."""
        return self.bit_bytes // self.esize if self.blocks == 0 else self.blocks * BLOCK_BYTES // self.esize

    @property
    def contiguous(self) -> bool:
        """Iteration r's elements are elements [r * count, (r + 1) * count) from the base."""
        return self.advance == self.count * self.esize and (self.blocks == 0 or self.blk == 1)

    @property
    def advance(self) -> int:
        """Bytes from one iteration's first byte to the next one's."""
        if self.blocks == 0:
            return self.bit_bytes if self.run_step is None else self.run_step
        return self.rep * BLOCK_BYTES

    @property
    def span(self) -> int:
        """Bytes from an iteration's first byte to the end of its last."""
        return self.bit_bytes if self.blocks == 0 else ((self.blocks - 1) * self.blk + 1) * BLOCK_BYTES

    def extent(self, iterations: int) -> int:
        """Bytes from the base to the end of the last byte any iteration touches (iterations >= 1)."""
        return (iterations - 1) * self.advance + self.span


@lru_cache(maxsize=4096)
def element_offsets(layout: Layout, iterations: int) -> np.ndarray:
    """(iterations, count) element offsets from the operand base, read-only."""
    count = layout.count
    if layout.blocks == 0:
        step = layout.advance // layout.esize
        out = np.arange(iterations, dtype=np.int64)[:, None] * step + np.arange(count, dtype=np.int64)[None, :]
    else:
        per_block = BLOCK_BYTES // layout.esize
        lane = np.arange(count, dtype=np.int64)
        within = (lane // per_block) * layout.blk * per_block + lane % per_block
        out = np.arange(iterations, dtype=np.int64)[:, None] * (layout.rep * per_block) + within[None, :]
    out.setflags(write=False)
    return out


@lru_cache(maxsize=4096)
def block_offsets(layout: Layout, iterations: int) -> np.ndarray:
    """(iterations, blocks) byte offsets of each iteration's datablocks from the operand base (a
    bit operand: the one block its bytes are in, as they never cross one)."""
    if layout.blocks == 0:  # the blocks its bytes are in (at most 4, for VCPADD's 128)
        first = np.arange(iterations, dtype=np.int64) * layout.advance // BLOCK_BYTES
        width = -(-layout.bit_bytes // BLOCK_BYTES)
        out = (first[:, None] + np.arange(width, dtype=np.int64)[None, :]) * BLOCK_BYTES
    else:
        rows = np.arange(iterations, dtype=np.int64)[:, None] * layout.rep
        out = (rows + np.arange(layout.blocks, dtype=np.int64)[None, :] * layout.blk) * BLOCK_BYTES
    out.setflags(write=False)
    return out


_SCAN_BLOCK = 1 << 16


@lru_cache(maxsize=4096)
def dependency_distance(iterations: int, delta_bytes: int, dst: Layout, src: Layout) -> int:
    """The smallest d >= 1 such that some iteration r's destination may overlap the source of
    iteration r + d (``delta_bytes`` = dst base - src base); ``iterations`` when none can.

    Iterations closer than this never depend on each other, so they run as one numpy pass. The
    test is on each iteration's byte span, so it errs on the side of a dependency.
    """
    if iterations <= 1:
        return max(iterations, 1)
    dst_span, src_span = dst.span, src.span
    dst_advance, src_advance = dst.advance, src.advance
    # Scanned in blocks of d, so the memory is bounded whatever the iteration count.
    for lo in range(1, iterations, _SCAN_BLOCK):
        d = np.arange(lo, min(lo + _SCAN_BLOCK, iterations), dtype=np.int64)
        # (dst start of r) - (src start of r + d) = delta + r*(dst_adv - src_adv) - d*src_adv, r in [0, R-1-d]
        first = delta_bytes - d * src_advance
        last = first + (iterations - 1 - d) * (dst_advance - src_advance)
        low, high = np.minimum(first, last), np.maximum(first, last)
        where = np.flatnonzero((low < src_span) & (high > -dst_span))
        if where.size:
            return int(d[where[0]])
    return iterations
