"""Golden self-checks of the part-three entries of the reference model (tests/reference.py, CONTRACT 13.2,
13.3, 13.7, 13.10).

Every expected number is worked out by hand or taken from the contract's own printed examples (the
interleave orders of 13.3, the FloorMod sequence and the division examples of 13.7, PUNPACK twice of
13.2, the M4 pattern of 13.10), never by running the reference a second way. These need nothing of
vcore but the ISA table the reference reads.
"""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference as R

S32_MIN, S16_MIN = -(1 << 31), -(1 << 15)


def vreg_of(t, values):
    """A 256-byte register holding values (rest zero)."""
    v = np.zeros(256, dtype=np.uint8)
    b = R.to_bytes(values, t)
    v[:len(b)] = b
    return v


def lanes_of(vreg, t):
    return [float(x) if t in R.FLOAT_TYPES else int(x) for x in R.from_bytes(vreg, t)]


def mask_of_bits(bits):
    """A mask with exactly the listed bits set."""
    m = np.zeros(256, dtype=bool)
    m[list(bits)] = True
    return m


def set_bits(m):
    return [k for k in range(256) if m[k]]


# ---------------------------------------------------------------------------
# 13.10: PSET M3 / M4
# ---------------------------------------------------------------------------

def test_pset_m3_m4_are_lanes_whose_index_is_a_multiple():
    # "PAT_M3: elements whose index is a multiple of 3" -> lanes 0, 3, 6, ...; every bit of a lane
    assert set_bits(R.pset(8, 'M3'))[:4] == [0, 3, 6, 9]
    assert set_bits(R.pset(8, 'M4'))[:3] == [0, 4, 8]
    assert set_bits(R.pset(16, 'M3'))[:6] == [0, 1, 6, 7, 12, 13]
    assert set_bits(R.pset(32, 'M4'))[:8] == [0, 1, 2, 3, 16, 17, 18, 19]
    # the Squeeze example: 4 x 64 f32 lanes under M4 give 64 outputs, i.e. 16 lanes a register
    assert sum(R.pset(32, 'M4')[4 * i] for i in range(64)) == 16
    assert sum(R.pset(32, 'M3')[4 * i] for i in range(64)) == 22          # 0, 3, ..., 63
    assert sum(R.pset(16, 'M3')[2 * i] for i in range(128)) == 43         # 0, 3, ..., 126
    assert sum(R.pset(8, 'M4')) == 64


# ---------------------------------------------------------------------------
# 13.7: integer division and remainder
# ---------------------------------------------------------------------------

@pytest.mark.parametrize(('t', 'a', 'b', 'q', 'r'), [
    ('s32', -7, 2, -3, -1),                  # the contract's -7 / 2 = -3 (truncation); r has a's sign
    ('s32', 7, -2, -3, 1),
    ('s32', -7, -2, 3, -1),
    ('s16', 7, 2, 3, 1),
    ('s32', S32_MIN, -1, S32_MIN, 0),        # -2**31 / -1 = -2**31, MIN % -1 = 0
    ('s16', S16_MIN, -1, S16_MIN, 0),        # -32768 / -1 = -32768
    ('s32', 5, 0, -1, 5),                    # x / 0 = all ones (-1), x % 0 = x
    ('s16', -5, 0, -1, -5),
    ('u16', 5, 0, 0xFFFF, 5),                # unsigned: 2**16 - 1
    ('u32', 0, 0, 0xFFFFFFFF, 0),
    ('u32', 0xFFFFFFFF, 2, 0x7FFFFFFF, 1),   # read unsigned, not as -1
    ('u16', 0x8000, 0xFFFF, 0, 0x8000),
    ('s16', 32767, S16_MIN, 0, 32767),
    ('s32', S32_MIN, 3, -715827882, -2),
])
def test_lane_int_div_hand_values(t, a, b, q, r):
    ab, bb = R.encode(a, t), R.encode(b, t)
    assert R.lane_int_div('div', t, ab, bb) == R.encode(q, t)
    assert R.lane_int_div('rem', t, ab, bb) == R.encode(r, t)
    assert R.lane_binary('div', t, ab, bb) == R.encode(q, t)
    assert R.lane_binary('rem', t, ab, bb) == R.encode(r, t)


def test_int_div_refuses_8_bit_and_float_rem():
    with pytest.raises(ValueError):
        R.lane_int_div('div', 's8', 1, 1)
    with pytest.raises(ValueError):
        R.vrem('u8', vreg_of('u8', [1]), vreg_of('u8', [1]), R.pset(8, 'ALL'))
    with pytest.raises(ValueError):
        R.lane_int_div('mod', 's32', 1, 1)
    assert 'rem' in R.BINARY_OPS and 'rem' not in R.FLOAT_ONLY_OPS and 'div' not in R.FLOAT_ONLY_OPS
    assert 'rem' not in R.BITWISE_BINARY_OPS


def test_register_vdiv_vrem_zero_inactive_lanes():
    a = vreg_of('s32', [-7, 7, S32_MIN, 9, 100])
    b = vreg_of('s32', [2, -2, -1, 0, 7])
    pm = R.pset(32, 'VL4')                   # lanes 0..3; lane 4 inactive
    assert lanes_of(R.vdiv_int('s32', a, b, pm), 's32')[:5] == [-3, -3, S32_MIN, -1, 0]
    assert lanes_of(R.vrem('s32', a, b, pm), 's32')[:5] == [-1, 1, 0, 9, 0]
    # lanes 4.. of inputs are 0 / 0: active they would be all ones; inactive they are zero
    assert lanes_of(R.vdiv_int('s32', a, b, R.pset(32, 'ALL')), 's32')[5:8] == [-1, -1, -1]
    assert lanes_of(R.vdiv_int('u16', vreg_of('u16', [9, 9]), vreg_of('u16', [4, 0]), R.pset(16, 'VL2')),
                    'u16')[:3] == [2, 0xFFFF, 0]


def test_tensor_vdiv_vrem_keep_dst_outside_the_mask():
    ub = np.zeros(0x1000, dtype=np.uint8)
    ub[0x000:0x100] = vreg_of('s16', [-7, 7, -32768, 1000, 5])
    ub[0x100:0x200] = vreg_of('s16', [2, 2, -1, -7, 0])
    ub[0x200:0x600] = 0xAB
    R.tensor_div_int(ub, 's16', 0x200, 0x000, 0x100, mask=4)
    got = lanes_of(ub[0x200:0x300], 's16')
    assert got[:4] == [-3, 3, -32768, -142]
    assert got[4] == R.decode(0xABAB, 's16')                     # outside mask=4: unchanged
    R.tensor_rem(ub, 's16', 0x400, 0x000, 0x100, mask=(0b10111, 0))
    got = lanes_of(ub[0x400:0x500], 's16')
    assert got[:5] == [-1, 1, 0, R.decode(0xABAB, 's16'), 5]      # lane 3 off; 5 % 0 = 5
    # tensor_op('rem') is the same thing, with the binary fields (repeat=2, src1 re-read: src1rep=0)
    ub2 = np.zeros(0x1000, dtype=np.uint8)
    ub2[0x000:0x200] = np.tile(vreg_of('u32', [10, 11]), 2)
    ub2[0x200:0x300] = vreg_of('u32', [3, 0])
    R.tensor_op(ub2, 'rem', 'u32', 0x400, (0x000, 0x200), repeat=2, src_rep=(8, 0), mask=2)
    assert lanes_of(ub2[0x400:0x600], 'u32')[:2] == [1, 11]
    assert lanes_of(ub2[0x400:0x600], 'u32')[64:67] == [1, 11, 0]


def test_floormod_sequence_from_the_contract():
    a_vals = [7, -7, 7, -7, 6, -6, S32_MIN, S32_MIN, 5, -5, 0, 3]
    b_vals = [2, 2, -2, -2, 3, 3, -1, 0, 0, 0, 5, -7]
    want = [1, 1, -1, -1, 0, 0, 0, S32_MIN, 5, -5, 0, -4]   # Python's %, and a % 0 = a
    a, b = vreg_of('s32', a_vals), vreg_of('s32', b_vals)
    pm = R.make_mask(4, [True] * len(a_vals))
    regs = R.floormod_sequence(a, b, pm)
    assert lanes_of(regs['V2'], 's32')[:len(a_vals)] == want
    assert lanes_of(regs['V2'], 's32')[len(a_vals):] == [0] * (64 - len(a_vals))   # VREM zeroes them
    assert [R.decode(R.floormod_lane(R.encode(x, 's32'), R.encode(y, 's32')), 's32')
            for x, y in zip(a_vals, b_vals)] == want
    # the intermediate registers: V2 before the select is the truncated remainder
    assert lanes_of(regs['V4'], 's32')[:4] == [0, 1, -1, 0]      # r + b only where the signs differ
    assert [bool(regs['P1'][4 * i]) for i in range(4)] == [False, True, True, False]


# ---------------------------------------------------------------------------
# 13.2: predicate loads, stores, re-granulation
# ---------------------------------------------------------------------------

def test_pld_modes():
    ub = np.zeros(0x200, dtype=np.uint8)
    ub[0x20:0x40] = np.arange(32, dtype=np.uint8) * 7
    ub[0x20] = 0b1010_0101
    m = R.pld(ub, 0x20)
    assert set_bits(m)[:4] == [0, 2, 5, 7]
    assert m[8 * 31 + 0] == bool((31 * 7) & 1)
    m = R.pld(ub, 0x20, dist='us')                # each of UB bits 0..127 twice
    assert set_bits(m)[:8] == [0, 1, 4, 5, 10, 11, 14, 15]
    assert not m[255]                             # UB bit 127: bit 7 of byte 15 (105)
    m = R.pld(ub, 0x20, dist='DS')                # Pd bit k = UB bit 2k, from 64 bytes
    assert set_bits(m)[:3] == [0, 1, 4]           # UB bits 0, 2 and 8 (bits 4, 6 of 0xA5 are 0)
    assert m[3] == bool(ub[0x20] >> 6 & 1)
    with pytest.raises(ValueError):
        R.pld(ub, 0x10)                           # norm needs 32-byte alignment
    assert R.pld(ub, 0x10, dist='us') is not None
    with pytest.raises(ValueError):
        R.pld(ub, 0x08, dist='us')                # us needs 16-byte alignment
    with pytest.raises(ValueError):
        R.pld(ub, 0x10, dist='ds')                # ds needs 32
    with pytest.raises(ValueError):
        R.pld(ub, 0x0, dist='pack')
    with pytest.raises(IndexError):
        R.pld(ub, 0x1E0, dist='ds')


def test_pst_modes():
    p = mask_of_bits([0, 2, 9, 255])
    ub = np.full(0x100, 0xEE, dtype=np.uint8)
    R.pst(ub, 0x20, p)
    assert list(ub[0x20:0x23]) == [0b101, 0b10, 0] and ub[0x3F] == 0x80
    assert ub[0x1F] == 0xEE and ub[0x40] == 0xEE
    ub = np.full(0x100, 0xEE, dtype=np.uint8)
    R.pst(ub, 0x10, mask_of_bits([0, 2, 4, 9, 254]), dist='pack')   # UB bit k = P bit 2k
    assert list(ub[0x10:0x12]) == [0b111, 0] and ub[0x1F] == 0x80
    assert ub[0x20] == 0xEE and ub[0x0F] == 0xEE                    # 16 bytes written
    # PLD norm and PST norm are inverses; PLD us then PST pack gives back the 16 bytes
    rng = np.random.default_rng(1)
    ub = rng.integers(0, 256, 0x100, dtype=np.uint8)
    out = np.zeros(0x100, dtype=np.uint8)
    R.pst(out, 0x40, R.pld(ub, 0x20))
    assert (out[0x40:0x60] == ub[0x20:0x40]).all()
    R.pst(out, 0x80, R.pld(ub, 0x10, dist='us'), dist='pack')
    assert (out[0x80:0x90] == ub[0x10:0x20]).all()


def test_ppack_punpack():
    p = mask_of_bits([0, 1, 2, 4, 200, 254, 255])
    assert set_bits(R.ppack(p)) == [0, 1, 2, 100, 127]               # bit 2k -> k, odd bits dropped
    assert set_bits(R.ppack(p, part='hi')) == [128, 129, 130, 228, 255]
    assert set_bits(R.punpack(p)) == [0, 2, 4, 8]                    # bit k -> 2k, k < 128
    assert set_bits(R.punpack(p, part='HI')) == [144, 252, 254]      # bits 200, 254, 255 -> 2(k - 128)
    # PUNPACK twice: b8 over elements 0..63 -> b32 (contract: `PUNPACK P2, P1`, `PUNPACK P3, P2`)
    b8 = mask_of_bits([0, 5, 63, 64, 100])
    b32 = R.punpack(R.punpack(b8))
    assert set_bits(b32) == [0, 20, 252]                             # bit 4k for element k < 64
    # PPACK is PUNPACK's inverse
    assert set_bits(R.ppack(R.punpack(p))) == [k for k in set_bits(p) if k < 128]
    with pytest.raises(ValueError):
        R.ppack(p, part=1)


def test_pintlv_pdintlv():
    # .B8: one bit a group. Pa = bits 0, 1; Pb = bit 0 -> s = a0 b0 a1 b1 ... = 1 1 1 0 0 ...
    a, b = mask_of_bits([0, 1, 200]), mask_of_bits([0, 130])
    d0, d1 = R.pintlv(8, a, b)
    assert set_bits(d0) == [0, 1, 2]
    assert set_bits(d1) == [5, 144]                                  # s[261] = b130, s[400] = a200
    # .B16: groups of 2 bits; Pa group 0 = (1, 0), Pb group 0 = (0, 1)
    d0, d1 = R.pintlv(16, mask_of_bits([0]), mask_of_bits([1, 255]))
    assert set_bits(d0) == [0, 3]
    assert set_bits(d1) == [255]                                     # Pb group 127 -> s[255] = d1 group 127
    # .B32 groups of 4 bits
    d0, d1 = R.pintlv(32, mask_of_bits([4]), mask_of_bits([0, 3]))
    assert set_bits(d0) == [4, 7, 8]
    # PDINTLV is the inverse of PINTLV (the same group size)
    rng = np.random.default_rng(3)
    for w in (8, 16, 32):
        pa, pb = rng.random(256) < 0.5, rng.random(256) < 0.5
        e0, e1 = R.pdintlv(w, *R.pintlv(w, pa, pb))
        assert (e0 == pa).all() and (e1 == pb).all()
        f0, f1 = R.pintlv(w, *R.pdintlv(w, pa, pb))
        assert (f0 == pa).all() and (f1 == pb).all()
    d0, d1 = R.pdintlv(8, mask_of_bits([0, 1, 3]), mask_of_bits([0, 255]))
    assert set_bits(d0) == [0, 128] and set_bits(d1) == [0, 1, 255]
    with pytest.raises(ValueError):
        R.pintlv(64, a, b)


def test_psel():
    a, b, m = mask_of_bits([0, 1, 2]), mask_of_bits([2, 3, 4]), mask_of_bits([1, 2, 3])
    assert set_bits(R.psel(a, b, m)) == [1, 2, 4]                    # m: a's bits 1,2 and b's 3; else b


# ---------------------------------------------------------------------------
# 13.3: register interleave, pack, unpack
# ---------------------------------------------------------------------------

def test_vintlv_vdintlv_contract_orders():
    # the tensor Interleave example, at a register's size: src0 = 1..128, src1 = 129..256 (u16 lanes)
    a = vreg_of('u16', range(1, 129))
    b = vreg_of('u16', range(129, 257))
    d0, d1 = R.vintlv('u16', a, b)
    assert lanes_of(d0, 'u16')[:4] == [1, 129, 2, 130] and lanes_of(d0, 'u16')[-1] == 192
    assert lanes_of(d1, 'u16')[:4] == [65, 193, 66, 194] and lanes_of(d1, 'u16')[-1] == 256
    # DeInterleave: dst0 = 1 3 5 ..., dst1 = 2 4 6 ...
    e0, e1 = R.vdintlv('u16', a, b)
    assert lanes_of(e0, 'u16') == list(range(1, 257, 2))
    assert lanes_of(e1, 'u16') == list(range(2, 257, 2))
    # exact inverses, at every width; f16 values move bit for bit
    f = vreg_of('f16', [1.5, -0.0, float('nan')])
    g0, g1 = R.vintlv('f16', f, a)
    assert list(R.vdintlv('f16', g0, g1)[0]) == list(f)
    c0, c1 = R.vintlv('s8', vreg_of('s8', [-1, 2]), vreg_of('s8', [3]))
    assert lanes_of(c0, 's8')[:4] == [-1, 3, 2, 0]
    c0, c1 = R.vintlv('f32', vreg_of('f32', range(64)), vreg_of('f32', range(100, 164)))
    assert lanes_of(c1, 'f32')[:2] == [32.0, 132.0]


def test_vpack():
    a = vreg_of('s16', [-1, 0x1234, -32768, 0x7F80])
    d = R.vpack('u8', 's16', a)
    assert lanes_of(d, 'u8')[:5] == [0xFF, 0x34, 0x00, 0x80, 0]      # low bytes: truncation
    assert not d[128:].any()                                           # the other half zero
    d = R.vpack('u8', 's16', a, part='hi')
    assert lanes_of(d, 'u8')[128:132] == [0xFF, 0x34, 0x00, 0x80] and not d[:128].any()
    d = R.vpack('u16', 'u32', vreg_of('u32', [0xDEADBEEF, 0x10000]), part='hi')
    assert lanes_of(d, 'u16')[64:66] == [0xBEEF, 0] and not d[:128].any()
    with pytest.raises(ValueError):
        R.vpack('s8', 's16', a)
    with pytest.raises(ValueError):
        R.vpack('u8', 's32', a)


def test_vunpack():
    a = vreg_of('s8', [-1, 127, -128] + [0] * 125 + [-2, 5])
    assert lanes_of(R.vunpack('s16', 's8', a), 's16')[:3] == [-1, 127, -128]
    assert lanes_of(R.vunpack('s16', 's8', a, part='hi'), 's16')[:2] == [-2, 5]
    u = vreg_of('u8', [0xFF, 0x7F, 0x80])
    assert lanes_of(R.vunpack('u16', 'u8', u), 'u16')[:3] == [0xFF, 0x7F, 0x80]   # zero extension
    w = vreg_of('s16', [-32768, 1] + [0] * 62 + [-3])
    assert lanes_of(R.vunpack('s32', 's16', w), 's32')[:2] == [-32768, 1]
    assert lanes_of(R.vunpack('s32', 's16', w, part='hi'), 's32')[0] == -3
    assert lanes_of(R.vunpack('u32', 'u16', vreg_of('u16', [0xFFFF])), 'u32')[0] == 0xFFFF
    # VUNPACK lo and hi then VPACK lo and hi give the register back (low bytes kept)
    rng = np.random.default_rng(5)
    v = rng.integers(0, 256, 256, dtype=np.uint8)
    lo = R.vpack('u8', 's16', R.vunpack('s16', 's8', v))
    hi = R.vpack('u8', 's16', R.vunpack('s16', 's8', v, part='hi'), part='hi')
    assert (lo | hi == v).all()
    with pytest.raises(ValueError):
        R.vunpack('s16', 'u8', u)
