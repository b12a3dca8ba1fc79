"""The rules of GatherMask, Sort32 and MrgSort (CONTRACT 13.4, 13.6) that the table's fields alone do not
say: which mask GatherMask takes, its pattern stride, Sort32's alignments, MrgSort's queue lengths and its
``repeat=`` form. ``problems`` (``isa.encoding``) adds these, as (slot, message), so that the assembler
and the decoder refuse the same instructions.
"""

from __future__ import annotations

from vcore.isa.model import MaskMode

GATHERMASK_MASK = "VGATHERM takes mask=N (elements per iteration), not a bit mask or count="
FIXED_PATTERN_STRIDE = "src1rep has no effect with a fixed pattern"


def repeat_rule(repeat: int) -> str:
    """The message of a VMRGSORT ``repeat=`` that its queues do not allow (an assembly error or a fault)."""
    return f"VMRGSORT repeat={repeat} needs 4 contiguous queues of equal length and stop=0"


def entries_of(spec, value: int) -> list[int]:
    """A tuple field's entries as encoded: 0..entry_max a constant, entry_max + 1 + n the register Sn."""
    width = spec.bits // spec.entries
    return [value >> (k * width) & ((1 << width) - 1) for k in range(spec.entries)]


def pack_entries(spec, entries: list[int]) -> int:
    width = spec.bits // spec.entries
    return sum(e << (k * width) for k, e in enumerate(entries))


def entry_register(spec, entry: int) -> int | None:
    """The register an encoded entry names (None: a constant)."""
    return entry - spec.entry_max - 1 if entry > spec.entry_max else None


def sort_alignments(inst) -> dict[str, int]:
    """The alignment each UB operand of a sort instruction needs, in bytes, by operand name."""
    if inst.row.op == "sort32":
        return {"dst": 256, "score": 32 * inst.type.size, "index": 128}
    return {"dst": 32, **{o.name: 8 for o in inst.row.operands[1:]}}


def compaction_problems(inst) -> list[tuple[str, str]]:
    row = inst.row
    found: list[tuple[str, str]] = []
    if row.family == "gathermask":
        if inst.mask is not None and inst.mask.mode != MaskMode.CONTINUOUS:
            found.append(("count" if inst.mask.mode == MaskMode.COUNT else "mask", GATHERMASK_MASK))
        if row.form == "tensor-gathermask" and inst.kw("src1rep") is not None:
            found.append(("src1rep", FIXED_PATTERN_STRIDE))
        return found
    if row.family != "sort":
        return found
    for operand, ref in zip(row.operands, inst.operands, strict=True):
        align = sort_alignments(inst)[operand.name]
        if ref.reg is None and ref.offset % align:
            found.append((operand.name, f"{row.mnemonic} {operand.name} address 0x{ref.offset:x} is not aligned to "
                                        f"{align} bytes"))
    if row.op != "mrgsort":
        return found
    spec = row.keyword("len")
    lengths = inst.kw("len")
    if lengths is None:
        return found
    entries = entries_of(spec, lengths)
    if any(e > spec.entry_max + 32 for e in entries):
        return found  # (said by ``problems``)
    repeat = inst.kw("repeat")
    if repeat > 1:
        queues = list(inst.operands[1:])
        constant = all(entry_register(spec, e) is None for e in entries)
        length = entries[0]
        breaks = (len(queues) != 4 or inst.kw("stop") != 0
                  or (constant and any(e != length for e in entries))
                  or (constant and all(q.reg is None for q in queues)
                      and any(q.offset != queues[0].offset + k * length * 8 for k, q in enumerate(queues))))
        if breaks:
            found.append(("repeat", repeat_rule(repeat)))
    return found
