"""A program a doc shows is a program that runs: an indented block right after a line
``<!-- program: programs/NAME.asm -->`` in README.md or docs/*.md must be a run of that program's
own lines, word for word, and the program must carry EXPECT lines (the pytest plugin runs every
programs/*.asm and checks them). So the example cannot drift from what vcore does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"^<!-- program: (?P<path>programs/[\w/]+\.asm) -->$")


def shown_programs() -> list[tuple[str, int, str, list[str]]]:
    """(doc, line, program path, the block's lines) for each marked block."""
    found = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        lines = doc.read_text().splitlines()
        for i, line in enumerate(lines):
            m = MARKER.match(line)
            if not m:
                continue
            block = []
            for after in lines[i + 1:]:
                if after and not after.startswith("    "):
                    break
                block.append(after[4:])
            while block and not block[-1]:
                block.pop()
            found.append((doc.name, i + 1, m.group("path"), block))
    return found


SHOWN = shown_programs()


def test_language_md_shows_the_scalar_register_example():
    assert ("language.md", "programs/scalar_float_from_gm.asm") in {(d, p) for d, _, p, _ in SHOWN}


@pytest.mark.parametrize(("doc", "line", "path", "block"), SHOWN, ids=[f"{d}:{n}" for d, n, _, _ in SHOWN])
def test_a_shown_program_is_the_program(doc, line, path, block):
    program = (ROOT / path).read_text().splitlines()
    assert block, f"{doc}:{line}: no indented block after the marker"
    starts = [k for k in range(len(program) - len(block) + 1) if program[k:k + len(block)] == block]
    assert starts, f"{doc}:{line}: the block is not a run of {path}'s lines (copy it again from the program)"
    assert any(re.match(r"^\s*;\s*EXPECT\b", text) for text in program), f"{path} has no EXPECT lines to run"
