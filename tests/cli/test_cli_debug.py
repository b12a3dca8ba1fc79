"""`vcore debug` driven through stdin in a subprocess; expected values worked out by hand."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

VCORE = str(Path(sys.executable).with_name("vcore"))

PROGRAM = """\
.ubfill 0x0, f16, 128, 1.5
    MOV S1, 0
    MOV S2, 0x1000
loop:
    VADDS.f16 [S2], [0x0], 1.0
    ADD S1, S1, 1
    ADD S2, S2, 256
    BLT S1, 3, loop
done:
    HALT
"""


@pytest.fixture
def prog(tmp_path):
    path = tmp_path / "d.asm"
    path.write_text(PROGRAM)
    return path


def debug(prog, commands: str, *args) -> list[str]:
    r = subprocess.run([VCORE, "debug", str(prog), *args], input=commands, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    return r.stdout.splitlines()


def test_step_and_print(prog):
    out = debug(prog, "step\nprint S1\nstep 2\nprint S2\nprint ub:0x1000:f16:2\nquit\n")
    assert out[0] == "next: line 2 (MOV S1, 0)"
    assert out[1] == "next: line 3 (MOV S2, 0x1000)"
    assert out[2] == "S1 = 0"
    assert out[3] == "next: line 6 (ADD S1, S1, 1)"
    assert out[4] == "S2 = 4096"
    assert out[5] == "ub:0x1000:f16:2 = 2.5 2.5"  # 1.5 + 1.0, landed before the next dispatch


def test_break_on_label_and_line_and_continue(prog):
    out = debug(prog, "break done\nbreak 6\ncontinue\nprint S1\ncontinue\nprint S1\ndelete 2\ncontinue\nprint S1\n"
                      "continue\n")
    assert out[1] == "breakpoint 1: line 10 (HALT)"
    assert out[2] == "breakpoint 2: line 6 (ADD S1, S1, 1)"
    assert out[3:5] == ["breakpoint 2", "next: line 6 (ADD S1, S1, 1)"]
    assert out[5] == "S1 = 0"
    assert out[6:9] == ["breakpoint 2", "next: line 6 (ADD S1, S1, 1)", "S1 = 1"]
    assert out[9:12] == ["deleted breakpoint 2", "breakpoint 1", "next: line 10 (HALT)"]
    assert out[12] == "S1 = 3"
    # 2 MOV + 3 passes of 4 + HALT = 15 instructions
    assert out[13].startswith("the program has ended: 15 instructions")


def test_watch_stops_after_the_instruction_that_changed_the_bytes(prog):
    out = debug(prog, "watch ub:0x1100:4\ncontinue\nprint S2\n")
    assert out[1] == "watching ub:0x1100:4"
    # the second VADDS writes 2.5 (0x4100, little endian 00 41) at 0x1100; S2 is not yet advanced
    assert out[2:5] == ["watch ub:0x1100:4 changed", "  old: 00 00 00 00", "  new: 00 41 00 41"]
    assert out[5] == "next: line 6 (ADD S1, S1, 1)"
    assert out[6] == "S2 = 4352"


def test_next_runs_over_the_loop_back_branch(prog):
    out = debug(prog, "break 8\ncontinue\ndelete\nnext\nprint S1\n")
    assert out[3] == "next: line 8 (BLT S1, 3, loop)"
    assert out[5] == "next: line 10 (HALT)"  # the loop ran to its end
    assert out[6] == "S1 = 3"


def test_back_undoes_the_last_instruction_exactly(prog):
    out = debug(prog, "step 6\nprint S1\nprint S2\ncycles\nback\nprint S1\nprint S2\nstep\nprint S1\ncycles\n")
    # 6 instructions: MOV, MOV, VADDS, ADD S1, ADD S2, BLT: next is the second VADDS
    assert out[1] == "next: line 5 (VADDS.f16 [S2], [0x0], 1.0)"
    assert out[2:4] == ["S1 = 1", "S2 = 4352"]
    cycles = out[4:8]
    assert cycles[0].startswith("S     at cycle ")
    # back: before the BLT (line 8)
    assert out[8] == "next: line 8 (BLT S1, 3, loop)"
    assert out[9:11] == ["S1 = 1", "S2 = 4352"]
    assert out[11] == "next: line 5 (VADDS.f16 [S2], [0x0], 1.0)"
    assert out[13:17] == cycles  # replayed to the same cycle on every pipe


def test_print_registers_and_errors(prog):
    out = debug(prog, "print V0.f16\nprint P0\nprint S99\nprint ub:0x40000:f16:1\nbogus\nbreak nowhere\nback\n")
    assert out[1] == "V0.f16 = " + " ".join(["0.0"] * 128)
    assert out[2] == "P0 = none (0 of 256 entries set)"
    assert out[3].startswith("error: no scalar register S99")
    assert out[4].startswith("error: ") and "outside UB" in out[4]
    assert out[5] == "error: unknown command 'bogus' (help lists them)"
    assert out[6].startswith("error: 'nowhere' is neither a line number nor a label")
    assert out[7] == "error: at the start: nothing to undo"


def test_mask_register_print(tmp_path):
    path = tmp_path / "p.asm"
    path.write_text("    VF.BEGIN\n    PSET.b16 P1, VL3\n    VF.END\n    HALT\n")
    out = debug(path, "step\nstep\nprint P1\n")
    # inside the function, after its PSET: 3 lanes of 2 bytes, entries 0..5 set
    assert out[2] == "next: line 3 (VF.END) (in a vector function)"
    assert out[3] == "P1 = entries 0..5 (6 of 256 entries set)"


def test_bad_program_is_an_assembly_error(tmp_path):
    path = tmp_path / "bad.asm"
    path.write_text("    FOO S1\n")
    r = subprocess.run([VCORE, "debug", str(path)], input="", capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "bad.asm:1:5: error:" in r.stderr and "Traceback" not in r.stderr
