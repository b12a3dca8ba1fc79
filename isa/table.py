"""The instruction table: one row per instruction form, from which everything else is derived.

Adding an instruction is adding a row here (and its semantics in ``emulator/``). Bit positions are
assigned by ``_row`` in declaration order: opcode [0:8), element type [8:12) on typed rows, then the
operands, then the keyword fields, then (tensor rows) the 2-bit mask mode. A tensor row whose mask
mode is not ALL is followed by two 64-bit mask words (see ``docs/encoding.md``).
"""

from __future__ import annotations

from vcore.isa import dist as D  # noqa: N812  (the distribution modes, as D.keyword)
from vcore.isa import types as T  # noqa: N812  (the type sets read as T.TENSOR_TYPES, like the docs)
from vcore.isa.conversions import DESTINATIONS, PAIRS, ROUND_MODES
from vcore.isa.model import (
    CONDITIONS,
    HISTOGRAMS,
    MASK_MODE_BITS,
    REDUCTIONS,
    WORD_BITS,
    BitField,
    Instruction,
    Keyword,
    Kind,
    Operand,
)

OPCODE_BITS = 8
TYPE_BITS = 4
CONDITION_BITS = 3
# The opcode blocks of register (vector-function) instructions: they need a profile with vector
# functions (the 950's micro API; the A2 has none).
REGISTER_OPCODES = frozenset(range(0x20, 0x40)) | frozenset(range(0xA0, 0xC0)) | frozenset(range(0xC0, 0xD0))
# The opcode block of vector-function structure: VF.BEGIN, VF.END, LOOP, ENDLOOP, MEMBAR.
FUNCTION_OPCODES = range(0x70, 0x78)
# Scalar instructions a vector function may hold: they run on the vector unit's own scalar lane.
FUNCTION_SCALAR_FAMILIES = ("mov", "mov_core", "alu")


def _row(mnemonic: str, form: str, opcode: int, types: tuple[str, ...], operands, keywords=(), *,
         pipe: str, timing: str, family: str, op: str, summary: str, example: str, mask: bool = False,
         pairs=(), conditions: tuple[str, ...] = (), part: str = "C",
         kernel: bool | None = None, type_rates: tuple[tuple[str, str], ...] = (),
         distinct: tuple[str, ...] = (), refused: tuple[tuple[str, str], ...] = ()) -> Instruction:
    """One row, its bit fields laid out. ``pairs``: the (D, S) pairs of a row with two types (its
    source types S are theirs). ``kernel`` defaults to whether its arithmetic is its op's element
    kernel: not for a type pair (a conversion, a pack) or a compare or reduction (a condition)."""
    pairs = tuple(pairs) if isinstance(pairs, tuple) else tuple(sorted(pairs))  # a set (VCONV's): sorted
    source_types = tuple(sorted({s for _, s in pairs}))
    fields = [BitField("opcode", 0, OPCODE_BITS)]
    pos = OPCODE_BITS
    if types:
        fields.append(BitField("type", pos, TYPE_BITS))
        pos += TYPE_BITS
    if source_types:
        fields.append(BitField("source_type", pos, TYPE_BITS))
        pos += TYPE_BITS
    if conditions:
        fields.append(BitField("condition", pos, CONDITION_BITS))
        pos += CONDITION_BITS
    for operand in operands:
        fields.append(BitField(operand.name, pos, operand.bits))
        pos += operand.bits
    for kw in keywords:
        if kw.encoded_bits:  # (a field of one choice, always written, takes no bits: dist=dintlv_bW)
            fields.append(BitField(kw.name, pos, kw.encoded_bits))
            pos += kw.encoded_bits
    if mask:
        fields.append(BitField("mask_mode", pos, MASK_MODE_BITS))
        pos += MASK_MODE_BITS
    words = -(-pos // WORD_BITS)
    return Instruction(mnemonic=mnemonic, form=form, opcode=opcode, types=tuple(types), operands=tuple(operands),
                       keywords=tuple(keywords), pipe=pipe, timing=timing, family=family, op=op, summary=summary,
                       has_mask=mask, fields=tuple(fields), words=words,
                       register=opcode in REGISTER_OPCODES, structure=opcode in FUNCTION_OPCODES,
                       source_types=source_types, pairs=pairs, conditions=tuple(conditions), part=part,
                       example=example,
                       kernel=not source_types and not conditions if kernel is None else kernel,
                       type_rates=tuple(type_rates), distinct=tuple(distinct), refused=tuple(refused))


def _ub(name: str) -> Operand:
    return Operand(name, Kind.UB)


def _v(name: str) -> Operand:
    return Operand(name, Kind.VREG)


def _p(name: str) -> Operand:
    return Operand(name, Kind.PREG)


def _s(name: str, writes: bool = False) -> Operand:
    return Operand(name, Kind.SREG, writes=writes)


REPEAT = Keyword("repeat", 8, 0, 255, default=1, doc="iterations (0 = no operation)")


def _stride(name: str, bits: int, lo: int, default: int, doc: str) -> Keyword:
    return Keyword(name, bits, lo, (1 << bits) - 1, default=default, doc=doc)


BINARY_STRIDES = (
    _stride("dstblk", 8, 1, 1, "destination block stride, in datablocks"),
    _stride("src0blk", 8, 0, 1, "source 0 block stride"),
    _stride("src1blk", 8, 0, 1, "source 1 block stride"),
    _stride("dstrep", 8, 0, 8, "destination repeat stride, in datablocks"),
    _stride("src0rep", 8, 0, 8, "source 0 repeat stride"),
    _stride("src1rep", 8, 0, 8, "source 1 repeat stride"),
)
UNARY_STRIDES = (
    _stride("dstblk", 16, 1, 1, "destination block stride, in datablocks"),
    _stride("srcblk", 16, 0, 1, "source block stride"),
    _stride("dstrep", 12, 0, 8, "destination repeat stride, in datablocks"),
    _stride("srcrep", 12, 0, 8, "source repeat stride"),
)
POST = Keyword("post", 16, -(1 << 15), (1 << 15) - 1, default=0,
               doc="add N elements to the base register after the access")
BLK = Keyword("blk", 8, 0, 255, doc="datablock mode: block b at Sa + b*B*32")
# VSQZ's ``cnt=Sn``: the function's own copy of Sn := k, the lanes it kept (laid out as the data gives)
SQUEEZE_COUNT = Keyword("cnt", 5, 0, 31, sreg=True, doc="the function's copy of Sn := k, the lanes kept")
CARRY = Keyword("carry", 3, 0, 7, preg=True, types=("u32",), doc="mask register receiving the carry (u32 only)")
ROUND = Keyword("round", 3, 0, len(ROUND_MODES) - 1, choices=ROUND_MODES,
                doc="rounding where the result is inexact: " + ", ".join(ROUND_MODES) + " (default rint)")
PART = Keyword("part", 2, 0, 3, doc="which element of each wide lane the narrow one is (0..k-1, default 0)")
HALF = Keyword("part", 1, 0, 1, default=0, choices=("lo", "hi"), doc="which half: lo (the default) or hi")
SAT = Keyword("sat", 1, 0, 1, default=0, flag=True,
              doc="a float narrowed to a float of smaller range saturates: past D's range (and +-inf) gives D's "
                  "largest finite value of its sign, NaN stays NaN; no other pair changes (950 only)")
FILL_STRIDES = (
    _stride("dstblk", 16, 1, 1, "destination block stride, in datablocks"),
    _stride("dstrep", 12, 0, 8, "destination repeat stride, in datablocks"),
)
COMPARE_STRIDES = tuple(k for k in BINARY_STRIDES if not k.name.startswith("dst"))
COMPARE_SCALAR_STRIDES = tuple(k for k in UNARY_STRIDES if not k.name.startswith("dst"))
DMA_FIELDS = (
    Keyword("blocks", 12, 1, 4095, default=1, doc="number of blocks"),
    Keyword("len", 16, 1, 65535, required=True, doc="block length, in 32-byte units"),
    Keyword("srcgap", 16, 0, 65535, default=0, doc="gap after each source block, in 32-byte units"),
    Keyword("dstgap", 16, 0, 65535, default=0, doc="gap after each destination block, in 32-byte units"),
)

_BINARY_OPS = (("VADD", "add", "d = a + b"), ("VSUB", "sub", "d = a - b"), ("VMUL", "mul", "d = a * b"),
               ("VMAX", "max", "d = max(a, b)"), ("VMIN", "min", "d = min(a, b)"))
# mnemonic, op, tensor types, register types, what it computes, its class's name (tensor.NAME and reg.NAME)
_UNARY_OPS = (("VEXP", "exp", T.TENSOR_FLOAT, T.TENSOR_FLOAT, "d = exp(a)", "transcendental"),
              ("VABS", "abs", T.TENSOR_SIGNED, T.REG_SIGNED, "d = |a|", ""),
              ("VRELU", "relu", T.TENSOR_SIGNED, T.REG_SIGNED, "d = max(a, 0)", ""),
              ("VLN", "ln", T.TENSOR_FLOAT, T.TENSOR_FLOAT, "d = ln(a)", "transcendental"),
              ("VSQRT", "sqrt", T.TENSOR_FLOAT, T.TENSOR_FLOAT, "d = sqrt(a)", "transcendental"))
_SCALAR_OPS = (("VADDS", "adds", "d = a + scalar"), ("VMULS", "muls", "d = a * scalar"),
               ("VMAXS", "maxs", "d = max(a, scalar)"), ("VMINS", "mins", "d = min(a, scalar)"))
_ALU_OPS = (("ADD", "add"), ("SUB", "sub"), ("MUL", "mul"), ("AND", "and"), ("OR", "or"), ("XOR", "xor"),
            ("SHL", "shl"), ("SHR", "shr"))
_BRANCHES = (("BEQ", "eq"), ("BNE", "ne"), ("BLT", "lt"), ("BGE", "ge"))

# Scheduling classes (the ``timing`` column) are records of ``isa.classes``: what prices a row, how its
# cycles are counted and the units it holds; every built-in profile prices every class (the emulator
# checks it at import).
#
# Examples: a tensor instruction's example writes at 0x20000 and reads at 0x0 and 0x10000 (its bits at
# 0x18000), without ``repeat=``, so that 255 iterations of it read nothing another wrote (the tests
# add ``repeat=``); a register instruction's is the instruction alone, run inside a vector function.


def _build() -> tuple[Instruction, ...]:
    rows: list[Instruction] = []
    # 0x10..0x1F: tensor instructions (UB to UB, iterated), pipe V.
    for i, (mn, op, text) in enumerate(_BINARY_OPS):
        rows.append(_row(mn, "tensor-binary", 0x10 + i, T.TENSOR_TYPES, (_ub("dst"), _ub("src0"), _ub("src1")),
                         (REPEAT, *BINARY_STRIDES), pipe="V", timing="tensor.binary", family="tensor", op=op,
                         summary=f"tensor {text}, iterated over UB", mask=True,
                         example=f"{mn}.f16 [0x20000], [0x0], [0x10000]"))
    for i, (mn, op, types, _, text, cls) in enumerate(_UNARY_OPS):
        rows.append(_row(mn, "tensor-unary", 0x15 + i, types, (_ub("dst"), _ub("src")), (REPEAT, *UNARY_STRIDES),
                         pipe="V", timing=f"tensor.{cls or 'unary'}", family="tensor", op=op,
                         summary=f"tensor {text}, iterated over UB", mask=True,
                         example=f"{mn}.f16 [0x20000], [0x0]"))
    for i, (mn, op, text) in enumerate(_SCALAR_OPS):
        rows.append(_row(mn, "tensor-scalar", 0x1A + i, T.TENSOR_TYPES,
                         (_ub("dst"), _ub("src"), Operand("scalar", Kind.SCALAR)), (REPEAT, *UNARY_STRIDES),
                         pipe="V", timing="tensor.binary", family="tensor", op=op,
                         summary=f"tensor {text}, iterated over UB", mask=True,
                         example=f"{mn}.f16 [0x20000], [0x0], 2.0"))
    rows.append(_row("VDIV", "tensor-binary", 0x1E, (*T.TENSOR_FLOAT, *T.INT_DIVIDE),
                     (_ub("dst"), _ub("src0"), _ub("src1")),
                     (REPEAT, *BINARY_STRIDES), pipe="V", timing="tensor.divide", family="tensor", op="div",
                     summary="tensor d = a / b, correctly rounded (integers: toward zero, x / 0 all ones; 950 only), "
                             "iterated over UB", mask=True,
                     example="VDIV.f32 [0x20000], [0x0], [0x10000]"))
    rows.append(_row("VREM", "tensor-binary", 0x1F, T.INT_DIVIDE, (_ub("dst"), _ub("src0"), _ub("src1")),
                     (REPEAT, *BINARY_STRIDES), pipe="V", timing="tensor.remainder", family="tensor", op="rem",
                     summary="tensor d = a - trunc(a / b) * b (the sign of a; a % 0 = a; 950 only), iterated over UB",
                     mask=True, example="VREM.s32 [0x20000], [0x0], [0x10000]"))
    # 0x20..0x3F: register (vector function) instructions, pipe V.
    rows.append(_row("VLD", "reg-load", 0x20, T.ALL_DATA, (_v("vd"), _ub("addr")),
                     (POST, BLK, D.keyword("VLD", D.VLD_ONE)), pipe="V", timing="reg.load", family="vld", op="load",
                     summary="load VL bytes of UB into Vd (dist=: broadcast, up/down-sample, unpack, block modes)",
                     example="VLD.f32 V0, [S1]"))
    rows.append(_row("VST", "reg-store", 0x21, T.ALL_DATA, (_ub("addr"), _v("vs"), _p("pm")),
                     (POST, BLK, D.keyword("VST", D.VST_NORM)), pipe="V", timing="reg.store", family="vst", op="store",
                     summary="store the active lanes of Vs to UB", example="VST.f32 [S1], V0, P0"))
    binary_examples = {"VADD": "VADD.f32 V0, V1, V2, P0", "VSUB": "VSUB.u32 V0, V1, V2, P0, carry=P1",
                       "VMUL": "VMUL.f16 V0, V1, V2, P0", "VMAX": "VMAX.s16 V0, V1, V2, P0",
                       "VMIN": "VMIN.f32 V0, V1, V2, P0"}
    for i, (mn, op, text) in enumerate(_BINARY_OPS):
        keywords = (CARRY,) if op == "sub" else ()
        # The 950 adds f32 at 64 lanes a cycle, int32 at 32 (documented): its own profile entry.
        rates = (("f32", "float32_add"),) if op == "add" else ()
        rows.append(_row(mn, "reg-binary", 0x22 + i, T.REG_TYPES, (_v("vd"), _v("va"), _v("vb"), _p("pm")),
                         keywords, pipe="V", timing="reg.alu", family="vbinary", op=op,
                         summary=f"register {text}; inactive lanes zero", type_rates=rates,
                         example=binary_examples[mn]))
    for i, (mn, op, _, types, text, cls) in enumerate(_UNARY_OPS):
        rows.append(_row(mn, "reg-unary", 0x27 + i, types, (_v("vd"), _v("va"), _p("pm")), pipe="V",
                         timing=f"reg.{cls or 'alu'}", family="vunary", op=op,
                         summary=f"register {text}; inactive lanes zero",
                         example=f"{mn}.{'f16' if mn == 'VABS' else 'f32'} V0, V1, P0"))
    scalar_examples = {"VADDS": "VADDS.f32 V0, V1, 1.0, P0", "VMULS": "VMULS.f32 V0, V1, 2.0, P0",
                       "VMAXS": "VMAXS.f32 V0, V1, 0.0, P0", "VMINS": "VMINS.f32 V0, V1, S2, P0"}
    for i, (mn, op, text) in enumerate(_SCALAR_OPS):
        rows.append(_row(mn, "reg-scalar", 0x2C + i, T.REG_TYPES,
                         (_v("vd"), _v("va"), Operand("scalar", Kind.SCALAR), _p("pm")), pipe="V",
                         timing="reg.alu", family="vscalar", op=op, summary=f"register {text}; inactive lanes zero",
                         example=scalar_examples[mn]))
    rows.append(_row("VGATHER", "reg-gather-ub", 0x30, T.GATHER_UB_TYPES, (_v("vd"), _ub("addr"), _v("vi"), _p("pm")),
                     pipe="V", timing="reg.gather", family="vgather_ub", op="gather",
                     summary="d[i] = T at addr + idx[i]*size; inactive lanes zero, not read",
                     example="VGATHER.f32 V0, [S1], V1, P0"))
    rows.append(_row("VGATHER", "reg-gather-reg", 0x31, T.GATHER_REG_TYPES, (_v("vd"), _v("vs"), _v("vi")),
                     pipe="V", timing="reg.permute", family="vgather_reg", op="gather",
                     summary="d[i] = s[idx[i] % lanes]", example="VGATHER.f32 V0, V1, V2"))
    rows.append(_row("VSCATTER", "reg-scatter", 0x32, T.SCATTER_TYPES, (_ub("addr"), _v("vs"), _v("vi"), _p("pm")),
                     pipe="V", timing="reg.scatter", family="vscatter", op="scatter",
                     summary="T at addr + idx[i]*size = s[i] for active lanes; the higher lane wins",
                     example="VSCATTER.f32 [S1], V0, V1, P0"))
    rows.append(_row("PSET", "mask-pattern", 0x33, T.MASK_WIDTHS, (_p("pd"), Operand("pattern", Kind.PATTERN)),
                     pipe="V", timing="reg.mask", family="pset", op="pset",
                     summary="Pd = a lane pattern: ALL, ALLF (none), VLn (the first n), H / Q (the first half / "
                             "quarter), M3 / M4 (lanes whose index is a multiple of 3 / 4)",
                     example="PSET.b32 P0, ALL"))
    rows.append(_row("PUPDATE", "mask-update", 0x34, T.MASK_WIDTHS, (_p("pd"), _s("sc", writes=True)), pipe="V",
                     timing="reg.mask", family="pupdate", op="pupdate",
                     summary="Pd = first min(Sc, lanes) lanes; Sc = max(0, Sc - lanes)", example="PUPDATE.b16 P0, S2"))
    rows.append(_row("PLD", "mask-load", 0x35, (), (_p("pd"), _ub("addr")), (D.keyword("PLD", D.PLD_MODES),), pipe="V",
                     timing="reg.mask_load", family="pld", op="pld",
                     summary="load 32 bytes of UB into Pd (dist=us: 16 bytes, each bit twice; ds: 64, every other bit)",
                     example="PLD P0, [S1]"))
    rows.append(_row("PST", "mask-store", 0x36, (), (_ub("addr"), _p("ps")), (D.keyword("PST", D.PST_MODES),), pipe="V",
                     timing="reg.mask_store", family="pst", op="pst",
                     summary="store Pd's 32 bytes to UB (dist=pack: 16 bytes, every other bit)",
                     example="PST [S1], P0"))
    rows.append(_row("VDIV", "reg-binary", 0x37, (*T.TENSOR_FLOAT, *T.INT_DIVIDE),
                     (_v("vd"), _v("va"), _v("vb"), _p("pm")),
                     pipe="V", timing="reg.transcendental", family="vbinary", op="div",
                     summary="register d = a / b, correctly rounded (integers: toward zero, x / 0 all ones); "
                             "inactive lanes zero",
                     example="VDIV.f16 V0, V1, V2, P0"))
    rows.append(_row("VREM", "reg-binary", 0x39, T.INT_DIVIDE, (_v("vd"), _v("va"), _v("vb"), _p("pm")),
                     pipe="V", timing="reg.remainder", family="vbinary", op="rem",
                     summary="register d = a - trunc(a / b) * b (the sign of a; a % 0 = a); inactive lanes zero",
                     example="VREM.s32 V0, V1, V2, P0"))
    rows.append(_row("VEXPDIF", "reg-binary", 0x38, T.TENSOR_FLOAT, (_v("vd"), _v("va"), _v("vb"), _p("pm")),
                     pipe="V", timing="reg.transcendental", family="vbinary", op="expdif",
                     summary="register d = exp(a - b) in one instruction (ExpSub), within 2 ulp; inactive lanes zero",
                     example="VEXPDIF.f32 V0, V1, V2, P0"))
    # 0x40..0x5F: scalar unit, pipe S.
    rows.append(_row("MOV", "scalar-mov", 0x40, (), (_s("sd", writes=True), Operand("src", Kind.IMM, imm_bits=50)),
                     pipe="S", timing="scalar.alu", family="mov", op="mov", summary="Sd = EXPR or Ss",
                     example="MOV S1, 42"))
    for i, (mn, op) in enumerate(_ALU_OPS):
        rows.append(_row(mn, "scalar-alu", 0x41 + i, (),
                         (_s("sd", writes=True), _s("sa"), Operand("sb", Kind.SRC, imm_bits=44)), pipe="S",
                         timing="scalar.mul" if op == "mul" else "scalar.alu", family="alu", op=op,
                         summary=f"Sd = Sa {op} Sb|EXPR", example=f"{mn} S1, S2, 3"))
    for i, (mn, op) in enumerate(_BRANCHES):
        rows.append(_row(mn, "branch", 0x50 + i, (),
                         (_s("sa"), Operand("sb", Kind.SRC, imm_bits=26), Operand("target", Kind.TARGET)),
                         pipe="S", timing="scalar.branch", family="branch", op=op,
                         summary=f"branch to label when Sa {op} Sb|EXPR (signed)",
                         example=f"{mn} S1, 0, next\nnext: NOP"))
    rows.append(_row("JMP", "jump", 0x54, (), (Operand("target", Kind.TARGET),), pipe="S", timing="scalar.branch",
                     family="jump", op="jmp", summary="jump to label", example="JMP next\nNOP\nnext: NOP"))
    rows.append(_row("NOP", "none", 0x55, (), (), pipe="S", timing="scalar.nop", family="nop", op="nop",
                     summary="do nothing for one scalar slot", example="NOP"))
    rows.append(_row("HALT", "none", 0x56, (), (), pipe="S", timing="scalar.nop", family="halt", op="halt",
                     summary="stop reading the program; the run ends when the pipes drain", example="HALT"))
    # 0x60..0x6F: data movement and synchronisation.
    rows.append(_row("DMA.GM2UB", "dma-in", 0x60, (), (_ub("dst"), Operand("src", Kind.GM)), DMA_FIELDS,
                     pipe="MTE2", timing="dma.gm2ub", family="dma", op="gm2ub",
                     summary="copy blocks from GM to UB", example="DMA.GM2UB [0x0], gm[0x0], len=1"))
    rows.append(_row("DMA.UB2GM", "dma-out", 0x61, (), (Operand("dst", Kind.GM), _ub("src")), DMA_FIELDS,
                     pipe="MTE3", timing="dma.ub2gm", family="dma", op="ub2gm",
                     summary="copy blocks from UB to GM", example="DMA.UB2GM gm[0x0], [0x0], len=1"))
    pipe_ops = (Operand("src_pipe", Kind.PIPE), Operand("dst_pipe", Kind.PIPE), Operand("event", Kind.EVENT))
    flag_pair = ("DMA.GM2UB [0x0], gm[0x0], len=1\nSETFLAG MTE2, V, 0\nWAITFLAG MTE2, V, 0\n"
                 "VADD.f16 [0x100], [0x0], [0x0]")
    rows.append(_row("SETFLAG", "flag", 0x62, (), pipe_ops, pipe="flag", timing="sync.setflag", family="setflag",
                     op="set", summary="set event flag once all earlier work of SRC_PIPE is done", example=flag_pair))
    rows.append(_row("WAITFLAG", "flag", 0x63, (), pipe_ops, pipe="flag", timing="sync.waitflag", family="waitflag",
                     op="wait", summary="hold DST_PIPE until the flag is set, then clear it", example=flag_pair))
    rows.append(_row("BARRIER", "barrier", 0x64, (), (Operand("pipe", Kind.BARRIER_PIPE),), pipe="flag",
                     timing="sync.barrier", family="barrier", op="barrier",
                     summary="hold later work of PIPE (or every pipe) until its earlier work is done",
                     example="BARRIER ALL"))
    rows.append(_row("SYNCALL", "none", 0x65, (), (), pipe="S", timing="sync.syncall", family="syncall", op="syncall",
                     summary="wait until every pipe of this core is done and every core of the kernel has arrived "
                             "(GM written before it is then seen by all)", example="SYNCALL"))
    # 0x70..0x77: vector functions (the 950's __simd_vf__): their bounds, hardware loops, UB order.
    rows.append(_row("VF.BEGIN", "function", 0x70, (), (), pipe="V", timing="vf.launch", family="vf_begin",
                     op="begin", summary="launch the function up to VF.END on V; S goes on after VF.END",
                     example="VF.BEGIN\nPSET.b32 P0, ALL\nVF.END"))
    rows.append(_row("VF.END", "function", 0x71, (), (), pipe="V", timing="vf.end", family="vf_end", op="end",
                     summary="the end of a vector function", example="VF.BEGIN\nVF.END"))
    hardware_loop = "MOV S1, 3\nVF.BEGIN\nLOOP S1\nPSET.b32 P0, ALL\nENDLOOP\nVF.END"
    rows.append(_row("LOOP", "loop", 0x72, (), (Operand("count", Kind.SRC, imm_bits=33),), pipe="V",
                     timing="vf.loop_startup", family="loop", op="loop",
                     summary="a hardware loop: run the body up to ENDLOOP N or Sn times (read when it starts)",
                     example=hardware_loop))
    rows.append(_row("ENDLOOP", "loop", 0x73, (), (), pipe="V", timing="vf.end", family="endloop", op="endloop",
                     summary="the end of a hardware loop's body", example=hardware_loop))
    rows.append(_row("MEMBAR", "membar", 0x74, (), (), pipe="V", timing="vf.membar", family="membar",
                     op="membar", summary="order the function's UB accesses: later ones wait for earlier ones",
                     example="VF.BEGIN\nVST.f32 [S1], V0, P0\nMEMBAR\nVLD.f32 V1, [S1]\nVF.END"))
    _wave_one(rows)
    _bitwise(rows)
    _fused(rows)
    _reductions(rows)
    _transposes(rows)
    _compaction_and_sort(rows)
    return tuple(rows)


def _wave_one(rows: list[Instruction]) -> None:
    """Conversion, fill, division's friends, compare and select, mask logic, scalar memory access and
    wide constants (docs/isa.md)."""
    scalar = Operand("scalar", Kind.SCALAR)
    unary_fields = (REPEAT, *UNARY_STRIDES)
    fill_fields = (REPEAT, *FILL_STRIDES)
    # 0x80..0x9F: more tensor instructions, pipe V.
    rows.append(_row("VCONV", "tensor-conv", 0x80, DESTINATIONS, (_ub("dst"), _ub("src")),
                     (ROUND, *unary_fields, SAT), pipe="V", timing="tensor.unary", family="tensor_conv", op="conv",
                     mask=True, pairs=PAIRS, summary="tensor d = S converted to D, iterated over UB (lanes of the "
                                                   "wider type)",
                     example="VCONV.f16.f32 [0x20000], [0x0], dstrep=4, round=floor"))
    rows.append(_row("VDUP", "tensor-fill", 0x81, T.TENSOR_TYPES, (_ub("dst"), scalar), fill_fields, pipe="V",
                     timing="tensor.unary", family="tensor", op="dup", mask=True,
                     summary="tensor d = scalar in every active lane of every iteration",
                     example="VDUP.f16 [0x20000], 1.5"))
    for i, (mn, op, types, text, example) in enumerate((
            ("VREC", "rec", T.TENSOR_FLOAT, "d = 1 / a, correctly rounded", "VREC.f32 [0x20000], [0x0]"),
            ("VRSQRT", "rsqrt", T.TENSOR_FLOAT, "d = 1 / sqrt(a), correctly rounded", "VRSQRT.f32 [0x20000], [0x0]"),
            ("VNEG", "neg", T.TENSOR_SIGNED, "d = -a", "VNEG.f16 [0x20000], [0x0], mask=(0x5555, 0x5555)"))):
        rows.append(_row(mn, "tensor-unary", 0x82 + i, types, (_ub("dst"), _ub("src")), unary_fields, pipe="V",
                         timing="tensor.unary", family="tensor", op=op, mask=True,
                         summary=f"tensor {text}, iterated over UB", example=example))
    rows.append(_row("VLRELU", "tensor-scalar", 0x85, T.TENSOR_FLOAT, (_ub("dst"), _ub("src"), scalar),
                     unary_fields, pipe="V", timing="tensor.unary", family="tensor", op="lrelu", mask=True,
                     summary="tensor d = a >= 0 ? a : a * scalar, iterated over UB",
                     example="VLRELU.f16 [0x20000], [0x0], 0.25"))
    rows.append(_row("VARANGE", "tensor-fill", 0x86, T.ARANGE_TENSOR, (_ub("dst"), Operand("start", Kind.SCALAR)),
                     fill_fields, pipe="V", timing="tensor.unary", family="tensor", op="arange", mask=True,
                     summary="tensor lane i of iteration r = start + r * lanes + i",
                     example="VARANGE.f32 [0x20000], 0.5, mask=17"))
    rows.append(_row("VCMP", "tensor-compare", 0x87, T.TENSOR_TYPES, (_ub("dst"), _ub("src0"), _ub("src1")),
                     (REPEAT, *COMPARE_STRIDES), pipe="V", timing="tensor.binary", family="tensor_compare",
                     op="cmp", mask=True, conditions=CONDITIONS,
                     summary="tensor bits of a C b, lanes / 8 bytes an iteration at dst + r * lanes / 8",
                     example="VCMP.LT.f16 [0x20000], [0x0], [0x10000]"))
    rows.append(_row("VCMPS", "tensor-compare-scalar", 0x88, T.TENSOR_TYPES, (_ub("dst"), _ub("src"), scalar),
                     (REPEAT, *COMPARE_SCALAR_STRIDES), pipe="V", timing="tensor.unary", family="tensor_compare",
                     op="cmps", mask=True, conditions=CONDITIONS,
                     summary="tensor bits of a C scalar, lanes / 8 bytes an iteration at dst + r * lanes / 8",
                     example="VCMPS.NE.f32 [0x20000], [0x0], 1.0, mask=33"))
    rows.append(_row("VSEL", "tensor-select", 0x89, T.TENSOR_TYPES,
                     (_ub("dst"), _ub("src0"), _ub("src1"), _ub("sel")), (REPEAT, *BINARY_STRIDES), pipe="V",
                     timing="tensor.binary", family="tensor_select", op="sel", mask=True, kernel=False,
                     summary="tensor d = bit ? a : b, the bits of iteration r at sel + r * lanes / 8",
                     example="VSEL.f16 [0x20000], [0x0], [0x10000], [0x18000]"))
    rows.append(_row("VSELS", "tensor-select-scalar", 0x8A, T.TENSOR_TYPES,
                     (_ub("dst"), _ub("src0"), scalar, _ub("sel")), unary_fields, pipe="V",
                     timing="tensor.binary", family="tensor_select", op="sels", mask=True, kernel=False,
                     summary="tensor d = bit ? a : scalar, the bits of iteration r at sel + r * lanes / 8",
                     example="VSELS.f32 [0x20000], [0x0], 2.0, [0x18000], mask=(0xFF00FF, 0)"))
    # 0xA0..0xCF: more register (vector function) instructions, pipe V.
    rows.append(_row("VCONV", "reg-conv", 0xA0, DESTINATIONS, (_v("vd"), _v("va"), _p("pm")), (ROUND, PART, SAT),
                     pipe="V", timing="reg.convert", family="vconv", op="conv", pairs=PAIRS,
                     summary="register d = S converted to D (part= places narrow lanes); inactive lanes zero",
                     example="VCONV.f16.f32 V0, V1, P0, part=1"))
    rows.append(_row("VDUP", "reg-dup-scalar", 0xA1, T.REG_TYPES, (_v("vd"), scalar, _p("pm")), pipe="V",
                     timing="reg.alu", family="vdup", op="dup", summary="register d = scalar; inactive lanes zero",
                     example="VDUP.f32 V0, 1.0, P0"))
    rows.append(_row("VDUP", "reg-dup-lane", 0xA2, T.REG_TYPES, (_v("vd"), _v("va"), _p("pm")), pipe="V",
                     timing="reg.alu", family="vdup", op="dup",
                     summary="register d = lane 0 of a; inactive lanes zero",
                     example="VDUP.f32 V0, V1, P0"))
    rows.append(_row("VNEG", "reg-unary", 0xA3, T.REG_SIGNED, (_v("vd"), _v("va"), _p("pm")), pipe="V",
                     timing="reg.alu", family="vunary", op="neg", summary="register d = -a; inactive lanes zero",
                     example="VNEG.f32 V0, V1, P0"))
    rows.append(_row("VLRELU", "reg-scalar", 0xA4, T.TENSOR_FLOAT, (_v("vd"), _v("va"), scalar, _p("pm")),
                     pipe="V", timing="reg.alu", family="vscalar", op="lrelu",
                     summary="register d = a >= 0 ? a : a * scalar; inactive lanes zero",
                     example="VLRELU.f16 V0, V1, 0.5, P0"))
    rows.append(_row("VARANGE", "reg-arange", 0xA5, T.ARANGE_REG, (_v("vd"), scalar), pipe="V", timing="reg.alu",
                     family="varange", op="arange", summary="register lane i = scalar + i",
                     example="VARANGE.s32 V0, 3"))
    rows.append(_row("VCMP", "reg-compare", 0xA6, T.REG_TYPES, (_p("pd"), _v("va"), _v("vb"), _p("pm")), pipe="V",
                     timing="reg.alu", family="vcompare", op="cmp", conditions=CONDITIONS,
                     summary="register Pd = a C b per lane; inactive lanes false",
                     example="VCMP.LT.f32 P1, V0, V1, P0"))
    rows.append(_row("VCMPS", "reg-compare-scalar", 0xA7, T.REG_TYPES, (_p("pd"), _v("va"), scalar, _p("pm")),
                     pipe="V", timing="reg.alu", family="vcompare", op="cmps", conditions=CONDITIONS,
                     summary="register Pd = a C scalar per lane; inactive lanes false",
                     example="VCMPS.GE.s16 P1, V0, 7, P0"))
    rows.append(_row("VSEL", "reg-select", 0xA8, T.REG_TYPES, (_v("vd"), _v("va"), _v("vb"), _p("pm")), pipe="V",
                     timing="reg.alu", family="vselect", op="sel", kernel=False,
                     summary="register d = Pm ? a : b, every lane", example="VSEL.f32 V0, V1, V2, P0"))
    for i, (mn, op, text) in enumerate((("PAND", "and", "Pa and Pb"), ("POR", "or", "Pa or Pb"),
                                        ("PXOR", "xor", "Pa xor Pb"))):
        rows.append(_row(mn, "mask-logic", 0xA9 + i, (), (_p("pd"), _p("pa"), _p("pb")), pipe="V",
                         timing="reg.mask", family="plogic", op=op, summary=f"Pd = {text}, all 256 bits",
                         example=f"{mn} P0, P1, P2"))
    rows.append(_row("PNOT", "mask-not", 0xAC, (), (_p("pd"), _p("pa")), pipe="V", timing="reg.mask",
                     family="plogic", op="not", summary="Pd = not Pa, all 256 bits",
                     example="PNOT P0, P1"))
    _mask_rearrangement(rows)
    _register_rearrangement(rows)
    _distributions(rows)
    # More scalar instructions, pipe S.
    rows.append(_row("MOV", "scalar-mov-wide", 0x57, (), (_s("sd", writes=True), Operand("src", Kind.IMM, imm_bits=64)),
                     pipe="S", timing="scalar.alu", family="mov", op="mov",
                     summary="Sd = a 64-bit constant (the two-word MOV, for constants past 50 bits)",
                     example="MOV S1, 0x123456789ABCDEF"))
    rows.append(_row("MOV", "scalar-mov-core", 0x49, (), (_s("sd", writes=True), Operand("src", Kind.CORE)),
                     pipe="S", timing="scalar.alu", family="mov_core", op="core",
                     summary="Sd = this core's block index (0..N-1) or the number of cores N (run --cores N)",
                     example="MOV S1, BLOCKIDX"))
    memory = T.SCALAR_MEMORY
    rows.append(_row("LD", "scalar-load-ub", 0x58, memory, (_s("sd", writes=True), Operand("addr", Kind.UB_BYTE)),
                     pipe="S", timing="scalar.load_ub", family="ld", op="ub",
                     summary="Sd = the T at a UB byte address (signed types sign-extend)",
                     example="LD.s32 S1, [0x100]"))
    rows.append(_row("LD", "scalar-load-gm", 0x59, memory, (_s("sd", writes=True), Operand("addr", Kind.GM)),
                     pipe="S", timing="scalar.load_gm", family="ld", op="gm",
                     summary="Sd = the T at a GM byte address (signed types sign-extend)",
                     example="LD.s32 S2, gm[S1 + 4]"))
    rows.append(_row("ST", "scalar-store-ub", 0x5A, memory, (Operand("addr", Kind.UB_BYTE), _s("ss")), pipe="S",
                     timing="scalar.store_ub", family="st", op="ub",
                     summary="the T at a UB byte address = the low bits of Ss",
                     example="ST.u8 [0x103], S2"))
    rows.append(_row("ST", "scalar-store-gm", 0x5B, memory, (Operand("addr", Kind.GM), _s("ss")), pipe="S",
                     timing="scalar.store_gm", family="st", op="gm",
                     summary="the T at a GM byte address = the low bits of Ss",
                     example="ST.u16 gm[0x40], S2"))


def _mask_rearrangement(rows: list[Instruction]) -> None:
    """CONTRACT 13.2: predicate select, pack, unpack, interleave and de-interleave (950, in functions)."""
    rows.append(_row("PSEL", "mask-select", 0x3A, (), (_p("pd"), _p("pa"), _p("pb"), _p("pm")), pipe="V",
                     timing="reg.mask", family="plogic", op="sel", summary="Pd = Pm ? Pa : Pb, bit by bit (256 bits)",
                     example="PSEL P3, P1, P2, P0"))
    rows.append(_row("PPACK", "mask-half", 0x3B, (), (_p("pd"), _p("ps")), (HALF,), pipe="V",
                     timing="reg.mask_permute", family="prearrange", op="pack",
                     summary="Pd bit k = Ps bit 2k, k < 128, into the lo (or hi) half; the other half 0",
                     example="PPACK P1, P0, part=hi"))
    rows.append(_row("PUNPACK", "mask-half", 0x3C, (), (_p("pd"), _p("ps")), (HALF,), pipe="V",
                     timing="reg.mask_permute", family="prearrange", op="unpack",
                     summary="Pd bit 2k = Ps bit k (of the lo or hi half), bit 2k+1 = 0",
                     example="PUNPACK P1, P0"))
    for opcode, mn, op, text in ((0x3D, "PINTLV", "intlv", "interleave Pa's and Pb's w-bit groups into Pd0, Pd1"),
                                 (0x3E, "PDINTLV", "dintlv", "de-interleave Pa then Pb: even groups to Pd0, odd "
                                                             "to Pd1")):
        rows.append(_row(mn, "mask-pair", opcode, T.MASK_WIDTHS, (_p("pd0"), _p("pd1"), _p("pa"), _p("pb")),
                         pipe="V", timing="reg.mask_permute", family="prearrange", op=op, summary=text,
                         example=f"{mn}.b16 P2, P3, P0, P1", distinct=("pd0", "pd1")))


def _register_rearrangement(rows: list[Instruction]) -> None:
    """CONTRACT 13.3 and 13.6: register interleave, de-interleave, pack and unpack, and the histogram
    (950, in functions). Sources are read before a destination is written (13.12)."""
    for opcode, mn, op, text in ((0xB9, "VINTLV", "intlv", "Vd0 = the first, Vd1 the last L elements of a0, b0, "
                                                           "a1, b1, ..."),
                                 (0xBA, "VDINTLV", "dintlv", "Vd0 = the even, Vd1 the odd elements of Va then Vb")):
        rows.append(_row(mn, "reg-pair", opcode, T.ALL_DATA, (_v("vd0"), _v("vd1"), _v("va"), _v("vb")), pipe="V",
                         timing="reg.interleave", family="vrearrange", op=op, summary=text, kernel=False,
                         example=f"{mn}.f16 V2, V3, V0, V1", distinct=("vd0", "vd1")))
    rows.append(_row("VPACK", "reg-half", 0xBB, tuple(sorted({d for d, _ in T.PACK_PAIRS})), (_v("vd"), _v("va")),
                     (HALF,), pipe="V", timing="reg.pack", family="vrearrange", op="pack", pairs=T.PACK_PAIRS,
                     summary="element i (part=hi: L_S + i) of Vd as D = the low bits of lane i of Va as S; the "
                             "other half 0",
                     example="VPACK.u8.s16 V1, V0, part=hi"))
    rows.append(_row("VUNPACK", "reg-half", 0xBC, tuple(sorted({d for d, _ in T.UNPACK_PAIRS})),
                     (_v("vd"), _v("va")), (HALF,), pipe="V", timing="reg.pack", family="vrearrange", op="unpack",
                     pairs=T.UNPACK_PAIRS,
                     summary="lane i of Vd as D = element i (part=hi: L_D + i) of Va as S, sign- or zero-extended by S",
                     example="VUNPACK.s32.s16 V1, V0"))
    rows.append(_row("VHIST", "reg-histogram", 0xBD, (), (_v("vd"), _v("va"), _p("pm")), pipe="V",
                     timing="reg.histogram", family="vhist", op="hist", conditions=HISTOGRAMS, part="K.BINn",
                     summary="Vd's 128 u16 counters += the active u8 lanes of Va equal to b + n (FREQ) or in "
                             "b..b + n (CUM), b = 0 (BIN0) or 128 (BIN1); wraps",
                     example="VHIST.CUM.BIN1 V1, V0, P0"))


def _distributions(rows: list[Instruction]) -> None:
    """CONTRACT 13.1: the loads and stores whose distribution mode moves two registers or reads no mask, and
    the pack stores (950, in functions); the other modes are VLD's and VST's ``dist=``."""
    pair_post = (POST,)
    rows.append(_row("VLD", "reg-load-pair", 0xC0, T.ALL_DATA, (_v("vd0"), _v("vd1"), _ub("addr")),
                     (*pair_post, D.keyword("VLD", D.VLD_TWO, required=True)), pipe="V", timing="reg.load",
                     family="vld_pair", op="load",
                     summary="de-interleave 512 bytes of UB: even elements to Vd0, odd ones to Vd1",
                     example="VLD.f16 V0, V1, [S1], dist=dintlv_b16", distinct=("vd0", "vd1")))
    rows.append(_row("VST", "reg-store-first", 0xC1, T.ALL_DATA, (_ub("addr"), _v("vs")),
                     (*pair_post, D.keyword("VST", D.VST_FIRST, required=True)), pipe="V", timing="reg.store",
                     family="vst_first", op="store", summary="store lane 0 of Vs: one element (no mask)",
                     example="VST.f32 [S1], V0, dist=first_b32"))
    rows.append(_row("VST", "reg-store-pair", 0xC2, T.ALL_DATA, (_ub("addr"), _v("vs0"), _v("vs1")),
                     (*pair_post, D.keyword("VST", D.VST_TWO, required=True)), pipe="V", timing="reg.store",
                     family="vst_pair", op="store", summary="interleave Vs0 and Vs1 into 512 bytes of UB (no mask)",
                     example="VST.s16 [S1], V0, V1, dist=intlv_b16"))
    rows.append(_row("VST", "reg-store-pack", 0xC3, T.PACK_STORE_TYPES, (_ub("addr"), _v("vs"), _p("pm")),
                     (*pair_post, D.keyword("VST", D.VST_PACK, required=True)), pipe="V", timing="reg.store",
                     family="vst_pack", op="store",
                     summary="store the low half (pack) or quarter (pack4) of each active wide lane, narrowed to T",
                     example="VST.s8 [S1], V0, P0, dist=pack4_b32"))


def _bitwise(rows: list[Instruction]) -> None:
    """Bitwise logic and shifts on 16/32-bit integers, tensor and register forms (docs/isa.md)."""
    ints = T.INT_16_32
    unary_fields = (REPEAT, *UNARY_STRIDES)
    # mnemonic, op, what it computes, the register form's example type
    logic = (("VAND", "and", "a and b", "u16"), ("VOR", "or", "a or b", "s32"), ("VXOR", "xor", "a xor b", "u32"))
    # mnemonic, op, what it computes, the examples of the tensor, register-scalar and register-binary forms
    shifts = (("VSHL", "shl", "a << n", ("VSHL.s16 [0x20000], [0x0], 3", "VSHL.u32 V0, V1, 3, P0",
                                          "VSHL.s32 V0, V1, V2, P0")),
              ("VSHR", "shr", "a >> n (logical on unsigned, arithmetic on signed)",
               ("VSHR.s32 [0x20000], [0x0], 7, mask=(0xF0F0, 0)", "VSHR.s16 V0, V1, S2, P0",
                "VSHR.u16 V0, V1, V2, P0")))
    for i, (mn, op, text, reg_type) in enumerate(logic):
        rows.append(_row(mn, "tensor-binary", 0x8B + i, ints, (_ub("dst"), _ub("src0"), _ub("src1")),
                         (REPEAT, *BINARY_STRIDES), pipe="V", timing="tensor.binary", family="tensor", op=op,
                         mask=True, summary=f"tensor d = {text}, iterated over UB",
                         example=f"{mn}.u16 [0x20000], [0x0], [0x10000]"))
        rows.append(_row(mn, "reg-binary", 0xAD + i, ints, (_v("vd"), _v("va"), _v("vb"), _p("pm")), pipe="V",
                         timing="reg.alu", family="vbinary", op=op,
                         summary=f"register d = {text}; inactive lanes zero",
                         example=f"{mn}.{reg_type} V0, V1, V2, P0"))
    rows.append(_row("VNOT", "tensor-unary", 0x8E, ints, (_ub("dst"), _ub("src")), unary_fields, pipe="V",
                     timing="tensor.unary", family="tensor", op="not", mask=True,
                     summary="tensor d = not a, iterated over UB", example="VNOT.s32 [0x20000], [0x0], mask=9"))
    rows.append(_row("VNOT", "reg-unary", 0xB0, ints, (_v("vd"), _v("va"), _p("pm")), pipe="V", timing="reg.alu",
                     family="vunary", op="not", summary="register d = not a; inactive lanes zero",
                     example="VNOT.s16 V0, V1, P0"))
    count = Operand("count", Kind.SCALAR)
    for i, (mn, op, text, (tensor, by_scalar, by_lane)) in enumerate(shifts):
        keeps = " (a signed VSHL keeps the sign bit)" if op == "shl" else ""
        rows.append(_row(mn, "tensor-scalar", 0x8F + i, ints, (_ub("dst"), _ub("src"), count), unary_fields,
                         pipe="V", timing="tensor.unary", family="tensor", op=op, mask=True,
                         summary=f"tensor d = {text}{keeps}, a count of the width or more gives 0 or the sign",
                         example=tensor))
        rows.append(_row(mn, "reg-scalar", 0xB1 + i, ints, (_v("vd"), _v("va"), count, _p("pm")), pipe="V",
                         timing="reg.alu", family="vscalar", op=op,
                         summary=f"register d = {text} by a scalar count; inactive lanes zero", example=by_scalar))
        rows.append(_row(mn, "reg-binary", 0xB3 + i, ints, (_v("vd"), _v("va"), _v("vb"), _p("pm")), pipe="V",
                         timing="reg.alu", family="vbinary", op=op,
                         summary=f"register d = {text} by each lane's count in Vb; inactive lanes zero",
                         example=by_lane))


def _fused(rows: list[Instruction]) -> None:
    """Fused multiply-adds (rounded once) and the element broadcast to datablocks (docs/isa.md)."""
    floats = T.TENSOR_FLOAT
    scalar = Operand("scalar", Kind.SCALAR)
    # mnemonic, op, what it computes, the examples of the tensor and register forms
    fused = (("VMLA", "mla", "a * b + d", "VMLA.f16 [0x20000], [0x0], [0x10000], mask=77", "VMLA.f16 V0, V1, V2, P0"),
             ("VMADD", "madd", "a * d + b", "VMADD.bf16 [0x20000], [0x0], [0x10000]", "VMADD.bf16 V0, V1, V2, P0"))
    rows.append(_row("VAXPY", "tensor-axpy", 0x91, floats, (_ub("dst"), _ub("src"), scalar), (REPEAT, *UNARY_STRIDES),
                     pipe="V", timing="tensor.binary", family="tensor", op="axpy", mask=True,
                     summary="tensor d = a * scalar + d, rounded once, iterated over UB",
                     example="VAXPY.f32 [0x20000], [0x0], 0.5"))
    for i, (mn, op, text, example, _) in enumerate(fused):
        rows.append(_row(mn, "tensor-fma", 0x92 + i, floats, (_ub("dst"), _ub("src0"), _ub("src1")),
                         (REPEAT, *BINARY_STRIDES), pipe="V", timing="tensor.fma", family="tensor", op=op, mask=True,
                         summary=f"tensor d = {text}, rounded once, iterated over UB", example=example))
    rows.append(_row("VBRCB", "tensor-brcb", 0x94, T.TENSOR_TYPES, (_ub("dst"), _ub("src")), (REPEAT, *FILL_STRIDES),
                     pipe="V", timing="tensor.unary", family="tensor", op="brcb",
                     summary="tensor: iteration r's 8 elements at src + 8 * r * size fill datablock j with element j",
                     example="VBRCB.u32 [0x20000], [0x0], dstblk=2, dstrep=16"))
    rows.append(_row("VAXPY", "reg-axpy", 0xB5, floats, (_v("vd"), _v("va"), scalar, _p("pm")), pipe="V",
                     timing="reg.alu", family="vfma", op="axpy",
                     summary="register d = a * scalar + d, rounded once; inactive lanes zero",
                     example="VAXPY.f32 V0, V1, 2.0, P0"))
    for i, (mn, op, text, _, example) in enumerate(fused):
        rows.append(_row(mn, "reg-fma", 0xB6 + i, floats, (_v("vd"), _v("va"), _v("vb"), _p("pm")), pipe="V",
                         timing="reg.alu", family="vfma", op=op,
                         summary=f"register d = {text}, rounded once; inactive lanes zero", example=example))


REDUCE_FIELDS = (
    REPEAT,
    _stride("srcblk", 16, 0, 1, "source block stride"),
    _stride("srcrep", 12, 0, 8, "source repeat stride"),
    _stride("dstrep", 12, 0, 1, "destination repeat stride, in destination units"),
)


ORDERS = ("vi", "iv", "v", "i")  # VCMAX/VCMIN: what an iteration writes (value, lane index)
ORDER = Keyword("order", 2, 0, len(ORDERS) - 1, default=0, choices=ORDERS,
                doc="what each iteration writes: vi value then lane (default), iv lane then value, v the value, "
                    "i the lane as a u32")


def _reductions(rows: list[Instruction]) -> None:
    """Reductions of each iteration (docs/isa.md)."""
    source = (_ub("dst"), _ub("src"))
    rows.append(_row("VCADD", "tensor-reduce", 0x95, T.TENSOR_TYPES, source, REDUCE_FIELDS,
                     pipe="V", timing="tensor.reduce", family="tensor", op="cadd", mask=True,
                     summary="tensor: each iteration's sum (a pairwise tree, every node rounded to T), one T at "
                             "dst + r * dstrep * size",
                     example="VCADD.f16 [0x20000], [0x0], mask=100"))
    rows.append(_row("VCPADD", "tensor-reduce", 0x96, T.TENSOR_FLOAT, source, REDUCE_FIELDS,
                     pipe="V", timing="tensor.unary", family="tensor", op="cpadd", mask=True,
                     summary="tensor: sums of adjacent pairs, lanes / 2 of them at dst + r * dstrep * 128",
                     example="VCPADD.f32 [0x20000], [0x0], mask=33"))
    for i, (mn, op, what, example) in enumerate((
            ("VCMAX", "cmax", "max", "VCMAX.f16 [0x20000], [0x0], order=iv, mask=70"),
            ("VCMIN", "cmin", "min", "VCMIN.s32 [0x20000], [0x0], order=i, srcrep=4"))):
        rows.append(_row(mn, "tensor-reduce", 0x97 + i, T.TENSOR_TYPES, source, (*REDUCE_FIELDS, ORDER),
                         pipe="V", timing="tensor.unary", family="tensor", op=op, mask=True,
                         summary=f"tensor: each iteration's {what} and its lane (the lowest on ties, the first NaN), "
                                 "as order= says, at dst + r * dstrep * unit", example=example))
    for i, (mn, op, what, example) in enumerate((
            ("VCGADD", "cgadd", "sum", "VCGADD.f16 [0x20000], [0x0], mask=100"),
            ("VCGMAX", "cgmax", "max", "VCGMAX.f32 [0x20000], [0x0], mask=(0xF0, 0)"),
            ("VCGMIN", "cgmin", "min", "VCGMIN.bf16 [0x20000], [0x0], dstrep=2"))):
        rows.append(_row(mn, "tensor-reduce", 0x99 + i, T.TENSOR_FLOAT, source, REDUCE_FIELDS,
                         pipe="V", timing="tensor.unary", family="tensor", op=op, mask=True,
                         summary=f"tensor: the {what} of each datablock, 8 results an iteration at "
                                 "dst + r * dstrep * 8 * size (a block with no active lane: a2 leaves it, 950 "
                                 "writes the identity)", example=example))
    rows.append(_row("VREDUCE", "reg-reduce", 0xB8, T.TENSOR_TYPES, (_v("vd"), _v("va"), _p("pm")), pipe="V",
                     timing="reg.reduce", family="vreduce", op="reduce", conditions=REDUCTIONS, part="O",
                     summary="register: the sum, max or min of Pm's lanes of Va in lane 0 of Vd (and for MAX/MIN "
                             "its lane index in lane 1; s16/u16 SUM: a 32-bit sum in bytes 0..3); the rest zero",
                     example="VREDUCE.MAX.s16 V0, V1, P0"))


TRANSPOSE_TYPES = ("s16", "u16", "f16")  # VTRANS: the documented 2-byte types (no bf16)
TRANS5HD_TYPES = ("s8", "u8", "s16", "u16", "f16", "bf16")  # VTRANS5HD: bf16 on the 950 only
_TRANS5HD_32 = "the 32-bit layout is documented only by a figure; split the data into 16-bit halves"
# VTRANS5HD's example: the source list at 0x0 names the datablocks at 0x1000 + 32 * i, the destination
# list at 0x80 those at 0x20000 + 32 * j (lists and blocks apart, as every tensor example's operands are).
_TRANS5HD_EXAMPLE = (".ub 0x0, u64, " + ", ".join(hex(0x1000 + 32 * i) for i in range(16)) + "\n"
                     ".ub 0x80, u64, " + ", ".join(hex(0x20000 + 32 * j) for j in range(16)) + "\n"
                     "VTRANS5HD.f16 [0x80], [0x0]")


def _transposes(rows: list[Instruction]) -> None:
    """CONTRACT 13.5: the 16 x 16 transpose of 2-byte tiles and TransDataTo5HD's scattered datablocks."""
    tiles = (Keyword("repeat", 12, 1, 4095, default=1, doc="tiles"),
             _stride("dstrep", 12, 0, 1, "destination tile stride, in 512-byte tiles"),
             _stride("srcrep", 12, 0, 1, "source tile stride, in 512-byte tiles"))
    rows.append(_row("VTRANS", "tensor-transpose", 0xD8, TRANSPOSE_TYPES, (_ub("dst"), _ub("src")), tiles,
                     pipe="V", timing="tensor.transpose", family="transpose", op="transpose", kernel=False,
                     summary="tensor: tile r (16 x 16 elements, 512 bytes, at src + r * srcrep * 512) transposed "
                             "to dst + r * dstrep * 512: d(y, x) = s(x, y); dst == src allowed",
                     example="VTRANS.f16 [0x20000], [0x0]"))
    halves = tuple(Keyword(name, 1, 0, 1, types=("s8", "u8"), doc=f"{what}: the high 16 bytes of each {side} "
                           f"datablock (8-bit types; default 0, the low half)")
                   for name, what, side in (("srchigh", "read", "source"), ("dsthigh", "write", "destination")))
    lists = (REPEAT, _stride("dstrep", 16, 0, 0, "destination iteration stride, in datablocks"),
             _stride("srcrep", 16, 0, 0, "source iteration stride, in datablocks"), *halves)
    rows.append(_row("VTRANS5HD", "tensor-trans5hd", 0xD9, TRANS5HD_TYPES, (_ub("dstlist"), _ub("srclist")), lists,
                     pipe="V", timing="tensor.trans5hd", family="trans5hd", op="trans5hd", kernel=False,
                     summary="tensor: 16 source datablocks to 16 destination datablocks, their UB addresses two "
                             "lists of 16 u64 read at the start; 16-bit: element i of block j = element j of "
                             "block i; 8-bit: a half block each (srchigh=, dsthigh=); bf16 on the 950 only",
                     example=_TRANS5HD_EXAMPLE,
                     refused=tuple((t, f"VTRANS5HD.{t}: {_TRANS5HD_32}") for t in ("f32", "s32", "u32"))))


GATHERMASK_FIELDS = (
    REPEAT,
    _stride("srcblk", 16, 0, 1, "source block stride, in datablocks"),
    _stride("srcrep", 12, 0, 8, "source repeat stride, in datablocks"),
    Keyword("src1rep", 8, 0, 255, doc="pattern repeat stride, in datablocks ([src1] form only; default 0)"),
)
LEN_ENTRY_BITS = 13  # a VMRGSORT queue length: 0..4095, or 4096 + n for Sn
QUEUE_LENGTH_MAX = 4095


def _queue_lengths(queues: int) -> Keyword:
    return Keyword("len", LEN_ENTRY_BITS * queues, 0, (1 << (LEN_ENTRY_BITS * queues)) - 1, required=True,
                   entries=queues, entry_max=QUEUE_LENGTH_MAX,
                   doc="each queue's length in records: an expression 0..4095 or Sn")


def _compaction_and_sort(rows: list[Instruction]) -> None:
    """CONTRACT 13.4 and 13.6: GatherMask, Squeeze and the AR register, Sort32 and MrgSort, and the
    scalar unit's reads of the special registers they write (RSVDCNT, AR, MRGCNT0..3)."""
    gm_types = T.GATHERMASK_TYPES
    rows.append(_row("VGATHERM", "tensor-gathermask", 0xD0, gm_types,
                     (_ub("dst"), _ub("src0"), Operand("pattern", Kind.FIXED)), GATHERMASK_FIELDS, pipe="V",
                     timing="tensor.gathermask", family="gathermask", op="gathermask", mask=True,
                     summary="tensor: the elements a fixed pattern keeps (1 even, 2 odd, 3..6 the first..fourth of "
                             "each 4, 7 all), densely from dst; RSVDCNT = their number",
                     example="VGATHERM.f16 [0x20000], [0x0], 1"))
    rows.append(_row("VGATHERM", "tensor-gathermask-bits", 0xD1, gm_types,
                     (_ub("dst"), _ub("src0"), _ub("src1")), GATHERMASK_FIELDS, pipe="V",
                     timing="tensor.gathermask", family="gathermask", op="gathermask", mask=True,
                     summary="tensor: the elements whose bit of src1 is set, densely from dst; RSVDCNT = their "
                             "number (the bits of iteration r at src1 + r * src1rep * 32)",
                     example="VGATHERM.u32 [0x20000], [0x0], [0x18000], mask=40"))
    rows.append(_row("VSORT32", "tensor-sort32", 0xD2, T.SORT_TYPES, (_ub("dst"), _ub("score"), _ub("index")),
                     (REPEAT,), pipe="V", timing="tensor.sort32", family="sort", op="sort32", kernel=False,
                     summary="tensor: each iteration's 32 (score, u32 index) records sorted by descending score "
                             "(ties in input order), 8 bytes each at dst + r * 256",
                     example="VSORT32.f32 [0x20000], [0x0], [0x10000]"))
    for queues, opcode in ((2, 0xD3), (3, 0xD4), (4, 0xD5)):
        names = [f"[0x{0x20 * k:x}]" for k in range(queues)]  # (contiguous: 4 of them take repeat=N)
        rows.append(_row("VMRGSORT", f"tensor-merge{queues}", opcode, T.SORT_TYPES,
                         (_ub("dst"), *(_ub(f"q{k}") for k in range(queues))),
                         (REPEAT, _queue_lengths(queues), Keyword("stop", 1, 0, 1, default=0,
                                                                    doc="1: stop once a queue is empty")),
                         pipe="V", timing="tensor.mrgsort", family="sort", op="mrgsort", kernel=False,
                         summary=f"tensor: merge {queues} queues of records sorted by descending score into dst; "
                                 "MRGCNT0..3 = the records taken from each",
                         example=f"VMRGSORT.f32 [0x20000], {', '.join(names)}, len=({', '.join(['4'] * queues)})"))
    rows.append(_row("VSQZ", "reg-squeeze", 0xBE, T.SQUEEZE_TYPES, (_v("vd"), _v("va"), _p("pm")), (SQUEEZE_COUNT,),
                     pipe="V",
                     timing="reg.squeeze", family="vsqueeze", op="squeeze",
                     summary="register: the active lanes of Va, in order, to lanes 0..k-1 of Vd; the rest zero; "
                             "cnt=Sn: the function's own Sn = k",
                     example="VSQZ.f32 V0, V1, P0"))
    rows.append(_row("VSQZ", "reg-squeeze-ar", 0xC5, T.SQUEEZE_TYPES,
                     (_v("vd"), _v("va"), _p("pm"), Operand("ar", Kind.AR)), (SQUEEZE_COUNT,), pipe="V",
                     timing="reg.squeeze", family="vsqueeze", op="squeeze",
                     summary="register: VSQZ, and AR grows by the bytes kept (k * size)",
                     example="VSQZ.f32 V0, V1, P0, ar"))
    rows.append(_row("CLRAR", "spr-clear", 0xBF, (), (), pipe="V", timing="reg.mask", family="clrar", op="clrar",
                     summary="AR = 0 (inside a vector function)", example="CLRAR"))
    rows.append(_row("MOV", "scalar-mov-spr", 0x4A, (), (_s("sd", writes=True), Operand("src", Kind.SPR)),
                     pipe="S", timing="scalar.alu", family="mov_spr", op="spr",
                     summary="Sd = RSVDCNT (VGATHERM's count) or MRGCNTk (VMRGSORT's records taken from queue k); "
                             "order the read after the V instruction by a flag",
                     example="MOV S1, RSVDCNT"))
    rows.append(_row("MOV", "scalar-mov-ar", 0x4B, (), (_s("sd", writes=True), Operand("src", Kind.AR)),
                     pipe="S", timing="scalar.alu", family="mov_spr", op="ar",
                     summary="Sd = AR, the bytes VSQZ ..., ar kept since CLRAR (950; outside vector functions)",
                     example="MOV S1, AR"))


TABLE: tuple[Instruction, ...] = _build()
