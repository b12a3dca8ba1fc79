"""Golden tests from the seed documents (shared/seeds/), expected values worked out by hand or with
plain numpy from what the documents say, never from the emulator. The tensor examples run on both
profiles, the register ones (in a vector function) on the 950.
"""

from __future__ import annotations

import math

import emu_support as E
import numpy as np
import pytest

PROFILES = ["950", "a2"]
# Register instructions run on the 950 only, inside vector functions: a2 has neither and refuses
# them (tests/cli/test_a2_refuses_registers.py).
F16 = np.float16
F32 = np.float32


def machine(text: str, profile: str, writes=()):
    from vcore.assembler import assemble
    from vcore.emulator import Machine

    m = Machine(assemble(text), profile=profile)
    for addr, data in writes:
        m.write("ub", addr, data)
    return m


def run(text: str, profile: str, writes=()):
    m = machine(text, profile, writes)
    r = m.run()
    assert r.fault is None, f"{text}\n{r.fault}"
    return m


def f16_bits(a) -> np.ndarray:
    return np.asarray(a, dtype=F16).view(np.uint16)


SENTINEL = F16(-7.25)  # a value no computation below produces


# -- seed 000: repeat, strides, masks -----------------------------------------------------------

@pytest.mark.parametrize("profile", PROFILES)
def test_exp_two_iterations_of_f16(profile):
    # "repeatTime = 2: 2 * 8 datablocks * 32 bytes = 512 bytes of results; 256 halves"
    x = (np.arange(256, dtype=np.float64) - 128) / 16          # -8 .. 7.9375, exact in f16
    src = x.astype(F16)
    m = run("VEXP.f16 [0x400], [0x0], repeat=2", profile,
            [(0x0, src), (0x400, np.full(300, SENTINEL, dtype=F16))])
    got = m.read("ub", 0x400, "f16", 256)
    want = np.array([math.exp(v) for v in x]).astype(F16)     # exp in double, rounded once
    assert not E.mem_mismatches(got.view(np.uint8), want.view(np.uint8), "f16", ulp=2)
    assert got[128] != SENTINEL and got[255] != SENTINEL       # the second iteration ran
    assert (m.read("ub", 0x600, "f16", 44) == SENTINEL).all()  # nothing past 512 bytes
    assert got[128] == F16(1.0)                                 # exp(0) exactly


@pytest.mark.parametrize("profile", PROFILES)
def test_exp_one_iteration_stops_after_256_bytes(profile):
    src = np.zeros(256, dtype=F16)
    m = run("VEXP.f16 [0x400], [0x0]", profile, [(0x0, src), (0x400, np.full(256, SENTINEL, dtype=F16))])
    assert (m.read("ub", 0x400, "f16", 128) == F16(1.0)).all()
    assert (m.read("ub", 0x500, "f16", 128) == SENTINEL).all()


@pytest.mark.parametrize("profile", PROFILES)
def test_data_block_stride_2(profile):
    # source dataBlockStride 2: the 8 blocks of one iteration are every other datablock
    src = -np.arange(256, dtype=F16)                            # 16 blocks of 16 halves
    m = run("VABS.f16 [0x1000], [0x0], srcblk=2", profile, [(0x0, src)])
    got = m.read("ub", 0x1000, "f16", 128)
    want = np.concatenate([np.arange(32 * b, 32 * b + 16) for b in range(8)]).astype(F16)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("profile", PROFILES)
def test_data_block_stride_2_on_destination(profile):
    a = np.arange(128, dtype=F32)                               # 16 blocks of 8 floats; 8 are read
    b = np.full(128, 0.5, dtype=F32)
    m = run("VADD.f32 [0x1000], [0x0], [0x800], dstblk=2", profile,
            [(0x0, a), (0x800, b), (0x1000, np.full(128, -1.0, dtype=F32))])
    got = m.read("ub", 0x1000, "f32", 128).reshape(16, 8)
    for blk in range(8):
        np.testing.assert_array_equal(got[2 * blk], a[8 * blk:8 * blk + 8] + F32(0.5))
        np.testing.assert_array_equal(got[2 * blk + 1], np.full(8, -1.0, dtype=F32))


@pytest.mark.parametrize("profile", PROFILES)
def test_repeat_stride_9(profile):
    # src and dst repeatStride 9: iteration 1 starts 9 datablocks after iteration 0 (one gap block)
    a = np.arange(17 * 8, dtype=F32)                            # 17 blocks of 8 floats
    b = np.full(17 * 8, 100.0, dtype=F32)
    m = run("VADD.f32 [0x2000], [0x0], [0x1000], repeat=2, dstrep=9, src0rep=9, src1rep=9", profile,
            [(0x0, a), (0x1000, b), (0x2000, np.full(17 * 8, -1.0, dtype=F32))])
    got = m.read("ub", 0x2000, "f32", 17 * 8).reshape(17, 8)
    want = (a + F32(100.0)).reshape(17, 8)
    np.testing.assert_array_equal(got[0:8], want[0:8])
    np.testing.assert_array_equal(got[8], np.full(8, -1.0, dtype=F32))  # the gap block
    np.testing.assert_array_equal(got[9:17], want[9:17])


@pytest.mark.parametrize("profile", PROFILES)
def test_repeat_stride_0_rereads_the_first_8_blocks(profile):
    src = np.arange(128, dtype=np.int16) - 64
    m = run("VADDS.s16 [0x1000], [0x0], 1000, repeat=3, srcrep=0", profile, [(0x0, src)])
    got = m.read("ub", 0x1000, "s16", 3 * 128).reshape(3, 128)
    for r in range(3):
        np.testing.assert_array_equal(got[r], src + 1000)


@pytest.mark.parametrize("profile", PROFILES)
def test_repeat_stride_0_on_destination_last_iteration_wins(profile):
    src = np.arange(3 * 128, dtype=np.int16)
    m = run("VADDS.s16 [0x1000], [0x0], 1, repeat=3, dstrep=0", profile,
            [(0x0, src), (0x1100, np.full(128, -5, dtype=np.int16))])
    np.testing.assert_array_equal(m.read("ub", 0x1000, "s16", 128), src[256:384] + 1)
    assert (m.read("ub", 0x1100, "s16", 128) == -5).all()


@pytest.mark.parametrize("profile", PROFILES)
def test_in_place_repeat_stride_8(profile):
    # one tensor as source and destination, repeatStride 8: the iterations walk through it
    x = (np.arange(4 * 128 + 16) % 50).astype(F16)
    m = run("VMULS.f16 [0x0], [0x0], 2.0, repeat=4", profile, [(0x0, x)])
    got = m.read("ub", 0x0, "f16", 4 * 128 + 16)
    np.testing.assert_array_equal(got[:512], x[:512] * F16(2))
    np.testing.assert_array_equal(got[512:], x[512:])


@pytest.mark.parametrize("profile", PROFILES)
def test_in_place_binary(profile):
    x = np.arange(256, dtype=np.int32) * 3
    y = np.arange(256, dtype=np.int32)
    m = run("VSUB.s32 [0x0], [0x0], [0x400], repeat=4", profile, [(0x0, x), (0x400, y)])
    np.testing.assert_array_equal(m.read("ub", 0x0, "s32", 256), y * 2)


@pytest.mark.parametrize("profile", PROFILES)
def test_continuous_mask(profile):
    # continuous mode: the first N elements of every iteration; the rest of dst keeps its bytes
    a = np.arange(256, dtype=F16)
    b = np.ones(256, dtype=F16)
    m = run("VADD.f16 [0x2000], [0x0], [0x1000], repeat=2, mask=70", profile,
            [(0x0, a), (0x1000, b), (0x2000, np.full(256, SENTINEL, dtype=F16))])
    got = m.read("ub", 0x2000, "f16", 256).reshape(2, 128)
    for r in range(2):
        np.testing.assert_array_equal(got[r, :70], a[128 * r:128 * r + 70] + F16(1))
        assert (got[r, 70:] == SENTINEL).all()


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("n", [1, 63, 64])
def test_continuous_mask_f32(profile, n):
    a = np.arange(64, dtype=F32)
    m = run(f"VABS.f32 [0x1000], [0x0], mask={n}", profile,
            [(0x0, -a), (0x1000, np.full(64, 9.0, dtype=F32))])
    got = m.read("ub", 0x1000, "f32", 64)
    np.testing.assert_array_equal(got[:n], a[:n])
    assert (got[n:] == 9.0).all()


@pytest.mark.parametrize("profile", PROFILES)
def test_bit_mask_5555_f16_both_words(profile):
    # mask = {6148914691236517205, 6148914691236517205} = 0b0101...01: even lanes of all 128
    assert 6148914691236517205 == 0x5555555555555555
    a = np.arange(128, dtype=F16)
    m = run("VABS.f16 [0x1000], [0x0], mask=(6148914691236517205, 6148914691236517205)", profile,
            [(0x0, -a), (0x1000, np.full(128, SENTINEL, dtype=F16))])
    got = m.read("ub", 0x1000, "f16", 128)
    np.testing.assert_array_equal(got[0::2], a[0::2])
    assert (got[1::2] == SENTINEL).all()


@pytest.mark.parametrize("profile", PROFILES)
def test_bit_mask_5555_f32_low_word(profile):
    # mask = {6148914691236517205, 0} for float: even lanes of 64
    a = np.arange(1, 65, dtype=F32)
    m = run("VABS.f32 [0x1000], [0x0], mask=(0x5555555555555555, 0)", profile,
            [(0x0, -a), (0x1000, np.full(64, 3.5, dtype=F32))])
    got = m.read("ub", 0x1000, "f32", 64)
    np.testing.assert_array_equal(got[0::2], a[0::2])
    assert (got[1::2] == 3.5).all()


@pytest.mark.parametrize("profile", PROFILES)
def test_bit_mask_high_word_only(profile):
    # bit i of HIGH is lane 64 + i
    a = np.arange(128, dtype=np.int16)
    m = run("VRELU.s16 [0x1000], [0x0], mask=(0, 0x8000000000000001)", profile,
            [(0x0, a), (0x1000, np.full(128, -1, dtype=np.int16))])
    got = m.read("ub", 0x1000, "s16", 128)
    want = np.full(128, -1, dtype=np.int16)
    want[64], want[127] = 64, 127
    np.testing.assert_array_equal(got, want)


# -- seed 001: asc_sub ------------------------------------------------------------------------
# Register instructions run inside a vector function (CONTRACT 7); the seed's scalar loop around
# them becomes a hardware loop, and its S registers (post=, PUPDATE) are the function's own copy.

ASC_SUB_BEFORE = """
.equ COUNT, 1000
MOV S1, 0x0000          ; src0_addr
MOV S2, 0x1000          ; src1_addr
MOV S3, 0x2000          ; dst_addr
MOV S4, COUNT           ; count
"""
ASC_SUB_LOOP = """
LOOP (COUNT + 127) / 128
PUPDATE.b16 P0, S4      ; mask = asc_update_mask_b16(count)
VLD.f16 V0, [S1], post=128
VLD.f16 V1, [S2], post=128
VSUB.f16 V2, V0, V1, P0
VST.f16 [S3], V2, P0, post=128
ENDLOOP
"""


def run_vf(body: str, writes=(), before: str = "", **dumps):
    """``body`` as one function on the 950 (``emu_support.run_function``); the run must not fault."""
    m, r, regs = E.run_function(body, writes=writes, before=before, **dumps)
    assert r.fault is None, f"{body}\n{r.fault}"
    return m, regs


def test_asc_sub_loop_1000_halves():
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(1024) * 100).astype(F16)
    b = (rng.standard_normal(1024) * 100).astype(F16)
    a[:4] = [F16(1.0), F16(-0.0), F16(np.inf), F16(65504)]
    b[:4] = [F16(1.0), F16(0.0), F16(np.inf), F16(-65504)]
    m, regs = run_vf(ASC_SUB_LOOP, [(0x0, a), (0x1000, b), (0x2000, np.full(1100, SENTINEL, dtype=F16))],
                     before=ASC_SUB_BEFORE, dump_s=[1, 2, 3, 4])
    got = m.read("ub", 0x2000, "f16", 1100)
    with np.errstate(all="ignore"):
        want = (a[:1000].astype(np.float64) - b[:1000].astype(np.float64)).astype(F16)  # exact, rounded once
    assert not E.mem_mismatches(got[:1000].view(np.uint8), want.view(np.uint8), "f16")
    assert got[0] == 0 and not np.signbit(got[0])       # 1 - 1 = +0
    assert np.isnan(got[2])                              # inf - inf
    assert np.isinf(got[3]) and got[3] > 0               # 65504 + 65504 overflows
    assert (got[1000:] == SENTINEL).all()                # lanes past COUNT were not stored
    # inside the function, after 8 iterations: PUPDATE counted S4 down, post= moved the pointers
    s = regs.s
    assert s[4] == 0
    assert s[1] == 8 * 256 and s[2] == 0x1000 + 8 * 256 and s[3] == 0x2000 + 8 * 256
    # the scalar unit's registers: as before VF.BEGIN
    assert m.s[1:5] == [0x0, 0x1000, 0x2000, 1000]


def test_sub_carry_u32():
    # {carry, dst} = {0, src0} + {0, ~src1} + 1: carry = 1 where src0 >= src1 (no borrow)
    a = np.array([5, 3, 0xFFFFFFFF, 0, 7, 0x80000000, 1, 2] + [9] * 56, dtype=np.uint32)
    b = np.array([3, 5, 1, 0, 7, 0x7FFFFFFF, 2, 1] + [1] * 56, dtype=np.uint32)
    body = "\n".join([
        "PSET.b32 P0, VL8",
        "PSET.b32 P2, ALL          ; stale carry bits must be overwritten",
        "VLD.u32 V0, [S1]", "VLD.u32 V1, [S2]",
        "VSUB.u32 V2, V0, V1, P0, carry=P2",
        "VSUB.u32 V3, V0, V1, P0",
        "VST.u32 [S3], V2, P0",
    ])
    m, regs = run_vf(body, [(0x0, a), (0x100, b)], before="MOV S1, 0x0\nMOV S2, 0x100\nMOV S3, 0x200",
                     dump_v=[2, 3], dump_p=[2])
    d = np.array([2, 0xFFFFFFFE, 0xFFFFFFFE, 0, 0, 1, 0xFFFFFFFF, 1], dtype=np.uint32)
    carry = [1, 0, 1, 1, 1, 1, 0, 1]
    v2 = regs.v[2].view(np.uint32)
    np.testing.assert_array_equal(v2[:8], d)
    assert (v2[8:] == 0).all()                       # masked-off lanes are zero
    np.testing.assert_array_equal(regs.v[3].view(np.uint32), v2)
    want_p = np.zeros(256, dtype=bool)
    for lane, c in enumerate(carry):
        want_p[4 * lane:4 * lane + 4] = bool(c)      # all 4 bits of a 32-bit lane
    np.testing.assert_array_equal(regs.p[2], want_p)
    np.testing.assert_array_equal(m.read("ub", 0x200, "u32", 8), d)


# -- seed 002: asc_gather ---------------------------------------------------------------------

def test_ub_gather_s8_zero_extends():
    # "src int8 -40 (0b11011000) -> 0b0000000011011000 = 216; 40 stays 40"
    base = E.UB_SIZE["950"] - 0x1000
    src = np.array([40, -40, 127, -128, -1, 0, 1, 2], dtype=np.int8)
    idx = np.zeros(128, dtype=np.uint16)
    idx[:6] = [1, 0, 3, 2, 4, 7]
    idx[6:] = 0xFFFF          # masked off: out of UB (base + 0xFFFF > end), must not be read
    body = "\n".join(["PSET.b16 P1, VL4", "VLD.u16 V5, [S2]", "VGATHER.s8 V0, [S1], V5, P1"])
    _m, regs = run_vf(body, [(base, src), (0x100, idx)], before=f"MOV S1, 0x{base:x}\nMOV S2, 0x100",
                      dump_v=[0])
    got = regs.v[0].view(np.uint16)
    np.testing.assert_array_equal(got[:4], [216, 40, 128, 127])
    assert (got[4:] == 0).all()


@pytest.mark.parametrize("t,raw,want", [
    ("u8", [200, 7], [7, 200]),
    ("s8", [-40, 40], [40, 216]),
    ("e4m3", [0x38, 0xB8], [0xB8, 0x38]),    # 1.0 and -1.0 in e4m3fn: bits, zero-extended
    ("s16", [-2, 5], [5, 0xFFFE]),
])
def test_ub_gather_types(t, raw, want):
    dtype = {"u8": np.uint8, "s8": np.int8, "e4m3": np.uint8, "s16": np.int16}[t]
    idx = np.zeros(128, dtype=np.uint16)
    idx[:2] = [1, 0]
    body = "\n".join(["PSET.b16 P0, VL2", "VLD.u16 V5, [S2]", f"VGATHER.{t} V0, [S1], V5, P0"])
    _m, regs = run_vf(body, [(0x200, np.array(raw, dtype=dtype)), (0x100, idx)],
                      before="MOV S1, 0x200\nMOV S2, 0x100", dump_v=[0])
    got = regs.v[0].view(np.uint16)
    np.testing.assert_array_equal(got[:2], want)
    assert (got[2:] == 0).all()


def test_ub_gather_f32():
    data = np.arange(1000, dtype=F32) * F32(0.25)
    idx = (np.arange(64, dtype=np.uint32) * 15) % 1000
    body = "\n".join(["PSET.b32 P0, ALL", "VLD.u32 V5, [S2]", "VGATHER.f32 V0, [S1], V5, P0"])
    _m, regs = run_vf(body, [(0x1000, data), (0x100, idx)], before="MOV S1, 0x1000\nMOV S2, 0x100", dump_v=[0])
    np.testing.assert_array_equal(regs.v[0].view(F32), data[idx])


def test_register_gather_wraps_index():
    # "index i past the register's element count becomes i % vl_length"
    src = np.arange(128, dtype=F16) * F16(1.5)
    idx = np.array([130, 0, 255, 127, 128, 383, 1, 65535] * 16, dtype=np.uint16)
    body = "\n".join(["VLD.f16 V1, [S1]", "VLD.u16 V2, [S2]", "VGATHER.f16 V0, V1, V2"])
    _m, regs = run_vf(body, [(0x0, src), (0x100, idx)], before="MOV S1, 0x0\nMOV S2, 0x100", dump_v=[0])
    np.testing.assert_array_equal(regs.v[0].view(F16), src[idx.astype(np.int64) % 128])


def test_register_gather_u32():
    src = np.arange(64, dtype=np.uint32) + 1000
    idx = np.array([64, 65, 0, 63, 0xFFFFFFFF, 7, 128, 3] * 8, dtype=np.uint32)
    body = "\n".join(["VLD.u32 V1, [S1]", "VLD.u32 V2, [S2]", "VGATHER.u32 V0, V1, V2"])
    _m, regs = run_vf(body, [(0x0, src), (0x100, idx)], before="MOV S1, 0x0\nMOV S2, 0x100", dump_v=[0])
    np.testing.assert_array_equal(regs.v[0].view(np.uint32), src[idx.astype(np.int64) % 64])


@pytest.mark.parametrize("profile", PROFILES)
def test_data_directives_and_counter_mode(profile):
    # .ub directives place data before the run; count=N processes N elements over ceil(N/lanes)
    # iterations, the last one partial
    values = ", ".join(str(v) for v in range(1, 71))
    text = f""".ub 0x0, s32, {values}
.ubfill 0x1000, s32, 80, -1
VADDS.s32 [0x1000], [0x0], 10, count=70
"""
    m = run(text, profile)
    got = m.read("ub", 0x1000, "s32", 80)
    np.testing.assert_array_equal(got[:70], np.arange(11, 81))
    assert (got[70:] == -1).all()
