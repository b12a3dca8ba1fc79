"""``vcore sweep``: run one program for every combination of -D values and profiles, on local
processes or on a Dask cluster, and collect one row per run (CONTRACT section 10).

A run is a plain function of plain values (``run_one``: the program's text and path, the -D values,
the profile, the core count), so the same rows come back whichever executor ran them. A run that
fails is a row with its error, never an exception out of the sweep.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed

from assembler import AsmError, assemble
from emulator import Fault, ProfileError, ProgramError, load_profile
from emulator.kernel import load

PIPES = ("S", "V", "MTE2", "MTE3")


def combinations(defines: list[tuple[str, list[int]]], profiles: list[str]) -> list[dict]:
    """Every combination, the first -D varying slowest and the profile fastest."""
    names = [name for name, _ in defines]
    return [{"defines": dict(zip(names, values, strict=True)), "profile": profile}
            for values in itertools.product(*(v for _, v in defines)) for profile in profiles]


def run_one(text: str, path: str, defines: dict, profile: str, cores: int | None, fixed: dict | None = None,
            loads: tuple = ()) -> dict:
    """One run of the sweep as a row: the -D values, the profile, the cycles, each pipe's busy
    cycles, the verdict, and the error (empty for a clean run). ``fixed``: constants every run
    takes (the program's own ; DEFINE lines), under the swept ones; ``loads``: (space, addr, bytes)
    written before the run (its ; LOAD lines)."""

    row = {**defines, "profile": profile, "total_cycles": None, **{f"busy_{p}": None for p in PIPES},
           "verdict": "", "error": ""}
    try:
        program = assemble(text, path, {**(fixed or {}), **defines})
        prof = load_profile(profile)
        machine = load(program, prof, cores, jobs=1)
        for space, addr, data in loads:
            machine.write(space, addr, data)
        result = machine.run()
        report = machine.report()
    except (AsmError, ProfileError, ProgramError, Fault) as err:
        row["error"] = str(err).splitlines()[0]
        return row
    row["total_cycles"] = report.total_cycles
    for pipe in PIPES:
        row[f"busy_{pipe}"] = report.pipes[pipe].busy_cycles
    row["verdict"] = report.verdict()
    if result.fault is not None:
        row["error"] = str(result.fault).splitlines()[0]
    return row


def _local(tasks: list[tuple], jobs: int, done: Callable[[int], None]) -> list[dict]:
    if jobs == 1:
        rows = []
        for task in tasks:
            rows.append(run_one(*task))
            done(len(rows))
        return rows
    rows: list = [None] * len(tasks)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run_one, *task): i for i, task in enumerate(tasks)}
        for n, future in enumerate(as_completed(futures), start=1):
            rows[futures[future]] = future.result()
            done(n)
    return rows


def _dask(tasks: list[tuple], address: str, done: Callable[[int], None]) -> list[dict]:
    from distributed import Client
    from distributed import as_completed as finished

    with Client(address) as client:
        futures = [client.submit(run_one, *task, pure=False) for task in tasks]
        index = {f.key: i for i, f in enumerate(futures)}
        rows: list = [None] * len(tasks)
        for n, future in enumerate(finished(futures), start=1):
            rows[index[future.key]] = future.result()
            done(n)
    return rows


def sweep(text: str, path: str, defines: list[tuple[str, list[int]]], profiles: list[str], cores: int | None,
          jobs: int | None = None, dask: str | None = None, done: Callable[[int], None] = lambda n: None,
          fixed: dict | None = None, loads: tuple = ()) -> list[dict]:
    """Every row of the sweep, in the order of ``combinations`` (``fixed`` and ``loads``: see run_one)."""
    tasks = [(text, path, c["defines"], c["profile"], cores, fixed, loads) for c in combinations(defines, profiles)]
    if dask is not None:
        return _dask(tasks, dask, done)
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
