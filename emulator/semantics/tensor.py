"""Tensor instructions (UB to UB, iterated): one numpy pass over all iterations and lanes.

Every tensor form is this one shape. Its operands are datablock operands (``geometry.Layout``: 8
blocks an iteration, fewer for the narrower operand of a conversion) or bit operands (the result
bits of a compare, the selector bits of a select: ``lanes / 8`` contiguous bytes an iteration); the
per-op arithmetic is a kernel (``kernel_of``) on arrays of (iterations, lanes).

Sources of an iteration are read before its results are written. Iterations that may read what an
earlier one wrote (``geometry.dependency_distance``) run in groups that keep that order; all others
run as one pass, where the later iteration's write wins on overlap, as in order. The accumulate
idiom (destination and one source the same blocks, repeat stride 0: ``acc = acc op x_r``) is one
numpy fold over the iterations (``numerics.fold_rows``), not a pass per iteration.
"""

from __future__ import annotations

import numpy as np

from emulator.arith import conversion, numerics
from emulator.faults import Fault
from emulator.jobs import Job, land, runs_of
from emulator.semantics import geometry, reductions
from emulator.semantics.registry import ITERATION_BEATS, implements
from isa import TYPES, Inst, Kind, MaskMode

MAX_CHUNK = 4096  # iterations per numpy pass: bounds the index arrays' memory
MAX_SEQUENTIAL_PASSES = 1 << 16  # dependent iterations run in at most this many passes
SAMPLED_ITERATIONS = 8192  # UB holds at most 8192 datablocks
_BYTES = TYPES["u8"]
RUN = "run"  # an operand that is 8 contiguous elements an iteration (VBRCB's source)
UNITS = "units"  # a reduction's destination: its results an iteration, ``dstrep`` units apart

# Per form, each UB operand in order: its name in messages and the prefix of its stride fields
# (None: a bit operand, which has no strides).
_FORMS = {
    "tensor-binary": (("destination", "dst"), ("source 0", "src0"), ("source 1", "src1")),
    "tensor-unary": (("destination", "dst"), ("source", "src")),
    "tensor-scalar": (("destination", "dst"), ("source", "src")),
    "tensor-fill": (("destination", "dst"),),
    "tensor-conv": (("destination", "dst"), ("source", "src")),
    "tensor-compare": (("destination", None), ("source 0", "src0"), ("source 1", "src1")),
    "tensor-compare-scalar": (("destination", None), ("source", "src")),
    "tensor-select": (("destination", "dst"), ("source 0", "src0"), ("source 1", "src1"), ("selector", None)),
    "tensor-select-scalar": (("destination", "dst"), ("source 0", "src"), ("selector", None)),
    "tensor-axpy": (("destination", "dst"), ("source", "src")),
    "tensor-fma": (("destination", "dst"), ("source 0", "src0"), ("source 1", "src1")),
    "tensor-brcb": (("destination", "dst"), ("source", RUN)),
    "tensor-reduce": (("destination", UNITS), ("source", "src")),
}
# Forms whose destination is a source too (a fused multiply-add adds to it): its values come last.
READS_DST = ("tensor-axpy", "tensor-fma")


def lane_mask(inst: Inst) -> np.ndarray | None:
    """The per-iteration lane mask of a tensor instruction (None: every lane)."""
    mask, lanes = inst.mask, inst.lanes
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
        return -(-inst.mask.low // inst.lanes)
    return inst.kw("repeat")


def operand_types(inst: Inst) -> list:
    """The element type of each UB operand (bytes for a bit operand), destination first."""
    form = _FORMS[inst.row.form]
    if inst.row.form == "tensor-conv":
        return [inst.type, inst.source]
    return [_BYTES if prefix is None else inst.type for _, prefix in form]


def layouts_of(inst: Inst) -> list[geometry.Layout]:
    """Where each UB operand's elements of an iteration are, destination first."""
    lanes = inst.lanes
    out = []
    for (_, prefix), etype in zip(_FORMS[inst.row.form], operand_types(inst), strict=True):
        if prefix is None:
            out.append(geometry.Layout(1, blocks=0, bit_bytes=lanes // 8))
        elif prefix == RUN:
            out.append(geometry.Layout(etype.size, blocks=0, bit_bytes=8 * etype.size))
        elif prefix == UNITS:
            unit = reductions.results_of(inst.row.op, etype, order_of(inst)) * etype.size
            out.append(geometry.Layout(etype.size, blocks=0, bit_bytes=unit, run_step=inst.kw("dstrep") * unit))
        else:
            out.append(geometry.Layout(etype.size, lanes * etype.size // 32, inst.kw(f"{prefix}blk"),
                                       inst.kw(f"{prefix}rep")))
    return out


def order_of(inst: Inst) -> str:
    """VCMAX/VCMIN's ``order=`` (vi when left out or on another row)."""
    return reductions.ORDERS[inst.kw("order") or 0] if inst.row.keyword("order") else "vi"


def kernel_of(inst: Inst):
    """``fn(sources, scalar) -> result`` over (iterations, lanes) arrays: the element kernel of the
    op (``emulator.arith.numerics``), or the conversion, compare or select of the other families. Bit
    sources arrive as booleans; a compare returns booleans, which the shape packs into bits."""
    family, op = inst.row.family, inst.row.op
    if family == "tensor_conv":
        convert = conversion.converter(inst.type, inst.source, inst.round_mode)
        return lambda srcs, scalar=None: convert(srcs[0])
    if family == "tensor_compare":
        return numerics.compare_kernel(inst.cond, inst.type)
    if inst.row.form == "tensor-reduce":  # sources [values, the lanes that take part]
        return reductions.kernel(op, inst.type, order_of(inst))
    if family == "tensor_select":
        if op == "sel":
            return lambda srcs, scalar=None: np.where(srcs[2], srcs[0], srcs[1])
        return lambda srcs, scalar=None: np.where(srcs[1], srcs[0], scalar)
    if op == "shl" and inst.type.kind == "signed":  # the tensor VSHL of a signed type keeps the sign bit
        return numerics.shift_kernel(op, inst.type, keep_sign=True)
    return numerics.kernel(op, inst.type)


@implements("tensor", "tensor_conv", "tensor_compare", "tensor_select", bank_rule=ITERATION_BEATS)
def bind_tensor(inst: Inst, pc: int):
    op, etype = inst.row.op, inst.type
    lanes = inst.lanes
    form = _FORMS[inst.row.form]
    nmem = len(form)
    names = [name for name, _ in form]
    refs = [v for o, v in zip(inst.row.operands, inst.operands, strict=True) if o.kind is Kind.UB]
    types = operand_types(inst)
    sizes = [t.size for t in types]
    layouts = layouts_of(inst)
    bits = [prefix is None for _, prefix in form]
    reduction = inst.row.form == "tensor-reduce"
    # VCGADD/VCGMAX/VCGMIN leave a datablock with no active lane untouched on a2 (the 950 writes the
    # identity): only when some lane takes no part, and known when the run says which profile.
    may_leave = op in reductions.GROUPS and (inst.mask is not None)
    whole = bits[0] or reduction  # every element of the destination is written, whatever the mask
    fill = inst.row.form == "tensor-fill"
    reads_dst = inst.row.form in READS_DST
    iterations = iterations_of(inst)
    count = inst.mask.low if inst.mask is not None and inst.mask.mode == MaskMode.COUNT else None
    lanes_on = lane_mask(inst)
    kernel = kernel_of(inst)
    scalar_ref = next((v for o, v in zip(inst.row.operands, inst.operands, strict=True) if o.kind is Kind.SCALAR),
                      None)
    imm = None
    if scalar_ref is not None and scalar_ref.reg is None:
        imm = numerics.element_of_bits(scalar_ref.imm, etype)
    next_pc = pc + inst.size
    extents = [layout.extent(iterations) for layout in layouts] if iterations else []

    # The accumulate idiom: the destination and one source (for sub, source 0 only) are the same
    # block pattern with repeat stride 0, so iteration r folds the other source's r-th iteration
    # (or the scalar) into the one before's result; one numpy fold does all of them.
    fold_op = numerics.SCALAR_BASE.get(op, op)
    accumulators = []
    if inst.row.family == "tensor" and fold_op in numerics.FOLDS and iterations >= 2 and layouts[0].advance == 0:
        accumulators = [k for k in range(1, nmem) if layouts[k] == layouts[0] and (k == 1 or fold_op != "sub")]

    def region(base: int, first: int, chunk: int, k: int):
        """The elements of iterations [first, first + chunk) of operand k: a slice when contiguous."""
        layout = layouts[k]
        start = base + first * layout.advance // sizes[k]
        if layout.contiguous:
            return slice(start, start + chunk * layout.count)
        return start + geometry.element_offsets(layout, chunk)

    # More iterations than fit UB with a non-zero repeat stride repeat one block pattern (every
    # repeat stride is then 0): their footprint and bank pattern are those of the first ones.
    sampled = min(iterations, SAMPLED_ITERATIONS)
    block_offsets = [geometry.block_offsets(layout, sampled) for layout in layouts]
    relative_runs = [runs_of(offsets.reshape(-1) // 32) for offsets in block_offsets]
    if lanes_on is not None and not whole and layouts[0].blocks == 8 and lanes % 8 == 0:
        # a masked destination's datablocks without an active lane are neither written nor read
        active_blocks = np.asarray(lanes_on).reshape(8, -1).any(axis=1)
        relative_runs[0] = runs_of(block_offsets[0][:, active_blocks].reshape(-1) // 32)
    # The bank model takes the operands that cover 8 datablocks an iteration.
    full = [layout.blocks == 8 for layout in layouts]

    placed = [(None, None)] * len(relative_runs)  # per operand, its last address and absolute runs (read-only)

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
        footprint = []
        for k, addr in enumerate(addrs):  # an operand at the address of its last run: the same runs
            last = placed[k]
            if last[0] != addr:
                last = placed[k] = (addr, relative_runs[k] + addr // 32)
            footprint.append(("ub", last[1]))
        reads = footprint if reads_dst else footprint[1:]
        leaves = may_leave and m.profile["machine"]["isa"] == "a2"
        m.submit(Job(pc, lambda: perform(m, addrs, scalar, leaves), reads, footprint[:1], iterations=iterations,
                     conflicts=lambda costs, floor: conflicts(costs, addrs, floor)))
        return next_pc

    conflict_cache: dict = {}

    def conflicts(costs, addrs: list[int], floor: float) -> int:
        """Bank-conflict cycles beyond ``floor``, the cycles an iteration takes anyway: they depend on
        the addresses modulo the bank pattern and on which operands coincide (same-address reads
        merge), so both go into the key."""
        key = (costs.banks, floor, *(addr % costs.banks.period for addr in addrs),
               *(addr - addrs[0] for addr in addrs))
        found = conflict_cache.get(key)
        if found is None:
            located = [addr + offsets for addr, offsets in zip(addrs, block_offsets, strict=True)]
            reads = [located[k] for k in range(1, nmem) if full[k]]
            reads = np.stack(reads, axis=1) if reads else np.zeros((sampled, 0, 8), dtype=np.int64)
            writes = located[0][:, None, :] if full[0] else np.zeros((sampled, 0, 8), dtype=np.int64)
            found = conflict_cache[key] = costs.tensor_conflicts(reads, writes, iterations, floor)
        return found

    def active(first: int, chunk: int) -> np.ndarray:
        """Which lanes of iterations [first, first + chunk) take part: the mask and the count."""
        on = np.ones((chunk, lanes), dtype=bool) if lanes_on is None else np.broadcast_to(lanes_on, (chunk, lanes))
        if count is not None:
            on = on & (np.arange(first * lanes, (first + chunk) * lanes).reshape(chunk, lanes) < count)
        return on

    def kept(first: int, chunk: int) -> np.ndarray:
        """Which results of a per-datablock reduction are written on a2: those of blocks with an active lane."""
        return active(first, chunk).reshape(chunk, 8, -1).any(axis=2)

    def writes(view, target, result, first: int, chunk: int, leaves: bool = False) -> tuple:
        """The write of iterations [first, first + chunk) of the result to their elements: the active
        lanes only, and in counter mode the elements before the count (a bit destination: all its
        bytes, the bits of inactive lanes 0; a reduction's destination: all its units, but on a2
        no result of a datablock without an active lane)."""
        if whole:  # (in C order: with dstrep=0 the later iteration's write wins)
            if leaves:
                where = kept(first, chunk).reshape(-1)
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

    def source(views, bases: list[int], k: int, first: int, chunk: int):
        width = layouts[k].count
        if layouts[k].advance == 0 and chunk > 1:  # repeat stride 0: every iteration reads the same elements
            values = np.broadcast_to(views[k][region(bases[k], first, 1, k)].reshape(1, width), (chunk, width))
        else:
            values = views[k][region(bases[k], first, chunk, k)].reshape(chunk, width)
        if bits[k]:  # selector bits, lane i at bit i % 8 of byte i / 8
            return np.unpackbits(values, axis=1, bitorder="little").astype(bool)
        return values

    def compute(views, bases: list[int], scalar, first: int, chunk: int):
        if fill:
            srcs = [np.arange(first * lanes, (first + chunk) * lanes, dtype=np.int64).reshape(chunk, lanes)]
        else:
            srcs = [source(views, bases, k, first, chunk) for k in range(1, nmem)]
            if reads_dst:
                srcs.append(source(views, bases, 0, first, chunk))
            if reduction:  # and which lanes take part
                srcs.append(active(first, chunk) if lanes_on is not None or count is not None else None)
        result = kernel(srcs, scalar)  # the run sets np.errstate
        if bits[0]:  # compare results: one bit a lane, 0 for the lanes that take no part
            result = np.packbits(result & active(first, chunk), axis=1, bitorder="little")
        return result, region(bases[0], first, chunk, 0)

    def fold(views, bases: list[int], scalar, k: int) -> bool:
        """The accumulate idiom with source ``k`` the accumulator, written in place; False (nothing
        written) when ``numerics.fold_rows`` cannot do it exactly. In counter mode the last
        iteration is partial: the lanes past the count end with the fold over one fewer."""
        view = views[0]
        target = region(bases[0], 0, 1, 0)
        state = view[target].reshape(lanes)
        before = state
        for first in range(0, iterations, MAX_CHUNK):
            chunk = min(MAX_CHUNK, iterations - first)
            seq = np.empty((chunk + 1, lanes), dtype=view.dtype)
            seq[0] = state
            seq[1:] = scalar if nmem == 2 else source(views, bases, 3 - k, first, chunk)
            rows = numerics.fold_rows(op, etype, seq, acc_first=k == 1)
            if rows is None:
                return False
            before, state = rows
        if count is not None:
            state = np.where(np.arange(lanes) < count - (iterations - 1) * lanes, state, before)
        land(writes(view, target, state.reshape(1, lanes), 0, 1))
        return True

    def perform(m, addrs: list[int], scalar, leaves: bool = False):
        """Read the sources now and return the writes of the results (``emulator.jobs``)."""
        bases = [addr // size for addr, size in zip(addrs, sizes, strict=True)]
        views = [m.view("ub", t) for t in types]
        step = min(iterations, MAX_CHUNK)
        distances = {}
        for k in range(0 if reads_dst else 1, nmem):
            distances[k] = geometry.dependency_distance(iterations, addrs[0] - addrs[k], layouts[0], layouts[k])
            step = min(step, distances[k])
        if -(-iterations // step) > MAX_SEQUENTIAL_PASSES:
            raise Fault(f"{iterations} mutually dependent iterations exceed the emulator's limit")
        if step == iterations:
            first = 0
            if layouts[0].advance == 0:
                # Every iteration writes the same elements and none reads another's: the last one
                # wins; in counter mode the last may be partial, so the one before it counts too.
                first = iterations - 1 if count is None else max(0, iterations - 2)
            result, target = compute(views, bases, scalar, first, iterations - first)
            return writes(views[0], target, result, first, iterations - first, leaves)
        # Later iterations read what earlier ones wrote: the passes run in order on a copy of the
        # bytes the operands span, and the destination's elements are written from it.
        lo = min(addrs)
        hi = max(addr + extent for addr, extent in zip(addrs, extents, strict=True))
        scratch = m.ub[lo:-(-hi // 32) * 32].copy()
        inner = [scratch.view(views[k].dtype) for k in range(nmem)]
        shifted = [(addr - lo) // size for addr, size in zip(addrs, sizes, strict=True)]
        # The accumulator is read only by itself: the other source reads nothing any iteration wrote.
        acc = next((k for k in accumulators if addrs[k] == addrs[0] and distances.get(3 - k) in (None, iterations)),
                   None)
        if acc is None or not fold(inner, shifted, scalar, acc):
            for first in range(0, iterations, step):
                chunk = min(step, iterations - first)
                result, target = compute(inner, shifted, scalar, first, chunk)
                land(writes(inner[0], target, result, first, chunk, leaves))
        dst_view = inner[0]
        if layouts[0].contiguous and ((lanes_on is None and count is None) or (whole and not leaves)):  # all written
            first, total = shifted[0], iterations * layouts[0].count
            return ((views[0], slice(bases[0], bases[0] + total), dst_view[first:first + total]),)
        # The elements some iteration wrote (the active lanes, before the count), each once: at most
        # the operands' span, however many iterations wrote them.
        written = np.zeros(dst_view.size, dtype=bool)
        for first in range(0, iterations, MAX_CHUNK):
            chunk = min(MAX_CHUNK, iterations - first)
            every = np.ones((chunk, layouts[0].count), dtype=bool)
            land(writes(written, region(shifted[0], first, chunk, 0), every, first, chunk, leaves))
        where = np.flatnonzero(written)
        return ((views[0], where + bases[0] - shifted[0], dst_view[where]),)

    return run
