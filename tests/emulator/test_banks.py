"""UB bank-conflict model (emulator/banks.py).

Every expected value below is worked out by hand from the rules in SEMANTICS.md ("UB banks") and
the module docstring; the reasoning is in the comments. Notation: an operand "at B" with block
stride 1 has blocks B, B+0x20, ..., B+0xE0; its 32-byte rows are B>>5 .. (B>>5)+7.

a2 : group = (addr >> 5) & 15, tier = (addr >> 16) & 3, bank = tier*16 + group; 2 beats
     (beat 0 = blocks 0-3 of every operand, beat 1 = blocks 4-7).
     beat cycles = max(max reads/group, max writes/group, 1) + (1 if a read and a write share a bank).
950: group = (addr >> 5) & 7, bank bit = (addr >> 8) & 1, bank = group*2 + bit; 1 beat (all 8 blocks).
     distinct reads merge; bank cycles = reads + writes; group cycles = max(w, ceil((r+w)/2)).
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from emulator.banks import BankRules, conflict_cycles, explain

A2 = BankRules("a2", 2)
N950 = BankRules("950", 1)


def op(base: int, iterations: int = 1, rep: int = 8, blk: int = 1) -> np.ndarray:
    """(iterations, 8) block addresses: base + (r*rep + b*blk)*32 (strides in 32-byte blocks)."""
    r = np.arange(iterations, dtype=np.int64)[:, None]
    b = np.arange(8, dtype=np.int64)[None, :]
    return base + (r * rep + b * blk) * 32


def operands(*ops: np.ndarray) -> np.ndarray:
    """Stack (iterations, 8) operands into (iterations, n, 8); no operands -> n = 0."""
    if not ops:
        raise AssertionError("use none_like() for an empty operand list")
    return np.stack(ops, axis=1)


def none_like(iterations: int) -> np.ndarray:
    return np.zeros((iterations, 0, 8), dtype=np.int64)


def cc(rules, srcs, dst=None):
    reads = operands(*srcs)
    writes = none_like(reads.shape[0]) if dst is None else operands(dst)
    out = conflict_cycles(rules, reads, writes)
    assert out.dtype == np.int64
    assert out.shape == (reads.shape[0],)
    return out.tolist()


# ---------------------------------------------------------------------------------------------
# a2


def test_a2_vadd_conflict_free():
    # src0 0x0: rows 0..7 -> groups 0-7; src1 0x2080: row 0x104 = 260, 260 & 15 = 4 -> groups 4-11;
    # dst 0x4100: row 0x208 = 520, 520 & 15 = 8 -> groups 8-15. All tier 0.
    # beat 0: reads groups 0-3 and 4-7 (one read each), writes 8-11 -> read banks {0..7} vs write
    #         banks {8..11}: disjoint -> 1 cycle.
    # beat 1: reads 4-7 and 8-11, writes 12-15 -> 1 cycle.   Total +0.
    assert cc(A2, [op(0x0), op(0x2080)], op(0x4100)) == [0]


@pytest.mark.parametrize("delta", [0x200, 0x400, 0x1000, 0x3E00])
def test_a2_sources_multiple_of_512_apart(delta):
    # src1 = src0 + k*512: 512 B = 16 rows, so (row & 15) is unchanged -> src1 lands in the same
    # groups 0-7 as src0 (tier 0 for every delta here: addresses < 0x10000).
    # beat 0: groups 0-3 have 2 reads each -> max 2; writes (dst 0x4100, groups 8-11) 1 each;
    #         no read/write bank shared -> 2 cycles (+1).   beat 1: groups 4-7, same -> +1.   Total +2.
    assert cc(A2, [op(0x0), op(delta)], op(0x4100)) == [2]


def test_a2_read_write_same_bank():
    # src0 0x0 (groups 0-7), src1 0x2080 (groups 4-11), dst 0x8000: row 1024, 1024 & 15 = 0 ->
    # groups 0-7, tier (0x8000 >> 16) & 3 = 0.
    # beat 0: reads 0-3 (src0), 4-7 (src1) -> 1 read per group; writes 0-3 -> 1 write per group;
    #         write banks 0-3 == src0's read banks 0-3 -> 1 + 1 = 2 cycles (+1).
    # beat 1: reads 4-7 (src0), 8-11 (src1); writes 4-7 = src0's banks -> +1.   Total +2.
    assert cc(A2, [op(0x0), op(0x2080)], op(0x8000)) == [2]


def test_a2_read_write_same_group_other_tier_is_free():
    # Same as above but dst 0x10000: row 2048, & 15 = 0 -> groups 0-7, tier (0x10000 >> 16) & 3 = 1
    # -> banks 16..23. Reads are in tier 0 (banks 0..11): a read and a write share a group but not
    # a bank, one read and one write per group -> no conflict.   Total +0.
    assert cc(A2, [op(0x0), op(0x2080)], op(0x10000)) == [0]


def test_a2_two_reads_same_group_other_tier_still_conflict():
    # src1 0x10000: groups 0-7 like src0 0x0, but tier 1. Two reads in one group conflict whatever
    # the tier (the group serves one row per cycle): beat 0 groups 0-3 have 2 reads -> +1, beat 1
    # groups 4-7 -> +1. dst 0x4100 (groups 8-15, tier 0) shares no bank with the reads.   Total +2.
    assert cc(A2, [op(0x0), op(0x10000)], op(0x4100)) == [2]


def test_a2_two_writes_same_group_conflict():
    # dst 0x0 with block stride 16 (512 B): rows 0, 16, ..., 112 -> all group 0 (tier 0), 8 distinct rows.
    # src 0x4100: groups 8-15, tier 0 -> no bank shared with the writes.
    # beat 0: 4 writes to group 0 -> 4 cycles (+3); beat 1: the other 4 -> +3.   Total +6.
    assert cc(A2, [op(0x4100)], op(0x0, blk=16)) == [6]


def test_a2_same_source_twice_conflicts():
    # src0 == src1 == 0x0: a2 does not merge reads -> 2 reads in each of groups 0-3 (beat 0) and
    # 4-7 (beat 1) -> +1 per beat. dst 0x4100 groups 8-15 -> no shared bank.   Total +2.
    assert cc(A2, [op(0x0), op(0x0)], op(0x4100)) == [2]


def test_a2_in_place_unary():
    # dst == src == 0x0: every block is read and written in the same bank (group b, tier 0).
    # beat 0: 1 read and 1 write per group 0-3 -> max 1, + 1 for the shared bank -> 2 (+1); beat 1 same.
    assert cc(A2, [op(0x0)], op(0x0)) == [2]


def test_a2_block_stride_zero():
    # src 0x0 with block stride 0: all 8 blocks are the row at 0x0 (group 0). No merging on a2.
    # beat 0: 4 reads of group 0 -> 4 cycles (+3); beat 1: again 4 -> +3. dst 0x4100 (groups 8-15)
    # shares no bank.   Total +6.
    assert cc(A2, [op(0x0, blk=0)], op(0x4100)) == [6]


def test_a2_overlap_only_across_beats_is_free():
    # src1 = src0 + 128 B = 4 rows -> groups 4-11 against src0's 0-7. Group 4-7 is hit by src0 in
    # beat 1 (blocks 4-7) but by src1 in beat 0 (blocks 0-3): different beats, no conflict.
    # beat 0: src0 0-3, src1 4-7; beat 1: src0 4-7, src1 8-11. No dst.   Total +0.
    assert cc(A2, [op(0x0), op(0x80)]) == [0]
    # The same layout served in ONE beat (beats=1) would put 2 reads in each of groups 4-7 -> +1.
    assert cc(BankRules("a2", 1), [op(0x0), op(0x80)]) == [1]


def test_a2_no_sources_only_writes():
    # A dup-like instruction: no sources, dst 0x0 contiguous -> 1 write per group per beat -> +0;
    # dst block stride 16 -> 4 writes in group 0 per beat -> +3 +3 = +6.
    n = 1
    assert conflict_cycles(A2, none_like(n), operands(op(0x0))).tolist() == [0]
    assert conflict_cycles(A2, none_like(n), operands(op(0x0, blk=16))).tolist() == [6]


# ---------------------------------------------------------------------------------------------
# 950


def test_950_unary_conflict_free():
    # Kernel B's layout: src 0x0 (rows 0..7: groups 0-7, bank bit (row >> 3) & 1 = 0),
    # dst 0x4100 (rows 520..527: 520 & 7 = 0 -> groups 0-7; (520 >> 3) & 1 = 65 & 1 = 1 -> bit 1).
    # Each group: bank 0 has 1 read, bank 1 has 1 write -> banks 1 cycle; group r=1, w=1 ->
    # max(1, ceil(2/2)) = 1.   Total +0.
    assert cc(N950, [op(0x0)], op(0x4100)) == [0]


def test_950_two_reads_different_banks_free():
    # src0 0x0 (bank bit 0), src1 0x100: row 8, 8 & 7 = 0 -> groups 0-7, (8 >> 3) & 1 = 1 -> bit 1.
    # Each bank 1 read; each group r=2, w=0 -> ceil(2/2) = 1.   Total +0.
    assert cc(N950, [op(0x0), op(0x100)]) == [0]


@pytest.mark.parametrize("src1", [0x200, 0x400, 0x1200])
def test_950_two_reads_same_bank(src1):
    # 512-aligned (row multiple of 16 -> bank bit 0, groups 0-7), distinct from src0 0x0:
    # bank (g, 0) gets 2 distinct reads -> 2 cycles; group r=2 -> 1 cycle.   Total +1.
    assert cc(N950, [op(0x0), op(src1)]) == [1]


def test_950_two_reads_same_bank_with_dst_elsewhere():
    # As above, plus dst 0x4100 (groups 0-7, bank bit 1): banks (g,0) 2 reads -> 2, banks (g,1)
    # 1 write -> 1; group r=2, w=1 -> max(1, ceil(3/2) = 2) = 2.   beat = 2 -> Total +1.
    assert cc(N950, [op(0x0), op(0x200)], op(0x4100)) == [1]


def test_950_binary_op_group_limit():
    # src0 0x0 (bit 0), src1 0x100 (bit 1), dst 0x4300: row 536, 536 & 7 = 0, (536 >> 3) & 1 = 67 & 1 = 1
    # -> bit 1. Banks: (g,0) 1 read -> 1; (g,1) 1 read + 1 write -> 2. Group r=2, w=1 -> 2.  Total +1.
    # (Three VL operands always cover every group twice for reads and once for the write, so a
    # group needs ceil(3/2) = 2 cycles: "2 VL reads, or 1 read and 1 write, per cycle".)
    assert cc(N950, [op(0x0), op(0x100)], op(0x4300)) == [1]


def test_950_kernel_a_layout():
    # src0 0x0, src1 0x5000 (row 640: & 7 = 0, (640 >> 3) & 1 = 80 & 1 = 0), dst 0xA000 (row 1280:
    # & 7 = 0, 160 & 1 = 0): everything in banks (g, 0). Bank: 2 distinct reads + 1 write = 3
    # cycles; group r=2, w=1 -> 2.  beat = 3 -> Total +2.
    assert cc(N950, [op(0x0), op(0x5000)], op(0xA000)) == [2]


def test_950_read_write_same_bank():
    # Unary: src 0x0 (bank bit 0), dst 0x200 (row 16: groups 0-7, bit 0): each bank (g,0) has
    # 1 read + 1 write -> 2 cycles; group r=1, w=1 -> 1.   Total +1.
    assert cc(N950, [op(0x0)], op(0x200)) == [1]
    # In place (dst == src) is the same count: the write is not merged with the read.
    assert cc(N950, [op(0x0)], op(0x0)) == [1]
    # dst 0x100 (bit 1) instead: read and write in different banks of each group -> +0.
    assert cc(N950, [op(0x0)], op(0x100)) == [0]


def test_950_same_source_twice_merges():
    # src0 == src1 == 0x0: reads of one address merge -> 1 distinct read per bank (g,0).
    # No dst: 1 cycle.   With dst 0x4100 (bit 1): banks 1 each; group r=1, w=1 -> 1.   Both +0.
    assert cc(N950, [op(0x0), op(0x0)]) == [0]
    assert cc(N950, [op(0x0), op(0x0)], op(0x4100)) == [0]


def test_950_block_stride_zero():
    # src 0x0 with block stride 0: 8 reads of one address merge into 1 (bank 0). dst 0x4100 in
    # bank bit 1 of groups 0-7: bank 0 1 read, bank 1 1 write; group 0 r=1, w=1 -> 1.   Total +0.
    assert cc(N950, [op(0x0, blk=0)], op(0x4100)) == [0]
    # dst 0x200 (bank bit 0): bank 0 (group 0) has the read and dst's block 0 write -> 2 cycles.
    assert cc(N950, [op(0x0, blk=0)], op(0x200)) == [1]
    # Block stride 16 instead: 8 DISTINCT rows 0, 16, ..., 112, all group 0 bank bit 0 -> bank 0 has
    # 8 reads -> 8 cycles (group 0: r=8 -> 4).   Total +7.
    assert cc(N950, [op(0x0, blk=16)]) == [7]


def test_950_writes_serialize():
    # dst 0x0 with block stride 16: rows 0, 16, ..., 112 -> all group 0, bank bit 0 (bank 0): 8 writes.
    # src 0x4100: groups 0-7, bank bit 1 -> bank 1 (group 0) 1 read.
    # bank 0: 8 cycles; group 0: r=1, w=8 -> max(8, ceil(9/2) = 5) = 8.   Total +7.
    assert cc(N950, [op(0x4100)], op(0x0, blk=16)) == [7]


# ---------------------------------------------------------------------------------------------
# many iterations


def test_zero_iterations():
    for rules in (A2, N950):
        out = conflict_cycles(rules, np.zeros((0, 2, 8), np.int64), np.zeros((0, 1, 8), np.int64))
        assert out.shape == (0,) and out.dtype == np.int64
        out = conflict_cycles(rules, np.zeros((0, 0, 8), np.int64), np.zeros((0, 0, 8), np.int64))
        assert out.shape == (0,)


def test_linearity_identical_pattern():
    n = 100
    # repStride 0: every iteration re-reads the same blocks -> the per-iteration values above.
    # a2 classic (src1 = src0 + 512): +2 each.
    assert cc(A2, [op(0x0, n, rep=0), op(0x200, n, rep=0)], op(0x4100, n, rep=0)) == [2] * n
    # repStride 16 (512 B) for all operands keeps every group and tier: +2 each, sum 2n.
    out = cc(A2, [op(0x0, n, rep=16), op(0x200, n, rep=16)], op(0x4100, n, rep=16))
    assert out == [2] * n and sum(out) == 2 * n
    # 950 kernel A with repStride 8 (256 B): iteration r moves every operand by r*256, so the bank
    # bits of all three flip together (all bit r & 1) -> always 2 reads + 1 write in one bank: +2.
    out = cc(N950, [op(0x0, 64), op(0x5000, 64)], op(0xA000, 64))
    assert out == [2] * 64 and sum(out) == 128


def test_a2_iteration_dependent_shift_by_8_groups():
    # src0 at 0x0, repStride 8 (256 B = 8 rows): iteration r has groups 0-7 (r even) or 8-15 (r odd).
    # src1 at 0x200, repStride 16 (512 B): groups 0-7 in every iteration.
    # dst at 0x20000, repStride 8: tier 2 (banks 32..47), never a bank of the tier-0 reads.
    # r even: 2 reads in groups 0-3 (beat 0) and 4-7 (beat 1) -> +2.  r odd: reads 8-11 / 0-3 and
    # 12-15 / 4-7 -> 1 per group -> +0.  Writes: 1 per group per beat.
    n = 8
    out = cc(A2, [op(0x0, n, rep=8), op(0x200, n, rep=16)], op(0x20000, n, rep=8))
    assert out == [2, 0, 2, 0, 2, 0, 2, 0]


def test_a2_iteration_dependent_shift_by_4_groups():
    # src0 at 0x0, repStride 4 (128 B = 4 rows): groups start at 4r mod 16; src1 at 0x200, repStride 0:
    # groups 0-7 (beat 0: 0-3, beat 1: 4-7) in every iteration. No destination.
    # r=0: src0 0-3 / 4-7 -> same groups in both beats -> +2.
    # r=1: src0 4-7 / 8-11 vs 0-3 / 4-7 -> groups 4-7 hit in different beats -> +0.
    # r=2: 8-11 / 12-15 -> +0.  r=3: 12-15 / 0-3 vs 0-3 / 4-7 -> +0 (0-3 in different beats).
    # r=4: 16 rows = back to 0-7 -> +2; and so on with period 4.
    n = 8
    assert cc(A2, [op(0x0, n, rep=4), op(0x200, n, rep=0)]) == [2, 0, 0, 0, 2, 0, 0, 0]


def test_950_iteration_dependent_bank_bit():
    # src0 at 0x0 repStride 8 (256 B): bank bit = r & 1. src1 at 0x200 repStride 16: bank bit 0 always.
    # r even: both in banks (g,0) with distinct addresses -> 2 reads per bank -> +1; r odd: +0.
    n = 6
    assert cc(N950, [op(0x0, n, rep=8), op(0x200, n, rep=16)]) == [1, 0, 1, 0, 1, 0]
    # repStride 0 for src0 and repStride 8 for src1 starting at 0x0: src1 == src0 at r = 0 (merged,
    # +0), then src1 at r*256: r odd -> other bank bit (+0), r even >= 2 -> same bank, distinct (+1).
    assert cc(N950, [op(0x0, n, rep=0), op(0x0, n, rep=8)]) == [0, 0, 1, 0, 1, 0]


# ---------------------------------------------------------------------------------------------
# independent slow model (straight from the rules, one beat at a time) on random layouts


def _slow(rules, reads, writes):
    per = 8 // rules.beats
    out = []
    for it in range(reads.shape[0]):
        total = 0
        for k in range(rules.beats):
            blk = range(k * per, (k + 1) * per)
            rd = [int(reads[it, s, b]) for s in range(reads.shape[1]) for b in blk]
            wr = [int(writes[it, d, b]) for d in range(writes.shape[1]) for b in blk]
            if rules.kind == "a2":
                def grp(a):
                    return (a >> 5) % 16

                def bnk(a):
                    return ((a >> 16) % 4) * 16 + grp(a)
                rmax = max([sum(grp(a) == g for a in rd) for g in range(16)])
                wmax = max([sum(grp(a) == g for a in wr) for g in range(16)])
                rw = bool({bnk(a) for a in rd} & {bnk(a) for a in wr})
                c = max(rmax, wmax, 1) + rw
            else:
                def bnk(a):
                    return ((a >> 5) % 8) * 2 + (a >> 8) % 2
                drd = {a >> 5 for a in rd}
                rb = [sum(bnk(a << 5) == x for a in drd) for x in range(16)]
                wb = [sum(bnk(a) == x for a in wr) for x in range(16)]
                c = max(1, *(r + w for r, w in zip(rb, wb)))
                for g in range(8):
                    r, w = rb[2 * g] + rb[2 * g + 1], wb[2 * g] + wb[2 * g + 1]
                    c = max(c, w, -(-(r + w) // 2))
            total += c - 1
        out.append(total)
    return out


@pytest.mark.parametrize("rules", [A2, N950, BankRules("a2", 1), BankRules("950", 2), BankRules("950", 4)])
def test_matches_slow_model_on_random_layouts(rules):
    rng = np.random.default_rng(1234)
    for n_src, n_dst in [(0, 1), (1, 0), (1, 1), (2, 1), (3, 1)]:
        # few distinct rows (so merges and conflicts are frequent) in a2 tiers 0..2 (2048 rows per tier);
        # half the iterations draw from only 8 rows to get many repeats
        shape = (60, n_src + n_dst, 8)
        span = np.where(np.arange(60) % 2 == 0, 48, 8)[:, None, None]
        rows = rng.integers(0, 1 << 20, size=shape) % span + rng.integers(0, 3, size=shape) * 2048
        addrs = rows.astype(np.int64) * 32
        reads, writes = addrs[:, :n_src], addrs[:, n_src:]
        assert conflict_cycles(rules, reads, writes).tolist() == _slow(rules, reads, writes)


# ---------------------------------------------------------------------------------------------
# validation, explain, speed


def test_rules_validation():
    with pytest.raises(ValueError):
        BankRules("a3", 2)
    with pytest.raises(ValueError):
        BankRules("a2", 3)
    with pytest.raises(ValueError):
        BankRules("950", 0)


def test_shape_validation():
    with pytest.raises(ValueError):
        conflict_cycles(A2, np.zeros((2, 2, 4), np.int64), np.zeros((2, 1, 8), np.int64))
    with pytest.raises(ValueError):
        conflict_cycles(A2, np.zeros((2, 2, 8), np.int64), np.zeros((3, 1, 8), np.int64))
    with pytest.raises(ValueError):
        conflict_cycles(A2, np.zeros((2, 8), np.int64), np.zeros((2, 1, 8), np.int64))


def test_explain_names_conflicting_groups():
    reads = operands(op(0x0), op(0x200))[0]
    writes = operands(op(0x4100))[0]
    text = "\n".join(explain(A2, reads, writes))
    assert "+2" in text.splitlines()[0]
    # beat 0: groups 0-3 have 2 reads each, beat 1: groups 4-7 (see the classic case above)
    assert "beat 0" in text and "beat 1" in text
    for g in range(8):
        assert f"bank group {g}: 2 reads" in text
    for g in range(8, 16):
        assert f"bank group {g}:" not in text
    assert "src1 blk 0 @0x200" in text


def test_explain_conflict_free_and_other_reasons():
    lines = explain(A2, operands(op(0x0), op(0x2080))[0], operands(op(0x4100))[0])
    assert "+0" in lines[0]
    assert all("no conflict" in line for line in lines[1:])
    # a2 read/write in one bank names the bank and its tier
    text = "\n".join(explain(A2, operands(op(0x0))[0], operands(op(0x8000))[0]))
    assert "bank 0 (group 0, tier 0)" in text and "dst blk 0 @0x8000" in text
    # 950: merging is reported, and the read/write bank conflict
    text = "\n".join(explain(N950, operands(op(0x0), op(0x0))[0], operands(op(0x200))[0]))
    assert "merged" in text and "bank 0 (group 0, bank bit 0)" in text
    # leading iteration axis of length 1 is accepted
    assert explain(N950, operands(op(0x0)), operands(op(0x200))) == explain(
        N950, operands(op(0x0))[0], operands(op(0x200))[0])


def test_speed():
    for rules in (A2, N950):
        n = 4096
        reads = operands(op(0x0, n), op(0x10200, n, rep=4))
        writes = operands(op(0x20000, n, rep=2))
        conflict_cycles(rules, reads, writes)  # warm-up
        best = min(_timed(rules, reads, writes) for _ in range(3))
        assert best < 0.05, f"{rules.kind}: {best * 1e3:.1f} ms for {n} iterations"
        big = operands(op(0x0, 65536, rep=0), op(0x200, 65536, rep=0))
        t = time.perf_counter()
        out = conflict_cycles(rules, big, none_like(65536))
        assert time.perf_counter() - t < 1.0
        # two distinct reads of the same groups (a2: +1 per beat, 950: same bank (g,0): +1)
        assert int(out.sum()) == (2 if rules.kind == "a2" else 1) * 65536


def _timed(rules, reads, writes) -> float:
    t = time.perf_counter()
    conflict_cycles(rules, reads, writes)
    return time.perf_counter() - t
