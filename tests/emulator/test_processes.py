"""emulator.kernel.processes: a worker dies with its parent, by the parent-death signal or, where there is
none, by its watching thread; a StopRequest turns the first Ctrl-C into a stop, once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vcore.emulator.kernel.processes import StopRequest

# A parent that starts one worker (which waits forever) and prints its pid, then waits itself.
PARENT = """
import os, sys, time
from vcore.emulator.kernel.processes import context, die_with_parent

def worker(parent, watch):
    die_with_parent(parent, watch=watch)
    while True:
        time.sleep(1)

if __name__ == "__main__":
    p = context().Process(target=worker, args=(os.getpid(), sys.argv[1] == "watch"))
    p.start()
    print(p.pid, flush=True)
    time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"  # a zombie has ended


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="looks for the worker in /proc")
@pytest.mark.parametrize("how", ["signal", "watch"])
def test_a_worker_dies_when_its_parent_is_killed(tmp_path, how):
    script = tmp_path / "parent.py"
    script.write_text(PARENT)
    parent = subprocess.Popen([sys.executable, str(script), how], stdout=subprocess.PIPE, text=True,
                              cwd=Path(__file__).resolve().parents[2])
    try:
        worker = int(parent.stdout.readline())
        assert _alive(worker)
    finally:
        parent.kill()  # SIGKILL: nothing of the parent's own runs
        parent.wait()
        parent.stdout.close()
    deadline = time.monotonic() + 5
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _alive(worker):
        os.kill(worker, signal.SIGKILL)
        pytest.fail("the worker outlived its parent")


def test_a_stop_request_raises_once_and_only_while_running():
    stop = StopRequest()
    stop(signal.SIGINT, None)  # between runs: only noted
    assert stop.asked
    stop = StopRequest()
    stop.running = True
    with pytest.raises(KeyboardInterrupt):
        stop(signal.SIGINT, None)
    stop(signal.SIGINT, None)  # a second Ctrl-C: the stop is under way
    assert stop.asked
