"""vcore run, debug and sweep apply a program's own ; DEFINE, ; LOAD, ; PROFILE and ; RUN lines (the
pytest plugin's setup lines), the command line winning, and say on stderr what they applied (issue
28, item 5): a newcomer who writes them gets their values, not zeros with exit 0."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_support import vcore, vcore_here

PROG = """\
; DEFINE N=4
; LOAD ub:0x0 = x.npy
    VADDS.f32 [0x100], [0x0], 1.0, count=N
    HALT
"""


@pytest.fixture
def prog(tmp_path):
    np.save(tmp_path / "x.npy", np.arange(1, 9, dtype=np.float32))
    np.save(tmp_path / "y.npy", np.full(8, 10, dtype=np.float32))
    path = tmp_path / "p.asm"
    path.write_text(PROG)
    return path


def dumped(stdout: str) -> str:
    return next(line for line in stdout.splitlines() if line.startswith("ub:0x100:f32:8 = "))


def test_the_real_command_applies_them_and_says_so(prog, tmp_path):
    r = vcore("run", prog, "--report", "none", "--dump", "ub:0x100:f32:8", cwd=tmp_path, ok=True)
    assert dumped(r.stdout) == "ub:0x100:f32:8 = 2.0 3.0 4.0 5.0 0.0 0.0 0.0 0.0"   # x + 1 on N = 4 lanes
    assert r.stderr == (f"vcore: applied the program's ; DEFINE N=4 ({prog}:1), ; LOAD ub:0x0 = x.npy "
                        f"({prog}:2)\n")
    # -D on the command line wins over ; DEFINE, and --load to the same place over ; LOAD
    r = vcore("run", prog, "--report", "none", "--dump", "ub:0x100:f32:8", "-D", "N=2",
              "--load", f"ub:0x0={tmp_path / 'y.npy'}", ok=True)
    assert dumped(r.stdout) == "ub:0x100:f32:8 = 11.0 11.0 0.0 0.0 0.0 0.0 0.0 0.0"
    assert r.stderr == ""   # nothing of the program's applied: nothing to say


def test_a_load_elsewhere_lands_after_the_programs(prog, tmp_path):
    np.save(tmp_path / "z.npy", np.array([-1.0, -2.0], dtype=np.float32))
    r = vcore_here("run", prog, "--report", "none", "--dump", "ub:0x100:f32:8", "-D", "N=8",
                   "--load", f"ub:0x8={tmp_path / 'z.npy'}")
    assert r.returncode == 0, r.stderr
    assert dumped(r.stdout) == "ub:0x100:f32:8 = 2.0 3.0 0.0 -1.0 6.0 7.0 8.0 9.0"   # the command line's on top
    assert "; LOAD ub:0x0 = x.npy" in r.stderr and "DEFINE" not in r.stderr


def test_profile_and_run_lines(tmp_path):
    (tmp_path / "p.asm").write_text("; PROFILE a2\n; RUN --max-instructions 3\n"
                                    "    MOV S1, 0\nloop:\n    ADD S1, S1, 1\n    BLT S1, 10, loop\n    HALT\n")
    r = vcore_here("run", tmp_path / "p.asm", "--report", "json")
    assert r.returncode == 1 and "limit" in r.stderr.lower() + r.stdout.lower()      # stopped after 3
    assert json.loads(r.stdout)["profile"] == "a2"
    assert r.stderr.startswith(f"vcore: applied the program's ; PROFILE a2 ({tmp_path / 'p.asm'}:1), "
                               f"; RUN --max-instructions 3 ({tmp_path / 'p.asm'}:2)\n")
    r = vcore_here("run", tmp_path / "p.asm", "--report", "json", "--profile", "950", "--max-instructions", "100")
    assert r.returncode == 0 and json.loads(r.stdout)["profile"] == "950" and r.stderr == ""


def test_run_cores_strict(tmp_path):
    (tmp_path / "k.asm").write_text("; RUN --cores 2 --jobs 1\n    MOV S1, BLOCKIDX\n    HALT\n")
    r = vcore_here("run", tmp_path / "k.asm", "--report", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["cores"] == 2
    assert "; RUN --cores 2" in r.stderr and "; RUN --jobs 1" in r.stderr
    r = vcore_here("run", tmp_path / "k.asm", "--report", "none", "--trace", tmp_path / "t.json")
    assert r.returncode == 0, r.stderr   # a trace of the whole kernel: the program's --cores applies
    assert r.stderr == (f"vcore: applied the program's ; RUN --cores 2 ({tmp_path / 'k.asm'}:1), "
                        f"; RUN --jobs 1 ({tmp_path / 'k.asm'}:1)\n")
    names = {e["args"]["name"] for e in json.loads((tmp_path / "t.json").read_text())["traceEvents"]
             if e["name"] == "process_name"}
    assert names == {"core 0", "core 1", "chip"}
    (tmp_path / "race.asm").write_text("; RUN --strict\n" + (tmp_path / "k.asm").read_text().split("\n", 1)[1]
                                       .replace("    HALT\n", "") + "    DMA.GM2UB [0x0], gm[0x0], len=8\n"
                                       "    VADDS.f32 [0x100], [0x0], 1.0, count=8\n    HALT\n")
    r = vcore_here("run", tmp_path / "race.asm", "--report", "none")
    assert r.returncode == 1 and "race" in r.stderr and "; RUN --strict" in r.stderr


def test_a_bad_setup_line_is_an_error_with_its_place(prog, tmp_path):
    prog.write_text(PROG.replace("x.npy", "missing.npy"))
    r = vcore_here("run", prog, "--report", "none")
    assert r.returncode == 2
    last = r.stderr.splitlines()[-1]
    assert last.startswith(f"{prog}:2: error: LOAD ub:0x0 = missing.npy: ") and "cannot read" in last
    prog.write_text("; RUN --frobnicate\n    HALT\n")
    r = vcore_here("run", prog, "--report", "none")
    assert r.returncode == 2 and r.stderr.startswith(f"{prog}:1: error: RUN takes ") and len(r.stderr.splitlines()) == 1


def test_a_vbin_has_no_setup_lines(prog, tmp_path):
    vcore_here("asm", prog, "-o", tmp_path / "p.vbin", "-D", "N=4")
    r = vcore_here("run", tmp_path / "p.vbin", "--report", "none", "--dump", "ub:0x100:f32:8")
    assert r.returncode == 0 and r.stderr == ""
    assert dumped(r.stdout) == "ub:0x100:f32:8 = 1.0 1.0 1.0 1.0 0.0 0.0 0.0 0.0"


def test_debug_applies_them_too(prog, tmp_path):
    prog.write_text("; RUN --cores 2\n" + PROG)
    r = vcore("debug", prog, "-D", "N=2", stdin="continue\nprint ub:0x100:f32:4\nquit\n")
    assert r.returncode == 0, r.stderr
    assert "ub:0x100:f32:4 = 2.0 3.0 0.0 0.0" in r.stdout
    assert f"vcore: applied the program's ; LOAD ub:0x0 = x.npy ({prog}:3)" in r.stderr
    assert f"vcore debug does not apply the program's ; RUN --cores 2 ({prog}:1)" in r.stderr


SWEPT = """\
; DEFINE M=2
; DEFINE N=100
; LOAD gm:0x0:u32 = n.npy
    LD.u32 S2, gm[0x0]       ; a count from the loaded file: 0 without it
    MOV S1, 0
loop:
    ADD S1, S1, 1
    BLT S1, S2, loop
    VADDS.f32 [0x100], [0x0], 1.0, count=N * M
    HALT
"""


def test_sweep_applies_them_and_its_values_win(tmp_path):
    np.save(tmp_path / "n.npy", np.array([50]))
    (tmp_path / "s.asm").write_text(SWEPT)
    r = vcore_here("sweep", tmp_path / "s.asm", "-D", "N=8,64", "--jobs", "1", "-o", tmp_path / "rows.json")
    assert r.returncode == 0, r.stderr
    rows = json.loads((tmp_path / "rows.json").read_text())
    assert [(row["N"], row["error"]) for row in rows] == [(8, ""), (64, "")]
    assert "M" not in rows[0]                      # the program's DEFINE is not a column
    assert rows[0]["total_cycles"] < rows[1]["total_cycles"]        # N = 8 and 64, not the program's 100
    no_load = tmp_path / "t.asm"
    no_load.write_text(SWEPT.replace("; LOAD", "; (no load)"))
    vcore_here("sweep", no_load, "-D", "N=8,64", "--jobs", "1", "-o", tmp_path / "rows2.json")
    rows2 = json.loads((tmp_path / "rows2.json").read_text())
    assert rows2[0]["total_cycles"] < rows[0]["total_cycles"]     # 50 passes of the loop more with the LOAD
    assert r.stderr.startswith(f"vcore: applied the program's ; DEFINE M=2 ({tmp_path / 's.asm'}:1), ; LOAD "
                               f"gm:0x0:u32 = n.npy ({tmp_path / 's.asm'}:3)\n")
