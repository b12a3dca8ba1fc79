"""Progress on stderr: shown on a terminal once a run lasts a second, never in pipes."""

from __future__ import annotations

import os
import subprocess

import pytest
from cli_support import VCORE, on_a_terminal

LONG = "    MOV S1, 0\nloop:\n    ADD S1, S1, 1\n    BLT S1, {n}, loop\n    HALT\n"


@pytest.mark.skipif(os.name != "posix", reason="pseudo-terminals")
def test_progress_on_a_terminal(tmp_path):
    prog = tmp_path / "long.asm"
    prog.write_text(LONG.format(n=6_000_000))  # 12 M instructions: several seconds
    code, seen, _ = on_a_terminal([VCORE, "run", prog, "--report", "none"])
    assert code == 0
    text = seen.decode()
    assert "instructions retired, cycle" in text
    assert text.endswith("\r\x1b[K")  # the line is erased at the end


def test_no_progress_in_a_pipe(tmp_path):
    prog = tmp_path / "long.asm"
    prog.write_text(LONG.format(n=2_000_000))  # over a second here
    r = subprocess.run([VCORE, "run", str(prog), "--report", "none"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0
    assert r.stderr == ""


@pytest.mark.skipif(os.name != "posix", reason="pseudo-terminals")
def test_a_sweep_shows_its_runs_on_the_same_progress_line(tmp_path):
    # (issue 33, item 6: one mechanism, vcore.progress, for run, sweep and calibrate) each finished run
    # redraws the line, and the line is erased at the end, as vcore run's is
    prog = tmp_path / "count.asm"
    prog.write_text(LONG.format(n="N"))
    args = [VCORE, "sweep", str(prog), "-D", "N=3,5", "--jobs", "1"]
    code, seen, out = on_a_terminal(args)
    assert code == 0
    assert seen.decode() == "\rsweep: 1/2 runs done\x1b[K\rsweep: 2/2 runs done\x1b[K\r\x1b[K"
    assert len(out.splitlines()) == 3   # the table: its head and a row a run
    piped = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0 and piped.stderr == "" and piped.stdout == out
