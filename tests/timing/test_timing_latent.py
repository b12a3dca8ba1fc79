"""Races by order (docs/timing.md, "Races by order"), worked out by hand: which pairs of accesses the
hardware orders (a pipe's own order where the profile gives it, SETFLAG and the WAITFLAG that takes
it, BARRIER, the scalar unit's dispatch order), and that every other conflicting pair is a race,
``latent`` when this run's timing kept the two apart.

Times on the pinned profiles (timing_support.PINNED): a DMA of 256 bytes lands 100 + ceil(256 / 47.7)
= 106 cycles after it starts (950), and holds MTE2 until then; a vector function's launch is 8
cycles, a hardware loop's start 2, a scalar instruction inside it 1 (scalar.alu).
"""

from __future__ import annotations

import json

import pytest
from timing_support import run_pinned, vcore


def races(text: str, profile: str = "950") -> list[tuple]:
    m, r, rep = run_pinned(text, profile)
    assert r.fault is None, r.fault
    return sorted((e["kind"], e["first"]["line"], e["second"]["line"], e["latent"]) for e in rep["races"])


# A function that keeps V busy for 8 + 2 + 300 = 310 cycles: longer than the 106 of the copy before it.
SLOW = """\
    VF.BEGIN
    LOOP 300
        ADD S9, S9, 1
    ENDLOOP
    VF.END
"""


def test_a_missing_flag_is_named_though_the_timing_hides_it():
    # line 1 DMA: MTE2 0..106. Lines 2-6: V busy 1..311 (dispatched at cycle 1). Line 7's VADD starts
    # at 311, long after the copy landed: no overlap, yet nothing orders the copy before it.
    text = "    DMA.GM2UB [0x0], gm[0x0], len=8\n" + SLOW + "    VADD.f32 [0x4100], [0x0], [0x0]\n    HALT\n"
    assert races(text) == [("RAW", 1, 7, True)]


def test_the_same_race_met_in_time_is_not_latent():
    # Without the function, the VADD starts at cycle 1 while the copy is in flight until 106.
    assert races("    DMA.GM2UB [0x0], gm[0x0], len=8\n    VADD.f32 [0x4100], [0x0], [0x0]\n    HALT\n") == \
        [("RAW", 1, 2, False)]


@pytest.mark.parametrize("order", [
    "    SETFLAG MTE2, V, 3\n    WAITFLAG MTE2, V, 3\n",             # the flag that orders them
    "    BARRIER ALL\n",                                              # everything before everything after
    "    SETFLAG MTE2, S, 0\n    WAITFLAG MTE2, S, 0\n",             # through S: V is dispatched after S waited
])
def test_a_flag_or_a_barrier_orders_them(order):
    text = "    DMA.GM2UB [0x0], gm[0x0], len=8\n" + SLOW + order + "    VADD.f32 [0x4100], [0x0], [0x0]\n    HALT\n"
    assert races(text) == []


def test_a_flag_of_other_pipes_orders_nothing_here():
    text = "    DMA.GM2UB [0x0], gm[0x0], len=8\n" + SLOW + \
        "    SETFLAG MTE3, V, 0\n    WAITFLAG MTE3, V, 0\n    VADD.f32 [0x4100], [0x0], [0x0]\n    HALT\n"
    assert races(text) == [("RAW", 1, 9, True)]


def test_the_scalar_units_dispatch_order():
    # A scalar ST completes before S hands over the DMA after it: ordered. A DMA dispatched before a
    # scalar LD of its bytes is not waited for by S: a race (met in time: the LD runs at once).
    assert races("    MOV S1, 7\n    ST.u32 [0x0], S1\n    DMA.UB2GM gm[0x0], [0x0], len=1\n    HALT\n") == []
    assert races("    DMA.GM2UB [0x0], gm[0x0], len=1\n    LD.u32 S1, [0x0]\n    HALT\n") == \
        [("RAW", 1, 2, False)]
    assert races("    DMA.GM2UB [0x0], gm[0x0], len=1\n    SETFLAG MTE2, S, 0\n    WAITFLAG MTE2, S, 0\n"
                 "    LD.u32 S1, [0x0]\n    HALT\n") == []


def test_a2_orders_two_v_instructions_only_by_a_barrier_or_a_round_trip():
    write = "    VADDS.f32 [0x0], [0x100], 1.0\n"
    other = "    VADDS.f32 [0x10000], [0x10000], 1.0, repeat=200\n"
    read = "    VADDS.f32 [0x4000], [0x0], 1.0\n"
    # lines 1 and 3, with a long V instruction between them: on a2 nothing orders them
    assert races(write + other + read + "    HALT\n", "a2") == [("RAW", 1, 3, True)]
    assert races(write + other + "    BARRIER V\n" + read + "    HALT\n", "a2") == []
    # a round trip through MTE3: V sets, MTE3 waits and sets, V waits
    trip = "    SETFLAG V, MTE3, 0\n    WAITFLAG V, MTE3, 0\n    SETFLAG MTE3, V, 0\n    WAITFLAG MTE3, V, 0\n"
    assert races(write + other + trip + read + "    HALT\n", "a2") == []
    # the 950 orders V after V
    assert races(write + other + read + "    HALT\n", "950") == []
    # a V read before a V write of the same bytes is ordered on a2 too: V starts in order
    assert races("    VADDS.f32 [0x4000], [0x0], 1.0\n" + other + "    VADDS.f32 [0x0], [0x100], 1.0\n    HALT\n",
                 "a2") == []


def test_strict_faults_on_a_latent_race_and_the_json_says_latent(tmp_path):
    prog = tmp_path / "latent.asm"
    prog.write_text("    DMA.GM2UB [0x0], gm[0x0], len=8\n" + SLOW + "    VADD.f32 [0x4100], [0x0], [0x0]\n    HALT\n")
    r = vcore("run", prog, "--report", "json")
    assert r.returncode == 0, r.stderr
    (race,) = json.loads(r.stdout)["races"]
    assert race["latent"] is True and race["kind"] == "RAW"
    assert "warning: latent race (RAW): line 7" in r.stderr
    assert "SETFLAG MTE2, V, 0 after line 1 and WAITFLAG MTE2, V, 0 before line 7" in r.stderr
    r = vcore("run", prog, "--strict")
    assert r.returncode == 1 and "latent.asm:7: error: latent race (RAW): line 7" in r.stderr, r.stderr


def test_the_debugger_says_a_latent_race(tmp_path):
    prog = tmp_path / "latent.asm"
    prog.write_text("    DMA.GM2UB [0x0], gm[0x0], len=8\n" + SLOW + "    VADD.f32 [0x4100], [0x0], [0x0]\n    HALT\n")
    r = vcore("debug", prog, input_text="continue\nquit\n")
    assert "warning: latent race (RAW): line 7" in r.stdout, r.stdout


# The register add of the micro-API samples with its copy-in's MTE2 -> V flag left out: the copy
# (line 3) lands at 100 + ceil(512 / 47.7) = 111; a function before it keeps V busy until 311, so
# the add's function (line 9, one V job to flags and races) reads the copied bytes long after they
# landed. The values come out right (1.5 + 2.0) and nothing met in time, yet nothing orders the copy
# before the add: a latent RAW between line 3 and the function, and the flag makes it go away.
MICRO_ADD = """\
    .gmfill 0x0, f16, 128, 1.5
    .gmfill 0x100, f16, 128, 2.0
    DMA.GM2UB [0x0], gm[0x0], len=16
{flag}""" + SLOW + """\
    VF.BEGIN
    PSET.b16 P0, ALL
    VLD.f16 V0, [S0]
    VLD.f16 V1, [S0 + 0x100]
    VADD.f16 V2, V0, V1, P0
    VST.f16 [S0 + 0x200], V2, P0
    VF.END
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    DMA.UB2GM gm[0x1000], [0x200], len=8
    HALT
"""


def test_a_vector_function_missing_its_copy_in_flag_is_a_latent_race():
    m, r, rep = run_pinned(MICRO_ADD.format(flag=""), "950")
    assert r.fault is None
    assert list(m.read("gm", 0x1000, "f16", 128)) == [3.5] * 128
    (race,) = rep["races"]
    assert (race["kind"], race["first"]["line"], race["second"]["text"], race["latent"]) == \
        ("RAW", 3, "VF.BEGIN", True)
    assert (race["space"], race["start"], race["end"]) == ("ub", 0, 0x200)
    flagged = MICRO_ADD.format(flag="    SETFLAG MTE2, V, 0\n    WAITFLAG MTE2, V, 0\n")
    assert races(flagged) == []
