"""Every file vcore writes gets the mode a plain open() would give it: 0666 less the umask for a new
file, an existing file's own mode kept (issue 28, item 21); the write stays atomic (a temporary file
renamed into place)."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest
from cli_support import VCORE

from vcore.loading import write_atomic


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)

def with_umask(mask: int, action):
    old = os.umask(mask)
    try:
        return action()
    finally:
        os.umask(old)

@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_a_new_file_gets_0666_less_the_umask(tmp_path, mask):
    target = tmp_path / "out.bin"
    with_umask(mask, lambda: write_atomic(target, b"abc"))
    assert mode(target) == 0o666 & ~mask
    assert target.read_bytes() == b"abc"
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]   # no temporary file left beside it

@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_an_existing_file_keeps_its_mode(tmp_path, mask):
    target = tmp_path / "out.json"
    target.write_text("old")
    target.chmod(0o640)
    with_umask(mask, lambda: write_atomic(target, "new"))
    assert mode(target) == 0o640 and target.read_text() == "new"

def run(mask: int, *args, cwd: Path) -> subprocess.CompletedProcess:
    r = subprocess.run([VCORE, *map(str, args)], capture_output=True, text=True, timeout=120, cwd=cwd,
                       umask=mask, input="")
    assert r.returncode == 0, r.stderr
    return r

def test_every_file_the_command_writes(tmp_path):
    """.vbin, --report-file, --trace, a --dump to .npy, sweep -o, calibrate -o: under umask 022 each
    is 0644 (it was 0600); under 077, 0600; an existing --report-file of mode 0640 stays 0640."""
    prog = tmp_path / "p.asm"
    prog.write_text(".equ N, 1\n    VADDS.f32 [0x100], [0x0], 1.0, repeat=N\n    HALT\n")
    (tmp_path / "m.toml").write_text('[[measurement]]\nprogram = "p.asm"\nmeasured = 100\n')
    run(0o022, "asm", prog, "-o", "p.vbin", cwd=tmp_path)
    run(0o022, "run", prog, "--report", "none", "--report-file", "r.json", "--trace", "t.json",
        "--dump", "ub:0x100:f32:4=d.npy", cwd=tmp_path)
    run(0o022, "sweep", prog, "-D", "N=1,2", "--jobs", "1", "-o", "s.csv", cwd=tmp_path)
    run(0o022, "calibrate", "m.toml", "-o", "fitted.toml", cwd=tmp_path)
    for name in ("p.vbin", "r.json", "t.json", "d.npy", "s.csv", "fitted.toml"):
        assert mode(tmp_path / name) == 0o644, name
    (tmp_path / "r.json").chmod(0o640)
    run(0o077, "asm", prog, "-o", "q.vbin", cwd=tmp_path)
    run(0o077, "run", prog, "--report", "none", "--report-file", "r.json", cwd=tmp_path)
    assert mode(tmp_path / "q.vbin") == 0o600
    assert mode(tmp_path / "r.json") == 0o640
