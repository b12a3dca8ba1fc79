"""`vcore sweep` when things go wrong around the runs: a process that dies under a combination loses
only that combination (run again once, then a row with its error); a --dask address that is wrong or
unreachable, or a cluster whose workers lack vcore, is one message and exit 2; a sweep over
profiles alone still plots."""

from __future__ import annotations

import csv
import io
import multiprocessing
import os
import signal
import subprocess
import sys
import time

import pytest
from cli_support import COUNTED
from click.testing import CliRunner

from vcore import sweep as sweep_module
from vcore.cli import main

needs_fork = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="the test's stand-in for run_one reaches the workers by fork")


def sweep(tmp_path, *args):
    path = tmp_path / "loop.asm"
    path.write_text(COUNTED)
    return CliRunner().invoke(main, ["sweep", str(path), *args], catch_exceptions=False)


def _rows(path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(path.read_text())))


# A stand-in for ``sweep.run_one`` that kills its process (SIGKILL, as the kernel's out-of-memory killer
# does) for the combinations N = n in DEATHS: every time, or with a flag file only the first time (the
# file remembers it across processes). Module-level, so that a pool can send it by name; the workers,
# forked from this process, see the test's DEATHS.
DEATHS: dict = {}
_real_run_one = sweep_module.run_one


def run_one_or_die(text, path, defines, profile, cores, *setup):
    n = defines.get("N")
    if n in DEATHS and (DEATHS[n] is None or not DEATHS[n].exists()):
        if DEATHS[n] is not None:
            DEATHS[n].write_text("died once")
        os.kill(os.getpid(), signal.SIGKILL)
    return _real_run_one(text, path, defines, profile, cores, *setup)


@needs_fork
def test_a_combination_that_kills_its_process_twice_is_a_row_with_its_error(tmp_path, monkeypatch):
    monkeypatch.setattr(sweep_module, "run_one", run_one_or_die)
    monkeypatch.setitem(DEATHS, 3, None)
    r = sweep(tmp_path, "-D", "N=1,2,3,4,5", "--jobs", "2", "-o", str(tmp_path / "rows.csv"))
    assert r.exit_code == 0, r.output
    rows = _rows(tmp_path / "rows.csv")
    assert [(row["N"], row["total_cycles"]) for row in rows] == [
        ("1", "4"), ("2", "6"), ("3", ""), ("4", "10"), ("5", "12")]
    assert [row["error"] == "" for row in rows] == [True, True, False, True, True]
    error = rows[2]["error"]
    assert "process" in error and "died" in error and "SIGKILL" in error and "twice" in error, error
    assert "1 of 5 runs failed" in r.stderr


@needs_fork
def test_a_combination_whose_process_died_once_is_run_again(tmp_path, monkeypatch):
    flag = tmp_path / "died"
    monkeypatch.setattr(sweep_module, "run_one", run_one_or_die)
    monkeypatch.setitem(DEATHS, 2, flag)
    r = sweep(tmp_path, "-D", "N=1,2,3", "--jobs", "2", "-o", str(tmp_path / "rows.csv"))
    assert r.exit_code == 0, r.output
    assert flag.exists()  # it did die once
    assert [(row["N"], row["total_cycles"], row["error"]) for row in _rows(tmp_path / "rows.csv")] == [
        ("1", "4", ""), ("2", "6", ""), ("3", "8", "")]
    assert "failed" not in r.stderr


def test_a_sweep_over_profiles_alone_plots_a_bar_per_profile(tmp_path):
    pytest.importorskip("matplotlib")
    r = sweep(tmp_path, "--profile", "950,a2", "--plot", str(tmp_path / "p.png"))
    assert r.exit_code == 0, r.output
    png = (tmp_path / "p.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000


def test_plot_of_profiles_draws_one_bar_each(monkeypatch):
    """The plot's own content: one bar per profile, its height the run's cycles, a failed run none."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    drawn = {}
    monkeypatch.setattr(plt.Figure, "savefig", lambda self, *a, **k: drawn.setdefault("figure", self))
    monkeypatch.setattr(plt, "close", lambda *a: None)
    rows = [{"profile": "950", "total_cycles": 104}, {"profile": "a2", "total_cycles": 90},
            {"profile": "mine.toml", "total_cycles": None}]
    sweep_module.plot(rows, [], "unused.png")
    axes = drawn["figure"].axes[0]
    assert [round(bar.get_height()) for bar in axes.patches] == [104, 90, 0]
    assert [t.get_text() for t in axes.get_xticklabels()] == ["950", "a2", "mine.toml"]


# -- --dask: each failure one message, exit 2 -------------------------------------------------------

@pytest.mark.parametrize(("address", "message"), [
    ("not an address::", "not an address::"),
    ("http://127.0.0.1:8787", "an http:// address is the dashboard's"),
])
def test_a_malformed_dask_address_is_one_message(tmp_path, address, message):
    pytest.importorskip("distributed")
    start = time.monotonic()
    r = sweep(tmp_path, "-D", "N=1,2", "--dask", address, "--dask-timeout", "3")
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output and r.output.startswith("vcore: error: --dask"), r.output
    assert message in r.output and "tcp://HOST:PORT" in r.output, r.output
    assert time.monotonic() - start < 20


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_dask_scheduler_is_one_message_after_the_timeout(tmp_path):
    pytest.importorskip("distributed")
    address = f"tcp://127.0.0.1:{_closed_port()}"
    start = time.monotonic()
    r = sweep(tmp_path, "-D", "N=1,2", "--dask", address, "--dask-timeout", "1")
    took = time.monotonic() - start
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output, r.output
    assert r.output.startswith(f"vcore: error: --dask {address}: cannot reach the scheduler"), r.output
    assert "--dask-timeout" in r.output
    assert took < 20, took


@pytest.mark.parametrize("timeout", ["0", "-1", "soon"])
def test_dask_timeout_must_be_a_positive_number(tmp_path, timeout):
    r = sweep(tmp_path, "-D", "N=1,2", "--dask", "tcp://127.0.0.1:1", "--dask-timeout", timeout)
    assert r.exit_code == 2 and "--dask-timeout" in r.output and "Traceback" not in r.output, r.output


# A worker whose Python cannot import vcore: the test's own worker process, in which an import hook
# refuses vcore and its packages (as a Python without vcore installed would).
WORKER_WITHOUT_VCORE = """
import asyncio, sys
class NoVcore:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("vcore", "assembler", "emulator", "isa"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, NoVcore())
from distributed import Worker
async def main():
    async with Worker(sys.argv[1], nthreads=1, name="bare") as worker:
        await worker.finished()
asyncio.run(main())
"""


def test_dask_without_workers_or_with_workers_without_vcore_is_one_message(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        alone = sweep(tmp_path, "-D", "N=1,2", "--dask", cluster.scheduler_address, "--dask-timeout", "0.5")
        worker = subprocess.Popen([sys.executable, "-c", WORKER_WITHOUT_VCORE, cluster.scheduler_address],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            with distributed.Client(cluster.scheduler_address, timeout=10) as client:
                client.wait_for_workers(1, timeout=30)
                (bare,) = client.scheduler_info()["workers"]
            r = sweep(tmp_path, "-D", "N=1,2", "--dask", cluster.scheduler_address, "--dask-timeout", "10")
        finally:
            worker.kill()
            worker.wait()
    assert alone.exit_code == 2 and "Traceback" not in alone.output, alone.output
    assert "the scheduler has no workers" in alone.output and "dask worker" in alone.output, alone.output
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output and "ModuleNotFoundError" not in r.output, r.output
    assert bare in r.output and "cannot import vcore" in r.output and "pip install" in r.output, r.output
