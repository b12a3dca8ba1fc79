"""Races inside a vector function count only the lanes of a load that are used (issue 28, item 3).

A full-width VLD reads 256 bytes. When some of them are written by an unordered store, but the
lanes they land in are masked out of every instruction that reads the register before it is written
again (or the function ends), no value can depend on the race: it is not reported. A race where a
used lane reads the bytes is reported exactly as before. Granularity is the byte, as for every race
inside a function (CONTRACT 13.12, docs/timing.md): a lane is used when a later instruction of a masked
family reads it under its mask (an element lane of the instruction's type), or any instruction
reads the register some other way (all lanes then).

Expected results are worked out by hand from those rules (which bytes each lane is in; the cases here
use whole blocks, so bytes and blocks agree) and, for the data, with numpy from the inputs.
"""

from __future__ import annotations

import numpy as np
import pytest

import vcore
from vcore.emulator.functions import launch as functions
from vcore.emulator.functions import races as function_races


def run(text: str, ub: dict | None = None, **kwargs):
    m = vcore.load_text(text)
    for addr, data in (ub or {}).items():
        m.write("ub", addr, np.ascontiguousarray(data).view(np.uint8))
    r = m.run(**kwargs)
    assert r.fault is None, r.fault
    return m, r


def races(m) -> list:
    return [(x.kind, x.first["line"], x.second["line"], x.start, x.end) for x in m.races()]


def line_of(text: str, needle: str) -> int:
    hits = [i + 1 for i, line in enumerate(text.splitlines()) if needle in line]
    assert len(hits) == 1, (needle, hits)
    return hits[0]


# ----------------------------------------------------------------------------------------------
# The case: a cumsum port over rows of 160 f32, in place, down the columns.

ROWS = 6
ROW_BYTES = 160 * 4
CUMSUM = """\
    MOV S1, 0x1000              ; the tile: {rows} rows of 160 f32, summed in place down its columns
    MOV S2, 0x1000
VF.BEGIN
    PSET.b32 P0, ALL
    PSET.b32 P1, {tail}         ; the row's last 32 columns
    LOOP {rows}
        VLD.f32 V0, [S1]
        VLD.f32 V1, [S1 + 256]
        VLD.f32 V2, [S1 + 512], post=160    ; 64 lanes: the row's last 32, then the next row's first 32
        VADD.f32 V10, V10, V0, P0
        VADD.f32 V11, V11, V1, P0
        VADD.f32 V12, V12, V2, P1
        VST.f32 [S2], V10, P0
        VST.f32 [S2 + 256], V11, P0
        VST.f32 [S2 + 512], V12, P1, post=160
    ENDLOOP
VF.END
    HALT
"""


def _tile(rows: int) -> np.ndarray:
    rng = np.random.default_rng(28)
    return rng.uniform(-4, 4, size=(rows + 1, 160)).astype(np.float32)  # one row more: the last load's tail


def _cumsum(x: np.ndarray) -> np.ndarray:
    out, acc = x.copy(), np.zeros(160, dtype=np.float32)
    for r in range(len(x)):
        acc = (acc + x[r]).astype(np.float32)
        out[r] = acc
    return out


def test_a_cumsum_over_rows_of_160_f32_has_no_race():
    # The third VLD of row r reads 128 bytes of row r + 1, which row r + 1's first VST writes and
    # nothing orders; but those are lanes 32..63 of V2, and the only instruction that reads V2 (the
    # VADD under P1 = lanes 0..31) leaves them out, and the next pass's VLD writes V2 again.
    x = _tile(ROWS)
    text = CUMSUM.format(rows=ROWS, tail="VL32")
    m, r = run(text, {0x1000: x})
    assert races(m) == [], m.races()
    assert m.report().to_json()["races"] == []
    got = m.read("ub", 0x1000, "f32", ROWS * 160).reshape(ROWS, 160)
    np.testing.assert_array_equal(got, _cumsum(x[:ROWS]))


def test_the_cumsum_using_every_lane_of_its_tail_load_races():
    # With the VADD under P0 it reads lanes 32..63 of V2 too: row r + 1's first VST writes those bytes
    # unordered, a WAR on the first 128 bytes of row 1 (the first pair found names the race).
    text = CUMSUM.format(rows=ROWS, tail="VL32").replace("VADD.f32 V12, V12, V2, P1", "VADD.f32 V12, V12, V2, P0")
    m, r = run(text, {0x1000: _tile(ROWS)})
    load, store = line_of(text, "VLD.f32 V2"), line_of(text, "VST.f32 [S2], V10")
    assert races(m) == [("WAR", load, store, 0x1000 + ROW_BYTES, 0x1000 + ROW_BYTES + 128)]


# ----------------------------------------------------------------------------------------------
# RAW and WAR on lanes that are, or are not, used

RAW = """\
.ubfill 0x0, f32, 64, 2.0
.ubfill 0x1000, f32, 128, 1.0
VF.BEGIN
    PSET.b32 P0, ALL
    PSET.b32 P1, {mask}
    VLD.f32 V0, [0x0]
    VST.f32 [0x1080], V0, P0        ; writes 0x1080..0x1180
    VLD.f32 V1, [0x1000]            ; reads 0x1000..0x1100: lanes 32..63 are 0x1080..0x1100
    VADD.f32 V2, V1, V1, P1
    VST.f32 [0x2000], V2, P1
VF.END
    HALT
"""


@pytest.mark.parametrize(("mask", "found"), [
    ("VL32", []),  # lanes 0..31: blocks 0x1000..0x1080, which the store does not write
    ("ALL", [("RAW", 7, 8, 0x1080, 0x1100)]),  # lanes 32..63 too: the four blocks both touch
    ("VL16", []),
    ("VL64", [("RAW", 7, 8, 0x1080, 0x1100)]),  # (64 lanes of b32 is all of them)
])
def test_a_raw_counts_only_the_used_lanes_of_the_load(mask, found):
    m, r = run(RAW.format(mask=mask))
    assert races(m) == found


def test_a_raw_counts_the_lanes_of_the_type_the_mask_is_read_at():
    # b16 lanes: VL64 is lanes 0..63 of f16, bytes 0..127 of V1 (0x1000..0x1080): unused by the store.
    # VL128 is all of them, bytes 0..255: the store's blocks 0x1080..0x1100 are read.
    text = RAW.replace("PSET.b32 P1", "PSET.b16 P1").replace("VADD.f32 V2, V1, V1, P1", "VADD.f16 V2, V1, V1, P1")
    assert races(run(text.format(mask="VL64"))[0]) == []
    assert races(run(text.format(mask="VL128"))[0]) == [("RAW", 7, 8, 0x1080, 0x1100)]


WAR = """\
.ubfill 0x1000, f32, 128, 1.0
VF.BEGIN
    PSET.b32 P0, ALL
    PSET.b32 P1, {mask}
    VLD.f32 V1, [0x1000]            ; reads 0x1000..0x1100
    VST.f32 [0x10c0], V5, P0        ; writes 0x10c0..0x11c0, unordered with the load
    VADD.f32 V2, V1, V1, P1
    VST.f32 [0x2000], V2, P1
VF.END
    HALT
"""


@pytest.mark.parametrize(("mask", "found"), [
    ("VL32", []),  # the used lanes end at 0x1080
    ("VL64", [("WAR", 5, 6, 0x10c0, 0x1100)]),
])
def test_a_war_counts_only_the_used_lanes_of_the_load(mask, found):
    assert races(run(WAR.format(mask=mask))[0]) == found


def test_a_load_no_instruction_reads_cannot_race():
    # V1 is never read: neither the RAW of the store before it nor the WAR of the one after it counts.
    text = """\
VF.BEGIN
    PSET.b32 P0, ALL
    VST.f32 [0x1000], V0, P0
    VLD.f32 V1, [0x1000]
    VST.f32 [0x1000], V0, P0
VF.END
    HALT
"""
    m, r = run(text)
    assert races(m) == [("WAW", 3, 5, 0x1000, 0x1100)]  # the two stores still race with each other


def test_a_later_wider_use_makes_the_lanes_live():
    # The first VADD uses lanes 0..31 only, the second every lane, before V1 is written again.
    text = RAW.format(mask="VL32").replace("    VST.f32 [0x2000], V2, P1\n",
                                           "    VST.f32 [0x2000], V2, P1\n    VADD.f32 V3, V1, V1, P0\n"
                                           "    VST.f32 [0x3000], V3, P0\n")
    assert races(run(text)[0]) == [("RAW", 7, 8, 0x1080, 0x1100)]


def test_a_use_after_the_register_is_written_again_does_not_count():
    # After the VLD into V1 from 0x4000, the full-width VADD reads that load's lanes, not the first's.
    text = RAW.format(mask="VL32").replace("    VST.f32 [0x2000], V2, P1\n",
                                           "    VST.f32 [0x2000], V2, P1\n    VLD.f32 V1, [0x4000]\n"
                                           "    VADD.f32 V3, V1, V1, P0\n    VST.f32 [0x3000], V3, P0\n")
    assert races(run(text)[0]) == []


def test_an_instruction_outside_the_masked_families_uses_every_lane():
    # VSEL picks between its sources lane by lane under P1: it reads V1 whole (a select, not a
    # masked family), so lanes 32..63 are used.
    text = RAW.format(mask="VL32").replace("VADD.f32 V2, V1, V1, P1", "VSEL.f32 V2, V1, V0, P1")
    assert races(run(text)[0]) == [("RAW", 7, 8, 0x1080, 0x1100)]


def test_a_store_counts_only_the_lanes_its_mask_writes_of_a_loaded_register():
    # The loaded register goes straight to a store under P1: a store reads only its active lanes.
    text = RAW.format(mask="VL32").replace("    VADD.f32 V2, V1, V1, P1\n    VST.f32 [0x2000], V2, P1\n",
                                           "    VST.f32 [0x2000], V1, P1\n")
    assert races(run(text)[0]) == []


@pytest.mark.parametrize(("lanes", "found"), [
    ("PSET.b32 P1, VL8", None),                                  # register block 0: UB 0x1000..0x101F
    ("PSET.b32 P1, VL64", (0x1100, 0x11e0)),                     # blocks 4..7: 0x1100, 0x1140, ...
    ("PUPDATE.b32 P1, S4\n    PSET.b32 P2, VL32\n    PXOR P1, P1, P2", (0x1100, 0x1120)),
])
def test_a_block_mode_load_counts_the_bytes_of_its_used_lanes_block_by_block(lanes, found):
    # blk=2: the register's 8 datablocks come from 8 blocks 64 bytes apart (0x1000, 0x1040, ...); lane
    # i of b32 is bytes 4i..4i+3 of register block i // 8, so of UB block 0x1000 + 64 * (i // 8). The
    # store before it writes 0x1100..0x11FF, which holds register blocks 4..7 (0x1100, 0x1140, 0x1180,
    # 0x11C0). Lanes 0..7 are all in block 0: no race. Every lane: blocks 4..7 meet the store: a RAW
    # on 0x1100..0x11DF. Lanes 32..39 (40 lanes xor the first 32): block 4 alone, 0x1100..0x111F.
    # (Issue 28 counted all eight blocks once any lane was used; 13.12's bytes map each lane.)
    text = f"""\
    MOV S4, 40
VF.BEGIN
    PSET.b32 P0, ALL
    {lanes}
    VST.f32 [0x1100], V0, P0
    VLD.f32 V1, [0x1000], blk=2
    VADD.f32 V2, V1, V1, P1
    VST.f32 [0x2000], V2, P1
VF.END
    HALT
"""
    want = [] if found is None else [("RAW", line_of(text, "[0x1100]"), line_of(text, "blk=2"), *found)]
    assert races(run(text)[0]) == want
    unused = text.replace("    VADD.f32 V2, V1, V1, P1\n    VST.f32 [0x2000], V2, P1\n", "")
    assert races(run(unused)[0]) == []


def test_a_load_held_live_past_the_limit_counts_every_lane(monkeypatch):
    # V1 stays live (read under VL32 each pass) across the loop: in a launch laid out a chunk at a
    # time, a load still live past the limit of instructions is checked with every lane, so the
    # unused lanes' RAW is named then (it would be held forever). Small limits here, so 8 passes do.
    text = """\
.ubfill 0x1000, f32, 128, 1.0
VF.BEGIN
    PSET.b32 P0, ALL
    PSET.b32 P1, VL32
    VST.f32 [0x1080], V0, P0
    VLD.f32 V1, [0x1000]
    LOOP 8
        VADD.f32 V2, V1, V1, P1
        VST.f32 [0x2000], V2, P1
    ENDLOOP
VF.END
    HALT
"""
    assert races(run(text)[0]) == [("WAW", 9, 9, 0x2000, 0x2080)]
    monkeypatch.setattr(functions, "CHUNK", 4)
    assert races(run(text)[0]) == [("WAW", 9, 9, 0x2000, 0x2080)]  # laid out in chunks: the same
    monkeypatch.setattr(function_races, "_LIVE_LIMIT", 4)
    assert races(run(text)[0]) == [("RAW", 5, 6, 0x1080, 0x1100), ("WAW", 9, 9, 0x2000, 0x2080)]


@pytest.mark.parametrize("used", ["P1", "P0"])
def test_a_paused_run_finds_the_same_races(used):
    # The debugger steps through the function one instruction at a time: the same rules apply, and
    # a whole run finds the same (none under P1; under P0 the WAR of the cumsum above, on row 1).
    text = CUMSUM.format(rows=3, tail="VL32").replace("VADD.f32 V12, V12, V2, P1", f"VADD.f32 V12, V12, V2, {used}")
    load, store = line_of(text, "VLD.f32 V2"), line_of(text, "VST.f32 [S2], V10")
    want = [] if used == "P1" else [("WAR", load, store, 0x1000 + ROW_BYTES, 0x1000 + ROW_BYTES + 128)]
    m = vcore.load_text(text)
    m.write("ub", 0x1000, _tile(3).view(np.uint8))
    r = m.run(pause_after=1)
    while r.paused:
        r = m.run(pause_after=m.executed + 1)
    assert races(m) == want
    assert races(run(text, {0x1000: _tile(3)})[0]) == want
