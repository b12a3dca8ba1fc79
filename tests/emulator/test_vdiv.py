"""VDIV, tensor and register (CONTRACT 6.2): the exact quotient rounded to T, IEEE special values,
checked bit for bit against tests/reference.py (any NaN matches any NaN); and its price from the
public tables: a2 from msKPP's measured VDIV rates, 950 from the documented register Div rate."""

from __future__ import annotations

import itertools
import math

import emu_support as E
import numpy as np
import pytest

from tests import reference as R
from vcore.emulator import load_profile

FLOATS = ("f16", "bf16", "f32")
SPECIALS = [0.0, -0.0, 1.0, -1.0, 3.0, 0.1, 7.0, math.inf, -math.inf, math.nan, 1e-30, 65504.0, 2.0 ** -24,
            -2.0 ** -20, 1e38, 1.5, 1.0 + 2.0 ** -10]


def _pairs(t: str, n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """n pairs: the cross product of the specials first, then random finite values of many magnitudes."""
    cross = list(itertools.product(SPECIALS, SPECIALS))
    xs = [R.encode(x, t) for x, _ in cross][:n]
    ys = [R.encode(y, t) for _, y in cross][:n]
    while len(xs) < n:
        xs.append(R.encode(float(rng.standard_normal() * 10.0 ** rng.integers(-6, 6)), t))
        ys.append(R.encode(float(rng.standard_normal() * 10.0 ** rng.integers(-6, 6)), t))
    dtype = f"<u{R.SIZE[t]}"
    return np.array(xs, dtype=dtype), np.array(ys, dtype=dtype)


@pytest.mark.parametrize("t", FLOATS)
@pytest.mark.parametrize("profile", ["950", "a2"])
def test_tensor_vdiv_matches_the_reference(t, profile):
    rng = np.random.default_rng(7)
    lanes = 256 // R.SIZE[t]
    repeat = -(-len(SPECIALS) ** 2 // lanes) + 2
    x, y = _pairs(t, repeat * lanes, rng)
    ub = np.zeros(0x20000, dtype=np.uint8)
    ub[0x0:0x0 + x.nbytes] = x.view(np.uint8)
    ub[0x8000:0x8000 + y.nbytes] = y.view(np.uint8)
    want = ub.copy()
    R.tensor_op(want, "div", t, 0x10000, (0x0, 0x8000), repeat=repeat)
    m, r = E.run_program(f"VDIV.{t} [0x10000], [0x0], [0x8000], repeat={repeat}\n", profile, ub=ub)
    assert r.fault is None, r.fault
    assert E.mem_mismatches(m.ub[:0x20000], want, t) == []


@pytest.mark.parametrize("t", FLOATS)
def test_register_vdiv_matches_the_reference_and_zeroes_inactive_lanes(t):
    rng = np.random.default_rng(11)
    lanes = 256 // R.SIZE[t]
    x, y = _pairs(t, lanes, rng)
    ub = np.zeros(0x1000, dtype=np.uint8)
    ub[0x0:0x100] = x.view(np.uint8)
    ub[0x100:0x200] = y.view(np.uint8)
    width = R.SIZE[t] * 8
    m, r = E.run_program(f"MOV S1, 0x0\nMOV S2, 0x100\nMOV S3, 0x200\nVF.BEGIN\nPSET.b{width} P0, M3\n"
                         f"VLD.{t} V0, [S1]\nVLD.{t} V1, [S2]\nVDIV.{t} V2, V0, V1, P0\n"
                         f"PSET.b{width} P1, ALL\nVST.{t} [S3], V2, P1\nVF.END\n", "950", ub=ub)
    assert r.fault is None, r.fault
    pmask = R.pset(width, "M3")
    want = R.vop("div", t, ub[0x0:0x100], ub[0x100:0x200], pmask)
    assert E.mem_mismatches(m.ub[0x200:0x300], want, t) == []


@pytest.mark.parametrize(("t", "x", "y", "q"), [
    ("f32", 1.0, 3.0, 0.3333333432674408),      # nearest f32 to 1/3
    ("f16", 1.0, 3.0, 0.333251953125),          # nearest f16 to 1/3
    ("bf16", 1.0, 3.0, 0.333984375),            # nearest bf16 to 1/3
    ("f32", 1.0, 0.0, math.inf), ("f32", -1.0, 0.0, -math.inf), ("f32", 1.0, -0.0, -math.inf),
    ("f16", 0.0, 0.0, math.nan), ("f16", math.inf, math.inf, math.nan), ("bf16", -0.0, 5.0, -0.0),
    ("f16", 60000.0, 0.5, math.inf),           # overflows f16
])
def test_vdiv_values_worked_out_by_hand(t, x, y, q):
    m, r = E.run_program(f".ub 0x0, {t}, {E.float_literal(x)}\n.ub 0x100, {t}, {E.float_literal(y)}\n"
                         f"VDIV.{t} [0x200], [0x0], [0x100], mask=1\n")
    got = float(m.read("ub", 0x200, t, 1).astype(np.float64)[0])
    if math.isnan(q):
        assert math.isnan(got)
    else:
        assert got == q and math.copysign(1.0, got) == math.copysign(1.0, q)


def _busy(t: str, repeat: int, profile: str) -> int:
    """The cycles VDIV occupies V less its bank conflicts (priced apart) and its results' latency after its
    last iteration (tensor.latency.divide: a2 9, the 950 1)."""
    m, r = E.run_program(f"VDIV.{t} [0x4100], [0x0], [0x2080], repeat={repeat}\n", profile)
    (entry,) = [e for e in m.report().per_pc if e.text.startswith("VDIV")]
    return entry.cycles - load_profile(profile)["tensor"]["latency"]["divide"] - entry.bank_conflict_cycles


@pytest.mark.parametrize(("t", "profile", "bytes_per_cycle"), [
    ("f16", "a2", 62.0), ("f32", "a2", 64.0),    # msKPP Ascend910B1: VDIV f16 62.0, f32 64.0 B/cycle
])  # (the 950 prices a tensor VDIV as the vector function it is, on two units of the documented 16 lanes a
#    cycle: tests/timing/test_tensor_functions.py; docs/timing.md says why two)
def test_vdiv_costs_its_published_rate(t, profile, bytes_per_cycle):
    repeat = 100
    issue = load_profile(profile)["tensor"]["issue"]  # before the first repeat (a2 22, the 950 about 33)
    expected = issue + repeat * 256 / bytes_per_cycle
    assert abs(_busy(t, repeat, profile) - expected) <= 1, (_busy(t, repeat, profile), expected)
