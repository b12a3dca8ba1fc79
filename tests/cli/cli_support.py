"""How the CLI tests run the installed ``vcore`` command, in one place."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

VCORE = str(Path(sys.executable).with_name("vcore"))

# A run that never ends on its own: what the Ctrl-C and SIGTERM tests stop.
FOREVER = """\
    MOV S1, 0
loop:
    ADD S1, S1, 1
    VADDS.f32 [0x1000], [0x0], 1.0
    JMP loop
"""

# N passes of ADD and BLT (1 cycle each on S in both profiles) after MOV, then HALT: 2N + 2 cycles.
COUNTED = """\
.equ N, 1
    MOV S1, 0
loop:
    ADD S1, S1, 1
    BLT S1, N, loop
    HALT
"""


def vcore(*args, cwd=None, stdin: str | None = None, ok: bool = False) -> subprocess.CompletedProcess:
    """``vcore ARGS`` as a user runs it, with ``stdin`` as its input (none by default). Whatever its
    exit status, no Python traceback may reach the user; ``ok``: the status must be 0 too."""
    r = subprocess.run([VCORE, *map(str, args)], capture_output=True, text=True, timeout=60, cwd=cwd,
                       input=stdin if stdin is not None else "")
    assert "Traceback" not in r.stdout + r.stderr, r.stderr
    if ok:
        assert r.returncode == 0, r.stderr
    check_reports([str(a) for a in args], r, cwd)
    return r


def check_reports(args: list[str], r: subprocess.CompletedProcess, cwd=None) -> None:
    """The JSON reports a ``vcore run`` wrote (``--report-file``, ``--report json`` on stdout) match the
    published schema, as every report the tests make does (tests/conftest.py checks those made in the
    test's own process)."""
    from vcore.report_schema import validate

    if not args or args[0] != "run" or r.returncode not in (0, 1):
        return
    for option, value in itertools.pairwise(args):
        if option == "--report-file" and (path := Path(cwd or ".") / value).is_file():
            validate(json.loads(path.read_text()))
        elif option == "--report" and value == "json" and r.stdout.lstrip().startswith("{"):
            validate(json.loads(r.stdout))


def program(tmp_path: Path, text: str, name: str = "p.asm") -> Path:
    """A program file in the test's folder."""
    path = tmp_path / name
    path.write_text(text)
    return path


def vcore_here(*args) -> subprocess.CompletedProcess:
    """``vcore ARGS`` run in this process (click's runner): the same command, exit status, stdout and
    stderr as ``vcore``, without starting Python again (about half a second a call), for tests that
    run the command many times. ``vcore`` itself stays the way to test the installed command."""
    from click.testing import CliRunner

    from vcore.cli import main

    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    out = subprocess.CompletedProcess([VCORE, *map(str, args)], result.exit_code, result.stdout, result.stderr)
    assert "Traceback" not in out.stdout + out.stderr, out.stderr
    return out


def wait_for_cpu(pid: int, seconds: float = 1.5, timeout: float = 60) -> None:
    """Wait until process ``pid`` has used ``seconds`` of CPU time: past vcore's start-up (about 0.4 s of
    CPU) and well into its run however loaded the machine is, where a wait of wall time is not."""
    import os
    import time

    tick = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # no /proc, or the process has ended: nothing to wait for
            return
        if (int(fields[11]) + int(fields[12])) / tick >= seconds:  # utime + stime
            return
        time.sleep(0.05)


def on_a_terminal(args: list, *, both: bool = False, timeout: float = 120, cwd=None) -> tuple[int, bytes, str]:
    """Run ``args`` with stderr (``both``: stdout too) on a pseudo-terminal, as a user at a terminal
    runs it: its exit status, the bytes the terminal received, and its stdout when that is a pipe."""
    import os
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen([str(a) for a in args], stdout=slave if both else subprocess.PIPE, stderr=slave,
                            cwd=cwd)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        seen += chunk
    out = proc.communicate(timeout=timeout)[0]
    os.close(master)
    return proc.returncode, seen, (out or b"").decode()


def pytest_run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """pytest in ``cwd`` as a user runs it, with the plugin as installed (found by its entry point)."""
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", *args],
                          capture_output=True, text=True, timeout=300, cwd=cwd)


def plugin_run(folder: Path, *args: str) -> subprocess.CompletedProcess:
    """pytest over the programs in ``folder`` (their folder as ``--vcore-programs``), with ``-rA``: every
    test's outcome in the summary (``outcomes``) and every failure's section (``failure_bodies``)."""
    return pytest_run(folder, "-rA", "--vcore-programs", str(folder), str(folder), "-o", "vcore_programs=", *args)


def outcomes(out: str, whole_ids: bool = False) -> dict[str, str]:
    """PASSED, FAILED or ERROR of each test in a ``-rA`` summary, by its program (the ID before ``::``),
    or with ``whole_ids`` by its whole ID (``x.asm::profile-a2``)."""
    return {(line.split()[1] if whole_ids else line.split()[1].partition("::")[0]): line.split()[0]
            for line in out.splitlines() if line.startswith(("PASSED ", "FAILED ", "ERROR "))}


def failure_bodies(out: str) -> dict[str, str]:
    """The text of each program's failure section (``___ program ID ___`` up to the next rule), by ID."""
    bodies: dict = {}
    name = None
    for line in out.splitlines():
        if m := re.fullmatch(r"_{3,} program (\S+) _{3,}", line):
            name = m.group(1)
            bodies[name] = []
        elif re.fullmatch(r"[=_]{3,}.*", line):
            name = None
        elif name is not None:
            bodies[name].append(line)
    return {name: "\n".join(lines).strip() for name, lines in bodies.items()}
