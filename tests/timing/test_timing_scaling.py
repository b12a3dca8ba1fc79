""""The simulation's cost grows with instructions, never with cycles or repeat counts" (docs/timing.md):
checked without a clock, by counting the engine's scheduling steps and events."""

from __future__ import annotations

import pytest
from timing_support import run_pinned as run


@pytest.fixture
def schedule_calls(monkeypatch):
    from vcore.emulator.timing import engine as timing

    calls = {"n": 0}
    original = timing.Engine._schedule_head

    def counting(self, pipe):
        calls["n"] += 1
        return original(self, pipe)

    monkeypatch.setattr(timing.Engine, "_schedule_head", counting)
    return calls


def count_for(calls, text, profile):
    calls["n"] = 0
    m, r, rep = run(text, profile)
    assert r.fault is None
    return calls["n"], m, r


@pytest.mark.parametrize(("profile", "template"), [
    ("a2", "VADD.f32 [0x14100], [0x0], [0x2080], repeat={n}\nBARRIER V\nVEXP.f16 [0x14100], [0x0], repeat={n}\nHALT\n"),
    ("950", "VADD.f32 [0x10100], [0x0], [0x0], repeat={n}\nVEXP.f16 [0x20100], [0x0], repeat={n}\nHALT\n"),
])
def test_scheduler_calls_do_not_depend_on_repeat(schedule_calls, profile, template):
    one, m1, r1 = count_for(schedule_calls, template.format(n=1), profile)
    many, m255, r255 = count_for(schedule_calls, template.format(n=255), profile)
    assert r255.total_cycles > 100 * r1.total_cycles  # the runs really are of very different lengths
    assert one > 0
    assert many == one
    assert sum(s.iterations for s in m255.engine.accounting.stats.values()) == 2 * 255
    assert len(m255.engine.accounting.stats) == len(m1.engine.accounting.stats)


def test_scheduler_calls_do_not_depend_on_dma_size(schedule_calls):
    small, _, rs = count_for(schedule_calls, "DMA.GM2UB [0x0], gm[0x0], len=1\nHALT\n", "a2")
    big, _, rb = count_for(schedule_calls, "DMA.GM2UB [0x0], gm[0x0], blocks=64, len=64\nHALT\n", "a2")
    # 32 B: 100 + ceil(0.73) = 101; 64 blocks x 64 x 32 B = 131072 B: 100 + ceil(2999.4) = 3100
    assert (rs.total_cycles, rb.total_cycles) == (101, 3100)
    assert big == small


def test_scheduler_calls_grow_with_instructions(schedule_calls):
    body = "VADD.f32 [0x4100], [0x0], [0x2080], repeat=255\nBARRIER V\n"
    counts = [count_for(schedule_calls, body * k + "HALT\n", "a2")[0] for k in (1, 2, 4)]
    # a fixed number of scheduling steps per instruction: linear in the instruction count
    assert counts[1] - counts[0] == (counts[2] - counts[1]) / 2
    assert counts[0] > 0
