"""The transposes (CONTRACT 13.5): VTRANS, 16 x 16 tiles of 2-byte elements, and VTRANS5HD, 16 source
datablocks to 16 destination datablocks named by two address lists in UB.

Each is one numpy pass over all its tiles or iterations (fancy indexing), its sources read before its
results are written. VTRANS's tiles are 512 bytes at multiples of 512 from its two addresses, so a
destination tile and a source tile either coincide or overlap partially: partial overlap of a tile's
destination with its own or a later tile's source is a fault, and where they coincide a later tile
reads what an earlier one wrote. Transposing twice is the identity, so tile r's result is the
original tile at the source of the first tile of its chain of such writes, transposed when the chain
is of odd length (``chains``: worked out once per distance between the two addresses).

VTRANS5HD reads its lists when it starts: it is performed then, before it is placed
(``Job.priced_at_start``), and its footprint refined to the blocks they name (``Job.refine``); until
then its footprint is the whole UB. Iterations that read a block an earlier iteration wrote run in
passes that keep that order (``ordered``). An 8-bit one writes half of each destination block: its
writes are byte-exact (``Job.exact_writes``: that half of every block, within its blocks), so the
two halves that a low and a high call write do not race; its reads keep their blocks.
"""

from __future__ import annotations

import numpy as np

from vcore.emulator.faults import Fault
from vcore.emulator.jobs import Job, blocks, runs_of, span
from vcore.emulator.semantics.registry import UNBANKED, implements
from vcore.isa import TYPES, Inst
from vcore.isa.types import BLOCK_BYTES

TILE = 512  # bytes of a 16 x 16 tile of 2-byte elements
TILE_SIDE = 16
OVERLAP = "VTRANS: dst and src overlap other than exactly"
LIST_BYTES = 16 * 8  # 16 little-endian u64 addresses
_U16 = TYPES["u16"]  # VTRANS moves its 2-byte elements as bits


# ----------------------------------------------------------------------------------------------
# VTRANS


def chains(delta: int, n: int, dst_step: int, src_step: int) -> tuple[np.ndarray, np.ndarray]:
    """For dst = src + ``delta`` (bytes) and tile strides in tiles: for each tile, the tile whose source
    holds its data originally (the first of its chain of earlier tiles that wrote its source exactly)
    and whether it is transposed an odd number of times. A partial overlap of a tile's destination
    with its own or a later tile's source is the fault ``OVERLAP``."""
    r = np.arange(n, dtype=np.int64)
    if delta % TILE:
        # Tile r's destination against source tiles k >= r: those at most a tile away (at most two).
        e = delta + r * dst_step * TILE  # destination r, from src
        if src_step == 0:
            near = np.abs(e) < TILE
        else:
            k = e // (src_step * TILE)
            near = np.zeros(n, dtype=bool)
            for kk in (k, k + 1):
                near |= (kk >= r) & (kk < n) & (np.abs(e - kk * src_step * TILE) < TILE)
        if near.any():
            raise Fault(OVERLAP)
        return r, np.ones(n, dtype=bool)
    c = delta // TILE  # destination tile r is tile slot c + r * dst_step; source tile r slot r * src_step
    wanted = r * src_step - c  # tile r reads what an earlier tile p wrote when p * dst_step == wanted
    if dst_step == 0:
        pred = np.where((wanted == 0) & (r >= 1), r - 1, -1)
    else:
        p = wanted // dst_step
        pred = np.where((wanted % dst_step == 0) & (p >= 0) & (p < r), p, -1)
    # Pointer jumping: each tile's chain up to its first tile, doubling the hops covered each round
    # (at most log2(4096) = 12 rounds, whatever the tiles).
    hops = (pred >= 0).astype(np.int64)
    top = np.where(pred >= 0, pred, r)
    while True:
        going = pred[top] >= 0
        if not going.any():
            break
        hops = hops + np.where(going, hops[top], 0)
        top = np.where(going, top[top], top)
    return top, hops % 2 == 0


@implements("transpose", bank_rule=UNBANKED, forms=("tensor-transpose",))
def bind_transpose(inst: Inst, pc: int):
    """VTRANS.T [dst], [src]: tile r at src + r * srcrep * 512 transposed to dst + r * dstrep * 512."""
    dst_ref, src_ref = inst.operands
    n, dst_step, src_step = inst.kw("repeat"), inst.kw("dstrep"), inst.kw("srcrep")
    next_pc = pc + inst.size
    tiles = np.arange(n, dtype=np.int64)
    dst_off, src_off = tiles * dst_step * TILE, tiles * src_step * TILE
    per_tile = np.arange(0, TILE, BLOCK_BYTES)
    dst_runs = runs_of((dst_off[:, None] + per_tile).reshape(-1) // BLOCK_BYTES)
    src_runs = runs_of((src_off[:, None] + per_tile).reshape(-1) // BLOCK_BYTES)
    dst_extent, src_extent = int(dst_off[-1]) + TILE, int(src_off[-1]) + TILE
    # Tiles whose destination no later tile writes again (with dstrep=0, the last alone).
    kept = tiles if dst_step else tiles[-1:]
    elements = np.arange(TILE // 2)
    seen: dict = {}  # delta -> its chains

    def run(m):
        dst = m.ub_block_address(dst_ref, "VTRANS")
        src = m.ub_block_address(src_ref, "VTRANS")
        m.check_ub(src, src + src_extent, "VTRANS")
        m.check_ub(dst, dst + dst_extent, "VTRANS")
        delta = dst - src
        found = seen.get(delta)
        if found is None:
            found = seen[delta] = chains(delta, n, dst_step, src_step)
        top, odd = found[0][kept], found[1][kept]

        def perform():
            view = m.view("ub", _U16)
            whole = view[(src + src_off[top])[:, None] // 2 + elements].reshape(-1, TILE_SIDE, TILE_SIDE)
            out = np.where(odd[:, None, None], whole.transpose(0, 2, 1), whole)
            return ((view, ((dst + dst_off[kept])[:, None] // 2 + elements).reshape(-1), out.reshape(-1)),)

        m.submit(Job(pc, perform, [("ub", src_runs + src // BLOCK_BYTES)], [("ub", dst_runs + dst // BLOCK_BYTES)],
                     iterations=n))
        return next_pc

    return run


# ----------------------------------------------------------------------------------------------
# VTRANS5HD


def _entry_fault(values: np.ndarray, name: str, ub_size: int) -> None:
    """A fault naming the first listed address that is not 32-byte aligned or whose 32 bytes are not in UB."""
    bad = (values % BLOCK_BYTES != 0) | (values > ub_size - BLOCK_BYTES)
    if bad.any():
        i = int(np.argmax(bad))
        value = int(values[i])
        why = "is not 32-byte aligned" if value % BLOCK_BYTES else f"is outside UB (UB size 0x{ub_size:x})"
        raise Fault(f"VTRANS5HD: {name}[{i}] = 0x{value:x} {why}")


def _reach_fault(base: np.ndarray, offsets: np.ndarray, name: str, ub_size: int) -> None:
    """A fault naming the first list entry that an iteration's offset moves past the end of UB."""
    past = base[None, :] + offsets[:, None] > ub_size - BLOCK_BYTES
    if past.any():
        r, i = divmod(int(np.argmax(past)), base.size)
        raise Fault(f"VTRANS5HD: {name}[{i}] = 0x{int(base[i]):x} plus iteration {r}'s offset 0x{int(offsets[r]):x} "
                    f"is outside UB (UB size 0x{ub_size:x})")


def _overlap_fault(d: np.ndarray, s: np.ndarray) -> None:
    """[vcore] A destination block that is a source block of the same iteration (blocks are aligned:
    overlapping is being the same block)."""
    same = d[:, :, None] == s[:, None, :]
    if same.any():
        r, j, i = np.unravel_index(int(np.argmax(same)), same.shape)
        raise Fault(f"VTRANS5HD: iteration {r}'s destination block 0x{int(d[r, j]):x} (dstlist[{j}]) is its source "
                    f"block srclist[{i}]")


def _dependency_step(d: np.ndarray, s: np.ndarray) -> int:
    """The fewest iterations between one that writes a block and a later one that reads it (the
    iterations when none does): passes of that many keep every read after the writes before it."""
    n = d.shape[0]
    its = np.repeat(np.arange(n), d.shape[1])
    addr = np.concatenate((d.reshape(-1), s.reshape(-1)))
    it = np.concatenate((its, its))
    reads = np.concatenate((np.zeros(d.size, dtype=bool), np.ones(s.size, dtype=bool)))
    order = np.lexsort((reads, it, addr))  # by block, then iteration (a write before a read of one iteration)
    addr, it, reads = addr[order], it[order], reads[order]
    starts = np.r_[True, addr[1:] != addr[:-1]]
    # the index of the last write at or before each event, within its block
    marks = np.where(~reads, np.arange(addr.size), -1)
    group_start = np.maximum.accumulate(np.where(starts, np.arange(addr.size), 0))
    last_write = np.maximum.accumulate(marks)
    hit = reads & (last_write >= group_start)
    if not hit.any():
        return n
    gaps = it[hit] - it[last_write[hit]]
    gaps = gaps[gaps > 0]
    return int(gaps.min()) if gaps.size else n


@implements("trans5hd", bank_rule=UNBANKED, refines=True, forms=("tensor-trans5hd",))
def bind_trans5hd(inst: Inst, pc: int):
    """VTRANS5HD.T [dstlist], [srclist]: per iteration, destination block j gets element j of each
    source block i at its element i (8-bit: a half block, ``srchigh=``/``dsthigh=`` choose which)."""
    dl_ref, sl_ref = inst.operands
    n, size = inst.kw("repeat"), inst.type.size
    its = np.arange(n, dtype=np.int64)
    # The documented quirk: one iteration is offset by a whole stride, as the second of two would be.
    scale = its if n > 1 else np.ones(1, dtype=np.int64)
    d_off, s_off = scale * inst.kw("dstrep") * BLOCK_BYTES, scale * inst.kw("srcrep") * BLOCK_BYTES
    hs, hd = 16 * (inst.kw("srchigh") or 0), 16 * (inst.kw("dsthigh") or 0)
    per_block = np.arange(16)
    next_pc = pc + inst.size
    bits = TYPES[f"u{8 * size}"]  # the elements move as bits

    def run(m):
        if n == 0:
            m.submit(Job(pc, None))
            return next_pc
        dl = m.ub_block_address(dl_ref, "VTRANS5HD")
        sl = m.ub_block_address(sl_ref, "VTRANS5HD")
        m.check_ub(dl, dl + LIST_BYTES, "VTRANS5HD")
        m.check_ub(sl, sl + LIST_BYTES, "VTRANS5HD")
        ub_size = m.ub.size
        lists = [span("ub", sl, sl + LIST_BYTES), span("ub", dl, dl + LIST_BYTES)]

        def listed(at: int) -> np.ndarray:
            return m.ub[at:at + LIST_BYTES].view("<u8")

        def footprint():
            """The bytes it reads and writes, from the lists as they are now (out-of-UB entries clipped:
            those fault when it runs)."""
            s = np.minimum(listed(sl), ub_size).astype(np.int64)[None, :] + s_off[:, None]
            d = np.minimum(listed(dl), ub_size).astype(np.int64)[None, :] + d_off[:, None]
            s, d = (np.clip(x, 0, ub_size - BLOCK_BYTES) // BLOCK_BYTES * BLOCK_BYTES for x in (s, d))
            return [*lists, blocks("ub", s.reshape(-1))], [blocks("ub", d.reshape(-1))]

        def perform():
            s_list, d_list = listed(sl).copy(), listed(dl).copy()
            _entry_fault(s_list, "srclist", ub_size)
            _entry_fault(d_list, "dstlist", ub_size)
            s_list, d_list = s_list.astype(np.int64), d_list.astype(np.int64)
            _reach_fault(s_list, s_off, "srclist", ub_size)
            _reach_fault(d_list, d_off, "dstlist", ub_size)
            s = s_list[None, :] + s_off[:, None]  # (iterations, 16): the blocks' byte addresses
            d = d_list[None, :] + d_off[:, None]
            _overlap_fault(d, s)
            view = m.view("ub", bits)
            # source element e of block i at (s + hs) / size + e; destination element i of block j
            src = ((s + hs) // size)[:, :, None] + per_block
            dst = ((d + hd) // size)[:, :, None] + per_block
            step = _dependency_step(d, s)
            if step >= n:
                return _last_wins(view, dst, view[src].transpose(0, 2, 1))
            return ordered(view, src, dst, step)

        # Until the lists are read (at its start) the blocks could be anywhere in UB: the 950's V
        # scoreboard orders it after every V result to UB; it is performed at its start, before it is
        # placed, so the race checks and the order's see the blocks the lists name then.
        whole = ("ub", (0, ub_size // BLOCK_BYTES))
        job = Job(pc, perform, [*lists, whole], [whole], iterations=n, refine=footprint)
        job.priced_at_start = True
        if size == 1:  # it writes one half of each destination block: its races are named on those bytes
            job.exact_writes = {"ub": (hd, BLOCK_BYTES, 16, ub_size // BLOCK_BYTES)}
        m.submit(job)
        return next_pc

    return run


def _last_wins(view: np.ndarray, dst: np.ndarray, values: np.ndarray) -> tuple:
    """The write of ``values`` to the elements ``dst`` (same shapes), where an element is written
    twice the later one (in iteration, then block order) kept."""
    flat, vals = dst.reshape(-1), values.reshape(-1)
    _, last = np.unique(flat[::-1], return_index=True)
    keep = flat.size - 1 - last
    return ((view, flat[keep], vals[keep]),)


def ordered(view: np.ndarray, src: np.ndarray, dst: np.ndarray, step: int) -> tuple:
    """Iterations that read blocks earlier ones wrote: passes of ``step`` in order on a copy of UB,
    then the write of every element some iteration wrote."""
    scratch = view.copy()
    n = src.shape[0]
    for first in range(0, n, step):
        part = slice(first, first + step)
        values = scratch[src[part]].transpose(0, 2, 1)
        flat, vals = dst[part].reshape(-1), values.reshape(-1)
        _, last = np.unique(flat[::-1], return_index=True)
        keep = flat.size - 1 - last
        scratch[flat[keep]] = vals[keep]
    written = np.unique(dst.reshape(-1))
    return ((view, written, scratch[written]),)
