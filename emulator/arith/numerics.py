"""Element arithmetic on numpy arrays, exact to the rounding rules of docs/semantics.md ("Numbers").

f16 and bf16 are computed in f32 and rounded once: for add, sub, mul and sqrt that is the
correctly rounded result (24 >= 2p + 2), and it is much faster than numpy's native f16. f32 exp and
ln go through f64 so that they stay within one ulp.
"""

from __future__ import annotations

import numpy as np

from vcore.emulator.arith import exact
from vcore.isa.types import TYPES, ElementType
from vcore.isa.values import dtype_of

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)


def compute_dtype(etype: ElementType, op: str) -> np.dtype:
    """The dtype arithmetic is done in for ``op`` on ``etype``."""
    if not etype.is_float:
        return dtype_of(etype)
    if etype.name == "f32":
        # div: 53 >= 2 * 24 + 2, rounded once
        return F64 if op in ("exp", "ln", "div", "rec", "rsqrt", "expdif") else F32
    return F32


def _zero_sign_fix(result, a, b, op: str):
    """IEEE leaves max/min of +0 and -0 open; vcore returns +0 for max and -0 for min."""
    both_zero = (a == 0) & (b == 0)
    if not both_zero.any():
        return result
    fixed = a + b if op == "max" else -((-a) + (-b))
    return np.where(both_zero, fixed, result)


def _max(a, b, is_float: bool):
    r = np.maximum(a, b)
    return _quiet(_zero_sign_fix(r, a, b, "max")) if is_float else r


def _min(a, b, is_float: bool):
    r = np.minimum(a, b)
    return _quiet(_zero_sign_fix(r, a, b, "min")) if is_float else r


# The per-op arithmetic, in the compute dtype: one entry per op. ``kernel`` wraps an entry with what
# every op shares (conversion to and from the compute dtype, a scalar operand); adding an op is an
# entry here (and, if it needs more precision, a line in ``compute_dtype``). ``emulator.check``
# refuses to start when a row's op has no entry or cannot be built for one of its types.
BINARY_OPS = {
    "and": lambda a, b, is_float: a & b,
    "or": lambda a, b, is_float: a | b,
    "xor": lambda a, b, is_float: a ^ b,
    "add": lambda a, b, is_float: a + b,
    "sub": lambda a, b, is_float: a - b,
    "mul": lambda a, b, is_float: a * b,
    "div": lambda a, b, is_float: a / b,
    "expdif": lambda a, b, is_float: np.exp(a - b),  # ExpSub: the difference in the compute dtype, one exp
    "max": _max,
    "min": _min,
}
UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,  # one call, the fast path
          "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


def binary(op: str, a: np.ndarray, b, is_float: bool) -> np.ndarray:
    """``op`` over arrays already in the compute dtype (``b`` may be a scalar of that dtype)."""
    return BINARY_OPS[op](a, b, is_float)


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


UNARY_OPS = {
    "abs": np.abs,  # integers only: float abs works on the bits of T (``_sign_op``)
    "relu": lambda a: np.maximum(a, a.dtype.type(0)),  # likewise
    "neg": np.negative,  # likewise: integers wrap
    "not": np.invert,
    "exp": np.exp,
    "ln": np.log,
    "sqrt": np.sqrt,
    "rec": lambda a: np.divide(a.dtype.type(1), a),  # in the dtype of div: rounded once to T
}
# Ops that place values rather than compute from sources (VDUP, VARANGE): ``fill(index, scalar)``
# gets each lane's index from the first iteration's first lane (r * lanes + i).
FILL_OPS = {"dup", "arange"}
# Ops with a scalar operand that are not ``SCALAR_BASE`` forms of a binary op (a shift's count is
# a scalar, or in the register form a lane of Vb: ``fn([a, counts])``).
SCALAR_OPS = {"lrelu", "shl", "shr"}


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
    if is_float and op in ("abs", "relu", "neg"):
        return _sign_op(op, etype, work)
    if op in FILL_OPS:
        return _fill(op, etype)
    if op == "lrelu":
        def lrelu(srcs, scalar=None):
            a = srcs[0]
            wide = a.astype(work)
            scaled = (wide * np.array([scalar], dtype=out_dtype).astype(work)[0]).astype(out_dtype)
            return np.where(wide >= 0, a, scaled)

        return lrelu
    if op == "rsqrt":
        return lambda srcs, scalar=None: exact.rsqrt(srcs[0], etype)
    if op in ("shl", "shr"):
        return shift_kernel(op, etype)
    if op in FMA_OPS:
        return _fma(op, etype)
    if op in INT_DIVISION and not is_float:
        return _int_division(op, out_dtype)
    if op == "brcb":  # each of an iteration's 8 elements fills its datablock
        per_block = 32 // etype.size
        return lambda srcs, scalar=None: np.repeat(srcs[0], per_block, axis=1)
    ufunc = UFUNCS.get(op)
    if ufunc is not None:  # the common case, one ufunc call
        if convert:
            return lambda srcs, scalar=None: ufunc(srcs[0].astype(work), srcs[1].astype(work)).astype(out_dtype)
        return lambda srcs, scalar=None: ufunc(srcs[0], srcs[1])
    if op in BINARY_OPS:
        def binary_op(srcs, scalar=None):
            a, b = (s.astype(work) for s in srcs) if convert else srcs
            result = binary(op, a, b, is_float)
            return result.astype(out_dtype, copy=False)

        return binary_op

    fn = UNARY_OPS[op]  # a KeyError for an op with no kernel: emulator.check names it at import

    def unary_op(srcs, scalar=None):
        return fn(srcs[0].astype(work, copy=False)).astype(out_dtype, copy=False)

    return unary_op


# Integer division and remainder (CONTRACT 13.7): the quotient rounds toward zero (MIN / -1 wraps to
# MIN), a zero divisor gives all ones; the remainder is ``a - trunc(a / b) * b`` (the sign of a; MIN % -1
# is 0; a % 0 is a). Computed in int64, where every 16- and 32-bit quotient and product is exact.
INT_DIVISION = {"div", "rem"}


def _int_division(op: str, out_dtype: np.dtype):
    def divide(srcs, scalar=None):
        a, b = srcs[0].astype(np.int64), srcs[1].astype(np.int64)
        zero = b == 0
        divisor = np.where(zero, 1, b)
        quotient = np.abs(a) // np.abs(divisor)
        quotient = np.where((a < 0) != (divisor < 0), -quotient, quotient)
        # a quotient (a zero divisor: -1, all ones once wrapped to T) or a remainder (a % 0 = a)
        result = np.where(zero, -1, quotient) if op == "div" else np.where(zero, a, a - quotient * divisor)
        return result.astype(out_dtype)  # wraps (MIN / -1 = 2^(bits-1) becomes MIN)

    return divide


# Fused multiply-adds, whose sources end with the destination's own values: axpy ``[a, d], s``
# -> a * s + d; mla ``[a, b, d]`` -> a * b + d; madd ``[a, b, d]`` -> a * d + b.
FMA_OPS = {"axpy", "mla", "madd"}


def kernel_ops() -> set[str]:
    """Every op ``kernel`` can build."""
    return set(BINARY_OPS) | set(UNARY_OPS) | set(SCALAR_BASE) | FILL_OPS | SCALAR_OPS | FMA_OPS | INT_DIVISION | {
        "rsqrt", "brcb"}


def _fma(op: str, etype: ElementType):
    out_dtype = dtype_of(etype)
    if op == "axpy":
        return lambda srcs, scalar=None: exact.fused_multiply_add(srcs[0], np.array(scalar, dtype=out_dtype),
                                                                  srcs[1], etype)
    if op == "mla":
        return lambda srcs, scalar=None: exact.fused_multiply_add(srcs[0], srcs[1], srcs[2], etype)
    return lambda srcs, scalar=None: exact.fused_multiply_add(srcs[0], srcs[2], srcs[1], etype)


def _fill(op: str, etype: ElementType):
    """VDUP and VARANGE: ``fn([index], scalar)``, index the lanes' (r * lanes + i) as int64."""
    out_dtype = dtype_of(etype)
    if op == "dup":
        return lambda srcs, scalar=None: np.full(srcs[0].shape, scalar, dtype=out_dtype)
    if etype.is_float:  # the exact START + index, rounded once to T
        from vcore.emulator.arith.conversion import round_to_float  # noqa: PLC0415  (conversion imports this module's peers)

        return lambda srcs, scalar=None: round_to_float(np.float64(scalar) + srcs[0], etype.name)
    return lambda srcs, scalar=None: (np.int64(scalar) + srcs[0]).astype(out_dtype)  # wraps


def _sign_op(op: str, etype: ElementType, work: np.dtype):
    """Float abs, neg and relu on the bits of T, so a NaN keeps its payload (IEEE 754 5.5.1: abs
    clears the sign bit only, negate flips it; relu passes a NaN through)."""
    out_dtype = dtype_of(etype)
    uint = np.dtype(f"<u{etype.size}")
    magnitude = uint.type((1 << (etype.bits - 1)) - 1)
    if op == "abs":
        return lambda srcs, scalar=None: (srcs[0].view(uint) & magnitude).view(out_dtype)
    if op == "neg":
        sign = uint.type(1 << (etype.bits - 1))
        return lambda srcs, scalar=None: (srcs[0].view(uint) ^ sign).view(out_dtype)

    def relu(srcs, scalar=None):
        a = srcs[0]
        wide = a.astype(work)
        keep = (wide > 0) | np.isnan(wide)
        return np.where(keep, a.view(uint), uint.type(0)).view(out_dtype)

    return relu


FOLDS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def fold_rows(op: str, etype: ElementType, seq: np.ndarray, acc_first: bool = True) -> np.ndarray | None:
    """Rows n-1 and n of the in-order fold ``d_0 = seq[0]``, ``d_r = op(d_{r-1}, seq[r])`` (or
    ``op(seq[r], d_{r-1})`` when not ``acc_first``) over ``seq`` (n + 1, lanes) of etype, each step
    bit for bit ``kernel(op, etype)`` (``op`` a binary or a scalar op; a scalar op's rows 1.. are its
    scalar); None when NaNs occur and the kernel's NaN rule is not one this fold knows. The caller
    sets ``np.errstate``.

    numpy's accumulate rounds each step to the dtype (f16, bf16 too) and wraps integers. Floats:
    max/min fold ordered integer keys (-0 < +0, as the kernel's zero rule), NaNs left out. Once the
    accumulator is NaN it stays NaN; which payload depends on the kernel (``_nan_rule``): it keeps
    its state or takes each later NaN ``seq[r]``. numpy's own f16/bf16 add and mul loops may pick the
    other payload than the kernel, so NaN states are rebuilt from the kernel's rule.
    """
    base = SCALAR_BASE.get(op, op)
    n, ufunc = len(seq) - 1, FOLDS[base]
    if base in ("max", "min") and etype.is_float:
        ints = seq.view(f"<i{etype.size}")
        top = ints.dtype.type((1 << (etype.bits - 1)) - 1)
        keys = ints ^ ((ints >> (etype.bits - 1)) & top)  # an involution: sign-magnitude to ordered
        nan = np.isnan(seq)
        keys[nan] = np.iinfo(keys.dtype).min if base == "max" else np.iinfo(keys.dtype).max
        rows = ufunc.accumulate(keys, axis=0)[n - 1:]
        rows = (rows ^ ((rows >> (etype.bits - 1)) & top)).view(seq.dtype)
        if n == 1:  # row 0 is seq[0] as it is, even a NaN left out above
            rows[0] = seq[0]
        state_nan = nan  # a max/min NaN state starts at the first NaN element
    else:
        folded = ufunc.accumulate(seq, axis=0, dtype=seq.dtype)
        rows = folded[n - 1:].copy()
        if not etype.is_float:
            return rows
        state_nan = np.isnan(folded)  # exact up to the first NaN state: one NaN operand at most
    if not state_nan.any():
        return rows
    rule = _nan_rule(op, etype.name)  # "first" or "second": the NaN the kernel returns of two
    if rule is None:
        return None
    quiet = kernel(base, etype)  # quiet([v, v]): NaN v as the kernel returns it
    lane = np.arange(seq.shape[1])
    start_row = np.argmax(state_nan, axis=0)  # r0: the fold's first NaN state
    started = state_nan.any(axis=0)
    first = seq[start_row, lane] if base in ("max", "min") else folded[start_row, lane]
    first = quiet([first, first])
    for i, r in enumerate((n - 1, n)):
        if r == 0:  # d_0 is seq[0] as it is
            continue
        value = first
        if (rule == "first") != acc_first:  # the last NaN seq[j], r0 < j <= r, replaces the state
            later = np.isnan(seq[:r + 1]) & (np.arange(r + 1)[:, None] > start_row)
            replaced = seq[r - np.argmax(later[::-1], axis=0), lane]
            value = np.where(later.any(axis=0), quiet([replaced, replaced]), first)
        rows[i] = np.where(started & (start_row <= r), value, rows[i])
    return rows


_RULES: dict = {}


def _nan_rule(op: str, name: str) -> str | None:
    """Which operand's NaN ``kernel(op)`` returns (quieted) when both are NaN, "first" or "second",
    on (1, lanes) arrays as the tensor passes call it: probed once for quiet and signalling NaNs of
    several payloads and signs. None unless that rule holds for all of them and a lone NaN operand
    is returned (quieted) whichever side it is on."""
    if (op, name) not in _RULES:
        etype = TYPES[name]
        dtype, uint = dtype_of(etype), np.dtype(f"<u{etype.size}")
        mantissa = {"f16": 10, "bf16": 7, "f32": 23}[name]
        exp = ((1 << (etype.bits - 1)) - 1) ^ ((1 << mantissa) - 1)
        quiet_bit, sign = 1 << (mantissa - 1), 1 << (etype.bits - 1)
        one = int(np.array([1.0], dtype=np.float32).astype(dtype).view(uint)[0])
        values = [exp | quiet_bit | 3, sign | exp | quiet_bit | 5, exp | 1, sign | exp | 6, one]
        firsts = np.resize(np.array(values, dtype=uint), (1, etype.lanes))
        kern, quiet = kernel(op, etype), kernel(SCALAR_BASE.get(op, op), etype)
        first_ok = second_ok = lone_ok = True
        with np.errstate(all="ignore"):
            q = quiet([firsts.view(dtype)] * 2).view(uint)
            a_nan = firsts != one
            for k, b in enumerate(values):
                second = np.full((1, etype.lanes), b, dtype=uint).view(dtype)
                got = (kern([firsts.view(dtype)], second[0, 0]) if op in SCALAR_BASE
                       else kern([firsts.view(dtype), second])).view(uint)
                qb, both = q[0, k], a_nan & (b != one)  # firsts[0, k] == values[k]
                lone = a_nan ^ (b != one)
                lone_ok &= bool(np.array_equal(got[lone], np.where(a_nan, q, qb)[lone]))
                first_ok &= bool(np.array_equal(got[both], q[both]))
                second_ok &= bool((got[both] == qb).all())
        _RULES[(op, name)] = None if not lone_ok else "first" if first_ok else "second" if second_ok else None
    return _RULES[(op, name)]


_COMPARE = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "GT": np.greater, "LE": np.less_equal,
            "GE": np.greater_equal}


def compare_kernel(cond: str, etype: ElementType):
    """``fn([a] or [a, b], scalar=None) -> bool array`` of ``a C b`` (or ``a C scalar``). A NaN
    operand gives false, NE included (the hardware's rule); +0 equals -0. f16 and bf16 compare
    as f32 (exactly)."""
    test = _COMPARE[cond]
    work = F32 if etype.is_float and etype.size == 2 else dtype_of(etype)
    out = dtype_of(etype)

    def fn(srcs, scalar=None):
        a = srcs[0].astype(work, copy=False)
        b = srcs[1].astype(work, copy=False) if len(srcs) > 1 else np.array([scalar], dtype=out).astype(work)[0]
        result = test(a, b)
        if cond == "NE" and etype.is_float:
            result &= ~np.isnan(a) & ~np.isnan(b)
        return result

    return fn


def shift_kernel(op: str, etype: ElementType, keep_sign: bool = False):
    """VSHL / VSHR of an integer type: ``fn([a], count)`` or ``fn([a, counts])`` (a count per lane).
    A count is read as an unsigned value of T's width; one of the width or more shifts everything
    out (0, or the sign for a signed VSHR). VSHR is logical on unsigned T, arithmetic on signed.
    ``keep_sign`` (the tensor VSHL of a signed T): the sign bit of a joined with the low bits of
    ``a << n``."""
    out_dtype = dtype_of(etype)
    width = etype.bits
    unsigned = np.dtype(f"<u{etype.size}")
    signed = etype.kind == "signed"
    mask = np.uint64((1 << width) - 1)
    sign = np.uint64(1 << (width - 1))

    def fn(srcs, scalar=None):
        a = srcs[0]
        counts = srcs[1] if len(srcs) > 1 else np.array([scalar], dtype=out_dtype)
        n = np.minimum(counts.view(unsigned).astype(np.uint64), np.uint64(63))
        if op == "shr":
            wide = a.astype(np.int64) if signed else a.view(unsigned).astype(np.uint64)
            shifted = wide >> n.astype(wide.dtype)
            return shifted.astype(out_dtype)  # the low bits of the 64-bit result
        bits = a.view(unsigned).astype(np.uint64)
        shifted = np.where(n < width, (bits << n) & mask, np.uint64(0))
        if keep_sign and signed:
            shifted = (bits & sign) | (shifted & (mask ^ sign))
        return shifted.astype(unsigned).view(out_dtype)

    return fn
