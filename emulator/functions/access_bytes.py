"""The UB bytes one access of a vector function touches, as its order check counts them (CONTRACT
sections 7 and 13.12; ``emulator.functions.races``): a store's are the bytes it writes (the active
lanes of a masked store, the ``w`` bytes of a ``first_*`` store, all 512 of an ``intlv_*`` one), a
load's the bytes its used lanes read.

An access is its runs of 32-byte blocks, ``[(first, end), ...]`` in address order, and, where it
touches only some bytes of a block, a byte mask per block: a ``uint32`` array with one entry for
each block of its runs in order (bit i: byte i of the block), or None when it touches every byte of
every block of its runs (the common case costs what blocks cost).
"""

from __future__ import annotations

import numpy as np

from vcore.emulator.semantics.register_dist import load_map
from vcore.isa import dist
from vcore.isa.types import BLOCK_BYTES, VL_BYTES

FULL = 0xFFFFFFFF  # every byte of a block
ALL_BYTES = (1 << VL_BYTES) - 1  # every byte of a register, as bits (a load's used register bytes)
_ONES = np.ones(BLOCK_BYTES, dtype=bool)


def runs_of_blocks(blocks: np.ndarray) -> list:
    """The runs of some sorted distinct block numbers."""
    if not blocks.size:
        return []
    breaks = np.flatnonzero(np.diff(blocks) != 1)
    starts = np.concatenate((blocks[:1], blocks[breaks + 1]))
    ends = np.concatenate((blocks[breaks] + 1, blocks[-1:] + 1))
    return list(zip(starts.tolist(), ends.tolist(), strict=True))


def _of_masks(first: int, masks: np.ndarray) -> tuple[list, np.ndarray | None]:
    """Runs and masks of the blocks ``first``, ``first + 1``, ... with these masks (0: untouched)."""
    touched = np.flatnonzero(masks)
    if touched.size == masks.size:  # (the usual case: one run)
        runs = [(first, first + masks.size)]
    else:
        masks = masks[touched]
        runs = runs_of_blocks(touched + first)
    return runs, None if (masks == FULL).all() else masks


def bool_masks(on: np.ndarray) -> np.ndarray:
    """Per 32 bools (a multiple of 32 of them, on the last axis), the byte mask they set."""
    return np.packbits(on, axis=-1, bitorder="little").view("<u4")


def of_range(start: int, stop: int, where: np.ndarray | None = None) -> tuple[list, np.ndarray | None]:
    """The bytes ``start`` to ``stop`` (those of them ``where`` sets, if given)."""
    first, end = start // BLOCK_BYTES, -(-stop // BLOCK_BYTES)
    lead, tail = start - first * BLOCK_BYTES, end * BLOCK_BYTES - stop
    if where is None:
        if not lead | tail:
            return [(first, end)], None
        where = _ONES if stop - start == BLOCK_BYTES else np.ones(stop - start, dtype=bool)
    if lead | tail:
        where = np.concatenate((np.zeros(lead, dtype=bool), where, np.zeros(tail, dtype=bool)))
    return _of_masks(first, bool_masks(where))


def _of_sorted(block: np.ndarray, bits: np.ndarray) -> tuple[list, np.ndarray | None]:
    """Runs and masks of some bytes given as (block, mask) pairs sorted by block (repeats allowed)."""
    starts = np.flatnonzero(np.concatenate(([True], block[1:] != block[:-1])))
    masks = np.bitwise_or.reduceat(bits, starts)
    block = block[starts]
    if not masks.all():
        block, masks = block[masks != 0], masks[masks != 0]
    return runs_of_blocks(block), None if (masks == FULL).all() else masks


def of_addresses(addresses: np.ndarray) -> tuple[list, np.ndarray | None]:
    """The bytes at some byte addresses (any order, repeats allowed)."""
    if not addresses.size:
        return [], None
    addresses = np.unique(addresses)
    return _of_sorted(addresses >> 5, np.left_shift(np.uint32(1), (addresses & 31).astype(np.uint32)))


def of_datablocks(first: int, blk: int, used: int) -> tuple[list, np.ndarray | None]:
    """A load by datablock (``blk=``: register block j from UB block ``first + j * blk``) whose register
    bytes ``used`` (bits) count."""
    masks = np.frombuffer(used.to_bytes(VL_BYTES // 8, "little"), dtype="<u4")
    return _of_sorted(first + np.arange(8, dtype=np.int64) * blk, masks)


def of_register(first: int, used: int) -> tuple[list, np.ndarray | None]:
    """A contiguous 256-byte access at block ``first`` whose register bytes ``used`` (bits) count."""
    if used == ALL_BYTES:
        return [(first, first + 8)], None
    return _of_masks(first, np.frombuffer(used.to_bytes(VL_BYTES // 8, "little"), dtype="<u4"))


def lane_bytes(entries: np.ndarray, width: int) -> int:
    """The register bytes (bits) of the lanes of ``width`` bytes that a mask register's entries make
    active (lane i when entry ``i * width`` is set)."""
    on = entries if width == 1 else np.repeat(entries[::width], width)
    return int.from_bytes(np.packbits(on, bitorder="little").tobytes(), "little")


def as_bits(used: int) -> np.ndarray:
    """A register's used bytes (bits) as 256 bools."""
    return np.unpackbits(np.frombuffer(used.to_bytes(VL_BYTES // 8, "little"), dtype=np.uint8),
                         bitorder="little").astype(bool)


def read_map(inst) -> np.ndarray | int | None:
    """How a register load's lanes map to UB: with a distribution mode, for each byte of its
    destination register(s), the byte of its UB window it takes (-1: none, a zero;
    ``register_dist.load_map``); by datablock, its stride ``blk`` (an int); else None (its bytes in
    order, or no map: then all of them count)."""
    if inst.row.mnemonic != "VLD":
        return None
    mode = dist.mode_of(inst)
    if mode.name == "norm":
        return inst.kw("blk") if inst.row.keyword("blk") is not None else None
    return load_map(mode.name, inst.type.size)


def read_bytes(idx: np.ndarray, used: int, at: int) -> tuple[list, np.ndarray | None]:
    """The UB bytes a load with the byte map ``idx`` (``read_map``) at byte ``at`` reads for the
    register bytes ``used`` (bits; a two-register load: those of either register)."""
    on = as_bits(used)
    if idx.size > VL_BYTES:  # two destination registers: a byte of either counts
        on = np.concatenate((on, on))
    taken = idx[on[:idx.size] & (idx >= 0)]
    return of_addresses(taken + at)
