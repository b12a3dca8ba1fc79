"""What a vector function's order check (``emulator.functions.races.InnerOrder``) keeps of the UB
accesses it has seen, per 32-byte block, and the vectorized test of which new accesses meet one
(``BlockState.meets``). A function's arrays, kept across its launches (an epoch, a MEMBAR's count, is
never reused, so nothing is reset): their size is UB's blocks times the function's accesses,
whatever the length of a run.

Per block: the latest epoch a write (a read) touched it, and the bytes the writes (reads) of that
epoch touched, as a 32-bit mask. Per static access (a "slot") and block (a "cell"): the epoch of its
latest access there, the first and the latest of its accesses in that epoch (each its ordinal, its
count of runs so far, and its job's index) and the bytes they touched. An access given without
masks touches every byte of its blocks (``emulator.functions.access_bytes``).
"""

from __future__ import annotations

import numpy as np

from vcore.emulator.functions.access_bytes import FULL

_NONE = -1


def or_before(x: np.ndarray, start: np.ndarray) -> np.ndarray:
    """For each element, the bitwise or of the elements before it in its group (``start``: the index
    of each element's group's first element; groups are runs of elements), 0 for a group's first.
    Doubling steps: as many as the bits of the largest group's size."""
    idx = np.arange(x.size)
    out = np.zeros_like(x)
    inside = idx > start
    out[inside] = x[idx[inside] - 1]
    step = 1
    while True:
        src = idx - step
        ok = src >= start
        if not ok.any():
            return out
        out[ok] |= out[src[ok]]
        step *= 2


def _union(epochs: np.ndarray, masks: np.ndarray, where: np.ndarray, epoch: np.ndarray, mask: np.ndarray) -> None:
    """Note accesses (in program order, so their epochs never decrease) at the places ``where`` of the
    arrays ``epochs`` and ``masks``: each place's latest epoch, and the bytes of that epoch."""
    order = np.lexsort((epoch, where))
    w, e, m = where[order], epoch[order], mask[order]
    starts = np.flatnonzero(np.concatenate(([True], (w[1:] != w[:-1]) | (e[1:] != e[:-1]))))
    ors = np.bitwise_or.reduceat(m, starts)
    w, e = w[starts], e[starts]
    latest = np.concatenate((w[1:] != w[:-1], [True]))  # each place's last group: its latest epoch
    w, e, ors = w[latest], e[latest], ors[latest]
    masks[w] = np.where(epochs[w] == e, masks[w] | ors, ors)
    epochs[w] = e


class BlockState:
    """Per UB block and per slot, what a later access of a function can still race with."""

    def __init__(self, slots: int, blocks: int) -> None:
        self.any_write = np.full(blocks, _NONE, dtype=np.int64)  # the latest epoch a write touched it
        self.any_read = np.full(blocks, _NONE, dtype=np.int64)
        self.write_bytes = np.zeros(blocks, dtype=np.uint32)  # the bytes of that epoch's writes
        self.read_bytes = np.zeros(blocks, dtype=np.uint32)
        shape = (slots, blocks)
        self.epoch = np.full(shape, _NONE, dtype=np.int64)
        # the first and the latest access of the slot in that epoch: its ordinal, its job's index
        self.first = np.zeros((2, *shape), dtype=np.int64)
        self.latest = np.zeros((2, *shape), dtype=np.int64)
        self.bytes = np.zeros(shape, dtype=np.uint32)  # the bytes the slot touched in that epoch
        self.next_epoch = 0

    def meets(self, row_of: np.ndarray, block: np.ndarray, write: np.ndarray, epoch: np.ndarray,
              mask: np.ndarray | None) -> np.ndarray:
        """Which of some accesses (one a block, of the rows ``row_of`` in program order) share a byte
        with an earlier one of the same epoch, one of the two a write: one noted before, or one of
        these (``mask``: their bytes, None for whole blocks)."""
        if mask is None:
            hit = (self.any_write[block] == epoch) | (write & (self.any_read[block] == epoch))
        else:
            hit = ((self.any_write[block] == epoch) & (self.write_bytes[block] & mask != 0)) | \
                  (write & (self.any_read[block] == epoch) & (self.read_bytes[block] & mask != 0))
        order = np.lexsort((row_of, block, epoch))
        key = epoch[order] * self.any_write.size + block[order]
        starts = np.concatenate(([True], key[1:] != key[:-1]))
        group = np.cumsum(starts) - 1
        first_at = np.flatnonzero(starts)
        w = write[order]
        if mask is None:
            counted = w.astype(np.int64)
            writes_before = np.cumsum(counted) - counted - (np.cumsum(counted) - counted)[first_at][group]
            later = np.arange(order.size) > first_at[group]
            hit[order] |= (writes_before > 0) | (w & later)
            return hit
        # the groups of two or more accesses: by their bytes
        many = np.flatnonzero(np.bincount(group) > 1)
        if many.size:
            inside = np.flatnonzero(np.isin(group, many))
            sub, m = order[inside], mask[order[inside]]
            w = w[inside]
            start = np.maximum.accumulate(np.where(starts[inside], np.arange(inside.size), 0))
            written = or_before(np.where(w, m, 0).astype(np.uint32), start)
            touched = or_before(m, start)
            hit[sub] |= (written & m != 0) | (w & (touched & m != 0))
        return hit

    def note(self, slot, ordinal, index, block, write, epoch, once: bool = False, mask=None) -> None:
        """Record accesses that meet nothing, one a block, in program order (their jobs' ``index``):
        per block, the epoch of its latest write and read and their bytes; per slot and block, the
        first and latest access of the epoch (the latest: for a write) and their bytes. ``once``: no
        slot's block is here twice. ``mask``: their bytes (None: whole blocks)."""
        if mask is None:
            self.any_write[block[write]] = epoch[write]  # in program order: the last one stays
            self.any_read[block[~write]] = epoch[~write]
            self.write_bytes[block[write]] = FULL
            self.read_bytes[block[~write]] = FULL
        else:
            if write.any():
                _union(self.any_write, self.write_bytes, block[write], epoch[write], mask[write])
            if not write.all():
                _union(self.any_read, self.read_bytes, block[~write], epoch[~write], mask[~write])
        cell = slot * self.any_write.size + block
        order = last = first = np.arange(cell.size)  # ``once``: each access is its cell's first and latest
        ors = mask
        if not once:
            order = np.lexsort((index, epoch, cell))  # by cell, then epoch, then program order
            cell, ep = cell[order], epoch[order]
            last = np.flatnonzero(np.concatenate((cell[1:] != cell[:-1], [True])))  # the latest of each cell
            group_start = np.concatenate(([True], (cell[1:] != cell[:-1]) | (ep[1:] != ep[:-1])))
            first_of_group = np.maximum.accumulate(np.where(group_start, np.arange(cell.size), 0))
            first = first_of_group[last]  # the first access of the latest epoch of each cell
            if mask is not None:  # the bytes of each cell's latest epoch
                starts = np.flatnonzero(group_start)
                ors = np.bitwise_or.reduceat(mask[order], starts)[np.searchsorted(starts, first)]
        ep = epoch[order]
        cells = cell[last]
        flat_epoch = self.epoch.reshape(-1)
        kept = flat_epoch[cells] == ep[last]  # the cell already has accesses of that epoch: its first stays
        picks = order[last]
        firsts = np.where(kept, -1, order[first])
        for plane, values in enumerate((ordinal, index)):
            self.latest[plane].reshape(-1)[cells] = values[picks]
            fresh = firsts >= 0
            self.first[plane].reshape(-1)[cells[fresh]] = values[firsts[fresh]]
        flat_bytes = self.bytes.reshape(-1)
        if mask is None:
            flat_bytes[cells] = FULL
        else:
            flat_bytes[cells] = np.where(kept, flat_bytes[cells] | ors, ors)
        flat_epoch[cells] = ep[last]
