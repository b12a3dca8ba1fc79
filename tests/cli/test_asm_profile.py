"""``vcore asm`` checks the program against ``--profile`` (default 950), as the part-three rule of
profile-only instructions says: the same located refusal as ``run`` would give, exit 2, no output."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

VCORE = str(Path(sys.executable).parent / "vcore")


def _asm(tmp_path, text: str, *args: str) -> tuple[subprocess.CompletedProcess, object]:
    src = tmp_path / "p.asm"
    src.write_text(text)
    out = tmp_path / "p.vbin"
    r = subprocess.run([VCORE, "asm", str(src), "-o", str(out), *args],
                       capture_output=True, text=True, check=False)
    return r, out


def test_the_a2_refuses_integer_division_and_register_code_and_nothing_is_written(tmp_path):
    r, out = _asm(tmp_path, "    NOP\n    VDIV.s32 [0x20000], [0x0], [0x10000]\n", "--profile", "a2")
    assert r.returncode == 2 and not out.exists()
    assert r.stderr.startswith(f"{tmp_path / 'p.asm'}:2:5: error: VDIV.s32 needs the 950 profile: "
                               "the a2 divides only f16 and f32"), r.stderr
    assert "Traceback" not in r.stderr
    r, out = _asm(tmp_path, "VF.BEGIN\n    VADD.f32 V0, V1, V2, P0\nVF.END\n", "--profile", "a2")
    assert r.returncode == 2 and not out.exists()
    assert f"{tmp_path / 'p.asm'}:1:1: error: VF.BEGIN starts a vector function" in r.stderr, r.stderr


def test_the_default_profile_is_the_950(tmp_path):
    r, out = _asm(tmp_path, "    VDIV.s32 [0x20000], [0x0], [0x10000]\n")
    assert r.returncode == 0 and out.exists(), r.stderr
    r, out = _asm(tmp_path, "    VDIV.f32 [0x20000], [0x0], [0x10000]\n", "--profile", "a2")
    assert r.returncode == 0 and out.exists(), r.stderr


def test_an_unknown_profile_is_a_usage_error(tmp_path):
    r, out = _asm(tmp_path, "    NOP\n", "--profile", "910")
    assert r.returncode == 2 and not out.exists()
    assert "unknown profile '910'" in r.stderr and "Traceback" not in r.stderr
