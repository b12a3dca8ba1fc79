"""The vocabulary of the ISA table: operand kinds, keyword fields, bit fields and instruction rows.

Every other part of vcore (assembler, encoder, decoder, disassembler, emulator, docs) reads these
records; nothing here knows about text or execution.
"""

from __future__ import annotations

import enum

from attrs import field, frozen

WORD_BITS = 64


class Kind(enum.Enum):
    """Kinds of positional operand. Each has one encoding, declared once in ``KIND_BITS``."""

    VREG = "vreg"  # V0..V31
    PREG = "preg"  # P0..P7
    SREG = "sreg"  # S0..S31
    UB = "ub"  # [EXPR] | [Sn] | [Sn + EXPR]
    UB_BYTE = "ub_byte"  # the same, any byte address: the operand of a scalar LD / ST
    GM = "gm"  # gm[EXPR] | gm[Sn] | gm[Sn + EXPR]
    SCALAR = "scalar"  # a value of the element type (immediate bits) or Sn
    SRC = "src"  # Sn or a signed immediate (scalar ALU and branch second operand)
    IMM = "imm"  # MOV source: Sn or a signed immediate
    TARGET = "target"  # a label: absolute byte address in the program text
    PIPE = "pipe"  # S | V | MTE2 | MTE3
    BARRIER_PIPE = "barrier_pipe"  # a pipe or ALL
    EVENT = "event"  # 0..7
    PATTERN = "pattern"  # PSET patterns
    CORE = "core"  # BLOCKIDX | BLOCKNUM: the core's block index, the number of cores
    SPR = "spr"  # RSVDCNT | MRGCNT0..3: a special register the scalar unit reads (MOV Sd, RSVDCNT)
    AR = "ar"  # AR: the Squeeze byte count register (MOV Sd, AR; VSQZ's ``ar``)
    FIXED = "fixed"  # a GatherMask fixed pattern 1..7


PIPES = ("S", "V", "MTE2", "MTE3")
BARRIER_PIPES = (*PIPES, "ALL")
CONDITIONS = ("EQ", "NE", "LT", "GT", "LE", "GE")  # VCMP.C.T: src0 C src1
REDUCTIONS = ("SUM", "MAX", "MIN")  # VREDUCE.O.T
HISTOGRAMS = ("FREQ.BIN0", "FREQ.BIN1", "CUM.BIN0", "CUM.BIN1")  # VHIST.K.BINn
# The dotted part a row may take between its mnemonic and its type: its letter in the syntax -> its name.
PARTS = {"C": "condition", "O": "operation", "K.BINn": "histogram mode"}
CORE_VALUES = ("BLOCKIDX", "BLOCKNUM")  # MOV Sd, BLOCKIDX: reserved names, never labels or constants
# Special registers the vector unit writes and the scalar unit reads (MOV Sd, RSVDCNT): reserved names.
SPR_VALUES = ("RSVDCNT", "MRGCNT0", "MRGCNT1", "MRGCNT2", "MRGCNT3")
AR_VALUES = ("AR",)
SPECIAL_REGISTERS = (*SPR_VALUES[:1], *AR_VALUES, *SPR_VALUES[1:])
PATTERNS = ("ALL", "ALLF", "VL1", "VL2", "VL3", "VL4", "VL8", "VL16", "VL32", "VL64", "VL128", "M3", "M4", "H", "Q")

# UB operand: 19 bits. Bit 18 clear: bits [0:18) are an absolute byte address (0..0x3FFFF, the
# largest UB of any profile). Bit 18 set: bits [0:5) name the base register Sn and bits [5:18)
# hold a signed offset counted in units of the operand's alignment: 32-byte datablocks, or a
# distribution mode's alignment (``isa.dist.alignment``: 1 for VLD dist=brc_b8).
UB_BITS = 19
UB_ABS_BITS = 18
UB_OFFSET_BITS = 13
# GM operand: 33 bits. Bit 32 clear: a 32-bit absolute byte address. Bit 32 set: bits [0:5) the
# base register, bits [5:32) a signed 27-bit byte offset.
GM_BITS = 33
GM_ABS_BITS = 32
GM_OFFSET_BITS = 27
# SCALAR operand: 33 bits. Bit 32 set: bits [0:5) name Sn (its low bits read as the element type).
# Bit 32 clear: bits [0:32) hold the immediate's bit pattern in the element type (zero-extended).
SCALAR_BITS = 33
# UB_BYTE operand: the GM operand's layout (bit 32 clear: an absolute byte address; set: Sn and a
# signed 27-bit byte offset), for scalar loads and stores at any address T's size aligns.

KIND_BITS = {
    Kind.VREG: 5,
    Kind.PREG: 3,
    Kind.SREG: 5,
    Kind.UB: UB_BITS,
    Kind.UB_BYTE: GM_BITS,
    Kind.GM: GM_BITS,
    Kind.SCALAR: SCALAR_BITS,
    Kind.TARGET: 24,
    Kind.PIPE: 2,
    Kind.BARRIER_PIPE: 3,
    Kind.EVENT: 3,
    Kind.PATTERN: 4,
    Kind.CORE: 1,
    Kind.SPR: 3,
    Kind.AR: 1,
    Kind.FIXED: 3,
}
# SRC and IMM: one flag bit (set: a register in the low 5 bits) plus a signed immediate whose
# width the row gives (``Operand.imm_bits``).


@frozen
class UbRef:
    """A UB address operand: absolute (``reg is None``) or ``[Sreg + offset]`` (offset in bytes)."""

    reg: int | None
    offset: int


@frozen
class GmRef:
    """A GM address operand: absolute (``reg is None``) or ``gm[Sreg + offset]`` (bytes)."""

    reg: int | None
    offset: int


@frozen
class RegOrImm:
    """A scalar register or an immediate. For SCALAR operands ``imm`` is the element's bit pattern."""

    reg: int | None
    imm: int = 0


@frozen
class Operand:
    """One positional operand of a row."""

    name: str
    kind: Kind
    imm_bits: int = 0  # SRC / IMM only: width of the signed immediate
    writes: bool = False  # the instruction writes this register (a destination)

    @property
    def bits(self) -> int:
        if self.kind in (Kind.SRC, Kind.IMM):
            return 1 + self.imm_bits
        return KIND_BITS[self.kind]

    def imm_range(self) -> tuple[int, int]:
        return -(1 << (self.imm_bits - 1)), (1 << (self.imm_bits - 1)) - 1


@frozen
class Keyword:
    """A ``name=value`` field. ``default`` None with ``required`` False means optional (a presence
    bit in the word); ``preg`` fields take a mask register instead of a number."""

    name: str
    bits: int
    lo: int
    hi: int
    default: int | None = None
    required: bool = False
    preg: bool = False
    sreg: bool = False  # a field that names a scalar register (``cnt=Sn``): the value is n
    types: tuple[str, ...] = ()  # allowed only with these element types (empty: any)
    doc: str = ""
    choices: tuple[str, ...] = ()  # a field written as a name (round=floor): the value is its index
    flag: bool = False  # a field written as its bare name (``, sat``): 1 when written, 0 (its default) when not
    # A field written as a tuple ``len=(L0, L1)``: ``entries`` entries of ``bits // entries`` bits each
    # (entry k at bits k * width), each an expression 0..``entry_max`` or a scalar register (encoded
    # as ``entry_max + 1 + n`` for Sn).
    entries: int = 0
    entry_max: int = 0

    @property
    def optional(self) -> bool:
        return self.default is None and not self.required

    @property
    def encoded_bits(self) -> int:
        return self.bits + (1 if self.optional else 0)

    @property
    def signed(self) -> bool:
        return self.lo < 0


@frozen
class BitField:
    """Bits ``[lo, lo + width)`` of an instruction's bit string (word k holds bits 64k..64k+63)."""

    name: str
    lo: int
    width: int

    @property
    def hi(self) -> int:
        return self.lo + self.width


class MaskMode(enum.IntEnum):
    """The 2-bit mask-mode field of tensor instructions; modes 1-3 append the 128-bit mask words."""

    ALL = 0
    CONTINUOUS = 1
    BITS = 2
    COUNT = 3


MASK_MODE_BITS = 2
MASK_EXT_WORDS = 2


@frozen
class Instruction:
    """One row of the table: everything about one instruction form."""

    mnemonic: str
    form: str  # the operand shape, e.g. "tensor-binary"; tells rows of one mnemonic apart
    opcode: int
    types: tuple[str, ...]
    operands: tuple[Operand, ...]
    keywords: tuple[Keyword, ...]
    pipe: str  # S, V, MTE2, MTE3; "flag" for SETFLAG/WAITFLAG/BARRIER (their operands say)
    timing: str  # timing class the profile prices
    family: str  # semantics family the emulator registers a function for
    op: str  # the operation inside the family (add, exp, gm2ub, ...)
    summary: str
    has_mask: bool = False  # tensor mask / count fields (mask mode + 128-bit extension)
    fields: tuple[BitField, ...] = field(default=())
    words: int = 1  # fixed words before any mask extension
    register: bool = False  # a register (vector-function) instruction: runs only where the profile has them
    structure: bool = False  # VF.BEGIN, VF.END, LOOP, ENDLOOP, MEMBAR: the shape of a vector function
    # Rows with two types (VCONV.D.S, VPACK.D.S, VUNPACK.D.S): ``types`` are the destination types D,
    # these the source types S, encoded in a second type field; ``pairs`` are the (D, S) pairs that
    # exist (VCONV's: ``isa.conversions.PAIRS``).
    source_types: tuple[str, ...] = ()
    pairs: tuple[tuple[str, str], ...] = ()
    # VCMP.C.T: the conditions C written between the mnemonic and the type, encoded in a 3-bit field;
    # VREDUCE.O.T: the operations O, in the same place (``part`` names which: a ``PARTS`` key); a row
    # without a type writes both dotted parts as its condition (VHIST.K.BINn: ``FREQ.BIN0``).
    conditions: tuple[str, ...] = ()
    part: str = "C"
    # A complete use of the instruction, as a program writes it (``isa.examples.program`` frames a
    # register instruction's in a vector function); the tests that cover every row run these.
    example: str = ""
    # Whether its arithmetic is the element kernel of its op (``emulator.arith.numerics``): not where the
    # shape builds it from the type pair, the condition or the selector bits.
    kernel: bool = True
    # The ``elements_per_cycle`` entry that prices an element type's lanes where it is not the op's
    # (the 950's f32 add: ``float32_add``), as (type, entry) pairs.
    type_rates: tuple[tuple[str, str], ...] = ()
    # Two operands (by name) that must name different registers (two destinations: PINTLV's Pd0, Pd1).
    distinct: tuple[str, ...] = ()
    # Types the assembler refuses with a reason of their own, as (type, message) pairs: VTRANS5HD's
    # 32-bit layout is documented only by a figure.
    refused: tuple[tuple[str, str], ...] = ()

    def rate_of(self, type_name: str) -> str:
        """The ``elements_per_cycle`` entry that prices this row's lanes of ``type_name``."""
        for name, entry in self.type_rates:
            if name == type_name:
                return entry
        return self.op

    @property
    def part_word(self) -> str:
        """What the dotted part between mnemonic and type is called in messages."""
        return PARTS[self.part]

    @property
    def typed(self) -> bool:
        return bool(self.types)

    def keyword(self, name: str) -> Keyword | None:
        for kw in self.keywords:
            if kw.name == name:
                return kw
        return None

    def field(self, name: str) -> BitField:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    @property
    def syntax(self) -> str:
        """The assembly syntax, generated for the docs and for diagnostics."""
        head = self.mnemonic + (f".{self.part}" if self.conditions else "") + (".D.S" if self.source_types else
                                                                   ".T" if self.typed else "")
        shapes = {
            Kind.VREG: "Vn",
            Kind.PREG: "Pn",
            Kind.SREG: "Sn",
            Kind.UB: "[ub]",
            Kind.UB_BYTE: "[ub]",
            Kind.GM: "gm[addr]",
            Kind.SCALAR: "SCALAR|Sn",
            Kind.SRC: "Sn|EXPR",
            Kind.IMM: "EXPR|Sn",
            Kind.TARGET: "label",
            Kind.PIPE: "PIPE",
            Kind.BARRIER_PIPE: "PIPE|ALL",
            Kind.EVENT: "EVENT",
            Kind.PATTERN: "PATTERN",
            Kind.CORE: "BLOCKIDX|BLOCKNUM",
            Kind.SPR: "RSVDCNT|MRGCNT0..3",
            Kind.AR: "AR",
            Kind.FIXED: "PATTERN",
        }
        parts = [f"{shapes[o.kind]}" if o.kind in (Kind.UB, Kind.GM) else f"{o.name}:{shapes[o.kind]}"
                 for o in self.operands]
        for kw in self.keywords:
            value = ("Pn" if kw.preg else "Sn" if kw.sreg else "MODE" if kw.name == "dist"
                     else "|".join(kw.choices) if kw.choices else "N")
            if kw.entries:
                value = "(" + ", ".join(f"L{k}" for k in range(kw.entries)) + ")"
            written = kw.name if kw.flag else f"{kw.name}={value}"
            parts.append(written if kw.required else f"[{written}]")
        if self.has_mask:
            parts += ["[mask=N|(LOW,HIGH)]", "[count=N]"]
        return head + (" " + ", ".join(parts) if parts else "")
