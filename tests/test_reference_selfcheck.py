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
    m = R.pset(16, 'M3')                   # 126 lanes of 2 bits
    assert list(m) == [True] * 252 + [False] * 4
    m = R.pset(32, 'Q')                    # 16 lanes of 4 bits
    assert list(m) == [True] * 64 + [False] * 192
    assert count_bits(R.pset(32, 'VL128')) == 256     # only 64 lanes: all
    assert count_bits(R.pset(8, 'H')) == 128
    assert count_bits(R.pset(8, 'M3')) == 255
    assert count_bits(R.pset(32, 'M3')) == 252        # 63 lanes
    assert count_bits(R.pset(16, 'M4')) == 256
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
