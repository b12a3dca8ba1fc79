"""Prices of compaction and sort (CONTRACT 13.9), worked out by hand from the figures the contract names:
VGATHERM 14 cycles an iteration on a2 (msKPP VREDUCEV2) and 7 on the 950 (a load, a Squeeze, a store:
assumed); VSORT32 16 cycles an iteration (32 records at 2 a cycle); VMRGSORT ceil(records written / 2);
VSQZ 5 cycles, issued alone, its result alu_latency + 5 later; CLRAR 1 cycle and register.mask_latency;
MOV Sd, RSVDCNT / AR / MRGCNTk one scalar.alu cycle. The pinned profiles set tensor.issue to 0; a tensor
instruction's per_pc cycles are then its iterations' cycles + tensor.startup (1).
"""

from __future__ import annotations

import pytest
from timing_support import row, run_pinned

import vcore


@pytest.mark.parametrize(("profile", "text", "cycles"), [
    ("a2", "VGATHERM.f16 [0x20000], [0x0], 1, repeat=3", 3 * 14 + 1),
    ("950", "VGATHERM.f16 [0x20000], [0x0], 1, repeat=3", 3 * 7 + 1),
    ("a2", "VGATHERM.u32 [0x20000], [0x0], [0x18000], repeat=2, mask=5", 2 * 14 + 1),
    ("950", "VSORT32.f32 [0x20000], [0x0], [0x10000], repeat=5", 5 * 16 + 1),
    ("a2", "VSORT32.f16 [0x20000], [0x0], [0x10000]", 16 + 1),
    # 32 + 33 = 65 records written: ceil(65 / 2) = 33
    ("950", "VMRGSORT.f32 [0x20000], [0x0], [0x100], len=(32, 33)", 33 + 1),
    # 4 queues of 8, repeat=3: 96 records, 48 cycles
    ("a2", "VMRGSORT.f16 [0x20000], [0x0], [0x40], [0x80], [0xC0], len=(8, 8, 8, 8), repeat=3", 48 + 1),
])
def test_tensor_prices(profile, text, cycles):
    _, result, report = run_pinned(text + "\nHALT\n", profile)
    assert result.fault is None, result.fault
    assert row(report, text.split()[0] + " ")["cycles"] == cycles


def test_a_stopped_merge_costs_the_records_it_writes():
    """stop=1: queue 1 (one record, the highest score) empties after the first record: 1 written, 1 cycle;
    with all scores 0, queue 0 wins every tie and empties after its 5 records: ceil(5 / 2) = 3."""
    text = "VMRGSORT.f32 [0x20000], [0x0], [0x100], len=(5, 1), stop=1\nHALT\n"
    from timing_support import pinned

    from vcore.assembler import assemble
    from vcore.emulator import Machine
    from vcore.emulator.report import build_report

    for score, cycles in ((1.0, 1 + 1), (0.0, 3 + 1)):
        m = Machine(assemble(text), pinned("950"))
        m.write("ub", 0x100, [score, 0], "f32")
        result = m.run()
        assert result.fault is None
        assert row(build_report(result).to_json(), "VMRGSORT")["cycles"] == cycles


def test_register_prices():
    m = vcore.load_text("VF.BEGIN\nVSQZ.f32 V0, V1, P0\nVSQZ.s8 V0, V1, P0, ar\nCLRAR\nVSQZ.u16 V2, V1, P0\n"
                        "VF.END\nMOV S1, RSVDCNT\nMOV S2, AR\nMOV S3, MRGCNT2\nHALT\n")
    reg = m.profile["register"]
    seen = [(m.costs.register_cost(m.instruction_at(pc)), m.costs.single_issue(m.instruction_at(pc)))
            for pc in (8, 16, 24, 32)]
    assert [(c.occupancy, c.latency, alone) for c, alone in seen] == [
        (5, reg["alu_latency"] + 5, True), (5, reg["alu_latency"] + 5, True), (1, reg["mask_latency"], False),
        (5, reg["alu_latency"] + 5, True)]
    assert [m.costs.s_cycles(m.instruction_at(pc)) for pc in (48, 56, 64)] == [m.profile["scalar"]["alu"]] * 3
    assert m.profile["scalar"]["alu"] == 1


def test_profile_values_are_the_contracts():
    for name, gathermask in (("a2", 14), ("950", 7)):
        p = vcore.load_text("HALT\n", profile=name).profile
        assert (p["tensor"]["gathermask"], p["tensor"]["sort32"], p["tensor"]["mrgsort"]) == (gathermask, 16, 0.5)
        assert (p["register"]["squeeze"], p["register"]["squeeze_single_issue"]) == (5, True)
