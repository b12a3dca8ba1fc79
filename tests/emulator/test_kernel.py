"""CONTRACT section 8, multi-core kernels: BLOCKIDX and BLOCKNUM, SYNCALL and GM visibility across it,
races between cores, the kernel's time (worked out by hand from the profile's prices), per-core
reports, ub<K> dumps, and the same result for every number of processes."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from kernel_programs import COUNTDOWN, IDS, SYNCED, add_one, run_cli

from vcore.assembler import AsmError, assemble, parse_define
from vcore.emulator import load_profile
from vcore.emulator.kernel.cores import Kernel

P950 = load_profile("950")
LAUNCH, SYNCALL = P950["chip"]["launch"], P950["chip"]["syncall"]   # 1073 and 200
PER_BLOCK = P950["chip"]["launch_per_block"]   # 18: the launch grows with the blocks (section 14)


def kernel(text: str, cores: int, jobs: int = 1, profile=P950) -> Kernel:
    k = Kernel(assemble(text, "k.asm"), profile, cores, jobs=jobs)
    k.run()
    return k


def test_each_core_reads_its_block_index_and_the_core_count():
    k = kernel(IDS, 5)
    got = k.read("gm", 0x100, "u32", 10)
    assert got.tolist() == [0, 5, 1, 5, 2, 5, 3, 5, 4, 5]
    assert [k.scalars(c)[1] for c in range(5)] == [0, 1, 2, 3, 4]
    assert k.result.fault is None and k.result.races == []


def test_a_core_alone_is_block_0_of_1():
    k = kernel(IDS, 1)
    assert k.read("gm", 0x100, "u32", 2).tolist() == [0, 1]


def test_the_kernel_takes_its_slowest_core_plus_the_launch():
    k = kernel(COUNTDOWN, 4)
    report = k.report().to_json()
    assert [c["total_cycles"] for c in report["per_core"]] == [3, 6, 9, 12]
    assert report["total_cycles"] == 12 + LAUNCH + 4 * PER_BLOCK == 1089   # --cores 4 is 4 blocks
    assert report["launch_cycles"] == LAUNCH + 4 * PER_BLOCK and report["blocks"] == 4
    assert [c["blocks"] for c in report["per_core"]] == [[{"block": c, "start": 0, "end": 3 * c + 3}] for c in range(4)]
    assert report["cores"] == 4 and [c["core"] for c in report["per_core"]] == [0, 1, 2, 3]
    assert report["pipes"]["S"]["instructions"] == sum(3 * c + 3 for c in range(4))   # every core's, summed
    assert "slowest core 3" in report["verdict"]


# Before the SYNCALL core k spends 1 + 3k + 1 cycles (MOV, k passes, the taken BEQ) and arrives with no
# pipe busy; all go on at the last arrival (core N-1: 3N - 1) plus chip.syncall, then SYNCALL's own
# 2 cycles (its sync cycle and its issue) and HALT's 1.


def test_syncall_releases_every_core_at_the_last_arrival_plus_its_cost():
    k = kernel(SYNCED, 4)
    report = k.report().to_json()
    release = 3 * 4 - 1 + SYNCALL
    assert [c["total_cycles"] for c in report["per_core"]] == [release + 3] * 4
    assert [c["stalls"]["syncall"] for c in report["per_core"]] == [release - (3 * c + 2) for c in range(4)]
    assert report["total_cycles"] == release + 3 + LAUNCH + 4 * PER_BLOCK
    assert report["stalls"]["syncall"] == sum(release - (3 * c + 2) for c in range(4))


def test_syncall_on_one_core_without_a_kernel_costs_its_price():
    from vcore.emulator import Machine

    m = Machine(assemble(SYNCED, "k.asm"), P950)
    m.run()
    assert m.report().total_cycles == 2 + SYNCALL + 3   # BLOCKIDX is 0: MOV, BEQ, then SYNCALL and HALT


# Core 1 writes 7 at 0x200; core 0 reads 0x200 before and after the SYNCALL.
VISIBLE = """
    MOV S1, BLOCKIDX
    MOV S2, 7
    BNE S1, 1, reader
    ST.u32 gm[0x200], S2
    SYNCALL
    HALT
reader:
    LD.u32 S5, gm[0x200]
    SYNCALL
    LD.u32 S6, gm[0x200]
    HALT
"""


def test_gm_writes_are_seen_by_other_cores_only_across_a_syncall():
    k = kernel(VISIBLE, 2)
    s = k.scalars(0)
    assert (s[5], s[6]) == (0, 7)
    (race,) = k.result.races
    assert race["kind"] == "RAW" and race["cores"] == [1, 0]
    assert (race["first"]["line"], race["second"]["line"]) == (5, 9)
    assert (race["start"], race["end"]) == (0x200, 0x204)
    (warning,) = k.result.warnings
    assert "race between cores (RAW): core 1 line 5" in warning and "core 0 line 9" in warning


def test_a_race_between_cores_is_latent_when_their_times_did_not_meet():
    # VISIBLE: core 1's ST (MOV, MOV, BNE: cycle 3) and core 0's LD (MOV, MOV, BNE taken: cycle 3) run
    # at once: an observed race, latent false. With 20 ADDs before core 0's LD, it reads at cycle 23,
    # long after the write: nothing but a SYNCALL orders them, so the same race is latent.
    (race,) = kernel(VISIBLE, 2).result.races
    assert race["latent"] is False
    slow = VISIBLE.replace("reader:\n", "reader:\n" + "    ADD S9, S9, 1\n" * 20)
    k = kernel(slow, 2)
    (race,) = k.result.races
    assert race["latent"] is True and race["kind"] == "RAW" and race["cores"] == [1, 0]
    assert (race["first"]["line"], race["second"]["line"]) == (5, 29)
    (warning,) = k.result.warnings
    assert warning.startswith("warning: latent race between cores (RAW): core 1 line 5")


def test_no_race_when_a_syncall_orders_the_write_and_the_read():
    text = VISIBLE.replace("    LD.u32 S5, gm[0x200]\n", "")
    k = kernel(text, 2)
    assert k.result.races == [] and k.scalars(0)[6] == 7


WAW = """
    MOV S1, BLOCKIDX
    ST.u32 gm[0x300], S1
    SYNCALL
    LD.u32 S4, gm[0x300]
    HALT
"""


def test_two_cores_writing_the_same_bytes_race_and_the_higher_core_is_kept():
    k = kernel(WAW, 3)
    races = k.result.races
    assert [(r["kind"], r["cores"]) for r in races] == [("WAW", [0, 1])]   # once per pair of instructions
    assert races[0]["count"] == 3   # core pairs (0, 1), (0, 2), (1, 2)
    assert k.read("gm", 0x300, "u32", 1)[0] == 2
    assert [k.scalars(c)[4] for c in range(3)] == [2, 2, 2]


def test_strict_makes_a_race_between_cores_a_fault():
    k = Kernel(assemble(WAW, "k.asm"), P950, 2, jobs=1)
    result = k.run(strict=True)
    assert result.fault is not None and result.fault.kind == "race"
    assert "k.asm:3" in str(result.fault) and "core 0" in str(result.fault) and "core 1" in str(result.fault)


def test_a_core_that_ends_while_others_wait_is_a_deadlock():
    text = """
    MOV S1, BLOCKIDX
    BEQ S1, 0, out
    SYNCALL
out:
    HALT
"""
    k = Kernel(assemble(text, "k.asm"), P950, 3, jobs=1)
    fault = k.run().fault
    assert fault.kind == "deadlock"
    assert "waits forever" in str(fault) and "core 0 ended" in str(fault) and "k.asm:4" in str(fault)


def test_a_fault_in_one_core_stops_the_kernel_and_names_the_core():
    text = """
    MOV S1, BLOCKIDX
    BNE S1, 2, fine
    LD.u32 S2, gm[S1 + 1]
fine:
    HALT
"""
    k = Kernel(assemble(text, "k.asm"), P950, 4, jobs=1)
    fault = k.run().fault
    assert str(fault).startswith("core 2: k.asm:4: error: LD address 0x3 is not aligned")


ADD_ONE = add_one(0x4000)  # (kernel_programs.add_one: x + 1 at GM 0x4000)


@pytest.mark.parametrize("jobs", [2, 3])
def test_the_result_is_the_same_for_every_number_of_processes(jobs):
    x = np.arange(8 * 64, dtype=np.float32)
    reports, outs = [], []
    for j in (1, jobs):
        k = Kernel(assemble(ADD_ONE, "k.asm"), P950, 8, jobs=j)
        k.write("gm", 0, x)
        k.run()
        reports.append(json.dumps(k.report().to_json(), sort_keys=True))
        outs.append(k.read("gm", 0x4000, "f32", 512))
    assert reports[0] == reports[1]
    np.testing.assert_array_equal(outs[0], x + 1)
    np.testing.assert_array_equal(outs[1], x + 1)


def test_many_cores_share_the_gm_bandwidth():
    """A copy costs max(ceil(setup + bytes / burst), ceil(bytes / sustained)), both rates at most the
    core's share of chip.gm_bytes_per_cycle. 64 cores: the share is 986 / 64 = 15.40625 bytes a cycle,
    below every rate of the 950 (burst 1000 in, 200 out; sustained about 61 and 47): 256 bytes cost
    ceil(S_in + 16.62) in and ceil(S_out + 16.62) out, with S the setups of the profile (about 211
    and 272). With 8 cores the share (123.25) caps only the bursts: ceil(S_in + 256 / 123.25 = 2.08) in,
    ceil(S_out + 2.08) out."""
    dma = P950["dma"]
    assert P950["chip"]["gm_bytes_per_cycle"] == 986  # the premises of the arithmetic above
    assert min(dma["gm2ub_burst_bytes_per_cycle"], dma["ub2gm_burst_bytes_per_cycle"]) > 123.25
    assert min(dma["gm2ub_bytes_per_cycle"], dma["ub2gm_bytes_per_cycle"]) > 15.41
    s_in, s_out = dma["gm2ub_setup"], dma["ub2gm_setup"]
    for cores, gm2ub, ub2gm in ((64, math.ceil(s_in + 16.62), math.ceil(s_out + 16.62)),
                                (8, math.ceil(s_in + 2.08), math.ceil(s_out + 2.08))):
        k = kernel(ADD_ONE, cores)
        per_pc = {e["line"]: e["cycles"] for e in k.report().to_json()["per_pc"]}
        assert (per_pc[4], per_pc[10]) == (gm2ub, ub2gm), cores


def test_blockidx_and_blocknum_are_reserved_names():
    for text, message in (("BLOCKIDX:\n    HALT\n", "'BLOCKIDX' is a reserved name"),
                          (".equ BLOCKNUM, 4\n    HALT\n", "'BLOCKNUM' is a reserved name"),
                          ("    ADD S1, S1, BLOCKIDX\n", "BLOCKIDX is not a constant: read it into a register")):
        with pytest.raises(AsmError) as info:
            assemble(text, "r.asm")
        assert message in str(info.value), str(info.value)
    with pytest.raises(ValueError, match="reserved name"):
        parse_define("BLOCKIDX=3")


def test_the_command_line_runs_a_kernel_and_dumps_each_cores_ub(tmp_path):
    np.save(tmp_path / "x.npy", np.arange(256, dtype=np.float32))
    r = run_cli(tmp_path, ADD_ONE, "--cores", "4", "--jobs", "2", "--load", f"gm:0x0={tmp_path / 'x.npy'}", "--dump",
                "ub3:0x100:f32:2", "--dump", "ub:0x100:f32:1", "--dump", "gm:0x4300:f32:2", "--report", "json")
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert report["dumps"] == {"ub3:0x100:f32:2": [193.0, 194.0], "ub:0x100:f32:1": [1.0],
                               "gm:0x4300:f32:2": [193.0, 194.0]}
    assert report["cores"] == 4 and len(report["per_core"]) == 4
    text = run_cli(tmp_path, ADD_ONE, "--cores", "4").stdout
    assert "kernel of 4 core(s)" in text and "core  3:" in text


@pytest.mark.parametrize(("args", "message"), [
    (("--cores", "0"), "--cores must be 1..64, not 0"),
    (("--cores", "65"), "--cores must be 1..64, not 65"),
    (("--cores", "2", "--jobs", "0"), "--jobs must be at least 1"),
    (("--jobs", "2"), "give --cores N or --blocks B too"),
    (("--cores", "2", "--dump", "ub2:0x0:f32:1"), "core 2 does not exist"),
])
def test_bad_kernel_options_are_one_clear_message(args, message, tmp_path):
    r = run_cli(tmp_path, ADD_ONE, *args)
    assert r.exit_code == 2 and message in r.output and "Traceback" not in r.output


def test_a_race_between_cores_is_a_warning_and_with_strict_a_fault(tmp_path):
    r = run_cli(tmp_path, WAW, "--cores", "2", "--report", "none")
    assert r.exit_code == 0 and "warning: race between cores (WAW): core 0 line 3" in r.stderr
    r = run_cli(tmp_path, WAW, "--cores", "2", "--report", "none", "--strict")
    assert r.exit_code == 1 and "error: race between cores (WAW)" in r.stderr


_MANY_CORES_BIG_GM = """\
import sys, threading, time
import numpy as np

# The peak of the process's anonymous memory (RssAnon), sampled: what copying GM would add. (Its whole
# RSS also counts each core's mapping of the image file's cached pages, which depends on the page
# cache, so on what else the machine runs.)
peak, done = [0], threading.Event()
def sample():
    while not done.is_set():
        with open("/proc/self/status") as status:
            kib = next(int(line.split()[1]) for line in status if line.startswith("RssAnon:"))
        peak[0] = max(peak[0], kib)
        time.sleep(0.005)
sampler = threading.Thread(target=sample, daemon=True)
sampler.start()
sys.path.insert(0, {root!r})
from vcore.assembler import assemble
from vcore.emulator import load_profile
from vcore.emulator.kernel.cores import Kernel
program = assemble('''
    MOV S1, BLOCKIDX
    MUL S2, S1, 0x100000                  ; core k reads its 32 KiB at k MiB
    DMA.GM2UB [0x0], gm[S2], len=1024
    SETFLAG MTE2, MTE3, 0
    WAITFLAG MTE2, MTE3, 0
    ADD S3, S2, 0x4000000
    DMA.UB2GM gm[S3], [0x0], len=1024
    HALT
''')
kernel = Kernel(program, load_profile("950"), 16, gm_size=0x8000000, jobs=1)
kernel.write("gm", 0, np.full(64 << 20, 7, dtype=np.uint8))  # 64 MiB of input, all of it data
result = kernel.run()
assert result.fault is None, result.fault
assert (kernel.read("gm", 0x4000000 + 15 * 0x100000, "u8", 32768) == 7).all()
done.set()
sampler.join()
print(peak[0] // 1024)
"""


def test_cores_share_the_gm_they_do_not_write(tmp_path):
    # 16 cores, 128 MiB of GM with 64 MiB of it loaded: each core maps GM as the kernel starts, copy
    # on write, so the load is in memory once (and in the image file), not 16 times (1 GiB more).
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "big.py"
    script.write_text(_MANY_CORES_BIG_GM.format(root=str(Path(__file__).resolve().parents[2])))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    # MiB of anonymous memory: the process and its 64 MiB template (about 170 here); a copy of GM per
    # core would add 16 x 64 MiB
    assert int(out.stdout.split()[-1]) < 400, out.stdout


def test_each_core_maps_the_kernels_gm_copy_on_write():
    program = assemble("    MOV S1, BLOCKIDX\n    ST.u32 gm[0x100], S1\n    HALT\n")
    kernel = Kernel(program, load_profile("950"), 3, gm_size=1 << 20, jobs=1)
    kernel.write("gm", 0, np.arange(16, dtype=np.uint8))
    seen = []
    original = kernel._start

    def start(args, stop):
        groups = original(args, stop)
        seen.extend(m.gm for g in groups for m in g.machines.values())
        return groups

    kernel._start = start
    assert kernel.run().fault is None
    assert len(seen) == 3 and all(isinstance(gm, np.memmap) and gm.mode == "c" for gm in seen)
    assert all((gm[:16] == np.arange(16)).all() for gm in seen)  # the load, in every core's GM
    assert [int(gm[0x100]) for gm in seen] == [0, 1, 2]  # each core's own write, its own page


def test_merging_the_cores_writes_keeps_the_higher_cores_bytes_without_a_byte_index():
    from vcore.emulator.kernel.gm_merge import Writes, merge_writes

    def writes(*runs):  # (start, end, value) each
        return Writes(np.array([r[0] for r in runs]), np.array([r[1] for r in runs]),
                      np.concatenate([np.full(r[1] - r[0], r[2], dtype=np.uint8) for r in runs]))

    out = merge_writes([writes((0, 10, 1), (40, 44, 1)), writes((5, 15, 2), (20, 25, 2)), writes((42, 48, 3))])
    assert out.start.tolist() == [0, 20, 40] and out.end.tolist() == [15, 25, 48]
    assert out.data.tolist() == [1] * 5 + [2] * 10 + [2] * 5 + [1] * 2 + [3] * 6
