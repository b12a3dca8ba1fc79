"""CONTRACT section 14, blocks beyond the chip's cores: which core runs which block and when (worked
out by hand from the profile's chip keys), BLOCKIDX and BLOCKNUM, a fresh UB and registers for each
block, SYNCALL refused with more blocks than cores, races between blocks whichever cores ran them,
the report's blocks, the same result for every number of processes, and a launch whose cost grows
with its blocks and not faster."""

from __future__ import annotations

import json

import numpy as np
import pytest
from kernel_programs import COUNTDOWN, IDS, add_one, run_cli

from vcore.assembler import assemble
from vcore.emulator import ProgramError, load_profile
from vcore.emulator.kernel.cores import Kernel
from vcore.emulator.kernel.launch import BlockSchedule, Launch
from vcore.report_schema import validate

P950, PA2 = load_profile("950"), load_profile("a2")
CHIP = P950["chip"]
LAUNCH, PER_BLOCK, SWITCH = CHIP["launch"], CHIP["launch_per_block"], CHIP["block_switch"]  # 1073, 1, 83


def kernel(text: str, blocks: int, cores: int | None = None, jobs: int = 1, profile=P950) -> Kernel:
    k = Kernel(assemble(text, "k.asm"), profile, cores, jobs=jobs, blocks=blocks)
    k.run()
    return k


def test_the_chip_keys_of_both_profiles():
    assert (P950["chip"]["cores"], PA2["chip"]["cores"]) == (64, 48)
    for chip in (P950["chip"], PA2["chip"]):
        assert chip["launch_per_block"] > 0 and chip["block_switch"] > 0


def test_five_blocks_on_two_cores_worked_out_by_hand():
    # Blocks take 3, 6, 9, 12, 15 cycles. Blocks 0 and 1 start at 0 on cores 0 and 1 and end at 3 and
    # 6. Block 2 takes the first core free, core 0 at 3: it starts at 3 + 83 = 86 and ends at 95.
    # Block 3: core 1, free at 6: 89..101. Block 4: core 0, free at 95: 178..193. The last block ends
    # at 193: the kernel takes 1073 + 1 * 5 + 193 = 1271 cycles.
    report = kernel(COUNTDOWN, 5, cores=2).report().to_json()
    assert (SWITCH, PER_BLOCK, LAUNCH) == (83, 1, 1073)
    assert report["blocks"] == 5 and report["cores"] == 2
    assert report["per_core"][0]["blocks"] == [{"block": 0, "start": 0, "end": 3}, {"block": 2, "start": 86, "end": 95},
                                               {"block": 4, "start": 178, "end": 193}]
    assert report["per_core"][1]["blocks"] == [{"block": 1, "start": 0, "end": 6},
                                               {"block": 3, "start": 89, "end": 101}]
    assert [c["total_cycles"] for c in report["per_core"]] == [193, 101]
    assert report["total_cycles"] == 1073 + 1 * 5 + 193 == 1271
    assert report["launch_cycles"] == 1073 + 1 * 5
    assert report["instructions"] == sum(3 * b + 3 for b in range(5))  # every block's, summed
    assert [c["instructions"] for c in report["per_core"]] == [3 + 9 + 15, 6 + 12]
    assert report["pipes"]["S"]["busy_cycles"] == 45
    # The table and the scalars are the longest block's, block 4's: BEQ 5 times, SUB and JMP 4 times.
    assert [e["count"] for e in report["per_pc"]] == [1, 5, 4, 4, 1]
    assert report["scalars"]["S1"] == 0 and "block 4's (the longest)" in kernel(COUNTDOWN, 5, 2).report().to_text()


def test_a_tie_goes_to_the_lowest_core():
    # Every block takes 3 cycles (MOV, the taken BEQ, HALT: 1 each): four blocks on two cores. Blocks
    # 2 and 3 find both cores free at 3: block 2 takes core 0, block 3 core 1, both at 3 + 83.
    text = "    MOV S1, 0\n    BEQ S1, 0, done\ndone:\n    HALT\n"
    report = kernel(text, 4, cores=2).report().to_json()
    assert [[b["block"] for b in c["blocks"]] for c in report["per_core"]] == [[0, 2], [1, 3]]
    assert report["per_core"][0]["blocks"][1] == {"block": 2, "start": 3 + 83, "end": 3 + 83 + 3}
    assert report["total_cycles"] == 1073 + 1 * 4 + 89


def test_the_schedule_places_each_block_on_the_first_core_to_finish():
    # Lengths 10, 1, 1, 1, 1, 1 on 3 cores with a switch of 5: blocks 0, 1, 2 at 0 on cores 0, 1, 2;
    # block 3 on core 1 (free at 1, a tie with core 2, broken low) at 6..7; block 4 on core 2 (free at
    # 1) at 6..7; block 5 on core 1 (free at 7, a tie with core 2 again) at 12..13.
    s = BlockSchedule(3, 5, 6)
    assert [s.place(c) for c in (10, 1, 1, 1, 1, 1)] == [(0, 0), (1, 0), (2, 0), (1, 6), (2, 6), (1, 12)]
    assert s.finish() == 13
    assert s.rows(1) == [{"block": 1, "start": 0, "end": 1}, {"block": 3, "start": 6, "end": 7},
                         {"block": 5, "start": 12, "end": 13}]
    assert s.last == [0, 5, 4]


def test_the_launch_takes_cores_and_blocks_as_the_contract_says():
    assert Launch.of(P950, 8, None) == Launch(8, 8, False)  # --cores N alone: N blocks, one a core
    assert Launch.of(P950, None, 100) == Launch(100, 64, True)  # --blocks B: on chip.cores
    assert Launch.of(PA2, None, 100) == Launch(100, 48, True)
    assert Launch.of(P950, 4, 100) == Launch(100, 4, True)  # --cores caps the cores used
    assert Launch.of(P950, 1000, 100) == Launch(100, 64, True)  # ... at most chip.cores
    assert Launch.of(P950, None, 3) == Launch(3, 3, True)  # fewer blocks than cores: a core a block
    assert Launch.of(P950, None, 65535).blocks == 65535
    for cores, blocks, message in ((65, None, "--cores must be 1..64"), (49, None, "--cores must be 1..48"),
                                   (None, 0, "--blocks must be 1..65535, not 0"),
                                   (None, 65536, "--blocks must be 1..65535, not 65536"),
                                   (0, 4, "--cores must be at least 1, not 0")):
        with pytest.raises(ValueError, match=message):
            Launch.of(PA2 if cores == 49 else P950, cores, blocks)


@pytest.mark.parametrize(("blocks", "cores"), [(7, 3), (3, None), (40, 1)])
def test_each_block_reads_its_index_and_the_block_count(blocks, cores):
    k = kernel(IDS, blocks, cores)
    got = k.read("gm", 0x100, "u32", 2 * blocks).reshape(blocks, 2)
    assert got[:, 0].tolist() == list(range(blocks)) and set(got[:, 1].tolist()) == {blocks}
    assert k.result.fault is None and k.result.races == []


# What a block finds in UB and S5 as it starts goes to GM; then it leaves its mark in both, for the
# next block on its core to find if a block did not start fresh.
FRESH = """
    MOV S1, BLOCKIDX
    LD.u32 S2, [0x100]
    SHL S3, S1, 3
    ST.u32 gm[S3 + 0x1000], S2
    ST.u32 gm[S3 + 0x1004], S5
    ADD S4, S1, 100
    ST.u32 [0x100], S4
    MOV S5, 77
    HALT
"""


def test_every_block_starts_with_a_fresh_ub_and_fresh_registers():
    k = kernel(FRESH, 6, cores=2)
    assert (k.read("gm", 0x1000, "u32", 12) == 0).all()
    rows = k.report().to_json()["per_core"]
    for core in (0, 1):  # a core's UB and S at the end are its last block's
        last = rows[core]["blocks"][-1]["block"]
        assert k.read("ub", 0x100, "u32", 1, core=core)[0] == 100 + last
        assert k.scalars(core)[1] == last and k.scalars(core)[5] == 77
    with pytest.raises(ValueError, match=r"cores 0\.\.1"):
        k.read("ub", 0x100, "u32", 1, core=2)


def test_a_ub_load_is_in_every_blocks_fresh_ub():
    k = Kernel(assemble(FRESH, "k.asm"), P950, 2, jobs=1, blocks=5)
    k.write("ub", 0x100, np.array([9], dtype=np.uint32))
    k.run()
    assert k.read("gm", 0x1000, "u32", 10)[0::2].tolist() == [9] * 5


def test_syncall_with_more_blocks_than_cores_is_refused_at_its_line():
    text = "    MOV S1, BLOCKIDX\n    SYNCALL\n    HALT\n"
    with pytest.raises(ProgramError) as info:
        Kernel(assemble(text, "k.asm"), P950, 2, blocks=3)
    message = str(info.value)
    assert message.startswith("k.asm:2:5: error: SYNCALL in a launch of 3 blocks on 2 cores: the barrier could "
                              "never be met"), message
    assert "    SYNCALL" in message
    k = kernel(text, 2, cores=2)  # as many blocks as cores: the barrier is met
    assert k.result.fault is None


# Block 0 writes 7 at 0x200; block 1 counts down long enough to keep core 1 busy; block 2 then runs on
# core 0, after block 0, and reads 0x200: in order on one core, and still a race (nothing orders two
# blocks). It reads GM as the kernel started (0): a block sees no other block's writes.
ONE_CORE_RACE = """
    MOV S1, BLOCKIDX
    MOV S7, 7
    BNE S1, 0, other
    ST.u32 gm[0x200], S7
    HALT
other:
    BNE S1, 1, reader
    MOV S6, 200
wait:
    SUB S6, S6, 1
    BNE S6, 0, wait
    HALT
reader:
    LD.u32 S5, gm[0x200]
    HALT
"""


@pytest.mark.parametrize("jobs", [1, 2])
def test_two_blocks_run_one_after_the_other_on_one_core_still_race(jobs):
    k = kernel(ONE_CORE_RACE, 3, cores=2, jobs=jobs)
    rows = k.report().to_json()["per_core"]
    assert [b["block"] for b in rows[0]["blocks"]] == [0, 2]
    (race,) = k.result.races
    assert race["kind"] == "RAW" and race["blocks"] == [0, 2] and race["cores"] == [0, 0]
    assert (race["first"]["line"], race["second"]["line"]) == (5, 15)
    assert (race["start"], race["end"]) == (0x200, 0x204)
    assert race["latent"] is True  # block 2 started after block 0 ended
    (warning,) = k.result.warnings
    assert warning.startswith("warning: latent race between blocks (RAW): block 0 (core 0) line 5"), warning
    assert "block 2 (core 0) line 15" in warning
    assert k.scalars(0)[5] == 0  # core 0's last block, block 2, read 0: not block 0's 7
    assert k.read("gm", 0x200, "u32", 1)[0] == 7  # GM after the kernel has every block's writes


WAW = """
    MOV S1, BLOCKIDX
    ST.u32 gm[0x300], S1
    HALT
"""


def test_blocks_writing_the_same_bytes_race_once_and_the_highest_block_is_kept():
    k = kernel(WAW, 10, cores=3)
    (race,) = k.result.races
    assert race["kind"] == "WAW" and race["blocks"] == [0, 1] and race["count"] == 10
    assert k.read("gm", 0x300, "u32", 1)[0] == 9


def test_strict_makes_a_race_between_blocks_a_fault():
    k = Kernel(assemble(WAW, "k.asm"), P950, 2, jobs=1, blocks=4)
    fault = k.run(strict=True).fault
    assert fault.kind == "race" and "block 0 (core 0)" in str(fault) and "block 1 (core 1)" in str(fault)


def test_blocks_on_as_many_cores_name_blocks_in_their_races():
    k = kernel(WAW, 2)  # --blocks 2: a core a block, as --cores 2, but the race names blocks
    (race,) = k.result.races
    assert race["blocks"] == [0, 1] and k.result.warnings[0].startswith("warning: race between blocks (WAW): block 0")


def test_a_fault_in_a_block_stops_the_kernel_at_the_first_such_block():
    text = """
    MOV S1, BLOCKIDX
    BLT S1, 5, fine
    LD.u32 S2, gm[S1 + 1]
fine:
    HALT
"""
    k = kernel(text, 9, cores=2)
    assert str(k.result.fault).startswith("block 5 (core 1): k.asm:4: error: LD address 0x6 is not aligned")
    rows = k.report().to_json()["per_core"]
    assert sorted(b["block"] for c in rows for b in c["blocks"]) == list(range(6))


ADD_ONE = add_one(0x8000)  # (kernel_programs.add_one: x + 1 at GM 0x8000)


@pytest.mark.parametrize(("blocks", "cores"), [(21, 3), (3, 4)])
def test_the_result_is_the_same_for_every_number_of_processes(blocks, cores):
    x = np.arange(blocks * 64, dtype=np.float32)
    reports = []
    for jobs in (1, 2):
        k = Kernel(assemble(ADD_ONE, "k.asm"), P950, cores, jobs=jobs, blocks=blocks)
        k.write("gm", 0, x)
        k.run()
        reports.append(json.dumps(k.report().to_json(), sort_keys=True))
        np.testing.assert_array_equal(k.read("gm", 0x8000, "f32", blocks * 64), x + 1)
    assert reports[0] == reports[1]


def test_blocks_share_the_gm_bandwidth_of_the_cores_that_run_at_once():
    # 100 blocks on 8 cores stream as 8 cores do: each copy costs what it costs in a kernel of 8 cores.
    eight = {e["line"]: e["cycles"] for e in kernel(ADD_ONE, 8).report().to_json()["per_pc"]}
    many = {e["line"]: e["cycles"] for e in kernel(ADD_ONE, 100, cores=8).report().to_json()["per_pc"]}
    assert (many[4], many[10]) == (eight[4], eight[10])


def test_four_times_the_blocks_cost_four_times_the_time_and_a_row_a_block_more_memory():
    """A doubling test, not a time limit: the launch grows with its blocks, not faster. A block's
    Machine (its UB alone is 128 KiB) must not outlive it: the kernel's process keeps, per block, its
    place in the schedule (the report's rows) and its GM footprint, some hundreds of bytes."""
    import gc
    import time
    import tracemalloc

    program = assemble(IDS, "k.asm")

    def run(blocks: int):
        k = Kernel(program, P950, 4, gm_size=1 << 20, jobs=1, blocks=blocks)
        k.run()
        return k, k.report().to_json()

    run(16)  # (imports and caches)
    seconds, kept, peaks = {}, {}, {}
    for blocks in (256, 1024):
        start = time.process_time()
        run(blocks)
        seconds[blocks] = time.process_time() - start
        gc.collect()
        tracemalloc.start()
        held = run(blocks)
        gc.collect()
        kept[blocks], peaks[blocks] = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert held[1]["blocks"] == blocks
        del held
    assert seconds[1024] / seconds[256] < 6, seconds  # linear: 4; a pass over the blocks a block: 16
    assert (kept[1024] - kept[256]) / 768 < 1024, kept  # bytes a block, at the end
    assert (peaks[1024] - peaks[256]) / 768 < 2048, peaks  # and at the most


def test_the_command_line_runs_blocks_and_reports_them(tmp_path):
    r = run_cli(tmp_path, COUNTDOWN, "--blocks", "5", "--cores", "2", "--jobs", "2", "--report", "json", "--dump",
                "ub1:0x0:u32:1")
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    validate(report)  # the published schema declares blocks, and per_core's blocks
    assert report["blocks"] == 5 and report["cores"] == 2 and report["total_cycles"] == 1271
    assert [[b["block"] for b in c["blocks"]] for c in report["per_core"]] == [[0, 2, 4], [1, 3]]
    text = run_cli(tmp_path, COUNTDOWN, "--blocks", "5", "--cores", "2").stdout
    assert "kernel of 5 blocks on 2 core(s): launch 1078 cycles" in text
    assert "core  0:       193 cycles" in text and "blocks 0 (0..3), 2 (86..95), 4 (178..193)" in text
    assert "core  1:       101 cycles" in text and "blocks 1 (0..6), 3 (89..101)" in text


def test_without_cores_the_blocks_run_on_the_chips_cores(tmp_path):
    report = json.loads(run_cli(tmp_path, IDS, "--blocks", "50", "--profile", "a2", "--report", "json").stdout)
    assert report["cores"] == 48 and len(report["per_core"]) == 48
    assert [b["block"] for b in report["per_core"][0]["blocks"]] == [0, 48]  # every block is as long: ties go low
    assert [b["block"] for b in report["per_core"][1]["blocks"]] == [1, 49]
    assert report["launch_cycles"] == PA2["chip"]["launch"] + PA2["chip"]["launch_per_block"] * 50


def test_syncall_with_more_blocks_than_cores_exits_2_naming_its_line(tmp_path):
    r = run_cli(tmp_path, "    MOV S1, BLOCKIDX\n    SYNCALL\n    HALT\n", "--blocks", "3", "--cores", "2")
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert r.stderr.startswith(f"{tmp_path / 'k.asm'}:2:5: error: SYNCALL in a launch of 3 blocks on 2 cores: the "
                               f"barrier could never be met"), r.stderr


@pytest.mark.parametrize(("args", "message"), [
    (("--blocks", "0"), "--blocks must be 1..65535, not 0"),
    (("--blocks", "65536"), "--blocks must be 1..65535, not 65536"),
    (("--blocks", "4", "--cores", "0"), "--cores must be at least 1, not 0"),
    (("--cores", "49", "--profile", "a2"), "--cores must be 1..48, not 49"),
    (("--blocks", "4", "--trace-time", "cycles"), "--trace-time sets the time axis of a trace: give --trace"),
    (("--blocks", "70", "--dump", "ub64:0x0:u32:1"), "core 64 does not exist: the run has 64 core(s)"),
])
def test_bad_block_options_are_one_clear_message(args, message, tmp_path):
    r = run_cli(tmp_path, COUNTDOWN, *args)
    assert r.exit_code == 2 and message in r.output and "Traceback" not in r.output, r.output
