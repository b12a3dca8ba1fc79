"""Prices of the predicate instructions of CONTRACT 13.2 (13.9): each takes 1 cycle of the execute unit
and lands after `register.mask_latency`; PPACK, PUNPACK, PINTLV and PDINTLV issue alone (the documented
MaskReg single-issue rule), PSEL pairs like PAND."""

from __future__ import annotations

import pytest

import vcore

TEXT = """\
VF.BEGIN
PSEL P3, P1, P2, P0
PPACK P1, P0, part=hi
PUNPACK P1, P0
PINTLV.b16 P2, P3, P0, P1
PDINTLV.b32 P2, P3, P0, P1
PAND P4, P1, P2
VF.END
HALT
"""


@pytest.mark.parametrize("profile", ["950"])
def test_each_takes_one_cycle_and_the_rearrangements_issue_alone(profile):
    m = vcore.load_text(TEXT, profile=profile)
    mask_latency = m.profile["register"]["mask_latency"]
    seen = {}
    for pc in range(8, 56, 8):
        inst = m.instruction_at(pc)
        cost = m.costs.register_cost(inst)
        seen[inst.row.mnemonic] = (cost.occupancy, cost.latency, m.costs.single_issue(inst))
    assert seen == {"PSEL": (1, mask_latency, False), "PPACK": (1, mask_latency, True),
                    "PUNPACK": (1, mask_latency, True), "PINTLV": (1, mask_latency, True),
                    "PDINTLV": (1, mask_latency, True), "PAND": (1, mask_latency, False)}
    assert m.run().fault is None
