"""Prices of the register rearrangements and the histogram (CONTRACT 13.9): VINTLV and VDINTLV take 2
cycles (`register.interleave`), VPACK and VUNPACK 1 (`register.pack`), VHIST 8 (`register.histogram`,
256 u8 lanes at 32 a cycle); each issues alone (documented single-issue). VINTLV, VDINTLV, VPACK and
VUNPACK land after `alu_latency`; VHIST's counters `alu_latency` after its last cycle (assumed). The
figures are the contract's, written out here, and the profile keys must hold them."""

from __future__ import annotations

import pytest

import vcore

TEXT = """\
VF.BEGIN
VINTLV.u8 V2, V3, V0, V1
VDINTLV.f32 V2, V3, V0, V1
VPACK.u8.s16 V4, V0, part=hi
VUNPACK.s32.s16 V5, V0
VHIST.FREQ.BIN0 V6, V0, P0
VHIST.CUM.BIN1 V6, V0, P0
VADD.f16 V7, V0, V1, P0
VF.END
HALT
"""


@pytest.mark.parametrize("profile", ["950"])
def test_each_takes_its_documented_cycles_and_issues_alone(profile):
    m = vcore.load_text(TEXT, profile=profile)
    reg = m.profile["register"]
    assert (reg["interleave"], reg["pack"], reg["histogram"]) == (2, 1, 8)
    alu = reg["alu_latency"]
    seen = {}
    for pc in range(8, 64, 8):
        inst = m.instruction_at(pc)
        cost = m.costs.register_cost(inst)
        seen[f"{inst.row.mnemonic}.{inst.cond}" if inst.cond else inst.row.mnemonic] = (
            cost.occupancy, cost.latency, m.costs.single_issue(inst))
    assert seen == {"VINTLV": (2, alu, True), "VDINTLV": (2, alu, True), "VPACK": (1, alu, True),
                    "VUNPACK": (1, alu, True), "VHIST.FREQ.BIN0": (8, alu + 7, True),
                    "VHIST.CUM.BIN1": (8, alu + 7, True), "VADD": (1, alu, False)}
    assert m.run().fault is None


def test_the_second_histogram_waits_for_the_first():
    """VHIST reads the Vd it accumulates into: a second VHIST on the same Vd starts when the first's
    counters reach it through the bypass (8 cycles, then alu_latency, less forward_alu: an ALU result
    into an ALU instruction), so two take longer than two on different registers."""
    def cycles(second: str) -> int:
        m = vcore.load_text(f"VF.BEGIN\nVHIST.FREQ.BIN0 V1, V0, P0\n{second}\nVF.END\nHALT\n", profile="950")
        r = m.run()
        assert r.fault is None
        return r.total_cycles

    same, other = cycles("VHIST.FREQ.BIN1 V1, V0, P0"), cycles("VHIST.FREQ.BIN1 V2, V0, P0")
    reg = vcore.load_text("HALT\n", profile="950").profile["register"]
    assert same - other == reg["alu_latency"] - 1 - reg["forward_alu"]
