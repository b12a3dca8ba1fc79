"""Regressions of the 950 V scoreboard found by the random register sequences."""

import emu_support as E
import numpy as np

from vcore.assembler import assemble
from vcore.emulator import Machine


def test_pld_after_pst_of_the_same_bytes_waits_for_it():
    # PST stores P0 (lanes 0-2 of b8 set: bits 0..2 -> byte 0x07) to 0x100; PLD P1 from 0x100 must see
    # it, although both are one-cycle mask instructions that could otherwise issue in one cycle. Inside
    # a function (CONTRACT 7) a MEMBAR is what orders the two UB accesses; P1 is read back through the
    # harness's epilogue.
    m, r, regs = E.run_function("PSET.b8 P0, VL3\nPST [S1], P0\nMEMBAR\nPLD P1, [S1]", before="MOV S1, 0x100",
                                dump_p=[1])
    assert r.fault is None
    assert m.ub[0x100] == 0x07
    assert np.array_equal(np.flatnonzero(regs.p[1]), [0, 1, 2])
    assert not m.engine.race_check.races


def test_pld_after_pst_without_a_membar_is_a_race():
    # (P1 is used afterwards: a load whose register nothing reads cannot race)
    m = Machine(assemble("MOV S1, 0x100\nVF.BEGIN\nPSET.b8 P0, VL3\nPST [S1], P0\nPLD P1, [S1]\n"
                         "VST.u8 [0x200], V0, P1\nVF.END\n"), "950")
    r = m.run()
    assert r.fault is None
    assert [(x.kind, x.first["line"], x.second["line"], x.inside) for x in r.races] == [("RAW", 4, 5, True)]
