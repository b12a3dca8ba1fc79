"""Small promises of `vcore run` found by the bad-input corpus review: each with its expected
message written out by hand."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

VCORE = str(Path(sys.executable).with_name("vcore"))


def vcore(tmp_path, source: bytes | str, *args):
    prog = tmp_path / "p.asm"
    prog.write_bytes(source if isinstance(source, bytes) else source.encode())
    r = subprocess.run([VCORE, "run", str(prog), "--report", "none", *args], capture_output=True, text=True,
                       timeout=60)
    assert "Traceback" not in r.stdout + r.stderr
    return r, prog


def test_a_byte_order_mark_is_not_text(tmp_path):
    r, _ = vcore(tmp_path, b"\xef\xbb\xbf    MOV S1, 5\n    HALT\n", "--dump", "ub:0:u8:1")
    assert r.returncode == 0, r.stderr


def test_gm_size_takes_hex(tmp_path):
    r, _ = vcore(tmp_path, "    HALT\n", "--gm-size", "0x100", "--dump", "gm:0xfc:u32:1")
    assert r.returncode == 0, r.stderr
    assert "gm:0xfc:u32:1 = 0" in r.stdout


def test_a_jump_past_the_end_of_the_program_ends_it(tmp_path):
    # CONTRACT 2.3: "A program ends at HALT or when it runs past its last instruction."
    r, _ = vcore(tmp_path, "    MOV S1, 1\n    JMP 0x800\n    MOV S1, 2\n", "--report", "json")
    assert r.returncode == 0, r.stderr
    assert '"S1": 1' in r.stdout


def test_a_jump_to_the_end_of_the_program_ends_it(tmp_path):
    r, _ = vcore(tmp_path, "    JMP end\n    NOP\nend:\n")
    assert r.returncode == 0, r.stderr


def test_dump_past_the_end_is_refused_before_the_run(tmp_path):
    r, _ = vcore(tmp_path, "loop: JMP loop\n", "--gm-size", "4096", "--dump", "gm:0xff0:f32:8")
    assert r.returncode == 2  # at once: the endless loop never runs
    assert "--dump gm:0xff0:f32:8: read: GM bytes 0xff0..0x1010 outside GM (size 0x1000)" in r.stderr


def test_a_negative_address_is_shown_negative(tmp_path):
    r, _ = vcore(tmp_path, "    MOV S1, 0\n    VF.BEGIN\n    VLD.f16 V0, [S1 - 32]\n    VF.END\n")
    assert r.returncode == 1
    assert "UB bytes -0x20..0xe0 outside UB" in r.stderr


def test_the_flag_set_twice_warning_names_the_second_setflag(tmp_path):
    r, _ = vcore(tmp_path, "    SETFLAG MTE2, V, 0\n    SETFLAG MTE2, V, 0\n    HALT\n", "--profile", "a2")
    assert r.returncode == 0
    assert "event 0 set again at cycle" in r.stderr and "by line 2 (SETFLAG MTE2, V, 0)" in r.stderr
