"""Fuzz the emulator with random VALID programs built from the ISA table.

Each program mixes scalar ALU, forward and backward branches (plain ones and counted loops), DMA in
both directions, SETFLAG/WAITFLAG (matched pairs and strays), BARRIER, tensor instructions and
vector functions (CONTRACT section 7: ``VF.BEGIN ... VF.END`` holding the register instructions,
hardware loops with small counts, immediate or ``Sn``, nested up to 4 deep, MEMBAR and the scalar
lane's MOV and ALU; launched once or from inside a scalar loop), with random ``.ub``/``.gm`` data.
Operands are legal for their row (``isa.problems`` accepts every instruction), the program keeps
the function rules (``strategies.function_problems`` finds nothing: no branch goes into a function)
and values are mostly sensible (aligned addresses held in address registers, small strides,
repeats and loop counts), with edge values mixed in so that the fault paths run too.

Each program runs on both profiles ("950" and "a2"), strict or not, with ``max_instructions=5000``
and ``max_cycles=2_000_000``, and must end cleanly or with a ``Fault`` of kind fault, limit,
deadlock or race (race only with strict) that names an instruction: ``fault.pc`` is the start of an
instruction of the program and the message names it (``pc 0x...``). Never any other exception. The
report must then build from the finished machine (``machine.report()``, as the CLI builds it) and
serialise with ``json.dumps`` (no NaN), with a few invariants of contract section 5 (counts add up
to the instructions run, S0 is 0, no pipe busier than the run is long).

Half of the programs are tame (no extreme values: they run deep, into loops and the instruction
limit); the others mix in extremes (huge strides and counts, unaligned or out-of-range addresses)
that fault here and there. Three runs in eight are repeated: plainly, traced (``--trace``'s events
must serialise too) or paused and resumed every few instructions (the debugger's way): the report
must be identical.
"""

from __future__ import annotations

import json
import re
from functools import cache

import fuzz_support as F
import pytest
from attrs import define
from hypothesis import given
from hypothesis import strategies as st
from trace_format import check_trace

from vcore import isa
from vcore.assembler import assemble, disassemble
from vcore.emulator import Fault, Machine, ProgramError
from vcore.emulator.report import race_messages
from vcore.emulator.trace import trace_events
from vcore.isa import GmRef, Inst, Kind, Mask, MaskMode, RegOrImm, UbRef, encode, problems
from vcore.isa.compaction import pack_entries
from vcore.isa.conversions import EXACT_PAIRS
from vcore.isa.model import SPR_VALUES
from vcore.isa.only_950 import needs_950
from vcore.isa.program import DataRecord, Program
from vcore.isa.table import FUNCTION_SCALAR_FAMILIES
from vcore.isa.types import TYPES

S = F.load_strategies()

pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")

MAX_INSTRUCTIONS = 5000
MAX_CYCLES = 2_000_000
PROFILES = ("950", "a2")
FAULT_KINDS = ("fault", "limit", "deadlock", "race")
ROWS = {(row.mnemonic, row.form): row for row in isa.TABLE}
BY_FAMILY: dict[str, list] = {}
for _row in isa.TABLE:
    BY_FAMILY.setdefault(_row.family, []).append(_row)
del _row

ADDRESS_REGS = (1, 2, 3, 4, 5, 6)  # hold UB addresses (set by the prologue; post= moves them)
GM_REGS = (7, 8)  # hold GM addresses
COUNTER_REGS = (20, 21, 22)  # loop counters (nothing else writes them)
LOOP_COUNT_REGS = (13, 14)  # hardware loop counts, set inside the function by MOV (tame programs)
UB_DATA_TOP = 0x8000  # data and most operands live below this: inside both profiles' UB
UB_TOP = 0x30000  # a2's UB size (950 has 0x40000)


def row(mnemonic: str, form: str) -> isa.Instruction:
    return ROWS[(mnemonic, form)]


@define
class Target:
    """A branch target not yet placed: the index of an instruction (len = the end of the text)."""

    index: int


# -- values -------------------------------------------------------------------------------------
# Strategies are built once (cached): building them inside every draw costs more than the runs.

@cache
def ints(lo: int, hi: int) -> st.SearchStrategy[int]:
    return st.integers(lo, hi)


@cache
def edgy(lo: int, hi: int) -> st.SearchStrategy[int]:
    return S.edgy_int(lo, hi)


@cache
def blocks_of(lo: int, hi: int) -> st.SearchStrategy[int]:
    """Multiples of 32 in 32*lo..32*hi."""
    return st.integers(lo, hi).map(lambda n: n * 32)


@cache
def edgy_blocks(lo: int, hi: int) -> st.SearchStrategy[int]:
    return S.edgy_int(lo, hi).map(lambda n: n * 32)


@cache
def one_of(*choices) -> st.SearchStrategy:
    return st.sampled_from(choices)


@cache
def element_bits(type_name: str) -> st.SearchStrategy[int]:
    return S.element_bits(type_name)


# How often a value is an extreme (that mostly faults), out of 64: drawn once per program, so that
# half of the programs are tame and run deep, and the others fault here and there.
WILDNESS = [0]
WILDNESS_LEVELS = (0, 0, 0, 0, 1, 4, 8, 16)


def wild(draw) -> bool:
    """Whether this value is an extreme (see WILDNESS)."""
    return WILDNESS[0] > 0 and draw(ints(0, 63)) < WILDNESS[0]


def mostly(draw, common: st.SearchStrategy, edge: st.SearchStrategy):
    """A draw from ``common``, or (see WILDNESS) from ``edge``."""
    return draw(edge) if wild(draw) else draw(common)


def aligned(draw, top: int = UB_DATA_TOP) -> int:
    return draw(blocks_of(0, top // 32 - 1))


UB_EDGES = (0, 0x2FF00, 0x2FFE0, 0x30000, 0x3FF00, 0x3FFE0, 0x40000 - 32)


def ub_address(draw) -> int:
    """A UB byte address: mostly aligned and low; sometimes the top of either UB, unaligned or past it."""
    if not wild(draw):
        return aligned(draw, draw(one_of(UB_DATA_TOP, 0x800)))
    return draw(one_of(*UB_EDGES)) if draw(st.booleans()) else draw(edgy(0, 0x3FFFF))


def ub_ref(draw) -> UbRef:
    if draw(ints(0, 9)) < 5:
        return UbRef(None, ub_address(draw))
    reg = mostly(draw, one_of(*ADDRESS_REGS), ints(0, 31))
    offset = mostly(draw, blocks_of(-2, 64) if draw(st.booleans()) else st.just(0), edgy_blocks(-4096, 4095))
    return UbRef(reg, offset)


def gm_ref(draw) -> GmRef:
    if draw(ints(0, 2)):
        if not wild(draw):
            return GmRef(None, aligned(draw, 0x10000))
        return GmRef(None, draw(one_of((16 << 20) - 32, 16 << 20)) if draw(st.booleans())
                     else draw(edgy(0, (1 << 32) - 1)))
    reg = mostly(draw, one_of(*GM_REGS), ints(0, 31))
    return GmRef(reg, mostly(draw, blocks_of(-2, 64), edgy(-(1 << 26), (1 << 26) - 1)))


SCRATCH = (9, 10, 11, 12)
DEST_POOL = tuple(r for r in range(32) if r not in COUNTER_REGS)
TAME_DEST_POOL = tuple(r for r in DEST_POOL if r not in ADDRESS_REGS + GM_REGS)


def sreg(draw, *, dest: bool = False) -> int:
    """A scalar register: often an address or scratch register, sometimes any (S0 too)."""
    which = draw(ints(0, 2))
    if dest:  # writes avoid the loop counters (so that counted loops end), and in tame programs the addresses
        if not WILDNESS[0]:
            return draw(one_of(*TAME_DEST_POOL))
        return draw((one_of(*SCRATCH), one_of(*ADDRESS_REGS, *GM_REGS), one_of(*DEST_POOL))[which])
    return draw((one_of(*SCRATCH), one_of(*ADDRESS_REGS), ints(0, 31))[which])


def vreg(draw) -> int:
    return draw(ints(0, 3) if draw(st.booleans()) else ints(0, 31))


def preg(draw) -> int:
    return draw(ints(0, 1) if draw(st.booleans()) else ints(0, 7))


def reg_or_imm(draw, operand: isa.Operand) -> RegOrImm:
    lo, hi = operand.imm_range()
    if draw(st.booleans()):
        return RegOrImm(sreg(draw))
    return RegOrImm(None, draw(edgy(lo, hi) if wild(draw) or draw(ints(0, 7)) == 0 else ints(-64, 0x8000)))


def operand_value(draw, operand: isa.Operand, etype):
    kind = operand.kind
    if kind is Kind.VREG:
        return vreg(draw)
    if kind is Kind.PREG:
        return preg(draw)
    if kind is Kind.SREG:
        return sreg(draw, dest=True)
    if kind is Kind.UB:
        return ub_ref(draw)
    if kind is Kind.UB_BYTE:  # a scalar LD / ST: any byte address, usually aligned to T
        ref = ub_ref(draw)
        shift = draw(ints(0, 31)) if wild(draw) else draw(ints(0, 32 // etype.size - 1)) * etype.size
        return UbRef(ref.reg, ref.offset + shift)
    if kind is Kind.GM:
        return gm_ref(draw)
    if kind is Kind.SCALAR:
        if draw(ints(0, 3)) == 0:
            return RegOrImm(sreg(draw))
        return RegOrImm(None, draw(element_bits(etype.name)))
    if kind in (Kind.SRC, Kind.IMM):
        return reg_or_imm(draw, operand)
    if kind is Kind.PIPE:
        return draw(one_of(*isa.PIPES))
    if kind is Kind.BARRIER_PIPE:
        return draw(one_of(*isa.BARRIER_PIPES))
    if kind is Kind.EVENT:
        return draw(ints(0, 1) if draw(st.booleans()) else ints(0, 7))
    if kind is Kind.PATTERN:
        return draw(one_of(*isa.PATTERNS))
    if kind is Kind.CORE:
        return draw(one_of(*isa.CORE_VALUES))
    if kind is Kind.SPR:  # MOV Sd, RSVDCNT / MRGCNTk
        return draw(one_of(*SPR_VALUES))
    if kind is Kind.AR:
        return "AR"
    if kind is Kind.FIXED:  # a GatherMask pattern
        return draw(ints(1, 7))
    raise AssertionError(kind)


def keyword_value(draw, spec: isa.Keyword, etype):
    name = spec.name
    if spec.types and (etype is None or etype.name not in spec.types):
        return None
    if spec.preg:
        return None if draw(st.booleans()) else draw(ints(0, 7))
    edge = edgy(spec.lo, spec.hi)
    if name == "repeat":
        value = mostly(draw, ints(0, 4) if draw(st.booleans()) else ints(1, 16), edge)
    elif name == "post":
        step = 32 // etype.size  # elements per datablock: keeps the base aligned
        value = mostly(draw, st.just(0) if draw(st.booleans()) else ints(-2, 8), edge)
        value = value * step if -2 <= value <= 8 else value
    elif name == "blk":
        if wild(draw):
            return draw(edge)
        return None if draw(st.booleans()) else draw(ints(0, 4))
    elif name == "blocks":
        value = mostly(draw, ints(1, 8), edge)
    elif name == "src1rep":  # VGATHERM's pattern stride: optional, no default
        return None if draw(st.booleans()) else draw(ints(0, 4))
    elif spec.entries:  # VMRGSORT's len=(L0, ...): small lengths, sometimes a register
        entries = [draw(ints(0, 8)) if draw(ints(0, 3)) else spec.entry_max + 1 + sreg(draw)
                   for _ in range(spec.entries)]
        return pack_entries(spec, entries)
    elif name == "len":
        value = mostly(draw, ints(1, 16), edge)
    elif name in ("srcgap", "dstgap"):
        value = mostly(draw, ints(0, 4), edge)
    elif name.endswith("blk"):
        value = mostly(draw, st.just(spec.default) if draw(st.booleans()) else ints(0, 4), edge)
    elif name.endswith("rep"):
        value = mostly(draw, st.just(spec.default) if draw(st.booleans()) else ints(0, 16), edge)
    else:
        value = draw(edge)
    return min(max(value, spec.lo), spec.hi)


def mask_value(draw, lanes: int) -> Mask | None:
    choice = draw(ints(0, 5))
    if choice <= 1:
        return None
    if choice == 2:
        return Mask(MaskMode.CONTINUOUS, draw(edgy(1, lanes)))
    if choice == 3:
        low = draw(edgy(0, (1 << 64) - 1))
        high = 0 if lanes == 64 else draw(edgy(0, (1 << 64) - 1))
        return Mask(MaskMode.BITS, low or 1, high)
    return Mask(MaskMode.COUNT, mostly(draw, ints(1, 4 * lanes), edgy(1, (1 << 32) - 1)))


def instruction(draw, r: isa.Instruction) -> Inst | None:
    """A valid instruction of row ``r`` (branch targets left as ``Target``), or None if the draw broke a
    rule that ``problems`` knows about."""
    etype = TYPES[draw(one_of(*r.types))] if r.typed else None
    if etype is not None and any(kw.types for kw in r.keywords) and draw(st.booleans()):
        etype = TYPES[next(t for kw in r.keywords for t in kw.types)]  # carry= needs u32: use it often
    source = cond = None
    if r.source_types:  # VCONV.D.S, VPACK.D.S: a pair that exists
        dst, src = draw(one_of(*r.pairs))
        etype, source = TYPES[dst], TYPES[src]
    if r.conditions:
        cond = draw(one_of(*r.conditions))
    operands = []
    for o in r.operands:
        if o.kind is Kind.TARGET:
            operands.append(Target(0))  # placed by the caller
        else:
            operands.append(operand_value(draw, o, etype))
    keywords = [keyword_value(draw, spec, etype) for spec in r.keywords]
    if r.keyword("post") is not None:
        base = next(v for o, v in zip(r.operands, operands, strict=True) if o.kind is Kind.UB)
        if base.reg is None:
            keywords[[k.name for k in r.keywords].index("post")] = 0
    if source is not None:  # a rounding mode the pair takes; part= within the pair's ratio
        names = [k.name for k in r.keywords]
        if "round" in names and (etype.name, source.name) in EXACT_PAIRS:
            keywords[names.index("round")] = None
        if "part" in names and keywords[names.index("part")] is not None:
            keywords[names.index("part")] %= max(etype.size, source.size) // min(etype.size, source.size)
    mask = None
    if r.family == "gathermask":  # mask=N alone; src1rep= with the [src1] form alone (CONTRACT 13.4)
        if r.form == "tensor-gathermask":
            keywords[[k.name for k in r.keywords].index("src1rep")] = None
        mask = None if draw(st.booleans()) else Mask(MaskMode.CONTINUOUS, draw(edgy(1, etype.lanes)))
    elif r.has_mask:
        mask = mask_value(draw, etype.lanes if source is None else min(etype.lanes, source.lanes))
    if mask is not None and mask.mode == MaskMode.COUNT:
        keywords[[k.name for k in r.keywords].index("repeat")] = 1
    inst = Inst(r, etype, tuple(operands), tuple(keywords), mask, source, cond)
    probe = _placed(inst, {0: 0}) if any(isinstance(v, Target) for v in operands) else inst
    return inst if not problems(probe) else None


def _placed(inst: Inst, pcs: dict[int, int]) -> Inst:
    operands = tuple(pcs[v.index] if isinstance(v, Target) else v for v in inst.operands)
    return Inst(inst.row, inst.type, operands, inst.keywords, inst.mask, inst.source, inst.cond)


# -- programs -----------------------------------------------------------------------------------

def mov(reg: int, value: int) -> Inst:
    return Inst(row("MOV", "scalar-mov"), None, (reg, RegOrImm(None, value)), ())


def alu(mnemonic: str, sd: int, sa: int, imm: int) -> Inst:
    return Inst(row(mnemonic, "scalar-alu"), None, (sd, sa, RegOrImm(None, imm)), ())


def branch(mnemonic: str, sa: int, imm: int, target: int) -> Inst:
    return Inst(row(mnemonic, "branch"), None, (sa, RegOrImm(None, imm), Target(target)), ())


def flag(mnemonic: str, src: str, dst: str, event: int) -> Inst:
    return Inst(row(mnemonic, "flag"), None, (src, dst, event), ())


# The families the segments below draw themselves (branches, flags, HALT, a function's structure);
# every other family of the table is drawn by ``single``, outside functions or inside them.
SEGMENT_FAMILIES = frozenset(("branch", "jump", "setflag", "waitflag", "halt", "vf_begin", "vf_end", "loop",
                              "endloop", "membar"))
OUTSIDE = frozenset(r.family for r in isa.TABLE if not r.register and not r.structure) - SEGMENT_FAMILIES
INSIDE = frozenset(r.family for r in isa.TABLE if r.register) | frozenset(FUNCTION_SCALAR_FAMILIES)


def weighted(groups: tuple, families: frozenset) -> tuple:
    """(families, weight) of a program's mix: the groups given, and the table's families they leave out
    as one more group of weight 1 (so a new family is drawn as soon as the table has it)."""
    named = {f for fams, _ in groups for f in fams}
    rest = tuple(sorted(families - named))
    return (*groups, (rest, 1)) if rest else groups


# (families, weight): the mix of a program's instructions outside functions, and inside them
FAMILY_WEIGHTS = weighted(((("tensor",), 5), (("tensor_conv", "tensor_compare", "tensor_select"), 3),
                           (("mov", "alu"), 4), (("dma",), 4), (("ld", "st"), 2), (("barrier",), 2), (("nop",), 1)),
                          OUTSIDE)
INSIDE_WEIGHTS = weighted((
    (("vld", "vst"), 4), (("vbinary", "vunary", "vscalar"), 4), (("vgather_ub", "vgather_reg", "vscatter"), 2),
    (("vconv", "vdup", "varange", "vcompare", "vselect", "vfma"), 3), (("pset", "pupdate", "pld", "pst", "plogic"), 3),
    (("mov", "alu"), 2),
), INSIDE)
FAMILIES = [fams for fams, weight in FAMILY_WEIGHTS for _ in range(weight)]
INSIDE_FAMILIES = [fams for fams, weight in INSIDE_WEIGHTS for _ in range(weight)]
SEGMENTS = ("single", "single", "single", "single", "single", "loop", "branch", "jump", "flag-pair", "stray-flag",
            "halt", "function", "function", "function")
INSIDE_SEGMENTS = ("single", "single", "single", "single", "single", "single", "loop", "loop", "membar",
                   "index-load")
MAX_LOOP_DEPTH = 4
VF_BEGIN, VF_END, ENDLOOP, MEMBAR = S.VF_BEGIN, S.VF_END, S.ENDLOOP, S.MEMBAR


def test_the_mix_is_the_tables_families():
    """Every family of the table is drawn (by a group of the mix, inside functions or out, or by a
    segment); and no name here is one the table does not have."""
    families = {r.family for r in isa.TABLE}
    outside = {f for fams, _ in FAMILY_WEIGHTS for f in fams}
    inside = {f for fams, _ in INSIDE_WEIGHTS for f in fams}
    assert outside | inside | SEGMENT_FAMILIES == families
    assert outside == OUTSIDE and inside == INSIDE
    assert families >= SEGMENT_FAMILIES
    # a family the table gains joins the mix as a group of its own
    assert weighted(((("tensor",), 5),), frozenset(("tensor", "vnew")))[-1] == (("vnew",), 1)


@st.composite
def random_programs(draw) -> Program:
    WILDNESS[0] = draw(one_of(*WILDNESS_LEVELS))
    insts: list[Inst] = []
    # Prologue: address registers point at aligned UB (and GM) addresses.
    for reg in ADDRESS_REGS:
        if draw(ints(0, 4)):
            insts.append(mov(reg, aligned(draw)))
    for reg in GM_REGS:
        if draw(st.booleans()):
            insts.append(mov(reg, aligned(draw, 0x10000)))
    # Half the programs have no vector functions, so that the a2 profile (which refuses them) runs them.
    functions = draw(st.booleans())

    def single(families: list = FAMILIES) -> None:
        fams = draw(one_of(*families))
        rows = [r for fam in fams for r in BY_FAMILY[fam]]
        inst = instruction(draw, draw(one_of(*rows)))
        if inst is not None:
            insts.append(inst)

    def loop_count() -> RegOrImm:
        """A hardware loop's count: small, as an immediate or in a register set just before (tame);
        in wild programs sometimes any register (maybe huge or negative: a limit or a fault) or any
        immediate the assembler takes."""
        if wild(draw):
            if draw(st.booleans()):
                return RegOrImm(sreg(draw))
            return RegOrImm(None, draw(edgy(0, (1 << 32) - 1)))
        if draw(ints(0, 2)) == 0:
            reg = draw(one_of(*LOOP_COUNT_REGS))
            insts.append(mov(reg, draw(ints(0, 4))))  # on the function's scalar lane
            return RegOrImm(reg)
        return RegOrImm(None, draw(one_of(0, 1, 1, 2, 2, 3, 4)))

    def body(depth: int, size: int) -> None:
        """A function's body (or a hardware loop's), ``depth`` loops deep."""
        for _ in range(draw(ints(0, size))):
            kind = draw(one_of(*INSIDE_SEGMENTS))
            if kind == "single":
                single(INSIDE_FAMILIES)
            elif kind == "loop" and depth < MAX_LOOP_DEPTH:
                count = loop_count()
                insts.append(S.loop(count))
                body(depth + 1, max(1, size - 2))
                if insts[-1].row.mnemonic == "LOOP" and (count.reg is not None or count.imm > 4):
                    # An empty loop of many iterations runs whatever --max-instructions says
                    # (known bug empty-loop-runs-away): give it a body.
                    insts.append(MEMBAR)
                insts.append(ENDLOOP)
            elif kind == "membar":
                insts.append(MEMBAR)
            elif kind == "index-load":
                # Index registers for gathers and scatters: small u16/u32 indices from the data below.
                t = draw(one_of("u16", "u32"))
                base = draw(one_of(0x7000, 0x7100, 0x7200))
                insts.append(Inst(row("VLD", "reg-load"), TYPES[t], (draw(ints(0, 3)), UbRef(None, base)),
                                  (0, None, 0)))  # post=0, no blk=, dist=norm

    def function() -> None:
        insts.append(VF_BEGIN)
        body(0, 6)
        insts.append(VF_END)

    def piece() -> None:
        """What a scalar loop or a flag pair holds: an instruction, or now and then a function."""
        if functions and draw(ints(0, 3)) == 0:
            function()
        else:
            single()

    open_loops = 0
    for _ in range(draw(ints(1, 24))):
        kind = draw(one_of(*SEGMENTS))
        if kind == "single":
            single()
        elif kind == "function" and functions:
            function()
        elif kind == "loop" and open_loops < len(COUNTER_REGS):
            # MOV Sc, n; top: body; SUB Sc, Sc, 1; BNE Sc, 0, top   (a backward branch)
            counter = COUNTER_REGS[open_loops]
            open_loops += 1
            insts.append(mov(counter, draw(ints(0, 6))))
            top = len(insts)
            for _ in range(draw(ints(1, 5))):
                piece()
            insts.append(alu("SUB", counter, counter, 1))
            insts.append(branch(draw(one_of("BNE", "BGE", "BLT")), counter, 0, top))
            open_loops -= 1
        elif kind == "branch":
            # A compare-and-branch anywhere (forward, backward, to the end), on any register.
            r = row(draw(one_of("BEQ", "BNE", "BLT", "BGE")), "branch")
            inst = instruction(draw, r)
            if inst is not None:
                insts.append(Inst(r, None, (*inst.operands[:2], Target(-1)), ()))
        elif kind == "jump":
            insts.append(Inst(row("JMP", "jump"), None, (Target(-1),), ()))  # forward: placed below
        elif kind == "flag-pair":
            src, dst = draw(one_of(*isa.PIPES)), draw(one_of(*isa.PIPES))
            event = draw(ints(0, 7))
            insts.append(flag("SETFLAG", src, dst, event))
            for _ in range(draw(ints(0, 3))):
                piece()
            insts.append(flag("WAITFLAG", src, dst, event))
        elif kind == "stray-flag":
            single_flag = instruction(draw, row(draw(one_of("SETFLAG", "WAITFLAG")), "flag"))
            if single_flag is not None:
                insts.append(single_flag)
        elif kind == "halt":
            insts.append(Inst(row("HALT", "none"), None, (), ()))
    if draw(st.booleans()):
        insts.append(Inst(row("HALT", "none"), None, (), ()))

    # Place the branch targets: a loop's own backward target is kept; Target(-1) becomes any
    # instruction start (forward or backward) or the end of the text, or (1 in 16) any multiple of 8.
    resolved = []
    for i, inst in enumerate(insts):
        ops = []
        for value in inst.operands:
            placed = value
            if isinstance(value, Target) and value.index < 0:
                how = draw(ints(0, 15))
                if how == 0:  # any multiple of 8: maybe inside a multi-word instruction, or past the end
                    placed = Target(-1 - draw(one_of(*range(64), 0xFFFFF8 // 8)))
                else:
                    placed = Target(draw(ints(i + 1, len(insts))) if how % 2 else draw(ints(0, len(insts))))
            ops.append(placed)
        resolved.append(Inst(inst.row, inst.type, tuple(ops), inst.keywords, inst.mask, inst.source, inst.cond))
    pcs, pc = {}, 0
    for i, inst in enumerate(resolved):
        pcs[i] = pc
        pc += inst.size
    pcs[len(resolved)] = pc
    pcs.update({-1 - k: 8 * k for k in [*range(64), 0xFFFFF8 // 8]})  # the raw targets
    # A target inside a function (after its VF.BEGIN, up to its VF.END) becomes its VF.BEGIN.
    final = S.outside_functions([_placed(inst, pcs) for inst in resolved])
    for inst in final:
        assert not problems(inst), (inst, problems(inst))
    words = tuple(w for inst in final for w in encode(inst))
    assert not S.function_problems(isa.decode_program(words))
    return Program(words=words, data=tuple(draw(st.lists(data_record(), max_size=6))), filename="fuzz.asm")


INDEX_VALUES = {t: st.one_of(st.integers(0, 64), st.integers(0, 4096), S.element_bits(t)) for t in ("u16", "u32")}


@st.composite
def data_record(draw) -> DataRecord:
    """Random .ub/.gm data inside both profiles' memories; the index area 0x7000.. holds small indices."""
    if draw(ints(0, 3)) == 0:
        t = draw(one_of("u16", "u32"))
        size = TYPES[t].size
        values = draw(st.lists(INDEX_VALUES[t], min_size=1, max_size=256 // size))
        payload = b"".join(v.to_bytes(size, "little") for v in values)
        return DataRecord("ub", "list", t, draw(one_of(0x7000, 0x7100, 0x7200)), len(values), payload)
    t = draw(one_of(*S.DATA_TYPES))
    size = TYPES[t].size
    space = draw(one_of("ub", "ub", "gm"))
    which = draw(ints(0, 2))
    addr = aligned(draw) if which == 0 else draw(ints(0, UB_DATA_TOP - 1)) if which == 1 else UB_TOP - 256
    if draw(st.booleans()):
        values = draw(st.lists(element_bits(t), min_size=1, max_size=64))
        values = values[:(UB_TOP - addr) // size]  # inside a2's UB too (64 values of 8 bytes at its top would not be)
        payload = b"".join(v.to_bytes(size, "little") for v in values)
        return DataRecord(space, "list", t, addr, len(values), payload)
    count = min(draw(ints(1, 2048 // size)), (UB_TOP - addr) // size)
    return DataRecord(space, "fill", t, addr, count, draw(element_bits(t)).to_bytes(size, "little"))


# -- the property -------------------------------------------------------------------------------

_PC_IN_MESSAGE = re.compile(r"\bpc 0x[0-9a-f]+\b")


def check_run(program: Program, profile: str, strict: bool, mode: str = "plain", pauses: tuple = ()) -> dict:
    """Run one program on one profile; returns the JSON report.

    ``mode`` "trace" runs with a trace (and builds the trace events, as ``--trace`` does); "paused"
    stops after ``pauses[k]`` more instructions and resumes, again and again (the debugger's way):
    neither may change the report."""
    machine = Machine(program, profile)
    starts = set(machine.code.at)
    limits = {"max_instructions": MAX_INSTRUCTIONS, "max_cycles": MAX_CYCLES, "strict": strict}
    if mode == "paused":
        result = machine.run(**limits, pause_after=pauses[0] if pauses else None)
        for k in range(1, 10_000):
            if not result.paused:
                break
            step = pauses[k % len(pauses)] if pauses else 1
            result = machine.run(**limits, pause_after=machine.executed + step)
        assert not result.paused
    else:
        result = machine.run(**limits, trace=mode == "trace")
    fault = result.fault
    if fault is not None:
        assert isinstance(fault, Fault)
        allowed = FAULT_KINDS if strict else tuple(k for k in FAULT_KINDS if k != "race")
        assert fault.kind in allowed, f"fault kind {fault.kind!r}: {fault}"
        assert fault.pc is not None, f"a fault without a pc: {fault}"
        assert fault.pc in starts, f"fault pc 0x{fault.pc:x} is not an instruction start: {fault}"
        assert _PC_IN_MESSAGE.search(fault.message), f"the message names no pc: {fault.message!r}"
    if result.instructions > MAX_INSTRUCTIONS and machine.functions:
        raise F.Symptom(f"{result.instructions} instructions ran, past --max-instructions in a program with vector "
                        f"functions")
    assert result.instructions <= MAX_INSTRUCTIONS
    report = machine.report()  # as the CLI builds it (emulator.report.build_report)
    out = report.to_json()
    text = json.dumps(out, allow_nan=False)  # the contract's JSON has no NaN or inf
    assert json.loads(text) == out
    if mode == "trace":  # plain JSON (no NaN), and a well-formed trace on both time axes
        check_trace(trace_events(machine.result))
        check_trace(trace_events(machine.result, time="cycles"))
    report.to_text()
    race_messages(machine.result)
    assert out["instructions"] == result.instructions
    assert sum(e["count"] for e in out["per_pc"]) == result.instructions
    assert {e["pc"] for e in out["per_pc"]} <= starts
    assert out["scalars"]["S0"] == 0
    assert all(-(1 << 63) <= v < 1 << 63 for v in out["scalars"].values())
    total = out["total_cycles"]
    assert total >= 0
    for pipe, entry in out["pipes"].items():
        busy = entry["busy_cycles"]
        assert busy >= 0, (pipe, entry)
        assert busy <= total, f"{pipe} busy {busy} cycles of a {total}-cycle run: {entry}"
        assert 0 <= entry["utilisation"] <= 1, (pipe, entry)
    assert ("fault" in out) == (fault is not None)
    return out


def profiles_for(program: Program) -> tuple[str, ...]:
    """The profiles that run ``program``: a2 refuses vector functions (and register instructions)
    before the run, naming the first one's pc and the 950 profile (exit 2 from the CLI)."""
    decoded = isa.decode_program(program.words)
    first = next((pc for pc, inst in decoded if inst.row.register or inst.row.structure), None)
    if first is None:  # nor an instruction only the 950 has (an integer division, a 950 conversion ...)
        first = next((pc for pc, inst in decoded if needs_950(inst, "a2", "a2") is not None), None)
    if first is None:
        return PROFILES
    with pytest.raises(ProgramError, match=r"need the 950 profile \(--profile 950\)|needs the 950 profile: the a2 "
                                           r"divides only f16 and f32|needs the 950 profile \(a2 has no") as refused:
        Machine(program, "a2")
    place = f"at pc 0x{first:04x}: " if program.source is None else f":{program.source[first].line}:"
    assert place in str(refused.value), str(refused.value)
    return tuple(p for p in PROFILES if p != "a2")


def run_everywhere(program: Program, strict: bool, again: str | None = None, pauses: tuple = ()) -> None:
    """Run on every profile that runs it; with ``again``, a second run (the same, traced, or paused
    and resumed) must give the identical report."""
    for profile in profiles_for(program):
        try:
            first = check_run(program, profile, strict)
            if again is not None:
                second = check_run(program, profile, strict, again, pauses)
                assert second == first, f"a {again} run of the program on {profile} reports differently"
        except AssertionError:
            raise
        except Exception as exc:
            if F.known_bug(exc) is None:
                raise


AGAIN = (None, None, None, None, None, "plain", "trace", "paused")


@F.fuzz(200)
@given(random_programs(), st.booleans(), st.sampled_from(AGAIN), st.lists(st.integers(1, 40), min_size=1, max_size=4))
def test_fuzz_random_valid_programs_run_or_fault(program, strict, again, pauses):
    F.tried("run: random valid programs")
    run_everywhere(program, strict, again, tuple(pauses))


@F.fuzz(100)
@given(random_programs(), st.booleans())
def test_fuzz_random_valid_programs_from_source(program, strict):
    """The same programs as source text (the disassembly, assembled): faults and reports then name
    source lines, as ``vcore run PROG.asm`` does."""
    F.tried("run: random valid programs from source")
    try:
        text = disassemble(program)
        source = assemble(text, "fuzz.asm")
    except Exception as exc:
        if F.known_bug(exc) is None:
            raise
        return
    assert source.words == program.words, text
    run_everywhere(source, strict)
