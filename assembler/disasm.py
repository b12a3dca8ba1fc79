"""Words back to assembly text that re-assembles to the identical words, and the listing."""

from __future__ import annotations

from isa import Inst, Kind, MaskMode, decode_program
from isa.program import Program
from isa.types import TYPES
from isa.values import format_bits


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
    if kind is Kind.UB:
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


def inst_text(inst: Inst, labels: dict[int, str] | None = None) -> str:
    """One instruction as assembly; defaults are left out."""
    row = inst.row
    head = row.mnemonic + (f".{inst.type.name}" if inst.type is not None else "")
    parts = [operand_text(o.kind, v, inst, labels or {}) for o, v in zip(row.operands, inst.operands, strict=True)]
    for spec, value in zip(row.keywords, inst.keywords, strict=True):
        if value is None or (value == spec.default and not spec.required):
            continue
        parts.append(f"{spec.name}=P{value}" if spec.preg else f"{spec.name}={value}")
    mask = inst.mask
    if mask is not None:
        if mask.mode == MaskMode.CONTINUOUS:
            parts.append(f"mask={mask.low}")
        elif mask.mode == MaskMode.BITS:
            parts.append(f"mask=(0x{mask.low:x}, 0x{mask.high:x})")
        elif mask.mode == MaskMode.COUNT:
            parts.append(f"count={mask.low}")
    return head + (" " + ", ".join(parts) if parts else "")


def _branch_labels(insts: list[tuple[int, Inst]]) -> dict[int, str]:
    starts = {pc for pc, _ in insts}
    labels = {}
    for _, inst in insts:
        for operand, value in zip(inst.row.operands, inst.operands, strict=True):
            if operand.kind is Kind.TARGET and value in starts:
                labels[value] = f"L{value:04x}"
    return labels


def disassemble(program: Program) -> str:
    """The whole program as source text: instructions (with labels at branch targets), then data."""
    insts = decode_program(program.words)
    labels = _branch_labels(insts)
    lines = []
    for pc, inst in insts:
        if pc in labels:
            lines.append(f"{labels[pc]}:")
        lines.append(f"    {inst_text(inst, labels)}")
    for rec in program.data:
        etype = TYPES[rec.type]
        name = f".{rec.space}fill" if rec.kind == "fill" else f".{rec.space}"
        values = [format_bits(int.from_bytes(rec.payload[i:i + etype.size], "little"), etype)
                  for i in range(0, len(rec.payload), etype.size)]
        if rec.kind == "fill":
            lines.append(f"{name} 0x{rec.addr:x}, {rec.type}, {rec.count}, {values[0]}")
        else:
            lines.append(f"{name} 0x{rec.addr:x}, {rec.type}, " + ", ".join(values))
    return "\n".join(lines) + "\n"


def listing(program: Program) -> str:
    """Address, words in hex, source line number and text of every instruction."""
    insts = decode_program(program.words)
    width = max((inst.words for _, inst in insts), default=1) * 17
    out = []
    for pc, inst in insts:
        words = " ".join(f"{w:016x}" for w in program.words[pc // 8: pc // 8 + inst.words])
        src = (program.source or {}).get(pc)
        where = f"{src.line:5d}  {src.text}" if src is not None else f"       {inst_text(inst)}"
        out.append(f"0x{pc:04x}  {words:<{width}} {where}")
    return "\n".join(out) + ("\n" if out else "")
