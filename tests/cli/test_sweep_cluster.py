"""`vcore sweep` on Dask the way clusters are run (issue 33, item 1): a scheduler named by --dask, by
a scheduler file (--scheduler-file, as dask-jobqueue, dask-mpi and SLURM batch scripts hand one over)
or by the Dask configuration (DASK_SCHEDULER_ADDRESS); a Client or cluster object in Python; the
workers checked for this vcore before any run; the dashboard link; distributed's own progress bar on a
terminal. Every cluster here is a real one the test starts (LocalCluster, or a worker process of its
own), and the rows are compared byte for byte with a local run's."""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import os
import pty
import subprocess
import sys
import threading
import time

import pytest
from cli_support import COUNTED, VCORE
from click.testing import CliRunner

from vcore import cluster as cluster_module
from vcore import sweep as sweep_module
from vcore.cli import main

distributed = pytest.importorskip("distributed")
dask_config = pytest.importorskip("dask.config")


def sweep(tmp_path, *args):
    path = tmp_path / "loop.asm"
    path.write_text(COUNTED)
    return CliRunner().invoke(main, ["sweep", str(path), *args], catch_exceptions=False)


def local_rows(tmp_path) -> bytes:
    """The rows of N=1,2,3 on both profiles from one local process: what every cluster must give."""
    r = sweep(tmp_path, "-D", "N=1,2,3", "--profile", "950,a2", "--jobs", "1", "-o", str(tmp_path / "local.csv"))
    assert r.exit_code == 0, r.output
    return (tmp_path / "local.csv").read_bytes()


class Runs(distributed.diagnostics.plugin.SchedulerPlugin):
    """Counts the runs (sweep.run_one tasks) a scheduler saw finish."""

    def __init__(self) -> None:
        self.finished = 0

    def transition(self, key, start, finish, *args, **kwargs) -> None:
        if finish == "memory" and str(key).startswith("run_one-"):
            self.finished += 1


@contextlib.contextmanager
def cluster(**options):
    """A LocalCluster in this process (fast to start), reachable over TCP by other processes too, that
    counts the runs it was given (``ran_on``)."""
    defaults = {"n_workers": 1, "threads_per_worker": 1, "processes": False, "protocol": "tcp", "host": "127.0.0.1",
                "dashboard_address": None}
    with distributed.LocalCluster(**{**defaults, **options}) as c:
        c.runs = Runs()
        c.scheduler.add_plugin(c.runs, name="vcore-test-runs")
        yield c


def ran_on(local_cluster) -> int:
    """How many runs the cluster's scheduler saw finish."""
    return local_cluster.runs.finished


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(autouse=True)
def no_ambient_scheduler(monkeypatch):
    """The tests set the Dask configuration themselves: none from the environment running them."""
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    with dask_config.set({"scheduler-address": None}):
        yield


# -- --dask and --scheduler-file ---------------------------------------------------------------------

def test_dask_gives_the_local_rows_byte_for_byte(tmp_path):
    expected = local_rows(tmp_path)
    with cluster(n_workers=2) as c:
        r = sweep(tmp_path, "-D", "N=1,2,3", "--profile", "950,a2", "--dask", c.scheduler_address,
                  "-o", str(tmp_path / "d.csv"))
        assert ran_on(c) == 6
    assert r.exit_code == 0, r.output
    assert (tmp_path / "d.csv").read_bytes() == expected


def test_a_scheduler_file_names_the_scheduler(tmp_path):
    expected = local_rows(tmp_path)
    path = tmp_path / "scheduler.json"
    with cluster() as c, distributed.Client(c, set_as_default=False) as client:
        client.write_scheduler_file(str(path))
        assert json.loads(path.read_text())["address"] == c.scheduler_address
        r = sweep(tmp_path, "-D", "N=1,2,3", "--profile", "950,a2", "--scheduler-file", str(path),
                  "-o", str(tmp_path / "f.csv"))
        assert ran_on(c) == 6
    assert r.exit_code == 0, r.output
    assert (tmp_path / "f.csv").read_bytes() == expected


def test_a_scheduler_file_written_later_is_waited_for(tmp_path):
    """A batch script starts the scheduler and vcore together: the file comes a moment later."""
    path = tmp_path / "scheduler.json"
    with cluster() as c:
        later = threading.Timer(1.0, lambda: path.write_text(json.dumps({"address": c.scheduler_address})))
        later.start()
        try:
            r = sweep(tmp_path, "-D", "N=1,2", "--scheduler-file", str(path), "--dask-timeout", "20")
        finally:
            later.cancel()
    assert r.exit_code == 0, r.output
    assert [line.split()[:3] for line in r.stdout.splitlines()[1:]] == [["1", "950", "4"], ["2", "950", "6"]]


def test_a_scheduler_file_that_never_comes_is_one_message_after_the_timeout(tmp_path):
    path = tmp_path / "none.json"
    start = time.monotonic()
    r = sweep(tmp_path, "-D", "N=1,2", "--scheduler-file", str(path), "--dask-timeout", "1")
    took = time.monotonic() - start
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert r.output.startswith(f"vcore: error: --scheduler-file {path}: no such file"), r.output
    assert "dask scheduler --scheduler-file" in r.output and "--dask-timeout" in r.output, r.output
    assert 1 <= took < 20, took


@pytest.mark.parametrize(("text", "why"), [
    ("not json", "Expecting value"),
    ('{"id": "Scheduler-1"}', "no address in it"),
    ('["tcp://127.0.0.1:1"]', "no address in it"),
])
def test_a_file_that_is_not_a_scheduler_file_is_one_message(tmp_path, text, why):
    path = tmp_path / "s.json"
    path.write_text(text)
    r = sweep(tmp_path, "-D", "N=1,2", "--scheduler-file", str(path), "--dask-timeout", "5")
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert r.output.startswith(f"vcore: error: --scheduler-file {path}: not a scheduler file"), r.output
    assert why in r.output and "dask scheduler --scheduler-file" in r.output, r.output


def test_a_scheduler_file_naming_a_dead_scheduler_says_its_address(tmp_path):
    path = tmp_path / "s.json"
    address = f"tcp://127.0.0.1:{_closed_port()}"
    path.write_text(json.dumps({"address": address}))
    r = sweep(tmp_path, "-D", "N=1,2", "--scheduler-file", str(path), "--dask-timeout", "1")
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert r.output.startswith(f"vcore: error: --scheduler-file {path}: cannot reach the scheduler at {address}"), \
        r.output


def test_dask_and_scheduler_file_are_one_or_the_other(tmp_path):
    r = sweep(tmp_path, "-D", "N=1,2", "--dask", "tcp://127.0.0.1:1", "--scheduler-file", "s.json")
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert r.output == "vcore: error: --dask and --scheduler-file both name a scheduler: give one\n", r.output


def test_scheduler_file_without_distributed_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    r = sweep(tmp_path, "-D", "N=1,2", "--scheduler-file", "s.json")
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert r.output.startswith("vcore: error: --scheduler-file needs distributed: pip install"), r.output


# -- the Dask configuration: ambient, so below every option ------------------------------------------

def test_the_dask_configuration_names_the_scheduler_when_no_option_does(tmp_path):
    expected = local_rows(tmp_path)
    with cluster() as c, dask_config.set({"scheduler-address": c.scheduler_address}):
        r = sweep(tmp_path, "-D", "N=1,2,3", "--profile", "950,a2", "-o", str(tmp_path / "c.csv"))
        assert ran_on(c) == 6
    assert r.exit_code == 0, r.output
    assert (tmp_path / "c.csv").read_bytes() == expected


def test_dask_scheduler_address_in_the_environment_of_the_command(tmp_path):
    """The variable as a user sets it, read by Dask in a fresh vcore process."""
    (tmp_path / "loop.asm").write_text(COUNTED)
    with cluster() as c:
        r = subprocess.run([VCORE, "sweep", "loop.asm", "-D", "N=1,2"], capture_output=True, text=True, timeout=120,
                           cwd=tmp_path, env={**os.environ, "DASK_SCHEDULER_ADDRESS": c.scheduler_address})
        assert ran_on(c) == 2
    assert r.returncode == 0, r.stderr
    assert [line.split()[:3] for line in r.stdout.splitlines()[1:]] == [["1", "950", "4"], ["2", "950", "6"]]


def test_jobs_beats_the_dask_configuration(tmp_path):
    """An explicit --jobs runs locally even when the configuration names a scheduler (here a dead one:
    reaching for it would fail)."""
    with dask_config.set({"scheduler-address": f"tcp://127.0.0.1:{_closed_port()}"}):
        r = sweep(tmp_path, "-D", "N=1,2", "--jobs", "1", "--dask-timeout", "1")
    assert r.exit_code == 0, r.output
    assert [line.split()[:3] for line in r.stdout.splitlines()[1:]] == [["1", "950", "4"], ["2", "950", "6"]]


def test_dask_beats_the_dask_configuration(tmp_path):
    with cluster() as c, dask_config.set({"scheduler-address": f"tcp://127.0.0.1:{_closed_port()}"}):
        r = sweep(tmp_path, "-D", "N=1,2", "--dask", c.scheduler_address, "--dask-timeout", "5")
        assert ran_on(c) == 2
    assert r.exit_code == 0, r.output


def test_the_dask_configuration_without_distributed_runs_locally(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with dask_config.set({"scheduler-address": f"tcp://127.0.0.1:{_closed_port()}"}):
        r = sweep(tmp_path, "-D", "N=1,2", "--dask-timeout", "1")
    assert r.exit_code == 0, r.output
    assert [line.split()[:3] for line in r.stdout.splitlines()[1:]] == [["1", "950", "4"], ["2", "950", "6"]]


def test_an_unreachable_configured_scheduler_says_where_the_address_came_from(tmp_path):
    address = f"tcp://127.0.0.1:{_closed_port()}"
    with dask_config.set({"scheduler-address": address}):
        r = sweep(tmp_path, "-D", "N=1,2", "--dask-timeout", "1")
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert r.output.startswith(f"vcore: error: the Dask configuration's scheduler-address {address} "
                               f"(DASK_SCHEDULER_ADDRESS): cannot reach the scheduler"), r.output
    assert "--jobs J runs the sweep on local processes" in r.output, r.output


def test_help_says_which_wins():
    r = CliRunner().invoke(main, ["sweep", "--help"], terminal_width=200)
    text = " ".join(r.output.split())
    assert "--scheduler-file FILE" in text and "DASK_SCHEDULER_ADDRESS" in text, text
    assert "--dask or --scheduler-file, then --jobs, then the Dask configuration's scheduler-address" in text, text


# -- Python: a Client or a cluster object -------------------------------------------------------------

TEXT = COUNTED


def test_a_client_given_in_python_is_used_and_left_open(tmp_path):
    with cluster() as c, distributed.Client(c, set_as_default=False) as client:
        rows = sweep_module.sweep(TEXT, "loop.asm", [("N", [1, 2])], ["950"], cores=None, dask=client)
        assert ran_on(c) == 2
        assert client.status == "running"
        assert client.submit(sum, [1, 2]).result() == 3   # still the caller's to use
    assert [(r["N"], r["total_cycles"], r["error"]) for r in rows] == [(1, 4, ""), (2, 6, "")]


def test_a_cluster_object_given_in_python_is_used_and_left_running(tmp_path):
    with cluster() as c:
        rows = sweep_module.sweep(TEXT, "loop.asm", [("N", [1, 2])], ["a2"], cores=None, dask=c)
        assert ran_on(c) == 2
        assert c.status.name == "running"
        with distributed.Client(c, set_as_default=False) as client:
            assert client.submit(sum, [1, 2]).result() == 3
    assert [(r["N"], r["total_cycles"]) for r in rows] == [(1, 4), (2, 6)]


def test_a_scheduler_file_in_python(tmp_path):
    path = tmp_path / "scheduler.json"
    with cluster() as c:
        path.write_text(json.dumps({"address": c.scheduler_address}))
        rows = sweep_module.sweep(TEXT, "loop.asm", [("N", [3])], ["950", "a2"], cores=None, scheduler_file=path)
    assert [(r["profile"], r["total_cycles"]) for r in rows] == [("950", 8), ("a2", 8)]


def test_python_takes_one_scheduler_and_only_a_scheduler():
    with pytest.raises(ValueError, match="dask= or scheduler_file="):
        sweep_module.sweep(TEXT, "loop.asm", [("N", [1])], ["950"], None, dask="tcp://127.0.0.1:1",
                           scheduler_file="s.json")
    with pytest.raises(TypeError, match="not int"):
        sweep_module.sweep(TEXT, "loop.asm", [("N", [1])], ["950"], None, dask=8786)


def test_a_closed_client_is_a_dask_error():
    with cluster() as c:
        client = distributed.Client(c, set_as_default=False)
        client.close()
        with pytest.raises(sweep_module.DaskError, match="closed"):
            sweep_module.sweep(TEXT, "loop.asm", [("N", [1])], ["950"], None, dask=client)


# -- the dashboard and the progress bar ---------------------------------------------------------------

def test_the_dashboard_link_is_told_on_stderr(tmp_path):
    with cluster(dashboard_address="127.0.0.1:0") as c:
        with distributed.Client(c, set_as_default=False) as client:
            link = client.dashboard_link
        r = sweep(tmp_path, "-D", "N=1,2", "--dask", c.scheduler_address)
    assert r.exit_code == 0, r.output
    assert link.startswith("http://") and f"vcore: sweep: Dask dashboard at {link}\n" in r.stderr, r.stderr
    assert link not in r.stdout
    assert "Completed" not in r.stderr   # no progress bar in a pipe


def test_distributed_progress_bar_in_python_goes_to_stderr(capsys):
    with cluster() as c:
        rows = sweep_module.sweep(TEXT, "loop.asm", [("N", [1, 2, 3])], ["950"], None, dask=c, progress=True)
    out, err = capsys.readouterr()
    assert [r["total_cycles"] for r in rows] == [4, 6, 8]
    assert "| 100% Completed |" in err and "Completed" not in out, (out, err)


def test_distributed_progress_bar_on_a_terminal(tmp_path):
    """stderr a terminal (a pty): distributed's own bar there, the table alone on stdout."""
    (tmp_path / "loop.asm").write_text(COUNTED)
    leader, follower = pty.openpty()
    seen = bytearray()

    def read() -> None:
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                return
            if not chunk:
                return
            seen.extend(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        with cluster() as c:
            r = subprocess.run([VCORE, "sweep", "loop.asm", "-D", "N=1,2", "--dask", c.scheduler_address],
                               stdout=subprocess.PIPE, stderr=follower, text=True, timeout=120, cwd=tmp_path)
    finally:
        os.close(follower)
        reader.join(5)
        os.close(leader)
    terminal = seen.decode(errors="replace")
    assert r.returncode == 0, terminal
    assert "| 100% Completed |" in terminal, terminal
    assert "runs done" not in terminal, terminal           # the local line is not drawn as well
    assert "Completed" not in r.stdout and r.stdout.splitlines()[0].split()[:3] == ["N", "profile", "total_cycles"]


def test_ctrl_c_on_dask_keeps_the_rows_finished(monkeypatch):
    """Ctrl-C while distributed's bar is drawn (here: once the first two runs are done)."""

    def bar_interrupted(futures, **options):
        for future in futures[:2]:
            future.result()
        raise KeyboardInterrupt

    monkeypatch.setattr(distributed, "progress", bar_interrupted)
    with cluster() as c, distributed.Client(c, set_as_default=False) as client:
        with pytest.raises(sweep_module.Interrupted) as stop:
            sweep_module.sweep(TEXT, "loop.asm", [("N", [1, 2, 3, 4, 5, 6])], ["950"], None, dask=client,
                               progress=True)
        assert client.status == "running"
    rows = stop.value.rows
    assert [(r["N"], r["total_cycles"]) for r in rows[:2]] == [(1, 4), (2, 6)]
    assert all(r["total_cycles"] == 2 * r["N"] + 2 for r in rows)   # those finished by then, each whole


# -- the workers are checked before any run -----------------------------------------------------------

# A worker process of its own whose vcore says another version (as a worker with an older install
# would), or whose numpy does.
OTHER_WORKER = """
import asyncio, importlib.metadata, sys
import vcore
if sys.argv[2] == "vcore":
    vcore.__version__ = "0.0.1+other"
else:
    real = importlib.metadata.version
    importlib.metadata.version = lambda name: "1.0.0" if name == "numpy" else real(name)
from distributed import Worker
async def main():
    async with Worker(sys.argv[1], nthreads=1, name="other") as worker:
        await worker.finished()
asyncio.run(main())
"""


@contextlib.contextmanager
def with_other_worker(what: str):
    """A LocalCluster's worker and one more process of OTHER_WORKER: (cluster, other's address, the
    first's address)."""
    with cluster() as c:
        worker = subprocess.Popen([sys.executable, "-c", OTHER_WORKER, c.scheduler_address, what],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            with distributed.Client(c, set_as_default=False) as client:
                client.wait_for_workers(2, timeout=60)
                workers = client.scheduler_info()["workers"]
            (other,) = [address for address, info in workers.items() if info["name"] == "other"]
            (good,) = [address for address in workers if address != other]
            yield c, other, good
        finally:
            worker.kill()
            worker.wait()


def test_this_vcore_is_what_the_workers_are_compared_with():
    """The version vcore reports: vcore.__version__ when it has one, else its distribution's version;
    the content hash of its packages besides."""
    import vcore

    here = cluster_module.this_vcore()
    expected = getattr(vcore, "__version__", None) or importlib.metadata.version(
        importlib.metadata.packages_distributions()["vcore"][0])
    assert here["version"] == expected and here["error"] == ""
    assert len(here["hash"]) == 16 and int(here["hash"], 16) >= 0
    assert here["numpy"] == importlib.metadata.version("numpy")


def test_workers_compare_by_version_else_by_content():
    a, b = "a" * 16, "b" * 16
    here = {"version": "1.0", "hash": a, "error": ""}
    assert cluster_module.differs(here, {**here, "hash": b}) == ""   # one version: the same vcore
    assert cluster_module.differs(here, {**here, "version": "0.9"}) == "vcore 0.9"
    assert cluster_module.differs(here, {**here, "version": None}) == ""   # no version there: the same files
    assert cluster_module.differs(here, {**here, "version": None, "hash": b}) == f"vcore source {b}"
    assert cluster_module.differs({**here, "version": None}, {**here, "hash": b}) == "vcore 1.0"
    assert cluster_module.differs({**here, "version": None}, here) == ""
    assert cluster_module.differs(here, {"error": "No module named 'vcore'"}) == \
        "cannot import vcore (No module named 'vcore')"


def test_other_versions_of_numpy_ml_dtypes_or_attrs_are_a_warning():
    here = {"version": "1.0", "hash": "a", "error": "", "numpy": "2.1.0", "ml_dtypes": "0.5.0", "attrs": "24.2.0"}
    answers = {"tcp://w1:1": here, "tcp://w2:2": {**here, "numpy": "1.26.4"}, "tcp://w3:3": {**here, "numpy": "1.26.4"},
               "tcp://w4:4": {**here, "attrs": "23.1.0", "ml_dtypes": None}}
    assert cluster_module.other_libraries(here, answers) == (
        "workers run other versions of the libraries vcore computes with, so their rows may differ from a "
        "local run's: tcp://w2:2, tcp://w3:3: numpy 1.26.4 (here 2.1.0); tcp://w4:4: ml_dtypes none (here 0.5.0), "
        "attrs 23.1.0 (here 24.2.0); install the versions here")
    assert cluster_module.other_libraries(here, {"tcp://w1:1": here}) == ""


def test_a_worker_with_another_vcore_is_one_message_naming_it(tmp_path):
    with with_other_worker("vcore") as (c, other, good):
        r = sweep(tmp_path, "-D", "N=1,2", "--dask", c.scheduler_address, "--dask-timeout", "10")
        assert ran_on(c) == 0   # nothing was run
    here = cluster_module.this_vcore()["version"]
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert r.output.count("\n") == 1 and r.output.startswith(f"vcore: error: --dask {c.scheduler_address}: "), r.output
    assert f"1 of 2 workers lack vcore {here}, the one here: {other}: vcore 0.0.1+other; install" in r.output, r.output
    assert good not in r.output
    assert "pip install" in r.output, r.output


@pytest.mark.filterwarnings("ignore:Mismatched versions found")  # distributed says so too, its own way
def test_a_worker_with_another_numpy_is_a_warning_and_the_sweep_runs(tmp_path):
    import numpy

    with with_other_worker("numpy") as (c, other, good):
        r = sweep(tmp_path, "-D", "N=1,2", "--dask", c.scheduler_address, "--dask-timeout", "10")
        assert ran_on(c) == 2
    assert r.exit_code == 0, r.output
    assert f"vcore: warning: workers run other versions of the libraries vcore computes with, so their rows may " \
           f"differ from a local run's: {other}: numpy 1.0.0 (here {numpy.__version__}); install the versions here\n" \
        in r.stderr, r.stderr
    assert good not in r.stderr


def test_workers_that_cannot_run_the_question_are_one_message(tmp_path, monkeypatch):
    """A worker of another Python cannot load the probe vcore sends it: a DaskError, no traceback."""

    def fails(self, function, *args, **kwargs):
        raise TypeError("code() argument 13 must be str, not int")

    with cluster() as c:
        monkeypatch.setattr(distributed.Client, "run", fails)
        r = sweep(tmp_path, "-D", "N=1,2", "--dask", c.scheduler_address)
        assert ran_on(c) == 0
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert r.output.startswith(f"vcore: error: --dask {c.scheduler_address}: the workers cannot say which vcore "
                               f"they run (TypeError: code() argument 13"), r.output
    assert f"distributed {distributed.__version__} here" in r.output, r.output


def test_a_message_names_eight_workers_of_a_kind_and_counts_the_rest():
    here = {"version": "1.0", "hash": "a", "error": "", "numpy": "2.1.0", "ml_dtypes": "0.5.0", "attrs": "24.2.0"}
    answers = {f"tcp://w{k:02d}:1": {**here, "numpy": "1.26.4"} for k in range(11)}
    warning = cluster_module.other_libraries(here, answers)
    assert ", ".join(f"tcp://w{k:02d}:1" for k in range(8)) + " and 3 more: numpy 1.26.4 (here 2.1.0)" in warning


def test_dask_timeout_is_vcores_own_not_dasks_connect_timeout(tmp_path):
    address = f"tcp://127.0.0.1:{_closed_port()}"
    start = time.monotonic()
    with dask_config.set({"distributed.comm.timeouts.connect": "600s"}):
        r = sweep(tmp_path, "-D", "N=1,2", "--dask", address, "--dask-timeout", "1")
    assert r.exit_code == 2 and "cannot reach the scheduler" in r.output and "(now 1)" in r.output, r.output
    assert time.monotonic() - start < 20


def test_the_install_hint_names_this_checkout():
    from pathlib import Path

    hint = cluster_module.install_hint()
    root = Path(cluster_module.__file__).resolve().parents[1]
    assert f"pip install {root}" in hint, hint   # an editable install from this checkout


# -- a worker that dies --------------------------------------------------------------------------------

FLAG_ENV = "VCORE_TEST_DIE_ONCE"


def run_one_dying_once(text, path, defines, profile, cores, *setup):
    """sweep.run_one, but the first run of N=2 kills its worker's process (SIGKILL, as an out-of-memory
    killer does); a flag file remembers it across processes."""
    import signal as signals

    flag = os.environ.get(FLAG_ENV)
    if defines.get("N") == 2 and flag and not os.path.exists(flag):
        with open(flag, "w") as f:
            f.write("died once")
        os.kill(os.getpid(), signals.SIGKILL)
    return sweep_module.run_one(text, path, defines, profile, cores, *setup)   # the worker's own, real one


def test_a_killed_worker_loses_no_row(tmp_path, monkeypatch):
    expected = local_rows(tmp_path)
    flag = tmp_path / "died"
    monkeypatch.setenv(FLAG_ENV, str(flag))
    monkeypatch.setattr(sweep_module, "run_one", run_one_dying_once)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        r = sweep(tmp_path, "-D", "N=1,2,3", "--profile", "950,a2", "--dask", c.scheduler_address,
                  "-o", str(tmp_path / "k.csv"), "--dask-timeout", "60")
    assert flag.exists()   # a worker did die
    assert r.exit_code == 0, r.output
    assert (tmp_path / "k.csv").read_bytes() == expected
