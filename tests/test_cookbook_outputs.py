"""The cookbook's output is real: every `$ .venv/bin/vcore ...` command shown in docs/cookbook.md is
run (in-process, from the repository root, with /tmp/ paths moved into a scratch folder) and its
output is compared line for line with what the recipe shows; a `...` line stands for any lines.

Also: each numpy golden in programs/golden/ prints exactly the block of data and EXPECT lines that its
program carries, and imports nothing of vcore (the golden is computed outside the code under test).
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import runpy
from pathlib import Path

import pytest

from vcore.doc_outputs import run_cookbook_command

ROOT = Path(__file__).resolve().parents[1]
COOKBOOK = ROOT / "docs" / "cookbook.md"
GOLDEN_DIR = ROOT / "programs" / "golden"
GOLDENS = sorted(p for p in GOLDEN_DIR.glob("*.py") if p.stem != "common")   # common: their helpers


def shown_commands() -> list[tuple[int, list[str], list[str]]]:
    """(line, commands, output lines of the last) for the indented `$ .venv/bin/vcore` lines of the
    cookbook."""
    lines = COOKBOOK.read_text().splitlines()
    found, setup = [], []
    for i, line in enumerate(lines):
        if line.startswith("    $ .venv/bin/vcore "):
            output = []
            for after in lines[i + 1:]:   # up to the next command or text; a blank line may be inside
                if after.startswith("    $ ") or (after and not after.startswith("    ")):
                    break
                output.append(after[4:])
            while output and not output[-1]:
                output.pop()
            setup.append(line[len("    $ .venv/bin/vcore "):])
            if output:   # a command that shows nothing (writes a file) runs before the next one
                found.append((i + 1, setup, output))
                setup = []
    return found


COMMANDS = shown_commands()


def matches(shown: list[str], actual: list[str]) -> bool:
    """Whether the actual lines are the shown ones, each `...` standing for any (possibly no) lines."""
    pattern = "".join(".*?" if s == "..." else re.escape(s + "\n") for s in shown)
    return re.fullmatch(pattern, "".join(a + "\n" for a in actual), re.DOTALL) is not None


def test_the_cookbook_shows_commands():
    assert len(COMMANDS) >= 20


@pytest.mark.parametrize("line, commands, shown", COMMANDS, ids=[f"line{c[0]}" for c in COMMANDS])
def test_shown_output_is_real(line, commands, shown, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    for shell_line in commands:
        status, actual = run_cookbook_command(shell_line, tmp_path)
    assert status in (0, 1), f"cookbook line {line}: " + "\n".join(actual)   # 1: a runtime fault shown
    assert matches(shown, actual), f"cookbook line {line}: {shell_line}\n" + "\n".join(actual)


def test_the_wildcard_can_fail():
    assert matches(["a", "...", "c"], ["a", "b", "b", "c"])
    assert not matches(["a", "...", "c"], ["a", "b", "d"])
    assert not matches(["a"], ["a", "b"])


@pytest.mark.parametrize("golden", GOLDENS, ids=[g.stem for g in GOLDENS])
def test_golden_prints_the_programs_block(golden, monkeypatch):
    imported = set()
    for node in ast.walk(ast.parse(golden.read_text())):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported <= {"numpy", "math", "fractions", "struct", "sys", "__future__", "common"}, imported
    out = io.StringIO()
    monkeypatch.syspath_prepend(str(GOLDEN_DIR))   # as `python programs/golden/X.py` finds common.py
    with contextlib.redirect_stdout(out):
        runpy.run_path(str(golden), run_name="__main__")
    printed = [line.rstrip() for line in out.getvalue().splitlines() if line.strip()]
    program = [line.rstrip() for line in (ROOT / "programs" / f"{golden.stem}.asm").read_text().splitlines()
               if line.strip()]
    assert len(printed) > 5
    starts = [i for i, line in enumerate(program) if line == printed[0]]
    assert any(program[i:i + len(printed)] == printed for i in starts), \
        f"programs/{golden.stem}.asm does not carry what {golden.name} prints"
