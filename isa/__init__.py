"""vcore's instruction set: one declarative table and everything derived from it.

``TABLE`` lists every instruction form; ``encode``/``decode`` turn ``Inst`` values into 64-bit words
and back. The table checks itself when this package is imported. Nothing here imports the rest of
vcore.
"""

from vcore.isa.check import TableError, check_table
from vcore.isa.encoding import BY_OPCODE, DecodeError, Inst, Mask, decode, decode_program, encode, problems
from vcore.isa.model import (
    BARRIER_PIPES,
    CORE_VALUES,
    PATTERNS,
    PIPES,
    GmRef,
    Instruction,
    Keyword,
    Kind,
    MaskMode,
    Operand,
    RegOrImm,
    UbRef,
)
from vcore.isa.table import TABLE
from vcore.isa.types import BLOCK_BYTES, TYPES, VL_BYTES, ElementType

check_table(TABLE)

MNEMONICS: dict[str, tuple[Instruction, ...]] = {}
for _row in TABLE:
    MNEMONICS[_row.mnemonic] = (*MNEMONICS.get(_row.mnemonic, ()), _row)
del _row

__all__ = [
    "BARRIER_PIPES", "BLOCK_BYTES", "BY_OPCODE", "CORE_VALUES", "MNEMONICS", "PATTERNS", "PIPES", "TABLE", "TYPES",
    "VL_BYTES",
    "DecodeError", "ElementType", "GmRef", "Inst", "Instruction", "Keyword", "Kind", "Mask", "MaskMode", "Operand",
    "RegOrImm", "TableError", "UbRef", "check_table", "decode", "decode_program", "encode", "problems",
]
