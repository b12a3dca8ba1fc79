"""No function in emulator/ is over 120 lines, and none in the tensor shape over 80 (issue 29,
outcome 4): a function that long tells cases apart by flags where a plan and strategies would do.
A function's length is from its ``def`` (or first decorator) to its last line, nested functions
included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EMULATOR = ROOT / "emulator"
LIMIT = 120
LIMITS = {"emulator/semantics/tensor.py": 80, "emulator/semantics/tensor_plan.py": 80}  # the tensor shape: tighter


def long_functions(source: str, limit: int) -> list[tuple[str, int, int]]:
    """(name, first line, lines) of every function in ``source`` longer than ``limit`` lines."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            lines = node.end_lineno - first + 1
            if lines > limit:
                found.append((node.name, first, lines))
    return found


def _modules() -> list[Path]:
    return sorted(EMULATOR.rglob("*.py"))


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_function_is_too_long(path):
    where = str(path.relative_to(ROOT))
    limit = LIMITS.get(where, LIMIT)
    found = long_functions(path.read_text(encoding="utf-8"), limit)
    assert not found, "; ".join(f"{where}:{line} {name} is {n} lines (limit {limit})" for name, line, n in found)


def test_every_tighter_limit_names_a_module():
    for where in LIMITS:
        assert (ROOT / where).is_file(), where


def _body(lines: int) -> str:
    return "".join(f"    x{i} = {i}\n" for i in range(lines - 1))


def test_the_walk_finds_a_long_function_nested_or_not():
    # 1 line of def + 120 of body: 121 lines, one over; a method and a nested function count too
    assert long_functions("def f():\n" + _body(121), 120) == [("f", 1, 121)]
    assert long_functions("def f():\n" + _body(120), 120) == []
    method = "class C:\n    @staticmethod\n    def m():\n" + "".join(f"        y{i} = {i}\n" for i in range(119))
    assert long_functions(method, 120) == [("m", 2, 121)]  # the decorator's line is its first
    inner = "".join(f"        z{i} = {i}\n" for i in range(80))
    nested = "def outer():\n    def inner():\n" + inner + "    return inner\n"
    assert long_functions(nested, 80) == [("outer", 1, 83), ("inner", 2, 81)]
