"""Fuzz the program-order run against the timed run, which is the reference.

A whole run moves data in program order, and runs again timed when its overlap check finds two
instructions whose data could depend on timing (``emulator.timing.engine``). That is only right if the
program-order run gives exactly what a timed run gives whenever it keeps its own result. So every
random valid program (the generator of ``test_fuzz_run``: DMA both ways, flags, barriers, tensor
instructions, vector functions with hardware loops, scalar loops, faults) runs both ways, on both
profiles, strict or not, and must give the same report (cycles, stalls, races, fault), the same
final memories and registers, the same fault message and, for one run in four, the same
``--trace`` events. The counts of runs kept in
program order and run again timed are printed, so a run shows that both ways were exercised.
"""

from __future__ import annotations

import fuzz_support as F
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_fuzz_run import MAX_CYCLES, MAX_INSTRUCTIONS, profiles_for, random_programs

from vcore.emulator import Machine
from vcore.emulator.trace import trace_events
from vcore.isa.program import Program

pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")


def outcome(program: Program, profile: str, strict: bool, timed: bool, trace: bool) -> tuple[dict, Machine]:
    machine = Machine(program, profile)
    if timed:
        machine.timed_data = True
    result = machine.run(max_instructions=MAX_INSTRUCTIONS, max_cycles=MAX_CYCLES, strict=strict, trace=trace)
    out = machine.report().to_json()
    if result.fault is not None:
        out["fault message"] = str(result.fault)
    if trace:
        out["trace"] = trace_events(machine.result)
    return out, machine


def assert_same(program: Program, profile: str, strict: bool, trace: bool = False) -> bool:
    """Both ways agree; True when the automatic run kept its program-order result."""
    reference, timed = outcome(program, profile, strict, timed=True, trace=trace)
    found, auto = outcome(program, profile, strict, timed=False, trace=trace)
    assert timed.ran_timed
    assert found == reference, f"{profile}: the program-order run reports differently"
    for name in ("ub", "gm", "v", "p"):
        assert np.array_equal(getattr(auto, name), getattr(timed, name)), f"{profile}: {name} differs"
    assert auto.s == timed.s
    return not auto.ran_timed


@F.fuzz(150)
@given(random_programs(), st.booleans(), st.sampled_from((False, False, False, True)))
def test_fuzz_program_order_matches_timed(program, strict, trace):
    """``trace``: both runs traced, and their ``--trace`` events must be the same too."""
    F.tried("run: program order against timed")
    for profile in profiles_for(program):
        try:
            kept = assert_same(program, profile, strict, trace)
        except AssertionError:
            raise
        except Exception as exc:
            if F.known_bug(exc) is None:
                raise
            continue
        F.went("kept their program-order result" if kept else "ran again timed (an overlap was found)")
