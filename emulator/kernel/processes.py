"""Worker processes of a multi-core run (``emulator.kernel.cores``) and of a sweep (``vcore.sweep``): each
dies with the process that started it, whatever ends that one; and Ctrl-C (SIGINT) is a request to
stop that a run answers with what it has done so far.

A worker asks the kernel for a parent-death signal (Linux ``prctl(PR_SET_PDEATHSIG)``): SIGKILL
when its parent ends, even by SIGKILL. Where there is none, a thread of the worker watches its
parent and ends the worker when the parent has gone.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1  # linux/prctl.h
WATCH_EVERY = 0.5  # seconds between a watching thread's looks at its parent


def context():
    """The multiprocessing context workers are started in: fork where there is one (a worker then
    starts at once, with the modules already imported), else spawn."""
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    return multiprocessing.get_context(method)


def die_with_parent(parent: int, watch: bool = False) -> None:
    """In a worker started by process ``parent``: end this process when ``parent`` ends. ``watch``
    uses the watching thread even where the kernel offers a parent-death signal."""
    if not watch and sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
        if armed:
            if os.getppid() != parent:  # the parent ended before the signal was armed
                os._exit(1)
            return
    threading.Thread(target=_watch, args=(parent,), name="vcore-watch-parent", daemon=True).start()


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_EVERY)
    os._exit(1)


class StopRequest:
    """Ctrl-C as a request to stop, for code that runs machines.

    Installed as the SIGINT handler (``installed``), the first SIGINT sets ``asked``, sends SIGINT on
    to the processes in ``forward`` (workers that run cores for this one), and raises
    KeyboardInterrupt only while ``running`` is set: a ``Machine.run`` turns that into its
    ``interrupt`` fault, with the state as far as it got. Elsewhere the code looks at ``asked``
    between runs. Later SIGINTs do nothing: the stop is under way."""

    def __init__(self) -> None:
        self.asked = False
        self.running = False
        self.forward: list[int] = []

    def __call__(self, signum, frame) -> None:
        if self.asked:
            return
        self.asked = True
        self.pass_on()
        if self.running:
            raise KeyboardInterrupt

    def pass_on(self) -> None:
        """Send SIGINT to the processes in ``forward`` (those still there)."""
        for pid in self.forward:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGINT)

    @contextlib.contextmanager
    def installed(self, worker: bool = False):
        """This request as the SIGINT handler for the block, in the main thread, where SIGINT raises
        KeyboardInterrupt (Python's default): not where it is ignored (a command started in the
        background) or handled by the caller's own handler. A ``worker`` replaces any handler it
        inherited from its parent by fork, unless SIGINT is ignored."""
        current = signal.getsignal(signal.SIGINT)
        usable = current is signal.default_int_handler or (worker and current is not signal.SIG_IGN)
        if threading.current_thread() is not threading.main_thread() or not usable:
            yield self
            return
        signal.signal(signal.SIGINT, self)
        try:
            yield self
        finally:
            signal.signal(signal.SIGINT, current)


__all__ = ["StopRequest", "context", "die_with_parent"]
