"""A run that pauses (the debugger's way: ``pause_after``, breakpoints) reports what the whole run
reports (issue 29, outcome 7).

A paused run steps through a vector function one instruction at a time (emulator/functions/steps.py)
where a whole run lays the function out at its launch and moves its data when its V job starts; the
two must not differ in what they report. Bugs that broke that, found by
tests/fuzz/test_fuzz_run.py once its draws shifted (as adding an instruction family shifts them):

1. ``--max-instructions`` reached inside a function: a whole run names the function's limit ("reached
   inside a vector function", with the iteration of each open loop); a paused run named the run
   loop's plain limit.

Expected values are worked out by hand from the programs (pcs: 8 bytes an instruction of one word).
"""

from __future__ import annotations

import pytest

from assembler import assemble
from emulator import Machine


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
