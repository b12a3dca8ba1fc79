"""One job protocol: a job's ``perform()`` reads its sources and returns its writes, and changes
nothing itself; the engine alone decides when they land.

Checked on every example program, run with data timed (where a perform runs at the job's simulated
start and its landing at the end): around every perform, UB, the registers and the GM blocks the
job touches are byte for byte what they were. A perform that wrote straight into the state (as
the old tensor passes and register ``apply`` did, with a snapshot-and-restore around them) fails.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from vcore.assembler import assemble
from vcore.emulator import Fault, Machine, ProgramError
from vcore.emulator.jobs import Job, as_writes
from vcore.emulator.timing.data_movement import DataMovement

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = sorted((ROOT / "programs").glob("*.asm"))


def _gm_spans(job: Job) -> list[tuple[int, int]]:
    spans = []
    for found in (job.footprint_reads or {}, job.footprint_writes or {}):
        entry = found.get("gm")
        if entry is not None:
            spans.append((entry[1] * 32, entry[2] * 32))
    return spans


def _checked(machine: Machine, job: Job, perform):
    def pure():
        gm = [(lo, machine.gm[lo:hi].copy()) for lo, hi in _gm_spans(job)]
        before = machine.ub.copy(), machine.v.copy(), machine.p.copy()
        written = perform()
        after = machine.ub, machine.v, machine.p
        for name, old, new in zip(("UB", "V", "P"), before, after, strict=True):
            assert np.array_equal(old, new), f"pc 0x{job.pc:x}: perform() wrote {name} itself"
        for lo, old in gm:
            assert np.array_equal(machine.gm[lo:lo + old.size], old), f"pc 0x{job.pc:x}: perform() wrote GM"
        assert isinstance(written, tuple | list), f"pc 0x{job.pc:x}: perform() returned {written!r}"
        for write in as_writes(written):
            assert isinstance(write, tuple) and len(write) in (3, 4), f"pc 0x{job.pc:x}: a write {write!r}"
            assert isinstance(write[0], np.ndarray), f"pc 0x{job.pc:x}: a write into {type(write[0])}"
        return written

    return pure


class Watch:
    """The machine whose jobs are watched (set by the test), and the pcs of the jobs performed."""

    machine: Machine | None = None

    def __init__(self) -> None:
        self.performed: list[int] = []


@pytest.fixture
def watched(monkeypatch):
    """Engines whose every job's perform is checked for purity (timed runs call it at the start)."""
    watch = Watch()

    def start(self, job, original=DataMovement.start):
        if job.perform is not None:
            job.perform = _checked(watch.machine, job, job.perform)
            watch.performed.append(job.pc)
        return original(self, job)

    monkeypatch.setattr(DataMovement, "start", start)
    return watch


@pytest.mark.parametrize("profile", ["950", "a2"])
@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name)
def test_perform_changes_nothing_and_returns_its_writes(path, profile, watched):
    try:
        machine = Machine(assemble(path.read_text(), path.name), profile)
    except (Fault, ProgramError):
        pytest.skip(f"{path.name} does not load on {profile}")
    machine.timed_data = True
    watched.machine = machine
    result = machine.run()
    assert machine.ran_timed
    assert result.fault is None or result.fault.kind != "internal"
    moved = [pc for pc in machine.counts() if machine.instruction_at(pc).row.pipe in ("V", "MTE2", "MTE3")]
    assert bool(watched.performed) == bool(moved), "a data instruction ran, and no job was performed: nothing checked"


def test_the_old_protocols_are_gone():
    """No ``lands`` flag, no ``apply`` beside ``perform``, and no semantics module asks which way
    the run moves data (``ran_timed``): that is the engine's decision alone."""
    job = Job(0, None)
    assert not hasattr(job, "lands") and not hasattr(job, "apply")
    for path in sorted((ROOT / "emulator").rglob("*.py")):
        module = path.relative_to(ROOT / "emulator").with_suffix("").as_posix()
        if module == "machine":  # the machine sets it as a run starts
            continue
        tree = ast.parse(path.read_text())
        asked = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "ran_timed"]
        assert not asked, f"emulator/{module}.py reads ran_timed at lines {asked}"
