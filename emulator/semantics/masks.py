"""Mask instructions (the mask shape): PSET sets a mask register from a lane pattern, PUPDATE from
a scalar count of the lanes left (and counts it down at dispatch, in program order); PPACK, PUNPACK,
PINTLV and PDINTLV rearrange the bits of mask registers (CONTRACT 13.2).
"""

from __future__ import annotations

import numpy as np

from vcore.emulator.jobs import NOTHING, Job, footprint, preg
from vcore.emulator.semantics.register_forms import runner
from vcore.emulator.semantics.registry import NO_UB, implements
from vcore.emulator.state import lanes_to_mask
from vcore.isa import Inst


def pattern_active(pattern: str, lanes: int) -> np.ndarray:
    """Which of ``lanes`` lanes PSET's ``pattern`` makes active: a prefix (ALL, ALLF, VLn, H, Q), or
    the lanes whose index is a multiple of 3 or 4 (M3, M4: CONTRACT 13.10, the public C-API's reading)."""
    index = np.arange(lanes)
    if pattern == "M3":
        return index % 3 == 0
    if pattern == "M4":
        return index % 4 == 0
    if pattern.startswith("VL"):
        count = min(int(pattern[2:]), lanes)
    else:
        count = {"ALL": lanes, "ALLF": 0, "H": lanes // 2, "Q": lanes // 4}[pattern]
    return index < count


def pattern_mask(pattern: str, width: int) -> np.ndarray:
    """The mask register PSET.b<8 width> sets for ``pattern``."""
    return lanes_to_mask(pattern_active(pattern, 256 // width), width)


def count_masks(width: int) -> np.ndarray:
    """The mask of the first n lanes of ``width`` bytes, row n for every n from 0 to all (PUPDATE's)."""
    lanes = 256 // width
    return lanes_to_mask(np.arange(lanes)[None, :] < np.arange(lanes + 1)[:, None], width)


@implements("pset", bank_rule=NO_UB)
def bind_pset(inst: Inst, pc: int):
    pd, pattern = inst.operands
    value = pattern_mask(pattern, inst.type.size)
    next_pc = pc + inst.size

    def run(m):
        m.submit(Job(pc, lambda: ((m.p, pd, value),), [], [preg(pd)]))
        return next_pc

    return run


@implements("pupdate", bank_rule=NO_UB)
def bind_pupdate(inst: Inst, pc: int):
    pd, sc = inst.operands
    width = inst.type.size
    lanes = 256 // width
    masks = list(count_masks(width))  # the first n lanes, for every n: a row, chosen at dispatch
    writes = footprint([preg(pd)])
    next_pc = pc + inst.size

    def run(m):
        s = m.s
        count = s[sc]
        # The scalar side happens at dispatch, in program order: Sn -= lanes, down to 0 (never wraps).
        if count > lanes:
            value = masks[lanes]
            if sc:
                s[sc] = count - lanes
        else:
            value = masks[count if count > 0 else 0]
            if sc:
                s[sc] = 0

        written = m.p, pd, value
        m.submit_register(pc, lambda: written, NOTHING, writes)  # it reads nothing: its writes are known now
        return next_pc

    return run




@implements("prearrange", bank_rule=NO_UB)
def bind_prearrange(inst: Inst, pc: int):
    """PPACK / PUNPACK Pd, Ps (part=lo|hi) and PINTLV / PDINTLV.bW Pd0, Pd1, Pa, Pb: the sources are
    read before any destination is written (a destination may be a source: CONTRACT 13.12)."""
    op = inst.row.op
    if op in ("pack", "unpack"):
        pd, ps = inst.operands
        half = slice(128, 256) if inst.kw("part") else slice(0, 128)
        reads, writes = footprint([preg(ps)]), footprint([preg(pd)])

        def perform(m):
            out = np.zeros(256, dtype=bool)
            if op == "pack":  # Pd bit k (of the half) = Ps bit 2k
                out[half] = m.p[ps][0::2]
            else:  # Pd bit 2k = Ps bit k of the half, bit 2k + 1 = 0
                out[0::2] = m.p[ps][half]
            return m.p, pd, out
    else:
        pd0, pd1, pa, pb = inst.operands
        group = inst.type.size  # bits a group: 1, 2, 4 for b8, b16, b32
        reads, writes = footprint([preg(pa), preg(pb)]), footprint([preg(pd0), preg(pd1)])

        def perform(m):
            a, b = m.p[pa].reshape(-1, group), m.p[pb].reshape(-1, group)
            if op == "intlv":  # the sequence a0, b0, a1, b1, ...: its first half to Pd0, its second to Pd1
                sequence = np.stack((a, b), axis=1).reshape(-1)
                return (m.p, pd0, sequence[:256].copy()), (m.p, pd1, sequence[256:].copy())
            sequence = np.concatenate((a, b))  # Pa's groups then Pb's: even ones to Pd0, odd ones to Pd1
            return (m.p, pd0, sequence[0::2].reshape(-1)), (m.p, pd1, sequence[1::2].reshape(-1))

    next_pc = pc + inst.size

    return runner(pc, next_pc, perform, reads, writes)
