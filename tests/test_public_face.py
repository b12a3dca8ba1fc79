"""The faces (the command line, the debugger, the pytest plugin, the Python API, the report diff)
use only the machine's public API: they never reach into the timing engine (``.engine``) or into a
private attribute (``._name``) of the machine, the engine or anything else they did not define.

The rule, checked on the source with ``ast``: an attribute access ``X.engine`` or ``X._name``
(``getattr(X, "engine")`` and ``getattr(X, "_name")`` likewise) is allowed only when ``X`` is
``self`` or ``cls`` (a face's own private methods and state) or a name the same file defines at
module level with ``def``, ``class`` or an assignment (its own helpers). A name the file imports is
not its own: ``timing._x`` after ``from emulator import timing`` is reaching in. Dunder names
(``__doc__``, ``__name__``) are the language's, not private, and are allowed. Importing a private
name from another module (``from emulator.timing.engine import _x``) is reaching in too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FACES = ["vcore/cli.py", "vcore/debug.py", "vcore/pytest_plugin.py", "vcore/api.py", "vcore/diff.py"]
INTERNAL = {"engine"}  # public-looking attributes that are internals all the same


def _reaches_in(name: str) -> bool:
    dunder = name.startswith("__") and name.endswith("__") and len(name) > 4
    return name in INTERNAL or (name.startswith("_") and not dunder)


def _own_names(tree: ast.Module) -> set[str]:
    """Names the module itself defines at module level (not the ones it imports)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def violations(source: str, filename: str = "<face>") -> list[str]:
    """Each reach into internals in ``source``, as ``file:line: what``."""
    tree = ast.parse(source, filename)
    allowed = {"self", "cls"} | _own_names(tree)
    found = []

    def check(base: ast.expr, attr: str, node: ast.AST) -> None:
        if _reaches_in(attr) and not (isinstance(base, ast.Name) and base.id in allowed):
            found.append(f"{filename}:{node.lineno}: {ast.unparse(base)}.{attr}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            check(node.value, node.attr, node)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
              and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
              and isinstance(node.args[1].value, str)):
            check(node.args[0], node.args[1].value, node)
        elif isinstance(node, ast.ImportFrom):
            found += [f"{filename}:{node.lineno}: from {'.' * node.level}{node.module or ''} import {alias.name}"
                      for alias in node.names if _reaches_in(alias.name)]
    return found


@pytest.mark.parametrize("face", FACES)
def test_face_uses_only_the_public_api(face):
    path = ROOT / face
    assert violations(path.read_text(encoding="utf-8"), face) == []


# -- the rule itself: it catches reaching in, and lets a face's own code be -----------------------
@pytest.mark.parametrize("snippet", [
    "def f(machine):\n    return machine.engine.races\n",
    "def f(m):\n    return m._bound_at.get(0)\n",
    "class D:\n    def f(self):\n        return self.m.engine.free\n",
    "class D:\n    def f(self):\n        return self.m._counts\n",
    "from vcore.emulator import timing\nx = timing._private\n",
    "def f(m):\n    return getattr(m, '_bound_at')\n",
    "def f(m):\n    return getattr(m, 'engine', None)\n",
    "from vcore.emulator.timing.engine import _helper\n",
    "from vcore.formatting import _digits\n",
    "def f(m):\n    return m.result._cache\n",
])
def test_the_rule_catches_reaching_in(snippet):
    assert violations(snippet)


@pytest.mark.parametrize("snippet", [
    "class D:\n    def f(self):\n        return self._fresh()\n",
    "class D:\n    @classmethod\n    def f(cls):\n        return cls._table\n",
    "def _helper():\n    pass\nclass K:\n    _x = 1\ny = K._x\n",
    "_TABLE = {}\nclass K:\n    pass\nK._TABLE = _TABLE\n",
    "x = __doc__.split()\ndef f(o):\n    return o.__class__.__name__\n",
    "def f(machine):\n    return machine.races(), machine.pipe_status()\n",
])
def test_the_rule_lets_a_face_own_code_be(snippet):
    assert violations(snippet) == []
