"""Every example program gives the same data and the same cycles as when this snapshot was recorded.

This is a regression guard for rebuilding the emulator core, not a proof of correctness: the values
in ``behaviour_snapshot.json`` were recorded from vcore itself (at commit 652b31f, before the core
was rebuilt), and the correctness tests elsewhere check them against the reference and the documents.
A change that alters a program's cycles on purpose (a recalibrated profile) records it again with

    VCORE_WRITE_SNAPSHOT=1 .venv/bin/python -m pytest tests/emulator/test_behaviour_snapshot.py

and says why in its commit.

What a program does (its data, registers, fault, races, how often each instruction ran) and what it
costs (cycles, busy cycles, stalls) are compared apart, so that a change of the cost model alone
shows as a timing difference. A timing value recorded as null has not been recorded yet (the
register programs, when they moved into vector functions): its test fails until it is.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from vcore.assembler import assemble
from vcore.emulator import Fault, Machine, ProgramError

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = Path(__file__).with_name("behaviour_snapshot.json")
PROGRAMS = sorted((ROOT / "programs").glob("*.asm"))


def _digest(array) -> str:
    return hashlib.sha256(array.tobytes()).hexdigest()[:16]


def behaviour(path: Path, profile: str) -> dict | None:
    """What a run of ``path`` on ``profile`` gives: cycles per instruction and pipe, stalls, races,
    the fault, and digests of UB, GM and the registers; None when the profile cannot load it."""
    try:
        machine = Machine(assemble(path.read_text(), path.name), profile)
    except (Fault, ProgramError):
        return None
    result = machine.run()
    report = machine.report().to_json()
    return json.loads(json.dumps({  # as JSON keeps it: lists, not tuples
        "total_cycles": report["total_cycles"],
        "pipes": {p: [e["busy_cycles"], e["instructions"]] for p, e in report["pipes"].items()},
        "stalls": report["stalls"],
        "per_pc": [[e["pc"], e["count"], e["cycles"], e["iterations"], e["bank_conflict_cycles"],
                    sorted(e["stalls"].items())] for e in report["per_pc"]],
        "races": sorted([r["kind"], r["first"]["pc"], r["second"]["pc"], r["space"], r["start"], r["end"],
                         r["latent"]] for r in report["races"]),
        "fault": None if result.fault is None else str(result.fault),
        "ub": _digest(machine.ub), "gm": _digest(machine.gm), "v": _digest(machine.v), "p": _digest(machine.p),
        "s": list(machine.s),
    }))


def _record() -> dict:
    return {f"{path.name}:{profile}": behaviour(path, profile) for path in PROGRAMS for profile in ("950", "a2")}


_PER_PC_DATA, _PER_PC_TIMING = (0, 1, 3), (2, 4, 5)   # pc, count, iterations / cycles, bank conflicts, stalls


def split(b: dict | None) -> tuple:
    """A behaviour as (what the program does, what it costs)."""
    if b is None:
        return None, None
    data = {k: v for k, v in b.items() if k not in ("total_cycles", "pipes", "stalls", "per_pc")}
    data["instructions"] = {p: n for p, (_busy, n) in b["pipes"].items()}
    data["per_pc"] = [[e[i] for i in _PER_PC_DATA] for e in b["per_pc"]]
    timing = {"total_cycles": b["total_cycles"], "stalls": b["stalls"],
              "busy": {p: busy for p, (busy, _n) in b["pipes"].items()},
              "per_pc": [[e[i] for i in _PER_PC_TIMING] for e in b["per_pc"]]}
    return data, timing


if os.environ.get("VCORE_WRITE_SNAPSHOT"):
    SNAPSHOT.write_text(json.dumps(_record(), indent=1, sort_keys=True) + "\n")

RECORDED = json.loads(SNAPSHOT.read_text())


def test_the_snapshot_covers_every_program():
    assert sorted(RECORDED) == sorted(f"{p.name}:{profile}" for p in PROGRAMS for profile in ("950", "a2"))


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_program_behaves_as_recorded(key):
    name, profile = key.rsplit(":", 1)
    assert split(behaviour(ROOT / "programs" / name, profile))[0] == split(RECORDED[key])[0]


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_program_times_as_recorded(key):
    name, profile = key.rsplit(":", 1)
    recorded = split(RECORDED[key])[1]
    if recorded is not None and recorded["total_cycles"] is None:
        pytest.fail(f"{key}: its cycles are not recorded yet (a register program, moved into a vector function)")
    assert split(behaviour(ROOT / "programs" / name, profile))[1] == recorded
