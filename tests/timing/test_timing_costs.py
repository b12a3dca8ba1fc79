"""Costs of tensor instructions (docs/timing.md, "Costs" and "UB bank conflicts").

Every expected number is worked out by hand in the comments from the rule

    occupancy = tensor.issue + ceil(iterations * lanes / (elements_per_cycle * sustained))
                + bank-conflict cycles (>= 1)
    per_pc cycles = occupancy + tensor.startup

and the profile numbers (emulator/profiles/a2.toml, 950.toml), with the round prices of
timing_support.PINNED (tensor.issue 0, a2 sustained_binary 0.5 in 2 bank beats; test_timing_model
checks the built-in prices):

    both: tensor.startup = 1, sustained_binary = 0.5 (add, adds, mul, ...), sustained_unary = 1.0 (abs, relu)
    sustained_transcendental (exp, ln, sqrt): a2 [1.027, 0.998] (the measured VEXP rates), 950 [1.0, 1.0]
    a2:   add = [128, 64] elements per cycle (16-bit, 32-bit), exp/ln/sqrt = [32, 32]
    950:  add = [128, 64],                                      exp/ln/sqrt = [16, 16]

so, per iteration (lanes: 128 for 16-bit types, 64 for 32-bit ones):

    VADD.f16 / VADD.f32, both profiles: 128 / (128 * 0.5) = 64 / (64 * 0.5) = 2 cycles
    VEXP.f16 a2: 128 / (32 * 1.027) = 3.8948     VEXP.f32 a2: 64 / (32 * 0.998) = 2.00401
    VEXP.f16 950: 128 / 16 = 8    VEXP.f32 950: 64 / 16 = 4
"""

from __future__ import annotations

import pytest
from timing_support import row
from timing_support import run_pinned as run

STARTUP = 1

# Conflict-free layouts, for every repeat up to 255 (checked by hand):
# a2 (group = address bits [8:5], 2 beats of 4 blocks): src0 0x0 -> groups 0-3 | 4-7 (beat 0 | beat 1),
#   src1 0x2080 (0x2080 >> 5 = 0x104, & 15 = 4) -> groups 4-7 | 8-11, dst 0x14100 (>> 5 = 0xA08, & 15 = 8)
#   -> groups 8-11 | 12-15, tier 1. No group has two reads or two writes in a beat, and no read shares a
#   group (hence a bank) with a write. Iteration r moves every operand by r * 256 B = 8 groups, which
#   keeps the three operands 4 groups apart: every iteration is conflict-free. dst lies past src0's
#   last iteration (255 * 256 = 0xFF00), so no iteration reads what another writes.
A2_BINARY = "[0x14100], [0x0], [0x2080]"
A2_UNARY = "[0x14100], [0x0]"
# 950 (bank = group (bits [7:5]) * 2 + bit 8, one beat of 8 blocks): src0 = src1 = 0x0 -> the same 8 rows,
#   merged into one read per group, in bank bit (r & 1) of iteration r; dst 0x10100 has bit 8 = 1, so in
#   iteration r it is in bank bit ((r + 1) & 1): per group 1 distinct read + 1 write in different
#   banks -> max(w = 1, ceil(2 / 2) = 1) = 1 cycle. Conflict-free for every r.
N950_BINARY = "[0x10100], [0x0], [0x0]"
N950_UNARY = "[0x10100], [0x0]"

# (profile, instruction, operands, cycles per iteration by hand)
LINEAR_CASES = [
    ("a2", "VADD.f32", A2_BINARY, 2),   # 64 / (64 * 0.5)
    ("a2", "VADD.f16", A2_BINARY, 2),   # 128 / (128 * 0.5)
    ("a2", "VEXP.f16", A2_UNARY, 128 / (32 * 1.027)),  # 3.8948: not whole, see the exact table below
    ("a2", "VEXP.f32", A2_UNARY, 64 / (32 * 0.998)),   # 2.00401
    ("950", "VADD.f32", N950_BINARY, 2),  # 64 / (64 * 0.5)
    ("950", "VADD.f16", N950_BINARY, 2),  # 128 / (128 * 0.5)
    ("950", "VEXP.f16", N950_UNARY, 8),   # 128 / (16 * 1.0)
    ("950", "VEXP.f32", N950_UNARY, 4),   # 64 / (16 * 1.0)
]


def tensor_row(profile: str, text: str) -> dict:
    m, r, rep = run(text + "\nHALT\n", profile)
    assert r.fault is None, r.fault
    assert rep["races"] == []
    return row(rep, text.split(maxsplit=1)[0] + " ")


# a2 exp rates are not whole cycles; startup + ceil(n * per_iter), worked out by hand:
#   VEXP.f16: n*3.8948 = 3.89, 7.79, 11.68, 62.32, 66.21, 989.29, 993.18 -> ceil 4, 8, 12, 63, 67, 990, 994
#   VEXP.f32: n*2.00401 = 2.004, 4.008, 6.012, 32.06, 34.07, 509.02, 511.02 -> ceil 3, 5, 7, 33, 35, 510, 512
EXACT = {
    "VEXP.f16": dict(zip((1, 2, 3, 16, 17, 254, 255), (5, 9, 13, 64, 68, 991, 995), strict=True)),
    "VEXP.f32": dict(zip((1, 2, 3, 16, 17, 254, 255), (4, 6, 8, 34, 36, 511, 513), strict=True)),
}


@pytest.mark.parametrize(("profile", "mnemonic", "operands", "per_iter"), LINEAR_CASES,
                         ids=[f"{p}-{i}" for p, i, _, _ in LINEAR_CASES])
def test_cycles_linear_in_repeat(profile, mnemonic, operands, per_iter):
    cycles = {}
    for n in (1, 2, 3, 16, 17, 254, 255):
        e = tensor_row(profile, f"{mnemonic} {operands}, repeat={n}")
        if float(per_iter).is_integer():
            # startup + ceil(n * lanes / (epc * sustained)) = 1 + n * per_iter
            assert e["cycles"] == STARTUP + n * per_iter, (n, e)
        else:
            assert e["cycles"] == EXACT[mnemonic][n], (n, e)
        assert e["iterations"] == n
        assert e["bank_conflict_cycles"] == 0
        cycles[n] = e["cycles"]
    if float(per_iter).is_integer():
        # the cost of one more iteration is the same at every repeat
        assert cycles[2] - cycles[1] == cycles[17] - cycles[16] == cycles[255] - cycles[254] == per_iter
        assert cycles[3] - cycles[2] == per_iter
    else:  # one more iteration costs the rate rounded down or up
        for a, b in ((1, 2), (2, 3), (16, 17), (254, 255)):
            assert int(per_iter) <= cycles[b] - cycles[a] <= int(per_iter) + 1


def test_named_repeat_values():
    # The brief's four repeats, a2 VADD.f32: 1 + 2n -> 3, 5, 33, 511.
    got = [tensor_row("a2", f"VADD.f32 {A2_BINARY}, repeat={n}")["cycles"] for n in (1, 2, 16, 255)]
    assert got == [3, 5, 33, 511]
    # 950 VEXP.f32: 1 + 4n -> 5, 9, 65, 1021.
    got = [tensor_row("950", f"VEXP.f32 {N950_UNARY}, repeat={n}")["cycles"] for n in (1, 2, 16, 255)]
    assert got == [5, 9, 65, 1021]


def test_repeat_zero_occupies_one_cycle():
    # "repeat=0 still occupies the pipe for one cycle": max(1, ceil(0)) = 1, + startup 1 = 2.
    for profile, operands in (("a2", A2_BINARY), ("950", N950_BINARY)):
        e = tensor_row(profile, f"VADD.f32 {operands}, repeat=0")
        assert e["cycles"] == 2
        assert e["iterations"] == 0


def test_ceiling_is_taken_over_the_whole_instruction():
    """With sustained_binary = 0.75, a VADD.f32 iteration costs 64 / (64 * 0.75) = 4/3 cycles, and the
    rule rounds the instruction's total up, not each iteration:
        n = 1: ceil(4/3) = 2 -> 3;  n = 2: ceil(8/3) = 3 -> 4;  n = 3: ceil(4) = 4 -> 5;
        n = 4: ceil(16/3) = 6 -> 7;  n = 255: ceil(340) = 340 -> 341."""
    from timing_support import pinned

    from vcore.emulator.profiles.profile import Profile

    base = pinned("a2")
    table = {**base.table, "tensor": {**base.table["tensor"], "sustained_binary": 0.75}}
    profile = Profile("a2-075", table, base.source_text)
    got = {n: tensor_row(profile, f"VADD.f32 {A2_BINARY}, repeat={n}")["cycles"] for n in (1, 2, 3, 4, 255)}
    assert got == {1: 3, 2: 4, 3: 5, 4: 7, 255: 341}


# -- masks --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("profile", "operands"), [("a2", A2_BINARY), ("950", N950_BINARY)])
def test_masks_never_make_an_iteration_cheaper(profile, operands):
    base = f"VADD.f32 {operands}"
    # 3 iterations, no mask: 1 + 3 * 2 = 7
    plain = tensor_row(profile, f"{base}, repeat=3")["cycles"]
    assert plain == 7
    for masked in (f"{base}, repeat=3, mask=1",
                   f"{base}, repeat=3, mask=(0x1, 0)",
                   f"{base}, repeat=3, mask=(0x8000000000000000, 0)",
                   f"{base}, count=129",      # ceil(129 / 64) = 3 iterations, the last one 1 lane
                   f"{base}, count=192"):     # exactly 3 full iterations
        e = tensor_row(profile, masked)
        assert e["iterations"] == 3, masked
        assert e["cycles"] == plain, masked
    # count=1: ceil(1 / 64) = 1 iteration, like repeat=1: 1 + 2 = 3
    assert tensor_row(profile, f"{base}, count=1")["cycles"] == tensor_row(profile, f"{base}, repeat=1")["cycles"] == 3
    # f16 bit mode with only the top lane (bit 63 of the high word): one 128-lane iteration, 1 + 2 = 3
    f16 = f"VADD.f16 {operands}"
    assert tensor_row(profile, f"{f16}, mask=(0, 0x8000000000000000)")["cycles"] == 3
    assert tensor_row(profile, f"{f16}, repeat=1")["cycles"] == 3


def test_masks_do_not_remove_bank_conflicts():
    """The worked example of docs/timing.md (5 cycles, 2 of them conflicts) with one lane on: an iteration
    still reads 8 blocks per source and writes 8, so it still conflicts."""
    for suffix in ("repeat=1", "repeat=1, mask=1", "repeat=1, mask=(0x1, 0)", "count=1"):
        e = tensor_row("a2", f"VADD.f32 [0x4100], [0x0], [0x0800], {suffix}")
        assert (e["cycles"], e["bank_conflict_cycles"]) == (5, 2), suffix


# -- transcendental vs add ------------------------------------------------------------------------

UNARY_TRANSCENDENTAL = ("VEXP", "VLN", "VSQRT")


@pytest.mark.parametrize("profile", ["a2", "950"])
@pytest.mark.parametrize("t", ["f16", "f32"])
@pytest.mark.parametrize("op", UNARY_TRANSCENDENTAL)
def test_transcendental_dearer_than_add_per_iteration(profile, t, op):
    # CONTRACT 3.4. By hand (module docstring): VADD 2 cycles an iteration everywhere; exp/ln/sqrt a2 f16
    # 3.89, a2 f32 2.004 (the measured 127.8 of 128 B/cycle), 950 f16 8, 950 f32 4. At a2 f32 the
    # difference shows once the iterations add up, and in every instruction's total.
    binary, unary = (A2_BINARY, A2_UNARY) if profile == "a2" else (N950_BINARY, N950_UNARY)
    for n in (1, 9, 255):
        add = tensor_row(profile, f"VADD.{t} {binary}, repeat={n}")["cycles"]
        tr = tensor_row(profile, f"{op}.{t} {unary}, repeat={n}")["cycles"]
        assert tr > add, (n, tr, add)
        assert add == STARTUP + 2 * n


def test_transcendental_per_iteration_by_hand():
    # a2 f16: ln 3.8948 vs add 2 (8 iterations: ceil(31.16) = 32); 950 f16: 8 vs 2; 950 f32: 4 vs 2.
    assert tensor_row("a2", f"VLN.f16 {A2_UNARY}, repeat=8")["cycles"] == 1 + 32
    assert tensor_row("950", f"VSQRT.f16 {N950_UNARY}, repeat=8")["cycles"] == 1 + 8 * 8
    assert tensor_row("950", f"VEXP.f32 {N950_UNARY}, repeat=8")["cycles"] == 1 + 8 * 4


# -- UB bank conflicts -----------------------------------------------------------------------------

def test_a2_worked_example():
    # docs/timing.md: src1 0x800 -> groups 0-3 | 4-7, the same as src0: each beat +1 -> 2 + 2 + 1 = 5
    e = tensor_row("a2", "VADD.f32 [0x4100], [0x0], [0x0800], repeat=1")
    assert (e["cycles"], e["bank_conflict_cycles"]) == (5, 2)
    # src1 0x2080 -> groups 4-7 | 8-11, dst 0x4100 -> 8-11 | 12-15: 2 + 0 + 1 = 3
    e = tensor_row("a2", "VADD.f32 [0x4100], [0x0], [0x2080], repeat=1")
    assert (e["cycles"], e["bank_conflict_cycles"]) == (3, 0)


# (profile, instruction, cycles, conflict cycles), each worked out by hand. A conflict cycle is a cycle
# the banks need beyond what the iteration takes anyway (2 here: 2 beats on the pinned a2, a binary
# op's two loads and a store on the 950).
CONFLICT_CASES = [
    # a2, worked example with 4 iterations: iteration r moves every operand 8 groups; src0 and src1
    # (0x800 apart = 64 rows = 0 mod 16 groups, other rows of the same banks) always share groups:
    # +1 per beat, +2 per iteration. 4 * 2 + 4 * 2 + 1 = 17.
    ("a2", "VADD.f32 [0x4100], [0x0], [0x0800], repeat=4", 17, 8),
    # a2, src0 = src1 = 0x0: the same blocks, read once -> one read per group in each beat; dst 0x4100
    # (groups 8-15): no conflict -> 2 + 1 = 3.
    ("a2", "VADD.f32 [0x4100], [0x0], [0x0], repeat=1", 3, 0),
    # a2 in place: the destination lines up bank for bank with the source, so its write waits for the
    # next iteration (there is none): no conflict -> 3.
    ("a2", "VADDS.f32 [0x0], [0x0], 1.0, repeat=1", 3, 0),
    # a2, same groups but dst in tier 1 (0x10000, bits [17:16] = 1): different banks, and one read and
    # one write per group is allowed: no conflict -> 3.
    ("a2", "VADDS.f32 [0x10000], [0x0], 1.0, repeat=1", 3, 0),
    # a2, dst one block on from the source (0x20): not lined up, so written in its iteration; beat 0:
    # blocks 1-3 of dst in groups 1-3 (tier 0) with the source's reads there: 2 accesses a bank -> 2
    # cycles; beat 1: groups 4-7 likewise, and dst block 7 in group 8 alone -> 2. 4 - 2 = +2 -> 5.
    ("a2", "VADDS.f32 [0x20], [0x0], 1.0, repeat=1", 5, 2),
    # 950: src0 0x0 -> bank (g, 0) for g = 0..7; src1 0x2080 -> groups 4-7 with bit 8 = 0, then groups
    # 0-3 with bit 8 = 1; dst 0x4100 -> groups 0-7, bit 8 = 1. Groups 0-3: bank (g,1) needs 1 + 1 = 2,
    # group r = 2, w = 1: max(1, ceil(3/2)) = 2. Groups 4-7: banks 2 and 1, group 2. The banks need 2
    # cycles, which the iteration takes anyway: 2 + 0 + 1 = 3.
    ("950", "VADD.f32 [0x4100], [0x0], [0x2080], repeat=1", 3, 0),
    # 950, src0 0x0, src1 0x200 (rows 16-23: bank (g, 0) too), dst 0x4000 (rows 512-519, bit 8 = 0:
    # (g, 0)): bank (g, 0) holds 2 reads and a write -> 3 cycles: +1 -> 2 + 1 + 1 = 4.
    ("950", "VADD.f32 [0x4000], [0x0], [0x200], repeat=1", 4, 1),
    # 950, the same with 16 iterations: every iteration moves all operands 256 B (flips bit 8 of all
    # three), which keeps the pattern: +1 each -> 16 * 2 + 16 + 1 = 49.
    ("950", "VADD.f32 [0x4000], [0x0], [0x200], repeat=16", 49, 16),
    # 950, same-address reads merge: src0 = src1 = 0x0 -> 1 distinct read per group in (g,0), the write
    # in (g,1): no conflict -> 3.
    ("950", "VADD.f32 [0x4100], [0x0], [0x0], repeat=1", 3, 0),
    # 950 in place: read and write of the same row in bank (g,0): 2 cycles, as the iteration takes -> 3.
    ("950", "VADDS.f32 [0x0], [0x0], 1.0, repeat=1", 3, 0),
    # 950, source block stride 8: blocks at 0x0, 0x100, ..., 0x700 -> rows 0, 8, ..., 56, all group 0,
    # bit 8 = b & 1: bank (0,0) 4 reads, bank (0,1) 4 reads + dst block 0 (0x4100, group 0, bit 8 = 1)
    # 1 write = 5; group 0: r = 8, w = 1: max(1, ceil(9/2)) = 5. Banks 5 cycles: +3 -> 2 + 3 + 1 = 6.
    ("950", "VADDS.f32 [0x4100], [0x0], 1.0, srcblk=8, repeat=1", 6, 3),
]


@pytest.mark.parametrize(("profile", "text", "cycles", "conflicts"), CONFLICT_CASES,
                         ids=[f"{c[0]}-{c[1]}" for c in CONFLICT_CASES])
def test_bank_conflicts_by_hand(profile, text, cycles, conflicts):
    e = tensor_row(profile, text)
    assert (e["cycles"], e["bank_conflict_cycles"]) == (cycles, conflicts)


@pytest.mark.parametrize("profile", ["a2", "950"])
def test_bank_conflict_stall_is_the_sum_over_instructions(profile):
    cases = [c for c in CONFLICT_CASES if c[0] == profile]
    # BARRIER V between them keeps the a2 instructions from overlapping (no races to muddle the sums);
    # the per-instruction costs do not depend on it.
    text = "\n".join(f"{c[1]}\nBARRIER V" for c in cases) + "\nHALT\n"
    m, r, rep = run(text, profile)
    assert r.fault is None
    per_pc = {e["text"]: e for e in rep["per_pc"]}
    for _, inst, cycles, conflicts in cases:
        assert per_pc[inst]["bank_conflict_cycles"] == conflicts
        assert per_pc[inst]["cycles"] == cycles
    expected = sum(c[3] for c in cases)
    assert expected > 0
    assert rep["stalls"]["bank_conflict"] == sum(e["bank_conflict_cycles"] for e in rep["per_pc"]) == expected


def test_conflict_cycles_scale_with_iterations():
    # a2 worked example: +2 per iteration whatever the repeat (see CONFLICT_CASES): n * 2 + n * 2 + 1.
    for n in (1, 2, 7, 32):
        e = tensor_row("a2", f"VADD.f32 [0x4100], [0x0], [0x0800], repeat={n}")
        assert (e["cycles"], e["bank_conflict_cycles"]) == (4 * n + 1, 2 * n)


BASE_LOOP = """\
    MOV S1, {first}
    MOV S3, 0
loop:
    VADD.f32 [0x4000], [0x0], [S1]
    MOV S1, {second}
    ADD S3, S3, 1
    BLT S3, 2, loop
    HALT
"""


@pytest.mark.parametrize(("first", "second", "cycles", "conflicts"), [
    # dst 0x4000: bank (g, 0). src1 = 0x0 twice: merged with src0, one read and the write in (g, 0):
    # 2 cycles, as an iteration takes: 3 each: 6, 0
    ("0x0", "0x0", 6, 0),
    # src1 = 0x200 twice: rows 16..23, bit 8 = 0 -> bank (g, 0) holds 2 distinct reads and the write:
    # 3 cycles, +1 each (see CONFLICT_CASES): 4 + 4 = 8, 2
    ("0x200", "0x200", 8, 2),
])
def test_950_conflicts_with_register_bases(first, second, cycles, conflicts):
    e = row(run(BASE_LOOP.format(first=first, second=second), "950")[2], "VADD")
    assert (e["count"], e["cycles"], e["bank_conflict_cycles"]) == (2, cycles, conflicts)


@pytest.mark.parametrize(("first", "second"), [("0x0", "0x200"), ("0x200", "0x0")])
def test_950_conflicts_follow_the_actual_addresses_of_each_run(first, second):
    # One run with src1 = src0 = 0x0 (merged: 3 cycles, 0 conflicts), one with src1 = 0x200 (not merged:
    # 4 cycles, 1 conflict), in either order: 7 cycles, 1 conflict in all.
    e = row(run(BASE_LOOP.format(first=first, second=second), "950")[2], "VADD")
    assert (e["count"], e["cycles"], e["bank_conflict_cycles"]) == (2, 7, 1)


# -- register (vector function) instructions ------------------------------------------------------------

def test_register_instructions_by_hand():
    """950: scalar.alu 1, scalar.issue 1, register.vf_launch 8, issue_width 2, register_writes 2,
    ub_reads 2, load_latency 9, store_latency 9, alu_latency 7, mask_latency 1, float32_add 64 a
    cycle; the load and store units take one instruction a cycle (vf_load_units, vf_store_units), the
    execute unit issue_width."""
    from timing_support import slices

    text = """\
    MOV S1, 0x100
    VF.BEGIN
    VLD.f32 V0, [S0]
    VLD.f32 V1, [S1]
    PSET.b32 P0, ALL
    VADD.f32 V2, V0, V1, P0
    VST.f32 [S1], V2, P0
    VF.END
    HALT
"""
    m, r, rep = run(text, "950", trace=True)
    assert r.fault is None and rep["races"] == []
    # MOV 0..1. VF.BEGIN is handed to V at 1; its instructions issue from 1 + 8 = 9.
    # VLD V0 at 9, ready 18. VLD V1: the load unit is busy at 9: 10, ready 19.
    # PSET (execute unit) issues beside VLD V0 at 9 (one vector register write, one UB read): 9..10.
    # VADD waits for V0 and V1 (19): 64 lanes / 64 = 1 cycle, result 7 later: 19..26.
    # VST waits for V2: 26..35. It writes the bytes VLD V1 read, after it through V2: no race.
    assert slices(m, "VLD") == [("V", 9, 18), ("V", 10, 19)]
    assert slices(m, "PSET") == [("V", 9, 10)]
    assert slices(m, "VADD") == [("V", 19, 26)]
    assert slices(m, "VST") == [("V", 26, 35)]
    assert slices(m, "VF.BEGIN") == [("V", 1, 35)]
    assert r.total_cycles == 35
    assert row(rep, "VF.BEGIN")["cycles"] == 34  # its whole run, from reaching V
    assert [row(rep, t)["cycles"] for t in ("VLD.f32 V0", "VLD.f32 V1", "PSET", "VADD", "VST")] == [9, 9, 1, 7, 9]
    assert rep["stalls"]["dependency"] == 0  # waits inside a function overlap other work: not stalls of V


def test_register_reductions_issue_alone_and_take_their_latency():
    """950: VREDUCE is single-issue (register.reduce_single_issue) with reduce_latency SUM 22, MAX 16,
    MIN 16; VADD is dual-issue, alu_latency 7. All read V0 (zero at launch: no load to wait for)."""
    from timing_support import slices

    text = """\
    VF.BEGIN
    PSET.b16 P0, ALL
    VREDUCE.SUM.f16 V1, V0, P0
    VREDUCE.MAX.f16 V2, V0, P0
    VADD.f16 V3, V0, V0, P0
    VADD.f16 V4, V0, V0, P0
    VREDUCE.MIN.f16 V5, V0, P0
    VADD.f16 V6, V0, V0, P0
    VF.END
    HALT
"""
    m, r, rep = run(text, "950", trace=True)
    assert r.fault is None and rep["races"] == []
    # VF.BEGIN reaches V at 0; its first instruction issues at 0 + 8 = 8.
    # PSET issues at 8 (mask latency 1): P0 ready at 9.
    # VREDUCE.SUM waits for P0: issues alone at 9 (22: until 31). VREDUCE.MAX: the cycle 9 is taken
    # whole, so 10 (16: 26). VADD, VADD: 11, both (a pair shares a cycle): 18 each.
    # VREDUCE.MIN: 11 has two instructions, so 12 (16: 28). The last VADD: 13 (20); with no
    # single-issue rule it would have shared 9 with the SUM.
    assert slices(m, "PSET") == [("V", 8, 9)]
    assert slices(m, "VREDUCE.SUM") == [("V", 9, 31)]
    assert slices(m, "VREDUCE.MAX") == [("V", 10, 26)]
    assert [s[1:] for s in slices(m, "VADD")] == [(11, 18), (11, 18), (13, 20)]
    assert slices(m, "VREDUCE.MIN") == [("V", 12, 28)]
    assert r.total_cycles == 31


@pytest.mark.parametrize(("text", "per_repeat"), [
    ("VCMAX.f16 [0x8000], [0x0]", 7), ("VCMIN.f32 [0x8000], [0x0], order=v", 7),  # msKPP: 7 a repeat
    ("VCGADD.f16 [0x8000], [0x0]", 7), ("VCGMAX.f32 [0x8000], [0x0]", 1),       # msKPP: fp16 7, fp32 1
    ("VCPADD.f16 [0x8000], [0x0]", 1),                                           # msKPP: 1
])
def test_a2_reductions_cost_the_measured_cycles_a_repeat(text, per_repeat):
    # a2: 128 / 18.286 = 64 / 9.143 = 6.9999 (the documented 128/7 and 64/7 elements a cycle), so
    # n repeats take ceil(6.9999 n) = 7n cycles up to n = 255, plus tensor.startup 1.
    for n in (1, 2, 255):
        e = tensor_row("a2", f"{text}, repeat={n}")
        assert (e["cycles"], e["bank_conflict_cycles"]) == (per_repeat * n + 1, 0), (n, e)
