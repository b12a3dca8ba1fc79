"""The README's walkthrough is real: every ```console block's commands are run (with the
virtualenv's bin on PATH, in a scratch folder that sees the repository's programs/) and their
output is compared, line for line, with what the README shows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vcore.doc_outputs import run_readme_command

ROOT = Path(__file__).resolve().parents[2]


def console_blocks() -> list[list[tuple[str, str]]]:
    text = (ROOT / "README.md").read_text()
    blocks = []
    for body in re.findall(r"```console\n(.*?)```", text, re.DOTALL):
        steps, command, output = [], None, []
        for line in body.splitlines():
            if line.startswith("$ "):
                if command is not None:
                    steps.append((command, "\n".join(output)))
                command, output = line[2:], []
            else:
                output.append(line)
        steps.append((command, "\n".join(output)))
        blocks.append(steps)
    return blocks


BLOCKS = console_blocks()


def test_the_readme_has_a_walkthrough():
    assert len(BLOCKS) >= 3
    assert sum(len(b) for b in BLOCKS) >= 5


@pytest.mark.parametrize("steps", BLOCKS, ids=[steps[0][0][:40] for steps in BLOCKS])
def test_console_block(steps, tmp_path):
    (tmp_path / "programs").symlink_to(ROOT / "programs")
    for command, expected in steps:
        r = run_readme_command(command, tmp_path, timeout=60)
        assert r.returncode == 0, f"{command}\n{r.stderr}"
        assert r.stdout.rstrip("\n") == expected.rstrip("\n"), command
