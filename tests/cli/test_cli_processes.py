"""Worker processes of `vcore run --cores N --jobs J` and of `vcore sweep --jobs J` die with their
parent, whatever ends it (SIGTERM, SIGKILL); Ctrl-C on a multi-core run or a sweep stops it at once,
as on one core: exit 130, with the partial report (every core as far as it got) or the rows finished.

These run the installed command and signal it; workers are found as the children of its process in
/proc (Linux). A worker that outlives its parent is killed by the test, so a failure leaves none."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from cli_support import COUNTED, FOREVER, VCORE, wait_for_cpu

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds worker processes in /proc")

# COUNTED: N passes of a loop (2N + 2 cycles): N = 1 and 2 end at once, N = LONG runs for minutes.
LONG = 30_000_000  # BLT takes an immediate below 2**25; 60M instructions reach the default limit in minutes


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped by whoever adopted it, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid and _alive(int(entry.name)):
                found.append(int(entry.name))
    return found


def _start(args: list, workers: int, cwd: Path, session: bool = False, settle: float = 0.7
           ) -> tuple[subprocess.Popen, list[int]]:
    """``vcore ARGS`` started with SIGINT at its default (as a terminal gives it: a test run in the
    background has it ignored), once its ``workers`` child processes run; the process and their pids.
    Its output goes to files (out.txt, err.txt in ``cwd``): a worker that outlived it would hold a pipe open."""
    with (cwd / "out.txt").open("w") as out, (cwd / "err.txt").open("w") as err:
        proc = subprocess.Popen([VCORE, *map(str, args)], stdout=out, stderr=err, cwd=cwd,
                                start_new_session=session,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # noqa: PLW1509
    deadline = time.monotonic() + 30
    while len(kids := _children(proc.pid)) < workers:
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            proc.wait()
            pytest.fail(f"{workers} workers never started: {(cwd / 'err.txt').read_text()}")
        time.sleep(0.05)
    if workers:
        time.sleep(settle)  # well into the runs
    else:  # past vcore's start-up, well into the run, however loaded the machine is
        wait_for_cpu(proc.pid)
    return proc, kids


def _finish(proc: subprocess.Popen, sent: float, cwd: Path) -> tuple[str, str, float]:
    """The output of ``proc`` once it has ended, and the seconds from ``sent`` to its end."""
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:  # never leave a runaway run behind
        proc.kill()
        proc.wait()
        raise
    took = time.monotonic() - sent
    return (cwd / "out.txt").read_text(), (cwd / "err.txt").read_text(), took


def _ctrl_c(proc: subprocess.Popen, kids: list[int], group: bool, cwd: Path) -> tuple[str, str, float]:
    """Ctrl-C to ``proc`` (to its whole process group, as a terminal sends it, or to it alone): its
    output, and the seconds it took to end with exit 130, its ``kids`` gone too."""
    sent = time.monotonic()
    if group:
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)
    out, err, took = _finish(proc, sent, cwd)
    _assert_gone(kids)
    assert proc.returncode == 130, err
    return out, err, took


def _assert_gone(pids: list[int]) -> None:
    """Every pid ends within a few seconds; any left is killed here, then the test fails."""
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [p for p in pids if _alive(p)]
    for p in left:
        os.kill(p, signal.SIGKILL)
    assert not left, f"worker processes {left} outlived their parent"


KERNEL = ["--cores", 8, "--jobs", 2, "--max-instructions", 2_000_000_000]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_kernel_workers_die_with_their_parent(tmp_path, sig):
    (tmp_path / "forever.asm").write_text(FOREVER)
    proc, kids = _start(["run", "forever.asm", *KERNEL], 2, tmp_path)
    proc.send_signal(sig)
    _finish(proc, time.monotonic(), tmp_path)
    assert proc.returncode == -sig
    _assert_gone(kids)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_sweep_workers_die_with_their_parent(tmp_path, sig):
    (tmp_path / "counted.asm").write_text(COUNTED)
    proc, kids = _start(["sweep", "counted.asm", "-D", f"N={LONG},{LONG + 1}", "--jobs", 2], 2, tmp_path)
    proc.send_signal(sig)
    _finish(proc, time.monotonic(), tmp_path)
    assert proc.returncode == -sig
    _assert_gone(kids)


# Ctrl-C at a terminal signals the whole foreground process group, the workers too; `kill -INT PID`
# signals the parent alone. Both stop the run the same way. (jobs 1 runs the cores in vcore's own process.)
@pytest.mark.parametrize(("jobs", "group"), [(2, False), (2, True), (1, False)])
def test_ctrl_c_stops_a_kernel_with_every_cores_partial_report(tmp_path, jobs, group):
    (tmp_path / "forever.asm").write_text(FOREVER)
    args = ["run", "forever.asm", "--cores", 8, "--jobs", jobs, "--max-instructions", 2_000_000_000,
            "--report-file", "r.json", "--dump", "ub3:0x1000:f32:2"]
    proc, kids = _start(args, jobs if jobs > 1 else 0, tmp_path, session=group)
    out, err, took = _ctrl_c(proc, kids, group, tmp_path)
    assert took < 4, f"took {took:.1f} s to stop"  # asked: within 2 s; the margin is for a loaded machine
    assert "Traceback" not in out + err and "Aborted" not in err
    assert "interrupted" in err and "at pc 0x" in err, err  # the note, as one core's run gives it
    assert "stopped by a fault" in out and "interrupted" in out
    assert [line.split(":")[0] for line in out.splitlines() if line.startswith("core ")] == \
        [f"core {k:2d}" for k in range(8)]
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["fault"]["kind"] == "interrupt"
    per_core = {c["core"]: c for c in data["per_core"]}
    assert sorted(per_core) == list(range(8))
    # core K runs in process K mod J, its cores one after the other: the first of each was running
    for core in range(jobs):
        assert per_core[core]["instructions"] > 1000, per_core[core]
    assert "ub3:0x1000:f32:2 = " in out


def _rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


@pytest.mark.parametrize("group", [False, True])
def test_ctrl_c_stops_a_sweep_with_the_rows_finished(tmp_path, group):
    (tmp_path / "counted.asm").write_text(COUNTED)
    # with 2 processes, N = 1 and 2 end at once; each process then runs a long one
    args = ["sweep", "counted.asm", "-D", f"N=1,2,{LONG},{LONG + 1}", "--jobs", 2]
    if group:
        args += ["-o", "rows.csv"]
    proc, kids = _start(args, 2, tmp_path, session=group, settle=1.5)  # N = 1 and 2 are done by then
    out, err, took = _ctrl_c(proc, kids, group, tmp_path)
    assert took < 4, f"took {took:.1f} s to stop"
    assert "Traceback" not in out + err and "Aborted" not in err
    assert "interrupted" in err and "2 of 4 runs" in err, err
    if group:
        rows = _rows((tmp_path / "rows.csv").read_text())
        assert [(r["N"], r["total_cycles"], r["error"]) for r in rows] == [("1", "4", ""), ("2", "6", "")]
    else:
        lines = out.splitlines()
        assert lines[0].split()[:3] == ["N", "profile", "total_cycles"]
        assert [line.split()[:3] for line in lines[1:]] == [["1", "950", "4"], ["2", "950", "6"]]
