"""A whole run moves data in program order, and again timed when two instructions could race.

The timed run is the reference (data performed at each job's start, landed at its end). These tests
hold the automatic run to it: every example program gives the same report and state both ways; a
race makes the run start again timed, so the stale read of ``race_stale_read.asm`` is kept, with
its GM writes put back first; programs whose footprints are refined at the start, and paused runs,
are timed from the start. The expected values are worked out by hand in the programs' comments.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from vcore.assembler import assemble
from vcore.emulator import Fault, Machine, ProgramError

PROGRAMS = sorted((Path(__file__).resolve().parents[2] / "programs").glob("*.asm"))


def both_ways(text: str, profile: str = "950", **limits) -> tuple[Machine, Machine]:
    program = assemble(text)
    timed = Machine(program, profile)
    timed.timed_data = True
    timed.run(**limits)
    auto = Machine(program, profile)
    auto.run(**limits)
    assert timed.ran_timed
    return timed, auto


def assert_same_outcome(timed: Machine, auto: Machine) -> None:
    # (a timed run replays no tiling loop: the program-order run's count of replayed instructions aside)
    mine, theirs = auto.report().to_json(), timed.report().to_json()
    assert theirs.pop("replayed_instructions") == 0
    mine.pop("replayed_instructions")
    assert mine == theirs
    for name in ("ub", "gm", "v", "p"):
        assert np.array_equal(getattr(auto, name), getattr(timed, name)), name
    assert auto.s == timed.s
    assert str(auto.result.fault) == str(timed.result.fault)


@pytest.mark.parametrize("profile", ["950", "a2"])
@pytest.mark.parametrize("path", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_every_example_program_is_the_same_both_ways(path, profile):
    text = path.read_text()
    declared = re.search(r"^\s*;\s*PROFILE\s+(\S+)", text, re.MULTILINE | re.IGNORECASE)
    if (declared.group(1) if declared is not None else "950") != profile:
        try:
            Machine(assemble(text), profile)
        except Fault:
            pytest.skip(f"its data does not fit {profile}'s memories")
        except ProgramError:
            pytest.skip(f"register instructions: the {profile} profile refuses them")
    timed, auto = both_ways(text, profile)
    assert_same_outcome(timed, auto)


def test_a_race_runs_again_timed_and_keeps_the_stale_read():
    timed, auto = both_ways((PROGRAMS[0].parent / "race_stale_read.asm").read_text())
    assert auto.ran_timed
    assert_same_outcome(timed, auto)
    assert auto.read("ub", 0x100, "f32", 2).tolist() == [11.0, 11.0]  # 1.0 + 10: the old data
    assert [r.kind for r in auto.engine.race_check.races.values()] == ["RAW"]


def test_a_race_free_pipeline_keeps_its_program_order_result():
    path = PROGRAMS[0].parent / "cookbook_dma_pipeline.asm"
    timed, auto = both_ways(path.read_text())
    assert not auto.ran_timed
    assert_same_outcome(timed, auto)


GM_THEN_RACE = """
.ubfill 0x0, f32, 64, 3.0
.gmfill 0x1000, f32, 64, 2.0
    DMA.UB2GM gm[0x0], [0x0], len=8          ; GM 0x0.. gets 3.0s (program order writes it at once)
    SETFLAG MTE3, S, 0
    WAITFLAG MTE3, S, 0
    DMA.GM2UB [0x0], gm[0x1000], len=8       ; 2.0s into UB 0x0..
    VADDS.f32 [0x100], [0x0], 10.0           ; nothing orders it after the DMA: a RAW race
    HALT
"""


def test_gm_written_before_the_race_is_put_back_before_the_timed_run():
    # The program-order run writes GM with the first DMA, then finds the race and starts again:
    # had GM kept the 3.0s, the timed run would not notice; what it must give is the timed outcome.
    timed, auto = both_ways(GM_THEN_RACE)
    assert auto.ran_timed
    assert_same_outcome(timed, auto)
    assert auto.read("gm", 0x0, "f32", 2).tolist() == [3.0, 3.0]
    assert auto.read("ub", 0x100, "f32", 2).tolist() == [13.0, 13.0]  # the old 3.0s, read stale


def test_a_program_whose_gm_starts_nonzero_is_put_back_exactly():
    # GM 0x0 held 5.0s before the run; the program-order run overwrote them, then rewound.
    text = GM_THEN_RACE.replace(".gmfill 0x1000", ".gmfill 0x0, f32, 64, 5.0\n.gmfill 0x1000")
    program = assemble(text)
    auto = Machine(program)
    auto.run()
    assert auto.ran_timed
    assert auto.read("gm", 0x0, "f32", 1).tolist() == [3.0]
    assert auto.read("gm", 0x1000, "f32", 1).tolist() == [2.0]


def test_refined_footprints_and_pauses_are_timed_from_the_start():
    gather = Machine(assemble((PROGRAMS[0].parent / "gather.asm").read_text()))
    gather.timed_data = False  # asking for program order does not change it:
    gather.run()
    assert gather.ran_timed  # VGATHER's footprint is refined when it starts
    machine = Machine(assemble((PROGRAMS[0].parent / "vadd_basic.asm").read_text()))
    machine.run(pause_after=1)
    assert machine.ran_timed
    machine.run()
    assert machine.ran_timed and not machine.result.paused


def test_a_fault_inside_the_engine_is_the_timed_runs_fault():
    # The cycle limit is reached while V schedules the VADDS: a timed run keeps only what started.
    text = ".ubfill 0x0, f32, 64, 1.0\n    VADDS.f32 [0x100], [0x0], 1.0, repeat=200\n    HALT\n"
    timed, auto = both_ways(text, max_cycles=50)
    assert auto.result.fault is not None and auto.result.fault.kind == "limit"
    assert auto.ran_timed
    assert_same_outcome(timed, auto)


def test_the_gm_log_keeps_each_block_once_however_often_it_is_written():
    # 200 DMAs write the same 256 bytes of GM (and one writes 64 more beside them): the log that
    # would put GM back holds each 32-byte block once, 320 bytes in all.
    text = """.ubfill 0x0, f32, 128, 3.0
    MOV S1, 0
loop:
    DMA.UB2GM gm[0x100], [0x0], len=8
    ADD S1, S1, 1
    BLT S1, 200, loop
    DMA.UB2GM gm[0x1c0], [0x0], len=4         ; 0x1c0..0x240: 64 bytes past the first 256
    HALT
"""
    machine = Machine(assemble(text))
    machine.run()
    assert not machine.ran_timed
    kept = machine.engine.program_order.gm_undo
    assert sum(before.size for _, before in kept) == 320
    assert sorted(start for start, _ in kept) == [0x100, 0x200]
    machine.engine.undo_gm()
    assert not machine.gm.any()  # GM was all zeros before the run


@pytest.mark.parametrize("addr", [0x0, 0x20, 0x1e0, 0x3ffe0 - 0xe0])
def test_the_contiguous_vld_vst_footprint_is_the_blocks_of_its_256_bytes(addr):
    # The VLD/VST run closures write the contiguous footprint out themselves, to save a call: it
    # must be the blocks holding bytes addr..addr+255, addr/32 up to (addr + 255)/32 + 1.
    # Inside a function (VF.BEGIN at pc 0, VLD 0x8, VST 0x10); the function's own job on V has the
    # union of its instructions' footprints.
    machine = Machine(assemble(f"VF.BEGIN\nVLD.f16 V0, [{addr}]\nVST.f16 [{addr}], V0, P0\nVF.END\nHALT\n"))
    machine.timed_data = True
    machine.run(trace=True)
    jobs = {s[4].pc: s[4] for s in machine.engine.accounting.slices if s[0] == "V"}
    assert sorted(jobs) == [0x0, 0x8, 0x10]
    blocks = (None, addr // 32, (addr + 255) // 32 + 1)
    assert [jobs[pc].footprint_reads.get("ub") for pc in (0x8, 0x10)] == [blocks, None]
    assert jobs[0x10].footprint_writes["ub"] == blocks
    assert jobs[0x0].footprint_reads["ub"] == blocks and jobs[0x0].footprint_writes["ub"] == blocks


def test_strict_mode_faults_at_the_timed_runs_first_race():
    timed, auto = both_ways((PROGRAMS[0].parent / "race_stale_read.asm").read_text(), strict=True)
    assert auto.ran_timed
    assert auto.result.fault.kind == "race"
    assert_same_outcome(timed, auto)


def test_an_instruction_limit_at_dispatch_keeps_the_program_order_result():
    # The limit stops S at dispatch; what was dispatched completes either way, so nothing needs
    # the timed run: passes of a DMA, a VADDS ordered after it, and the next DMA ordered after the
    # VADDS, stopped after 20 instructions (1 + 8 a pass: the third pass's DMA, SETFLAG, WAITFLAG).
    text = """.gmfill 0x0, f32, 64, 2.0
    MOV S1, 0
loop:
    DMA.GM2UB [0x0], gm[0x0], len=8
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    VADDS.f32 [0x100], [0x0], 1.0
    SETFLAG V, MTE2, 1
    WAITFLAG V, MTE2, 1
    ADD S1, S1, 1
    BLT S1, 5, loop
    HALT
"""
    timed, auto = both_ways(text, max_instructions=20)
    assert not timed.engine.race_check.races
    assert auto.result.fault.kind == "limit"
    assert not auto.ran_timed
    assert_same_outcome(timed, auto)
    assert auto.read("ub", 0x100, "f32", 1).tolist() == [3.0]  # 2.0 + 1.0, once the wait has ordered it
