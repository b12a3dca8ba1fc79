"""Type conversion (VCONV.D.S) as numpy array operations, exact for every pair and rounding mode.

Every source value is exact in float64 (f16, bf16, f32 and integers of at most 32 bits), so a
conversion is: the float64 value, rounded with the mode to the target's grid, then checked against
the target's range. Rounding to a float format scales each value by its quantum (a power of two,
so exactly) to an integer-grid problem that ``np.rint``/``floor``/... solve, then scales back.
docs/semantics.md ("Conversion") states the rules.
"""

from __future__ import annotations

import numpy as np

from vcore.isa.types import TYPES, ElementType
from vcore.isa.values import dtype_of

F64 = np.dtype(np.float64)
# (mantissa bits, smallest normal exponent) of the float formats a conversion produces
_FORMATS = {"f16": (10, -14), "bf16": (7, -126), "f32": (23, -126)}
_MAX = {"f16": 65504.0, "bf16": float.fromhex("0x1.fep127"), "f32": float.fromhex("0x1.fffffep127")}


def _round_integral(x: np.ndarray, mode: str) -> np.ndarray:
    """``x`` (float64) rounded to an integral float64 by ``mode`` (``odd``: truncate, then make the
    result odd when anything was dropped)."""
    if mode == "rint":
        return np.rint(x)
    if mode == "floor":
        return np.floor(x)
    if mode == "ceil":
        return np.ceil(x)
    t = np.trunc(x)
    if mode == "trunc":
        return t
    if mode == "round":  # nearest, ties away from zero: exact, unlike adding 0.5
        return t + np.copysign((np.abs(x - t) >= 0.5).astype(F64), x)
    # odd
    return np.where((t != x) & (np.fmod(t, 2) == 0), t + np.copysign(1.0, x), t)


def round_to_float(x: np.ndarray, target: str, mode: str = "rint") -> np.ndarray:
    """Exact float64 values rounded to the float type ``target`` by ``mode``, as that type.

    Subnormal results are kept (gradual underflow). Overflow (the rounded magnitude past the
    largest finite value, the exponent range taken as unbounded) gives +-inf, or +-max where the
    mode rounds toward zero on that side: ``trunc``, ``floor`` for positive values, ``ceil`` for
    negative ones. inf and NaN stay as they are; zeros keep their sign."""
    mantissa, emin = _FORMATS[target]
    x = np.asarray(x, dtype=F64)
    ax = np.abs(x)
    _, exponent = np.frexp(ax)  # ax = m * 2**exponent, 0.5 <= m < 1
    quantum = np.maximum(exponent - 1, emin) - mantissa  # log2 of the spacing of the target's grid there
    finite = np.isfinite(x)
    scaled = np.ldexp(np.where(finite, x, 0.0), -quantum)
    rounded = np.ldexp(_round_integral(scaled, mode), quantum)
    top = _MAX[target]
    over = finite & (np.abs(rounded) > top)
    if over.any():
        toward_zero = {"trunc": np.ones_like(over), "floor": x > 0, "ceil": x < 0}.get(mode, np.zeros_like(over))
        rounded = np.where(over, np.copysign(np.where(toward_zero, top, np.inf), x), rounded)
    rounded = np.where(finite, np.copysign(rounded, x), x)  # a zero result keeps the sign; inf, NaN as given
    return rounded.astype(dtype_of(TYPES[target]))


def round_to_int(x: np.ndarray, target: ElementType, mode: str = "rint") -> np.ndarray:
    """Float64 values rounded to integers by ``mode`` and saturated to ``target``; NaN gives 0."""
    lo, hi = target.int_range()
    r = _round_integral(np.asarray(x, dtype=F64), mode)
    r = np.where(np.isnan(r), 0.0, np.clip(r, lo, hi))
    return r.astype(np.int64).astype(dtype_of(target))


def converter(dst: ElementType, src: ElementType, mode: str | None, saturate: bool = False):
    """``fn(values of src) -> values of dst`` for VCONV.dst.src with ``round=mode`` (None: rint) and,
    with ``saturate`` (``sat``), a float narrowed to a float of smaller range clamped to D's largest
    finite value of its sign (inf too; NaN stays NaN); ``sat`` changes no other pair."""
    mode = mode or "rint"
    out = dtype_of(dst)
    if src.is_float and dst.is_float:
        if dst.size > src.size:  # widening: exact
            return lambda a: a.astype(out)
        top = _MAX[dst.name]
        if saturate and top < _MAX[src.name]:  # clamped first, exactly in float64: D's max rounds to itself
            return lambda a: round_to_float(np.clip(a.astype(F64), -top, top), dst.name, mode)
        return lambda a: round_to_float(a.astype(F64), dst.name, mode)
    if src.is_float:
        return lambda a: round_to_int(a.astype(F64), dst, mode)
    if dst.is_float:
        return lambda a: round_to_float(a.astype(F64), dst.name, mode)
    lo, hi = dst.int_range()
    if dst.size >= src.size:  # sign or zero extension
        return lambda a: a.astype(out)
    return lambda a: np.clip(a.astype(np.int64), lo, hi).astype(out)
