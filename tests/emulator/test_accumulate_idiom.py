"""The accumulate idiom against tests/reference.py: ``VADD.T [acc], [acc], [x], dstrep=0, src0rep=0``
and its kin fold every iteration of the other source (or the scalar) into one accumulator, each
step rounded to T, in order (CONTRACT 2.1: an iteration reads its sources before writing).

Every op (binary and scalar forms) x every tensor type x accumulator position (source 0, and
source 1 for the ops whose source 1 may be it) x lane selection (all, continuous mask, bit mask,
counter mode) x repeat 1, 2, 3, 64, 255, on random data with NaNs, infinities, rounding ties and
integer overflow; bit for bit, except that any NaN matches any NaN (the reference's NaNs are
canonical). Repeat 255 takes one lane selection per case, turn about, to bound the reference's
time. A second test holds the NaN payloads to those of the same iterations issued one
instruction at a time (an instruction whose iterations do not depend on each other).
"""

from __future__ import annotations

import itertools

import emu_support as E
import numpy as np
import pytest

from tests import reference as R

TYPES = ("f16", "bf16", "f32", "s16", "u16", "s32", "u32")
BINARY = ("add", "sub", "mul", "max", "min")
SCALAR = ("adds", "muls", "maxs", "mins")
MODES = ("all", "continuous", "bit", "count")
UB = E.UB_SIZE["950"]
ACC, X = 0x30000, 0x0  # the accumulator's blocks, the other source's iterations
REF_BYTES = 0x31000  # the reference works on UB up to the accumulator's end (blk <= 2)

CASES = [(op, t, pos) for op in BINARY for t in TYPES for pos in ((0,) if op == "sub" else (0, 1))]
CASES += [(op, t, 0) for op in SCALAR for t in TYPES]


def _ties(t: str) -> list[float]:
    """Values whose sums round to even in T: 1 + half an ulp of 1, the largest finite, ..."""
    p = {"f16": 11, "bf16": 8, "f32": 24}[t]
    big = {"f16": 65504.0, "bf16": 3.3895313892515355e38, "f32": 3.4028234663852886e38}[t]
    return [1.0, 2.0 ** -p, 3 * 2.0 ** -p, -(2.0 ** -p), big, -big, 0.0, -0.0, 2.0 ** (p - 1), 1.5]


def _image(rng: np.random.Generator, t: str) -> np.ndarray:
    image = E.random_image(rng, UB, t)
    if t in R.FLOAT_TYPES:
        size = R.SIZE[t]
        elems = image.view(E._UINT[size])
        ties = np.array([R.encode(v, t) for v in _ties(t)], dtype=np.uint64).astype(E._UINT[size])
        pick = rng.random(elems.size) < 0.25
        elems[pick] = ties[rng.integers(0, len(ties), int(pick.sum()))]
    return image


def _instruction(op, t, pos, repeat, mode, rng, blk, xrep):
    """(assembly text, reference operands, reference keywords)."""
    lanes = 256 // R.SIZE[t]
    kw: dict = {"dst_rep": 0, "dst_blk": blk}
    fields = [f"dstrep=0, dstblk={blk}"]
    if op in SCALAR:
        value = R.decode(int(rng.integers(0, 1 << (8 * R.SIZE[t]))), t)
        if t in R.FLOAT_TYPES and rng.random() < 0.5:
            value = float(rng.choice(_ties(t)))
        bits = R.encode(value, t)
        head = f"MOV S7, {bits}\nV{op.upper()}.{t} [0x{ACC:x}], [0x{ACC:x}], S7"
        fields.append(f"srcrep=0, srcblk={blk}")
        srcs = (ACC,)
        kw.update(src_rep=0, src_blk=blk, scalar=value)
    else:
        srcs = (ACC, X) if pos == 0 else (X, ACC)
        reps, blks = [0, 0], [blk, blk]
        reps[1 - pos], blks[1 - pos] = xrep, 1
        head = f"V{op.upper()}.{t} [0x{ACC:x}], [0x{srcs[0]:x}], [0x{srcs[1]:x}]"
        fields.append(f"src0rep={reps[0]}, src1rep={reps[1]}, src0blk={blks[0]}, src1blk={blks[1]}")
        kw.update(src_rep=tuple(reps), src_blk=tuple(blks))
    if mode == "count":
        count = int(rng.integers((repeat - 1) * lanes + 1, repeat * lanes + 1))
        if repeat > 1 and rng.random() < 0.3:
            count = repeat * lanes - int(rng.integers(1, lanes))  # a partial last iteration
        fields.append(f"count={count}")
        kw["count"] = count
    else:
        fields.append(f"repeat={repeat}")
        kw["repeat"] = repeat
        if mode == "continuous":
            kw["mask"] = int(rng.choice([1, lanes // 2, lanes - 1, int(rng.integers(1, lanes + 1))]))
            fields.append(f"mask={kw['mask']}")
        elif mode == "bit":
            low = int(rng.integers(1, 1 << 63)) | int(rng.integers(0, 2)) << 63
            high = 0 if lanes == 64 else int(rng.integers(0, 1 << 63))
            kw["mask"] = (low, high)
            fields.append(f"mask=(0x{low:x}, 0x{high:x})")
    return head + ", " + ", ".join(fields), srcs, kw


def _runs(index: int):
    """(repeat, mode) pairs of a case: all modes up to repeat 64, one mode at repeat 255."""
    small = list(itertools.product((1, 2, 3, 64), MODES))
    return [*small, (255, MODES[index % len(MODES)])]


@pytest.mark.parametrize(("op", "t", "pos"), CASES, ids=[f"{op}.{t}-acc{pos}" for op, t, pos in CASES])
def test_accumulate_matches_reference(op, t, pos):
    index = CASES.index((op, t, pos))
    rng = np.random.default_rng(index)
    for repeat, mode in _runs(index):
        blk = int(rng.choice([1, 1, 2]))
        xrep = int(rng.choice([8, 8, 0, 1, 3])) if repeat < 255 else int(rng.choice([8, 0, 1]))
        line, srcs, kw = _instruction(op, t, pos, repeat, mode, rng, blk, xrep)
        image = _image(rng, t)
        want = image[:REF_BYTES].copy()
        R.tensor_op(want, op, t, ACC, srcs, **kw)
        m, r = E.run_program(line, ub=image)
        assert r.fault is None, f"{line}: {r.fault}"
        bad = E.mem_mismatches(m.ub[:REF_BYTES], want, t)
        assert not bad, line + "\n" + "\n".join(bad)
        assert np.array_equal(m.ub[REF_BYTES:], image[REF_BYTES:]), line


def _nan_image(rng: np.random.Generator, t: str) -> np.ndarray:
    """A UB image of ``t`` where 2 % of the elements are NaNs of random payloads and signs."""
    image = E.random_image(rng, UB, t)
    uint = E._UINT[R.SIZE[t]]
    elems = image.view(uint)
    exp = uint.type({"f16": 0x7C00, "bf16": 0x7F80, "f32": 0x7F800000}[t])
    fraction = uint.type((np.iinfo(uint).max >> 1) ^ int(exp))
    nan = rng.random(elems.size) < 0.02
    elems[nan] |= exp
    elems[nan & ((elems & fraction) == 0)] |= uint.type(1)
    return image


@pytest.mark.parametrize("t", ("f16", "bf16", "f32"))
@pytest.mark.parametrize(("op", "pos"), [(op, pos) for op in BINARY for pos in ((0,) if op == "sub" else (0, 1))])
def test_nan_payloads_are_those_of_one_iteration_at_a_time(op, pos, t):
    # The reference makes every NaN canonical; the emulator keeps payloads (quieted). The folded
    # instruction must keep exactly the ones its iterations give one instruction at a time.
    rng = np.random.default_rng(7)
    for repeat in (2, 64, 255):
        mask = f"mask=(0x{int(rng.integers(1, 1 << 63)):x}, 0x0)"
        image = _nan_image(rng, t)
        folded, r = E.run_program(_binary(op, t, pos, X, 1, repeat, mask), ub=image)
        assert r.fault is None, r.fault
        single, r = E.run_program("\n".join(_binary(op, t, pos, X + 32 * k, 0, 1, mask) for k in range(repeat)),
                                  ub=image)
        assert r.fault is None, r.fault
        assert np.array_equal(folded.ub, single.ub), _binary(op, t, pos, X, 1, repeat, mask)


def _binary(op: str, t: str, pos: int, x: int, xrep: int, repeat: int, mask: str) -> str:
    a, b = (ACC, x) if pos == 0 else (x, ACC)
    reps = f"src0rep=0, src1rep={xrep}" if pos == 0 else f"src0rep={xrep}, src1rep=0"
    return f"V{op.upper()}.{t} [0x{ACC:x}], [0x{a:x}], [0x{b:x}], dstrep=0, {reps}, {mask}, repeat={repeat}"


def test_scalar_nan_payloads_are_those_of_one_iteration_at_a_time():
    rng = np.random.default_rng(8)
    for op, t in itertools.product(SCALAR, ("f16", "f32")):
        nan = {"f16": 0x7D23, "f32": 0xFF812345}[t]  # a signalling NaN scalar
        body = f"V{op.upper()}.{t} [0x{ACC:x}], [0x{ACC:x}], S7, dstrep=0, srcrep=0"
        image = E.random_image(rng, UB, t)
        folded, r = E.run_program(f"MOV S7, {nan}\n{body}, repeat=5", ub=image)
        assert r.fault is None, r.fault
        single, r = E.run_program(f"MOV S7, {nan}\n" + "\n".join([body] * 5), ub=image)
        assert np.array_equal(folded.ub, single.ub), (op, t)
