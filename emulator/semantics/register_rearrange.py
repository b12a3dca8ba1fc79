"""Register rearrangement and the histogram (CONTRACT 13.3, 13.6): VINTLV and VDINTLV move whole
elements between two registers and two others, VPACK keeps the low bytes of each lane in one half of
Vd (the other half zero), VUNPACK sign- or zero-extends one half of Va's elements to lanes twice as
wide, and VHIST adds counts of Va's active u8 lanes to Vd's 128 u16 counters. None has a mask over
its result (VHIST's Pm picks the lanes it counts). Every source is read before any destination is
written, so a source may be a destination (13.12); each is one numpy operation over the registers.
"""

from __future__ import annotations

import numpy as np

from vcore.emulator.jobs import footprint, preg, vreg
from vcore.emulator.semantics.register_forms import runner
from vcore.emulator.semantics.registry import NO_UB, implements
from vcore.isa import Inst
from vcore.isa.types import VL_BYTES
from vcore.isa.values import dtype_of

COUNTERS = 128  # VHIST: Vd's u16 counters, for the values b .. b + 127



@implements("vrearrange", bank_rule=NO_UB)
def bind_vrearrange(inst: Inst, pc: int):
    """VINTLV / VDINTLV.T Vd0, Vd1, Va, Vb; VPACK / VUNPACK.D.S Vd, Va {, part=lo|hi}."""
    op = inst.row.op
    next_pc = pc + inst.size
    if op in ("intlv", "dintlv"):
        vd0, vd1, va, vb = inst.operands
        w = inst.type.size
        reads, writes = footprint([vreg(va), vreg(vb)]), footprint([vreg(vd0), vreg(vd1)])

        def perform(m):
            a, b = m.v[va].reshape(-1, w), m.v[vb].reshape(-1, w)
            if op == "intlv":  # a0, b0, a1, b1, ...: the first L elements to Vd0, the last L to Vd1
                halves = np.stack((a, b), axis=1).reshape(2, VL_BYTES)
            else:  # Va then Vb: the even elements to Vd0, the odd ones to Vd1
                halves = np.concatenate((a, b)).reshape(-1, 2, w).transpose(1, 0, 2).reshape(2, VL_BYTES)
            return (m.v, vd0, halves[0]), (m.v, vd1, halves[1])

        return runner(pc, next_pc, perform, reads, writes)
    vd, va = inst.operands
    dst, src = inst.type, inst.source
    hi = bool(inst.kw("part"))
    reads, writes = footprint([vreg(va)]), footprint([vreg(vd)])
    if op == "pack":  # lane i of Va (S) -> its low size(D) bytes as element i (hi: L_S + i) of Vd; the rest 0
        kept = (VL_BYTES // src.size) * dst.size
        half = slice(kept, 2 * kept) if hi else slice(0, kept)

        def perform(m):
            out = np.zeros(VL_BYTES, dtype=np.uint8)
            out[half] = m.v[va].reshape(-1, src.size)[:, :dst.size].reshape(-1)
            return m.v, vd, out

        return runner(pc, next_pc, perform, reads, writes)
    lanes = VL_BYTES // dst.size  # unpack: element i (hi: L_D + i) of Va (S), extended by S's sign, is lane i
    elements = slice(lanes, 2 * lanes) if hi else slice(0, lanes)
    out_dtype = dtype_of(dst)

    def perform_unpack(m):
        return m.v_rows[dst.name], vd, m.v_as[src.name][va][elements].astype(out_dtype)

    return runner(pc, next_pc, perform_unpack, reads, writes)


@implements("vhist", bank_rule=NO_UB)
def bind_vhist(inst: Inst, pc: int):
    """VHIST.K.BINn Vd, Va, Pm: with b = 0 (BIN0) or 128 (BIN1), counter n of Vd (u16) gains the
    number of Va's active u8 lanes (Pm read at a byte a lane) equal to b + n (FREQ) or in b .. b + n
    (CUM), modulo 65536; Vd is read and written."""
    vd, va, pm = inst.operands
    kind, bins = inst.cond.split(".")
    base = 0 if bins == "BIN0" else COUNTERS
    cumulative = kind == "CUM"
    reads, writes = footprint([vreg(va), preg(pm), vreg(vd)]), footprint([vreg(vd)])

    def perform(m):
        counts = np.bincount(m.v[va][m.p[pm]], minlength=VL_BYTES)[base:base + COUNTERS]
        if cumulative:
            counts = np.cumsum(counts)
        total = m.v_as["u16"][vd].astype(np.int64) + counts
        return m.v_rows["u16"], vd, (total & 0xFFFF).astype(np.uint16)

    return runner(pc, pc + inst.size, perform, reads, writes)
