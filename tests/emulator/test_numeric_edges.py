"""Strict numerics at the edges, emulator vs tests/reference.py and hand-written IEEE 754 values.

Expected values come from the independent reference (``tests/reference.py``) or are written out by
hand from IEEE 754 and shared/CONTRACT.md (section 2); never from the emulator's own code.

What the documents fix, and so what is asserted here:

* f16 / bf16 / f32 add, sub, mul, max, min, abs, relu, sqrt: IEEE, round to nearest even
  (CONTRACT 2.1): bit exact, gradual underflow, overflow to inf, ties to even.
* exp, ln: within 2 ulp (CONTRACT 2.1); exact where the IEEE result is exact or special
  (exp(+-0) = 1, exp(-inf) = +0, exp(+inf) = +inf, exp(huge) = +inf, ln(1) = +0, ln(+-0) = -inf,
  ln(+inf) = +inf, ln(x < 0) = NaN, NaN in gives NaN out).
* NaN results: the contract does not say which NaN, so any NaN passes (payload and sign free),
  except ``abs`` which IEEE 754 (5.5.1) defines as clearing the sign bit only, bit for bit.
  IEEE 754 (6.2) also asks that an arithmetic result NaN be quiet; that is checked separately.
* max / min: the contract only says "IEEE"; the reference (and docs/semantics.md) read it as IEEE
  754-2019 maximum / minimum: NaN if either input is NaN, max(+0, -0) = +0, min(+0, -0) = -0.
* Integer add / sub / mul wrap (CONTRACT 2.1); abs of the most negative value wraps to itself.
* A scalar register operand is its low bits reinterpreted as T (CONTRACT 2.1).
* VSUB.u32 carry: {carry, d} = {0, a} + {0, ~b} + 1, carry set where a >= b (no borrow), all four
  mask bits of the lane (CONTRACT 2.2, 3.1, seed 001).
* Tensor lanes outside the mask keep the destination's bytes; register compute lanes outside Pm
  are zero, VST leaves UB bytes of inactive lanes alone (CONTRACT 2.1, 2.2).
* Scalar ALU: 64-bit wrap (docs/semantics.md; the contract says the registers are 64-bit); shift
  counts modulo 64 and a logical SHR are docs/semantics.md choices.
"""

from __future__ import annotations

import math

import emu_support as E
import numpy as np
import pytest

from tests import reference as R

UINT = {1: np.dtype("<u1"), 2: np.dtype("<u2"), 4: np.dtype("<u4")}
FLOATS = ("f16", "bf16", "f32")
BINARY = ("add", "sub", "mul", "max", "min")
UNARY = ("exp", "ln", "sqrt", "abs", "relu")
SCALAR = ("adds", "muls", "maxs", "mins")
NAN = None  # "any NaN" in the hand tables

# (exponent bits, mantissa bits) of the IEEE-like float types
FMT = {"f16": (5, 10), "bf16": (8, 7), "f32": (8, 23)}


# -- helpers ---------------------------------------------------------------------------------------

def run(text, ub=None, s=None, profile="950"):
    """Assemble and run ``text`` from a given state (UB image at 0, S register values); the run
    must not fault. Register code goes in a vector function (``E.vf``, or ``run_reg``)."""
    from vcore.assembler import assemble
    from vcore.emulator import Machine

    m = Machine(assemble(text), profile=profile)
    if ub is not None:
        ub = np.asarray(ub, dtype=np.uint8)
        m.ub[:ub.size] = ub
    for k, val in (s or {}).items():
        m.s[k] = wrap64(val)
    r = m.run()
    assert r.fault is None, f"faulted: {r.fault}\n{text}"
    return m


def run_reg(body, ub=None, s=None, v=None, p=None, dump_v=(), dump_p=(), dump_s=()):
    """``body`` (register code) as one vector function (CONTRACT 7), from a given state: UB image
    at 0, S values, and V / P values that the function loads first (it starts with them zero);
    the registers in ``dump_*`` are stored at its end (``emu_support.FunctionHarness``). The run
    must not fault. Returns the machine and the registers read back."""
    m, r, regs = E.run_function(body, ub=ub, s=s, v=v, p=p, dump_v=dump_v, dump_p=dump_p, dump_s=dump_s)
    assert r.fault is None, f"faulted: {r.fault}\n{body}"
    return m, regs


def wrap64(x: int) -> int:
    x &= (1 << 64) - 1
    return x - (1 << 64) if x >> 63 else x


def pack(bits, t) -> np.ndarray:
    return np.array([int(b) for b in bits], dtype=np.uint64).astype(UINT[R.SIZE[t]]).view(np.uint8)


def unpack(buf, t) -> list[int]:
    return [int(x) for x in np.ascontiguousarray(np.asarray(buf, dtype=np.uint8)).view(UINT[R.SIZE[t]])]


def is_nan(bits: int, t: str) -> bool:
    return t in R.FLOAT_TYPES and math.isnan(R.decode(bits, t))


def is_quiet_nan(bits: int, t: str) -> bool:
    _e, mbits = FMT[t]
    return is_nan(bits, t) and bool(bits >> (mbits - 1) & 1)


def hx(bits: int, t: str) -> str:
    return f"0x{bits:0{2 * R.SIZE[t]}x}"


def ordinal(bits: int, t: str) -> int:
    sign = 1 << (8 * R.SIZE[t] - 1)
    return -(bits & (sign - 1)) if bits & sign else bits


def pad(bits: list[int], t: str, fill: int) -> list[int]:
    lanes = 256 // R.SIZE[t]
    n = -(-len(bits) // lanes) * lanes
    return list(bits) + [fill] * (n - len(bits))


def check(labels, want, got, t, *, exact_nan=False, ulp=None):
    """Lane by lane: same bits, or (float, unless ``exact_nan``) both NaN; ``ulp`` is an optional
    per-lane list of allowed ulp distances for finite results."""
    bad = []
    for k, (label, w, g) in enumerate(zip(labels, want, got, strict=True)):
        if w == g:
            continue
        if w is NAN or (not exact_nan and is_nan(w, t)):
            if is_nan(g, t):
                continue
            bad.append(f"{label}: want NaN, got {hx(g, t)} ({R.decode(g, t)!r})")
            continue
        if ulp is not None and ulp[k] and not is_nan(g, t) and abs(ordinal(w, t) - ordinal(g, t)) <= ulp[k]:
            continue
        bad.append(f"{label}: want {hx(w, t)} ({R.decode(w, t)!r}), got {hx(g, t)} ({R.decode(g, t)!r})")
    assert not bad, f"{len(bad)} lane(s) differ:\n  " + "\n  ".join(bad[:40])


# -- the special values ----------------------------------------------------------------------------

def float_specials(t: str) -> list[tuple[str, int]]:
    """+-0, +-smallest and +-largest subnormal, +-smallest normal, +-largest finite, +-inf, quiet,
    signalling and negative NaN, +-1, 0.5, 1.5, 1 + ulp and half an ulp of 1 (so that 1 + h,
    (1 + ulp) + h, 1.5 * (1 + ulp), min_sub * 0.5, max_sub * 0.5 ... are exact ties)."""
    ebits, mbits = FMT[t]
    sign = 1 << (ebits + mbits)
    inf = ((1 << ebits) - 1) << mbits
    one = R.encode(1.0, t)
    return [
        ("+0", 0), ("-0", sign),
        ("+min_sub", 1), ("-min_sub", sign | 1),
        ("+max_sub", (1 << mbits) - 1), ("-max_sub", sign | ((1 << mbits) - 1)),
        ("+min_norm", 1 << mbits), ("-min_norm", sign | (1 << mbits)),
        ("+max", inf - 1), ("-max", sign | (inf - 1)),
        ("+inf", inf), ("-inf", sign | inf),
        ("qnan", inf | (1 << (mbits - 1))), ("snan", inf | 1), ("-qnan", sign | inf | (1 << (mbits - 1))),
        ("+1", one), ("-1", sign | one),
        ("0.5", R.encode(0.5, t)), ("1.5", R.encode(1.5, t)),
        ("1+ulp", one + 1), ("half_ulp_of_1", R.encode(2.0 ** -(mbits + 1), t)),
    ]


SPECIALS = {t: float_specials(t) for t in FLOATS}
NAMES = {t: {b: n for n, b in SPECIALS[t]} for t in FLOATS}


def name(bits: int, t: str) -> str:
    n = NAMES.get(t, {}).get(bits)
    return f"{n}({hx(bits, t)})" if n else hx(bits, t)


def int_specials(t: str) -> list[int]:
    """0, 1, 2, 3, the type's extremes and their neighbours, a checkerboard."""
    bits = 8 * R.SIZE[t]
    top = (1 << bits) - 1
    half = top >> 1
    return sorted({0, 1, 2, 3, top, top - 1, half, half - 1, half + 1, half + 2, top // 3})


def int_name(bits: int, t: str) -> str:
    return f"{hx(bits, t)}({R.decode(bits, t)})"


# -- program builders ------------------------------------------------------------------------------

A, B, D = 0x0, 0x10000, 0x20000     # operand regions (64 KiB each)
SENTINEL = 0xA5


def mn(op: str) -> str:
    return "V" + op.upper()


def run_binary(op, t, form, a_bits, b_bits) -> list[int]:
    """Lane k of the result of op(a[k], b[k]) over as many iterations / registers as needed."""
    size = R.SIZE[t]
    lanes = 256 // size
    fill = R.encode(1, t)
    a = pad(a_bits, t, fill)
    b = pad(b_bits, t, fill)
    iters = len(a) // lanes
    ub = np.full(D + 0x10000, SENTINEL, dtype=np.uint8)
    ub[A:A + 256 * iters] = pack(a, t)
    ub[B:B + 256 * iters] = pack(b, t)
    if form == "tensor":
        text = f"{mn(op)}.{t} [0x{D:x}], [0x{A:x}], [0x{B:x}], repeat={iters}"
    else:
        lines = [f"PSET.b{8 * size} P0, ALL"]
        for c in range(iters):
            lines += [f"VLD.{t} V0, [0x{A + 256 * c:x}]", f"VLD.{t} V1, [0x{B + 256 * c:x}]",
                      f"{mn(op)}.{t} V2, V0, V1, P0", f"VST.{t} [0x{D + 256 * c:x}], V2, P0"]
        text = E.vf("\n".join(lines))
    m = run(text, ub=ub)
    return unpack(m.ub[D:D + len(a_bits) * size], t)


def run_unary(op, t, form, a_bits) -> list[int]:
    size = R.SIZE[t]
    lanes = 256 // size
    a = pad(a_bits, t, R.encode(1, t))
    iters = len(a) // lanes
    ub = np.full(D + 0x10000, SENTINEL, dtype=np.uint8)
    ub[A:A + 256 * iters] = pack(a, t)
    if form == "tensor":
        text = f"{mn(op)}.{t} [0x{D:x}], [0x{A:x}], repeat={iters}"
    else:
        lines = [f"PSET.b{8 * size} P0, ALL"]
        for c in range(iters):
            lines += [f"VLD.{t} V0, [0x{A + 256 * c:x}]", f"{mn(op)}.{t} V2, V0, P0",
                      f"VST.{t} [0x{D + 256 * c:x}], V2, P0"]
        text = E.vf("\n".join(lines))
    m = run(text, ub=ub)
    return unpack(m.ub[D:D + len(a_bits) * size], t)


def run_scalar(op, t, form, a_bits, operands, s=None) -> list[list[int]]:
    """For each scalar operand text (an immediate or ``Sn``): op(a[k], scalar) for every lane k of
    a (one iteration / register); returns one list of result bits per operand."""
    size = R.SIZE[t]
    assert len(a_bits) <= 256 // size
    a = pad(a_bits, t, R.encode(1, t))
    ub = np.full(D + 0x10000, SENTINEL, dtype=np.uint8)
    ub[A:A + 256] = pack(a, t)
    lines = [] if form == "tensor" else [f"PSET.b{8 * size} P0, ALL", f"VLD.{t} V0, [0x{A:x}]"]
    for k, operand in enumerate(operands):
        dst = D + 256 * k
        if form == "tensor":
            lines.append(f"{mn(op)}.{t} [0x{dst:x}], [0x{A:x}], {operand}")
        else:
            vd = 1 + k % 30
            lines += [f"{mn(op)}.{t} V{vd}, V0, {operand}, P0", f"VST.{t} [0x{dst:x}], V{vd}, P0"]
    text = "\n".join(lines)
    m = run(text if form == "tensor" else E.vf(text), ub=ub, s=s)
    return [unpack(m.ub[D + 256 * k:D + 256 * k + len(a_bits) * size], t) for k in range(len(operands))]


FORMS = ("tensor", "register")

# Regressions fixed when this file was written: VABS.bf16 of a NaN returned the canonical 0x7fc0
# (abs must clear the sign bit only, IEEE 754 5.5.1); f16/f32 VMAX/VMIN passed a signalling NaN
# through unquieted (IEEE 754 6.2); float literals were rounded twice, through float64.


# ==================================================================================================
# 1. float ops over the full cross product of the specials
# ==================================================================================================

@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("t", FLOATS)
@pytest.mark.parametrize("op", BINARY)
def test_float_binary_cross_product(op, t, form):
    sp = SPECIALS[t]
    pairs = [(x, y) for x in sp for y in sp]
    a = [x[1] for x, _ in pairs]
    b = [y[1] for _, y in pairs]
    want = [R.lane_binary(op, t, x, y) for x, y in zip(a, b)]
    got = run_binary(op, t, form, a, b)
    labels = [f"{op}({xn}, {yn}) [{hx(x, t)}, {hx(y, t)}]" for (xn, x), (yn, y) in pairs]
    check(labels, want, got, t)


def _unary_tolerance(op, t, x, want) -> int:
    """2 ulp for exp / ln of an ordinary input whose result is inexact; 0 where IEEE gives an
    exact or special result."""
    if op not in ("exp", "ln"):
        return 0
    v = R.decode(x, t)
    if math.isnan(v) or math.isinf(v) or v == 0.0 or (op == "ln" and v == 1.0):
        return 0
    if is_nan(want, t) or math.isinf(R.decode(want, t)):
        return 0
    return 2


def _unary_params():
    out = []
    for op in UNARY:
        for t in FLOATS:
            for form in FORMS:
                out.append(pytest.param(op, t, form, id=f"{op}-{t}-{form}"))
    return out


@pytest.mark.parametrize("op,t,form", _unary_params())
def test_float_unary_specials(op, t, form):
    sp = SPECIALS[t]
    a = [b for _, b in sp]
    want = [R.lane_unary(op, t, x) for x in a]
    got = run_unary(op, t, form, a)
    labels = [f"{op}({n}) [{hx(x, t)}]" for n, x in sp]
    tol = [_unary_tolerance(op, t, x, w) for x, w in zip(a, want)]
    # abs is a sign-bit operation (IEEE 754 5.5.1): NaNs too must come out bit for bit
    check(labels, want, got, t, exact_nan=(op == "abs"), ulp=tol)
    if op == "exp":
        # e^x > 0: within-ulp must not let a -0 through
        bad = [lbl for lbl, g in zip(labels, got) if not is_nan(g, t) and g >> (8 * R.SIZE[t] - 1)]
        assert not bad, f"exp gave a negative result: {bad}"


def _scalar_cases(t):
    """(operand text for the assembly, scalar bits for the reference, register values)."""
    sp = SPECIALS[t]
    reg = [f"S{k + 1}" for k in range(len(sp))]
    # register form: the bit pattern in the low bits, garbage above (CONTRACT: low bits as T)
    width = 8 * R.SIZE[t]
    regs = {k + 1: (0x5A5A5A5A5A5A5A5A << width) | b for k, (_n, b) in enumerate(sp)}
    return sp, reg, regs


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("t", FLOATS)
@pytest.mark.parametrize("op", SCALAR)
def test_float_scalar_register_operand_cross_product(op, t, form):
    """VxxS with an Sn scalar: every special as the scalar (its bits in the low bits of Sn, garbage
    above) against every special in the lanes."""
    sp, operands, regs = _scalar_cases(t)
    a = [b for _, b in sp]
    got = run_scalar(op, t, form, a, operands, s=regs)
    lane_op = R.SCALAR_OPS[op]
    labels, want, flat = [], [], []
    for (sn, sb), g in zip(sp, got):
        for (xn, xb), gx in zip(sp, g):
            labels.append(f"{op}({xn}, scalar {sn}) [{hx(xb, t)}, S low bits {hx(sb, t)}]")
            want.append(R.lane_binary(lane_op, t, xb, sb))
            flat.append(gx)
    check(labels, want, flat, t)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("t", FLOATS)
@pytest.mark.parametrize("op", SCALAR)
def test_float_scalar_immediate_cross_product(op, t, form):
    """VxxS with a float immediate: every non-NaN special written as an exact decimal, and `nan`,
    against every special in the lanes."""
    sp = SPECIALS[t]
    imms = [(n, b) for n, b in sp if not is_nan(b, t)] + [("nan", R.QNAN[t])]
    operands = [E.float_literal(R.decode(b, t)) if n != "nan" else "nan" for n, b in imms]
    a = [b for _, b in sp]
    got = run_scalar(op, t, form, a, operands)
    lane_op = R.SCALAR_OPS[op]
    labels, want, flat = [], [], []
    for (_sn, sb), lit, g in zip(imms, operands, got):
        for (xn, xb), gx in zip(sp, g):
            labels.append(f"{op}({xn}, {lit}) [{hx(xb, t)}]")
            want.append(R.lane_binary(lane_op, t, xb, sb))
            flat.append(gx)
    check(labels, want, flat, t)


# -- the same edges written out by hand (IEEE 754, round to nearest even) ----------------------------
# (op, type, a bits, b bits, expected bits or NAN)
HAND_BINARY = [
    # ties to even
    ("add", "f16", 0x3C00, 0x1000, 0x3C00),      # 1 + 2^-11: halfway, down to even 1.0
    ("add", "f16", 0x3C01, 0x1000, 0x3C02),      # (1 + 2^-10) + 2^-11: halfway, up to even
    ("sub", "f16", 0x3C01, 0x1000, 0x3C00),      # 1 + 2^-11 again, from above
    ("add", "f16", 0x3E00, 0x1000, 0x3E00),      # 1.5 + 2^-11: halfway, 1.5 is even
    ("mul", "f16", 0x3C01, 0x3E00, 0x3E02),      # 1.5 * (1 + 2^-10) = 1.5 + 2^-10 + 2^-11
    ("add", "bf16", 0x3F80, 0x3B80, 0x3F80),     # 1 + 2^-8
    ("add", "bf16", 0x3F81, 0x3B80, 0x3F82),
    ("mul", "bf16", 0x3F81, 0x3FC0, 0x3FC2),
    ("add", "f32", 0x3F800000, 0x33800000, 0x3F800000),   # 1 + 2^-24
    ("add", "f32", 0x3F800001, 0x33800000, 0x3F800002),
    ("mul", "f32", 0x3F800001, 0x3FC00000, 0x3FC00002),
    # overflow: max + half an ulp of max is a tie that rounds (to even) out of range -> inf
    ("add", "f16", 0x7BFF, 0x4C00, 0x7C00),      # 65504 + 16 = 65520
    ("add", "f16", 0x7BFF, 0x4BFF, 0x7BFF),      # 65504 + 15.99 stays
    ("sub", "f16", 0xFBFF, 0x4C00, 0xFC00),
    ("mul", "f16", 0x7BFF, 0x4000, 0x7C00),
    ("add", "bf16", 0x7F7F, 0x7B00, 0x7F80),     # max + 2^119
    ("add", "f32", 0x7F7FFFFF, 0x73000000, 0x7F800000),   # max + 2^103
    ("mul", "f32", 0xFF7FFFFF, 0x40000000, 0xFF800000),
    # underflow to subnormal / zero, ties to even there too
    ("sub", "f16", 0x0400, 0x0001, 0x03FF),      # min normal - min sub = max sub (exact)
    ("mul", "f16", 0x0001, 0x3800, 0x0000),      # 2^-25: halfway between 0 and min sub -> +0
    ("mul", "f16", 0x8001, 0x3800, 0x8000),      # ... -> -0
    ("mul", "f16", 0x0001, 0x3E00, 0x0002),      # 1.5 * min sub -> 2 * min sub
    ("mul", "f16", 0x03FF, 0x3800, 0x0200),      # 511.5 min sub -> 512
    ("mul", "f16", 0x0400, 0x0400, 0x0000),      # 2^-28
    ("mul", "f16", 0x8400, 0x0400, 0x8000),
    ("mul", "bf16", 0x0001, 0x3F00, 0x0000),
    ("mul", "bf16", 0x0001, 0x3FC0, 0x0002),
    ("mul", "bf16", 0x007F, 0x3F00, 0x0040),
    ("mul", "f32", 0x00000001, 0x3F000000, 0x00000000),
    ("mul", "f32", 0x00000001, 0x3FC00000, 0x00000002),
    ("mul", "f32", 0x007FFFFF, 0x3F000000, 0x00400000),
    ("add", "f32", 0x00000001, 0x80000001, 0x00000000),   # x + (-x) = +0
    # signed zeros
    ("add", "f16", 0x0000, 0x8000, 0x0000),
    ("add", "f16", 0x8000, 0x0000, 0x0000),
    ("add", "f16", 0x8000, 0x8000, 0x8000),
    ("sub", "f16", 0x8000, 0x0000, 0x8000),
    ("sub", "f16", 0x0000, 0x0000, 0x0000),
    ("sub", "f16", 0x3C00, 0x3C00, 0x0000),
    ("mul", "f16", 0x8000, 0x3C00, 0x8000),
    ("mul", "f16", 0x0000, 0xBC00, 0x8000),
    ("mul", "f16", 0x8000, 0x8000, 0x0000),
    ("max", "f16", 0x0000, 0x8000, 0x0000),      # IEEE 754-2019 maximum: +0 > -0
    ("max", "f16", 0x8000, 0x0000, 0x0000),
    ("min", "f16", 0x0000, 0x8000, 0x8000),
    ("min", "f16", 0x8000, 0x0000, 0x8000),
    ("max", "f16", 0x8000, 0x8000, 0x8000),
    ("min", "f16", 0x0000, 0x0000, 0x0000),
    ("max", "bf16", 0x8000, 0x0000, 0x0000),
    ("min", "bf16", 0x0000, 0x8000, 0x8000),
    ("max", "f32", 0x80000000, 0x00000000, 0x00000000),
    ("min", "f32", 0x00000000, 0x80000000, 0x80000000),
    # invalid operations and NaN operands
    ("mul", "f16", 0x7C00, 0x0000, NAN),
    ("mul", "f16", 0x8000, 0xFC00, NAN),
    ("add", "f16", 0x7C00, 0xFC00, NAN),
    ("sub", "f16", 0x7C00, 0x7C00, NAN),
    ("add", "f16", 0x7C00, 0x7C00, 0x7C00),
    ("sub", "f16", 0xFC00, 0x7C00, 0xFC00),
    ("add", "f16", 0x7C01, 0x3C00, NAN),
    ("max", "f16", 0x7E00, 0x3C00, NAN),
    ("max", "f16", 0x3C00, 0x7C01, NAN),
    ("min", "f16", 0xFE00, 0xFC00, NAN),
    ("max", "f16", 0x7C00, 0x7BFF, 0x7C00),
    ("min", "f16", 0xFC00, 0xFBFF, 0xFC00),
    ("max", "f16", 0x0001, 0x0000, 0x0001),      # subnormals compare by value
    ("min", "f16", 0x8001, 0x0000, 0x8001),
    ("mul", "f32", 0x7F800000, 0x00000000, NAN),
    ("add", "bf16", 0x7F80, 0xFF80, NAN),
]

# (op, type, input bits, expected bits or NAN)
HAND_UNARY = [
    ("sqrt", "f16", 0x8000, 0x8000),    # sqrt(-0) = -0
    ("sqrt", "f16", 0x0000, 0x0000),
    ("sqrt", "f16", 0x8001, NAN),
    ("sqrt", "f16", 0xBC00, NAN),
    ("sqrt", "f16", 0xFC00, NAN),
    ("sqrt", "f16", 0x7C00, 0x7C00),
    ("sqrt", "f16", 0x0001, 0x0C00),    # sqrt(2^-24) = 2^-12
    ("sqrt", "f16", 0x0400, 0x2000),    # sqrt(2^-14) = 2^-7
    ("sqrt", "f16", 0x7BFF, 0x5BFF),    # sqrt(65504) = 255.94 -> 255.875
    ("sqrt", "bf16", 0x8000, 0x8000),
    ("sqrt", "f32", 0x80000000, 0x80000000),
    ("sqrt", "f32", 0x00000001, 0x1A3504F3),   # sqrt(2^-149) = 2^-74.5
    ("abs", "f16", 0x8000, 0x0000),
    ("abs", "f16", 0xFC00, 0x7C00),
    ("abs", "f16", 0xFE00, 0x7E00),     # NaN: only the sign bit changes
    ("abs", "f16", 0xFC01, 0x7C01),     # a signalling NaN stays signalling
    ("abs", "f16", 0x7C01, 0x7C01),
    ("abs", "bf16", 0xFF81, 0x7F81),
    ("abs", "bf16", 0x7F81, 0x7F81),
    ("abs", "bf16", 0xFFC1, 0x7FC1),
    ("abs", "bf16", 0x7FFF, 0x7FFF),
    ("abs", "bf16", 0xFFC0, 0x7FC0),
    ("abs", "f32", 0xFFC00001, 0x7FC00001),
    ("abs", "f32", 0x80000001, 0x00000001),
    ("relu", "f16", 0x8000, 0x0000),    # max(-0, +0) = +0
    ("relu", "f16", 0x0000, 0x0000),
    ("relu", "f16", 0x8001, 0x0000),
    ("relu", "f16", 0x0001, 0x0001),
    ("relu", "f16", 0xFC00, 0x0000),
    ("relu", "f16", 0x7C00, 0x7C00),
    ("relu", "f16", 0x7E00, NAN),
    ("relu", "f32", 0x80000000, 0x00000000),
    ("exp", "f16", 0x0000, 0x3C00),
    ("exp", "f16", 0x8000, 0x3C00),
    ("exp", "f16", 0xFC00, 0x0000),
    ("exp", "f16", 0x7C00, 0x7C00),
    ("exp", "f16", 0x7BFF, 0x7C00),     # e^65504 overflows
    ("exp", "f16", 0x4C00, 0x7C00),     # e^16 = 8.9e6 > 65504
    ("exp", "f16", 0x7E00, NAN),
    ("exp", "bf16", 0x7F7F, 0x7F80),
    ("exp", "f32", 0x7F7FFFFF, 0x7F800000),
    ("exp", "f32", 0xFF800000, 0x00000000),
    ("ln", "f16", 0x3C00, 0x0000),      # ln(1) = +0
    ("ln", "f16", 0x0000, 0xFC00),      # ln(+-0) = -inf
    ("ln", "f16", 0x8000, 0xFC00),
    ("ln", "f16", 0x7C00, 0x7C00),
    ("ln", "f16", 0xBC00, NAN),
    ("ln", "f16", 0x8001, NAN),
    ("ln", "f16", 0xFC00, NAN),
    ("ln", "f16", 0x7C01, NAN),
    ("ln", "bf16", 0x3F80, 0x0000),
    ("ln", "f32", 0x3F800000, 0x00000000),
    ("ln", "f32", 0x80000000, 0xFF800000),
]


def _hand_params(rows, forms=FORMS):
    out = []
    for row in rows:
        t = row[1]
        ident = f"{row[0]}.{t}(" + ",".join(hx(b, t) for b in row[2:-1]) + ")"
        for form in forms:
            out.append(pytest.param(*row, form, id=f"{ident}-{form}"))
    return out


@pytest.mark.parametrize("op,t,a,b,want,form", _hand_params(HAND_BINARY))
def test_hand_written_binary_edges(op, t, a, b, want, form):
    (got,) = run_binary(op, t, form, [a], [b])
    ok = is_nan(got, t) if want is NAN else got == want
    assert ok, f"{op}.{t}({hx(a, t)}, {hx(b, t)}): want {'NaN' if want is NAN else hx(want, t)}, got {hx(got, t)}"


@pytest.mark.parametrize("op,t,a,want,form", _hand_params(HAND_UNARY))
def test_hand_written_unary_edges(op, t, a, want, form):
    (got,) = run_unary(op, t, form, [a])
    ok = is_nan(got, t) if want is NAN else got == want
    assert ok, f"{op}.{t}({hx(a, t)}): want {'NaN' if want is NAN else hx(want, t)}, got {hx(got, t)}"


def test_reference_agrees_with_hand_tables():
    """The oracle itself, against the hand-written IEEE values (a check on tests/reference.py)."""
    bad = []
    for op, t, a, b, w in HAND_BINARY:
        r = R.lane_binary(op, t, a, b)
        if not (is_nan(r, t) if w is NAN else r == w):
            bad.append(f"{op}.{t}({hx(a, t)}, {hx(b, t)}) -> {hx(r, t)}")
    for op, t, a, w in HAND_UNARY:
        r = R.lane_unary(op, t, a)
        if not (is_nan(r, t) if w is NAN else r == w):
            bad.append(f"{op}.{t}({hx(a, t)}) -> {hx(r, t)}")
    assert not bad, bad


# -- IEEE 754 6.2: a NaN produced by an arithmetic operation is quiet ---------------------------------
# Stricter than "any NaN": the contract says these ops are IEEE, and IEEE 754 (6.2, 7.2, and 9.6 for
# 2019 maximum / minimum) delivers a quiet NaN for a signalling-NaN operand or an invalid operation.
# The reference agrees (its NaN results are the canonical quiet NaN).

QUIET_OPS = (*BINARY, "maxs", "mins", "sqrt", "exp", "ln")


def _quiet_params():
    out = []
    for op in QUIET_OPS:
        for t in FLOATS:
            for form in FORMS:
                out.append(pytest.param(op, t, form, id=f"{op}-{t}-{form}"))
    return out


@pytest.mark.parametrize("op,t,form", _quiet_params())
def test_nan_results_are_quiet(op, t, form):
    sp = dict(SPECIALS[t])
    snan, qnan, nqnan, one, inf = sp["snan"], sp["qnan"], sp["-qnan"], sp["+1"], sp["+inf"]
    if op in BINARY:
        pairs = [(snan, one), (one, snan), (snan, snan), (qnan, snan), (nqnan, one), (sp["-inf"] | 1, one)]
        if op in ("add", "sub"):
            pairs.append((inf, inf if op == "sub" else sp["-inf"]))
        if op == "mul":
            pairs.append((inf, sp["+0"]))
        got = run_binary(op, t, form, [p[0] for p in pairs], [p[1] for p in pairs])
        bad = [f"{op}({name(x, t)}, {name(y, t)}) = {hx(g, t)}" for (x, y), g in zip(pairs, got)
               if not is_quiet_nan(g, t)]
    elif op in SCALAR:
        # signalling NaN lanes against 1.0, and 1.0 lanes against a signalling NaN in S1
        lanes, scal = run_scalar(op, t, form, [snan, sp["-inf"] | 1, one], ["1.0", "S1"], s={1: snan})
        bad = [f"{op}({name(x, t)}, 1.0) = {hx(g, t)}" for x, g in zip([snan, sp["-inf"] | 1], lanes)
               if not is_quiet_nan(g, t)]
        bad += [f"{op}(1.0, S1={name(snan, t)}) = {hx(scal[2], t)}"] if not is_quiet_nan(scal[2], t) else []
    else:
        xs = [snan, sp["-inf"] | 1] + ([] if op == "exp" else [sp["-1"], sp["-inf"]])
        got = run_unary(op, t, form, xs)
        bad = [f"{op}({name(x, t)}) = {hx(g, t)}" for x, g in zip(xs, got) if not is_quiet_nan(g, t)]
    assert not bad, "not a quiet NaN: " + "; ".join(bad)


# ==================================================================================================
# 2. scalar immediates and scalar registers
# ==================================================================================================

# (type, literal as written, expected bits or NAN) -- decimal literals rounded to T, nearest even
IMMEDIATES = [
    ("f16", "0.1", 0x2E66),
    ("f16", "-0.1", 0xAE66),
    ("f16", "65504.0", 0x7BFF),
    ("f16", "65519.0", 0x7BFF),
    ("f16", "65520.0", 0x7C00),             # halfway to 2^16: rounds to even = out of range = inf
    ("f16", "-65520.0", 0xFC00),
    ("f16", "1e6", 0x7C00),
    ("f16", "1.00048828125", 0x3C00),       # 1 + 2^-11, tie -> even
    ("f16", "1.00146484375", 0x3C02),       # 1 + 3 * 2^-11, tie -> even
    ("f16", "6.103515625e-05", 0x0400),     # 2^-14, smallest normal
    ("f16", "0.000060975551605224609375", 0x03FF),   # largest subnormal
    ("f16", "5.9604644775390625E-8", 0x0001),   # 2^-24, smallest subnormal
    ("f16", "2.98023223876953125E-8", 0x0000),  # 2^-25: halfway, to even (zero)
    ("f16", "-2.9802322387695312e-08", 0x8000),
    ("f16", "2.999999999999999731895437469174348077416425439878366887569427490234375E-8", 0x0001),               # just above half the smallest subnormal  # noqa: E501 (an exact decimal)
    ("f16", "8.94069671630859375E-8", 0x0002),   # 1.5 * 2^-24, tie -> 2 * 2^-24
    ("f16", "1e-10", 0x0000),
    ("f16", "-1e-10", 0x8000),
    ("f16", "-0.0", 0x8000),
    ("f16", "inf", 0x7C00),
    ("f16", "-inf", 0xFC00),
    ("f16", "nan", NAN),
    ("bf16", "0.1", 0x3DCD),
    ("bf16", "65520.0", 0x4780),            # rounds up to 2^16
    ("bf16", "1.00390625", 0x3F80),         # 1 + 2^-8, tie
    ("bf16", "1.01171875", 0x3F82),         # 1 + 3 * 2^-8, tie
    ("bf16", "338953138925153547590470800371487866880", 0x7F7F),  # largest finite
    ("bf16", "339617752923049556746517821874828738560", 0x7F80),  # max + half ulp: tie -> inf
    ("bf16", "9.18354961579912115600575419704879435795832466228193376178712270530013483949005603790283203125E-41", 0x0001),   # 2^-133  # noqa: E501 (an exact decimal)
    ("bf16", "4.591774807899560578002877098524397178979162331140966880893561352650067419745028018951416015625E-41", 0x0000),   # 2^-134: tie -> 0  # noqa: E501 (an exact decimal)
    ("bf16", "1.1754943508222875079687365372222456778186655567720875215087517062784172594547271728515625E-38", 0x0080),  # 2^-126  # noqa: E501 (an exact decimal)
    ("bf16", "-0.0", 0x8000),
    ("bf16", "nan", NAN),
    ("f32", "0.1", 0x3DCCCCCD),
    ("f32", "65520.0", 0x477FF000),
    ("f32", "1.000000059604644775390625", 0x3F800000),   # 1 + 2^-24, tie
    ("f32", "1.000000178813934326171875", 0x3F800002),   # 1 + 3 * 2^-24, tie
    ("f32", "3.4028234663852886e+38", 0x7F7FFFFF),
    ("f32", "340282356779733661637539395458142568448", 0x7F800000),  # max + half ulp: tie -> inf
    ("f32", "1e39", 0x7F800000),
    ("f32", "1.401298464324817e-45", 0x00000001),
    ("f32", "1e-45", 0x00000001),
    ("f32", "7.00649232162408535461864791644958065640130970938257885878534141944895541342930300743319094181060791015625E-46", 0x00000000),   # 2^-150: tie -> 0  # noqa: E501 (an exact decimal)
    ("f32", "-7.006492321624085e-46", 0x80000000),
    ("f32", "1.1754942106924411e-38", 0x007FFFFF),
    ("f32", "-inf", 0xFF800000),
]


def _imm_id(row):
    return f"{row[0]}-{row[1]}"


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("t,literal,want", IMMEDIATES, ids=[_imm_id(r) for r in IMMEDIATES])
def test_float_immediate_conversion(t, literal, want, form):
    """The immediate of VADDS / VMULS rounds to T: -0 + s and 1 * s give back s's bits."""
    (adds,) = run_scalar("adds", t, form, [R.encode(-0.0, t)], [literal])
    (muls,) = run_scalar("muls", t, form, [R.encode(1.0, t)], [literal])
    for what, got in (("VADDS -0 + s", adds[0]), ("VMULS 1 * s", muls[0])):
        ok = is_nan(got, t) if want is NAN else got == want
        assert ok, f"{what} with {literal}: want {'NaN' if want is NAN else hx(want, t)}, got {hx(got, t)}"
    if want is not NAN:
        assert R.encode(float(literal), t) == want  # the oracle reads it the same way


# A decimal literal whose float64 reading is exactly a tie of T although the decimal is not:
# rounding through float64 first (double rounding) goes the wrong way.
DOUBLE_ROUNDING = [
    ("f16", "2.98023223876953126e-08", 0x0001),     # a hair above 2^-25
    ("f16", "1.000488281250000001", 0x3C01),        # a hair above 1 + 2^-11
    ("bf16", "1.003906250000000001", 0x3F81),       # a hair above 1 + 2^-8
]


@pytest.mark.parametrize("t,literal,want", DOUBLE_ROUNDING, ids=[_imm_id(r) for r in DOUBLE_ROUNDING])
def test_float_immediate_decimal_rounded_once(t, literal, want):
    """IEEE 754 5.12.2: a decimal string converts to T correctly rounded. The contract does not
    say how literals round, so this only records what happens (see the report)."""
    (adds,) = run_scalar("adds", t, "tensor", [R.encode(-0.0, t)], [literal])
    m = run(f".ub 0x8000, {t}, {literal}")
    directive = unpack(m.ub[0x8000:0x8000 + R.SIZE[t]], t)[0]
    assert (adds[0], directive) == (want, want), \
        f"{literal}: want {hx(want, t)}, immediate gave {hx(adds[0], t)}, .ub gave {hx(directive, t)}"


# data directives take the same float syntax; 8-bit floats only exist here and in moves
DIRECTIVES = [*IMMEDIATES,
    ("e4m3", "448", 0x7E),
    ("e4m3", "-448", 0xFE),
    ("e4m3", "464", 0x7E),               # halfway 448 / 480: to even (448)
    ("e4m3", "1.0", 0x38),
    ("e4m3", "1.0625", 0x38),            # 1 + 2^-4: tie -> 1.0
    ("e4m3", "1.1875", 0x3A),            # 1 + 3 * 2^-4: tie -> 1.25
    ("e4m3", "0.015625", 0x08),          # 2^-6 smallest normal
    ("e4m3", "0.013671875", 0x07),       # largest subnormal 7 * 2^-9
    ("e4m3", "0.001953125", 0x01),       # 2^-9 smallest subnormal
    ("e4m3", "0.0009765625", 0x00),      # 2^-10: tie -> 0
    ("e4m3", "0.0029296875", 0x02),      # 1.5 * 2^-9: tie -> 2 * 2^-9
    ("e4m3", "-0.0", 0x80),
    ("e4m3", "nan", NAN),
    ("e5m2", "57344", 0x7B),             # largest finite
    ("e5m2", "61439", 0x7B),
    ("e5m2", "61440", 0x7C),             # halfway to 2^16: -> inf
    ("e5m2", "inf", 0x7C),
    ("e5m2", "-inf", 0xFC),
    ("e5m2", "1.125", 0x3C),             # tie -> 1.0
    ("e5m2", "1.375", 0x3E),             # tie -> 1.5
    ("e5m2", "1.52587890625e-05", 0x01),     # 2^-16
    ("e5m2", "7.62939453125e-06", 0x00),     # 2^-17: tie -> 0
    ("e5m2", "6.103515625e-05", 0x04),       # 2^-14 smallest normal
    ("e5m2", "-0.0", 0x80),
    ("e5m2", "nan", NAN),
]


def test_data_directive_float_conversion():
    """`.ub ADDR, T, value` rounds like the immediates (e4m3 / e5m2 included)."""
    lines = [f".ub 0x{0x100 * k:x}, {t}, {lit}" for k, (t, lit, _w) in enumerate(DIRECTIVES)]
    m = run("\n".join(lines) + "\nNOP")
    bad = []
    for k, (t, lit, want) in enumerate(DIRECTIVES):
        got = unpack(m.ub[0x100 * k:0x100 * k + R.SIZE[t]], t)[0]
        if not (is_nan(got, t) if want is NAN else got == want):
            bad.append(f".ub {t} {lit}: want {'NaN' if want is NAN else hx(want, t)}, got {hx(got, t)}")
        if want is not NAN and R.encode(float(lit), t) != want:
            bad.append(f"(reference encodes {t} {lit} as {hx(R.encode(float(lit), t), t)})")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("t", ["e4m3", "e5m2"])
@pytest.mark.parametrize("mnemonic", ["VADDS", "VMULS", "VMAXS", "VMINS", "VADD", "VEXP"])
def test_8bit_floats_have_no_arithmetic(mnemonic, t):
    """e4m3 / e5m2 are for gather and moves only (CONTRACT 1): arithmetic with them is an
    assembly error, not a silent conversion."""
    from vcore.assembler import assemble
    from vcore.assembler.diagnostics import AsmError

    operands = {"VADDS": "V1, V0, 1.0, P0", "VMULS": "V1, V0, 0.5, P0", "VMAXS": "[0x100], [0x0], 1.0",
                "VMINS": "[0x100], [0x0], 1.0", "VADD": "V1, V0, V0, P0", "VEXP": "[0x100], [0x0]"}[mnemonic]
    line = f"{mnemonic}.{t} {operands}"
    # a register form is checked inside a function, where it would otherwise be valid (CONTRACT 7)
    with pytest.raises(AsmError) as err:
        assemble(E.vf(line) if "P0" in operands else line)
    assert t in str(err.value), str(err.value)


# Sn scalars: the low bits of the register reinterpreted as T, whatever is above them
SN_CASES = [
    ("f16", "adds", 0x0000_0000_0000_7C01, "snan in low 16"),
    ("f16", "adds", -1, "all ones: -NaN 0xFFFF"),
    ("f16", "maxs", 0x7FFF_FFFF_FFFF_8000, "-0 under garbage"),
    ("f16", "mins", 0x1234_5678_0000_0000, "+0 under garbage"),
    ("f16", "muls", 0x0001_0000_0000_3C00 - (1 << 63), "1.0, negative register"),
    ("bf16", "adds", 0x0000_0000_3F80_7F80, "+inf, f32 1.0 above"),
    ("bf16", "muls", 0xFFFF_FFFF_FFFF_0001 - (1 << 64), "min sub, sign-extended garbage"),
    ("f32", "adds", 0x0000_0001_8000_0000, "-0 with bit 32 set"),
    ("f32", "maxs", 0x7FFF_FFFF_7F7F_FFFF, "max under garbage"),
    ("f32", "muls", -(1 << 63) | 0x0000_0001, "min sub, only the sign bit above"),
    ("s16", "adds", 0x0000_0001_0000_8000, "-32768 under garbage"),
    ("u16", "adds", -1, "0xFFFF from -1"),
    ("s32", "muls", 0x0000_0007_FFFF_FFFF, "-1 under garbage"),
    ("u32", "maxs", -(1 << 63), "0 from -2^63"),
    ("u32", "mins", 0x1_0000_0005, "5 under a carry bit"),
    ("s32", "maxs", 0x0000_0000_8000_0000, "-2^31 from a positive register"),
]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("t,op,reg,what", SN_CASES, ids=[f"{c[0]}-{c[1]}-{c[3].replace(' ', '_')}" for c in SN_CASES])
def test_scalar_register_low_bits(t, op, reg, what, form):
    size = R.SIZE[t]
    xs = [b for _, b in SPECIALS[t]] if t in FLOATS else [R.encode(v, t) for v in int_specials(t)]
    sb = wrap64(reg) & ((1 << (8 * size)) - 1)
    (got,) = run_scalar(op, t, form, xs, ["S9"], s={9: reg})
    want = [R.lane_binary(R.SCALAR_OPS[op], t, x, sb) for x in xs]
    labels = [f"{op}({hx(x, t)}, S9=0x{wrap64(reg) & ((1 << 64) - 1):016x} -> {hx(sb, t)})" for x in xs]
    check(labels, want, got, t)


# ==================================================================================================
# 3. 8-bit floats (and float specials in general) move bit for bit
# ==================================================================================================

@pytest.mark.parametrize("t", ["e4m3", "e5m2", "s8", "u8"])
def test_8bit_vld_vst_round_trip_all_patterns(t):
    src = np.arange(256, dtype=np.uint8)
    ub = np.full(0x2000, SENTINEL, dtype=np.uint8)
    ub[0:256] = src
    m, regs = run_reg(f"PSET.b8 P0, ALL\nVLD.{t} V0, [0x0]\nVST.{t} [0x1000], V0, P0", ub=ub, dump_v=[0])
    np.testing.assert_array_equal(regs.v[0], src)
    np.testing.assert_array_equal(m.ub[0x1000:0x1100], src)


@pytest.mark.parametrize("t", ["e4m3", "e5m2"])
def test_8bit_float_gathers_keep_bits(t):
    """UB gather: every byte value into a zero-extended 16-bit lane; register gather: every byte
    value to the lane its index names, unchanged (NaN patterns included)."""
    src = np.arange(256, dtype=np.uint8)
    ub = np.zeros(0x2000, dtype=np.uint8)
    ub[0:256] = src
    idx_lo = np.arange(128, dtype=np.uint16)[::-1].copy()        # 127 .. 0
    idx_hi = (np.arange(128, dtype=np.uint16) + 128)               # 128 .. 255
    ub[0x400:0x500] = idx_lo.view(np.uint8)
    ub[0x500:0x600] = idx_hi.view(np.uint8)
    ridx = (255 - np.arange(256)).astype(np.uint8) + 0             # reversed, 8-bit index lanes
    ub[0x600:0x700] = ridx
    text = f"""
        PSET.b16 P1, ALL
        VLD.u16 V4, [0x400]
        VLD.u16 V5, [0x500]
        VLD.u8 V6, [0x600]
        VLD.{t} V0, [0x0]
        VGATHER.{t} V1, [0x0], V4, P1
        VGATHER.{t} V2, [0x0], V5, P1
        VGATHER.{t} V3, V0, V6
    """
    _m, regs = run_reg(text, ub=ub, dump_v=[1, 2, 3, 4, 5])
    v = regs.v
    want1 = R.vgather_ub(ub, 0, t, v[4], R.pset(16, "ALL"))
    want2 = R.vgather_ub(ub, 0, t, v[5], R.pset(16, "ALL"))
    want3 = R.vgather_reg(t, src, ridx)
    # by hand: zero extension of every pattern, and the reversal
    np.testing.assert_array_equal(v[4], ub[0x400:0x500])
    np.testing.assert_array_equal(v[5], ub[0x500:0x600])
    np.testing.assert_array_equal(v[1].view("<u2"), idx_lo)
    np.testing.assert_array_equal(v[2].view("<u2"), idx_hi)
    np.testing.assert_array_equal(v[3], src[::-1])
    np.testing.assert_array_equal(v[1], want1)
    np.testing.assert_array_equal(v[2], want2)
    np.testing.assert_array_equal(v[3], want3)


@pytest.mark.parametrize("t", FLOATS)
def test_float_specials_move_bit_exact(t):
    """VLD / VST / UB gather / register gather do not quiet NaNs or flush subnormals."""
    size = R.SIZE[t]
    lanes = 256 // size
    sp = [b for _, b in SPECIALS[t]] + [(1 << (8 * size)) - 1, ((1 << (8 * size)) - 1) >> 1]
    vals = (sp * lanes)[:lanes]
    ub = np.zeros(0x2000, dtype=np.uint8)
    ub[0:256] = pack(vals, t)
    idx = np.arange(lanes)[::-1].astype(UINT[size])
    ub[0x400:0x500] = idx.view(np.uint8)
    w = 8 * size
    text = f"""
        PSET.b{w} P0, ALL
        VLD.{t} V0, [0x0]
        VLD.{t} V4, [0x400]
        VST.{t} [0x1000], V0, P0
        VGATHER.{t} V1, [0x0], V4, P0
        VGATHER.{t} V2, V0, V4
        VST.{t} [0x1100], V1, P0
    """
    m, regs = run_reg(text, ub=ub, dump_v=[1, 2])
    assert unpack(m.ub[0x1000:0x1100], t) == vals
    assert unpack(regs.v[1], t) == vals[::-1]
    assert unpack(regs.v[2], t) == vals[::-1]
    assert unpack(m.ub[0x1100:0x1200], t) == vals[::-1]


# ==================================================================================================
# 4. integers: wrap at the type limits
# ==================================================================================================

TENSOR_INTS = ("s16", "u16", "s32", "u32")
REG_INTS = ("s8", "u8", "s16", "u16", "s32", "u32")
INT_CASES = [pytest.param(op, t, "tensor", id=f"{op}-{t}-tensor") for op in BINARY for t in TENSOR_INTS] + \
            [pytest.param(op, t, "register", id=f"{op}-{t}-register") for op in BINARY for t in REG_INTS]


@pytest.mark.parametrize("op,t,form", INT_CASES)
def test_int_binary_cross_product(op, t, form):
    vals = [R.encode(v, t) for v in int_specials(t)]
    pairs = [(x, y) for x in vals for y in vals]
    want = [R.lane_binary(op, t, x, y) for x, y in pairs]
    got = run_binary(op, t, form, [x for x, _ in pairs], [y for _, y in pairs])
    check([f"{op}({int_name(x, t)}, {int_name(y, t)})" for x, y in pairs], want, got, t)


INT_UNARY_CASES = [pytest.param(op, t, form, id=f"{op}-{t}-{form}") for op in ("abs", "relu")
                   for form, types in (("tensor", ("s16", "s32")), ("register", ("s8", "s16", "s32")))
                   for t in types]


@pytest.mark.parametrize("op,t,form", INT_UNARY_CASES)
def test_int_unary_limits(op, t, form):
    vals = [R.encode(v, t) for v in int_specials(t)]
    want = [R.lane_unary(op, t, x) for x in vals]
    got = run_unary(op, t, form, vals)
    check([f"{op}({int_name(x, t)})" for x in vals], want, got, t)


INT_SCALAR_CASES = [pytest.param(op, t, "tensor", id=f"{op}-{t}-tensor") for op in SCALAR for t in TENSOR_INTS] + \
                   [pytest.param(op, t, "register", id=f"{op}-{t}-register") for op in SCALAR for t in REG_INTS]


@pytest.mark.parametrize("op,t,form", INT_SCALAR_CASES)
def test_int_scalar_immediates_at_limits(op, t, form):
    """Immediates at the type's limits, written as the type's own values (e.g. -32768, 65535)."""
    vals = [R.encode(v, t) for v in int_specials(t)]
    imms = sorted({R.decode(b, t) for b in vals})
    got = run_scalar(op, t, form, vals, [str(i) for i in imms])
    lane_op = R.SCALAR_OPS[op]
    labels, want, flat = [], [], []
    for imm, g in zip(imms, got):
        for x, gx in zip(vals, g):
            labels.append(f"{op}({int_name(x, t)}, {imm})")
            want.append(R.lane_binary(lane_op, t, x, R.encode(imm, t)))
            flat.append(gx)
    check(labels, want, flat, t)


# by hand: (op, type, a bits, b bits, expected bits); b is None for the unary ops
HAND_INT = [
    ("add", "s8", 0x7F, 0x01, 0x80), ("sub", "s8", 0x80, 0x01, 0x7F), ("mul", "s8", 0x80, 0xFF, 0x80),
    ("add", "u8", 0xFF, 0x01, 0x00), ("sub", "u8", 0x00, 0x01, 0xFF), ("mul", "u8", 0xFF, 0xFF, 0x01),
    ("max", "u8", 0xFF, 0x00, 0xFF), ("min", "s8", 0xFF, 0x00, 0xFF), ("max", "s8", 0x80, 0x7F, 0x7F),
    ("abs", "s8", 0x80, None, 0x80), ("relu", "s8", 0x80, None, 0x00), ("relu", "s8", 0x7F, None, 0x7F),
    ("add", "s16", 0x7FFF, 0x0001, 0x8000), ("sub", "s16", 0x8000, 0x0001, 0x7FFF),
    ("mul", "s16", 0x8000, 0xFFFF, 0x8000), ("mul", "s16", 0x7FFF, 0x0002, 0xFFFE),
    ("mul", "s16", 0x7FFF, 0x7FFF, 0x0001), ("add", "s16", 0x8000, 0x8000, 0x0000),
    ("add", "u16", 0xFFFF, 0x0001, 0x0000), ("sub", "u16", 0x0000, 0x0001, 0xFFFF),
    ("mul", "u16", 0xFFFF, 0xFFFF, 0x0001), ("mul", "u16", 0x8000, 0x0002, 0x0000),
    ("max", "u16", 0xFFFF, 0x7FFF, 0xFFFF), ("min", "u16", 0x8000, 0x7FFF, 0x7FFF),
    ("max", "s16", 0x8000, 0x7FFF, 0x7FFF), ("min", "s16", 0xFFFF, 0x0000, 0xFFFF),
    ("abs", "s16", 0x8000, None, 0x8000), ("abs", "s16", 0x8001, None, 0x7FFF),
    ("relu", "s16", 0x8000, None, 0x0000), ("relu", "s16", 0xFFFF, None, 0x0000),
    ("add", "s32", 0x7FFFFFFF, 0x00000001, 0x80000000), ("sub", "s32", 0x80000000, 0x00000001, 0x7FFFFFFF),
    ("mul", "s32", 0x80000000, 0xFFFFFFFF, 0x80000000), ("mul", "s32", 0x00010000, 0x00010000, 0x00000000),
    ("add", "u32", 0xFFFFFFFF, 0x00000001, 0x00000000), ("sub", "u32", 0x00000000, 0x00000001, 0xFFFFFFFF),
    ("mul", "u32", 0xFFFFFFFF, 0xFFFFFFFF, 0x00000001), ("max", "u32", 0x80000000, 0x7FFFFFFF, 0x80000000),
    ("min", "s32", 0x80000000, 0x7FFFFFFF, 0x80000000),
    ("abs", "s32", 0x80000000, None, 0x80000000), ("relu", "s32", 0x80000000, None, 0x00000000),
]


@pytest.mark.parametrize("form", FORMS)
def test_hand_written_int_edges(form):
    bad = []
    for op, t, a, b, want in HAND_INT:
        if form == "tensor" and t in ("s8", "u8"):
            continue
        assert (R.lane_unary(op, t, a) if b is None else R.lane_binary(op, t, a, b)) == want, (op, t)
        got = (run_unary(op, t, form, [a]) if b is None else run_binary(op, t, form, [a], [b]))[0]
        if got != want:
            bad.append(f"{op}.{t}({hx(a, t)}" + ("" if b is None else f", {hx(b, t)}") +
                       f"): want {hx(want, t)}, got {hx(got, t)}")
    assert not bad, "\n".join(bad)


# -- the 64-bit scalar ALU ---------------------------------------------------------------------------

I64_MAX, I64_MIN = (1 << 63) - 1, -(1 << 63)
# (mnemonic, a, b, expected); b is put in S2, or written as an immediate when it fits
SCALAR_ALU = [
    ("ADD", I64_MAX, 1, I64_MIN),
    ("ADD", I64_MIN, -1, I64_MAX),
    ("ADD", I64_MIN, I64_MIN, 0),
    ("ADD", I64_MAX, I64_MAX, -2),
    ("ADD", -1, 1, 0),
    ("SUB", I64_MIN, 1, I64_MAX),
    ("SUB", I64_MAX, -1, I64_MIN),
    ("SUB", 0, I64_MIN, I64_MIN),
    ("SUB", -1, I64_MAX, I64_MIN),
    ("SUB", I64_MAX, I64_MIN, -1),
    ("MUL", I64_MAX, 2, -2),
    ("MUL", I64_MIN, -1, I64_MIN),
    ("MUL", I64_MIN, 2, 0),
    ("MUL", 1 << 32, 1 << 32, 0),
    ("MUL", I64_MAX, I64_MAX, 1),
    ("MUL", -1, -1, 1),
    ("MUL", (1 << 32) + 1, (1 << 32) - 1, -1),
    ("SHL", 1, 63, I64_MIN),
    ("SHL", I64_MAX, 1, -2),
    ("SHL", -1, 63, I64_MIN),
    ("SHL", 3, 62, -(1 << 62)),
    ("SHR", I64_MIN, 63, 1),           # logical (docs/semantics.md)
    ("SHR", -1, 1, I64_MAX),
    ("SHR", I64_MIN, 1, 1 << 62),
    ("SHL", 1, 64, 1),                 # count modulo 64 (docs/semantics.md)
    ("SHL", 1, 65, 2),
    ("SHR", I64_MIN, 64, I64_MIN),
    ("SHR", -1, 127, 1),
    ("AND", I64_MIN, -1, I64_MIN),
    ("OR", I64_MIN, I64_MAX, -1),
    ("XOR", I64_MAX, -1, I64_MIN),
]


@pytest.mark.parametrize("mnemonic,a,b,want", SCALAR_ALU,
                         ids=[f"{r[0]}-{r[1]:#x}-{r[2]:#x}".replace("-0x", "-m0x") for r in SCALAR_ALU])
def test_scalar_alu_wraps_64_bit(mnemonic, a, b, want):
    m = run(f"{mnemonic} S3, S1, S2", s={1: a, 2: b})
    assert m.s[3] == want, f"{mnemonic} {a:#x}, {b:#x}: want {want:#x}, got {m.s[3]:#x}"
    if -(1 << 43) <= b < (1 << 43):                  # the immediate form too (docs/isa.md range)
        m = run(f"{mnemonic} S4, S1, {b}", s={1: a})
        assert m.s[4] == want, f"{mnemonic} {a:#x}, imm {b}: want {want:#x}, got {m.s[4]:#x}"


def test_scalar_limits_built_in_program():
    """2^63 - 1 and -2^63 built by the program itself; one more step wraps each."""
    text = """
        MOV S1, 1
        SHL S1, S1, 63          ; -2^63
        SUB S2, S1, 1           ; 2^63 - 1
        ADD S3, S2, 1           ; -2^63 again
        SUB S4, S1, S2          ; -2^63 - (2^63 - 1) = 1
        MUL S5, S2, S2          ; 1
        MUL S6, S1, S1          ; 0
        MOV S7, -562949953421312
        MUL S8, S7, S7          ; 2^98 mod 2^64 = 0
        MOV S9, 562949953421311
        MUL S10, S9, 562949953421311 & 8796093022207
        ADD S0, S2, 1           ; S0 ignores writes
    """
    m = run(text)
    b = 562949953421311 & 8796093022207
    want = {1: I64_MIN, 2: I64_MAX, 3: I64_MIN, 4: 1, 5: 1, 6: 0, 7: -(1 << 49), 8: 0, 9: (1 << 49) - 1,
            10: wrap64(((1 << 49) - 1) * b), 0: 0}
    got = {k: m.s[k] for k in want}
    assert got == want


# ==================================================================================================
# 5. subtract with carry
# ==================================================================================================

CARRY_PAIRS = [
    (0, 0, "0-0"), (0, 1, "0-1"), (0xFFFFFFFF, 0xFFFFFFFF, "max-max"), (0x12345678, 0x12345678, "x-x"),
    (1, 0, "1-0"), (0, 0xFFFFFFFF, "0-max"), (0xFFFFFFFF, 0, "max-0"), (0x80000000, 0x7FFFFFFF, "2^31-(2^31-1)"),
    (0x7FFFFFFF, 0x80000000, "(2^31-1)-2^31"), (0xFFFFFFFF, 0xFFFFFFFE, "max-(max-1)"),
    (0xFFFFFFFE, 0xFFFFFFFF, "(max-1)-max"),
    (5, 6, "5-6"), (6, 5, "6-5"),
]
# by hand from {carry, d} = {0, a} + {0, ~b} + 1: carry = a >= b, d = a - b mod 2^32
HAND_CARRY = {(a, b): ((a - b) & 0xFFFFFFFF, a >= b) for a, b, _ in CARRY_PAIRS}


@pytest.mark.parametrize("same_reg", [False, True], ids=["carry=P1", "carry=Pm"])
def test_vsub_carry_edges(same_reg):
    n = len(CARRY_PAIRS)
    a = [CARRY_PAIRS[k % n][0] for k in range(64)]
    b = [CARRY_PAIRS[k % n][1] for k in range(64)]
    inactive = {n, 2 * n + 1, 63}                 # some lanes (their pairs repeat elsewhere) are off
    active = [k not in inactive for k in range(64)]
    pm = R.make_mask(4, active)
    va = pack(a, "u32")
    vb = pack(b, "u32")
    garbage = np.full(256, 0xCC, dtype=np.uint8)
    carry_reg = 0 if same_reg else 1
    text = f"VSUB.u32 V2, V0, V1, P0, carry=P{carry_reg}"
    _m, regs = run_reg(text, v={0: va, 1: vb, 2: garbage}, p={0: pm, 1: np.ones(256, dtype=bool)},
                       dump_v=[2], dump_p=[carry_reg])
    want_d, want_c = R.vsub_carry(va, vb, pm)
    got_d = unpack(regs.v[2], "u32")
    got_c = regs.p[carry_reg]
    bad = []
    for k in range(64):
        label = CARRY_PAIRS[k % n][2]
        hd, hc = HAND_CARRY[(a[k], b[k])] if active[k] else (0, False)
        assert (unpack(want_d, "u32")[k], bool(want_c[4 * k])) == (hd, hc), f"reference lane {k} {label}"
        if got_d[k] != hd:
            bad.append(f"lane {k} {label}{'' if active[k] else ' (inactive)'}: d want {hd:#x}, got {got_d[k]:#x}")
        bits = [bool(x) for x in got_c[4 * k:4 * k + 4]]
        if bits != [hc] * 4:
            bad.append(f"lane {k} {label}{'' if active[k] else ' (inactive)'}: carry bits want {[hc] * 4}, got {bits}")
    assert not bad, "\n".join(bad)
    np.testing.assert_array_equal(regs.p[carry_reg], want_c)


def test_plain_vsub_u32_wraps_without_touching_masks():
    a = pack([0, 0, 0xFFFFFFFF, 7] * 16, "u32")
    b = pack([0, 1, 0xFFFFFFFF, 7] * 16, "u32")
    p1 = np.zeros(256, dtype=bool)
    p1[::3] = True
    _m, regs = run_reg("PSET.b32 P0, ALL\nVSUB.u32 V2, V0, V1, P0", v={0: a, 1: b}, p={1: p1},
                       dump_v=[2], dump_p=[1])
    assert unpack(regs.v[2], "u32") == [0, 0xFFFFFFFF, 0, 0] * 16
    np.testing.assert_array_equal(regs.p[1], p1)


# ==================================================================================================
# 6. masks: lane 0, the last lane, lane 64 of 16-bit types
# ==================================================================================================

U64 = (1 << 64) - 1
TENSOR_MASKS = [
    # (type, fields, reference kwargs)
    ("f16", "mask=(0x1, 0x0)", {"mask": (1, 0)}),
    ("f16", "mask=(0x0, 0x1)", {"mask": (0, 1)}),                      # lane 64 only
    ("f16", f"mask=(0x{1 << 63:x}, 0x0)", {"mask": (1 << 63, 0)}),      # lane 63 only
    ("f16", f"mask=(0x0, 0x{1 << 63:x})", {"mask": (0, 1 << 63)}),      # lane 127 only
    ("f16", f"mask=(0x{1 << 63:x}, 0x1)", {"mask": (1 << 63, 1)}),      # lanes 63 and 64
    ("f16", f"mask=(0x1, 0x{1 << 63:x}), repeat=2", {"mask": (1, 1 << 63), "repeat": 2}),
    ("f16", f"mask=(0x{U64:x}, 0x0)", {"mask": (U64, 0)}),             # low word only
    ("f16", f"mask=(0x0, 0x{U64:x})", {"mask": (0, U64)}),             # high word only
    ("f16", "mask=1", {"mask": 1}),
    ("f16", "mask=64", {"mask": 64}),
    ("f16", "mask=65", {"mask": 65}),
    ("f16", "mask=127", {"mask": 127}),
    ("f16", "mask=128", {"mask": 128}),
    ("f16", "mask=65, repeat=3", {"mask": 65, "repeat": 3}),
    ("f16", "count=1", {"count": 1}),
    ("f16", "count=64", {"count": 64}),
    ("f16", "count=65", {"count": 65}),
    ("f16", "count=127", {"count": 127}),
    ("f16", "count=128", {"count": 128}),
    ("f16", "count=129", {"count": 129}),
    ("f16", "count=192", {"count": 192}),
    ("f16", "count=193", {"count": 193}),
    ("f16", "count=255", {"count": 255}),
    ("f16", "count=257", {"count": 257}),
    ("u16", "mask=(0x0, 0x1)", {"mask": (0, 1)}),
    ("u16", f"mask=(0x0, 0x{1 << 63:x})", {"mask": (0, 1 << 63)}),
    ("u16", "count=65", {"count": 65}),
    ("f32", "mask=(0x1, 0x0)", {"mask": (1, 0)}),
    ("f32", f"mask=(0x{1 << 63:x}, 0x0)", {"mask": (1 << 63, 0)}),     # lane 63, the last
    ("f32", "mask=1", {"mask": 1}),
    ("f32", "mask=63", {"mask": 63}),
    ("f32", "mask=64", {"mask": 64}),
    ("f32", "count=1", {"count": 1}),
    ("f32", "count=63", {"count": 63}),
    ("f32", "count=65", {"count": 65}),
    ("s32", f"mask=(0x{1 << 63:x}, 0x0)", {"mask": (1 << 63, 0)}),
    ("s32", "count=129", {"count": 129}),
]


def _values(t, n, rng, lo=1):
    if t in FLOATS:
        return [R.encode(float(v), t) for v in rng.integers(lo, 60, n) * 0.25]
    return [R.encode(int(v), t) for v in rng.integers(lo, 1000, n)]


TENSOR_MASK_PARAMS = [pytest.param(t, fields, kw, op, id=f"{op}-{t}-{fields.replace(' ', '')}")
                      for op in ("add", "abs", "adds") for t, fields, kw in TENSOR_MASKS
                      if not (op == "abs" and t == "u16")]                 # there is no VABS.u16


@pytest.mark.parametrize("t,fields,kw,op", TENSOR_MASK_PARAMS)
def test_tensor_masks_leave_inactive_lanes_unchanged(t, fields, kw, op):
    rng = np.random.default_rng(1)
    size = R.SIZE[t]
    n = 0x400 // size                       # up to 4 iterations
    ub = np.zeros(0x3000, dtype=np.uint8)
    ub[0x0:0x400] = pack(_values(t, n, rng), t)
    ub[0x1000:0x1400] = pack(_values(t, n, rng), t)
    ub[0x2000:0x3000] = SENTINEL            # the destination, and beyond it
    want = ub.copy()
    if op == "add":
        line = f"VADD.{t} [0x2000], [0x0], [0x1000], {fields}"
        R.tensor_op(want, "add", t, 0x2000, (0x0, 0x1000), **kw)
    elif op == "abs":
        line = f"VABS.{t} [0x2000], [0x1000], {fields}"
        R.tensor_op(want, "abs", t, 0x2000, (0x1000,), **kw)
    else:
        line = f"VADDS.{t} [0x2000], [0x0], 3, {fields}"
        R.tensor_op(want, "adds", t, 0x2000, (0x0,), scalar=3, **kw)
    m = run(line, ub=ub)
    bad = E.mem_mismatches(m.ub[:0x3000], want, t)
    assert not bad, line + "\n" + "\n".join(bad)
    # by hand: which lanes of iteration 0 were written
    lanes = 256 // size
    if "count" in kw:
        on = [i < kw["count"] for i in range(lanes)]
    elif isinstance(kw["mask"], int):
        on = [i < kw["mask"] for i in range(lanes)]
    else:
        low, high = kw["mask"]
        on = [bool((low >> i) & 1) if i < 64 else bool((high >> (i - 64)) & 1) for i in range(lanes)]
    written = [not np.all(m.ub[0x2000 + i * size:0x2000 + (i + 1) * size] == SENTINEL) for i in range(lanes)]
    assert written == on


@pytest.mark.parametrize("t,fields", [("f16", "mask=(0x0, 0x0)"), ("f32", "mask=(0x1, 0x1)"),
                                      ("f16", "mask=0"), ("f16", "mask=129"), ("f32", "mask=65")],
                         ids=["zero-mask", "f32-high-word", "mask=0", "f16-mask=129", "f32-mask=65"])
def test_tensor_mask_out_of_range_is_rejected(t, fields):
    """CONTRACT 2.1: a mask of 0 is an error, HIGH must be 0 for 32-bit types, 1 <= N <= lanes."""
    from vcore.assembler import assemble
    from vcore.assembler.diagnostics import AsmError
    from vcore.emulator import Machine

    line = f"VADD.{t} [0x200], [0x0], [0x100], {fields}"
    try:
        program = assemble(line)
    except AsmError:
        return
    m = Machine(program)
    before = m.ub.copy()
    r = m.run()
    assert r.fault is not None, f"{line}: accepted"
    np.testing.assert_array_equal(m.ub, before)


# -- register predicates -----------------------------------------------------------------------------

PSET_CASES = [(w, pat) for w in (16,) for pat in ("VL1", "VL64", "VL128", "ALL", "ALLF", "H", "Q", "M3", "M4")] + \
             [(8, pat) for pat in ("VL1", "VL128", "ALL", "M3", "H")] + \
             [(32, pat) for pat in ("VL1", "VL64", "VL128", "M3", "Q")]
TYPE_OF_WIDTH = {8: "u8", 16: "f16", 32: "f32"}


def _register_mask_program(t, setter):
    """``setter`` makes P0; then a VADD under P0 into V2 (garbage before) and a VST under P0 over a
    sentinel UB block."""
    return f"""
        {setter}
        VLD.{t} V0, [0x0]
        VLD.{t} V1, [0x100]
        VADD.{t} V2, V0, V1, P0
        VST.{t} [0x1000], V2, P0
        VMULS.{t} V3, V0, 2, P0
    """


def _check_register_masked(m, regs, t, pmask, ub):
    size = R.SIZE[t]
    va, vb = R.vld(ub, 0x0), R.vld(ub, 0x100)
    want_v2 = R.vop("add", t, va, vb, pmask)
    want_v3 = R.vop_scalar("muls", t, va, 2, pmask)
    want_ub = ub.copy()
    R.vst(want_ub, 0x1000, want_v2, pmask, t)
    np.testing.assert_array_equal(regs.v[2], want_v2, err_msg="VADD under the mask (inactive lanes zero)")
    np.testing.assert_array_equal(regs.v[3], want_v3, err_msg="VMULS under the mask (inactive lanes zero)")
    np.testing.assert_array_equal(m.ub[:ub.size], want_ub, err_msg="VST under the mask (inactive lanes kept)")
    # by hand: lane i active <=> bit i*size of P0
    for i in range(256 // size):
        lane = slice(i * size, (i + 1) * size)
        if not pmask[i * size]:
            assert not regs.v[2][lane].any(), f"inactive lane {i} of V2 not zero"
            assert (m.ub[0x1000 + i * size:0x1000 + (i + 1) * size] == SENTINEL).all(), f"VST wrote lane {i}"


def _mask_image(t):
    rng = np.random.default_rng(5)
    n = 256 // R.SIZE[t]
    ub = np.zeros(0x1200, dtype=np.uint8)
    ub[0x0:0x100] = pack(_values(t, n, rng), t)
    ub[0x100:0x200] = pack(_values(t, n, rng), t)
    ub[0x1000:0x1200] = SENTINEL
    return ub


@pytest.mark.parametrize("w,pattern", PSET_CASES, ids=[f"b{w}-{p}" for w, p in PSET_CASES])
def test_pset_patterns_mask_compute_and_store(w, pattern):
    t = TYPE_OF_WIDTH[w]
    ub = _mask_image(t)
    garbage = np.full(256, 0x77, dtype=np.uint8)
    m, regs = run_reg(_register_mask_program(t, f"PSET.b{w} P0, {pattern}"), ub=ub,
                      v={2: garbage, 3: garbage}, p={0: np.ones(256, dtype=bool)}, dump_v=[2, 3], dump_p=[0])
    want = R.pset(w, pattern)
    np.testing.assert_array_equal(regs.p[0], want, err_msg=f"PSET.b{w} {pattern}")
    # by hand: the lane count of the pattern (M3 / M4: the lanes whose index is a multiple of 3 / 4,
    # CONTRACT 13.10, which corrects 2.2's "largest multiple of 3 or 4 lanes")
    lanes = 256 // (w // 8)
    n = {"ALL": lanes, "ALLF": 0, "H": lanes // 2, "Q": lanes // 4, "M3": -(-lanes // 3), "M4": lanes // 4}.get(
        pattern, min(int(pattern[2:]) if pattern.startswith("VL") else 0, lanes))
    assert int(want.sum()) == n * (w // 8)
    _check_register_masked(m, regs, t, want, ub)


PUPDATE_CASES = [(16, c) for c in (0, 1, 63, 64, 65, 127, 128, 129, 256, 257, -5, 1 << 62)] + \
                [(8, c) for c in (0, 1, 255, 256, 257)] + [(32, c) for c in (0, 1, 63, 64, 65, 129)]


@pytest.mark.parametrize("w,count", PUPDATE_CASES, ids=[f"b{w}-{c}" for w, c in PUPDATE_CASES])
def test_pupdate_counts(w, count):
    t = TYPE_OF_WIDTH[w]
    ub = _mask_image(t)
    garbage = np.full(256, 0x77, dtype=np.uint8)
    text = _register_mask_program(t, f"PUPDATE.b{w} P0, S1\nPUPDATE.b{w} P1, S1\nPUPDATE.b{w} P2, S1")
    # PUPDATE's count register is the function's copy of S1 (CONTRACT 7): read back at its end
    m, regs = run_reg(text, ub=ub, s={1: count}, v={2: garbage, 3: garbage},
                      p={k: np.ones(256, dtype=bool) for k in range(3)}, dump_v=[2, 3], dump_p=[0, 1, 2], dump_s=[1])
    c = count
    lanes = 256 // (w // 8)
    for k in range(3):
        want, rest = R.pupdate(w, c)
        # by hand: first min(c, lanes) lanes (none for c <= 0), then max(0, c - lanes)
        assert int(want.sum()) == max(0, min(c, lanes)) * (w // 8) and rest == max(0, c - lanes)
        np.testing.assert_array_equal(regs.p[k], want, err_msg=f"PUPDATE #{k + 1} from S1 = {c}")
        c = rest
    assert regs.s[1] == c                       # inside the function, after the three updates
    assert m.s[1] == count                      # the scalar unit's S1: the function's writes are gone
    _check_register_masked(m, regs, t, R.pupdate(w, count)[0], ub)


# only the lowest bit of a lane's group is read (SEMANTICS: "only the lowest bit of a lane's group")
RAW_MASKS = [
    ("f16", [0], "lane0-low-bit"),
    ("f16", [2 * 127], "lane127-low-bit"),
    ("f16", [2 * 64], "lane64-low-bit"),
    ("f16", [2 * 64 + 1], "lane64-high-bit-only"),
    ("f16", [2 * 63, 2 * 64 + 1, 255], "lane63-on-lane64-127-high-bits"),
    ("f32", [4 * 63], "lane63-low-bit"),
    ("f32", [4 * 63 + 1, 4 * 63 + 2, 4 * 63 + 3], "lane63-upper-bits-only"),
    ("u8", [255], "lane255"),
    ("u8", [0, 128], "lanes0-128"),
]


@pytest.mark.parametrize("t,bits,what", RAW_MASKS, ids=[c[2] + "-" + c[0] for c in RAW_MASKS])
def test_register_mask_lowest_bit_of_lane(t, bits, what):
    ub = _mask_image(t)
    pm = np.zeros(256, dtype=bool)
    pm[bits] = True
    garbage = np.full(256, 0x77, dtype=np.uint8)
    m, regs = run_reg(_register_mask_program(t, ""), ub=ub, v={2: garbage, 3: garbage}, p={0: pm}, dump_v=[2, 3])
    _check_register_masked(m, regs, t, pm, ub)


@pytest.mark.parametrize("t,lane", [("f16", 0), ("f16", 63), ("f16", 64), ("f16", 127), ("f32", 63), ("s8", 255)],
                         ids=["f16-lane0", "f16-lane63", "f16-lane64", "f16-lane127", "f32-lane63", "s8-lane255"])
def test_register_single_lane_edges_of_every_op(t, lane):
    """One active lane: every compute op writes exactly that lane (the others zero)."""
    size = R.SIZE[t]
    ub = _mask_image(t)
    pm = R.make_mask(size, [i == lane for i in range(256 // size)])
    ops = ["VADD", "VSUB", "VMUL", "VMAX", "VMIN"]
    unary = ["VABS", "VRELU"] + (["VEXP", "VLN", "VSQRT"] if t in FLOATS else [])
    lines = [f"VLD.{t} V0, [0x0]", f"VLD.{t} V1, [0x100]"]
    for k, o in enumerate(ops):
        lines.append(f"{o}.{t} V{2 + k}, V0, V1, P0")
    for k, o in enumerate(unary):
        lines.append(f"{o}.{t} V{10 + k}, V0, P0")
    for k, o in enumerate(["VADDS", "VMULS", "VMAXS", "VMINS"]):
        lines.append(f"{o}.{t} V{20 + k}, V0, 3, P0")
    garbage = np.full(256, 0x77, dtype=np.uint8)
    dumps = [2 + k for k in range(len(ops))] + [10 + k for k in range(len(unary))] + [20 + k for k in range(4)]
    _m, regs = run_reg("\n".join(lines), ub=ub, v=dict.fromkeys(range(2, 30), garbage), p={0: pm}, dump_v=dumps)
    va, vb = R.vld(ub, 0), R.vld(ub, 0x100)
    for k, o in enumerate(ops):
        np.testing.assert_array_equal(regs.v[2 + k], R.vop(o[1:].lower(), t, va, vb, pm), err_msg=o)
    for k, o in enumerate(unary):
        want = R.vop_unary(o[1:].lower(), t, va, pm)
        got = regs.v[10 + k]
        if o in ("VEXP", "VLN"):
            bad = E.mem_mismatches(got, want, t, ulp=2)
            assert not bad, (o, bad)
            others = np.ones(256, dtype=bool)
            others[lane * size:(lane + 1) * size] = False
            assert not got[others].any(), o
        else:
            np.testing.assert_array_equal(got, want, err_msg=o)
    for k, o in enumerate(["VADDS", "VMULS", "VMAXS", "VMINS"]):
        np.testing.assert_array_equal(regs.v[20 + k], R.vop_scalar(o[1:].lower(), t, va, 3, pm), err_msg=o)


def test_the_function_harness_round_trips_registers():
    """The harness that sets and reads registers around a function (emu_support.FunctionHarness):
    values in come back out, values the function changed come back changed, and the scalar unit's
    S is as before the function (CONTRACT 7)."""
    rng = np.random.default_rng(3)
    v = {k: rng.integers(0, 256, 256, dtype=np.uint8) for k in (0, 5, 29)}
    p = {k: rng.random(256) < 0.5 for k in (0, 3, 7)}
    body = "VADD.u8 V5, V0, V29, P3\nPSET.b16 P7, VL3\nMOV S4, -2\nADD S6, S6, 1"
    s = {4: 7, 6: (1 << 40) - 1, 9: -(1 << 62) - 5}
    m, r, regs = E.run_function(body, v=v, p=p, s=s, dump_v=[0, 5, 29, 12], dump_p=[0, 3, 7], dump_s=[4, 6, 9])
    assert r.fault is None, r.fault
    np.testing.assert_array_equal(regs.v[0], v[0])
    np.testing.assert_array_equal(regs.v[29], v[29])
    np.testing.assert_array_equal(regs.v[5], R.vop("add", "u8", v[0], v[29], p[3]))
    assert not regs.v[12].any()                             # never written: zero, as every function starts
    np.testing.assert_array_equal(regs.p[0], p[0])
    np.testing.assert_array_equal(regs.p[3], p[3])
    np.testing.assert_array_equal(regs.p[7], np.repeat(np.arange(128) < 3, 2))   # b16 VL3: bits 0..5
    assert regs.s == {4: -2, 6: 1 << 40, 9: -(1 << 62) - 5}
    assert (m.s[4], m.s[6], m.s[9]) == (7, (1 << 40) - 1, -(1 << 62) - 5)
