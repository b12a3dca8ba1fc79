"""Hardware loops in closed form (issue 30, outcome 2; docs/timing.md, "How vcore gets there quickly").

The identity tests run every program in ``programs/`` twice, with loops in closed form from 2 passes
on (the default starts at ``FAST_MIN_PASSES``) and pass by pass (``fast_loops=False``, which also
schedules every pass of a tiling loop again): the report (every field but the counts of instructions
run in closed form and replayed), the memory, the registers and the fault must be the same, byte for
byte. The fuzzer of such loops is tests/fuzz/test_fuzz_fast_loops.py.
The rest pins what qualifies, what falls back, and that the work of a loop in closed form does not
grow with its passes.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from timing_support import count_calls

import vcore
from vcore.emulator.functions import fast_loops, schedule, steady
from vcore.emulator.timing.ub_ports import beats, ports_of, take, turned, turns
from vcore.inline import build, read_setup

PROGRAMS = Path(__file__).resolve().parents[2] / "programs"


def _programs() -> list:
    return sorted(PROGRAMS.rglob("*.asm"))


def _outcome(path: Path, fast: bool) -> tuple:
    setup = read_setup(path)
    machine = build(setup)
    result = machine.run(**setup.limits(), fast_loops=fast)
    report = machine.report().to_json()
    closed = report.pop("fast_loop_instructions")
    report.pop("replayed_instructions")  # (tiling loops in steady state: tests/timing/test_tiling_replay.py)
    size = 1 << 18 if setup.profile == "950" else 3 << 16
    memory = machine.read("ub", 0, "u8", size).tobytes()
    return (json.dumps(report, sort_keys=True), memory, str(result.fault), report["scalars"]), closed


@pytest.mark.parametrize("path", _programs(), ids=lambda p: str(p.relative_to(PROGRAMS)))
def test_every_program_runs_the_same_with_loops_in_closed_form(monkeypatch, path):
    monkeypatch.setattr(fast_loops, "FAST_MIN_PASSES", 2)
    slow, none = _outcome(path, False)
    fast, _ = _outcome(path, True)
    assert none == 0
    assert fast == slow


def test_the_examples_exercise_loops_in_closed_form(monkeypatch):
    # (so that the identity test above is not vacuous: these examples' loops qualify)
    monkeypatch.setattr(fast_loops, "FAST_MIN_PASSES", 2)
    for name in ("asc_sub_loop.asm", "kernels/gelu.asm", "select_register_where.asm", "tiling_add.asm"):
        _, closed = _outcome(PROGRAMS / name, True)
        assert closed > 0, name


def loop(body: str, passes: int, before: str = "") -> str:
    return f"""\
    MOV S1, 0x0
    MOV S2, 0x10000
    MOV S3, 0x20000
    MOV S4, 1000
    VF.BEGIN
    PSET.b16 P0, ALL
{before}    LOOP {passes}
{body}    ENDLOOP
    VF.END
    HALT
"""


STREAM = ("        PUPDATE.b16 P1, S4\n        VLD.f16 V0, [S1], post=128\n        VLD.f16 V1, [S2], post=128\n"
          "        VSUB.f16 V2, V0, V1, P1\n        VST.f16 [S3], V2, P1, post=128\n")


def run(text: str, fast: bool = True, **limits):
    m = vcore.load_text(text)
    m.write("ub", 0, np.arange(1 << 17, dtype=np.uint16).view(np.uint8)[: 1 << 18])
    result = m.run(fast_loops=fast, **limits)
    report = m.report().to_json()
    return result, report, m


def test_a_stream_runs_in_closed_form_with_the_same_report_and_data():
    _, slow, ms = run(loop(STREAM, 256), fast=False)
    _, fast, mf = run(loop(STREAM, 256))
    assert fast.pop("fast_loop_instructions") == 256 * 6  # PUPDATE, VLD, VLD, VSUB, VST, ENDLOOP a pass
    assert slow.pop("fast_loop_instructions") == 0
    assert fast == slow
    assert np.array_equal(ms.ub, mf.ub)
    # PUPDATE's count, closed form: 1000 lanes at 128 a pass are used up in the 8th pass
    expected = np.arange(1 << 17, dtype=np.uint16).view(np.float16)
    out = mf.read("ub", 0x20000, "f16", 256 * 128)
    with np.errstate(all="ignore"):  # (the data's bit patterns hold infinities and NaNs)
        want = (expected[:32768] - expected[0x8000:0x8000 + 32768]).astype(np.float16)
    assert np.array_equal(out[:1000].view(np.uint16), want[:1000].view(np.uint16))
    assert np.array_equal(out[1000:].view(np.uint16), np.arange(1000, 0x8000, dtype=np.uint16))  # lanes off: as loaded


@pytest.mark.parametrize("body, why", [
    ("        VLD.f32 V0, [S1], post=64\n        VADD.f32 V1, V1, V0, P0\n", "an accumulator carries V1"),
    ("        VLD.f32 V0, [S1], post=64\n        MOV S5, 1\n        VST.f32 [S3], V0, P0, post=64\n",
     "the scalar lane inside"),
    ("        VLD.f32 V0, [S1], post=64\n        MEMBAR\n        VST.f32 [S3], V0, P0, post=64\n", "a MEMBAR inside"),
    ("        VLD.f32 V0, [S1], post=64\n        VADDS.f32 V1, V0, S1, P0\n", "a scalar operand the loop steps"),
    ("        VGATHER.f32 V0, [S1], V1, P0\n", "a gather (no kernel over passes)"),
])
def test_a_loop_that_does_not_qualify_runs_pass_by_pass(body, why):
    _, slow, _ = run(loop(body, 64), fast=False)
    _, fast, _ = run(loop(body, 64))
    assert fast.pop("fast_loop_instructions") == 0, why
    slow.pop("fast_loop_instructions")
    assert fast == slow


def test_a_loop_whose_passes_leave_ub_faults_where_the_program_does():
    text = loop("        VLD.f32 V0, [S3], post=4096\n", 100)  # pass 9 reads past 256 KiB
    slow, _, _ = run(text, fast=False)
    fast, report, _ = run(text)
    assert fast.fault is not None and str(fast.fault) == str(slow.fault)
    assert "iteration 9 of 100" in str(fast.fault)
    assert report["fast_loop_instructions"] == 0


def test_a_loop_past_the_instruction_limit_runs_pass_by_pass_to_it():
    slow, _, _ = run(loop(STREAM, 256), fast=False, max_instructions=1000)
    fast, report, _ = run(loop(STREAM, 256), max_instructions=1000)
    assert fast.fault.kind == "limit" and str(fast.fault) == str(slow.fault)
    assert report["fast_loop_instructions"] == 0


def test_stores_that_meet_move_their_data_pass_by_pass_with_the_same_races():
    # every pass stores where the next loads: RAW, WAR and WAW, as pass by pass (the timing is closed form)
    body = "        VLD.f32 V0, [0x1000]\n        VADDS.f32 V1, V0, 1.0, P0\n        VST.f32 [0x1000], V1, P0\n"
    _, slow, ms = run(loop(body, 300), fast=False)
    _, fast, mf = run(loop(body, 300))
    assert fast.pop("fast_loop_instructions") == 300 * 4
    slow.pop("fast_loop_instructions")
    assert fast == slow and fast["races"]
    assert np.array_equal(ms.ub, mf.ub)


def test_the_work_of_a_loop_in_closed_form_does_not_grow_with_its_passes():
    # 32 passes against 512 (the store walks 128 KiB): the schedule repeats within a few passes and
    # the data is one numpy operation an instruction, so 16 times the passes cost less than twice the work
    body = STREAM.replace("[S1], post=128", "[S1], post=0").replace("[S2], post=128", "[S2], post=0")
    _, small = count_calls(lambda: run(loop(body, 32)))
    _, large = count_calls(lambda: run(loop(body, 512)))
    assert large <= 2 * small, (small, large)


def test_the_report_says_how_many_instructions_ran_in_closed_form():
    _, report, m = run(loop(STREAM, 256))
    assert report["fast_loop_instructions"] == 1536
    assert "1536 of them in hardware loops run in closed form" in m.report().to_text()
    _, report, m = run(loop(STREAM, 256), fast=False)
    assert report["fast_loop_instructions"] == 0
    assert "closed form" not in m.report().to_text()


def test_progress_counts_the_instructions_of_loops_in_closed_form():
    import io

    from vcore.progress import Progress

    stream = io.StringIO()
    _, _, m = run(loop(STREAM, 256))
    Progress(stream, delay=0, every=0)(m)
    assert f"{m.executed:,} instructions retired (1,536 in loops run in closed form), cycle" in stream.getvalue()


def test_a_loop_without_ub_accesses_in_a_launch_whose_accesses_meet(monkeypatch):
    # (found by the fuzzer: the order check's bulk notes had no access to note)
    monkeypatch.setattr(fast_loops, "FAST_MIN_PASSES", 2)
    body = "        VDUP.f16 V0, S5, P0\n        VADD.f16 V0, V0, V0, P0\n"
    after = "    VLD.f16 V1, [S1]\n    VST.f16 [S1], V1, P0\n"  # the launch's accesses meet: the order check runs
    text = loop(body, 3).replace("    VF.END", after + "    VF.END")
    _, slow, ms = run(text, fast=False)
    _, fast, mf = run(text)
    assert fast.pop("fast_loop_instructions") == 3 * 3
    slow.pop("fast_loop_instructions")
    assert fast == slow
    assert np.array_equal(ms.ub, mf.ub)


def test_the_950s_banks_turn_with_the_rows():
    # A row's bank is its number modulo 16 and its group modulo 8: every access moved on by d rows takes
    # the banks and groups d on, so a cycle's use (bank bits; per group 4-bit counts of accesses and
    # reads; write bits per group) turns with it. By hand: a read of bank 15 (group 7) moved on 1 row
    # reads bank 0 (group 0); a write of bank 3 (group 3) moved on 8 rows writes bank 11, still group 3.
    ports = ports_of("950", 2)
    assert turns(ports) and not turns(ports_of("a2", 1))
    assert turned(ports, [1, 1 << 15, 1 << 28, 1 << 28, 0, 0, 0], 1) == (1, 1, 1, 1, 0, 0, 0)
    assert turned(ports, [0, 0, 0, 0, 1 << 3, 1 << 12, 1 << 3], 8) == (0, 0, 0, 0, 1 << 11, 1 << 12, 1 << 3)
    assert turned(ports, [2, 5, 6, 7, 8, 9, 10], 16) == (2, 5, 6, 7, 8, 9, 10)  # a whole period: the same use

    def use(rows: tuple, write: bool) -> dict:  # the cycles an access's beats take (ub_ports.take)
        usage = {0: [0] * 7}
        take(usage, usage[0], 0, beats(ports, rows, write), write)
        return usage

    for rows in ((0, 1, 2, 3, 4, 5, 6, 7), (3, 4, 5, 6, 7, 8, 9, 10), tuple(range(16)), (0, 16, 32), (5, 13)):
        for write in (False, True):
            for d in range(16):
                here, there = use(rows, write), use(tuple(r + d for r in rows), write)
                assert {c: turned(ports, u, d) for c, u in here.items()} == {c: tuple(u) for c, u in there.items()}


def _passes_fed(monkeypatch) -> list:
    fed = [0]
    pass_jobs = fast_loops.FastLoop.pass_jobs

    def counted(self, t):
        fed[0] += 1
        return pass_jobs(self, t)

    monkeypatch.setattr(fast_loops.FastLoop, "pass_jobs", counted)
    return fed


@pytest.mark.parametrize("post", [64, 128, 192])  # f16: 4, 8 and 12 rows a pass
def test_a_loop_whose_schedule_repeats_at_another_place_in_the_banks_is_found_there(monkeypatch, post):
    # The operands move on 4, 8 or 12 rows a pass, so a pass's accesses sit at the same places in the
    # banks' period only every 4, 2 or 4 passes; with the banks turning with the rows, a pass's state is
    # compared with every earlier one's turned by the rows between them, and the repeat is found in
    # fewer passes than at the same places only. Either way the report is the pass-by-pass one.
    text = loop(STREAM.replace("post=128", f"post={post}"), 250)
    fed = _passes_fed(monkeypatch)
    _, slow, _ = run(text, fast=False)
    fed[0] = 0
    _, turning, _ = run(text)
    turning_fed = fed[0]
    monkeypatch.setattr(steady, "turns", lambda ports: False)
    fed[0] = 0
    _, same_places, _ = run(text)
    assert turning_fed < fed[0] < 250, (turning_fed, fed[0])
    for report in (turning, same_places, slow):
        report.pop("fast_loop_instructions")
    assert turning == slow and same_places == slow


@pytest.mark.parametrize("every", [1, 2, 3, 7, 11, 13, 50])
def test_forgetting_past_cycles_inside_a_loop_in_closed_form_changes_nothing(monkeypatch, every):
    # A loop in closed form is fed inside the launch's feed, which goes on with the same tables after
    # it: the cycles before the front end's are forgotten in place, whenever that falls (it once made new
    # tables, and the jobs after a loop searched across a prune saw the old ones).
    after = "    VLD.f16 V0, [S1]\n    VLD.f16 V1, [S2]\n    VADD.f16 V2, V0, V1, P0\n    VST.f16 [S3], V2, P0\n"
    text = loop(STREAM, 40).replace("    VF.END", after * 2 + "    VF.END")
    _, want, _ = run(text)
    monkeypatch.setattr(schedule, "_PRUNE_EVERY", every)
    _, report, _ = run(text)
    assert report == want


def test_a_loop_entered_again_from_another_state_goes_on_along_the_path_searched_before(monkeypatch):
    # The outer loop enters the stream three times: from the launch, then twice from the state the
    # stream and a MEMBAR leave (the third is that of the second: its schedule is kept whole). The second
    # search starts elsewhere, but within a few passes its state is one the first search passed through
    # (compared turned back, shifted): from there every pass goes as it went then, so it stops there.
    text = STREAM.replace("        ", "            ")
    text = f"""\
    VF.BEGIN
    LOOP 3
        MEMBAR
        MOV S1, 0x0
        MOV S2, 0x10000
        MOV S3, 0x20000
        MOV S4, 32000
        LOOP 250
{text}        ENDLOOP
    ENDLOOP
    VF.END
    HALT
"""
    fed: dict = {}
    pass_jobs = fast_loops.FastLoop.pass_jobs

    def counted(self, t):
        fed[id(self)] = fed.get(id(self), 0) + 1
        return pass_jobs(self, t)

    monkeypatch.setattr(fast_loops.FastLoop, "pass_jobs", counted)
    _, fast, _ = run(text)
    first, second = fed.values()  # (the third loop: none)
    assert second < first < 250, (first, second)
    _, slow, _ = run(text, fast=False)
    fast.pop("fast_loop_instructions")
    slow.pop("fast_loop_instructions")
    assert fast == slow
