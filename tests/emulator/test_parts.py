"""The emulator's objects are made of parts that own their state (issue 29): no class in ``emulator/``
sets more than 25 attributes on ``self`` (those its project base classes set count as its own), none is
built from more than two base classes of the project, and none of the engine's parts reads an
attribute another part stores: a part calls the methods of the one it uses. Checked on the source
with ``ast``; each check is also fed a source that breaks it, and must refuse it.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ("emulator", "isa", "assembler", "vcore")
MAX_ATTRIBUTES = 25
MAX_PROJECT_BASES = 2
# The engine and its parts (emulator.timing.engine.Engine composes them), by class name.
PARTS = {"Engine", "Flags", "Scoreboard", "DataMovement", "ProgramOrder", "RaceCheck", "Order", "Accounting"}


def _classes(sources: dict[str, str]) -> dict[str, ast.ClassDef]:
    """Every class the sources define (by name; the project's class names are unique)."""
    found = {}
    for name, text in sources.items():
        for node in ast.walk(ast.parse(text, name)):
            if isinstance(node, ast.ClassDef):
                found[node.name] = node
    return found


def _methods(cls: ast.ClassDef):
    return [n for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _set_on_self(cls: ast.ClassDef) -> set[str]:
    """The attributes the class's own methods set on ``self``: ``self.x = ...`` (augmented and
    annotated too), ``setattr(self, "x", ...)`` and ``self.__dict__["x"] = ...``."""
    names = set()
    for method in _methods(cls):
        for node in ast.walk(method):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and \
                    isinstance(node.value, ast.Name) and node.value.id == "self":
                names.add(node.attr)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" and \
                    len(node.args) >= 2 and isinstance(node.args[0], ast.Name) and node.args[0].id == "self" and \
                    isinstance(node.args[1], ast.Constant):
                names.add(node.args[1].value)
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and \
                    isinstance(node.value, ast.Attribute) and node.value.attr == "__dict__" and \
                    isinstance(node.value.value, ast.Name) and node.value.value.id == "self" and \
                    isinstance(node.slice, ast.Constant):
                names.add(node.slice.value)
    return names


def _project_bases(cls: ast.ClassDef, project: dict[str, ast.ClassDef]) -> list[str]:
    bases = [b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else None
             for b in cls.bases]
    return [b for b in bases if b in project and b != cls.name]


def attributes(name: str, project: dict[str, ast.ClassDef]) -> set[str]:
    """The attributes set on an instance of class ``name``: its own methods' and its project bases'."""
    cls = project[name]
    found = _set_on_self(cls)
    for base in _project_bases(cls, project):
        found |= attributes(base, project)
    return found


def too_big(sources: dict[str, str], project: dict[str, ast.ClassDef]) -> list[str]:
    """The classes ``sources`` define that set too many attributes or have too many project bases."""
    out = []
    for name in _classes(sources):
        count = len(attributes(name, project))
        if count > MAX_ATTRIBUTES:
            out.append(f"{name} sets {count} attributes on self (at most {MAX_ATTRIBUTES})")
        bases = _project_bases(project[name], project)
        if len(bases) > MAX_PROJECT_BASES:
            out.append(f"{name} is built from {len(bases)} project classes {bases} (at most {MAX_PROJECT_BASES})")
    return out


def reach_ins(sources: dict[str, str]) -> list[str]:
    """Where a part reads what another part stores: ``self.<part>.<attr>`` in a part's method, with
    ``<part>`` an attribute the class sets to another part (``self.<part> = Part(...)``, or to a
    parameter named for it) and ``<attr>`` one that part sets on itself (a method is not stored)."""
    classes = {n: c for n, c in _classes(sources).items() if n in PARTS}
    stored = {n: _set_on_self(c) for n, c in classes.items()}
    out = []
    for name, cls in classes.items():
        holds = {}  # attribute -> the part class it holds
        for method in _methods(cls):
            for node in ast.walk(method):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                        isinstance(node.value.func, ast.Name) and node.value.func.id in classes:
                    for target in node.targets:
                        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and \
                                target.value.id == "self":
                            holds[target.attr] = node.value.func.id
        holds.setdefault("races", "RaceCheck")  # Order is handed the race check (its one other part)
        for method in _methods(cls):
            for node in ast.walk(method):
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and \
                        isinstance(node.value.value, ast.Name) and node.value.value.id == "self":
                    part = holds.get(node.value.attr)
                    if part is not None and part != name and node.attr in stored.get(part, ()):
                        where = f"self.{node.value.attr}.{node.attr}"
                        out.append(f"{name}.{method.name} reads {part}'s {node.attr} ({where})")
    return out


def _emulator_sources() -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in sorted((ROOT / "emulator").rglob("*.py"))}


def _project() -> dict[str, ast.ClassDef]:
    return _classes({str(p): p.read_text(encoding="utf-8") for package in PROJECT
                     for p in sorted((ROOT / package).rglob("*.py"))})


def test_no_class_sets_too_many_attributes_or_has_too_many_project_bases():
    assert too_big(_emulator_sources(), _project()) == []


def test_no_engine_part_reads_what_another_part_stores():
    sources = _emulator_sources()
    assert set(_classes(sources)) >= PARTS, "a part was renamed: name it in PARTS"
    assert reach_ins(sources) == []


def test_each_engine_part_says_what_it_owns():
    classes = _classes(_emulator_sources())
    for name in sorted(PARTS):
        doc = ast.get_docstring(classes[name]) or ""
        assert "owns" in doc.split(". ")[0], f"{name}: its docstring's first sentence does not say what it owns"


# -- the checks refuse what they are there to refuse ------------------------------------------------------

def test_the_size_check_refuses_a_class_with_too_many_attributes():
    many = "class Big:\n    def __init__(self):\n" + "".join(f"        self.a{i} = {i}\n" for i in range(26))
    assert too_big({"big.py": many}, _classes({"big.py": many})) == ["Big sets 26 attributes on self (at most 25)"]
    fits = "class Fits:\n    def __init__(self):\n" + "".join(f"        self.a{i} = {i}\n" for i in range(25))
    assert too_big({"fits.py": fits}, _classes({"fits.py": fits})) == []


def test_the_size_check_counts_what_project_bases_set_and_setattr():
    source = ("class Base:\n    def __init__(self):\n" + "".join(f"        self.b{i} = {i}\n" for i in range(20))
              + "class Child(Base):\n    def __init__(self):\n        super().__init__()\n"
              + "".join(f"        self.c{i} = {i}\n" for i in range(4))
              + "        setattr(self, 'hidden', 1)\n        self.__dict__['cached'] = 2\n")
    assert too_big({"m.py": source}, _classes({"m.py": source})) == ["Child sets 26 attributes on self (at most 25)"]


def test_the_size_check_refuses_a_class_of_three_project_mixins():
    source = "class A:\n    pass\nclass B:\n    pass\nclass C:\n    pass\nclass D(A, B, C):\n    pass\n"
    assert too_big({"m.py": source}, _classes({"m.py": source})) == [
        "D is built from 3 project classes ['A', 'B', 'C'] (at most 2)"]
    two = "class A:\n    pass\nclass B:\n    pass\nclass D(A, B, dict):\n    pass\n"
    assert too_big({"m.py": two}, _classes({"m.py": two})) == []


def test_the_reach_in_check_refuses_a_part_that_reads_another_parts_attribute():
    source = """
class Flags:
    def __init__(self):
        self.sets = {}
    def is_set(self, flag):
        return bool(self.sets.get(flag))
class Engine:
    def __init__(self):
        self.flags = Flags()
    def wait(self, flag):
        return self.flags.is_set(flag)
    def peek(self, flag):
        return self.flags.sets[flag]
"""
    assert reach_ins({"m.py": source}) == ["Engine.peek reads Flags's sets (self.flags.sets)"]
