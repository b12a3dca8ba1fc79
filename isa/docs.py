"""Write the ISA reference (docs/isa.md) from the table: ``python -m vcore.isa.docs > docs/isa.md``."""

from __future__ import annotations

import sys

from vcore.isa import TABLE
from vcore.isa.model import MASK_EXT_WORDS, Kind

_KIND_DOC = {
    Kind.VREG: "vector register V0..V31 (5 bits)",
    Kind.PREG: "mask register P0..P7 (3 bits)",
    Kind.SREG: "scalar register S0..S31 (5 bits)",
    Kind.UB: "UB operand (19 bits, see encoding.md)",
    Kind.GM: "GM operand (33 bits, see encoding.md)",
    Kind.UB_BYTE: "UB byte address for LD / ST (33 bits, the GM operand's layout, see encoding.md)",
    Kind.SCALAR: "element-type immediate, or Sn whose low T bits are the element's bit pattern (33 bits)",
    Kind.SRC: "Sn or signed immediate",
    Kind.IMM: "Sn or signed immediate",
    Kind.TARGET: "label: absolute byte address (24 bits)",
    Kind.PIPE: "S, V, MTE2, MTE3 (2 bits)",
    Kind.BARRIER_PIPE: "S, V, MTE2, MTE3, ALL (3 bits)",
    Kind.EVENT: "event 0..7 (3 bits)",
    Kind.CORE: "BLOCKIDX BLOCKNUM (1 bit)",
    Kind.SPR: "RSVDCNT MRGCNT0 MRGCNT1 MRGCNT2 MRGCNT3 (3 bits)",
    Kind.AR: "AR (1 bit, always 0)",
    Kind.FIXED: "GatherMask pattern 1..7 (3 bits)",
    Kind.PATTERN: "ALL ALLF VL1 VL2 VL3 VL4 VL8 VL16 VL32 VL64 VL128 M3 M4 H Q (4 bits)",
}


def _example(row) -> list[str]:
    """The row's example, as a program writes it (a register instruction: inside a vector function)."""
    where = " (inside a vector function)" if row.register else ""
    return [f"Example{where}:", "", *(f"    {line}" for line in row.example.splitlines())]


def render() -> str:
    out = [
        "# vcore ISA reference",
        "",
        "Generated from `isa/table.py` by `make docs`; do not edit by hand (a test fails when it is stale).",
        "Bit positions count from bit 0 of the first 64-bit word; word k holds bits 64k..64k+63.",
        "",
        "An operand written `SCALAR|Sn` (the scalar of VADDS, VMAXS, VDUP, VCMPS ..., the start of VARANGE, the "
        "count of VSHL and VSHR) is either a number written in the instruction, rounded by the assembler to the "
        "element type T (a float to nearest even), or a scalar register Sn, whose low bits, as many as T has "
        "(32 for f32, 16 for f16 and bf16, 8, 16 or 32 for the integer types), are the element's bit pattern. "
        "The upper bits of Sn are ignored and its integer is never converted to T; tensor and register forms "
        "read it alike. `MOV S1, 0x3fc00000` then `VDUP.f32 V0, S1, P0` gives 1.5 in every active lane; "
        "`MOV S1, 2` would give the f32 whose bits are 2 (about 2.8e-45), not 2.0, where `VDUP.f32 V0, 2, P0` "
        "gives 2.0. A float loaded by `LD.u32` (`LD.u16` for f16 and bf16) is used as it is: docs/language.md "
        "shows it.",
        "",
        f"{len(TABLE)} instruction forms.",
        "",
        "| opcode | syntax | types | pipe | words | timing class | summary |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in TABLE:
        words = f"{row.words}" + (f" (+{MASK_EXT_WORDS} mask)" if row.has_mask else "")
        types = " ".join(row.types) or "-"
        out.append(f"| 0x{row.opcode:02x} | `{row.syntax}` | {types} | {row.pipe} | {words} | {row.timing} | "
                   f"{row.summary} |")
    for row in TABLE:
        out += ["", f"## {row.mnemonic} ({row.form}), opcode 0x{row.opcode:02x}", "", f"`{row.syntax}`", "",
                row.summary + ".", "", *_example(row), "", "| bits | field | meaning |", "|---|---|---|"]
        operands = {o.name: o for o in row.operands}
        keywords = {k.name: k for k in row.keywords}
        for f in row.fields:
            if f.name == "opcode":
                meaning = f"0x{row.opcode:02x}"
            elif f.name == "type":
                what = "destination type D" if row.source_types else "element type"
                meaning = f"{what} code: " + ", ".join(row.types)
            elif f.name == "source_type":
                meaning = "source type S code: " + ", ".join(row.source_types) + " (the pairs: docs/semantics.md)"
            elif f.name == "condition":
                meaning = "condition: " + ", ".join(f"{i} {c}" for i, c in enumerate(row.conditions))
            elif f.name == "mask_mode":
                meaning = "0 all lanes, 1 mask=N, 2 mask=(LOW, HIGH), 3 count=N; modes 1-3 append 2 mask words"
            elif f.name in operands:
                o = operands[f.name]
                meaning = _KIND_DOC[o.kind]
                if o.kind in (Kind.SRC, Kind.IMM):
                    lo, hi = o.imm_range()
                    meaning += f" (top bit set: Sn in the low 5 bits; else {lo}..{hi})"
            else:
                k = keywords[f.name]
                presence = "; top bit: given" if k.optional else ""
                default = f", default {k.default}" if k.default is not None else (", required" if k.required else "")
                values = ", ".join(f"{i} {c}" for i, c in enumerate(k.choices)) if k.choices else f"{k.lo}..{k.hi}"
                meaning = (f"`{k.name}`: 1 when written, else 0: {k.doc}" if k.flag else
                           f"`{k.name}=` {values}{default}{presence}: {k.doc}")
            out.append(f"| [{f.lo}:{f.hi}) | {f.name} | {meaning} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
