"""Helpers for the cycle-model tests: run a program, look at its report, its per-pc rows and its trace.

Nothing here computes an expected cycle count: every expected value in tests/timing is worked out
by hand in the test, from docs/timing.md's rules and the profile numbers.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

VCORE = str(Path(sys.executable).with_name("vcore"))


# The mechanism tests (ordering, races, flags, the trace, scaling, profile edits) work their cycles out
# by hand with round prices. They run on the built-in profiles with those prices pinned (the first
# version's: no per-instruction cost, a2's 2 cycles a binary repeat in 2 bank beats, a DMA of 100
# cycles plus its bytes at 43.7 or 47.7 B/cycle that holds its pipe until its data lands, a vector
# function's launch of 8 cycles whatever its arguments, one load unit, the 950's tensor instructions priced by
# the rates the a2 uses (tensor.as_function off), results that land one cycle after a tensor
# instruction's last iteration, and inside a function no bypass: a result is read once it lands, after
# the first version's latencies, a queue of 64): what they test does not depend on the prices, and
# test_timing_costs, test_timing_latency and the calibration suite (benchmarks/calibration) check the
# real ones.
_NO_OVERLAP = 10**9  # a DMA's issue cycles: the pipe takes the next copy once this one has landed
_FIRST_LATENCIES = {("register", "forward"): 0, ("register", "forward_alu"): 0, ("register", "forward_store"): 0,
                    ("register", "vf_window"): 64,
                    ("register", "transcendental_latency"): {op: [14, 14] for op in ("exp", "ln", "sqrt", "div",
                                                                                      "expdif", "rem")},
                    ("register", "reduce_latency"): {op: [cycles, cycles] for op, cycles in (("SUM", 22), ("MAX", 16),
                                                                                           ("MIN", 16))},
                    ("tensor", "latency"): dict.fromkeys(("transcendental", "divide", "remainder", "reduce"), 1)}
PINNED = {
    "a2": {("tensor", "issue"): 0, ("tensor", "sustained_binary"): 0.5, ("banks", "beats"): 2,
           ("dma", "gm2ub_setup"): 100, ("dma", "gm2ub_burst_bytes_per_cycle"): 43.7,
           ("dma", "ub2gm_setup"): 100, ("dma", "ub2gm_burst_bytes_per_cycle"): 61.5,
           ("dma", "gm2ub_issue"): _NO_OVERLAP, ("dma", "ub2gm_issue"): _NO_OVERLAP, **_FIRST_LATENCIES},
    "950": {("tensor", "as_function"): False, ("tensor", "issue"): 0,
            ("dma", "gm2ub_setup"): 100, ("dma", "gm2ub_burst_bytes_per_cycle"): 47.7,
            ("dma", "ub2gm_setup"): 100, ("dma", "ub2gm_burst_bytes_per_cycle"): 67.1,
            ("dma", "gm2ub_issue"): _NO_OVERLAP, ("dma", "ub2gm_issue"): _NO_OVERLAP,
            ("register", "vf_launch"): 8, ("register", "vf_param_push"): 0, ("register", "vf_loop_startup"): 2,
            ("register", "vf_load_units"): 1,
            ("register", "gather_latency"): 21, **_FIRST_LATENCIES},
}
_FAST = 1e6  # a sustained rate that never binds: the copy costs setup + bytes / burst


def pinned(name: str):
    """The built-in profile ``name`` with the mechanism tests' round prices."""
    import copy

    from vcore.emulator import load_profile
    from vcore.emulator.profiles.profile import Profile, check_table

    base = load_profile(name)
    table = copy.deepcopy(base.table)
    for (section, key), value in PINNED[name].items():
        table[section][key] = value
    for key in ("gm2ub_bytes_per_cycle", "ub2gm_bytes_per_cycle"):
        table["dma"][key] = _FAST
    check_table(table, f"pinned {name}")
    return Profile(name, table, base.source_text)


def run_pinned(text: str, profile="950", **run_kwargs):
    """``run`` on the pinned profile."""
    return run(text, pinned(profile) if isinstance(profile, str) else profile, **run_kwargs)


def run(text: str, profile="950", **run_kwargs):
    """Assemble and run ``text``; returns (machine, result, report JSON)."""
    from vcore.assembler import assemble
    from vcore.emulator import Machine
    from vcore.emulator.report import build_report

    m = Machine(assemble(text), profile)
    r = m.run(**run_kwargs)
    return m, r, build_report(r).to_json()


def row(report: dict, prefix: str) -> dict:
    """The single per_pc row whose source text starts with ``prefix``."""
    rows = [e for e in report["per_pc"] if e["text"].startswith(prefix)]
    assert len(rows) == 1, f"{len(rows)} per_pc rows start with {prefix!r}: {[e['text'] for e in report['per_pc']]}"
    return rows[0]


def slices(m, prefix: str, with_s: bool = False) -> list[tuple[str, int, int]]:
    """(pipe, start cycle, end cycle) of every traced run of the instruction whose text starts with
    ``prefix`` (the run must have used ``trace=True``), leaving out the S slices of the cycle in which
    the scalar unit hands an instruction to its pipe unless ``with_s``."""
    out = []
    for pipe, pc, start, end, _job in m.engine.accounting.slices:
        if m.text_at(pc).startswith(prefix) and (with_s or pipe != "S" or m.pipes.get(pc) == "S"):
            out.append((pipe, start, end))
    return out


def ub(m, addr: int, type_name: str, count: int) -> np.ndarray:
    return m.read("ub", addr, type_name, count)


def vcore(*args, cwd=None, input_text: str | None = None):
    return subprocess.run([VCORE, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=60,
                          input=input_text)


def peak_memory(action):
    """``(what action() returned, the peak memory it took)``, by tracemalloc (numpy reports to it)."""
    import tracemalloc

    tracemalloc.start()
    try:
        returned = action()
        return returned, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def count_calls(action):
    """``(what action() returned, the Python and C calls it made)``: a measure of work that, unlike
    wall time, does not depend on the machine (the doubling tests compare it at N and 4N)."""
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        returned = action()
    finally:
        sys.setprofile(None)
    return returned, calls
