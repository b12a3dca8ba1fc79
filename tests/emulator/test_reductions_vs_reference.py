"""Differential test: the tensor sums VCADD and VCPADD (CONTRACT 6.4) against tests/reference.py.

Random shapes from a fixed seed: repeat (0 included), source strides, destination repeat strides
(0: every iteration writes the same unit, the last one stays), masks of both kinds and counter mode,
on both profiles, with values drawn so that the pairwise tree's order matters (large and small
magnitudes mixed, specials sprinkled in). The whole UB must equal the reference's: bit for bit,
any NaN matching any NaN. Plus the f16 row whose tree sum differs from a sequential one, by hand.
"""

from __future__ import annotations

import emu_support as E
import numpy as np
import pytest

from tests import reference as R

U64 = (1 << 64) - 1
CASES = 120


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


def _case(seed: int):
    rng = np.random.default_rng(seed)
    op = "cpadd" if rng.integers(0, 3) == 0 else "cadd"
    types = R.REDUCE_FLOAT_TYPES if op == "cpadd" else ("f16", "bf16", "f32", "s16", "u16", "s32", "u32")
    t = str(types[rng.integers(0, len(types))])
    lanes = 256 // R.SIZE[t]
    profile = "a2" if rng.integers(0, 3) == 0 else "950"
    src_blk, src_rep, dst_rep = int(rng.integers(0, 3)), int(rng.integers(0, 17)), int(rng.integers(0, 4))
    fields = f", srcblk={src_blk}, srcrep={src_rep}, dstrep={dst_rep}"
    ref = {"src_blk": src_blk, "src_rep": src_rep, "dst_rep": dst_rep}
    if rng.integers(0, 4) == 0:
        count = int(rng.integers(1, 6 * lanes))
        fields += f", count={count}"
        ref["count"] = count
    else:
        repeat = int(rng.integers(0, 6))
        mask, text = _mask(rng, lanes)
        fields += f", repeat={repeat}{text}"
        ref.update(repeat=repeat, mask=mask)
    line = f"VC{op[1:].upper()}.{t} [0x20000], [0x0]{fields}\nHALT\n"
    return op, t, profile, line, ref, seed


@pytest.mark.parametrize("seed", range(CASES))
def test_tensor_sums_match_reference(seed):
    op, t, profile, line, ref, seed = _case(seed)
    rng = np.random.default_rng(1000 + seed)
    image = E.random_image(rng, E.UB_SIZE[profile], t)
    want = image.copy()
    (R.tensor_cpadd if op == "cpadd" else R.tensor_cadd)(want, t, 0x20000, 0x0, **ref)
    m, r = E.run_program(line, profile, ub=image)
    assert r.fault is None, f"{line!r}: {r.fault}"
    bad = E.mem_mismatches(m.ub, want, t)
    assert not bad, f"{profile}: {line}" + "\n".join(bad)


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
