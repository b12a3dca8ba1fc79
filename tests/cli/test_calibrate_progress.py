"""`vcore calibrate` and `make calibrate` (python -m benchmarks.calibration) print each row of the
table as soon as its entry has run, flushed, in the file's order, one per entry; on a terminal,
stderr's progress line names the entry being run ("entry k of n: NAME") and is erased before its row
is printed; in a pipe or a file there is no progress line at all."""

from __future__ import annotations

import os

import pytest
from cli_support import COUNTED, VCORE, on_a_terminal, program, vcore

import benchmarks.calibration.__main__ as make_calibrate
from vcore import calibrate
from vcore.cli import main

# COUNTED with N passes takes 2N + 2 cycles (cli_support): 4, 10, and 18 - 10 = 8 for the difference.
ENTRIES = """\
[[measurement]]
name = "first"
program = "c.asm"
defines = { N = 1 }
measured = 5
[[measurement]]
name = "second"
program = "c.asm"
defines = { N = 4 }
measured = 10
[[measurement]]
name = "third"
program = "c.asm"
defines = { N = 8 }
minus = { N = 4 }
quantity = "difference"
measured = 8
held_out = true
"""
NAMES = ["first", "second", "third (held out)"]
MODELS = ["4", "10", "8"]
ERE = "\x1b[K"  # erase to the end of the line


def measurements(tmp_path, name: str = "m.toml"):
    program(tmp_path, COUNTED, "c.asm")
    path = tmp_path / name
    path.write_text(ENTRIES)
    return path


def check_table(lines: list[str]) -> None:
    """The table's head, then one row per entry in the file's order (its name, its model), then the summary."""
    assert lines[0].split() == ["measurement", "quantity", "measured", "model", "error"], lines
    rows = lines[1:4]
    assert [r.split("  ")[0] for r in rows] == NAMES, lines
    assert [r.split()[-2] for r in rows] == MODELS, lines
    assert lines[4].startswith("mean |error| 10.0%, worst 20.0%"), lines   # -20% and 0%
    assert len(lines) == 5, lines


class Stream:
    """A stdout or stderr that keeps apart what was flushed (``flushed``, in ``log`` with the other
    stream's) from what was only written; ``tty``: it says it is a terminal."""

    encoding, errors = "utf-8", "strict"

    def __init__(self, name: str, log: list, tty: bool = False) -> None:
        self.name, self.log, self.tty = name, log, tty
        self.pending, self.flushed = [], []

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # (how click tells a text stream from a binary one)
            raise TypeError("a text stream")
        self.pending.append(text)
        return len(text)

    def flush(self) -> None:
        text = "".join(self.pending)
        if text:
            self.flushed.append(text)
            self.log.append((self.name, text))
        self.pending = []

    def isatty(self) -> bool:
        return self.tty

    def text(self) -> str:
        return "".join(self.flushed)


class Streams:
    """stdout and stderr of a command run in this process, and for each entry run, what stdout had
    flushed before it (``seen``); ``log``: the flushes of both and the runs, in order."""

    def __init__(self, monkeypatch) -> None:
        self.monkeypatch = monkeypatch
        self.log: list = []
        self.seen: list = []

    def install(self, tty: bool = False) -> tuple[Stream, Stream]:
        """Put them in place (in the test's body: pytest's capture puts its own back after a fixture's
        setup); ``tty``: stderr says it is a terminal."""
        out, err = Stream("out", self.log), Stream("err", self.log, tty)
        self.monkeypatch.setattr("sys.stdout", out)
        self.monkeypatch.setattr("sys.stderr", err)
        value = calibrate.Evaluator.value

        def recording(evaluator, m, profile):
            self.seen.append(out.text())
            self.log.append(("run", m.name))
            return value(evaluator, m, profile)

        self.monkeypatch.setattr(calibrate.Evaluator, "value", recording)
        return out, err


@pytest.fixture
def streams(monkeypatch):
    return Streams(monkeypatch)


def test_rows_in_order_one_per_entry_and_no_progress_in_a_pipe(tmp_path):
    path = measurements(tmp_path)
    r = vcore("calibrate", path, "--profile", "a2", ok=True)
    assert r.stderr == ""
    lines = r.stdout.splitlines()
    assert lines[0] == f"profile a2, 3 measurement(s) from {path}"
    check_table(lines[1:])
    assert "\r" not in r.stdout and "\x1b" not in r.stdout and "entry" not in r.stdout


def test_vcore_calibrate_flushes_each_row_before_the_next_entry_runs(tmp_path, streams):
    path = measurements(tmp_path)
    out, err = streams.install()
    main(["calibrate", str(path), "--profile", "a2"], standalone_mode=False)
    lines = out.text().splitlines()
    check_table(lines[1:])
    assert out.pending == [] and err.text() == ""     # not a terminal: no progress
    # when entry k runs, the profile line, the head and rows 1 .. k-1 are out, flushed
    assert streams.seen == ["\n".join(lines[:2 + k]) + "\n" for k in range(3)]


def test_make_calibrate_flushes_each_row_before_the_next_entry_runs(tmp_path, streams, monkeypatch):
    measurements(tmp_path, "a2.toml")
    monkeypatch.setattr(make_calibrate, "HERE", tmp_path)
    monkeypatch.setattr(make_calibrate, "PROFILES", ("a2",))
    out, err = streams.install()
    assert make_calibrate.main([]) == 0
    lines = out.text().splitlines()
    assert lines[0] == f"profile a2 ({tmp_path.name}/a2.toml)"
    check_table(lines[1:6])
    assert lines[6:] == [""]
    assert out.pending == [] and err.text() == ""
    assert streams.seen == ["\n".join(lines[:2 + k]) + "\n" for k in range(3)]


def progress_then_row(log: list) -> list:
    """The stderr and stdout texts of the log in order, the entries' runs left out."""
    return [(name, text) for name, text in log if name != "run"]


def test_make_calibrate_names_each_entry_on_a_terminal(tmp_path, streams, monkeypatch):
    measurements(tmp_path, "a2.toml")
    monkeypatch.setattr(make_calibrate, "HERE", tmp_path)
    monkeypatch.setattr(make_calibrate, "PROFILES", ("a2",))
    out, err = streams.install(tty=True)
    log = streams.log
    assert make_calibrate.main([]) == 0
    events = progress_then_row(log)
    rows = out.text().splitlines()[2:5]
    # each entry: its progress line, drawn before it runs, erased before its row
    for k, (name, row) in enumerate(zip(["first", "second", "third"], rows, strict=True), start=1):
        at = events.index(("err", f"\rentry {k} of 3: {name}{ERE}"))
        assert log.index(("err", f"\rentry {k} of 3: {name}{ERE}")) < log.index(("run", name))
        assert events[at + 1:at + 3] == [("err", f"\r{ERE}"), ("out", row + "\n")], events
    assert "entry" not in out.text() and "\r" not in out.text()   # stdout (a file here) stays clean
    assert err.text().endswith(f"\r{ERE}")


def test_a_fit_shows_its_runs_on_a_terminal(tmp_path, streams):
    pytest.importorskip("scipy")
    path = measurements(tmp_path)
    path.write_text('fit = ["dma.gm2ub_setup"]\n' + ENTRIES)
    out, err = streams.install(tty=True)
    main(["calibrate", str(path), "--profile", "a2"], standalone_mode=False)
    lines = out.text().splitlines()
    check_table(lines[1:6])     # the model's rows first, as they run
    assert lines[6].split()[-2:] == ["fitted", "error"]   # then the table with the fitted columns
    assert "\rentry 1 of 3: first" in err.text()
    assert "\rfit, run 2: entry 1 of 2: first" in err.text()       # (the held-out entry is not fitted)
    assert "\rthe fitted profile: entry 3 of 3: third" in err.text()
    assert "entry" not in out.text()


@pytest.mark.skipif(os.name != "posix", reason="pseudo-terminals")
def test_vcore_calibrate_on_a_terminal(tmp_path):
    path = measurements(tmp_path)
    code, seen, _ = on_a_terminal([VCORE, "calibrate", path, "--profile", "a2"], both=True, timeout=60)
    assert code == 0
    text = seen.decode().replace("\r\n", "\n")   # the terminal's line discipline
    at = 0
    for k, name in enumerate(["first", "second", "third"], start=1):
        step = f"\rentry {k} of 3: {name}{ERE}\r{ERE}{name}"
        assert step in text[at:], text
        at = text.index(step, at) + len(step)
    shown = [line.rsplit("\r", 1)[-1].replace(ERE, "") for line in text.split("\n")]  # what the terminal shows
    assert shown[0] == f"profile a2, 3 measurement(s) from {path}" and shown[-1] == ""
    check_table(shown[1:-1])   # each row on its own line


def test_a_missing_program_is_said_before_any_row(tmp_path):
    path = measurements(tmp_path)
    path.write_text(ENTRIES.replace('program = "c.asm"\ndefines = { N = 4 }', 'program = "gone.asm"'))
    r = vcore("calibrate", path, "--profile", "a2")
    assert r.returncode == 2 and r.stdout == "", r.stdout
    assert r.stderr.startswith("vcore: error: ") and "gone.asm" in r.stderr and len(r.stderr.splitlines()) == 1
