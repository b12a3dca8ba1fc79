"""The tensor shape's operand plan: what a static tensor instruction reads and writes, worked out once.

``plan_of(inst)`` gives a ``TensorPlan`` (a value): each UB operand's layout, type, strides, extent,
footprint runs and bank rows (``Operand``), and the instruction's lane mask, count and kernel. The
strategies that run it are ``emulator.semantics.tensor``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from attrs import evolve, frozen

from vcore.emulator.arith import conversion, numerics
from vcore.emulator.jobs import runs_of
from vcore.emulator.semantics import geometry, reductions
from vcore.isa import TYPES, Inst, Kind, MaskMode

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
PLANNED_FORMS = tuple(_FORMS)  # the forms whose operands a plan lays out
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
        convert = conversion.converter(inst.type, inst.source, inst.round_mode, saturate=bool(inst.kw("sat")))
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


# ----------------------------------------------------------------------------------------------
# the operand plan: a value worked out once per static instruction


@frozen(eq=False)
class Operand:
    """One UB operand of a tensor instruction as its plan holds it: its address operand, strides
    and element type, and the datablocks it touches (its footprint and its rows in the banks)."""

    name: str  # in messages: destination, source 0, selector, ...
    ref: object  # the address as written (a scalar register and an offset)
    etype: object  # its element type (bytes for a bit operand)
    layout: geometry.Layout  # its block and repeat strides
    bits: bool  # a bit operand: lane i at bit i % 8 of byte i / 8
    extent: int  # bytes from its address to the end of the last one any iteration touches
    rows: np.ndarray  # (sampled iterations, blocks) byte offsets of its datablocks: what the banks see
    runs: np.ndarray  # the blocks it touches from its address's (a masked destination: those written)
    banked: bool  # the bank model takes it: it covers 8 datablocks an iteration
    width: int  # elements an iteration (``layout.count``)
    advance: int  # bytes from one iteration to the next (``layout.advance``)
    contiguous: bool  # iteration r is elements [r * width, (r + 1) * width) (``layout.contiguous``)


@frozen(eq=False)
class TensorPlan:
    """What a tensor instruction does, worked out once per static instruction: its operands
    (destination first), which lanes of which iterations take part, its element kernel and how it
    makes its sources; only its addresses and a register scalar are read when it runs."""

    op: str
    etype: object
    lanes: int
    iterations: int
    operands: tuple  # of Operand, destination first
    lanes_on: np.ndarray | None  # the per-iteration lane mask (None: every lane)
    count: int | None  # counter mode: the elements that take part (None: not counter mode)
    kernel: Callable  # kernel(sources, scalar) -> results, on (iterations, lanes) arrays
    fills: bool  # its sources are made from the element indices (a fill), not read from UB
    scalar_reg: int | None  # the scalar register read when it runs (None: an immediate, or no scalar)
    imm: object  # the immediate scalar as an element of the type
    whole: bool  # every element of the destination is written, whatever the mask (bits, reductions)
    reads_dst: bool  # the destination is a source too, its values last (a fused multiply-add)
    reduction: bool  # its kernel takes which lanes take part, after the values
    may_leave: bool  # VCGADD/VCGMAX/VCGMIN with a mask: on a2 a datablock with no active lane is left as it is
    accumulators: tuple  # the sources that can be the accumulator of the accumulate idiom
    sampled: int  # the iterations the banks are modelled on (later ones repeat their pattern)


def plan_of(inst: Inst) -> TensorPlan:
    """The operand plan of a tensor instruction."""
    op, etype, form = inst.row.op, inst.type, _FORMS[inst.row.form]
    refs = [v for o, v in zip(inst.row.operands, inst.operands, strict=True) if o.kind is Kind.UB]
    layouts = layouts_of(inst)
    reduction = inst.row.form == "tensor-reduce"
    iterations = iterations_of(inst)
    count = inst.mask.low if inst.mask is not None and inst.mask.mode == MaskMode.COUNT else None
    lanes_on = lane_mask(inst)
    kernel = kernel_of(inst)
    scalar_ref = next((v for o, v in zip(inst.row.operands, inst.operands, strict=True) if o.kind is Kind.SCALAR),
                      None)
    imm = None
    if scalar_ref is not None and scalar_ref.reg is None:
        imm = numerics.element_of_bits(scalar_ref.imm, etype)
    whole = form[0][1] is None or reduction
    # More iterations than fit UB with a non-zero repeat stride repeat one block pattern (every
    # repeat stride is then 0): their footprint and bank pattern are those of the first ones.
    sampled = min(iterations, SAMPLED_ITERATIONS)
    operands = []
    for (name, prefix), ref, etype_k, layout in zip(form, refs, operand_types(inst), layouts, strict=True):
        rows = geometry.block_offsets(layout, sampled)
        operands.append(Operand(name, ref, etype_k, layout, prefix is None,
                                layout.extent(iterations) if iterations else 0, rows,
                                runs_of(rows.reshape(-1) // 32), layout.blocks == 8, layout.count, layout.advance,
                                layout.contiguous))
    dst = operands[0]
    if lanes_on is not None and not whole and dst.layout.blocks == 8 and inst.lanes % 8 == 0:
        # a masked destination's datablocks without an active lane are neither written nor read
        active_blocks = np.asarray(lanes_on).reshape(8, -1).any(axis=1)
        operands[0] = evolve(dst, runs=runs_of(dst.rows[:, active_blocks].reshape(-1) // 32))
    # The accumulate idiom: the destination and one source (for sub, source 0 only) are the same
    # block pattern with repeat stride 0, so iteration r folds the other source's r-th iteration
    # (or the scalar) into the one before's result; one numpy fold does all of them.
    fold_op = numerics.SCALAR_BASE.get(op, op)
    accumulators = ()
    if inst.row.family == "tensor" and fold_op in numerics.FOLDS and iterations >= 2 and dst.advance == 0:
        accumulators = tuple(k for k in range(1, len(layouts))
                             if layouts[k] == layouts[0] and (k == 1 or fold_op != "sub"))
    # VCGADD/VCGMAX/VCGMIN leave a datablock with no active lane untouched on a2 (the 950 writes the
    # identity): only when some lane takes no part, and known when the run says which profile.
    may_leave = op in reductions.GROUPS and inst.mask is not None
    return TensorPlan(op, etype, inst.lanes, iterations, tuple(operands), lanes_on, count, kernel,
                      inst.row.form == "tensor-fill",
                      None if imm is not None or scalar_ref is None else scalar_ref.reg, imm, whole,
                      inst.row.form in READS_DST, reduction, may_leave, accumulators, sampled)
