"""Tensor instructions (UB to UB, iterated): one numpy pass over all iterations and lanes.

Every tensor form is this one shape. Its operands are datablock operands (``geometry.Layout``: 8
blocks an iteration, fewer for the narrower operand of a conversion) or bit operands (the result
bits of a compare, the selector bits of a select: ``lanes / 8`` contiguous bytes an iteration); the
per-op arithmetic is a kernel (``kernel_of``) on arrays of (iterations, lanes).

A static instruction is an operand plan (``tensor_plan.TensorPlan``, a value: its operands' strides,
types, footprints and bank rows, its lane mask and count, its kernel), worked out once by ``plan_of``,
and a run that reads its addresses and hands ``perform`` to a job. Sources of an iteration are read
before its results are written. ``perform`` picks a strategy: iterations that may read what an
earlier one wrote (``geometry.dependency_distance``) run in ``ordered_passes`` that keep that order;
all others run in ``one_pass``, where the later iteration's write wins on overlap, as in order. The
accumulate idiom (destination and one source the same blocks, repeat stride 0: ``acc = acc op
x_r``) is one numpy ``fold`` over the iterations (``numerics.fold_rows``), not a pass per
iteration. A fill makes its sources from the element indices (``fill_sources``), every other form
reads them (``read_sources``). Its bank rule (``registry.ITERATION_BEATS``) is ``conflicts``.
"""

from __future__ import annotations

import numpy as np

from vcore.emulator.arith import numerics
from vcore.emulator.faults import Fault
from vcore.emulator.functions import tensor_vf
from vcore.emulator.jobs import Job, land
from vcore.emulator.semantics import geometry
from vcore.emulator.semantics.registry import ITERATION_BEATS, implements
from vcore.emulator.semantics.tensor_plan import (
    MAX_CHUNK,
    MAX_SEQUENTIAL_PASSES,
    PLANNED_FORMS,
    Operand,
    TensorPlan,
    plan_of,
)
from vcore.isa import Inst


@implements("tensor", "tensor_conv", "tensor_compare", "tensor_select", bank_rule=ITERATION_BEATS,
            forms=PLANNED_FORMS)
def bind_tensor(inst: Inst, pc: int):
    """The run of a tensor instruction: its plan, and at each run its addresses (checked), its
    register scalar, its footprint and a job that performs it and prices its bank conflicts."""
    plan = plan_of(inst)
    operands, iterations, next_pc = plan.operands, plan.iterations, pc + inst.size
    placed = [(None, None)] * len(operands)  # per operand, its last address and absolute runs (read-only)
    banks_seen: dict = {}  # the bank-conflict cycles of each address pattern met (``conflicts``)
    def run(m):
        if iterations == 0:
            job = Job(pc, None)
            job.function = lambda costs: tensor_vf.price(costs, inst, plan, [0] * len(operands))
            m.submit(job)
            return next_pc
        addrs = []
        for operand in operands:
            addr = m.ub_block_address(operand.ref, operand.name)
            m.check_ub(addr, addr + operand.extent, operand.name)
            addrs.append(addr)
        scalar = plan.imm
        if plan.scalar_reg is not None:
            scalar = numerics.element_of_bits(m.s[plan.scalar_reg], plan.etype)
        footprint = []
        for k, addr in enumerate(addrs):  # an operand at the address of its last run: the same runs
            last = placed[k]
            if last[0] != addr:
                last = placed[k] = (addr, operands[k].runs + addr // 32)
            footprint.append(("ub", last[1]))
        reads = footprint if plan.reads_dst else footprint[1:]
        leaves = plan.may_leave and m.profile["machine"]["isa"] == "a2"
        job = Job(pc, lambda: perform(plan, m, addrs, scalar, leaves), reads, footprint[:1], iterations=iterations,
                  conflicts=lambda costs, floor: conflicts(plan, banks_seen, costs, addrs, floor))
        job.function = lambda costs: tensor_vf.price(costs, inst, plan, addrs)
        m.submit(job)
        return next_pc

    return run


def conflicts(plan: TensorPlan, seen: dict, costs, addrs: list[int], floor: float) -> int:
    """The tensor shape's bank rule (``ITERATION_BEATS``): bank-conflict cycles beyond ``floor``, the
    cycles an iteration takes anyway. They depend on the addresses modulo the bank pattern and on
    which operands coincide (same-address reads merge), so both go into the key of ``seen``."""
    key = (costs.banks, floor, *(addr % costs.banks.period for addr in addrs),
           *(addr - addrs[0] for addr in addrs))
    found = seen.get(key)
    if found is None:
        operands, sampled = plan.operands, plan.sampled
        reads = [addrs[k] + operands[k].rows for k in range(1, len(operands)) if operands[k].banked]
        reads = np.stack(reads, axis=1) if reads else np.zeros((sampled, 0, 8), dtype=np.int64)
        dst = operands[0]
        writes = (addrs[0] + dst.rows)[:, None, :] if dst.banked else np.zeros((sampled, 0, 8), dtype=np.int64)
        found = seen[key] = costs.tensor_conflicts(reads, writes, plan.iterations, floor)
    return found


# ----------------------------------------------------------------------------------------------
# iterations: which elements, which lanes, the sources and the writes of a chunk of them


def region(operand: Operand, base: int, first: int, chunk: int):
    """The elements of iterations [first, first + chunk) of an operand whose first element is
    ``base``: a slice when contiguous."""
    start = base + first * operand.advance // operand.etype.size
    if operand.contiguous:
        return slice(start, start + chunk * operand.width)
    return start + geometry.element_offsets(operand.layout, chunk)


def active(plan: TensorPlan, first: int, chunk: int) -> np.ndarray:
    """Which lanes of iterations [first, first + chunk) take part: the mask and the count."""
    lanes, lanes_on, count = plan.lanes, plan.lanes_on, plan.count
    on = np.ones((chunk, lanes), dtype=bool) if lanes_on is None else np.broadcast_to(lanes_on, (chunk, lanes))
    if count is not None:
        on = on & (np.arange(first * lanes, (first + chunk) * lanes).reshape(chunk, lanes) < count)
    return on


def source(plan: TensorPlan, views, bases: list[int], k: int, first: int, chunk: int):
    """The values operand ``k`` holds for iterations [first, first + chunk), (chunk, width)."""
    operand = plan.operands[k]
    width = operand.width
    if operand.advance == 0 and chunk > 1:  # repeat stride 0: every iteration reads the same elements
        values = np.broadcast_to(views[k][region(operand, bases[k], first, 1)].reshape(1, width), (chunk, width))
    else:
        values = views[k][region(operand, bases[k], first, chunk)].reshape(chunk, width)
    if operand.bits:  # selector bits, lane i at bit i % 8 of byte i / 8
        return np.unpackbits(values, axis=1, bitorder="little").astype(bool)
    return values


def read_sources(plan: TensorPlan, views, bases: list[int], first: int, chunk: int) -> list:
    """The kernel's sources for iterations [first, first + chunk): the source operands, then the
    destination's values (a fused multiply-add) or which lanes take part (a reduction)."""
    srcs = [source(plan, views, bases, k, first, chunk) for k in range(1, len(plan.operands))]
    if plan.reads_dst:
        srcs.append(source(plan, views, bases, 0, first, chunk))
    if plan.reduction:
        srcs.append(active(plan, first, chunk) if plan.lanes_on is not None or plan.count is not None else None)
    return srcs


def fill_sources(plan: TensorPlan, views, bases: list[int], first: int, chunk: int) -> list:
    """A fill's one source: the index of each element it writes (the kernel makes the values)."""
    lanes = plan.lanes
    return [np.arange(first * lanes, (first + chunk) * lanes, dtype=np.int64).reshape(chunk, lanes)]


def compute(plan: TensorPlan, views, bases: list[int], scalar, first: int, chunk: int):
    """The results of iterations [first, first + chunk) and the destination elements they go to."""
    sources = fill_sources if plan.fills else read_sources
    result = plan.kernel(sources(plan, views, bases, first, chunk), scalar)  # the run sets np.errstate
    if plan.operands[0].bits:  # compare results: one bit a lane, 0 for the lanes that take no part
        result = np.packbits(result & active(plan, first, chunk), axis=1, bitorder="little")
    return result, region(plan.operands[0], bases[0], first, chunk)


def writes_of(plan: TensorPlan, view, target, result, first: int, chunk: int, leaves: bool = False) -> tuple:
    """The write of iterations [first, first + chunk) of the result to their elements: the active
    lanes only, and in counter mode the elements before the count (a bit destination: all its
    bytes, the bits of inactive lanes 0; a reduction's destination: all its units, but on a2
    (``leaves``) no result of a datablock without an active lane)."""
    lanes, lanes_on, count = plan.lanes, plan.lanes_on, plan.count
    if plan.whole:  # (in C order: with dstrep=0 the later iteration's write wins)
        if leaves:  # the results of the datablocks with an active lane
            where = active(plan, first, chunk).reshape(chunk, 8, -1).any(axis=2).reshape(-1)
            flat = np.arange(target.start, target.stop) if isinstance(target, slice) else target.reshape(-1)
            return ((view, flat[where], result.reshape(-1)[where]),)
        return ((view, target if isinstance(target, slice) else target.reshape(-1), result.reshape(-1)),)
    if count is not None:
        active_n = max(0, min(chunk * lanes, count - first * lanes))
        if isinstance(target, slice):
            return ((view, slice(target.start, target.start + active_n), result.reshape(-1)[:active_n]),)
        return ((view, target.reshape(-1)[:active_n], result.reshape(-1)[:active_n]),)
    if lanes_on is None:
        return ((view, target, result.reshape(-1) if isinstance(target, slice) else result),)
    if isinstance(target, slice):
        return ((view[target].reshape(chunk, lanes), (slice(None), lanes_on), result[:, lanes_on]),)
    # Flatten in C order so overlapping iterations assign in order: the later one wins.
    return ((view, target[:, lanes_on].reshape(-1), result[:, lanes_on].reshape(-1)),)


# ----------------------------------------------------------------------------------------------
# the strategies: one pass, ordered passes, the fold of the accumulate idiom


def perform(plan: TensorPlan, m, addrs: list[int], scalar, leaves: bool = False):
    """Read the sources now and return the writes of the results (``emulator.jobs``): one pass when
    no iteration reads what another writes, else passes in order."""
    iterations, operands = plan.iterations, plan.operands
    bases = [addr // operand.etype.size for addr, operand in zip(addrs, operands, strict=True)]
    views = [m.view("ub", operand.etype) for operand in operands]
    step = min(iterations, MAX_CHUNK)
    distances = {}
    for k in range(0 if plan.reads_dst else 1, len(operands)):
        distances[k] = geometry.dependency_distance(iterations, addrs[0] - addrs[k], operands[0].layout,
                                                    operands[k].layout)
        step = min(step, distances[k])
    if -(-iterations // step) > MAX_SEQUENTIAL_PASSES:
        raise Fault(f"{iterations} mutually dependent iterations exceed the emulator's limit")
    if step == iterations:
        return one_pass(plan, views, bases, scalar, leaves)
    return ordered_passes(plan, m, addrs, views, bases, scalar, leaves, step, distances)


def one_pass(plan: TensorPlan, views: list, bases: list[int], scalar, leaves: bool):
    """Every iteration at once, in one numpy pass: where they overlap, the later one's write wins."""
    iterations, first = plan.iterations, 0
    if plan.operands[0].advance == 0:
        # Every iteration writes the same elements and none reads another's: the last one wins; in
        # counter mode the last may be partial, so the one before it counts too.
        first = iterations - 1 if plan.count is None else max(0, iterations - 2)
    result, target = compute(plan, views, bases, scalar, first, iterations - first)
    return writes_of(plan, views[0], target, result, first, iterations - first, leaves)


def ordered_passes(plan: TensorPlan, m, addrs: list[int], views: list, bases: list[int], scalar, leaves: bool,
                   step: int, distances: dict):
    """Later iterations read what earlier ones wrote (or there are too many for one pass): passes
    of ``step`` iterations run in order on a copy of the bytes the operands span (or one fold, for
    the accumulate idiom), and the destination's elements are written from it."""
    iterations, operands = plan.iterations, plan.operands
    lo = min(addrs)
    hi = max(addr + operand.extent for addr, operand in zip(addrs, operands, strict=True))
    scratch = m.ub[lo:-(-hi // 32) * 32].copy()
    inner = [scratch.view(view.dtype) for view in views]
    shifted = [(addr - lo) // operand.etype.size for addr, operand in zip(addrs, operands, strict=True)]
    # The accumulator is read only by itself: the other source reads nothing any iteration wrote.
    acc = next((k for k in plan.accumulators if addrs[k] == addrs[0] and distances.get(3 - k) in (None, iterations)),
               None)
    if acc is None or not fold(plan, inner, shifted, scalar, acc):
        for first in range(0, iterations, step):
            chunk = min(step, iterations - first)
            result, target = compute(plan, inner, shifted, scalar, first, chunk)
            land(writes_of(plan, inner[0], target, result, first, chunk, leaves))
    return written_back(plan, views[0], bases[0], inner[0], shifted[0], leaves)


def written_back(plan: TensorPlan, view, base: int, inner, shifted: int, leaves: bool) -> tuple:
    """The write of the destination's elements that some iteration wrote on the copy ``inner``
    (where the destination starts at element ``shifted``) to ``view`` from element ``base``."""
    dst = plan.operands[0]
    if dst.contiguous and ((plan.lanes_on is None and plan.count is None) or (plan.whole and not leaves)):  # all
        total = plan.iterations * dst.width
        return ((view, slice(base, base + total), inner[shifted:shifted + total]),)
    # The elements some iteration wrote (the active lanes, before the count), each once: at most
    # the operands' span, however many iterations wrote them.
    written = np.zeros(inner.size, dtype=bool)
    for first in range(0, plan.iterations, MAX_CHUNK):
        chunk = min(MAX_CHUNK, plan.iterations - first)
        every = np.ones((chunk, dst.width), dtype=bool)
        land(writes_of(plan, written, region(dst, shifted, first, chunk), every, first, chunk, leaves))
    where = np.flatnonzero(written)
    return ((view, where + base - shifted, inner[where]),)


def fold(plan: TensorPlan, views, bases: list[int], scalar, k: int) -> bool:
    """The accumulate idiom with source ``k`` the accumulator, written in place; False (nothing
    written) when ``numerics.fold_rows`` cannot do it exactly. In counter mode the last
    iteration is partial: the lanes past the count end with the fold over one fewer."""
    lanes, iterations = plan.lanes, plan.iterations
    view = views[0]
    target = region(plan.operands[0], bases[0], 0, 1)
    state = view[target].reshape(lanes)
    before = state
    for first in range(0, iterations, MAX_CHUNK):
        chunk = min(MAX_CHUNK, iterations - first)
        seq = np.empty((chunk + 1, lanes), dtype=view.dtype)
        seq[0] = state
        seq[1:] = scalar if len(plan.operands) == 2 else source(plan, views, bases, 3 - k, first, chunk)
        rows = numerics.fold_rows(plan.op, plan.etype, seq, acc_first=k == 1)
        if rows is None:
            return False
        before, state = rows
    if plan.count is not None:
        state = np.where(np.arange(lanes) < plan.count - (iterations - 1) * lanes, state, before)
    land(writes_of(plan, view, target, state.reshape(1, lanes), 0, 1))
    return True
