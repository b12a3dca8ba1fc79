"""Golden self-checks of the second half of the part-three reference (tests/reference.py section 12:
CONTRACT 13.1 distribution modes, 13.4 GatherMask and Squeeze, 13.5 transposes, 13.6 sorts and
histograms, 13.12 saturating conversion).

Every expected number is worked out by hand or taken from the contract's own examples (the quant
store of 13.1, the ``DIST_PACK_B16`` example, the Squeeze example with AR = 256, the NCHW (2,32,16,16)
-> NC1HWC0 scenario of 13.5, a top-k), never by running the reference a second way. These need nothing
of vcore but the ISA table the reference reads.
"""

import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference as R


def u16_ub(n):
    """UB of n u16 elements holding 0, 1, 2, ..."""
    return np.arange(n, dtype='<u2').view(np.uint8).copy()


def lanes(v, t):
    return [int(x) for x in np.ascontiguousarray(v).view(R.DTYPES[t] if t in R.INT_TYPES else
                                                      {1: '<u1', 2: '<u2', 4: '<u4'}[R.SIZE[t]])]


def f_bits(values, t):
    return [R.encode(x, t) for x in values]


# ---------------------------------------------------------------------------
# 13.1: VLD dist=
# ---------------------------------------------------------------------------

def test_vld_norm_broadcast_upsample_downsample():
    ub = u16_ub(512)                                     # u16 element k = k, 1 KiB
    assert lanes(R.vld_dist(ub, 0x40, 'u16'), 'u16') == list(range(32, 160))
    assert lanes(R.vld_dist(ub, 0x06, 'u16', 'brc_b16'), 'u16') == [3] * 128      # 2-byte alignment
    assert lanes(R.vld_dist(ub, 0x0C, 'f32', 'BRC_B32'), 'u32') == [0x00070006] * 64
    assert lanes(R.vld_dist(ub, 0x205, 'u8', 'dist_brc_b8'), 'u8') == [0x01] * 256  # high byte of 258
    assert lanes(R.vld_dist(ub, 0x20, 's16', 'us_b16'), 'u16') == [16 + i // 2 for i in range(128)]
    us8 = lanes(R.vld_dist(ub, 0x0, 'u8', 'us_b8'), 'u8')
    assert us8[:8] == [0, 0, 0, 0, 1, 1, 0, 0] and len(us8) == 256    # bytes 0 0 1 0 -> each twice
    assert lanes(R.vld_dist(ub, 0x0, 'f16', 'ds_b16'), 'u16') == list(range(0, 256, 2))
    ds8 = lanes(R.vld_dist(ub, 0x0, 's8', 'ds_b8'), 'u8')
    assert ds8 == list(range(256))                    # byte 2i is the low byte of u16 element i = i


def test_vld_unpack_zero_extends_whatever_the_signedness():
    ub = np.zeros(0x200, dtype=np.uint8)
    ub[0:4] = [0x7F, 0x80, 0xFF, 0x01]
    v = R.vld_dist(ub, 0, 's8', 'unpack_b8')             # 16-bit lane i = byte i, zero-extended
    assert lanes(v, 'u16')[:5] == [0x007F, 0x0080, 0x00FF, 0x0001, 0]   # 0x7F -> 0x007F (13.1)
    v = R.vld_dist(ub, 0, 'u8', 'unpack4_b8')            # 32-bit lane i = byte i
    assert lanes(v, 'u32')[:4] == [0x7F, 0x80, 0xFF, 0x01]
    ub[0:4] = [0x00, 0x80, 0xFF, 0xFF]                   # s16 -32768, -1
    assert lanes(R.vld_dist(ub, 0, 's16', 'unpack_b16'), 'u32')[:2] == [0x8000, 0xFFFF]
    ub[0:8] = [1, 2, 3, 4, 5, 6, 7, 8]
    v = R.vld_dist(ub, 0, 'f32', 'unpack_b32')
    assert list(v[:16]) == [1, 2, 3, 4, 0, 0, 0, 0, 5, 6, 7, 8, 0, 0, 0, 0]
    ub[124:128] = [9, 9, 9, 9]                           # element 31 is the last one read (128 bytes)
    ub[128:132] = [7, 7, 7, 7]
    assert list(v[248:256]) == [0] * 8 and list(R.vld_dist(ub, 0, 'f32', 'unpack_b32')[248:256]) == [9] * 4 + [0] * 4


def test_vld_blk_e2b_dintlv():
    ub = u16_ub(512)
    v = R.vld_dist(ub, 0x60, 'u8', 'blk')                # 8 copies of the 32 bytes at 0x60
    assert all(lanes(v, 'u16')[16 * j:16 * j + 16] == list(range(48, 64)) for j in range(8))
    v = R.vld_dist(ub, 0x10, 'u16', 'e2b_b16')           # 16-byte alignment; elements 8..15
    assert lanes(v, 'u16') == [8 + j for j in range(8) for _ in range(16)]
    v = R.vld_dist(ub, 0x20, 's32', 'e2b_b32')           # u32 element j = (2j+17) << 16 | (2j+16)
    assert lanes(v, 'u32') == [((2 * j + 17) << 16) | (2 * j + 16) for j in range(8) for _ in range(8)]
    v0, v1 = R.vld_dist(ub, 0x0, 'u16', 'dintlv_b16')    # 512 bytes = elements 0..255
    assert lanes(v0, 'u16') == list(range(0, 256, 2)) and lanes(v1, 'u16') == list(range(1, 256, 2))
    v0, v1 = R.vld_dist(ub, 0x0, 'u32', 'dintlv_b32')
    assert lanes(v0, 'u32')[:2] == [0x00010000, 0x00050004] and lanes(v1, 'u32')[:1] == [0x00030002]


def test_vld_dist_errors_and_post():
    ub = np.zeros(0x2000, dtype=np.uint8)
    with pytest.raises(ValueError):
        R.vld_dist(ub, 0x1002, 'f32', 'brc_b32')         # "needs a 4-byte aligned address; 0x1002 is not"
    with pytest.raises(ValueError):
        R.vld_dist(ub, 0x10, 'u16', 'us_b16')            # 32
    with pytest.raises(ValueError):
        R.vld_dist(ub, 0x08, 'u16', 'e2b_b16')           # 16
    with pytest.raises(ValueError):
        R.vld_dist(ub, 0, 'f16', 'unpack_16')            # unknown mode
    with pytest.raises(ValueError):
        R.vld_dist(ub, 0, 'f16', 'unpack_b8')            # width mismatch
    with pytest.raises(ValueError):
        R.vld_dist(ub, 0, 'u8', 'norm_b8')               # norm_bW is a store name
    with pytest.raises(IndexError):
        R.vld_dist(ub, 0x1F00, 'u8', 'ds_b8')            # 512 bytes
    assert R.dist_post('f32', 'norm', 8) == 32
    assert R.dist_post('f32', 'brc_b32', 1) == 4
    assert R.dist_post('f16', 'e2b_b16', 8) == 16
    assert R.dist_post('s8', 'pack4_b32', 64, store=True) == 64
    with pytest.raises(ValueError):
        R.dist_post('f32', 'norm', 1)                    # 4 bytes: not a multiple of 32
    with pytest.raises(ValueError):
        R.dist_post('f16', 'first_b16', 1)               # load table has no first_*
    assert R.dist_post('f16', 'first_b16', 1, store=True) == 2


# ---------------------------------------------------------------------------
# 13.1: VST dist=
# ---------------------------------------------------------------------------

def test_vst_pack_b16_contract_example_and_holes():
    v = np.zeros(256, dtype=np.uint8)
    v[:8] = np.array([0x3210, 0x7654, 0xBA98, 0xFEDC], dtype='<u2').view(np.uint8)
    ub = np.full(0x200, 0xEE, dtype=np.uint8)
    written = R.vst_dist(ub, 0x40, 'u8', 'pack_b16', v, R.pset(16, 'ALL'))
    assert written == list(range(0x40, 0xC0))                        # 128 bytes
    assert int(ub[0x40:0x42].view('<u2')[0]) == 0x5410               # [0x3210, 0x7654] -> [0x5410]
    assert list(ub[0x40:0x44]) == [0x10, 0x54, 0x98, 0xDC] and ub[0x44] == 0 and ub[0xC0] == 0xEE
    ub = np.full(0x200, 0xEE, dtype=np.uint8)
    pm = R.make_mask(2, [True, False, True])                         # lane 1 inactive: a hole [vcore]
    assert R.vst_dist(ub, 0x40, 'u8', 'pack_b16', v, pm) == [0x40, 0x42]
    assert list(ub[0x40:0x44]) == [0x10, 0xEE, 0x98, 0xEE]


def test_vst_pack_b32_pack4_first_intlv():
    v = np.array([0x11223344 + i for i in range(64)], dtype='<u4').view(np.uint8).copy()
    ub = np.zeros(0x200, dtype=np.uint8)
    R.vst_dist(ub, 0x20, 'f16', 'pack_b32', v, R.pset(32, 'ALL'))    # low 16 bits of each lane
    assert lanes(ub[0x20:0xA0], 'u16')[:3] == [0x3344, 0x3345, 0x3346] and ub[0xA0] == 0
    ub = np.zeros(0x200, dtype=np.uint8)
    # the mask is read at 4 bytes: bit 4i; bit 1 alone does not make lane 0 active
    pm = np.zeros(256, dtype=bool)
    pm[[1, 4, 8, 9]] = True
    assert R.vst_dist(ub, 0x20, 's8', 'pack4_b32', v, pm) == [0x21, 0x22]
    assert list(ub[0x20:0x24]) == [0, 0x45, 0x46, 0]
    ub = np.full(0x40, 0xEE, dtype=np.uint8)
    assert R.vst_dist(ub, 0x4, 'u32', 'first_b32', v) == [4, 5, 6, 7]  # w bytes, 4-aligned, no Pm
    assert list(ub[2:10]) == [0xEE, 0xEE, 0x44, 0x33, 0x22, 0x11, 0xEE, 0xEE]
    a = np.array(range(128), dtype='<u2').view(np.uint8).copy()
    b = np.array(range(1000, 1128), dtype='<u2').view(np.uint8).copy()
    ub = np.zeros(0x400, dtype=np.uint8)
    assert len(R.vst_dist(ub, 0x0, 'bf16', 'intlv_b16', a, vs1=b)) == 512
    assert lanes(ub[:512], 'u16')[:6] == [0, 1000, 1, 1001, 2, 1002]
    assert lanes(ub[:512], 'u16')[-2:] == [127, 1127]
    R.vst_dist(ub, 0x200, 'u16', 'intlv_b16', a, vs1=a)               # Vs0 == Vs1 allowed
    assert lanes(ub[0x200:0x208], 'u16') == [0, 0, 1, 1]


def test_vst_dist_errors():
    v = np.zeros(256, dtype=np.uint8)
    ub = np.zeros(0x400, dtype=np.uint8)
    ones = R.pset(8, 'ALL')
    with pytest.raises(ValueError, match='pack_b64 needs 64-bit lanes'):
        R.vst_dist(ub, 0, 'u32', 'pack_b64', v, ones)
    with pytest.raises(ValueError):
        R.vst_dist(ub, 0, 'f16', 'pack4_b32', v, ones)                 # stores 8-bit elements
    with pytest.raises(ValueError):
        R.vst_dist(ub, 0, 'u16', 'intlv_b16', v, ones, vs1=v)          # ignores the mask
    with pytest.raises(ValueError):
        R.vst_dist(ub, 0, 'u16', 'first_b16', v, ones)
    with pytest.raises(ValueError):
        R.vst_dist(ub, 0, 'u8', 'pack_b16', v)                          # needs a mask
    with pytest.raises(ValueError):
        R.vst_dist(ub, 0, 'u16', 'intlv_b16', v)                        # two sources
    with pytest.raises(ValueError):
        R.vst_dist(ub, 0x10, 's8', 'pack4_b32', v, ones)               # "is not 32-byte aligned"
    with pytest.raises(ValueError):
        R.vst_dist(ub, 0, 'u16', 'norm_b32', v, ones)
    assert R.vst_dist(ub, 0, 'u16', 'NORM_B16', v, R.make_mask(2, [True])) == [0, 1]


def test_quant_store_of_13_1():
    """The 950 quant sample of 13.1, run step by step on the reference: 5 floats, P0 from PUPDATE.b32
    with S4 = 5, SCALE 2.0, OFFSET 1.0; byte i of UB = s8(rint(f16(x) * 2 + 1))."""
    xs = [1.0, -3.5, 100.0, 0.25, -100.0]
    want = [3, -6, 127, 2, -128]        # 3; -6; 201 saturates; 1.5 rounds to even 2; -199 saturates
    ub = np.zeros(0x400, dtype=np.uint8)
    ub[:20] = np.array(xs, dtype='<f4').view(np.uint8)
    ub[0x200:0x240] = 0xEE
    p0, _ = R.pupdate(32, 5)
    v0 = R.vld_dist(ub, 0x0, 'f32')
    v1 = R.vconv('f16', 'f32', v0, p0, round='rint')
    assert lanes(v1, 'u16')[:4] == [0x3C00, 0, R.encode(-3.5, 'f16'), 0]     # lane i -> element 2i
    v1 = R.vop_scalar('muls', 'f16', v1, 2.0, p0)
    v1 = R.vop_scalar('adds', 'f16', v1, 1.0, p0)
    v2 = R.vconv('s8', 'f16', v1, p0, round='rint')
    # f16 element 2i -> byte 4i; the odd f16 elements (0 after the narrowing) became 0 * 2 + 1 = 1 and
    # land in bytes 4i + 2, which the pack store drops
    assert lanes(v2, 's8')[:5] == [3, 0, 1, 0, -6]
    written = R.vst_dist(ub, 0x200, 's8', 'pack4_b32', v2, p0)
    assert written == list(range(0x200, 0x205))
    assert lanes(ub[0x200:0x205], 's8') == want
    assert list(ub[0x205:0x240]) == [0xEE] * 0x3B                             # inactive lanes: unchanged
    assert R.dist_post('f32', 'norm', 64) == 256 and R.dist_post('s8', 'pack4_b32', 64, store=True) == 64


# ---------------------------------------------------------------------------
# 13.4: VGATHERM
# ---------------------------------------------------------------------------

def test_gatherm_fixed_patterns():
    assert R.gatherm_fixed_pattern(1, 6) == [True, False, True, False, True, False]
    assert R.gatherm_fixed_pattern(2, 4) == [False, True, False, True]
    assert [i for i, b in enumerate(R.gatherm_fixed_pattern(3, 12)) if b] == [0, 4, 8]
    assert [i for i, b in enumerate(R.gatherm_fixed_pattern(6, 12)) if b] == [3, 7, 11]
    ub = np.zeros(0x1000, dtype=np.uint8)
    ub[:0x400] = u16_ub(512)
    cases = {1: list(range(0, 128, 2)), 2: list(range(1, 128, 2)), 4: list(range(1, 128, 4)),
             5: list(range(2, 128, 4)), 7: list(range(128))}
    for pattern, kept in cases.items():
        out = ub.copy()
        out[0x800:0xA00] = 0xEE
        assert R.tensor_gatherm(out, 'u16', 0x800, 0x0, pattern) == len(kept)
        assert lanes(out[0x800:0x800 + 2 * len(kept)], 'u16') == kept
        assert (out[0x800 + 2 * len(kept):0xA00] == 0xEE).all()               # past the kept: unchanged


def test_gatherm_repeat_strides_count():
    ub = np.zeros(0x2000, dtype=np.uint8)
    ub[:0x800] = u16_ub(1024)
    out = ub.copy()
    # mask=10: elements 0..9 of each iteration; srcrep 8 (default): iteration 1 starts at element 128
    assert R.tensor_gatherm(out, 'u16', 0x1000, 0x0, 1, repeat=2, mask=10) == 10
    assert lanes(out[0x1000:0x1014], 'u16') == [0, 2, 4, 6, 8, 128, 130, 132, 134, 136]
    out = ub.copy()
    # srcblk=2 (16 elements a block): element i at u16 index (i // 16) * 32 + i % 16; srcrep=1
    assert R.tensor_gatherm(out, 'u16', 0x1000, 0x0, 3, repeat=2, srcblk=2, srcrep=1, mask=40) == 20
    assert lanes(out[0x1000:0x1028], 'u16') == [0, 4, 8, 12, 32, 36, 40, 44, 64, 68,
                                                16, 20, 24, 28, 48, 52, 56, 60, 80, 84]
    out = ub.copy()
    assert R.tensor_gatherm(out, 'f32', 0x1000, 0x0, 7, repeat=0) == 0 and (out == ub).all()
    out = ub.copy()
    assert R.tensor_gatherm(out, 's8', 0x1000, 0x0, 1, mask=8) == 4                 # bytes 0, 2, 4, 6
    assert list(out[0x1000:0x1005]) == [0, 1, 2, 3, 0]


def test_gatherm_src1_pattern_and_src1rep():
    ub = np.zeros(0x2000, dtype=np.uint8)
    ub[:0x800] = u16_ub(1024)
    ub[0x1800] = 0b0000_0101                       # bits 0, 2
    ub[0x1801] = 0x80                              # bit 15
    ub[0x180F] = 0x80                              # bit 127
    ub[0x1820] = 0x02                              # next 32 bytes: bit 1
    out = ub.copy()
    assert R.tensor_gatherm(out, 'u16', 0x1000, 0x0, src1=0x1800, repeat=2) == 8     # src1rep 0: same bits
    assert lanes(out[0x1000:0x1010], 'u16') == [0, 2, 15, 127, 128, 130, 143, 255]
    out = ub.copy()
    assert R.tensor_gatherm(out, 'u16', 0x1000, 0x0, src1=0x1800, repeat=2, src1rep=1) == 5
    assert lanes(out[0x1000:0x100A], 'u16') == [0, 2, 15, 127, 129]
    out = ub.copy()
    assert R.tensor_gatherm(out, 'u16', 0x1000, 0x0, src1=0x1800, mask=16) == 3      # bit 127 not considered
    # u32 words: bit i % 32 of word i // 32, little endian: word 0 = 0x00008005
    assert int(ub[0x1800:0x1804].view('<u4')[0]) == 0x8005


def test_gatherm_in_place_and_errors():
    ub = np.zeros(0x1000, dtype=np.uint8)
    ub[:0x200] = np.arange(128, dtype='<u4').view(np.uint8)
    out = ub.copy()
    assert R.tensor_gatherm(out, 'u32', 0x0, 0x0, 2, repeat=2) == 64                # in place, two iterations
    assert lanes(out[:0x100], 'u32') == list(range(1, 128, 2))
    assert (out[0x100:0x200] == ub[0x100:0x200]).all()
    with pytest.raises(ValueError):
        R.tensor_gatherm(ub.copy(), 'u32', 0x20, 0x0, 7)                             # dst overlaps src0
    pat = ub.copy()
    pat[0x400] = 1                                                                   # keeps element 0
    with pytest.raises(ValueError):
        R.tensor_gatherm(pat, 'u32', 0x400, 0x0, src1=0x400)                         # dst overlaps src1
    assert R.tensor_gatherm(ub.copy(), 'u32', 0x400, 0x0, src1=0x400) == 0          # nothing written
    with pytest.raises(ValueError, match='src1rep has no effect'):
        R.tensor_gatherm(ub.copy(), 'u32', 0x400, 0x0, 1, src1rep=1)
    with pytest.raises(ValueError, match='not a bit mask'):
        R.tensor_gatherm(ub.copy(), 'u32', 0x400, 0x0, 1, mask=(3, 0))
    with pytest.raises(ValueError):
        R.tensor_gatherm(ub.copy(), 'u32', 0x400, 0x0, 1, mask=65)                   # 1..L only
    with pytest.raises(ValueError):
        R.tensor_gatherm(ub.copy(), 'u32', 0x400, 0x0, 8)
    with pytest.raises(ValueError):
        R.tensor_gatherm(ub.copy(), 'u8', 0x400, 0x0, 1, profile='a2')               # 8-bit: 950 only
    with pytest.raises(ValueError):
        R.tensor_gatherm(ub.copy(), 'u32', 0x410, 0x0, 1)                            # alignment
    assert R.tensor_gatherm(ub.copy(), 'u32', 0x400, 0x100, 3, mask=5) == 2          # disjoint: fine


# ---------------------------------------------------------------------------
# 13.4: VSQZ and AR
# ---------------------------------------------------------------------------

def test_vsqz_by_hand():
    a = np.array(range(100, 228), dtype='<u2').view(np.uint8).copy()
    vd, k = R.vsqz('f16', a, R.make_mask(2, [False, True, False, True]))
    assert k == 2 and lanes(vd, 'u16') == [101, 103] + [0] * 126
    vd, k = R.vsqz('u8', a, np.zeros(256, dtype=bool))
    assert k == 0 and not vd.any()
    pm = np.zeros(256, dtype=bool)
    pm[[1, 2, 3, 8]] = True                                         # read at 4 bytes: lane 2 only
    vd, k = R.vsqz('s32', a, pm)
    assert k == 1 and lanes(vd, 'u32')[:2] == [(105 << 16) | 104, 0]
    assert R.vsqz_ar(0, 's32', 1) == 4 and R.vsqz_ar(10, 'e4m3', 3) == 13


def test_squeeze_example_ar_256():
    """GetSpr example: four 64-lane f32 registers squeezed with M4 into a 64-float output, AR = 256."""
    regs = [np.arange(64 * r, 64 * r + 64, dtype='<f4').view(np.uint8).copy() for r in range(4)]
    ar, out = 0, []
    for v in regs:
        vd, k = R.vsqz('f32', v, R.pset(32, 'M4'))
        assert k == 16
        ar = R.vsqz_ar(ar, 'f32', k)
        out += [float(x) for x in vd.view('<f4')[:k]]
    assert ar == 256 and len(out) == 64
    assert out == [float(i) for i in range(0, 256, 4)]


# ---------------------------------------------------------------------------
# 13.5: VTRANS and VTRANS5HD
# ---------------------------------------------------------------------------

def test_vtrans_tiles():
    ub = np.zeros(0x2000, dtype=np.uint8)
    ub[:0x400] = u16_ub(512)                        # tile 0: (y, x) = 16y + x; tile 1: 256 + 16y + x
    out = ub.copy()
    R.tensor_trans(out, 'f16', 0x1000, 0x0, repeat=2)
    t0 = lanes(out[0x1000:0x1200], 'u16')
    assert t0[16 * 1 + 0] == 1 and t0[16 * 0 + 1] == 16 and t0[16 * 3 + 5] == 16 * 5 + 3
    assert lanes(out[0x1200:0x1400], 'u16')[16 * 2 + 7] == 256 + 16 * 7 + 2
    out = ub.copy()
    R.tensor_trans(out, 's16', 0x1000, 0x0, repeat=2, dstrep=2, srcrep=0)      # tile 0 twice
    assert (out[0x1000:0x1200] == out[0x1400:0x1600]).all() and not out[0x1200:0x1400].any()
    out = ub.copy()
    R.tensor_trans(out, 'u16', 0x200, 0x200)                                     # in place
    assert lanes(out[0x200:0x400], 'u16')[1] == 256 + 16
    with pytest.raises(ValueError, match='overlap other than exactly'):
        R.tensor_trans(ub.copy(), 'u16', 0x100, 0x0)
    with pytest.raises(ValueError, match='overlap other than exactly'):
        R.tensor_trans(ub.copy(), 'u16', 0x400, 0x0, repeat=3)                  # tile 0 dst = tile 2 src
    R.tensor_trans(ub.copy(), 'u16', 0x0, 0x200, repeat=2)                      # an EARLIER tile's src: fine
    with pytest.raises(ValueError):
        R.tensor_trans(ub.copy(), 'bf16', 0x1000, 0x0)
    with pytest.raises(ValueError):
        R.tensor_trans(ub.copy(), 'u16', 0x1000, 0x0, repeat=0)


def _lists(ub, at, addrs):
    ub[at:at + 128] = np.array(addrs, dtype='<u8').view(np.uint8)


def test_vtrans5hd_16_bit_and_repeat_quirk():
    ub = np.zeros(0x4000, dtype=np.uint8)
    # 16 source blocks of 16 u16 at 0x1000 + 64 i (gaps between), element j of block i = 100 i + j
    for i in range(16):
        ub[0x1000 + 64 * i:0x1000 + 64 * i + 64] = np.array([100 * i + j for j in range(32)], '<u2').view(np.uint8)
    _lists(ub, 0x0, [0x2000 + 64 * j for j in range(16)])                 # dstlist
    _lists(ub, 0x80, [0x1000 + 64 * i for i in range(16)])                # srclist
    out = ub.copy()
    R.tensor_trans5hd(out, 'f16', 0x0, 0x80)
    for j in (0, 5, 15):
        assert lanes(out[0x2000 + 64 * j:0x2000 + 64 * j + 32], 'u16') == [100 * i + j for i in range(16)]
    assert not out[0x2020:0x2040].any()
    out = ub.copy()
    R.tensor_trans5hd(out, 'u16', 0x0, 0x80, srcrep=1, dstrep=1)          # repeat=1: offsets rep * 32 (quirk)
    assert lanes(out[0x2020:0x2040], 'u16') == [100 * i + 16 for i in range(16)]
    assert not out[0x2000:0x2020].any()
    out = ub.copy()
    R.tensor_trans5hd(out, 'u16', 0x0, 0x80, repeat=2, srcrep=1, dstrep=1)  # repeat=2: r * rep * 32
    assert lanes(out[0x2000:0x2020], 'u16') == [100 * i for i in range(16)]
    assert lanes(out[0x2020:0x2040], 'u16') == [100 * i + 16 for i in range(16)]
    out = ub.copy()
    R.tensor_trans5hd(out, 'u16', 0x0, 0x80, repeat=0)
    assert (out == ub).all()


def test_vtrans5hd_8_bit_halves_and_errors():
    ub = np.zeros(0x4000, dtype=np.uint8)
    for i in range(16):
        ub[0x1000 + 32 * i:0x1020 + 32 * i] = [(i << 4 | j) if j < 16 else 0x80 | (i << 2) | (j & 3)
                                               for j in range(32)]
    ub[0x2000:0x2200] = 0xEE
    _lists(ub, 0x0, [0x2000 + 32 * j for j in range(16)])
    _lists(ub, 0x80, [0x1000 + 32 * i for i in range(16)])
    out = ub.copy()
    R.tensor_trans5hd(out, 's8', 0x0, 0x80)                              # low halves
    assert list(out[0x2000 + 32 * 3:0x2000 + 32 * 3 + 16]) == [i << 4 | 3 for i in range(16)]
    assert (out[0x2010:0x2020] == 0xEE).all()                           # the other 16 bytes: not written
    out = ub.copy()
    R.tensor_trans5hd(out, 'u8', 0x0, 0x80, srchigh=1, dsthigh=1)
    # byte 16 + i of dst block j = byte 16 + j of src block i
    assert list(out[0x2000 + 32 * 2 + 16:0x2000 + 32 * 3]) == [ub[0x1000 + 32 * i + 18] for i in range(16)]
    assert (out[0x2040:0x2050] == 0xEE).all()
    with pytest.raises(ValueError):
        R.tensor_trans5hd(ub.copy(), 'u16', 0x0, 0x80, srchigh=1)
    with pytest.raises(ValueError, match='32-bit layout'):
        R.tensor_trans5hd(ub.copy(), 'f32', 0x0, 0x80)
    with pytest.raises(ValueError):
        R.tensor_trans5hd(ub.copy(), 'bf16', 0x0, 0x80, profile='a2')
    bad = ub.copy()
    bad[0x80 + 24:0x80 + 32] = np.array([0x1234], '<u8').view(np.uint8)
    with pytest.raises(ValueError, match=r'srclist\[3\] = 0x1234 is not 32-byte aligned'):
        R.tensor_trans5hd(bad, 'u8', 0x0, 0x80)
    with pytest.raises(ValueError):
        R.tensor_trans5hd(ub.copy(), 'u8', 0x0, 0x80, srcrep=128, repeat=1)    # S_0 + 4096 = D_0


def test_nchw_to_nc1hwc0_scenario():
    """13.5: NCHW (2,32,16,16) f16 -> NC1HWC0 (2,2,16,16,16): one VTRANS5HD per (n, c1), repeat=16 over
    the H*W plane in 16-element blocks: S_i = channel c1*16+i's plane, srcrep 1; D_j = block j of the
    output, dstrep 16 (16 blocks of 16 channels)."""
    x = np.arange(2 * 32 * 16 * 16, dtype=np.int64).reshape(2, 32, 16, 16)
    xb = (x % 65536).astype('<u2')
    want = R.nchw_to_nc1hwc0(xb)
    assert want.shape == (2, 2, 16, 16, 16)
    assert want[1, 1, 3, 4, 5] == xb[1, 16 + 5, 3, 4]
    X, Y, LISTS = 0x0, 0x8000, 0x10000
    ub = np.zeros(0x11000, dtype=np.uint8)
    ub[X:X + xb.nbytes] = xb.view(np.uint8).ravel()
    for n in range(2):
        for c1 in range(2):
            at = LISTS + 0x100 * (2 * n + c1)
            _lists(ub, at, [Y + 2 * (((n * 2 + c1) * 256) * 16 + 16 * j) for j in range(16)])
            _lists(ub, at + 0x80, [X + 2 * ((n * 32 + 16 * c1 + i) * 256) for i in range(16)])
            R.tensor_trans5hd(ub, 'f16', at, at + 0x80, repeat=16, dstrep=16, srcrep=1)
    got = ub[Y:Y + xb.nbytes].view('<u2').reshape(2, 2, 16, 16, 16)
    assert (got == want).all()


# ---------------------------------------------------------------------------
# 13.6: VSORT32, VMRGSORT, VHIST
# ---------------------------------------------------------------------------

NAN = float('nan')
INF = float('inf')


def records(buf, t):
    """(score value, index) of each 8-byte record."""
    out = []
    for k in range(len(buf) // 8):
        rec = buf[8 * k:8 * k + 8]
        out.append((R.decode(int(rec[:R.SIZE[t]].view({2: '<u2', 4: '<u4'}[R.SIZE[t]])[0]), t),
                    int(rec[4:8].view('<u4')[0])))
    return out


def _sort_input(t, scores):
    ub = np.zeros(0x1000, dtype=np.uint8)
    w = R.SIZE[t]
    ub[0x0:32 * w] = R.to_bytes(scores, t)
    ub[0x100:0x180] = np.array([1000 + i for i in range(32)], '<u4').view(np.uint8)   # index 1000 + position
    return ub


@pytest.mark.parametrize('t', ['f32', 'f16'])
def test_sort32_order_ties_nan_zero(t):
    scores = [3.0, 1.0, 3.0, NAN, -0.0, 0.0, INF, -INF] + [-float(k) for k in range(1, 25)]
    scores[9] = NAN
    ub = _sort_input(t, scores)
    R.tensor_sort32(ub, t, 0x200, 0x0, 0x100)
    got = records(ub[0x200:0x300], t)
    order = [3, 9, 6, 0, 2, 1, 4, 5, 8, *range(10, 32), 7]
    assert [i - 1000 for _, i in got] == order
    assert math.copysign(1, got[6][0]) == -1 and math.copysign(1, got[7][0]) == 1   # -0, +0 in input order
    if t == 'f16':
        assert all(ub[0x200 + 8 * k + 2] == 0 and ub[0x200 + 8 * k + 3] == 0 for k in range(32))


def test_sort32_repeat_and_alignment():
    ub = np.zeros(0x1000, dtype=np.uint8)
    ub[:256] = np.array(list(range(32)) + list(range(100, 132)), '<f4').view(np.uint8)
    ub[0x100:0x200] = np.arange(64, dtype='<u4').view(np.uint8)
    R.tensor_sort32(ub, 'f32', 0x400, 0x0, 0x100, repeat=2)
    assert [i for _, i in records(ub[0x400:0x500], 'f32')] == list(range(31, -1, -1))
    assert [i for _, i in records(ub[0x500:0x600], 'f32')] == list(range(63, 31, -1))
    with pytest.raises(ValueError):
        R.tensor_sort32(ub, 'f32', 0x400, 0x40, 0x100)              # score 128-aligned for f32
    R.tensor_sort32(ub, 'f16', 0x400, 0x40, 0x100)                  # 64 for f16
    with pytest.raises(ValueError):
        R.tensor_sort32(ub, 'f16', 0x400, 0x0, 0x140)               # index 128
    with pytest.raises(ValueError):
        R.tensor_sort32(ub, 'f16', 0x480, 0x0, 0x100)               # dst 256
    with pytest.raises(ValueError):
        R.tensor_sort32(ub, 's32', 0x400, 0x0, 0x100)


def _queue(ub, at, t, items):
    """Records (score, index) written at ``at``."""
    for k, (s, i) in enumerate(items):
        ub[at + 8 * k:at + 8 * k + 8] = R.record_bytes(t, R.encode(s, t), i)


def test_mrgsort_two_queues_ties_stop():
    ub = np.zeros(0x1000, dtype=np.uint8)
    _queue(ub, 0x0, 'f32', [(5, 0), (3, 1), (1, 2)])
    _queue(ub, 0x100, 'f32', [(4, 10), (3, 11), (2, 12)])
    out = ub.copy()
    assert R.tensor_mrgsort(out, 'f32', 0x400, [0x0, 0x100], [3, 3]) == [3, 3, 0, 0]
    assert [i for _, i in records(out[0x400:0x430], 'f32')] == [0, 10, 1, 11, 12, 2]    # tie: queue 0 first
    out = ub.copy()
    out[0x400:0x440] = 0xEE
    assert R.tensor_mrgsort(out, 'f32', 0x400, [0x0, 0x100], [3, 3], stop=1) == [2, 3, 0, 0]
    assert [i for _, i in records(out[0x400:0x428], 'f32')] == [0, 10, 1, 11, 12]      # q1 emptied by 12
    assert (out[0x428:0x440] == 0xEE).all()
    out = ub.copy()
    assert R.tensor_mrgsort(out, 'f32', 0x400, [0x0, 0x100, 0x200], [3, 3, 0], stop=1) == [0, 0, 0, 0]
    assert (out == ub).all()                                                           # empty at the start
    # 13.12: a 4-queue merge with two empty queues = the 2-queue form
    a, b = ub.copy(), ub.copy()
    ca = R.tensor_mrgsort(a, 'f32', 0x400, [0x0, 0x100], [3, 3])
    cb = R.tensor_mrgsort(b, 'f32', 0x400, [0x0, 0x200, 0x100, 0x300], [3, 0, 3, 0])
    assert (a == b).all() and ca == [3, 3, 0, 0] and cb == [3, 0, 3, 0]
    with pytest.raises(ValueError):
        R.tensor_mrgsort(ub.copy(), 'f32', 0x100, [0x0, 0x100], [3, 3])               # dst overlaps q1
    with pytest.raises(ValueError):
        R.tensor_mrgsort(ub.copy(), 'f32', 0x400, [0x0, 0x100], [3])
    with pytest.raises(ValueError):
        R.tensor_mrgsort(ub.copy(), 'f32', 0x400, [0x4, 0x100], [3, 3])               # queue 8-aligned
    with pytest.raises(ValueError, match='repeat=2 needs 4 contiguous'):
        R.tensor_mrgsort(ub.copy(), 'f32', 0x400, [0x0, 0x18, 0x30, 0x48], [3, 3, 3, 3], repeat=2, stop=1)


def test_mrgsort_nan_zero_and_f16_bytes_copied():
    ub = np.zeros(0x1000, dtype=np.uint8)
    _queue(ub, 0x0, 'f16', [(NAN, 0), (-0.0, 1)])
    _queue(ub, 0x100, 'f16', [(INF, 10), (0.0, 11)])
    ub[0x2:0x4] = [0xAB, 0xCD]                                     # reserved bytes are copied unchanged
    R.tensor_mrgsort(ub, 'f16', 0x400, [0x0, 0x100], [2, 2])
    assert [i for _, i in records(ub[0x400:0x420], 'f16')] == [0, 10, 1, 11]           # -0 == +0: queue 0
    assert list(ub[0x402:0x404]) == [0xAB, 0xCD]


def test_mrgsort_repeat():
    ub = np.zeros(0x1000, dtype=np.uint8)
    for r in range(2):                                              # 4 queues of 2 records, contiguous
        for q in range(4):
            _queue(ub, r * 64 + 16 * q, 'f32', [(10 * q + 5 + 100 * r, 10 * q + r), (10 * q + 100 * r, 10 * q + 5)])
    counts = R.tensor_mrgsort(ub, 'f32', 0x400, [0x0, 0x10, 0x20, 0x30], [2, 2, 2, 2], repeat=2)
    assert counts == [2, 2, 2, 2]
    assert [i for _, i in records(ub[0x400:0x440], 'f32')] == [30, 35, 20, 25, 10, 15, 0, 5]
    assert [s for s, _ in records(ub[0x440:0x480], 'f32')] == [135, 130, 125, 120, 115, 110, 105, 100]


def test_top_k_by_sort32_and_mrgsort():
    """Top-k on a2 (13.6): VSORT32 over 4 groups of 32, one VMRGSORT of 4 queues of 32, stop=1."""
    rng = np.random.default_rng(7)
    scores = rng.permutation(128).astype(np.float32) * 0.5 - 20      # distinct
    ub = np.zeros(0x2000, dtype=np.uint8)
    ub[:512] = scores.view(np.uint8)
    ub[0x200:0x400] = np.arange(128, dtype='<u4').view(np.uint8)
    R.tensor_sort32(ub, 'f32', 0x400, 0x0, 0x200, repeat=4)
    counts = R.tensor_mrgsort(ub, 'f32', 0x800, [0x400, 0x500, 0x600, 0x700], [32] * 4)
    assert counts == [32] * 4
    got = records(ub[0x800:0xC00], 'f32')
    want = sorted(range(128), key=lambda i: -scores[i])
    assert [i for _, i in got] == want
    assert [s for s, _ in got[:3]] == [43.5, 43.0, 42.5]
    counts = R.tensor_mrgsort(ub, 'f32', 0xC00, [0x400, 0x500, 0x600, 0x700], [32] * 4, stop=1)
    assert sum(counts) >= 32 and max(counts) == 32
    assert [i for _, i in records(ub[0xC00:0xC00 + 8 * sum(counts)], 'f32')] == want[:sum(counts)]


def test_vhist_freq_cum_bins_wrap():
    va = np.zeros(256, dtype=np.uint8)
    va[:8] = [0, 1, 1, 127, 128, 255, 5, 1]
    va[8:] = 200
    pm = np.zeros(256, dtype=bool)
    pm[:7] = True                                   # lane 7 (a third 1) and the 200s inactive
    pm[8] = True                                    # one 200
    zero = np.zeros(256, dtype=np.uint8)
    f0 = lanes(R.vhist('FREQ', 'BIN0', zero, va, pm), 'u16')
    assert f0[0] == 1 and f0[1] == 2 and f0[5] == 1 and f0[127] == 1 and sum(f0) == 5
    f1 = lanes(R.vhist('freq', 1, zero, va, pm), 'u16')
    assert f1[0] == 1 and f1[127] == 1 and f1[72] == 1 and sum(f1) == 3            # 128, 255, 200
    c0 = lanes(R.vhist('CUM', 0, zero, va, pm), 'u16')
    assert c0[:6] == [1, 3, 3, 3, 3, 4] and c0[127] == 5
    c1 = lanes(R.vhist('CUM', 'BIN1', zero, va, pm), 'u16')                      # 128 .. 128 + n
    assert c1[0] == 1 and c1[71] == 1 and c1[72] == 2 and c1[127] == 3
    old = np.zeros(256, dtype=np.uint8)
    old[:4] = [0xFF, 0xFF, 7, 0]                                                  # counter 0 = 65535
    acc = lanes(R.vhist('FREQ', 0, old, va, pm), 'u16')
    assert acc[0] == 0 and acc[1] == 9                                            # wraps; accumulates
    with pytest.raises(ValueError):
        R.vhist('SUM', 0, zero, va, pm)


# ---------------------------------------------------------------------------
# 13.12: VCONV sat
# ---------------------------------------------------------------------------

@pytest.mark.parametrize(('d', 's', 'x', 'round', 'plain', 'sat'), [
    ('f16', 'f32', 1e6, None, 0x7C00, 0x7BFF),               # beyond: +65504
    ('f16', 'f32', -1e6, None, 0xFC00, 0xFBFF),
    ('f16', 'f32', INF, None, 0x7C00, 0x7BFF),               # +-inf -> largest finite
    ('f16', 'f32', -INF, None, 0xFC00, 0xFBFF),
    ('f16', 'f32', 65520.0, None, 0x7C00, 0x7BFF),           # rounds (ties to even) to 65536: beyond
    ('f16', 'f32', 65519.0, None, 0x7BFF, 0x7BFF),
    ('f16', 'f32', 70000.0, 'trunc', 0x7BFF, 0x7BFF),        # 6.1 already gives the largest finite
    ('f16', 'f32', 1.0, None, 0x3C00, 0x3C00),
    ('f16', 'f32', -0.0, None, 0x8000, 0x8000),
    ('bf16', 'f32', INF, None, 0x7F80, 0x7F7F),
    ('bf16', 'f32', -3.4028234663852886e38, None, 0xFF80, 0xFF7F),   # f32 max rounds up past bf16's
    ('f16', 'bf16', 1e10, None, 0x7C00, 0x7BFF),             # reading: bf16 -> f16 narrows the range
    ('f16', 'bf16', -INF, None, 0xFC00, 0xFBFF),
    ('bf16', 'f16', INF, None, 0x7F80, 0x7F80),              # reading: f16 -> bf16 is not narrower
    ('f32', 'f16', -INF, None, 0xFF800000, 0xFF800000),      # widening: unchanged
    ('s16', 'f32', 1e9, None, 0x7FFF, 0x7FFF),               # float-to-integer saturates already
])
def test_convert_bits_sat(d, s, x, round, plain, sat):
    bits = R.encode(x, s)
    assert R.convert_bits(bits, s, d, round) == plain
    assert R.convert_bits_sat(bits, s, d, round) == sat


def test_convert_sat_nan_stays_nan_and_register_tensor_forms():
    assert math.isnan(R.decode(R.convert_bits_sat(0x7FC00000, 'f32', 'f16'), 'f16'))
    assert math.isnan(R.decode(R.convert_bits_sat(0xFFC00001, 'f32', 'bf16'), 'bf16'))
    a = np.zeros(256, dtype=np.uint8)
    a[:12] = np.array([1e6, -INF, 2.0], '<f4').view(np.uint8)
    v = R.vconv_sat('f16', 'f32', a, R.make_mask(4, [True, True, False]), part=1)
    assert lanes(v, 'u16')[:6] == [0, 0x7BFF, 0, 0xFBFF, 0, 0]               # element 2i + 1; lane 2 inactive
    ub = np.full(0x400, 0xEE, dtype=np.uint8)
    ub[:12] = a[:12]
    R.tensor_conv_sat(ub, 'f16', 'f32', 0x200, 0x0, mask=2)
    assert lanes(ub[0x200:0x206], 'u16') == [0x7BFF, 0xFBFF, 0xEEEE]          # outside the mask: kept


def test_intlv_store_and_dintlv_load_give_the_printed_results():
    """13.3's printed results (the tensor Interleave / DeInterleave pages), through the register
    modes of 13.1 in four passes of 128 u16: src0 = 1..512, src1 = 513..1024; VST dist=intlv_b16 gives
    dst0 = [1 513 2 ... 768] then dst1 = [257 769 258 ... 1024]; VLD dist=dintlv_b16 of 1..1024 gives
    dst0 = [1 3 5 ... 1023] (and dst1 the even values)."""
    ub = np.zeros(0x2000, dtype=np.uint8)
    ub[:0x800] = np.arange(1, 1025, dtype='<u2').view(np.uint8)      # src0 at 0x0, src1 at 0x400
    ones = R.pset(16, 'ALL')
    for p in range(4):
        a = R.vld_dist(ub, 256 * p, 'u16')
        b = R.vld_dist(ub, 0x400 + 256 * p, 'u16')
        R.vst_dist(ub, 0x800 + 512 * p, 'u16', 'intlv_b16', a, vs1=b)
        even, odd = R.vld_dist(ub, 512 * p, 'u16', 'dintlv_b16')
        R.vst_dist(ub, 0x1000 + 256 * p, 'u16', 'norm', even, ones)
        R.vst_dist(ub, 0x1400 + 256 * p, 'u16', 'norm', odd, ones)
    out = lanes(ub[0x800:0x1000], 'u16')
    assert out[:4] == [1, 513, 2, 514] and out[510:512] == [256, 768]
    assert out[512:516] == [257, 769, 258, 770] and out[-1] == 1024
    assert lanes(ub[0x1000:0x1400], 'u16') == list(range(1, 1024, 2))
    assert lanes(ub[0x1400:0x1800], 'u16') == list(range(2, 1025, 2))
