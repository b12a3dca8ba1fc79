"""Differential tests of CONTRACT 6.1, 6.2, 6.3 and 6.6 (conversion, fill / division / reciprocal /
friends, compare / select / mask logic, scalar LD / ST and wide MOV): emulator vs tests/reference.py.

Expected values come from the independent oracle ``tests/reference.py`` or are worked out by hand
(the tables of hand values below), never from the emulator's code. Float results match bit for bit,
except that any NaN matches any NaN; VNEG (a sign flip, CONTRACT 6.2) and the selects and fills of
a scalar register's bits (moves) are compared as raw bits, payloads included.

* Tensor VCONV: every pair of CONV_PAIRS with every rounding mode it takes (no ``round=`` on the
  always-exact pairs), from sources built for the pair: every float special, subnormals, values at
  the ties of the target grid and one source ulp either side, values past the target's range,
  integer extremes; contiguous layout (the narrower operand covers ``8 * narrow / wide``
  datablocks an iteration, so e.g. f32 -> f16 is ``dstrep=4``), on both profiles where the pair
  exists; then random strides, masks and counts (lanes of the wider type) on the whole UB.
* Register VCONV with ``part=`` (narrowing and widening) under a random Pm (arbitrary bits: lane i
  is active when bit ``i * w`` is set, w the wider size), every mode.
* VDUP / VARANGE tensor (masks, count, strides, dstrep=0) and register; VREC / VRSQRT / VNEG /
  VLRELU / VDIV tensor (random shapes and every special) and register where they exist.
* VCMP / VCMPS tensor (bit layout, lanes / 8 bytes an iteration, mask and count give 0 bits, NaN
  is unordered even for NE, +0 == -0) and register; VSEL / VSELS tensor and register VSEL;
  PAND / POR / PXOR / PNOT.
* LD / ST on UB and GM for every T, MOV of 64-bit constants, alignment faults and errors.
* The a2 profile: the tensor forms run there (the random tests draw it), the 950-only conversion
  pairs are refused with a message naming the 950 profile (exit status 2 from the CLI).

Overlapping operands follow the reference's reading (and the other tensor tests'): iteration r
reads its sources after iteration r - 1 has written. A random VCONV whose later iteration reads, as
S, bytes where an earlier one wrote a NaN as D is dropped: which NaN a conversion writes is not
specified, and those bits then decide a value (found by running the oracle with a second NaN).

The whole file takes about 30 s on one core (hypothesis, explicit settings; numpy seeds elsewhere).
"""

from __future__ import annotations

import functools
import math
import re
import subprocess
import sys
from pathlib import Path

import emu_support as E
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, assume, event, given, note, settings
from hypothesis import strategies as st

from tests import reference as R

UINT = {1: np.dtype("<u1"), 2: np.dtype("<u2"), 4: np.dtype("<u4"), 8: np.dtype("<u8")}
RAW = {1: "u8", 2: "u16", 4: "u32"}          # compare as raw bits of this size
FLOATS = ("f16", "bf16", "f32")
TENSOR_T = ("f16", "bf16", "f32", "s16", "u16", "s32", "u32")
REG_T = ("f16", "bf16", "f32", "s8", "u8", "s16", "u16", "s32", "u32")
CONDS = R.CONDITIONS
U64 = (1 << 64) - 1
PAIRS = sorted(R.CONV_PAIRS)
# (p incl. hidden bit, emin, emax) of the float formats
FMT = {"f16": (11, -14, 15), "bf16": (8, -126, 127), "f32": (24, -126, 127)}
CONV_SRC = 0x0        # the exhaustive conversion tests: sources here,
CONV_DST = 0x20000    # results here (inside the a2 UB as well)

SETTINGS = settings(max_examples=100, deadline=None, database=None, print_blob=True,
                    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large])
MASK_WORDS = [0x5555555555555555, 0xAAAAAAAAAAAAAAAA, U64, 1, 1 << 63, 0xFFFFFFFF, 0xFFFFFFFF00000000,
              0x8000000000000001, 0x0F0F0F0F0F0F0F0F]


# -- small helpers ----------------------------------------------------------------------------------

def bits_bytes(bits, t: str) -> np.ndarray:
    """Bit patterns (ints) of type ``t`` as little-endian bytes."""
    return np.array([int(b) for b in bits], dtype=np.uint64).astype(UINT[R.SIZE[t]]).view(np.uint8).copy()


def lanes_of(t: str) -> int:
    return 256 // R.SIZE[t]


def modes_of(pair) -> list:
    """The round= values a pair takes: None (no field) always; the five modes on inexact pairs, and
    odd on f32 -> f16 / bf16."""
    if pair in R.CONV_EXACT:
        return [None]
    out = [None, "rint", "round", "floor", "ceil", "trunc"]
    if pair in R.CONV_ODD_PAIRS:
        out.append("odd")
    return out


def wide_of(pair) -> str:
    d, s = pair
    return d if R.SIZE[d] >= R.SIZE[s] else s


def profiles_of(pair) -> list[str]:
    return ["950"] if pair in R.CONV_950_ONLY else ["950", "a2"]


def conv_mnemonic(pair) -> str:
    return f"VCONV.{pair[0]}.{pair[1]}"


def scalar_text(bits: int, t: str) -> str:
    """An immediate that the assembler reads back as exactly the value of ``bits`` in ``t``."""
    v = R.decode(bits, t)
    return E.float_literal(v) if t in R.FLOAT_TYPES else str(v)


def check_mem(got, want, t: str, what: str, raw: bool = False) -> None:
    bad = E.mem_mismatches(got, want, RAW[R.SIZE[t]] if raw else t)
    assert not bad, what + "\n" + "\n".join("  " + b for b in bad)


def int_range(t: str) -> tuple[int, int]:
    bits = 8 * R.SIZE[t]
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if t in R.SIGNED_TYPES else (0, (1 << bits) - 1)


def _exact_bits(x: float, t: str):
    """The bits of ``x`` in float type ``t`` when x is exactly representable there (finite), else None."""
    if not math.isfinite(x) or R.round_to_type(x, t) != x:
        return None
    return R.encode(x, t)


def _neighbours(bits: int, t: str) -> list[int]:
    """``bits`` and the two adjacent patterns of the same sign (one ulp either side in magnitude)."""
    top = (1 << (8 * R.SIZE[t])) - 1
    sign = 1 << (8 * R.SIZE[t] - 1)
    out = [bits]
    mag = bits & (sign - 1)
    if mag > 0:
        out.append(bits - 1)
    if mag + 1 < sign:
        out.append(bits + 1)
    return [b & top for b in out]


# -- conversion sources -----------------------------------------------------------------------------

@functools.cache
def conv_sources(pair) -> tuple[int, ...]:
    """Source bit patterns for ``VCONV.D.S`` (pair = (D, S)): the specials of S, subnormals, values
    at the ties of D's grid (and a source ulp either side) where S can hold them, values past D's
    range and at its limits, integer extremes, random values. Deterministic per pair."""
    d, s = pair
    rng = np.random.default_rng(sum(map(ord, d + s)) * 7919)
    sign = 1 << (8 * R.SIZE[s] - 1)
    out: list[int] = []
    if s in FLOATS:
        out += E.FLOAT_SPECIALS[s]
        frac = FMT[s][0] - 1
        out += [int(b) | (sign if rng.random() < 0.5 else 0) for b in rng.integers(1, 1 << frac, 8)]
    else:
        out += E.int_specials(s)
    if s in FLOATS and d in FLOATS:
        out += _float_to_float_edges(d, s, rng)
    elif s in FLOATS:
        out += _float_to_int_edges(d, s, rng)
    elif d in FLOATS:
        out += _int_to_float_edges(d, s, rng)
    else:
        lo, hi = int_range(d)
        slo, shi = int_range(s)
        out += [R.encode(v, s) for v in (lo - 2, lo - 1, lo, lo + 1, hi - 1, hi, hi + 1, hi + 2, -1, 0, 1)
                if slo <= v <= shi]
    out += [int(b) for b in E.random_elements(rng, s, 48).view(UINT[R.SIZE[s]])]
    seen: dict[int, None] = {}
    for b in out:
        seen.setdefault(int(b) & ((1 << (8 * R.SIZE[s])) - 1), None)
    vals = list(seen)
    lanes = lanes_of(wide_of(pair))
    pad = -len(vals) % lanes
    vals += [int(b) for b in E.random_elements(rng, s, pad).view(UINT[R.SIZE[s]])]
    return tuple(vals)


def _float_to_float_edges(d, s, rng) -> list[int]:
    p, emin, emax = FMT[d]
    max_bits = R.encode(R._FLOAT_FMT[d][2], d)
    out = []
    # ties of D's grid that S holds exactly, and one S ulp either side; half of them subnormal in D
    found, tries = 0, 0
    while found < 40 and tries < 4000:
        tries += 1
        top = (1 << (p - 1)) if rng.random() < 0.5 else max_bits
        b = int(rng.integers(0, top))
        lo_v, hi_v = R.decode(b, d), R.decode(b + 1, d)
        mid = (lo_v + hi_v) / 2
        sb = _exact_bits(mid, s)
        if sb is None:
            continue
        found += 1
        neg = rng.random() < 0.5
        out += [x | (1 << (8 * R.SIZE[s] - 1)) if neg else x for x in _neighbours(sb, s)]
    # past the largest finite value and around it
    big = R._FLOAT_FMT[d][2]
    ulp = big - R.decode(max_bits - 1, d)
    smallest = math.ldexp(1.0, emin - p + 1)
    for x in (big, big + ulp / 4, big + ulp / 2, big + ulp, 2.0 ** (emax + 1), 1e5, 1e30, 3e38,
              smallest / 4, smallest / 2, smallest * 0.75, smallest, smallest * 1.5, smallest * 2.5,
              2.0 ** emin - smallest / 2, 2.0 ** emin, 1.0, 1.5, 0.1):
        for v in (x, -x):
            with np.errstate(all="ignore"):
                b = R.encode(v, s)
            out += _neighbours(b, s) if math.isfinite(R.decode(b, s)) else [b]
    return out


def _float_to_int_edges(d, s, rng) -> list[int]:
    lo, hi = int_range(d)
    out = []
    for x in (lo - 1, lo - 0.75, lo - 0.5, lo - 0.25, lo, lo + 0.25, lo + 0.5, lo + 1.5, hi - 0.5, hi - 0.25, hi,
              hi + 0.25, hi + 0.5, hi + 0.75, hi + 1, hi + 1.5, 2 * hi + 2, -2 * hi - 2, 0.5, -0.5, 1.5, -1.5,
              2.5, -2.5, 0.49999, -0.49999, 1e10, -1e10, 2.0 ** 31, -(2.0 ** 31), 2.0 ** 15, -(2.0 ** 15)):
        with np.errstate(all="ignore"):
            b = R.encode(float(x), s)
        out += _neighbours(b, s) if math.isfinite(R.decode(b, s)) else [b]
    smax = R._FLOAT_FMT[s][2]
    span = min(max(abs(lo), hi), smax)
    for _ in range(60):
        k = int(2.0 ** rng.uniform(0, math.log2(span + 1)))
        k = -k if (lo < 0 and rng.random() < 0.5) else k
        for f in (0.0, 0.25, 0.5, 0.75):
            b = _exact_bits(k + f, s)
            if b is not None:
                out.append(b)
            b = _exact_bits(-(k + f), s)
            if b is not None and rng.random() < 0.3:
                out.append(b)
    return out


def _int_to_float_edges(d, s, rng) -> list[int]:
    p = FMT[d][0]
    slo, shi = int_range(s)
    mb = 8 * R.SIZE[s] - (1 if s in R.SIGNED_TYPES else 0)
    out = []
    for shift in range(1, mb - p + 1):
        for _ in range(6):
            m = int(rng.integers(1 << (p - 1), 1 << p))
            tie = (m << shift) | (1 << (shift - 1))
            for v in (tie - 1, tie, tie + 1, -tie - 1, -tie, -tie + 1):
                if slo <= v <= shi:
                    out.append(R.encode(v, s))
    out += [R.encode(v, s) for v in (slo, slo + 1, shi - 1, shi, 0, 1, -1, 2 ** (p + 1) + 1, -(2 ** (p + 1)) - 1)
            if slo <= v <= shi]
    return out


# -- hand values: conversions -----------------------------------------------------------------------
# (pair, mode, source value, expected bits or None for NaN); a source float is rounded to S first
# (nearest even), and the values are chosen so that this rounding does not change the result.

F32_TIE_1 = 1.0 + 2.0 ** -11               # halfway between f16 1.0 and 1 + 2^-10
CONV_HAND = [
    # float -> integer, each mode at a tie and its mirror
    *[(("s32", "f32"), m, 2.5, w) for m, w in (("rint", 2), ("round", 3), ("floor", 2), ("ceil", 3),
                                                ("trunc", 2), (None, 2))],
    *[(("s32", "f32"), m, -2.5, w & 0xFFFFFFFF) for m, w in (("rint", -2), ("round", -3), ("floor", -3),
                                                              ("ceil", -2), ("trunc", -2))],
    (("s32", "f32"), None, 1.5, 2), (("s32", "f32"), "trunc", -0.99, 0), (("s32", "f32"), "floor", -0.01, 0xFFFFFFFF),
    (("s32", "f32"), None, math.nan, 0), (("s32", "f32"), None, math.inf, 0x7FFFFFFF),
    (("s32", "f32"), None, -math.inf, 0x80000000), (("s32", "f32"), None, 3e9, 0x7FFFFFFF),
    (("s32", "f32"), None, -3e9, 0x80000000), (("s32", "f32"), None, 2147483520.0, 2147483520),
    (("u8", "f16"), None, -1.0, 0), (("u8", "f16"), None, 300.0, 255), (("u8", "f16"), None, 254.5, 254),
    (("u8", "f16"), "round", 254.5, 255), (("u8", "f16"), "ceil", 254.25, 255), (("u8", "f16"), "rint", 255.5, 255),
    (("s8", "f16"), None, -128.5, 0x80), (("s8", "f16"), "round", -128.5, 0x80), (("s8", "f16"), None, 127.5, 127),
    (("s8", "f16"), "floor", -0.5, 0xFF), (("s8", "f16"), None, math.nan, 0), (("s8", "f16"), None, -math.inf, 0x80),
    (("s16", "f16"), None, 65504.0, 0x7FFF), (("s16", "f16"), "trunc", -32768.0, 0x8000),
    (("s16", "f32"), "round", -32768.5, 0x8000), (("s16", "f32"), "ceil", 32766.01, 0x7FFF),
    (("s32", "f16"), "round", -0.5, 0xFFFFFFFF), (("s32", "f16"), None, 65504.0, 65504),
    (("s32", "bf16"), None, 3e38, 0x7FFFFFFF), (("s32", "bf16"), "floor", -1.5, 0xFFFFFFFE),
    # f32 -> f16: overflow by mode, ties, round to odd, underflow
    (("f16", "f32"), None, 65520.0, 0x7C00), (("f16", "f32"), "trunc", 65520.0, 0x7BFF),
    (("f16", "f32"), "floor", 65520.0, 0x7BFF), (("f16", "f32"), "ceil", 65520.0, 0x7C00),
    (("f16", "f32"), "floor", -65520.0, 0xFC00), (("f16", "f32"), "ceil", -65520.0, 0xFBFF),
    (("f16", "f32"), "round", 65519.0, 0x7BFF), (("f16", "f32"), "odd", 65520.0, 0x7BFF),
    (("f16", "f32"), "odd", 1e6, 0x7C00), (("f16", "f32"), "trunc", math.inf, 0x7C00),
    (("f16", "f32"), None, F32_TIE_1, 0x3C00), (("f16", "f32"), "round", F32_TIE_1, 0x3C01),
    (("f16", "f32"), "odd", F32_TIE_1, 0x3C01), (("f16", "f32"), "odd", 1.0, 0x3C00),
    (("f16", "f32"), None, 1.0 + 2.0 ** -10 + 2.0 ** -11, 0x3C02),
    (("f16", "f32"), "odd", 1.0 + 3 * 2.0 ** -11, 0x3C01),
    (("f16", "f32"), "trunc", -(1.0 + 3 * 2.0 ** -11), 0xBC01), (("f16", "f32"), "floor", -(1.0 + 2.0 ** -20), 0xBC01),
    (("f16", "f32"), None, 2.0 ** -25, 0x0000), (("f16", "f32"), "round", 2.0 ** -25, 0x0001),
    (("f16", "f32"), "ceil", 1e-10, 0x0001), (("f16", "f32"), "odd", 1e-10, 0x0001),
    (("f16", "f32"), "floor", -1e-10, 0x8001), (("f16", "f32"), None, -1e-10, 0x8000),
    (("f16", "f32"), None, 3 * 2.0 ** -25, 0x0002),       # tie between 1 and 2 subnormal units: even
    (("f16", "f32"), None, -0.0, 0x8000), (("f16", "f32"), None, math.nan, None),
    # f32 -> bf16
    (("bf16", "f32"), None, 1.0 + 2.0 ** -8, 0x3F80), (("bf16", "f32"), "round", 1.0 + 2.0 ** -8, 0x3F81),
    (("bf16", "f32"), "odd", 1.0 + 2.0 ** -20, 0x3F81), (("bf16", "f32"), None, 3.4e38, 0x7F80),
    (("bf16", "f32"), "trunc", 3.4e38, 0x7F7F),
    # f16 <-> bf16 (950)
    (("bf16", "f16"), None, 1.0 + 2.0 ** -8, 0x3F80), (("bf16", "f16"), "ceil", 1.0 + 2.0 ** -8, 0x3F81),
    (("bf16", "f16"), None, 65504.0, 0x4780), (("bf16", "f16"), "trunc", 65504.0, 0x477F),
    (("f16", "bf16"), None, 99840.0, 0x7C00), (("f16", "bf16"), "trunc", 99840.0, 0x7BFF),
    (("f16", "bf16"), None, 2.0 ** -25, 0x0000), (("f16", "bf16"), "round", 2.0 ** -25, 0x0001),
    (("f16", "bf16"), None, 0.333984375, 0x3558),
    # integer -> float
    (("f32", "s32"), None, 16777217, 0x4B800000), (("f32", "s32"), "round", 16777217, 0x4B800001),
    (("f32", "s32"), "ceil", 16777217, 0x4B800001), (("f32", "s32"), "floor", -16777217, 0xCB800001),
    (("f32", "s32"), "ceil", -16777217, 0xCB800000), (("f32", "s32"), None, 16777219, 0x4B800002),
    (("f32", "s32"), None, -(2 ** 31), 0xCF000000), (("f32", "s32"), None, 2 ** 31 - 1, 0x4F000000),
    (("f32", "s32"), "trunc", 2 ** 31 - 1, 0x4EFFFFFF),
    (("f16", "s16"), None, 2049, 0x6800), (("f16", "s16"), "round", 2049, 0x6801), (("f16", "s16"), None, 2051, 0x6802),
    (("f16", "s16"), None, 32767, 0x7800), (("f16", "s16"), "floor", -32767, 0xF800),
    (("f16", "s16"), "trunc", 32767, 0x77FF),
    (("f16", "s8"), None, -128, 0xD800), (("f16", "u8"), None, 255, 0x5BF8), (("f32", "s16"), None, -32768, 0xC7000000),
    # integer -> integer: saturation, sign and zero extension
    (("s16", "s32"), None, 40000, 0x7FFF), (("s16", "s32"), None, -40000, 0x8000), (("s16", "s32"), None, -5, 0xFFFB),
    (("s8", "s16"), None, 200, 0x7F), (("s8", "s16"), None, -200, 0x80), (("s8", "s16"), None, -128, 0x80),
    (("s16", "s8"), None, -1, 0xFFFF), (("u16", "u8"), None, 255, 0x00FF),
    (("s32", "s16"), None, -32768, 0xFFFF8000), (("u32", "u16"), None, 65535, 0x0000FFFF),
]


def _hand_src_bits(pair, x) -> int:
    # floats are rounded to S first (the hand values are chosen so that this rounding does not matter)
    return R.encode(x, pair[1])


def test_conversion_hand_values():
    """Each hand value in one masked-to-one-lane VCONV (dst prefilled with 0xAA: the other lanes
    stay), checked against the hand table, and the oracle against the same table."""
    lines, expect = [], []
    ub = np.full(0x40000, 0xAA, dtype=np.uint8)
    for k, (pair, mode, x, want) in enumerate(CONV_HAND):
        d, s = pair
        src, dst = 0x100 * k, 0x20000 + 0x100 * k
        sb = _hand_src_bits(pair, x)
        ub[src:src + R.SIZE[s]] = bits_bytes([sb], s)
        oracle = R.convert_bits(sb, s, d, mode)
        if want is None:
            assert R._is_nan_bits(oracle, d), (pair, mode, x)
        else:
            assert oracle == want, f"oracle disagrees with the hand value: {pair} {mode} {x}: {oracle:#x} != {want:#x}"
        lines.append(f"{conv_mnemonic(pair)} [0x{dst:x}], [0x{src:x}], mask=1" + (f", round={mode}" if mode else ""))
        expect.append((dst, d, want, pair, mode, x))
    m, r = E.run_program("\n".join(lines), ub=ub)
    assert r.fault is None, r.fault
    bad = []
    for dst, d, want, pair, mode, x in expect:
        size = R.SIZE[d]
        got = int(np.array(m.ub[dst:dst + size]).view(UINT[size])[0])
        ok = R._is_nan_bits(got, d) if want is None else got == want
        if not ok:
            bad.append(f"{conv_mnemonic(pair)} round={mode} of {x!r}: got {got:#x}, want "
                       + ("NaN" if want is None else f"{want:#x}"))
        rest = np.array(m.ub[dst + size:dst + 0x100])
        if (rest != 0xAA).any():
            bad.append(f"{conv_mnemonic(pair)}: mask=1 wrote past lane 0")
    assert not bad, "\n".join(bad)


# -- tensor VCONV: every pair, every mode, contiguous ------------------------------------------------

def _contiguous_reps(pair) -> tuple[int, int]:
    d, s = pair
    w = max(R.SIZE[d], R.SIZE[s])
    return 8 * R.SIZE[d] // w, 8 * R.SIZE[s] // w


@pytest.mark.parametrize(("pair", "mode"), [(p, m) for p in PAIRS for m in modes_of(p)],
                         ids=lambda v: ".".join(v) if isinstance(v, tuple) else str(v))
def test_tensor_conv_every_pair_and_mode_contiguous(pair, mode):
    d, s = pair
    srcs = conv_sources(pair)
    lanes = lanes_of(wide_of(pair))
    repeat = len(srcs) // lanes
    dst_rep, src_rep = _contiguous_reps(pair)
    rng = np.random.default_rng(len(srcs))
    image = rng.integers(0, 256, E.UB_SIZE["950"], dtype=np.uint8)
    raw = bits_bytes(srcs, s)
    image[CONV_SRC:CONV_SRC + raw.size] = raw
    want = image.copy()
    R.tensor_conv(want, d, s, CONV_DST, CONV_SRC, repeat=repeat, dst_rep=dst_rep, src_rep=src_rep, round=mode)
    fields = [f"repeat={repeat}"]
    if dst_rep != 8:
        fields.append(f"dstrep={dst_rep}")
    if src_rep != 8:
        fields.append(f"srcrep={src_rep}")
    if mode is not None:
        fields.append(f"round={mode}")
    line = f"{conv_mnemonic(pair)} [0x{CONV_DST:x}], [0x{CONV_SRC:x}], " + ", ".join(fields)
    for profile in profiles_of(pair):
        size = E.UB_SIZE[profile]
        m, r = E.run_program(line, profile, ub=image[:size])
        assert r.fault is None, f"{profile}: {line}: {r.fault}"
        check_mem(m.ub, want[:size], d, f"profile {profile}: {line}")


def test_round_field_is_refused_on_exact_pairs_and_odd_off_its_pairs():
    from vcore.assembler import assemble
    from vcore.assembler.diagnostics import AsmError

    for pair in sorted(R.CONV_EXACT):
        for mode in R.ROUND_MODES:
            with pytest.raises(AsmError):
                assemble(f"{conv_mnemonic(pair)} [0x0], [0x1000], round={mode}")
    for pair in sorted(R.CONV_INEXACT - R.CONV_ODD_PAIRS):
        with pytest.raises(AsmError):
            assemble(f"{conv_mnemonic(pair)} [0x0], [0x1000], round=odd")
    for bad in ("VCONV.u32.f32", "VCONV.f32.u32", "VCONV.s8.f32", "VCONV.f16.f16", "VCONV.u16.s16"):
        with pytest.raises(AsmError) as err:
            assemble(f"{bad} [0x0], [0x1000]")
        dst_t = bad.split(".")[1]
        supported = sorted(s for d, s in R.CONV_PAIRS if d == dst_t)
        msg = str(err.value)
        assert all(s in msg for s in supported), f"the error should name the pairs for {dst_t}: {msg}"


# -- tensor VCONV: random shapes on the whole UB -----------------------------------------------------

@st.composite
def masks(draw, t: str):
    lanes = lanes_of(t)
    mode = draw(st.sampled_from(["none", "none", "cont", "bit", "bit"]))
    if mode == "none":
        return None
    if mode == "cont":
        return draw(st.one_of(st.sampled_from([1, 2, lanes // 2, lanes - 1, lanes]), st.integers(1, lanes)))
    word = st.one_of(st.sampled_from(MASK_WORDS), st.integers(0, U64))
    low = draw(word)
    high = 0 if R.SIZE[t] == 4 else draw(st.one_of(word, st.just(0)))
    if low == 0 and high == 0:
        low = 1 << draw(st.integers(0, 63))
    return (low, high)


@st.composite
def iterations(draw, t: str, max_repeat: int = 10):
    """(repeat, mask, count, number of iterations) over lanes of ``t``."""
    lanes = lanes_of(t)
    if draw(st.integers(0, 3)) == 0:
        count = draw(st.one_of(st.sampled_from([1, lanes - 1, lanes, lanes + 1, 3 * lanes - 5]),
                               st.integers(1, 5 * lanes)))
        return None, None, count, -(-count // lanes)
    # repeat 0 (no operation) one time in ten; otherwise 1, 2 or up to max_repeat
    repeat = draw(st.sampled_from([0, *[1, 2] * 2, *range(1, max_repeat + 1)]))
    return repeat, draw(masks(t)), None, repeat


def extent(iters: int, nblocks: int, blk: int, rep: int) -> int:
    return (max(iters - 1, 0) * rep + (nblocks - 1) * blk + 1) * 32


def place(draw, ub_size: int, ext: int, near=None) -> int:
    """A 32-byte aligned base with [base, base + ext) inside UB: anywhere, or near/at ``near``."""
    assume(ext <= ub_size)
    if near is not None and draw(st.integers(0, 2)) > 0:
        base = near + 32 * draw(st.one_of(st.just(0), st.integers(-16, 16)))
        assume(base >= 0 and base + ext <= ub_size)
        return base
    return 32 * draw(st.integers(0, (ub_size - ext) // 32))


def shape_fields(draw, repeat, mask, count, named) -> list[str]:
    """Field texts: repeat (given when not 1, or at random), the named strides (given when not
    default, or at random), mask, count; shuffled."""
    out = []
    if count is None and (repeat != 1 or draw(st.booleans())):
        out.append(f"repeat={repeat}")
    for name, v, default in named:
        if v != default or draw(st.booleans()):
            out.append(f"{name}={v}")
    if mask is not None:
        out.append(f"mask={mask}" if isinstance(mask, int) else f"mask=(0x{mask[0]:x}, 0x{mask[1]:x})")
    if count is not None:
        out.append(f"count={count}")
    draw(st.randoms()).shuffle(out)
    return out


def shape_kwargs(repeat, mask, count) -> dict:
    return {"count": count} if count is not None else {"repeat": repeat, "mask": mask}


def describe_shape(repeat, mask, count) -> None:
    event("count" if count is not None else "repeat 0" if repeat == 0 else
          "no mask" if mask is None else "continuous mask" if isinstance(mask, int) else "bit mask")


@st.composite
def conv_cases(draw):
    pair = draw(st.sampled_from(PAIRS))
    d, s = pair
    profile = draw(st.sampled_from([*profiles_of(pair), "950"]))
    mode = draw(st.sampled_from(modes_of(pair)))
    wide = wide_of(pair)
    ub_size = E.UB_SIZE[profile]
    repeat, mask, count, iters = draw(iterations(wide, 8))
    nd, ns = _contiguous_reps(pair)             # datablocks an iteration of each operand
    dst_blk, src_blk = draw(st.integers(1, 4)), draw(st.integers(0, 4))
    dst_rep = draw(st.sampled_from([nd, nd, 8, 0, *range(1, 17)]))
    src_rep = draw(st.sampled_from([ns, ns, 8, 0, *range(1, 17)]))
    dst_ext, src_ext = extent(iters, nd, dst_blk, dst_rep), extent(iters, ns, src_blk, src_rep)
    dst = place(draw, ub_size, dst_ext)
    src = place(draw, ub_size, src_ext, near=dst if draw(st.booleans()) else None)
    fields = shape_fields(draw, repeat, mask, count, [("dstblk", dst_blk, 1), ("srcblk", src_blk, 1),
                                                      ("dstrep", dst_rep, 8), ("srcrep", src_rep, 8)])
    if mode is not None:
        fields.insert(draw(st.integers(0, len(fields))), f"round={mode}")
    line = f"{conv_mnemonic(pair)} [0x{dst:x}], [0x{src:x}]" + "".join(", " + f for f in fields)
    kw = shape_kwargs(repeat, mask, count) | {"dst_blk": dst_blk, "src_blk": src_blk, "dst_rep": dst_rep,
                                              "src_rep": src_rep, "round": mode}
    return {"pair": pair, "profile": profile, "line": line, "dst": dst, "src": src, "kw": kw,
            "overlap": not _disjoint((dst, dst + dst_ext), [(src, src + src_ext)]),
            "seed": draw(st.integers(0, 2 ** 32 - 1)), "ub_size": ub_size, "shape": (repeat, mask, count)}


def conv_image(rng, ub_size: int, pair) -> np.ndarray:
    """Random S elements over all of UB, with the pair's edge sources spliced in at random places."""
    s = pair[1]
    image = E.random_image(rng, ub_size, s)
    view = image.view(UINT[R.SIZE[s]])
    srcs = np.array(conv_sources(pair), dtype=np.uint64).astype(UINT[R.SIZE[s]])
    where = rng.integers(0, view.size, 6 * srcs.size)
    view[where] = np.resize(srcs, where.size)
    return image


# another NaN for each float type: negative, with a payload
OTHER_NAN = {"f16": 0xFE01, "bf16": 0xFFC1, "f32": 0xFFC00001}


def nan_sensitive(image, want, pair, dst, src, kw) -> bool:
    """Whether the expected result of a tensor VCONV depends on which NaN it writes (the contract
    leaves that open): a later iteration reads as S bytes where an earlier one wrote a NaN as D.
    Found by running the oracle again with another NaN for D."""
    d, s = pair
    if d not in FLOATS:
        return False
    saved = R.QNAN[d]
    R.QNAN[d] = OTHER_NAN[d]
    try:
        alt = image.copy()
        R.tensor_conv(alt, d, s, dst, src, **kw)
    finally:
        R.QNAN[d] = saved
    return bool(E.mem_mismatches(alt, want, d))


@settings(SETTINGS, max_examples=300)
@given(conv_cases())
def test_tensor_conv_random_shapes_match_reference(case):
    d, s = case["pair"]
    note(f"profile {case['profile']}: {case['line']}")
    event(f"{d}<-{s}")
    event("profile " + case["profile"])
    describe_shape(*case["shape"])
    if case["dst"] == case["src"]:
        event("in place")
    rng = np.random.default_rng(case["seed"])
    image = conv_image(rng, case["ub_size"], case["pair"])
    want = image.copy()
    R.tensor_conv(want, d, s, case["dst"], case["src"], **case["kw"])
    if case["overlap"] and nan_sensitive(image, want, case["pair"], case["dst"], case["src"], case["kw"]):
        event("rejected: a later iteration reads a NaN an earlier one wrote, as another type")
        assume(False)
    m, r = E.run_program(case["line"], case["profile"], ub=image)
    assert r.fault is None, f"{case['line']}: {r.fault}"
    check_mem(m.ub, want, d, f"profile {case['profile']}, seed {case['seed']}: {case['line']}")


def test_tensor_conv_long_runs():
    """255 iterations with repeat strides of both kinds, and a count past one iteration's lanes."""
    cases = [
        ("VCONV.s32.s16 [0x8000], [0x0], repeat=255, srcrep=4", ("s32", "s16"), 0x8000, 0x0,
         {"repeat": 255, "src_rep": 4}),
        ("VCONV.s8.f16 [0x30000], [0x0], count=3000, dstrep=4, round=floor", ("s8", "f16"), 0x30000, 0x0,
         {"count": 3000, "dst_rep": 4, "round": "floor"}),
        ("VCONV.f32.f16 [0x0], [0x0], repeat=40, srcrep=4, dstrep=0, mask=(0x1, 0x0)", ("f32", "f16"), 0x0, 0x0,
         {"repeat": 40, "src_rep": 4, "dst_rep": 0, "mask": (1, 0)}),
    ]
    for line, (d, s), dst, src, kw in cases:
        image = conv_image(np.random.default_rng(5), E.UB_SIZE["950"], (d, s))
        want = image.copy()
        R.tensor_conv(want, d, s, dst, src, **kw)
        m, r = E.run_program(line, "950", ub=image)
        assert r.fault is None, f"{line}: {r.fault}"
        check_mem(m.ub, want, d, line)


def test_strides_past_eight_bits():
    """Block and repeat strides past 255 where the unary fields take them (VCONV, VDUP, VARANGE,
    VCMPS, VSELS, VRSQRT, VLRELU: blk up to 65535, rep up to 4095), the binary ones at 255."""
    rng = np.random.default_rng(9)
    half = R.encode(0.5, "f32")
    cases = [
        ("VCONV.f16.f32 [0x0], [0x100], repeat=3, srcblk=1000, dstrep=2000, dstblk=300", "f16",
         lambda w: R.tensor_conv(w, "f16", "f32", 0, 0x100, repeat=3, src_blk=1000, dst_rep=2000, dst_blk=300)),
        ("VCONV.s32.s16 [0x20], [0x40], repeat=2, srcblk=1300, srcrep=4095, dstblk=600", "s32",
         lambda w: R.tensor_conv(w, "s32", "s16", 0x20, 0x40, repeat=2, src_blk=1300, src_rep=4095, dst_blk=600)),
        ("VCMPS.LT.f32 [0x0], [0x100], 0.5, repeat=3, srcblk=600, srcrep=1500", "u8",
         lambda w: R.tensor_cmps(w, "LT", "f32", 0, 0x100, half, repeat=3, src_blk=600, src_rep=1500)),
        ("VSELS.f32 [0x0], [0x100], 0.5, [0x3f000], repeat=3, srcblk=600, srcrep=1500, dstblk=300, dstrep=700",
         "u32", lambda w: R.tensor_sels(w, "f32", 0, 0x100, half, 0x3F000, repeat=3, src_blk=600, src_rep=1500,
                                        dst_blk=300, dst_rep=700)),
        ("VDUP.f32 [0x0], 0.5, repeat=3, dstblk=600, dstrep=1500", "u32",
         lambda w: R.tensor_dup(w, "f32", 0, half, repeat=3, dst_blk=600, dst_rep=1500)),
        ("VARANGE.s32 [0x0], 5, repeat=3, dstblk=600, dstrep=1500", "u32",
         lambda w: R.tensor_arange(w, "s32", 0, 5, repeat=3, dst_blk=600, dst_rep=1500)),
        ("VCMP.GE.s32 [0x0], [0x100], [0x200], repeat=3, src0blk=255, src1rep=255, src0rep=200, src1blk=100", "u8",
         lambda w: R.tensor_cmp(w, "GE", "s32", 0, 0x100, 0x200, repeat=3, src_blk=(255, 100), src_rep=(200, 255))),
        ("VSEL.s32 [0x0], [0x100], [0x200], [0x3f000], repeat=3, dstblk=255, src0blk=255, src1rep=255, "
         "src0rep=200, src1blk=100, dstrep=0", "u32",
         lambda w: R.tensor_sel(w, "s32", 0, 0x100, 0x200, 0x3F000, repeat=3, dst_blk=255, dst_rep=0,
                                src_blk=(255, 100), src_rep=(200, 255))),
        ("VRSQRT.f32 [0x0], [0x100], repeat=3, srcblk=600, srcrep=1500, dstblk=300", "f32",
         lambda w: R.tensor_op(w, "rsqrt", "f32", 0, (0x100,), repeat=3, src_blk=600, src_rep=1500, dst_blk=300)),
        ("VLRELU.f32 [0x0], [0x100], 0.25, repeat=3, srcblk=600, srcrep=1500, dstblk=300", "f32",
         lambda w: R.tensor_op(w, "lrelu", "f32", 0, (0x100,), repeat=3, src_blk=600, src_rep=1500, dst_blk=300,
                               scalar=0.25)),
    ]
    image = E.random_image(rng, E.UB_SIZE["950"], "f32")
    for line, t, apply in cases:
        want = image.copy()
        apply(want)
        m, r = E.run_program(line, ub=image)
        assert r.fault is None, f"{line}: {r.fault}"
        check_mem(m.ub, want, t, line)


# -- register VCONV ----------------------------------------------------------------------------------

@pytest.mark.parametrize("pair", PAIRS, ids=".".join)
def test_register_conv_parts_modes_and_mask(pair):
    d, s = pair
    k = max(R.SIZE[d], R.SIZE[s]) // min(R.SIZE[d], R.SIZE[s])
    rng = np.random.default_rng(sum(map(ord, d + s)))
    pool = np.array(conv_sources(pair), dtype=np.uint64)
    n_src = lanes_of(s)
    src = bits_bytes(rng.permutation(pool)[:n_src] if pool.size >= n_src else rng.choice(pool, n_src), s)
    pm = rng.random(256) < 0.6
    # (mode, part): every mode with a random part (or no part=), then every part with the default mode
    jobs = [(m_, None if rng.random() < 0.3 else int(rng.integers(0, k))) for m_ in modes_of(pair)]
    jobs += [(None, p) for p in range(k)]
    v = {0: src}
    body, expect = [], []
    for j, (mode, part) in enumerate(jobs):
        reg = j + 1
        v[reg] = rng.integers(0, 256, 256, dtype=np.uint8)      # the other elements must become zero
        text = f"{conv_mnemonic(pair)} V{reg}, V0, P0" + (f", round={mode}" if mode else "") + \
            (f", part={part}" if part is not None else "")
        body.append(text)
        expect.append((reg, text, R.vconv(d, s, src, pm, round=mode, part=part or 0)))
    # in place: the source register is the destination
    reg = len(jobs) + 1
    v[reg] = src
    mode = modes_of(pair)[-1]
    text = f"{conv_mnemonic(pair)} V{reg}, V{reg}, P0" + (f", round={mode}" if mode else "") + \
        (f", part={k - 1}" if k > 1 else "")
    body.append(text)
    expect.append((reg, text, R.vconv(d, s, src, pm, round=mode, part=k - 1)))
    m, r, regs = E.run_function("\n".join(body), v=v, p={0: pm}, dump_v=[e[0] for e in expect])
    assert r.fault is None, r.fault
    for reg, text, want in expect:
        check_mem(regs.v[reg], want, d, text)


def test_register_conv_part_out_of_range_is_an_error():
    from vcore.assembler import assemble
    from vcore.assembler.diagnostics import AsmError

    for pair in PAIRS:
        d, s = pair
        k = max(R.SIZE[d], R.SIZE[s]) // min(R.SIZE[d], R.SIZE[s])
        assemble(E.vf(f"{conv_mnemonic(pair)} V1, V0, P0, part={k - 1}"))
        with pytest.raises(AsmError):
            assemble(E.vf(f"{conv_mnemonic(pair)} V1, V0, P0, part={k}"))


# -- VDUP / VARANGE ----------------------------------------------------------------------------------

FLOAT_SCALARS = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, math.inf, -math.inf, math.nan, 65504.0, 70000.0, 1e-7,
                 6e-8, 1e-40, 3.0e38, 0.1, -2.5, 2040.0, -100.25, 16777200.0]


@st.composite
def scalars(draw, t: str, allow_nan: bool = True):
    """(operand text, bits of the value in t, register value or None). An immediate is given as a
    literal (a float is rounded to t once); a register's low bits are t's bits and its high bits
    garbage."""
    size = R.SIZE[t]
    if draw(st.integers(0, 3)) == 0:
        bits = draw(st.one_of(st.integers(0, (1 << (8 * size)) - 1),
                              st.sampled_from(E.FLOAT_SPECIALS[t] if t in FLOATS else E.int_specials(t))))
        if not allow_nan and t in FLOATS:
            assume(not R._is_nan_bits(bits, t))
        garbage = draw(st.integers(0, (1 << (63 - 8 * size)) - 1))
        return None, bits, (garbage << (8 * size)) | bits
    if t in FLOATS:
        value = draw(st.one_of(st.sampled_from(FLOAT_SCALARS), st.floats(allow_nan=False, width=32),
                               st.builds(lambda b: R.decode(b, t), st.integers(0, (1 << (8 * size)) - 1))))
        if not allow_nan:
            assume(not math.isnan(value))
        with np.errstate(all="ignore"):
            return E.float_literal(value), R.encode(value, t), None
    lo, hi = int_range(t)
    value = draw(st.one_of(st.sampled_from([lo, hi, 0, 1, hi - 1]), st.integers(lo, hi)))
    return str(value), R.encode(value, t), None


@st.composite
def fill_cases(draw, op: str):
    t = draw(st.sampled_from(TENSOR_T if op == "dup" else R.ARANGE_TENSOR_TYPES))
    profile = draw(st.sampled_from(["950", "950", "a2"]))
    ub_size = E.UB_SIZE[profile]
    repeat, mask, count, iters = draw(iterations(t, 12))
    blk = draw(st.integers(1, 4))
    rep = draw(st.sampled_from([8, 8, 8, 0, 0, *range(1, 17)]))
    dst = place(draw, ub_size, extent(iters, 8, blk, rep))
    text, bits, reg = draw(scalars(t))
    fields = shape_fields(draw, repeat, mask, count, [("dstblk", blk, 1), ("dstrep", rep, 8)])
    line = f"V{op.upper()}.{t} [0x{dst:x}], " + (text if reg is None else "S7") + "".join(", " + f for f in fields)
    if reg is not None:
        line = f"MOV S7, {reg}\n{line}"
    kw = shape_kwargs(repeat, mask, count) | {"dst_blk": blk, "dst_rep": rep}
    return {"op": op, "t": t, "profile": profile, "line": line, "dst": dst, "bits": bits, "kw": kw,
            "reg": reg is not None, "seed": draw(st.integers(0, 2 ** 32 - 1)), "ub_size": ub_size,
            "shape": (repeat, mask, count)}


def check_fill(case) -> None:
    t = case["t"]
    note(f"profile {case['profile']}:\n{case['line']}")
    event(f"{case['op']}.{t}")
    describe_shape(*case["shape"])
    if case["kw"]["dst_rep"] == 0:
        event("dstrep=0")
    rng = np.random.default_rng(case["seed"])
    image = E.random_image(rng, case["ub_size"], t)
    want = image.copy()
    if case["op"] == "dup":
        R.tensor_dup(want, t, case["dst"], case["bits"], **case["kw"])
    else:
        R.tensor_arange(want, t, case["dst"], case["bits"], **case["kw"])
    m, r = E.run_program(case["line"], case["profile"], ub=image)
    assert r.fault is None, f"{case['line']}: {r.fault}"
    # a fill from a register copies its bits (NaN payloads too); an immediate NaN may be any NaN
    raw = case["op"] == "dup" and (case["reg"] or not R._is_nan_bits(case["bits"], t))
    check_mem(m.ub, want, t, f"profile {case['profile']}: {case['line']}", raw=raw)


@SETTINGS
@given(fill_cases("dup"))
def test_tensor_vdup_matches_reference(case):
    check_fill(case)


@SETTINGS
@given(fill_cases("arange"))
def test_tensor_varange_matches_reference(case):
    check_fill(case)


def test_varange_hand_values():
    """Worked out by hand: f16 steps by 2 past 2048 (ties to even), s16 wraps, iteration r starts
    at START + r * lanes, masked lanes stay, dstrep=0 leaves the last iteration's values."""
    text = "\n".join([
        "VARANGE.f16 [0x0], 2040.0",                          # lanes 0..127: 2040 + i
        "VARANGE.s16 [0x100], 32760, repeat=2",               # wraps at lane 8
        "VARANGE.s32 [0x300], -3, repeat=3, dstrep=0, mask=2",
        "VARANGE.f32 [0x400], 0.5, count=66",
    ])
    ub = np.full(0x1000, 0x77, dtype=np.uint8)
    m, r = E.run_program(text, ub=ub)
    assert r.fault is None, r.fault
    f16 = m.read("ub", 0x0, "f16", 128).astype(np.float64)
    want = []
    for i in range(128):
        x = 2040 + i
        want.append(x if x <= 2048 else (x if x % 2 == 0 else (x + 1 if (x + 1) % 4 == 0 else x - 1)))
    np.testing.assert_array_equal(f16, want)
    s16 = m.read("ub", 0x100, "s16", 256).astype(np.int64)
    np.testing.assert_array_equal(s16, [((32760 + i + 32768) % 65536) - 32768 for i in range(256)])
    s32 = m.read("ub", 0x300, "s32", 3).astype(np.int64)
    np.testing.assert_array_equal(s32, [-3 + 128, -3 + 129, 0x77777777])   # the last iteration (r = 2)
    f32 = m.read("ub", 0x400, "f32", 67).astype(np.float64)
    np.testing.assert_array_equal(f32[:66], [0.5 + i for i in range(66)])
    assert np.array(m.ub[0x400 + 66 * 4:0x400 + 67 * 4]).tolist() == [0x77] * 4


@pytest.mark.parametrize("t", REG_T)
def test_register_vdup_and_varange(t):
    rng = np.random.default_rng(R.SIZE[t] * 31 + len(t))
    size = R.SIZE[t]
    pm = rng.random(256) < 0.5
    va = E.random_elements(rng, t, 256 // size)
    specials = E.FLOAT_SPECIALS[t] if t in FLOATS else E.int_specials(t)
    imm = int(rng.choice(specials)) if t not in FLOATS else R.encode(-2.5, t)
    reg = int(rng.choice(specials))
    body = [f"VDUP.{t} V1, {scalar_text(imm, t)}, P0", f"VDUP.{t} V2, S7, P0", f"VDUP.{t} V3, V0, P0",
            f"VDUP.{t} V4, V0, P1"]
    expect = [(1, R.vdup(t, pm, value_bits=imm)), (2, R.vdup(t, pm, value_bits=reg)),
              (3, R.vdup(t, pm, src=va)), (4, R.vdup(t, np.zeros(256, bool), src=va))]
    if t in R.TENSOR_TYPES:
        start = R.encode(2040.5, t) if t in FLOATS else int(rng.integers(0, 1 << (8 * size)))
        start_reg = int(rng.integers(0, 1 << (8 * size)))
        body += [f"VARANGE.{t} V5, {scalar_text(start, t)}", f"VARANGE.{t} V6, S8"]
        expect += [(5, R.varange(t, start)), (6, R.varange(t, start_reg))]
    else:
        start_reg = 0
    junk = {k: rng.integers(0, 256, 256, dtype=np.uint8) for k in range(1, 7)}
    m, r, regs = E.run_function("\n".join(body), v={0: va, **junk}, p={0: pm},
                                s={7: (0xDEAD << 40) | reg, 8: (0xBEEF << 40) | start_reg},
                                dump_v=[k for k, _ in expect])
    assert r.fault is None, r.fault
    for (k, want), text in zip(expect, body):
        check_mem(regs.v[k], want, t, text, raw=not text.startswith("VARANGE"))


# -- VREC / VRSQRT / VNEG / VLRELU / VDIV ------------------------------------------------------------

EXTRA_TYPES = {"rec": FLOATS, "rsqrt": FLOATS, "neg": ("f16", "bf16", "f32", "s16", "s32"), "lrelu": FLOATS,
               "div": FLOATS}
KIND = {"rec": "unary", "rsqrt": "unary", "neg": "unary", "lrelu": "scalar", "div": "binary"}


@st.composite
def extra_cases(draw):
    op = draw(st.sampled_from(sorted(EXTRA_TYPES)))
    t = draw(st.sampled_from(EXTRA_TYPES[op]))
    kind = KIND[op]
    profile = draw(st.sampled_from(["950", "950", "a2"]))
    ub_size = E.UB_SIZE[profile]
    repeat, mask, count, iters = draw(iterations(t, 8))
    nsrc = 2 if kind == "binary" else 1
    dst_blk = draw(st.integers(1, 4))
    src_blk = [draw(st.integers(0, 4)) for _ in range(nsrc)]
    dst_rep = draw(st.one_of(st.just(8), st.integers(0, 16)))
    src_rep = [draw(st.one_of(st.just(8), st.integers(0, 16))) for _ in range(nsrc)]
    dst = place(draw, ub_size, extent(iters, 8, dst_blk, dst_rep))
    srcs = [place(draw, ub_size, extent(iters, 8, src_blk[k], src_rep[k]), near=dst if draw(st.booleans()) else None)
            for k in range(nsrc)]
    if kind == "binary":
        named = [("dstblk", dst_blk, 1), ("src0blk", src_blk[0], 1), ("src1blk", src_blk[1], 1),
                 ("dstrep", dst_rep, 8), ("src0rep", src_rep[0], 8), ("src1rep", src_rep[1], 8)]
    else:
        named = [("dstblk", dst_blk, 1), ("srcblk", src_blk[0], 1), ("dstrep", dst_rep, 8), ("srcrep", src_rep[0], 8)]
    fields = shape_fields(draw, repeat, mask, count, named)
    operands = [f"[0x{dst:x}]"] + [f"[0x{b:x}]" for b in srcs]
    scalar = None
    line = ""
    if kind == "scalar":
        text, bits, reg = draw(scalars(t))
        scalar = R.decode(bits, t)
        operands.append(text if reg is None else "S9")
        if reg is not None:
            line = f"MOV S9, {reg}\n"
    line += f"V{op.upper()}.{t} " + ", ".join(operands + fields)
    kw = shape_kwargs(repeat, mask, count) | {"dst_blk": dst_blk, "src_blk": tuple(src_blk), "dst_rep": dst_rep,
                                              "src_rep": tuple(src_rep)}
    if scalar is not None:
        kw["scalar"] = scalar
    return {"op": op, "t": t, "profile": profile, "line": line, "dst": dst, "srcs": tuple(srcs), "kw": kw,
            "seed": draw(st.integers(0, 2 ** 32 - 1)), "ub_size": ub_size, "shape": (repeat, mask, count)}


@SETTINGS
@given(extra_cases())
def test_tensor_rec_rsqrt_neg_lrelu_div_random_shapes(case):
    op, t = case["op"], case["t"]
    note(f"profile {case['profile']}:\n{case['line']}")
    event(f"{op}.{t}")
    describe_shape(*case["shape"])
    rng = np.random.default_rng(case["seed"])
    image = E.random_image(rng, case["ub_size"], t)
    want = image.copy()
    R.tensor_op(want, op, t, case["dst"], case["srcs"], **case["kw"])
    m, r = E.run_program(case["line"], case["profile"], ub=image)
    assert r.fault is None, f"{case['line']}: {r.fault}"
    check_mem(m.ub, want, t, f"profile {case['profile']}: {case['line']}", raw=op == "neg")


EXTRA_VALUES = [0.0, -0.0, 1.0, -1.0, 2.0, 3.0, 4.0, 0.5, 0.1, -7.0, 1e-30, 65504.0, 2.0 ** -24, -(2.0 ** -20),
                1e38, 1.5, 1.0 + 2.0 ** -10, 2.0 ** -14, 3.0e-39, 2.0 ** 127, 1.0 / 3.0]


def _special_bits(t: str) -> list[int]:
    out = list(E.FLOAT_SPECIALS[t])
    with np.errstate(all="ignore"):
        out += [R.encode(x, t) for x in EXTRA_VALUES]
    out += [b | (1 << (8 * R.SIZE[t] - 1)) for b in out]
    return list(dict.fromkeys(out))


@pytest.mark.parametrize("t", FLOATS)
@pytest.mark.parametrize("profile", ["950", "a2"])
def test_tensor_extra_ops_on_every_special(t, profile):
    """VREC, VRSQRT, VNEG on every special and edge value; VLRELU of them by special scalars; VDIV of
    every pair of specials (a cross product over several iterations)."""
    lanes = lanes_of(t)
    sp = _special_bits(t)
    xs = sp + [sp[i % len(sp)] for i in range(-len(sp) % lanes)]
    cross_x = [a for a in sp for _ in sp]
    cross_y = [b for _ in sp for b in sp]
    pad = -len(cross_x) % lanes
    cross_x += [R.encode(1.0, t)] * pad
    cross_y += [R.encode(3.0, t)] * pad
    ub = np.zeros(E.UB_SIZE[profile], dtype=np.uint8)
    X, CX, CY, OUT = 0x0, 0x1000, 0xA000, 0x14000
    ub[X:X + len(xs) * R.SIZE[t]] = bits_bytes(xs, t)
    ub[CX:CX + len(cross_x) * R.SIZE[t]] = bits_bytes(cross_x, t)
    ub[CY:CY + len(cross_y) * R.SIZE[t]] = bits_bytes(cross_y, t)
    rep_x, rep_c = len(xs) // lanes, len(cross_x) // lanes
    assert CX + len(cross_x) * R.SIZE[t] <= CY and CY + len(cross_y) * R.SIZE[t] <= OUT
    want = ub.copy()
    lines, checks = [], []
    out = OUT
    for op in ("rec", "rsqrt", "neg"):
        lines.append(f"V{op.upper()}.{t} [0x{out:x}], [0x{X:x}], repeat={rep_x}")
        R.tensor_op(want, op, t, out, (X,), repeat=rep_x)
        checks.append((op, out, rep_x * 256))
        out += rep_x * 256
    for scalar in (0.1, -2.0, 0.0, -0.0, math.inf, math.nan, 1e-20):
        lines.append(f"VLRELU.{t} [0x{out:x}], [0x{X:x}], {E.float_literal(scalar)}, repeat={rep_x}")
        R.tensor_op(want, "lrelu", t, out, (X,), repeat=rep_x, scalar=scalar)
        checks.append(("lrelu", out, rep_x * 256))
        out += rep_x * 256
    lines.append(f"VDIV.{t} [0x{out:x}], [0x{CX:x}], [0x{CY:x}], repeat={rep_c}")
    R.tensor_op(want, "div", t, out, (CX, CY), repeat=rep_c)
    checks.append(("div", out, rep_c * 256))
    assert out + rep_c * 256 <= E.UB_SIZE[profile]
    m, r = E.run_program("\n".join(lines), profile, ub=ub)
    assert r.fault is None, r.fault
    for op, addr, n in checks:
        check_mem(m.ub[addr:addr + n], want[addr:addr + n], t, f"{profile}: {op}.{t} at 0x{addr:x}", raw=op == "neg")
    check_mem(m.ub, want, t, "the rest of UB")


# (mnemonic, type, operand bits, expected bits) worked out by hand (IEEE 754 / CONTRACT 6.2)
EXTRA_HAND = [
    ("VREC", "f32", 0x40400000, 0x3EAAAAAB),        # 1/3 -> 0.3333333432674408
    ("VREC", "f32", 0x80000000, 0xFF800000),        # 1/-0 = -inf
    ("VREC", "f32", 0x7F800000, 0x00000000),        # 1/inf = +0
    ("VREC", "f32", 0x00000001, 0x7F800000),        # 1/2^-149 overflows
    ("VREC", "f32", 0x7F000000, 0x00400000),        # 1/2^127 = 2^-127, subnormal
    ("VREC", "f16", 0x0001, 0x7C00),                # 1/2^-24 overflows
    ("VREC", "f16", 0x7800, 0x0200),                # 1/32768 = 2^-15, subnormal: 512 * 2^-24
    ("VREC", "f16", 0x4200, 0x3555),                # 1/3 in f16 = 0.333251953125
    ("VREC", "bf16", 0x4040, 0x3EAB),               # 1/3 in bf16 = 0.333984375
    ("VRSQRT", "f32", 0x40800000, 0x3F000000),      # rsqrt(4) = 0.5
    ("VRSQRT", "f32", 0x40000000, 0x3F3504F3),      # rsqrt(2) = 0.70710677
    ("VRSQRT", "f32", 0x80000000, 0xFF800000),      # rsqrt(-0) = -inf
    ("VRSQRT", "f32", 0x00000000, 0x7F800000),      # rsqrt(+0) = +inf
    ("VRSQRT", "f32", 0x7F800000, 0x00000000),      # rsqrt(+inf) = +0
    ("VRSQRT", "f32", 0xBF800000, None),            # rsqrt(-1) = NaN
    ("VRSQRT", "f32", 0xFF800000, None),            # rsqrt(-inf) = NaN
    ("VRSQRT", "f16", 0x4400, 0x3800),              # rsqrt(4) = 0.5
    ("VRSQRT", "f16", 0x0001, 0x6C00),              # rsqrt(2^-24) = 2^12
    ("VNEG", "f16", 0x7C01, 0xFC01),                # the payload survives
    ("VNEG", "f32", 0xFFC00001, 0x7FC00001),
    ("VNEG", "bf16", 0x0000, 0x8000),
    ("VNEG", "s16", 0x8000, 0x8000),                # -(-32768) wraps
    ("VNEG", "s32", 0x00000005, 0xFFFFFFFB),
    ("VNEG", "s32", 0x80000000, 0x80000000),
]


def test_extra_ops_hand_values():
    lines, expect = [], []
    ub = np.full(0x20000, 0x55, dtype=np.uint8)
    for k, (mn, t, x, want) in enumerate(EXTRA_HAND):
        src, dst = 0x100 * k, 0x10000 + 0x100 * k
        ub[src:src + R.SIZE[t]] = bits_bytes([x], t)
        op = mn[1:].lower()
        oracle = R.lane_unary(op, t, x)
        assert (R._is_nan_bits(oracle, t) if want is None else oracle == want), (mn, t, hex(x), hex(oracle))
        lines.append(f"{mn}.{t} [0x{dst:x}], [0x{src:x}], mask=1")
        expect.append((mn, t, x, want, dst))
    lines += ["VLRELU.f32 [0x1f000], [0x1e000], 0.5, mask=4", "VDIV.f16 [0x1f800], [0x1e800], [0x1ec00], mask=3"]
    ub[0x1E000:0x1E010] = np.array([0x80000000, 0xC0000000, 0x7FC00001, 0x12345678], dtype="<u4").view(np.uint8)
    ub[0x1E800:0x1E806] = np.array([0x3C00, 0x8000, 0x0000], dtype="<u2").view(np.uint8)
    ub[0x1EC00:0x1EC06] = np.array([0x4200, 0x0000, 0x0000], dtype="<u2").view(np.uint8)
    m, r = E.run_program("\n".join(lines), ub=ub)
    assert r.fault is None, r.fault
    bad = []
    for mn, t, x, want, dst in expect:
        got = int(np.array(m.ub[dst:dst + R.SIZE[t]]).view(UINT[R.SIZE[t]])[0])
        if not (R._is_nan_bits(got, t) if want is None else got == want):
            bad.append(f"{mn}.{t} of {x:#x}: got {got:#x}, want " + ("NaN" if want is None else f"{want:#x}"))
    lrelu = np.array(m.ub[0x1F000:0x1F010]).view("<u4").tolist()
    # -0 stays -0, -2 * 0.5 = -1, NaN stays NaN (any), 0x12345678 >= 0 is kept bit for bit
    if lrelu[0] != 0x80000000 or lrelu[1] != 0xBF800000 or not R._is_nan_bits(lrelu[2], "f32") or \
            lrelu[3] != 0x12345678:
        bad.append(f"VLRELU.f32: got {[hex(v) for v in lrelu]}")
    div = np.array(m.ub[0x1F800:0x1F806]).view("<u2").tolist()
    # 1/3 = 0x3555; -0/0 = NaN; 0/0 = NaN
    if div[0] != 0x3555 or not R._is_nan_bits(div[1], "f16") or not R._is_nan_bits(div[2], "f16"):
        bad.append(f"VDIV.f16: got {[hex(v) for v in div]}")
    assert not bad, "\n".join(bad)


def test_rec_and_rsqrt_have_no_register_form():
    from vcore.assembler import assemble
    from vcore.assembler.diagnostics import AsmError

    for mn in ("VREC", "VRSQRT"):
        assemble(f"{mn}.f32 [0x0], [0x100]")
        with pytest.raises(AsmError):
            assemble(E.vf(f"{mn}.f32 V0, V1, P0"))


@pytest.mark.parametrize("t", ("f16", "bf16", "f32", "s8", "s16", "s32"))
def test_register_neg_lrelu_div(t):
    """Register VNEG (float types and s8 s16 s32), VLRELU and VDIV (float types) under a random Pm:
    lanes outside it zero; VNEG bit for bit (NaN payloads kept)."""
    rng = np.random.default_rng(R.SIZE[t] * 13 + len(t) + (7 if t in FLOATS else 0))
    lanes = lanes_of(t)
    pm = rng.random(256) < 0.6
    if t in FLOATS:
        sp = _special_bits(t)
        a = bits_bytes([sp[i % len(sp)] if rng.random() < 0.5 else 0 for i in range(lanes)], t)
        rnd = E.random_elements(rng, t, lanes)
        a = np.where(np.repeat(rng.random(lanes) < 0.5, R.SIZE[t]), a, rnd).astype(np.uint8)
        b = E.random_elements(rng, t, lanes)
        bview = b.view(UINT[R.SIZE[t]])
        bview[: len(sp)] = np.array(sp[:lanes], dtype=np.uint64).astype(UINT[R.SIZE[t]])[: bview.size]
    else:
        a = E.random_elements(rng, t, lanes, special_rate=0.3)
        b = E.random_elements(rng, t, lanes)
    body, expect = [], []
    body.append(f"VNEG.{t} V2, V0, P0")
    expect.append((2, R.vop_unary("neg", t, a, pm), True))
    if t in FLOATS:
        body += [f"VLRELU.{t} V3, V0, 0.25, P0", f"VLRELU.{t} V4, V0, S7, P0", f"VDIV.{t} V5, V0, V1, P0",
                 f"VDIV.{t} V6, V1, V0, P0"]
        s7 = R.encode(-3.0, t)
        expect += [(3, R.vop_scalar("lrelu", t, a, 0.25, pm), False),
                   (4, R.vop_scalar("lrelu", t, a, R.decode(s7, t), pm), False),
                   (5, R.vop("div", t, a, b, pm), False), (6, R.vop("div", t, b, a, pm), False)]
    else:
        s7 = 0
    junk = {k: rng.integers(0, 256, 256, dtype=np.uint8) for k in range(2, 7)}
    m, r, regs = E.run_function("\n".join(body), v={0: a, 1: b, **junk}, p={0: pm}, s={7: s7},
                                dump_v=[k for k, _, _ in expect])
    assert r.fault is None, r.fault
    for (k, want, raw), text in zip(expect, body):
        check_mem(regs.v[k], want, t, text, raw=raw)


# -- compare ------------------------------------------------------------------------------------------

def compare_pool(t: str) -> list[int]:
    """Values that make equal and unordered pairs frequent: +-0, +-1, 2, +-inf, NaN, subnormals,
    extremes (floats); 0, +-1, 2, the extremes (integers)."""
    if t in FLOATS:
        return [R.encode(x, t) for x in (0.0, -0.0, 1.0, -1.0, 2.0, math.inf, -math.inf, 0.5)] + \
            [E.FLOAT_SPECIALS[t][k] for k in (4, 5, 6, 7, 8, 11, 12)]
    lo, hi = int_range(t)
    return [R.encode(v, t) for v in (0, 1, -1 if lo else 2, 2, lo, hi, lo + 1, hi - 1)]


def pool_image(rng, nbytes: int, t: str, rate: float = 0.6) -> np.ndarray:
    image = E.random_image(rng, nbytes, t)
    view = image.view(UINT[R.SIZE[t]])
    pick = rng.random(view.size) < rate
    pool = np.array(compare_pool(t), dtype=np.uint64).astype(view.dtype)
    view[pick] = pool[rng.integers(0, pool.size, int(pick.sum()))]
    return image


def _disjoint(a: tuple[int, int], spans) -> bool:
    return all(a[1] <= lo or hi <= a[0] for lo, hi in spans)


@st.composite
def cmp_cases(draw, scalar: bool):
    t = draw(st.sampled_from(TENSOR_T))
    cond = draw(st.sampled_from(CONDS))
    profile = draw(st.sampled_from(["950", "950", "a2"]))
    ub_size = E.UB_SIZE[profile]
    lanes = lanes_of(t)
    repeat, mask, count, iters = draw(iterations(t, 10))
    nsrc = 1 if scalar else 2
    blk = [draw(st.integers(0, 4)) for _ in range(nsrc)]
    rep = [draw(st.one_of(st.just(8), st.integers(0, 16))) for _ in range(nsrc)]
    srcs = []
    for k in range(nsrc):
        srcs.append(place(draw, ub_size, extent(iters, 8, blk[k], rep[k]), near=srcs[0] if srcs else None))
    nbytes = max(iters, 1) * lanes // 8
    dst = place(draw, ub_size, nbytes)
    assume(_disjoint((dst, dst + nbytes), [(b, b + extent(iters, 8, blk[k], rep[k])) for k, b in enumerate(srcs)]))
    if scalar:
        named = [("srcblk", blk[0], 1), ("srcrep", rep[0], 8)]
    else:
        named = [("src0blk", blk[0], 1), ("src1blk", blk[1], 1), ("src0rep", rep[0], 8), ("src1rep", rep[1], 8)]
    fields = shape_fields(draw, repeat, mask, count, named)
    operands = [f"[0x{dst:x}]"] + [f"[0x{b:x}]" for b in srcs]
    prefix, sbits = "", None
    if scalar:
        if draw(st.booleans()):
            sbits = draw(st.sampled_from(compare_pool(t)))
            text, reg = scalar_text(sbits, t), None
        else:
            text, sbits, reg = draw(scalars(t))
        operands.append(text if reg is None else "S6")
        if reg is not None:
            prefix = f"MOV S6, {reg}\n"
    line = prefix + f"VCMP{'S' if scalar else ''}.{cond}.{t} " + ", ".join(operands + fields)
    kw = shape_kwargs(repeat, mask, count) | {"src_blk": blk[0] if scalar else tuple(blk),
                                              "src_rep": rep[0] if scalar else tuple(rep)}
    return {"t": t, "cond": cond, "profile": profile, "line": line, "dst": dst, "srcs": srcs, "kw": kw,
            "scalar": sbits, "seed": draw(st.integers(0, 2 ** 32 - 1)), "ub_size": ub_size,
            "shape": (repeat, mask, count)}


def check_cmp(case) -> None:
    t = case["t"]
    note(f"profile {case['profile']}:\n{case['line']}")
    event(f"{case['cond']}.{t}")
    describe_shape(*case["shape"])
    rng = np.random.default_rng(case["seed"])
    image = pool_image(rng, case["ub_size"], t)
    want = image.copy()
    if case["scalar"] is None:
        R.tensor_cmp(want, case["cond"], t, case["dst"], *case["srcs"], **case["kw"])
    else:
        R.tensor_cmps(want, case["cond"], t, case["dst"], case["srcs"][0], case["scalar"], **case["kw"])
    m, r = E.run_program(case["line"], case["profile"], ub=image)
    assert r.fault is None, f"{case['line']}: {r.fault}"
    check_mem(m.ub, want, "u8", f"profile {case['profile']}: {case['line']}")


@SETTINGS
@given(cmp_cases(scalar=False))
def test_tensor_vcmp_matches_reference(case):
    check_cmp(case)


@SETTINGS
@given(cmp_cases(scalar=True))
def test_tensor_vcmps_matches_reference(case):
    check_cmp(case)


# 8 lanes (a, b) that repeat over the iteration, and the byte each condition gives, by hand
CMP_LANES = [(math.nan, math.nan), (1.0, math.nan), (0.0, -0.0), (-0.0, 0.0), (1.0, 2.0), (2.0, 1.0),
             (-math.inf, math.inf), (math.inf, math.inf)]
CMP_BYTE = {"EQ": 0x8C, "NE": 0x70, "LT": 0x50, "GT": 0x20, "LE": 0xDC, "GE": 0xAC}


@pytest.mark.parametrize("t", FLOATS)
def test_tensor_compare_bits_by_hand(t):
    """One byte a group of 8 lanes; an iteration writes lanes/8 bytes at dst + r * lanes / 8; a mask
    or count gives 0 bits (the bytes are written); bytes after the last iteration stay."""
    lanes = lanes_of(t)
    nb = lanes // 8
    a = [R.encode(x, t) for x, _ in CMP_LANES] * (3 * lanes // 8)
    b = [R.encode(y, t) for _, y in CMP_LANES] * (3 * lanes // 8)
    ub = np.full(0x10000, 0xEE, dtype=np.uint8)
    ub[0x0:len(a) * R.SIZE[t]] = bits_bytes(a, t)
    ub[0x2000:0x2000 + len(b) * R.SIZE[t]] = bits_bytes(b, t)
    lines = []
    for k, c in enumerate(CONDS):
        base = 0x8000 + 0x100 * k
        lines += [f"VCMP.{c}.{t} [0x{base:x}], [0x0], [0x2000], repeat=2",
                  f"VCMP.{c}.{t} [0x{base + 0x40:x}], [0x0], [0x2000], mask=3",
                  f"VCMP.{c}.{t} [0x{base + 0x80:x}], [0x0], [0x2000], count={lanes + 6}",
                  f"VCMPS.{c}.{t} [0x{base + 0xC0:x}], [0x0], -0.0, mask=(0x{(1 << 64) - 1:x}, 0x0)"]
    m, r = E.run_program("\n".join(lines), ub=ub)
    assert r.fault is None, r.fault
    for k, c in enumerate(CONDS):
        base = 0x8000 + 0x100 * k
        full = CMP_BYTE[c]
        got = np.array(m.ub[base:base + 2 * nb + 1]).tolist()
        assert got == [full] * (2 * nb) + [0xEE], f"VCMP.{c}.{t} repeat=2: {got}"
        got = np.array(m.ub[base + 0x40:base + 0x40 + nb + 1]).tolist()
        assert got == [full & 0x07] + [0] * (nb - 1) + [0xEE], f"VCMP.{c}.{t} mask=3: {got}"
        got = np.array(m.ub[base + 0x80:base + 0x80 + 2 * nb + 1]).tolist()
        assert got == [full] * nb + [full & 0x3F] + [0] * (nb - 1) + [0xEE], f"VCMP.{c}.{t} count: {got}"
        # against -0.0: lanes a = NaN, 1, +0, -0, 1, 2, -inf, inf -> EQ: lanes 2, 3; LT: lane 6; GT: 1, 4, 5, 7
        by_a = {"EQ": 0x0C, "NE": 0xF2, "LT": 0x40, "GT": 0xB2, "LE": 0x4C, "GE": 0xBE}[c]
        n_active = min(lanes, 64)
        want = [by_a] * (n_active // 8) + [0] * ((lanes - n_active) // 8) + [0xEE]
        got = np.array(m.ub[base + 0xC0:base + 0xC0 + nb + 1]).tolist()
        assert got == want, f"VCMPS.{c}.{t} -0.0 (low mask word only): {got}"




@pytest.mark.parametrize("t", REG_T)
@pytest.mark.parametrize("form", ["VCMP", "VCMPS"])
def test_register_compare(t, form):
    """Pd gets all w bits of each lane (CONTRACT 3.1): lanes outside Pm (arbitrary bits) clear; Pd
    starts with random bits."""
    rng = np.random.default_rng(R.SIZE[t] * 97 + len(t) + len(form))
    lanes = lanes_of(t)
    a = pool_image(rng, 256, t, rate=0.7)
    b = pool_image(rng, 256, t, rate=0.7)
    pm = rng.random(256) < 0.6
    pool = compare_pool(t)
    body, expect, s = [], [], {}
    for k, c in enumerate(CONDS):
        d = k + 1
        if form == "VCMP":
            body.append(f"VCMP.{c}.{t} P{d}, V0, V1, P0")
            expect.append((d, R.vcmp(c, t, a, b, pm)))
        elif k % 2 == 0:
            sb = pool[int(rng.integers(0, len(pool)))]
            body.append(f"VCMPS.{c}.{t} P{d}, V0, {scalar_text(sb, t)}, P0")
            expect.append((d, R.vcmps(c, t, a, sb, pm)))
        else:
            sb = int(a.view(UINT[R.SIZE[t]])[int(rng.integers(0, lanes))])   # a value some lanes hold
            s[10 + k] = (0x1234 << 40) | sb
            body.append(f"VCMPS.{c}.{t} P{d}, V0, S{10 + k}, P0")
            expect.append((d, R.vcmps(c, t, a, sb, pm)))
    p = {0: pm} | {d: rng.random(256) < 0.5 for d, _ in expect}
    m, r, regs = E.run_function("\n".join(body), v={0: a, 1: b}, p=p, s=s, dump_p=[d for d, _ in expect])
    assert r.fault is None, r.fault
    for (d, want), text in zip(expect, body):
        diff = np.nonzero(regs.p[d] != want)[0]
        assert diff.size == 0, f"{text}: mask bits {diff[:16].tolist()} differ (got {regs.p[d][diff[:16]].astype(int)})"


# -- select --------------------------------------------------------------------------------------------

@st.composite
def sel_cases(draw, scalar: bool):
    t = draw(st.sampled_from(TENSOR_T))
    profile = draw(st.sampled_from(["950", "950", "a2"]))
    ub_size = E.UB_SIZE[profile]
    lanes = lanes_of(t)
    repeat, mask, count, iters = draw(iterations(t, 10))
    nsrc = 1 if scalar else 2
    dst_blk = draw(st.integers(1, 4))
    src_blk = [draw(st.integers(0, 4)) for _ in range(nsrc)]
    dst_rep = draw(st.one_of(st.just(8), st.integers(0, 16)))
    src_rep = [draw(st.one_of(st.just(8), st.integers(0, 16))) for _ in range(nsrc)]
    dst_ext = extent(iters, 8, dst_blk, dst_rep)
    dst = place(draw, ub_size, dst_ext)
    srcs = [place(draw, ub_size, extent(iters, 8, src_blk[k], src_rep[k]), near=dst if draw(st.booleans()) else None)
            for k in range(nsrc)]
    nbytes = max(iters, 1) * lanes // 8
    sel = place(draw, ub_size, nbytes)
    assume(_disjoint((sel, sel + nbytes), [(dst, dst + dst_ext)]))
    if scalar:
        named = [("dstblk", dst_blk, 1), ("srcblk", src_blk[0], 1), ("dstrep", dst_rep, 8), ("srcrep", src_rep[0], 8)]
    else:
        named = [("dstblk", dst_blk, 1), ("src0blk", src_blk[0], 1), ("src1blk", src_blk[1], 1),
                 ("dstrep", dst_rep, 8), ("src0rep", src_rep[0], 8), ("src1rep", src_rep[1], 8)]
    fields = shape_fields(draw, repeat, mask, count, named)
    operands = [f"[0x{dst:x}]"] + [f"[0x{b:x}]" for b in srcs]
    prefix, sbits, raw = "", None, True
    if scalar:
        text, sbits, reg = draw(scalars(t))
        operands.append(text if reg is None else "S5")
        if reg is not None:
            prefix = f"MOV S5, {reg}\n"
        else:
            raw = not R._is_nan_bits(sbits, t)
    operands.append(f"[0x{sel:x}]")
    line = prefix + f"VSEL{'S' if scalar else ''}.{t} " + ", ".join(operands + fields)
    kw = shape_kwargs(repeat, mask, count) | {"dst_blk": dst_blk, "dst_rep": dst_rep,
                                              "src_blk": src_blk[0] if scalar else tuple(src_blk),
                                              "src_rep": src_rep[0] if scalar else tuple(src_rep)}
    return {"t": t, "profile": profile, "line": line, "dst": dst, "srcs": srcs, "sel": sel, "kw": kw, "scalar": sbits,
            "raw": raw, "seed": draw(st.integers(0, 2 ** 32 - 1)), "ub_size": ub_size, "shape": (repeat, mask, count)}


def check_sel(case) -> None:
    t = case["t"]
    note(f"profile {case['profile']}:\n{case['line']}")
    event(t)
    describe_shape(*case["shape"])
    rng = np.random.default_rng(case["seed"])
    image = E.random_image(rng, case["ub_size"], t)
    want = image.copy()
    if case["scalar"] is None:
        R.tensor_sel(want, t, case["dst"], *case["srcs"], case["sel"], **case["kw"])
    else:
        R.tensor_sels(want, t, case["dst"], case["srcs"][0], case["scalar"], case["sel"], **case["kw"])
    m, r = E.run_program(case["line"], case["profile"], ub=image)
    assert r.fault is None, f"{case['line']}: {r.fault}"
    check_mem(m.ub, want, t, f"profile {case['profile']}: {case['line']}", raw=case["raw"])


@SETTINGS
@given(sel_cases(scalar=False))
def test_tensor_vsel_matches_reference(case):
    check_sel(case)


@SETTINGS
@given(sel_cases(scalar=True))
def test_tensor_vsels_matches_reference(case):
    check_sel(case)


def test_tensor_select_by_hand():
    """s32 (64 lanes, 8 selector bytes an iteration): iteration r's bits at sel + 8r; lanes outside
    the mask keep dst; VSELS puts the scalar where the bit is clear."""
    a = np.arange(128, dtype="<i4") + 1000
    b = -np.arange(128, dtype="<i4")
    ub = np.zeros(0x2000, dtype=np.uint8)
    ub[0x0:0x200] = a.view(np.uint8)
    ub[0x200:0x400] = b.view(np.uint8)
    sel = np.array([0x01, 0x80, 0xFF, 0x00, 0x55, 0xAA, 0x0F, 0xF0, 0x3C, 0, 0, 0, 0, 0, 0, 0x81], dtype=np.uint8)
    ub[0x400:0x410] = sel
    ub[0x800:0xA00] = 0x11
    text = ("VSEL.s32 [0x800], [0x0], [0x200], [0x400], repeat=2, mask=60\n"
            "VSELS.s32 [0xc00], [0x0], -7, [0x400], count=70")
    m, r = E.run_program(text, ub=ub)
    assert r.fault is None, r.fault
    bits = [(int(sel[i // 8]) >> (i % 8)) & 1 for i in range(128)]
    got = m.read("ub", 0x800, "s32", 128).astype(np.int64)
    for i in range(128):
        lane = i % 64
        want = (1000 + i if bits[i] else -i) if lane < 60 else 0x11111111
        assert got[i] == want, f"VSEL lane {i}: {got[i]} != {want}"
    got = m.read("ub", 0xC00, "s32", 71).astype(np.int64)
    for i in range(71):
        want = (1000 + i if bits[i] else -7) if i < 70 else 0
        assert got[i] == want, f"VSELS element {i}: {got[i]} != {want}"


def test_compare_and_select_bit_operands_must_be_32_byte_aligned():
    """CONTRACT 6.3: the compare destination and the selector address are 32-byte aligned: an
    assembly error or a fault naming the alignment (the emulator may choose which)."""
    from vcore.assembler.diagnostics import AsmError

    for text in ("VCMP.EQ.f32 [0x110], [0x0], [0x100]", "VCMPS.LT.s16 [0x108], [0x0], 3",
                 "VSEL.f16 [0x200], [0x0], [0x100], [0x310]", "VSELS.u32 [0x200], [0x0], 7, [0x304]"):
        try:
            m, r = E.run_program(text)
        except AsmError as err:
            assert "align" in str(err).lower(), str(err)
            continue
        assert r.fault is not None and "align" in str(r.fault).lower(), f"{text}: {r.fault}"


def test_register_vsel_every_type():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 256, 256, dtype=np.uint8)
    b = rng.integers(0, 256, 256, dtype=np.uint8)
    pm = rng.random(256) < 0.5
    body = [f"VSEL.{t} V{k + 2}, V0, V1, P0" for k, t in enumerate(REG_T)]
    junk = {k + 2: rng.integers(0, 256, 256, dtype=np.uint8) for k in range(len(REG_T))}
    m, r, regs = E.run_function("\n".join(body), v={0: a, 1: b, **junk}, p={0: pm},
                                dump_v=[k + 2 for k in range(len(REG_T))])
    assert r.fault is None, r.fault
    for k, t in enumerate(REG_T):
        check_mem(regs.v[k + 2], R.vsel(t, a, b, pm), t, body[k], raw=True)


def test_mask_logic():
    rng = np.random.default_rng(4)
    p = {k: rng.random(256) < 0.5 for k in range(4)}
    p[3][:64] = True
    body = "PAND P4, P0, P1\nPOR P5, P1, P2\nPXOR P6, P2, P3\nPNOT P7, P0"
    m, r, regs = E.run_function(body, p=p, dump_p=range(8))
    assert r.fault is None, r.fault
    want = {**p, 4: R.pand(p[0], p[1]), 5: R.por(p[1], p[2]), 6: R.pxor(p[2], p[3]), 7: R.pnot(p[0])}
    for k in range(8):
        np.testing.assert_array_equal(regs.p[k], want[k], err_msg=f"P{k}")
    # in place and aliased operands, one after another
    body = "PAND P0, P0, P1\nPXOR P2, P2, P2\nPNOT P3, P3\nPOR P1, P1, P0\nPNOT P4, P2\nPXOR P5, P3, P1"
    m, r, regs = E.run_function(body, p=p, dump_p=range(6))
    assert r.fault is None, r.fault
    q = dict(p)
    q[0] = R.pand(q[0], q[1])
    q[2] = R.pxor(q[2], q[2])
    q[3] = R.pnot(q[3])
    q[1] = R.por(q[1], q[0])
    q[4] = R.pnot(q[2])
    q[5] = R.pxor(q[3], q[1])
    assert not q[2].any() and q[4].all()
    for k in range(6):
        np.testing.assert_array_equal(regs.p[k], q[k], err_msg=f"P{k} after:\n{body}")


# -- LD / ST / MOV ---------------------------------------------------------------------------------

LD_T = tuple(R.LD_TYPES)


def run_scalar(text: str, profile: str = "950", ub_writes=(), gm_writes=(), s=None):
    from vcore.assembler import assemble
    from vcore.emulator import Machine

    m = Machine(assemble(text), profile=profile)
    for addr, data in ub_writes:
        m.write("ub", addr, np.asarray(data, dtype=np.uint8))
    for addr, data in gm_writes:
        m.write("gm", addr, np.asarray(data, dtype=np.uint8))
    for k, value in (s or {}).items():
        v = value & U64
        m.s[k] = v - (1 << 64) if v >> 63 else v
    return m, m.run()


def _mem_model(space: str, profile: str, writes) -> np.ndarray:
    mem = np.zeros(E.UB_SIZE[profile] if space == "ub" else E.GM_SIZE, dtype=np.uint8)
    for addr, data in writes:
        mem[addr:addr + len(data)] = data
    return mem


def _operand(space: str, inner: str) -> str:
    return f"gm[{inner}]" if space == "gm" else f"[{inner}]"


@pytest.mark.parametrize("profile", ["950", "a2"])
@pytest.mark.parametrize("space", ["ub", "gm"])
def test_ld_every_type(space, profile):
    """Each T loaded from an absolute address, from [Sn] and from [Sn +- off], at random aligned
    places (half of them at the very end of the memory), over bytes whose top bits are often set."""
    rng = np.random.default_rng(len(space) * 10 + len(profile))
    size = E.UB_SIZE[profile] if space == "ub" else E.GM_SIZE
    writes = [(0x0, rng.integers(0, 256, 0x1000, dtype=np.uint8)),
              (size - 0x100, rng.integers(0, 256, 0x100, dtype=np.uint8))]
    for _addr, data in writes:
        data[rng.random(data.size) < 0.4] |= 0x80
    mem = _mem_model(space, profile, writes)
    prog, expect = [], []
    dest = 1
    for t in LD_T:
        n = R.LD_TYPES[t]
        a_abs = n * int(rng.integers(0, 0x1000 // n))
        near_end = rng.random() < 0.5
        a_reg = size - n * int(rng.integers(1, 0x100 // n)) if near_end else n * int(rng.integers(0, 0x1000 // n))
        off = n * int(rng.integers(1, 16))
        a_off, off_text = (a_reg - off, f"S30 - {off}") if near_end else (a_reg + off, f"S30 + {off}")
        prog.append(f"MOV S30, 0x{a_reg:x}")
        for addr, inner in ((a_abs, f"0x{a_abs:x}"), (a_reg, "S30"), (a_off, off_text)):
            line = f"LD.{t} S{dest}, {_operand(space, inner)}"
            prog.append(line)
            expect.append((dest, line, R.ld(mem, addr, t)))
            dest += 1
    kw = {"ub_writes": writes} if space == "ub" else {"gm_writes": writes}
    m, r = run_scalar("\n".join(prog), profile, **kw)
    assert r.fault is None, r.fault
    bad = [f"{line}: got {m.s[d] & U64:#x}, want {w & U64:#x}" for d, line, w in expect if (m.s[d] & U64) != (w & U64)]
    assert not bad, "\n".join(bad)


def test_ld_sign_and_zero_extension_by_hand():
    ub = np.zeros(0x100, dtype=np.uint8)
    ub[0x0:0x8] = 0xFF
    ub[0x10:0x18] = [0x80, 0, 0, 0, 0, 0, 0x00, 0x80]
    ub[0x20:0x28] = [0x7F, 0xFF, 0xFF, 0x7F, 0x00, 0x00, 0x00, 0x80]
    cases = [("s8", 0x0, -1), ("u8", 0x0, 0xFF), ("s16", 0x0, -1), ("u16", 0x0, 0xFFFF), ("s32", 0x0, -1),
             ("u32", 0x0, 0xFFFFFFFF), ("s64", 0x0, -1), ("u64", 0x0, U64),
             ("s8", 0x10, -128), ("u8", 0x10, 128), ("u16", 0x10, 0x80), ("s16", 0x16, -32768),
             ("u16", 0x16, 0x8000), ("s64", 0x10, -(1 << 63) + 0x80), ("u64", 0x10, (1 << 63) + 0x80),
             ("s8", 0x20, 127), ("s16", 0x20, -129), ("s32", 0x20, 0x7FFFFF7F), ("s32", 0x24, -(1 << 31)),
             ("u32", 0x24, 1 << 31)]
    for space in ("ub", "gm"):
        text = "\n".join(f"LD.{t} S{k + 1}, {_operand(space, hex(a))}" for k, (t, a, _) in enumerate(cases))
        m, r = run_scalar(text, **({"ub_writes": [(0, ub)]} if space == "ub" else {"gm_writes": [(0, ub)]}))
        assert r.fault is None, r.fault
        for k, (t, a, want) in enumerate(cases):
            assert R.ld(ub, a, t) & U64 == want & U64, ("oracle", t, a)
            got = m.s[k + 1] & U64
            assert got == want & U64, f"{space}: LD.{t} at {a:#x}: got {got:#x}, want {want & U64:#x}"


@pytest.mark.parametrize("space", ["ub", "gm"])
def test_st_every_type(space):
    """Each T stored from a register with random 64 bits (only the low bits land), to an absolute
    address and through [Sn +- off], the last one at the end of memory; a load reads it back."""
    rng = np.random.default_rng(21 + len(space))
    size = E.UB_SIZE["950"] if space == "ub" else E.GM_SIZE
    background = [(0x0, rng.integers(0, 256, 0x1000, dtype=np.uint8)),
                  (size - 0x100, rng.integers(0, 256, 0x100, dtype=np.uint8))]
    mem = _mem_model(space, "950", background)
    s = {k: int(rng.integers(0, 1 << 63)) * 2 + int(rng.integers(0, 2)) for k in range(1, 9)}
    prog, back = [], []
    for j, t in enumerate(LD_T):
        n = R.LD_TYPES[t]
        k = j + 1
        a_abs = 0x100 * j + n * int(rng.integers(0, 0x100 // n))
        a_end = size - 0x20 * (j + 1) + n * int(rng.integers(0, 0x20 // n))
        off = n * int(rng.integers(1, 8))
        through = _operand(space, f"S30 - {off}")
        prog += [f"MOV S30, 0x{a_end + off:x}", f"ST.{t} {_operand(space, hex(a_abs))}, S{k}",
                 f"ST.{t} {through}, S{k}", f"LD.{t} S{10 + j}, {through}"]
        R.st(mem, a_abs, t, s[k])
        R.st(mem, a_end, t, s[k])
        back.append((10 + j, t, a_end))
    wanted_back = [(d, t, R.ld(mem, a, t)) for d, t, a in back]
    kw = {"ub_writes": background} if space == "ub" else {"gm_writes": background}
    m, r = run_scalar("\n".join(prog), s=s, **kw)
    assert r.fault is None, r.fault
    got = np.array(m.ub) if space == "ub" else np.array(m.gm)
    for lo, hi in ((0, 0x1000), (size - 0x200, size)):
        bad = E.mem_mismatches(got[lo:hi], mem[lo:hi], "u8", base=lo)
        assert not bad, "\n".join(bad)
    for d, t, want in wanted_back:
        assert m.s[d] & U64 == want & U64, f"LD.{t} after ST.{t}: {m.s[d] & U64:#x} != {want & U64:#x}"


MOV_CONSTANTS = [("0xFFFFFFFFFFFFFFFF", U64), ("18446744073709551615", U64), ("1 << 63", 1 << 63),
                 ("0x8000000000000000", 1 << 63), ("-(1 << 63)", -(1 << 63)), ("-0x8000000000000000", -(1 << 63)),
                 ("-9223372036854775808", -(1 << 63)), ("0x123456789ABCDEF0", 0x123456789ABCDEF0),
                 ("-1", -1), ("0x3FFFFFFFFFFFF", (1 << 50) - 1), ("1 << 50", 1 << 50),
                 ("-(1 << 49) - 1", -(1 << 49) - 1),
                 ("0x7FFFFFFFFFFFFFFF", (1 << 63) - 1), ("0xFEDCBA9876543210", 0xFEDCBA9876543210)]


@pytest.mark.parametrize("profile", ["950", "a2"])
def test_mov_64_bit_constants_read_back_through_st_u64(profile):
    lines = []
    for k, (text, _) in enumerate(MOV_CONSTANTS):
        lines += [f"MOV S{k + 1}, {text}", f"ST.u64 gm[0x{0x100 + 8 * k:x}], S{k + 1}"]
    m, r = run_scalar("\n".join(lines), profile)
    assert r.fault is None, r.fault
    gm = np.array(m.gm[0x100:0x100 + 8 * len(MOV_CONSTANTS)]).view("<u8")
    for k, (text, value) in enumerate(MOV_CONSTANTS):
        want = R.mov64(value) & U64
        assert want == value & U64
        assert int(gm[k]) == want, f"MOV {text}; ST.u64: GM holds {int(gm[k]):#x}, want {want:#x}"
        assert m.s[k + 1] & U64 == want, f"MOV {text}: S holds {m.s[k + 1] & U64:#x}"


def test_mov_constant_out_of_range_is_an_error():
    from vcore.assembler import assemble
    from vcore.assembler.diagnostics import AsmError

    for text in ("0x10000000000000000", "-(1 << 63) - 1", "1 << 64"):
        with pytest.raises(AsmError):
            assemble(f"MOV S1, {text}")


def _pc_named(r, pc: int) -> bool:
    return r.fault is not None and re.search(rf"\bpc 0x0*{pc:x}\b", str(r.fault), re.IGNORECASE) is not None


@pytest.mark.parametrize("t", [t for t in LD_T if R.LD_TYPES[t] > 1])
@pytest.mark.parametrize("space", ["ub", "gm"])
def test_unaligned_register_address_faults(t, space):
    n = R.LD_TYPES[t]
    for mis in sorted({1, n // 2, n - 1}):
        for op in (f"LD.{t} S2, {_operand(space, 'S1')}", f"ST.{t} {_operand(space, 'S1 + 8')}, S3"):
            text = f"MOV S1, 0x{0x100 + mis:x}\n{op}\nMOV S4, 5"
            m, r = run_scalar(text)
            assert _pc_named(r, 0x8), f"{op} at 0x{0x100 + mis:x}: expected a fault at pc 0x8, got {r.fault}"
            assert m.s[4] == 0, "the instruction after the fault ran"


@pytest.mark.parametrize("space", ["ub", "gm"])
def test_out_of_range_register_address_faults(space):
    size = E.UB_SIZE["950"] if space == "ub" else E.GM_SIZE
    for t, addr in (("u32", size), ("u64", size - 8 + 8), ("s16", size + 0x1000)):
        m, r = run_scalar(f"MOV S1, 0x{addr:x}\nLD.{t} S2, {_operand(space, 'S1')}")
        assert _pc_named(r, 0x8), f"LD.{t} at 0x{addr:x}: expected a fault at pc 0x8, got {r.fault}"
    m, r = run_scalar(f"MOV S1, 0x{size - 8:x}\nLD.u64 S2, {_operand(space, 'S1')}")
    assert r.fault is None, r.fault


def test_unaligned_absolute_address_is_an_assembly_error():
    from vcore.assembler import assemble
    from vcore.assembler.diagnostics import AsmError

    for t in LD_T:
        n = R.LD_TYPES[t]
        if n == 1:
            assemble(f"LD.{t} S1, [0x3]\nST.{t} gm[0x7], S1")      # any byte address is aligned
            continue
        for space in ("ub", "gm"):
            for text in (f"LD.{t} S1, {_operand(space, hex(0x40 + n // 2))}",
                         f"ST.{t} {_operand(space, hex(0x40 + n - 1))}, S1"):
                with pytest.raises(AsmError) as err:
                    assemble(text)
                assert "align" in str(err.value).lower(), str(err.value)


def test_unaligned_load_exits_1_from_the_cli(tmp_path):
    path = tmp_path / "k.asm"
    path.write_text("MOV S1, 0x101\nLD.u16 S2, [S1]\n")
    done = subprocess.run([str(Path(sys.executable).with_name("vcore")), "run", str(path)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)


def test_ld_st_are_ordered_with_other_pipes_only_by_flags():
    """CONTRACT 6.6: LD / ST run on S at their own time; a load of bytes a DMA or a V instruction is
    still writing is a race; SETFLAG / WAITFLAG (or BARRIER ALL) order it and it sees the new bytes.
    A store before a V instruction or a DMA is ordered by the scalar unit's dispatch order."""
    gm = np.zeros(0x1000, dtype=np.uint8)
    gm[:256] = np.arange(256, dtype=np.uint8) + 1
    want_word = 0x08070605                                  # GM bytes 4..7
    m, r = E.run_program("DMA.GM2UB [0x0], gm[0x0], len=8\nLD.u32 S1, [0x4]", gm=gm)
    assert r.fault is None and any(x.space == "ub" for x in r.races), r.races
    for sync in ("SETFLAG MTE2, S, 0\nWAITFLAG MTE2, S, 0", "BARRIER ALL"):
        m, r = E.run_program(f"DMA.GM2UB [0x0], gm[0x0], len=8\n{sync}\nLD.u32 S1, [0x4]", gm=gm)
        assert r.fault is None and not r.races, (sync, r.races)
        assert m.s[1] == want_word, (sync, hex(m.s[1]))
    m, r = E.run_program("VDUP.s32 [0x100], 9, mask=1\nLD.s32 S1, [0x100]")
    assert r.fault is None and any(x.space == "ub" for x in r.races), r.races
    m, r = E.run_program("MOV S3, -7\nST.s32 [0x0], S3\nVADDS.s32 [0x100], [0x0], 1, mask=1\n"
                         "SETFLAG V, S, 1\nWAITFLAG V, S, 1\nLD.s32 S1, [0x100]\n"
                         "ST.u16 gm[0x40], S3\nDMA.GM2UB [0x200], gm[0x40], len=1\n"
                         "SETFLAG MTE2, S, 0\nWAITFLAG MTE2, S, 0\nLD.u16 S2, [0x200]")
    assert r.fault is None and not r.races, r.races
    assert m.s[1] == -6 and m.s[2] == 0xFFF9, (m.s[1], m.s[2])


def test_wide_mov_inside_a_vector_function():
    body = ("MOV S7, 0x123456789ABCDEF0\nMOV S8, -0x8000000000000000\nMOV S9, 0xFFFFFFFFFFFFFFFF\n"
            "MOV S10, 1 << 50")
    m, r, regs = E.run_function(body, dump_s=(7, 8, 9, 10))
    assert r.fault is None, r.fault
    got = {k: v & U64 for k, v in regs.s.items()}
    assert got == {7: 0x123456789ABCDEF0, 8: 1 << 63, 9: U64, 10: 1 << 50}, {k: hex(v) for k, v in got.items()}


# -- the a2 profile ------------------------------------------------------------------------------------

@pytest.mark.parametrize("pair", sorted(R.CONV_950_ONLY), ids=".".join)
def test_a2_refuses_the_950_only_pairs(pair):
    import vcore

    text = f"NOP\n{conv_mnemonic(pair)} [0x0], [0x1000]\n"
    vcore.load_text(text, profile="950", filename="k.asm")
    with pytest.raises(vcore.ProgramError) as err:
        vcore.load_text(text, profile="a2", filename="k.asm")
    msg = str(err.value)
    assert "k.asm:2" in msg and "950" in msg, msg


def test_a2_refusal_exits_2_from_the_cli(tmp_path):
    path = tmp_path / "k.asm"
    path.write_text("VCONV.s16.s8 [0x0], [0x1000], count=8\n")
    done = subprocess.run([str(Path(sys.executable).with_name("vcore")), "run", "--profile", "a2", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "950" in done.stderr, done.stderr
