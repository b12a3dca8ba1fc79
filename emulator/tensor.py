"""Tensor instructions (UB to UB, iterated): one numpy pass over all iterations and lanes.

Sources of an iteration are read before its results are written. Iterations that may read what an
earlier one wrote (``geometry.dependency_distance``) run in groups that keep that order; all others
run as one pass, where the later iteration's write wins on overlap, as in order.
"""

from __future__ import annotations

import numpy as np

from emulator import geometry, numerics
from emulator.faults import Fault
from emulator.jobs import Job, runs_of
from emulator.semantics import implements
from isa import Inst, MaskMode

MAX_CHUNK = 4096  # iterations per numpy pass: bounds the index arrays' memory
MAX_SEQUENTIAL_PASSES = 1 << 16  # dependent iterations run in at most this many passes
SAMPLED_ITERATIONS = 8192  # UB holds at most 8192 datablocks


def lane_mask(inst: Inst) -> np.ndarray | None:
    """The per-iteration lane mask of a tensor instruction (None: every lane)."""
    mask, lanes = inst.mask, inst.type.lanes
    if mask is None or mask.mode == MaskMode.COUNT:
        return None
    if mask.mode == MaskMode.CONTINUOUS:
        return np.arange(lanes) < mask.low
    bits = mask.low | mask.high << 64
    if bits >> lanes == 0 and bits == (1 << lanes) - 1:
        return None
    return (bits >> np.arange(lanes, dtype=object) & 1).astype(bool)


def iterations_of(inst: Inst) -> int:
    if inst.mask is not None and inst.mask.mode == MaskMode.COUNT:
        return -(-inst.mask.low // inst.type.lanes)
    return inst.kw("repeat")


def strides_of(inst: Inst) -> list[tuple[int, int]]:
    """(block stride, repeat stride) of each UB operand, destination first."""
    names = ("dst", "src0", "src1") if inst.row.form == "tensor-binary" else ("dst", "src")
    return [(inst.kw(f"{n}blk"), inst.kw(f"{n}rep")) for n in names]


@implements("tensor")
def bind_tensor(inst: Inst, pc: int):
    op, etype = inst.row.op, inst.type
    esize, lanes = etype.size, etype.lanes
    nmem = 3 if inst.row.form == "tensor-binary" else 2
    refs = inst.operands[:nmem]
    strides = strides_of(inst)
    iterations = iterations_of(inst)
    count = inst.mask.low if inst.mask is not None and inst.mask.mode == MaskMode.COUNT else None
    lanes_on = lane_mask(inst)
    kernel = numerics.kernel(op, etype)
    scalar_ref = inst.operands[2] if inst.row.form == "tensor-scalar" else None
    imm = None
    if scalar_ref is not None and scalar_ref.reg is None:
        imm = numerics.element_of_bits(scalar_ref.imm, etype)
    next_pc = pc + inst.size
    names = ("destination", "source 0", "source 1") if nmem == 3 else ("destination", "source")
    extents = [geometry.extent(iterations, rep, blk) for blk, rep in strides] if iterations else []

    per_block = 32 // esize
    contiguous = [blk == 1 and rep == 8 for blk, rep in strides]

    def region(base: int, first: int, chunk: int, k: int):
        """The elements of iterations [first, first + chunk) of operand k: a slice when contiguous."""
        start = base + first * strides[k][1] * per_block
        if contiguous[k]:
            return slice(start, start + chunk * lanes)
        blk, rep = strides[k]
        return start + geometry.element_offsets(chunk, rep, blk, esize)

    # More iterations than fit UB with a non-zero repeat stride repeat one block pattern (every
    # repeat stride is then 0): their footprint and bank pattern are those of the first ones.
    sampled = min(iterations, SAMPLED_ITERATIONS)
    block_offsets = [geometry.block_offsets(sampled, rep, blk) for blk, rep in strides]
    relative_runs = [runs_of(offsets.reshape(-1) // 32) for offsets in block_offsets]

    def run(m):
        if iterations == 0:
            m.submit(Job(pc, None))
            return next_pc
        addrs = []
        for k, ref in enumerate(refs):
            addr = m.ub_block_address(ref, names[k])
            m.check_ub(addr, addr + extents[k], names[k])
            addrs.append(addr)
        scalar = imm
        if scalar_ref is not None and imm is None:
            scalar = numerics.element_of_bits(m.s[scalar_ref.reg], etype)
        footprint = [("ub", runs + addr // 32) for addr, runs in zip(addrs, relative_runs, strict=True)]
        job = Job(pc, lambda: perform(m, addrs, scalar), footprint[1:], footprint[:1], iterations=iterations,
                  conflicts=lambda costs: conflicts(costs, addrs), lands=True)
        job.apply = lambda: perform(m, addrs, scalar, now=True)
        m.submit(job)
        return next_pc

    conflict_cache: dict = {}

    def conflicts(costs, addrs: list[int]) -> int:
        """Bank-conflict cycles: they depend on the addresses modulo the bank pattern and on which
        operands coincide (same-address reads merge), so both go into the key."""
        key = (costs.banks, *(addr % costs.bank_period for addr in addrs), *(addr - addrs[0] for addr in addrs))
        found = conflict_cache.get(key)
        if found is None:
            located = [addr + offsets for addr, offsets in zip(addrs, block_offsets, strict=True)]
            found = conflict_cache[key] = costs.tensor_conflicts(np.stack(located[1:], axis=1),
                                                                 located[0][:, None, :], iterations)
        return found

    def write(view, target, result, first: int, chunk: int) -> None:
        if count is not None:
            active = max(0, min(chunk * lanes, count - first * lanes))
            if isinstance(target, slice):
                view[target.start:target.start + active] = result.reshape(-1)[:active]
            else:
                view[target.reshape(-1)[:active]] = result.reshape(-1)[:active]
        elif lanes_on is None:
            view[target] = result.reshape(-1) if isinstance(target, slice) else result
        elif isinstance(target, slice):
            view[target].reshape(chunk, lanes)[:, lanes_on] = result[:, lanes_on]
        else:
            # Flatten in C order so overlapping iterations assign in order: the later one wins.
            view[target[:, lanes_on].reshape(-1)] = result[:, lanes_on].reshape(-1)

    def perform(m, addrs: list[int], scalar, now: bool = False):
        """Read the sources now; return what lands the results at the instruction's end. ``now``
        (a program-order run): write the results at once instead."""
        bases = [addr // esize for addr in addrs]
        view = m.view("ub", etype)
        step = min(iterations, MAX_CHUNK)
        for k in range(1, nmem):
            (dblk, drep), (sblk, srep) = strides[0], strides[k]
            distance = geometry.dependency_distance(iterations, (bases[0] - bases[k]) * esize, drep, dblk, srep, sblk)
            step = min(step, distance)
        if -(-iterations // step) > MAX_SEQUENTIAL_PASSES:
            raise Fault(f"{iterations} mutually dependent iterations exceed the emulator's limit")

        def source(k: int, first: int, chunk: int):
            if strides[k][1] == 0 and chunk > 1:  # repeat stride 0: every iteration reads the same elements
                return np.broadcast_to(view[region(bases[k], first, 1, k)].reshape(1, lanes), (chunk, lanes))
            return view[region(bases[k], first, chunk, k)].reshape(chunk, lanes)

        def compute(first: int, chunk: int):
            srcs = [source(k, first, chunk) for k in range(1, nmem)]
            return kernel(srcs, scalar), region(bases[0], first, chunk, 0)  # the run sets np.errstate

        if step == iterations:
            first = 0
            if strides[0][1] == 0:
                # Every iteration writes the same elements and none reads another's: the last one
                # wins; in counter mode the last may be partial, so the one before it counts too.
                first = iterations - 1 if count is None else max(0, iterations - 2)
            result, target = compute(first, iterations - first)
            if now:
                write(view, target, result, first, iterations - first)
                return None
            return lambda: write(view, target, result, first, iterations - first)
        # Later iterations read what earlier ones wrote: run the passes in place. Timed, keep what
        # they wrote, and put the old bytes back until the instruction's end.
        lo, hi = addrs[0], addrs[0] + extents[0]
        before = None if now else m.ub[lo:hi].copy()
        for first in range(0, iterations, step):
            chunk = min(step, iterations - first)
            result, target = compute(first, chunk)
            write(view, target, result, first, chunk)
        if now:
            return None
        changed = np.flatnonzero(m.ub[lo:hi] != before)
        values = m.ub[lo:hi][changed]
        m.ub[lo:hi] = before

        def land() -> None:
            m.ub[lo + changed] = values

        return land

    return run
