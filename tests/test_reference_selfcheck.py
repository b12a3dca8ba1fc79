"""Golden self-checks of the reference model (tests/reference.py).

Every expected number here is worked out by hand (or taken from the seed
documents' own examples), never by running the reference model a second way.
"""

import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference as R

SENT_F16 = 9.0          # sentinel for "left unchanged"


def new_ub(nbytes=64 * 1024):
    return np.zeros(nbytes, dtype=np.uint8)


def put(ub, addr, t, values):
    b = R.to_bytes(values, t)
    ub[addr:addr + len(b)] = b


def get(ub, addr, t, n):
    return R.from_bytes(ub[addr:addr + n * R.SIZE[t]], t)


def get_list(ub, addr, t, n):
    return [float(v) if t in R.FLOAT_TYPES else int(v) for v in get(ub, addr, t, n)]


def bits16(ub, addr, n):
    return [int(ub[addr + 2 * i]) | (int(ub[addr + 2 * i + 1]) << 8) for i in range(n)]


def vreg_of(t, values):
    """A 256-byte register holding values (rest zero)."""
    v = np.zeros(256, dtype=np.uint8)
    b = R.to_bytes(values, t)
    v[:len(b)] = b
    return v


def lanes_of(vreg, t):
    return [float(x) if t in R.FLOAT_TYPES else int(x) for x in R.from_bytes(vreg, t)]


def active_lanes(mask, width):
    return [i for i in range(256 // width) if mask[i * width]]


# ---------------------------------------------------------------------------
# conversions
# ---------------------------------------------------------------------------

def test_to_from_bytes_hand_bits():
    assert list(R.to_bytes([1.0, -2.0], 'f16')) == [0x00, 0x3C, 0x00, 0xC0]
    assert list(R.to_bytes([1.0], 'bf16')) == [0x80, 0x3F]
    assert list(R.to_bytes([1.0], 'f32')) == [0x00, 0x00, 0x80, 0x3F]
    assert list(R.to_bytes([-1], 's16')) == [0xFF, 0xFF]
    assert list(R.to_bytes([-40], 's8')) == [0xD8]
    assert list(R.to_bytes([0x12345678], 'u32')) == [0x78, 0x56, 0x34, 0x12]
    assert list(R.to_bytes([448.0], 'e4m3')) == [0x7E]
    assert list(R.to_bytes([57344.0], 'e5m2')) == [0x7B]
    assert list(R.to_bytes([-0.0], 'f16')) == [0x00, 0x80]
    a = R.from_bytes(np.array([0x00, 0x3C, 0x00, 0xC0], np.uint8), 'f16')
    assert a.dtype == R.DTYPES['f16'] and list(a) == [1.0, -2.0]
    assert list(R.from_bytes(np.array([0xD8], np.uint8), 's8')) == [-40]
    assert R.SIZE == {'f16': 2, 'bf16': 2, 'f32': 4, 's8': 1, 'u8': 1, 's16': 2, 'u16': 2,
                      's32': 4, 'u32': 4, 'e4m3': 1, 'e5m2': 1}


def test_round_to_type_hand_cases():
    rt = R.round_to_type
    # bf16: 7 fraction bits, quantum 2**-7 at 1.0
    assert rt(1 + 2 ** -8, 'bf16') == 1.0                       # tie -> even
    assert rt(1 + 2 ** -8 + 2 ** -30, 'bf16') == 1 + 2 ** -7    # just above the tie
    assert rt(1 + 3 * 2 ** -8, 'bf16') == 1 + 2 ** -6           # tie -> even (up)
    # f16 overflow: 65520 is the tie between 65504 and 65536
    assert rt(65519.0, 'f16') == 65504.0
    assert rt(65520.0, 'f16') == math.inf
    assert rt(-65520.0, 'f16') == -math.inf
    # f16 subnormals: smallest is 2**-24
    assert rt(2 ** -25, 'f16') == 0.0                           # tie -> even (zero)
    assert rt(2 ** -25 + 2 ** -40, 'f16') == 2 ** -24
    assert rt(3 * 2 ** -25, 'f16') == 2 * 2 ** -24              # tie -> even
    assert math.copysign(1.0, rt(-2 ** -26, 'f16')) == -1.0     # underflow keeps sign
    # e4m3fn has no inf: overflow -> NaN; 464 is the tie 448 / (480) -> 448
    assert rt(464.0, 'e4m3') == 448.0
    assert math.isnan(rt(465.0, 'e4m3'))
    assert math.isnan(rt(math.inf, 'e4m3'))


def test_round_to_type_matches_numpy_casts():
    # numpy's float64 -> float16 / float32 casts are correctly rounded
    rng = np.random.default_rng(1)
    xs = np.concatenate([rng.standard_normal(500) * 1000.0,
                         rng.standard_normal(300) * 1e-6,
                         rng.standard_normal(200) * 1e-40])
    for x in xs:
        assert R.round_to_type(x, 'f16') == float(np.float16(x))
        assert R.round_to_type(x, 'f32') == float(np.float32(x))


def test_ulp_distance():
    f16 = lambda bits: np.array(bits, dtype=np.uint16).view(np.float16)  # noqa: E731
    d = R.ulp_distance(f16([0x3C00, 0x0000, 0x8001, 0x7BFF, 0x7E00, 0x7E00, 0x3C00]),
                       f16([0x3C01, 0x8000, 0x0001, 0x7C00, 0xFE01, 0x3C00, 0x4000]), 'f16')
    assert list(d[:5]) == [1, 0, 2, 1, 0]
    assert d[5] == R.ULP_INFINITE
    assert d[6] == 1024
    assert list(R.ulp_distance([5, -3], [2, 4], 's16')) == [3, 7]


# ---------------------------------------------------------------------------
# tensor instructions: repeat, strides (seed 000)
# ---------------------------------------------------------------------------

def test_exp_two_iterations_f16():
    # seed 000 fig 2: repeatTime 2 -> 2*8*32 B = 512 B = 256 halves
    ub = new_ub()
    put(ub, 0x0, 'f16', [[0.0, 1.0, -1.0, 2.0][k % 4] for k in range(256)])
    put(ub, 0x1000, 'f16', [SENT_F16] * 300)
    R.tensor_op(ub, 'exp', 'f16', 0x1000, [0x0], repeat=2)
    # f16 exp by hand: e = 2.71828 -> 1392/512; 1/e = .367879 -> 1507/4096; e^2 = 7.389056 -> 1892/256
    exp_vals = [1.0, 2.71875, 0.367919921875, 7.390625]
    assert get_list(ub, 0x1000, 'f16', 256) == [exp_vals[k % 4] for k in range(256)]
    assert get_list(ub, 0x1000 + 512, 'f16', 44) == [SENT_F16] * 44
    assert get_list(ub, 0x0, 'f16', 4) == [0.0, 1.0, -1.0, 2.0]


def test_repeat_zero_does_nothing():
    ub = new_ub()
    put(ub, 0x0, 'f16', [3.0] * 128)
    R.tensor_op(ub, 'add', 'f16', 0x0, [0x0, 0x0], repeat=0)
    assert get_list(ub, 0x0, 'f16', 128) == [3.0] * 128


def test_data_block_stride_2():
    # seed 000 fig 4/6: source dataBlockStride 2: block b at src + b*2*32
    ub = new_ub()
    put(ub, 0x0, 'f16', list(range(256)))          # element k = k
    put(ub, 0x1000, 'f16', [0.5] * 128)
    R.tensor_op(ub, 'add', 'f16', 0x2000, [0x0, 0x1000], src_blk=(2, 1))
    # lane L = 16*b + j reads src0 element 32*b + j
    expected = [32 * (L // 16) + (L % 16) + 0.5 for L in range(128)]
    got = get_list(ub, 0x2000, 'f16', 128)
    assert got == expected
    assert got[0] == 0.5 and got[16] == 32.5 and got[127] == 239.5


def test_unary_block_strides_f32():
    ub = new_ub()
    put(ub, 0x0, 'f32', [-float(k) for k in range(128)])
    put(ub, 0x1000, 'f32', [SENT_F16] * 128)
    # src block stride 2, dst block stride 2: dst blocks 1, 3, ... untouched
    R.tensor_op(ub, 'relu', 'f32', 0x1000, [0x0], src_blk=(2,), dst_blk=2)
    got = get_list(ub, 0x1000, 'f32', 128)
    for b in range(16):
        for j in range(8):
            if b % 2 == 0:
                assert got[8 * b + j] == 0.0           # relu(-k) = +0
                assert math.copysign(1.0, got[8 * b + j]) == 1.0
            else:
                assert got[8 * b + j] == SENT_F16


def test_repeat_stride_9():
    # seed 000 fig 5: src and dst repeatStride 9, 2 iterations
    ub = new_ub()
    put(ub, 0x0, 'f16', [-float(k) for k in range(288)])     # 18 blocks
    put(ub, 0x1000, 'f16', [SENT_F16] * 288)
    R.tensor_op(ub, 'abs', 'f16', 0x1000, [0x0], repeat=2, dst_rep=9, src_rep=(9,))
    expected = []
    for k in range(288):
        block = k // 16
        if block <= 7 or 9 <= block <= 16:
            expected.append(float(k))
        else:                                   # block 8 and 17 are the gaps
            expected.append(SENT_F16)
    assert get_list(ub, 0x1000, 'f16', 288) == expected


def test_src_repeat_stride_0_rereads():
    ub = new_ub()
    put(ub, 0x0, 'f16', [-float(k) for k in range(384)])
    R.tensor_op(ub, 'abs', 'f16', 0x1000, [0x0], repeat=3, src_rep=(0,))
    got = get_list(ub, 0x1000, 'f16', 384)
    assert got == [float(k % 128) for k in range(384)]


def test_dst_repeat_stride_0_last_iteration_wins():
    ub = new_ub()
    put(ub, 0x0, 'f16', [-float(k) for k in range(384)])
    R.tensor_op(ub, 'abs', 'f16', 0x1000, [0x0], repeat=3, dst_rep=0)
    assert get_list(ub, 0x1000, 'f16', 128) == [float(256 + k) for k in range(128)]
    assert get_list(ub, 0x1000 + 256, 'f16', 128) == [0.0] * 128


def test_in_place_rep_8():
    # seed 000: one tensor for dst and src, repeatStride 8
    ub = new_ub()
    put(ub, 0x0, 'f16', [float(k) for k in range(256)])
    R.tensor_op(ub, 'adds', 'f16', 0x0, [0x0], repeat=2, scalar=1.0)
    assert get_list(ub, 0x0, 'f16', 256) == [float(k + 1) for k in range(256)]


def test_in_place_overlapping_iterations_see_earlier_results():
    ub = new_ub()
    put(ub, 0x0, 'f16', [10.0] * 256)
    # repStride 4: iteration 1 covers blocks 4..11, blocks 4..7 were written by iteration 0
    R.tensor_op(ub, 'adds', 'f16', 0x0, [0x0], repeat=2, dst_rep=4, src_rep=(4,), scalar=1.0)
    got = get_list(ub, 0x0, 'f16', 256)
    assert got == [11.0] * 64 + [12.0] * 64 + [11.0] * 64 + [10.0] * 64


# ---------------------------------------------------------------------------
# masks and counter mode
# ---------------------------------------------------------------------------

def test_continuous_mask():
    ub = new_ub()
    put(ub, 0x0, 'f16', [1.0] * 256)
    put(ub, 0x1000, 'f16', [2.0] * 256)
    put(ub, 0x2000, 'f16', [SENT_F16] * 256)
    R.tensor_op(ub, 'add', 'f16', 0x2000, [0x0, 0x1000], repeat=2, mask=10)
    got = get_list(ub, 0x2000, 'f16', 256)
    assert got == ([3.0] * 10 + [SENT_F16] * 118) * 2


def test_bit_mask_f16_both_words():
    # seed 000: mask = {6148914691236517205, 6148914691236517205} = 0b0101...01
    assert 6148914691236517205 == 0x5555555555555555
    ub = new_ub()
    put(ub, 0x0, 'f16', [-float(k) for k in range(128)])
    put(ub, 0x1000, 'f16', [SENT_F16] * 128)
    R.tensor_op(ub, 'abs', 'f16', 0x1000, [0x0],
                mask=(6148914691236517205, 6148914691236517205))
    got = get_list(ub, 0x1000, 'f16', 128)
    assert got == [float(k) if k % 2 == 0 else SENT_F16 for k in range(128)]


def test_bit_mask_f32_low_word_only():
    # seed 000 fig 3 (Abs, float): mask = {6148914691236517205, 0}
    ub = new_ub()
    put(ub, 0x0, 'f32', [-float(k) - 0.5 for k in range(64)])
    put(ub, 0x1000, 'f32', [SENT_F16] * 64)
    R.tensor_op(ub, 'abs', 'f32', 0x1000, [0x0], mask=(6148914691236517205, 0))
    got = get_list(ub, 0x1000, 'f32', 64)
    assert got == [float(k) + 0.5 if k % 2 == 0 else SENT_F16 for k in range(64)]


def test_bit_mask_high_word_is_lanes_64_up():
    ub = new_ub()
    put(ub, 0x0, 'f16', [-1.0] * 128)
    put(ub, 0x1000, 'f16', [SENT_F16] * 128)
    R.tensor_op(ub, 'abs', 'f16', 0x1000, [0x0], mask=(1 << 3, (1 << 0) | (1 << 63)))
    got = get_list(ub, 0x1000, 'f16', 128)
    assert [k for k in range(128) if got[k] == 1.0] == [3, 64, 127]


def test_counter_mode():
    ub = new_ub()
    put(ub, 0x1000, 'f16', [SENT_F16] * 300)
    # 200 halves: 2 iterations, the second masked to 72 lanes
    R.tensor_op(ub, 'adds', 'f16', 0x1000, [0x0], count=200, scalar=1.0)
    got = get_list(ub, 0x1000, 'f16', 300)
    assert got == [1.0] * 200 + [SENT_F16] * 100


def test_counter_mode_strides_apply_f32():
    ub = new_ub()
    put(ub, 0x1000, 'f32', [SENT_F16] * 256)
    # 100 floats: iteration 0 = 64 lanes at dst, iteration 1 = 36 lanes at dst + 16 blocks
    R.tensor_op(ub, 'adds', 'f32', 0x1000, [0x0], count=100, dst_rep=16, scalar=2.0)
    got = get_list(ub, 0x1000, 'f32', 256)
    assert got == [2.0] * 64 + [SENT_F16] * 64 + [2.0] * 36 + [SENT_F16] * 92


def test_tensor_errors():
    ub = new_ub(4096)
    with pytest.raises(ValueError):
        R.tensor_op(ub, 'add', 'f16', 0, [0, 0], mask=(0, 0))
    with pytest.raises(ValueError):
        R.tensor_op(ub, 'add', 'f32', 0, [0, 0], mask=(1, 1))
    with pytest.raises(ValueError):
        R.tensor_op(ub, 'add', 'f16', 0, [0, 0], mask=129)
    with pytest.raises(ValueError):
        R.tensor_op(ub, 'add', 'f16', 0, [0, 0], dst_blk=0)
    with pytest.raises(ValueError):
        R.tensor_op(ub, 'add', 'f16', 16, [0, 0])
    with pytest.raises(ValueError):
        R.tensor_op(ub, 'add', 'f16', 0, [0, 0], count=10, mask=5)
    with pytest.raises(IndexError):
        R.tensor_op(ub, 'add', 'f16', 4096 - 224, [0, 0])
    assert not ub.any()


# ---------------------------------------------------------------------------
# tensor numerics
# ---------------------------------------------------------------------------

def run_binary(op, t, xs, ys):
    ub = new_ub()
    put(ub, 0x0, t, xs)
    put(ub, 0x1000, t, ys)
    R.tensor_op(ub, op, t, 0x2000, [0x0, 0x1000], mask=len(xs))
    return get_list(ub, 0x2000, t, len(xs))


def run_unary(op, t, xs, scalar=None):
    ub = new_ub()
    put(ub, 0x0, t, xs)
    R.tensor_op(ub, op, t, 0x2000, [0x0], mask=len(xs), scalar=scalar)
    return get_list(ub, 0x2000, t, len(xs))


def same(a, b):
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b and (not isinstance(a, float) or math.copysign(1, a) == math.copysign(1, b))


def assert_same(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert same(g, e), (got, expected)


def test_f32_add_rounding():
    got = run_binary('add', 'f32', [1.0, 1.0, 1 + 2 ** -23],
                     [2 ** -24, 2 ** -24 + 2 ** -47, 2 ** -24])
    assert got == [1.0, 1 + 2 ** -23, 1 + 2 ** -22]


def test_f16_add_rounding_and_overflow():
    got = run_binary('add', 'f16', [2048.0, 2050.0, 65504.0, 65504.0, -65504.0],
                     [1.0, 1.0, 8.0, 16.0, -16.0])
    assert got == [2048.0, 2052.0, 65504.0, math.inf, -math.inf]


def test_bf16_add_sub_mul_rounding():
    assert run_binary('add', 'bf16', [1.0], [2 ** -8 + 2 ** -15]) == [1 + 2 ** -7]
    assert run_binary('sub', 'bf16', [1.0], [2 ** -9]) == [1.0]
    assert run_binary('mul', 'bf16', [1 + 2 ** -7], [1 + 2 ** -7]) == [1 + 2 ** -6]


def test_max_min_zero_and_nan():
    nan = math.nan
    xs = [0.0, -0.0, nan, 1.0, -math.inf]
    ys = [-0.0, 0.0, 1.0, nan, 3.0]
    assert_same(run_binary('max', 'f16', xs, ys), [0.0, 0.0, nan, nan, 3.0])
    assert_same(run_binary('min', 'f16', xs, ys), [-0.0, -0.0, nan, nan, -math.inf])
    assert_same(run_binary('max', 'f32', [-0.0], [-0.0]), [-0.0])
    assert_same(run_binary('min', 'bf16', [0.0], [0.0]), [0.0])


def test_unary_specials():
    nan, inf = math.nan, math.inf
    assert_same(run_unary('relu', 'f16', [-0.0, -5.0, nan, 3.0]), [0.0, 0.0, nan, 3.0])
    assert_same(run_unary('abs', 'f32', [-0.0, -inf, -2.5]), [0.0, inf, 2.5])
    # sqrt(2): f16 1448/1024, f32 0x3FB504F3
    assert_same(run_unary('sqrt', 'f16', [4.0, 2.0, -1.0, -0.0, inf]),
                [2.0, 1.4140625, nan, -0.0, inf])
    assert run_unary('sqrt', 'f32', [2.0]) == [float(np.array([0x3FB504F3], np.uint32).view(np.float32)[0])]
    # ln(2) in f16: .693147 / 2**-11 = 1419.6 -> 1420 * 2**-11
    assert_same(run_unary('ln', 'f16', [1.0, 0.0, -0.0, -1.0, inf, 2.0]),
                [0.0, -inf, -inf, nan, inf, 0.693359375])
    # exp(1) in f32 = 0x402DF854; exp(-inf) = 0; f16 exp(12) overflows (162754.8 > 65504)
    assert run_unary('exp', 'f32', [1.0]) == [float(np.array([0x402DF854], np.uint32).view(np.float32)[0])]
    assert_same(run_unary('exp', 'f16', [-inf, 12.0, nan]), [0.0, inf, nan])


def test_abs_clears_sign_bit_of_nan():
    ub = new_ub()
    ub[0:2] = [0x01, 0xFE]                         # f16 NaN 0xFE01
    R.tensor_op(ub, 'abs', 'f16', 0x100, [0x0], mask=1)
    assert bits16(ub, 0x100, 1) == [0x7E01]


def test_integer_wrap():
    assert run_binary('add', 's16', [32767, -32768], [1, -1]) == [-32768, 32767]
    assert run_binary('sub', 'u16', [0], [1]) == [65535]
    assert run_binary('mul', 's32', [65536, -3], [65536, 7]) == [0, -21]
    assert run_binary('mul', 'u32', [0xFFFFFFFF], [2]) == [0xFFFFFFFE]
    assert run_binary('max', 'u16', [65535, 3], [1, 4]) == [65535, 4]
    assert run_binary('min', 's32', [-1, 5], [0, 2]) == [-1, 2]
    assert run_unary('abs', 's16', [-32768, -7, 7]) == [-32768, 7, 7]
    assert run_unary('relu', 's32', [-5, 0, 9]) == [0, 0, 9]


def test_scalar_rounded_to_type():
    # 0.1 -> f16 0.0999755859375; 3 * that = 0.2999267578125 = 1228.5 * 2**-12 -> tie -> 1228
    # (with an exact 0.1 it would be 1229 * 2**-12 = 0.300048828125)
    assert run_unary('muls', 'f16', [3.0], scalar=0.1) == [0.2998046875]
    # s16 scalar 70000 wraps to 4464
    assert run_unary('adds', 's16', [1], scalar=70000) == [4465]
    assert run_unary('maxs', 'f32', [1.0, 5.0], scalar=2.0) == [2.0, 5.0]
    assert run_unary('mins', 'u32', [1, 5], scalar=2) == [1, 2]


# ---------------------------------------------------------------------------
# register instructions
# ---------------------------------------------------------------------------

def test_vld_contiguous_and_blk():
    ub = new_ub()
    for k in range(0x400):
        ub[k] = k % 251
    assert list(R.vld(ub, 0x20)) == [(0x20 + k) % 251 for k in range(256)]
    v = R.vld(ub, 0x0, blk=2)
    assert list(v) == [(64 * (k // 32) + k % 32) % 251 for k in range(256)]
    v = R.vld(ub, 0x40, blk=0)
    assert list(v) == [(0x40 + k % 32) % 251 for k in range(256)]
    with pytest.raises(ValueError):
        R.vld(ub, 0x10)


def test_vst_active_lanes_only():
    ub = new_ub()
    put(ub, 0x0, 'f16', [SENT_F16] * 128)
    v = vreg_of('f16', [float(k) for k in range(128)])
    R.vst(ub, 0x0, v, R.pset(16, 'VL3'), 'f16')
    assert get_list(ub, 0x0, 'f16', 5) == [0.0, 1.0, 2.0, SENT_F16, SENT_F16]
    # blk=0: all 8 blocks to the same 32 bytes, the last block of the register wins
    ub2 = new_ub()
    v = np.array([k // 32 for k in range(256)], dtype=np.uint8)
    R.vst(ub2, 0x100, v, R.pset(8, 'ALL'), 'u8', blk=0)
    assert list(ub2[0x100:0x120]) == [7] * 32
    assert not ub2[0x120:0x200].any()
    # blk=2 with a mask of the first 40 u8 lanes: block 0 whole, block 1 first 8 bytes
    ub3 = new_ub()
    R.vst(ub3, 0x0, v, R.pset(8, 'VL32') | np.array([i < 40 for i in range(256)]), 'u8', blk=2)
    assert list(ub3[0:32]) == [0] * 32
    assert list(ub3[64:72]) == [1] * 8
    assert not ub3[72:].any()


def test_vop_masked_lanes_zero():
    a = vreg_of('s8', [127, -128, 5, 6] + [1] * 252)
    b = vreg_of('s8', [1, -1, 2, 3] + [1] * 252)
    d = R.vop('add', 's8', a, b, R.pset(8, 'VL3'))
    assert lanes_of(d, 's8') == [-128, 127, 7] + [0] * 253
    a = vreg_of('f32', [1.5] * 64)
    d = R.vop_scalar('muls', 'f32', a, 2.0, R.pset(32, 'H'))
    assert lanes_of(d, 'f32') == [3.0] * 32 + [0.0] * 32
    d = R.vop_unary('abs', 's16', vreg_of('s16', [-3] * 128), R.pset(16, 'Q'))
    assert lanes_of(d, 's16') == [3] * 32 + [0] * 96


def test_mask_lane_reads_lowest_bit_of_group():
    m = np.zeros(256, dtype=bool)
    m[1] = True                # second bit of b16 lane 0: lane 0 stays inactive
    m[2] = True                # lowest bit of b16 lane 1
    a = vreg_of('u16', [5] * 128)
    d = R.vop('add', 'u16', a, a, m)
    assert lanes_of(d, 'u16')[:3] == [0, 10, 0]


def test_asc_sub_loop_1000_halves():
    # seed 001 example: count = 1000, update_mask_b16 + loadalign/postupdate +
    # sub + storealign/postupdate per iteration, 8 iterations of 128 halves
    ub = new_ub()
    src0, src1, dst = 0x0, 0x800, 0x1000
    put(ub, src0, 'f16', [float(i) for i in range(1024)])
    put(ub, src1, 'f16', [float(2 * i) for i in range(1024)])
    put(ub, dst, 'f16', [SENT_F16] * 1024)
    count = 1000
    a0, a1, ad = src0, src1, dst
    active_counts = []
    for _ in range(8):
        mask, count = R.pupdate(16, count)
        active_counts.append(len(active_lanes(mask, 2)))
        v0 = R.vld(ub, a0)
        a0 += 128 * 2
        v1 = R.vld(ub, a1)
        a1 += 128 * 2
        d = R.vop('sub', 'f16', v0, v1, mask)
        R.vst(ub, ad, d, mask, 'f16')
        ad += 128 * 2
    assert active_counts == [128] * 7 + [104]
    assert count == 0
    got = get_list(ub, dst, 'f16', 1024)
    assert got == [-float(i) for i in range(1000)] + [SENT_F16] * 24


def test_sub_with_carry():
    a = vreg_of('u32', [5, 3, 0, 0xFFFFFFFF, 0, 9])
    b = vreg_of('u32', [3, 5, 0, 0, 1, 1])
    mask = R.pset(32, 'VL4') | R.make_mask(4, [False] * 4 + [True])   # lanes 0..4
    d, carry = R.vsub_carry(a, b, mask)
    assert lanes_of(d, 'u32')[:6] == [2, 0xFFFFFFFE, 0, 0xFFFFFFFF, 0xFFFFFFFF, 0]
    assert list(carry[:24]) == [True] * 4 + [False] * 4 + [True] * 8 + [False] * 8
    assert not carry[24:].any()
    assert not d[24:].any()


def test_gather_ub_s8_zero_extends():
    # seed 002: s8 -40 (0b11011000) -> 16 bit 0b0000000011011000 = 216; 40 -> 40
    ub = new_ub()
    put(ub, 0x100, 's8', [40, -40, 7])
    idx = vreg_of('u16', [1, 0, 2, 0xFFFF])     # lane 3: masked off, out of range
    d = R.vgather_ub(ub, 0x100, 's8', idx, R.pset(16, 'VL3'))
    assert lanes_of(d, 'u16') == [216, 40, 7] + [0] * 125


def test_gather_ub_f16_and_f32():
    ub = new_ub()
    put(ub, 0x200, 'f16', [float(k) for k in range(16)])
    d = R.vgather_ub(ub, 0x200, 'f16', vreg_of('u16', [15, 3, 3, 0]), R.pset(16, 'VL4'))
    assert lanes_of(d, 'f16')[:5] == [15.0, 3.0, 3.0, 0.0, 0.0]
    put(ub, 0x400, 'f32', [float(-k) for k in range(16)])
    d = R.vgather_ub(ub, 0x400, 'f32', vreg_of('u32', [9, 2, 0xFFFFFFFF]), R.pset(32, 'VL2'))
    assert lanes_of(d, 'f32')[:3] == [-9.0, -2.0, 0.0]
    with pytest.raises(IndexError):
        R.vgather_ub(ub, 0x400, 'f32', vreg_of('u32', [9, 2, 0xFFFFFFFF]), R.pset(32, 'VL3'))


def test_gather_reg_index_mod_lanes():
    src = vreg_of('f16', [float(k) for k in range(128)])
    d = R.vgather_reg('f16', src, vreg_of('u16', [130, 0, 127, 65535]))
    assert lanes_of(d, 'f16')[:4] == [2.0, 0.0, 127.0, 127.0]
    src = vreg_of('u32', [100 + k for k in range(64)])
    d = R.vgather_reg('u32', src, vreg_of('u32', [64, 0xFFFFFFFF, 1]))
    assert lanes_of(d, 'u32')[:3] == [100, 163, 101]
    src = np.array([255 - k for k in range(256)], dtype=np.uint8)
    idx = np.array([255, 0] + [1] * 254, dtype=np.uint8)
    d = R.vgather_reg('u8', src, idx)
    assert list(d[:3]) == [0, 255, 254]


def test_scatter_higher_lane_wins():
    ub = new_ub()
    put(ub, 0x0, 'f16', [SENT_F16] * 16)
    src = vreg_of('f16', [10.0, 20.0, 30.0, 40.0])
    idx = vreg_of('u16', [7, 7, 3, 7])
    R.vscatter(ub, 0x0, 'f16', src, idx, R.pset(16, 'VL4'))
    expected = [SENT_F16] * 16
    expected[3] = 30.0
    expected[7] = 40.0
    assert get_list(ub, 0x0, 'f16', 16) == expected
    # lane 3 masked off: lane 1 is the highest active lane naming element 7
    ub2 = new_ub()
    R.vscatter(ub2, 0x0, 'u32', vreg_of('u32', [10, 20, 30, 40]), vreg_of('u32', [7, 7, 3, 7]),
               R.pset(32, 'VL3'))
    assert get_list(ub2, 0x0, 'u32', 8) == [0, 0, 0, 30, 0, 0, 0, 20]


def test_pset_patterns():
    def count_bits(m):
        return int(np.count_nonzero(m))
    # M3 / M4: the lanes whose index is a multiple of 3 / 4 (CONTRACT 13.10, correcting 2.2)
    m = R.pset(16, 'M3')                   # lanes 0, 3, ..., 126: 43 lanes of 2 bits
    assert list(m) == [i // 2 % 3 == 0 for i in range(256)]
    m = R.pset(32, 'Q')                    # 16 lanes of 4 bits
    assert list(m) == [True] * 64 + [False] * 192
    assert count_bits(R.pset(32, 'VL128')) == 256     # only 64 lanes: all
    assert count_bits(R.pset(8, 'H')) == 128
    assert count_bits(R.pset(8, 'M3')) == 86          # lanes 0, 3, ..., 255
    assert count_bits(R.pset(32, 'M3')) == 4 * 22     # lanes 0, 3, ..., 63
    assert count_bits(R.pset(16, 'M4')) == 2 * 32     # lanes 0, 4, ..., 124
    assert list(R.pset(32, 'M4')) == [i % 16 < 4 for i in range(256)]
    assert count_bits(R.pset(16, 'ALLF')) == 0
    assert count_bits(R.pset(16, 'ALL')) == 256
    assert list(R.pset(16, 'VL3')) == [True] * 6 + [False] * 250
    assert list(R.pset(8, 'VL1')) == [True] + [False] * 255


def test_pupdate_sequence_b16():
    s = 300
    seen = []
    for _ in range(4):
        m, s = R.pupdate(16, s)
        seen.append((len(active_lanes(m, 2)), s))
    assert seen == [(128, 172), (128, 44), (44, 0), (0, 0)]
    m, s = R.pupdate(32, 70)
    assert int(np.count_nonzero(m)) == 256 and s == 6
    m, s = R.pupdate(8, 70)
    assert int(np.count_nonzero(m)) == 70 and s == 0


def test_dma_blocks_and_gaps():
    gm = np.zeros(1024, dtype=np.uint8)
    for k in range(1024):
        gm[k] = (k * 7) % 256
    ub = new_ub(1024)
    ub[:] = 0xEE
    R.dma(gm, 0x20, ub, 0x40, blocks=2, length=1, srcgap=1, dstgap=2)
    # block 0: gm 0x20..0x3f -> ub 0x40..0x5f; block 1: gm 0x60..0x7f -> ub 0xa0..0xbf
    assert list(ub[0x40:0x60]) == [((0x20 + i) * 7) % 256 for i in range(32)]
    assert list(ub[0xA0:0xC0]) == [((0x60 + i) * 7) % 256 for i in range(32)]
    untouched = np.ones(1024, dtype=bool)
    untouched[0x40:0x60] = False
    untouched[0xA0:0xC0] = False
    assert (ub[untouched] == 0xEE).all()


# ---------------------------------------------------------------------------
# section 6.1: conversion (VCONV)
# ---------------------------------------------------------------------------

MODES = ('rint', 'round', 'floor', 'ceil', 'trunc', 'odd')
INT_MODES = ('rint', 'round', 'floor', 'ceil', 'trunc')


def f32b(x):
    """f32 bit pattern of an f32-exact value (input construction only)."""
    return int(np.array([x], dtype=np.float32).view(np.uint32)[0])


def f16b(x):
    return int(np.array([x], dtype=np.float16).view(np.uint16)[0])


def conv_modes(bits, src, dst, modes):
    return {m: R.convert_bits(bits, src, dst, round=m) for m in modes}


def conv_int(x, src, dst):
    """{mode: integer result} of a float value x of type src converted to dst."""
    b = f32b(x) if src == 'f32' else f16b(x)
    return {m: R.decode(R.convert_bits(b, src, dst, round=m), dst) for m in INT_MODES}


def test_conv_float_to_int_ties_every_mode():
    #           rint (even)  round (away)  floor  ceil  trunc
    # 2.5   ->  2            3             2      3     2
    # -2.5  -> -2           -3            -3     -2    -2
    # 3.5   ->  4            4             3      4     3
    # -0.5  -> -0 = 0       -1            -1     -0=0  -0=0
    # 2.4   ->  2            2             2      3     2
    # -2.6  -> -3           -3            -3     -2    -2
    want = {2.5: (2, 3, 2, 3, 2), -2.5: (-2, -3, -3, -2, -2), 3.5: (4, 4, 3, 4, 3),
            -0.5: (0, -1, -1, 0, 0), 2.375: (2, 2, 2, 3, 2), -2.625: (-3, -3, -3, -2, -2)}
    for src in ('f32', 'f16'):
        for x, w in want.items():
            assert conv_int(x, src, 's16') == dict(zip(INT_MODES, w)), (src, x)
    for x, w in want.items():
        assert conv_int(x, 'f32', 's32') == dict(zip(INT_MODES, w)), x
    # bf16 -> s32: 2.5 is 0x4020 in bf16 (1.25 * 2**1)
    assert R.decode(R.convert_bits(0x4020, 'bf16', 's32'), 's32') == 2
    assert R.decode(R.convert_bits(0x4020, 'bf16', 's32', round='round'), 's32') == 3
    assert R.convert_bits(f16b(-0.5), 'f16', 's16') == 0x0000      # -0 rounds to plain 0


def test_conv_float_to_int_saturation_nan_inf():
    # 127.5: rint -> 128 (127 odd), round/ceil -> 128, floor/trunc -> 127: all saturate to 127
    assert conv_int(127.5, 'f16', 's8') == dict.fromkeys(INT_MODES, 127)
    # -128.5: rint -> -128 (even), round/floor -> -129 -> saturates to -128, ceil/trunc -> -128
    assert conv_int(-128.5, 'f16', 's8') == dict.fromkeys(INT_MODES, -128)
    # 126.5: rint 126 (even), round 127, floor 126, ceil 127, trunc 126
    assert conv_int(126.5, 'f16', 's8') == dict(zip(INT_MODES, (126, 127, 126, 127, 126)))
    # -127.5: rint -128 (even), round -128, floor -128, ceil -127, trunc -127
    assert conv_int(-127.5, 'f16', 's8') == dict(zip(INT_MODES, (-128, -128, -128, -127, -127)))
    # u8: 255.5 rint -> 256 -> 255; -0.5 round/floor -> -1 -> 0; 300 -> 255; -3 -> 0
    assert conv_int(255.5, 'f16', 'u8') == dict(zip(INT_MODES, (255, 255, 255, 255, 255)))
    assert conv_int(-0.5, 'f16', 'u8') == dict.fromkeys(INT_MODES, 0)
    assert conv_int(300.0, 'f16', 'u8')['rint'] == 255
    assert conv_int(-3.0, 'f16', 'u8')['trunc'] == 0
    # 2**31 (f32 0x4F000000) -> s32 max 2**31-1; -2**31 exact; -(2**31 + 256) -> min
    assert R.convert_bits(0x4F000000, 'f32', 's32') == 0x7FFFFFFF
    assert R.convert_bits(0xCF000000, 'f32', 's32') == 0x80000000
    assert R.convert_bits(f32b(-(2.0 ** 31 + 256)), 'f32', 's32', round='ceil') == 0x80000000
    # f16 65504 -> s16 32767, -65504 -> -32768; f16 65504 -> s32 65504 exact
    assert R.convert_bits(0x7BFF, 'f16', 's16') == 0x7FFF
    assert R.convert_bits(0xFBFF, 'f16', 's16') == 0x8000
    assert R.convert_bits(0x7BFF, 'f16', 's32') == 65504
    # NaN -> 0 (any sign, any payload); +inf -> max, -inf -> min
    assert R.convert_bits(0x7E00, 'f16', 's16') == 0
    assert R.convert_bits(0xFE01, 'f16', 's8') == 0
    assert R.convert_bits(0xFFC00001, 'f32', 's32') == 0
    assert R.convert_bits(0x7FC0, 'bf16', 's32') == 0
    assert R.convert_bits(0x7C00, 'f16', 's8') == 0x7F
    assert R.convert_bits(0x7C00, 'f16', 'u8') == 0xFF
    assert R.convert_bits(0xFC00, 'f16', 's8') == 0x80
    assert R.convert_bits(0xFC00, 'f16', 'u8') == 0x00
    assert R.convert_bits(0x7F800000, 'f32', 's32') == 0x7FFFFFFF
    assert R.convert_bits(0xFF800000, 'f32', 's16') == 0x8000
    assert R.convert_bits(0x8000, 'f16', 's16') == 0           # -0 -> 0


def test_conv_f32_to_f16_ties_every_mode():
    # 1 + 2**-11 lies halfway between 1.0 (0x3C00) and 1 + 2**-10 (0x3C01):
    #   rint -> 0x3C00 (even), round -> 0x3C01 (away), floor 0x3C00, ceil 0x3C01, trunc 0x3C00,
    #   odd: truncate to 0x3C00, discarded bits nonzero -> set the low bit -> 0x3C01
    assert conv_modes(f32b(1 + 2 ** -11), 'f32', 'f16', MODES) == dict(zip(
        MODES, (0x3C00, 0x3C01, 0x3C00, 0x3C01, 0x3C00, 0x3C01)))
    # 1 + 3 * 2**-11 lies halfway between 0x3C01 and 0x3C02:
    #   rint -> 0x3C02 (even), round 0x3C02, floor 0x3C01, ceil 0x3C02, trunc 0x3C01,
    #   odd: truncation 0x3C01 is already odd -> 0x3C01 (odd and rint differ here)
    assert conv_modes(f32b(1 + 3 * 2 ** -11), 'f32', 'f16', MODES) == dict(zip(
        MODES, (0x3C02, 0x3C02, 0x3C01, 0x3C02, 0x3C01, 0x3C01)))
    # negative: -(1 + 2**-11): floor grows the magnitude (0xBC01), ceil shrinks it (0xBC00)
    assert conv_modes(f32b(-(1 + 2 ** -11)), 'f32', 'f16', MODES) == dict(zip(
        MODES, (0xBC00, 0xBC01, 0xBC01, 0xBC00, 0xBC00, 0xBC01)))
    # f32 -> bf16: 1 + 2**-8 is halfway between 0x3F80 and 0x3F81 (7 fraction bits);
    # 1 + 3 * 2**-8 between 0x3F81 and 0x3F82
    assert conv_modes(f32b(1 + 2 ** -8), 'f32', 'bf16', MODES) == dict(zip(
        MODES, (0x3F80, 0x3F81, 0x3F80, 0x3F81, 0x3F80, 0x3F81)))
    assert conv_modes(f32b(1 + 3 * 2 ** -8), 'f32', 'bf16', MODES) == dict(zip(
        MODES, (0x3F82, 0x3F82, 0x3F81, 0x3F82, 0x3F81, 0x3F81)))
    # odd when exact: nothing discarded, nothing set (1.0 -> 0x3C00, 2 + 2**-10 -> 0x4000 + 0 ...)
    assert R.convert_bits(f32b(1.0), 'f32', 'f16', round='odd') == 0x3C00
    assert R.convert_bits(f32b(1 + 2 ** -9), 'f32', 'f16', round='odd') == 0x3C02


def test_conv_f32_to_f16_range_edges_every_mode():
    # 65504 = max f16 (0x7BFF) is exact in every mode
    assert conv_modes(f32b(65504.0), 'f32', 'f16', MODES) == dict.fromkeys(MODES, 0x7BFF)
    # 65520 - 2**-8 = 65519.99609375 (f32-exact, the "65519.99" case): /32 = 2047.5 - 2**-13,
    # below the tie: nearest -> 2047*32 = 65504; ceil -> 2048*32 = 65536 > max -> inf;
    # floor, trunc, odd -> 65504
    assert conv_modes(f32b(65520 - 2 ** -8), 'f32', 'f16', MODES) == dict(zip(
        MODES, (0x7BFF, 0x7BFF, 0x7BFF, 0x7C00, 0x7BFF, 0x7BFF)))
    # 65520 / 32 = 2047.5 exactly: rint -> 2048 (even) -> 65536 -> inf; round -> inf; ceil -> inf;
    # floor, trunc -> 65504; odd -> 2047 | 1 = 2047 -> 65504
    assert conv_modes(f32b(65520.0), 'f32', 'f16', MODES) == dict(zip(
        MODES, (0x7C00, 0x7C00, 0x7BFF, 0x7C00, 0x7BFF, 0x7BFF)))
    # odd: everything in [65504, 65536) gives max, 65536 = 2**16 and beyond inf
    assert R.convert_bits(f32b(65535.0), 'f32', 'f16', round='odd') == 0x7BFF
    assert R.convert_bits(f32b(65536.0), 'f32', 'f16', round='odd') == 0x7C00
    # 3.4e38: far past max: rint, round, ceil, odd -> inf; floor, trunc -> max
    assert conv_modes(f32b(3.4e38), 'f32', 'f16', MODES) == dict(zip(
        MODES, (0x7C00, 0x7C00, 0x7BFF, 0x7C00, 0x7BFF, 0x7C00)))
    # -3.4e38: floor -> -inf, ceil and trunc -> -max (0xFBFF), others -inf
    assert conv_modes(f32b(-3.4e38), 'f32', 'f16', MODES) == dict(zip(
        MODES, (0xFC00, 0xFC00, 0xFC00, 0xFBFF, 0xFBFF, 0xFC00)))
    # bf16 max 0x7F7F = (2 - 2**-7) * 2**127; f32 max 0x7F7FFFFF: trunc -> 0x7F7F, rint -> inf
    assert R.convert_bits(0x7F7FFFFF, 'f32', 'bf16', round='trunc') == 0x7F7F
    assert R.convert_bits(0x7F7FFFFF, 'f32', 'bf16') == 0x7F80
    # inf stays inf (every mode), NaN stays NaN, zero keeps its sign
    assert conv_modes(0x7F800000, 'f32', 'f16', MODES) == dict.fromkeys(MODES, 0x7C00)
    assert conv_modes(0xFF800000, 'f32', 'f16', MODES) == dict.fromkeys(MODES, 0xFC00)
    assert R.convert_bits(0xFFC00001, 'f32', 'f16') & 0x7C00 == 0x7C00
    assert R.convert_bits(0xFFC00001, 'f32', 'f16') & 0x03FF != 0
    assert R.convert_bits(0x7FC00000, 'f32', 'bf16') == 0x7FC0
    assert R.convert_bits(0x80000000, 'f32', 'f16') == 0x8000
    assert R.convert_bits(0x00000000, 'f32', 'bf16') == 0x0000


def test_conv_subnormals_kept():
    # f16 subnormals are k * 2**-24.  2**-24 (f32 0x33800000) -> 0x0001 exactly.
    assert R.convert_bits(0x33800000, 'f32', 'f16') == 0x0001
    # 2**-25 = half of the smallest: rint -> 0 (0 is even), round -> 0x0001, floor 0, ceil 0x0001,
    # trunc 0, odd 0x0001
    assert conv_modes(f32b(2.0 ** -25), 'f32', 'f16', MODES) == dict(zip(
        MODES, (0x0000, 0x0001, 0x0000, 0x0001, 0x0000, 0x0001)))
    # -2**-25: an underflow to zero keeps the sign (0x8000); floor -> -2**-24 = 0x8001
    assert conv_modes(f32b(-(2.0 ** -25)), 'f32', 'f16', MODES) == dict(zip(
        MODES, (0x8000, 0x8001, 0x8001, 0x8000, 0x8000, 0x8001)))
    # 3 * 2**-25 = 1.5 * 2**-24: rint -> 2 (1 is odd) = 0x0002, trunc 0x0001
    assert R.convert_bits(f32b(3 * 2.0 ** -25), 'f32', 'f16') == 0x0002
    assert R.convert_bits(f32b(3 * 2.0 ** -25), 'f32', 'f16', round='trunc') == 0x0001
    # 1023 * 2**-24 is the largest subnormal 0x03FF, 2**-14 the smallest normal 0x0400
    assert R.convert_bits(f32b(1023 * 2.0 ** -24), 'f32', 'f16') == 0x03FF
    assert R.convert_bits(f32b(2.0 ** -14), 'f32', 'f16') == 0x0400
    # subnormal inputs are kept: f16 0x0001 -> f32 2**-24 = 0x33800000 (exponent 127 - 24 = 103)
    assert R.convert_bits(0x0001, 'f16', 'f32') == 0x33800000
    assert R.convert_bits(0x8001, 'f16', 'f32') == 0xB3800000
    # f16 0x0001 -> bf16: 2**-24 is normal there: exponent 103 -> 103 << 7 = 0x3380
    assert R.convert_bits(0x0001, 'f16', 'bf16') == 0x3380
    # f32 subnormal 2**-149 (0x00000001) -> bf16: the smallest bf16 subnormal is 2**-133;
    # 2**-149 is far below half of it: rint 0, ceil 0x0001
    assert R.convert_bits(0x00000001, 'f32', 'bf16') == 0x0000
    assert R.convert_bits(0x00000001, 'f32', 'bf16', round='ceil') == 0x0001
    # bf16 2**-25 (exponent 102 -> 0x3300) -> f16: rint 0, ceil 0x0001
    assert R.convert_bits(0x3300, 'bf16', 'f16') == 0x0000
    assert R.convert_bits(0x3300, 'bf16', 'f16', round='ceil') == 0x0001


def test_conv_f16_bf16_both_ways():
    # f16 1 + 2**-8 (0x3C04) is halfway between bf16 1.0 (0x3F80) and 1 + 2**-7 (0x3F81)
    assert R.convert_bits(0x3C04, 'f16', 'bf16') == 0x3F80
    assert R.convert_bits(0x3C04, 'f16', 'bf16', round='round') == 0x3F81
    # bf16 65536 (0x4780, exponent 16 -> 143 << 7) -> f16: rint inf, trunc max
    assert R.convert_bits(0x4780, 'bf16', 'f16') == 0x7C00
    assert R.convert_bits(0x4780, 'bf16', 'f16', round='trunc') == 0x7BFF
    # bf16 1.5 (0x3FC0) -> f16 0x3E00 exact
    assert R.convert_bits(0x3FC0, 'bf16', 'f16') == 0x3E00
    assert R.convert_bits(0xFF80, 'bf16', 'f16') == 0xFC00


def test_conv_int_to_float_every_mode():
    # 2**24 + 1 = 16777217: f32 spacing is 2 there; halfway between 16777216 (0x4B800000,
    # mantissa 0 even) and 16777218 (0x4B800001): rint -> 0x4B800000, round (away) -> ...01,
    # floor ...00, ceil ...01, trunc ...00
    assert conv_modes(2 ** 24 + 1, 's32', 'f32', INT_MODES) == dict(zip(
        INT_MODES, (0x4B800000, 0x4B800001, 0x4B800000, 0x4B800001, 0x4B800000)))
    neg = (-(2 ** 24 + 1)) % 2 ** 32
    assert conv_modes(neg, 's32', 'f32', INT_MODES) == dict(zip(
        INT_MODES, (0xCB800000, 0xCB800001, 0xCB800001, 0xCB800000, 0xCB800000)))
    # 2**24 + 3: halfway between ...01 (odd) and ...02 (even): rint -> 0x4B800002
    assert R.convert_bits(2 ** 24 + 3, 's32', 'f32') == 0x4B800002
    # s16 -> f16: 2049 halfway between 2048 (0x6800) and 2050 (0x6801): rint 2048, round 2050
    assert R.convert_bits(2049, 's16', 'f16') == 0x6800
    assert R.convert_bits(2049, 's16', 'f16', round='round') == 0x6801
    # 32767 = 2047.9375 * 16: rint -> 2048 * 16 = 32768 = 2**15 (exponent 30 -> 0x7800),
    # trunc -> 2047 * 16 = 32752 (exponent 29, mantissa 1023 -> 0x77FF)
    assert R.convert_bits(32767, 's16', 'f16') == 0x7800
    assert R.convert_bits(32767, 's16', 'f16', round='trunc') == 0x77FF
    assert R.convert_bits(0x8000, 's16', 'f16') == 0xF800          # -32768 = -2**15
    # exact pairs: s8 -128 -> f16 -2**7 = 0xD800; u8 255 -> 1.9921875 * 2**7 = 0x5BF8;
    # s16 -32768 -> f32 0xC7000000; 0 -> +0
    assert R.convert_bits(0x80, 's8', 'f16') == 0xD800
    assert R.convert_bits(0xFF, 'u8', 'f16') == 0x5BF8
    assert R.convert_bits(0x8000, 's16', 'f32') == 0xC7000000
    assert R.convert_bits(0, 's32', 'f32') == 0


def test_conv_int_to_int():
    # narrowing saturates
    assert R.convert_bits(200, 's16', 's8') == 0x7F
    assert R.convert_bits((-200) % 65536, 's16', 's8') == 0x80
    assert R.convert_bits((-5) % 65536, 's16', 's8') == 0xFB
    assert R.convert_bits(70000, 's32', 's16') == 0x7FFF
    assert R.convert_bits((-70000) % 2 ** 32, 's32', 's16') == 0x8000
    # widening: sign or zero extension
    assert R.convert_bits(0x80, 's8', 's16') == 0xFF80
    assert R.convert_bits(0x80, 'u8', 'u16') == 0x0080
    assert R.convert_bits(0x8000, 's16', 's32') == 0xFFFF8000
    assert R.convert_bits(0xFFFF, 'u16', 'u32') == 0x0000FFFF


def test_conv_pairs_and_mode_errors():
    assert len(R.CONV_PAIRS) == 24
    assert R.CONV_EXACT <= R.CONV_PAIRS and R.CONV_950_ONLY <= R.CONV_PAIRS
    assert ('s32', 'f16') in R.CONV_PAIRS and ('f16', 's32') not in R.CONV_PAIRS
    with pytest.raises(ValueError):
        R.convert_bits(0x3C00, 'f16', 'f32', round='rint')         # exact pair takes no round=
    with pytest.raises(ValueError):
        R.convert_bits(1, 's16', 's32', round='trunc')
    with pytest.raises(ValueError):
        R.convert_bits(0x3C00, 'f16', 's16', round='odd')          # odd: f32 -> f16 / bf16 only
    with pytest.raises(ValueError):
        R.convert_bits(0x3C00, 'f16', 'bf16', round='odd')
    with pytest.raises(ValueError):
        R.convert_bits(1, 's32', 'f32', round='odd')
    with pytest.raises(ValueError):
        R.convert_bits(0x3C00, 'f16', 'f32', round='nearest')
    with pytest.raises(ValueError):
        R.convert_bits(0, 'u8', 'f32')                             # not a pair
    with pytest.raises(ValueError):
        R.convert_bits(0x10000, 'f16', 'f32')                      # bits do not fit f16


def test_vconv_part_narrowing_and_widening():
    # f32 -> f16 narrowing, k = 2: result lane i -> f16 element 2i + part; the rest zero.
    a = vreg_of('f32', [1.0, 2.0, 3.0, 4.0, 5.0] + [7.0] * 59)
    pm = R.pset(32, 'VL4')                                        # lanes 0..3 (lane 4 inactive)
    d0 = R.vconv('f16', 'f32', a, pm)
    assert bits16(d0, 0, 12) == [0x3C00, 0, 0x4000, 0, 0x4200, 0, 0x4400, 0, 0, 0, 0, 0]
    assert not d0[16:].any()
    d1 = R.vconv('f16', 'f32', a, pm, part=1)
    assert bits16(d1, 0, 12) == [0, 0x3C00, 0, 0x4000, 0, 0x4200, 0, 0x4400, 0, 0, 0, 0]
    assert not d1[16:].any()
    # f16 -> f32 widening, part 1: lane i <- f16 element 2i + 1; f16 element j holds j
    a = vreg_of('f16', [float(j) for j in range(128)])
    d = R.vconv('f32', 'f16', a, R.pset(32, 'VL3'), part=1)
    assert lanes_of(d, 'f32') == [1.0, 3.0, 5.0] + [0.0] * 61
    d = R.vconv('f32', 'f16', a, R.pset(32, 'VL3'))
    assert lanes_of(d, 'f32') == [0.0, 2.0, 4.0] + [0.0] * 61
    # the lane of the wider type is active by entry 4i: a mask with only entry 4 set -> lane 1
    m = np.zeros(256, dtype=bool)
    m[4] = True
    m[2] = True                                                   # entry 2: not a lane start for w = 4
    assert lanes_of(R.vconv('f32', 'f16', a, m), 'f32')[:3] == [0.0, 2.0, 0.0]
    # s16 -> s8, k = 2, part 1: lane i (saturated) at byte 2i + 1
    a = vreg_of('s16', [300, -300, 5] + [0] * 125)
    d = R.vconv('s8', 's16', a, R.pset(16, 'VL3'), part=1)
    assert list(d[:6]) == [0, 0x7F, 0, 0x80, 0, 0x05]
    assert not d[6:].any()
    # same size (s32 <- f32): k = 1, element i to element i; part must be 0
    a = vreg_of('f32', [2.5, -2.5])
    assert lanes_of(R.vconv('s32', 'f32', a, R.pset(32, 'VL2'), round='round'), 's32')[:3] == [3, -3, 0]
    with pytest.raises(ValueError):
        R.vconv('s32', 'f32', a, R.pset(32, 'ALL'), part=1)
    with pytest.raises(ValueError):
        R.vconv('f16', 'f32', a, R.pset(32, 'ALL'), part=2)


def test_tensor_conv_blocks_count_and_gaps():
    # f32 -> f16: 64 lanes per iteration; src (f32) 8 blocks, dst (f16) 4 blocks = 128 bytes.
    ub = new_ub()
    put(ub, 0x0, 'f32', [float(k) for k in range(128)])
    put(ub, 0x1000, 'f16', [SENT_F16] * 256)
    # count=100: iteration 0 lanes 0..63, iteration 1 lanes 0..35; dst_rep 8 (default) puts
    # iteration 1 at dst + 256 bytes: f16 elements 64..127 (bytes 128..255) stay untouched
    R.tensor_conv(ub, 'f16', 'f32', 0x1000, 0x0, count=100)
    got = get_list(ub, 0x1000, 'f16', 256)
    assert got == ([float(k) for k in range(64)] + [SENT_F16] * 64
                   + [float(64 + k) for k in range(36)] + [SENT_F16] * 92)
    # contiguous: dst_rep = 4 blocks, repeat 2
    ub = new_ub()
    put(ub, 0x0, 'f32', [float(k) + 0.5 for k in range(128)])
    R.tensor_conv(ub, 's16', 'f32', 0x1000, 0x0, repeat=2, dst_rep=4, round='floor')
    assert get_list(ub, 0x1000, 's16', 128) == list(range(128))
    # mask counts f32 lanes: mask=10 -> lanes 0..9 of each iteration
    ub = new_ub()
    put(ub, 0x0, 'f32', [3.0] * 64)
    put(ub, 0x1000, 'f16', [SENT_F16] * 64)
    R.tensor_conv(ub, 'f16', 'f32', 0x1000, 0x0, mask=10)
    assert get_list(ub, 0x1000, 'f16', 64) == [3.0] * 10 + [SENT_F16] * 54


def test_tensor_conv_widening_narrow_source_strides():
    # f16 -> f32: 64 lanes; the f16 source covers 4 blocks of 16; src_blk=2 puts its block b at
    # src + 2b*32, so lane L = 16b + j reads f16 element 32b + j
    ub = new_ub()
    put(ub, 0x0, 'f16', [float(k) for k in range(256)])
    R.tensor_conv(ub, 'f32', 'f16', 0x1000, 0x0, src_blk=2)
    assert get_list(ub, 0x1000, 'f32', 64) == [float(32 * (L // 16) + L % 16) for L in range(64)]
    # s16 -> s8 (950): 128 lanes; the s8 destination covers 4 blocks = 128 bytes
    ub = new_ub()
    put(ub, 0x0, 's16', [k * 3 - 200 for k in range(128)])
    ub[0x1000:0x1100] = 0x55
    R.tensor_conv(ub, 's8', 's16', 0x1000, 0x0)
    want = [max(-128, min(127, k * 3 - 200)) for k in range(128)]
    assert get_list(ub, 0x1000, 's8', 128) == want
    assert (ub[0x1080:0x1100] == 0x55).all()


def test_tensor_conv_errors_write_nothing():
    ub = new_ub(4096)
    with pytest.raises(ValueError):
        R.tensor_conv(ub, 'f32', 'f16', 0x100, 0x0, round='rint')   # exact pair
    with pytest.raises(ValueError):
        R.tensor_conv(ub, 'f16', 'f32', 0x110, 0x0)                # misaligned
    with pytest.raises(ValueError):
        R.tensor_conv(ub, 'f16', 'f32', 0x100, 0x0, mask=(1, 1))   # 64 lanes: HIGH must be 0
    with pytest.raises(IndexError):
        R.tensor_conv(ub, 'f16', 'f32', 0x0, 4096 - 224)           # src needs 256 bytes
    assert not ub.any()
    # the narrow f16 destination of f32 -> f16 covers only 4 blocks: 128 bytes at the end fit
    R.tensor_conv(ub, 'f16', 'f32', 4096 - 128, 0x0)
    assert not ub.any()                                            # zeros converted to +0
    with pytest.raises(IndexError):
        R.tensor_conv(ub, 'f32', 'f16', 4096 - 128, 0x0)           # an f32 destination needs 256
    R.tensor_conv(ub, 'f16', 'f32', 0x0, 0x0, repeat=0)           # no operation


# ---------------------------------------------------------------------------
# section 6.2: rec, rsqrt, neg, div, lrelu, dup, arange
# ---------------------------------------------------------------------------

def test_rsqrt_exact():
    rs = lambda t, b: R.lane_unary('rsqrt', t, b)  # noqa: E731
    # 1/sqrt(4) = 0.5: f32 0x3F000000, f16 0x3800
    assert rs('f32', f32b(4.0)) == 0x3F000000
    assert rs('f16', f16b(4.0)) == 0x3800
    # 1/sqrt(2) = 2**-0.5 in [0.5, 1): 24 bits -> 2**23.5 = 11863283.20 -> 11863283 = 0xB504F3
    # -> exponent 126 (0x3F000000) | 0x3504F3 = 0x3F3504F3
    assert rs('f32', f32b(2.0)) == 0x3F3504F3
    # f16: 2**10.5 = 1448.15 -> 1448 -> 0x3800 | (1448 - 1024 = 0x1A8) = 0x39A8
    assert rs('f16', f16b(2.0)) == 0x39A8
    # specials: +0 -> +inf, -0 -> -inf, +inf -> +0, negative and -inf -> NaN
    assert rs('f32', 0x00000000) == 0x7F800000
    assert rs('f32', 0x80000000) == 0xFF800000
    assert rs('f16', 0x8000) == 0xFC00
    assert rs('f32', 0x7F800000) == 0x00000000
    assert R._is_nan_bits(rs('f32', f32b(-4.0)), 'f32')
    assert R._is_nan_bits(rs('f16', 0xFC00), 'f16')
    assert R._is_nan_bits(rs('bf16', 0x7FC0), 'bf16')
    # through the tensor entry point
    ub = new_ub()
    put(ub, 0x0, 'f32', [4.0, 2.0, 0.25])
    R.tensor_op(ub, 'rsqrt', 'f32', 0x1000, [0x0], mask=3)
    assert get_list(ub, 0x1000, 'f32', 3) == [0.5, R.decode(0x3F3504F3, 'f32'), 2.0]


def test_rec_exact():
    # 1/3 in f16: in [0.25, 0.5), 11 bits -> 4096/3 = 1365.33 -> 1365 -> exponent 13 (0x3400)
    # | (1365 - 1024 = 341 = 0x155) = 0x3555
    assert R.lane_unary('rec', 'f16', f16b(3.0)) == 0x3555
    # 1/3 in f32: 1.0101...b * 2**-2, 23 fraction bits 0x2AAAAA then 1010... > half -> 0x2AAAAB
    assert R.lane_unary('rec', 'f32', f32b(3.0)) == 0x3EAAAAAB
    assert R.lane_unary('rec', 'f16', f16b(4.0)) == 0x3400           # 0.25
    # 1/+-0 = +-inf, 1/+-inf = +-0; 1/2**-24 = 2**24 > 65504 -> inf
    assert R.lane_unary('rec', 'f16', 0x0000) == 0x7C00
    assert R.lane_unary('rec', 'f16', 0x8000) == 0xFC00
    assert R.lane_unary('rec', 'f32', 0xFF800000) == 0x80000000
    assert R.lane_unary('rec', 'f16', 0x0001) == 0x7C00
    ub = new_ub()
    put(ub, 0x0, 'f16', [3.0, -0.5])
    R.tensor_op(ub, 'rec', 'f16', 0x1000, [0x0], mask=2)
    assert bits16(ub, 0x1000, 2) == [0x3555, 0xC000]
    with pytest.raises(ValueError):
        R.tensor_op(ub, 'rec', 's16', 0x1000, [0x0])
    with pytest.raises(ValueError):
        R.vop_unary('rec', 'f16', vreg_of('f16', [1.0]), R.pset(16, 'ALL'))   # tensor only


def test_neg_bits_and_wrap():
    # floats: the sign bit flips, NaN payload kept
    assert R.lane_unary('neg', 'f16', 0x7E01) == 0xFE01
    assert R.lane_unary('neg', 'f16', 0xFE01) == 0x7E01
    assert R.lane_unary('neg', 'f32', 0x7FC00123) == 0xFFC00123
    assert R.lane_unary('neg', 'f16', 0x0000) == 0x8000
    assert R.lane_unary('neg', 'bf16', 0x3F80) == 0xBF80
    # integers: -x with wrap-around
    assert R.lane_unary('neg', 's16', 0x8000) == 0x8000             # -(-32768) wraps
    assert R.lane_unary('neg', 's16', 5) == 0xFFFB
    assert R.lane_unary('neg', 'u16', 1) == 0xFFFF
    assert R.lane_unary('neg', 's32', 0xFFFFFFFF) == 1
    ub = new_ub()
    ub[0:4] = [0x01, 0x7E, 0x00, 0x3C]                            # f16 NaN 0x7E01, 1.0
    R.tensor_op(ub, 'neg', 'f16', 0x100, [0x0], mask=2)
    assert bits16(ub, 0x100, 2) == [0xFE01, 0xBC00]
    d = R.vop_unary('neg', 's8', vreg_of('s8', [-128, 3]), R.pset(8, 'VL2'))
    assert lanes_of(d, 's8')[:3] == [-128, -3, 0]


def test_div_specials():
    # x/0 = +-inf by the signs, 0/0 = NaN, 1/3 in f16 = 0x3555 (as rec)
    assert R.lane_binary('div', 'f16', 0x3C00, 0x8000) == 0xFC00
    assert R.lane_binary('div', 'f16', 0xBC00, 0x8000) == 0x7C00
    assert R._is_nan_bits(R.lane_binary('div', 'f32', 0, 0x80000000), 'f32')
    assert R.lane_binary('div', 'f16', 0x3C00, f16b(3.0)) == 0x3555
    # integer VDIV exists for s16 u16 s32 u32 since CONTRACT 13.7 (test_reference_part3_selfcheck.py);
    # 8-bit types stay refused
    with pytest.raises(ValueError):
        R.vop('div', 's8', vreg_of('s8', [1]), vreg_of('s8', [1]), R.pset(8, 'ALL'))


def test_lrelu():
    # scalar 0.1 -> f16 0x2E66 = 1638 * 2**-14.
    # -2 -> -1638 * 2**-13 exact = 0xB266 (exponent -3: 12 << 10 = 0x3000, mantissa 0x266);
    # -3 -> -4914 * 2**-14 = -1228.5 * 2**-12 -> tie -> 1228 (even): 0xB4CC;
    # -0 >= 0 -> -0 stays (0x8000); 3 -> 3 (0x4200); NaN -> NaN; -inf * 0.1 -> -inf
    ub = new_ub()
    ub[0:12] = [0x00, 0xC0, 0x00, 0xC2, 0x00, 0x80, 0x00, 0x42, 0x01, 0x7E, 0x00, 0xFC]
    R.tensor_op(ub, 'lrelu', 'f16', 0x100, [0x0], mask=6, scalar=0.1)
    got = bits16(ub, 0x100, 6)
    assert got[:4] == [0xB266, 0xB4CC, 0x8000, 0x4200]
    assert R._is_nan_bits(got[4], 'f16')
    assert got[5] == 0xFC00
    d = R.vop_scalar('lrelu', 'f32', vreg_of('f32', [-2.0, 5.0]), 0.5, R.pset(32, 'VL2'))
    assert lanes_of(d, 'f32')[:3] == [-1.0, 5.0, 0.0]
    with pytest.raises(ValueError):
        R.tensor_op(ub, 'lrelu', 's16', 0x100, [0x0], scalar=1)


def test_dup_tensor_and_register():
    ub = new_ub()
    put(ub, 0x0, 'f16', [SENT_F16] * 512)
    # repeat 2, dst_blk 2: blocks at 0, 64, ..., 448 (iteration 0) and dst_rep 16 -> 512.. (it. 1)
    R.tensor_dup(ub, 'f16', 0x0, 0x3C00, repeat=2, dst_blk=2, dst_rep=16, mask=20)
    got = get_list(ub, 0x0, 'f16', 512)
    # iteration 0: lane L (block L // 16 at 64 * (L // 16)) for L < 20 -> f16 elements 0..15, 32..35
    want = [SENT_F16] * 512
    for r in range(2):
        for L in range(20):
            want[256 * r + 32 * (L // 16) + L % 16] = 1.0
    assert got == want
    # scalar bits keep their low bits: 0x12345678 as s16 -> 0x5678
    ub = new_ub()
    R.tensor_dup(ub, 's16', 0x0, 0x12345678, count=130)
    assert bits16(ub, 0x0, 131) == [0x5678] * 130 + [0]
    # register: scalar or lane 0 of src; inactive lanes 0
    d = R.vdup('f32', R.pset(32, 'VL2'), value_bits=0x40490FDB)
    assert list(d[:12]) == [0xDB, 0x0F, 0x49, 0x40] * 2 + [0] * 4
    src = vreg_of('u16', [7, 8, 9])
    assert lanes_of(R.vdup('u16', R.pset(16, 'VL3'), src=src), 'u16')[:4] == [7, 7, 7, 0]
    with pytest.raises(ValueError):
        R.vdup('u16', R.pset(16, 'ALL'), value_bits=1, src=src)


def test_arange_f16_rounds_and_integers_wrap():
    # f16 START 2048 (0x6800): in [2048, 4096) f16 spacing is 2, so an odd 2048 + n is a tie
    # that goes to the neighbour whose mantissa is even, i.e. the multiple of 4:
    # 2049 -> 2048, 2050, 2051 -> 2052, 2052, 2053 -> 2052, 2054, 2055 -> 2056 ...
    # iteration 1 starts at 2048 + 128 = 2176; its last lane 2303 (= 3 mod 4) -> 2304
    def f16_round_int(v):
        if v % 2 == 0:
            return float(v)
        return float(v - 1) if v % 4 == 1 else float(v + 1)
    ub = new_ub()
    R.tensor_arange(ub, 'f16', 0x0, 0x6800, repeat=2)
    got = get_list(ub, 0x0, 'f16', 256)
    assert got[:8] == [2048.0, 2048.0, 2050.0, 2052.0, 2052.0, 2052.0, 2054.0, 2056.0]
    assert got == [f16_round_int(2048 + n) for n in range(256)]
    assert got[255] == 2304.0
    # f32 -2.0 + n, with a bit mask of lanes 1 and 3; exact zero sum -2 + 2 = +0 (IEEE x + y)
    ub = new_ub()
    put(ub, 0x0, 'f32', [SENT_F16] * 64)
    R.tensor_arange(ub, 'f32', 0x0, f32b(-2.0), mask=(0b1010, 0))
    assert get_list(ub, 0x0, 'f32', 5) == [SENT_F16, -1.0, SENT_F16, 1.0, SENT_F16]
    d = R.varange('f32', f32b(-2.0))
    assert lanes_of(d, 'f32')[:4] == [-2.0, -1.0, 0.0, 1.0]
    assert list(d[8:12]) == [0, 0, 0, 0]                          # +0, not -0
    # count: s32 lanes of iteration 1 are START + 64 + i
    ub = new_ub()
    R.tensor_arange(ub, 's32', 0x0, 10, count=70, dst_rep=16)
    assert get_list(ub, 0x0, 's32', 64) == [10 + i for i in range(64)]
    assert get_list(ub, 0x200, 's32', 8) == [74, 75, 76, 77, 78, 79, 0, 0]
    # integers wrap: s16 32766, 32767, -32768, -32767; u16 0xFFFE, 0xFFFF, 0, 1
    assert lanes_of(R.varange('s16', 32766), 's16')[:4] == [32766, 32767, -32768, -32767]
    assert lanes_of(R.varange('u16', 0xFFFE), 'u16')[:4] == [0xFFFE, 0xFFFF, 0, 1]
    assert lanes_of(R.varange('u32', 5), 'u32')[63] == 68           # every lane written
    with pytest.raises(ValueError):
        R.tensor_arange(ub, 'u16', 0x0, 0)                          # tensor: s16 s32 f16 f32


# ---------------------------------------------------------------------------
# section 6.3: compare, select, mask logic
# ---------------------------------------------------------------------------

def test_compare_nan_and_signed_zero():
    nan = 0x7E00
    for c in R.CONDITIONS:
        assert R.compare(c, 'f16', nan, 0x3C00) is False
        assert R.compare(c, 'f16', 0x3C00, nan) is False
        assert R.compare(c, 'f16', nan, nan) is False               # NE included
    # +0 == -0
    assert R.compare('EQ', 'f32', 0x00000000, 0x80000000) is True
    assert R.compare('NE', 'f32', 0x00000000, 0x80000000) is False
    assert R.compare('LT', 'f16', 0x8000, 0x0000) is False
    assert R.compare('LE', 'f16', 0x0000, 0x8000) is True
    assert R.compare('ge', 'bf16', 0x8000, 0x0000) is True
    # integers by value: s16 0xFFFF = -1 < 1; u16 0xFFFF = 65535 > 1
    assert R.compare('LT', 's16', 0xFFFF, 1) is True
    assert R.compare('GT', 'u16', 0xFFFF, 1) is True
    assert R.compare('EQ', 'f16', 0xFC00, 0xFC00) is True            # -inf == -inf


def test_tensor_cmp_bit_layout_and_advance_f16():
    # f16: 128 lanes -> 16 bytes per iteration, iteration r at dst + 16r.
    # src0 element k = k, src1 all 126: GE holds for lanes 126, 127 of iteration 0
    # (byte 15, bits 6 and 7 = 0xC0) and for all lanes of iteration 1 (bytes 16..31 = 0xFF)
    ub = new_ub()
    put(ub, 0x0, 'f16', [float(k) for k in range(256)])
    put(ub, 0x1000, 'f16', [126.0] * 256)
    ub[0x2000:0x2040] = 0xAA
    R.tensor_cmp(ub, 'GE', 'f16', 0x2000, 0x0, 0x1000, repeat=2)
    assert list(ub[0x2000:0x2010]) == [0] * 15 + [0xC0]
    assert list(ub[0x2010:0x2020]) == [0xFF] * 16
    assert (ub[0x2020:0x2040] == 0xAA).all()
    # LT against 5: lanes 0..4 -> byte 0 = 0b00011111; masked to 3 lanes -> 0b00000111
    ub[0x2000:0x2040] = 0xAA
    R.tensor_cmps(ub, 'LT', 'f16', 0x2000, 0x0, f16b(5.0), mask=3)
    assert list(ub[0x2000:0x2010]) == [0x07] + [0] * 15
    assert (ub[0x2010:0x2040] == 0xAA).all()


def test_tensor_cmp_f32_advance_count_and_errors():
    # f32: 64 lanes -> 8 bytes per iteration, iteration r at dst + 8r.
    # src element k = k - 3 GT 0: iteration 0 lanes 4..63 -> bytes 0xF0, 0xFF * 7;
    # count=70: iteration 1 has lanes 0..5 only (elements 64..69, all > 0) -> 0x3F, then 0
    ub = new_ub()
    put(ub, 0x0, 'f32', [float(k - 3) for k in range(128)])
    ub[0x2000:0x2020] = 0xAA
    R.tensor_cmps(ub, 'GT', 'f32', 0x2000, 0x0, 0, count=70)
    assert list(ub[0x2000:0x2008]) == [0xF0] + [0xFF] * 7
    assert list(ub[0x2008:0x2010]) == [0x3F] + [0] * 7
    assert (ub[0x2010:0x2020] == 0xAA).all()
    # binary with a block stride: src1 is a scalar-like block repeated (blk 0, rep 0) holding 2.0
    put(ub, 0x1000, 'f32', [2.0] * 8)
    R.tensor_cmp(ub, 'EQ', 'f32', 0x2000, 0x0, 0x1000, repeat=3, src_blk=(1, 0), src_rep=(8, 0))
    # element 5 = 2.0 -> iteration 0 byte 0 bit 5; iterations 1, 2 none
    assert list(ub[0x2000:0x2018]) == [0x20] + [0] * 23
    with pytest.raises(ValueError):
        R.tensor_cmp(ub, 'EQ', 'f32', 0x2008, 0x0, 0x1000)         # dst must be 32-byte aligned
    with pytest.raises(ValueError):
        R.tensor_cmp(ub, 'XX', 'f32', 0x2000, 0x0, 0x1000)


def test_tensor_select_from_bits():
    # f16: iteration r's 16 selector bytes at sel + 16r; bit set -> src0 (1.0), clear -> src1 (2.0)
    ub = new_ub()
    put(ub, 0x0, 'f16', [1.0] * 256)
    put(ub, 0x1000, 'f16', [2.0] * 256)
    put(ub, 0x2000, 'f16', [SENT_F16] * 256)
    ub[0x3000] = 0b00000101                                       # iteration 0: lanes 0, 2
    ub[0x3010 + 15] = 0x80                                        # iteration 1: lane 127
    R.tensor_sel(ub, 'f16', 0x2000, 0x0, 0x1000, 0x3000, repeat=2, mask=(0xFFFF, 1 << 63))
    got = get_list(ub, 0x2000, 'f16', 256)
    # mask: lanes 0..15 and 127; others unchanged
    want0 = [1.0, 2.0, 1.0] + [2.0] * 13 + [SENT_F16] * 111 + [2.0]
    want1 = [2.0] * 16 + [SENT_F16] * 111 + [1.0]
    assert got == want0 + want1
    # sels: dst = bit ? src0 : scalar (bits of 7.0 = 0x4700)
    ub[0x3000:0x3010] = 0
    ub[0x3000] = 0b10
    R.tensor_sels(ub, 'f16', 0x2000, 0x0, 0x4700, 0x3000, mask=4)
    assert get_list(ub, 0x2000, 'f16', 5) == [7.0, 1.0, 7.0, 7.0, 2.0]
    with pytest.raises(ValueError):
        R.tensor_sel(ub, 'f16', 0x2000, 0x0, 0x1000, 0x3010 + 8)   # sel 32-byte aligned


def test_register_compare_select_and_p_logic():
    a = vreg_of('f32', [1.0, 5.0, 3.0, 9.0])
    b = vreg_of('f32', [2.0, 2.0, 3.0, 1.0])
    m = R.vcmp('GT', 'f32', a, b, R.pset(32, 'VL3'))
    # lane 1 (5 > 2) sets entries 4..7; lane 3 (9 > 1) is outside Pm -> 0
    assert list(m[:16]) == [False] * 4 + [True] * 4 + [False] * 8
    assert not m[16:].any()
    m = R.vcmps('LE', 'f32', a, f32b(3.0), R.pset(32, 'ALL'))
    # lanes 0, 2 (1, 3 <= 3) and lanes 4.. (0.0 <= 3)
    assert active_lanes(m, 4) == [0, 2, *range(4, 64)]
    assert int(np.count_nonzero(m)) == 4 * 62
    d = R.vsel('f32', a, b, R.pset(32, 'VL2'))
    assert lanes_of(d, 'f32')[:5] == [1.0, 5.0, 3.0, 1.0, 0.0]
    p = R.pset(8, 'VL4')
    q = R.make_mask(1, [False, True, False, False, False, True])
    assert list(R.pand(p, q)[:6]) == [False, True, False, False, False, False]
    assert list(R.por(p, q)[:6]) == [True, True, True, True, False, True]
    assert list(R.pxor(p, q)[:6]) == [True, False, True, True, False, True]
    assert list(R.pnot(p)[:6]) == [False] * 4 + [True] * 2
    assert int(np.count_nonzero(R.pnot(p))) == 252


# ---------------------------------------------------------------------------
# section 6.6: LD / ST / MOV
# ---------------------------------------------------------------------------

def test_ld_sign_and_zero_extension():
    mem = np.zeros(64, dtype=np.uint8)
    mem[0:8] = [0x80, 0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF, 0xFF]
    mem[8:16] = [0xFF] * 8
    mem[16:24] = [0, 0, 0, 0, 0, 0, 0, 0x80]
    assert R.ld(mem, 0, 's8') == -128
    assert R.ld(mem, 0, 'u8') == 128
    assert R.ld(mem, 0, 's16') == -128                  # 0xFF80
    assert R.ld(mem, 0, 'u16') == 0xFF80
    assert R.ld(mem, 4, 's32') == -2                    # 0xFFFFFFFE
    assert R.ld(mem, 4, 'u32') == 0xFFFFFFFE
    assert R.ld(mem, 0, 'u64') == 0xFFFFFFFEFFFFFF80 - 2 ** 64     # = -(2**32 + 128)
    assert R.ld(mem, 8, 's64') == -1
    assert R.ld(mem, 8, 'u64') == -1                    # 2**64 - 1 seen as a signed register
    assert R.ld(mem, 16, 'u64') == -2 ** 63


def test_st_low_bits_and_errors():
    mem = np.zeros(64, dtype=np.uint8)
    R.st(mem, 8, 's16', -1)
    assert list(mem[8:10]) == [0xFF, 0xFF]
    R.st(mem, 12, 'u8', 0x1234)
    assert list(mem[12:14]) == [0x34, 0x00]
    R.st(mem, 16, 's64', 2 ** 64 + 5)
    assert list(mem[16:24]) == [5, 0, 0, 0, 0, 0, 0, 0]
    R.st(mem, 24, 'u32', 0x0102030405)
    assert list(mem[24:28]) == [0x05, 0x04, 0x03, 0x02]
    before = mem.copy()
    with pytest.raises(ValueError):
        R.ld(mem, 1, 's16')
    with pytest.raises(ValueError):
        R.ld(mem, 2, 'u32')
    with pytest.raises(ValueError):
        R.st(mem, 60, 's64', 1)                          # 60 % 8 = 4
    with pytest.raises(IndexError):
        R.ld(mem, 64, 'u32')
    with pytest.raises(IndexError):
        R.st(mem, 64, 'u8', 1)
    with pytest.raises(ValueError):
        R.ld(mem, 0, 'f32')
    assert (mem == before).all()


def test_mov64_range():
    assert R.mov64(5) == 5
    assert R.mov64(2 ** 64 - 1) == -1
    assert R.mov64(2 ** 63) == -2 ** 63
    assert R.mov64(-2 ** 63) == -2 ** 63
    assert R.mov64(2 ** 63 - 1) == 2 ** 63 - 1
    with pytest.raises(ValueError):
        R.mov64(2 ** 64)
    with pytest.raises(ValueError):
        R.mov64(-2 ** 63 - 1)


# ---------------------------------------------------------------------------
# section 6.4: reductions
# ---------------------------------------------------------------------------

F16_NAN_A = 0x7E01          # two distinguishable f16 NaNs
F16_NAN_B = 0x7E00


def u16_at(ub, addr):
    return int(ub[addr]) | (int(ub[addr + 1]) << 8)


def u32_at(ub, addr):
    return sum(int(ub[addr + k]) << (8 * k) for k in range(4))


def test_cadd_f16_tree_differs_from_sequential():
    # 128 f16 lanes: 2048, then 127 ones. In [2048, 4096) the f16 spacing is 2.
    # Sequential: 2048 + 1 = 2049 is a tie -> 2048 (even significand 1024), forever: 2048.
    # Tree: level 1: 2048+1 -> 2048, 63 x (1+1=2); level 2: 2048+2 = 2050, 31 x 4;
    # level 3: 2050+4 = 2054, 15 x 8; level 4: 2054+8 = 2062, 7 x 16; level 5: 2062+16 = 2078,
    # 3 x 32; level 6: 2078+32 = 2110, 64; level 7: 2110+64 = 2174 (exact: 2175).
    # 2174 = 0x6800 + (2174 - 2048) / 2 = 0x6800 + 63 = 0x683F.
    ub = new_ub()
    put(ub, 0x0, 'f16', [2048.0] + [1.0] * 127)
    put(ub, 0x1000, 'f16', [SENT_F16] * 4)
    R.tensor_cadd(ub, 'f16', 0x1000, 0x0)
    assert u16_at(ub, 0x1000) == 0x683F
    assert get_list(ub, 0x1002, 'f16', 1) == [SENT_F16]          # one T per iteration
    # only lanes 0 and 1 (mask=2): 2048 + 1 -> 2048 = 0x6800
    R.tensor_cadd(ub, 'f16', 0x1000, 0x0, mask=2)
    assert u16_at(ub, 0x1000) == 0x6800
    # bit mask lanes 1, 2, 3: tree (0 + 1) + (1 + 1) = 3
    R.tensor_cadd(ub, 'f16', 0x1000, 0x0, mask=(0b1110, 0))
    assert get_list(ub, 0x1000, 'f16', 1) == [3.0]


def test_cadd_dst_advance_count_and_f32_tree():
    # f32 64 lanes; iteration r's lanes k = r * 64 + k hold [2**24, 0, 1, 1, 0, ...].
    # tree: level 1: 2**24 + 0 = 2**24, 1 + 1 = 2; level 2: 2**24 + 2 = 16777218 (exact in f32,
    # spacing 2 above 2**24). A left-to-right sum would give 2**24 (2**24 + 1 ties to even).
    row = [2.0 ** 24, 0.0, 1.0, 1.0] + [0.0] * 60
    ub = new_ub()
    put(ub, 0x0, 'f32', row * 3)
    put(ub, 0x1000, 'f32', [SENT_F16] * 8)
    # repeat 3, dst_rep 2: results at dst + r * 2 * 4 = 0x1000, 0x1008, 0x1010
    R.tensor_cadd(ub, 'f32', 0x1000, 0x0, repeat=3, dst_rep=2)
    assert get_list(ub, 0x1000, 'f32', 6) == [16777218.0, SENT_F16] * 3
    # count=66: iteration 0 full, iteration 1 lanes 0, 1 only: 2**24 + 0 = 2**24
    R.tensor_cadd(ub, 'f32', 0x1000, 0x0, count=66)
    assert get_list(ub, 0x1000, 'f32', 3) == [16777218.0, 2.0 ** 24, 16777218.0]
    # dst_rep 0: every iteration writes dst + 0, the last one stays
    put(ub, 0x200, 'f32', [5.0] * 64)                            # iteration 2: 64 * 5 = 320
    R.tensor_cadd(ub, 'f32', 0x1000, 0x0, repeat=3, dst_rep=0)
    assert get_list(ub, 0x1000, 'f32', 1) == [320.0]


def test_cadd_integer_wrap():
    ub = new_ub()
    # s16: 128 x 300 = 38400 -> 38400 - 65536 = -27136
    put(ub, 0x0, 's16', [300] * 128)
    R.tensor_cadd(ub, 's16', 0x1000, 0x0)
    assert get_list(ub, 0x1000, 's16', 1) == [-27136]
    # u16: 128 x 1000 = 128000 -> 128000 - 65536 = 62464
    put(ub, 0x0, 'u16', [1000] * 128)
    R.tensor_cadd(ub, 'u16', 0x1000, 0x0)
    assert get_list(ub, 0x1000, 'u16', 1) == [62464]
    # s32: 0x7FFFFFFF + 0x7FFFFFFF = 0xFFFFFFFE = -2 (the other lanes are 0)
    ub[0:0x100] = 0
    put(ub, 0x0, 's32', [0x7FFFFFFF, 0x7FFFFFFF])
    R.tensor_cadd(ub, 's32', 0x1000, 0x0)
    assert get_list(ub, 0x1000, 's32', 1) == [-2]
    # inactive lanes take no part: u32 lanes 0..3 = 1, 2, 4, 8, mask lanes 1 and 3 -> 10
    put(ub, 0x0, 'u32', [1, 2, 4, 8])
    R.tensor_cadd(ub, 'u32', 0x1000, 0x0, mask=(0b1010, 0))
    assert get_list(ub, 0x1000, 'u32', 1) == [10]


def test_cmax_cmin_ties_orders_and_lane():
    # f16 lanes: 1, 5, -7, 5, 0 (lanes 4..127 zero), lane 6 = -7.
    # max 5: lanes 1 and 3 tie -> lane 1; min -7: lanes 2 and 6 tie -> lane 2.
    # f16 5.0 = 0x4500, -7.0 = 0xC700.
    vals = [1.0, 5.0, -7.0, 5.0, 0.0, 0.0, -7.0] + [0.0] * 121
    ub = new_ub()
    put(ub, 0x0, 'f16', vals)
    ub[0x1000:0x1040] = 0xEE
    R.tensor_cmax(ub, 'f16', 0x1000, 0x0)                        # order vi: value, lane
    assert [u16_at(ub, 0x1000), u16_at(ub, 0x1002), u16_at(ub, 0x1004)] == [0x4500, 1, 0xEEEE]
    R.tensor_cmin(ub, 'f16', 0x1000, 0x0, order='iv')            # lane, value
    assert [u16_at(ub, 0x1000), u16_at(ub, 0x1002)] == [2, 0xC700]
    ub[0x1000:0x1040] = 0xEE
    R.tensor_cmax(ub, 'f16', 0x1000, 0x0, order='v')             # value alone, 2 bytes
    assert [u16_at(ub, 0x1000), u16_at(ub, 0x1002)] == [0x4500, 0xEEEE]
    R.tensor_cmin(ub, 'f16', 0x1000, 0x0, order='i')             # the lane alone as a u32
    assert list(ub[0x1000:0x1006]) == [2, 0, 0, 0, 0xEE, 0xEE]
    # with a mask excluding lane 1, the max 5 is lane 3
    R.tensor_cmax(ub, 'f16', 0x1000, 0x0, mask=(0b1101, 0))
    assert [u16_at(ub, 0x1000), u16_at(ub, 0x1002)] == [0x4500, 3]


def test_cmax_dst_units_per_order():
    # f32, 2 iterations: iteration 0 max 3.0 at lane 5, iteration 1 max 9.0 at lane 63.
    # vi unit 8: iteration 1 at dst + 1 * 2 * 8 = +16 with dst_rep 2;
    # v unit 4: +4 * dst_rep; i unit 4 (u32 lane)
    it0 = [0.0] * 64
    it0[5] = 3.0
    it1 = [-1.0] * 64
    it1[63] = 9.0
    ub = new_ub()
    put(ub, 0x0, 'f32', it0 + it1)
    ub[0x1000:0x1040] = 0xEE
    R.tensor_cmax(ub, 'f32', 0x1000, 0x0, repeat=2, dst_rep=2)
    assert get_list(ub, 0x1000, 'f32', 1) == [3.0] and u32_at(ub, 0x1004) == 5
    assert u32_at(ub, 0x1008) == 0xEEEEEEEE
    assert get_list(ub, 0x1010, 'f32', 1) == [9.0] and u32_at(ub, 0x1014) == 63
    ub[0x1000:0x1040] = 0xEE
    R.tensor_cmax(ub, 'f32', 0x1000, 0x0, repeat=2, order='v', dst_rep=3)
    assert get_list(ub, 0x1000, 'f32', 1) == [3.0] and get_list(ub, 0x100C, 'f32', 1) == [9.0]
    assert u32_at(ub, 0x1004) == 0xEEEEEEEE
    ub[0x1000:0x1040] = 0xEE
    R.tensor_cmax(ub, 'f32', 0x1000, 0x0, repeat=2, order='i')
    assert [u32_at(ub, 0x1000), u32_at(ub, 0x1004), u32_at(ub, 0x1008)] == [5, 63, 0xEEEEEEEE]
    ub[0x1000:0x1040] = 0xEE
    R.tensor_cmin(ub, 'f16', 0x1000, 0x0, order='i', count=130)  # f16: still a 4-byte unit
    # f16 view of the f32 data: iteration 0 is zero bits except lanes 10, 11 = halves of
    # f32 3.0 = 0x40400000 (0x0000, 0x4040 > 0) -> min +0 at lane 0; iteration 1's two lanes
    # are the halves of f32 -1.0 = 0xBF800000: lane 0 = 0x0000 (+0), lane 1 = 0xBF80 (f16
    # -1.875) -> min at lane 1
    assert [u32_at(ub, 0x1000), u32_at(ub, 0x1004), u32_at(ub, 0x1008)] == [0, 1, 0xEEEEEEEE]


def test_cmax_cmin_nan_and_signed_zero():
    # lanes 1, NaN_A, 3, NaN_B, 100: both max and min give the first NaN (lane 1, its bits)
    ub = new_ub()
    ub[0:10] = [0x00, 0x3C, 0x01, 0x7E, 0x00, 0x42, 0x00, 0x7E, 0x40, 0x56]
    R.tensor_cmax(ub, 'f16', 0x1000, 0x0)
    assert [u16_at(ub, 0x1000), u16_at(ub, 0x1002)] == [F16_NAN_A, 1]
    R.tensor_cmin(ub, 'f16', 0x1000, 0x0)
    assert [u16_at(ub, 0x1000), u16_at(ub, 0x1002)] == [F16_NAN_A, 1]
    # NaN lanes outside the mask take no part: lanes 0, 2, 4 -> max 100 (0x5640) lane 4
    R.tensor_cmax(ub, 'f16', 0x1000, 0x0, mask=(0b10101, 0))
    assert [u16_at(ub, 0x1000), u16_at(ub, 0x1002)] == [0x5640, 4]
    # lanes 0..2 only: NaN_A at lane 1 is the only NaN -> lane 1
    R.tensor_cmin(ub, 'f16', 0x1000, 0x0, mask=3, order='iv')
    assert [u16_at(ub, 0x1000), u16_at(ub, 0x1002)] == [1, F16_NAN_A]
    # +0 / -0 compare equal: the lowest lane of the two wins, its bits written as they are.
    # f32 lanes -0, +0, then -1 everywhere: max is lane 0 with bits 0x80000000
    ub = new_ub()
    put(ub, 0x0, 'f32', [-0.0, 0.0] + [-1.0] * 62)
    R.tensor_cmax(ub, 'f32', 0x1000, 0x0)
    assert [u32_at(ub, 0x1000), u32_at(ub, 0x1004)] == [0x80000000, 0]
    # lanes +0, -0, then +1: min is lane 0, bits 0
    put(ub, 0x0, 'f32', [0.0, -0.0] + [1.0] * 62)
    R.tensor_cmin(ub, 'f32', 0x1000, 0x0)
    assert [u32_at(ub, 0x1000), u32_at(ub, 0x1004)] == [0, 0]
    # +-inf take part normally: max(-inf, 1, +inf) = +inf at lane 2 (0x7F800000)
    put(ub, 0x0, 'f32', [-math.inf, 1.0, math.inf] + [0.0] * 61)
    R.tensor_cmax(ub, 'f32', 0x1000, 0x0)
    assert [u32_at(ub, 0x1000), u32_at(ub, 0x1004)] == [0x7F800000, 2]


def test_cmax_integers_signed_and_unsigned():
    # the same bits 0xFFFF, 0x0001: as u16 65535 is the max (lane 0), as s16 -1 is the min (lane 0)
    ub = new_ub()
    ub[0:4] = [0xFF, 0xFF, 0x01, 0x00]
    R.tensor_cmax(ub, 'u16', 0x1000, 0x0)
    assert [u16_at(ub, 0x1000), u16_at(ub, 0x1002)] == [0xFFFF, 0]
    R.tensor_cmax(ub, 's16', 0x1000, 0x0)
    assert [u16_at(ub, 0x1000), u16_at(ub, 0x1002)] == [1, 1]
    R.tensor_cmin(ub, 's16', 0x1000, 0x0)
    assert [u16_at(ub, 0x1000), u16_at(ub, 0x1002)] == [0xFFFF, 0]
    R.tensor_cmin(ub, 'u16', 0x1000, 0x0)                        # lanes 2..127 are 0: lane 2
    assert [u16_at(ub, 0x1000), u16_at(ub, 0x1002)] == [0, 2]


def test_cgroup_identity_per_profile():
    # f16: block b = lanes 16b .. 16b+15. Mask: block 0 lanes 0..3 and all of block 2.
    # Block 0 lanes 1, 2, 3, 4 -> tree (1+2)+(3+4) = 10, max 4, min 1;
    # block 2 lanes all 0.5 except lane 40 = -3 -> sum 15 * 0.5 - 3 = 4.5, max 0.5, min -3.
    # Empty blocks: 950 -> 0 / -inf (0xFC00) / +inf (0x7C00); a2 -> untouched.
    vals = [0.0] * 128
    vals[0:4] = [1.0, 2.0, 3.0, 4.0]
    vals[4:16] = [100.0] * 12                                    # masked off
    vals[32:48] = [0.5] * 16
    vals[40] = -3.0
    vals[48:] = [7.0] * 80                                       # masked off
    low = 0xF | (0xFFFF << 32)
    ub = new_ub()
    put(ub, 0x0, 'f16', vals)
    for op, fn, b0, b2, ident in (('sum', R.tensor_cgadd, 10.0, 4.5, 0x0000),
                                  ('max', R.tensor_cgmax, 4.0, 0.5, 0xFC00),
                                  ('min', R.tensor_cgmin, 1.0, -3.0, 0x7C00)):
        put(ub, 0x1000, 'f16', [SENT_F16] * 16)
        fn(ub, 'f16', 0x1000, 0x0, mask=(low, 0))
        got = bits16(ub, 0x1000, 9)
        assert got[0] == R.encode(b0, 'f16') and got[2] == R.encode(b2, 'f16'), op
        assert [got[1], *got[3:8]] == [ident] * 6, op
        assert got[8] == R.encode(SENT_F16, 'f16'), op               # 8 results per iteration
        put(ub, 0x1000, 'f16', [SENT_F16] * 16)
        fn(ub, 'f16', 0x1000, 0x0, mask=(low, 0), profile='a2')
        got = get_list(ub, 0x1000, 'f16', 9)
        assert got == [b0, SENT_F16, b2] + [SENT_F16] * 6, op
    with pytest.raises(ValueError):
        R.tensor_cgadd(ub, 'f16', 0x1000, 0x0, profile='910')
    with pytest.raises(ValueError):
        R.tensor_cgmax(ub, 's16', 0x1000, 0x0)                   # float types only


def test_cgroup_f32_tree_nan_and_advance():
    # f32: 8 lanes per block. Iteration r at dst + r * dst_rep * 32.
    # block 0: 2**24, 1, 1, 1, 1, 0, 0, 0 -> (2**24+1 -> 2**24) + 2 = 2**24 + 2 ... : level 1:
    # 2**24 (tie, even), 2, 1, 0; level 2: 2**24 + 2 = 16777218, 1; level 3: 16777219 -> tie
    # between 16777218 and 16777220 -> even significand: 16777220 (= 2**24 + 4).
    # block 1: NaN at lane 9 (NaN bits 0x7FC00001) -> max = those bits; others 0.
    ub = new_ub()
    put(ub, 0x0, 'f32', [2.0 ** 24, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0] + [0.0] * 56)
    ub[36:40] = [0x01, 0x00, 0xC0, 0x7F]
    put(ub, 0x100, 'f32', [float(k) for k in range(64)])          # iteration 1
    R.tensor_cgadd(ub, 'f32', 0x1000, 0x0, repeat=2, dst_rep=2)
    assert get_list(ub, 0x1000, 'f32', 1) == [2.0 ** 24 + 4]
    assert R._is_nan_bits(u32_at(ub, 0x1004), 'f32')
    # iteration 1 at 0x1000 + 64: block b = 8b .. 8b+7 -> 64b + 28
    assert get_list(ub, 0x1040, 'f32', 8) == [64.0 * b + 28 for b in range(8)]
    assert (ub[0x1020:0x1040] == 0).all()                       # dst_rep 2 leaves a gap
    R.tensor_cgmax(ub, 'f32', 0x1000, 0x0)
    assert u32_at(ub, 0x1004) == 0x7FC00001                      # the NaN lane's own bits
    assert get_list(ub, 0x1000, 'f32', 1) == [2.0 ** 24]
    R.tensor_cgmin(ub, 'f32', 0x1000, 0x0)
    assert get_list(ub, 0x1000, 'f32', 1) == [0.0]


def test_cpadd_pairs_mask_and_advance():
    # f16 lane k = k: pair sums (2k) + (2k+1) = 4k + 1, 64 per iteration, 128 bytes.
    ub = new_ub()
    put(ub, 0x0, 'f16', [float(k) for k in range(128)] + [2048.0, 1.0] + [0.0] * 126)
    put(ub, 0x1000, 'f16', [SENT_F16] * 256)
    R.tensor_cpadd(ub, 'f16', 0x1000, 0x0, repeat=2, dst_rep=2)
    assert get_list(ub, 0x1000, 'f16', 64) == [4.0 * k + 1 for k in range(64)]
    assert get_list(ub, 0x1080, 'f16', 64) == [SENT_F16] * 64    # dst_rep 2: iteration 1 at +256
    # iteration 1: 2048 + 1 -> tie -> 2048; the other pairs 0
    assert get_list(ub, 0x1100, 'f16', 3) == [2048.0, 0.0, 0.0]
    # mask 3: pair 0 = 0 + 1, pair 1 = 2 + (inactive) = 2, pairs 2.. have no active lane: +0
    put(ub, 0x1000, 'f16', [SENT_F16] * 128)
    R.tensor_cpadd(ub, 'f16', 0x1000, 0x0, mask=3)
    assert bits16(ub, 0x1000, 65) == [0x3C00, 0x4000] + [0] * 62 + [R.encode(SENT_F16, 'f16')]
    with pytest.raises(ValueError):
        R.tensor_cpadd(ub, 's32', 0x1000, 0x0)


def test_reduction_errors_write_nothing():
    ub = new_ub(4096)
    put(ub, 0x0, 'f16', [1.0] * 128)
    before = ub.copy()
    with pytest.raises(IndexError):
        R.tensor_cadd(ub, 'f16', 4096 - 32, 0x0, repeat=20, dst_rep=1)   # 4064 + 19*2 + 2 > 4096
    with pytest.raises(IndexError):
        R.tensor_cmax(ub, 'f16', 0x800, 0x0, repeat=20)                  # src 20 * 256 > 4096
    with pytest.raises(IndexError):
        R.tensor_cpadd(ub, 'f16', 4096 - 96, 0x0)                        # 128 bytes from 4000
    with pytest.raises(ValueError):
        R.tensor_cmax(ub, 'f16', 0x800, 0x0, order='xy')
    with pytest.raises(ValueError):
        R.tensor_cadd(ub, 's8', 0x800, 0x0)
    with pytest.raises(ValueError):
        R.tensor_cadd(ub, 'f16', 0x802, 0x0)                             # 32-byte aligned base
    with pytest.raises(ValueError):
        R.tensor_cadd(ub, 'f16', 0x800, 0x0, count=10, mask=3)
    assert (ub == before).all()
    R.tensor_cadd(ub, 'f16', 0x800, 0x0, repeat=0)                       # no operation
    assert (ub == before).all()


def test_vreduce_lanes():
    # f32 lanes 1, 2, 3, 4, 100 with Pm = first 4 lanes: SUM (1+2)+(3+4) = 10 in lane 0
    a = vreg_of('f32', [1.0, 2.0, 3.0, 4.0, 100.0])
    d = R.vreduce('SUM', 'f32', a, R.pset(32, 'VL4'))
    assert lanes_of(d, 'f32')[0] == 10.0 and not d[4:].any()
    # MAX: 4 at lane 3 -> lane 0 = 4.0, lane 1 = u32 3, the rest 0
    d = R.vreduce('max', 'f32', a, R.pset(32, 'VL4'))
    assert lanes_of(d, 'f32')[0] == 4.0 and list(d[4:8]) == [3, 0, 0, 0] and not d[8:].any()
    # MIN over ALL: lanes 5..63 are 0 -> 0 at lane 5
    d = R.vreduce('MIN', 'f32', a, R.pset(32, 'ALL'))
    assert list(d[0:8]) == [0, 0, 0, 0, 5, 0, 0, 0] and not d[8:].any()
    # f16 MAX with ties: lanes 7, 9, 9 -> lane 1 (a 16-bit index in bytes 2..3)
    d = R.vreduce('MAX', 'f16', vreg_of('f16', [7.0, 9.0, 9.0]), R.pset(16, 'VL3'))
    assert bits16(d, 0, 3) == [0x4880, 1, 0]                     # 9.0 = 0x4880
    assert not d[4:].any()
    # s16 SUM is a 32-bit integer: 128 x 300 = 38400 = 0x9600 (no 16-bit wrap)
    d = R.vreduce('SUM', 's16', vreg_of('s16', [300] * 128), R.pset(16, 'ALL'))
    assert list(d[0:4]) == [0x00, 0x96, 0x00, 0x00] and not d[4:].any()
    # s16 -1 x 128 -> -128 as s32 = 0xFFFFFF80 (sign extended); u16 0xFFFF x 128 = 0x7FFF80
    d = R.vreduce('SUM', 's16', vreg_of('s16', [-1] * 128), R.pset(16, 'ALL'))
    assert list(d[0:4]) == [0x80, 0xFF, 0xFF, 0xFF]
    d = R.vreduce('SUM', 'u16', vreg_of('u16', [0xFFFF] * 128), R.pset(16, 'ALL'))
    assert list(d[0:4]) == [0x80, 0xFF, 0x7F, 0x00]
    # s32 SUM wraps in 32 bits: 0x7FFFFFFF + 1 = -2**31
    d = R.vreduce('SUM', 's32', vreg_of('s32', [0x7FFFFFFF, 1]), R.pset(32, 'ALL'))
    assert list(d[0:4]) == [0, 0, 0, 0x80] and not d[4:].any()
    # f32 register tree: [2**24, 0, 1, 1] -> 2**24 + 2 (sequential would give 2**24)
    d = R.vreduce('SUM', 'f32', vreg_of('f32', [2.0 ** 24, 0.0, 1.0, 1.0]), R.pset(32, 'ALL'))
    assert lanes_of(d, 'f32')[0] == 16777218.0
    # inactive lanes take no part: a NaN outside Pm does not win; u16 MAX 0xFFFF outside Pm
    d = R.vreduce('MAX', 'f16', vreg_of('f16', [1.0, math.nan, 2.0]), R.make_mask(2, [True, False, True]))
    assert bits16(d, 0, 2) == [0x4000, 2]
    d = R.vreduce('MAX', 'f16', vreg_of('f16', [1.0, math.nan, 2.0]), R.pset(16, 'ALL'))
    assert R._is_nan_bits(bits16(d, 0, 1)[0], 'f16') and bits16(d, 2, 1) == [1]
    # no active lane: SUM 0, MAX/MIN an all-zero register (choice)
    assert not R.vreduce('SUM', 'f16', vreg_of('f16', [1.0]), R.pset(16, 'ALLF')).any()
    assert not R.vreduce('MIN', 'f16', vreg_of('f16', [1.0]), R.pset(16, 'ALLF')).any()
    with pytest.raises(ValueError):
        R.vreduce('PROD', 'f32', a, R.pset(32, 'ALL'))
    with pytest.raises(ValueError):
        R.vreduce('SUM', 'u8', a, R.pset(8, 'ALL'))


# ---------------------------------------------------------------------------
# section 6.5: bitwise, shifts, fused multiply-add, VBRCB
# ---------------------------------------------------------------------------

def test_bitwise_tensor_and_register():
    ub = new_ub()
    put(ub, 0x0, 'u16', [0xF0F0, 0x1234] * 64)
    put(ub, 0x100, 'u16', [0xFF00, 0x00FF] * 64)
    put(ub, 0x1000, 'u16', [0xEEEE] * 128)
    R.tensor_and(ub, 'u16', 0x1000, 0x0, 0x100, mask=3)
    assert bits16(ub, 0x1000, 4) == [0xF000, 0x0034, 0xF000, 0xEEEE]
    R.tensor_or(ub, 'u16', 0x1000, 0x0, 0x100)
    assert bits16(ub, 0x1000, 2) == [0xFFF0, 0x12FF]
    R.tensor_xor(ub, 's16', 0x1000, 0x0, 0x100)
    assert bits16(ub, 0x1000, 2) == [0x0FF0, 0x12CB]
    R.tensor_not(ub, 'u16', 0x1000, 0x0, count=1)
    assert bits16(ub, 0x1000, 2) == [0x0F0F, 0x12CB]
    # u32: ~0x0000FFFF = 0xFFFF0000; register lanes outside Pm zero
    d = R.vnot('u32', vreg_of('u32', [0x0000FFFF, 5]), R.pset(32, 'VL1'))
    assert lanes_of(d, 'u32')[:2] == [0xFFFF0000, 0]
    d = R.vxor('s32', vreg_of('s32', [-1, 6]), vreg_of('s32', [0x0F, 3]), R.pset(32, 'VL2'))
    assert lanes_of(d, 's32')[:3] == [-16, 5, 0]
    d = R.vbitwise('and', 'u16', vreg_of('u16', [0xABCD]), vreg_of('u16', [0x0FF0]), R.pset(16, 'ALL'))
    assert lanes_of(d, 'u16')[:2] == [0x0BC0, 0]
    for bad in ('f16', 's8', 'f32'):
        with pytest.raises(ValueError):
            R.tensor_and(ub, bad, 0x1000, 0x0, 0x100)
        with pytest.raises(ValueError):
            R.vnot(bad, vreg_of('u8', [0]), R.pset(8, 'ALL'))


def test_shift_counts_at_and_past_width():
    s = R.lane_shift
    # u16 0x8001: shl 1 = 0x0002, shl 15 = 0x8000, shl 16 / 17 = 0; shr 1 = 0x4000, shr 15 = 1,
    # shr 16 = 0 (logical)
    assert [s('shl', 'u16', 0x8001, n) for n in (0, 1, 15, 16, 17)] == [0x8001, 0x0002, 0x8000, 0, 0]
    assert [s('shr', 'u16', 0x8001, n) for n in (1, 15, 16, 40)] == [0x4000, 1, 0, 0]
    # s16 0x8001 = -32767 arithmetic: >> 1 = -16384 = 0xC000, >> 15 = -1, >> 16 and more: -1
    assert [s('shr', 's16', 0x8001, n) for n in (1, 15, 16, 100)] == [0xC000, 0xFFFF, 0xFFFF, 0xFFFF]
    # s16 0x4001 >> 14 = 1, >> 15 and >> 16 = 0
    assert [s('shr', 's16', 0x4001, n) for n in (14, 15, 16)] == [1, 0, 0]
    # 32 bits: s32 0x80000000 >> 31 = -1, >> 32 = -1; u32 >> 31 = 1, >> 32 = 0; shl 32 = 0
    assert s('shr', 's32', 0x80000000, 31) == 0xFFFFFFFF
    assert s('shr', 's32', 0x80000000, 32) == 0xFFFFFFFF
    assert s('shr', 'u32', 0x80000000, 31) == 1
    assert s('shr', 'u32', 0x80000000, 32) == 0
    assert s('shl', 'u32', 1, 31) == 0x80000000 and s('shl', 'u32', 1, 32) == 0
    # the register VSHL of a signed type is a plain shift: 0xAAAA << 1 = 0x5554
    assert s('shl', 's16', 0xAAAA, 1) == 0x5554
    assert s('shl', 's32', 0xFFFFFFFF, 32) == 0
    # a negative scalar count reads as a huge unsigned 32-bit value (choice)
    assert R.shift_count(-1) == 0xFFFFFFFF
    d = R.vshift('shr', 's16', vreg_of('s16', [-5, 5]), -1, R.pset(16, 'VL2'))
    assert lanes_of(d, 's16')[:3] == [-1, 0, 0]
    d = R.vshift('shl', 'u32', vreg_of('u32', [3]), -1, R.pset(32, 'ALL'))
    assert lanes_of(d, 'u32')[0] == 0


def test_tensor_shl_signed_keeps_sign_bit():
    # doc example 0b1010...1010 << 1 = 0b1101...0100: 0xAAAA: (0xAAAA << 1) & 0x7FFF = 0x5554,
    # | sign 0x8000 = 0xD554. 0x2AAA << 2 = 0xAAA8 -> & 0x7FFF = 0x2AA8, sign 0.
    # count 16: the shifted bits are all 0, the sign bit stays: 0xAAAA -> 0x8000, 0x2AAA -> 0 (choice)
    ub = new_ub()
    put(ub, 0x0, 'u16', [0xAAAA, 0x2AAA, 0xFFFF, 0x0001])
    for n, want in ((1, [0xD554, 0x5554, 0xFFFE, 0x0002]),
                    (2, [0xAAA8, 0x2AA8, 0xFFFC, 0x0004]),
                    (15, [0x8000, 0x0000, 0x8000, 0x0000]),
                    (16, [0x8000, 0x0000, 0x8000, 0x0000])):
        R.tensor_shift(ub, 'shl', 's16', 0x1000, 0x0, n, mask=4)
        assert bits16(ub, 0x1000, 4) == want, n
    # an unsigned tensor VSHL is plain: 0xAAAA << 1 = 0x5554
    R.tensor_shift(ub, 'shl', 'u16', 0x1000, 0x0, 1, mask=1)
    assert bits16(ub, 0x1000, 1) == [0x5554]
    # s32: 0x80000001 << 1 -> (0x00000002) | sign = 0x80000002
    put(ub, 0x100, 'u32', [0x80000001, 0x40000000])
    R.tensor_shift(ub, 'shl', 's32', 0x1100, 0x100, 1, count=2)
    assert get_list(ub, 0x1100, 'u32', 2) == [0x80000002, 0x00000000]
    # tensor VSHR with counter mode and strides: s16 -8 >> 2 = -2
    put(ub, 0x200, 's16', [-8] * 128)
    R.tensor_shift(ub, 'shr', 's16', 0x1200, 0x200, 2, count=3)
    assert get_list(ub, 0x1200, 's16', 4) == [-2, -2, -2, 0]
    # register with a per-lane count vector: u16 1 << [1, 2, 3, 16] = [2, 4, 8, 0]
    d = R.vshift('shl', 'u16', vreg_of('u16', [1, 1, 1, 1]), vreg_of('u16', [1, 2, 3, 16]), R.pset(16, 'VL4'))
    assert lanes_of(d, 'u16')[:5] == [2, 4, 8, 0, 0]
    # per-lane count of s16 -1 reads as 65535: arithmetic -> all sign bits
    d = R.vshift('shr', 's16', vreg_of('s16', [-4, 4]), vreg_of('s16', [-1, -1]), R.pset(16, 'ALL'))
    assert lanes_of(d, 's16')[:2] == [-1, 0]
    with pytest.raises(ValueError):
        R.tensor_shift(ub, 'rol', 's16', 0x1000, 0x0, 1)
    with pytest.raises(ValueError):
        R.tensor_shift(ub, 'shl', 'f16', 0x1000, 0x0, 1)


def test_fma_rounds_once():
    # f32 a = b = 1 + 2**-12: a*b = 1 + 2**-11 + 2**-24, which is a tie between 1 + 2**-11 and
    # 1 + 2**-11 + 2**-23 -> even -> 1 + 2**-11. c = -(1 + 2**-11): two steps give +0,
    # fused gives 2**-24 = 0x33800000.
    a = f32b(1 + 2 ** -12)
    c = f32b(-(1 + 2 ** -11))
    assert R.fma_bits('f32', a, a, c) == 0x33800000
    # f16 a = 1 + 2**-6: a*a = 1 + 2**-5 + 2**-12 -> (2**-12 < half ulp 2**-11) 1 + 2**-5;
    # c = -(1 + 2**-5): fused 2**-12 = f16 exponent 3 -> 0x0C00
    assert R.fma_bits('f16', f16b(1 + 2 ** -6), f16b(1 + 2 ** -6), f16b(-(1 + 2 ** -5))) == 0x0C00
    # bf16 a = 1 + 2**-4 (0x3F88): a*a = 1 + 2**-3 + 2**-8, c = -(1 + 2**-3) (0xBF90): 2**-8 = 0x3B80
    assert R.fma_bits('bf16', 0x3F88, 0x3F88, 0xBF90) == 0x3B80
    # specials: 0 * inf = NaN; inf + -inf = NaN; -0 * 1 + -0 = -0; +0 * -1 + +0 = +0;
    # 1 * 1 + inf = inf; overflow: 65504 * 2 + 0 = inf in f16
    assert R._is_nan_bits(R.fma_bits('f32', 0x7F800000, 0, 0), 'f32')
    assert R._is_nan_bits(R.fma_bits('f32', 0x7F800000, f32b(1.0), 0xFF800000), 'f32')
    assert R.fma_bits('f32', 0x80000000, f32b(1.0), 0x80000000) == 0x80000000
    assert R.fma_bits('f32', 0x00000000, f32b(-1.0), 0x00000000) == 0x00000000
    assert R.fma_bits('f32', f32b(1.0), f32b(1.0), 0x7F800000) == 0x7F800000
    assert R.fma_bits('f16', f16b(65504.0), f16b(2.0), 0) == 0x7C00
    # 2 * 3 - 6 = exact zero: +0
    assert R.fma_bits('f16', f16b(2.0), f16b(3.0), f16b(-6.0)) == 0x0000


def test_fma_tensor_and_register_forms():
    a = 1 + 2 ** -12
    c = -(1 + 2 ** -11)
    tiny = 2.0 ** -24
    ub = new_ub()
    # VAXPY: dst = src * s + dst
    put(ub, 0x0, 'f32', [a, 2.0])
    put(ub, 0x1000, 'f32', [c, 1.0, SENT_F16])
    R.tensor_axpy(ub, 'f32', 0x1000, 0x0, f32b(a), mask=2)
    assert get_list(ub, 0x1000, 'f32', 3) == [tiny, 2 * a + 1, SENT_F16]
    # 2a + 1 = 3 + 2**-11 is exact in f32
    # VMLA: dst = src0 * src1 + dst
    put(ub, 0x100, 'f32', [a, 3.0])
    put(ub, 0x1000, 'f32', [c, 1.0])
    R.tensor_mla(ub, 'f32', 0x1000, 0x0, 0x100, mask=2)
    assert get_list(ub, 0x1000, 'f32', 2) == [tiny, 7.0]           # 2 * 3 + 1
    # VMADD: dst = src0 * dst + src1
    put(ub, 0x100, 'f32', [c, 3.0])
    put(ub, 0x1000, 'f32', [a, 5.0])
    R.tensor_madd(ub, 'f32', 0x1000, 0x0, 0x100, mask=2)
    assert get_list(ub, 0x1000, 'f32', 2) == [tiny, 13.0]          # 2 * 5 + 3
    # the dst operand is read with its own strides: dst_blk 2 reads and writes block 1 at +64
    put(ub, 0x2000, 'f16', [SENT_F16] * 128)
    put(ub, 0x2040, 'f16', [1.0] * 16)
    put(ub, 0x0, 'f16', [float(k) for k in range(128)])
    R.tensor_axpy(ub, 'f16', 0x2000, 0x0, f16b(2.0), dst_blk=2, mask=(0xFFFF << 16, 0))
    # lanes 16..31 (block 1, at 0x2040): 2 * k + 1
    assert get_list(ub, 0x2040, 'f16', 16) == [2.0 * k + 1 for k in range(16, 32)]
    assert get_list(ub, 0x2000, 'f16', 32) == [SENT_F16] * 32
    # register forms: lanes outside Pm are zero
    pm = R.pset(32, 'VL1')
    va = vreg_of('f32', [a, 2.0])
    d = R.vaxpy('f32', va, f32b(a), vreg_of('f32', [c, 1.0]), pm)
    assert lanes_of(d, 'f32')[:2] == [tiny, 0.0]
    d = R.vmla('f32', va, va, vreg_of('f32', [c, 1.0]), R.pset(32, 'VL2'))
    assert lanes_of(d, 'f32')[:3] == [tiny, 5.0, 0.0]
    # vmadd: d = a * d + b
    d = R.vmadd('f32', va, vreg_of('f32', [c, 3.0]), vreg_of('f32', [a, 5.0]), R.pset(32, 'VL2'))
    assert lanes_of(d, 'f32')[:3] == [tiny, 13.0, 0.0]
    with pytest.raises(ValueError):
        R.tensor_mla(ub, 's16', 0x1000, 0x0, 0x100)
    with pytest.raises(ValueError):
        R.vaxpy('s32', va, 1, va, pm)


def test_brcb_layout():
    # u16 src elements 1..16: iteration r reads elements 8r .. 8r+7 (at src + 16 r).
    # default strides (dst_blk 1, dst_rep 8): block j of iteration r at dst + 256 r + 32 j
    # holds 16 copies of element 8r + j + 1.
    ub = new_ub()
    put(ub, 0x0, 'u16', list(range(1, 17)))
    put(ub, 0x1000, 'u16', [0xEEEE] * 512)
    R.tensor_brcb(ub, 'u16', 0x1000, 0x0, repeat=2)
    got = get_list(ub, 0x1000, 'u16', 512)
    assert got[:256] == [v for v in range(1, 17) for _ in range(16)]
    assert got[256:] == [0xEEEE] * 256
    # dst_blk 2, dst_rep 1: iteration 0 block j at 64 j, iteration 1 block j at 32 + 64 j:
    # interleaved 1, 9, 2, 10, ...
    put(ub, 0x1000, 'u16', [0xEEEE] * 512)
    R.tensor_brcb(ub, 'u16', 0x1000, 0x0, repeat=2, dst_blk=2, dst_rep=1)
    got = get_list(ub, 0x1000, 'u16', 512)
    order = [x for j in range(8) for x in (j + 1, j + 9)]
    assert got[:256] == [v for v in order for _ in range(16)]
    assert got[256:] == [0xEEEE] * 256
    # f32: 8 copies per block, bits kept (a NaN payload survives)
    ub[0x100:0x104] = [0x01, 0x00, 0xC0, 0x7F]
    put(ub, 0x104, 'f32', [float(k) for k in range(1, 8)])
    R.tensor_brcb(ub, 'f32', 0x1000, 0x100)
    assert all(u32_at(ub, 0x1000 + 4 * k) == 0x7FC00001 for k in range(8))
    assert get_list(ub, 0x1020, 'f32', 56) == [float(j) for j in range(1, 8) for _ in range(8)]
    with pytest.raises(ValueError):
        R.tensor_brcb(ub, 'u16', 0x1000, 0x0, dst_blk=0)
    with pytest.raises(ValueError):
        R.tensor_brcb(ub, 's8', 0x1000, 0x0)
    small = new_ub(1024)
    before = small.copy()
    with pytest.raises(IndexError):
        R.tensor_brcb(small, 'u16', 0x0, 0x0, repeat=5)          # 4 x 256 B fit, the 5th does not
    assert (small == before).all()
    assert (small == before).all()
    R.tensor_brcb(small, 'u16', 0x0, 0x0, repeat=4)
    assert get_list(small, 0x3E0, 'u16', 16) == [0] * 16         # element 31 of a zero UB
    small[0:2] = [7, 0]
    R.tensor_brcb(small, 'u16', 0x20, 0x0, repeat=1)              # element 0 = 7 into block 0
    assert get_list(small, 0x20, 'u16', 17) == [7] * 16 + [0]
