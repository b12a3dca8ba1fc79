"""Register loads and stores with a distribution mode (``dist=``, ``isa.dist``): VLD's modes other than
norm and its two-destination form, VST's pack modes and its forms without a mask, and the addressing
PLD and PST share with them.

Each mode is a byte map, built once per mode and T width: a load's register byte k is byte ``idx[k]`` of
the UB bytes it reads (or 0 where ``idx[k]`` is -1), one fancy index for all lanes; a store's UB byte j is
byte ``src[j]`` of its source register(s), written where mask entry ``pred[j]`` is set (always, for a
mode without a mask). A store's write is the UB bytes it covers with that ``where``, so a function's
race check (``emulator.functions.races``) counts the bytes it writes, as CONTRACT 13.12 asks; a load
names its bytes (``Job.exact``), which the check maps its used lanes to.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from vcore.emulator.faults import Fault, hex_signed
from vcore.emulator.jobs import footprint, preg, vreg
from vcore.emulator.semantics.registry import ACCESS_BEATS, implements
from vcore.isa import Inst, dist
from vcore.isa.types import VL_BYTES

_S_MIN, _S_MAX = -(1 << 63), (1 << 63) - 1  # a scalar register's range


@cache
def load_map(name: str, w: int) -> np.ndarray:
    """Register byte k of a VL load (k < 512 for two destinations) -> the UB byte it takes, -1 for 0."""
    j = np.arange(512 if name.startswith("dintlv") else VL_BYTES, dtype=np.int64)
    lane, b = j // w, j % w
    family = dist.BY_NAME["VLD", name].family
    if family == "norm":
        return j
    if family == "brc":
        return b
    if family == "us":
        return lane // 2 * w + b
    if family == "ds":
        return 2 * lane * w + b
    if family in ("unpack", "unpack4"):  # zero extension to lanes 2 (or 4) times as wide
        wide = w * (2 if family == "unpack" else 4)
        return np.where(j % wide < w, j // wide * w + j % wide, -1)
    if family == "blk":
        return j % 32
    if family == "e2b":
        return j // 32 * w + b
    if family == "dintlv":  # Vd0 lane i = element 2i, Vd1 lane i = element 2i + 1
        r, lane = j // VL_BYTES, j % VL_BYTES // w
        return (2 * lane + r) * w + b
    raise AssertionError(name)


@cache
def store_map(name: str, w: int) -> tuple[np.ndarray, np.ndarray | None]:
    """UB byte j of a store's window -> (the source register byte, of Vs0 then Vs1; the mask entry that
    enables it, or None for a mode without a mask)."""
    mode = dist.BY_NAME["VST", name]
    j = np.arange(mode.nbytes, dtype=np.int64)
    element, b = j // w, j % w
    if mode.family == "norm":
        return j, element * w
    if mode.family == "first":
        return j, None
    if mode.family in ("pack", "pack4"):  # the low w bytes of lane i of a register of lanes 2w (4w) wide
        wide = w * mode.suffix
        return element * wide + b, element * wide
    if mode.family == "intlv":  # element 2i = Vs0 lane i, element 2i + 1 = Vs1 lane i
        return element % 2 * VL_BYTES + element // 2 * w + b, None
    raise AssertionError(name)


def mode_accessor(inst: Inst, ref, mode: dist.Mode):
    """``access(m) -> addr`` of an access in ``mode``: faults on an address not aligned to the mode or bytes
    outside UB, and applies ``post=`` to the base register."""
    what = f"{inst.row.mnemonic} dist={mode.name}"
    post = inst.kw("post") if inst.row.keyword("post") is not None else 0
    step = (post or 0) * inst.type.size if inst.type is not None else 0
    reg, offset, align, extent = ref.reg, ref.offset, mode.align, mode.nbytes

    def access(m) -> int:
        s = m.s
        addr = offset if reg is None else s[reg] + offset
        if addr % align:
            shown = hex_signed(addr).upper().replace("0X", "0x")  # (as the contract prints it: 0x3F010)
            raise Fault(f"{what}: address {shown} is not {align}-byte aligned")
        if addr < 0 or addr + extent > m.ub.size:
            m.check_ub(addr, addr + extent, what)
        if step:
            moved = s[reg] + step
            if reg and _S_MIN <= moved <= _S_MAX:
                s[reg] = moved
            else:
                m.set_s(reg, moved)  # S0, or a value that wraps
        return addr

    return access


def _blocks(addr: int, nbytes: int) -> dict:
    return {"ub": (None, addr >> 5, (addr + nbytes - 1 >> 5) + 1)}


def bind_load(inst: Inst, pc: int):
    """VLD with a mode other than norm, one destination or two."""
    mode = dist.mode_of(inst)
    *dests, ref = inst.operands
    idx = load_map(mode.name, inst.type.size)
    zero = idx < 0
    take = np.where(zero, mode.nbytes, idx)  # the byte past the window: a 0 appended
    next_pc = pc + inst.size
    access = mode_accessor(inst, ref, mode)
    writes = footprint([vreg(d) for d in dests])
    nbytes = mode.nbytes

    def run(m):
        addr = access(m)

        def perform():
            window = np.zeros(nbytes + 1, dtype=np.uint8)
            window[:nbytes] = m.ub[addr:addr + nbytes]
            out = window[take]
            if len(dests) == 1:
                return m.v, dests[0], out
            return tuple((m.v, d, out[k * VL_BYTES:(k + 1) * VL_BYTES]) for k, d in enumerate(dests))

        m.submit_register(pc, perform, _blocks(addr, nbytes), writes, {"ub": (addr, nbytes, nbytes, 1)})
        return next_pc

    return run


@implements("vld_pair", bank_rule=ACCESS_BEATS)
def bind_vld_pair(inst: Inst, pc: int):
    return bind_load(inst, pc)


@implements("vst_first", "vst_pair", bank_rule=ACCESS_BEATS)
def bind_vst_unmasked(inst: Inst, pc: int):
    """VST dist=first_bW (lane 0 of Vs: one element) and dist=intlv_bW (Vs0 and Vs1 interleaved): no mask."""
    mode = dist.mode_of(inst)
    ref, *sources = inst.operands
    src, _ = store_map(mode.name, inst.type.size)
    next_pc = pc + inst.size
    access = mode_accessor(inst, ref, mode)
    reads = footprint([vreg(s) for s in sources])
    nbytes = mode.nbytes

    def run(m):
        addr = access(m)

        def perform():
            values = m.v[sources[0]] if len(sources) == 1 else np.concatenate([m.v[s] for s in sources])
            return m.ub, slice(addr, addr + nbytes), values[src]

        m.submit_register(pc, perform, reads, _blocks(addr, nbytes))
        return next_pc

    return run


@implements("vst_pack", bank_rule=ACCESS_BEATS, masked_lanes=True)
def bind_vst_pack(inst: Inst, pc: int):
    """VST dist=pack_b16 / pack_b32 / pack4_b32: the low bytes of each active wide lane, narrowed to T, at
    their element's place (an inactive lane leaves its bytes unchanged)."""
    mode = dist.mode_of(inst)
    ref, vs, pm = inst.operands
    src, pred = store_map(mode.name, inst.type.size)
    next_pc = pc + inst.size
    access = mode_accessor(inst, ref, mode)
    reads = footprint([vreg(vs), preg(pm)])
    nbytes = mode.nbytes

    def run(m):
        addr = access(m)

        def perform():
            where = m.p[pm][pred]
            if where.all():
                return m.ub, slice(addr, addr + nbytes), m.v[vs][src]
            return m.ub, slice(addr, addr + nbytes), m.v[vs][src], where

        m.submit_register(pc, perform, reads, _blocks(addr, nbytes))
        return next_pc

    return run


def mask_bits(name: str, load: bool, data: np.ndarray) -> np.ndarray:
    """PLD's 256 mask entries from the UB bytes its mode reads, or PST's UB bytes from a mask register's entries
    (byte b holds bits 8b..8b+7, least significant first)."""
    if load:
        bits = np.unpackbits(data, bitorder="little").astype(bool)
        return {"norm": bits, "us": np.repeat(bits, 2), "ds": bits[::2]}[name]
    return np.packbits(data if name == "norm" else data[::2], bitorder="little")
