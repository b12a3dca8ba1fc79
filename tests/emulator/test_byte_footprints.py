"""Race footprints inside a vector function are the bytes an access touches (CONTRACT 13.12, section 7).

13.12: "Its footprint in UB (sections 3.7 and 12) is exactly the bytes it writes: the bytes of active
lanes for the masked modes (norm, pack_*, pack4_b32), w bytes for first_*, all 512 bytes for intlv_*.
A partial last pass of a pack store therefore does not race with the next row's first store when
their written bytes are disjoint." Section 7: an access that touches bytes an earlier unordered
access of the same function wrote (or a write to bytes an earlier one read) is a race. A load counts
the bytes of its lanes that a later instruction uses (issue 28).

So two accesses that share a 32-byte block but no byte do not race, and two that share a byte race,
named on the bytes where they meet. Every expected outcome below is worked out by hand from the byte
ranges in the comments (13.1's tables give what each mode reads and writes).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st

import vcore
from vcore.emulator.functions import launch as functions

FILL = 0xAB  # what UB holds around the bytes under test before the function runs


def run(text: str, ub: dict | None = None, **kwargs):
    m = vcore.load_text(text)
    for addr, data in (ub or {}).items():
        m.write("ub", addr, np.ascontiguousarray(data).view(np.uint8))
    r = m.run(**kwargs)
    assert r.fault is None, r.fault
    return m


def races(m) -> list:
    return [(x.kind, x.first["line"], x.second["line"], x.start, x.end) for x in m.races()]


def line_of(text: str, needle: str) -> int:
    hits = [i + 1 for i, line in enumerate(text.splitlines()) if needle in line]
    assert len(hits) == 1, (needle, hits)
    return hits[0]


def f32(*values) -> np.ndarray:
    return np.array(values, dtype="<f4")


FILLED = {0x1000: np.full(64, FILL, dtype=np.uint8)}  # 0x1000..0x103F: two blocks


# ----------------------------------------------------------------------------------------------
# first_* stores: w bytes

TWO_FIRSTS = """\
VF.BEGIN
    VLD.f32 V0, [0x0]
    VLD.f32 V1, [0x100]
    VST.f32 [0x1000], V0, dist=first_b32       ; bytes 0x1000..0x1003
    VST.f32 [{second:#x}], V1, dist=first_b32       ; bytes {second:#x}..+3
VF.END
HALT
"""


def test_two_first_b32_stores_four_bytes_apart_in_one_block_do_not_race():
    # 0x1000..0x1003 and 0x1004..0x1007: one block, no byte in common, no MEMBAR: no race; both land,
    # the other 24 bytes of the block keep their fill.
    m = run(TWO_FIRSTS.format(second=0x1004), {0x0: f32(*[1.5] * 64), 0x100: f32(*[2.5] * 64), **FILLED})
    assert races(m) == []
    assert m.read("ub", 0x1000, "f32", 2).tolist() == [1.5, 2.5]
    assert m.read("ub", 0x1008, "u8", 24).tolist() == [FILL] * 24


def test_two_first_b32_stores_to_the_same_bytes_race_on_those_bytes():
    # both write 0x1000..0x1003: a WAW between them, named on those 4 bytes.
    text = TWO_FIRSTS.format(second=0x1000)
    m = run(text, {0x0: f32(*[1.5] * 64), 0x100: f32(*[2.5] * 64)})
    assert races(m) == [("WAW", 4, 5, 0x1000, 0x1004)]


def test_a_row_loop_of_first_b32_stores_one_float_apart_does_not_race():
    # The per-row scale of a quantization: pass p stores lane 0 (p + 1, after the VADDS) at
    # 0x1000 + 4p. Twelve passes write 0x1000..0x102F (blocks 0x1000 and 0x1020), each pass 4 bytes
    # none of the others writes: no race, whatever the blocks.
    text = """\
    MOV S1, 0x1000
VF.BEGIN
    PSET.b32 P0, ALL
    LOOP 12
        VADDS.f32 V0, V0, 1.0, P0
        VST.f32 [S1], V0, dist=first_b32, post=1
    ENDLOOP
VF.END
HALT
"""
    m = run(text, FILLED)
    assert races(m) == []
    assert m.read("ub", 0x1000, "f32", 12).tolist() == [float(p + 1) for p in range(12)]
    assert m.read("ub", 0x1030, "u8", 16).tolist() == [FILL] * 16


# ----------------------------------------------------------------------------------------------
# pack stores: the bytes of their active lanes

PACK_THEN_FIRST = """\
    MOV S4, 20
VF.BEGIN
    PUPDATE.b32 P0, S4                         ; 32-bit lanes 0..19
    VLD.u8 V0, [0x0]                           ; byte k = k
    VLD.u32 V1, [0x100]
    VST.s8 [0x1000], V0, P0, dist=pack4_b32    ; byte 0x1000 + i = byte 4i of V0, i = 0..19: 0x1000..0x1013
    VST.u32 [{addr:#x}], V1, dist=first_b32       ; bytes {addr:#x}..+3
VF.END
HALT
"""
PACK_UB = {0x0: np.arange(256, dtype=np.uint8), 0x100: np.full(64, 0xDEADBEEF, dtype="<u4"), **FILLED}


def test_a_partial_pack_store_beside_a_store_in_its_block_does_not_race():
    # The pack store writes 0x1000..0x1013 (20 lanes); the first_b32 store 0x1014..0x1017, in the
    # same block: disjoint, no race (13.12's partial last pass). Bytes: 0, 4, ..., 76, then the u32,
    # then the fill.
    m = run(PACK_THEN_FIRST.format(addr=0x1014), PACK_UB)
    assert races(m) == []
    assert m.read("ub", 0x1000, "u8", 20).tolist() == list(range(0, 80, 4))
    assert int(m.read("ub", 0x1014, "u32", 1)[0]) == 0xDEADBEEF
    assert m.read("ub", 0x1018, "u8", 8).tolist() == [FILL] * 8


def test_a_partial_pack_store_and_a_store_on_its_last_bytes_race_on_them():
    # first_b32 at 0x1010 writes 0x1010..0x1013, the pack store's lanes 16..19: a WAW on those 4 bytes.
    text = PACK_THEN_FIRST.format(addr=0x1010)
    m = run(text, PACK_UB)
    assert races(m) == [("WAW", line_of(text, "pack4_b32"), line_of(text, "first_b32"), 0x1010, 0x1014)]


@pytest.mark.parametrize(("second", "race"), [("PNOT P1, P0", None), ("PSET.b32 P1, VL32", (0x1014, 0x1020))])
def test_two_pack_stores_to_one_address_race_only_where_their_lanes_meet(second, race):
    # Both pack4_b32 stores at 0x1000 (64 bytes, blocks 0x1000 and 0x1020). P0: lanes 0..19, bytes
    # 0x1000..0x1013. PNOT P1, P0: lanes 20..63 (entry 4i clear in P0 exactly for i >= 20), bytes
    # 0x1014..0x103F: disjoint from P0's, though they share the block 0x1000: no race, and the two
    # together write byte 4i of V0 at 0x1000 + i for all 64 i. VL32: lanes 0..31, bytes
    # 0x1000..0x101F, which meet P0's on 0x1000..0x1013: a WAW there.
    text = f"""\
    MOV S4, 20
VF.BEGIN
    PUPDATE.b32 P0, S4
    {second}
    VLD.u8 V0, [0x0]
    VST.s8 [0x1000], V0, P0, dist=pack4_b32
    VST.s8 [0x1000], V0, P1, dist=pack4_b32
VF.END
HALT
"""
    m = run(text, {0x0: np.arange(256, dtype=np.uint8), **FILLED})
    if race is None:
        assert races(m) == []
        assert m.read("ub", 0x1000, "u8", 64).tolist() == list(range(0, 256, 4))
    else:
        assert races(m) == [("WAW", 6, 7, 0x1000, 0x1014)]


# ----------------------------------------------------------------------------------------------
# loads: the bytes their used lanes read

FIRST_THEN_LOAD = """\
VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V0, [0x0]
    VST.f32 [0x1004], V0, dist=first_b32       ; bytes 0x1004..0x1007
    VLD.f32 V2, [{addr:#x}], dist=brc_b32       ; bytes {addr:#x}..+3, to every lane
    VADD.f32 V3, V2, V2, P0
    VST.f32 [0x2000], V3, P0
VF.END
HALT
"""


def test_a_load_of_the_bytes_a_first_store_wrote_is_a_raw_on_them():
    text = FIRST_THEN_LOAD.format(addr=0x1004)
    m = run(text, {0x0: f32(*[1.5] * 64)})
    assert races(m) == [("RAW", 4, 5, 0x1004, 0x1008)]


def test_a_load_of_other_bytes_of_that_block_does_not_race():
    # brc_b32 at 0x1008 reads 0x1008..0x100B; the store wrote 0x1004..0x1007: no race. The load reads
    # the 3.0 put there before the function: 6.0 in every lane.
    m = run(FIRST_THEN_LOAD.format(addr=0x1008), {0x0: f32(*[1.5] * 64), 0x1000: f32(0.0, 0.0, 3.0)})
    assert races(m) == []
    assert m.read("ub", 0x2000, "f32", 64).tolist() == [6.0] * 64
    assert m.read("ub", 0x1004, "f32", 1).tolist() == [1.5]


@pytest.mark.parametrize(("lanes", "race"), [("VL4", False), ("VL8", True)])
def test_a_full_load_counts_the_bytes_of_its_used_lanes(lanes, race):
    # first_b32 at 0x101C writes 0x101C..0x101F: 32-bit lane 7 of the VL at 0x1000. The load's only
    # use is a store under VL4 (lanes 0..3: bytes 0x1000..0x100F: no race) or VL8 (lanes 0..7:
    # bytes 0x1000..0x101F, which hold 0x101C..0x101F: a RAW there).
    text = f"""\
VF.BEGIN
    PSET.b32 P1, {lanes}
    VLD.f32 V0, [0x0]
    VST.f32 [0x101C], V0, dist=first_b32
    VLD.f32 V2, [0x1000]
    VST.f32 [0x2000], V2, P1
VF.END
HALT
"""
    m = run(text, {0x0: f32(*[1.5] * 64), 0x1000: f32(*range(64))})
    if race:
        assert races(m) == [("RAW", 4, 5, 0x101C, 0x1020)]
    else:
        assert races(m) == []
        assert m.read("ub", 0x2000, "f32", 4).tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize(("addr", "race"), [(0x1008, None), (0x1006, (0x1006, 0x1008))])
def test_an_unpacking_load_counts_the_ub_bytes_its_used_lanes_come_from(addr, race):
    # unpack_b16 at 0x1000: 32-bit lane i = the u16 at 0x1000 + 2i. Its use, a store under VL4 of
    # b32, uses lanes 0..3: UB bytes 0x1000..0x1007. first_b16 at 0x1008 writes 0x1008..0x1009:
    # none of them, no race; at 0x1006 it writes 0x1006..0x1007: a RAW on those.
    text = f"""\
VF.BEGIN
    PSET.b32 P1, VL4
    VLD.u16 V0, [0x0]
    VST.u16 [{addr:#x}], V0, dist=first_b16
    VLD.u16 V2, [0x1000], dist=unpack_b16
    VST.u32 [0x2000], V2, P1
VF.END
HALT
"""
    m = run(text, {0x0: np.full(128, 7, dtype="<u2"), 0x1000: np.arange(64, dtype="<u2")})
    if race is None:
        assert races(m) == []
        assert m.read("ub", 0x2000, "u32", 4).tolist() == [0, 1, 2, 3]
    else:
        assert races(m) == [("RAW", 4, 5, *race)]


@pytest.mark.parametrize(("addr", "race"), [(0x1050, None), (0x1000, None), (0x1048, (0x1048, 0x104C))])
def test_a_load_by_datablock_counts_the_bytes_of_its_used_lanes(addr, race):
    # blk=2: register block j is the UB block at 0x1000 + 64j. Its only use, a store under lanes 8..11
    # of b32 (lanes 0..11 xor lanes 0..7), uses register bytes 32..47: bytes 0..15 of register block
    # 1, UB 0x1040..0x104F. A first_b32 store at 0x1050 or at 0x1000 (block 0, no lane used) misses
    # them; at 0x1048 it writes two of the used lanes' 4 bytes: a RAW on 0x1048..0x104B.
    text = f"""\
    MOV S4, 12
VF.BEGIN
    PUPDATE.b32 P1, S4
    PSET.b32 P2, VL8
    PXOR P3, P1, P2
    VLD.f32 V0, [0x0]
    VST.f32 [{addr:#x}], V0, dist=first_b32
    VLD.f32 V2, [0x1000], blk=2
    VST.f32 [0x2000], V2, P3
VF.END
HALT
"""
    m = run(text, {0x0: f32(*[1.5] * 64), 0x1000: f32(*range(64))})
    if race is None:
        assert races(m) == []
        # lanes 8..11 are block 1's first 4 floats: 0x1040 = float 16 of the input
        assert m.read("ub", 0x2020, "f32", 4).tolist() == [16.0, 17.0, 18.0, 19.0]
    else:
        assert races(m) == [("RAW", line_of(text, "first_b32"), line_of(text, "blk=2"), *race)]


@pytest.mark.parametrize(("addr", "race"), [(0x1008, None), (0x1004, (0x1004, 0x1008))])
def test_a_store_after_a_load_races_only_on_the_bytes_the_load_read(addr, race):
    # brc_b32 reads 0x1004..0x1007 (its lanes are used); then a first_b32 store of V5 (not computed from
    # the load: no register dependency orders them) writes addr..addr+3: a WAR only on shared bytes.
    text = f"""\
VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V2, [0x1004], dist=brc_b32
    VADD.f32 V3, V2, V2, P0
    VST.f32 [0x2000], V3, P0
    VST.f32 [{addr:#x}], V5, dist=first_b32
VF.END
HALT
"""
    m = run(text, {0x1000: f32(0.0, 2.0)})
    if race is None:
        assert races(m) == []
        assert m.read("ub", 0x2000, "f32", 2).tolist() == [4.0, 4.0]
    else:
        assert races(m) == [("WAR", 3, 6, *race)]


# ----------------------------------------------------------------------------------------------
# a loop in closed form notes the bytes of its passes

@pytest.mark.parametrize(("addr", "race"), [
    (0x1000 + 3 * 256 + 16, None),                    # pass 3's store block, bytes its store did not write
    (0x1000 + 3 * 256 + 12, ("WAW", 0x130C, 0x1310)),  # its lane 3
    (0x8000 + 5 * 256 + 16, None),                    # pass 5's load block, lanes no one used
    (0x8000 + 5 * 256 + 8, ("WAR", 0x8508, 0x850C)),   # its lane 2, used
])
@pytest.mark.parametrize("fast", [True, False])
def test_a_loop_under_a_partial_mask_meets_later_stores_on_its_bytes(addr, race, fast):
    # Each of 20 passes loads the VL at 0x8000 + 256p and stores lanes 0..3 (VL4 of b32: bytes 0..15
    # of the VL) at 0x1000 + 256p; the load's lanes 0..3 alone are used. After the loop, with no
    # MEMBAR, a first_b32 store writes addr..addr+3. The loop runs in closed form (``fast``: all its
    # passes but the last at once) or pass by pass: the same races either way.
    text = f"""\
    MOV S1, 0x1000
    MOV S2, 0x8000
VF.BEGIN
    PSET.b32 P1, VL4
    LOOP 20
        VLD.f32 V0, [S2], post=64
        VADD.f32 V1, V0, V0, P1
        VST.f32 [S1], V1, P1, post=64
    ENDLOOP
    VST.f32 [{addr:#x}], V5, dist=first_b32
VF.END
HALT
"""
    m = run(text, {0x8000: f32(*range(64 * 20))}, fast_loops=fast)
    lines = {"VLD": line_of(text, "VLD.f32"), "VST": line_of(text, "VST.f32 [S1]"), "first": line_of(text, "first_b32")}
    if race is None:
        assert races(m) == []
        assert m.read("ub", 0x1000 + 7 * 256, "f32", 4).tolist() == [2.0 * (7 * 64 + i) for i in range(4)]
    else:
        kind, lo, hi = race
        first = lines["VST"] if kind == "WAW" else lines["VLD"]
        assert races(m) == [(kind, first, lines["first"], lo, hi)]


# ----------------------------------------------------------------------------------------------
# Random straight-line functions against a brute-force reading of the rule

PATTERNS = {"VL1": 1, "VL2": 2, "VL3": 3, "VL4": 4, "VL8": 8, "VL16": 16}  # b32 lanes of P0..P5
MASK_OF = {name: f"P{k}" for k, name in enumerate(PATTERNS)}


@st.composite
def accesses(draw):
    """An access of the region 0x1000..0x107F: (kind, text-making data); or a MEMBAR."""
    kind = draw(st.sampled_from(["first", "norm", "pack4", "brc", "vld", "membar"]))
    if kind in ("first", "brc"):
        w = draw(st.sampled_from([1, 2, 4]))
        return kind, w, 0x1000 + w * draw(st.integers(0, 128 // w - 1))
    if kind == "membar":
        return (kind,)
    return kind, draw(st.sampled_from(list(PATTERNS))), 0x1000 + 32 * draw(st.integers(0, 3))


def program_of(items: list) -> tuple[str, list]:
    """The function, and per access (line, writes?, its bytes, MEMBAR epoch), worked out from 13.1's
    tables: first_bW writes w bytes; a masked VST.u32 4 bytes a lane; pack4_b32 1 byte a lane; brc_bW
    reads w bytes (its every lane used by a VADD under ALL); a VLD the 4 bytes of each lane its one
    use (a VADD.u32 under the pattern) reads. Stores store V20..V22, which no load feeds."""
    lines = ["VF.BEGIN", *[f"    PSET.b32 {MASK_OF[p]}, {p}" for p in PATTERNS], "    PSET.b32 P7, ALL"]
    out, epoch, v = [], 0, 0
    for item in items:
        kind = item[0]
        if kind == "membar":
            lines.append("    MEMBAR")
            epoch += 1
            continue
        _, arg, addr = item
        if kind == "first":
            lines.append(f"    VST.u{8 * arg} [{addr:#x}], V20, dist=first_b{8 * arg}")
            out.append((len(lines), True, set(range(addr, addr + arg)), epoch))
        elif kind == "norm":
            lines.append(f"    VST.u32 [{addr:#x}], V21, {MASK_OF[arg]}")
            out.append((len(lines), True, set(range(addr, addr + 4 * PATTERNS[arg])), epoch))
        elif kind == "pack4":
            lines.append(f"    VST.u8 [{addr:#x}], V22, {MASK_OF[arg]}, dist=pack4_b32")
            out.append((len(lines), True, set(range(addr, addr + PATTERNS[arg])), epoch))
        elif kind == "brc":
            lines.append(f"    VLD.u{8 * arg} V{v}, [{addr:#x}], dist=brc_b{8 * arg}")
            out.append((len(lines), False, set(range(addr, addr + arg)), epoch))
            lines.append(f"    VADD.u32 V{v + 10}, V{v}, V{v}, P7")
            v += 1
        else:
            lines.append(f"    VLD.u32 V{v}, [{addr:#x}]")
            out.append((len(lines), False, set(range(addr, addr + 4 * PATTERNS[arg])), epoch))
            lines.append(f"    VADD.u32 V{v + 10}, V{v}, V{v}, {MASK_OF[arg]}")
            v += 1
    lines += ["VF.END", "HALT", ""]
    return "\n".join(lines), out


def expected_races(accessed: list) -> set:
    """Every pair, earlier first, of one epoch, one a write, sharing a byte: named by its kind, both
    lines and the span of the bytes they share (each instruction runs once)."""
    found = set()
    for i, (la, wa, ba, ea) in enumerate(accessed):
        for lb, wb, bb, eb in accessed[i + 1:]:
            shared = ba & bb
            if ea == eb and (wa or wb) and shared:
                kind = "WAW" if wa and wb else "RAW" if wa else "WAR"
                found.add((kind, la, lb, min(shared), max(shared) + 1))
    return found


@settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(accesses(), min_size=2, max_size=8), st.sampled_from([None, 3]))
def test_random_functions_race_exactly_where_their_bytes_meet(items, chunk):
    """Each function runs at once, or (``chunk``) laid out and checked 3 items at a time, so what earlier
    chunks noted (the kept bytes per block and per instruction) decides."""
    assume(sum(item[0] in ("brc", "vld") for item in items) <= 10)
    text, accessed = program_of(items)
    note(text)
    kept = functions.CHUNK
    functions.CHUNK = chunk or kept
    try:
        m = run(text)
    finally:
        functions.CHUNK = kept
    assert set(races(m)) == expected_races(accessed)
    assert len(races(m)) == len(set(races(m)))
