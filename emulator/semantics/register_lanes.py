"""Register lane instructions (the register-lanes shape): one kernel over the lanes of one or two
vector registers (or a register and a scalar), inactive lanes zeroed; VSUB's carry form; and the
in-register gather. The per-op arithmetic is a kernel of ``emulator.arith.numerics``; this module owns
the lanes, the mask and the footprints once for every op.
"""

from __future__ import annotations

import numpy as np

from vcore.emulator.arith import numerics
from vcore.emulator.jobs import Job, footprint, preg, vreg
from vcore.emulator.semantics.register_forms import scalar_element
from vcore.emulator.semantics.registry import NO_UB, implements
from vcore.emulator.state import ALL_LANES, active_lanes, lanes_to_mask
from vcore.isa import Inst


def _computer(inst: Inst, srcs: tuple, pm: int, vd: int):
    """``compute(m, scalar) -> writes`` of a register compute instruction: the kernel on the
    sources as they are now, inactive lanes zeroed, written into Vd."""
    etype = inst.type
    width = etype.size
    fn = numerics.kernel(inst.row.op, etype)
    name = etype.name
    va, vb = srcs if len(srcs) == 2 else (srcs[0], None)
    word = np.dtype(f"<u{width}")
    words = f"u{8 * width}"

    def compute(m, scalar=None):
        views = m.v_as[name]
        result = fn((views[va],) if vb is None else (views[va], views[vb]), scalar)
        lanes = m.lane_masks[width].get(m.p[pm].tobytes()) or m.lane_mask(pm, width)
        if lanes is ALL_LANES:
            return m.v_rows[name], vd, result
        return m.v_rows[words], vd, np.multiply(result.view(word), lanes[0])

    return compute


@implements("vbinary", bank_rule=NO_UB, masked_lanes=True)
def bind_vbinary(inst: Inst, pc: int):
    vd, va, vb, pm = inst.operands
    next_pc = pc + inst.size
    carry = inst.kw("carry") if inst.row.keyword("carry") is not None else None
    if carry is not None:
        def run_carry(m):
            def perform():
                on = active_lanes(m.p[pm], 4)
                a = m.v[va].view("<u4").astype(np.uint64)
                b = m.v[vb].view("<u4").astype(np.uint64)
                total = a + (~b & 0xFFFFFFFF) + 1  # {carry, d} = {0,a} + {0,~b} + 1
                d = (total & 0xFFFFFFFF).astype("<u4")
                d[~on] = 0
                borrow = lanes_to_mask((total >> 32).astype(bool) & on, 4)
                return (m.p, carry, borrow), (m.v, vd, d.view(np.uint8))

            m.submit(Job(pc, perform, [vreg(va), vreg(vb), preg(pm)], [vreg(vd), preg(carry)]))
            return next_pc

        return run_carry

    return _lanes_runner(inst, pc, (va, vb), pm, vd)


@implements("vunary", bank_rule=NO_UB, masked_lanes=True)
def bind_vunary(inst: Inst, pc: int):
    vd, va, pm = inst.operands
    return _lanes_runner(inst, pc, (va,), pm, vd)


def _lanes_runner(inst: Inst, pc: int, srcs: tuple, pm: int, vd: int):
    """The run closure of a register compute instruction whose sources are registers alone."""
    next_pc = pc + inst.size
    compute = _computer(inst, srcs, pm, vd)
    reads, writes = footprint([*(vreg(s) for s in srcs), preg(pm)]), footprint([vreg(vd)])

    def run(m):
        m.submit_register(pc, lambda: compute(m), reads, writes)
        return next_pc

    return run


@implements("vscalar", bank_rule=NO_UB, masked_lanes=True)
def bind_vscalar(inst: Inst, pc: int):
    vd, va, ref, pm = inst.operands
    next_pc = pc + inst.size
    compute = _computer(inst, (va,), pm, vd)
    reads, writes = footprint([vreg(va), preg(pm)]), footprint([vreg(vd)])

    def run(m):
        scalar = scalar_element(m, ref, inst.type)  # Sn is read at dispatch, like every scalar operand
        m.submit_register(pc, lambda: compute(m, scalar), reads, writes)
        return next_pc

    return run


@implements("vgather_reg", bank_rule=NO_UB)
def bind_vgather_reg(inst: Inst, pc: int):
    vd, vs, vi = inst.operands
    etype = inst.type
    udt = f"<u{etype.size}" if etype.size > 1 else "u1"
    lanes = etype.lanes
    next_pc = pc + inst.size

    def perform_on(m):
        idx = m.v[vi].view(udt).astype(np.int64) % lanes
        return ((m.v, vd, m.v[vs].view(udt)[idx].view(np.uint8)),)

    def run(m):
        m.submit(Job(pc, lambda: perform_on(m), [vreg(vs), vreg(vi)], [vreg(vd)]))
        return next_pc

    return run


