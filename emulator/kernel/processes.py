"""Worker processes of a multi-core run (``emulator.kernel.cores``, ``emulator.kernel.blocks``) and of a
sweep (``vcore.sweep``): each dies with the process that started it, whatever ends that one; and Ctrl-C
(SIGINT) is a request to stop that a run answers with what it has done so far. A kernel's work is
done by groups (of cores, or of blocks), each local or in a worker process (``Remote``), called
the same way (``start_groups``, ``call_groups``).

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
import traceback

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

    def run(self, m, limits: dict) -> None:
        """Run machine ``m`` on (``limits``: ``Machine.run``'s), unless a stop was asked. Ctrl-C during
        its run is the run's ``interrupt`` fault; just before or after the run it only stops what comes
        after this one."""
        try:
            try:
                self.running = True
                if not self.asked:
                    m.run(**limits)
            finally:
                self.running = False
        except KeyboardInterrupt:  # raised once only: here it came outside the run
            pass


def serve(conn, factory, args, parent: int) -> None:
    """A worker process: builds its group (``factory(*args, stop=...)``), then answers the kernel's
    calls until told to stop. It dies with the kernel's process (``parent``); Ctrl-C stops its work
    (the kernel's process passes its own on)."""
    die_with_parent(parent)
    with StopRequest().installed(worker=True) as stop:
        try:
            group = factory(*args, stop=stop)
            conn.send(("ok", None))
        except BaseException:  # reported to the parent, which raises
            conn.send(("error", traceback.format_exc()))
            return
        while True:
            try:
                name, call_args = conn.recv()
            except EOFError:  # the kernel's process has closed its end: nothing more to do
                return
            if name == "stop":
                return
            try:
                conn.send(("ok", getattr(group, name)(*call_args)))
            except BaseException:
                conn.send(("error", traceback.format_exc()))


class Remote:
    """A group in another process, called the same way as a local one."""

    def __init__(self, factory, args) -> None:
        ctx = context()
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=serve, args=(child, factory, args, os.getpid()), daemon=True)
        self.process.start()
        child.close()

    def answer(self):
        status, value = self.conn.recv()
        if status == "error":
            raise RuntimeError(f"a kernel worker process failed:\n{value}")
        return value

    def send(self, name: str, *args) -> None:
        self.conn.send((name, args))

    def close(self) -> None:
        with contextlib.suppress(OSError):  # the worker is gone already
            self.conn.send(("stop", ()))
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


def start_groups(factory, args: list, stop: StopRequest) -> list:
    """One group for each of ``args``: built here when there is one, else each in its own process."""
    if len(args) == 1:
        return [factory(*args[0], stop=stop)]
    remotes: list[Remote] = []
    try:
        for a in args:
            remotes.append(Remote(factory, a))
        for r in remotes:
            r.answer()
    except BaseException:
        for r in remotes:
            r.close()
        raise
    return remotes


def call_groups(groups: list, name: str, *args) -> list:
    """Call every group (the remote ones all at once, then collect) and return their answers."""
    for g in groups:
        if isinstance(g, Remote):
            g.send(name, *args)
    return [g.answer() if isinstance(g, Remote) else getattr(g, name)(*args) for g in groups]


def call_each(groups: list, name: str, args: list[tuple]) -> list:
    """Call each group with its own arguments (``args[k]`` for group k), as ``call_groups`` does."""
    for g, a in zip(groups, args, strict=True):
        if isinstance(g, Remote):
            g.send(name, *a)
    return [g.answer() if isinstance(g, Remote) else getattr(g, name)(*a) for g, a in zip(groups, args, strict=True)]


def close_groups(groups: list) -> None:
    for g in groups:
        if isinstance(g, Remote):
            g.close()


def pids(groups: list) -> list[int]:
    """The worker processes of ``groups`` (those that run elsewhere)."""
    return [g.process.pid for g in groups if isinstance(g, Remote)]


__all__ = ["Remote", "StopRequest", "call_each", "call_groups", "close_groups", "context", "die_with_parent", "pids",
           "serve", "start_groups"]
