"""VHIST (CONTRACT 13.6, "950: histogram for radix top-k"), the in-place rule of 13.12 for VINTLV,
VDINTLV, VPACK, VUNPACK and VHIST, and the saturating conversion (13.12, ``VCONV.D.S ..., sat``), each
against values worked out by hand from the contract (the random comparisons of VINTLV, VDINTLV, VPACK
and VUNPACK with the independent reference are in test_part3_reference.py).

Registers are set from UB (``VLD.u8``, ``PLD``) and stored back with ``VST.u8`` under an all-lanes b8
mask, inside one vector function on the 950 profile.
"""

from __future__ import annotations

import numpy as np
import pytest

import vcore
from tests import reference as R
from vcore.emulator import ProgramError

IN_V, IN_P, OUT_V = 0x0000, 0x2000, 0x4000


def run_function(body: str, v: dict, p: dict | None = None, dump=()) -> dict:
    """``body`` in a vector function, V registers loaded from ``v`` (k -> 256 bytes) and P from ``p``
    (k -> 256 bools); returns {k: the 256 bytes of Vk} for k in ``dump``."""
    p = p or {}
    lines = [f"VLD.u8 V{k}, [0x{IN_V + 256 * k:x}]" for k in v]
    lines += [f"PLD P{k}, [0x{IN_P + 32 * k:x}]" for k in p]
    lines += [body, "PSET.b8 P7, ALL"] + [f"VST.u8 [0x{OUT_V + 256 * k:x}], V{k}, P7" for k in dump]
    text = "VF.BEGIN\n" + "\n".join(lines) + "\nVF.END\nHALT\n"
    m = vcore.load_text(text, profile="950")
    for k, data in v.items():
        m.write("ub", IN_V + 256 * k, np.asarray(data, dtype=np.uint8))
    for k, bits in p.items():
        m.write("ub", IN_P + 32 * k, np.packbits(np.asarray(bits, dtype=bool), bitorder="little"))
    r = m.run()
    assert r.fault is None, r.fault
    assert not m.races(), m.races()
    return {k: m.read("ub", OUT_V + 256 * k, "u8", 256) for k in dump}


def u16(data) -> list[int]:
    return np.asarray(data, dtype=np.uint8).view("<u2").tolist()


# -- VHIST ---------------------------------------------------------------------------------------------

# Va: lanes 0..7 hold 0, 0, 5, 127, 128, 129, 255, 5; every other lane 200. Pm: lanes 0..7 and 100
# (value 200) active, lane 8 (also 200) and the rest not. Vd before: counter 0 = 10, counter 5 = 65535.
VA = np.full(256, 200, dtype=np.uint8)
VA[:8] = [0, 0, 5, 127, 128, 129, 255, 5]
PM = np.zeros(256, dtype=bool)
PM[:8] = PM[100] = True
OLD = np.zeros(128, dtype=np.uint16)
OLD[0], OLD[5] = 10, 65535


def _expected(kind: str, bins: str) -> list[int]:
    """The counters by hand: active values 0, 0, 5, 5, 127 (BIN0) and 128, 129, 200, 255 (BIN1)."""
    add = np.zeros(128, dtype=np.int64)
    if (kind, bins) == ("FREQ", "BIN0"):
        add[0], add[5], add[127] = 2, 2, 1
    elif (kind, bins) == ("FREQ", "BIN1"):
        add[0], add[1], add[72], add[127] = 1, 1, 1, 1          # values 128, 129, 200, 255
    elif (kind, bins) == ("CUM", "BIN0"):                         # values in 0..n
        add[0:5], add[5:127], add[127] = 2, 4, 5
    else:                                                         # values in 128..128 + n
        add[0], add[1:72], add[72:127], add[127] = 1, 2, 3, 4
    return ((OLD.astype(np.int64) + add) % 65536).tolist()


@pytest.mark.parametrize("kind", ["FREQ", "CUM"])
@pytest.mark.parametrize("bins", ["BIN0", "BIN1"])
def test_vhist_adds_counts_of_active_lanes_by_hand(kind, bins):
    got = run_function(f"VHIST.{kind}.{bins} V1, V0, P0", {0: VA, 1: OLD.view(np.uint8)}, {0: PM}, dump=[1])
    assert u16(got[1]) == _expected(kind, bins)


def test_vhist_cum_counts_from_b_not_from_0():
    """[vcore] CUM over BIN1 counts the values b..b+n (128..128+n), not 0..b+n: lanes of value 0..127
    add nothing to a BIN1 counter."""
    va = np.arange(256, dtype=np.uint8) % 128                     # 0..127 twice: nothing of BIN1
    got = run_function("VHIST.CUM.BIN1 V1, V0, P0\nVHIST.CUM.BIN0 V2, V0, P0", {0: va, 1: np.zeros(256),
                       2: np.zeros(256)}, {0: np.ones(256, dtype=bool)}, dump=[1, 2])
    assert u16(got[1]) == [0] * 128
    assert u16(got[2]) == [2 * (n + 1) for n in range(128)]


def test_vhist_counters_wrap_modulo_65536():
    """[vcore] a counter past 65535 wraps: 65535 + 256 lanes of value 3 is 255."""
    old = np.zeros(128, dtype=np.uint16)
    old[3] = 65535
    got = run_function("VHIST.FREQ.BIN0 V1, V0, P0", {0: np.full(256, 3), 1: old.view(np.uint8)},
                       {0: np.ones(256, dtype=bool)}, dump=[1])
    assert u16(got[1])[3] == (65535 + 256) % 65536 == 255


def test_vhist_reads_pm_at_one_byte_a_lane():
    """Pm is read at 1 byte a lane: bit i of Pm is lane i. A b16 predicate with only bits 0, 2, 4, ...
    set (PUNPACK of all ones) makes only the even lanes active; Va lane i = i % 128, so each even value
    is counted twice, odd ones never."""
    va = np.arange(256, dtype=np.uint8) % 128
    got = run_function("PSET.b8 P2, ALL\nPUNPACK P1, P2\nVHIST.FREQ.BIN0 V1, V0, P1", {0: va, 1: np.zeros(256)},
                       dump=[1])
    assert u16(got[1]) == [2 if n % 2 == 0 else 0 for n in range(128)]


def test_vhist_in_place_reads_va_before_writing_vd():
    """13.12: VHIST V0, V0, P0 counts V0's old bytes (256 zeros: counter 0 gains 256) into V0's old
    counters (all 0)."""
    got = run_function("PSET.b8 P0, ALL\nVHIST.FREQ.BIN0 V0, V0, P0", {0: np.zeros(256)}, dump=[0])
    assert u16(got[0]) == [256] + [0] * 127


# -- the in-place rule (13.12) for the rearrangements, by hand ------------------------------------------

def test_vdintlv_in_place_over_both_sources():
    """VDINTLV.u16 V1, V0, V0, V1: both destinations are sources, crossed; the result is computed from
    the old Va = 0..127, Vb = 128..255: V1 (Vd0) = the even ones, V0 (Vd1) = the odd ones."""
    a = np.arange(128, dtype=np.uint16).view(np.uint8)
    b = np.arange(128, 256, dtype=np.uint16).view(np.uint8)
    got = run_function("VDINTLV.u16 V1, V0, V0, V1", {0: a, 1: b}, dump=[0, 1])
    assert u16(got[1]) == list(range(0, 256, 2))
    assert u16(got[0]) == list(range(1, 256, 2))


def test_vintlv_in_place_crossed_matches_the_reference():
    rng = np.random.default_rng(31)
    a, b = rng.integers(0, 256, 256, dtype=np.uint8), rng.integers(0, 256, 256, dtype=np.uint8)
    got = run_function("VINTLV.s32 V1, V0, V0, V1", {0: a, 1: b}, dump=[0, 1])
    want0, want1 = R.vintlv("s32", a, b)
    assert got[1].tolist() == want0.tolist() and got[0].tolist() == want1.tolist()


def test_vpack_and_vunpack_in_place_by_hand():
    """VPACK.u16.s32 V0, V0 (lanes -1, 0x12345678 -> u16 elements 0xFFFF, 0x5678, the other half 0)
    and VUNPACK.s32.s16 V1, V1, part=hi (s16 elements 64, 65 = -2, 7 -> s32 lanes 0, 1)."""
    a = np.zeros(64, dtype=np.int32)
    a[0], a[1] = -1, 0x12345678
    b = np.zeros(128, dtype=np.int16)
    b[64], b[65] = -2, 7
    got = run_function("VPACK.u16.s32 V0, V0\nVUNPACK.s32.s16 V1, V1, part=hi",
                       {0: a.view(np.uint8), 1: b.view(np.uint8)}, dump=[0, 1])
    assert u16(got[0])[:3] == [0xFFFF, 0x5678, 0] and not got[0][128:].any()
    assert got[1].view("<i4")[:3].tolist() == [-2, 7, 0]


# -- VCONV ..., sat (13.12) ----------------------------------------------------------------------------

F16_MAX, BF16_MAX = 65504.0, float.fromhex("0x1.fep127")
INF, NAN = float("inf"), float("nan")
# f32 sources and the f16 each gives without and with sat (rint): 65519 still rounds to 65504 (below
# the overflow point 65520); 65520 and beyond overflow to inf, and sat gives the largest finite f16.
F32_CASES = [1e6, -1e6, INF, -INF, NAN, 65504.0, 65519.0, 65520.0, 1.5, -0.0, 70000.0, -65520.0]
PLAIN_F16 = [INF, -INF, INF, -INF, NAN, F16_MAX, F16_MAX, INF, 1.5, -0.0, INF, -INF]
SAT_F16 = [F16_MAX, -F16_MAX, F16_MAX, -F16_MAX, NAN, F16_MAX, F16_MAX, F16_MAX, 1.5, -0.0, F16_MAX, -F16_MAX]


def _same(got, want) -> bool:
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    return bool(np.all((got == want) & (np.signbit(got) == np.signbit(want)) | (np.isnan(got) & np.isnan(want))))


@pytest.mark.parametrize(("sat", "want"), [("", PLAIN_F16), (", sat", SAT_F16)])
def test_register_vconv_f16_f32_sat_by_hand(sat, want):
    src = np.zeros(64, dtype=np.float32)
    src[:len(F32_CASES)] = F32_CASES
    got = run_function(f"PSET.b32 P0, ALL\nVCONV.f16.f32 V1, V0, P0{sat}", {0: src.view(np.uint8)}, dump=[1])
    f16 = got[1].view(np.float16)
    assert _same(f16[0:2 * len(F32_CASES):2], want)              # lane i -> f16 element 2i (part 0)


def test_register_vconv_sat_in_place_and_with_round_modes():
    """``round=`` and ``sat`` together: ceil of -1e6 is -65504 either way, ceil of +1e6 gives inf
    without sat and 65504 with it; in place (Vd = Va) the source is read first (13.12)."""
    src = np.zeros(64, dtype=np.float32)
    src[:2] = [1e6, -1e6]
    got = run_function("PSET.b32 P0, ALL\nVCONV.f16.f32 V1, V0, P0, round=ceil\n"
                       "VCONV.f16.f32 V0, V0, P0, round=ceil, sat", {0: src.view(np.uint8)}, dump=[0, 1])
    assert _same(got[1].view(np.float16)[[0, 2]], [INF, -F16_MAX])
    assert _same(got[0].view(np.float16)[[0, 2]], [F16_MAX, -F16_MAX])


def test_register_vconv_bf16_f32_and_f16_bf16_sat():
    """f32 to bf16: 3.4e38 (past bf16's largest finite, 0x1.fep127, by more than half its step) is inf
    without sat and 0x1.fep127 with it; bf16 to f16: 1e5 gives 65504 with sat."""
    src = np.zeros(64, dtype=np.float32)
    src[:3] = [3.4e38, -INF, NAN]
    bf = np.zeros(128, dtype=np.float32)
    bf[:2] = [1e5, -1e5]
    bf16_bits = (bf.view(np.uint32) >> 16).astype(np.uint16)     # exact: 1e5 rounds to 99840 either way
    got = run_function("PSET.b32 P0, ALL\nPSET.b16 P1, ALL\nVCONV.bf16.f32 V1, V0, P0\n"
                       "VCONV.bf16.f32 V2, V0, P0, sat\nVCONV.f16.bf16 V4, V3, P1, sat",
                       {0: src.view(np.uint8), 3: bf16_bits.view(np.uint8)}, dump=[1, 2, 4])

    def bf16(data, idx):
        return (np.asarray(data).view(np.uint16)[idx].astype(np.uint32) << 16).view(np.float32)

    assert _same(bf16(got[1], [0, 2, 4]), [INF, -INF, NAN])
    assert _same(bf16(got[2], [0, 2, 4]), [BF16_MAX, -BF16_MAX, NAN])
    assert _same(got[4].view(np.float16)[:2], [F16_MAX, -F16_MAX])


def test_sat_changes_nothing_where_d_has_the_wider_range():
    """[vcore reading of "float-to-narrower-float"] f16 to bf16 (bf16's range is wider) keeps +-inf
    with sat, as without (65504 rounds to bf16's 65536 as it does without sat); so does the widening
    f16 to f32."""
    src = np.zeros(128, dtype=np.float16)
    src[:3] = [INF, -INF, F16_MAX]
    got = run_function("PSET.b16 P0, ALL\nPSET.b32 P1, ALL\nVCONV.bf16.f16 V1, V0, P0, sat\n"
                       "VCONV.f32.f16 V2, V0, P1, sat", {0: src.view(np.uint8)}, dump=[1, 2])
    as_bf16 = (got[1].view(np.uint16)[:3].astype(np.uint32) << 16).view(np.float32)
    assert _same(as_bf16, [INF, -INF, 65536.0])
    assert _same(got[2].view(np.float32)[:2], [INF, F16_MAX])      # lane i = f16 element 2i (part 0)


@pytest.mark.parametrize("pair", ["s8.f16", "s16.f32", "s32.f32", "s16.s32", "f32.s32", "s32.s16", "f16.s16"])
def test_sat_is_accepted_and_changes_nothing_on_other_pairs(pair):
    rng = np.random.default_rng(1312)
    data = rng.integers(0, 256, 256, dtype=np.uint8)
    if pair.endswith(".f16") or pair.endswith(".f32"):          # finite floats, some past every integer range
        src_t = pair.split(".")[1]
        values = rng.standard_normal(128 if src_t == "f16" else 64) * (20000 if src_t == "f16" else 40000)
        data = values.astype(np.float16 if src_t == "f16" else np.float32).view(np.uint8)
    got = run_function(f"PSET.b32 P0, ALL\nPSET.b16 P1, ALL\nVCONV.{pair} V1, V0, P0\nVCONV.{pair} V2, V0, P0, sat\n"
                       f"VCONV.{pair} V3, V0, P1\nVCONV.{pair} V4, V0, P1, sat", {0: data}, dump=[1, 2, 3, 4])
    assert got[1].tolist() == got[2].tolist() and got[3].tolist() == got[4].tolist()


TENSOR = "VCONV.f16.f32 [0x1000], [0x0], sat\nHALT\n"


def test_tensor_vconv_sat_on_the_950_by_hand():
    src = np.zeros(64, dtype=np.float32)
    src[:len(F32_CASES)] = F32_CASES
    m = vcore.load_text(TENSOR, profile="950")
    m.write("ub", 0, src.view(np.uint8))
    assert m.run().fault is None
    assert _same(m.read("ub", 0x1000, "u8", 128).view(np.float16)[:len(F32_CASES)], SAT_F16)


@pytest.mark.parametrize("line", ["VCONV.f16.f32 [0x1000], [0x0], sat", "VCONV.s32.f32 [0x1000], [0x0], sat, mask=8"])
def test_a2_refuses_sat_on_the_tensor_form(line):
    """13.12: ``sat`` is the 950's ("both forms, 950"): the a2 refuses a tensor VCONV with ``sat``, on
    any pair, before it runs (a register VCONV is the 950's anyway)."""
    with pytest.raises(ProgramError, match=r"VCONV\.\w+\.f32 sat needs the 950 profile \(a2 has no saturating "
                                           r"conversion\)"):
        vcore.load_text(line + "\nHALT\n", profile="a2")
    assert vcore.load_text(line.replace(", sat", "") + "\nHALT\n", profile="a2").run().fault is None


def test_in_a_hardware_loop_vhist_accumulates_and_sat_holds():
    """In a LOOP: VHIST adds each pass's counts to the same counters (4 passes of 256 lanes of value 9:
    1024), and VCONV ..., sat saturates in every pass of a loop run in closed form (20 passes)."""
    text = ("MOV S1, 0x0\nMOV S2, 0x400\nVF.BEGIN\nPSET.b8 P0, ALL\nPSET.b32 P1, ALL\nVLD.u8 V0, [S1]\n"
            "VLD.u8 V1, [0x100]\nLOOP 4\nVHIST.FREQ.BIN0 V1, V0, P0\nENDLOOP\n"
            "LOOP 20\nVLD.f32 V2, [0x200]\nVCONV.f16.f32 V3, V2, P1, sat\nVST.f16 [S2], V3, P1, post=128\nENDLOOP\n"
            "PSET.b8 P7, ALL\nVST.u8 [0x300], V1, P7\nVF.END\nHALT\n")
    m = vcore.load_text(text, profile="950")
    m.write("ub", 0, np.full(256, 9, dtype=np.uint8))
    m.write("ub", 0x200, np.full(64, 1e6, dtype=np.float32).view(np.uint8))
    r = m.run()
    assert r.fault is None
    assert r.fast_loop_instructions > 0                           # the VCONV loop ran in closed form
    counters = u16(m.read("ub", 0x300, "u8", 256))
    assert counters[9] == 1024 and sum(counters) == 1024
    for k in range(20):                                           # each pass's 64 f16 (at elements 2i)
        f16 = m.read("ub", 0x400 + 256 * k, "u8", 256).view(np.float16)
        assert f16[0::2].tolist() == [F16_MAX] * 64
