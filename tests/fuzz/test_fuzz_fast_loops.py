"""Fuzz hardware loops in closed form (issue 30, outcome 2): random vector functions whose loops mix
every family ``emulator.functions.fast_data`` has a kernel for (loads and stores stepping by post=,
lane and scalar arithmetic, fills, compares, selects, mask logic, conversions, fused multiply-adds,
PSET and PUPDATE counting down), with registers that do and do not carry from pass to pass (half the
bodies write every register early in the pass), steps that leave UB, stores that meet loads or each
other, a MOV or MEMBAR inside now and then,
an outer loop around, and a low instruction limit now and then. Each program runs twice, with loops
in closed form from 2 passes on and pass by pass (``fast_loops=False``): the report (all but its
count of instructions run in closed form), UB, S and the fault must be the same.
"""

from __future__ import annotations

import json

import fuzz_support as F
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import vcore
from vcore import AsmError, ProgramError
from vcore.emulator.functions import fast_loops

FLOAT = ("f16", "f32")
ANY = ("f16", "f32", "s16", "s32")
LANES = {"f16": 128, "f32": 64, "s16": 128, "s32": 64}


@st.composite
def instructions(draw) -> str:
    v = lambda: f"V{draw(st.integers(0, 3))}"  # noqa: E731
    p = lambda: f"P{draw(st.integers(0, 2))}"  # noqa: E731
    t = draw(st.sampled_from(ANY))
    lanes = LANES[t]
    post = draw(st.sampled_from((0, lanes, lanes, -lanes, 2 * lanes, lanes // 2, 16 * lanes)))
    kind = draw(st.sampled_from(("vld", "vld", "vst", "vst", "binary", "binary", "scalar", "unary", "dup", "dup_lane",
                                 "pset", "pupdate", "cmp", "cmps", "sel", "plogic", "pnot", "conv_up", "conv_down",
                                 "mla", "axpy", "mov", "membar")))
    base = f"S{draw(st.integers(1, 3))}"
    op = draw(st.sampled_from(("VADD", "VSUB", "VMUL", "VMAX", "VMIN")))
    return {
        "vld": f"VLD.{t} {v()}, [{base}], post={post}",
        "vst": f"VST.{t} [{base}], {v()}, {p()}, post={post}",
        "binary": f"{op}.{t} {v()}, {v()}, {v()}, {p()}",
        "scalar": f"{draw(st.sampled_from(('VADDS', 'VMULS', 'VMAXS')))}.{t} {v()}, {v()}, S5, {p()}",
        "unary": f"{draw(st.sampled_from(('VEXP', 'VABS', 'VRELU', 'VSQRT')))}.{draw(st.sampled_from(FLOAT))} "
                 f"{v()}, {v()}, {p()}",
        "dup": f"VDUP.{t} {v()}, S5, {p()}",
        "dup_lane": f"VDUP.{t} {v()}, {v()}, {p()}",
        "pset": f"PSET.b{draw(st.sampled_from((16, 32)))} {p()}, {draw(st.sampled_from(('ALL', 'H', 'VL3', 'ALLF')))}",
        "pupdate": f"PUPDATE.b{draw(st.sampled_from((16, 32)))} {p()}, S4",
        "cmp": f"VCMP.LT.{t} {p()}, {v()}, {v()}, {p()}",
        "cmps": f"VCMPS.GE.{t} {p()}, {v()}, S5, {p()}",
        "sel": f"VSEL.{t} {v()}, {v()}, {v()}, {p()}",
        "plogic": f"{draw(st.sampled_from(('PAND', 'POR', 'PXOR')))} {p()}, {p()}, {p()}",
        "pnot": f"PNOT {p()}, {p()}",
        "conv_up": f"VCONV.f32.f16 {v()}, {v()}, {p()}, part={draw(st.integers(0, 1))}",
        "conv_down": f"VCONV.f16.f32 {v()}, {v()}, {p()}, part={draw(st.integers(0, 1))}",
        "mla": f"VMLA.f32 {v()}, {v()}, {v()}, {p()}",
        "axpy": f"VAXPY.f32 {v()}, {v()}, S5, {p()}",
        "mov": f"MOV S5, {draw(st.integers(0, 9))}",
        "membar": "MEMBAR",
    }[kind]


@st.composite
def loop_programs(draw) -> tuple[str, int | None]:
    body = draw(st.lists(instructions(), min_size=1, max_size=7))
    if draw(st.booleans()):  # every register written early in the pass: mostly nothing carries
        t = draw(st.sampled_from(ANY))
        body = [f"VLD.{t} V0, [S1], post={LANES[t]}", "VDUP.f32 V1, S5, P0", f"VLD.{t} V2, [S2], post={LANES[t]}",
                "VDUP.f16 V3, V0, P1", "PUPDATE.b32 P2, S4", *body]
    before = draw(st.lists(instructions(), max_size=2))
    after = draw(st.lists(instructions(), max_size=2))
    passes = draw(st.sampled_from((2, 3, 17, 64, 200, 1000)))
    outer = draw(st.sampled_from((None, None, 2, 5)))
    starts = [draw(st.sampled_from((0x0, 0x8000, 0x10000, 0x20000, 0x3E000, 0x100))) for _ in range(3)]
    lines = [f"    MOV S{r}, {hex(a)}" for r, a in zip((1, 2, 3), starts, strict=True)]
    lines += [f"    MOV S4, {draw(st.sampled_from((0, 5, 100, 700, 100000)))}",
              f"    MOV S5, {draw(st.sampled_from((0, 1, 0x3C00, 0x3F800000, 7)))}", "    VF.BEGIN",
              "    PSET.b16 P0, ALL", "    PSET.b32 P1, H"]
    lines += [f"    {text}" for text in before]
    if outer:  # each round from the same addresses, a MEMBAR between rounds now and then
        lines += [f"    LOOP {outer}"] + (["    MEMBAR"] if draw(st.booleans()) else [])
        lines += [f"    MOV S{r}, {hex(a)}" for r, a in zip((1, 2, 3), starts, strict=True)]
    lines += [f"    LOOP {passes}"] + [f"        {text}" for text in body] + ["    ENDLOOP"]
    if outer:
        lines.append("    ENDLOOP")
    lines += [f"    {text}" for text in after]
    lines += ["    MOV S6, 0x38000"] + [f"    VST.f32 [S6], V{r}, P0, post=64" for r in range(4)]
    lines += ["    PST [0x39000], P0", "    PST [0x39020], P1", "    PST [0x39040], P2", "    VF.END", "    HALT"]
    limit = draw(st.sampled_from((None, None, None, 40, 700)))
    return "\n".join(lines) + "\n", limit


def outcome(text: str, limit: int | None, fast: bool, data: np.ndarray):
    m = vcore.load_text(text)
    m.write("ub", 0, data)
    result = m.run(**({} if limit is None else {"max_instructions": limit}), fast_loops=fast)
    report = m.report().to_json()
    closed = report.pop("fast_loop_instructions")
    return (json.dumps(report, sort_keys=True), m.ub.tobytes(), list(m.s), str(result.fault)), closed


@F.fuzz(120)
@given(loop_programs(), st.integers(0, 2**32 - 1))
def test_fuzz_loops_in_closed_form_run_as_pass_by_pass(monkeypatch_module, program, data_seed):
    text, limit = program
    try:
        vcore.load_text(text)
    except (AsmError, ProgramError):
        assume(False)
    F.tried("fast loops")
    data = np.random.default_rng(data_seed).integers(0, 256, 1 << 18, dtype=np.uint8)
    slow, none = outcome(text, limit, False, data)
    fast, closed = outcome(text, limit, True, data)
    assert none == 0
    F.went("closed form" if closed else "pass by pass")
    assert fast == slow, text


@pytest.fixture(scope="module")
def monkeypatch_module():
    """Loops of 2 passes and more in closed form (the default leaves loops under 16 passes alone)."""
    saved = fast_loops.FAST_MIN_PASSES
    fast_loops.FAST_MIN_PASSES = 2
    yield
    fast_loops.FAST_MIN_PASSES = saved
