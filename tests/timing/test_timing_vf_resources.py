"""The resources inside a vector function (docs/timing.md, "Vector functions" and "UB bank
conflicts"), each worked out by hand on the pinned 950 profile (timing_support.PINNED: vf_launch 8,
no parameter push) with its register prices: one load and one store unit, two execute slots, two
transcendental units, two vector register writes a cycle; load 9, store 9, alu 7, mask 1,
transcendental 14 cycles of latency; VEXP.f32 64 lanes at 16 a cycle = 4 cycles of a unit.

UB (the 950's banks): bank = address bits [8:5], group = bits [7:5]; a bank serves one access a
cycle, a group two (at most one write). A read is placed against the reads of its cycle only (a
write that meets it waits in the store's buffer); a write against everything there.

A program's ``MOV``s take a cycle each on S before ``VF.BEGIN`` is handed to V, so a function that
starts after M MOVs issues its first instruction at M + 8.
"""

from __future__ import annotations

import copy

import pytest
from timing_support import pinned, row, run, slices


def profile_with(**register):
    """The pinned 950 profile with some ``register`` values changed."""
    from vcore.emulator.profiles.profile import Profile, check_table

    base = pinned("950")
    table = copy.deepcopy(base.table)
    table["register"].update(register)
    check_table(table, "test")
    return Profile("950", table, "")


def test_a_store_waits_for_the_store_unit():
    # VF.BEGIN reaches V at 0; PSET issues at 8 (P0 ready 9). VLD [0x0] at 8 takes banks 0-7.
    # VST [0x200] (0x200 >> 5 = 16: banks 0-7) is ready at 9, when nothing reads: 9. VST [0x400]
    # (banks 0-7) is ready at 9 too; the store unit takes one a cycle: 10, store_unit 1.
    text = """\
    VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V0, [S0]
    VST.f32 [S0 + 0x200], V1, P0
    VST.f32 [S0 + 0x400], V1, P0
    VF.END
    HALT
"""
    m, r, rep = run(text, pinned("950"), trace=True)
    assert [s[1] for s in slices(m, "VST")] == [9, 10]
    assert row(rep, "VST.f32 [S0 + 0x200]")["stalls"] == {}
    assert row(rep, "VST.f32 [S0 + 0x400]")["stalls"] == {"store_unit": 1}


def test_a_store_waits_for_a_load_of_its_banks_and_a_load_never_waits_for_a_store():
    # P0 is never set (zero: no lanes, but a store still takes its banks) and V1 is zero at launch,
    # so every store is ready at 8. VLD [0x0] at 8 (banks 0-7). VST [0x200] (banks 0-7) meets that
    # read at 8: 9, bank_group 1. VST [0x100] (0x100 >> 5 = 8: banks 8-15) fits 8 beside the read
    # (each group one read and one write). VLD [0x300] (banks 8-15): the load unit is taken at 8, so
    # 9 (load_unit 1), where the store of banks 0-7 is: a read is placed against reads alone. VLD
    # [0x500] (0x500 >> 5 = 40, & 15 = 8: banks 8-15): 10 (load_unit 2).
    text = """\
    VF.BEGIN
    VLD.f32 V0, [S0]
    VST.f32 [S0 + 0x200], V1, P0
    VST.f32 [S0 + 0x100], V1, P0
    VLD.f32 V2, [S0 + 0x300]
    VLD.f32 V3, [S0 + 0x500]
    VF.END
    HALT
"""
    m, r, rep = run(text, pinned("950"), trace=True)
    assert [s[1] for s in slices(m, "VST")] == [9, 8]
    assert [s[1] for s in slices(m, "VLD")] == [8, 9, 10]
    assert row(rep, "VST.f32 [S0 + 0x200]")["stalls"] == {"bank_group": 1}
    assert row(rep, "VST.f32 [S0 + 0x100]")["stalls"] == {}
    assert row(rep, "VLD.f32 V2")["stalls"] == {"load_unit": 1}
    assert rep["stalls"]["bank_group"] == 1


def test_two_loads_of_one_bank_share_no_cycle_even_with_two_load_units():
    # vf_load_units 2. VLD [0x0] at 8 (banks 0-7). VLD [0x200] (banks 0-7 again): 9, bank_group 1.
    # VLD [0x100] (banks 8-15) joins the first at 8: each group two reads, in its two banks.
    # VLD [0x300] (banks 8-15): 8 holds two loads, so 9 (load_unit 1), beside the one of banks 0-7.
    text = """\
    VF.BEGIN
    VLD.f32 V0, [S0]
    VLD.f32 V1, [S0 + 0x200]
    VLD.f32 V2, [S0 + 0x100]
    VLD.f32 V3, [S0 + 0x300]
    VF.END
    HALT
"""
    m, r, rep = run(text, profile_with(vf_load_units=2), trace=True)
    assert [s[1] for s in slices(m, "VLD")] == [8, 9, 8, 9]
    assert row(rep, "VLD.f32 V1")["stalls"] == {"bank_group": 1}
    assert row(rep, "VLD.f32 V3")["stalls"] == {"load_unit": 1}


@pytest.mark.parametrize(("blk", "cycles", "conflicts"), [
    (144, 8, 6),  # 144 blocks = 4608 B apart: 4608 >> 5 = 144, & 15 = 0: all 8 rows in one bank
    (145, 2, 0),  # 145 mod 16 = 1: 8 banks in 8 groups, one beat; the documented half rate: 2
    (8, 8, 6),    # 256 B apart: banks 0, 8, 0, 8 ...: one group, one write a cycle
    (2, 2, 0),    # 64 B apart: banks 0, 2, 4, ..., 14: groups 0, 2, 4, 6 twice, in two banks each:
                  # at most one write a group a cycle, so two beats of four: 2
])
def test_a_block_strided_store_takes_its_banks_beats(blk, cycles, conflicts):
    # VST at 8 (P0, V1 zero: ready at launch). It holds the store unit max(2, beats) cycles; a second
    # store right after it issues when the unit is free again, its stall the wait.
    text = f"""\
    VF.BEGIN
    VST.f32 [S0], V1, P0, blk={blk}
    VST.f32 [S0 + 0x8000], V1, P0
    VF.END
    HALT
"""
    m, r, rep = run(text, pinned("950"), trace=True)
    first, second = slices(m, "VST")
    assert first[1] == 8 and second[1] == 8 + cycles
    assert row(rep, "VST.f32 [S0], V1, P0, blk=")["bank_conflict_cycles"] == conflicts
    assert row(rep, "VST.f32 [S0 + 0x8000]")["stalls"] == {"store_unit": cycles}


def test_transcendental_ops_take_an_issue_slot_and_a_unit_of_their_own():
    # Three independent VEXP.f32 (V0 is zero at launch), then two VADDs, P0 set at 8 (ready 9).
    # 9: VEXP 1 and VEXP 2 (two execute slots, two transcendental units, each held 9..12).
    # VEXP 3: 9's slots are taken (issue_width 1); at 10, 11 and 12 both units are (transcendental_unit
    # 3): 13. The VADDs need only a slot: 9's are taken, so 10 and 10.
    text = """\
    VF.BEGIN
    PSET.b32 P0, ALL
    VEXP.f32 V1, V0, P0
    VEXP.f32 V2, V0, P0
    VEXP.f32 V3, V0, P0
    VADD.f32 V4, V0, V0, P0
    VADD.f32 V5, V0, V0, P0
    VF.END
    HALT
"""
    m, r, rep = run(text, pinned("950"), trace=True)
    assert [s[1] for s in slices(m, "VEXP")] == [9, 9, 13]
    assert [s[1] for s in slices(m, "VADD")] == [10, 10]
    assert row(rep, "VEXP.f32 V3")["stalls"] == {"issue_width": 1, "transcendental_unit": 3}
    assert rep["stalls"]["transcendental_unit"] == 3
    # with no transcendental units they hold an execute slot for their 4 cycles instead:
    # VEXP 1 and 2 at 9 hold both slots to 12; VEXP 3 at 13; the VADDs at 13 (one slot left) and 14
    m, r, rep = run(text, profile_with(transcendental_units=0), trace=True)
    assert [s[1] for s in slices(m, "VEXP")] == [9, 9, 13]
    assert [s[1] for s in slices(m, "VADD")] == [13, 14]


def test_the_window_holds_the_instructions_waiting_to_issue():
    # vf_window 2. PSET at 8 (heap of the latest issues: [8]); VLD V0 at 8 ([8, 8]). The VADDs wait
    # for V0 (17): each enters as one of the two leaves the queue, issues at 17 ([8, 17], [17, 17]).
    # VLD V3 enters when a VADD leaves, at 17: window_full 17 - 8 = 9. At 17 the two VADDs write two
    # vector registers, the limit: 18 (write_ports 1), done at 27. With the default window of 64 it
    # issues at 9 (the load unit took 8).
    text = """\
    VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V0, [S0]
    VADD.f32 V1, V0, V0, P0
    VADD.f32 V2, V0, V0, P0
    VLD.f32 V3, [S0 + 0x100]
    VF.END
    HALT
"""
    m, r, rep = run(text, profile_with(vf_window=2), trace=True)
    assert [s[1] for s in slices(m, "VLD")] == [8, 18]
    assert row(rep, "VLD.f32 V3")["stalls"] == {"window_full": 9, "write_ports": 1}
    assert slices(m, "VF.BEGIN") == [("V", 0, 27)]
    m, r, rep = run(text, pinned("950"), trace=True)
    assert [s[1] for s in slices(m, "VLD")] == [8, 9]
    assert rep["stalls"]["window_full"] == 0


def test_the_launch_pushes_the_scalar_arguments_sixteen_at_a_time():
    # vf_param_push 4: a function naming S1..S17 (17 registers: two pushes) starts its first
    # instruction 8 + 2 * 4 = 16 cycles after V takes it; one naming S1 alone, 8 + 4 = 12.
    many = "\n".join(f"    ADD S{n}, S{n}, 1" for n in range(1, 18))
    text = f"    VF.BEGIN\n{many}\n    VLD.f32 V0, [S1]\n    VF.END\n    HALT\n"
    m, r, rep = run(text, profile_with(vf_param_push=4))
    assert row(rep, "VF.BEGIN")["stalls"] == {"launch": 16}
    m, r, rep = run("    VF.BEGIN\n    VLD.f32 V0, [S1]\n    VF.END\n    HALT\n", profile_with(vf_param_push=4))
    assert row(rep, "VF.BEGIN")["stalls"] == {"launch": 12}
    assert rep["stalls"]["launch"] == 12


def _gather_program(stride: int, indices: list[int] | None = None) -> str:
    """Two gathers of 64 f32 lanes, their indices (u32, at 0x0) ``stride`` elements apart (or ``indices``)."""
    values = ", ".join(str(i) for i in (indices if indices is not None else [i * stride for i in range(64)]))
    return f"""\
    .ub 0x0, u32, {values}
    VF.BEGIN
    PSET.b32 P0, ALL
    VLD.u32 V0, [S0]
    VGATHER.f32 V1, [S0 + 0x1000], V0, P0
    VGATHER.f32 V2, [S0 + 0x1000], V0, P0
    VF.END
    HALT
"""


@pytest.mark.parametrize(("stride", "sub_bank"), [
    (0, 1),     # every lane the same word: merged
    (1, 1),     # 64 floats in 32 words, one in each (group, sub-bank) pair
    (2, 2),     # 64 words 8 bytes apart: each of the 32 pairs twice
    (128, 64),  # 512 bytes apart: one sub-bank of one bank, 64 rows
    (64, 64),   # 256 bytes apart: the sub-bank of one number in both banks of group 0
    (16, 16),   # 64 bytes apart: groups 0, 2, 4, 6 (address bits [7:5]), sub-bank 0: 16 lanes each
])
def test_a_gathers_lanes_in_one_sub_bank_take_a_cycle_each(stride, sub_bank):
    # PSET at 8; VLD V0 at 8, ready 17. A gather of 64 f32 lanes holds the load unit and every UB port
    # for max(64 / 32 = 2, its sub-bank cycles) cycles, and its data arrives that much later than
    # gather_latency (21) after it issues. The first at 17, the second when the unit is free.
    busy = max(2, sub_bank)
    m, r, rep = run(_gather_program(stride), pinned("950"), trace=True)
    assert r.races == ()
    first, second = slices(m, "VGATHER")
    assert (first[1], second[1]) == (17, 17 + busy)
    assert second[2] == 17 + busy + 21 + busy - 2
    assert row(rep, "VGATHER.f32 V1")["stalls"] == ({"sub_bank": busy - 2} if busy > 2 else {})
    assert rep["stalls"]["sub_bank"] == 2 * (busy - 2)


@pytest.mark.parametrize(("indices", "sub_bank"), [
    # the bank sample's case 10: 0, 128, 0, 128, ...: every cycle's 32 lanes ask two words (elements 0 and
    # 128, 512 bytes apart) of one sub-bank, two rows: 2 cycles each, 4 in all (over the whole gather it
    # would be two words: 2, what the lane rate gives anyway)
    ([0, 128] * 32, 4),
    # the same two words, one a cycle: lanes 0-31 all element 0, lanes 32-63 all 128: merged, 1 + 1
    ([0] * 32 + [128] * 32, 2),
    # 0, 64, 128 over each cycle's lanes: three rows of sub-bank 0, two of them in one bank (0 and 128,
    # 512 bytes apart) and 64 (256 bytes) in the other bank of group 0: three words of one pair, 3 + 3
    ([0, 64, 128] * 21 + [0], 6),
])
def test_a_gathers_sub_banks_are_asked_a_cycle_of_lanes_at_a_time(indices, sub_bank):
    # The unit serves 32 f32 lanes a cycle in lane order (the documented b32 rate): lanes 0-31, then
    # 32-63; the lanes of one cycle merge in a word, and each (group, sub-bank) pair serves one word a
    # cycle. As above: the first gather at 17, the second when the unit and UB are free.
    m, r, rep = run(_gather_program(0, indices), pinned("950"), trace=True)
    first, second = slices(m, "VGATHER")
    assert (first[1], second[1]) == (17, 17 + sub_bank)
    assert row(rep, "VGATHER.f32 V1")["stalls"] == ({"sub_bank": sub_bank - 2} if sub_bank > 2 else {})


def test_a_function_launched_again_is_priced_from_the_values_it_names():
    # One function launched four times, its store at S2 = 0x200, 0x100, 0x200, 0x100 (XOR 0x300);
    # S3, the loop count, changes every launch but the function does not name it. As in the test of
    # a load and a store above: the store of banks 0-7 (0x200) meets the load's read at 8 and waits
    # a cycle (bank_group 1); the store of banks 8-15 (0x100) does not. Twice each: bank_group 2.
    # (A launch from values seen before reuses their schedule: the first and third launches share
    # theirs, and so do the second and fourth; keyed by anything coarser, this would be 0 or 4.)
    text = """\
    MOV S2, 0x200
    MOV S3, 0
again:
    VF.BEGIN
    VLD.f32 V0, [S0]
    VST.f32 [S2], V1, P0
    VF.END
    XOR S2, S2, 0x300
    ADD S3, S3, 1
    BLT S3, 4, again
    HALT
"""
    m, r, rep = run(text, pinned("950"), trace=True)
    stores = slices(m, "VST")
    assert len(stores) == 4
    assert row(rep, "VST.f32 [S2]")["stalls"] == {"bank_group": 2}
    launches = slices(m, "VF.BEGIN")
    assert [s[1] - v[1] for s, v in zip(stores, launches, strict=True)] == [9, 8, 9, 8]
