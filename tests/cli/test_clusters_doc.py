"""docs/clusters.md runs as written: its LocalCluster recipe in Python, its SLURM batch script with a
stand-in for srun, its dask-jobqueue script with stand-ins for sbatch and scancel (the job scripts
dask-jobqueue writes run here, each in a session of its own); every recipe's rows are compared with
a local run's. The Kubernetes recipes need a Kubernetes cluster: they are only parsed."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from vcore.sweep import sweep, to_csv

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "clusters.md"
BLOCK = re.compile(r"^(?P<marker><!-- (?P<note>[^>]*) -->\n)?```(?P<lang>\w+)\n(?P<code>.*?)^```$", re.M | re.S)
STAND_INS = {
    # SLURM's sbatch: run the job script here in a session of its own (its id, the session's, is the
    # job's id); the script is copied first, since dask-jobqueue deletes it once sbatch returns.
    "sbatch": '#!/bin/sh\nscript=$(mktemp) && cp "$1" "$script"\n'
              'setsid bash "$script" </dev/null >/dev/null 2>&1 &\necho "Submitted batch job $!"\n',
    "scancel": '#!/bin/sh\nfor id in "$@"; do kill -TERM -- "-$id" 2>/dev/null; done\nexit 0\n',
    "srun": '#!/bin/sh\nexec "$@"\n',   # one task: one worker
}


def blocks() -> list[tuple[str, str, str]]:
    """(the note before it, its language, its code) for each fenced block of the doc."""
    return [(m["note"] or "", m["lang"], m["code"]) for m in BLOCK.finditer(DOC.read_text())]


def block(note: str, lang: str) -> str:
    (code,) = [c for n, lang_, c in blocks() if n == note and lang_ == lang]
    return code


def local_csv(tiles: list[int]) -> str:
    text = (ROOT / "programs" / "sweep_tile.asm").read_text()
    return to_csv(sweep(text, "programs/sweep_tile.asm", [("TILE", tiles)], ["950", "a2"], None, jobs=1))


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A folder holding programs/sweep_tile.asm, the stand-ins on PATH, the venv's commands after them."""
    (tmp_path / "programs").mkdir()
    shutil.copy(ROOT / "programs" / "sweep_tile.asm", tmp_path / "programs")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, script in STAND_INS.items():
        (bin_dir / name).write_text(script)
        (bin_dir / name).chmod(0o755)
    monkeypatch.setenv("PATH", os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), os.environ["PATH"]]))
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_every_block_says_whether_the_tests_run_it():
    found = blocks()
    assert len(found) == 5
    assert all(note.startswith(("run by the tests", "not run by the tests")) for note, _, _ in found), found


def test_the_local_cluster_recipe(monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    monkeypatch.chdir(ROOT)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(block("run by the tests", "python"), "docs/clusters.md LocalCluster", "exec"), {})
    out = printed.getvalue()
    assert out.startswith("Dask dashboard at http"), out
    assert out.split("\n", 1)[1] == local_csv([32, 64, 128]) + "\n", out


def test_the_slurm_batch_script(project):
    pytest.importorskip("distributed")
    script = project / "sweep.sbatch"
    script.write_text(block("run by the tests, with a stand-in for srun", "bash"))
    env = {**os.environ, "VCORE_ENV": sys.prefix, "SLURM_JOB_ID": "4242"}
    log = project / "slurm-4242.out"   # a file, as SLURM's: the scheduler and the worker outlive the script
    with log.open("w") as out:
        job = subprocess.Popen(["bash", str(script)], cwd=project, env=env, stdout=out, stderr=subprocess.STDOUT,
                               start_new_session=True)
        try:
            status = job.wait(timeout=240)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(job.pid, signal.SIGKILL)   # the scheduler and the worker, as SLURM ends a job
    output = log.read_text()
    assert status == 0, output
    assert "Traceback" not in output and "vcore: sweep: Dask dashboard at http" in output, output
    assert (project / "sweep-4242.csv").read_text() == local_csv([8, 16, 32, 64, 128, 256])


def test_the_dask_jobqueue_script(project):
    pytest.importorskip("dask_jobqueue")
    code = block("run by the tests, with stand-ins for sbatch and scancel", "python")
    assert "cores=8, processes=8" in code
    code = code.replace("cores=8, processes=8", "cores=1, processes=1")   # 2 workers here, not 16
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "docs/clusters.md SLURMCluster", "exec"), {})
    assert "Dask dashboard at http" in printed.getvalue()
    assert (project / "sweep.csv").read_text() == local_csv([8, 16, 32, 64, 128, 256])


def test_the_kubernetes_recipes_parse():
    not_run = [(lang, code) for note, lang, code in blocks() if note.startswith("not run")]
    assert sorted(lang for lang, _ in not_run) == ["bash", "python"]
    for lang, code in not_run:
        if lang == "python":
            compile(code, "docs/clusters.md", "exec")
        else:
            r = subprocess.run(["bash", "-n"], input=code, capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
