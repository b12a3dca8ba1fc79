"""Regressions of the 950 V scoreboard found by the random register sequences."""

import numpy as np

from assembler import assemble
from emulator import Machine


def test_pld_after_pst_of_the_same_bytes_waits_for_it():
    # PST stores P0 (lanes 0-2 of b8 set: bits 0..2 -> byte 0x07) to 0x100; PLD P1 from 0x100 must see
    # it, although both are one-cycle mask instructions that could otherwise issue in one cycle.
    m = Machine(assemble("MOV S1, 0x100\nPSET.b8 P0, VL3\nPST [S1], P0\nPLD P1, [S1]\n"), "950")
    r = m.run()
    assert r.fault is None
    assert m.ub[0x100] == 0x07
    assert np.array_equal(np.flatnonzero(m.p[1]), [0, 1, 2])
    assert not m.engine.races
