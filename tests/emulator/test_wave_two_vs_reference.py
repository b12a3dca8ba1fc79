"""Differential tests of CONTRACT 6.5 (bitwise, shifts, fused multiply-add, element broadcast):
emulator vs tests/reference.py.

Expected values come from the independent oracle ``tests/reference.py`` or are worked out by hand
(the tables of hand values below, each checked against the oracle as well), never from the
emulator's code. Integer results and VBRCB match bit for bit; float results bit for bit except
that any NaN matches any NaN.

* Tensor VAND / VOR / VXOR (binary fields) and VNOT (unary fields), VSHL / VSHR (unary fields and
  a count), VAXPY (unary fields and a scalar), VMLA / VMADD (binary fields): random types, shapes
  (repeat 0..10, block and repeat strides, masks of both kinds, counts), in-place and overlapping
  bases, dstrep=0 for the FMAs (they read dst: iteration r reads what r - 1 wrote), on both
  profiles (hypothesis, explicit settings).
* Shift counts 0, 1, width - 1, width, width + 1, 31, 32, 255, 256, the largest, negative
  immediates of the signed types (-1 as s16 is 65535), counts from a scalar register with junk
  above T's width (the count is the register's low bits as T, CONTRACT 2.1: ``MOV S1, 0x10003``
  then ``VSHL.u16`` shifts by 3), per-lane counts in a register; the signed tensor VSHL keeps the
  sign bit (a negative s16 << 16 is 0x8000) while the register VSHL is a plain shift.
* FMA: hand cases where a rounded product then a rounded sum differs from the fused result
  (cancellation, products at a rounding tie with a tiny addend: these also catch double rounding
  through a wider type, overflow of the product alone, underflow, zero signs), every triple of
  specials, constructed cancellation lanes, in tensor and register forms.
* VBRCB: layout by hand with dstblk / dstrep (dstrep=0: the last iteration wins), random shapes.
* Register forms (inside VF.BEGIN ... VF.END, 950 only) under a random Pm: lanes outside it zero;
  in-place operands; an FMA accumulating over a hardware LOOP.
* Types and fields refused (float bitwise, integer FMA, 8-bit types, VBRCB mask / count), register
  forms refused outside a function and on the a2 profile.

The oracle reads a scalar shift count as an unsigned 32-bit value and the emulator (the lead's
choice) as T's width; they agree on every count that fits T, so an immediate is passed to the
oracle as is, and a register count as its low bits of T's width.

The whole file takes about 25 s on one core (hypothesis with explicit settings, numpy seeds elsewhere).
"""

from __future__ import annotations

import math

import emu_support as E
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, assume, event, given, note, settings
from hypothesis import strategies as st

from tests import reference as R

UINT = {1: np.dtype("<u1"), 2: np.dtype("<u2"), 4: np.dtype("<u4"), 8: np.dtype("<u8")}
RAW = {2: "u16", 4: "u32"}
FLOATS = ("f16", "bf16", "f32")
INTS = ("s16", "u16", "s32", "u32")
ALL_T = ("f16", "bf16", "f32", "s16", "u16", "s32", "u32")
U64 = (1 << 64) - 1
PROFILES = ("950", "a2")

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


def width(t: str) -> int:
    return 8 * R.SIZE[t]


def tmask(t: str) -> int:
    return (1 << width(t)) - 1


def int_range(t: str) -> tuple[int, int]:
    w = width(t)
    return (-(1 << (w - 1)), (1 << (w - 1)) - 1) if t in R.SIGNED_TYPES else (0, (1 << w) - 1)


def check_mem(got, want, t: str, what: str, raw: bool = False) -> None:
    bad = E.mem_mismatches(got, want, RAW[R.SIZE[t]] if raw else t)
    assert not bad, what + "\n" + "\n".join("  " + b for b in bad)


def lane_bits(buf, t: str) -> list[int]:
    return [int(x) for x in np.ascontiguousarray(buf).view(UINT[R.SIZE[t]])]


def fbits(x: float, t: str) -> int:
    """The bits of ``x`` in float type ``t``; ``x`` must be exactly representable there."""
    with np.errstate(all="ignore"):
        b = R.encode(x, t)
    assert math.isnan(x) or R.decode(b, t) == x or (math.isinf(x) and math.isinf(R.decode(b, t))), (x, t)
    return b


def neg_bits(b: int, t: str) -> int:
    return b ^ (1 << (width(t) - 1))


def scalar_text(bits: int, t: str) -> str:
    """An immediate that the assembler reads back as exactly the value of ``bits`` in ``t``."""
    v = R.decode(bits, t)
    return E.float_literal(v) if t in FLOATS else str(v)


def two_step(t: str, ab: int, bb: int, cb: int) -> int:
    """a * b rounded, then + c rounded: what an unfused multiply-add gives."""
    return R.lane_binary("add", t, R.lane_binary("mul", t, ab, bb), cb)


def same_float(x: int, y: int, t: str) -> bool:
    return x == y or (R._is_nan_bits(x, t) and R._is_nan_bits(y, t))


# -- random shapes (the patterns of test_wave_one_vs_reference.py) -------------------------------

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
    repeat = draw(st.sampled_from([*[1, 2] * 2, *range(1, max_repeat + 1), 0]))
    return repeat, draw(masks(t)), None, repeat


def extent(iters: int, nblocks: int, blk: int, rep: int) -> int:
    return (max(iters - 1, 0) * rep + (nblocks - 1) * blk + 1) * 32


def place(draw, ub_size: int, ext: int, near=None) -> int:
    """A 32-byte aligned base with [base, base + ext) inside UB: anywhere, or at / near ``near``."""
    assume(ext <= ub_size)
    if near is not None and draw(st.integers(0, 2)) > 0:
        base = near + 32 * draw(st.one_of(st.just(0), st.integers(-16, 16)))
        assume(base >= 0 and base + ext <= ub_size)
        return base
    return 32 * draw(st.integers(0, (ub_size - ext) // 32))


def shape_fields(draw, repeat, mask, count, named) -> list[str]:
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


def _disjoint(a, spans) -> bool:
    return all(a[1] <= lo or hi <= a[0] for lo, hi in spans)


# -- shift counts -----------------------------------------------------------------------------------

def shift_counts(t: str) -> list[int]:
    """Immediate counts that fit T: 0, 1, 2, w - 1, w, w + 1, 31, 32, 33, 255, 256, the largest,
    and negative ones for the signed types."""
    w = width(t)
    lo, hi = int_range(t)
    out = [0, 1, 2, w - 1, w, w + 1, 31, 32, 33, 255, 256, hi, hi - 1]
    if t in R.SIGNED_TYPES:
        out += [-1, -2, -w, -(w - 1), lo, lo + 1, -255]
    else:
        out += [1 << (w - 1)]
    return sorted({c for c in out if lo <= c <= hi})


@st.composite
def shift_count_operand(draw, t: str):
    """(operand text, count for the oracle, register value or None). A register carries junk above
    T's width: the count is its low bits as T (CONTRACT 2.1)."""
    w = width(t)
    lo, hi = int_range(t)
    c = draw(st.one_of(st.sampled_from(shift_counts(t)), st.integers(0, w + 2), st.integers(lo, hi)))
    if draw(st.integers(0, 2)) == 0:
        junk = draw(st.one_of(st.just(0), st.integers(0, (1 << (64 - w)) - 1)))
        reg = (junk << w) | (c & tmask(t))
        return None, c & tmask(t), reg
    return str(c), c & tmask(t), None


# -- float scalars (VAXPY) --------------------------------------------------------------------------

FLOAT_SCALARS = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, math.inf, -math.inf, math.nan, 65504.0, 1e-7,
                 6e-8, 1e-40, 3.0e38, 0.1, -2.5, 1.0 + 2.0 ** -10, 1.0 - 2.0 ** -11]


@st.composite
def float_scalars(draw, t: str):
    """(operand text, bits of the value in t, register value or None)."""
    size = R.SIZE[t]
    if draw(st.integers(0, 3)) == 0:
        bits = draw(st.one_of(st.integers(0, (1 << (8 * size)) - 1), st.sampled_from(E.FLOAT_SPECIALS[t])))
        junk = draw(st.integers(0, (1 << (63 - 8 * size)) - 1))
        return None, bits, (junk << (8 * size)) | bits
    value = draw(st.one_of(st.sampled_from(FLOAT_SCALARS), st.floats(allow_nan=False, width=32),
                           st.builds(lambda b: R.decode(b, t), st.integers(0, (1 << (8 * size)) - 1))))
    with np.errstate(all="ignore"):
        return E.float_literal(value), R.encode(value, t), None


# -- tensor: random shapes --------------------------------------------------------------------------

KIND = {"and": "binary", "or": "binary", "xor": "binary", "not": "unary", "shl": "scalar", "shr": "scalar",
        "axpy": "scalar", "mla": "binary", "madd": "binary"}
FAMILY = {"bitwise": ("and", "or", "xor", "not"), "shift": ("shl", "shr"), "fma": ("axpy", "mla", "madd")}


@st.composite
def elementwise_cases(draw, family: str):
    op = draw(st.sampled_from(FAMILY[family]))
    t = draw(st.sampled_from(FLOATS if family == "fma" else INTS))
    kind = KIND[op]
    profile = draw(st.sampled_from(["950", "950", "a2"]))
    ub_size = E.UB_SIZE[profile]
    repeat, mask, count, iters = draw(iterations(t, 10))
    nsrc = 2 if kind == "binary" else 1
    dst_blk = draw(st.integers(1, 4))
    src_blk = [draw(st.integers(0, 4)) for _ in range(nsrc)]
    reps = st.one_of(st.just(8), st.integers(0, 16))
    dst_rep = draw(st.one_of(reps, st.just(0), reps) if family == "fma" else reps)
    src_rep = [draw(reps) for _ in range(nsrc)]
    dst = place(draw, ub_size, extent(iters, 8, dst_blk, dst_rep))
    srcs = []
    for k in range(nsrc):
        ext = extent(iters, 8, src_blk[k], src_rep[k])
        if draw(st.integers(0, 5)) == 0 and ext <= ub_size - dst:
            srcs.append(dst)                                    # exactly in place
        else:
            srcs.append(place(draw, ub_size, ext, near=dst if draw(st.booleans()) else None))
    if kind == "binary":
        named = [("dstblk", dst_blk, 1), ("src0blk", src_blk[0], 1), ("src1blk", src_blk[1], 1),
                 ("dstrep", dst_rep, 8), ("src0rep", src_rep[0], 8), ("src1rep", src_rep[1], 8)]
    else:
        named = [("dstblk", dst_blk, 1), ("srcblk", src_blk[0], 1), ("dstrep", dst_rep, 8), ("srcrep", src_rep[0], 8)]
    fields = shape_fields(draw, repeat, mask, count, named)
    operands = [f"[0x{dst:x}]"] + [f"[0x{b:x}]" for b in srcs]
    prefix, scalar = "", None
    if kind == "scalar":
        text, scalar, reg = draw(shift_count_operand(t) if family == "shift" else float_scalars(t))
        operands.append(text if reg is None else "S9")
        if reg is not None:
            prefix = f"MOV S9, {reg}\n"
    line = prefix + f"V{op.upper()}.{t} " + ", ".join(operands + fields)
    kw = shape_kwargs(repeat, mask, count) | {"dst_blk": dst_blk, "dst_rep": dst_rep,
                                              "src_blk": tuple(src_blk) if nsrc == 2 else src_blk[0],
                                              "src_rep": tuple(src_rep) if nsrc == 2 else src_rep[0]}
    overlap = not _disjoint((dst, dst + extent(iters, 8, dst_blk, dst_rep)),
                            [(b, b + extent(iters, 8, src_blk[k], src_rep[k])) for k, b in enumerate(srcs)])
    return {"op": op, "t": t, "profile": profile, "line": line, "dst": dst, "srcs": tuple(srcs), "kw": kw,
            "scalar": scalar, "overlap": overlap, "seed": draw(st.integers(0, 2 ** 32 - 1)), "ub_size": ub_size,
            "shape": (repeat, mask, count)}


def apply_oracle(ub, case) -> None:
    op, t, dst, srcs, kw = case["op"], case["t"], case["dst"], case["srcs"], case["kw"]
    if op in ("and", "or", "xor", "not"):
        R.tensor_bitwise(ub, op, t, dst, srcs, **kw)
    elif op in ("shl", "shr"):
        R.tensor_shift(ub, op, t, dst, srcs[0], case["scalar"], **kw)
    elif op == "axpy":
        R.tensor_axpy(ub, t, dst, srcs[0], case["scalar"], **kw)
    elif op == "mla":
        R.tensor_mla(ub, t, dst, *srcs, **kw)
    else:
        R.tensor_madd(ub, t, dst, *srcs, **kw)


def check_elementwise(case) -> None:
    t = case["t"]
    note(f"profile {case['profile']}:\n{case['line']}")
    event(f"{case['op']}.{t}")
    event("profile " + case["profile"])
    describe_shape(*case["shape"])
    if case["dst"] in case["srcs"]:
        event("in place")
    elif case["overlap"]:
        event("overlapping")
    if case["kw"]["dst_rep"] == 0:
        event("dstrep=0")
    rng = np.random.default_rng(case["seed"])
    n = case["ub_size"] // R.SIZE[t]
    image = E.random_elements(rng, t, n, special_rate=0.1 if t in FLOATS else 0.05)
    if case["op"] in ("shl", "shr"):
        # small values and values at the sign bit make the shifts' edges visible
        view = image.view(UINT[R.SIZE[t]])
        w = width(t)
        pool = np.array([0, 1, 3, 1 << (w - 1), (1 << (w - 1)) | 1, (1 << (w - 2)) | 1, tmask(t), tmask(t) >> 1],
                        dtype=np.uint64).astype(view.dtype)
        pick = rng.random(n) < 0.2
        view[pick] = pool[rng.integers(0, pool.size, int(pick.sum()))]
    want = image.copy()
    apply_oracle(want, case)
    m, r = E.run_program(case["line"], case["profile"], ub=image)
    assert r.fault is None, f"{case['line']}: {r.fault}"
    check_mem(m.ub, want, t, f"profile {case['profile']}, seed {case['seed']}: {case['line']}")


@SETTINGS
@given(elementwise_cases("bitwise"))
def test_tensor_bitwise_random_shapes(case):
    check_elementwise(case)


@settings(SETTINGS, max_examples=120)
@given(elementwise_cases("shift"))
def test_tensor_shift_random_shapes(case):
    check_elementwise(case)


@settings(SETTINGS, max_examples=180)
@given(elementwise_cases("fma"))
def test_tensor_fma_random_shapes(case):
    check_elementwise(case)


# -- shifts: every edge count, by hand and against the oracle ----------------------------------------

SHIFT_HAND = [
    # (op, type, x, count, tensor result, register result); the tensor VSHL of a signed type keeps
    # the sign bit of x and takes the low bits of x << n; the register VSHL is a plain shift
    ("shl", "s16", 0x8001, 1, 0x8002, 0x0002),
    ("shl", "s16", 0x4000, 1, 0x0000, 0x8000),
    ("shl", "s16", 0xFFFF, 16, 0x8000, 0x0000),          # a negative s16 << 16
    ("shl", "s16", 0xFFFF, 17, 0x8000, 0x0000),
    ("shl", "s16", 0xFFFF, -1, 0x8000, 0x0000),          # -1 as s16 is 65535
    ("shl", "s16", 0x7FFF, 15, 0x0000, 0x8000),
    ("shl", "s16", 0xC000, 1, 0x8000, 0x8000),
    ("shl", "s16", 0x8123, 4, 0x9230, 0x1230),
    ("shl", "s16", 0x8123, 0, 0x8123, 0x8123),
    ("shl", "s16", 0x1234, 255, 0x0000, 0x0000),
    ("shl", "s16", 0x8001, 15, 0x8000, 0x8000),
    ("shl", "u16", 0x8001, 1, 0x0002, 0x0002),
    ("shl", "u16", 0xFFFF, 15, 0x8000, 0x8000),
    ("shl", "u16", 0xFFFF, 16, 0x0000, 0x0000),
    ("shl", "u16", 0x0001, 65535, 0x0000, 0x0000),
    ("shl", "s32", 0x80000001, 31, 0x80000000, 0x80000000),
    ("shl", "s32", 0x80000001, 32, 0x80000000, 0x00000000),
    ("shl", "s32", 0x80000001, -1, 0x80000000, 0x00000000),
    ("shl", "s32", 0x40000000, 1, 0x00000000, 0x80000000),
    ("shl", "s32", 0x9ABCDEF1, 4, 0xABCDEF10, 0xABCDEF10),
    ("shl", "s32", 0x12345678, 33, 0x00000000, 0x00000000),
    ("shl", "u32", 0xFFFFFFFF, 31, 0x80000000, 0x80000000),
    ("shl", "u32", 0xFFFFFFFF, 32, 0x00000000, 0x00000000),
    ("shl", "u32", 0x00000001, 255, 0x00000000, 0x00000000),
    ("shr", "s16", 0xFFFF, 16, 0xFFFF, 0xFFFF),
    ("shr", "s16", 0x7FFF, 16, 0x0000, 0x0000),
    ("shr", "s16", 0x8000, 15, 0xFFFF, 0xFFFF),
    ("shr", "s16", 0x8000, 14, 0xFFFE, 0xFFFE),
    ("shr", "s16", 0x8000, -1, 0xFFFF, 0xFFFF),
    ("shr", "s16", 0x7000, -16, 0x0000, 0x0000),
    ("shr", "s16", 0x8765, 4, 0xF876, 0xF876),
    ("shr", "u16", 0x8000, 15, 0x0001, 0x0001),
    ("shr", "u16", 0xFFFF, 16, 0x0000, 0x0000),
    ("shr", "u16", 0x8765, 4, 0x0876, 0x0876),
    ("shr", "u16", 0xFFFF, 0, 0xFFFF, 0xFFFF),
    ("shr", "s32", 0x80000000, 31, 0xFFFFFFFF, 0xFFFFFFFF),
    ("shr", "s32", 0x80000000, 32, 0xFFFFFFFF, 0xFFFFFFFF),
    ("shr", "s32", 0x80000000, 255, 0xFFFFFFFF, 0xFFFFFFFF),
    ("shr", "s32", 0x7FFFFFFF, 30, 0x00000001, 0x00000001),
    ("shr", "s32", 0x7FFFFFFF, -(1 << 31), 0x00000000, 0x00000000),
    ("shr", "u32", 0x80000000, 31, 0x00000001, 0x00000001),
    ("shr", "u32", 0x80000000, 32, 0x00000000, 0x00000000),
    ("shr", "u32", 0xFFFFFFFF, 33, 0x00000000, 0x00000000),
    ("shr", "u32", 0xFFFFFFFF, 4294967295, 0x00000000, 0x00000000),
]


def test_shift_hand_values_tensor_and_register():
    """Each hand case as a tensor instruction (mask=1, the other lanes of dst prefilled and kept)
    and as a register instruction (case j in lane j, its Pm lane j only: the other lanes zero); the
    oracle checked against the table too."""
    ub = np.full(0x20000, 0x5A, dtype=np.uint8)
    lines, expect = [], []
    for k, (op, t, x, c, want_t, want_r) in enumerate(SHIFT_HAND):
        cu = c & tmask(t)
        assert R.lane_shift(op, t, x, cu, tensor=True) == want_t, ("oracle, tensor", op, t, hex(x), c)
        assert R.lane_shift(op, t, x, cu) == want_r, ("oracle, register", op, t, hex(x), c)
        src, dst = 0x100 * k, 0x10000 + 0x100 * k
        ub[src:src + R.SIZE[t]] = bits_bytes([x], t)
        lines.append(f"V{op.upper()}.{t} [0x{dst:x}], [0x{src:x}], {c}, mask=1")
        expect.append((dst, t, want_t, lines[-1]))
    m, r = E.run_program("\n".join(lines), ub=ub)
    assert r.fault is None, r.fault
    bad = []
    for dst, t, want, line in expect:
        got = lane_bits(m.ub[dst:dst + R.SIZE[t]], t)[0]
        if got != want:
            bad.append(f"{line}: got {got:#x}, want {want:#x}")
        if (np.array(m.ub[dst + R.SIZE[t]:dst + 0x100]) != 0x5A).any():
            bad.append(f"{line}: wrote past lane 0")
    # register forms: functions of up to six cases per type
    for t in INTS:
        cases = [c for c in SHIFT_HAND if c[1] == t]
        a = bits_bytes([x for _, _, x, _, _, _ in cases] + [0] * (lanes_of(t) - len(cases)), t)
        # lane j of V0 holds case j's x; its instruction's Pm has lane j only (six P registers: groups of six)
        for start in range(0, len(cases), 6):
            grp = list(range(start, min(start + 6, len(cases))))
            p = {}
            text = []
            for slot, j in enumerate(grp):
                pj = np.zeros(256, dtype=bool)
                pj[j * R.SIZE[t]:(j + 1) * R.SIZE[t]] = True
                p[1 + slot] = pj
                op, _, _, c, _, _ = cases[j]
                text.append(f"V{op.upper()}.{t} V{slot + 1}, V0, {c}, P{1 + slot}")
            mm, rr, regs = E.run_function("\n".join(text), v={0: a}, p=p, dump_v=[s + 1 for s in range(len(grp))])
            assert rr.fault is None, rr.fault
            for slot, j in enumerate(grp):
                got = lane_bits(regs.v[slot + 1], t)
                want = [0] * lanes_of(t)
                want[j] = cases[j][5]
                if got != want:
                    nz = {i: hex(v) for i, v in enumerate(got) if v}
                    bad.append(f"{text[slot]} (x = {cases[j][2]:#x}, lane {j} only): got lanes {nz}, "
                               f"want lane {j} = {want[j]:#x}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("t", INTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_tensor_shift_every_edge_count(t, profile):
    """Each edge count of T (immediate) on two iterations of varied values, VSHL and VSHR."""
    rng = np.random.default_rng(width(t) * 7 + len(t) + len(profile))
    lanes = lanes_of(t)
    lo, hi = int_range(t)
    vals = [R.encode(v, t) for v in (0, 1, 2, hi, hi - 1, lo, lo + 1, -1 if lo else 3, 0x55, 0x80)]
    vals += lane_bits(E.random_elements(rng, t, 2 * lanes - len(vals)), t)
    src = bits_bytes(vals, t)
    ub = E.random_image(rng, E.UB_SIZE[profile], t)
    ub[0:src.size] = src
    want = ub.copy()
    lines = []
    out = 0x1000
    for op in ("shl", "shr"):
        for c in shift_counts(t):
            lines.append(f"V{op.upper()}.{t} [0x{out:x}], [0x0], {c}, repeat=2")
            R.tensor_shift(want, op, t, out, 0, c & tmask(t), repeat=2)
            out += 0x200
    m, r = E.run_program("\n".join(lines), profile, ub=ub)
    assert r.fault is None, r.fault
    out = 0x1000
    for line in lines:
        check_mem(m.ub[out:out + 0x200], want[out:out + 0x200], t, f"{profile}: {line}")
        out += 0x200
    check_mem(m.ub, want, t, f"{profile}: the rest of UB")


def test_shift_count_from_a_scalar_register_is_its_low_bits_as_t():
    """CONTRACT 2.1: a register SCALAR is its low bits as T. ``MOV S1, 0x10003`` then VSHL.u16
    shifts by 3; 0xFFFF0010 as s16 is 16; 0x1_00000002 as u32 is 2; -1 as u16 is 65535."""
    x16 = [0x0001, 0x8001, 0x1234, 0xFFFF, 0x7FFF, 0x8000, 0x00F0, 0x4321] * 16
    x32 = [0x00000001, 0x80000001, 0x12345678, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0xF0, 0x87654321] * 8
    ub = np.zeros(0x4000, dtype=np.uint8)
    ub[0x0:0x100] = bits_bytes(x16, "u16")
    ub[0x100:0x200] = bits_bytes(x32, "u32")
    cases = [  # (mnemonic, src, register value, count as T, the lane function by hand)
        ("VSHL.u16", 0x0, 0x10003, 3, lambda x: (x << 3) & 0xFFFF),
        ("VSHR.u16", 0x0, 0xFFFFFFFF, 65535, lambda x: 0),
        ("VSHR.u16", 0x0, 0xABCD0004, 4, lambda x: x >> 4),
        ("VSHR.s16", 0x0, 0xFFFF0010, 16, lambda x: 0xFFFF if x & 0x8000 else 0),
        ("VSHL.s16", 0x0, 0x7FFF0001, 1, lambda x: (x & 0x8000) | ((x << 1) & 0x7FFF)),
        ("VSHL.u32", 0x100, 0x100000002, 2, lambda x: (x << 2) & 0xFFFFFFFF),
        ("VSHR.s32", 0x100, 0xFFFFFFFF0000001F, 31, lambda x: 0xFFFFFFFF if x >> 31 else 0),
        ("VSHR.u32", 0x100, -1, 0xFFFFFFFF, lambda x: 0),
    ]
    lines = []
    for k, (mn, src, reg, _, _) in enumerate(cases):
        lines += [f"MOV S{k + 1}, {reg}", f"{mn} [0x{0x1000 + 0x200 * k:x}], [0x{src:x}], S{k + 1}"]
    m, r = E.run_program("\n".join(lines), ub=ub)
    assert r.fault is None, r.fault
    bad = []
    for k, (mn, src, reg, cnt, fn) in enumerate(cases):
        t = mn.split(".")[1]
        xs = x16 if src == 0 else x32
        want = [fn(x) for x in xs]
        oracle = [R.lane_shift(mn[1:4].lower(), t, x, cnt, tensor=True) for x in xs]
        assert oracle == want, (mn, reg)
        out = 0x1000 + 0x200 * k
        got = lane_bits(m.ub[out:out + 0x100], t)
        if got != want:
            i = next(i for i in range(len(xs)) if got[i] != want[i])
            bad.append(f"MOV S{k + 1}, {reg:#x}; {mn} ..., S{k + 1} (count {cnt}): lane {i} x={xs[i]:#x}: "
                       f"got {got[i]:#x}, want {want[i]:#x}")
    assert not bad, "\n".join(bad)


# -- bitwise and shifts: register forms ------------------------------------------------------------------

def per_lane_counts(rng, t: str) -> np.ndarray:
    """Per-lane counts: mostly 0..w + 2, some edges and huge values (the lane as unsigned T)."""
    lanes = lanes_of(t)
    w = width(t)
    c = rng.integers(0, w + 3, lanes).astype(np.uint64)
    edges = np.array([0, 1, w - 1, w, w + 1, 31, 32, 255, 256, tmask(t), tmask(t) - 1, 1 << (w - 1)],
                     dtype=np.uint64)
    pick = rng.random(lanes) < 0.3
    c[pick] = edges[rng.integers(0, edges.size, int(pick.sum()))]
    return c.astype(UINT[R.SIZE[t]]).view(np.uint8).copy()


@pytest.mark.parametrize("t", INTS)
def test_register_bitwise_and_shifts(t):
    """VAND / VOR / VXOR / VNOT and VSHL / VSHR by an immediate (edge counts), by S (junk above T's
    width) and by Vb (per-lane counts), under a random Pm: lanes outside it zero; destinations
    start with junk; in-place and aliased operands."""
    rng = np.random.default_rng(width(t) * 3 + len(t))
    a = E.random_elements(rng, t, lanes_of(t), special_rate=0.3)
    b = E.random_elements(rng, t, lanes_of(t), special_rate=0.3)
    cnt = per_lane_counts(rng, t)
    pm = rng.random(256) < 0.6
    w = width(t)
    jobs = [("VAND", "V0, V1", lambda: R.vand(t, a, b, pm)), ("VOR", "V0, V1", lambda: R.vor(t, a, b, pm)),
            ("VXOR", "V0, V1", lambda: R.vxor(t, a, b, pm)), ("VNOT", "V0", lambda: R.vnot(t, a, pm)),
            ("VXOR", "V0, V0", lambda: R.vxor(t, a, a, pm)), ("VAND", "V1, V1", lambda: R.vand(t, b, b, pm)),
            ("VSHL", "V0, V2", lambda: R.vshift("shl", t, a, cnt, pm)),
            ("VSHR", "V0, V2", lambda: R.vshift("shr", t, a, cnt, pm)),
            ("VSHR", "V2, V2", lambda: R.vshift("shr", t, cnt, cnt, pm))]
    sreg = (int(rng.integers(0, 1 << (63 - w))) << w) | 5
    jobs += [("VSHL", "V0, S7", lambda: R.vshift("shl", t, a, 5, pm)),
             ("VSHR", "V0, S7", lambda: R.vshift("shr", t, a, 5, pm))]
    counts = shift_counts(t)
    for c in counts:
        for op in ("shl", "shr"):
            jobs.append((f"V{op.upper()}", f"V0, {c}", lambda op=op, c=c: R.vshift(op, t, a, c & tmask(t), pm)))
    bad = []
    for start in range(0, len(jobs), 24):
        grp = jobs[start:start + 24]
        body = [f"{mn}.{t} V{k + 3}, {ops}, P0" for k, (mn, ops, _) in enumerate(grp)]
        junk = {k + 3: rng.integers(0, 256, 256, dtype=np.uint8) for k in range(len(grp))}
        m, r, regs = E.run_function("\n".join(body), v={0: a, 1: b, 2: cnt, **junk}, p={0: pm}, s={7: sreg},
                                    dump_v=[k + 3 for k in range(len(grp))])
        assert r.fault is None, r.fault
        for k, (_, _, want) in enumerate(grp):
            bad += [f"{body[k]}: {x}" for x in E.mem_mismatches(regs.v[k + 3], want(), t, limit=3)]
    # in place: the destination is a source
    body = [f"VSHL.{t} V0, V0, V2, P0", f"VAND.{t} V1, V1, V0, P0", f"VNOT.{t} V2, V2, P0"]
    m, r, regs = E.run_function("\n".join(body), v={0: a, 1: b, 2: cnt}, p={0: pm}, dump_v=[0, 1, 2])
    assert r.fault is None, r.fault
    a2 = R.vshift("shl", t, a, cnt, pm)
    want = {0: a2, 1: R.vand(t, b, a2, pm), 2: R.vnot(t, cnt, pm)}
    for k in range(3):
        bad += [f"in place, V{k}: {x}" for x in E.mem_mismatches(regs.v[k], want[k], t, limit=3)]
    assert not bad, "\n".join(bad)


def test_register_vshl_of_a_signed_type_is_a_plain_shift():
    """By hand: register VSHL.s16 by 1 of 0x4000 is 0x8000 and of 0x8001 is 0x0002; by 16 of 0xFFFF
    is 0 (the tensor form would keep the sign: 0x0000, 0x8002, 0x8000)."""
    a = bits_bytes([0x4000, 0x8001, 0xFFFF, 0xC001] + [0] * 124, "s16")
    body = "VSHL.s16 V1, V0, 1, P0\nVSHL.s16 V2, V0, 16, P0\nVSHL.s32 V3, V0, 1, P0"
    m, r, regs = E.run_function(body, v={0: a}, p={0: np.ones(256, dtype=bool)}, dump_v=[1, 2, 3])
    assert r.fault is None, r.fault
    assert lane_bits(regs.v[1], "s16")[:4] == [0x8000, 0x0002, 0xFFFE, 0x8002]
    assert lane_bits(regs.v[2], "s16")[:4] == [0, 0, 0, 0]
    # s32 lanes: 0x80014000 << 1 = 0x00028000, 0xC001FFFF << 1 = 0x8003FFFE
    assert lane_bits(regs.v[3], "s32")[:2] == [0x00028000, 0x8003FFFE]


# -- FMA: hand cases ------------------------------------------------------------------------------------

def _f(x, t):
    return fbits(x, t)


# (type, a, b, c, fused a*b+c by hand, differs from rounding the product first)
FMA_HAND = [
    # f32: a = b = 1 + 2^-12: a*b = 1 + 2^-11 + 2^-24, a tie that rounds to 1 + 2^-11; fused: 2^-24
    ("f32", 1 + 2 ** -12, 1 + 2 ** -12, -(1 + 2 ** -11), 0x33800000, True),
    # 97/64 * 172961/2^18 = 1 + 2^-24 exactly (a tie); + 2^-100 rounds up (a wider type then f32
    # would give 1.0)
    ("f32", 97 / 64, 172961 / 2 ** 18, 2.0 ** -100, 0x3F800001, True),
    ("f32", 97 / 64, 172961 / 2 ** 18, -(2.0 ** -100), 0x3F800000, False),
    # 1549/1024 * 10831/2^14 = 1 + 3 * 2^-24 (a tie, even is up); - 2^-100 rounds down
    ("f32", 1549 / 1024, 10831 / 2 ** 14, -(2.0 ** -100), 0x3F800001, True),
    ("f32", 1549 / 1024, 10831 / 2 ** 14, 2.0 ** -100, 0x3F800002, False),
    # the product alone overflows: max * 2 - max = max
    ("f32", "max", 2.0, "-max", 0x7F7FFFFF, True),
    ("f32", "max", -2.0, "max", 0xFF7FFFFF, True),
    # underflow: 2^-150 is a tie between 0 and 2^-149; fused 2^-149 + 2^-150 -> 2^-148
    ("f32", 2.0 ** -75, 2.0 ** -75, 2.0 ** -149, 0x00000002, True),
    ("f32", 2.0 ** -75, -(2.0 ** -75), 0.0, 0x80000000, True),      # -2^-150 rounds to -0
    ("f32", -(2.0 ** -75), 2.0 ** -76, -0.0, 0x80000000, False),
    ("f32", 3 * 2.0 ** -149, 0.5, 0.0, 0x00000002, False),         # 1.5 units: even
    ("f32", 1.0, 1.0, -1.0, 0x00000000, False),                    # exact zero: +0
    ("f32", -1.0, 1.0, 1.0, 0x00000000, False),
    ("f32", -0.0, 1.0, -0.0, 0x80000000, False),                   # (-0) + (-0)
    ("f32", -0.0, 1.0, 0.0, 0x00000000, False),
    ("f32", 0.0, -5.0, -0.0, 0x80000000, False),
    ("f32", math.inf, 0.0, 1.0, None, False),                      # 0 * inf
    ("f32", 0.0, -math.inf, math.inf, None, False),
    ("f32", math.inf, 1.0, -math.inf, None, False),                # inf - inf
    ("f32", -math.inf, -2.0, math.inf, 0x7F800000, False),
    ("f32", 1.0, 1.0, -math.inf, 0xFF800000, False),
    ("f32", math.nan, 0.0, math.inf, None, False),
    ("f32", 1.0, math.nan, 1.0, None, False),
    ("f32", 1.0, 1.0, math.nan, None, False),
    ("f32", 2.0 ** -149, 2.0 ** 127, -(2.0 ** -22), 0x00000000, False),  # subnormal * huge, exact zero: +0
    ("f32", 2.0 ** -149, 2.0 ** 100, 2.0 ** -126, 0x27000000, False),    # 2^-49 + 2^-126 -> 2^-49
    # f16: a = b = 1 + 2^-6, a*b = 1 + 2^-5 + 2^-12 rounds to 1 + 2^-5; fused 2^-12
    ("f16", 1 + 2 ** -6, 1 + 2 ** -6, -(1 + 2 ** -5), 0x0C00, True),
    # 1.5 * 683/1024 = 1 + 2^-11 (a tie); + 2^-24 rounds up to 1 + 2^-10 (through f32: 1.0)
    ("f16", 1.5, 683 / 1024, 2.0 ** -24, 0x3C01, True),
    ("f16", 256.0, 256.0, -1024.0, 0x7BE0, True),                  # 65536 alone overflows
    ("f16", 2.0 ** -12, 2.0 ** -13, 2.0 ** -24, 0x0002, True),     # 1 + 0.5 units -> 2 units
    ("f16", 2.0 ** -12, -(2.0 ** -13), 0.0, 0x8000, True),
    ("f16", 65504.0, 1.0, 16.0, 0x7C00, False),                    # 65520: the tie to inf, max is odd: inf
    ("f16", 65504.0, 1.0, 8.0, 0x7BFF, False),
    ("f16", 4096.0, 16.0, -32.0, 0x7BFF, True),                    # 65536 alone overflows; - 32 gives 65504
    ("f16", math.inf, -0.0, 1.0, None, False),
    ("f16", -0.0, -0.0, -0.0, 0x0000, False),                      # (+0) + (-0) = +0
    ("f16", 2.0 ** -24, 2.0 ** -24, -0.0, 0x0000, False),          # 2^-48 rounds to +0
    ("f16", -(2.0 ** -24), 2.0 ** -24, 0.0, 0x8000, True),
    # bf16: 1.75 * 37/64 = 1 + 3 * 2^-8 (a tie, even is up); - 2^-100 rounds down (a wider type
    # then bf16 rounds up)
    ("bf16", 1.75, 37 / 64, -(2.0 ** -100), 0x3F81, True),
    ("bf16", 1.75, 37 / 64, 2.0 ** -100, 0x3F82, False),
    # a = b = 1 + 2^-4: a*b = 1 + 2^-3 + 2^-8 (a tie to 1 + 2^-3); fused 2^-8
    ("bf16", 1 + 2 ** -4, 1 + 2 ** -4, -(1 + 2 ** -3), 0x3B80, True),
    ("bf16", "max", 2.0, "-max", 0x7F7F, True),
    ("bf16", 2.0 ** -67, 2.0 ** -67, 2.0 ** -133, 0x0002, True),   # 2^-134: half a unit; 1.5 units -> 2
    ("bf16", math.inf, 1.0, -math.inf, None, False),
    ("bf16", -0.0, 3.0, -0.0, 0x8000, False),
]


def _fma_hand_bits():
    out = []
    for t, a, b, c, want, differs in FMA_HAND:
        big = R._FLOAT_FMT[t][2]
        vals = [big if v == "max" else -big if v == "-max" else v for v in (a, b, c)]
        out.append((t, *[_f(v, t) for v in vals], want, differs))
    return out


def test_fma_hand_values_against_the_oracle():
    """The hand table is what the oracle computes, and the 'differs' column is right."""
    bad = []
    for t, ab, bb, cb, want, differs in _fma_hand_bits():
        got = R.fma_bits(t, ab, bb, cb)
        ok = R._is_nan_bits(got, t) if want is None else got == want
        if not ok:
            bad.append(f"{t} fma({ab:#x}, {bb:#x}, {cb:#x}): oracle {got:#x}, hand {want}")
        if (not same_float(two_step(t, ab, bb, cb), got, t)) != differs:
            bad.append(f"{t} fma({ab:#x}, {bb:#x}, {cb:#x}): two-step {two_step(t, ab, bb, cb):#x}, "
                       f"fused {got:#x}, table says differs={differs}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("t", FLOATS)
def test_fma_hand_values_tensor(t):
    """Each hand case in lane k: VMLA (dst = c), VMADD (dst = b, src1 = c) and, one instruction a
    case, VAXPY with b as the scalar (an immediate, and a register holding b's bits)."""
    cases = [c for c in _fma_hand_bits() if c[0] == t]
    n = len(cases)
    lanes = lanes_of(t)
    assert n <= lanes
    one = _f(1.0, t)
    pad = [one] * (lanes - n)
    A = [c[1] for c in cases] + pad
    B = [c[2] for c in cases] + pad
    C = [c[3] for c in cases] + pad
    ub = np.zeros(E.UB_SIZE["950"], dtype=np.uint8)
    XA, XB, XC, MLA, MADD, AXPY, AXPYR = 0x0, 0x100, 0x200, 0x1000, 0x1100, 0x2000, 0x8000
    ub[XA:XA + 256], ub[XB:XB + 256], ub[XC:XC + 256] = bits_bytes(A, t), bits_bytes(B, t), bits_bytes(C, t)
    ub[MLA:MLA + 256] = bits_bytes(C, t)
    ub[MADD:MADD + 256] = bits_bytes(B, t)
    lines = [f"VMLA.{t} [0x{MLA:x}], [0x{XA:x}], [0x{XB:x}]", f"VMADD.{t} [0x{MADD:x}], [0x{XA:x}], [0x{XC:x}]"]
    for k in range(n):
        ub[AXPY + 256 * k:AXPY + 256 * (k + 1)] = bits_bytes(C, t)
        ub[AXPYR + 256 * k:AXPYR + 256 * (k + 1)] = bits_bytes(C, t)
        lines.append(f"VAXPY.{t} [0x{AXPY + 256 * k:x}], [0x{XA:x}], {scalar_text(B[k], t)}")
        lines += [f"MOV S{1 + k % 30}, {(0xC0DE << 40) | B[k]}",
                  f"VAXPY.{t} [0x{AXPYR + 256 * k:x}], [0x{XA:x}], S{1 + k % 30}"]
    m, r = E.run_program("\n".join(lines), ub=ub)
    assert r.fault is None, r.fault
    want = ub.copy()
    R.tensor_mla(want, t, MLA, XA, XB)
    R.tensor_madd(want, t, MADD, XA, XC)
    for k in range(n):
        R.tensor_axpy(want, t, AXPY + 256 * k, XA, B[k])
        R.tensor_axpy(want, t, AXPYR + 256 * k, XA, B[k])
    bad = []
    for name, base, per_case in (("VMLA", MLA, False), ("VMADD", MADD, False), ("VAXPY imm", AXPY, True),
                                 ("VAXPY S", AXPYR, True)):
        for k, (_, ab, bb, cb, hand, _) in enumerate(cases):
            addr = (base + 256 * k if per_case else base) + k * R.SIZE[t]
            got = lane_bits(m.ub[addr:addr + R.SIZE[t]], t)[0]
            if not (R._is_nan_bits(got, t) if hand is None else got == hand):
                bad.append(f"{name}.{t}: a={ab:#x} b={bb:#x} c={cb:#x}: got {got:#x}, want "
                           + ("NaN" if hand is None else f"{hand:#x}")
                           + f" (two-step gives {two_step(t, ab, bb, cb):#x})")
    assert not bad, "\n".join(bad)
    check_mem(m.ub, want, t, "the other lanes")


@pytest.mark.parametrize("t", FLOATS)
def test_fma_hand_values_register(t):
    cases = [c for c in _fma_hand_bits() if c[0] == t]
    lanes = lanes_of(t)
    one = _f(1.0, t)
    pad = [one] * (lanes - len(cases))
    a = bits_bytes([c[1] for c in cases] + pad, t)
    b = bits_bytes([c[2] for c in cases] + pad, t)
    c = bits_bytes([c[3] for c in cases] + pad, t)
    pm = np.ones(256, dtype=bool)
    body = [f"VMLA.{t} V3, V0, V1, P0", f"VMADD.{t} V4, V0, V2, P0"]
    m, r, regs = E.run_function("\n".join(body), v={0: a, 1: b, 2: c, 3: c, 4: b}, p={0: pm}, dump_v=[3, 4])
    assert r.fault is None, r.fault
    bad = []
    for reg, name in ((3, "VMLA"), (4, "VMADD")):
        got = lane_bits(regs.v[reg], t)
        for k, (_, ab, bb, cb, hand, _) in enumerate(cases):
            if not (R._is_nan_bits(got[k], t) if hand is None else got[k] == hand):
                bad.append(f"{name}.{t} V, a={ab:#x} b={bb:#x} c={cb:#x}: got {got[k]:#x}, want {hand}")
    # VAXPY: one register per case, b as an immediate
    for start in range(0, len(cases), 24):
        grp = list(range(start, min(start + 24, len(cases))))
        body = [f"VAXPY.{t} V{5 + s}, V0, {scalar_text(cases[k][2], t)}, P0" for s, k in enumerate(grp)]
        m, r, regs = E.run_function("\n".join(body), v={0: a, **{5 + s: c for s in range(len(grp))}}, p={0: pm},
                                    dump_v=[5 + s for s in range(len(grp))])
        assert r.fault is None, r.fault
        for s, k in enumerate(grp):
            _, ab, bb, cb, hand, _ = cases[k]
            got = lane_bits(regs.v[5 + s], t)[k]
            if not (R._is_nan_bits(got, t) if hand is None else got == hand):
                bad.append(f"{body[s]}, a={ab:#x} c={cb:#x}: got {got:#x}, want {hand}")
            bad += [f"{body[s]}: {x}" for x in E.mem_mismatches(regs.v[5 + s], R.vaxpy(t, a, cases[k][2], c, pm), t,
                                                                    limit=2)]
    assert not bad, "\n".join(bad)


# -- FMA: specials cross product and constructed cancellations ----------------------------------------

def fma_specials(t: str) -> list[int]:
    out = list(E.FLOAT_SPECIALS[t])
    out += [_f(x, t) for x in (2.0, 0.5, 3.0, -1.5)]
    return list(dict.fromkeys(out))


@pytest.mark.parametrize("t", FLOATS)
@pytest.mark.parametrize("op", ["mla", "madd"])
def test_fma_every_triple_of_specials(t, op):
    """a * b + c for every triple of specials (+-0, +-inf, NaNs, subnormals, smallest normal, largest
    finite, +-1, 2, 0.5, 3, -1.5), as VMLA or VMADD over many iterations, on both profiles."""
    sp = fma_specials(t)
    lanes = lanes_of(t)
    trip = [(x, y, z) for x in sp for y in sp for z in sp]
    one = _f(1.0, t)
    trip += [(one, one, one)] * (-len(trip) % lanes)
    repeat = len(trip) // lanes
    assert repeat <= 255
    A, B, C = ([tr[k] for tr in trip] for k in range(3))
    size = R.SIZE[t]
    nbytes = len(trip) * size
    XA, XB, D = 0x0, 0x10000, 0x20000
    for profile in PROFILES:
        ub = np.zeros(E.UB_SIZE[profile], dtype=np.uint8)
        ub[XA:XA + nbytes] = bits_bytes(A, t)
        if op == "mla":      # dst = a * b + dst
            ub[XB:XB + nbytes] = bits_bytes(B, t)
            ub[D:D + nbytes] = bits_bytes(C, t)
        else:                # dst = a * dst + src1
            ub[XB:XB + nbytes] = bits_bytes(C, t)
            ub[D:D + nbytes] = bits_bytes(B, t)
        line = f"V{op.upper()}.{t} [0x{D:x}], [0x{XA:x}], [0x{XB:x}], repeat={repeat}"
        want = ub.copy()
        (R.tensor_mla if op == "mla" else R.tensor_madd)(want, t, D, XA, XB, repeat=repeat)
        m, r = E.run_program(line, profile, ub=ub)
        assert r.fault is None, r.fault
        check_mem(m.ub, want, t, f"{profile}: {line}")


def cancellation_lanes(rng, t: str, n: int, b_fixed=None):
    """(a, b, c) bit triples where rounding a*b first changes the result: c is -round(a*b), or it
    plus a few ulps, or a tiny value next to a product at a tie. Returns lists of n each."""
    A, B, C = [], [], []
    tries = 0
    while len(A) < n and tries < 200 * n:
        tries += 1
        sign = 1 if rng.random() < 0.5 else -1
        with np.errstate(all="ignore"):
            a = R.encode(sign * float(rng.uniform(1, 2)) * 2.0 ** int(rng.integers(-6, 6)), t)
            b = R.encode(float(rng.uniform(1, 2)) * 2.0 ** int(rng.integers(-6, 6)), t) if b_fixed is None else b_fixed
        p = R.lane_binary("mul", t, a, b)
        if not math.isfinite(R.decode(p, t)):
            continue
        kind = rng.integers(0, 3)
        if kind == 0:
            c = neg_bits(p, t)
        elif kind == 1:
            c = (neg_bits(p, t) + int(rng.integers(-3, 4))) & tmask(t)
        else:
            with np.errstate(all="ignore"):
                c = R.encode(float(R.decode(p, t)) * float(rng.choice([2.0 ** -30, -(2.0 ** -30), 2.0 ** -12])), t)
        if R._is_nan_bits(c, t):
            continue
        if same_float(two_step(t, a, b, c), R.fma_bits(t, a, b, c), t):
            continue
        A.append(a)
        B.append(b)
        C.append(c)
    assert len(A) == n, f"only {len(A)} constructed lanes for {t}"
    return A, B, C


@pytest.mark.parametrize("t", FLOATS)
def test_fma_constructed_lanes_tensor(t):
    """Lanes where the unfused result differs (every one), four iterations of each: VMLA (repeat),
    VMADD (count), VAXPY (a fixed scalar with low significand bits set)."""
    rng = np.random.default_rng(len(t) * 11)
    lanes = lanes_of(t)
    n = 4 * lanes
    size = R.SIZE[t]
    A, B, C = cancellation_lanes(rng, t, n)
    s_bits = _f(1.0 + 3 * 2.0 ** -(R._FLOAT_FMT[t][0] - 2), t)
    A2, _, C2 = cancellation_lanes(rng, t, n, b_fixed=s_bits)
    ub = np.zeros(E.UB_SIZE["950"], dtype=np.uint8)
    XA, XB, XC, MLA, MADD, XA2, AXPY = 0x0, 0x1000, 0x2000, 0x4000, 0x6000, 0x8000, 0xA000
    ub[XA:XA + n * size] = bits_bytes(A, t)
    ub[XB:XB + n * size] = bits_bytes(B, t)
    ub[XC:XC + n * size] = bits_bytes(C, t)
    ub[MLA:MLA + n * size] = bits_bytes(C, t)
    ub[MADD:MADD + n * size] = bits_bytes(B, t)
    ub[XA2:XA2 + n * size] = bits_bytes(A2, t)
    ub[AXPY:AXPY + n * size] = bits_bytes(C2, t)
    lines = [f"VMLA.{t} [0x{MLA:x}], [0x{XA:x}], [0x{XB:x}], repeat=4",
             f"VMADD.{t} [0x{MADD:x}], [0x{XA:x}], [0x{XC:x}], count={n}",
             f"VAXPY.{t} [0x{AXPY:x}], [0x{XA2:x}], {scalar_text(s_bits, t)}, repeat=4"]
    m, r = E.run_program("\n".join(lines), ub=ub)
    assert r.fault is None, r.fault
    want = ub.copy()
    R.tensor_mla(want, t, MLA, XA, XB, repeat=4)
    R.tensor_madd(want, t, MADD, XA, XC, count=n)
    R.tensor_axpy(want, t, AXPY, XA2, s_bits, repeat=4)
    for line, base in zip(lines, (MLA, MADD, AXPY)):
        check_mem(m.ub[base:base + n * size], want[base:base + n * size], t, line)
    check_mem(m.ub, want, t, "the rest")


@pytest.mark.parametrize("t", FLOATS)
def test_register_fma(t):
    """VMLA / VMADD / VAXPY (immediate and S with junk above T) under a random Pm: lanes outside it
    zero; random values, specials and constructed lanes; in-place and aliased operands."""
    rng = np.random.default_rng(len(t) * 5 + 1)
    lanes = lanes_of(t)
    A, B, C = cancellation_lanes(rng, t, lanes // 2)
    a = E.random_elements(rng, t, lanes, special_rate=0.15)
    b = E.random_elements(rng, t, lanes, special_rate=0.15)
    d = E.random_elements(rng, t, lanes, special_rate=0.15)
    half = lanes // 2 * R.SIZE[t]
    a[:half], b[:half], d[:half] = bits_bytes(A, t), bits_bytes(B, t), bits_bytes(C, t)
    pm = rng.random(256) < 0.6
    s_bits = _f(-1.5 - 2.0 ** -5, t)
    imm = _f(0.75, t)
    body = [f"VMLA.{t} V3, V0, V1, P0", f"VMADD.{t} V4, V0, V1, P0", f"VAXPY.{t} V5, V0, {scalar_text(imm, t)}, P0",
            f"VAXPY.{t} V6, V0, S9, P0", f"VMLA.{t} V7, V7, V1, P0", f"VMADD.{t} V8, V0, V8, P0",
            f"VMLA.{t} V9, V0, V0, P0"]
    v = {0: a, 1: b, 3: d, 4: d, 5: d, 6: d, 7: d, 8: d, 9: d}
    want = {3: R.vmla(t, a, b, d, pm), 4: R.vmadd(t, a, b, d, pm), 5: R.vaxpy(t, a, imm, d, pm),
            6: R.vaxpy(t, a, s_bits, d, pm), 7: R.vmla(t, d, b, d, pm), 8: R.vmadd(t, a, d, d, pm),
            9: R.vmla(t, a, a, d, pm)}
    m, r, regs = E.run_function("\n".join(body), v=v, p={0: pm}, s={9: (0xFEED << 40) | s_bits}, dump_v=sorted(want))
    assert r.fault is None, r.fault
    bad = []
    for k, text in zip(sorted(want), body):
        bad += [f"{text}: {x}" for x in E.mem_mismatches(regs.v[k], want[k], t, limit=3)]
    assert not bad, "\n".join(bad)


def test_register_fma_accumulates_over_a_hardware_loop():
    """LOOP 5 { VMLA.f32 V2, V0, V1, P0 }: Vd read each time; by hand on small integers (exact), and
    by the oracle on constructed lanes."""
    lanes = 64
    rng = np.random.default_rng(77)
    A, B, C = cancellation_lanes(rng, "f32", lanes)
    a = bits_bytes(A, "f32")
    b = bits_bytes(B, "f32")
    d = bits_bytes(C, "f32")
    pm = rng.random(256) < 0.7
    body = "LOOP 5\nVMLA.f32 V2, V0, V1, P0\nVAXPY.f32 V3, V4, 3.0, P1\nENDLOOP"
    small = bits_bytes([fbits(float(i), "f32") for i in range(lanes)], "f32")
    m, r, regs = E.run_function(body, v={0: a, 1: b, 2: d, 4: small}, p={0: pm, 1: np.ones(256, dtype=bool)},
                                dump_v=[2, 3])
    assert r.fault is None, r.fault
    want = d
    for _ in range(5):
        want = R.vmla("f32", a, b, want, pm)
    check_mem(regs.v[2], want, "f32", "LOOP 5 of VMLA")
    assert np.array(regs.v[3]).view("<f4").tolist() == [15.0 * i for i in range(lanes)]


def test_tensor_fma_dstrep_zero_accumulates_in_order_by_hand():
    """dstrep=0: every iteration reads the dst the one before wrote. VMLA.f32 with dst = 1, src0 = 2,
    src1 = 3 (srcrep=0) over 3 iterations: 19. VAXPY.f16 adding src rows 1, 2, 3, 4 times 0.5 to 10:
    15. VMADD.f32 dst = src0 * dst + src1 with src0 = 2, src1 = 1 from dst 1: 1 -> 3 -> 7 -> 15 -> 31."""
    ub = np.zeros(0x4000, dtype=np.uint8)
    f32 = lambda xs: np.array(xs, dtype="<f4").view(np.uint8)   # noqa: E731
    ub[0x0:0x100] = f32([1.0] * 64)
    ub[0x100:0x200] = f32([2.0] * 64)
    ub[0x200:0x300] = f32([3.0] * 64)
    ub[0x400:0x500] = np.full(128, 10.0, dtype="<f2").view(np.uint8)
    ub[0x800:0xC00] = np.repeat(np.array([1.0, 2.0, 3.0, 4.0], dtype="<f2"), 128).view(np.uint8)
    ub[0x1000:0x1100] = f32([1.0] * 64)
    ub[0x1100:0x1200] = f32([2.0] * 64)
    ub[0x1200:0x1300] = f32([1.0] * 64)
    text = ("VMLA.f32 [0x0], [0x100], [0x200], repeat=3, dstrep=0, src0rep=0, src1rep=0\n"
            "VAXPY.f16 [0x400], [0x800], 0.5, repeat=4, dstrep=0, mask=100\n"
            "VMADD.f32 [0x1000], [0x1100], [0x1200], repeat=4, dstrep=0, src0rep=0, src1rep=0, mask=(0x3, 0x0)")
    m, r = E.run_program(text, ub=ub)
    assert r.fault is None, r.fault
    assert m.read("ub", 0x0, "f32", 64).tolist() == [19.0] * 64
    f16 = m.read("ub", 0x400, "f16", 128).astype(np.float64).tolist()
    assert f16 == [15.0] * 100 + [10.0] * 28, f16
    assert m.read("ub", 0x1000, "f32", 4).tolist() == [31.0, 31.0, 1.0, 1.0]


# -- VBRCB --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("t", ALL_T)
def test_vbrcb_layout_by_hand(t):
    """Iteration r reads the 8 elements at src + 8 * r * size and fills datablock j of its
    destination (dst + (r * dstrep + j * dstblk) * 32) with element j: worked out with plain loops,
    for the defaults, dstblk=2 / dstrep=16 (gaps stay), dstrep=0 (the last iteration wins) and
    dstblk=3 / dstrep=1 (blocks of later iterations overwrite earlier ones)."""
    size = R.SIZE[t]
    per = 32 // size
    rng = np.random.default_rng(size * 3 + len(t))
    elems = lane_bits(E.random_elements(rng, t, 8 * 5, special_rate=0.3), t)
    ub = np.full(E.UB_SIZE["950"], 0xA5, dtype=np.uint8)
    ub[0:len(elems) * size] = bits_bytes(elems, t)
    shapes = [(0x1000, 5, 1, 8), (0x2000, 3, 2, 16), (0x4000, 4, 1, 0), (0x5000, 5, 3, 1), (0x6000, 0, 1, 8)]
    lines = []
    for dst, rep, blk, drep in shapes:
        lines.append(f"VBRCB.{t} [0x{dst:x}], [0x0], repeat={rep}, dstblk={blk}, dstrep={drep}")
    m, r = E.run_program("\n".join(lines), ub=ub)
    assert r.fault is None, r.fault
    want = ub.copy()
    for dst, rep, blk, drep in shapes:
        for it in range(rep):
            for j in range(8):
                base = dst + (it * drep + j * blk) * 32
                want[base:base + 32] = bits_bytes([elems[8 * it + j]] * per, t)
    check_mem(m.ub, want, t, "\n".join(lines), raw=True)
    oracle = ub.copy()
    for dst, rep, blk, drep in shapes:
        R.tensor_brcb(oracle, t, dst, 0, repeat=rep, dst_blk=blk, dst_rep=drep)
    assert not E.mem_mismatches(oracle, want, RAW[size]), "the oracle disagrees with the hand layout"


@st.composite
def brcb_cases(draw):
    t = draw(st.sampled_from(ALL_T))
    profile = draw(st.sampled_from(["950", "950", "a2"]))
    ub_size = E.UB_SIZE[profile]
    size = R.SIZE[t]
    repeat = draw(st.sampled_from([0, 1, 1, 2, 3, 8, 16, 255, *range(1, 12)]))
    blk = draw(st.one_of(st.integers(1, 4), st.sampled_from([8, 9, 300])))
    rep = draw(st.one_of(st.sampled_from([8, 8, 0, 1, 16]), st.integers(0, 24), st.just(2000)))
    if rep == 2000 and repeat > 3:
        rep = 8
    dst_ext = extent(repeat, 8, blk, rep)
    src_ext = max(8 * repeat * size, 32)
    dst = place(draw, ub_size, dst_ext)
    src = place(draw, ub_size, src_ext, near=dst if draw(st.booleans()) else None)
    fields = []
    for name, v, default in (("repeat", repeat, 1), ("dstblk", blk, 1), ("dstrep", rep, 8)):
        if v != default or draw(st.booleans()):
            fields.append(f"{name}={v}")
    draw(st.randoms()).shuffle(fields)
    line = f"VBRCB.{t} [0x{dst:x}], [0x{src:x}]" + "".join(", " + f for f in fields)
    return {"t": t, "profile": profile, "line": line, "dst": dst, "src": src, "ub_size": ub_size,
            "kw": {"repeat": repeat, "dst_blk": blk, "dst_rep": rep}, "seed": draw(st.integers(0, 2 ** 32 - 1)),
            "overlap": not _disjoint((dst, dst + dst_ext), [(src, src + src_ext)])}


@settings(SETTINGS, max_examples=80)
@given(brcb_cases())
def test_vbrcb_random_shapes(case):
    t = case["t"]
    note(f"profile {case['profile']}: {case['line']}")
    event(t)
    event("overlapping" if case["overlap"] else "disjoint")
    rng = np.random.default_rng(case["seed"])
    image = E.random_image(rng, case["ub_size"], t)
    want = image.copy()
    R.tensor_brcb(want, t, case["dst"], case["src"], **case["kw"])
    m, r = E.run_program(case["line"], case["profile"], ub=image)
    assert r.fault is None, f"{case['line']}: {r.fault}"
    check_mem(m.ub, want, t, f"profile {case['profile']}, seed {case['seed']}: {case['line']}", raw=True)


# -- long strides --------------------------------------------------------------------------------------

def test_unary_strides_past_eight_bits():
    """VNOT, VSHL, VSHR, VAXPY take the unary fields (blk up to 65535, rep up to 4095); the binary ones
    (VAND, VMLA, VMADD) 255."""
    rng = np.random.default_rng(12)
    image = E.random_image(rng, E.UB_SIZE["950"], "s32")
    half = R.encode(0.5, "f32")
    cases = [
        ("VNOT.u16 [0x0], [0x100], repeat=3, srcblk=1000, dstrep=2000, dstblk=300", "u16",
         lambda w: R.tensor_not(w, "u16", 0, 0x100, repeat=3, src_blk=1000, dst_rep=2000, dst_blk=300)),
        ("VSHL.s32 [0x20], [0x40], 7, repeat=2, srcblk=500, srcrep=4095, dstblk=600", "s32",
         lambda w: R.tensor_shift(w, "shl", "s32", 0x20, 0x40, 7, repeat=2, src_blk=500, src_rep=4095, dst_blk=600)),
        ("VSHR.s16 [0x20], [0x40], 9, repeat=2, srcblk=1100, dstrep=4095", "s16",
         lambda w: R.tensor_shift(w, "shr", "s16", 0x20, 0x40, 9, repeat=2, src_blk=1100, dst_rep=4095)),
        ("VAXPY.f32 [0x0], [0x100], 0.5, repeat=3, srcblk=600, srcrep=1500, dstblk=300", "f32",
         lambda w: R.tensor_axpy(w, "f32", 0, 0x100, half, repeat=3, src_blk=600, src_rep=1500, dst_blk=300)),
        ("VAND.u32 [0x0], [0x100], [0x200], repeat=3, src0blk=255, src1rep=255, src0rep=200, src1blk=100, "
         "dstblk=255", "u32",
         lambda w: R.tensor_and(w, "u32", 0, 0x100, 0x200, repeat=3, src_blk=(255, 100), src_rep=(200, 255),
                                dst_blk=255)),
        ("VMLA.f32 [0x0], [0x100], [0x200], repeat=3, dstblk=255, src0blk=255, src1rep=255, src0rep=200, "
         "src1blk=100, dstrep=0", "f32",
         lambda w: R.tensor_mla(w, "f32", 0, 0x100, 0x200, repeat=3, dst_blk=255, dst_rep=0, src_blk=(255, 100),
                                src_rep=(200, 255))),
    ]
    for line, t, apply in cases:
        want = image.copy()
        apply(want)
        m, r = E.run_program(line, ub=image)
        assert r.fault is None, f"{line}: {r.fault}"
        check_mem(m.ub, want, t, line)


# -- refused types, fields and places ----------------------------------------------------------------------

def test_types_and_fields_refused():
    from vcore.assembler import assemble
    from vcore.assembler.diagnostics import AsmError

    bad = []
    refused = [f"V{op}.{t} [0x0], [0x100], [0x200]" for op in ("AND", "OR", "XOR") for t in ("f16", "bf16", "f32",
                                                                                              "s8", "u8")]
    refused += [f"VNOT.{t} [0x0], [0x100]" for t in ("f32", "u8")]
    refused += [f"V{op}.{t} [0x0], [0x100], 1" for op in ("SHL", "SHR") for t in ("f16", "f32", "s8")]
    refused += [f"V{op}.{t} [0x0], [0x100], [0x200]" for op in ("MLA", "MADD") for t in INTS]
    refused += [f"VAXPY.{t} [0x0], [0x100], 2" for t in INTS]
    refused += ["VBRCB.u8 [0x0], [0x100]", "VBRCB.s8 [0x0], [0x100]", "VBRCB.f32 [0x0], [0x100], mask=3",
                "VBRCB.f32 [0x0], [0x100], count=8", "VBRCB.f32 [0x0], [0x100], srcrep=1",
                "VBRCB.f16 [0x0], [0x100], repeat=256", "VBRCB.f16 [0x0], [0x100], dstblk=0",
                "VSHL.u16 [0x0], [0x100], -1", "VSHL.u16 [0x0], [0x100], 65536", "VSHR.s16 [0x0], [0x100], 32768",
                "VAND.u16 [0x0], [0x100], [0x200], dstblk=256", "VNOT.u16 [0x0], [0x100], srcrep=4096",
                "VMLA.f32 [0x0], [0x100], [0x200], src0rep=256"]
    refused += [E.vf(x) for x in ("VAND.f32 V0, V1, V2, P0", "VNOT.u8 V0, V1, P0", "VSHL.s8 V0, V1, 1, P0",
                                  "VMLA.s32 V0, V1, V2, P0", "VMADD.u16 V0, V1, V2, P0", "VAXPY.u32 V0, V1, 2, P0")]
    for text in refused:
        try:
            assemble(text)
        except AsmError:
            continue
        bad.append(f"assembled: {text!r}")
    for text in ("VAND.s16 [0x0], [0x100], [0x200], dstblk=255", "VNOT.u32 [0x0], [0x100], srcblk=65535",
                 "VBRCB.bf16 [0x0], [0x100], repeat=255, dstblk=65535, dstrep=4095", "VSHL.s16 [0x0], [0x100], -32768",
                 "VSHR.u16 [0x0], [0x100], 65535", "VSHR.u32 [0x0], [0x100], 4294967295",
                 "VAXPY.bf16 [0x0], [0x100], S3",
                 E.vf("VSHL.u32 V0, V1, V2, P0\nVSHR.s16 V0, V1, S4, P0\nVAXPY.f16 V0, V1, S2, P0")):
        assemble(text)
    assert not bad, "\n".join(bad)


def test_misaligned_and_out_of_range_operands_fault():
    """CONTRACT 2.1: UB operands 32-byte aligned, every byte touched inside UB (an assembly error or a
    fault, the emulator may choose which)."""
    from vcore.assembler.diagnostics import AsmError

    top = E.UB_SIZE["950"]
    cases = [("VBRCB.f16 [0x0], [0x10]", "align"), ("VBRCB.f16 [0x10], [0x0]", "align"),
             ("MOV S1, 0x30\nVBRCB.u32 [0x100], [S1]", "align"), ("VAND.u16 [0x0], [0x110], [0x200]", "align"),
             ("VSHL.s32 [0x8], [0x100], 1", "align"), ("VMLA.f32 [0x0], [0x100], [0x2010]", "align"),
             (f"VBRCB.f32 [0x{top - 0xE0:x}], [0x0]", None), (f"VBRCB.f32 [0x0], [0x{top - 0x20:x}], repeat=2", None),
             (f"VAXPY.f16 [0x{top - 0x100:x}], [0x0], 1.0, repeat=2", None),
             (f"VNOT.u16 [0x0], [0x{top - 0x100:x}], srcblk=2", None)]
    bad = []
    for text, word in cases:
        try:
            m, r = E.run_program(text)
        except AsmError as err:
            if word and word not in str(err).lower():
                bad.append(f"{text!r}: {err}")
            continue
        if r.fault is None or (word and word not in str(r.fault).lower()):
            bad.append(f"{text!r}: fault {r.fault}")
    for text in (f"VBRCB.f32 [0x{top - 0x100:x}], [0x{top - 0x20:x}]", f"VAXPY.f16 [0x{top - 0x100:x}], [0x0], 1.0"):
        m, r = E.run_program(text)
        if r.fault is not None:
            bad.append(f"{text!r} touches only UB, yet: {r.fault}")
    assert not bad, "\n".join(bad)


REGISTER_FORMS = ["VAND.u16 V0, V1, V2, P0", "VOR.s32 V0, V1, V2, P0", "VXOR.u32 V0, V1, V2, P0", "VNOT.s16 V0, V1, P0",
                  "VSHL.u16 V0, V1, 3, P0", "VSHR.s32 V0, V1, V2, P0", "VSHL.s16 V0, V1, S1, P0",
                  "VAXPY.f32 V0, V1, 2.0, P0", "VMLA.f16 V0, V1, V2, P0", "VMADD.bf16 V0, V1, V2, P0"]


@pytest.mark.parametrize("text", REGISTER_FORMS)
def test_register_forms_only_inside_a_function_and_only_on_950(text):
    import vcore
    from vcore.assembler import assemble
    from vcore.assembler.diagnostics import AsmError

    with pytest.raises(AsmError):
        assemble(text)
    program = "NOP\n" + E.vf(text)
    vcore.load_text(program, profile="950", filename="k.asm")
    with pytest.raises(vcore.ProgramError) as err:
        vcore.load_text(program, profile="a2", filename="k.asm")
    assert "950" in str(err.value), str(err.value)
