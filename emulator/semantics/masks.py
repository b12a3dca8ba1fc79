"""Mask instructions (the mask shape): PSET sets a mask register from a lane pattern, PUPDATE from
a scalar count of the lanes left (and counts it down at dispatch, in program order).
"""

from __future__ import annotations

import numpy as np

from emulator.jobs import NOTHING, Job, footprint, preg
from emulator.semantics.registry import NO_UB, implements
from emulator.state import lanes_to_mask
from isa import Inst


def pattern_lanes(pattern: str, lanes: int) -> int:
    if pattern == "ALL":
        return lanes
    if pattern == "ALLF":
        return 0
    if pattern.startswith("VL"):
        return min(int(pattern[2:]), lanes)
    return {"M3": lanes - lanes % 3, "M4": lanes - lanes % 4, "H": lanes // 2, "Q": lanes // 4}[pattern]


def pattern_mask(pattern: str, width: int) -> np.ndarray:
    """The mask register PSET.b<8 width> sets for ``pattern``."""
    return lanes_to_mask(np.arange(256 // width) < pattern_lanes(pattern, 256 // width), width)


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


