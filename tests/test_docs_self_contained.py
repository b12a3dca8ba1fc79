"""What a user reads stands on its own: the docs, the README, the example programs, the built-in
profiles (``vcore profile show`` prints them) and every ``--help`` text state their rules in place
and cite public documentation, never the project's design notes (CONTRACT.md, SEMANTICS.md,
ISA-FACTS.md, MEASURED.md, the seed documents) or a path outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from vcore.cli import main

ROOT = Path(__file__).resolve().parents[1]

# (pattern, what it names). Case matters where the word is also an ordinary one: docs/semantics.md
# is ours, SEMANTICS.md is not.
FORBIDDEN = [
    (re.compile(r"\bCONTRACT\b"), "the design contract (CONTRACT.md)"),
    (
        re.compile(r"\b(?:the|user|our)\s+contract\b|\bcontract(?:'s|\s+section)\b", re.IGNORECASE),
        "the design contract",
    ),
    (re.compile(r"\bSEMANTICS\b"), "the design notes SEMANTICS.md"),
    (re.compile(r"ISA-FACTS", re.IGNORECASE), "the design notes ISA-FACTS.md"),
    (re.compile(r"\bMEASURED\.md", re.IGNORECASE), "the design notes MEASURED.md"),
    (
        re.compile(r"\bseeds?(?:/|\s+\d{3}\b|\s+doc)|\(seed\b|\bthe\s+seeds?\b|\d{3}_[0-9a-f]{16}\.txt", re.IGNORECASE),
        "the seed documents",
    ),
    (re.compile(r"(?<![\w.])/work/|\bshared/"), "a path outside the repository"),
]
_RELATIVE = re.compile(r"(?:\.\./)+[\w./-]*")


def _user_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs").glob("*.json"))]
    files += sorted((ROOT / "emulator" / "profiles").glob("*.toml"))
    files += sorted((ROOT / "programs").glob("*.asm"))
    return files


def _help_texts() -> dict[str, str]:
    """``vcore --help`` and the --help of every subcommand, nested groups included."""
    runner = CliRunner()
    texts: dict[str, str] = {}

    def walk(command: click.Command, path: list[str]) -> None:
        result = runner.invoke(main, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)
        texts["vcore " + " ".join([*path, "--help"])] = result.output
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, [*path, name])

    walk(main, [])
    return texts


def _problems(text: str, base: Path | None) -> list[str]:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for pattern, what in FORBIDDEN:
            for m in pattern.finditer(line):
                found.append(f"line {number}: {m.group(0)!r} names {what}: {line.strip()}")
        for m in _RELATIVE.finditer(line):
            target = ((base or ROOT) / m.group(0)).resolve()
            if not target.is_relative_to(ROOT):
                found.append(f"line {number}: {m.group(0)!r} leaves the repository: {line.strip()}")
    return found


@pytest.mark.parametrize("path", _user_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_user_file_is_self_contained(path: Path):
    assert _problems(path.read_text(encoding="utf-8"), path.parent) == []


def test_help_texts_are_self_contained():
    texts = _help_texts()
    assert {"vcore --help", "vcore run --help", "vcore profile show --help"} <= set(texts)
    problems = {name: found for name, text in texts.items() if (found := _problems(text, None))}
    assert problems == {}


@pytest.mark.parametrize(
    "line",
    [
        "values were worked out by hand from `/work/shared/CONTRACT.md`",
        "The one formula (CONTRACT 2.1): in a tensor instruction",
        "The contract (`../shared/CONTRACT.md`), `SEMANTICS.md` and the seed documents",
        "the measured 3.09 of SEMANTICS.md.",
        "The `asc_sub` loop of the 950 register API (seed 001)",
        "see ISA-FACTS.md section 4, MEASURED.md section 6",
        "as in the contract's example",
    ],
)
def test_the_check_catches_design_citations(line: str):
    assert _problems(line, ROOT / "docs")


@pytest.mark.parametrize(
    "line",
    [
        "`semantics.md` records the choices vcore made",
        "see [the README](../README.md)",
        "--report-file /tmp/before.json",
        "the CANN Ascend C API reference, asc_sub",
    ],
)
def test_the_check_lets_ordinary_text_pass(line: str):
    assert _problems(line, ROOT / "docs") == []
