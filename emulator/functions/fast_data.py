"""A hardware loop's data in closed form: each instruction of its body as one numpy operation over
all its passes (``perform_loop``), a chunk of passes at a time. A register the body writes holds one
row per pass; one it only reads is the same in every pass (nothing carries from pass to pass in a
loop that qualifies: ``emulator.functions.fast_loops``). Each family's kernel here is the one its
binder runs (the same ``numerics`` kernel on the same lanes), with the pass as a leading axis.
"""

from __future__ import annotations

import numpy as np

from vcore.emulator.arith import numerics
from vcore.emulator.semantics.masks import count_masks, pattern_mask
from vcore.emulator.semantics.register_forms import LOGIC, conv_layout, scalar_element
from vcore.emulator.state import active_lanes, lanes_to_mask
from vcore.isa import Inst, Kind
from vcore.isa.types import VL_BYTES
from vcore.isa.values import dtype_of

CHUNK_PASSES = 2048  # passes whose registers are held at once (2048 x 256 bytes a register)
_BYTES = np.arange(VL_BYTES, dtype=np.int64)


class Passes:
    """A chunk of a loop's passes (their numbers ``t``): the registers its body has written so far,
    one row per pass (or one row, the same in every pass), over the function's registers ``ctx``."""

    def __init__(self, ctx, t: np.ndarray, s: list) -> None:
        self.ctx, self.t, self.s = ctx, t, s
        self.v: dict = {}  # vector register -> (passes, 256) uint8, or (256,)
        self.p: dict = {}  # mask register -> (passes, 256) bool, or (256,)

    def vreg(self, r: int, dtype=np.uint8) -> np.ndarray:
        found = self.v.get(r)
        return (self.ctx.v[r] if found is None else found).view(dtype)

    def preg(self, r: int) -> np.ndarray:
        found = self.p.get(r)
        return self.ctx.p[r] if found is None else found

    def addresses(self, base: int, step: int) -> np.ndarray:
        """The byte offsets of VL bytes at ``base + t * step``, a row per pass."""
        return (base + self.t * step)[:, None] + _BYTES


def perform_loop(ctx, loop, passes: int | None = None, watch: tuple | None = None) -> None:
    """Move a ``FastLoop``'s data on the function's registers and UB (``ctx``): every pass (or the
    first ``passes``), in closed form; the registers it writes are left as its last pass leaves them.
    ``watch``: ``(wanted, seen)``, ``wanted`` a body position -> a mask register: after each chunk,
    ``seen(t, masks)`` gets its passes and each wanted mask as the instruction there read it."""
    kernels, bases, steps = loop.shape.kernels, loop.bases, loop.steps
    total = loop.passes if passes is None else passes
    wanted, seen = watch if watch is not None else ({}, None)
    env = None
    for start in range(0, total, CHUNK_PASSES):
        env = Passes(ctx, np.arange(start, min(total, start + CHUNK_PASSES), dtype=np.int64), loop.s)
        masks = {}
        for position, (kernel, base, step) in enumerate(zip(kernels, bases, steps, strict=True)):
            if position in wanted:
                masks[position] = env.preg(wanted[position])
            kernel(env, base, step)
        if seen is not None:
            seen(env.t, masks)
    if env is None:
        return
    for r, rows in env.v.items():
        ctx.v[r] = rows[-1] if rows.ndim == 2 else rows
    for r, rows in env.p.items():
        ctx.p[r] = rows[-1] if rows.ndim == 2 else rows


def _masked(result: np.ndarray, p: np.ndarray, width: int) -> np.ndarray:
    """A register's bytes: ``result`` (lanes of ``width`` bytes) with lanes outside ``p`` zero."""
    on = active_lanes(p, width)
    if on.all():
        return np.ascontiguousarray(result).view(np.uint8)
    word = np.dtype(f"<u{width}")
    return np.multiply(result.view(word), on.astype(word)).view(np.uint8)


# -- a kernel per family: ``kernel_of(inst)`` -> ``run(env, base, step)``, or None (not in closed form) ----
def _vld(inst: Inst):
    vd = inst.operands[0]
    if inst.kw("blk") is not None or inst.kw("dist"):  # (a distribution mode: emulator.semantics.register_dist)
        return None

    def run(env: Passes, base: int, step: int) -> None:
        ub = env.ctx.ub
        if step == VL_BYTES:  # a stream: one slice
            first = base + int(env.t[0]) * step
            env.v[vd] = ub[first:first + env.t.size * VL_BYTES].reshape(-1, VL_BYTES).copy()
        else:
            env.v[vd] = ub[env.addresses(base, step)]

    return run


def _vst(inst: Inst):
    _, vs, pm = inst.operands
    width = inst.type.size
    if inst.kw("blk") is not None:
        return None

    def run(env: Passes, base: int, step: int) -> None:
        ub = env.ctx.ub
        n = env.t.size
        values = np.broadcast_to(env.vreg(vs), (n, VL_BYTES))
        on = np.broadcast_to(lanes_to_mask(active_lanes(env.preg(pm), width), width), (n, VL_BYTES))
        if on.all():
            if step == VL_BYTES:  # a stream: one slice
                first = base + int(env.t[0]) * step
                ub[first:first + n * VL_BYTES] = values.reshape(-1)
            else:
                ub[env.addresses(base, step)] = values
        else:  # rows in pass order: where two passes write a byte, the later one's stays
            ub[env.addresses(base, step)[on]] = values[on]

    return run


def _lanes_op(inst: Inst):
    """VADD and the other register binaries, the unaries, the scalar forms: one ``numerics`` kernel."""
    family, op = inst.row.family, inst.row.op
    if (family == "vbinary" and inst.row.keyword("carry") is not None and inst.kw("carry") is not None) or \
            op == "brcb":
        return None
    etype = inst.type
    fn = numerics.kernel(op, etype)
    dtype = dtype_of(etype)
    if family == "vscalar":
        vd, va, ref, pm = inst.operands
        srcs = (va,)
    elif family == "vbinary":
        vd, va, vb, pm = inst.operands
        srcs, ref = (va, vb), None
    else:
        vd, va, pm = inst.operands
        srcs, ref = (va,), None

    def run(env: Passes, base: int, step: int) -> None:
        scalar = scalar_element(env, ref, etype) if ref is not None else None
        result = fn(tuple(env.vreg(r, dtype) for r in srcs), scalar)
        env.v[vd] = _masked(result, env.preg(pm), etype.size)

    return run


def _vdup(inst: Inst):
    vd, source, pm = inst.operands
    etype = inst.type
    dtype = dtype_of(etype)
    from_lane = inst.row.operands[1].kind is Kind.VREG

    def run(env: Passes, base: int, step: int) -> None:
        if from_lane:
            first = env.vreg(source, dtype)[..., :1]
            values = np.broadcast_to(first, (*first.shape[:-1], etype.lanes))
        else:
            values = np.full(etype.lanes, scalar_element(env, source, etype), dtype=dtype)
        env.v[vd] = _masked(values, env.preg(pm), etype.size)

    return run


def _vcompare(inst: Inst):
    pd, va, other, pm = inst.operands
    etype = inst.type
    dtype = dtype_of(etype)
    test = numerics.compare_kernel(inst.cond, etype)
    scalar_form = inst.row.operands[2].kind is Kind.SCALAR

    def run(env: Passes, base: int, step: int) -> None:
        if scalar_form:
            result = test([env.vreg(va, dtype)], scalar_element(env, other, etype))
        else:
            result = test([env.vreg(va, dtype), env.vreg(other, dtype)], None)
        env.p[pd] = lanes_to_mask(result & active_lanes(env.preg(pm), etype.size), etype.size)

    return run


def _vselect(inst: Inst):
    vd, va, vb, pm = inst.operands
    etype = inst.type
    dtype = dtype_of(etype)

    def run(env: Passes, base: int, step: int) -> None:
        chosen = np.where(active_lanes(env.preg(pm), etype.size), env.vreg(va, dtype), env.vreg(vb, dtype))
        env.v[vd] = chosen.view(np.uint8)

    return run


def _plogic(inst: Inst):
    pd, *sources = inst.operands
    op = inst.row.op

    def run(env: Passes, base: int, step: int) -> None:
        if op == "not":
            env.p[pd] = ~env.preg(sources[0])
        elif op == "sel":
            env.p[pd] = np.where(env.preg(sources[2]), env.preg(sources[0]), env.preg(sources[1]))
        else:
            env.p[pd] = LOGIC[op](env.preg(sources[0]), env.preg(sources[1]))

    return run


def _vconv(inst: Inst):
    vd, va, pm = inst.operands
    dst, src = inst.type, inst.source
    convert, part, width, k, narrowing = conv_layout(inst)
    src_dtype, out_dtype = dtype_of(src), dtype_of(dst)

    def run(env: Passes, base: int, step: int) -> None:
        a = env.vreg(va, src_dtype)
        if narrowing:  # lane i to element k * i + part, the rest zero
            result = convert(a)
            on = active_lanes(env.preg(pm), width)
            out = np.zeros((*np.broadcast_shapes(result.shape, on.shape)[:-1], VL_BYTES // dst.size), dtype=out_dtype)
            out[..., part::k] = np.where(on, result, np.zeros(1, dtype=out_dtype))
            env.v[vd] = out.view(np.uint8)
        else:
            env.v[vd] = _masked(np.ascontiguousarray(convert(a[..., part::k])), env.preg(pm), width)

    return run


def _vfma(inst: Inst):
    vd, va, other, pm = inst.operands
    etype = inst.type
    dtype = dtype_of(etype)
    fn = numerics.kernel(inst.row.op, etype)
    axpy = inst.row.op == "axpy"

    def run(env: Passes, base: int, step: int) -> None:
        if axpy:
            result = fn([env.vreg(va, dtype), env.vreg(vd, dtype)], scalar_element(env, other, etype))
        else:
            result = fn([env.vreg(va, dtype), env.vreg(other, dtype), env.vreg(vd, dtype)], None)
        env.v[vd] = _masked(result, env.preg(pm), etype.size)

    return run


def _pset(inst: Inst):
    pd, pattern = inst.operands
    value = pattern_mask(pattern, inst.type.size)

    def run(env: Passes, base: int, step: int) -> None:
        env.p[pd] = value

    return run


def _pupdate(inst: Inst):
    pd, sc = inst.operands
    width = inst.type.size
    lanes = VL_BYTES // width
    masks = count_masks(width)

    def run(env: Passes, base: int, step: int) -> None:
        count = max(env.s[sc], 0)  # the count before the first pass (a negative one is none: 0 lanes)
        env.p[pd] = masks[np.clip(count - env.t * lanes, 0, lanes)]

    return run


_KERNELS = {"vld": _vld, "vst": _vst, "vbinary": _lanes_op, "vunary": _lanes_op, "vscalar": _lanes_op,
            "vdup": _vdup, "vcompare": _vcompare, "vselect": _vselect, "plogic": _plogic, "vconv": _vconv,
            "vfma": _vfma, "pset": _pset, "pupdate": _pupdate}


def kernel_of(inst: Inst):
    """``run(env, base, step)``: the instruction over a chunk of passes, its UB operand (if any) at
    ``base + t * step`` in pass t; None when its family (or this use of it) has no kernel here."""
    make = _KERNELS.get(inst.row.family)
    return make(inst) if make is not None else None
