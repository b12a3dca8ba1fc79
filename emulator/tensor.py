"""Tensor instructions (UB to UB, iterated): one numpy pass over all iterations and lanes.

Sources of an iteration are read before its results are written. Iterations that may read what an
earlier one wrote (``geometry.dependency_distance``) run in groups that keep that order; all others
run as one pass, where the later iteration's write wins on overlap, as in order. The accumulate
idiom (destination and one source the same blocks, repeat stride 0: ``acc = acc op x_r``) is one
numpy fold over the iterations (``numerics.fold_rows``), not a pass per iteration.
"""

from __future__ import annotations

import numpy as np

from emulator import geometry, numerics
from emulator.faults import Fault
from emulator.jobs import Job, land, runs_of
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
    # The accumulate idiom: the destination and one source (for sub, source 0 only) are the same
    # block pattern with repeat stride 0, so iteration r folds the other source's r-th iteration
    # (or the scalar) into the one before's result; one numpy fold does all of them.
    fold_op = numerics.SCALAR_BASE.get(op, op)
    accumulators = []
    if fold_op in numerics.FOLDS and iterations >= 2 and strides[0][1] == 0:
        accumulators = [k for k in range(1, nmem) if strides[k] == strides[0] and (k == 1 or fold_op != "sub")]

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
        m.submit(Job(pc, lambda: perform(m, addrs, scalar), footprint[1:], footprint[:1], iterations=iterations,
                     conflicts=lambda costs: conflicts(costs, addrs)))
        return next_pc

    conflict_cache: dict = {}

    def conflicts(costs, addrs: list[int]) -> int:
        """Bank-conflict cycles: they depend on the addresses modulo the bank pattern and on which
        operands coincide (same-address reads merge), so both go into the key."""
        key = (costs.banks, *(addr % costs.banks.period for addr in addrs), *(addr - addrs[0] for addr in addrs))
        found = conflict_cache.get(key)
        if found is None:
            located = [addr + offsets for addr, offsets in zip(addrs, block_offsets, strict=True)]
            found = conflict_cache[key] = costs.tensor_conflicts(np.stack(located[1:], axis=1),
                                                                 located[0][:, None, :], iterations)
        return found

    def writes(view, target, result, first: int, chunk: int) -> tuple:
        """The write of iterations [first, first + chunk) of the result to their elements: the active
        lanes only, and in counter mode the elements before the count."""
        if count is not None:
            active = max(0, min(chunk * lanes, count - first * lanes))
            if isinstance(target, slice):
                return ((view, slice(target.start, target.start + active), result.reshape(-1)[:active]),)
            return ((view, target.reshape(-1)[:active], result.reshape(-1)[:active]),)
        if lanes_on is None:
            return ((view, target, result.reshape(-1) if isinstance(target, slice) else result),)
        if isinstance(target, slice):
            return ((view[target].reshape(chunk, lanes), (slice(None), lanes_on), result[:, lanes_on]),)
        # Flatten in C order so overlapping iterations assign in order: the later one wins.
        return ((view, target[:, lanes_on].reshape(-1), result[:, lanes_on].reshape(-1)),)

    def source(view, bases: list[int], k: int, first: int, chunk: int):
        if strides[k][1] == 0 and chunk > 1:  # repeat stride 0: every iteration reads the same elements
            return np.broadcast_to(view[region(bases[k], first, 1, k)].reshape(1, lanes), (chunk, lanes))
        return view[region(bases[k], first, chunk, k)].reshape(chunk, lanes)

    def compute(view, bases: list[int], scalar, first: int, chunk: int):
        srcs = [source(view, bases, k, first, chunk) for k in range(1, nmem)]
        return kernel(srcs, scalar), region(bases[0], first, chunk, 0)  # the run sets np.errstate

    def fold(view, bases: list[int], scalar, k: int) -> bool:
        """The accumulate idiom with source ``k`` the accumulator, written in place; False (nothing
        written) when ``numerics.fold_rows`` cannot do it exactly. In counter mode the last
        iteration is partial: the lanes past the count end with the fold over one fewer."""
        target = region(bases[0], 0, 1, 0)
        state = view[target].reshape(lanes)
        before = state
        for first in range(0, iterations, MAX_CHUNK):
            chunk = min(MAX_CHUNK, iterations - first)
            seq = np.empty((chunk + 1, lanes), dtype=view.dtype)
            seq[0] = state
            seq[1:] = scalar if nmem == 2 else source(view, bases, 3 - k, first, chunk)
            rows = numerics.fold_rows(op, etype, seq, acc_first=k == 1)
            if rows is None:
                return False
            before, state = rows
        if count is not None:
            state = np.where(np.arange(lanes) < count - (iterations - 1) * lanes, state, before)
        land(writes(view, target, state.reshape(1, lanes), 0, 1))
        return True

    def perform(m, addrs: list[int], scalar):
        """Read the sources now and return the writes of the results (``emulator.jobs``)."""
        bases = [addr // esize for addr in addrs]
        view = m.view("ub", etype)
        step = min(iterations, MAX_CHUNK)
        distances = {}
        for k in range(1, nmem):
            (dblk, drep), (sblk, srep) = strides[0], strides[k]
            distances[k] = geometry.dependency_distance(iterations, (bases[0] - bases[k]) * esize, drep, dblk, srep,
                                                        sblk)
            step = min(step, distances[k])
        if -(-iterations // step) > MAX_SEQUENTIAL_PASSES:
            raise Fault(f"{iterations} mutually dependent iterations exceed the emulator's limit")
        if step == iterations:
            first = 0
            if strides[0][1] == 0:
                # Every iteration writes the same elements and none reads another's: the last one
                # wins; in counter mode the last may be partial, so the one before it counts too.
                first = iterations - 1 if count is None else max(0, iterations - 2)
            result, target = compute(view, bases, scalar, first, iterations - first)
            return writes(view, target, result, first, iterations - first)
        # Later iterations read what earlier ones wrote: the passes run in order on a copy of the
        # bytes the operands span, and the destination's elements are written from it.
        lo = min(addrs)
        scratch = m.ub[lo:max(addr + extent for addr, extent in zip(addrs, extents, strict=True))].copy()
        inner = scratch.view(view.dtype)
        shifted = [base - lo // esize for base in bases]
        # The accumulator is read only by itself: the other source reads nothing any iteration wrote.
        acc = next((k for k in accumulators if bases[k] == bases[0] and distances.get(3 - k) in (None, iterations)),
                   None)
        if acc is None or not fold(inner, shifted, scalar, acc):
            for first in range(0, iterations, step):
                chunk = min(step, iterations - first)
                result, target = compute(inner, shifted, scalar, first, chunk)
                land(writes(inner, target, result, first, chunk))
        if contiguous[0] and lanes_on is None and count is None:  # one run of elements, every one written
            first, total = shifted[0], iterations * lanes
            return ((view, slice(bases[0], bases[0] + total), inner[first:first + total]),)
        # The elements some iteration wrote (the active lanes, before the count), each once: at most
        # the operands' span, however many iterations wrote them.
        written = np.zeros(inner.size, dtype=bool)
        for first in range(0, iterations, MAX_CHUNK):
            chunk = min(MAX_CHUNK, iterations - first)
            every = np.ones((chunk, lanes), dtype=bool)
            land(writes(written, region(shifted[0], first, chunk, 0), every, first, chunk))
        where = np.flatnonzero(written)
        return ((view, where + lo // esize, inner[where]),)

    return run
