"""A long vector function runs in bounded memory, and the same whether it is laid out at once or a
chunk at a time (issue 28, item 7).

A launch of more than ``functions.CHUNK`` items is expanded, scheduled, performed and checked for
races a chunk at a time, keeping only what a later instruction can still meet. Growth is tested by
doubling: the same program at N and 4N passes, peak memory (tracemalloc, which numpy reports to)
within 10%, and Python calls (deterministic, unlike wall time) at most 4.6 times. ``CHUNK`` is made
small here so that a few thousand passes are many chunks; the identity tests compare every report
field, the races and the data with a launch laid out at once.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from timing_support import count_calls, peak_memory

import vcore
from vcore.emulator.functions import launch as functions
from vcore.emulator.functions import schedule

PROGRAMS = Path(__file__).resolve().parents[2] / "programs"

BODIES = {
    # the issue's program: nothing but a mask set, pass after pass
    "pset": "        PSET.b32 P0, ALL\n",
    # a stream: load, add, store, 256 passes over 64 KiB, then again (a MEMBAR orders the rounds)
    "stream": "        VLD.f32 V0, [S1], post=64\n        VADDS.f32 V1, V0, 1.0, P0\n"
              "        VST.f32 [S2], V1, P0, post=64\n",
    # one address every pass, racing: each store with the next (WAW), the next load (RAW) and the
    # loads of earlier passes (WAR: the store depends on its own pass's load only)
    "same address": "        VLD.f32 V0, [0x1000]\n        VADDS.f32 V1, V0, 1.0, P0\n"
                    "        VST.f32 [0x1000], V1, P0\n",
}


def program(body: str, rounds: int) -> str:
    return f"""\
VF.BEGIN
    PSET.b32 P0, ALL
    LOOP {rounds}
        MEMBAR
        MOV S1, 0x0
        MOV S2, 0x10000
        LOOP 64
{BODIES[body]}        ENDLOOP
    ENDLOOP
VF.END
    HALT
"""


def run(text: str, measure: str | None = None):
    m = vcore.load_text(text)
    m.write("ub", 0, np.arange(0x10000, dtype=np.uint8))
    if measure == "memory":
        return m, *peak_memory(m.run)
    if measure == "calls":
        return m, *count_calls(m.run)
    return m, m.run(), None


@pytest.mark.parametrize("body", sorted(BODIES))
def test_a_long_function_keeps_its_memory_and_time_linear(monkeypatch, body):
    monkeypatch.setattr(functions, "CHUNK", 256)
    # The schedule's tables are pruned every 256 jobs fed (not 2048): with loops in closed form, few
    # passes are fed one by one, and the small size must already fill what is bounded.
    monkeypatch.setattr(schedule, "_PRUNE_EVERY", 256)
    run(program(body, 2))  # warm the caches (plans, beats, lane masks) and lazy imports
    _, small, small_peak = run(program(body, 8), "memory")
    _, large, large_peak = run(program(body, 32), "memory")
    assert small.fault is None and large.fault is None
    assert large_peak <= 1.10 * small_peak + 64 * 1024, (small_peak, large_peak)
    _, _, small_calls = run(program(body, 8), "calls")
    _, _, large_calls = run(program(body, 32), "calls")
    assert large_calls <= 4.6 * small_calls, (small_calls, large_calls)


def test_the_issues_loop_at_a_long_count_keeps_its_memory(monkeypatch):
    # VF.BEGIN / LOOP n / PSET / ENDLOOP / VF.END, as the issue wrote it: 20k and 80k passes.
    def peak(n: int) -> int:
        m = vcore.load_text(f"VF.BEGIN\nLOOP {n}\nPSET.b32 P0, ALL\nENDLOOP\nVF.END\nHALT\n")
        tracemalloc.start()
        r = m.run()
        found = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert r.fault is None and r.instructions == 2 * n + 4  # PSET and ENDLOOP a pass
        return found

    peak(1000)
    assert peak(80_000) <= 1.10 * peak(20_000) + 64 * 1024


def _outcome(m, r) -> tuple:
    report = m.report().to_json()
    return (report, m.read("ub", 0, "u8", m.ub.size).tobytes(), str(r.fault))


@pytest.mark.parametrize("body", sorted(BODIES))
def test_a_launch_in_chunks_gives_the_same_report_and_data(monkeypatch, body):
    text = program(body, 6)
    whole = _outcome(*run(text)[:2])
    monkeypatch.setattr(functions, "CHUNK", 64)
    chunked = _outcome(*run(text)[:2])
    assert chunked == whole
    if body == "same address":
        assert {race["kind"] for race in whole[0]["races"]} == {"RAW", "WAR", "WAW"}


def _function_programs() -> list:
    return sorted(p for p in PROGRAMS.rglob("*.asm") if "VF.BEGIN" in p.read_text())


@pytest.mark.parametrize("path", _function_programs(), ids=lambda p: str(p.relative_to(PROGRAMS)))
def test_every_example_with_a_function_runs_the_same_in_chunks(monkeypatch, path):
    from vcore.inline import build, read_setup

    def outcome() -> tuple:
        setup = read_setup(path)
        machine = build(setup)
        result = machine.run(**setup.limits())
        report = machine.report().to_json()
        ub = machine.read("ub", 0, "u8", 1 << 18 if setup.profile == "950" else 3 << 16)
        return report, ub.tobytes(), str(result.fault)

    whole = outcome()
    monkeypatch.setattr(functions, "CHUNK", 16)
    assert outcome() == whole
