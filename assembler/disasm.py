"""Words back to assembly text that re-assembles to the identical words, and the listing."""

from __future__ import annotations

from vcore.isa import Inst, Kind, decode_program
from vcore.isa.program import Program
from vcore.isa.text import inst_text
from vcore.isa.types import TYPES
from vcore.isa.values import format_bits


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
