"""--blocks B (CONTRACT section 14) wherever a kernel's --cores N is taken: vcore run's own ; RUN line,
the pytest plugin's ; RUN, vcore sweep, and the Python API's load_kernel. Cycles worked out by hand
from the 950 profile's chip keys (launch 1073, launch_per_block 1, block_switch 83)."""

from __future__ import annotations

import json

import pytest
from cli_support import COUNTED, outcomes, plugin_run
from click.testing import CliRunner

import vcore
from vcore.cli import main

# COUNTED (cli_support): MOV, N passes of ADD and BLT, HALT, 1 cycle each on S: 2N + 2 cycles a block,
# whatever its index.


def _kernel_total(blocks_on_core0: int, d: int, blocks: int) -> int:
    """Equal blocks of d cycles on two cores: core 0 runs blocks 0, 2, 4, ... one after the other."""
    return 1073 + 1 * blocks + blocks_on_core0 * d + (blocks_on_core0 - 1) * 83


def test_sweep_runs_each_combination_as_a_launch_of_blocks(tmp_path):
    path = tmp_path / "loop.asm"
    path.write_text(COUNTED)
    r = CliRunner().invoke(main, ["sweep", str(path), "-D", "N=1,5", "--blocks", "3", "--cores", "2", "-o",
                                  str(tmp_path / "rows.json"), "--jobs", "1"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    rows = json.loads((tmp_path / "rows.json").read_text())
    # N = 1: blocks of 4 cycles; block 2 on core 0 at 4 + 83: 1073 + 3 + 4 + 83 + 4 = 1167. N = 5: 12.
    assert [row["total_cycles"] for row in rows] == [_kernel_total(2, 4, 3), _kernel_total(2, 12, 3)] == [1167, 1183]


def test_a_sweep_row_says_when_a_profiles_chip_has_too_few_cores(tmp_path):
    path = tmp_path / "loop.asm"
    path.write_text(COUNTED)
    r = CliRunner().invoke(main, ["sweep", str(path), "-D", "N=1", "--profile", "950,a2", "--cores", "64", "-o",
                                  str(tmp_path / "rows.json"), "--jobs", "1"], catch_exceptions=False)
    assert r.exit_code == 0 and "1 of 2 runs failed" in r.output, r.output
    rows = json.loads((tmp_path / "rows.json").read_text())
    assert rows[0]["error"] == "" and rows[1]["error"].startswith("--cores must be 1..48, not 64")


def test_run_applies_the_programs_own_run_blocks_line(tmp_path):
    path = tmp_path / "loop.asm"
    path.write_text(COUNTED + "; RUN --blocks 5 --cores 2\n")
    r = CliRunner().invoke(main, ["run", str(path), "--report", "json"])
    assert r.exit_code == 0, r.output
    assert "applied the program's ; RUN --blocks 5" in r.stderr
    report = json.loads(r.stdout)
    assert report["blocks"] == 5 and report["total_cycles"] == _kernel_total(3, 4, 5) == 1073 + 5 + 12 + 166


def test_the_api_loads_a_kernel_of_blocks(tmp_path):
    path = tmp_path / "loop.asm"
    path.write_text(COUNTED)
    k = vcore.load_kernel(path, blocks=5, cores=2, jobs=1)
    k.run()
    report = k.report()
    assert report.blocks == 5 and report.cores == 2 and report.total_cycles == _kernel_total(3, 4, 5)
    with pytest.raises(vcore.LaunchError, match="cores=N or blocks=B"):
        vcore.load_kernel(path)
    with pytest.raises(vcore.LaunchError, match=r"--blocks must be 1\.\.65535"):
        vcore.load_kernel(path, blocks=0)


PLUGIN = {
    # Equal blocks on two cores: core 0 runs 0, 2, 4 and core 1 runs 1, 3; a core's UB and S at the end
    # are its last block's.
    "run_blocks.asm": "MOV S1, BLOCKIDX\nSHL S2, S1, 2\nST.u32 gm[S2], S1\nST.u32 [0x0], S1\nHALT\n"
                      "; RUN --blocks 5 --cores 2 --jobs 2\n; EXPECT gm:0x0:u32:5 = 0 1 2 3 4\n"
                      "; EXPECT ub1:0x0:u32:1 = 3\n; EXPECT ub:0x0:u32:1 = 4\n; EXPECT S1 = 4\n",
    "run_blocks_core_past.asm": "HALT\n; RUN --blocks 5 --cores 2\n; EXPECT ub2:0x0:u32:1 = 0\n",
    "run_blocks_syncall.asm": "SYNCALL\nHALT\n; RUN --blocks 3 --cores 2\n; EXPECT S1 = 0\n",
}


def test_the_pytest_plugin_runs_blocks(tmp_path):
    for name, text in PLUGIN.items():
        (tmp_path / name).write_text(text)
    out = plugin_run(tmp_path, "-q").stdout
    status = outcomes(out)
    assert status == {"run_blocks.asm": "PASSED", "run_blocks_core_past.asm": "FAILED",
                      "run_blocks_syncall.asm": "FAILED"}, out
    assert "ub2:0x0:u32:1: the run has 2 core(s), ub0..ub1" in out, out
    assert "SYNCALL in a launch of 3 blocks on 2 cores" in out, out
