"""Rewrite the command outputs the README and the cookbook show with what vcore prints now (``make docs``
runs it after a change of the cycle model; tests/cli/test_readme_walkthrough.py and
tests/test_cookbook_outputs.py check them).

    python -m vcore.doc_outputs [--write]

The README's ```console blocks run in a scratch folder that sees programs/, as their test runs them;
the cookbook's ``$ .venv/bin/vcore ...`` lines run in-process from the repository's root. A shown
output with a ``...`` line keeps its shape: as many lines before and after the ``...`` as it had.
Prose that quotes a figure is not touched: the command lists each block it changed, to read again.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from difflib import SequenceMatcher
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
COOKBOOK = ROOT / "docs" / "cookbook.md"


def _keep_shape(shown: list[str], actual: list[str]) -> list[str]:
    """``actual`` cut to the shape of ``shown``: each run of shown lines between ``...`` lines is
    replaced by the run of actual lines most like it (after the one before it), the ``...`` kept."""
    if "..." not in shown:
        return actual
    runs, run = [], []
    for line in [*shown, "..."]:
        if line == "...":
            runs.append(run)
            run = []
        else:
            run.append(line)
    out, cursor = [], 0
    for k, run in enumerate(runs):
        if k:
            out.append("...")
        if not run:
            continue
        last = len(actual) - len(run)
        if k == 0:
            places = [0]
        elif k == len(runs) - 1:
            places = [last]
        else:
            places = range(cursor, last + 1)
        best = max(places, key=lambda p: sum(SequenceMatcher(None, a, b).ratio()
                                             for a, b in zip(run, actual[p:p + len(run)], strict=False)))
        out.extend(actual[best:best + len(run)])
        cursor = best + len(run)
    return out


def run_readme_command(command: str, cwd, timeout: int = 120) -> subprocess.CompletedProcess:
    """A README ```console command, run by bash in ``cwd`` with the virtualenv's bin first on PATH, as a
    reader who followed the README's setup runs it."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


def run_cookbook_command(shell_line: str, scratch) -> tuple[int, list[str]]:
    """A cookbook command (what follows ``$ .venv/bin/vcore ``, perhaps ending ``| grep -E PATTERN``),
    run in-process from the current folder with its /tmp/ paths moved into ``scratch``: its exit
    status and the lines a terminal shows (stdout, then stderr; only those the grep keeps)."""
    from click.testing import CliRunner  # noqa: PLC0415  (only when running the cookbook)

    from vcore.cli import main  # noqa: PLC0415

    command, _, grep = shell_line.partition(" | grep -E ")
    args = [a.replace("/tmp/", f"{scratch}/") for a in shlex.split(command)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    actual = (result.stdout + result.stderr).rstrip("\n").splitlines()
    if grep:
        actual = [a for a in actual if re.search(shlex.split(grep)[0], a)]
    return result.exit_code, actual


def readme(text: str, changed: list[str]) -> str:
    """The README with each ```console block's outputs as its commands print them now."""

    def block(match: re.Match) -> str:
        out, command, shown = [], None, []
        tmp = tempfile.mkdtemp()  # a block's commands share their folder, as a reader's terminal would
        (Path(tmp) / "programs").symlink_to(ROOT / "programs")

        def flush() -> None:
            if command is None:
                return
            r = run_readme_command(command, tmp)
            actual = _keep_shape(shown, r.stdout.rstrip("\n").splitlines())
            if actual != shown:
                changed.append(f"README.md: $ {command}")
            out.extend([f"$ {command}", *actual])

        for line in match.group(1).splitlines():
            if line.startswith("$ "):
                flush()
                command, shown = line[2:], []
            else:
                shown.append(line)
        flush()
        shutil.rmtree(tmp)
        return "```console\n" + "\n".join(out) + "\n```"

    return re.sub(r"```console\n(.*?)```", block, text, flags=re.DOTALL)


def cookbook(text: str, changed: list[str]) -> str:
    """The cookbook with the output under each ``$ .venv/bin/vcore`` line as the command prints it now."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    with tempfile.TemporaryDirectory() as tmp:
        cwd = os.getcwd()
        os.chdir(ROOT)
        try:
            while i < len(lines):
                line = lines[i]
                out.append(line)
                i += 1
                if not line.startswith("    $ .venv/bin/vcore "):
                    continue
                shown_end = i
                while shown_end < len(lines) and not lines[shown_end].startswith("    $ ") and (
                        not lines[shown_end] or lines[shown_end].startswith("    ")):
                    shown_end += 1
                block = lines[i:shown_end]
                trailing = 0
                while trailing < len(block) and not block[len(block) - 1 - trailing]:
                    trailing += 1
                shown = [s[4:] for s in block[:len(block) - trailing]]
                command = line[len("    $ .venv/bin/vcore "):]
                _, actual = run_cookbook_command(command, tmp)
                if not shown:  # a command that writes a file: it runs, and shows nothing
                    continue
                actual = _keep_shape(shown, actual)
                if actual != shown:
                    changed.append(f"docs/cookbook.md line {i}: $ vcore {command}")
                out.extend(f"    {a}" if a else "" for a in actual)
                out.extend([""] * trailing)
                i = shown_end
        finally:
            os.chdir(cwd)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def main(argv: list[str]) -> int:
    changed: list[str] = []
    new_readme = readme(README.read_text(), changed)
    new_cookbook = cookbook(COOKBOOK.read_text(), changed)
    if "--write" in argv:
        README.write_text(new_readme)
        COOKBOOK.write_text(new_cookbook)
    for what in changed:
        print(f"{'rewrote' if '--write' in argv else 'stale'}: {what}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
