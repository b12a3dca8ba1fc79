"""The emulator's modules depend on each other one way: each imports on its own in a fresh
interpreter, and the graph of imports between them has no cycle.

Two graphs are checked. The import-time graph counts the imports at module level (those a module
runs when it is imported; ``if TYPE_CHECKING:`` blocks do not run, so they do not count). The
dependency graph adds the imports deferred into a function body: a deferred import that closes a
cycle (``machine.report()`` importing report.py, which imported machine.py) is still two modules
that need each other, only hidden from the import-time graph. Known cycles that remain would be
listed in ``KNOWN_CYCLES``, so that a new one fails; there are none.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "emulator"  # the folder
IMPORTED_AS = ("vcore", "emulator")  # its import name, vcore.emulator


def _module_name(path: Path) -> str:
    """A module's dotted name inside the package (a sub-package by its own name; the package's
    ``__init__`` as ``__init__``)."""
    parts = path.relative_to(ROOT / PACKAGE).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) or "__init__"


FILES = {_module_name(p): p for p in (ROOT / PACKAGE).rglob("*.py")}
MODULES = sorted(FILES)
KNOWN_CYCLES: set[tuple[str, ...]] = set()  # each as its modules, rotated to start at the smallest


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
           (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _targets(node: ast.Import | ast.ImportFrom, here: str) -> set[str]:
    """The emulator modules an import statement names (``emulator`` itself for its ``__init__``)."""
    out = set()
    size = len(IMPORTED_AS)
    if isinstance(node, ast.Import):
        for alias in node.names:
            parts = alias.name.split(".")
            if tuple(parts[:size]) == IMPORTED_AS:
                out.add(".".join(parts[size:]) or "__init__")
        return out
    assert not node.level, "the emulator imports by absolute names"
    module = (node.module or "").split(".")
    if module == ["vcore"]:  # from vcore import emulator
        return out | ({"__init__"} if any(a.name == IMPORTED_AS[1] for a in node.names) else set())
    if tuple(module[:size]) != IMPORTED_AS:
        return out
    inner = ".".join(module[size:]) or "__init__"
    for alias in node.names:  # from emulator.x import y: a module y of package x, or a name of x
        sub = alias.name if inner == "__init__" else f"{inner}.{alias.name}"
        out.add(sub if sub in MODULES else inner)
    return out - {here}


def imports(module: str, deferred: bool) -> set[str]:
    """The emulator modules ``module`` imports: at module level, and with ``deferred`` also inside
    functions; never under ``if TYPE_CHECKING:``."""
    return imports_in(FILES[module].read_text(encoding="utf-8"), module, deferred)


def imports_in(source: str, module: str, deferred: bool) -> set[str]:
    tree = ast.parse(source)
    found: set[str] = set()

    def visit(body, in_function: bool) -> None:
        for node in body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                if deferred or not in_function:
                    found.update(_targets(node, module))
            elif isinstance(node, ast.If) and _is_type_checking(node.test):
                visit(node.orelse, in_function)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                visit(getattr(node, "body", []), True)
            else:
                for field in ("body", "orelse", "finalbody", "handlers"):
                    visit(getattr(node, field, None) or [], in_function)
                if isinstance(node, ast.Match):
                    for case in node.cases:
                        visit(case.body, in_function)

    visit(tree.body, False)
    return found


def cycles(graph: dict[str, set[str]]) -> set[tuple[str, ...]]:
    """Every elementary cycle of a small graph, each rotated to start at its smallest module."""
    found = set()

    def walk(start: str, node: str, path: list[str]) -> None:
        for nxt in graph.get(node, ()):
            if nxt == start:
                found.add(tuple(path))
            elif nxt > start and nxt not in path:
                walk(start, nxt, [*path, nxt])

    for start in sorted(graph):
        walk(start, start, [start])
    return found


@pytest.mark.parametrize("deferred", [False, True], ids=["import-time", "with-deferred"])
def test_emulator_imports_are_acyclic(deferred):
    graph = {m: imports(m, deferred) for m in MODULES}
    assert cycles(graph) == KNOWN_CYCLES, {m: sorted(t) for m, t in graph.items() if t}


def test_report_does_not_import_machine_at_run_time():
    assert "machine" not in imports("report", deferred=True)
    assert "report" in imports("machine", deferred=False)  # the one way: a machine builds its report


@pytest.mark.parametrize("module", MODULES)
def test_module_imports_alone(module):
    package = ".".join(IMPORTED_AS)
    name = package if module == "__init__" else f"{package}.{module}"
    run = subprocess.run([sys.executable, "-c", f"import {name}"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr


def test_the_cycle_finder():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == {("a", "b", "c")}
    assert cycles({"a": {"b"}, "b": {"a", "c"}, "c": set()}) == {("a", "b")}
    assert cycles({"a": {"b"}, "b": set()}) == set()


def test_the_import_reader():
    source = """
from __future__ import annotations
from typing import TYPE_CHECKING
import numpy as np
from vcore.emulator import Fault
from vcore.emulator.semantics import scalar
from vcore.emulator.faults import check_range
import vcore.emulator.jobs
if TYPE_CHECKING:
    from vcore.emulator.machine import Machine
else:
    from vcore.emulator.state import State
try:
    from vcore.emulator.timing.banks import BankRules
except ImportError:
    pass
def report():
    from vcore.emulator.report import build_report
"""
    module_level = {"semantics.scalar", "__init__", "faults", "jobs", "state", "timing.banks"}
    assert imports_in(source, "x", deferred=False) == module_level
    assert imports_in(source, "x", deferred=True) == module_level | {"report"}


def test_report_and_trace_are_built_from_the_result_value_alone():
    """``run()`` returns a value; the report and the trace read only it. A deep copy of the result,
    with the machine gone, gives the same report and trace as the machine's own."""
    import copy
    import gc

    from vcore.assembler import assemble
    from vcore.emulator import Machine
    from vcore.emulator.report import build_report
    from vcore.emulator.trace import trace_events

    text = ("    DMA.GM2UB [0x0], gm[0x0], len=4\n    SETFLAG MTE2, V, 0\n    WAITFLAG MTE2, V, 0\n"
            "    VADD.f16 [0x400], [0x0], [0x0]\n    SETFLAG V, MTE3, 0\n    WAITFLAG V, MTE3, 0\n"
            "    DMA.UB2GM gm[0x100], [0x400], len=8\n    HALT\n")
    machine = Machine(assemble(text, "k.asm"), "950")
    result = machine.run(trace=True)
    expected_report, expected_trace = machine.report().to_json(), trace_events(machine.result)
    alone = copy.deepcopy(result)
    del machine, result
    gc.collect()
    assert build_report(alone).to_json() == expected_report
    assert trace_events(alone) == expected_trace
    assert expected_report["per_pc"] and expected_report["total_cycles"] > 0
    assert "report" not in imports("trace", deferred=True) and "machine" not in imports("trace", deferred=True)
