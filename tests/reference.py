"""Independent, deliberately slow reference model (test oracle) for vcore.

Written only from shared/CONTRACT.md (sections 1, 2, 3.1, 6.1-6.6, and 13.1-13.7, 13.10, 13.12 for part
three), shared/SEMANTICS.md and
the seed documents, without looking at the emulator, so that the two can be
checked against each other.  Which ops each shape takes is read from the ISA table
(``isa.TABLE``, the contract's instruction list as data), so a new op is dispatched without an edit
here; what every op computes is written here.  Everything is done one lane at a time with plain
Python loops and Python ints/floats; numpy is only used to hold memory and to
reinterpret bit patterns.

Conventions
-----------
* Memory (UB or GM) is a 1-D numpy uint8 array, mutated in place.
* A vector register is a numpy uint8 array of 256 bytes.
* A mask register is a numpy bool array of 256 entries, one per byte of VL.  A
  lane of w bytes, index i, is active when entry i*w is set; writers set all w
  entries of a lane.
* Element types are the strings of ``DTYPES``.
* Float results are computed in float64 and rounded ONCE to the element type
  by ``round_to_type`` (our own round-to-nearest-even, not a library cast).
  For add/sub/mul/sqrt of f16/bf16/f32 this is the correctly rounded result
  (53 >= 2p+2).  NaN results are the canonical quiet NaN of the type (sign 0),
  except ``abs`` which only clears the sign bit of the input bits.
* Invalid parameters raise ValueError, out-of-range memory accesses raise
  IndexError; in both cases nothing has been written yet.
* Conversions (6.1), reciprocal / rsqrt (6.2) and arange of floats round with
  exact rational arithmetic (fractions.Fraction), never with a library cast.
* Element values of the section 6 functions are bit patterns (Python ints);
  a scalar operand given as bits keeps its low bits (a scalar register's low
  bits reinterpreted as T, CONTRACT 2.1).
* Reductions (6.4) and fused multiply-adds (6.5) are computed exactly with
  Fraction and rounded to the type at every tree node (sums) or once (FMA).
"""

import math
from fractions import Fraction

import ml_dtypes
import numpy as np

from vcore import isa as _isa

# ---------------------------------------------------------------------------
# element types
# ---------------------------------------------------------------------------

DTYPES = {
    'f16': np.dtype('<f2'),
    'bf16': np.dtype(ml_dtypes.bfloat16),
    'f32': np.dtype('<f4'),
    's8': np.dtype('<i1'),
    'u8': np.dtype('<u1'),
    's16': np.dtype('<i2'),
    'u16': np.dtype('<u2'),
    's32': np.dtype('<i4'),
    'u32': np.dtype('<u4'),
    'e4m3': np.dtype(ml_dtypes.float8_e4m3fn),
    'e5m2': np.dtype(ml_dtypes.float8_e5m2),
}

SIZE = {t: DTYPES[t].itemsize for t in DTYPES}

FLOAT_TYPES = ('f16', 'bf16', 'f32', 'e4m3', 'e5m2')
INT_TYPES = ('s8', 'u8', 's16', 'u16', 's32', 'u32')
SIGNED_TYPES = ('s8', 's16', 's32')

# types the arithmetic ops accept
TENSOR_TYPES = ('f16', 'bf16', 'f32', 's16', 'u16', 's32', 'u32')
REGISTER_ARITH_TYPES = ('f16', 'bf16', 'f32', 's8', 'u8', 's16', 'u16', 's32', 'u32')

# float formats: (precision p incl. hidden bit, emin, largest finite, has_inf)
_FLOAT_FMT = {
    'f16': (11, -14, (2.0 - 2.0 ** -10) * 2.0 ** 15, True),
    'bf16': (8, -126, (2.0 - 2.0 ** -7) * 2.0 ** 127, True),
    'f32': (24, -126, (2.0 - 2.0 ** -23) * 2.0 ** 127, True),
    'e5m2': (3, -14, 1.75 * 2.0 ** 15, True),        # 57344
    'e4m3': (4, -6, 1.75 * 2.0 ** 8, False),          # 448, no inf (fn)
}

# canonical quiet NaN bit patterns (positive)
QNAN = {'f16': 0x7E00, 'bf16': 0x7FC0, 'f32': 0x7FC00000, 'e4m3': 0x7F, 'e5m2': 0x7E}

_UINT_OF_SIZE = {1: np.dtype('<u1'), 2: np.dtype('<u2'), 4: np.dtype('<u4')}

# Which ops each shape takes is the ISA table's (isa.TABLE, the instruction list of the contract's
# sections 2 and 6), so that a new op is dispatched here as soon as the table has it; what each op
# computes (lane_binary, lane_unary below) is this module's own. An op whose rows take no float type
# is bitwise: its own functions, at the end of this module.
def _ops_of(*forms):
    """The ops of the table's rows of ``forms`` that take a float type, in table order."""
    ops = []
    for row in _isa.TABLE:
        if row.form in forms and set(row.types) & set(FLOAT_TYPES) and row.op not in ops:
            ops.append(row.op)
    return tuple(ops)


# CONTRACT 13.7: VDIV also divides s16 u16 s32 u32 (rounding toward zero), and VREM ([vcore]) is the
# matching remainder; both are binary ops of the tensor and register forms. 'rem' takes no float type,
# so the table's float rows do not name it: it is added here by hand, and neither op is float-only
# or bitwise whatever rows the table grows for them.
INT_DIV_OPS = ('div', 'rem')
INT_DIV_TYPES = ('s16', 'u16', 's32', 'u32')

BINARY_OPS = _ops_of('tensor-binary', 'reg-binary') + ('rem',)   # add ... min, div, expdif (VEXPDIF: ExpSub), rem
TENSOR_UNARY_OPS = _ops_of('tensor-unary')             # exp ... sqrt, rec, rsqrt, neg
REGISTER_UNARY_OPS = _ops_of('reg-unary')              # exp ... sqrt, neg (VREC / VRSQRT: tensor only)
TENSOR_SCALAR_OPS = _ops_of('tensor-scalar')           # adds ... mins, lrelu
REGISTER_SCALAR_OPS = _ops_of('reg-scalar')
# ops whose every row takes float types alone
FLOAT_ONLY_OPS = tuple(op for op in dict.fromkeys(BINARY_OPS + TENSOR_UNARY_OPS + REGISTER_UNARY_OPS +
                                                  TENSOR_SCALAR_OPS + REGISTER_SCALAR_OPS)
                       if op not in INT_DIV_OPS
                       and all(set(row.types) <= set(FLOAT_TYPES) for row in _isa.TABLE
                              if row.op == op and row.form in ('tensor-binary', 'reg-binary', 'tensor-unary',
                                                               'reg-unary', 'tensor-scalar', 'reg-scalar')))
# The contract's section 2.1 ops, which tests draw from by name, and a scalar op's lane op.
UNARY_OPS = ('exp', 'abs', 'relu', 'ln', 'sqrt')
SCALAR_OPS = {'adds': 'add', 'muls': 'mul', 'maxs': 'max', 'mins': 'min'}

VL = 256
BLOCK = 32


def _check_type(t, allowed=None):
    if t not in DTYPES:
        raise ValueError('unknown element type %r' % (t,))
    if allowed is not None and t not in allowed:
        raise ValueError('type %s not allowed here (allowed: %s)' % (t, ', '.join(allowed)))


# ---------------------------------------------------------------------------
# scalar encode / decode of one element
# ---------------------------------------------------------------------------

def round_to_type(x, t):
    """Round the float ``x`` (taken exactly) to the float type ``t``,
    round-to-nearest-even, with gradual underflow and IEEE overflow
    (to inf, or to NaN for e4m3 which has no inf).  Returns a Python float
    that is exactly representable in ``t`` (or inf / nan)."""
    p, emin, max_finite, has_inf = _FLOAT_FMT[t]
    x = float(x)
    if math.isnan(x):
        return math.nan
    if math.isinf(x):
        return x if has_inf else math.nan
    if x == 0.0:
        return x                                   # keeps the sign of zero
    ax = abs(x)
    _m, e = math.frexp(ax)                         # ax = m * 2**e, 0.5 <= m < 1
    lead = e - 1                                   # exponent of the leading bit
    quantum = max(lead, emin) - (p - 1)            # exponent of the last kept bit
    scaled = math.ldexp(ax, -quantum)              # exact (power-of-two scaling)
    n = round(scaled)                              # Python round: half to even, exact
    r = math.ldexp(float(n), quantum)
    if r > max_finite:
        r = math.inf if has_inf else math.nan
    return math.copysign(r, x)


def _float_bits(value, t):
    """Python float -> bit pattern (int) of float type t (rounding once)."""
    r = round_to_type(value, t)
    if math.isnan(r):
        return QNAN[t]
    # r is exactly representable, so any conversion is exact
    arr = np.array([r], dtype=np.float64).astype(DTYPES[t])
    return int(arr.view(_UINT_OF_SIZE[SIZE[t]])[0])


def _bits_float(bits, t):
    """bit pattern (int) of float type t -> Python float (exact)."""
    arr = np.array([bits], dtype=_UINT_OF_SIZE[SIZE[t]]).view(DTYPES[t])
    return float(arr[0])


def _wrap_int(v, t):
    """Python int -> the value of integer type t it wraps to (two's complement)."""
    nbits = 8 * SIZE[t]
    v = int(v) % (1 << nbits)
    if t in SIGNED_TYPES and v >= (1 << (nbits - 1)):
        v -= 1 << nbits
    return v


def _int_bits(v, t):
    return int(v) % (1 << (8 * SIZE[t]))


def _bits_int(bits, t):
    return _wrap_int(bits, t)


def encode(value, t):
    """One value -> bit pattern (int) of type t."""
    if t in FLOAT_TYPES:
        return _float_bits(float(value), t)
    return _int_bits(int(value), t)


def decode(bits, t):
    """bit pattern (int) -> Python float (float types) or int (integer types)."""
    if t in FLOAT_TYPES:
        return _bits_float(bits, t)
    return _bits_int(bits, t)


def _sign_bit(t):
    return 1 << (8 * SIZE[t] - 1)


def _is_nan_bits(bits, t):
    return t in FLOAT_TYPES and math.isnan(_bits_float(bits, t))


# ---------------------------------------------------------------------------
# one lane of an operation, on bit patterns
# ---------------------------------------------------------------------------

def lane_binary(op, t, xb, yb):
    """Binary op on one lane: bit patterns in, bit pattern out."""
    if t in INT_TYPES:
        x = _bits_int(xb, t)
        y = _bits_int(yb, t)
        if op == 'add':
            r = x + y
        elif op == 'sub':
            r = x - y
        elif op == 'mul':
            r = x * y
        elif op == 'max':
            r = x if x >= y else y
        elif op == 'min':
            r = x if x <= y else y
        elif op in INT_DIV_OPS:
            return lane_int_div(op, t, xb, yb)     # CONTRACT 13.7
        elif op in FLOAT_ONLY_OPS:
            raise ValueError('%s is defined for float types only, not %s' % (op, t))
        else:
            raise ValueError('unknown binary op %r' % (op,))
        return _int_bits(r, t)

    x = _bits_float(xb, t)
    y = _bits_float(yb, t)
    if op == 'lrelu':
        # CONTRACT 6.2: x >= 0 ? x : x * scalar; -0 >= 0 holds (kept bit for bit), NaN gives NaN.
        # The product of two p <= 24 bit values is exact in double: rounded once.
        if math.isnan(x):
            return QNAN[t]
        if x >= 0.0:
            return xb
        return _float_bits(x * y, t)
    if op in ('max', 'min'):
        if math.isnan(x) or math.isnan(y):
            return QNAN[t]
        if x == 0.0 and y == 0.0:
            x_neg = math.copysign(1.0, x) < 0
            y_neg = math.copysign(1.0, y) < 0
            if op == 'max':
                result_neg = x_neg and y_neg         # +0 unless both are -0
            else:
                result_neg = x_neg or y_neg          # -0 unless both are +0
            return _float_bits(-0.0 if result_neg else 0.0, t)
        if op == 'max':
            return xb if x >= y else yb
        return xb if x <= y else yb
    if op == 'add':
        r = x + y
    elif op == 'sub':
        r = x - y
    elif op == 'mul':
        r = x * y
    elif op == 'div':
        r = _ieee_div(x, y)
    elif op == 'expdif':
        # exp of the exact difference (p <= 24 bit operands: x - y has at most 24 + 278 bits, so a
        # Fraction keeps it exact; exp of its nearest double is within 1 ulp of T before rounding)
        if math.isnan(x) or math.isnan(y) or (math.isinf(x) and math.isinf(y) and x == y):
            return QNAN[t]
        diff = float(Fraction(x) - Fraction(y)) if not (math.isinf(x) or math.isinf(y)) else x - y
        with np.errstate(all='ignore'):
            r = float(np.exp(np.float64(diff)))
    else:
        raise ValueError('unknown binary op %r' % (op,))
    return _float_bits(r, t)


def _ieee_div(x, y):
    """x / y with IEEE special values (CONTRACT 6.2): x/0 = +-inf (sign of x times sign of 0),
    0/0 = NaN, inf/inf = NaN, NaN in = NaN. Finite quotients are computed in double; rounding the
    double to a type of p <= 24 bits afterwards is correct (53 >= 2p + 2)."""
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if y == 0.0:
        if x == 0.0:
            return math.nan
        return math.copysign(math.inf, x) * math.copysign(1.0, y)
    if math.isinf(x) and math.isinf(y):
        return math.nan
    return x / y


def lane_unary(op, t, xb):
    """Unary op on one lane: bit pattern in, bit pattern out."""
    if t in INT_TYPES:
        x = _bits_int(xb, t)
        if op == 'abs':
            r = -x if x < 0 else x                 # wraps for the most negative value
        elif op == 'relu':
            r = x if x > 0 else 0
        elif op == 'neg':
            r = -x                                 # wraps for the most negative value
        elif op in ('exp', 'ln', 'sqrt', 'rec', 'rsqrt'):
            raise ValueError('%s is not defined for integer type %s' % (op, t))
        else:
            raise ValueError('unknown unary op %r' % (op,))
        return _int_bits(r, t)

    if op == 'abs':
        return xb & ~_sign_bit(t) & ((1 << (8 * SIZE[t])) - 1)
    if op == 'neg':
        return xb ^ _sign_bit(t)                   # on bits: NaN payloads survive
    x = _bits_float(xb, t)
    if math.isnan(x):
        return QNAN[t]
    if op == 'rec':
        return _float_bits(_exact_rec(x, t), t)
    if op == 'rsqrt':
        return _float_bits(_exact_rsqrt(x, t), t)
    if op == 'relu':
        return xb if x > 0.0 else _float_bits(0.0, t)
    if op == 'exp':
        with np.errstate(all='ignore'):
            r = float(np.exp(np.float64(x)))
        return _float_bits(r, t)
    if op == 'ln':
        if x == 0.0:
            r = -math.inf
        elif x < 0.0:
            r = math.nan
        elif math.isinf(x):
            r = math.inf
        else:
            r = math.log(x)
        return _float_bits(r, t)
    if op == 'sqrt':
        if x == 0.0:
            r = x                                  # sqrt(-0) = -0
        elif x < 0.0:
            r = math.nan
        else:
            r = math.sqrt(x)
        return _float_bits(r, t)
    raise ValueError('unknown unary op %r' % (op,))


# ---------------------------------------------------------------------------
# memory helpers
# ---------------------------------------------------------------------------

def _check_mem(mem):
    if not isinstance(mem, np.ndarray) or mem.dtype != np.uint8 or mem.ndim != 1:
        raise ValueError('memory must be a 1-D numpy uint8 array')


def _check_range(mem, addr, nbytes, what='access'):
    if addr < 0 or addr + nbytes > len(mem):
        raise IndexError('%s of %d bytes at %#x is outside memory of %d bytes'
                         % (what, nbytes, addr, len(mem)))


def _check_align(addr, what='address'):
    if addr % BLOCK != 0:
        raise ValueError('%s %#x is not 32-byte aligned' % (what, addr))


def _read(mem, addr, nbytes):
    value = 0
    for k in range(nbytes):
        value |= int(mem[addr + k]) << (8 * k)
    return value


def _write(mem, addr, nbytes, value):
    for k in range(nbytes):
        mem[addr + k] = (value >> (8 * k)) & 0xFF


# ---------------------------------------------------------------------------
# 1. tensor instructions
# ---------------------------------------------------------------------------

def _as_tuple(x, n, name):
    if isinstance(x, (int, np.integer)):
        return (int(x),) * n
    x = tuple(int(v) for v in x)
    if len(x) < n:
        raise ValueError('%s needs %d entries, got %r' % (name, n, x))
    return x[:n]


def _tensor_mask(mask, t):
    lanes = VL // SIZE[t]
    if mask is None:
        return [True] * lanes
    if isinstance(mask, (tuple, list)):
        if len(mask) == 1:
            low, high = int(mask[0]), 0
        elif len(mask) == 2:
            low, high = int(mask[0]), int(mask[1])
        else:
            raise ValueError('bit mask must be (low, high)')
        if not (0 <= low < 1 << 64 and 0 <= high < 1 << 64):
            raise ValueError('mask words must be 64-bit unsigned')
        if SIZE[t] == 4 and high != 0:
            raise ValueError('32-bit types use the low mask word only (high must be 0)')
        if low == 0 and high == 0:
            raise ValueError('a mask of 0 is an error')
        active = []
        for i in range(lanes):
            if i < 64:
                active.append(((low >> i) & 1) == 1)
            else:
                active.append(((high >> (i - 64)) & 1) == 1)
        return active
    n = int(mask)
    if not 1 <= n <= lanes:
        raise ValueError('continuous mask %d outside 1..%d' % (n, lanes))
    return [i < n for i in range(lanes)]


def tensor_op(ub, op, t, dst, srcs, *, repeat=1, dst_blk=1, src_blk=(1, 1), dst_rep=8,
              src_rep=(8, 8), mask=None, count=None, scalar=None):
    """Reference for the iterated UB-to-UB tensor instructions (CONTRACT 2.1)."""
    _check_mem(ub)
    _check_type(t, TENSOR_TYPES)
    if op in BINARY_OPS:
        kind, nsrc, lane_op = 'binary', 2, op
    elif op in TENSOR_UNARY_OPS:
        kind, nsrc, lane_op = 'unary', 1, op
    elif op in TENSOR_SCALAR_OPS:
        kind, nsrc, lane_op = 'scalar', 1, SCALAR_OPS.get(op, op)
    else:
        raise ValueError('unknown tensor op %r' % (op,))
    if t in INT_TYPES and op in FLOAT_ONLY_OPS:
        raise ValueError('%s is not defined for integer type %s' % (op, t))

    if isinstance(srcs, (int, np.integer)):
        srcs = (int(srcs),)
    srcs = tuple(int(s) for s in srcs)
    if len(srcs) != nsrc:
        raise ValueError('%s needs %d source(s), got %d' % (op, nsrc, len(srcs)))
    sblk = _as_tuple(src_blk, nsrc, 'src_blk')
    srep = _as_tuple(src_rep, nsrc, 'src_rep')
    dst = int(dst)

    # field ranges (CONTRACT 2.1 table; scalar forms take the unary fields)
    if kind == 'binary':
        blk_max, rep_max = 255, 255
    else:
        blk_max, rep_max = 65535, 4095
    if not 1 <= dst_blk <= blk_max:
        raise ValueError('dst_blk %d outside 1..%d' % (dst_blk, blk_max))
    for v in sblk:
        if not 0 <= v <= blk_max:
            raise ValueError('src_blk %d outside 0..%d' % (v, blk_max))
    for v in (dst_rep,) + srep:
        if not 0 <= v <= rep_max:
            raise ValueError('repeat stride %d outside 0..%d' % (v, rep_max))

    for a in (dst,) + srcs:
        _check_align(a, 'UB operand')

    if kind == 'scalar':
        if scalar is None:
            raise ValueError('%s needs a scalar' % (op,))
        scalar_bits = encode(scalar, t)            # rounded / wrapped to type t
    elif scalar is not None:
        raise ValueError('%s takes no scalar' % (op,))

    size = SIZE[t]
    lanes = VL // size
    per_block = BLOCK // size

    # which lanes take part in each iteration
    if count is not None:
        if mask is not None or repeat != 1:
            raise ValueError('count must not be combined with repeat or mask')
        count = int(count)
        if count < 1:
            raise ValueError('count must be >= 1')
        iterations = (count + lanes - 1) // lanes
        actives = []
        for r in range(iterations):
            remaining = count - r * lanes
            n = lanes if remaining >= lanes else remaining
            actives.append([i < n for i in range(lanes)])
    else:
        if not 0 <= repeat <= 255:
            raise ValueError('repeat %d outside 0..255' % (repeat,))
        iterations = repeat
        if iterations == 0:
            return
        one = _tensor_mask(mask, t)
        actives = [one] * iterations

    def block_addr(base, blk, rep, r, b):
        return base + (r * rep + b * blk) * BLOCK

    # every iteration reads 8 datablocks per source and writes 8 (SEMANTICS):
    # check them all before touching memory
    for r in range(iterations):
        for b in range(8):
            _check_range(ub, block_addr(dst, dst_blk, dst_rep, r, b), BLOCK, 'dst datablock')
            for s in range(nsrc):
                _check_range(ub, block_addr(srcs[s], sblk[s], srep[s], r, b), BLOCK,
                             'src%d datablock' % s)

    for r in range(iterations):
        active = actives[r]
        # read all sources of this iteration first
        src_vals = []
        for s in range(nsrc):
            vals = []
            for lane in range(lanes):
                b = lane // per_block
                j = lane % per_block
                addr = block_addr(srcs[s], sblk[s], srep[s], r, b) + j * size
                vals.append(_read(ub, addr, size))
            src_vals.append(vals)
        # compute the active lanes
        results = {}
        for lane in range(lanes):
            if not active[lane]:
                continue
            if kind == 'binary':
                results[lane] = lane_binary(lane_op, t, src_vals[0][lane], src_vals[1][lane])
            elif kind == 'scalar':
                results[lane] = lane_binary(lane_op, t, src_vals[0][lane], scalar_bits)
            else:
                results[lane] = lane_unary(lane_op, t, src_vals[0][lane])
        # then write them; masked-off lanes keep their bytes
        for lane in range(lanes):
            if lane in results:
                b = lane // per_block
                j = lane % per_block
                addr = block_addr(dst, dst_blk, dst_rep, r, b) + j * size
                _write(ub, addr, size, results[lane])


# ---------------------------------------------------------------------------
# 2. register instructions
# ---------------------------------------------------------------------------

def _check_vreg(v, name='vector register'):
    v = np.asarray(v)
    if v.dtype != np.uint8 or v.shape != (VL,):
        raise ValueError('%s must be a uint8 array of 256 bytes' % name)
    return v


def _check_pmask(p):
    p = np.asarray(p)
    if p.shape != (VL,):
        raise ValueError('mask register must have 256 entries')
    return p.astype(bool)


def lane_active(pmask, lane, width):
    """A lane of ``width`` bytes is active when mask entry lane*width is set."""
    return bool(pmask[lane * width])


def make_mask(width, active):
    """Mask register from a per-lane list of booleans (lane width in bytes);
    lanes past the end of the list are inactive."""
    m = np.zeros(VL, dtype=bool)
    for i, a in enumerate(active):
        if a:
            for k in range(width):
                m[i * width + k] = True
    return m


def _get_lane(vreg, lane, width):
    return _read(vreg, lane * width, width)


def _set_lane(vreg, lane, width, bits):
    _write(vreg, lane * width, width, bits)


def _vreg_byte_addr(addr, k, blk):
    """UB address of byte k of a register for VLD/VST at addr."""
    if blk is None:
        return addr + k
    return addr + (k // BLOCK) * blk * BLOCK + (k % BLOCK)


def vld(ub, addr, blk=None):
    """VLD: 256 bytes from UB (contiguous, or datablock b at addr + b*blk*32)."""
    _check_mem(ub)
    _check_align(addr, 'VLD address')
    if blk is not None and blk < 0:
        raise ValueError('blk must be >= 0')
    for b in range(8):
        _check_range(ub, _vreg_byte_addr(addr, b * BLOCK, blk), BLOCK, 'VLD datablock')
    out = np.zeros(VL, dtype=np.uint8)
    for k in range(VL):
        out[k] = ub[_vreg_byte_addr(addr, k, blk)]
    return out


def vst(ub, addr, vreg, pmask, t, blk=None):
    """VST: store the active lanes of type t; other UB bytes unchanged.
    With blk, register byte k goes to addr + (k//32)*blk*32 + k%32; when blocks
    land on the same bytes (blk=0) the later block of the register wins."""
    _check_mem(ub)
    _check_type(t)
    vreg = _check_vreg(vreg)
    pmask = _check_pmask(pmask)
    _check_align(addr, 'VST address')
    if blk is not None and blk < 0:
        raise ValueError('blk must be >= 0')
    for b in range(8):
        _check_range(ub, _vreg_byte_addr(addr, b * BLOCK, blk), BLOCK, 'VST datablock')
    w = SIZE[t]
    for lane in range(VL // w):
        if lane_active(pmask, lane, w):
            for k in range(lane * w, lane * w + w):
                ub[_vreg_byte_addr(addr, k, blk)] = vreg[k]


def vop(op, t, a, b, pmask):
    """Binary register op; lanes outside pmask are zero."""
    _check_type(t, REGISTER_ARITH_TYPES)
    if op not in BINARY_OPS:
        raise ValueError('unknown binary op %r' % (op,))
    a = _check_vreg(a)
    b = _check_vreg(b)
    pmask = _check_pmask(pmask)
    w = SIZE[t]
    out = np.zeros(VL, dtype=np.uint8)
    for lane in range(VL // w):
        if lane_active(pmask, lane, w):
            _set_lane(out, lane, w, lane_binary(op, t, _get_lane(a, lane, w), _get_lane(b, lane, w)))
    return out


def vop_scalar(op, t, a, scalar, pmask):
    """Register op with a scalar ('adds', 'muls', 'maxs', 'mins'; the plain
    names 'add', ... are accepted too; 'lrelu' for float t, CONTRACT 6.2).
    The scalar is rounded/wrapped to t."""
    _check_type(t, REGISTER_ARITH_TYPES)
    if op in SCALAR_OPS:
        op = SCALAR_OPS[op]
    if op not in {SCALAR_OPS.get(name, name) for name in REGISTER_SCALAR_OPS}:
        raise ValueError('unknown scalar op %r' % (op,))
    if t in INT_TYPES and op in FLOAT_ONLY_OPS:
        raise ValueError('%s is not defined for integer type %s' % (op, t))
    a = _check_vreg(a)
    pmask = _check_pmask(pmask)
    sb = encode(scalar, t)
    w = SIZE[t]
    out = np.zeros(VL, dtype=np.uint8)
    for lane in range(VL // w):
        if lane_active(pmask, lane, w):
            _set_lane(out, lane, w, lane_binary(op, t, _get_lane(a, lane, w), sb))
    return out


def vop_unary(op, t, a, pmask):
    """Unary register op; lanes outside pmask are zero.  Besides UNARY_OPS,
    'neg' (CONTRACT 6.2; VREC and VRSQRT are tensor only)."""
    _check_type(t, REGISTER_ARITH_TYPES)
    if op not in REGISTER_UNARY_OPS:
        raise ValueError('unknown unary op %r' % (op,))
    if t in INT_TYPES and op in FLOAT_ONLY_OPS:
        raise ValueError('%s is not defined for integer type %s' % (op, t))
    a = _check_vreg(a)
    pmask = _check_pmask(pmask)
    w = SIZE[t]
    out = np.zeros(VL, dtype=np.uint8)
    for lane in range(VL // w):
        if lane_active(pmask, lane, w):
            _set_lane(out, lane, w, lane_unary(op, t, _get_lane(a, lane, w)))
    return out


def vsub_carry(a, b, pmask):
    """VSUB.u32 with carry: {carry, d} = {0,a} + {0,~b} + 1 per lane.
    Returns (d, carry_mask); masked-off lanes have d = 0 and carry = 0."""
    a = _check_vreg(a)
    b = _check_vreg(b)
    pmask = _check_pmask(pmask)
    out = np.zeros(VL, dtype=np.uint8)
    carry = np.zeros(VL, dtype=bool)
    for lane in range(64):
        if not lane_active(pmask, lane, 4):
            continue
        x = _get_lane(a, lane, 4)
        y = _get_lane(b, lane, 4)
        total = x + ((~y) & 0xFFFFFFFF) + 1        # 33-bit sum
        _set_lane(out, lane, 4, total & 0xFFFFFFFF)
        if total >> 32:
            for k in range(4):
                carry[lane * 4 + k] = True
    return out, carry


def vgather_ub(ub, base, t, idx_vreg, pmask):
    """UB gather: d[i] = the element of type t at base + idx[i]*size.
    8/16-bit t: 128 u16 index lanes, 16-bit result lanes (8-bit values
    zero-extended); 32-bit t: 64 u32 index lanes, 32-bit result lanes.
    The mask lane width is the result lane width.  Masked-off lanes are zero
    and never read."""
    _check_mem(ub)
    _check_type(t)
    idx_vreg = _check_vreg(idx_vreg, 'index register')
    pmask = _check_pmask(pmask)
    _check_align(base, 'gather base')
    size = SIZE[t]
    lane_w = 4 if size == 4 else 2                 # index and result lane width
    nlanes = VL // lane_w
    addrs = {}
    for lane in range(nlanes):
        if lane_active(pmask, lane, lane_w):
            idx = _get_lane(idx_vreg, lane, lane_w)
            addr = base + idx * size
            _check_range(ub, addr, size, 'gather lane %d' % lane)
            addrs[lane] = addr
    out = np.zeros(VL, dtype=np.uint8)
    for lane in range(nlanes):
        if lane in addrs:
            value = _read(ub, addrs[lane], size)    # unsigned bits: zero extension
            _set_lane(out, lane, lane_w, value)
    return out


def vgather_reg(t, src_vreg, idx_vreg):
    """Register gather: d[i] = s[idx[i] % lanes], index lanes of t's width."""
    _check_type(t)
    src_vreg = _check_vreg(src_vreg)
    idx_vreg = _check_vreg(idx_vreg, 'index register')
    w = SIZE[t]
    lanes = VL // w
    out = np.zeros(VL, dtype=np.uint8)
    for lane in range(lanes):
        idx = _get_lane(idx_vreg, lane, w)
        _set_lane(out, lane, w, _get_lane(src_vreg, idx % lanes, w))
    return out


def vscatter(ub, base, t, src_vreg, idx_vreg, pmask):
    """Scatter to UB (16/32-bit t): element at base + idx[i]*size = s[i] for the
    active lanes, lanes in increasing order so that the higher lane wins."""
    _check_mem(ub)
    _check_type(t)
    w = SIZE[t]
    if w not in (2, 4):
        raise ValueError('scatter takes 16- and 32-bit types only')
    src_vreg = _check_vreg(src_vreg)
    idx_vreg = _check_vreg(idx_vreg, 'index register')
    pmask = _check_pmask(pmask)
    lanes = VL // w
    addrs = {}
    for lane in range(lanes):
        if lane_active(pmask, lane, w):
            addr = base + _get_lane(idx_vreg, lane, w) * w
            _check_range(ub, addr, w, 'scatter lane %d' % lane)
            addrs[lane] = addr
    for lane in range(lanes):
        if lane in addrs:
            _write(ub, addrs[lane], w, _get_lane(src_vreg, lane, w))


def _mask_width_bytes(w):
    if w not in (8, 16, 32):
        raise ValueError('mask element width must be 8, 16 or 32 bits')
    return w // 8


def pset(w, pattern):
    """PSET.Bw: mask register from a pattern (CONTRACT 2.2; M3 and M4 as corrected by 13.10: the
    lanes whose index is a multiple of 3 or 4)."""
    wb = _mask_width_bytes(w)
    lanes = VL // wb
    p = str(pattern).upper()
    vl_sizes = {'VL1': 1, 'VL2': 2, 'VL3': 3, 'VL4': 4, 'VL8': 8, 'VL16': 16,
                'VL32': 32, 'VL64': 64, 'VL128': 128}
    if p == 'ALL':
        n = lanes
    elif p == 'ALLF':
        n = 0
    elif p in vl_sizes:
        n = min(vl_sizes[p], lanes)
    elif p in ('M3', 'M4'):
        # CONTRACT 13.10 (correcting 2.2, which said "the largest multiple of 3 or 4 lanes"): M3 / M4
        # set the lanes whose INDEX is a multiple of 3 / 4 (lanes 0, 3, 6, ... / 0, 4, 8, ...), as
        # asc_create_mask.md says ("下标为3的倍数的元素设置为有效数据"); every bit of such a lane is set (3.1).
        step = 3 if p == 'M3' else 4
        return make_mask(wb, [i % step == 0 for i in range(lanes)])
    elif p == 'H':
        n = lanes // 2
    elif p == 'Q':
        n = lanes // 4
    else:
        raise ValueError('unknown PSET pattern %r' % (pattern,))
    return make_mask(wb, [i < n for i in range(lanes)])


def pupdate(w, s):
    """PUPDATE.Bw: first min(s, lanes) lanes active; returns (mask, max(0, s - lanes))."""
    wb = _mask_width_bytes(w)
    lanes = VL // wb
    s = int(s)
    n = max(0, min(s, lanes))
    return make_mask(wb, [i < n for i in range(lanes)]), max(0, s - lanes)


def dma(src_mem, src_addr, dst_mem, dst_addr, blocks, length, srcgap=0, dstgap=0):
    """DMA: block k of length*32 bytes from src_addr + k*(length+srcgap)*32 to
    dst_addr + k*(length+dstgap)*32, blocks in order.  Zero blocks or length
    is a no-op."""
    _check_mem(src_mem)
    _check_mem(dst_mem)
    if blocks < 0 or length < 0 or srcgap < 0 or dstgap < 0:
        raise ValueError('DMA parameters must be >= 0')
    if blocks == 0 or length == 0:
        return
    nbytes = length * BLOCK
    for k in range(blocks):
        _check_range(src_mem, src_addr + k * (length + srcgap) * BLOCK, nbytes, 'DMA source block')
        _check_range(dst_mem, dst_addr + k * (length + dstgap) * BLOCK, nbytes, 'DMA destination block')
    for k in range(blocks):
        s = src_addr + k * (length + srcgap) * BLOCK
        d = dst_addr + k * (length + dstgap) * BLOCK
        chunk = [int(src_mem[s + i]) for i in range(nbytes)]   # read the block, then write it
        for i in range(nbytes):
            dst_mem[d + i] = chunk[i]


# ---------------------------------------------------------------------------
# 3. conversion and comparison helpers
# ---------------------------------------------------------------------------

def to_bytes(values, t):
    """Values -> little-endian bytes of type t.  An array already of DTYPES[t]
    is taken bit for bit; otherwise floats are rounded once (nearest even) and
    integers wrap modulo 2**bits."""
    _check_type(t)
    if isinstance(values, np.ndarray) and values.dtype == DTYPES[t]:
        bits = values.ravel().view(_UINT_OF_SIZE[SIZE[t]])
        bits_list = [int(b) for b in bits]
    else:
        if np.isscalar(values):
            values = [values]
        bits_list = [encode(v, t) for v in np.asarray(values, dtype=object).ravel()]
    size = SIZE[t]
    out = np.zeros(len(bits_list) * size, dtype=np.uint8)
    for i, b in enumerate(bits_list):
        _write(out, i * size, size, b)
    return out


def from_bytes(buf, t):
    """Little-endian bytes -> numpy array of DTYPES[t]."""
    _check_type(t)
    b = np.asarray(buf, dtype=np.uint8).ravel()
    if len(b) % SIZE[t]:
        raise ValueError('%d bytes is not a whole number of %s elements' % (len(b), t))
    return np.frombuffer(b.tobytes(), dtype=DTYPES[t]).copy()


def bits_of(values, t):
    """Per-element bit patterns (list of ints) of values of type t."""
    b = to_bytes(values, t)
    size = SIZE[t]
    return [_read(b, i * size, size) for i in range(len(b) // size)]


ULP_INFINITE = np.iinfo(np.int64).max   # distance between a NaN and a non-NaN


def ulp_distance(a, b, t):
    """Number of representable values of type t between a and b, per element.
    +0 and -0 count as the same value; NaN vs NaN is 0; NaN vs anything else is
    ULP_INFINITE.  For integer types, |a - b|."""
    ba = bits_of(a, t)
    bb = bits_of(b, t)
    if len(ba) != len(bb):
        raise ValueError('length mismatch %d vs %d' % (len(ba), len(bb)))
    out = np.zeros(len(ba), dtype=np.int64)
    sign = _sign_bit(t)
    for i in range(len(ba)):
        if t in INT_TYPES:
            out[i] = abs(_bits_int(ba[i], t) - _bits_int(bb[i], t))
            continue
        na = _is_nan_bits(ba[i], t)
        nb = _is_nan_bits(bb[i], t)
        if na and nb:
            out[i] = 0
        elif na or nb:
            out[i] = ULP_INFINITE
        else:
            ka = -(ba[i] & (sign - 1)) if ba[i] & sign else ba[i]
            kb = -(bb[i] & (sign - 1)) if bb[i] & sign else bb[i]
            out[i] = abs(ka - kb)
    return out


def values_equal(a, b, t):
    """Element-wise: same bit pattern, or both NaN (NaN payloads are not
    specified by the contract)."""
    ba = bits_of(a, t)
    bb = bits_of(b, t)
    if len(ba) != len(bb):
        raise ValueError('length mismatch %d vs %d' % (len(ba), len(bb)))
    return np.array([x == y or (_is_nan_bits(x, t) and _is_nan_bits(y, t))
                     for x, y in zip(ba, bb)], dtype=bool)


# ---------------------------------------------------------------------------
# 4. exact rounding (CONTRACT 6.1, 6.2)
# ---------------------------------------------------------------------------

ROUND_MODES = ('rint', 'round', 'floor', 'ceil', 'trunc', 'odd')
_HALF = Fraction(1, 2)


def _pow2(e):
    return Fraction(2) ** e                        # exact for negative e too


def _cmp(a, b):
    return (a > b) - (a < b)


def _exp2_floor(a):
    """The e with 2**e <= a < 2**(e+1), for a positive Fraction a."""
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if _pow2(e) > a:
        e -= 1
    return e


def _round_magnitude(n, half_cmp, inexact, neg, mode):
    """Round a magnitude whose truncated value is the integer n >= 0.
    half_cmp compares the discarded fraction with 1/2 (-1, 0, +1); inexact says
    whether it is nonzero; neg is the sign of the value being rounded."""
    if not inexact:
        return n
    if mode == 'rint':
        up = half_cmp > 0 or (half_cmp == 0 and n % 2 == 1)
    elif mode == 'round':                          # ties away from zero
        up = half_cmp >= 0
    elif mode == 'trunc':
        up = False
    elif mode == 'floor':
        up = neg                                   # toward -inf: a negative magnitude grows
    elif mode == 'ceil':
        up = not neg
    elif mode == 'odd':
        return n | 1                               # truncate, then set the lowest kept bit
    else:
        raise ValueError('unknown rounding mode %r' % (mode,))
    return n + 1 if up else n


def _finish_float(neg, m, quantum, t, mode):
    """The value (-1)**neg * m * 2**quantum (m already rounded) as a Python float of
    type t, with the overflow rule of CONTRACT 6.1: rounding is done as if the exponent
    range were unbounded; past the largest finite value the result is +-inf, except
    that trunc, floor (positive) and ceil (negative) give the largest finite value."""
    _p, _emin, max_finite, has_inf = _FLOAT_FMT[t]
    if Fraction(m) * _pow2(quantum) > Fraction(max_finite):
        if mode == 'trunc' or (mode == 'floor' and not neg) or (mode == 'ceil' and neg):
            r = max_finite
        else:
            r = math.inf if has_inf else math.nan
    else:
        r = math.ldexp(float(m), quantum)          # exact: m has at most p + 1 bits
    return -r if neg else r                        # -0.0 for an underflow of a negative value


def round_fraction(q, t, mode='rint'):
    """Round the exact rational q (a Fraction or int) to the float type t with the
    mode; gradual underflow (subnormal results kept).  Returns a Python float exactly
    representable in t, or +-inf.  An exact zero is +0."""
    if mode not in ROUND_MODES:
        raise ValueError('unknown rounding mode %r' % (mode,))
    q = Fraction(q)
    if q == 0:
        return 0.0
    p, emin, _max, _inf = _FLOAT_FMT[t]
    neg = q < 0
    a = -q if neg else q
    quantum = max(_exp2_floor(a), emin) - (p - 1)  # exponent of the last kept bit
    scaled = a / _pow2(quantum)
    n = scaled.numerator // scaled.denominator
    rem = scaled - n
    m = _round_magnitude(n, _cmp(rem, _HALF), rem != 0, neg, mode)
    return _finish_float(neg, m, quantum, t, mode)


def round_fraction_to_int(q, mode='rint'):
    """Round the exact rational q to an integer with the mode (no saturation)."""
    if mode not in ROUND_MODES or mode == 'odd':
        raise ValueError('rounding mode %r not allowed for a float to integer conversion' % (mode,))
    q = Fraction(q)
    neg = q < 0
    a = -q if neg else q
    n = a.numerator // a.denominator
    rem = a - n
    m = _round_magnitude(n, _cmp(rem, _HALF), rem != 0, neg, mode)
    return -m if neg else m


def _exact_rec(x, t):
    """1 / x rounded once to t (nearest even); x is a non-NaN Python float."""
    if x == 0.0:
        return math.copysign(math.inf, x)          # 1/+-0 = +-inf
    if math.isinf(x):
        return math.copysign(0.0, x)               # 1/+-inf = +-0
    return round_fraction(1 / Fraction(x), t, 'rint')


def _exact_rsqrt(x, t):
    """1 / sqrt(x) rounded once to t (nearest even), exactly: the integer square root of
    a scaled rational and a comparison of the midpoint's square, no math.sqrt."""
    if x == 0.0:
        return math.copysign(math.inf, x)          # rsqrt(+0) = +inf, rsqrt(-0) = -inf
    if x < 0.0:
        return math.nan                            # negative numbers and -inf
    if math.isinf(x):
        return 0.0                                 # rsqrt(+inf) = +0
    p, emin, _max, _inf = _FLOAT_FMT[t]
    z = 1 / Fraction(x)                            # y = sqrt(z)
    e = _exp2_floor(z) // 2                        # 2**(2e) <= z < 2**(2e+2): 2**e <= y < 2**(e+1)
    quantum = max(e, emin) - (p - 1)
    w = z / _pow2(2 * quantum)                     # y / 2**quantum = sqrt(w)
    n = math.isqrt(w.numerator // w.denominator)   # floor(sqrt(w)) = isqrt(floor(w))
    inexact = n * n != w
    # the discarded part sqrt(w) - n against 1/2: w against (n + 1/2)**2
    half_cmp = _cmp(w, Fraction((2 * n + 1) ** 2, 4))
    m = _round_magnitude(n, half_cmp, inexact, False, 'rint')
    return _finish_float(False, m, quantum, t, 'rint')


# ---------------------------------------------------------------------------
# 5. conversion VCONV (CONTRACT 6.1)
# ---------------------------------------------------------------------------

# (dst_t, src_t)
CONV_INEXACT = {
    ('f16', 'f32'), ('bf16', 'f32'), ('bf16', 'f16'), ('f16', 'bf16'),
    ('s8', 'f16'), ('u8', 'f16'), ('s16', 'f16'), ('s32', 'f16'),
    ('s16', 'f32'), ('s32', 'f32'), ('s32', 'bf16'),
    ('f16', 's16'), ('f32', 's32'),
}
CONV_EXACT = {
    ('f32', 'f16'), ('f32', 'bf16'), ('f16', 's8'), ('f16', 'u8'), ('f32', 's16'),
    ('s16', 's32'), ('s8', 's16'),
    ('s16', 's8'), ('u16', 'u8'), ('s32', 's16'), ('u32', 'u16'),
}
CONV_PAIRS = CONV_INEXACT | CONV_EXACT
# "(950)" in the contract's list: f16<->bf16, s16->s8, and the four widening integer
# pairs (the "(950; sign or zero extension)" note is read as covering all four)
CONV_950_ONLY = {
    ('bf16', 'f16'), ('f16', 'bf16'), ('s8', 's16'),
    ('s16', 's8'), ('u16', 'u8'), ('s32', 's16'), ('u32', 'u16'),
}
CONV_ODD_PAIRS = {('f16', 'f32'), ('bf16', 'f32')}
CONV_TYPES = ('f16', 'bf16', 'f32', 's8', 'u8', 's16', 'u16', 's32', 'u32')


def _int_range(t):
    nbits = 8 * SIZE[t]
    if t in SIGNED_TYPES:
        return -(1 << (nbits - 1)), (1 << (nbits - 1)) - 1
    return 0, (1 << nbits) - 1


def _saturate(v, t):
    lo, hi = _int_range(t)
    return lo if v < lo else hi if v > hi else v


def _check_bits(bits, t):
    bits = int(bits)
    if not 0 <= bits < 1 << (8 * SIZE[t]):
        raise ValueError('bit pattern %#x does not fit type %s' % (bits, t))
    return bits


def _scalar_bits(bits, t):
    """A scalar operand given as bits: its low 8*size(t) bits (CONTRACT 2.1)."""
    return int(bits) & ((1 << (8 * SIZE[t])) - 1)


def conv_mode(dst_t, src_t, round=None):
    """Check a VCONV pair and rounding field; returns the mode used ('rint' by default)."""
    if dst_t not in CONV_TYPES or src_t not in CONV_TYPES:
        raise ValueError('unknown conversion types %r, %r' % (dst_t, src_t))
    pair = (dst_t, src_t)
    if pair not in CONV_PAIRS:
        raise ValueError('VCONV.%s.%s is not a supported pair' % pair)
    if round is None:
        return 'rint'
    if round not in ROUND_MODES:
        raise ValueError('unknown rounding mode %r' % (round,))
    if pair in CONV_EXACT:
        raise ValueError('VCONV.%s.%s is always exact: round= is an error' % pair)
    if round == 'odd' and pair not in CONV_ODD_PAIRS:
        raise ValueError('round=odd is only for f32 to f16 and f32 to bf16')
    return round


def convert_bits(bits, src_t, dst_t, round=None):
    """One element of VCONV.dst_t.src_t: bit pattern of src_t in, of dst_t out."""
    mode = conv_mode(dst_t, src_t, round)
    bits = _check_bits(bits, src_t)
    if src_t in FLOAT_TYPES:
        x = _bits_float(bits, src_t)
        if dst_t in FLOAT_TYPES:
            if math.isnan(x):
                return QNAN[dst_t]
            if math.isinf(x) or x == 0.0:
                return _float_bits(x, dst_t)       # same infinity, same signed zero
            return _float_bits(round_fraction(Fraction(x), dst_t, mode), dst_t)
        lo, hi = _int_range(dst_t)
        if math.isnan(x):
            return 0
        if math.isinf(x):
            return _int_bits(hi if x > 0 else lo, dst_t)
        return _int_bits(_saturate(round_fraction_to_int(Fraction(x), mode), dst_t), dst_t)
    v = _bits_int(bits, src_t)
    if dst_t in FLOAT_TYPES:
        return _float_bits(round_fraction(v, dst_t, mode), dst_t)
    return _int_bits(_saturate(v, dst_t), dst_t)  # narrower: saturate; wider: value kept


def _check_unary_fields(dst_blk, src_blks, dst_rep, src_reps, binary=False):
    blk_max, rep_max = (255, 255) if binary else (65535, 4095)
    if dst_blk is not None and not 1 <= dst_blk <= blk_max:
        raise ValueError('dst_blk %d outside 1..%d' % (dst_blk, blk_max))
    for v in src_blks:
        if not 0 <= v <= blk_max:
            raise ValueError('src_blk %d outside 0..%d' % (v, blk_max))
    for v in ((dst_rep,) if dst_rep is not None else ()) + tuple(src_reps):
        if not 0 <= v <= rep_max:
            raise ValueError('repeat stride %d outside 0..%d' % (v, rep_max))


def _iteration_actives(mask, count, repeat, t):
    """Per-iteration lists of active lanes of type t (CONTRACT 2.1 mask / count)."""
    lanes = VL // SIZE[t]
    if count is not None:
        if mask is not None or repeat != 1:
            raise ValueError('count must not be combined with repeat or mask')
        count = int(count)
        if not 1 <= count <= (1 << 32) - 1:
            raise ValueError('count %d outside 1..2**32-1' % (count,))
        iterations = (count + lanes - 1) // lanes
        return [[r * lanes + i < count for i in range(lanes)] for r in range(iterations)]
    if not 0 <= repeat <= 255:
        raise ValueError('repeat %d outside 0..255' % (repeat,))
    if repeat == 0:
        return []                                  # no operation (as tensor_op)
    one = _tensor_mask(mask, t)
    return [one] * repeat


def _block_addr(base, blk, rep, r, b):
    return base + (r * rep + b * blk) * BLOCK


def _lane_addr(base, blk, rep, r, lane, size):
    per_block = BLOCK // size
    return _block_addr(base, blk, rep, r, lane // per_block) + (lane % per_block) * size


def _check_operand(ub, base, blk, rep, iterations, nblocks, what):
    for r in range(iterations):
        for b in range(nblocks):
            _check_range(ub, _block_addr(base, blk, rep, r, b), BLOCK, what)


def tensor_conv(ub, dst_t, src_t, dst, src, *, repeat=1, dst_blk=1, src_blk=1, dst_rep=8,
                src_rep=8, mask=None, count=None, round=None):
    """Tensor VCONV.dst_t.src_t [dst], [src] (CONTRACT 6.1), unary fields."""
    _check_mem(ub)
    conv_mode(dst_t, src_t, round)
    dst, src = int(dst), int(src)
    _check_unary_fields(dst_blk, (src_blk,), dst_rep, (src_rep,))
    _check_align(dst, 'UB operand')
    _check_align(src, 'UB operand')
    ds, ss = SIZE[dst_t], SIZE[src_t]
    wide_t = dst_t if ds >= ss else src_t
    lanes = VL // SIZE[wide_t]
    actives = _iteration_actives(mask, count, repeat, wide_t)
    iterations = len(actives)
    dst_blocks = lanes * ds // BLOCK               # 8 for the wider operand, 4 or 2 for the narrower
    src_blocks = lanes * ss // BLOCK
    _check_operand(ub, dst, dst_blk, dst_rep, iterations, dst_blocks, 'dst datablock')
    _check_operand(ub, src, src_blk, src_rep, iterations, src_blocks, 'src datablock')
    for r in range(iterations):
        vals = [_read(ub, _lane_addr(src, src_blk, src_rep, r, i, ss), ss) for i in range(lanes)]
        results = {}
        for i in range(lanes):
            if actives[r][i]:
                results[i] = convert_bits(vals[i], src_t, dst_t, round)
        for i, bits in results.items():
            _write(ub, _lane_addr(dst, dst_blk, dst_rep, r, i, ds), ds, bits)


def vconv(dst_t, src_t, a, pmask, round=None, part=0):
    """Register VCONV.dst_t.src_t Vd, Va, Pm (CONTRACT 6.1); returns Vd."""
    conv_mode(dst_t, src_t, round)
    a = _check_vreg(a)
    pmask = _check_pmask(pmask)
    ds, ss = SIZE[dst_t], SIZE[src_t]
    w = max(ds, ss)
    k = max(ds, ss) // min(ds, ss)
    part = int(part)
    if not 0 <= part < k:
        raise ValueError('part %d outside 0..%d' % (part, k - 1))
    out = np.zeros(VL, dtype=np.uint8)
    for i in range(VL // w):
        if not lane_active(pmask, i, w):
            continue
        if ds < ss:                                # narrowing: lane i -> element k*i + part
            _set_lane(out, k * i + part, ds, convert_bits(_get_lane(a, i, ss), src_t, dst_t, round))
        else:                                      # widening (or same size, k = 1)
            _set_lane(out, i, ds, convert_bits(_get_lane(a, k * i + part, ss), src_t, dst_t, round))
    return out


# ---------------------------------------------------------------------------
# 6. fill, arange (CONTRACT 6.2)
# ---------------------------------------------------------------------------

def _tensor_fill(ub, t, dst, lane_bits, repeat, dst_blk, dst_rep, mask, count):
    """Write lane_bits(r, i) into every active lane i of every iteration r."""
    _check_mem(ub)
    dst = int(dst)
    _check_unary_fields(dst_blk, (), dst_rep, ())
    _check_align(dst, 'UB operand')
    size = SIZE[t]
    lanes = VL // size
    actives = _iteration_actives(mask, count, repeat, t)
    _check_operand(ub, dst, dst_blk, dst_rep, len(actives), 8, 'dst datablock')
    for r, active in enumerate(actives):
        for i in range(lanes):
            if active[i]:
                _write(ub, _lane_addr(dst, dst_blk, dst_rep, r, i, size), size, lane_bits(r, i))


def tensor_dup(ub, t, dst, value_bits, *, repeat=1, dst_blk=1, dst_rep=8, mask=None, count=None):
    """Tensor VDUP.T [dst], SCALAR: the value (bits) into every active lane."""
    _check_type(t, TENSOR_TYPES)
    vb = _scalar_bits(value_bits, t)
    _tensor_fill(ub, t, dst, lambda r, i: vb, repeat, dst_blk, dst_rep, mask, count)


def vdup(t, pmask, value_bits=None, src=None):
    """Register VDUP.T Vd, SCALAR|Va, Pm: a scalar (bits) or lane 0 of src in every
    active lane; inactive lanes 0."""
    _check_type(t)
    if (value_bits is None) == (src is None):
        raise ValueError('give exactly one of value_bits and src')
    pmask = _check_pmask(pmask)
    w = SIZE[t]
    if src is not None:
        vb = _get_lane(_check_vreg(src), 0, w)
    else:
        vb = _scalar_bits(value_bits, t)
    out = np.zeros(VL, dtype=np.uint8)
    for i in range(VL // w):
        if lane_active(pmask, i, w):
            _set_lane(out, i, w, vb)
    return out


def arange_bits(t, start_bits, k):
    """START + k (k >= 0 an integer) in type t: integers wrap, floats are the exact
    sum rounded once (nearest even); an exact zero sum is +0 (IEEE x + y), NaN stays
    NaN, inf stays inf."""
    sb = _scalar_bits(start_bits, t)
    if t in INT_TYPES:
        return _int_bits(_bits_int(sb, t) + k, t)
    x = _bits_float(sb, t)
    if math.isnan(x):
        return QNAN[t]
    if math.isinf(x):
        return sb
    return _float_bits(round_fraction(Fraction(x) + k, t, 'rint'), t)


ARANGE_TENSOR_TYPES = ('s16', 's32', 'f16', 'f32')


def tensor_arange(ub, t, dst, start_bits, *, repeat=1, dst_blk=1, dst_rep=8, mask=None, count=None):
    """Tensor VARANGE.T [dst], START: lane i of iteration r = START + r * lanes + i."""
    _check_type(t, ARANGE_TENSOR_TYPES)
    lanes = VL // SIZE[t]
    _tensor_fill(ub, t, dst, lambda r, i: arange_bits(t, start_bits, r * lanes + i),
                 repeat, dst_blk, dst_rep, mask, count)


def varange(t, start_bits):
    """Register VARANGE.T Vd, SCALAR: lane i = START + i, every lane."""
    _check_type(t, TENSOR_TYPES)
    w = SIZE[t]
    out = np.zeros(VL, dtype=np.uint8)
    for i in range(VL // w):
        _set_lane(out, i, w, arange_bits(t, start_bits, i))
    return out


# ---------------------------------------------------------------------------
# 7. compare, select, mask logic (CONTRACT 6.3)
# ---------------------------------------------------------------------------

CONDITIONS = ('EQ', 'NE', 'LT', 'GT', 'LE', 'GE')


def _check_cond(cond):
    c = str(cond).upper()
    if c not in CONDITIONS:
        raise ValueError('unknown condition %r' % (cond,))
    return c


def compare(cond, t, xbits, ybits):
    """x C y on bit patterns; any NaN operand gives False (NE too); +0 == -0."""
    c = _check_cond(cond)
    _check_type(t, REGISTER_ARITH_TYPES)
    x = decode(xbits, t)
    y = decode(ybits, t)
    if t in FLOAT_TYPES and (math.isnan(x) or math.isnan(y)):
        return False
    if c == 'EQ':
        return x == y
    if c == 'NE':
        return x != y
    if c == 'LT':
        return x < y
    if c == 'GT':
        return x > y
    if c == 'LE':
        return x <= y
    return x >= y


def _tensor_compare(ub, c, t, dst, srcs, scalar, repeat, src_blk, src_rep, mask, count, binary):
    _check_mem(ub)
    _check_type(t, TENSOR_TYPES)
    dst = int(dst)
    srcs = tuple(int(s) for s in srcs)
    _check_unary_fields(None, src_blk, None, src_rep, binary=binary)
    _check_align(dst, 'compare destination')
    for s in srcs:
        _check_align(s, 'UB operand')
    size = SIZE[t]
    lanes = VL // size
    nbytes = lanes // 8
    actives = _iteration_actives(mask, count, repeat, t)
    iterations = len(actives)
    if iterations:
        _check_range(ub, dst, iterations * nbytes, 'compare destination')
    for s in range(len(srcs)):
        _check_operand(ub, srcs[s], src_blk[s], src_rep[s], iterations, 8, 'src%d datablock' % s)
    for r in range(iterations):
        a = [_read(ub, _lane_addr(srcs[0], src_blk[0], src_rep[0], r, i, size), size) for i in range(lanes)]
        if scalar is None:
            b = [_read(ub, _lane_addr(srcs[1], src_blk[1], src_rep[1], r, i, size), size)
                 for i in range(lanes)]
        else:
            b = [scalar] * lanes
        out = [0] * nbytes
        for i in range(lanes):
            if actives[r][i] and compare(c, t, a[i], b[i]):
                out[i // 8] |= 1 << (i % 8)
        for k in range(nbytes):
            ub[dst + r * nbytes + k] = out[k]


def tensor_cmp(ub, cond, t, dst, src0, src1, *, repeat=1, src_blk=(1, 1), src_rep=(8, 8),
               mask=None, count=None):
    """Tensor VCMP.C.T [dst], [src0], [src1]: one bit per lane, iteration r's lanes/8 bytes
    at dst + r * lanes / 8; lanes outside the mask give 0 bits."""
    c = _check_cond(cond)
    _tensor_compare(ub, c, t, dst, (src0, src1), None, repeat, _as_tuple(src_blk, 2, 'src_blk'),
                    _as_tuple(src_rep, 2, 'src_rep'), mask, count, True)


def tensor_cmps(ub, cond, t, dst, src, scalar_bits, *, repeat=1, src_blk=1, src_rep=8,
                mask=None, count=None):
    """Tensor VCMPS.C.T [dst], [src], SCALAR (scalar as bits)."""
    c = _check_cond(cond)
    _check_type(t, TENSOR_TYPES)
    _tensor_compare(ub, c, t, dst, (src,), _scalar_bits(scalar_bits, t), repeat,
                    _as_tuple(src_blk, 1, 'src_blk'), _as_tuple(src_rep, 1, 'src_rep'), mask, count, False)


def _tensor_select(ub, t, dst, srcs, scalar, sel, repeat, dst_blk, src_blk, dst_rep, src_rep,
                   mask, count, binary):
    _check_mem(ub)
    _check_type(t, TENSOR_TYPES)
    dst, sel = int(dst), int(sel)
    srcs = tuple(int(s) for s in srcs)
    _check_unary_fields(dst_blk, src_blk, dst_rep, src_rep, binary=binary)
    for s in (dst,) + srcs:
        _check_align(s, 'UB operand')
    _check_align(sel, 'selector address')
    size = SIZE[t]
    lanes = VL // size
    nbytes = lanes // 8
    actives = _iteration_actives(mask, count, repeat, t)
    iterations = len(actives)
    if iterations:
        _check_range(ub, sel, iterations * nbytes, 'selector')
    _check_operand(ub, dst, dst_blk, dst_rep, iterations, 8, 'dst datablock')
    for s in range(len(srcs)):
        _check_operand(ub, srcs[s], src_blk[s], src_rep[s], iterations, 8, 'src%d datablock' % s)
    for r in range(iterations):
        bits = [int(ub[sel + r * nbytes + k]) for k in range(nbytes)]
        a = [_read(ub, _lane_addr(srcs[0], src_blk[0], src_rep[0], r, i, size), size) for i in range(lanes)]
        if scalar is None:
            b = [_read(ub, _lane_addr(srcs[1], src_blk[1], src_rep[1], r, i, size), size)
                 for i in range(lanes)]
        else:
            b = [scalar] * lanes
        results = {}
        for i in range(lanes):
            if actives[r][i]:
                results[i] = a[i] if (bits[i // 8] >> (i % 8)) & 1 else b[i]
        for i, v in results.items():
            _write(ub, _lane_addr(dst, dst_blk, dst_rep, r, i, size), size, v)


def tensor_sel(ub, t, dst, src0, src1, sel, *, repeat=1, dst_blk=1, src_blk=(1, 1), dst_rep=8,
               src_rep=(8, 8), mask=None, count=None):
    """Tensor VSEL.T [dst], [src0], [src1], [sel]: dst = bit ? src0 : src1, the bits of
    iteration r from the lanes/8 bytes at sel + r * lanes / 8; binary fields."""
    _tensor_select(ub, t, dst, (src0, src1), None, sel, repeat, dst_blk, _as_tuple(src_blk, 2, 'src_blk'),
                   dst_rep, _as_tuple(src_rep, 2, 'src_rep'), mask, count, True)


def tensor_sels(ub, t, dst, src0, scalar_bits, sel, *, repeat=1, dst_blk=1, src_blk=1, dst_rep=8,
                src_rep=8, mask=None, count=None):
    """Tensor VSELS.T [dst], [src0], SCALAR, [sel]: dst = bit ? src0 : scalar; unary fields."""
    _check_type(t, TENSOR_TYPES)
    _tensor_select(ub, t, dst, (src0,), _scalar_bits(scalar_bits, t), sel, repeat, dst_blk,
                   _as_tuple(src_blk, 1, 'src_blk'), dst_rep, _as_tuple(src_rep, 1, 'src_rep'),
                   mask, count, False)


def _register_compare(c, t, a, bvals, pmask):
    w = SIZE[t]
    out = np.zeros(VL, dtype=bool)
    for i in range(VL // w):
        if lane_active(pmask, i, w) and compare(c, t, _get_lane(a, i, w), bvals(i)):
            out[i * w:(i + 1) * w] = True          # all w bits of the lane
    return out


def vcmp(cond, t, a, b, pmask):
    """Register VCMP.C.T Pd, Va, Vb, Pm -> mask (lanes outside Pm are 0)."""
    c = _check_cond(cond)
    _check_type(t, REGISTER_ARITH_TYPES)
    a = _check_vreg(a)
    b = _check_vreg(b)
    pmask = _check_pmask(pmask)
    w = SIZE[t]
    return _register_compare(c, t, a, lambda i: _get_lane(b, i, w), pmask)


def vcmps(cond, t, a, scalar_bits, pmask):
    """Register VCMPS.C.T Pd, Va, SCALAR, Pm (scalar as bits) -> mask."""
    c = _check_cond(cond)
    _check_type(t, REGISTER_ARITH_TYPES)
    a = _check_vreg(a)
    pmask = _check_pmask(pmask)
    sb = _scalar_bits(scalar_bits, t)
    return _register_compare(c, t, a, lambda i: sb, pmask)


def vsel(t, a, b, pmask):
    """Register VSEL.T Vd, Va, Vb, Pm: d = lane active ? a : b, every lane written."""
    _check_type(t)
    a = _check_vreg(a)
    b = _check_vreg(b)
    pmask = _check_pmask(pmask)
    w = SIZE[t]
    out = np.zeros(VL, dtype=np.uint8)
    for i in range(VL // w):
        src = a if lane_active(pmask, i, w) else b
        _set_lane(out, i, w, _get_lane(src, i, w))
    return out


def pand(a, b):
    a, b = _check_pmask(a), _check_pmask(b)
    return np.array([bool(a[k]) and bool(b[k]) for k in range(VL)], dtype=bool)


def por(a, b):
    a, b = _check_pmask(a), _check_pmask(b)
    return np.array([bool(a[k]) or bool(b[k]) for k in range(VL)], dtype=bool)


def pxor(a, b):
    a, b = _check_pmask(a), _check_pmask(b)
    return np.array([bool(a[k]) != bool(b[k]) for k in range(VL)], dtype=bool)


def pnot(a):
    a = _check_pmask(a)
    return np.array([not a[k] for k in range(VL)], dtype=bool)


# ---------------------------------------------------------------------------
# 8. scalar memory access and wide constants (CONTRACT 6.6)
# ---------------------------------------------------------------------------

LD_TYPES = {'s8': 1, 'u8': 1, 's16': 2, 'u16': 2, 's32': 4, 'u32': 4, 's64': 8, 'u64': 8}


def _as_s64(v):
    """The low 64 bits of v read as a signed 64-bit integer."""
    v = int(v) % (1 << 64)
    return v - (1 << 64) if v >= 1 << 63 else v


def _check_scalar_access(mem, addr, t):
    _check_mem(mem)
    if t not in LD_TYPES:
        raise ValueError('LD/ST type must be one of %s' % ', '.join(LD_TYPES))
    size = LD_TYPES[t]
    addr = int(addr)
    if addr % size:
        raise ValueError('address %#x is not aligned to %d bytes' % (addr, size))
    _check_range(mem, addr, size, 'LD/ST')
    return addr, size


def ld(mem, addr, t):
    """LD.T: the element at addr, little endian, sign-extended (s*) or zero-extended
    (u*) to 64 bits; returned as the register's signed 64-bit value."""
    addr, size = _check_scalar_access(mem, addr, t)
    v = _read(mem, addr, size)
    if t.startswith('s') and v >= 1 << (8 * size - 1):
        v -= 1 << (8 * size)                       # sign extension
    return _as_s64(v)


def st(mem, addr, t, value):
    """ST.T: the low 8*size bits of value, little endian."""
    addr, size = _check_scalar_access(mem, addr, t)
    _write(mem, addr, size, int(value) % (1 << (8 * size)))


def mov64(value):
    """MOV Sd, EXPR: -2**63 .. 2**64-1 accepted, the low 64 bits kept (signed view)."""
    value = int(value)
    if not -(1 << 63) <= value <= (1 << 64) - 1:
        raise ValueError('constant %d outside -2**63..2**64-1' % (value,))
    return _as_s64(value)


# ---------------------------------------------------------------------------
# 9. reductions (CONTRACT 6.4)
# ---------------------------------------------------------------------------
#
# Choices where the contract is silent (see also the docstrings):
# * an inactive lane enters a sum as +0 (so -0 + inactive gives +0), and never as its bits;
# * max/min compare +0 and -0 as equal: the lowest active lane of the tied ones wins and its
#   bits are written as they are; a NaN winner is written with its own bits (payload kept);
# * an iteration (VCMAX/VCMIN) with no active lane writes nothing (cannot happen with a valid
#   tensor mask, which is never 0); a register MAX/MIN with no active lane gives an all-zero Vd;
# * destination base addresses must be 32-byte aligned like every UB operand (CONTRACT 2.1).

REDUCE_TYPES = TENSOR_TYPES                        # VCADD, VCMAX, VCMIN, VREDUCE
REDUCE_FLOAT_TYPES = ('f16', 'bf16', 'f32')        # VCPADD, VCGADD, VCGMAX, VCGMIN
CMAX_ORDERS = ('vi', 'iv', 'v', 'i')
PROFILES = ('950', 'a2')


def _signbit(x):
    return math.copysign(1.0, x) < 0


def exact_add_bits(t, xb, yb):
    """x + y of type t on bit patterns: floats are the exact sum rounded once (nearest
    even) with the IEEE specials (NaN in or inf + -inf gives NaN; an exact zero sum is -0
    only when both operands are -0); integers wrap."""
    if t in INT_TYPES:
        return _int_bits(_bits_int(xb, t) + _bits_int(yb, t), t)
    x = _bits_float(xb, t)
    y = _bits_float(yb, t)
    if math.isnan(x) or math.isnan(y):
        return QNAN[t]
    if math.isinf(x) or math.isinf(y):
        if math.isinf(x) and math.isinf(y) and _signbit(x) != _signbit(y):
            return QNAN[t]
        return xb if math.isinf(x) else yb
    total = Fraction(x) + Fraction(y)
    if total == 0:
        both_neg = x == 0.0 and y == 0.0 and _signbit(x) and _signbit(y)
        return _float_bits(-0.0 if both_neg else 0.0, t)
    return _float_bits(round_fraction(total, t, 'rint'), t)


def tree_sum(t, values):
    """Pairwise binary tree over the bit patterns ``values`` (a power-of-two count):
    element 2k with 2k+1, then pairs of those, every node rounded to t (integers wrap)."""
    level = [int(v) for v in values]
    if not level or len(level) & (len(level) - 1):
        raise ValueError('a tree sum needs a power-of-two number of lanes, got %d' % len(level))
    while len(level) > 1:
        level = [exact_add_bits(t, level[2 * k], level[2 * k + 1]) for k in range(len(level) // 2)]
    return level[0]


def _reduce_op(op):
    o = str(op).upper()
    if o not in ('SUM', 'MAX', 'MIN'):
        raise ValueError('unknown reduction %r (SUM, MAX, MIN)' % (op,))
    return o


def extreme(op, t, values, active):
    """(bits, lane) of the max ('MAX') or min ('MIN') of the active lanes, or None when no
    lane is active.  The lowest lane wins a tie (+0 and -0 are equal); a NaN lane wins over
    everything, the first NaN's lane and bits are given."""
    o = _reduce_op(op)
    best = None
    for i, v in enumerate(values):
        if not active[i]:
            continue
        if _is_nan_bits(v, t):
            return (v, i)
        if best is None:
            best = (v, i)
            continue
        x = decode(v, t)
        y = decode(best[0], t)
        if (o == 'MAX' and x > y) or (o == 'MIN' and x < y):
            best = (v, i)
    return best


def reduce_identity(op, t):
    """Identity of a reduction as bits: 0 for SUM, -inf / +inf (floats) or the type's
    minimum / maximum (integers) for MAX / MIN."""
    o = _reduce_op(op)
    if o == 'SUM':
        return 0
    if t in INT_TYPES:
        lo, hi = _int_range(t)
        return _int_bits(lo if o == 'MAX' else hi, t)
    return _float_bits(-math.inf if o == 'MAX' else math.inf, t)


def _reduction_setup(ub, t, dst, src, allowed, repeat, src_blk, src_rep, dst_rep, mask, count,
                     unit):
    """Checks shared by the tensor reductions; returns (dst, src, actives) after every check
    (src datablocks and the destination units) has passed."""
    _check_mem(ub)
    _check_type(t, allowed)
    dst, src = int(dst), int(src)
    _check_unary_fields(None, (src_blk,), dst_rep, (src_rep,))
    _check_align(dst, 'UB operand')
    _check_align(src, 'UB operand')
    actives = _iteration_actives(mask, count, repeat, t)
    _check_operand(ub, src, src_blk, src_rep, len(actives), 8, 'src datablock')
    for r in range(len(actives)):
        _check_range(ub, dst + r * dst_rep * unit, unit, 'reduction destination')
    return dst, src, actives


def _read_iteration(ub, src, src_blk, src_rep, r, t):
    size = SIZE[t]
    return [_read(ub, _lane_addr(src, src_blk, src_rep, r, i, size), size) for i in range(VL // size)]


def tensor_cadd(ub, t, dst, src, *, repeat=1, src_blk=1, src_rep=8, dst_rep=1, mask=None, count=None):
    """Tensor VCADD.T [dst], [src]: per iteration the pairwise tree sum of its lanes (inactive
    lanes +0), one T at dst + r * dst_rep * size(T)."""
    size = SIZE.get(t, 0)
    dst, src, actives = _reduction_setup(ub, t, dst, src, REDUCE_TYPES, repeat, src_blk, src_rep,
                                         dst_rep, mask, count, size)
    for r, active in enumerate(actives):
        vals = _read_iteration(ub, src, src_blk, src_rep, r, t)
        total = tree_sum(t, [v if a else 0 for v, a in zip(vals, active)])
        _write(ub, dst + r * dst_rep * size, size, total)


def _check_order(order):
    o = str(order).lower()
    if o not in CMAX_ORDERS:
        raise ValueError('unknown order %r (vi, iv, v, i)' % (order,))
    return o


def _tensor_cextreme(op, ub, t, dst, src, order, repeat, src_blk, src_rep, dst_rep, mask, count):
    o = _check_order(order)
    _check_type(t, REDUCE_TYPES)
    size = SIZE[t]
    unit = {'vi': 2 * size, 'iv': 2 * size, 'v': size, 'i': 4}[o]
    dst, src, actives = _reduction_setup(ub, t, dst, src, REDUCE_TYPES, repeat, src_blk, src_rep,
                                         dst_rep, mask, count, unit)
    for r, active in enumerate(actives):
        found = extreme(op, t, _read_iteration(ub, src, src_blk, src_rep, r, t), active)
        if found is None:
            continue                               # no active lane: nothing written
        value, lane = found
        base = dst + r * dst_rep * unit
        if o == 'vi':
            _write(ub, base, size, value)
            _write(ub, base + size, size, lane)
        elif o == 'iv':
            _write(ub, base, size, lane)
            _write(ub, base + size, size, value)
        elif o == 'v':
            _write(ub, base, size, value)
        else:
            _write(ub, base, 4, lane)              # the lane alone, as a u32


def tensor_cmax(ub, t, dst, src, *, order='vi', repeat=1, src_blk=1, src_rep=8, dst_rep=1,
                mask=None, count=None):
    """Tensor VCMAX.T [dst], [src], order=...: the max of each iteration and its lane (lowest
    lane on ties, first NaN wins); unit 2*size (vi, iv), size (v) or 4 (i, a u32 lane);
    iteration r at dst + r * dst_rep * unit; the lane is an unsigned integer of T's size."""
    _tensor_cextreme('MAX', ub, t, dst, src, order, repeat, src_blk, src_rep, dst_rep, mask, count)


def tensor_cmin(ub, t, dst, src, *, order='vi', repeat=1, src_blk=1, src_rep=8, dst_rep=1,
                mask=None, count=None):
    """Tensor VCMIN.T [dst], [src], order=...: as tensor_cmax with the minimum."""
    _tensor_cextreme('MIN', ub, t, dst, src, order, repeat, src_blk, src_rep, dst_rep, mask, count)


def _tensor_cgroup(op, ub, t, dst, src, profile, repeat, src_blk, src_rep, dst_rep, mask, count):
    o = _reduce_op(op)
    if str(profile) not in PROFILES:
        raise ValueError('unknown profile %r (950, a2)' % (profile,))
    _check_type(t, REDUCE_FLOAT_TYPES)
    size = SIZE[t]
    per_block = BLOCK // size
    dst, src, actives = _reduction_setup(ub, t, dst, src, REDUCE_FLOAT_TYPES, repeat, src_blk,
                                         src_rep, dst_rep, mask, count, 8 * size)
    for r, active in enumerate(actives):
        vals = _read_iteration(ub, src, src_blk, src_rep, r, t)
        results = {}
        for b in range(8):
            lanes = range(b * per_block, (b + 1) * per_block)
            block_active = [active[i] for i in lanes]
            if not any(block_active):
                if str(profile) == '950':
                    results[b] = reduce_identity(o, t)
                continue                           # a2: not written
            block_vals = [vals[i] for i in lanes]
            if o == 'SUM':
                results[b] = tree_sum(t, [v if a else 0 for v, a in zip(block_vals, block_active)])
            else:
                results[b] = extreme(o, t, block_vals, block_active)[0]
        for b, bits in results.items():
            _write(ub, dst + (r * dst_rep * 8 + b) * size, size, bits)


def tensor_cgadd(ub, t, dst, src, *, profile='950', repeat=1, src_blk=1, src_rep=8, dst_rep=1,
                 mask=None, count=None):
    """Tensor VCGADD.T: the tree sum of each datablock, 8 results per iteration contiguous at
    dst + r * dst_rep * 8 * size; a block with no active lane: 0 on 950, not written on a2."""
    _tensor_cgroup('SUM', ub, t, dst, src, profile, repeat, src_blk, src_rep, dst_rep, mask, count)


def tensor_cgmax(ub, t, dst, src, *, profile='950', repeat=1, src_blk=1, src_rep=8, dst_rep=1,
                 mask=None, count=None):
    """Tensor VCGMAX.T: the max of each datablock (value only); an empty block: -inf on 950,
    not written on a2."""
    _tensor_cgroup('MAX', ub, t, dst, src, profile, repeat, src_blk, src_rep, dst_rep, mask, count)


def tensor_cgmin(ub, t, dst, src, *, profile='950', repeat=1, src_blk=1, src_rep=8, dst_rep=1,
                 mask=None, count=None):
    """Tensor VCGMIN.T: the min of each datablock (value only); an empty block: +inf on 950,
    not written on a2."""
    _tensor_cgroup('MIN', ub, t, dst, src, profile, repeat, src_blk, src_rep, dst_rep, mask, count)


def tensor_cpadd(ub, t, dst, src, *, repeat=1, src_blk=1, src_rep=8, dst_rep=1, mask=None, count=None):
    """Tensor VCPADD.T: lanes/2 sums src[2k] + src[2k+1] per iteration (inactive lanes +0; a
    pair with no active lane is written as +0), the 128 bytes of iteration r at
    dst + r * dst_rep * 128."""
    dst, src, actives = _reduction_setup(ub, t, dst, src, REDUCE_FLOAT_TYPES, repeat, src_blk,
                                         src_rep, dst_rep, mask, count, 128)
    size = SIZE[t]
    for r, active in enumerate(actives):
        vals = [v if a else 0 for v, a in zip(_read_iteration(ub, src, src_blk, src_rep, r, t), active)]
        sums = [exact_add_bits(t, vals[2 * k], vals[2 * k + 1]) for k in range(len(vals) // 2)]
        for k, bits in enumerate(sums):
            _write(ub, dst + r * dst_rep * 128 + k * size, size, bits)


def vreduce(op, t, a, pmask):
    """Register VREDUCE.O.T Vd, Va, Pm (O = SUM, MAX, MIN): the result in lane 0, for MAX and
    MIN the lane index (unsigned, T's size) in lane 1, every other byte zero.  SUM of s16 /
    u16 is a 32-bit integer in bytes 0..3: the tree is summed in s32 / u32 (wrap-around) of
    the sign- / zero-extended lanes.  Inactive lanes take no part (+0 in a sum)."""
    o = _reduce_op(op)
    _check_type(t, REDUCE_TYPES)
    a = _check_vreg(a)
    pmask = _check_pmask(pmask)
    w = SIZE[t]
    lanes = VL // w
    active = [lane_active(pmask, i, w) for i in range(lanes)]
    vals = [_get_lane(a, i, w) for i in range(lanes)]
    out = np.zeros(VL, dtype=np.uint8)
    if o == 'SUM':
        if t in ('s16', 'u16'):
            wide_t = 's32' if t == 's16' else 'u32'
            wide = [_int_bits(_bits_int(v, t), wide_t) if act else 0 for v, act in zip(vals, active)]
            _write(out, 0, 4, tree_sum(wide_t, wide))
        else:
            _set_lane(out, 0, w, tree_sum(t, [v if act else 0 for v, act in zip(vals, active)]))
        return out
    found = extreme(o, t, vals, active)
    if found is not None:
        _set_lane(out, 0, w, found[0])
        _set_lane(out, 1, w, found[1])
    return out


# ---------------------------------------------------------------------------
# 10. bitwise, shifts, fused multiply-add, element broadcast (CONTRACT 6.5)
# ---------------------------------------------------------------------------
#
# Choices where the contract is silent:
# * a scalar shift count is read as an unsigned 32-bit value (its low 32 bits), so a negative
#   count is huge and shifts everything out (0, or all sign bits for a signed VSHR); a per-lane
#   count (register form with Vb) is the lane read as an unsigned integer of T's width;
# * the tensor VSHL of a signed type keeps the sign bit for every count, a count of the width
#   or more included: the shifted bits are all 0, so the result is the sign bit alone
#   (0x8000 for a negative s16, 0 for a non-negative one);
# * FMA results: NaN is the canonical quiet NaN; an exact zero is +0 except (-0) + (-0).

BITWISE_TYPES = ('s16', 'u16', 's32', 'u32')
# The table's integer-only ops (no row of theirs takes a float type): two sources (and, or, xor), a
# count (shl, shr); 'not' is the one source form.
BITWISE_BINARY_OPS = tuple(dict.fromkeys(row.op for row in _isa.TABLE if row.form == 'tensor-binary'
                                         and not set(row.types) & set(FLOAT_TYPES)
                                         and row.op not in INT_DIV_OPS))   # VREM: integer-only, not bitwise
SHIFT_OPS = tuple(dict.fromkeys(row.op for row in _isa.TABLE if row.form == 'tensor-scalar'
                                and not set(row.types) & set(FLOAT_TYPES)))
FMA_TYPES = ('f16', 'bf16', 'f32')


def lane_bitwise(op, t, xb, yb=None):
    """and / or / xor / not of one lane of a 16/32-bit integer type, on bits."""
    _check_type(t, BITWISE_TYPES)
    full = (1 << (8 * SIZE[t])) - 1
    if op == 'not':
        return ~int(xb) & full
    if op == 'and':
        return int(xb) & int(yb) & full
    if op == 'or':
        return (int(xb) | int(yb)) & full
    if op == 'xor':
        return (int(xb) ^ int(yb)) & full
    raise ValueError('unknown bitwise op %r' % (op,))


def shift_count(count_bits):
    """A scalar shift count: its low 32 bits, unsigned (a negative count is huge)."""
    return int(count_bits) & 0xFFFFFFFF


def lane_shift(op, t, xb, n, tensor=False):
    """VSHL / VSHR of one lane by the unsigned count n.  VSHR: logical on unsigned, arithmetic
    on signed types (n >= width: 0, or all sign bits).  VSHL: n >= width gives 0; with
    tensor=True a signed type keeps its sign bit: (src & sign) | ((src << n) & ~sign)."""
    _check_type(t, BITWISE_TYPES)
    if op not in SHIFT_OPS:
        raise ValueError('unknown shift %r (shl, shr)' % (op,))
    width = 8 * SIZE[t]
    full = (1 << width) - 1
    sign = 1 << (width - 1)
    xb = int(xb) & full
    n = int(n)
    if n < 0:
        raise ValueError('a shift count is unsigned, got %d' % n)
    if op == 'shl':
        shifted = (xb << n) & full if n < width else 0
        if tensor and t in SIGNED_TYPES:
            return (xb & sign) | (shifted & (sign - 1))
        return shifted
    if t in SIGNED_TYPES:
        return _int_bits(_bits_int(xb, t) >> min(n, width), t)   # Python >> is arithmetic
    return xb >> n if n < width else 0


def fma_bits(t, ab, bb, cb):
    """a * b + c of a float type on bit patterns, computed exactly and rounded ONCE (nearest
    even).  IEEE specials: NaN in, 0 * inf, or inf - inf gives NaN; an exact zero result is
    -0 only when a*b is a -0 and c is -0."""
    _check_type(t, FMA_TYPES)
    a = _bits_float(ab, t)
    b = _bits_float(bb, t)
    c = _bits_float(cb, t)
    if math.isnan(a) or math.isnan(b) or math.isnan(c):
        return QNAN[t]
    product_neg = _signbit(a) != _signbit(b)
    if math.isinf(a) or math.isinf(b):
        if a == 0.0 or b == 0.0:
            return QNAN[t]                         # 0 * inf
        if math.isinf(c) and _signbit(c) != product_neg:
            return QNAN[t]                         # inf - inf
        return _float_bits(-math.inf if product_neg else math.inf, t)
    if math.isinf(c):
        return cb
    product = Fraction(a) * Fraction(b)
    total = product + Fraction(c)
    if total == 0:
        neg = product == 0 and c == 0.0 and product_neg and _signbit(c)
        return _float_bits(-0.0 if neg else 0.0, t)
    return _float_bits(round_fraction(total, t, 'rint'), t)


def _tensor_lanes(ub, t, dst, srcs, fn, repeat, dst_blk, src_blk, dst_rep, src_rep, mask, count,
                  binary, read_dst=False):
    """Element-wise tensor instruction: dst lane = fn(src lanes..., [dst lane]) for the active
    lanes, per iteration read everything first, then write; masked-off lanes unchanged."""
    _check_mem(ub)
    dst = int(dst)
    srcs = tuple(int(s) for s in srcs)
    src_blk = _as_tuple(src_blk, len(srcs), 'src_blk')
    src_rep = _as_tuple(src_rep, len(srcs), 'src_rep')
    _check_unary_fields(dst_blk, src_blk, dst_rep, src_rep, binary=binary)
    for addr in (dst,) + srcs:
        _check_align(addr, 'UB operand')
    size = SIZE[t]
    lanes = VL // size
    actives = _iteration_actives(mask, count, repeat, t)
    iterations = len(actives)
    _check_operand(ub, dst, dst_blk, dst_rep, iterations, 8, 'dst datablock')
    for s in range(len(srcs)):
        _check_operand(ub, srcs[s], src_blk[s], src_rep[s], iterations, 8, 'src%d datablock' % s)
    for r in range(iterations):
        vals = [[_read(ub, _lane_addr(srcs[s], src_blk[s], src_rep[s], r, i, size), size)
                 for i in range(lanes)] for s in range(len(srcs))]
        if read_dst:
            vals.append([_read(ub, _lane_addr(dst, dst_blk, dst_rep, r, i, size), size)
                         for i in range(lanes)])
        results = {}
        for i in range(lanes):
            if actives[r][i]:
                results[i] = fn(*[v[i] for v in vals])
        for i, bits in results.items():
            _write(ub, _lane_addr(dst, dst_blk, dst_rep, r, i, size), size, bits)


def tensor_bitwise(ub, op, t, dst, srcs, *, repeat=1, dst_blk=1, src_blk=(1, 1), dst_rep=8,
                   src_rep=(8, 8), mask=None, count=None):
    """Tensor VAND / VOR / VXOR (op 'and', 'or', 'xor', two sources, binary fields) and VNOT
    (op 'not', one source, unary fields), 16/32-bit integer types."""
    _check_type(t, BITWISE_TYPES)
    if isinstance(srcs, (int, np.integer)):
        srcs = (int(srcs),)
    srcs = tuple(srcs)
    if op == 'not':
        nsrc, binary = 1, False
    elif op in BITWISE_BINARY_OPS:
        nsrc, binary = 2, True
    else:
        raise ValueError('unknown bitwise op %r' % (op,))
    if len(srcs) != nsrc:
        raise ValueError('%s needs %d source(s), got %d' % (op, nsrc, len(srcs)))
    _tensor_lanes(ub, t, dst, srcs, lambda *x: lane_bitwise(op, t, *x), repeat, dst_blk,
                  src_blk, dst_rep, src_rep, mask, count, binary)


def tensor_and(ub, t, dst, src0, src1, **fields):
    """Tensor VAND.T [dst], [src0], [src1] (binary fields)."""
    tensor_bitwise(ub, 'and', t, dst, (src0, src1), **fields)


def tensor_or(ub, t, dst, src0, src1, **fields):
    """Tensor VOR.T [dst], [src0], [src1] (binary fields)."""
    tensor_bitwise(ub, 'or', t, dst, (src0, src1), **fields)


def tensor_xor(ub, t, dst, src0, src1, **fields):
    """Tensor VXOR.T [dst], [src0], [src1] (binary fields)."""
    tensor_bitwise(ub, 'xor', t, dst, (src0, src1), **fields)


def tensor_not(ub, t, dst, src, *, repeat=1, dst_blk=1, src_blk=1, dst_rep=8, src_rep=8,
               mask=None, count=None):
    """Tensor VNOT.T [dst], [src] (unary fields)."""
    tensor_bitwise(ub, 'not', t, dst, (src,), repeat=repeat, dst_blk=dst_blk, src_blk=src_blk,
                   dst_rep=dst_rep, src_rep=src_rep, mask=mask, count=count)


def tensor_shift(ub, op, t, dst, src, count_bits, *, repeat=1, dst_blk=1, src_blk=1, dst_rep=8,
                 src_rep=8, mask=None, count=None):
    """Tensor VSHL / VSHR.T [dst], [src], SCALAR (op 'shl' / 'shr'; unary fields; ``count`` is
    the counter-mode field, the shift count is ``count_bits``, read as an unsigned 32-bit
    value).  The signed VSHL keeps the sign bit (lane_shift with tensor=True)."""
    _check_type(t, BITWISE_TYPES)
    if op not in SHIFT_OPS:
        raise ValueError('unknown shift %r (shl, shr)' % (op,))
    n = shift_count(count_bits)
    _tensor_lanes(ub, t, dst, (src,), lambda x: lane_shift(op, t, x, n, tensor=True), repeat,
                  dst_blk, src_blk, dst_rep, src_rep, mask, count, False)


def _check_fma_type(t):
    _check_type(t, FMA_TYPES)


def tensor_axpy(ub, t, dst, src, scalar_bits, *, repeat=1, dst_blk=1, src_blk=1, dst_rep=8,
                src_rep=8, mask=None, count=None):
    """Tensor VAXPY.T [dst], [src], SCALAR: dst = src * SCALAR + dst, rounded once; unary
    fields; the scalar as bits (its low bits)."""
    _check_fma_type(t)
    sb = _scalar_bits(scalar_bits, t)
    _tensor_lanes(ub, t, dst, (src,), lambda x, d: fma_bits(t, x, sb, d), repeat, dst_blk,
                  src_blk, dst_rep, src_rep, mask, count, False, read_dst=True)


def tensor_mla(ub, t, dst, src0, src1, *, repeat=1, dst_blk=1, src_blk=(1, 1), dst_rep=8,
               src_rep=(8, 8), mask=None, count=None):
    """Tensor VMLA.T [dst], [src0], [src1]: dst = src0 * src1 + dst, rounded once; binary fields."""
    _check_fma_type(t)
    _tensor_lanes(ub, t, dst, (src0, src1), lambda x, y, d: fma_bits(t, x, y, d), repeat, dst_blk,
                  src_blk, dst_rep, src_rep, mask, count, True, read_dst=True)


def tensor_madd(ub, t, dst, src0, src1, *, repeat=1, dst_blk=1, src_blk=(1, 1), dst_rep=8,
                src_rep=(8, 8), mask=None, count=None):
    """Tensor VMADD.T [dst], [src0], [src1]: dst = src0 * dst + src1, rounded once; binary fields."""
    _check_fma_type(t)
    _tensor_lanes(ub, t, dst, (src0, src1), lambda x, y, d: fma_bits(t, x, d, y), repeat, dst_blk,
                  src_blk, dst_rep, src_rep, mask, count, True, read_dst=True)


def _register_lanes(t, fn, regs, pmask):
    """Register form: lane i = fn(i, lanes of regs...) where active, 0 elsewhere."""
    regs = [_check_vreg(r) for r in regs]
    pmask = _check_pmask(pmask)
    w = SIZE[t]
    out = np.zeros(VL, dtype=np.uint8)
    for i in range(VL // w):
        if lane_active(pmask, i, w):
            _set_lane(out, i, w, fn(i, *[_get_lane(r, i, w) for r in regs]))
    return out


def vbitwise(op, t, a, b, pmask):
    """Register VAND / VOR / VXOR.T Vd, Va, Vb, Pm (op 'and', 'or', 'xor'); b is ignored for
    'not' (VNOT.T Vd, Va, Pm: use vnot).  Lanes outside Pm are zero."""
    _check_type(t, BITWISE_TYPES)
    if op == 'not':
        return vnot(t, a, pmask)
    if op not in BITWISE_BINARY_OPS:
        raise ValueError('unknown bitwise op %r' % (op,))
    return _register_lanes(t, lambda i, x, y: lane_bitwise(op, t, x, y), (a, b), pmask)


def vand(t, a, b, pmask):
    return vbitwise('and', t, a, b, pmask)


def vor(t, a, b, pmask):
    return vbitwise('or', t, a, b, pmask)


def vxor(t, a, b, pmask):
    return vbitwise('xor', t, a, b, pmask)


def vnot(t, a, pmask):
    """Register VNOT.T Vd, Va, Pm."""
    _check_type(t, BITWISE_TYPES)
    return _register_lanes(t, lambda i, x: lane_bitwise('not', t, x), (a,), pmask)


def vshift(op, t, a, count, pmask):
    """Register VSHL / VSHR.T Vd, Va, SCALAR|Vb, Pm: count a scalar (int, its low 32 bits
    unsigned) or a vector register of per-lane counts (each lane unsigned, T's width).  The
    register VSHL is a plain shift, signed types included."""
    _check_type(t, BITWISE_TYPES)
    if op not in SHIFT_OPS:
        raise ValueError('unknown shift %r (shl, shr)' % (op,))
    if isinstance(count, np.ndarray):
        return _register_lanes(t, lambda i, x, n: lane_shift(op, t, x, n), (a, count), pmask)
    n = shift_count(count)
    return _register_lanes(t, lambda i, x: lane_shift(op, t, x, n), (a,), pmask)


def vaxpy(t, a, scalar_bits, d, pmask):
    """Register VAXPY.T Vd, Va, SCALAR, Pm: new Vd = a * SCALAR + d, rounded once."""
    _check_fma_type(t)
    sb = _scalar_bits(scalar_bits, t)
    return _register_lanes(t, lambda i, x, z: fma_bits(t, x, sb, z), (a, d), pmask)


def vmla(t, a, b, d, pmask):
    """Register VMLA.T Vd, Va, Vb, Pm: new Vd = a * b + d, rounded once."""
    _check_fma_type(t)
    return _register_lanes(t, lambda i, x, y, z: fma_bits(t, x, y, z), (a, b, d), pmask)


def vmadd(t, a, b, d, pmask):
    """Register VMADD.T Vd, Va, Vb, Pm: new Vd = a * d + b, rounded once."""
    _check_fma_type(t)
    return _register_lanes(t, lambda i, x, y, z: fma_bits(t, x, z, y), (a, b, d), pmask)


def tensor_brcb(ub, t, dst, src, *, repeat=1, dst_blk=1, dst_rep=8):
    """Tensor VBRCB.T [dst], [src]: iteration r reads the 8 consecutive elements at
    src + 8 * r * size and fills datablock j of its destination (dst + (r * dst_rep +
    j * dst_blk) * 32) with element j, bit for bit; 16/32-bit types; no mask."""
    _check_mem(ub)
    _check_type(t, TENSOR_TYPES)
    dst, src = int(dst), int(src)
    _check_unary_fields(dst_blk, (), dst_rep, ())
    _check_align(dst, 'UB operand')
    _check_align(src, 'UB operand')
    if not 0 <= repeat <= 255:
        raise ValueError('repeat %d outside 0..255' % (repeat,))
    size = SIZE[t]
    if repeat:
        _check_range(ub, src, 8 * repeat * size, 'VBRCB source')
    _check_operand(ub, dst, dst_blk, dst_rep, repeat, 8, 'dst datablock')
    for r in range(repeat):
        elems = [_read(ub, src + (8 * r + j) * size, size) for j in range(8)]
        for j in range(8):
            base = _block_addr(dst, dst_blk, dst_rep, r, j)
            for k in range(BLOCK // size):
                _write(ub, base + k * size, size, elems[j])


# ---------------------------------------------------------------------------
# 11. part three: integer division, predicate ops, register rearrangement (CONTRACT 13)
# ---------------------------------------------------------------------------
#
# Written from CONTRACT 13.2, 13.3, 13.7, 13.10 and 13.12 alone.  Conventions as above: a mask is
# 256 booleans, entry k being bit k of the mask register (bit 0 of byte 0 first, CONTRACT 3.1 and
# 13's "Bit k of P"); a vector register is 256 bytes.  Every register function here is pure: it
# reads all its sources before building its results, which is 13.12's in-place rule (a source may
# be a destination) for free.
#
# Readings chosen where the text leaves room (each docstring repeats its own):
# * PLD / PST ``dist=`` names are matched case-insensitively (as 13.1 says of VLD / VST modes); the
#   DIST_ spelling is not accepted here (13.2 names only norm, us, ds, pack);
# * ``part=`` is 'lo' or 'hi' (case-insensitive), default 'lo';
# * PPACK / VPACK: the half of the destination not written by the pack is zero (13.2, 13.3 [vcore]);
# * VREM's MIN % -1: computed from the exact quotient or from the wrapped one, the remainder is 0
#   either way (modulo 2**bits), which is what 13.7 states;
# * the FloorMod of a zero divisor: the 13.7 sequence gives a % 0 = a (VREM gives a, then a + 0
#   is a again), so floormod_lane defines x floormod 0 = x.

def _check_part(part):
    p = str(part).lower()
    if p not in ('lo', 'hi'):
        raise ValueError('part must be lo or hi, not %r' % (part,))
    return p


def lane_int_div(op, t, xb, yb):
    """One lane of the integer VDIV (op 'div') or VREM (op 'rem') of CONTRACT 13.7, on bits.

    T is s16, u16, s32 or u32 (8-bit types are assembly errors there).  Quotient: rounded toward
    zero (C), ``-7 / 2 = -3``; ``MIN / -1`` wraps to MIN; a zero divisor gives all ones (-1 signed,
    2**bits - 1 unsigned), no fault.  Remainder: ``a - trunc(a / b) * b``, the sign of a, ``|r| < |b|``,
    ``MIN % -1 = 0`` and ``a % 0 = a``.  Operands are read as T (signed or unsigned by T)."""
    if op not in INT_DIV_OPS:
        raise ValueError('unknown integer division op %r (div, rem)' % (op,))
    _check_type(t, INT_DIV_TYPES)
    x = _bits_int(xb, t)
    y = _bits_int(yb, t)
    if y == 0:
        if op == 'div':
            return (1 << (8 * SIZE[t])) - 1        # all ones: -1 signed, 2**bits - 1 unsigned
        return _int_bits(x, t)                     # a % 0 = a
    q = abs(x) // abs(y)                           # truncation: divide the magnitudes ...
    if (x < 0) != (y < 0):
        q = -q                                     # ... then apply sign(a) xor sign(b)
    if op == 'div':
        return _int_bits(q, t)                     # MIN / -1 = 2**(bits-1) wraps to MIN
    return _int_bits(x - q * y, t)                 # MIN % -1: MIN - 2**(bits-1) * -1 = 0


def vdiv_int(t, a, b, pmask):
    """Register VDIV.T Vd, Va, Vb, Pm for T in s16 u16 s32 u32 (CONTRACT 13.7): lane_int_div per
    active lane; inactive lanes of Vd are zero (as the float register forms, 6.2)."""
    _check_type(t, INT_DIV_TYPES)
    return vop('div', t, a, b, pmask)


def vrem(t, a, b, pmask):
    """Register VREM.T Vd, Va, Vb, Pm (CONTRACT 13.7 [vcore]): the truncated remainder per active
    lane; inactive lanes of Vd are zero."""
    _check_type(t, INT_DIV_TYPES)
    return vop('rem', t, a, b, pmask)


def tensor_div_int(ub, t, dst, src0, src1, **fields):
    """Tensor VDIV.T [dst], [src0], [src1] {binary fields} for T in s16 u16 s32 u32 (CONTRACT 13.7,
    950 only): tensor_op with lane_int_div; lanes outside the mask keep dst."""
    _check_type(t, INT_DIV_TYPES)
    tensor_op(ub, 'div', t, dst, (src0, src1), **fields)


def tensor_rem(ub, t, dst, src0, src1, **fields):
    """Tensor VREM.T [dst], [src0], [src1] {binary fields} (CONTRACT 13.7 [vcore], 950 only)."""
    _check_type(t, INT_DIV_TYPES)
    tensor_op(ub, 'rem', t, dst, (src0, src1), **fields)


def floormod_lane(xb, yb):
    """Python's x % y (the sign of the divisor) on s32 bits, the result the 13.7 FloorMod sequence
    computes; reading chosen: a zero divisor gives x (what the sequence gives: VREM's a % 0 = a)."""
    x = _bits_int(xb, 's32')
    y = _bits_int(yb, 's32')
    if y == 0:
        return _int_bits(x, 's32')
    return _int_bits(x % y, 's32')


def floormod_sequence(a, b, p0):
    """The FloorMod sequence of CONTRACT 13.7, run instruction by instruction on this reference:

        VREM.s32  V2, V0, V1, P0
        VXOR.s32  V3, V2, V1, P0
        VCMPS.LT.s32 P1, V3, 0, P0
        VCMPS.NE.s32 P2, V2, 0, P0
        PAND P1, P1, P2
        VADD.s32  V4, V2, V1, P1
        VSEL.s32  V2, V4, V2, P1

    with V0 = ``a``, V1 = ``b``, P0 = ``p0``.  Returns the registers it writes, as a dict
    ``{'V2', 'V3', 'V4', 'P1', 'P2'}`` (final values).  V2's active lanes are floormod_lane; its
    inactive lanes are zero."""
    a, b = _check_vreg(a), _check_vreg(b)
    p0 = _check_pmask(p0)
    v2 = vrem('s32', a, b, p0)
    v3 = vxor('s32', v2, b, p0)
    p1 = vcmps('LT', 's32', v3, 0, p0)
    p2 = vcmps('NE', 's32', v2, 0, p0)
    p1 = pand(p1, p2)
    v4 = vop('add', 's32', v2, b, p1)
    v2 = vsel('s32', v4, v2, p1)
    return {'V2': v2, 'V3': v3, 'V4': v4, 'P1': p1, 'P2': p2}


# -- predicate loads, stores and re-granulation (CONTRACT 13.2) ---------------------------------

# mode: (bytes of UB, alignment of the address)
PLD_DISTS = {'norm': (32, 32), 'us': (16, 16), 'ds': (64, 32)}
PST_DISTS = {'norm': (32, 32), 'pack': (16, 16)}


def _check_dist(dist, table, what):
    d = str(dist).lower()
    if d not in table:
        raise ValueError('%s takes dist=%s, not %r' % (what, '|'.join(table), dist))
    return d


def _mask_access(ub, addr, dist, table, what):
    _check_mem(ub)
    d = _check_dist(dist, table, what)
    nbytes, align = table[d]
    addr = int(addr)
    if addr % align:
        raise ValueError('%s dist=%s needs a %d-byte aligned address; %#x is not' % (what, d, align, addr))
    _check_range(ub, addr, nbytes, '%s dist=%s' % (what, d))
    return d, addr, nbytes


def pld(ub, addr, dist='norm'):
    """PLD Pd, [Sa] {, dist=norm|us|ds} (CONTRACT 13.2; byte b of UB holds bits 8b..8b+7, least
    significant first).  norm: 32 bytes, Pd bit k = UB bit k; us: 16 bytes (16-byte aligned), Pd
    bits 2k and 2k+1 = UB bit k; ds: 64 bytes (32-byte aligned), Pd bit k = UB bit 2k.  Returns the
    mask (256 booleans).  Reading: mode names are case-insensitive."""
    d, addr, nbytes = _mask_access(ub, addr, dist, PLD_DISTS, 'PLD')
    bits = [bool((int(ub[addr + k // 8]) >> (k % 8)) & 1) for k in range(8 * nbytes)]
    if d == 'norm':
        out = bits
    elif d == 'us':
        out = [bits[k // 2] for k in range(VL)]
    else:
        out = [bits[2 * k] for k in range(VL)]
    return np.array(out, dtype=bool)


def pst(ub, addr, p, dist='norm'):
    """PST [Sa], Ps {, dist=norm|pack} (CONTRACT 13.2), into ``ub`` in place.  norm: 32 bytes, UB bit
    k = Ps bit k; pack: 16 bytes (16-byte aligned), UB bit k = Ps bit 2k, k = 0..127.  Every byte
    of the range is written (no mask)."""
    p = _check_pmask(p)
    d, addr, nbytes = _mask_access(ub, addr, dist, PST_DISTS, 'PST')
    bits = list(p) if d == 'norm' else [p[2 * k] for k in range(128)]
    out = [0] * nbytes
    for k, bit in enumerate(bits):
        if bit:
            out[k // 8] |= 1 << (k % 8)
    for i in range(nbytes):
        ub[addr + i] = out[i]


def ppack(p, part='lo'):
    """PPACK Pd, Ps {, part=lo|hi} (CONTRACT 13.2): lo: Pd bit k = Ps bit 2k (k = 0..127), Pd bits
    128..255 = 0; hi: Pd bit 128 + k = Ps bit 2k, Pd bits 0..127 = 0 (the zero half is [vcore])."""
    p = _check_pmask(p)
    base = 0 if _check_part(part) == 'lo' else 128
    out = np.zeros(VL, dtype=bool)
    for k in range(128):
        out[base + k] = p[2 * k]
    return out


def punpack(p, part='lo'):
    """PUNPACK Pd, Ps {, part=lo|hi} (CONTRACT 13.2): Pd bit 2k = Ps bit k (lo) or Ps bit 128 + k
    (hi), Pd bit 2k + 1 = 0, k = 0..127."""
    p = _check_pmask(p)
    base = 0 if _check_part(part) == 'lo' else 128
    out = np.zeros(VL, dtype=bool)
    for k in range(128):
        out[2 * k] = p[base + k]
    return out


def _mask_groups(p, g):
    return [tuple(bool(p[g * k + j]) for j in range(g)) for k in range(VL // g)]


def _mask_of_groups(groups):
    return np.array([bit for group in groups for bit in group], dtype=bool)


def pintlv(w, a, b):
    """PINTLV.Bw Pd0, Pd1, Pa, Pb (CONTRACT 13.2), w in 8, 16, 32: groups of g = w / 8 bits (G =
    256 / g of them); s[2k] = Pa group k, s[2k+1] = Pb group k; Pd0 = s[0..G-1], Pd1 = s[G..2G-1].
    Returns (Pd0, Pd1)."""
    g = _mask_width_bytes(w)
    a, b = _check_pmask(a), _check_pmask(b)
    ga, gb = _mask_groups(a, g), _mask_groups(b, g)
    seq = []
    for k in range(VL // g):
        seq += [ga[k], gb[k]]
    n = VL // g
    return _mask_of_groups(seq[:n]), _mask_of_groups(seq[n:])


def pdintlv(w, a, b):
    """PDINTLV.Bw Pd0, Pd1, Pa, Pb (CONTRACT 13.2): c = Pa's groups then Pb's; Pd0 group k = c[2k],
    Pd1 group k = c[2k+1].  Returns (Pd0, Pd1)."""
    g = _mask_width_bytes(w)
    a, b = _check_pmask(a), _check_pmask(b)
    seq = _mask_groups(a, g) + _mask_groups(b, g)
    return _mask_of_groups(seq[0::2]), _mask_of_groups(seq[1::2])


def psel(a, b, m):
    """PSEL Pd, Pa, Pb, Pm (CONTRACT 13.2): Pd bit k = Pm bit k ? Pa bit k : Pb bit k, all 256 bits."""
    a, b, m = _check_pmask(a), _check_pmask(b), _check_pmask(m)
    return np.array([bool(a[k]) if m[k] else bool(b[k]) for k in range(VL)], dtype=bool)


# -- register interleave, de-interleave, pack and unpack (CONTRACT 13.3) ------------------------

VPACK_PAIRS = (('u8', 's16'), ('u8', 'u16'), ('u16', 's32'), ('u16', 'u32'))       # (D, S)
VUNPACK_PAIRS = (('s16', 's8'), ('u16', 'u8'), ('s32', 's16'), ('u32', 'u16'))     # (D, S)


def _lanes(v, w):
    return [_get_lane(v, i, w) for i in range(VL // w)]


def _vreg_of_lanes(lanes, w):
    out = np.zeros(VL, dtype=np.uint8)
    for i, bits in enumerate(lanes):
        _set_lane(out, i, w, bits)
    return out


def vintlv(t, a, b):
    """VINTLV.T Vd0, Vd1, Va, Vb (CONTRACT 13.3), T any 8-, 16- or 32-bit type: the 2L elements
    a0, b0, a1, b1, ...; Vd0 = the first L, Vd1 the last L.  No mask.  Returns (Vd0, Vd1)."""
    _check_type(t)
    w = SIZE[t]
    la, lb = _lanes(_check_vreg(a), w), _lanes(_check_vreg(b), w)
    seq = []
    for x, y in zip(la, lb):
        seq += [x, y]
    n = VL // w
    return _vreg_of_lanes(seq[:n], w), _vreg_of_lanes(seq[n:], w)


def vdintlv(t, a, b):
    """VDINTLV.T Vd0, Vd1, Va, Vb (CONTRACT 13.3): the 2L elements Va || Vb; Vd0 = the even-indexed,
    Vd1 the odd-indexed ones.  Returns (Vd0, Vd1)."""
    _check_type(t)
    w = SIZE[t]
    seq = _lanes(_check_vreg(a), w) + _lanes(_check_vreg(b), w)
    return _vreg_of_lanes(seq[0::2], w), _vreg_of_lanes(seq[1::2], w)


def vpack(dst_t, src_t, a, part='lo'):
    """VPACK.D.S Vd, Va {, part=lo|hi} (CONTRACT 13.3), (D, S) in VPACK_PAIRS: lane i of Va (width
    size(S)) gives its low size(D) bytes (truncation) as element i (lo) or L_S + i (hi) of Vd viewed
    as D, L_S = 256 / size(S); the other half of Vd is zero ([vcore])."""
    if (dst_t, src_t) not in VPACK_PAIRS:
        raise ValueError('VPACK.%s.%s: the pairs are %s' % (dst_t, src_t,
                                                             ', '.join('%s.%s' % pr for pr in VPACK_PAIRS)))
    ds, ss = SIZE[dst_t], SIZE[src_t]
    ls = VL // ss
    base = 0 if _check_part(part) == 'lo' else ls
    a = _check_vreg(a)
    out = np.zeros(VL, dtype=np.uint8)
    for i in range(ls):
        _set_lane(out, base + i, ds, _get_lane(a, i, ss) & ((1 << (8 * ds)) - 1))
    return out


def vunpack(dst_t, src_t, a, part='lo'):
    """VUNPACK.D.S Vd, Va {, part=lo|hi} (CONTRACT 13.3), (D, S) in VUNPACK_PAIRS: element i (lo) or
    L_D + i (hi) of Va viewed as S, sign-extended for signed S and zero-extended for unsigned S, is
    lane i of Vd (width size(D)), L_D = 256 / size(D)."""
    if (dst_t, src_t) not in VUNPACK_PAIRS:
        raise ValueError('VUNPACK.%s.%s: the pairs are %s' % (dst_t, src_t,
                                                               ', '.join('%s.%s' % pr for pr in VUNPACK_PAIRS)))
    ds, ss = SIZE[dst_t], SIZE[src_t]
    ld = VL // ds
    base = 0 if _check_part(part) == 'lo' else ld
    a = _check_vreg(a)
    out = np.zeros(VL, dtype=np.uint8)
    for i in range(ld):
        value = _bits_int(_get_lane(a, base + i, ss), src_t)   # signed or not by S
        _set_lane(out, i, ds, _int_bits(value, dst_t))
    return out


# ---------------------------------------------------------------------------
# 12. part three, second half: distribution modes, compaction, transposes, sorts, histograms,
#     saturating conversion (CONTRACT 13.1, 13.4, 13.5, 13.6, 13.12)
# ---------------------------------------------------------------------------
#
# Written from CONTRACT 13 (13.1, 13.4-13.6, 13.11, 13.12) alone, like section 11.  Conventions as
# above; the tensor functions mutate ``ub`` in place and check everything (alignment, range,
# overlap) before writing anything.  Register functions are pure.
#
# Readings chosen where the text leaves room (each docstring repeats its own):
# * ``dist=`` names are case-insensitive and take an optional ``DIST_`` prefix (13.1); loads know
#   ``norm`` alone for the normal mode, stores also ``norm_b8/b16/b32``, whose width must be T's;
# * a load or store mode whose ``_bW`` width is not T's width is refused (13.1's first error);
# * VGATHERM reads src0 only at the M elements of an iteration that it considers, and src1 at the
#   L/8 bytes of each iteration; the overlap fault compares the bytes dst writes with those bytes;
#   ``dst == src0`` reads every iteration before writing (in place, as the documented example);
# * VTRANS: any overlap (even exact) of a tile's destination with a LATER tile's source is the
#   fault; an earlier tile's source may be overwritten;
# * VTRANS5HD: overlap is judged on whole 32-byte blocks (also for 8-bit T, which writes 16 bytes);
#   two destination blocks naming the same bytes: the later one (higher j, later iteration) wins;
# * VSORT32 / VMRGSORT compare scores as: NaN above everything (NaNs equal among themselves),
#   then by value with +0 == -0; ties keep input order (Sort32) or queue order then position
#   (MrgSort); VMRGSORT's MRGCNTk of a queue not given is 0, and after repeat=N they are the last
#   iteration's counts;
# * VHIST's bin is given as 0/1 or 'BIN0'/'BIN1'; FREQ/CUM case-insensitive;
# * VCONV ``sat``: the "float-to-narrower-float" pairs are those whose D cannot hold every finite S
#   value, f32->f16, f32->bf16 and bf16->f16; there a result that 6.1 makes +-inf (an overflow under
#   any rounding, or an infinite source) becomes D's largest finite value of its sign; on every other
#   pair (f16->bf16 included, an inf source staying inf) sat changes nothing.

def _dist_name(dist):
    d = str(dist).lower()
    return d[5:] if d.startswith('dist_') else d


# mode: (T width in bytes or None for any, UB bytes read, alignment of Sa)
VLD_DISTS = {
    'norm': (None, 256, 32),
    'brc_b8': (1, 1, 1), 'brc_b16': (2, 2, 2), 'brc_b32': (4, 4, 4),
    'us_b8': (1, 128, 32), 'us_b16': (2, 128, 32),
    'ds_b8': (1, 512, 32), 'ds_b16': (2, 512, 32),
    'unpack_b8': (1, 128, 32), 'unpack_b16': (2, 128, 32), 'unpack_b32': (4, 128, 32),
    'unpack4_b8': (1, 64, 32),
    'blk': (None, 32, 32),
    'e2b_b16': (2, 16, 16), 'e2b_b32': (4, 32, 32),
    'dintlv_b8': (1, 512, 32), 'dintlv_b16': (2, 512, 32), 'dintlv_b32': (4, 512, 32),
}
VLD_TWO_DEST = ('dintlv_b8', 'dintlv_b16', 'dintlv_b32')

# mode: (T width or None, mask read: 'w' (T's width), a width in bytes, or None (no Pm),
#        UB bytes covered, alignment of Sa)
VST_DISTS = {
    'norm': (None, 'w', 256, 32),
    'norm_b8': (1, 'w', 256, 32), 'norm_b16': (2, 'w', 256, 32), 'norm_b32': (4, 'w', 256, 32),
    'first_b8': (1, None, 1, 1), 'first_b16': (2, None, 2, 2), 'first_b32': (4, None, 4, 4),
    'pack_b16': (1, 2, 128, 32),
    'pack_b32': (2, 4, 128, 32),
    'pack4_b32': (1, 4, 64, 32),
    'intlv_b8': (1, None, 512, 32), 'intlv_b16': (2, None, 512, 32), 'intlv_b32': (4, None, 512, 32),
}
VST_TWO_SOURCE = ('intlv_b8', 'intlv_b16', 'intlv_b32')


def _dist_mode(dist, table, t, what):
    _check_type(t)
    d = _dist_name(dist)
    if d == 'pack_b64' and table is VST_DISTS:
        raise ValueError('dist=pack_b64 needs 64-bit lanes, which vcore does not have')
    if d not in table:
        raise ValueError('unknown %s distribution %r' % (what, dist))
    width = table[d][0]
    if width is not None and width != SIZE[t]:
        raise ValueError('dist=%s takes %d-bit elements, not %s' % (d, 8 * width, t))
    return d


def dist_alignment(dist, t, store=False):
    """The alignment (bytes) of Sa for VLD / VST ``dist=`` (CONTRACT 13.1's tables)."""
    table = VST_DISTS if store else VLD_DISTS
    d = _dist_mode(dist, table, t, 'store' if store else 'load')
    return table[d][-1]


def dist_post(t, dist, post, store=False):
    """The bytes ``post=N`` adds to Sa after a VLD / VST with ``dist=`` (CONTRACT 13.1): N * w, which
    must be a multiple of the mode's alignment (else ValueError)."""
    step = int(post) * SIZE[t]
    align = dist_alignment(dist, t, store)
    if step % align:
        raise ValueError('post=%d moves %d bytes, not a multiple of %d' % (post, step, align))
    return step


def vld_dist(ub, addr, t, dist='norm'):
    """VLD.T Vd, [Sa], dist=MODE (CONTRACT 13.1, load table); returns Vd, or (Vd0, Vd1) for the two
    ``dintlv_bW`` modes.  Every byte of the destination(s) is written; there is no mask.

    * norm: 256 bytes, lane i = element i;  brc_bW: w bytes, every lane = element 0;
    * us_bW: 128 bytes, lane i = element i // 2;  ds_bW: 512 bytes, lane i = element 2i;
    * unpack_b8 / unpack_b16: 128 bytes, lane i of twice the width = element i zero-extended;
      unpack_b32: bytes 8i..8i+3 = element i, 8i+4..8i+7 = 0;  unpack4_b8: 64 bytes, 32-bit lane
      i = byte i zero-extended (zero extension whatever T's signedness);
    * blk: 32 bytes, each of the 8 datablocks = them;  e2b_b16 (16 bytes) / e2b_b32 (32 bytes):
      every lane of datablock j = element j;
    * dintlv_bW: 512 bytes, Vd0 lane i = element 2i, Vd1 lane i = element 2i + 1.

    Readings: mode names case-insensitive, ``DIST_`` prefix accepted; a ``_bW`` mode must match T's
    width (ValueError otherwise); Sa must be aligned to the mode's alignment and the bytes read
    inside ``ub`` (ValueError / IndexError)."""
    _check_mem(ub)
    d = _dist_mode(dist, VLD_DISTS, t, 'load')
    _, nbytes, align = VLD_DISTS[d]
    addr = int(addr)
    if addr % align:
        raise ValueError('VLD dist=%s needs a %d-byte aligned address; %#x is not' % (d, align, addr))
    _check_range(ub, addr, nbytes, 'VLD dist=%s' % d)
    w = SIZE[t]
    lanes = VL // w

    def elem(k, size=w):
        return _read(ub, addr + k * size, size)

    if d == 'norm':
        return _vreg_of_lanes([elem(i) for i in range(lanes)], w)
    if d.startswith('brc_'):
        return _vreg_of_lanes([elem(0)] * lanes, w)
    if d.startswith('us_'):
        return _vreg_of_lanes([elem(i // 2) for i in range(lanes)], w)
    if d.startswith('ds_'):
        return _vreg_of_lanes([elem(2 * i) for i in range(lanes)], w)
    if d in ('unpack_b8', 'unpack_b16'):
        return _vreg_of_lanes([elem(i) for i in range(VL // (2 * w))], 2 * w)
    if d == 'unpack_b32':                   # 64-bit "lanes": the element, then 4 zero bytes
        return _vreg_of_lanes([elem(i) for i in range(32)], 8)
    if d == 'unpack4_b8':
        return _vreg_of_lanes([elem(i) for i in range(64)], 4)
    if d == 'blk':
        block = [int(ub[addr + k]) for k in range(BLOCK)]
        return np.array(block * 8, dtype=np.uint8)
    if d in ('e2b_b16', 'e2b_b32'):
        per_block = BLOCK // w
        return _vreg_of_lanes([elem(i // per_block) for i in range(lanes)], w)
    # dintlv_bW
    return (_vreg_of_lanes([elem(2 * i) for i in range(lanes)], w),
            _vreg_of_lanes([elem(2 * i + 1) for i in range(lanes)], w))


def vst_dist(ub, addr, t, dist, vs, pmask=None, vs1=None):
    """VST.T [Sa], Vs {, Pm}, dist=MODE, or VST.T [Sa], Vs0, Vs1, dist=intlv_bW (CONTRACT 13.1, store
    table), into ``ub`` in place.  Returns the sorted list of the UB byte addresses written (the
    store's footprint, 13.12).

    * norm / norm_bW: element i = lane i (width w) for the lanes active at w;
    * first_bW: element 0 = lane 0, always (no Pm);
    * pack_b16 (T 8-bit): byte Sa + i = low byte of 16-bit lane i, active at bit 2i, i = 0..127;
      pack_b32 (T 16-bit): bytes Sa + 2i.. = low 16 bits of 32-bit lane i, active at bit 4i, i =
      0..63; pack4_b32 (T 8-bit): byte Sa + i = low byte of 32-bit lane i, active at bit 4i, i =
      0..63 (position-preserving, [vcore]; truncation, never saturation);
    * intlv_bW: element 2i = Vs0 lane i, element 2i + 1 = Vs1 lane i (512 bytes, no Pm; Vs0 may be
      Vs1).

    Bytes of inactive lanes are not written.  ``pmask`` is required by the masked modes and must be
    None for first_* and intlv_* (ValueError), ``vs1`` only for intlv_*."""
    _check_mem(ub)
    d = _dist_mode(dist, VST_DISTS, t, 'store')
    _, mask_w, nbytes, align = VST_DISTS[d]
    vs = _check_vreg(vs)
    if (vs1 is not None) != (d in VST_TWO_SOURCE):
        raise ValueError('dist=%s takes %s source register(s)' % (d, 'two' if d in VST_TWO_SOURCE else 'one'))
    if (pmask is None) != (mask_w is None):
        raise ValueError('VST dist=%s %s' % (d, 'ignores the mask' if mask_w is None else 'needs a mask'))
    addr = int(addr)
    if addr % align:
        raise ValueError('VST dist=%s: address %#x is not %d-byte aligned' % (d, addr, align))
    _check_range(ub, addr, nbytes, 'VST dist=%s' % d)
    w = SIZE[t]
    writes = {}                                        # UB address -> byte
    if mask_w is not None:
        pmask = _check_pmask(pmask)
        lane_w = w if mask_w == 'w' else mask_w        # register lane width read
        for i in range(nbytes // w):
            if lane_active(pmask, i, lane_w):
                bits = _get_lane(vs, i, lane_w) & ((1 << (8 * w)) - 1)     # low w bytes of the lane
                for k in range(w):
                    writes[addr + i * w + k] = (bits >> (8 * k)) & 0xFF
    elif d.startswith('first_'):
        for k in range(w):
            writes[addr + k] = int(vs[k])
    else:
        vs1 = _check_vreg(vs1)
        for i in range(VL // w):
            for j, src in ((2 * i, vs), (2 * i + 1, vs1)):
                for k in range(w):
                    writes[addr + j * w + k] = int(src[i * w + k])
    for a, byte in writes.items():
        ub[a] = byte
    return sorted(writes)


# -- tensor GatherMask (CONTRACT 13.4) ------------------------------------------------------------

GATHERM_TYPES = ('s16', 'u16', 'f16', 'bf16', 's32', 'u32', 'f32', 's8', 'u8')
GATHERM_A2_TYPES = ('s16', 'u16', 'f16', 'bf16', 's32', 'u32', 'f32')


def gatherm_fixed_pattern(pattern, n):
    """The first n bits (element i of an iteration kept or not) of fixed PATTERN 1..7 (13.4):
    1 even, 2 odd, 3..6 index 4m, 4m+1, 4m+2, 4m+3, 7 all."""
    pattern = int(pattern)
    if not 1 <= pattern <= 7:
        raise ValueError('PATTERN %d outside 1..7' % (pattern,))
    if pattern == 7:
        return [True] * n
    if pattern in (1, 2):
        return [i % 2 == pattern - 1 for i in range(n)]
    return [i % 4 == pattern - 3 for i in range(n)]


def _ranges_overlap(a, b):
    return any(x in b for x in a)


def tensor_gatherm(ub, t, dst, src0, pattern=None, src1=None, *, repeat=1, srcblk=1, srcrep=8,
                   src1rep=None, mask=None, profile='950'):
    """VGATHERM.T [dst], [src0], PATTERN | [src1] {, repeat, srcblk, srcrep, src1rep, mask=M}
    (CONTRACT 13.4), into ``ub`` in place.  Returns RSVDCNT, the number of elements kept.

    Iteration r considers elements i = 0..M-1 (M = L, or the ``mask=`` count 1..L), element i at
    ``src0 + (r * srcrep + (i // (32 / w)) * srcblk) * 32 + (i % (32 / w)) * w``; it keeps element i
    when bit i of the pattern is set: a fixed PATTERN (gatherm_fixed_pattern) or, with src1, bit
    ``i % 8`` of byte ``i // 8`` at ``src1 + r * src1rep * 32`` (src1rep default 0).  The kept
    elements, iteration after iteration in increasing index, go densely to ``dst + k * w``; no other
    byte is written.  repeat=0 writes nothing and gives 0.

    Errors (ValueError): a type not of the profile (s8/u8 on 950 only), both or neither of PATTERN
    and src1, src1rep with a fixed pattern, a tuple mask, a count outside 1..L, field ranges
    (repeat 0..255, srcblk 0..65535, srcrep 0..4095, src1rep 0..255), an unaligned dst / src0 / src1,
    and (reading) dst's written bytes overlapping the src0 bytes read or the src1 bytes read, unless
    dst == src0 exactly, in which case every iteration is read before anything is written."""
    _check_mem(ub)
    _check_type(t, GATHERM_TYPES if profile == '950' else GATHERM_A2_TYPES)
    if (pattern is None) == (src1 is None):
        raise ValueError('VGATHERM takes a PATTERN or [src1], exactly one')
    if pattern is not None and src1rep is not None:
        raise ValueError('src1rep has no effect with a fixed pattern')
    src1rep = 0 if src1rep is None else int(src1rep)
    if isinstance(mask, (tuple, list)):
        raise ValueError('VGATHERM takes mask=N (elements per iteration), not a bit mask or count=')
    w = SIZE[t]
    lanes = VL // w
    m = lanes if mask is None else int(mask)
    if not 1 <= m <= lanes:
        raise ValueError('mask=%d outside 1..%d' % (m, lanes))
    for name, v, hi in (('repeat', repeat, 255), ('srcblk', srcblk, 65535), ('srcrep', srcrep, 4095),
                        ('src1rep', src1rep, 255)):
        if not 0 <= int(v) <= hi:
            raise ValueError('%s %d outside 0..%d' % (name, v, hi))
    dst, src0 = int(dst), int(src0)
    for a in (dst, src0) + (() if src1 is None else (int(src1),)):
        _check_align(a, 'VGATHERM operand')
    per_block = BLOCK // w
    kept, read0, read1 = [], set(), set()
    for r in range(repeat):
        if src1 is None:
            bits = gatherm_fixed_pattern(pattern, m)
        else:
            base1 = int(src1) + r * src1rep * BLOCK
            _check_range(ub, base1, lanes // 8, 'VGATHERM src1')
            read1.update(range(base1, base1 + lanes // 8))
            bits = [bool((int(ub[base1 + i // 8]) >> (i % 8)) & 1) for i in range(m)]
        for i in range(m):
            a = src0 + (r * srcrep + (i // per_block) * srcblk) * BLOCK + (i % per_block) * w
            _check_range(ub, a, w, 'VGATHERM src0')
            read0.update(range(a, a + w))
            if bits[i]:
                kept.append(_read(ub, a, w))
    _check_range(ub, dst, len(kept) * w, 'VGATHERM dst')
    written = set(range(dst, dst + len(kept) * w))
    if dst != src0 and _ranges_overlap(written, read0):
        raise ValueError('VGATHERM: dst overlaps src0 other than exactly')
    if _ranges_overlap(written, read1):
        raise ValueError('VGATHERM: dst overlaps src1')
    for k, bits in enumerate(kept):
        _write(ub, dst + k * w, w, bits)
    return len(kept)


# -- register Squeeze (CONTRACT 13.4) -------------------------------------------------------------

SQZ_TYPES = ('s8', 'u8', 's16', 'u16', 'f16', 'bf16', 's32', 'u32', 'f32', 'e4m3', 'e5m2')


def vsqz(t, a, pmask):
    """VSQZ.T Vd, Va, Pm (CONTRACT 13.4): with k the active lanes of Pm (at T's width), Vd lanes
    0..k-1 = the active lanes of Va in increasing order, lanes k..L-1 = 0.  Returns (Vd, k); with
    ``ar`` the AR register grows by ``k * w`` bytes (vsqz_ar), with ``cnt=Sn`` the function's Sn
    becomes k."""
    _check_type(t, SQZ_TYPES)
    a = _check_vreg(a)
    pmask = _check_pmask(pmask)
    w = SIZE[t]
    kept = [_get_lane(a, i, w) for i in range(VL // w) if lane_active(pmask, i, w)]
    return _vreg_of_lanes(kept + [0] * (VL // w - len(kept)), w), len(kept)


def vsqz_ar(ar, t, k):
    """AR after a ``VSQZ.T ..., ar`` that kept k lanes: AR + k * w (accumulating until CLRAR; AR is 0
    at the start of a run and kept across functions)."""
    return int(ar) + int(k) * SIZE[t]


# -- transposes (CONTRACT 13.5) -------------------------------------------------------------------

TRANS_TYPES = ('s16', 'u16', 'f16')
TRANS5HD_TYPES = ('s8', 'u8', 's16', 'u16', 'f16', 'bf16')
TRANS5HD_A2_TYPES = ('s8', 'u8', 's16', 'u16', 'f16')
TILE = 512


def tensor_trans(ub, t, dst, src, *, repeat=1, dstrep=1, srcrep=1):
    """VTRANS.T [dst], [src] {, repeat=N} {, dstrep=D} {, srcrep=R} (CONTRACT 13.5): tile r (16 x 16
    two-byte elements, row-major, 512 bytes) at ``src + r * srcrep * 512`` is transposed to ``dst + r
    * dstrep * 512``: dst(y, x) = src(x, y).  repeat 1..4095, strides 0..4095 (units of 512 bytes).

    ``dst == src`` of one tile (full overlap) is allowed: the tile is read before it is written.
    Errors (ValueError): unaligned dst / src, a partial overlap of a tile's source and destination,
    and (reading) any overlap, exact included, of a tile's destination with a later tile's source
    (``VTRANS: dst and src overlap other than exactly``).  Tiles are done in order."""
    _check_mem(ub)
    _check_type(t, TRANS_TYPES)
    if not 1 <= int(repeat) <= 4095:
        raise ValueError('repeat %d outside 1..4095' % (repeat,))
    for name, v in (('dstrep', dstrep), ('srcrep', srcrep)):
        if not 0 <= int(v) <= 4095:
            raise ValueError('%s %d outside 0..4095' % (name, v))
    dst, src = int(dst), int(src)
    _check_align(dst, 'VTRANS dst')
    _check_align(src, 'VTRANS src')
    srcs = [src + r * srcrep * TILE for r in range(repeat)]
    dsts = [dst + r * dstrep * TILE for r in range(repeat)]
    for r in range(repeat):
        _check_range(ub, srcs[r], TILE, 'VTRANS src tile')
        _check_range(ub, dsts[r], TILE, 'VTRANS dst tile')
        if dsts[r] != srcs[r] and abs(dsts[r] - srcs[r]) < TILE:
            raise ValueError('VTRANS: dst and src overlap other than exactly')
        if any(abs(dsts[r] - srcs[q]) < TILE for q in range(r + 1, repeat)):
            raise ValueError('VTRANS: dst and src overlap other than exactly')
    for r in range(repeat):
        tile = [_read(ub, srcs[r] + 2 * k, 2) for k in range(256)]
        for y in range(16):
            for x in range(16):
                _write(ub, dsts[r] + 2 * (16 * y + x), 2, tile[16 * x + y])


def _address_list(ub, base, name):
    _check_align(int(base), 'VTRANS5HD %s' % name)
    _check_range(ub, int(base), 128, 'VTRANS5HD %s' % name)
    return [_read(ub, int(base) + 8 * i, 8) for i in range(16)]


def tensor_trans5hd(ub, t, dstlist, srclist, *, repeat=1, dstrep=0, srcrep=0, srchigh=None, dsthigh=None,
                    profile='950'):
    """VTRANS5HD.T [dstlist], [srclist] {, repeat, dstrep, srcrep, srchigh, dsthigh} (CONTRACT 13.5).

    Both lists (16 little-endian u64 each) are read first.  Iteration r = 0..N-1 (repeat 0..255; 0
    does nothing) uses the offsets ``r * rep * 32`` when N > 1 and ``rep * 32`` when N = 1 (the
    documented quirk); source block i is at ``S_i + srcoff``, destination block j at ``D_j +
    dstoff``.  16-bit T: element i of destination block j = element j of source block i.  8-bit T:
    byte ``16 * dsthigh + i`` of destination block j = byte ``16 * srchigh + j`` of source block i;
    the other 16 bytes are not written.

    Errors (ValueError / IndexError): a type not of the profile (bf16 950 only; 32-bit refused),
    srchigh / dsthigh with a 16-bit T, an entry (plus its iteration's offset) not 32-byte aligned
    or outside UB (named ``srclist[i]``), and a destination block overlapping any source block of
    the same iteration (reading: whole 32-byte blocks).  Iterations run in order; within one, all
    sources are read first and destination blocks are written in order j = 0..15."""
    _check_mem(ub)
    if t in ('f32', 's32', 'u32'):
        raise ValueError('VTRANS5HD.%s: the 32-bit layout is documented only by a figure; split the data '
                         'into 16-bit halves' % t)
    _check_type(t, TRANS5HD_TYPES if profile == '950' else TRANS5HD_A2_TYPES)
    w = SIZE[t]
    if w == 2 and (srchigh is not None or dsthigh is not None):
        raise ValueError('srchigh / dsthigh apply to 8-bit types only')
    hs, hd = 16 * int(srchigh or 0), 16 * int(dsthigh or 0)
    if not 0 <= int(repeat) <= 255:
        raise ValueError('repeat %d outside 0..255' % (repeat,))
    for name, v in (('dstrep', dstrep), ('srcrep', srcrep)):
        if not 0 <= int(v) <= 65535:
            raise ValueError('%s %d outside 0..65535' % (name, v))
    slist = _address_list(ub, srclist, 'srclist')
    dlist = _address_list(ub, dstlist, 'dstlist')
    plans = []
    for r in range(repeat):
        soff = (r if repeat > 1 else 1) * srcrep * BLOCK
        doff = (r if repeat > 1 else 1) * dstrep * BLOCK
        srcs, dsts = [], []
        for name, lst, off, out in (('srclist', slist, soff, srcs), ('dstlist', dlist, doff, dsts)):
            for i, a in enumerate(lst):
                if a % BLOCK:
                    raise ValueError('VTRANS5HD: %s[%d] = %#x is not 32-byte aligned' % (name, i, a))
                _check_range(ub, a + off, BLOCK, 'VTRANS5HD %s[%d]' % (name, i))
                out.append(a + off)
        if any(abs(d - s) < BLOCK for d in dsts for s in srcs):
            raise ValueError('VTRANS5HD: a destination block overlaps a source block of its iteration')
        plans.append((srcs, dsts))
    for srcs, dsts in plans:
        blocks = [[int(ub[s + k]) for k in range(BLOCK)] for s in srcs]
        for j, d in enumerate(dsts):
            for i in range(16):
                if w == 2:
                    ub[d + 2 * i:d + 2 * i + 2] = blocks[i][2 * j:2 * j + 2]
                else:
                    ub[d + hd + i] = blocks[i][hs + j]


def nchw_to_nc1hwc0(x, c0=16):
    """The NC1HWC0 layout of an NCHW array (numpy, any dtype): out[n, c1, h, w, k] = x[n, c1 * c0 +
    k, h, w] (C a multiple of c0).  The target of 13.5's NCHW (2,32,16,16) -> NC1HWC0 recipe."""
    n, c, h, w = x.shape
    return x.reshape(n, c // c0, c0, h, w).transpose(0, 1, 3, 4, 2).copy()


# -- Sort32 and MrgSort (CONTRACT 13.6) -----------------------------------------------------------

SORT_TYPES = ('f16', 'f32')


def sort_rank(bits, t):
    """The key records are ordered by, larger first: a NaN above everything (NaNs equal), then the
    value, +0 equal to -0 ([vcore] 13.6)."""
    x = _bits_float(bits, t)
    if math.isnan(x):
        return (1, 0.0)
    return (0, x + 0.0)                    # -0.0 + 0.0 is +0.0


def record_bytes(t, score_bits, index):
    """A record (8 bytes): the score (2 or 4 bytes), for f16 two zero reserved bytes, then the u32
    index at bytes 4..7."""
    out = np.zeros(8, dtype=np.uint8)
    _write(out, 0, SIZE[t], score_bits)
    _write(out, 4, 4, int(index) & 0xFFFFFFFF)
    return out


def tensor_sort32(ub, t, dst, score, index, *, repeat=1):
    """VSORT32.T [dst], [score], [index] {, repeat=N} (CONTRACT 13.6): iteration r sorts the 32 scores
    at ``score + r * 32 * w`` with the u32 indices at ``index + r * 128`` into 32 records at ``dst + r *
    256``, descending by score (sort_rank), equal scores in input order; f16 reserved bytes 0.
    repeat 0..255 (0: nothing).  Alignment (ValueError): score 32 * w, index 128, dst 256.
    Reading: iterations run in order, each reading its inputs before writing."""
    _check_mem(ub)
    _check_type(t, SORT_TYPES)
    if not 0 <= int(repeat) <= 255:
        raise ValueError('repeat %d outside 0..255' % (repeat,))
    w = SIZE[t]
    dst, score, index = int(dst), int(score), int(index)
    for name, a, align in (('score', score, 32 * w), ('index', index, 128), ('dst', dst, 256)):
        if a % align:
            raise ValueError('VSORT32 %s %#x is not %d-byte aligned' % (name, a, align))
    if repeat:
        _check_range(ub, score, repeat * 32 * w, 'VSORT32 score')
        _check_range(ub, index, repeat * 128, 'VSORT32 index')
        _check_range(ub, dst, repeat * 256, 'VSORT32 dst')
    for r in range(repeat):
        scores = [_read(ub, score + (32 * r + i) * w, w) for i in range(32)]
        idx = [_read(ub, index + (32 * r + i) * 4, 4) for i in range(32)]
        order = sorted(range(32), key=lambda i: sort_rank(scores[i], t), reverse=True)   # stable
        for k, i in enumerate(order):
            ub[dst + 256 * r + 8 * k:dst + 256 * r + 8 * k + 8] = record_bytes(t, scores[i], idx[i])


def merge_records(t, queues, stop=0):
    """The merge of VMRGSORT on lists of 8-byte records (numpy arrays): at each step the first
    remaining record of highest sort_rank, the lowest queue on ties; stop=1 ends right after the
    record that empties a queue, and at once (nothing) when a queue is empty at the start.  Returns
    (records, counts taken per queue)."""
    w = SIZE[t]
    pos = [0] * len(queues)
    out = []
    if stop and any(len(q) == 0 for q in queues):
        return out, pos
    while True:
        best = None
        for qi, q in enumerate(queues):
            if pos[qi] < len(q):
                rank = sort_rank(_read(q[pos[qi]], 0, w), t)
                if best is None or rank > best[0]:
                    best = (rank, qi)
        if best is None:
            break
        qi = best[1]
        out.append(queues[qi][pos[qi]])
        pos[qi] += 1
        if stop and pos[qi] == len(queues[qi]):
            break
    return out, pos


def tensor_mrgsort(ub, t, dst, queues, lens, *, stop=0, repeat=1):
    """VMRGSORT.T [dst], [q0], [q1] {, [q2] {, [q3]}}, len=(...) {, stop} {, repeat} (CONTRACT 13.6),
    into ``ub`` in place.  Returns MRGCNT0..3 (records taken from each queue; 0 for a queue not
    given; after repeat=N those of the last iteration).

    Each record's 8 bytes are copied unchanged.  repeat > 1 needs 4 queues of one length L at ``q_k
    = q0 + k * L * 8`` and stop=0; iteration r merges the queues at ``q0 + r * 4 * L * 8`` into
    ``dst + r * 4 * L * 8``.  repeat=0 writes nothing (reading: the counts are then 0).  Errors
    (ValueError): 2..4 queues, len entries 0..4095 matching the queues, dst 32-byte and queues
    8-byte aligned, the repeat rule, and dst's written bytes overlapping any queue's bytes."""
    _check_mem(ub)
    _check_type(t, SORT_TYPES)
    queues = [int(q) for q in queues]
    lens = [int(n) for n in lens]
    if not 2 <= len(queues) <= 4 or len(lens) != len(queues):
        raise ValueError('VMRGSORT takes 2 to 4 queues and as many lengths')
    if any(not 0 <= n <= 4095 for n in lens):
        raise ValueError('a queue length is outside 0..4095')
    if not 0 <= int(repeat) <= 255:
        raise ValueError('repeat %d outside 0..255' % (repeat,))
    dst = int(dst)
    if dst % 32 or any(q % 8 for q in queues):
        raise ValueError('VMRGSORT: dst must be 32-byte and the queues 8-byte aligned')
    if repeat > 1:
        n = lens[0]
        if (len(queues) != 4 or stop or any(x != n for x in lens)
                or any(queues[k] != queues[0] + k * n * 8 for k in range(4))):
            raise ValueError('VMRGSORT repeat=%d needs 4 contiguous queues of equal length and stop=0' % repeat)
    step = 4 * lens[0] * 8 if repeat > 1 else 0
    total = sum(lens)
    qbytes, dbytes = set(), set()
    for r in range(repeat):
        for q, n in zip(queues, lens):
            _check_range(ub, q + r * step, 8 * n, 'VMRGSORT queue')
            qbytes.update(range(q + r * step, q + r * step + 8 * n))
    for r in range(repeat):
        dbytes.update(range(dst + r * step, dst + r * step + 8 * total))
    if _ranges_overlap(dbytes, qbytes):
        raise ValueError('VMRGSORT: dst overlaps a queue')
    counts = [0, 0, 0, 0]
    for r in range(repeat):
        qs = [[np.array(ub[q + r * step + 8 * k:q + r * step + 8 * k + 8]) for k in range(n)]
              for q, n in zip(queues, lens)]
        out, taken = merge_records(t, qs, stop)
        _check_range(ub, dst + r * step, 8 * len(out), 'VMRGSORT dst')
        for k, rec in enumerate(out):
            ub[dst + r * step + 8 * k:dst + r * step + 8 * k + 8] = rec
        counts = taken + [0] * (4 - len(taken))
    return counts


# -- histogram (CONTRACT 13.6, 950) ---------------------------------------------------------------

def vhist(kind, bin, vd, va, pmask):
    """VHIST.K.BINn Vd, Va, Pm (CONTRACT 13.6): Va is 256 u8 lanes (lane i active when mask bit i is
    set), Vd 128 u16 counters, read and accumulated, modulo 65536 ([vcore]).  With b = 0 (BIN0) or
    128 (BIN1): FREQ adds to counter n the active lanes whose value is b + n; CUM those whose value
    lies in b..b + n ([vcore] reading of "in the interval").  Returns the new Vd."""
    k = str(kind).upper()
    if k not in ('FREQ', 'CUM'):
        raise ValueError('VHIST kind is FREQ or CUM, not %r' % (kind,))
    b = {0: 0, 1: 128, 'BIN0': 0, 'BIN1': 128}.get(bin if isinstance(bin, int) else str(bin).upper())
    if b is None:
        raise ValueError('VHIST bin is BIN0 or BIN1, not %r' % (bin,))
    vd, va = _check_vreg(vd), _check_vreg(va)
    pmask = _check_pmask(pmask)
    values = [int(va[i]) for i in range(VL) if pmask[i]]
    counters = []
    for n in range(128):
        old = _get_lane(vd, n, 2)
        if k == 'FREQ':
            add = sum(1 for v in values if v == b + n)
        else:
            add = sum(1 for v in values if b <= v <= b + n)
        counters.append((old + add) % 65536)
    return _vreg_of_lanes(counters, 2)


# -- saturating conversion (CONTRACT 13.12) -------------------------------------------------------

SAT_NARROWING_PAIRS = {('f16', 'f32'), ('bf16', 'f32'), ('f16', 'bf16')}      # (D, S)
MAX_FINITE_BITS = {'f16': 0x7BFF, 'bf16': 0x7F7F, 'f32': 0x7F7FFFFF}


def convert_bits_sat(bits, src_t, dst_t, round=None):
    """One element of ``VCONV.dst_t.src_t ..., sat`` (CONTRACT 13.12): on a float-to-narrower-float
    pair (SAT_NARROWING_PAIRS: reading, those whose D cannot hold every finite S value) a result
    that 6.1 gives as +-inf (beyond D's range under the rounding, or an infinite source) becomes
    D's largest finite value of the same sign (f32 -> f16: +-65504); NaN stays NaN.  Every other
    pair: convert_bits unchanged."""
    out = convert_bits(bits, src_t, dst_t, round)
    if ((dst_t, src_t) in SAT_NARROWING_PAIRS and not _is_nan_bits(out, dst_t)
            and math.isinf(_bits_float(out, dst_t))):
        return MAX_FINITE_BITS[dst_t] | (out & _sign_bit(dst_t))
    return out


def vconv_sat(dst_t, src_t, a, pmask, round=None, part=0):
    """Register ``VCONV.dst_t.src_t Vd, Va, Pm, sat {, round} {, part}`` (CONTRACT 13.12): vconv's
    lanes (6.1: narrowing lane i -> element k * i + part, other elements zero) with
    convert_bits_sat."""
    conv_mode(dst_t, src_t, round)
    a = _check_vreg(a)
    pmask = _check_pmask(pmask)
    ds, ss = SIZE[dst_t], SIZE[src_t]
    w = max(ds, ss)
    k = w // min(ds, ss)
    part = int(part)
    if not 0 <= part < k:
        raise ValueError('part %d outside 0..%d' % (part, k - 1))
    out = np.zeros(VL, dtype=np.uint8)
    for i in range(VL // w):
        if not lane_active(pmask, i, w):
            continue
        if ds < ss:
            _set_lane(out, k * i + part, ds, convert_bits_sat(_get_lane(a, i, ss), src_t, dst_t, round))
        else:
            _set_lane(out, i, ds, convert_bits_sat(_get_lane(a, k * i + part, ss), src_t, dst_t, round))
    return out


def tensor_conv_sat(ub, dst_t, src_t, dst, src, *, repeat=1, dst_blk=1, src_blk=1, dst_rep=8,
                    src_rep=8, mask=None, count=None, round=None):
    """Tensor ``VCONV.dst_t.src_t [dst], [src], sat {, round} {, unary fields}`` (CONTRACT 13.12):
    tensor_conv's iterations, blocks and mask (6.1) with convert_bits_sat; lanes outside the mask
    keep dst."""
    _check_mem(ub)
    conv_mode(dst_t, src_t, round)
    dst, src = int(dst), int(src)
    _check_unary_fields(dst_blk, (src_blk,), dst_rep, (src_rep,))
    _check_align(dst, 'UB operand')
    _check_align(src, 'UB operand')
    ds, ss = SIZE[dst_t], SIZE[src_t]
    lanes = VL // max(ds, ss)
    actives = _iteration_actives(mask, count, repeat, dst_t if ds >= ss else src_t)
    _check_operand(ub, dst, dst_blk, dst_rep, len(actives), lanes * ds // BLOCK, 'dst datablock')
    _check_operand(ub, src, src_blk, src_rep, len(actives), lanes * ss // BLOCK, 'src datablock')
    for r, active in enumerate(actives):
        vals = [_read(ub, _lane_addr(src, src_blk, src_rep, r, i, ss), ss) for i in range(lanes)]
        results = {i: convert_bits_sat(vals[i], src_t, dst_t, round) for i in range(lanes) if active[i]}
        for i, bits in results.items():
            _write(ub, _lane_addr(dst, dst_blk, dst_rep, r, i, ds), ds, bits)
