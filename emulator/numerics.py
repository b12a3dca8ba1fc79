"""Element arithmetic on numpy arrays, exact to the rounding rules of docs/semantics.md ("Numbers").

f16 and bf16 are computed in f32 and rounded once: for add, sub, mul and sqrt that is the
correctly rounded result (24 >= 2p + 2), and it is much faster than numpy's native f16. f32 exp and
ln go through f64 so that they stay within one ulp.
"""

from __future__ import annotations

import numpy as np

from isa.types import ElementType
from isa.values import dtype_of

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)


def compute_dtype(etype: ElementType, op: str) -> np.dtype:
    """The dtype arithmetic is done in for ``op`` on ``etype``."""
    if not etype.is_float:
        return dtype_of(etype)
    if etype.name == "f32":
        return F64 if op in ("exp", "ln") else F32
    return F32


def _zero_sign_fix(result, a, b, op: str):
    """IEEE leaves max/min of +0 and -0 open; vcore returns +0 for max and -0 for min."""
    both_zero = (a == 0) & (b == 0)
    if not both_zero.any():
        return result
    fixed = a + b if op == "max" else -((-a) + (-b))
    return np.where(both_zero, fixed, result)


def binary(op: str, a: np.ndarray, b, is_float: bool) -> np.ndarray:
    """``op`` over arrays already in the compute dtype (``b`` may be a scalar of that dtype)."""
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    if op == "mul":
        return a * b
    if op == "max":
        r = np.maximum(a, b)
        return _quiet(_zero_sign_fix(r, a, b, op)) if is_float else r
    if op == "min":
        r = np.minimum(a, b)
        return _quiet(_zero_sign_fix(r, a, b, op)) if is_float else r
    raise AssertionError(op)


_QUIET_BIT = {np.dtype(np.float32): (np.uint32, 1 << 22), np.dtype(np.float64): (np.uint64, 1 << 51)}


def _quiet(r: np.ndarray) -> np.ndarray:
    """A NaN result is a quiet NaN (IEEE 754 6.2): numpy's maximum/minimum pass a signalling NaN
    operand through as it is, so its quiet bit is set here."""
    nan = np.isnan(r)
    if not nan.any():
        return r
    uint, bit = _QUIET_BIT[r.dtype]
    r = np.array(r, copy=True)
    r.view(uint)[nan] |= uint(bit)
    return r


def unary(op: str, a: np.ndarray, is_float: bool) -> np.ndarray:
    """``op`` over an array in the compute dtype. Float abs and relu never come here: they work
    on the bits of T (``_sign_op``)."""
    if op == "abs":
        return np.abs(a)
    if op == "relu":
        return np.maximum(a, a.dtype.type(0))
    if op == "exp":
        return np.exp(a)
    if op == "ln":
        return np.log(a)
    if op == "sqrt":
        return np.sqrt(a)
    raise AssertionError(op)


def element_of_bits(raw: int, etype: ElementType):
    """The element of ``etype`` whose bit pattern is the low bits of ``raw`` (an immediate or Sn)."""
    bits = np.array([raw & ((1 << etype.bits) - 1)], dtype=np.uint64).astype(f"<u{etype.size}")
    return bits.view(dtype_of(etype))[0]


SCALAR_BASE = {"adds": "add", "muls": "mul", "maxs": "max", "mins": "min"}


def kernel(op: str, etype: ElementType):
    """``op`` on ``etype`` with everything that depends only on them resolved once:
    ``fn(srcs, scalar=None) -> array of etype``. The caller sets ``np.errstate``."""
    out_dtype = dtype_of(etype)
    work = compute_dtype(etype, op)
    is_float = etype.is_float
    convert = work != out_dtype
    if op in SCALAR_BASE:
        base = SCALAR_BASE[op]

        def scalar_op(srcs, scalar=None):
            a = srcs[0].astype(work) if convert else srcs[0]
            value = np.array([scalar], dtype=out_dtype).astype(work)[0]
            result = binary(base, a, value, is_float)
            return result.astype(out_dtype, copy=False)

        return scalar_op
    if is_float and op in ("abs", "relu"):
        return _sign_op(op, etype, work)
    ufunc = {"add": np.add, "sub": np.subtract, "mul": np.multiply}.get(op)
    if ufunc is not None:  # the common case, one ufunc call
        if convert:
            return lambda srcs, scalar=None: ufunc(srcs[0].astype(work), srcs[1].astype(work)).astype(out_dtype)
        return lambda srcs, scalar=None: ufunc(srcs[0], srcs[1])
    if op in ("max", "min"):
        def binary_op(srcs, scalar=None):
            a, b = (s.astype(work) for s in srcs) if convert else srcs
            result = binary(op, a, b, is_float)
            return result.astype(out_dtype, copy=False)

        return binary_op

    def unary_op(srcs, scalar=None):
        return unary(op, srcs[0].astype(work, copy=False), is_float).astype(out_dtype, copy=False)

    return unary_op


def _sign_op(op: str, etype: ElementType, work: np.dtype):
    """Float abs and relu on the bits of T, so a NaN keeps its payload (IEEE 754 5.5.1: abs clears
    the sign bit only; relu passes a NaN through)."""
    out_dtype = dtype_of(etype)
    uint = np.dtype(f"<u{etype.size}")
    magnitude = uint.type((1 << (etype.bits - 1)) - 1)
    if op == "abs":
        return lambda srcs, scalar=None: (srcs[0].view(uint) & magnitude).view(out_dtype)

    def relu(srcs, scalar=None):
        a = srcs[0]
        wide = a.astype(work)
        keep = (wide > 0) | np.isnan(wide)
        return np.where(keep, a.view(uint), uint.type(0)).view(out_dtype)

    return relu
