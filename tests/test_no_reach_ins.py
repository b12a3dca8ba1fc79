"""No module reaches into another module's private state: every name that starts with one
underscore belongs to the module that defines it.

The rule, checked on the source of every package (and the benchmarks) with ``ast``:
- ``X._name`` (or ``getattr(X, "_name")``) is allowed only when ``_name`` is defined in the same
  file (assigned as ``self._name`` or ``K._name``, a function, method, class or module-level name, or
  a parameter) and, unless ``X`` is ``self`` or ``cls``, in no other file of the project: ``other._name``
  on another instance of the file's own class is its own state, but a name that another module
  defines too may be that module's object. (Names of
  the standard library or numpy that start with an underscore, ``sys._getframe`` or a namedtuple's
  ``_replace``, are not the project's, so they are not checked here.)
- ``from M import _name`` of a project module ``M`` is reaching in.
Dunder names are the language's and are allowed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("isa", "assembler", "emulator", "vcore", "benchmarks")
SOURCES = sorted(p for top in PACKAGES for p in (ROOT / top).rglob("*.py"))


NAMEDTUPLE = {"_replace", "_asdict", "_fields", "_make", "_field_defaults"}  # a named tuple's public methods


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__")) and name not in NAMEDTUPLE


def defined(tree: ast.Module) -> set[str]:
    """The private names a module defines: functions, classes and methods, assignments to names and
    to attributes of any object (``self._x = ...``, ``K._x = ...``), and parameters."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
            if not isinstance(node, ast.ClassDef):
                args = node.args
                names |= {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
            names.add(str(node.args[1].value))
    return {n for n in names if _private(n)}


def project_private() -> dict[str, set[str]]:
    """Every private name the project defines, by the files that define it."""
    owners: dict[str, set[str]] = {}
    for path in SOURCES:
        for name in defined(ast.parse(path.read_text(encoding="utf-8"))):
            owners.setdefault(name, set()).add(path.relative_to(ROOT).as_posix())
    return owners


def violations(source: str, filename: str, owners: dict[str, set[str]], project: tuple[str, ...] = PACKAGES) \
        -> list[str]:
    tree = ast.parse(source, filename)
    own = defined(tree)
    found = []

    def check(base: ast.expr, attr: str, node: ast.AST) -> None:
        mine = isinstance(base, ast.Name) and base.id in ("self", "cls")
        if _private(attr) and attr in owners and (attr not in own or (not mine and owners[attr] - {filename})):
            found.append(f"{filename}:{node.lineno}: {ast.unparse(base)}.{attr} "
                         f"(defined in {', '.join(sorted(owners[attr]))})")

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            check(node.value, node.attr, node)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
              and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
              and isinstance(node.args[1].value, str)):
            check(node.args[0], node.args[1].value, node)
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] in project:
            found += [f"{filename}:{node.lineno}: from {node.module} import {alias.name}"
                      for alias in node.names if _private(alias.name)]
    return found


OWNERS = project_private()


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_module_reaches_into_another(path):
    name = path.relative_to(ROOT).as_posix()
    assert violations(path.read_text(encoding="utf-8"), name, OWNERS) == []


# -- the rule itself ---------------------------------------------------------------------------------
_OTHER = {"_bound_at": {"emulator/machine.py"}, "_views": {"emulator/state.py"}, "_num": {"x.py"},
          "_items": {"<snippet>"}}


@pytest.mark.parametrize("snippet", [
    "def f(m):\n    return m._bound_at.get(0)\n",
    "def f(m):\n    return getattr(m, '_views')\n",
    "from vcore.emulator.timing.engine import _START\n",
    "from benchmarks.calibration import _num\n",
    "import x\ny = x._num(3)\n",
    "class F:\n    def __init__(self, m):\n        self._views = m._views\n",   # defined here and in state.py
])
def test_the_rule_catches_reaching_in(snippet):
    assert violations(snippet, "<snippet>", _OTHER)


@pytest.mark.parametrize("snippet", [
    "class K:\n    def __init__(self):\n        self._items = {}\n    def f(self, other):\n"
    "        return other._items\n",                               # the same class's state, in its module
    "def _num(x):\n    return x\ny = _num(1)\n",                     # its own helper
    "import sys\nf = sys._getframe\n",                              # not the project's
    "from numpy import _globals\n",                                 # not the project's
    "def f(o):\n    return o.__class__.__name__\n",
])
def test_the_rule_lets_a_module_own_code_be(snippet):
    assert violations(snippet, "<snippet>", _OTHER) == []
