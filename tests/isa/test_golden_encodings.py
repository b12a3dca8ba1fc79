"""Golden instruction words, worked out by hand from docs/encoding.md and docs/isa.md.

Every expected word below was computed from the documented field positions ([lo:hi) bit ranges of
the row, counted from bit 0 of the first word; word k holds bits 64k..64k+63), never by running the
encoder. The comment above each case lists ``value << position`` for every field; the hex words
are the sum of those terms, split into 64-bit words (low word first).

Operand encodings used (docs/encoding.md, "Operand encodings"):
  UB  [abs]        -> abs (bit 18 clear)
  UB  [Sn + off]   -> 1<<18 | (off/32 as a 13-bit two's complement) << 5 | n
  GM  gm[abs]      -> abs (bit 32 clear)
  GM  gm[Sn + off] -> 1<<32 | (off as a 27-bit two's complement) << 5 | n
  SCALAR imm       -> the element's bit pattern (bit 32 clear);   Sn -> 1<<32 | n
  Sn|imm (n bits)  -> imm as n-bit two's complement (top bit clear); Sn -> 1<<n | n_reg
  optional field   -> value | 1 << width (presence bit on top); absent -> 0
Type codes: f16 1, bf16 2, f32 3, s8 4, u8 5, s16 6, u16 7, s32 8, u32 9, b8 12, b16 13, b32 14.
Pipes: S 0, V 1, MTE2 2, MTE3 3, ALL 4.  Patterns: ... Q 14.

Register instructions and the function structure (VF.BEGIN 0x70, VF.END 0x71, LOOP 0x72, ENDLOOP 0x73,
MEMBAR 0x74) are valid only in a vector function (CONTRACT section 7): each case lists the words of
its own instructions, and the tests assemble them in the smallest program that holds them
(``strategies.in_context``) and compare those words where they stand in it.
"""

from __future__ import annotations

import struct
import zlib

import pytest
import strategies as S  # tests/strategies.py: tests/conftest.py puts tests/ on the path

from vcore import isa
from vcore.assembler import AsmError, assemble, disassemble
from vcore.isa import RegOrImm, decode, encode
from vcore.isa.program import Program, from_bytes, to_bytes

GOLDEN = [
    # docs/encoding.md's own worked example (VADD tensor-binary, row 0x10):
    #   0x10<<0 | 1<<8 (f16) | 0x1000<<12 (dst) | 0<<31 (src0) | 0x800<<50 (src1) | 2<<69 (repeat)
    #   | 1<<77 (dstblk) | 1<<85 (src0blk) | 1<<93 (src1blk) | 8<<101 | 8<<109 | 8<<117 (reps) | 0<<125 (mode)
    pytest.param("VADD.f16 [0x1000], [0x0], [0x800], repeat=2",
                 [0x2000000001000110, 0x0101010020202040], id="doc-example"),
    # Tensor binary, every stride field away from its default and register-based UB operands (row 0x12):
    #   0x12<<0 | 8<<8 (s32)
    #   | (1<<18 | 2<<5 | 3)<<12            dst  [S3 + 64]  = 0x40043 << 12
    #   | 0x2000<<31                        src0 [0x2000]
    #   | (1<<18 | 0x1FFF<<5 | 31)<<50      src1 [S31 - 32] = 0x7FFFF << 50 (offset -1 block)
    #   | 255<<69 (repeat) | 2<<77 (dstblk) | 0<<85 (src0blk) | 255<<93 (src1blk)
    #   | 16<<101 (dstrep) | 0<<109 (src0rep) | 255<<117 (src1rep) | 0<<125 (mode ALL)
    pytest.param("VMUL.s32 [S3 + 64], [0x2000], [S31 - 32], repeat=255, dstblk=2, src0blk=0, src1blk=255, "
                 "dstrep=16, src0rep=0, src1rep=255",
                 [0xFFFC100040043812, 0x1FE0021FE0005FFF], id="tensor-binary-strides"),
    # Tensor unary with a bit mask -> mode 2 and two extension words LOW, HIGH (row 0x15):
    #   0x15<<0 | 1<<8 (f16) | 0x100<<12 (dst) | 0x200<<31 (src) | 3<<50 (repeat) | 1<<58 (dstblk)
    #   | 1<<74 (srcblk) | 8<<90 (dstrep) | 8<<102 (srcrep) | 2<<114 (mask mode BITS)
    #   extension: word 2 = LOW = 0x8000000000000001, word 3 = HIGH = 0xF0
    pytest.param("VEXP.f16 [0x100], [0x200], repeat=3, mask=(0x8000000000000001, 0xF0)",
                 [0x040C010000100115, 0x0008020020000400, 0x8000000000000001, 0xF0], id="tensor-unary-bitmask"),
    # Tensor unary, continuous mask and unary stride extremes (row 0x16):
    #   0x16<<0 | 6<<8 (s16) | 0<<12 | 0<<31 | 1<<50 (repeat) | 65535<<58 (dstblk) | 0<<74 (srcblk)
    #   | 4095<<90 (dstrep) | 4095<<102 (srcrep) | 1<<114 (mode CONTINUOUS); ext: 128, 0
    pytest.param("VABS.s16 [0], [0], dstblk=65535, srcblk=0, dstrep=4095, srcrep=4095, mask=128",
                 [0xFC04000000000616, 0x0007FFFFFC0003FF, 128, 0], id="tensor-unary-continuous"),
    # Tensor scalar with a float immediate and count= (row 0x1b, three fixed words):
    #   0x1B<<0 | 3<<8 (f32) | 0x40<<12 (dst) | 0x80<<31 (src)
    #   | 0xC0200000<<50  scalar: f32 -2.5 = sign 1, exponent 128, fraction .25 -> 0xC0200000
    #   | 1<<83 (repeat) | 1<<91 (dstblk) | 1<<107 (srcblk) | 8<<123 (dstrep) | 8<<135 (srcrep)
    #   | 3<<147 (mask mode COUNT); ext: 1000, 0
    pytest.param("VMULS.f32 [0x40], [0x80], -2.5, count=1000",
                 [0x000000400004031B, 0x40000800080B0080, 0x0000000000180400, 1000, 0], id="tensor-scalar-float"),
    # Tensor scalar with a register scalar (row 0x1a):
    #   0x1A | 9<<8 (u32) | 0<<12 | 0x20<<31 | (1<<32 | 9)<<50 (S9) | 1<<83 | 1<<91 | 1<<107 | 8<<123 | 8<<135
    pytest.param("VADDS.u32 [0], [0x20], S9",
                 [0x002400100000091A, 0x40000800080C0000, 0x400], id="tensor-scalar-register"),
    # Tensor scalar, f16 immediate 1.5 = 0x3E00 (sign 0, exponent 15, fraction .5):
    #   0x1A | 1<<8 | 0x3E00<<50 -> bits 50..63 get 0x3E00 & 0x3FFF = 0x3E00 (word 0: 0xF800000000000000),
    #   and nothing spills (0x3E00 >> 14 = 0); word 1: 1<<19 | 1<<27 | 1<<43 | 8<<59 = 0x4000080008080000
    pytest.param("VADDS.f16 [0], [0], 1.5",
                 [0xF80000000000011A, 0x4000080008080000, 0x400], id="tensor-scalar-f16"),
    # VLD with post= (signed, 16 bits) and blk= (optional: presence bit 8 on top) (row 0x20):
    #   0x20 | 3<<8 (f32) | 7<<12 (V7) | (1<<18 | 0<<5 | 2)<<17 (addr [S2]) | 0xFFC0<<36 (post -64)
    #   | (1<<8 | 3)<<52 (blk=3, given)
    pytest.param("VLD.f32 V7, [S2], post=-64, blk=3", [0x103FFC0800047320], id="vld-post-blk"),
    # VST (row 0x21): 0x21 | 5<<8 (u8) | (1<<18 | 1<<5 | 4)<<12 ([S4 + 32]) | 31<<31 (V31) | 7<<36 (P7)
    #   | 256<<39 (post) | 0<<55 (blk absent)
    pytest.param("VST.u8 [S4 + 32], V31, P7, post=256", [0x0000807FC0024521], id="vst"),
    # VSUB.u32 with carry (row 0x23): 0x23 | 9<<8 | 1<<12 (V1) | 2<<17 (V2) | 3<<22 (V3) | 4<<27 (P4)
    #   | (1<<3 | 5)<<30 (carry=P5, given)
    pytest.param("VSUB.u32 V1, V2, V3, P4, carry=P5", [0x0000000360C41923], id="vsub-carry"),
    # Branches with labels (rows 0x55, 0x52, 0x53, 0x54); pcs: NOP 0, BLT 8, BGE 0x10, JMP 0x18, end 0x20.
    #   BLT: 0x52 | 5<<8 (S5) | (-3 & (2**26-1))<<13 (imm, flag bit 26 clear) | 8<<40 (target loop)
    #   BGE: 0x53 | 6<<8 | (1<<26 | 7)<<13 (S7) | 0<<40 (target top)
    #   JMP: 0x54 | 0x20<<8 (target end)
    pytest.param("top:\n    NOP\nloop: BLT S5, -3, loop\n    BGE S6, S7, top\n    JMP end\nend:\n",
                 [0x55, 0x0000087FFFFFA552, 0x000000800000E653, 0x2054], id="branches-labels"),
    # MOV (row 0x40): 0x40 | sd<<8 | src<<13 with src 51 bits: 50-bit two's complement, bit 50 = register flag.
    #   MOV S31, -2**49:  0x40 | 31<<8 | (2**49)<<13      (-2**49 & (2**50-1) = 2**49)
    #   MOV S2, -1:       0x40 | 2<<8  | (2**50-1)<<13
    #   MOV S3, S4:       0x40 | 3<<8  | (1<<50 | 4)<<13
    pytest.param("MOV S31, -562949953421312\nMOV S2, -1\nMOV S3, S4",
                 [0x4000000000001F40, 0x7FFFFFFFFFFFE240, 0x8000000000008340], id="mov-negative"),
    # ALU (row 0x41): 0x41 | 1<<8 (S1) | 2<<13 (S2) | (-100 & (2**44-1))<<18
    pytest.param("ADD S1, S2, -100", [0x3FFFFFFFFE704141], id="alu-negative"),
    # DMA GM->UB with every field (row 0x60):
    #   0x60 | (1<<18 | 3<<5 | 1)<<8 (dst [S1 + 96])
    #   | (1<<32 | (-5 & (2**27-1))<<5 | 2)<<27 (src gm[S2 - 5]) | 4095<<60 (blocks) | 65535<<72 (len)
    #   | 7<<88 (srcgap) | 65535<<104 (dstgap)
    pytest.param("DMA.GM2UB [S1 + 96], gm[S2 - 5], blocks=4095, len=65535, srcgap=7, dstgap=65535",
                 [0xFFFFFFFB14006160, 0x00FFFF0007FFFFFF], id="dma-gm2ub"),
    # DMA UB->GM (row 0x61): 0x61 | 0xFFFFFFFF<<8 (dst gm[abs]) | 0x3FFE0<<41 (src) | 1<<60 (blocks) | 1<<72 (len)
    pytest.param("DMA.UB2GM gm[0xFFFFFFFF], [0x3FFE0], len=1", [0x17FFC0FFFFFFFF61, 0x100], id="dma-ub2gm"),
    # SETFLAG (row 0x62): 0x62 | 2<<8 (MTE2) | 1<<10 (V) | 5<<12;  WAITFLAG (0x63): 0x63 | 3<<8 (MTE3) | 0<<10 | 0<<12
    pytest.param("SETFLAG MTE2, V, 5\nWAITFLAG MTE3, S, 0", [0x5662, 0x363], id="flags"),
    # BARRIER (row 0x64): 0x64 | 4<<8 (ALL);  0x64 | 3<<8 (MTE3)
    pytest.param("BARRIER ALL\nBARRIER MTE3", [0x464, 0x364], id="barrier"),
    # PSET (row 0x33): 0x33 | 14<<8 (b32) | 7<<12 (P7) | 14<<15 (Q);  PLD (0x35): 0x35 | 6<<8 (P6) | 0x3FFFF<<11
    pytest.param("PSET.b32 P7, Q\nPLD P6, [0x3FFFF]", [0x77E33, 0x1FFFFE35], id="mask-regs"),
    # The vector-function rows have no type and (but LOOP) no operands: the opcode alone.
    pytest.param("VF.BEGIN", [0x70], id="vf-begin"),
    pytest.param("VF.END", [0x71], id="vf-end"),
    pytest.param("ENDLOOP", [0x73], id="endloop"),
    pytest.param("MEMBAR", [0x74], id="membar"),
    # LOOP (row 0x72): 0x72 | count<<8, count an "Sn or immediate" of 1 + 33 bits: the flag is bit 33 of
    # the field (bit 41 of the word), the immediate a 33-bit two's complement in bits [8:41).
    #   LOOP 64:          0x72 | 64<<8                      = 0x4072
    #   LOOP 0:           0x72 | 0<<8                       = 0x72
    #   LOOP 4294967295:  0x72 | 0xFFFFFFFF<<8 (2**32 - 1, the largest: 2**32 needs 34 bits signed)
    #   LOOP S3:          0x72 | (1<<33 | 3)<<8             = 0x72 | 1<<41 | 0x300
    #   LOOP S31:         0x72 | (1<<33 | 31)<<8            = 0x72 | 1<<41 | 0x1F00
    pytest.param("LOOP 64", [0x4072], id="loop-64"),
    pytest.param("LOOP 0", [0x72], id="loop-0"),
    pytest.param("LOOP 4294967295", [0x000000FFFFFFFF72], id="loop-max"),
    pytest.param("LOOP S3", [0x0000020000000372], id="loop-s3"),
    pytest.param("LOOP S31", [0x0000020000001F72], id="loop-s31"),
]


def _placed(source: str, words: list[int]):
    """The case in the smallest program that holds it (the first word's row decides the context)."""
    return S.in_context(isa.BY_OPCODE[words[0] & 0xFF], text=source, words=words)


@pytest.mark.parametrize(("source", "words"), GOLDEN)
def test_assembler_produces_the_documented_words(source, words):
    placed = _placed(source, words)
    program = assemble(placed.text, "golden.asm")
    assert [f"0x{w:016x}" for w in placed.own_words(program.words)] == [f"0x{w:016x}" for w in words]
    assert program.words == placed.words


@pytest.mark.parametrize(("source", "words"), GOLDEN)
def test_documented_words_decode_and_reencode(source, words):
    pc = 0
    while pc < len(words):
        inst = decode(words, pc)
        assert encode(inst) == words[pc:pc + inst.words]
        pc += inst.words
    placed = _placed(source, words)
    program = Program(words=placed.words)
    assert assemble(disassemble(program), "again.asm").words == placed.words


def test_a_whole_function_by_hand():
    """Every word of a function, context included: VF.BEGIN, LOOP S3 (0x72 | 1<<41 | 3<<8), LOOP 2
    (0x72 | 2<<8), MEMBAR, VADD.f32 V2, V0, V1, P0 (row 0x22: 0x22 | 3<<8 | 2<<12 | 0<<17 | 1<<22 | 0<<27),
    ADD S1, S1, 64 (row 0x41: 0x41 | 1<<8 | 1<<13 | 64<<18), two ENDLOOPs, VF.END."""
    source = "VF.BEGIN\nLOOP S3\nLOOP 2\nMEMBAR\nVADD.f32 V2, V0, V1, P0\nADD S1, S1, 64\nENDLOOP\nENDLOOP\nVF.END\n"
    words = (0x70, 0x0000020000000372, 0x272, 0x74, 0x402322, 0x1002141, 0x73, 0x73, 0x71)
    assert [f"0x{w:016x}" for w in assemble(source, "golden.asm").words] == [f"0x{w:016x}" for w in words]
    assert assemble(disassemble(Program(words=words)), "again.asm").words == words


def test_a_negative_loop_count_decodes_but_does_not_assemble():
    """0x72 | (2**33 - 1)<<8 is LOOP -1 to the decoder (a 33-bit two's complement), which the
    assembler refuses (a loop runs 0 or more times): the words are canonical, the program is not."""
    inst = decode([0x000001FFFFFFFF72])
    assert inst.row.mnemonic == "LOOP" and inst.operands == (RegOrImm(None, -1),)
    assert encode(inst) == [0x000001FFFFFFFF72]
    with pytest.raises(AsmError, match="a loop runs 0 or more times, not -1"):
        assemble(S.in_context(inst).text, "golden.asm")


def test_decoded_fields_of_a_golden_word():
    """The decoder reads the same fields back (spot check against the hand layout of VLD)."""
    inst = decode([0x103FFC0800047320])
    assert inst.row.mnemonic == "VLD" and inst.type.name == "f32"
    assert inst.operands == (7, isa.UbRef(2, 0))
    assert inst.kw("post") == -64 and inst.kw("blk") == 3


def test_vbin_container_bytes_by_hand():
    """docs/encoding.md, "The .vbin container": header, words, one list record and one fill record."""
    program = assemble("NOP\nHALT\n.ub 0x10, f16, 1.0, -2.0\n.gmfill 0x100, u8, 7, 0xAB\n", "c.asm")
    words = struct.pack("<QQ", 0x55, 0x56)
    # record: space u8, kind u8, type code u8, 0, addr u32, count u32, payload padded to 8 bytes
    rec1 = bytes([0, 0, 1, 0]) + struct.pack("<II", 0x10, 2) + bytes([0x00, 0x3C, 0x00, 0xC0]) + b"\0" * 4
    rec2 = bytes([1, 1, 5, 0]) + struct.pack("<II", 0x100, 7) + bytes([0xAB]) + b"\0" * 7
    body = words + rec1 + rec2
    header = b"VCOREBIN" + struct.pack("<HHIIIII", 1, 0, 2, 2, len(rec1) + len(rec2), zlib.crc32(body), 0)
    expected = header + body
    assert len(header) == 32
    assert to_bytes(program) == expected
    back = from_bytes(expected)
    assert back.words == (0x55, 0x56)
    assert [(r.space, r.kind, r.type, r.addr, r.count, r.payload) for r in back.data] == [
        ("ub", "list", "f16", 0x10, 2, bytes([0x00, 0x3C, 0x00, 0xC0])),
        ("gm", "fill", "u8", 0x100, 7, bytes([0xAB])),
    ]
