"""The table's self-check, run at import: a malformed table never reaches the rest of vcore."""

from __future__ import annotations

from isa.model import MASK_EXT_WORDS, WORD_BITS, Instruction
from isa.types import TYPES


class TableError(Exception):
    """The instruction table contradicts itself."""


def check_table(table: tuple[Instruction, ...]) -> None:
    opcodes: dict[int, Instruction] = {}
    forms: set[tuple[str, str]] = set()
    for row in table:
        where = f"{row.mnemonic} ({row.form})"
        if not 0 < row.opcode < 256:
            raise TableError(f"{where}: opcode 0x{row.opcode:x} outside 1..255")
        if row.opcode in opcodes:
            raise TableError(f"{where}: opcode 0x{row.opcode:02x} also used by {opcodes[row.opcode].mnemonic}")
        opcodes[row.opcode] = row
        if (row.mnemonic, row.form) in forms:
            raise TableError(f"{where}: two rows with one mnemonic and form")
        forms.add((row.mnemonic, row.form))
        owner: list[str | None] = [None] * (row.words * WORD_BITS)
        for f in row.fields:
            if f.width <= 0 or f.hi > len(owner):
                raise TableError(f"{where}: field {f.name} [{f.lo}:{f.hi}) outside its {row.words} words")
            for bit in range(f.lo, f.hi):
                if owner[bit] is not None:
                    raise TableError(f"{where}: bit {bit} owned by {owner[bit]} and {f.name}")
                owner[bit] = f.name
        if row.words > 3 or row.words + (MASK_EXT_WORDS if row.has_mask else 0) > 5:
            raise TableError(f"{where}: too long")
        names = [o.name for o in row.operands] + [k.name for k in row.keywords]
        if len(set(names)) != len(names):
            raise TableError(f"{where}: duplicate operand or field names")
        for t in row.types:
            if t not in TYPES:
                raise TableError(f"{where}: unknown type {t}")
        for kw in row.keywords:
            if kw.lo > kw.hi:
                raise TableError(f"{where}: field {kw.name} has an empty range")
            span = (-(1 << (kw.bits - 1)), (1 << (kw.bits - 1)) - 1) if kw.signed else (0, (1 << kw.bits) - 1)
            if kw.lo < span[0] or kw.hi > span[1]:
                raise TableError(f"{where}: field {kw.name} range {kw.lo}..{kw.hi} does not fit {kw.bits} bits")
            if kw.default is not None and not kw.lo <= kw.default <= kw.hi:
                raise TableError(f"{where}: default of {kw.name} outside its range")
            if kw.types and not set(kw.types) <= set(row.types):
                raise TableError(f"{where}: field {kw.name} names types the row lacks")
