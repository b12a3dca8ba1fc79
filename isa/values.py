"""Element values and their bit patterns: parse a number into T's bits, print bits so they re-parse.

Floats are printed with the fewest digits that give back the same bits when rounded to T; NaNs
other than the canonical ``nan`` / ``-nan`` print as ``bits(0x...)``, which the assembler accepts.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from vcore.isa.types import ElementType

NUMPY_DTYPES: dict[str, np.dtype] = {
    "f16": np.dtype("<f2"),
    "f32": np.dtype("<f4"),
    "s8": np.dtype("i1"),
    "u8": np.dtype("u1"),
    "s16": np.dtype("<i2"),
    "u16": np.dtype("<u2"),
    "s32": np.dtype("<i4"),
    "u32": np.dtype("<u4"),
    "s64": np.dtype("<i8"),
    "u64": np.dtype("<u8"),
    "b8": np.dtype("u1"),
    "b16": np.dtype("<u2"),
    "b32": np.dtype("<u4"),
}
# bfloat16 and fp8 come from ml_dtypes, whose import costs most of a second: it is loaded the
# first time a program or a value needs one of them.
_ML_DTYPES = {"bf16": "bfloat16", "e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2"}
UINT_OF_SIZE = {1: np.dtype("u1"), 2: np.dtype("<u2"), 4: np.dtype("<u4"), 8: np.dtype("<u8")}


def dtype_of(etype: ElementType | str) -> np.dtype:
    name = etype if isinstance(etype, str) else etype.name
    dtype = NUMPY_DTYPES.get(name)
    if dtype is None:
        import ml_dtypes  # noqa: PLC0415  (deferred on purpose, see above)

        dtype = NUMPY_DTYPES[name] = np.dtype(getattr(ml_dtypes, _ML_DTYPES[name]))
    return dtype


def float_bits(value: float | Fraction, etype: ElementType) -> int:
    """Bits of ``value`` rounded to nearest even in the float type (overflow gives inf, or NaN in
    e4m3). A Fraction (an exact decimal literal) is rounded once, correctly; a float is rounded from
    its double value. Raises OverflowError past the double range."""
    if isinstance(value, Fraction):
        return _exact_bits(value, etype)
    with np.errstate(over="ignore", invalid="ignore"):
        arr = np.array([value], dtype=np.float64).astype(dtype_of(etype))
    return int(arr.view(UINT_OF_SIZE[etype.size])[0])


def _exact_bits(exact: Fraction, etype: ElementType) -> int:
    """Round an exact value to ``etype`` once. Rounding its double first gives the same answer
    unless the double is inexact and lands on a midpoint of ``etype``; then the nearer of the two
    neighbours of the exact value is taken (a true tie is a double, so it never gets here)."""
    approx = float(exact)
    bits = float_bits(approx, etype)
    if Fraction(approx) == exact:
        return bits
    sign = 1 << (etype.bits - 1)
    negative = exact < 0
    magnitude = abs(exact)
    m = bits & (sign - 1)

    def value(pattern: int) -> Fraction:
        # The pattern past the largest finite one (inf, or NaN in e4m3) stands one ulp further.
        v = bits_value(pattern, etype)
        if math.isfinite(v):
            return Fraction(v)
        top = Fraction(bits_value(pattern - 1, etype))
        return top + (top - Fraction(bits_value(pattern - 2, etype)))

    limit = float_bits(math.inf, etype) & (sign - 1)  # the first pattern past the finite ones
    m = min(m, limit)
    other = min(m + 1, limit) if value(m) < magnitude else m - 1
    best = min((m, other), key=lambda p: abs(value(p) - magnitude))
    return best | (sign if negative else 0)


def bits_value(bits: int, etype: ElementType) -> float | int:
    """The value that ``bits`` encode in ``etype``: a float for float types, an int otherwise."""
    arr = np.array([bits], dtype=UINT_OF_SIZE[etype.size]).view(dtype_of(etype))
    if etype.is_float:
        return float(arr.astype(np.float64)[0])
    return int(arr[0])


def int_bits(value: int, etype: ElementType) -> int:
    return value & ((1 << etype.bits) - 1)


def format_bits(bits: int, etype: ElementType) -> str:
    """Text that parses back (``parse`` below, or the assembler) to exactly ``bits``."""
    value = bits_value(bits, etype)
    if not etype.is_float:
        return str(value)
    if math.isnan(value):
        for text in ("nan", "-nan"):
            if float_bits(float(text), etype) == bits:
                return text
        return f"bits(0x{bits:0{etype.size * 2}x})"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    exact = repr(value)
    if len(exact) <= 10 and "e" not in exact:
        return exact  # short and exact (448.0, 65504.0, 0.5): clearer than the shortest digits
    for digits in range(1, 18):
        text = f"{value:.{digits}g}"
        if float_bits(Fraction(text), etype) == bits:  # as the assembler reads it
            break
    if not any(c in text for c in ".en"):
        text += ".0"
    return text


def format_value(value: float | int, etype: ElementType) -> str:
    if etype.is_float:
        return format_bits(float_bits(float(value), etype), etype)
    return str(int(value))
