"""``vcore sweep``: run one program for every combination of -D values and profiles, on local
processes or on a Dask cluster (vcore.cluster), and collect one row per run (CONTRACT section 10).

A run is a plain function of plain values (``run_one``: the program's text and path, the -D values,
the profile, the core count), so the same rows come back whichever executor ran them. A run that
fails is a row with its error, never an exception out of the sweep.

Local processes die with the sweep's own (``emulator.kernel.processes``). A combination whose process dies
(killed for its memory, say) is run once more in a fresh process; if that dies too, its row says so,
and every other row is kept. Ctrl-C stops the sweep: ``Interrupted`` carries the rows finished.
"""

from __future__ import annotations

import collections
import csv
import io
import itertools
import json
import os
import signal
from collections.abc import Callable, Iterable
from multiprocessing.connection import wait

from vcore import cluster
from vcore.assembler import AsmError, assemble
from vcore.cluster import DASK_TIMEOUT, DaskError
from vcore.emulator import Fault, ProfileError, ProgramError, load_profile
from vcore.emulator.kernel.cores import load
from vcore.emulator.kernel.launch import LaunchError
from vcore.emulator.kernel.processes import StopRequest, context, die_with_parent

__all__ = ["DASK_TIMEOUT", "DaskError", "Interrupted", "combinations", "plot", "run_one", "sweep", "to_csv",
           "to_json", "to_table"]

PIPES = ("S", "V", "MTE2", "MTE3")


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped the sweep; ``rows`` are the runs that had finished, in the order of
    ``combinations``."""

    def __init__(self, rows: list[dict]) -> None:
        super().__init__(f"sweep interrupted after {len(rows)} runs")
        self.rows = rows


def combinations(defines: list[tuple[str, list[int]]], profiles: list[str]) -> list[dict]:
    """Every combination, the first -D varying slowest and the profile fastest."""
    names = [name for name, _ in defines]
    return [{"defines": dict(zip(names, values, strict=True)), "profile": profile}
            for values in itertools.product(*(v for _, v in defines)) for profile in profiles]


def run_one(text: str, path: str, defines: dict, profile: str, cores: int | None, fixed: dict | None = None,
            loads: tuple = (), blocks: int | None = None) -> dict:
    """One run of the sweep as a row: the -D values, the profile, the cycles, each pipe's busy
    cycles, the verdict, and the error (empty for a clean run). ``fixed``: constants every run
    takes (the program's own ; DEFINE lines), under the swept ones; ``loads``: (space, addr, bytes)
    written before the run (its ; LOAD lines); ``cores`` and ``blocks``: the kernel (run's --cores,
    --blocks), a row with an error where the profile's chip cannot launch it."""

    row = _row(defines, profile)
    try:
        program = assemble(text, path, {**(fixed or {}), **defines})
        prof = load_profile(profile)
        machine = load(program, prof, cores, jobs=1, blocks=blocks)
        for space, addr, data in loads:
            machine.write(space, addr, data)
        result = machine.run()
        report = machine.report()
    except (AsmError, ProfileError, ProgramError, Fault, LaunchError) as err:
        row["error"] = str(err).splitlines()[0]
        return row
    row["total_cycles"] = report.total_cycles
    for pipe in PIPES:
        row[f"busy_{pipe}"] = report.pipes[pipe].busy_cycles
    row["verdict"] = report.verdict()
    if result.fault is not None:
        row["error"] = str(result.fault).splitlines()[0]
    return row


def _row(defines: dict, profile: str, error: str = "") -> dict:
    return {**defines, "profile": profile, "total_cycles": None, **{f"busy_{p}": None for p in PIPES},
            "verdict": "", "error": error}


def _finished(rows: list) -> list[dict]:
    return [r for r in rows if r is not None]


def _in_process(tasks: list[tuple], done: Callable[[int], None]) -> list[dict]:
    """The runs one after the other in this process; Ctrl-C stops them (the run it interrupts is not
    a row)."""
    rows: list = []
    with StopRequest().installed() as stop:
        try:
            for task in tasks:
                try:
                    stop.running = not stop.asked
                    row = run_one(*task) if stop.running else None
                finally:
                    stop.running = False
                if stop.asked:
                    raise Interrupted(rows)
                rows.append(row)
                done(len(rows))
        except Interrupted:
            raise
        except KeyboardInterrupt:  # raised once, just outside a run (inside, it is the run's fault)
            raise Interrupted(rows) from None
    return rows


def _work(conn, parent: int) -> None:
    """A local worker: runs the combinations it is sent, one at a time, until its pipe closes. It
    dies with the sweep's process; Ctrl-C is the sweep's to answer (it stops the workers)."""
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        try:
            row = run_one(*task)
        except Exception as err:  # an error of vcore's own: this combination's row, not the sweep's end
            row = _row(task[2], task[3], f"{type(err).__name__}: {err}")
        conn.send(row)


class _Worker:
    """A local process and the combination it runs (an index into the tasks, or None)."""

    def __init__(self) -> None:
        self.conn, child = context().Pipe()
        self.process = context().Process(target=_work, args=(child, os.getpid()), daemon=True)
        self.process.start()
        child.close()
        self.task: int | None = None

    def give(self, index: int, task: tuple) -> None:
        self.task = index
        self.conn.send(task)

    def end(self) -> None:
        """Stop the process now (it may be in a run) and wait for it."""
        self.conn.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join()


def how_it_ended(exitcode: int | None) -> str:
    """A dead process's end in words: the signal that killed it, or its exit status."""
    if exitcode is not None and exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit status {exitcode}"


def _pool(tasks: list[tuple], jobs: int, done: Callable[[int], None]) -> list[dict]:
    """The runs on ``jobs`` local processes, each given one combination at a time. A process that
    dies loses only its combination: that runs again in a fresh process, which takes the dead one's
    place, and becomes a row with the error if that process dies too."""
    rows: list = [None] * len(tasks)
    waiting = collections.deque(range(len(tasks)))
    deaths = [0] * len(tasks)
    workers: list[_Worker] = []
    finished = 0

    def start(i: int) -> None:
        w = _Worker()
        workers.append(w)
        w.give(i, tasks[i])

    try:
        while waiting or any(w.task is not None for w in workers):
            for w in [w for w in workers if w.task is None]:
                if waiting:
                    try:
                        w.give(waiting[0], tasks[waiting[0]])
                    except OSError:  # it died while idle: another takes its place
                        w.end()
                        workers.remove(w)
                        continue
                    waiting.popleft()
            while waiting and len(workers) < jobs:
                start(waiting.popleft())
            busy = [w for w in workers if w.task is not None]
            ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy])
            for w in busy:
                if w.conn not in ready and w.process.sentinel not in ready:
                    continue
                i = w.task
                try:
                    rows[i] = w.conn.recv()
                except (EOFError, OSError):  # the process died in the run
                    w.end()
                    workers.remove(w)
                    deaths[i] += 1
                    if deaths[i] == 1:
                        start(i)
                        continue
                    rows[i] = _row(tasks[i][2], tasks[i][3], f"its process died twice, the second time a fresh "
                                   f"process ({how_it_ended(w.process.exitcode)})")
                w.task = None
                finished += 1
                done(finished)
    except KeyboardInterrupt:
        raise Interrupted(_finished(rows)) from None
    finally:
        for w in workers:
            w.end()
    return rows


def _local(tasks: list[tuple], jobs: int, done: Callable[[int], None]) -> list[dict]:
    return _in_process(tasks, done) if jobs == 1 else _pool(tasks, jobs, done)


def _dask(tasks: list[tuple], where: cluster.Scheduler, done: Callable[[int], None], timeout: float,
          progress: bool, tell: Callable[[str], None]) -> list[dict]:
    rows: list = [None] * len(tasks)
    try:
        with cluster.connected(where, timeout) as client:
            cluster.check_workers(client, timeout, tell)
            link = cluster.dashboard(client)
            if link:
                tell(f"Dask dashboard at {link}")
            for n, (i, outcome) in enumerate(cluster.outcomes(client, run_one, tasks, progress), start=1):
                rows[i] = outcome if isinstance(outcome, dict) else _lost(tasks[i], outcome)
                done(n)
    except KeyboardInterrupt:
        raise Interrupted(_finished(rows)) from None
    return rows


def _lost(task: tuple, err: BaseException) -> dict:
    """The row of a run the cluster lost (its worker died again and again, say)."""
    text = str(err).splitlines()[0] if str(err) else ""
    why = f"{type(err).__name__}: {text}" if text else type(err).__name__
    return _row(task[2], task[3], f"the cluster could not run it ({why})")


def sweep(text: str, path: str, defines: list[tuple[str, list[int]]], profiles: list[str], cores: int | None,
          jobs: int | None = None, dask=None, done: Callable[[int], None] = lambda n: None,
          fixed: dict | None = None, loads: tuple = (), dask_timeout: float = DASK_TIMEOUT,
          blocks: int | None = None, *,
          scheduler_file: str | os.PathLike | None = None, progress: bool = False,
          tell: Callable[[str], None] = lambda message: None) -> list[dict]:
    """Every row of the sweep, in the order of ``combinations`` (``fixed``, ``loads`` and ``blocks``: see
    run_one).

    Where: ``dask`` (a scheduler's address, a ``distributed.Client``, which is left open, or a cluster
    object such as a LocalCluster or SLURMCluster) or ``scheduler_file`` (the JSON file ``dask scheduler
    --scheduler-file`` writes); else ``jobs`` local processes when given; else the Dask configuration's
    ``scheduler-address`` (DASK_SCHEDULER_ADDRESS) when distributed is installed; else one local process
    per CPU. On Dask, ``dask_timeout`` bounds the waits for the scheduler, its file and a first worker;
    every worker must run this vcore; ``tell`` hears the dashboard link and warnings (a line that starts
    "warning: "); ``progress`` draws distributed's progress bar on stderr.

    Ctrl-C raises ``Interrupted`` with the rows finished; a Dask cluster that cannot run it raises
    ``DaskError``."""
    tasks = [(text, path, c["defines"], c["profile"], cores, fixed, loads, blocks)
             for c in combinations(defines, profiles)]
    where = cluster.scheduler(dask, scheduler_file, jobs)
    if where is not None:
        return _dask(tasks, where, done, dask_timeout, progress, tell)
    return _local(tasks, max(1, min(jobs or os.cpu_count() or 1, len(tasks))), done)


def to_csv(rows: Iterable[dict]) -> str:
    rows = list(rows)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: "" if v is None else v for k, v in r.items()} for r in rows)
    return out.getvalue()


def to_json(rows: Iterable[dict]) -> str:
    return json.dumps(list(rows), indent=2) + "\n"


def to_table(rows: list[dict]) -> str:
    """The rows as aligned text, for a terminal: the verdict shortened to its bounding pipe ("MTE2"),
    the whole verdict being in the CSV and JSON."""
    keys = [k for k in rows[0] if k != "verdict"]
    keys.insert(keys.index("error"), "bound")

    def cell(r: dict, k: str) -> str:
        if k == "bound":
            return r["verdict"].removeprefix("bound by ").split(" ")[0] if r.get("verdict") else ""
        return "" if r[k] is None else str(r[k])

    cells = [[cell(r, k) for k in keys] for r in rows]
    widths = [max(len(k), *(len(c[i]) for c in cells)) for i, k in enumerate(keys)]
    lines = ["  ".join(k.ljust(w) for k, w in zip(keys, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    return "\n".join(lines) + "\n"


def plot(rows: list[dict], defines: list[tuple[str, list[int]]], path: str) -> None:
    """Total cycles against the first varied constant, one line per value of the others (and profile);
    a sweep over profiles alone (no ``defines``), one bar per profile."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4.5))
    if defines:
        _plot_lines(axes, rows, defines)
    else:
        _plot_bars(axes, rows)
    axes.set_ylabel("total cycles")
    axes.grid(True, alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _plot_lines(axes, rows: list[dict], defines: list[tuple[str, list[int]]]) -> None:
    varied = [name for name, values in defines if len(values) > 1] or [defines[0][0]]
    x_name, others = varied[0], [name for name, _ in defines if name != varied[0]]
    lines: dict = {}
    for r in rows:
        label = ", ".join([f"{n}={r[n]}" for n in others] + [f"profile {r['profile']}"])
        if r["total_cycles"] is not None:
            lines.setdefault(label, []).append((r[x_name], r["total_cycles"]))
    for label, points in lines.items():
        xs, ys = zip(*sorted(points), strict=True)
        axes.plot(xs, ys, marker="o", label=label)
    xs_all = sorted({x for points in lines.values() for x, _ in points})
    if xs_all and xs_all[0] > 0 and xs_all[-1] >= 8 * xs_all[0]:   # tile sizes and the like: doublings
        axes.set_xscale("log", base=2)
        axes.set_xticks(xs_all, [str(x) for x in xs_all])
    axes.set_xlabel(x_name)
    if lines:
        axes.legend(fontsize="small")


def _plot_bars(axes, rows: list[dict]) -> None:
    """One bar per profile, in the order run; a run that failed has no bar, and says so."""
    places = range(len(rows))
    axes.bar(places, [r["total_cycles"] or 0 for r in rows])
    for x, r in zip(places, rows, strict=True):
        if r["total_cycles"] is None:
            axes.annotate("failed", (x, 0), ha="center", va="bottom")
    axes.set_xticks(places, [r["profile"] for r in rows])
    axes.set_xlabel("profile")
