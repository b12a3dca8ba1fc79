"""UB's banks and ports on both sides of an access inside a vector function (docs/timing.md, "UB bank
conflicts"), each worked out by hand on the pinned 950 profile (timing_support.PINNED: vf_launch 8, no
parameter push, vf_loop_startup 2, one load unit unless a test gives two) with its register prices:
load 9, store 9, alu 7, mask 1 cycles of latency; a block-strided access (blk= other than 1) holds its
unit strided_access_cycles = 2 at least.

The 950's UB: bank = address bits [8:5] (group = bits [7:5], bank in group = bit 8); each bank serves one
access a cycle; each group two reads, or a read and a write, a cycle (documented). Reads and writes share
them alike. A datablock-mode access takes one block a group a beat, and an access of more than one beat
holds every group's ports for each of its beats.

A function whose program has M ``MOV``s before it reaches V at M and issues its first instruction at
M + 8.
"""

from __future__ import annotations

import copy

from timing_support import pinned, row, run, slices


def two_load_units():
    from vcore.emulator.profiles.profile import Profile, check_table

    base = pinned("950")
    table = copy.deepcopy(base.table)
    table["register"]["vf_load_units"] = 2
    check_table(table, "test")
    return Profile("950", table, "")


def test_a_load_waits_for_a_store_of_its_banks():
    # V1 and P0 are zero at launch: the store is ready at 8 and writes banks 0-7 (0x200 >> 5 = 16).
    # The load of 0x0 (banks 0-7) meets that write at 8: 9, bank_group 1 (a bank serves one access).
    text = """\
    VF.BEGIN
    VST.f32 [S0 + 0x200], V1, P0
    VLD.f32 V0, [S0]
    VF.END
    HALT
"""
    m, r, rep = run(text, pinned("950"), trace=True)
    assert [s[1] for s in slices(m, "VST")] == [8]
    assert [s[1] for s in slices(m, "VLD")] == [9]
    assert row(rep, "VLD")["stalls"] == {"bank_group": 1}


def test_two_reads_and_a_write_never_share_a_group():
    # Two load units. VLD 0x0 (banks 0-7) and VLD 0x100 (banks 8-15) share 8: every group serves two
    # reads, one in each of its two banks. The store of 0x200 (banks 0-7; V2, P0 zero: ready at 8)
    # finds its banks (and every group's two accesses) taken at 8: 9, bank_group 1.
    text = """\
    VF.BEGIN
    VLD.f32 V0, [S0]
    VLD.f32 V1, [S0 + 0x100]
    VST.f32 [S0 + 0x200], V2, P0
    VF.END
    HALT
"""
    m, r, rep = run(text, two_load_units(), trace=True)
    assert [s[1] for s in slices(m, "VLD")] == [8, 8]
    assert [s[1] for s in slices(m, "VST")] == [9]
    assert row(rep, "VST")["stalls"] == {"bank_group": 1}


def test_reads_merge_only_at_one_address():
    # blk=0: the same block eight times, one read (one beat): the load unit for the documented 2.
    # blk=16: blocks 512 bytes apart, rows 0, 16, ..., 112: all in bank 0, eight distinct rows: eight
    # beats (one block a group a beat), 6 beyond the 2 (its bank-conflict cycles). The second load
    # issues when the first has left the unit: at 8 + 2 and 8 + 8.
    for blk, cycles, conflicts in ((0, 2, 0), (16, 8, 6)):
        text = f"""\
    VF.BEGIN
    VLD.f32 V0, [S0], blk={blk}
    VLD.f32 V1, [S0 + 0x8000]
    VF.END
    HALT
"""
        m, r, rep = run(text, pinned("950"), trace=True)
        assert [s[1] for s in slices(m, "VLD")] == [8, 8 + cycles], blk
        assert row(rep, "VLD.f32 V0")["bank_conflict_cycles"] == conflicts, blk


def test_blk_1_is_a_contiguous_vl():
    # blk=1 names the 8 blocks of one VL: the load unit for one cycle, as a plain VLD; blk=2 (groups
    # 0, 2, 4, 6 twice: two beats) for strided_access_cycles = 2
    for blk, second in ((1, 9), (2, 10)):
        text = f"""\
    VF.BEGIN
    VLD.f32 V0, [S0], blk={blk}
    VLD.f32 V1, [S0 + 0x8000]
    VF.END
    HALT
"""
        m, r, rep = run(text, pinned("950"), trace=True)
        assert [s[1] for s in slices(m, "VLD")] == [8, second], blk


# The bank_conflict_3510 sample's cases 11 and 12, two passes: a copy by datablocks of 0x0 to 0x4100
# (bank 0 of group 0, and bank 8 of it). Case 11: blk=1, the addresses a VL on a pass; case 12: blk=8
# (blocks 256 bytes apart), the addresses 32 bytes on a pass.
COPY = """\
    MOV S1, 0x0
    MOV S3, 0x4100
    VF.BEGIN
    PSET.b32 P0, ALL
    LOOP 2
        VLD.f32 V0, [S1], post={post}, blk={blk}
        VADDS.f32 V2, V0, 0.0, P0
        VST.f32 [S3], V2, P0, post={post}, blk={blk}
    ENDLOOP
    VF.END
    HALT
"""


def test_case_11_by_hand():
    # Two load units. V reaches the function at 2 (two MOVs); PSET at 10, the LOOP moves the front end
    # to 12. Pass 0: the load at 12 (banks 0-7), ready 21; VADDS 21, ready 28; the store at 28, done 37.
    # Pass 1 (0x100: banks 8-15; 0x4200: banks 0-7): its load beside the first at 12 (two load units,
    # each group two reads in its two banks), ready 21; VADDS beside the first at 21 (two execute
    # slots), ready 28; its store a cycle after the first (one store unit): 29, done 38.
    m, r, rep = run(COPY.format(post=64, blk=1), two_load_units(), trace=True)
    assert [s[1] for s in slices(m, "VLD")] == [12, 12]
    assert [s[1] for s in slices(m, "VST")] == [28, 29]
    assert row(rep, "VF.BEGIN")["cycles"] == 38 - 2


def test_case_12_by_hand():
    # Pass 0 reads rows 0, 8, 16, ..., 56 (0x0 + 256 b): all in group 0 (banks 0 and 8), one block a
    # group a beat: 8 beats, holding every group's ports, at 12..19; its data ready 9 after its first
    # beat plus the 6 beats beyond the 2 it holds its unit anyway: 12 + 9 + 6 = 27. VADDS 27, ready 34.
    # The store writes rows 0x208 + 8b, group 0 again: 8 beats at 34..41, done 34 + 9 + 6 = 49.
    # Pass 1 (0x20 and 0x4120: group 1) is ready at 12, but UB is taken until 20: its load at 20..27
    # (ready 35), VADDS 35 (ready 42), its store at 42..49 (after pass 0's store's beats), done 57.
    m, r, rep = run(COPY.format(post=8, blk=8), two_load_units(), trace=True)
    assert [s[1] for s in slices(m, "VLD")] == [12, 20]
    assert [s[1] for s in slices(m, "VST")] == [34, 42]
    assert row(rep, "VF.BEGIN")["cycles"] == 57 - 2
    assert row(rep, "VLD")["bank_conflict_cycles"] == row(rep, "VST")["bank_conflict_cycles"] == 2 * 6


def test_read_write_costs_more_than_read_read_in_the_unrolled_add():
    """The bank_conflict_3510 sample's cases 1 and 2 (its unrolled add on the built-in 950 profile):
    src0 and src1 in one bank (case 1: two reads of a bank never share a cycle) against src0 and dst
    in one bank (case 2: every group's two reads of an iteration's loads leave no port for its store,
    and its store meets src0's loads in their banks). The hardware measures case 2 10% slower; the
    model must tell them apart the same way (more than 5%)."""
    from pathlib import Path

    from vcore.assembler import assemble
    from vcore.emulator import Machine

    text = (Path(__file__).resolve().parents[2] / "benchmarks" / "calibration" / "bank_3510.asm").read_text()

    def cycles(src1: int, dst: int) -> int:
        m = Machine(assemble(text, "bank_3510.asm", {"KA": 0, "KU": 1, "SRC1": src1, "DST": dst}), "950")
        r = m.run()
        assert r.fault is None and not r.races
        return r.total_cycles

    assert cycles(0x5100, 0xA000) > 1.05 * cycles(0x5000, 0xA100)
