"""Element types and lane geometry: the names users write after the dot, their codes in the words."""

from __future__ import annotations

from attrs import frozen

VL_BYTES = 256
BLOCK_BYTES = 32
BLOCKS_PER_VL = VL_BYTES // BLOCK_BYTES


@frozen
class ElementType:
    """One element type: its suffix, 4-bit code in the words, byte size and kind."""

    name: str
    code: int
    size: int
    kind: str  # "float", "signed", "unsigned", or "mask" (the PSET/PUPDATE lane widths)

    @property
    def bits(self) -> int:
        return self.size * 8

    @property
    def lanes(self) -> int:
        return VL_BYTES // self.size

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    def int_range(self) -> tuple[int, int]:
        """Inclusive range of the type's integer values (signed or unsigned)."""
        if self.kind == "signed":
            return -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        return 0, (1 << self.bits) - 1


ELEMENT_TYPES: tuple[ElementType, ...] = (
    ElementType("f16", 1, 2, "float"),
    ElementType("bf16", 2, 2, "float"),
    ElementType("f32", 3, 4, "float"),
    ElementType("s8", 4, 1, "signed"),
    ElementType("u8", 5, 1, "unsigned"),
    ElementType("s16", 6, 2, "signed"),
    ElementType("u16", 7, 2, "unsigned"),
    ElementType("s32", 8, 4, "signed"),
    ElementType("u32", 9, 4, "unsigned"),
    ElementType("e4m3", 10, 1, "float"),
    ElementType("e5m2", 11, 1, "float"),
    # Lane widths of the mask setters (PSET.B16 ...): a lane of 1, 2 or 4 bytes.
    ElementType("b8", 12, 1, "mask"),
    ElementType("b16", 13, 2, "mask"),
    ElementType("b32", 14, 4, "mask"),
    # 64-bit integers: scalar memory access (LD.s64, ST.u64) and data directives only.
    ElementType("s64", 15, 8, "signed"),
    ElementType("u64", 0, 8, "unsigned"),
)

TYPES: dict[str, ElementType] = {t.name: t for t in ELEMENT_TYPES}
TYPE_BY_CODE: dict[int, ElementType] = {t.code: t for t in ELEMENT_TYPES}

# Type sets the table refers to by name.
TENSOR_TYPES = ("f16", "bf16", "f32", "s16", "u16", "s32", "u32")
TENSOR_FLOAT = ("f16", "bf16", "f32")
TENSOR_SIGNED = ("f16", "bf16", "f32", "s16", "s32")
REG_INT = ("s8", "u8", "s16", "u16", "s32", "u32")
REG_TYPES = ("f16", "bf16", "f32", *REG_INT)
REG_SIGNED = ("f16", "bf16", "f32", "s8", "s16", "s32")
ALL_DATA = (*REG_TYPES, "e4m3", "e5m2")
GATHER_UB_TYPES = ALL_DATA
GATHER_REG_TYPES = ALL_DATA
SCATTER_TYPES = ("f16", "bf16", "f32", "s16", "u16", "s32", "u32")
MASK_WIDTHS = ("b8", "b16", "b32")
INT_16_32 = ("s16", "u16", "s32", "u32")
# The pack stores' T (CONTRACT 13.1: T is the type in UB, of width 1 or 2; the store keeps a lane's low
# bits whatever they encode, as the 950's Cast stores half results with DIST_PACK_B32)
PACK_STORE_TYPES = ("s8", "u8", "e4m3", "e5m2", "s16", "u16", "f16", "bf16")
INT_DIVIDE = INT_16_32  # VDIV's and VREM's integer types (CONTRACT 13.7: the 950 only; a software sequence there)
# VPACK.D.S and VUNPACK.D.S: their (D, S) pairs (CONTRACT 13.3)
PACK_PAIRS = (("u8", "s16"), ("u8", "u16"), ("u16", "s32"), ("u16", "u32"))
UNPACK_PAIRS = (("s16", "s8"), ("u16", "u8"), ("s32", "s16"), ("u32", "u16"))
DUP_REG_TYPES = REG_TYPES
GATHERMASK_TYPES = (*TENSOR_TYPES, "s8", "u8")  # VGATHERM (CONTRACT 13.4): s8 and u8 on the 950 only
SQUEEZE_TYPES = ALL_DATA  # VSQZ: the data are moved, not computed
SORT_TYPES = ("f16", "f32")  # VSORT32, VMRGSORT: the score's type
ARANGE_TENSOR = ("f16", "f32", "s16", "s32")
ARANGE_REG = ("f16", "bf16", "f32", *INT_16_32)
SCALAR_MEMORY = ("s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64")

# The float formats' parameters (exponent bits, mantissa bits), used to print and parse bit patterns.
FLOAT_FORMATS = {"f16": (5, 10), "bf16": (8, 7), "f32": (8, 23), "e4m3": (4, 3), "e5m2": (5, 2)}
