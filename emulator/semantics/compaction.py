"""Compaction (CONTRACT 13.4): the tensor GatherMask (VGATHERM), the register Squeeze (VSQZ) and the
special registers they count into, RSVDCNT and AR, with CLRAR and the scalar unit's reads of every
special register (``MOV Sd, RSVDCNT``, ``MOV Sd, AR``, ``MOV Sd, MRGCNTk``).

The special registers are the bytes of the race space ``spr`` (``emulator.state.SPR_PLACES``): the V
instruction that writes one has it in its footprint, and the scalar unit's read is a job of its own on
S at its cycle (as an ``LD``), so a read that no flag or barrier orders after the write is a race like
any other. VGATHERM keeps, in each iteration, the elements its pattern selects (a fixed pattern, or
bits in UB) and writes them densely from ``dst``: one numpy gather over all iterations.
"""

from __future__ import annotations

import numpy as np

from vcore.emulator.faults import Fault
from vcore.emulator.jobs import NOTHING, Job, footprint, preg, runs_of, span, vreg
from vcore.emulator.semantics.register_forms import runner
from vcore.emulator.semantics.registry import NO_UB, UNBANKED, implements
from vcore.emulator.state import SPR_PLACES, wrap64
from vcore.isa import Inst

_RSVDCNT = SPR_PLACES["RSVDCNT"][0]
_AR = SPR_PLACES["AR"][0]
RSVDCNT_EXACT = {"spr": (_RSVDCNT, 8, 8, 1)}


def spr_span(name: str):
    """A special register's bytes in the race space ``spr``."""
    offset, size = SPR_PLACES[name]
    return span("spr", offset, offset + size)


def u64_bytes(value: int) -> np.ndarray:
    return np.array([value], dtype="<u8").view(np.uint8)


def fixed_pattern(pattern: int, count: int) -> np.ndarray:
    """Which of an iteration's first ``count`` elements a fixed pattern 1..7 keeps."""
    i = np.arange(count)
    if pattern == 7:
        return np.ones(count, dtype=bool)
    if pattern <= 2:
        return i % 2 == pattern - 1
    return i % 4 == pattern - 3


@implements("gathermask", bank_rule=UNBANKED, refines=True, forms=("tensor-gathermask", "tensor-gathermask-bits"))
def bind_gathermask(inst: Inst, pc: int):
    """Iteration r's element i (i < M, the mask= count or every lane) is at src0 + (r * srcrep + i * w /
    32 * srcblk) * 32 + i * w % 32; the kept ones go to dst + k * w in order; RSVDCNT = their number."""
    dst_ref, src_ref, third = inst.operands
    w, lanes = inst.type.size, inst.type.lanes
    repeat, srcblk, srcrep = inst.kw("repeat"), inst.kw("srcblk"), inst.kw("srcrep")
    count = inst.mask.low if inst.mask is not None else lanes
    i = np.arange(count)
    offsets = (np.arange(repeat)[:, None] * srcrep + (i * w // 32)[None, :] * srcblk) * 32 + (i * w % 32)[None, :]
    src_runs = runs_of(offsets.reshape(-1) // 32)
    src_extent = int(offsets.max()) + w if repeat else 0
    fixed = inst.row.form == "tensor-gathermask"
    keep_fixed = np.broadcast_to(fixed_pattern(third, count), (repeat, count)) if fixed else None
    bit_offsets = (np.arange(repeat) * (inst.kw("src1rep") or 0) * 32)[:, None] + np.arange(lanes // 8)[None, :]
    bit_runs = runs_of(bit_offsets.reshape(-1) // 32)
    element_bytes = np.arange(w)
    next_pc = pc + inst.size

    def run(m):
        if repeat == 0:  # a no-operation that sets RSVDCNT to 0 (CONTRACT 13.4)
            job = Job(pc, lambda: ((m.spr, slice(_RSVDCNT, _RSVDCNT + 8), u64_bytes(0)),), (), [spr_span("RSVDCNT")])
            job.exact = RSVDCNT_EXACT
            m.submit(job)
            return next_pc
        dst = m.ub_block_address(dst_ref, "destination")
        src = m.ub_block_address(src_ref, "source 0")
        m.check_ub(src, src + src_extent, "source 0")
        reads = [("ub", src_runs + src // 32)]
        bits = None
        if not fixed:
            bits = m.ub_block_address(third, "source 1")
            m.check_ub(bits, bits + int(bit_offsets.max()) + 1, "source 1")
            reads.append(("ub", bit_runs + bits // 32))

        def keep() -> np.ndarray:
            if fixed:
                return keep_fixed
            return np.unpackbits(m.ub[bits + bit_offsets], axis=1, bitorder="little")[:, :count].astype(bool)

        def written(kept: int) -> list:
            return [span("ub", dst, dst + kept * w), spr_span("RSVDCNT")]

        def perform():
            kept = keep()
            starts = src + offsets[kept]  # the kept elements' first bytes, iteration by iteration
            n = starts.size
            m.check_ub(dst, dst + n * w, "destination")
            if dst != src and n and np.any((starts < dst + n * w) & (starts + w > dst)):
                raise Fault("VGATHERM: dst overlaps src0 other than exactly")
            if bits is not None and n and bits < dst + n * w and dst < bits + int(bit_offsets.max()) + 1:
                raise Fault("VGATHERM: dst overlaps src1")
            values = m.ub[(starts[:, None] + element_bytes).reshape(-1)]
            return ((m.ub, slice(dst, dst + n * w), values),
                    (m.spr, slice(_RSVDCNT, _RSVDCNT + 8), u64_bytes(n)))

        def refine():
            return reads, written(int(keep().sum()))

        reach = written(repeat * count)  # at most every element; the kept ones once it starts (``refine``)
        job = Job(pc, perform, reads, written(int(keep_fixed.sum())) if fixed else reach, iterations=repeat,
                  refine=None if fixed else refine)
        job.exact = RSVDCNT_EXACT  # races on RSVDCNT are named on its 8 bytes
        m.submit(job)
        return next_pc

    return run


@implements("vsqueeze", bank_rule=NO_UB, masked_lanes=True)
def bind_vsqueeze(inst: Inst, pc: int):
    """Vd lanes 0..k-1 = the active lanes of Va in order, the rest 0; with ``ar``, AR += k * w. The
    function's AR is its context's ``spr`` (``Function.perform`` lands it)."""
    vd, va, pm = inst.operands[:3]
    counts = len(inst.operands) == 4
    w = inst.type.size
    reads, writes = footprint([vreg(va), preg(pm)]), footprint([vreg(vd)])
    next_pc = pc + inst.size
    sn = inst.kw("cnt")

    def perform(m):
        on = m.p[pm][::w]
        kept = m.v[va].reshape(-1, w)[on]
        out = np.zeros((256 // w, w), dtype=np.uint8)
        out[:len(kept)] = kept
        if not counts:
            return m.v, vd, out.reshape(-1)
        ar = int(m.spr[_AR:_AR + 8].view("<u8")[0]) + len(kept) * w
        return (m.v, vd, out.reshape(-1)), (m.spr, slice(_AR, _AR + 8), u64_bytes(ar & (1 << 64) - 1))

    if sn is None:
        return runner(pc, next_pc, perform, reads, writes)

    def run(m):
        # cnt=Sn: k from Pm as the function's data leaves it here (a launch laid out as its data
        # moves: ``emulator.functions.driven``), into the function's own copy of Sn.
        k = m.settle_count(pm, w)
        m.submit_register(pc, lambda: perform(m), reads, writes)
        if sn:
            m.s[sn] = k
        return next_pc

    return run


@implements("clrar", bank_rule=NO_UB)
def bind_clrar(inst: Inst, pc: int):
    next_pc = pc + inst.size
    zero = u64_bytes(0)

    def run(m):
        written = m.spr, slice(_AR, _AR + 8), zero
        m.submit_register(pc, lambda: written, NOTHING, NOTHING)
        return next_pc

    return run


@implements("mov_spr", bank_rule=NO_UB)
def bind_mov_spr(inst: Inst, pc: int):
    """Sd = a special register, read on S at its cycle (a job of its own, as LD's): what the timing gives."""
    sd, which = inst.operands
    offset, size = SPR_PLACES[which]
    reads = [spr_span(which)]
    next_pc = pc + inst.size

    def run(m):
        got = []

        def perform():
            got.append(int.from_bytes(m.spr[offset:offset + size].tobytes(), "little"))
            return ()

        job = Job(pc, perform, reads, ())
        job.exact = {"spr": (offset, size, size, 1)}
        m.scalar_access(job)
        if sd:
            m.s[sd] = wrap64(got[0])
        return next_pc

    return run
