"""An instruction as assembly text, derived from its table row; defaults are left out."""

from __future__ import annotations

from vcore.isa import dist
from vcore.isa.compaction import entries_of, entry_register
from vcore.isa.encoding import Inst
from vcore.isa.model import Kind, MaskMode
from vcore.isa.values import format_bits


def _ub_text(ref, space: str = "") -> str:
    if ref.reg is None:
        return f"{space}[0x{ref.offset:x}]"
    if ref.offset == 0:
        return f"{space}[S{ref.reg}]"
    sign = "+" if ref.offset > 0 else "-"
    return f"{space}[S{ref.reg} {sign} {abs(ref.offset)}]"


def operand_text(kind: Kind, value, inst: Inst, labels: dict[int, str]) -> str:
    if kind is Kind.VREG:
        return f"V{value}"
    if kind is Kind.PREG:
        return f"P{value}"
    if kind is Kind.SREG:
        return f"S{value}"
    if kind in (Kind.UB, Kind.UB_BYTE):
        return _ub_text(value)
    if kind is Kind.GM:
        return _ub_text(value, "gm")
    if kind is Kind.SCALAR:
        return f"S{value.reg}" if value.reg is not None else format_bits(value.imm, inst.type)
    if kind in (Kind.SRC, Kind.IMM):
        return f"S{value.reg}" if value.reg is not None else str(value.imm)
    if kind is Kind.TARGET:
        return labels.get(value, f"0x{value:x}")
    return str(value)


def _entry_text(spec, entry: int) -> str:
    reg = entry_register(spec, entry)
    return str(entry) if reg is None else f"S{reg}"


def inst_text(inst: Inst, labels: dict[int, str] | None = None) -> str:
    """One instruction as assembly; defaults are left out."""
    row = inst.row
    head = (row.mnemonic + (f".{inst.cond}" if inst.cond is not None else "")
            + (f".{inst.type.name}" if inst.type is not None else "")
            + (f".{inst.source.name}" if inst.source is not None else ""))
    parts = [operand_text(o.kind, v, inst, labels or {}) for o, v in zip(row.operands, inst.operands, strict=True)]
    for spec, value in zip(row.keywords, inst.keywords, strict=True):
        if value is None or (value == spec.default and not spec.required):
            continue
        if spec.flag:
            parts.append(spec.name)
        elif spec.entries:
            parts.append(f"{spec.name}=({', '.join(_entry_text(spec, e) for e in entries_of(spec, value))})")
        elif spec.name == "dist":  # the mode's name: its family and T's width (isa.dist)
            parts.append(f"dist={dist.mode_of(inst).name}")
        elif spec.choices:
            parts.append(f"{spec.name}={spec.choices[value]}")
        else:
            parts.append(f"{spec.name}={'P' if spec.preg else 'S' if spec.sreg else ''}{value}")
    mask = inst.mask
    if mask is not None:
        if mask.mode == MaskMode.CONTINUOUS:
            parts.append(f"mask={mask.low}")
        elif mask.mode == MaskMode.BITS:
            parts.append(f"mask=(0x{mask.low:x}, 0x{mask.high:x})")
        elif mask.mode == MaskMode.COUNT:
            parts.append(f"count={mask.low}")
    return head + (" " + ", ".join(parts) if parts else "")
