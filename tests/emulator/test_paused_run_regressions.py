"""A run that pauses (the debugger's way: ``pause_after``, breakpoints) reports what the whole run
reports (issue 29, outcome 7).

A paused run steps through a vector function one instruction at a time (emulator/functions/steps.py)
where a whole run lays the function out at its launch and moves its data when its V job starts; the
two must not differ in what they report. These bugs broke that, found by
tests/fuzz/test_fuzz_run.py once its draws shifted (as adding an instruction family shifts them):

1. ``--max-instructions`` reached inside a function: a whole run names the function's limit ("reached
   inside a vector function", with the iteration of each open loop); a paused run named the run
   loop's plain limit.
2. A function with a gather or scatter is priced (its launch stall and its instructions' stalls) when
   its V job starts, from the lanes its indices give. A paused run priced it at its last step instead:
   never when a fault inside it stopped it, and even when its V job never started (V deadlocked).
3. A launch whose V job faults as it is placed (a latent race under ``--strict``, ``--max-cycles``):
   a whole run has counted the function's instructions by then (it counts them at the launch, before
   it hands the job over), a paused run counted only ``VF.BEGIN``.

4. A function's launch in a paused run landed every job scheduled so far (``Machine.settle``, so that
   its steps saw their data), ahead of their simulated ends: a job in flight then was checked against
   nothing that started later, and a paused run named fewer races, or, under ``--strict``, stopped at
   the race elsewhere. Its steps now see what the function's V job would see at its start
   (``Engine.settle_before``: the events before it, not after), and a function with gathers or
   scatters is placed as soon as its steps end, as a whole run places it at its launch.

Expected values are worked out by hand from the programs (pcs: 8 bytes an instruction) and the 950
profile's launch cost (docs/timing.md, "Vector functions": ``register.vf_launch``, plus
``vf_param_push`` per 16 scalar registers the function reads).
"""

from __future__ import annotations

import pytest

from vcore.assembler import assemble
from vcore.emulator import Machine, load_profile

REGISTER = load_profile("950")["register"]


def whole(text: str, **limits) -> Machine:
    m = Machine(assemble(text, "paused.asm"), "950")
    m.run(**limits)
    return m


def paused(text: str, step: int = 1, **limits) -> Machine:
    """Run pausing every ``step`` instructions until the run ends."""
    m = Machine(assemble(text, "paused.asm"), "950")
    result = m.run(**limits, pause_after=step)
    while result.paused:
        result = m.run(**limits, pause_after=m.executed + step)
    return m


# -- 1. --max-instructions inside a function ------------------------------------------------------

LOOPED_LOAD = """\
    VF.BEGIN
    LOOP 10
    VLD.f16 V0, [0x0]
    ENDLOOP
    VF.END
"""
# pcs: VF.BEGIN 0x0, LOOP 0x8, VLD 0x10, ENDLOOP 0x18, VF.END 0x20. Instructions in run order:
# VF.BEGIN, LOOP, then VLD, ENDLOOP once per iteration.


@pytest.mark.parametrize(("limit", "pc", "where"), [
    (1, 0x08, ""),  # VF.BEGIN runs; LOOP would be the 2nd
    (2, 0x10, " (iteration 1 of 10 of the LOOP at line 2 (LOOP 10))"),  # the first VLD would be the 3rd
    (5, 0x18, " (iteration 2 of 10 of the LOOP at line 2 (LOOP 10))"),  # 1 + 1 + VLD, ENDLOOP, VLD
    (12, 0x10, " (iteration 6 of 10 of the LOOP at line 2 (LOOP 10))"),  # 2 + 5 iterations of 2
])
@pytest.mark.parametrize("step", [1, 2, 3])
def test_max_instructions_inside_a_function_names_the_function_in_a_paused_run(limit, pc, where, step):
    expected = f"--max-instructions reached inside a vector function{where}\n  at pc 0x{pc:04x}: "
    for m in (whole(LOOPED_LOAD, max_instructions=limit), paused(LOOPED_LOAD, step, max_instructions=limit)):
        fault = m.result.fault
        assert fault is not None and fault.kind == "limit" and fault.pc == pc, fault
        assert fault.message.startswith(expected), fault.message
        assert m.result.instructions == limit
    assert paused(LOOPED_LOAD, step, max_instructions=limit).report().to_json() == \
        whole(LOOPED_LOAD, max_instructions=limit).report().to_json()


def test_max_instructions_inside_a_function_names_the_function_when_paused_by_a_breakpoint():
    m = Machine(assemble(LOOPED_LOAD, "paused.asm"), "950")
    result = m.run(max_instructions=5, breakpoints={0x18})
    stops = 0
    while result.paused:
        stops += 1
        result = m.run(max_instructions=5, breakpoints={0x18})
    assert stops == 1  # before the first ENDLOOP; the second is where the limit falls
    assert result.fault.message.startswith("--max-instructions reached inside a vector function (iteration 2 of 10")
    assert m.report().to_json() == whole(LOOPED_LOAD, max_instructions=5).report().to_json()


# -- 2. a function with a gather or scatter is priced when its V job starts -------------------------

STOPPED_SCATTER = """\
    MOV S1, 0x40000
    VF.BEGIN
    VSCATTER.f32 [0x100], V0, V1, P0
    VLD.f32 V2, [S1]
    VF.END
"""
# The VLD reads UB bytes 0x40000..0x40100, past the 950's 256 KiB UB: it faults, after the scatter ran.
# The function reads one scalar register (S1): its launch is vf_launch plus one push.


def test_a_function_a_fault_stopped_is_priced_in_a_paused_run():
    launch = REGISTER["vf_launch"] + REGISTER["vf_param_push"]
    for m in (whole(STOPPED_SCATTER), paused(STOPPED_SCATTER)):
        out = m.report().to_json()
        assert out["fault"]["kind"] == "fault" and "at pc 0x0018: VLD.f32 V2, [S1]" in out["fault"]["message"]
        assert out["stalls"]["launch"] == launch
        assert next(e for e in out["per_pc"] if e["pc"] == 0x8)["stalls"] == {"launch": launch}
    assert paused(STOPPED_SCATTER).report().to_json() == whole(STOPPED_SCATTER).report().to_json()


BLOCKED_SCATTER = """\
    WAITFLAG MTE2, V, 0
    VF.BEGIN
    VSCATTER.f32 [0x100], V0, V1, P0
    VF.END
"""
# Nothing sets the MTE2 -> V flag: V waits at the WAITFLAG for ever (a deadlock), and the function's
# V job behind it never starts, so it is never priced: no launch stall.


def test_a_function_whose_v_job_never_starts_is_not_priced_in_a_paused_run():
    for m in (whole(BLOCKED_SCATTER), paused(BLOCKED_SCATTER)):
        out = m.report().to_json()
        assert out["fault"]["kind"] == "deadlock", out["fault"]
        assert out["stalls"]["launch"] == 0
        begin = next(e for e in out["per_pc"] if e["pc"] == 0x8)
        assert begin["count"] == 1 and begin["stalls"] == {}
    assert paused(BLOCKED_SCATTER).report().to_json() == whole(BLOCKED_SCATTER).report().to_json()


# A long VEXP holds V; the 16 VADDs behind it fill V's queue (scalar.queue_depth = 16 instructions
# that have not started), so the launch that follows is placed on V at once, before a paused run has
# stepped through it: it is priced once its steps have run, as the whole run prices it when placed.
FORCED_SCATTER = ("    VEXP.f32 [0x0], [0x0], repeat=200\n" + "    VADD.f32 [0x1000], [0x1000], [0x1000]\n" * 16 + """\
    VF.BEGIN
    VSCATTER.f32 [0x4000], V0, V1, P0
    VF.END
    VADD.f32 [0x2000], [0x2000], [0x2000]
""")


def test_a_function_placed_before_its_steps_ran_is_priced_in_a_paused_run():
    assert load_profile("950")["scalar"]["queue_depth"] == 16
    begin = 17 * 16  # VEXP and 16 VADDs before it, two words each (docs/encoding.md)
    for m in (whole(FORCED_SCATTER), paused(FORCED_SCATTER)):
        out = m.report().to_json()
        assert "fault" not in out
        stalls = next(e for e in out["per_pc"] if e["pc"] == begin)["stalls"]
        assert stalls["launch"] == REGISTER["vf_launch"]  # it reads no scalar register: no push
        assert stalls["queue_full"] > 0  # (S waited for room in V's queue: the queue was full)
    assert paused(FORCED_SCATTER).report().to_json() == whole(FORCED_SCATTER).report().to_json()


# -- 3. a launch that faults as its V job is placed -------------------------------------------------

RACY_LAUNCH = """\
    DMA.UB2GM gm[0x0], [0x0], blocks=1, len=1
    VF.BEGIN
    PSET.b32 P0, ALL
    VST.f32 [0x0], V0, P0
    VF.END
"""
# pcs: DMA 0x0 (two words), VF.BEGIN 0x10, PSET 0x18, VST 0x20, VF.END 0x28. Nothing orders the DMA's
# read of UB 0x0..0x20 before the function's store there: a latent WAR, which --strict faults on where
# the function's V job is placed, at its launch. The whole run has counted the function's three
# instructions then: 5 in all.


def test_a_launch_that_faults_on_a_strict_race_counts_its_instructions_in_a_paused_run():
    for m in (whole(RACY_LAUNCH, strict=True), paused(RACY_LAUNCH, strict=True)):
        fault = m.result.fault
        assert fault.kind == "race" and fault.pc == 0x10 and "latent race (WAR)" in fault.message, fault
        assert m.result.instructions == 5
    assert paused(RACY_LAUNCH, strict=True).report().to_json() == whole(RACY_LAUNCH, strict=True).report().to_json()


FUNCTION = """\
    VF.BEGIN
    PSET.b32 P0, ALL
    VST.f32 [0x0], V0, P0
    VF.END
"""


@pytest.mark.parametrize("max_cycles", [1, 3])
def test_a_launch_past_max_cycles_counts_its_instructions_in_a_paused_run(max_cycles):
    # The function's V job ends past the limit (its launch alone takes register.vf_launch cycles).
    assert REGISTER["vf_launch"] > max_cycles
    for m in (whole(FUNCTION, max_cycles=max_cycles), paused(FUNCTION, max_cycles=max_cycles)):
        fault = m.result.fault
        assert fault.kind == "limit" and fault.pc == 0x0 and f"--max-cycles {max_cycles} reached" in fault.message
        assert m.result.instructions == 4
    assert paused(FUNCTION, max_cycles=max_cycles).report().to_json() == \
        whole(FUNCTION, max_cycles=max_cycles).report().to_json()


# -- 4. jobs in flight at a launch ---------------------------------------------------------------------

# A loop: a function that reads UB 0x6a0 (PLD), then a DMA that writes it, nothing ordering the two.
# The DMA's write lands some 200 cycles after it starts (MTE2's GM latency), the function takes a few,
# so the next launches run while it is in flight.
DMA_IN_FLIGHT = """\
    MOV S20, 3
top:
    VF.BEGIN
    PLD P1, [0x6a0]
    VF.END
    DMA.GM2UB [0x6a0], gm[0x0], blocks=1, len=1
    SUB S20, S20, 1
    BNE S20, 0, top
"""
# pcs: MOV 0x0, VF.BEGIN 0x8, PLD 0x10, VF.END 0x18, DMA 0x20 (two words). F1 D1 F2 D2 F3 D3: F2 and F3
# read while D1's write is in flight, and F3 reads before D2 (earlier in program order) writes: the
# RAW from the DMA to the function happened 3 times. A paused run landed D1 at F3's launch and named 2.

# The same with a scatter in the function (priced at its start, so F2 is placed on V after D2): F2 reads
# while D1's write is in flight, once. A paused run named no RAW at all: the order check has D2, not
# D1, as the DMA's last write when F2 is placed, and the timing check no longer saw D1.
SCATTER_AFTER_DMA = """\
    MOV S20, 2
top:
    VF.BEGIN
    PLD P1, [0x6a0]
    VSCATTER.f32 [0x1000], V1, V0, P0
    VF.END
    DMA.GM2UB [0x6a0], gm[0x0], blocks=1, len=1
    SUB S20, S20, 1
    BNE S20, 0, top
"""
# pcs: ... VSCATTER 0x18, VF.END 0x20, DMA 0x28.


@pytest.mark.parametrize(("text", "raw"), [(DMA_IN_FLIGHT, ("RAW", 0x20, 0x8, 3, False)),
                                           (SCATTER_AFTER_DMA, ("RAW", 0x28, 0x8, 1, False))],
                         ids=["dma-in-flight", "scatter-after-dma"])
def test_a_paused_run_names_the_races_of_jobs_a_launch_landed_early(text, raw):
    def raws(m: Machine) -> list:
        return [(r.kind, r.first["pc"], r.second["pc"], r.count, r.latent) for r in m.races() if r.kind == "RAW"]

    assert raws(whole(text)) == [raw]
    assert raws(paused(text)) == [raw]
    assert paused(text).report().to_json() == whole(text).report().to_json()


# Under --strict the run stops at the first race, and a paused run must stop where the whole run does:
# the gather reads 0x2e0 while the DMA's write to it is in flight (a RAW met in time). The whole run stops
# when the function's V job starts (at its launch: V is idle and nothing orders it after the DMA), before
# S runs the MOV; a paused run landed the DMA at the launch, so only the order check saw the race, once
# the function was placed after its steps, and S had run on by then (5 instructions).
GATHER_AFTER_DMA = """\
    DMA.GM2UB [0x2e0], gm[0x0], blocks=1, len=1
    VF.BEGIN
    VGATHER.u32 V3, [0x2e0], V0, P5
    VF.END
    MOV S1, 1
"""


def test_under_strict_a_paused_run_stops_at_a_race_where_the_whole_run_does():
    for m in (whole(GATHER_AFTER_DMA, strict=True), paused(GATHER_AFTER_DMA, strict=True)):
        fault = m.result.fault
        assert fault.kind == "race" and fault.pc == 0x10 and fault.message.startswith("race (RAW)"), fault
        assert m.result.instructions == 4  # DMA, VF.BEGIN, VGATHER, VF.END: not the MOV
    assert paused(GATHER_AFTER_DMA, strict=True).report().to_json() == \
        whole(GATHER_AFTER_DMA, strict=True).report().to_json()


# Found by the run fuzzer at random seeds once the known bug's set-aside was gone: V is busy (a long VEXP),
# so the VRELU and the function behind it start far ahead of S; the DMA that S hands over next starts at
# once on MTE2 and lands (some 200 cycles) before the VRELU reads and writes 0x0, earlier in program
# order with nothing ordering the two: a WAR and a WAW, met in time. A paused run that ran every event up
# to the function's start at its launch had landed the VRELU before the DMA was even handed over (it
# then named the two in another order, from the order check alone).
V_BUSY = """\
    VEXP.f32 [0x1000], [0x1000], repeat=250
    VRELU.f16 [0x0], [0x0]
    VF.BEGIN
    PLD P1, [0x2000]
    VF.END
    DMA.GM2UB [0x0], gm[0x0], len=1
"""
# pcs: VEXP 0x0 (two words), VRELU 0x10 (two words), VF.BEGIN 0x20, PLD 0x28, VF.END 0x30, DMA 0x38.


def test_a_paused_run_does_not_run_ahead_of_the_scalar_unit_at_a_launch():
    def races(m: Machine) -> list:
        return [(r.kind, r.first["pc"], r.second["pc"], r.count, r.latent) for r in m.races()]

    expected = [("WAR", 0x10, 0x38, 1, False), ("WAW", 0x10, 0x38, 1, False)]
    assert races(whole(V_BUSY)) == expected
    assert races(paused(V_BUSY)) == expected
    assert paused(V_BUSY).report().to_json() == whole(V_BUSY).report().to_json()
