"""Differential test: random tensor (iterated UB-to-UB) instructions, emulator vs tests/reference.py.

Each example is one instruction: an op and type, repeat (0..20, sometimes up to 255 with small
strides), block and repeat strides, operand bases (often equal or overlapping, e.g. in place),
a mask (none, continuous, bit mode) or counter mode, and for the scalar forms an immediate or a
scalar register. UB is filled with random values of the type (finite values of many magnitudes,
raw bit patterns and specials: +-0, +-inf, NaNs, subnormals). The whole UB after the run must
equal the reference's: bit for bit, except that any NaN matches any NaN, and exp/ln may be 2 ulp
off (CONTRACT 2.1).
"""

from __future__ import annotations

import math

import emu_support as E
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, assume, event, given, note, settings
from hypothesis import strategies as st

from tests import reference as R
from vcore.isa import TABLE

# The ops and their types come from the ISA table, so a new tensor op is covered the day it is added
# (the reference must know it: tests/reference.py).

# The bitwise ops and shifts have their own oracle entries (tensor_bitwise, tensor_shift) and their own
# differential tests (test_wave_two_vs_reference.py); every other op of these forms is tested here.
OWN_FILE = {"and", "or", "xor", "not", "shl", "shr"}
BINARY = tuple(r.op for r in TABLE if r.form == "tensor-binary" and r.op not in OWN_FILE)
UNARY = tuple(r.op for r in TABLE if r.form == "tensor-unary" and r.op not in OWN_FILE)
SCALAR = tuple(r.op for r in TABLE if r.form == "tensor-scalar" and r.op not in OWN_FILE)
ALL_T = ("f16", "bf16", "f32", "s16", "u16", "s32", "u32")
TYPES_OF = {r.op: r.types for r in TABLE if r.form.startswith("tensor-")}

SETTINGS = settings(max_examples=150, deadline=None, database=None, print_blob=True,
                    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large])

U64 = (1 << 64) - 1
MASK_WORDS = [0x5555555555555555, 0xAAAAAAAAAAAAAAAA, U64, 1, 1 << 63, 0xFFFFFFFF, 0xFFFFFFFF00000000,
              0x8000000000000001, 0x0F0F0F0F0F0F0F0F]


def _kind(op: str) -> str:
    return "binary" if op in BINARY else "unary" if op in UNARY else "scalar"


@st.composite
def masks(draw, t: str):
    lanes = 256 // R.SIZE[t]
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
def scalars(draw, t: str):
    """(assembly operand text or None for a register, value for the reference, register value)."""
    size = R.SIZE[t]
    if t in R.FLOAT_TYPES:
        value = draw(st.one_of(
            st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, math.inf, -math.inf, math.nan, 65504.0,
                             70000.0, 1e-7, 6e-8, 1e-40, 3.0e38, 0.1, -2.5]),
            st.floats(allow_nan=False, width=32),
            st.builds(lambda b: R.decode(b, t), st.integers(0, (1 << (8 * size)) - 1)),
        ))
    else:
        if t in R.SIGNED_TYPES:
            lo, hi = -(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1
        else:
            lo, hi = 0, (1 << (8 * size)) - 1
        value = draw(st.one_of(st.sampled_from([lo, hi, 0, 1, -1 if lo < 0 else 2]), st.integers(lo, hi)))
    if draw(st.integers(0, 3)) == 0:
        # scalar register: only the low bits (reinterpreted as T) count
        bits = R.encode(value, t)
        garbage = draw(st.integers(0, (1 << (49 - 8 * size)) - 1))
        return None, R.decode(bits, t), (garbage << (8 * size)) | bits
    text = E.float_literal(value) if t in R.FLOAT_TYPES else str(value)
    return text, value, None


def _dst_iterations_overlap(blk: int, rep: int, iters: int) -> bool:
    seen: dict[int, int] = {}
    for r in range(iters):
        for b in range(8):
            a = r * rep + b * blk
            if seen.setdefault(a, r) != r:
                return True
    return False


@st.composite
def tensor_cases(draw, ops):
    op = draw(st.sampled_from(ops))
    t = draw(st.sampled_from(TYPES_OF[op]))
    kind = _kind(op)
    profile = draw(st.sampled_from(["950", "950", "a2"]))
    if op in ("div", "rem") and not t.startswith(("f", "bf")):  # integer division: the 950's alone (13.7)
        profile = "950"
    ub_size = E.UB_SIZE[profile]
    size = R.SIZE[t]
    lanes = 256 // size
    nsrc = 2 if kind == "binary" else 1

    counter = draw(st.integers(0, 4)) == 0
    big = False
    if counter:
        count = draw(st.one_of(st.sampled_from([1, lanes - 1, lanes, lanes + 1, 2000]), st.integers(1, 2000)))
        iters, repeat, mask = -(-count // lanes), None, None
    else:
        count = None
        big = draw(st.integers(0, 9)) == 0
        repeat = draw(st.integers(21, 255)) if big else draw(st.one_of(st.sampled_from([1, 2]), st.integers(0, 20)))
        iters = repeat
        mask = draw(masks(t))

    blk_hi, rep_hi = (2, 8) if big else (4, 16)
    dst_blk = draw(st.integers(1, blk_hi))
    src_blk = [draw(st.integers(0, blk_hi)) for _ in range(nsrc)]
    dst_rep = draw(st.one_of(st.just(8), st.integers(0, rep_hi)))
    src_rep = [draw(st.one_of(st.just(8), st.integers(0, rep_hi))) for _ in range(nsrc)]

    def extent(blk, rep):
        return (max(iters - 1, 0) * rep + 7 * blk + 1) * 32

    dst_ext = extent(dst_blk, dst_rep)
    assume(dst_ext <= ub_size)
    dst = 32 * draw(st.integers(0, (ub_size - dst_ext) // 32))
    srcs = []
    for s in range(nsrc):
        ext = extent(src_blk[s], src_rep[s])
        assume(ext <= ub_size)
        how = draw(st.sampled_from(["same", "near", "any", "other"] if s else ["same", "near", "any"]))
        if how == "same":
            base = dst
        elif how == "near":
            base = dst + 32 * draw(st.integers(-16, 16))
        elif how == "other":
            base = srcs[0]
        else:
            base = 32 * draw(st.integers(0, (ub_size - ext) // 32))
        assume(base >= 0 and base + ext <= ub_size)
        srcs.append(base)

    if mask is not None and _dst_iterations_overlap(dst_blk, dst_rep, iters):
        event("masked, destination iterations overlap")

    scalar_text = scalar_value = reg_value = None
    if kind == "scalar":
        scalar_text, scalar_value, reg_value = draw(scalars(t))

    # assembly text: a field is written when it differs from its default, or at random
    mn = "V" + op.upper()
    operands = [f"[0x{dst:x}]"] + [f"[0x{b:x}]" for b in srcs]
    if kind == "scalar":
        operands.append(scalar_text if reg_value is None else "S7")
    fields = []
    if count is None and (repeat != 1 or draw(st.booleans())):
        fields.append(f"repeat={repeat}")
    names = (["dstblk", "src0blk", "src1blk", "dstrep", "src0rep", "src1rep"] if kind == "binary"
             else ["dstblk", "srcblk", "dstrep", "srcrep"])
    values = [dst_blk, *src_blk, dst_rep, *src_rep]
    defaults = [1] * (1 + nsrc) + [8] * (1 + nsrc)
    for name, v, d in zip(names, values, defaults, strict=True):
        if v != d or draw(st.booleans()):
            fields.append(f"{name}={v}")
    if mask is not None:
        fields.append(f"mask={mask}" if isinstance(mask, int) else f"mask=(0x{mask[0]:x}, 0x{mask[1]:x})")
    if count is not None:
        fields.append(f"count={count}")
    draw(st.randoms()).shuffle(fields)  # keyword fields come in any order
    line = f"{mn}.{t} " + ", ".join(operands + fields)
    if reg_value is not None:
        line = f"MOV S7, {reg_value}\n{line}"

    ref_kwargs = {"dst_blk": dst_blk, "src_blk": tuple(src_blk), "dst_rep": dst_rep, "src_rep": tuple(src_rep)}
    if count is not None:
        ref_kwargs["count"] = count
    else:
        ref_kwargs["repeat"] = repeat
        ref_kwargs["mask"] = mask
    if kind == "scalar":
        ref_kwargs["scalar"] = scalar_value
    seed = draw(st.integers(0, 2**32 - 1))
    return {"op": op, "t": t, "profile": profile, "line": line, "dst": dst, "srcs": tuple(srcs),
            "ref": ref_kwargs, "seed": seed, "ub_size": ub_size}


def check_case(case) -> None:
    note(f"profile {case['profile']}:\n{case['line']}")
    kw = case["ref"]
    event(f"{case['op']}.{case['t']}")
    event("profile " + case["profile"])
    event("counter mode" if "count" in kw else
          "no mask" if kw["mask"] is None else "continuous mask" if isinstance(kw["mask"], int) else "bit mask")
    if "repeat" in kw:
        event("repeat 0" if kw["repeat"] == 0 else "repeat 1..20" if kw["repeat"] <= 20 else "repeat 21..255")
    if case["dst"] in case["srcs"]:
        event("in place (dst == a src)")
    if "S7" in case["line"]:
        event("scalar from a register")
    rng = np.random.default_rng(case["seed"])
    image = E.random_image(rng, case["ub_size"], case["t"])
    want = image.copy()
    R.tensor_op(want, case["op"], case["t"], case["dst"], case["srcs"], **case["ref"])
    m, r = E.run_program(case["line"], case["profile"], ub=image)
    assert r.fault is None, f"{case['line']!r} faulted: {r.fault}"
    ulp = 2 if case["op"] in ("exp", "ln") else 0
    bad = E.mem_mismatches(m.ub, want, case["t"], ulp=ulp)
    assert not bad, (f"profile {case['profile']}, seed {case['seed']}:\n  {case['line']}\n"
                     + "\n".join("  " + b for b in bad))


@SETTINGS
@given(tensor_cases(BINARY))
def test_binary_tensor_ops_match_reference(case):
    check_case(case)


@SETTINGS
@given(tensor_cases(UNARY))
def test_unary_tensor_ops_match_reference(case):
    check_case(case)


@SETTINGS
@given(tensor_cases(SCALAR))
def test_scalar_tensor_ops_match_reference(case):
    check_case(case)


# A few fixed shapes that random search reaches only rarely.
FIXED = [
    # in place, repStride 8, 255 iterations over 64 KiB
    ("VMULS.f16 [0x0], [0x0], 1.5, repeat=255", "muls", "f16", 0x0, (0x0,),
     {"repeat": 255, "scalar": 1.5}),
    # repeat 0 does nothing
    ("VADD.s32 [0x100], [0x0], [0x0], repeat=0", "add", "s32", 0x100, (0x0, 0x0), {"repeat": 0}),
    # overlapping iterations: dst repStride 1 feeding the next iteration's source
    ("VADD.u16 [0x20], [0x0], [0x0], repeat=20, dstrep=1, src0rep=1, src1rep=1", "add", "u16", 0x20, (0x0, 0x0),
     {"repeat": 20, "dst_rep": 1, "src_rep": (1, 1)}),
    # source block stride 0 and repeat stride 0
    ("VEXP.f32 [0x1000], [0x0], repeat=3, srcblk=0, srcrep=0", "exp", "f32", 0x1000, (0x0,),
     {"repeat": 3, "src_blk": 0, "src_rep": 0}),
    # destination repeat stride 0: every iteration writes the same blocks, the last one wins
    ("VADD.f16 [0x8000], [0x0], [0x4000], repeat=9, dstrep=0", "add", "f16", 0x8000, (0x0, 0x4000),
     {"repeat": 9, "dst_rep": 0}),
    ("VMULS.s32 [0x8000], [0x0], 3, repeat=5, dstrep=0, dstblk=2, mask=40", "muls", "s32", 0x8000, (0x0,),
     {"repeat": 5, "dst_rep": 0, "dst_blk": 2, "mask": 40, "scalar": 3}),
    ("VSUB.f32 [0x8000], [0x0], [0x100], count=200, dstrep=0, src1rep=0", "sub", "f32", 0x8000, (0x0, 0x100),
     {"count": 200, "dst_rep": 0, "src_rep": (8, 0)}),
    # the last byte of UB (950)
    ("VABS.s16 [0x3ff00], [0x3ff00]", "abs", "s16", 0x3FF00, (0x3FF00,), {}),
    # counter mode with strides
    ("VMAX.f32 [0x2000], [0x0], [0x1000], count=130, dstblk=2, src1rep=9", "max", "f32", 0x2000, (0x0, 0x1000),
     {"count": 130, "dst_blk": 2, "src_rep": (8, 9)}),
]


def test_fixed_tensor_shapes_match_reference():
    for line, op, t, dst, srcs, kw in FIXED:
        for seed in range(2):
            rng = np.random.default_rng(seed)
            image = E.random_image(rng, E.UB_SIZE["950"], t)
            want = image.copy()
            R.tensor_op(want, op, t, dst, srcs, **kw)
            m, r = E.run_program(line, "950", ub=image)
            assert r.fault is None, f"{line}: {r.fault}"
            bad = E.mem_mismatches(m.ub, want, t, ulp=2 if op in ("exp", "ln") else 0)
            assert not bad, line + "\n" + "\n".join(bad)


# Regression: the emulator once kept the earlier iteration's result when a masked instruction's
# destination iterations overlapped (0 < dstrep < 8*dstblk); found by the random tests above.
@pytest.mark.parametrize("fields", ["mask=128", "mask=100", "mask=(0xFFFFFFFFFFFFFFFF, 0xFF)"])
def test_masked_overlapping_iterations_later_iteration_wins(fields):
    # iteration 0 writes halves 0..127 from src 0..127; iteration 1 (dstrep=4: 4 blocks further)
    # writes halves 64..191 from src 128..255: halves 64..99 (its lanes 0..35, active under every
    # mask here) must come from iteration 1.
    src = np.arange(256, dtype=np.float16)
    image = np.zeros(0x4000, dtype=np.uint8)
    image[0x2000:0x2200] = src.view(np.uint8)
    line = f"VABS.f16 [0x0], [0x2000], repeat=2, dstrep=4, {fields}"
    m, r = E.run_program(line, ub=image)
    assert r.fault is None, r.fault
    np.testing.assert_array_equal(m.read("ub", 0x80, "f16", 36), src[128:164], err_msg=line)
