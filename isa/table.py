"""The instruction table: one row per instruction form, from which everything else is derived.

Adding an instruction is adding a row here (and its semantics in ``emulator/``). Bit positions are
assigned by ``_row`` in declaration order: opcode [0:8), element type [8:12) on typed rows, then the
operands, then the keyword fields, then (tensor rows) the 2-bit mask mode. A tensor row whose mask
mode is not ALL is followed by two 64-bit mask words (see ``docs/encoding.md``).
"""

from __future__ import annotations

from isa import types as T  # noqa: N812  (the type sets read as T.TENSOR_TYPES, like the docs)
from isa.model import (
    MASK_MODE_BITS,
    WORD_BITS,
    BitField,
    Instruction,
    Keyword,
    Kind,
    Operand,
)

OPCODE_BITS = 8
TYPE_BITS = 4
# The opcode block of register (vector-function) instructions: they need a profile with vector
# functions (the 950's micro API; the A2 has none).
REGISTER_OPCODES = range(0x20, 0x40)
# The opcode block of vector-function structure: VF.BEGIN, VF.END, LOOP, ENDLOOP, MEMBAR.
FUNCTION_OPCODES = range(0x70, 0x78)
# Scalar instructions a vector function may hold: they run on the vector unit's own scalar lane.
FUNCTION_SCALAR_FAMILIES = ("mov", "alu")


def _row(mnemonic: str, form: str, opcode: int, types: tuple[str, ...], operands, keywords=(), *,
         pipe: str, timing: str, family: str, op: str, summary: str, mask: bool = False) -> Instruction:
    fields = [BitField("opcode", 0, OPCODE_BITS)]
    pos = OPCODE_BITS
    if types:
        fields.append(BitField("type", pos, TYPE_BITS))
        pos += TYPE_BITS
    for operand in operands:
        fields.append(BitField(operand.name, pos, operand.bits))
        pos += operand.bits
    for kw in keywords:
        fields.append(BitField(kw.name, pos, kw.encoded_bits))
        pos += kw.encoded_bits
    if mask:
        fields.append(BitField("mask_mode", pos, MASK_MODE_BITS))
        pos += MASK_MODE_BITS
    words = -(-pos // WORD_BITS)
    return Instruction(mnemonic=mnemonic, form=form, opcode=opcode, types=tuple(types), operands=tuple(operands),
                       keywords=tuple(keywords), pipe=pipe, timing=timing, family=family, op=op, summary=summary,
                       has_mask=mask, fields=tuple(fields), words=words,
                       register=opcode in REGISTER_OPCODES, structure=opcode in FUNCTION_OPCODES)


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
CARRY = Keyword("carry", 3, 0, 7, preg=True, types=("u32",), doc="mask register receiving the carry (u32 only)")
DMA_FIELDS = (
    Keyword("blocks", 12, 1, 4095, default=1, doc="number of blocks"),
    Keyword("len", 16, 1, 65535, required=True, doc="block length, in 32-byte units"),
    Keyword("srcgap", 16, 0, 65535, default=0, doc="gap after each source block, in 32-byte units"),
    Keyword("dstgap", 16, 0, 65535, default=0, doc="gap after each destination block, in 32-byte units"),
)

_BINARY_OPS = (("VADD", "add", "d = a + b"), ("VSUB", "sub", "d = a - b"), ("VMUL", "mul", "d = a * b"),
               ("VMAX", "max", "d = max(a, b)"), ("VMIN", "min", "d = min(a, b)"))
_UNARY_OPS = (("VEXP", "exp", T.TENSOR_FLOAT, T.TENSOR_FLOAT, "d = exp(a)"),
              ("VABS", "abs", T.TENSOR_SIGNED, T.REG_SIGNED, "d = |a|"),
              ("VRELU", "relu", T.TENSOR_SIGNED, T.REG_SIGNED, "d = max(a, 0)"),
              ("VLN", "ln", T.TENSOR_FLOAT, T.TENSOR_FLOAT, "d = ln(a)"),
              ("VSQRT", "sqrt", T.TENSOR_FLOAT, T.TENSOR_FLOAT, "d = sqrt(a)"))
_SCALAR_OPS = (("VADDS", "adds", "d = a + scalar"), ("VMULS", "muls", "d = a * scalar"),
               ("VMAXS", "maxs", "d = max(a, scalar)"), ("VMINS", "mins", "d = min(a, scalar)"))
_ALU_OPS = (("ADD", "add"), ("SUB", "sub"), ("MUL", "mul"), ("AND", "and"), ("OR", "or"), ("XOR", "xor"),
            ("SHL", "shl"), ("SHR", "shr"))
_BRANCHES = (("BEQ", "eq"), ("BNE", "ne"), ("BLT", "lt"), ("BGE", "ge"))


# Scheduling classes (the ``timing`` column): how the cost model prices a row, one name per kind of
# work; every built-in profile prices every class (emulator.costs checks it at import).
_TRANSCENDENTAL = ("exp", "ln", "sqrt")


def _tensor_unary_class(op: str) -> str:
    return "tensor.transcendental" if op in _TRANSCENDENTAL else "tensor.unary"


def _reg_unary_class(op: str) -> str:
    return "reg.transcendental" if op in _TRANSCENDENTAL else "reg.alu"


def _build() -> tuple[Instruction, ...]:
    rows: list[Instruction] = []
    # 0x10..0x1F: tensor instructions (UB to UB, iterated), pipe V.
    for i, (mn, op, text) in enumerate(_BINARY_OPS):
        rows.append(_row(mn, "tensor-binary", 0x10 + i, T.TENSOR_TYPES, (_ub("dst"), _ub("src0"), _ub("src1")),
                         (REPEAT, *BINARY_STRIDES), pipe="V", timing="tensor.binary", family="tensor", op=op,
                         summary=f"tensor {text}, iterated over UB", mask=True))
    for i, (mn, op, types, _, text) in enumerate(_UNARY_OPS):
        rows.append(_row(mn, "tensor-unary", 0x15 + i, types, (_ub("dst"), _ub("src")), (REPEAT, *UNARY_STRIDES),
                         pipe="V", timing=_tensor_unary_class(op), family="tensor", op=op,
                         summary=f"tensor {text}, iterated over UB", mask=True))
    for i, (mn, op, text) in enumerate(_SCALAR_OPS):
        rows.append(_row(mn, "tensor-scalar", 0x1A + i, T.TENSOR_TYPES,
                         (_ub("dst"), _ub("src"), Operand("scalar", Kind.SCALAR)), (REPEAT, *UNARY_STRIDES),
                         pipe="V", timing="tensor.binary", family="tensor", op=op,
                         summary=f"tensor {text}, iterated over UB", mask=True))
    rows.append(_row("VDIV", "tensor-binary", 0x1E, T.TENSOR_FLOAT, (_ub("dst"), _ub("src0"), _ub("src1")),
                     (REPEAT, *BINARY_STRIDES), pipe="V", timing="tensor.divide", family="tensor", op="div",
                     summary="tensor d = a / b, correctly rounded, iterated over UB", mask=True))
    # 0x20..0x3F: register (vector function) instructions, pipe V.
    rows.append(_row("VLD", "reg-load", 0x20, T.ALL_DATA, (_v("vd"), _ub("addr")), (POST, BLK), pipe="V",
                     timing="reg.load", family="vld", op="load", summary="load VL bytes of UB into Vd"))
    rows.append(_row("VST", "reg-store", 0x21, T.ALL_DATA, (_ub("addr"), _v("vs"), _p("pm")), (POST, BLK),
                     pipe="V", timing="reg.store", family="vst", op="store",
                     summary="store the active lanes of Vs to UB"))
    for i, (mn, op, text) in enumerate(_BINARY_OPS):
        keywords = (CARRY,) if op == "sub" else ()
        rows.append(_row(mn, "reg-binary", 0x22 + i, T.REG_TYPES, (_v("vd"), _v("va"), _v("vb"), _p("pm")),
                         keywords, pipe="V", timing="reg.alu", family="vbinary", op=op,
                         summary=f"register {text}; inactive lanes zero"))
    for i, (mn, op, _, types, text) in enumerate(_UNARY_OPS):
        rows.append(_row(mn, "reg-unary", 0x27 + i, types, (_v("vd"), _v("va"), _p("pm")), pipe="V",
                         timing=_reg_unary_class(op), family="vunary", op=op,
                         summary=f"register {text}; inactive lanes zero"))
    for i, (mn, op, text) in enumerate(_SCALAR_OPS):
        rows.append(_row(mn, "reg-scalar", 0x2C + i, T.REG_TYPES,
                         (_v("vd"), _v("va"), Operand("scalar", Kind.SCALAR), _p("pm")), pipe="V",
                         timing="reg.alu", family="vscalar", op=op, summary=f"register {text}; inactive lanes zero"))
    rows.append(_row("VGATHER", "reg-gather-ub", 0x30, T.GATHER_UB_TYPES, (_v("vd"), _ub("addr"), _v("vi"), _p("pm")),
                     pipe="V", timing="reg.gather", family="vgather_ub", op="gather",
                     summary="d[i] = T at addr + idx[i]*size; inactive lanes zero, not read"))
    rows.append(_row("VGATHER", "reg-gather-reg", 0x31, T.GATHER_REG_TYPES, (_v("vd"), _v("vs"), _v("vi")),
                     pipe="V", timing="reg.permute", family="vgather_reg", op="gather",
                     summary="d[i] = s[idx[i] % lanes]"))
    rows.append(_row("VSCATTER", "reg-scatter", 0x32, T.SCATTER_TYPES, (_ub("addr"), _v("vs"), _v("vi"), _p("pm")),
                     pipe="V", timing="reg.gather", family="vscatter", op="scatter",
                     summary="T at addr + idx[i]*size = s[i] for active lanes; the higher lane wins"))
    rows.append(_row("PSET", "mask-pattern", 0x33, T.MASK_WIDTHS, (_p("pd"), Operand("pattern", Kind.PATTERN)),
                     pipe="V", timing="reg.mask", family="pset", op="pset", summary="Pd = a lane pattern"))
    rows.append(_row("PUPDATE", "mask-update", 0x34, T.MASK_WIDTHS, (_p("pd"), _s("sc", writes=True)), pipe="V",
                     timing="reg.mask", family="pupdate", op="pupdate",
                     summary="Pd = first min(Sc, lanes) lanes; Sc = max(0, Sc - lanes)"))
    rows.append(_row("PLD", "mask-load", 0x35, (), (_p("pd"), _ub("addr")), pipe="V", timing="reg.mask",
                     family="pld", op="pld", summary="load 32 bytes of UB into Pd"))
    rows.append(_row("PST", "mask-store", 0x36, (), (_ub("addr"), _p("ps")), pipe="V", timing="reg.mask",
                     family="pst", op="pst", summary="store Pd's 32 bytes to UB"))
    rows.append(_row("VDIV", "reg-binary", 0x37, T.TENSOR_FLOAT, (_v("vd"), _v("va"), _v("vb"), _p("pm")),
                     pipe="V", timing="reg.transcendental", family="vbinary", op="div",
                     summary="register d = a / b, correctly rounded; inactive lanes zero"))
    # 0x40..0x5F: scalar unit, pipe S.
    rows.append(_row("MOV", "scalar-mov", 0x40, (), (_s("sd", writes=True), Operand("src", Kind.IMM, imm_bits=50)),
                     pipe="S", timing="scalar.alu", family="mov", op="mov", summary="Sd = EXPR or Ss"))
    for i, (mn, op) in enumerate(_ALU_OPS):
        rows.append(_row(mn, "scalar-alu", 0x41 + i, (),
                         (_s("sd", writes=True), _s("sa"), Operand("sb", Kind.SRC, imm_bits=44)), pipe="S",
                         timing="scalar.mul" if op == "mul" else "scalar.alu", family="alu", op=op,
                         summary=f"Sd = Sa {op} Sb|EXPR"))
    for i, (mn, op) in enumerate(_BRANCHES):
        rows.append(_row(mn, "branch", 0x50 + i, (),
                         (_s("sa"), Operand("sb", Kind.SRC, imm_bits=26), Operand("target", Kind.TARGET)),
                         pipe="S", timing="scalar.branch", family="branch", op=op,
                         summary=f"branch to label when Sa {op} Sb|EXPR (signed)"))
    rows.append(_row("JMP", "jump", 0x54, (), (Operand("target", Kind.TARGET),), pipe="S", timing="scalar.branch",
                     family="jump", op="jmp", summary="jump to label"))
    rows.append(_row("NOP", "none", 0x55, (), (), pipe="S", timing="scalar.nop", family="nop", op="nop",
                     summary="do nothing for one scalar slot"))
    rows.append(_row("HALT", "none", 0x56, (), (), pipe="S", timing="scalar.nop", family="halt", op="halt",
                     summary="stop reading the program; the run ends when the pipes drain"))
    # 0x60..0x6F: data movement and synchronisation.
    rows.append(_row("DMA.GM2UB", "dma-in", 0x60, (), (_ub("dst"), Operand("src", Kind.GM)), DMA_FIELDS,
                     pipe="MTE2", timing="dma.gm2ub", family="dma", op="gm2ub",
                     summary="copy blocks from GM to UB"))
    rows.append(_row("DMA.UB2GM", "dma-out", 0x61, (), (Operand("dst", Kind.GM), _ub("src")), DMA_FIELDS,
                     pipe="MTE3", timing="dma.ub2gm", family="dma", op="ub2gm",
                     summary="copy blocks from UB to GM"))
    pipe_ops = (Operand("src_pipe", Kind.PIPE), Operand("dst_pipe", Kind.PIPE), Operand("event", Kind.EVENT))
    rows.append(_row("SETFLAG", "flag", 0x62, (), pipe_ops, pipe="flag", timing="sync.setflag", family="setflag",
                     op="set", summary="set event flag once all earlier work of SRC_PIPE is done"))
    rows.append(_row("WAITFLAG", "flag", 0x63, (), pipe_ops, pipe="flag", timing="sync.waitflag", family="waitflag",
                     op="wait", summary="hold DST_PIPE until the flag is set, then clear it"))
    rows.append(_row("BARRIER", "barrier", 0x64, (), (Operand("pipe", Kind.BARRIER_PIPE),), pipe="flag",
                     timing="sync.barrier", family="barrier", op="barrier",
                     summary="hold later work of PIPE (or every pipe) until its earlier work is done"))
    # 0x70..0x77: vector functions (the 950's __simd_vf__): their bounds, hardware loops, UB order.
    rows.append(_row("VF.BEGIN", "function", 0x70, (), (), pipe="V", timing="vf.launch", family="vf_begin",
                     op="begin", summary="launch the function up to VF.END on V; S goes on after VF.END"))
    rows.append(_row("VF.END", "function", 0x71, (), (), pipe="V", timing="vf.end", family="vf_end", op="end",
                     summary="the end of a vector function"))
    rows.append(_row("LOOP", "loop", 0x72, (), (Operand("count", Kind.SRC, imm_bits=33),), pipe="V",
                     timing="vf.loop_startup", family="loop", op="loop",
                     summary="a hardware loop: run the body up to ENDLOOP N or Sn times (read when it starts)"))
    rows.append(_row("ENDLOOP", "loop", 0x73, (), (), pipe="V", timing="vf.end", family="endloop", op="endloop",
                     summary="the end of a hardware loop's body"))
    rows.append(_row("MEMBAR", "membar", 0x74, (), (), pipe="V", timing="vf.membar", family="membar",
                     op="membar", summary="order the function's UB accesses: later ones wait for earlier ones"))
    return tuple(rows)


TABLE: tuple[Instruction, ...] = _build()
