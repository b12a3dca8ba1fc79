"""Register conversion, fill, compare, select, mask logic and fused multiply-adds (the
register-lanes shape's other forms): VCONV, VDUP, VARANGE, VCMP/VCMPS, VSEL, PAND/POR/PXOR/PNOT,
VAXPY/VMLA/VMADD. Each is one numpy operation over the lanes of a register; lanes outside Pm are
written as zero (VSEL: taken from Vb).
"""

from __future__ import annotations

import numpy as np

from vcore.emulator.arith import conversion, numerics
from vcore.emulator.jobs import footprint, preg, vreg
from vcore.emulator.semantics.registry import NO_UB, implements
from vcore.emulator.state import ALL_LANES, lanes_to_mask
from vcore.isa import Inst, Kind
from vcore.isa.values import dtype_of


def runner(pc: int, next_pc: int, perform, reads: dict, writes: dict):
    """The run closure of a register instruction whose work is ``perform(m)`` and footprints static."""

    def run(m):
        m.submit_register(pc, lambda: perform(m), reads, writes)
        return next_pc

    return run


def scalar_element(m, ref, etype):
    """A scalar operand's element of ``etype``: its immediate's bits, or Sn's as ``m.s`` holds it."""
    return numerics.element_of_bits(ref.imm if ref.reg is None else m.s[ref.reg], etype)


def _masked(m, pm: int, width: int, values: np.ndarray) -> np.ndarray:
    """``values`` (one per lane of ``width`` bytes) with the lanes outside Pm zero."""
    lanes = m.lane_mask(pm, width)
    if lanes is ALL_LANES:
        return values
    return np.where(lanes[1][::width], values, np.zeros(1, dtype=values.dtype))


def conv_layout(inst: Inst) -> tuple:
    """A register VCONV's converter and lanes: ``(convert, part, lane width, k, narrowing)``, k the
    elements of the narrower type to a lane of the wider."""
    dst, src = inst.type, inst.source
    width = max(dst.size, src.size)
    return (conversion.converter(dst, src, inst.round_mode, saturate=bool(inst.kw("sat"))), inst.kw("part") or 0, width,
            width // min(dst.size, src.size), dst.size < src.size)


@implements("vconv", bank_rule=NO_UB)
def bind_vconv(inst: Inst, pc: int):
    """Narrowing: lane i goes to element k * i + part of Vd (the rest zero); widening: element
    k * i + part of Va is lane i; lanes are those of the wider type."""
    vd, va, pm = inst.operands
    dst, src = inst.type, inst.source
    convert, part, width, k, narrowing = conv_layout(inst)
    out_dtype = dtype_of(dst)
    reads, writes = footprint([vreg(va), preg(pm)]), footprint([vreg(vd)])
    next_pc = pc + inst.size

    def perform(m):
        a = m.v_as[src.name][va]
        if narrowing:
            result = _masked(m, pm, width, convert(a))
            out = np.zeros(256 // dst.size, dtype=out_dtype)
            out[part::k] = result
            return m.v_rows[dst.name], vd, out
        return m.v_rows[dst.name], vd, _masked(m, pm, width, convert(a[part::k]))

    return runner(pc, next_pc, perform, reads, writes)


@implements("vdup", bank_rule=NO_UB)
def bind_vdup(inst: Inst, pc: int):
    vd, source, pm = inst.operands
    etype = inst.type
    lanes, width = etype.lanes, etype.size
    next_pc = pc + inst.size
    from_lane = inst.row.operands[1].kind is Kind.VREG  # reg-dup-lane: lane 0 of Va, not a scalar
    reads = footprint([vreg(source), preg(pm)] if from_lane else [preg(pm)])
    writes = footprint([vreg(vd)])

    def run(m):
        if from_lane:
            def perform():
                value = m.v_as[etype.name][source][0]
                return m.v_rows[etype.name], vd, _masked(m, pm, width, np.full(lanes, value))
        else:
            value = scalar_element(m, source, etype)  # Sn is read at dispatch, like every scalar operand

            def perform():
                return m.v_rows[etype.name], vd, _masked(m, pm, width, np.full(lanes, value))

        m.submit_register(pc, perform, reads, writes)
        return next_pc

    return run


@implements("varange", bank_rule=NO_UB)
def bind_varange(inst: Inst, pc: int):
    vd, start = inst.operands
    etype = inst.type
    fill = numerics.kernel("arange", etype)
    index = [np.arange(etype.lanes, dtype=np.int64)]
    writes = footprint([vreg(vd)])
    next_pc = pc + inst.size

    def run(m):
        value = scalar_element(m, start, etype)
        m.submit_register(pc, lambda: (m.v_rows[etype.name], vd, fill(index, value)), {}, writes)
        return next_pc

    return run


@implements("vcompare", bank_rule=NO_UB, masked_lanes=True)
def bind_vcompare(inst: Inst, pc: int):
    """Pd's w bits of each lane: a C b (or a C scalar); lanes outside Pm false."""
    pd, va, other, pm = inst.operands
    etype = inst.type
    width = etype.size
    test = numerics.compare_kernel(inst.cond, etype)
    scalar_form = inst.row.operands[2].kind is Kind.SCALAR  # reg-compare-scalar: a C scalar, not a C b
    reads = footprint([vreg(va), preg(pm)] if scalar_form else [vreg(va), vreg(other), preg(pm)])
    writes = footprint([preg(pd)])
    next_pc = pc + inst.size

    def run(m):
        scalar = scalar_element(m, other, etype) if scalar_form else None

        def perform():
            views = m.v_as[etype.name]
            result = test([views[va]] if scalar_form else [views[va], views[other]], scalar)
            return m.p, pd, lanes_to_mask(result & m.p[pm][::width], width)

        m.submit_register(pc, perform, reads, writes)
        return next_pc

    return run


@implements("vselect", bank_rule=NO_UB)
def bind_vselect(inst: Inst, pc: int):
    vd, va, vb, pm = inst.operands
    etype = inst.type
    width = etype.size
    reads, writes = footprint([vreg(va), vreg(vb), preg(pm)]), footprint([vreg(vd)])
    next_pc = pc + inst.size

    def perform(m):
        views = m.v_as[etype.name]
        return m.v_rows[etype.name], vd, np.where(m.p[pm][::width], views[va], views[vb])

    return runner(pc, next_pc, perform, reads, writes)


LOGIC = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}


@implements("plogic", bank_rule=NO_UB)
def bind_plogic(inst: Inst, pc: int):
    """Mask logic on all 256 bits of the mask registers (and PSEL's bitwise select)."""
    pd, *sources = inst.operands
    op = inst.row.op
    reads, writes = footprint([preg(p) for p in sources]), footprint([preg(pd)])
    next_pc = pc + inst.size

    def perform(m):
        if op == "not":
            return m.p, pd, ~m.p[sources[0]]
        if op == "sel":  # PSEL Pd, Pa, Pb, Pm: Pm ? Pa : Pb, bit by bit
            return m.p, pd, np.where(m.p[sources[2]], m.p[sources[0]], m.p[sources[1]])
        return m.p, pd, LOGIC[op](m.p[sources[0]], m.p[sources[1]])

    return runner(pc, next_pc, perform, reads, writes)


@implements("vfma", bank_rule=NO_UB, masked_lanes=True)
def bind_vfma(inst: Inst, pc: int):
    """VAXPY (d = a * s + d), VMLA (d = a * b + d), VMADD (d = a * d + b): Vd is read and written,
    the sum rounded once; lanes outside Pm zero."""
    vd, va, other, pm = inst.operands
    etype = inst.type
    fn = numerics.kernel(inst.row.op, etype)
    axpy = inst.row.op == "axpy"
    reads = footprint([vreg(va), vreg(vd), preg(pm)] if axpy else [vreg(va), vreg(other), vreg(vd), preg(pm)])
    writes = footprint([vreg(vd)])
    next_pc = pc + inst.size

    def run(m):
        scalar = scalar_element(m, other, etype) if axpy else None

        def perform():
            views = m.v_as[etype.name]
            srcs = [views[va], views[vd]] if axpy else [views[va], views[other], views[vd]]
            return m.v_rows[etype.name], vd, _masked(m, pm, etype.size, fn(srcs, scalar))

        m.submit_register(pc, perform, reads, writes)
        return next_pc

    return run
