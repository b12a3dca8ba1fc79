"""Differential test: the reductions of CONTRACT 6.4 against tests/reference.py.

Tensor VCADD, VCPADD, VCMAX/VCMIN (every order=), VCGADD/VCGMAX/VCGMIN on random shapes from a
fixed seed: repeat (0 included), source strides, destination repeat strides (0: every iteration
writes the same unit, the last one stays), masks of both kinds and counter mode, on both profiles
(a datablock with no active lane: a2 leaves it, the 950 writes the identity), with values drawn so
that the pairwise tree's order matters (large and small magnitudes mixed, specials sprinkled in)
or, for max and min, from a few values so that ties (and +0 against -0) are common. The whole UB
must equal the reference's: bit for bit, any NaN matching any NaN (a NaN winner's lane must match).
Register VREDUCE.O.T under random Pm, every type. Plus cases worked by hand.
"""

from __future__ import annotations

import emu_support as E
import numpy as np
import pytest

from tests import reference as R

U64 = (1 << 64) - 1
CASES = 210


def _mask(rng, lanes: int):
    kind = rng.integers(0, 4)
    if kind == 0:
        return None, ""
    if kind == 1:
        n = int(rng.integers(1, lanes + 1))
        return n, f", mask={n}"
    low = int(rng.integers(1, U64, dtype=np.uint64))
    high = 0 if lanes == 64 else int(rng.integers(0, U64, dtype=np.uint64))
    return (low, high), f", mask=(0x{low:x}, 0x{high:x})"


OPS = ("cadd", "cpadd", "cmax", "cmin", "cgadd", "cgmax", "cgmin")
_MNEMONIC = {"cadd": "VCADD", "cpadd": "VCPADD", "cmax": "VCMAX", "cmin": "VCMIN", "cgadd": "VCGADD",
             "cgmax": "VCGMAX", "cgmin": "VCGMIN"}
_ORACLE = {"cadd": R.tensor_cadd, "cpadd": R.tensor_cpadd, "cmax": R.tensor_cmax, "cmin": R.tensor_cmin,
           "cgadd": R.tensor_cgadd, "cgmax": R.tensor_cgmax, "cgmin": R.tensor_cgmin}


def _case(seed: int):
    rng = np.random.default_rng(seed)
    op = OPS[seed % len(OPS)]
    types = R.REDUCE_TYPES if op in ("cadd", "cmax", "cmin") else R.REDUCE_FLOAT_TYPES
    t = str(types[rng.integers(0, len(types))])
    lanes = 256 // R.SIZE[t]
    profile = "a2" if rng.integers(0, 3) == 0 else "950"
    src_blk, src_rep, dst_rep = int(rng.integers(0, 3)), int(rng.integers(0, 17)), int(rng.integers(0, 4))
    fields = f", srcblk={src_blk}, srcrep={src_rep}, dstrep={dst_rep}"
    ref = {"src_blk": src_blk, "src_rep": src_rep, "dst_rep": dst_rep}
    if op in ("cmax", "cmin"):
        order = R.CMAX_ORDERS[rng.integers(0, 4)]
        ref["order"] = order
        if order != "vi" or rng.integers(0, 2):
            fields += f", order={order}"
    if op.startswith("cg"):
        ref["profile"] = profile
    if rng.integers(0, 4) == 0:
        count = int(rng.integers(1, 6 * lanes))
        fields += f", count={count}"
        ref["count"] = count
    else:
        repeat = int(rng.integers(0, 6))
        mask, text = _mask(rng, lanes)
        fields += f", repeat={repeat}{text}"
        ref.update(repeat=repeat, mask=mask)
    line = f"{_MNEMONIC[op]}.{t} [0x20000], [0x0]{fields}\nHALT\n"
    return op, t, profile, line, ref, seed


def _image(rng, op: str, t: str, nbytes: int) -> np.ndarray:
    """Random UB; for max and min half the time drawn from a handful of values (ties; +0 and -0)."""
    image = E.random_image(rng, nbytes, t)
    if op in ("cmax", "cmin", "cgmax", "cgmin") and rng.integers(0, 2):
        size = R.SIZE[t]
        few = E.random_elements(rng, t, 4, special_rate=0.3).view(f"<u{size}")
        if t in R.FLOAT_TYPES:  # +0 and -0
            few = np.concatenate([few, np.array([0, 1 << (8 * size - 1)], dtype=few.dtype)])
        image[:0x20000] = few[rng.integers(0, len(few), 0x20000 // size)].view(np.uint8)
    return image


@pytest.mark.parametrize("seed", range(CASES))
def test_tensor_reductions_match_reference(seed):
    op, t, profile, line, ref, seed = _case(seed)
    rng = np.random.default_rng(1000 + seed)
    image = _image(rng, op, t, E.UB_SIZE[profile])
    want = image.copy()
    _ORACLE[op](want, t, 0x20000, 0x0, **ref)
    m, r = E.run_program(line, profile, ub=image)
    assert r.fault is None, f"{line!r}: {r.fault}"
    bad = E.mem_mismatches(m.ub, want, t)
    assert not bad, f"{profile}: {line}" + "\n".join(bad)


@pytest.mark.parametrize("t", R.REDUCE_TYPES)
def test_register_vreduce_matches_reference(t):
    """VREDUCE.SUM/MAX/MIN.T under random Pm (an empty one too), values with ties and specials."""
    rng = np.random.default_rng(R.SIZE[t] * 7 + len(t))
    size = R.SIZE[t]
    cases = []
    for k in range(12):
        a = E.random_elements(rng, t, 256 // size, special_rate=0.2)
        if k % 3 == 2:  # ties
            a = a[rng.integers(0, 3, a.size)]
        pm = rng.random(256) < (0.0 if k == 11 else 0.5 if k % 2 else 1.0)
        pm = np.repeat(pm[::size], size)
        cases.append((a.view(np.uint8), pm))
    bad = []
    for op in ("SUM", "MAX", "MIN"):
        for a, pm in cases:
            junk = rng.integers(0, 256, 256, dtype=np.uint8)
            m, r, regs = E.run_function(f"VREDUCE.{op}.{t} V1, V0, P0", v={0: a, 1: junk}, p={0: pm}, dump_v=[1])
            assert r.fault is None, r.fault
            want = R.vreduce(op, t, a, pm)
            got = regs.v[1]
            if op == "SUM" and t in R.FLOAT_TYPES:  # any NaN matches any NaN
                pair = [np.array(x[:size]).view(R.DTYPES[t])[0] for x in (got, want)]
                if np.isnan(pair[0]) and np.isnan(pair[1]) and not got[size:].any() and not want[size:].any():
                    continue
            if not np.array_equal(got, want):
                bad.append(f"VREDUCE.{op}.{t}: got {got[:8].tolist()} want {want[:8].tolist()}")
    assert not bad, "\n".join(bad[:10])


def test_the_tree_order_of_an_f16_sum_by_hand():
    # 2048 and 127 ones. Sequentially every + 1 rounds back to 2048 (2049 is a tie, to even). In the
    # tree: 2048 + 1 -> 2048 again, then + 2 = 2050, + 4 = 2054, + 8 = 2062, + 16 = 2078, + 32 = 2110,
    # + 64 = 2174 (f16 steps by 2 there, and each of these is exact).
    m, r = E.run_program(".ubfill 0, f16, 128, 1.0\n.ub 0, f16, 2048.0\nVCADD.f16 [0x100], [0]\nHALT\n")
    assert r.fault is None
    assert float(m.ub[0x100:0x102].view(np.float16)[0]) == 2174.0


def test_integer_sums_wrap():
    # 128 lanes of 30000 (s16): 3,840,000 mod 65536 = 38,656, as s16 -26,880.
    m, r = E.run_program(".ubfill 0, s16, 128, 30000\nVCADD.s16 [0x100], [0]\nHALT\n")
    assert r.fault is None
    assert int(m.ub[0x100:0x102].view(np.int16)[0]) == 3_840_000 % 65536 - 65536


def test_vcmax_orders_ties_and_nan_by_hand():
    # Row 0 (f16, 128 lanes): 5.0 at lanes 9 and 40 (a tie: the lowest lane, 9), -0 at lane 0, the
    # rest -1. Row 1: a NaN at lane 70 and one at lane 100: the first NaN wins, lane 70. VCMIN of row 0:
    # -1 first at lane 1; of row 1: the NaN at lane 70. VCMIN over +0 (lane 3) and -0 (lane 2) of row 2
    # (the rest 1): -0 at lane 2.
    text = """\
.ubfill 0, f16, 384, -1.0
.ub 0, f16, -0.0
.ub 18, f16, 5.0
.ub 80, f16, 5.0
.ub 256 + 140, f16, nan
.ub 256 + 200, f16, nan
.ubfill 512, f16, 128, 1.0
.ub 512 + 4, f16, -0.0, 0.0
VCMAX.f16 [0x1000], [0], repeat=2
VCMAX.f16 [0x1020], [0], repeat=2, order=iv
VCMAX.f16 [0x1040], [0], repeat=2, order=v
VCMAX.f16 [0x1060], [0], repeat=2, order=i
VCMIN.f16 [0x1080], [0], repeat=3, order=vi
HALT
"""
    m, r = E.run_program(text)
    assert r.fault is None, r.fault
    u16 = m.ub[0x1000:0x10A0].view(np.uint16)
    f16 = m.ub[0x1000:0x10A0].view(np.float16)
    assert (float(f16[0]), int(u16[1])) == (5.0, 9) and np.isnan(f16[2]) and int(u16[3]) == 70
    assert (int(u16[16]), float(f16[17]), int(u16[18])) == (9, 5.0, 70) and np.isnan(f16[19])
    assert float(f16[32]) == 5.0 and np.isnan(f16[33])
    assert m.ub[0x1060:0x1068].view(np.uint32).tolist() == [9, 70]
    assert (float(f16[64]), int(u16[65]), int(u16[67])) == (-1.0, 1, 70) and np.isnan(f16[66])  # NaN wins a min too
    assert int(u16[68]) == 0x8000 and int(u16[69]) == 2  # -0 at lane 2 ties +0 at lane 3: the lower lane


@pytest.mark.parametrize(("profile", "want"), [("950", [-np.inf, 3.0, -np.inf, 3.0]), ("a2", [7.0, 3.0, 7.0, 3.0])])
def test_an_empty_datablock_is_the_identity_on_950_and_untouched_on_a2(profile, want):
    # f32: mask 0xFF00FF00... leaves blocks 0, 2, 4, 6 (lanes 0-7, 16-23, ...) with no active lane.
    text = """\
.ubfill 0, f32, 64, 3.0
.ubfill 0x1000, f32, 8, 7.0
VCGMAX.f32 [0x1000], [0], mask=(0xFF00FF00FF00FF00, 0)
HALT
"""
    m, r = E.run_program(text, profile)
    assert r.fault is None, r.fault
    assert m.ub[0x1000:0x1010].view(np.float32).tolist() == want
