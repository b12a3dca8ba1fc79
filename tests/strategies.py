"""Hypothesis strategies for vcore's ISA: valid ``isa.Inst`` values of any row, programs and data records.

Written from docs/encoding.md and shared/CONTRACT.md section 2 (operand ranges, keyword ranges, mask
modes), not from the encoder: every generated value is a canonical instruction, i.e. exactly what
the assembler builds and the decoder returns (absent mask = ``None``, a register operand carries
``imm=0``). Instances that ``isa.problems`` rejects are filtered out, but the generators are built
so that this rarely happens (the only rule they do not encode up front is ``post=`` needing a
register base, which they handle by construction too).

Register instructions and the vector-function structure (VF.BEGIN, VF.END, LOOP, ENDLOOP, MEMBAR)
are valid only in context (CONTRACT section 7): ``in_context`` puts one instruction's text or words in
the smallest program that holds it validly and says where the instruction itself is; ``programs``
builds whole programs whose register instructions sit inside functions; ``function_problems`` is an
independent reading of section 7 that says whether decoded words keep the rules.

Import from a test with::

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import strategies
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence

from attrs import evolve, frozen
from hypothesis import strategies as st

from vcore import isa
from vcore.isa import BARRIER_PIPES, CORE_VALUES, PATTERNS, PIPES, GmRef, Inst, Kind, Mask, MaskMode, RegOrImm, UbRef
from vcore.isa import dist as modes
from vcore.isa.compaction import pack_entries, sort_alignments
from vcore.isa.conversions import EXACT_PAIRS, ODD_PAIRS
from vcore.isa.model import SPR_VALUES
from vcore.isa.program import DataRecord, Program
from vcore.isa.text import inst_text
from vcore.isa.types import SCALAR_MEMORY, TYPES

U64 = (1 << 64) - 1
U32 = (1 << 32) - 1

# Element types a data directive may name (the mask widths b8/b16/b32 are not data).
DATA_TYPES = tuple(name for name, t in TYPES.items() if t.kind != "mask")


def edgy_int(lo: int, hi: int) -> st.SearchStrategy[int]:
    """An integer in lo..hi with the extremes (and 0, +-1 when inside) drawn often."""
    specials = sorted({v for v in (lo, hi, lo + 1, hi - 1, 0, 1, -1) if lo <= v <= hi})
    return st.one_of(st.sampled_from(specials), st.integers(lo, hi))


# -- element bit patterns -----------------------------------------------------------------------

# (exponent bits, mantissa bits) of the float formats, from the contract's type list.
_FLOAT_LAYOUT = {"f16": (5, 10), "bf16": (8, 7), "f32": (8, 23), "e4m3": (4, 3), "e5m2": (5, 2)}


def _float_specials(name: str) -> list[int]:
    """Bit patterns worth hitting for a float type: +-0, +-inf, NaNs (quiet, signalling, payload),
    smallest and largest subnormal, smallest normal, largest finite, one."""
    e, m = _FLOAT_LAYOUT[name]
    bits = 1 + e + m
    sign = 1 << (bits - 1)
    exp_all = ((1 << e) - 1) << m
    out = {0, sign, 1, (1 << m) - 1, 1 << m, sign | 1}
    if name == "e4m3":
        # e4m3fn: no inf; S.1111.111 is the only NaN; S.1111.110 = 448 is the largest finite.
        out |= {0x7F, 0xFF, 0x7E, 0xFE}
    else:
        out |= {exp_all, sign | exp_all,  # +-inf
                exp_all | (1 << (m - 1)), sign | exp_all | (1 << (m - 1)),  # quiet NaN
                exp_all | 1, exp_all | ((1 << m) - 1), sign | exp_all | 1,  # signalling / payload NaN
                exp_all - 1}  # largest finite
    out.add(((1 << (e - 1)) - 1) << m)  # 1.0
    return sorted(v & ((1 << bits) - 1) for v in out)


def element_bits(type_name: str) -> st.SearchStrategy[int]:
    """Any bit pattern of one element of the type, with the interesting ones drawn often."""
    t = TYPES[type_name]
    top = (1 << t.bits) - 1
    if t.is_float:
        return st.one_of(st.sampled_from(_float_specials(type_name)), st.integers(0, top))
    return st.one_of(st.sampled_from(sorted({0, 1, top, top >> 1, (top >> 1) + 1})), st.integers(0, top))


# -- operands -----------------------------------------------------------------------------------

def ub_operand() -> st.SearchStrategy[UbRef]:
    """``[addr]`` (byte address 0..0x3FFFF) or ``[Sn + off]`` (off a multiple of 32 in -131072..131040)."""
    absolute = st.builds(UbRef, st.none(), edgy_int(0, 0x3FFFF))
    based = st.builds(UbRef, edgy_int(0, 31), edgy_int(-4096, 4095).map(lambda b: b * 32))
    return st.one_of(absolute, based)


def gm_operand() -> st.SearchStrategy[GmRef]:
    """``gm[addr]`` (32-bit address) or ``gm[Sn + off]`` (signed 27-bit byte offset)."""
    absolute = st.builds(GmRef, st.none(), edgy_int(0, U32))
    based = st.builds(GmRef, edgy_int(0, 31), edgy_int(-(1 << 26), (1 << 26) - 1))
    return st.one_of(absolute, based)


def reg_or_imm(imm_bits: int) -> st.SearchStrategy[RegOrImm]:
    lo, hi = -(1 << (imm_bits - 1)), (1 << (imm_bits - 1)) - 1
    return st.one_of(st.builds(RegOrImm, edgy_int(0, 31)), st.builds(RegOrImm, st.none(), edgy_int(lo, hi)))


def scalar_operand(type_name: str) -> st.SearchStrategy[RegOrImm]:
    return st.one_of(st.builds(RegOrImm, edgy_int(0, 31)), st.builds(RegOrImm, st.none(), element_bits(type_name)))


def branch_target(program_bytes: int | None = None) -> st.SearchStrategy[int]:
    """A byte address, a multiple of 8 in the 24-bit field (or inside a program of that size)."""
    top = (1 << 24) - 8 if program_bytes is None else max(0, program_bytes)
    return edgy_int(0, top // 8).map(lambda n: n * 8)


def operand_value(operand: isa.Operand, type_name: str | None, targets: st.SearchStrategy[int]):
    kind = operand.kind
    if kind is Kind.VREG or kind is Kind.SREG:
        return edgy_int(0, 31)
    if kind is Kind.PREG:
        return edgy_int(0, 7)
    if kind is Kind.UB:
        return ub_operand()
    if kind is Kind.UB_BYTE:  # a scalar LD / ST: any byte address, T's size aligns an absolute one
        size = TYPES[type_name].size
        absolute = st.builds(UbRef, st.none(), edgy_int(0, 0x3FFFF // size).map(lambda n: n * size))
        return st.one_of(absolute, st.builds(UbRef, edgy_int(0, 31), edgy_int(-(1 << 26), (1 << 26) - 1)))
    if kind is Kind.GM and type_name in SCALAR_MEMORY:
        size = TYPES[type_name].size
        absolute = st.builds(GmRef, st.none(), edgy_int(0, U32 // size).map(lambda n: n * size))
        return st.one_of(absolute, st.builds(GmRef, edgy_int(0, 31), edgy_int(-(1 << 26), (1 << 26) - 1)))
    if kind is Kind.GM:
        return gm_operand()
    if kind is Kind.SCALAR:
        return scalar_operand(type_name)
    if kind is Kind.IMM and operand.imm_bits == 64:  # the two-word MOV: constants past the one-word 50 bits
        wide = st.one_of(edgy_int(-(1 << 63), -(1 << 49) - 1), edgy_int(1 << 49, (1 << 63) - 1))
        return st.builds(RegOrImm, st.none(), wide)
    if kind in (Kind.SRC, Kind.IMM):
        return reg_or_imm(operand.imm_bits)
    if kind is Kind.TARGET:
        return targets
    if kind is Kind.PIPE:
        return st.sampled_from(PIPES)
    if kind is Kind.BARRIER_PIPE:
        return st.sampled_from(BARRIER_PIPES)
    if kind is Kind.EVENT:
        return edgy_int(0, 7)
    if kind is Kind.PATTERN:
        return st.sampled_from(PATTERNS)
    if kind is Kind.CORE:
        return st.sampled_from(CORE_VALUES)
    if kind is Kind.SPR:
        return st.sampled_from(SPR_VALUES)
    if kind is Kind.AR:
        return st.just("AR")
    if kind is Kind.FIXED:
        return edgy_int(1, 7)
    raise AssertionError(kind)


def keyword_value(spec: isa.Keyword, type_name: str | None):
    """A value for a keyword field: its default, lo, hi, anything between, or absent (optional)."""
    if spec.types and type_name not in spec.types:
        return st.none()  # e.g. carry= only exists for u32
    values = edgy_int(spec.lo, spec.hi)
    if spec.entries:  # a tuple field (VMRGSORT's len=): each entry a constant or a register
        entry = st.one_of(edgy_int(0, spec.entry_max), edgy_int(0, 31).map(lambda r: spec.entry_max + 1 + r))
        return st.lists(entry, min_size=spec.entries, max_size=spec.entries).map(lambda e: pack_entries(spec, e))
    if spec.optional:
        return st.one_of(st.none(), values)
    if spec.required:
        return values
    return st.one_of(st.just(spec.default), values)


def mask_value(lanes: int) -> st.SearchStrategy[Mask | None]:
    """Every mask mode: all lanes (None), mask=N, mask=(LOW, HIGH) and count=N, with their extremes."""
    continuous = st.builds(Mask, st.just(MaskMode.CONTINUOUS), edgy_int(1, lanes))
    high = st.just(0) if lanes == 64 else edgy_int(0, U64)
    bits = st.builds(Mask, st.just(MaskMode.BITS), edgy_int(0, U64), high).filter(lambda m: m.low or m.high)
    count = st.builds(Mask, st.just(MaskMode.COUNT), edgy_int(1, U32))
    return st.one_of(st.none(), continuous, bits, count)


@st.composite
def inst_of_row(draw, row: isa.Instruction, targets: st.SearchStrategy[int] | None = None) -> Inst:
    """A valid instruction of the given row (a random element type from ``row.types``)."""
    targets = targets if targets is not None else branch_target()
    type_name = None
    if row.typed:
        # Types that unlock a keyword (carry= needs u32) are drawn half of the time, so those fields get used.
        unlocking = sorted({t for kw in row.keywords for t in kw.types})
        choices = st.sampled_from(row.types)
        type_name = draw(st.one_of(choices, st.sampled_from(unlocking)) if unlocking else choices)
    source = cond = None
    if row.source_types:  # VCONV.D.S, VPACK.D.S: a pair that exists
        type_name, source_name = draw(st.sampled_from(row.pairs))
        source = TYPES[source_name]
    if row.conditions:
        cond = draw(st.sampled_from(row.conditions))
    operands = tuple(draw(operand_value(o, type_name, targets)) for o in row.operands)
    if row.family == "loop" and operands[0].reg is None and operands[0].imm < 0:
        operands = (RegOrImm(None, -1 - operands[0].imm),)  # a loop runs 0 or more times (contract 7)
    keywords = []
    for spec in row.keywords:
        value = draw(keyword_value(spec, type_name))
        if spec.name == "post":
            base = next(v for o, v in zip(row.operands, operands, strict=True) if o.kind is Kind.UB)
            if base.reg is None:
                value = 0  # post-update needs a register base
        if spec.name == "round" and value is not None:  # a mode the pair takes (none on an exact pair)
            pair = (type_name, source.name)
            value = None if pair in EXACT_PAIRS else value if pair in ODD_PAIRS else min(value, 4)
        if spec.name == "part" and value is not None and source is not None:  # (PPACK's part is lo or hi)
            value %= max(TYPES[type_name].size, source.size) // min(TYPES[type_name].size, source.size)
        keywords.append(value)
    if row.family == "gathermask" and row.form == "tensor-gathermask":  # (src1rep= is the bits form's)
        keywords = [None if spec.name == "src1rep" else v for spec, v in zip(row.keywords, keywords, strict=True)]
    if row.family == "sort":  # the alignments a sort's constant addresses need; repeat=N>1 its own rules
        inst = Inst(row, TYPES[type_name], operands, tuple(keywords))
        aligns = sort_alignments(inst)
        operands = tuple(UbRef(v.reg, v.offset - v.offset % aligns[o.name]) if v.reg is None else v
                         for o, v in zip(row.operands, operands, strict=True))
        if draw(st.booleans()):
            keywords = [min(v, 1) if spec.name == "repeat" else v
                        for spec, v in zip(row.keywords, keywords, strict=True)]
    mask = None
    if row.has_mask and row.family == "gathermask":  # mask=N alone
        counts = st.builds(Mask, st.just(MaskMode.CONTINUOUS), edgy_int(1, TYPES[type_name].lanes))
        mask = draw(st.one_of(st.none(), counts))
    elif row.has_mask:
        lanes = TYPES[type_name].lanes if source is None else min(TYPES[type_name].lanes, source.lanes)
        mask = draw(mask_value(lanes))
        if mask is not None and mask.mode == MaskMode.COUNT:
            # count= excludes repeat= (contract 2.1): the repeat field keeps its default.
            keywords = [spec.default if spec.name == "repeat" else v
                        for spec, v in zip(row.keywords, keywords, strict=True)]
    etype = TYPES[type_name] if type_name is not None else None
    if row.keyword("dist") is not None:  # a distribution mode's alignment binds the address and post= (13.1)
        operands, keywords = _aligned_to_mode(Inst(row, etype, operands, tuple(keywords)), keywords)
    return Inst(row, etype, operands, tuple(keywords), mask, source, cond)


def _aligned_to_mode(inst: Inst, keywords: list) -> tuple[tuple, list]:
    """A drawn VLD/VST/PLD/PST with its constant address and ``post=`` moved down to its mode's alignment
    (and no ``blk=`` but with norm), so that most draws of a mode are valid rather than filtered out."""
    mode = modes.mode_of(inst)
    if mode is None or mode.name == "norm":
        return inst.operands, keywords
    operands = tuple(UbRef(None, v.offset - v.offset % mode.align) if o.kind is Kind.UB and v.reg is None else v
                     for o, v in zip(inst.row.operands, inst.operands, strict=True))
    names = [spec.name for spec in inst.row.keywords]
    if "blk" in names:
        keywords[names.index("blk")] = None
    if "post" in names and keywords[names.index("post")]:
        step = mode.align // math.gcd(mode.align, inst.type.size)
        keywords[names.index("post")] = keywords[names.index("post")] // step * step
    return operands, keywords


def valid(inst: Inst) -> bool:
    return not isa.problems(inst)


def insts(targets: st.SearchStrategy[int] | None = None) -> st.SearchStrategy[Inst]:
    """A valid instruction of ANY row of the table (register and structure rows too: assemble, run or
    re-assemble one through ``in_context``, which gives it the function it needs)."""
    return st.sampled_from(isa.TABLE).flatmap(lambda row: inst_of_row(row, targets)).filter(valid)


# -- data records and programs ------------------------------------------------------------------

@st.composite
def data_records(draw) -> DataRecord:
    """A ``.ub``/``.gm``/``.ubfill``/``.gmfill`` record of any data type that the assembler can write back:
    its bytes end inside the 4 GiB address space."""
    type_name = draw(st.sampled_from(DATA_TYPES))
    size = TYPES[type_name].size
    space = draw(st.sampled_from(("ub", "gm")))
    kind = draw(st.sampled_from(("list", "fill")))
    fmt = {1: "<B", 2: "<H", 4: "<I", 8: "<Q"}[size]
    if kind == "list":
        elements = draw(st.lists(element_bits(type_name), min_size=1, max_size=12))
        count = len(elements)
        payload = b"".join(struct.pack(fmt, e) for e in elements)
    else:
        count = draw(edgy_int(1, U32 // size))
        payload = struct.pack(fmt, draw(element_bits(type_name)))
    addr = draw(edgy_int(0, (1 << 32) - count * size))
    return DataRecord(space, kind, type_name, addr, count, payload)


# -- vector functions: the context an instruction needs, and the rules of section 7 ---------------

def _row_named(mnemonic: str) -> isa.Instruction:
    (row,) = isa.MNEMONICS[mnemonic]
    return row


VF_BEGIN = Inst(_row_named("VF.BEGIN"), None, (), ())
VF_END = Inst(_row_named("VF.END"), None, (), ())
ENDLOOP = Inst(_row_named("ENDLOOP"), None, (), ())
MEMBAR = Inst(_row_named("MEMBAR"), None, (), ())


def loop(count: int | RegOrImm) -> Inst:
    """``LOOP N`` (an int) or ``LOOP Sn`` (``RegOrImm(n)``)."""
    value = count if isinstance(count, RegOrImm) else RegOrImm(None, count)
    return Inst(_row_named("LOOP"), None, (value,), ())


# CONTRACT section 7, read directly (not from isa/functions.py): what a function may hold.
FUNCTION_SCALARS = frozenset({"MOV", "ADD", "SUB", "MUL", "AND", "OR", "XOR", "SHL", "SHR"})
SPR_READS = ("scalar-mov-spr", "scalar-mov-ar")
MAX_LOOP_DEPTH = 4


def needs_function(row: isa.Instruction) -> bool:
    """Whether the row is valid only inside a vector function (register rows, LOOP, ENDLOOP, MEMBAR)."""
    return row.register or row.mnemonic in ("LOOP", "ENDLOOP", "MEMBAR")


def may_be_inside(row: isa.Instruction) -> bool:
    """Whether the row may stand inside a function (VF.END, which closes it, aside)."""
    # (13.10: MOV Sd, AR is not valid inside; RSVDCNT and MRGCNTk are read by the scalar unit too)
    return needs_function(row) or (row.mnemonic in FUNCTION_SCALARS and row.form not in SPR_READS)


def context(row: isa.Instruction) -> tuple[tuple[Inst, ...], tuple[Inst, ...]]:
    """The fewest instructions before and after an instruction of ``row`` that make it valid:
    a register row or MEMBAR sits in ``VF.BEGIN ... VF.END``; LOOP in ``VF.BEGIN ... ENDLOOP VF.END``;
    ENDLOOP in ``VF.BEGIN LOOP 1 ... VF.END``; VF.BEGIN before a VF.END; VF.END after a VF.BEGIN;
    anything else stands alone."""
    name = row.mnemonic
    if name == "VF.BEGIN":
        return (), (VF_END,)
    if name == "VF.END":
        return (VF_BEGIN,), ()
    if name == "LOOP":
        return (VF_BEGIN,), (ENDLOOP, VF_END)
    if name == "ENDLOOP":
        return (VF_BEGIN, loop(1)), (VF_END,)
    if needs_function(row):
        return (VF_BEGIN,), (VF_END,)
    return (), ()


@frozen
class Placed:
    """An instruction in its context (``in_context``): the whole program's text and words, and where
    the instruction itself is: ``line`` (1-based, its first line in ``text``) and ``index`` (its first
    word in ``words``; ``pc`` in bytes). ``text`` or ``words`` is None when it was not given."""

    text: str | None
    words: tuple[int, ...] | None
    line: int
    index: int
    size: int  # the instruction's own words (0 when no words were given)

    @property
    def pc(self) -> int:
        return 8 * self.index

    def own_words(self, words: Sequence[int]) -> tuple[int, ...]:
        """The instruction's own words out of a whole program's ``words`` (e.g. re-assembled)."""
        return tuple(words[self.index:self.index + self.size])


def in_context(inst: Inst | isa.Instruction, text: str | None = None,
               words: Sequence[int] | None = None) -> Placed:
    """The one way the tests place a single instruction: its text and/or words inside the minimal
    valid program around it (see ``context``).

    ``inst`` is an ``Inst`` (its text and words are derived unless given: give ``text`` for a
    respelling) or a row (then give ``text`` and/or ``words``, e.g. a golden source line and its
    words; several lines or instructions of the same row may be given at once)."""
    if isinstance(inst, Inst):
        row = inst.row
        text = inst_text(inst) if text is None else text
        words = tuple(isa.encode(inst)) if words is None else words
    else:
        row = inst
    before, after = context(row)
    full_text = None
    if text is not None:
        body = text if text.endswith("\n") else text + "\n"
        full_text = "".join(inst_text(c) + "\n" for c in before) + body + "".join(inst_text(c) + "\n" for c in after)
    full_words = None
    if words is not None:
        head = tuple(w for c in before for w in isa.encode(c))
        full_words = (*head, *(int(w) for w in words), *(w for c in after for w in isa.encode(c)))
    return Placed(full_text, full_words, len(before) + 1, sum(c.words for c in before),
                  0 if words is None else len(words))


def function_problems(decoded: Sequence[tuple[int, Inst]]) -> list[tuple[int, str]]:
    """Where decoded words break the rules of CONTRACT section 7, as ``(pc, what)``; what is
    ``"structure"`` (a row where it may not be, an unmatched or too deep loop, an unclosed function),
    ``"loop-count"`` (``LOOP`` with a negative immediate) or ``"branch-into"`` (a branch or jump to a
    pc inside a function: after its VF.BEGIN, up to its VF.END). Empty: a valid program."""
    found: list[tuple[int, str]] = []
    spans: list[tuple[int, int]] = []
    begin: int | None = None
    depth = 0
    for pc, inst in decoded:
        name = inst.row.mnemonic
        if begin is None:
            if name == "VF.BEGIN":
                begin, depth = pc, 0
            elif needs_function(inst.row) or name == "VF.END":
                found.append((pc, "structure"))
            continue
        if name == "VF.END":
            if depth:
                found.append((pc, "structure"))
            spans.append((begin, pc))
            begin = None
        elif name == "LOOP":
            depth += 1
            if depth > MAX_LOOP_DEPTH:
                found.append((pc, "structure"))
            count = inst.operands[0]
            if count.reg is None and count.imm < 0:
                found.append((pc, "loop-count"))
        elif name == "ENDLOOP":
            if depth:
                depth -= 1
            else:
                found.append((pc, "structure"))
        elif not may_be_inside(inst.row):
            found.append((pc, "structure"))
    if begin is not None:
        found.append((begin, "structure"))
    for pc, inst in decoded:
        for operand, value in zip(inst.row.operands, inst.operands, strict=True):
            if operand.kind is Kind.TARGET and any(lo < value <= hi for lo, hi in spans):
                found.append((pc, "branch-into"))
    return found


def function_spans(insts: Sequence[Inst]) -> list[tuple[int, int]]:
    """(VF.BEGIN pc, VF.END pc) of each function in a list of instructions (well nested)."""
    spans, pc, begin = [], 0, None
    for inst in insts:
        if inst.row.mnemonic == "VF.BEGIN":
            begin = pc
        elif inst.row.mnemonic == "VF.END" and begin is not None:
            spans.append((begin, pc))
            begin = None
        pc += inst.size
    return spans


def outside_functions(insts: Sequence[Inst]) -> list[Inst]:
    """The instructions with every branch target that points inside a function (after its
    VF.BEGIN, up to its VF.END) moved to that function's VF.BEGIN, where a branch may go."""
    spans = function_spans(insts)
    out = []
    for inst in insts:
        operands = list(inst.operands)
        for k, operand in enumerate(inst.row.operands):
            if operand.kind is Kind.TARGET:
                operands[k] = next((lo for lo, hi in spans if lo < operands[k] <= hi), operands[k])
        out.append(evolve(inst, operands=tuple(operands)) if tuple(operands) != inst.operands else inst)
    return out


OUTSIDE_ROWS = tuple(r for r in isa.TABLE if not needs_function(r) and r.mnemonic not in ("VF.BEGIN", "VF.END"))
INSIDE_ROWS = tuple(r for r in isa.TABLE if r.register or (r.mnemonic in FUNCTION_SCALARS and r.form not in SPR_READS))


def _of_rows(rows, targets) -> st.SearchStrategy[Inst]:
    return st.sampled_from(rows).flatmap(lambda row: inst_of_row(row, targets)).filter(valid)


@st.composite
def function_body(draw, depth: int = 0, max_items: int = 5) -> list[Inst]:
    """What may stand between VF.BEGIN and VF.END: register and scalar-lane instructions, MEMBAR,
    and hardware loops (any count, a register or an immediate >= 0) nested up to 4 deep."""
    out: list[Inst] = []
    for _ in range(draw(st.integers(0, max_items))):
        what = draw(st.sampled_from(("inst", "inst", "inst", "membar", "loop")))
        if what == "inst":
            out.append(draw(_of_rows(INSIDE_ROWS, branch_target())))
        elif what == "membar":
            out.append(MEMBAR)
        elif depth < MAX_LOOP_DEPTH:
            out.append(draw(inst_of_row(_row_named("LOOP"))))
            out += draw(function_body(depth + 1, max(0, max_items - 2)))
            out.append(ENDLOOP)
    return out


@st.composite
def programs(draw, max_insts: int = 12, max_records: int = 4) -> Program:
    """A program of valid instructions (branch targets anywhere in or just past the text, or far away,
    never inside a function) and data records; its register instructions stand inside vector functions
    (with loops, MEMBAR and scalar-lane instructions), everything else outside."""
    # Branch targets are drawn before the text exists, so aim at a plausible text size; targets that
    # are not instruction starts are printed numerically by the disassembler and must survive too.
    targets = st.one_of(branch_target(max_insts * 40), branch_target())
    body: list[Inst] = []
    for _ in range(draw(st.integers(0, max_insts))):
        if draw(st.integers(0, 3)):
            body.append(draw(_of_rows(OUTSIDE_ROWS, targets)))
        else:
            body += [VF_BEGIN, *draw(function_body(max_items=4)), VF_END]
    words = tuple(w for inst in outside_functions(body) for w in isa.encode(inst))
    data = tuple(draw(st.lists(data_records(), max_size=max_records)))
    return Program(words=words, data=data)
