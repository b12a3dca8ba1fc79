"""Instruction values and their binary words: validate, encode, decode.

``Inst`` is what the assembler builds and the decoder returns; ``encode`` and ``decode`` are exact
inverses over every ``Inst`` that ``problems`` accepts, and ``decode`` accepts nothing else.
"""

from __future__ import annotations

from attrs import frozen

from vcore.isa import dist
from vcore.isa.compaction import compaction_problems, entries_of
from vcore.isa.conversions import ROUND_MODES, pair_problem
from vcore.isa.model import (
    AR_VALUES,
    BARRIER_PIPES,
    CORE_VALUES,
    GM_ABS_BITS,
    GM_OFFSET_BITS,
    MASK_EXT_WORDS,
    PATTERNS,
    PIPES,
    SPR_VALUES,
    UB_ABS_BITS,
    UB_OFFSET_BITS,
    WORD_BITS,
    GmRef,
    Instruction,
    Kind,
    MaskMode,
    Operand,
    RegOrImm,
    UbRef,
)
from vcore.isa.table import TABLE
from vcore.isa.types import BLOCK_BYTES, TYPE_BY_CODE, ElementType

WORD_MASK = (1 << WORD_BITS) - 1
BY_OPCODE: dict[int, Instruction] = {row.opcode: row for row in TABLE}


class DecodeError(Exception):
    """Words that are not a valid instruction. ``pc`` is the byte offset of the offending word."""

    def __init__(self, pc: int, message: str) -> None:
        super().__init__(f"pc 0x{pc:x}: {message}")
        self.pc = pc
        self.message = message


@frozen
class Mask:
    """The mask of a tensor instruction: ``low`` holds N for CONTINUOUS and COUNT modes."""

    mode: MaskMode
    low: int = 0
    high: int = 0


@frozen
class Inst:
    """One instruction: its row, element type, operand values, keyword values and mask."""

    row: Instruction
    type: ElementType | None
    operands: tuple
    keywords: tuple  # one value per ``row.keywords`` entry (None: an absent optional field)
    mask: Mask | None = None
    source: ElementType | None = None  # VCONV.D.S: S (``type`` is D)
    cond: str | None = None  # VCMP.C.T's C or VREDUCE.O.T's O: one of the row's ``conditions``

    def kw(self, name: str):
        for spec, value in zip(self.row.keywords, self.keywords, strict=True):
            if spec.name == name:
                return value
        raise KeyError(name)

    @property
    def words(self) -> int:
        extra = MASK_EXT_WORDS if self.mask is not None and self.mask.mode != MaskMode.ALL else 0
        return self.row.words + extra

    @property
    def size(self) -> int:
        """Bytes this instruction occupies in the program text."""
        return self.words * 8

    @property
    def lanes(self) -> int:
        """Lanes of an iteration (or of a register): those of the wider type for a conversion."""
        if self.type is None:
            return 0
        return self.type.lanes if self.source is None else min(self.type.lanes, self.source.lanes)

    @property
    def round_mode(self) -> str | None:
        """VCONV's ``round=`` as a name (None when it was left out)."""
        value = self.kw("round")
        return None if value is None else ROUND_MODES[value]


def _fits_signed(value: int, bits: int) -> bool:
    return -(1 << (bits - 1)) <= value < (1 << (bits - 1))


def operand_problem(operand: Operand, value, etype: ElementType | None, unit: int = BLOCK_BYTES) -> str | None:
    """Why ``value`` cannot be this operand, or None. Shared by the assembler and the decoder. ``unit``: the
    alignment of a UB operand, the unit of an ``[Sn + EXPR]`` offset in the words (``isa.dist.alignment``)."""
    kind = operand.kind
    if kind is Kind.VREG:
        return None if isinstance(value, int) and 0 <= value < 32 else "vector register must be V0..V31"
    if kind is Kind.PREG:
        return None if isinstance(value, int) and 0 <= value < 8 else "mask register must be P0..P7"
    if kind is Kind.SREG:
        return None if isinstance(value, int) and 0 <= value < 32 else "scalar register must be S0..S31"
    if kind is Kind.UB:
        if value.reg is None:
            top = (1 << UB_ABS_BITS) - 1
            return None if 0 <= value.offset <= top else f"UB address {value.offset} out of range 0..0x{top:x}"
        if value.offset % unit:
            return (f"offset {value.offset} from a register must be a multiple of {BLOCK_BYTES} (datablocks)"
                    if unit == BLOCK_BYTES else f"offset {value.offset} from a register must be a multiple of "
                                                f"{unit} (the mode's alignment)")
        limit = (1 << (UB_OFFSET_BITS - 1)) * unit
        if not -limit <= value.offset < limit:
            return f"UB offset {value.offset} out of range {-limit}..{limit - unit}"
        return None
    if kind in (Kind.GM, Kind.UB_BYTE):  # one layout; a UB byte address is at most UB's largest size
        space = "GM" if kind is Kind.GM else "UB"
        if value.reg is None:
            top = (1 << (GM_ABS_BITS if kind is Kind.GM else UB_ABS_BITS)) - 1
            return None if 0 <= value.offset <= top else f"{space} address {value.offset} out of range 0..0x{top:x}"
        if not _fits_signed(value.offset, GM_OFFSET_BITS):
            return f"{space} offset {value.offset} out of range of a signed {GM_OFFSET_BITS}-bit number"
        return None
    if kind is Kind.SCALAR:
        if value.reg is not None:
            return None
        assert etype is not None
        return None if 0 <= value.imm < (1 << etype.bits) else f"immediate does not fit {etype.name}"
    if kind in (Kind.SRC, Kind.IMM):
        if value.reg is not None:
            return None
        lo, hi = operand.imm_range()
        return None if lo <= value.imm <= hi else f"immediate {value.imm} out of range {lo}..{hi}"
    if kind is Kind.TARGET:
        top = (1 << operand.bits) - 1
        if not 0 <= value <= top or value % 8:
            return f"branch target {value} must be a multiple of 8 in 0..{top}"
        return None
    if kind is Kind.PIPE:
        return None if value in PIPES else "pipe must be one of " + ", ".join(PIPES)
    if kind is Kind.BARRIER_PIPE:
        return None if value in BARRIER_PIPES else "pipe must be one of " + ", ".join(BARRIER_PIPES)
    if kind is Kind.EVENT:
        return None if isinstance(value, int) and 0 <= value < 8 else "event must be 0..7"
    if kind is Kind.PATTERN:
        return None if value in PATTERNS else "pattern must be one of " + ", ".join(PATTERNS)
    if kind is Kind.CORE:
        return None if value in CORE_VALUES else "expected " + " or ".join(CORE_VALUES)
    if kind is Kind.SPR:
        return None if value in SPR_VALUES else "expected " + ", ".join(SPR_VALUES)
    if kind is Kind.AR:
        return None if value in AR_VALUES else "expected AR"
    if kind is Kind.FIXED:
        return None if isinstance(value, int) and 1 <= value <= 7 else f"pattern {value} out of range 1..7"
    raise AssertionError(kind)


def problems(inst: Inst) -> list[tuple[str, str]]:
    """Every rule of the language (ranges, types, masks, field combinations) that ``inst`` breaks,
    as (slot name, message).

    The slot is an operand or keyword name, ``type``, ``mask`` or ``count``; the assembler turns it
    into a source location, the decoder into a decode error.
    """
    row, etype = inst.row, inst.type
    found: list[tuple[str, str]] = []
    if row.typed and (etype is None or etype.name not in row.types):
        found.append(("type", f"{row.mnemonic} takes the types " + ", ".join(row.types)))
        return found
    if bool(row.source_types) != (inst.source is not None):
        return [("type", f"{row.mnemonic} needs two types, {row.mnemonic}.D.S" if row.source_types
                 else f"{row.mnemonic} takes one type")]
    if bool(row.conditions) != (inst.cond is not None) or (inst.cond is not None and inst.cond not in row.conditions):
        return [("condition", f"{row.mnemonic} needs a {row.part_word}: " + ", ".join(row.conditions)
                 if row.conditions else f"{row.mnemonic} takes no condition")]
    if len(inst.operands) != len(row.operands) or len(inst.keywords) != len(row.keywords):
        return [("type", f"{row.mnemonic} takes {len(row.operands)} operands and {len(row.keywords)} fields")]
    if inst.mask is not None and (not row.has_mask or inst.mask.mode == MaskMode.ALL):
        found.append(("mask", f"{row.mnemonic} takes no mask" if not row.has_mask else "an all-lanes mask is "
                              "written by leaving mask= out"))
        return found
    mode_problem = _mode_problem(inst)
    if mode_problem:
        return [mode_problem]
    unit = dist.alignment(inst)
    for operand, value in zip(row.operands, inst.operands, strict=True):
        if operand.kind in (Kind.SCALAR, Kind.SRC, Kind.IMM) and value.reg is not None and value.imm:
            found.append((operand.name, "a register operand carries no immediate"))
            continue
        message = operand_problem(operand, value, etype, unit)
        if message:
            found.append((operand.name, message))
    for spec, value in zip(row.keywords, inst.keywords, strict=True):
        if value is None:
            if spec.required:
                found.append((spec.name, f"field {spec.name}= is required"))
            continue
        if spec.types and (etype is None or etype.name not in spec.types):
            found.append((spec.name, f"field {spec.name}= needs type " + " or ".join(spec.types)))
        elif spec.entries and spec.lo <= value <= spec.hi:
            found += [(spec.name, f"{spec.name}: entry {k} is neither 0..{spec.entry_max} nor a register S0..S31")
                      for k, e in enumerate(entries_of(spec, value)) if e > spec.entry_max + 32][:1]
        elif not spec.lo <= value <= spec.hi:
            what = "mask register" if spec.preg else "scalar register" if spec.sreg else "value"
            found.append((spec.name, f"{spec.name}: {what} {value} out of range {spec.lo}..{spec.hi}"))
    if row.distinct:
        first, second = (inst.operands[[o.name for o in row.operands].index(name)] for name in row.distinct)
        if first == second:
            mode = dist.mode_of(inst)
            found.append((row.distinct[1], f"{row.mnemonic}{f' dist={mode.name}' if mode else ''} needs two "
                                           f"different destination registers"))
    found += _placement_problems(inst)
    if row.pairs and not any(name == "round" for name, _ in found):  # (round= past the modes: said)
        found += _pair_problems(inst)
    if row.family in ("ld", "st"):
        ref = inst.operands[1 if row.family == "ld" else 0]
        if ref.reg is None and ref.offset % etype.size:
            found.append(("addr", f"address 0x{ref.offset:x} is not aligned to {etype.size} bytes "
                                  f"(the size of {etype.name})"))
    if row.form == "scalar-mov-wide":  # the two-word MOV is for constants past the one-word form's 50 bits
        src = inst.operands[1]
        if src.reg is not None or _fits_signed(src.imm, 50):
            found.append(("src", "a register or a constant that fits 50 bits takes the one-word MOV"))
    if row.keyword("post") is not None and inst.kw("post") != 0:
        base = next(v for o, v in zip(row.operands, inst.operands, strict=True) if o.kind is Kind.UB)
        if base.reg is None:
            found.append(("post", "post= needs a register base [Sn]"))
    found += compaction_problems(inst)
    if inst.mask is not None and not (row.family == "gathermask" and inst.mask.mode != MaskMode.CONTINUOUS):
        found += _mask_problems(inst.mask, inst.lanes, etype.name if inst.source is None else
                                f"{etype.name}.{inst.source.name}")
        if inst.mask.mode == MaskMode.COUNT and inst.kw("repeat") != 1:
            found.append(("count", "count= cannot be combined with repeat="))
    return found


def _mode_problem(inst: Inst) -> tuple[str, str] | None:
    """A ``dist=`` family that has no mode of the instruction's T width (words only: the assembler names the
    mode as written first)."""
    spec = inst.row.keyword("dist")
    if spec is None or inst.kw("dist") is None or not 0 <= inst.kw("dist") <= spec.hi:
        return None
    if dist.mode_of(inst) is None:
        family = spec.choices[inst.kw("dist")]
        widths = sorted({m.width for m in dist.MODES if m.mnemonic == inst.row.mnemonic and m.family == family})
        return "dist", (f"dist={family} has no mode of {inst.type.bits}-bit elements (it has "
                        + ", ".join(f"{8 * w}-bit" for w in widths) + ")")
    return None


def _placement_problems(inst: Inst) -> list[tuple[str, str]]:
    """A distribution mode's alignment rules on a constant address and on ``post=`` (CONTRACT 13.1); the
    default mode (norm) keeps section 2.2's rules: its misaligned addresses fault when they are used."""
    mode = dist.mode_of(inst)
    if mode is None or mode.name == "norm":
        return []
    found = []
    ref = next(v for o, v in zip(inst.row.operands, inst.operands, strict=True) if o.kind is Kind.UB)
    what = f"{inst.row.mnemonic} dist={mode.name}"
    if inst.row.keyword("blk") is not None and inst.kw("blk") is not None:
        found.append(("blk", f"blk= is valid only with dist=norm, not with {what}"))
    if ref.reg is None and ref.offset % mode.align:
        found.append(("addr", f"{what} needs a {mode.align}-byte aligned address; 0x{ref.offset:X} is not"))
    post = inst.kw("post") if inst.row.keyword("post") is not None else None
    if post and (post * inst.type.size) % mode.align:
        found.append(("post", f"{what} needs a post= step of a multiple of {mode.align} bytes; post={post} "
                              f"moves {post * inst.type.size}"))
    return found


def pairs_problem(row: Instruction, dst: str, src: str) -> str | None:
    """Why ``row``.dst.src is not one of the row's type pairs, naming those it has, or None. A conversion
    names the sources of its D (``isa.conversions.pair_problem``), VPACK and VUNPACK all their pairs."""
    if (dst, src) in row.pairs:
        return None
    if row.keyword("round") is not None:  # a conversion
        return pair_problem(dst, src, None)[1]
    listed = ", ".join(f"{row.mnemonic}.{d}.{s}" for d, s in row.pairs)
    return f"{row.mnemonic} has no pair {dst}.{src} (destination {dst}, source {src}): its pairs are {listed}"


def _pair_problems(inst: Inst) -> list[tuple[str, str]]:
    """A row with two types: its pair, and a conversion's ``round=`` and ``part=`` for that pair."""
    dst, src = inst.type.name, inst.source.name
    if inst.row.keyword("round") is None:
        found = pairs_problem(inst.row, dst, src)
        return [] if found is None else [("source_type", found)]
    found = pair_problem(dst, src, inst.round_mode)
    if found is not None:
        return [found]
    part = inst.kw("part") if inst.row.keyword("part") is not None else None
    if part is not None:
        k = max(inst.type.size, inst.source.size) // min(inst.type.size, inst.source.size)
        if part >= k:
            narrow = dst if inst.type.size < inst.source.size else src
            what = "the same size" if k == 1 else f"{k} {narrow} elements to a lane"
            return [("part", f"part={part}: VCONV.{dst}.{src} has {what}, so part is 0" +
                     (f"..{k - 1}" if k > 1 else ""))]
    return []


def _mask_problems(mask: Mask, lanes: int, what: str) -> list[tuple[str, str]]:
    if mask.mode == MaskMode.CONTINUOUS:
        if mask.high or not 1 <= mask.low <= lanes:
            return [("mask", f"mask={mask.low}: continuous mask must be 1..{lanes} for {what}")]
    elif mask.mode == MaskMode.BITS:
        if not 0 <= mask.low < 1 << 64 or not 0 <= mask.high < 1 << 64:
            return [("mask", "mask words must be 64-bit unsigned values")]
        if mask.low == 0 and mask.high == 0:
            return [("mask", "a mask of 0 selects no lane")]
        if lanes == 64 and mask.high:
            return [("mask", f"HIGH must be 0 for the 64 lanes of {what}")]
    elif mask.mode == MaskMode.COUNT and (mask.high or not 1 <= mask.low < 1 << 32):
        return [("count", f"count={mask.low} out of range 1..{(1 << 32) - 1}")]
    return []


def _operand_raw(operand: Operand, value, unit: int) -> int:
    kind = operand.kind
    if kind is Kind.UB:
        if value.reg is None:
            return value.offset
        blocks = (value.offset // unit) & ((1 << UB_OFFSET_BITS) - 1)
        return 1 << UB_ABS_BITS | blocks << 5 | value.reg
    if kind in (Kind.GM, Kind.UB_BYTE):
        if value.reg is None:
            return value.offset
        return 1 << GM_ABS_BITS | (value.offset & ((1 << GM_OFFSET_BITS) - 1)) << 5 | value.reg
    if kind is Kind.SCALAR:
        return 1 << 32 | value.reg if value.reg is not None else value.imm
    if kind in (Kind.SRC, Kind.IMM):
        if value.reg is not None:
            return 1 << operand.imm_bits | value.reg
        return value.imm & ((1 << operand.imm_bits) - 1)
    if kind is Kind.PIPE:
        return PIPES.index(value)
    if kind is Kind.BARRIER_PIPE:
        return BARRIER_PIPES.index(value)
    if kind is Kind.PATTERN:
        return PATTERNS.index(value)
    if kind is Kind.CORE:
        return CORE_VALUES.index(value)
    if kind is Kind.SPR:
        return SPR_VALUES.index(value)
    if kind is Kind.AR:
        return 0
    return value


def _signed(raw: int, bits: int) -> int:
    return raw - (1 << bits) if raw >> (bits - 1) else raw


@frozen
class _Bad:
    """Why raw operand bits are not a canonical encoding."""

    why: str


def _operand_value(operand: Operand, raw: int, unit: int):
    """The value behind raw operand bits, or a ``_Bad`` saying why the bits are not canonical (``unit``: a
    UB offset's, ``isa.dist.alignment``)."""
    kind = operand.kind
    if kind is Kind.UB:
        if raw >> UB_ABS_BITS:
            return UbRef(raw & 31, _signed((raw >> 5) & ((1 << UB_OFFSET_BITS) - 1), UB_OFFSET_BITS) * unit)
        return UbRef(None, raw)
    if kind in (Kind.GM, Kind.UB_BYTE):
        ref = GmRef if kind is Kind.GM else UbRef
        if raw >> GM_ABS_BITS:
            return ref(raw & 31, _signed(raw >> 5 & ((1 << GM_OFFSET_BITS) - 1), GM_OFFSET_BITS))
        return ref(None, raw)
    if kind is Kind.SCALAR:
        if raw >> 32:
            return RegOrImm(raw & 31) if not (raw & ((1 << 32) - 1)) >> 5 else _Bad("reserved scalar bits set")
        return RegOrImm(None, raw)
    if kind in (Kind.SRC, Kind.IMM):
        bits = operand.imm_bits
        if raw >> bits:
            return RegOrImm(raw & 31) if not (raw & ((1 << bits) - 1)) >> 5 else _Bad("reserved register bits set")
        return RegOrImm(None, _signed(raw, bits))
    if kind is Kind.PIPE:
        return PIPES[raw]
    if kind is Kind.BARRIER_PIPE:
        return BARRIER_PIPES[raw] if raw < len(BARRIER_PIPES) else _Bad("pipe code out of range")
    if kind is Kind.PATTERN:
        return PATTERNS[raw] if raw < len(PATTERNS) else _Bad("pattern code out of range")
    if kind is Kind.CORE:
        return CORE_VALUES[raw]
    if kind is Kind.SPR:
        return SPR_VALUES[raw] if raw < len(SPR_VALUES) else _Bad("special register code out of range")
    if kind is Kind.AR:
        return "AR" if raw == 0 else _Bad("reserved bit set")
    return raw


def encode(inst: Inst) -> list[int]:
    """The 64-bit words of a valid instruction (``problems(inst)`` must be empty)."""
    row = inst.row
    bits = row.opcode
    if row.typed:
        bits |= inst.type.code << row.field("type").lo
    if row.source_types:
        bits |= inst.source.code << row.field("source_type").lo
    if row.conditions:
        bits |= row.conditions.index(inst.cond) << row.field("condition").lo
    unit = dist.alignment(inst)
    for operand, value in zip(row.operands, inst.operands, strict=True):
        bits |= _operand_raw(operand, value, unit) << row.field(operand.name).lo
    for spec, value in zip(row.keywords, inst.keywords, strict=True):
        if value is None or not spec.encoded_bits:
            continue
        raw = value & ((1 << spec.bits) - 1)
        if spec.optional:
            raw |= 1 << spec.bits
        bits |= raw << row.field(spec.name).lo
    if row.has_mask:
        mode = inst.mask.mode if inst.mask is not None else MaskMode.ALL
        bits |= int(mode) << row.field("mask_mode").lo
        if mode != MaskMode.ALL:
            bits |= (inst.mask.low | inst.mask.high << 64) << (row.words * WORD_BITS)
    return [(bits >> (WORD_BITS * k)) & WORD_MASK for k in range(inst.words)]


def _unit_of(row: Instruction, etype: ElementType | None, keywords: list) -> int:
    """The unit of a UB offset in the words of a row with these keyword values (its mode's alignment)."""
    spec = row.keyword("dist")
    if spec is None:
        return BLOCK_BYTES
    value = keywords[row.keywords.index(spec)]
    if value is None or not 0 <= value < len(spec.choices):
        return BLOCK_BYTES
    return dist.alignment(Inst(row, etype, (), tuple(keywords)))


def decode(words, index: int = 0) -> Inst:
    """Decode the instruction starting at ``words[index]`` (a sequence of ints)."""
    pc = index * 8
    if index >= len(words):
        raise DecodeError(pc, "program text ends inside an instruction")
    row = BY_OPCODE.get(words[index] & 0xFF)
    if row is None:
        raise DecodeError(pc, f"unknown opcode 0x{words[index] & 0xFF:02x}")
    if index + row.words > len(words):
        raise DecodeError(pc, f"program text ends inside {row.mnemonic}")
    bits = 0
    for k in range(row.words):
        bits |= int(words[index + k]) << (WORD_BITS * k)

    def take(name: str) -> int:
        f = row.field(name)
        return (bits >> f.lo) & ((1 << f.width) - 1)

    used = sum(f.width for f in row.fields)
    if bits >> used:
        raise DecodeError(pc, f"{row.mnemonic}: reserved bits set")
    etype = None
    if row.typed:
        etype = TYPE_BY_CODE.get(take("type"))
        if etype is None or etype.name not in row.types:
            raise DecodeError(pc, f"{row.mnemonic}: type code {take('type')} not allowed")
    source = cond = None
    if row.source_types:
        source = TYPE_BY_CODE.get(take("source_type"))
        if source is None or source.name not in row.source_types:
            raise DecodeError(pc, f"{row.mnemonic}: source type code {take('source_type')} not allowed")
    if row.conditions:
        if take("condition") >= len(row.conditions):
            raise DecodeError(pc, f"{row.mnemonic}: {row.part_word} code {take('condition')} out of range")
        cond = row.conditions[take("condition")]
    keywords = []
    for spec in row.keywords:
        if not spec.encoded_bits:  # a field of one choice: always that one
            keywords.append(0)
            continue
        raw = take(spec.name)
        if spec.optional:
            if not raw >> spec.bits:
                if raw:
                    raise DecodeError(pc, f"{row.mnemonic}: bits of absent field {spec.name} set")
                keywords.append(None)
                continue
            raw &= (1 << spec.bits) - 1
        keywords.append(_signed(raw, spec.bits) if spec.signed else raw)
    unit = _unit_of(row, etype, keywords)
    operands = []
    for operand in row.operands:
        value = _operand_value(operand, take(operand.name), unit)
        if isinstance(value, _Bad):
            raise DecodeError(pc, f"{row.mnemonic} {operand.name}: {value.why}")
        operands.append(value)
    mask = None
    if row.has_mask:
        mode = MaskMode(take("mask_mode"))
        if mode != MaskMode.ALL:
            if index + row.words + MASK_EXT_WORDS > len(words):
                raise DecodeError(pc, f"program text ends inside the mask words of {row.mnemonic}")
            mask = Mask(mode, int(words[index + row.words]), int(words[index + row.words + 1]))
    inst = Inst(row, etype, tuple(operands), tuple(keywords), mask, source, cond)
    found = problems(inst)
    if found:
        raise DecodeError(pc, f"{row.mnemonic}: {found[0][1]}")
    return inst


def decode_program(words) -> list[tuple[int, Inst]]:
    """Every instruction of a program text, as (pc, Inst)."""
    out = []
    index = 0
    while index < len(words):
        inst = decode(words, index)
        out.append((index * 8, inst))
        index += inst.words
    return out
