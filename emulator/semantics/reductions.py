"""Reductions of lanes (CONTRACT 6.4): pairwise-tree sums, the extreme with its lane, per
iteration (VCADD, VCMAX, VCMIN), per datablock (VCGADD, VCGMAX, VCGMIN), by pairs (VCPADD) and
over a register (VREDUCE.O.T). Every kernel is a handful of numpy operations over all iterations.

A kernel is ``fn([values, on])``: ``values`` of (iterations, lanes), ``on`` which lanes take part
(None: all). It returns (iterations, k) elements of T, what each iteration writes: the lane index
of VCMAX/VCMIN is an unsigned integer of T's size (a u32 for ``order=i``), its bits in T's elements.
"""

from __future__ import annotations

import numpy as np

from vcore.emulator.jobs import footprint, preg, vreg
from vcore.emulator.semantics.register_forms import runner
from vcore.emulator.semantics.registry import NO_UB, implements
from vcore.emulator.state import ALL_LANES
from vcore.isa import Inst
from vcore.isa.types import TYPES, ElementType
from vcore.isa.values import dtype_of

F32 = np.dtype(np.float32)
BLOCK_BYTES = 32
ORDERS = ("vi", "iv", "v", "i")
SUMS = ("cadd", "cpadd", "cgadd")
MAXIMA = ("cmax", "cgmax", "MAX")
GROUPS = ("cgadd", "cgmax", "cgmin")  # one result per datablock
OPS = ("cadd", "cpadd", "cmax", "cmin", "cgadd", "cgmax", "cgmin")


def results_of(op: str, etype: ElementType, order: str = "vi") -> int:
    """Elements of T one iteration writes."""
    if op == "cadd":
        return 1
    if op == "cpadd":
        return etype.lanes // 2
    if op in GROUPS:
        return 8
    return {"vi": 2, "iv": 2, "v": 1, "i": 4 // etype.size}[order]


def pair_sums(etype: ElementType, whole: bool):
    """``fn(x)`` over (rows, lanes): the sums of adjacent lanes (2k with 2k + 1), rounded to T; with
    ``whole``, their sums in turn down to one per row: the pairwise tree, every node rounded to T
    (log2(lanes) numpy additions). Integers wrap. f16 and bf16 add in f32 and round once more: a
    sum of two is exact in f32, so that is the sum rounded once."""
    out_dtype = dtype_of(etype)
    work = F32 if etype.is_float and etype.size == 2 else out_dtype

    def fn(x):
        while True:
            x = (x[:, 0::2].astype(work) + x[:, 1::2].astype(work)).astype(out_dtype)
            if not whole or x.shape[1] == 1:
                return x

    return fn


def _zero_off(x: np.ndarray, on) -> np.ndarray:
    """Lanes that take no part enter a sum as +0."""
    return x if on is None else np.where(on, x, np.zeros(1, dtype=x.dtype))


def best_lanes(op: str, etype: ElementType):
    """``fn(x, on) -> (lane, empty)`` over (rows, lanes): the lane of each row's max (or min) among
    its active lanes: the lowest of tied ones (+0 and -0 tie), the first active NaN over anything;
    ``empty`` marks rows with no active lane (their lane is 0)."""
    is_max = op in MAXIMA

    if etype.is_float:
        fill = -np.inf if is_max else np.inf

        def key_of(x, on):
            key = x.astype(F32)  # exact for f16 and bf16
            nan = np.isnan(key)
            return key, (~nan if on is None else on & ~nan), (nan if on is None else nan & on)
    else:
        info = np.iinfo(np.int64)
        fill = info.min if is_max else info.max

        def key_of(x, on):
            return x.astype(np.int64), (np.ones(x.shape, dtype=bool) if on is None else on), None

    def fn(x, on):
        key, valid, nan = key_of(x, on)
        held = np.where(valid, key, fill)
        extreme = held.max(axis=1, keepdims=True) if is_max else held.min(axis=1, keepdims=True)
        hit = valid & (held == extreme)
        if nan is not None:
            hit = np.where(nan.any(axis=1, keepdims=True), nan, hit)
        return hit.argmax(axis=1), ~hit.any(axis=1)

    return fn


def _identity(op: str, etype: ElementType):
    """What an empty datablock reduces to on the 950: 0, -inf, +inf."""
    if op == "cgadd":
        return 0
    return -np.inf if op == "cgmax" else np.inf


def kernel(op: str, etype: ElementType, order: str = "vi"):
    """The kernel of a tensor reduction (the module's docstring says what it takes and gives)."""
    out_dtype = dtype_of(etype)
    size = etype.size
    unsigned = np.dtype(f"<u{size}")
    if op in ("cadd", "cpadd"):
        sums = pair_sums(etype, op == "cadd")
        return lambda srcs, scalar=None: sums(_zero_off(srcs[0], srcs[1]))
    per_block = BLOCK_BYTES // size
    if op == "cgadd":
        sums = pair_sums(etype, True)

        def block_sums(srcs, scalar=None):
            x = _zero_off(srcs[0], srcs[1])
            return sums(x.reshape(-1, per_block)).reshape(-1, 8)

        return block_sums
    best = best_lanes(op, etype)
    if op in GROUPS:
        identity = np.array(_identity(op, etype), dtype=out_dtype)

        def block_extremes(srcs, scalar=None):
            x, on = srcs[0].reshape(-1, per_block), srcs[1]
            lane, empty = best(x, None if on is None else on.reshape(-1, per_block))
            value = np.take_along_axis(x, lane[:, None], axis=1)[:, 0]
            return np.where(empty, identity, value).reshape(-1, 8)

        return block_extremes

    def extremes(srcs, scalar=None):
        x = srcs[0]
        lane, _ = best(x, srcs[1])
        value = np.take_along_axis(x, lane[:, None], axis=1)
        if order == "v":
            return value
        if order == "i":
            return np.ascontiguousarray(lane.astype(np.uint32)[:, None]).view(unsigned).view(out_dtype)
        value_bits, lane_bits = value.view(unsigned), lane.astype(unsigned)[:, None]
        pair = (value_bits, lane_bits) if order == "vi" else (lane_bits, value_bits)
        return np.concatenate(pair, axis=1).view(out_dtype)

    return extremes


@implements("vreduce", bank_rule=NO_UB, masked_lanes=True)
def bind_vreduce(inst: Inst, pc: int):
    """VREDUCE.O.T Vd, Va, Pm: lane 0 of Vd the sum (the pairwise tree) or the max or min of Pm's
    lanes of Va, lane 1 the max's or min's lane (unsigned, T's size), every other byte zero. A
    16-bit integer SUM is a 32-bit sum in bytes 0..3; a MAX or MIN of no lane is all zero."""
    vd, va, pm = inst.operands
    etype, what = inst.type, inst.cond
    width, lanes = etype.size, etype.lanes
    if what == "SUM":
        wide = etype.kind != "float" and width == 2
        wide_type = TYPES["s32" if etype.kind == "signed" else "u32"] if wide else etype
        wide_dtype = dtype_of(wide_type)
        sums = pair_sums(wide_type, True)
    else:
        best = best_lanes(what, etype)
        unsigned = np.dtype(f"<u{width}")
    reads, writes = footprint([vreg(va), preg(pm)]), footprint([vreg(vd)])
    next_pc = pc + inst.size

    def perform(m):
        x = m.v_as[etype.name][va].reshape(1, lanes)
        found = m.lane_mask(pm, width)
        on = None if found is ALL_LANES else found[1][::width].reshape(1, lanes)
        out = np.zeros(256, dtype=np.uint8)
        if what == "SUM":
            total = sums(_zero_off(x.astype(wide_dtype) if wide else x, on))
            out[:total.itemsize] = total.view(np.uint8)
        else:
            lane, empty = best(x, on)
            if not empty[0]:
                out[:width] = x[:, lane[0]].view(np.uint8)
                out[width:2 * width] = np.array(lane[0], dtype=unsigned).reshape(1).view(np.uint8)
        return m.v_rows["u8"], vd, out

    return runner(pc, next_pc, perform, reads, writes)
