"""Prices of the distribution modes (CONTRACT 13.9, 13.1's issue rule): a load of any mode but ds_* and
dintlv_* takes 1 cycle of the load unit and is dual-issue; ds_* and dintlv_* read 512 bytes and take
``register.dual_load`` (2, assumed) cycles and issue alone; every store issues alone and takes 1 cycle,
``register.dual_store`` (2, assumed) for intlv_*; PLD and PST take 1 cycle (PST alone) whatever their
mode; the latencies are the load's, the store's and ``mask_latency``."""

from __future__ import annotations

import vcore

TEXT = """\
MOV S1, 0x1000
VF.BEGIN
PSET.b32 P0, ALL
VLD.f32 V0, [S1], dist=brc_b32
VLD.u8 V1, [S1], dist=ds_b8
VLD.u16 V2, V3, [S1], dist=dintlv_b16
VLD.u8 V4, [S1], dist=unpack4_b8
VST.s8 [S1], V0, P0, dist=pack4_b32
VST.u16 [S1], V2, V3, dist=intlv_b16
VST.f32 [S1], V0, dist=first_b32
VST.f32 [S1], V0, P0
PLD P1, [S1], dist=ds
PST [S1], P1, dist=pack
VF.END
HALT
"""


def test_each_mode_costs_what_13_9_says():
    m = vcore.load_text(TEXT, profile="950")
    reg = m.profile["register"]
    assert (reg["dual_load"], reg["dual_store"]) == (2, 2)  # the assumed figures of 13.9
    load, store, mask = reg["load_latency"], reg["store_latency"], reg["mask_latency"]
    seen = []
    for pc in range(0x18, 0x68, 8):
        inst = m.instruction_at(pc)
        cost = m.costs.register_cost(inst)
        seen.append((cost.occupancy, cost.latency, m.costs.single_issue(inst)))
    assert seen == [(1, load, False), (2, load, True), (2, load, True), (1, load, False),
                    (1, store, True), (2, store, True), (1, store, True), (1, store, True),
                    (1, mask, False), (1, mask, True)]
    assert m.run().fault is None


def _cycles(load: str) -> int:
    m = vcore.load_text(f"MOV S1, 0x1000\nVF.BEGIN\nLOOP 64\n{load}\nENDLOOP\nVF.END\nHALT\n", profile="950")
    r = m.run()
    assert r.fault is None
    return r.total_cycles


def test_a_stream_of_wide_loads_takes_twice_the_cycles():
    """64 loads of 512 bytes hold the one load unit 2 cycles each: about 64 cycles more than 64 of 128."""
    narrow, wide = _cycles("VLD.u8 V0, [S1], dist=us_b8"), _cycles("VLD.u8 V0, [S1], dist=ds_b8")
    assert 60 <= wide - narrow <= 70, (narrow, wide)
