"""Element values as text, for ``--dump`` and the debugger's ``print`` and ``watch``.

A float prints as the shortest decimal that gives back the same value of its own type (f16, bf16,
f32, e4m3, e5m2), not of float64: an f32 0.1 is ``0.1``, not ``0.10000000149011612``. "Gives back"
holds both ways of reading the text: rounded once, exactly, to the type (as the assembler reads a
literal), and read as a float64 first and then rounded to the type (``np.float32(float(text))``,
``ml_dtypes.bfloat16(float(text))``). Among the shortest such decimals the nearest one is printed.

The spelling is Python's ``repr`` of a float (``7.5``, ``-0.0``, ``1e-05``, ``3.4028235e+38``,
``nan``, ``inf``, ``-inf``; every NaN is ``nan``), with one change: a value whose shortest digits
would have to be padded with zeros before the point to be written out positionally, so that the
zeros would look like digits of the value, is written in scientific notation instead (an f16 65504
is ``6.55e+04``, not ``65500.0``; an f32 100 is ``100.0``, its zeros being exact). Integers print as
they are. The JSON report is not affected: its ``dumps`` hold the exact values as numbers.
"""

from __future__ import annotations

import functools
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np

from vcore.isa import TYPES
from vcore.isa.values import UINT_OF_SIZE, dtype_of, float_bits

_DRAGON4 = ("f16", "f32")  # the numpy types whose own shortest digits (Dragon4) we can ask for


def format_elements(values: np.ndarray, type_name: str) -> list[str]:
    """Each element of ``values`` (an array of ``type_name``'s dtype, or its raw bits) as text."""
    etype = TYPES[type_name]
    flat = np.ascontiguousarray(values).reshape(-1)
    if not etype.is_float:
        return [str(v) for v in flat.view(dtype_of(etype)).tolist()]
    bits = flat.view(dtype_of(etype)).view(UINT_OF_SIZE[etype.size]).tolist()
    return [format_float_bits(b, type_name) for b in bits]


def format_line(values: np.ndarray, type_name: str) -> str:
    """The elements separated by single spaces, as ``--dump`` and ``print`` show them."""
    return " ".join(format_elements(values, type_name))


@functools.lru_cache(maxsize=1 << 16)
def format_float_bits(bits: int, type_name: str) -> str:
    """The float of ``type_name`` whose bit pattern is ``bits``, as text (see the module doc)."""
    etype = TYPES[type_name]
    dtype = dtype_of(etype)
    typed = np.array([bits], dtype=UINT_OF_SIZE[etype.size]).view(dtype)
    with np.errstate(invalid="ignore"):
        value = float(typed.astype(np.float64)[0])
    if math.isnan(value) or math.isinf(value):
        return repr(value)  # nan, inf, -inf, as Python (and vcore before) spells them
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    digits = None
    if type_name in _DRAGON4:
        # numpy's Dragon4 digits read back exactly by construction; check the float64 way too
        text = np.format_float_scientific(typed[0], unique=True, trim="-")
        if _through_double(text, etype) == bits:
            digits = Decimal(text)
    if digits is None:
        digits = _shortest(value, bits, type_name)
    return _spell(digits, value)


def _through_double(text: str, etype) -> int:
    with np.errstate(over="ignore", invalid="ignore"):
        typed = np.array([float(text)]).astype(dtype_of(etype))
    return int(typed.view(UINT_OF_SIZE[etype.size])[0])


def _reads_back(text: str, bits: int, type_name: str) -> bool:
    """Whether ``text`` gives ``bits`` both ways: through a float64, and rounded once, exactly."""
    etype = TYPES[type_name]
    return _through_double(text, etype) == bits and float_bits(Fraction(text), etype) == bits


def _shortest(value: float, bits: int, type_name: str) -> Decimal:
    """The shortest decimal that reads back as ``bits`` (the nearer of two of the same length).
    With d digits the candidates are the two d-digit decimals either side of the value: the
    decimals that read back form an interval around the value, so if any d-digit decimal is in
    it, one of those two is."""
    magnitude = Decimal(abs(value))  # a float64 is a finite decimal: exact
    for d in range(1, 18):
        nearest = Decimal(f"{abs(value):.{d - 1}e}")  # correctly rounded to d significant digits
        step = Decimal(1).scaleb(nearest.adjusted() - (d - 1))
        other = nearest - step if nearest > magnitude else nearest + step
        for candidate in (nearest, other):
            signed = -candidate if value < 0 else candidate
            if _reads_back(f"{signed:e}", bits, type_name):
                return signed
    return Decimal(value)  # not reached: 17 digits always read back


def _spell(digits: Decimal, value: float) -> str:
    sign, coefficient, exponent = digits.normalize().as_tuple()
    text = repr(float(digits))  # at most 15 digits here: the double nearest them prints them back
    if "e" in text or exponent <= 0 or Fraction(digits) == Fraction(value):
        return text
    # trailing zeros before the point that are not the value's: scientific notation instead
    mantissa = "".join(map(str, coefficient))
    power = exponent + len(mantissa) - 1
    mantissa = mantissa[0] + ("." + mantissa[1:] if len(mantissa) > 1 else "")
    return f"{'-' if sign else ''}{mantissa}e{'+' if power >= 0 else '-'}{abs(power):02d}"


__all__ = ["format_elements", "format_float_bits", "format_line"]
