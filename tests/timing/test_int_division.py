"""Integer division and remainder (CONTRACT 13.7, priced by 13.9): VDIV for s16 u16 s32 u32 and VREM,
register and tensor forms, 950 only. The expected values are the contract's own (its examples and its
rules worked by hand); tests/emulator/test_part3_reference.py checks random data against
tests/reference.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from timing_support import row, run_pinned

import vcore
from vcore import AsmError, ProgramError, load_profile

I32_MIN, I16_MIN = -(1 << 31), -(1 << 15)
# (a, b, a / b, a rem b) by 13.7: toward zero; MIN / -1 = MIN; x / 0 = all ones; r has a's sign; MIN % -1 = 0;
# a % 0 = a
S32_CASES = [(-7, 2, -3, -1), (7, 2, 3, 1), (-7, -2, 3, -1), (7, -2, -3, 1), (I32_MIN, -1, I32_MIN, 0),
             (I32_MIN, 1, I32_MIN, 0), (5, 0, -1, 5), (-5, 0, -1, -5), (0, 0, -1, 0), (6, 3, 2, 0)]
S16_CASES = [(-7, 2, -3, -1), (I16_MIN, -1, I16_MIN, 0), (123, 0, -1, 123), (-32767, 10, -3276, -7)]
U16_CASES = [(65535, 2, 32767, 1), (7, 0, 65535, 7), (0, 5, 0, 0), (40000, 300, 133, 100)]
U32_CASES = [(0xFFFFFFFF, 0x10, 0x0FFFFFFF, 0xF), (9, 0, 0xFFFFFFFF, 9), (1 << 31, 3, 715827882, 2)]


def function(t: str, lanes: int) -> str:
    return f"""\
    MOV S1, 0x0
    MOV S2, 0x100
    MOV S3, 0x200
    MOV S4, 0x300
    VF.BEGIN
    PSET.b{16 if lanes == 128 else 32} P0, ALL
    VLD.{t} V0, [S1]
    VLD.{t} V1, [S2]
    VDIV.{t} V2, V0, V1, P0
    VREM.{t} V3, V0, V1, P0
    VST.{t} [S3], V2, P0
    VST.{t} [S4], V3, P0
    VF.END
    HALT
"""


@pytest.mark.parametrize(("t", "cases"), [("s32", S32_CASES), ("s16", S16_CASES), ("u16", U16_CASES),
                                          ("u32", U32_CASES)])
def test_register_quotients_and_remainders_are_the_contracts(t, cases):
    lanes = 64 if t.endswith("32") else 128
    a = np.ones(lanes, dtype=np.int64)
    b = np.ones(lanes, dtype=np.int64)
    for i, (x, y, _, _) in enumerate(cases):
        a[i], b[i] = x, y
    m = vcore.load_text(function(t, lanes))
    m.write("ub", 0x0, a, t)
    m.write("ub", 0x100, b, t)
    result = m.run()
    assert result.fault is None, result.fault
    quotients = m.read("ub", 0x200, t, len(cases)).tolist()
    remainders = m.read("ub", 0x300, t, len(cases)).tolist()
    assert quotients == [q for _, _, q, _ in cases]
    assert remainders == [r for _, _, _, r in cases]


def test_inactive_lanes_of_a_register_division_are_zero():
    text = function("s32", 64).replace("PSET.b32 P0, ALL", "PSET.b32 P0, VL4").replace(
        "VST.s32 [S3], V2, P0", "PSET.b32 P1, ALL\n    VST.s32 [S3], V2, P1")
    m = vcore.load_text(text)
    m.write("ub", 0x0, np.full(64, 9, dtype=np.int32))
    m.write("ub", 0x100, np.full(64, 2, dtype=np.int32))
    assert m.run().fault is None
    assert m.read("ub", 0x200, "s32", 8).tolist() == [4, 4, 4, 4, 0, 0, 0, 0]


def test_the_floormod_sequence_of_13_7():
    # Python's % (the sign of the divisor): -7 % 2 = 1, 7 % -2 = -1, -7 % -2 = -1, 6 % -3 = 0
    a, b = [-7, 7, -7, 6, 7, -8], [2, -2, -2, -3, 2, 3]
    text = """\
    MOV S1, 0x0
    MOV S2, 0x100
    MOV S3, 0x200
    VF.BEGIN
    PSET.b32 P0, ALL
    VLD.s32 V0, [S1]
    VLD.s32 V1, [S2]
    VREM.s32  V2, V0, V1, P0
    VXOR.s32  V3, V2, V1, P0
    VCMPS.LT.s32 P1, V3, 0, P0
    VCMPS.NE.s32 P2, V2, 0, P0
    PAND P1, P1, P2
    VADD.s32  V4, V2, V1, P1
    VSEL.s32  V2, V4, V2, P1
    VST.s32 [S3], V2, P0
    VF.END
    HALT
"""
    m = vcore.load_text(text)
    m.write("ub", 0x0, np.array(a + [1] * 58, dtype=np.int32))
    m.write("ub", 0x100, np.array(b + [1] * 58, dtype=np.int32))
    assert m.run().fault is None
    assert m.read("ub", 0x200, "s32", 6).tolist() == [x % y for x, y in zip(a, b, strict=True)]


def test_tensor_forms_divide_and_keep_dst_outside_the_mask():
    text = "VDIV.s32 [0x200], [0x0], [0x100], repeat=1, mask=3\nVREM.s32 [0x300], [0x0], [0x100], mask=3\nHALT\n"
    m = vcore.load_text(text)
    m.write("ub", 0x0, np.array([-7, I32_MIN, 5, 8] + [0] * 60, dtype=np.int32))
    m.write("ub", 0x100, np.array([2, -1, 0, 2] + [1] * 60, dtype=np.int32))
    m.write("ub", 0x200, np.full(64, 77, dtype=np.int32))
    m.write("ub", 0x300, np.full(64, 77, dtype=np.int32))
    assert m.run().fault is None
    assert m.read("ub", 0x200, "s32", 4).tolist() == [-3, I32_MIN, -1, 77]
    assert m.read("ub", 0x300, "s32", 4).tolist() == [-1, 0, 5, 77]


@pytest.mark.parametrize("text", ["VDIV.s32 [0x200], [0x0], [0x100]\nHALT\n",
                                  "VREM.u16 [0x200], [0x0], [0x100]\nHALT\n"])
def test_the_a2_refuses_integer_division(text):
    mnemonic = text.split()[0]
    with pytest.raises(ProgramError, match=rf"{mnemonic.replace('.', '[.]')} needs the 950 profile: the a2 divides "
                                           r"only f16 and f32"):
        vcore.load_text(text, profile="a2")


@pytest.mark.parametrize("text", ["VDIV.s8 [0x200], [0x0], [0x100]\nHALT\n", "VREM.f32 [0x200], [0x0], [0x100]\n"])
def test_8_bit_and_float_remainders_are_assembly_errors(text):
    with pytest.raises(AsmError):
        vcore.load_text(text)


# Prices (13.9), from emulator/profiles/950.toml: register elements_per_cycle div = rem = 16 (every width),
# mul = sub = [.., 128, 64], int_div_extra = E (98: fitted to the FloorMod sample); tensor div = rem = [16,
# 16], mul = sub = [128, 64], sustained_divide = sustained_remainder = 1.0 (the pinned profile keeps them),
# tensor.startup = 1 and the pinned tensor.issue = 0. So, for 64 s32 lanes:
#   register VDIV.s32: ceil(64 / 16) + E cycles; VREM.s32: 4 + ceil(64 / 64) + ceil(64 / 64) + E
#   tensor VDIV.s32 an iteration: 64 / 16 + E; VREM.s32: 4 + 1 + 1 + E; per_pc cycles of one
#   iteration = that + startup; for 128 s16 lanes: VDIV 8 + E, VREM 8 + 1 + 1 + E
E = 98
@pytest.mark.parametrize(("text", "cycles"), [
    ("VDIV.s32 [0x10100], [0x0], [0x0]", 4 + E + 1), ("VREM.s32 [0x10100], [0x0], [0x0]", 6 + E + 1),
    ("VDIV.s16 [0x10100], [0x0], [0x0]", 8 + E + 1), ("VREM.u16 [0x10100], [0x0], [0x0]", 10 + E + 1),
    ("VDIV.f32 [0x10100], [0x0], [0x0]", 4 + 1),  # a float division adds nothing
])
def test_tensor_integer_division_prices(text, cycles):
    _, result, report = run_pinned(text + "\nHALT\n", "950")
    assert result.fault is None, result.fault
    assert row(report, text.split()[0] + " ")["cycles"] == cycles


def test_register_integer_division_prices():
    m = vcore.load_text("VF.BEGIN\nVDIV.s32 V2, V0, V1, P0\nVREM.s32 V3, V0, V1, P0\nVDIV.f32 V4, V0, V1, P0\n"
                        "VF.END\nHALT\n")
    costs = {m.instruction_at(pc).row.mnemonic + "." + m.instruction_at(pc).type.name: m.costs.register_cost(
        m.instruction_at(pc)).occupancy for pc in (8, 16, 24)}
    assert load_profile("950")["register"]["int_div_extra"] == E
    assert costs == {"VDIV.s32": 4 + E, "VREM.s32": 4 + 1 + 1 + E, "VDIV.f32": 4}


def test_an_integer_division_s_result_lands_after_its_software_sequence():
    """An integer VDIV's E cycles come before its result as well as holding its unit: a VDIV that needs
    the first's quotient starts at least E cycles after one that does not (outcome 3 of issue 32: a
    chain of dependent divisions costs what its latencies say)."""
    def cycles(second: str) -> int:
        m = vcore.load_text(f"VF.BEGIN\nPSET.b32 P0, ALL\nVDIV.s32 V2, V0, V1, P0\n{second}\nVF.END\nHALT\n")
        m.run()
        return m.report().total_cycles

    dependent = cycles("VDIV.s32 V3, V2, V1, P0")
    independent = cycles("VDIV.s32 V3, V0, V1, P0")
    assert dependent - independent >= E
