"""Pipes, flags, barriers, the 950 scoreboard, races and stale data (docs/timing.md, "Pipes and
dispatch", "Ordering", "Data at simulated times").

Numbers used by hand (both profiles): scalar.issue = scalar.nop = 1, sync.* = 1, tensor.startup = 1;
DMA.GM2UB of 256 B (len=8): gm2ub_latency 100 + ceil(256 / 43.7 = 5.86) = 106 on a2,
100 + ceil(256 / 47.7 = 5.37) = 106 on 950. VADD.f32 [0x4100], [0x0], [0x2080] on a2: 2 cycles an
iteration, no conflicts (docs/timing.md's worked example), results 1 cycle later: 3 for repeat=1,
33 for repeat=16.

Dispatch: S reads one instruction a cycle (scalar.issue = 1 each), so the k-th instruction of a
straight-line program is dispatched at cycle k (counting from 0).
"""

from __future__ import annotations

import numpy as np
import pytest
from timing_support import row, slices, ub, vcore
from timing_support import run_pinned as run

DMA_CYCLES = 106

DATA = """\
.gmfill 0x0, f32, 64, 5.0
.ubfill 0x0, f32, 64, 1.0
.ubfill 0x2080, f32, 64, 2.0
.ubfill 0x4100, f32, 64, 10.0
"""


# -- overlap ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("profile", ["a2", "950"])
def test_independent_pipes_overlap(profile):
    # MTE2 runs the DMA 0..106; V runs the VADD (dispatched at 1) on bytes the DMA does not touch.
    vadd = "VADD.f32 [0x4100], [0x0], [0x2080], repeat=16" if profile == "a2" else \
        "VADD.f32 [0x4100], [0x0], [0x0], repeat=16"
    # a2: 16 * 2 + 1 = 33 (conflict-free, see test_timing_costs); 950 (src0 = src1 merge, dst in the
    # other bank half): also 33.
    text = f"DMA.GM2UB [0x8000], gm[0x0], len=8\n{vadd}\nHALT\n"
    m, r, rep = run(text, profile, trace=True)
    assert r.fault is None and rep["races"] == []
    assert row(rep, "DMA.GM2UB")["cycles"] == DMA_CYCLES
    assert row(rep, "VADD")["cycles"] == 33
    # V: 1 + 33 = 34; MTE2: 0 + 106; S: 3 instructions -> 3. max = 106, not 106 + 33 = 139.
    assert r.total_cycles == 106
    assert slices(m, "VADD") == [("V", 1, 34)]
    assert slices(m, "DMA.GM2UB") == [("MTE2", 0, 106)]

    # The other order: VADD 0..33, DMA dispatched at 1: 1..107; total 107 (sum would be 139).
    m, r, rep = run(f"{vadd}\nDMA.GM2UB [0x8000], gm[0x0], len=8\nHALT\n", profile)
    assert r.total_cycles == 107


def test_dma_cost_is_latency_plus_bytes_over_bandwidth():
    # a2: 100 + ceil(bytes / 43.7); 950: 100 + ceil(bytes / 47.7); UB2GM: 100 + ceil(bytes / 61.5 | 67.1)
    # 4 blocks of 2 x 32 B = 256 B, 160 B apart in GM: 0..63, 160..223, 320..383, 480..543. The last
    # straddles a GM window (a2: 512 B, 950: 128 B) that one window would hold, and pays a whole
    # window more: a2 100 + ceil((256 + 512) / 43.7 = 17.6) = 118, 950 100 + ceil(384 / 47.7 = 8.05) = 109.
    # 4096 B (len=128), window-aligned: a2 100 + ceil(93.73) = 194, 950 100 + ceil(85.87) = 186.
    # UB2GM 4096 B: a2 100 + ceil(66.6) = 167, 950 100 + ceil(61.04) = 162.
    cases = {
        "a2": [("DMA.GM2UB [0x0], gm[0x0], blocks=4, len=2, srcgap=3", 118),
               ("DMA.GM2UB [0x0], gm[0x0], blocks=4, len=2, srcgap=14", 106),  # 512 B apart: aligned
               ("DMA.GM2UB [0x8000], gm[0x0], len=128", 194),
               ("DMA.UB2GM gm[0x10000], [0x0], len=128", 167)],
        "950": [("DMA.GM2UB [0x0], gm[0x0], blocks=4, len=2, srcgap=3", 109),
                ("DMA.GM2UB [0x0], gm[0x20], blocks=4, len=2, srcgap=2", 106),  # 128 B apart from 32: inside
                ("DMA.GM2UB [0x8000], gm[0x0], len=128", 186),
                ("DMA.UB2GM gm[0x10000], [0x0], len=128", 162)],
    }
    for profile, items in cases.items():
        for text, cycles in items:
            m, r, rep = run(text + "\nHALT\n", profile)
            assert row(rep, "DMA")["cycles"] == cycles, (profile, text)


# -- flags -----------------------------------------------------------------------------------------

SYNCED = DATA + """\
    DMA.GM2UB [0x0], gm[0x0], len=8
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    VADD.f32 [0x4100], [0x0], [0x2080]
    HALT
"""

UNSYNCED = DATA + """\
    DMA.GM2UB [0x0], gm[0x0], len=8
    VADD.f32 [0x4100], [0x0], [0x2080]
    HALT
"""


def test_flags_serialise_and_vadd_reads_new_data():
    m, r, rep = run(SYNCED, "a2", trace=True)
    assert r.fault is None
    assert rep["races"] == []
    # MTE2: DMA 0..106, SETFLAG (dispatched 1) once the DMA is done: sets the flag at 106.
    # V: WAITFLAG (dispatched 2) holds until 106, takes sync.waitflag = 1: 106..107.
    # VADD (dispatched 3) then runs 107..110. total = dma end 106 + waitflag 1 + vadd 3 = 110.
    assert slices(m, "DMA.GM2UB") == [("MTE2", 0, 106)]
    assert slices(m, "WAITFLAG") == [("V", 106, 107)]
    assert slices(m, "VADD") == [("V", 107, 110)]
    assert r.total_cycles == 106 + 1 + 3
    # the WAITFLAG was ready at its dispatch (2) and waited until 106: flag_wait 104
    assert row(rep, "WAITFLAG")["stalls"] == {"flag_wait": 104}
    assert rep["stalls"]["flag_wait"] == 104
    # new data: 5 (from GM) + 2 = 7, not the old 1 + 2 = 3
    assert np.all(ub(m, 0x4100, "f32", 64) == 7.0)
    assert np.all(ub(m, 0x0, "f32", 64) == 5.0)


@pytest.mark.parametrize("profile", ["a2", "950"])
def test_unsynced_dma_is_a_raw_race_and_vadd_reads_stale_data(profile):
    m, r, rep = run(UNSYNCED, profile)
    assert r.fault is None
    # VADD dispatched at 1 starts at once (V is idle), reads UB at 1 while the DMA (0..106) is in flight.
    # old data: 1 + 2 = 3 (the DMA's 5.0 lands at 106, after the VADD read)
    assert np.all(ub(m, 0x4100, "f32", 64) == 3.0)
    assert np.all(ub(m, 0x0, "f32", 64) == 5.0)
    assert r.total_cycles == 106
    races = rep["races"]
    assert len(races) == 1
    race = races[0]
    assert race["kind"] == "RAW"
    assert race["first"] == {"pc": 0, "line": 5, "pipe": "MTE2", "text": "DMA.GM2UB [0x0], gm[0x0], len=8"}
    assert race["second"]["pipe"] == "V" and race["second"]["line"] == 6
    assert race["second"]["text"] == "VADD.f32 [0x4100], [0x0], [0x2080]"
    # the DMA writes UB bytes 0..256, the VADD reads src0 0..256 (src1 0x2080.. is not written)
    assert (race["space"], race["start"], race["end"]) == ("ub", 0, 256)
    assert race["count"] == 1


def test_unsynced_race_is_a_fault_with_strict():
    m, r, rep = run(UNSYNCED, "a2", strict=True)
    assert r.fault is not None
    assert r.fault.kind == "race"
    assert "RAW" in str(r.fault)


def test_race_on_the_command_line(tmp_path):
    path = tmp_path / "race.asm"
    path.write_text(UNSYNCED)
    res = vcore("run", path, "--profile", "a2", "--report", "none")
    assert res.returncode == 0, res.stderr
    assert "warning: race" in res.stderr
    assert "Traceback" not in res.stderr
    res = vcore("run", path, "--profile", "a2", "--report", "none", "--strict")
    assert res.returncode == 1
    assert "race" in res.stderr and "Traceback" not in res.stderr
    # with the flags: no warning
    path.write_text(SYNCED)
    res = vcore("run", path, "--profile", "a2", "--report", "none")
    assert res.returncode == 0 and "race" not in res.stderr


# -- V after V: a2 needs BARRIER V, 950 has the scoreboard ------------------------------------------

A2_DEPENDENT = DATA + """\
    VADD.f32 [0x4100], [0x0], [0x2080]
{barrier}
    VMUL.f32 [0x6000], [0x4100], [0x2080]
    HALT
"""


def test_a2_dependent_tensor_without_barrier_races_and_reads_stale():
    m, r, rep = run(A2_DEPENDENT.format(barrier=""), "a2", trace=True)
    assert r.fault is None
    # VADD 0..3 (occupies V 0..2). VMUL (conflict-free: src0 groups 8-11 | 12-15, src1 4-7 | 8-11,
    # dst 0x6000 groups 0-3 | 4-7 -> 2 + 1 = 3) dispatched at 1 starts when V is free: 2 -> 2..5,
    # reading 0x4100 before the VADD's results land at 3.
    assert slices(m, "VADD") == [("V", 0, 3)]
    assert slices(m, "VMUL") == [("V", 2, 5)]
    assert r.total_cycles == 5
    # stale: the old 10 * 2 = 20, not (1 + 2) * 2 = 6
    assert np.all(ub(m, 0x6000, "f32", 64) == 20.0)
    assert np.all(ub(m, 0x4100, "f32", 64) == 3.0)
    raw = [x for x in rep["races"] if x["kind"] == "RAW"]
    assert len(raw) == 1
    assert raw[0]["first"]["pipe"] == raw[0]["second"]["pipe"] == "V"
    assert raw[0]["first"]["text"].startswith("VADD") and raw[0]["second"]["text"].startswith("VMUL")
    assert (raw[0]["space"], raw[0]["start"], raw[0]["end"]) == ("ub", 0x4100, 0x4200)


def test_a2_barrier_v_orders_them():
    m, r, rep = run(A2_DEPENDENT.format(barrier="    BARRIER V"), "a2", trace=True)
    assert r.fault is None
    assert rep["races"] == []
    # VADD 0..3; BARRIER V dispatched at 1, V free at 2, waits for the VADD's results (3): 3..4
    # (barrier stall 3 - 2 = 1); VMUL dispatched at 2 starts at 4 -> 4..7.
    assert slices(m, "BARRIER") == [("V", 3, 4)]
    assert slices(m, "VMUL") == [("V", 4, 7)]
    assert r.total_cycles == 7
    assert rep["stalls"]["barrier"] == 1
    assert np.all(ub(m, 0x6000, "f32", 64) == 6.0)


N950_DEPENDENT = """\
.ubfill 0x0, f32, 64, 1.0
.ubfill 0x4100, f32, 64, 10.0
.ubfill 0x8000, f32, 64, 0.0
    VADD.f32 [0x4100], [0x0], [0x0]
    VMUL.f32 [0x6000], [0x4100], [0x4100]
    HALT
"""


def test_950_scoreboard_orders_dependent_v_without_barrier():
    m, r, rep = run(N950_DEPENDENT, "950", trace=True)
    assert r.fault is None
    assert rep["races"] == []
    # VADD (src0 = src1 merged, dst bank bit 1: conflict-free) 0..3, occupies V 0..2.
    # VMUL (reads 0x4100 in bank bit 1, merged; writes 0x6000 in bank bit 0: conflict-free, 3 cycles)
    # dispatched at 1, V free at 2, waits for the VADD's results at 3: dependency stall 1; 3..6.
    assert slices(m, "VMUL") == [("V", 3, 6)]
    assert r.total_cycles == 6
    assert rep["stalls"]["dependency"] == 1
    assert row(rep, "VMUL")["stalls"] == {"dependency": 1}
    # (1 + 1) * 2 = 4
    assert np.all(ub(m, 0x6000, "f32", 64) == 4.0)


def test_950_scoreboard_waits_for_overwrites_only_when_bytes_meet():
    text = """\
    VADD.f32 [0x4100], [0x0], [0x0]
    VEXP.f32 [0x8100], [0x8000]
    VEXP.f32 [0x4100], [0x8000]
    HALT
"""
    m, r, rep = run(text, "950", trace=True)
    assert r.fault is None and rep["races"] == []
    # VADD 0..3 (V busy 0..2). First VEXP: independent bytes, conflict-free (src bank bit 0, dst bit 1),
    # 64 / 16 = 4 cycles + 1: dispatched 1, starts when V is free at 2 -> 2..7 (V busy 2..6).
    # Second VEXP overwrites the VADD's dst (WAW): the VADD has landed (3) long before V is free (6):
    # starts 6 -> 6..11, no dependency stall.
    exps = slices(m, "VEXP")
    assert exps == [("V", 2, 7), ("V", 6, 11)]
    assert rep["stalls"]["dependency"] == 0
    assert r.total_cycles == 11


# -- deadlocks -------------------------------------------------------------------------------------

def test_wait_without_set_deadlocks_naming_the_wait():
    text = ("    VADD.f32 [0x4100], [0x0], [0x2080]\n    WAITFLAG MTE2, V, 1\n"
            "    VADD.f32 [0x6000], [0x0], [0x2080]\n    HALT\n")
    for profile in ("a2", "950"):
        m, r, rep = run(text, profile)
        assert r.fault is not None
        assert r.fault.kind == "deadlock"
        message = str(r.fault)
        assert "line 2" in message and "WAITFLAG MTE2, V, 1" in message


def test_cross_wait_deadlocks_naming_both_waits():
    text = """\
    WAITFLAG MTE2, V, 0
    SETFLAG V, MTE2, 0
    WAITFLAG V, MTE2, 0
    SETFLAG MTE2, V, 0
    HALT
"""
    # V waits for MTE2's flag, which MTE2 sets only after its own wait for V's flag, which V sets only
    # after its wait: nothing can move.
    m, r, rep = run(text, "a2")
    assert r.fault is not None and r.fault.kind == "deadlock"
    message = str(r.fault)
    assert "line 1" in message and "WAITFLAG MTE2, V, 0" in message
    assert "line 3" in message and "WAITFLAG V, MTE2, 0" in message


def test_deadlock_via_cli_exit_1(tmp_path):
    path = tmp_path / "dead.asm"
    path.write_text("    WAITFLAG MTE2, V, 1\n    HALT\n")
    res = vcore("run", path, "--report", "none")
    assert res.returncode == 1
    assert "deadlock" in res.stderr and "WAITFLAG MTE2, V, 1" in res.stderr
    assert "Traceback" not in res.stderr


# -- flags set twice -------------------------------------------------------------------------------

def test_flag_set_twice_without_wait_warns():
    m, r, rep = run("    SETFLAG MTE2, V, 0\n    SETFLAG MTE2, V, 0\n    HALT\n", "a2")
    assert r.fault is None
    assert len(m.flag_warnings()) == 1
    assert "MTE2" in m.flag_warnings()[0] and "V" in m.flag_warnings()[0]
    assert rep.get("warnings") == m.flag_warnings()


def test_flag_set_wait_set_wait_does_not_warn():
    text = """\
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    SETFLAG MTE2, V, 1
    HALT
"""
    m, r, rep = run(text, "a2")
    assert r.fault is None
    assert m.flag_warnings() == []


def test_kth_wait_consumes_kth_set():
    # Two DMAs, each followed by a SETFLAG; two waits on V, each followed by a VADD reading one of them.
    # MTE2: DMA1 0..106, SET at 106 (106..107), DMA2 (dispatched 2) 107..213, SET at 213.
    # V: WAIT (dispatched 4) consumes set 1: 106..107; VADD1 (dispatched 5) 107..110;
    #    WAIT (dispatched 6, V free at 109) consumes set 2 at 213: 213..214; VADD2 214..217.
    text = DATA + """\
.gmfill 0x100, f32, 64, 7.0
    DMA.GM2UB [0x0], gm[0x0], len=8
    SETFLAG MTE2, V, 0
    DMA.GM2UB [0x8000], gm[0x100], len=8
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    VADD.f32 [0x4100], [0x0], [0x2080]
    WAITFLAG MTE2, V, 0
    VADD.f32 [0xC100], [0x8000], [0x2080]
    HALT
"""
    m, r, rep = run(text, "a2", trace=True)
    assert r.fault is None and rep["races"] == []
    assert m.flag_warnings() == []  # the second set comes after the first was consumed (106 < 213)
    assert slices(m, "DMA.GM2UB [0x8000]") == [("MTE2", 107, 213)]
    assert slices(m, "WAITFLAG") == [("V", 106, 107), ("V", 213, 214)]
    # (src0 0x8000 groups 0-3 | 4-7, src1 4-7 | 8-11, dst 0xC100 8-11 | 12-15: conflict-free, 3 cycles)
    assert slices(m, "VADD.f32 [0xC100]") == [("V", 214, 217)]
    assert r.total_cycles == 217
    assert np.all(ub(m, 0x4100, "f32", 64) == 7.0)  # 5 + 2
    assert np.all(ub(m, 0xC100, "f32", 64) == 9.0)  # 7 + 2


# -- BARRIER ALL ------------------------------------------------------------------------------------

def test_barrier_all_holds_every_pipe_until_all_earlier_work_is_done():
    text = DATA + """\
    DMA.GM2UB [0x8000], gm[0x0], len=8
    VADD.f32 [0x4100], [0x0], [0x2080], repeat=16
    BARRIER ALL
    VADD.f32 [0xC100], [0x8000], [0x2080]
    DMA.GM2UB [0x9000], gm[0x0], len=8
    DMA.UB2GM gm[0x1000], [0x4100], len=8
    HALT
"""
    m, r, rep = run(text, "a2", trace=True)
    assert r.fault is None
    assert rep["races"] == []
    # Before: MTE2 0..106, V 1..34. BARRIER ALL (S, dispatched 2) holds S until 106 (stall 104),
    # takes sync.barrier 1 and the issue cycle 1: the next instruction is dispatched at 108.
    earlier_end = max(end for _, _, end in slices(m, "DMA.GM2UB [0x8000]") + slices(m, "VADD.f32 [0x4100]"))
    assert earlier_end == 106
    later = slices(m, "VADD.f32 [0xC100]") + slices(m, "DMA.GM2UB [0x9000]") + slices(m, "DMA.UB2GM")
    assert {p for p, _, _ in later} == {"V", "MTE2", "MTE3"}
    for _pipe, start, _end in later:
        assert start >= earlier_end
    assert [s for _, s, _ in later] == [108, 109, 110]
    assert rep["stalls"]["barrier"] == 104
    # the V read after the barrier sees the DMA's data: 5 + 2; MTE3 copies the VADD's 3.0 to GM
    assert np.all(ub(m, 0xC100, "f32", 64) == 7.0)
    assert np.all(m.read("gm", 0x1000, "f32", 64) == 3.0)


# -- limits ----------------------------------------------------------------------------------------

def test_max_cycles_stops_a_long_scalar_loop():
    text = """\
    MOV S1, 0
loop:
    ADD S1, S1, 1
    BLT S1, 1000000, loop
    HALT
"""
    m, r, rep = run(text, "950", max_cycles=1000)
    assert r.fault is not None and r.fault.kind == "limit"
    assert "1000" in str(r.fault)
    # 1 + 2 cycles a pass: about 500 passes, far from the 1000000
    assert 400 <= m.s[1] <= 600


def test_max_cycles_stops_a_long_vector_loop():
    # each VADD repeat=255 takes 511 cycles on a2; the second one would end at about 1022 > 1000
    text = """\
    MOV S1, 0
loop:
    VADD.f32 [0x14100], [0x0], [0x2080], repeat=255
    BARRIER V
    ADD S1, S1, 1
    BLT S1, 1000, loop
    HALT
"""
    m, r, rep = run(text, "a2", max_cycles=1000)
    assert r.fault is not None and r.fault.kind == "limit"


# -- more races: WAW, WAR, GM ------------------------------------------------------------------------

def test_waw_race_when_a_later_write_lands_first():
    text = """\
.gmfill 0x0, f32, 64, 5.0
.ubfill 0x0, f32, 16384, 1.0
.ubfill 0x2080, f32, 64, 2.0
    VADD.f32 [0x14100], [0x0], [0x2080], repeat=255
    DMA.GM2UB [0x14100], gm[0x0], len=8
    HALT
"""
    m, r, rep = run(text, "a2", trace=True)
    # VADD 0..511 (255 * 2 + 1), its results land at 511; the DMA (dispatched 1) writes the VADD's first
    # 256 bytes 1..107, while the VADD's write is in flight: WAW, the VADD first. The VADD lands last:
    # 1 + 2 = 3 stays.
    assert slices(m, "VADD") == [("V", 0, 511)]
    assert slices(m, "DMA") == [("MTE2", 1, 107)]
    (race,) = rep["races"]
    assert race["kind"] == "WAW"
    assert (race["first"]["pipe"], race["second"]["pipe"]) == ("V", "MTE2")
    assert (race["space"], race["start"], race["end"]) == ("ub", 0x14100, 0x14200)
    assert np.all(ub(m, 0x14100, "f32", 64) == 3.0)


@pytest.mark.parametrize(("mask", "race"), [(32, None), (40, (0x1080, 0x10A0))])
def test_a_masked_tensor_write_covers_only_its_active_datablocks(mask, race):
    # a2 overlaps the two VMULS (nothing orders consecutive V instructions there). The first writes
    # 0x1080..0x1180; the second's iteration covers 0x1000..0x1100, but with mask=32 only lanes 0-31
    # are on: f32 datablocks 0-3 (0x1000..0x1080), which the first does not write: no race (found by
    # a kernel port whose two VMULS wrote disjoint lanes of interleaved rows). With mask=40 lanes
    # 32-39 make datablock 4 (0x1080..0x10a0) active too: a WAW on exactly those bytes.
    text = f"VMULS.f32 [0x1080], [0x0], 1.0\nVMULS.f32 [0x1000], [0x0], 1.0, mask={mask}\nHALT\n"
    m, r, rep = run(text, "a2")
    assert [(x["kind"], x["start"], x["end"]) for x in rep["races"]] == ([] if race is None else [("WAW", *race)])


def war_program(n_mte3: int) -> str:
    """V waits for MTE3, which first runs ``n_mte3`` small copies; meanwhile MTE2 overwrites what the V
    instruction (earlier in program order) reads."""
    copies = "\n".join(f"    DMA.UB2GM gm[0x{0x10000 + 32 * i:x}], [0x9000], len=1" for i in range(n_mte3))
    return f"""\
.gmfill 0x0, f32, 64, 5.0
.ubfill 0x8000, f32, 64, 1.0
    WAITFLAG MTE3, V, 0
    VADDS.f32 [0xC100], [0x8000], 1.0
    DMA.GM2UB [0x8000], gm[0x0], len=8
{copies}
    SETFLAG MTE3, V, 0
    HALT
"""


def test_war_race_write_in_flight_when_read():
    # MTE3: one copy of 32 B, 100 + ceil(32 / 61.5) = 101, dispatched 3: 3..104; SETFLAG (dispatched 4)
    # sets at 104. V: WAITFLAG 104..105, VADDS (VADDS.f32: 64 / (64 * 0.5) = 2, src 0x8000 groups 0-3 |
    # 4-7, dst 0xC100 groups 8-11 | 12-15: no conflict) 105..108. MTE2: DMA (dispatched 2) 2..108.
    # The VADDS reads at 105 while the DMA's write is in flight: WAR, old data 1 + 1 = 2.
    m, r, rep = run(war_program(1), "a2", trace=True)
    assert slices(m, "VADDS") == [("V", 105, 108)]
    assert slices(m, "DMA.GM2UB") == [("MTE2", 2, 108)]
    (race,) = rep["races"]
    assert race["kind"] == "WAR"
    assert (race["first"]["pipe"], race["second"]["pipe"]) == ("V", "MTE2")
    assert (race["space"], race["start"], race["end"]) == ("ub", 0x8000, 0x8100)
    assert np.all(ub(m, 0xC100, "f32", 64) == 2.0)


def test_war_race_write_landed_before_the_read():
    # 10 copies: MTE3 3..104, then 101 each: the 10th ends at 104 + 9 * 101 = 1013 = the flag; the VADDS
    # runs 1014..1017 and reads the DMA's data (landed at 108): 5 + 1 = 6. WAR all the same.
    m, r, rep = run(war_program(10), "a2", trace=True)
    assert slices(m, "VADDS") == [("V", 1014, 1017)]
    (race,) = rep["races"]
    assert race["kind"] == "WAR"
    assert np.all(ub(m, 0xC100, "f32", 64) == 6.0)


def test_war_race_found_however_much_else_landed_in_between():
    # As above with 600 copies: the VADDS reads at about 60600 the bytes the DMA wrote at 108.
    m, r, rep = run(war_program(600), "a2")
    assert np.all(ub(m, 0xC100, "f32", 64) == 6.0)
    assert [x["kind"] for x in rep["races"]] == ["WAR"]


QUEUED_PRODUCER = """\
.gmfill 0x0, f32, 64, 5.0
.ubfill 0x0, f32, 64, 1.0
.ubfill 0x2080, f32, 64, 2.0
    DMA.GM2UB [0x8000], gm[0x1000], len=128
    DMA.GM2UB [0x0], gm[0x0], len=8
    VADD.f32 [0x4100], [0x0], [0x2080]
    HALT
"""


def test_raw_race_when_the_producer_is_still_queued():
    # MTE2: the 4096 B DMA 0..194 (100 + ceil(93.7)), then the DMA to 0x0 194..300. V: VADD (dispatched 2)
    # 2..5 reads 0x0: the stale 1 + 2 = 3, not 5 + 2. Nothing orders it after the DMA: a RAW race.
    m, r, rep = run(QUEUED_PRODUCER, "a2", trace=True)
    assert slices(m, "DMA.GM2UB [0x0]") == [("MTE2", 194, 300)]
    assert slices(m, "VADD") == [("V", 2, 5)]
    assert np.all(ub(m, 0x4100, "f32", 64) == 3.0)
    assert [(x["kind"], x["first"]["line"], x["second"]["line"]) for x in rep["races"]] == [("RAW", 5, 6)]


def test_gm_raw_race_between_mte3_and_mte2():
    text = """\
.ubfill 0x0, f32, 64, 1.0
    DMA.UB2GM gm[0x1000], [0x0], len=8
    DMA.GM2UB [0x8000], gm[0x1000], len=8
    HALT
"""
    # MTE3 0..105 (100 + ceil(256 / 61.5 = 4.16)); MTE2 (dispatched 1) 1..107 reads GM at 1: old zeros.
    m, r, rep = run(text, "a2", trace=True)
    assert slices(m, "DMA.UB2GM") == [("MTE3", 0, 105)]
    (race,) = rep["races"]
    assert race["kind"] == "RAW"
    assert (race["first"]["pipe"], race["second"]["pipe"]) == ("MTE3", "MTE2")
    assert (race["space"], race["start"], race["end"]) == ("gm", 0x1000, 0x1100)
    assert np.all(ub(m, 0x8000, "f32", 64) == 0.0)
    assert np.all(m.read("gm", 0x1000, "f32", 64) == 1.0)


# -- the queue ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("n", "queue_full", "total"), [(33, 0, 67), (34, 1, 69), (40, 7, 81)])
def test_queue_depth_holds_the_scalar_unit(n, queue_full, total):
    """n VADD.f32 x1 with dst 0x4100 + 0x200 i (groups 8-11 | 12-15 like the worked example: conflict-free,
    no two writing the same bytes): VADD i starts at 2i (V busy 2 each), S dispatches one a cycle.
    After dispatching VADD k at cycle k, the not-started ones are those with 2i > k: ceil(k / 2) of them.
    The 17th (k = 33, 17 > queue_depth 16) makes S wait until VADD 17 starts at 34 (1 cycle); from then
    on every VADD costs S one such cycle: k = 33..n-1 -> n - 33 cycles. The last VADD runs
    2(n-1)..2(n-1)+3 = 2n + 1."""
    body = "\n".join(f"    VADD.f32 [0x{0x4100 + i * 0x200:x}], [0x0], [0x2080]" for i in range(n))
    m, r, rep = run(body + "\n    HALT\n", "a2")
    assert r.fault is None and rep["races"] == []
    assert rep["stalls"]["queue_full"] == queue_full
    assert rep["stalls"]["bank_conflict"] == 0
    assert r.total_cycles == total == 2 * n + 1
