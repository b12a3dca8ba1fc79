"""Results rounded once where one float64 operation is not enough: 1 / sqrt(x) of f32 (a near-
midpoint result settled by an exact integer test) and the fused multiply-add (the sum rounded to odd
in float64, then to T)."""

from __future__ import annotations

import numpy as np

from vcore.emulator.arith.conversion import round_to_float
from vcore.isa.types import ElementType
from vcore.isa.values import dtype_of

F64 = np.dtype(np.float64)


def rsqrt(a: np.ndarray, etype: ElementType) -> np.ndarray:
    """1 / sqrt(a) correctly rounded to T. In float64 the result is within about 2**-52 of the true
    one: enough for f16 and bf16, whose hard cases stay 2**-35 away from a midpoint; an f32 result
    that close to a midpoint of f32 is settled exactly (``_rsqrt_exact_f32``)."""
    out_dtype = dtype_of(etype)
    wide = a.astype(F64)
    y = 1.0 / np.sqrt(wide)
    result = y.astype(out_dtype) if etype.name != "bf16" else round_to_float(y, "bf16")
    if etype.name != "f32":
        return result
    r = result.astype(F64)
    neighbour = np.nextafter(result, np.where(y > r, np.float32(np.inf), np.float32(0))).astype(F64)
    mid = (r + neighbour) / 2  # exact in float64
    close = np.isfinite(y) & (y != 0) & (np.abs(y - mid) <= np.abs(y) * 2.0 ** -50)
    if close.any():
        where = np.flatnonzero(close)
        above = _rsqrt_exceeds(wide.reshape(-1)[where], mid.reshape(-1)[where])  # the true value > mid
        # The true value lies on the side of mid that `above` says: take r or its neighbour.
        toward = np.where(above == (neighbour.reshape(-1)[where] > mid.reshape(-1)[where]),
                          neighbour.reshape(-1)[where], r.reshape(-1)[where])
        flat = result.reshape(-1).copy()
        flat[where] = toward.astype(np.float32)
        result = flat.reshape(result.shape)
    return result


def _rsqrt_exceeds(x: np.ndarray, mid: np.ndarray) -> np.ndarray:
    """Whether 1 / sqrt(x) > mid, exactly, for positive finite float64 x (f32 values) and mid (a
    midpoint of f32: 25 significant bits): whether mid**2 * x < 1, in integers split to fit int64."""
    mx, ex = np.frexp(x)
    mm, em = np.frexp(mid)
    xi = np.ldexp(mx, 24).astype(np.int64)  # x = xi * 2**(ex - 24), xi < 2**24
    mi = np.ldexp(mm, 25).astype(np.int64)  # mid = mi * 2**(em - 25), mi < 2**25
    square = mi * mi  # < 2**50
    hi, lo = square >> 25, square & ((1 << 25) - 1)
    # mid**2 * x = P * 2**k with P = square * xi = top * 2**25 + (low mod 2**25); P < 2**-k iff
    # top < 2**(-k - 25) (the low 25 bits cannot carry P past a power of two it is below).
    k = 2 * (em - 25) + (ex - 24)
    low = lo * xi  # < 2**49
    top = hi * xi + (low >> 25)
    m = -k - 25
    power = np.left_shift(np.int64(1), np.clip(m, 0, 62))
    return np.where(m > 62, True, np.where(m < 0, False, top < power))


def fused_multiply_add(a: np.ndarray, b, c: np.ndarray, etype: ElementType) -> np.ndarray:
    """a * b + c rounded once to T (f16, bf16, f32). The product of two values of T is exact in
    float64; the sum is rounded to odd there (TwoSum gives its error; an inexact even result steps
    toward the error), and rounding that to T, which has at least 2 bits fewer, is correct."""
    x = np.multiply(np.asarray(a, dtype=F64), np.asarray(b, dtype=F64))
    y = np.asarray(c, dtype=F64)
    t = x + y
    back = t - x
    error = (x - (t - back)) + (y - back)  # TwoSum: x + y = t + error exactly (t finite)
    odd = np.isfinite(t) & (error != 0) & (t.view(np.uint64) & np.uint64(1) == 0)
    if odd.any():
        t = np.where(odd, np.nextafter(t, np.where(error > 0, np.inf, -np.inf)), t)
    if etype.name == "bf16":
        return round_to_float(t, "bf16")
    return t.astype(dtype_of(etype))
