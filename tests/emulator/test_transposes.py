"""The transposes of CONTRACT 13.5, checked against the contract's own rules worked by hand.

VTRANS: tile r (16 x 16 elements of 2 bytes, row-major, 512 bytes) at src + r * srcrep * 512 goes to
dst + r * dstrep * 512 with dst(y, x) = src(x, y). VTRANS5HD: element i of destination block j =
element j of source block i (16-bit), byte hd + i of destination block j = byte hs + j of source
block i (8-bit), the blocks' addresses read from two lists of 16 u64 when it starts.

Every input element holds a code of where it is (tile, row, column; or block, element), so the
expected value of each output element is the code of the input element the contract says it takes.
"""

from __future__ import annotations

import numpy as np
import pytest

from vcore import AsmError, ProgramError
from vcore.assembler import assemble
from vcore.emulator import Machine

SENTINEL = 0xEEEE


def machine(text: str, profile: str = "950", ub: dict | None = None) -> Machine:
    m = Machine(assemble(text), profile)
    for addr, data in (ub or {}).items():
        m.write("ub", addr, np.asarray(data).view(np.uint8).reshape(-1))
    return m


def run(text: str, profile: str = "950", ub: dict | None = None):
    m = machine(text, profile, ub)
    return m, m.run()


def first_line(fault) -> str:
    """A fault's message without the place the machine adds."""
    return fault.message.splitlines()[0]


def u16_at(m: Machine, addr: int, count: int) -> np.ndarray:
    return m.ub[addr:addr + 2 * count].view("<u2").copy()


def tile_codes(tile: int) -> np.ndarray:
    """A tile whose element (y, x) is 0x1000 * tile + 16 * y + x."""
    return (0x1000 * tile + np.arange(256)).astype("<u2")


def transposed_codes(tile: int) -> np.ndarray:
    """The contract's result for ``tile_codes(tile)``: element (y, x) is the source's (x, y),
    i.e. 0x1000 * tile + 16 * x + y, written out row by row."""
    return np.array([0x1000 * tile + 16 * x + y for y in range(16) for x in range(16)], dtype="<u2")


# ----------------------------------------------------------------------------------------------
# VTRANS


@pytest.mark.parametrize("profile", ["950", "a2"])
@pytest.mark.parametrize("t", ["f16", "s16", "u16"])
def test_one_tile_is_transposed(profile, t):
    m, r = run(f"VTRANS.{t} [0x2000], [0x1000]\nHALT\n", profile, {0x1000: tile_codes(0)})
    assert r.fault is None, r.fault
    out = u16_at(m, 0x2000, 256)
    # hand-picked: (0, 1) <- (1, 0) = 16; (1, 0) <- (0, 1) = 1; (15, 14) <- (14, 15) = 239; the diagonal stays
    assert (out[1], out[16], out[15 * 16 + 14], out[5 * 17]) == (16, 1, 239, 5 * 17)
    assert np.array_equal(out, transposed_codes(0))
    assert np.array_equal(u16_at(m, 0x1000, 256), tile_codes(0))  # the source is read only


@pytest.mark.parametrize("profile", ["950", "a2"])  # [vcore] the repeat form on both profiles
def test_repeat_and_strides_in_tiles(profile):
    # tile r at 0x1000 + r * 512 (srcrep=1) to 0x4000 + r * 1024 (dstrep=2): the 512 bytes between stay
    src = np.concatenate([tile_codes(r) for r in range(3)])
    m, r = run("VTRANS.f16 [0x4000], [0x1000], repeat=3, dstrep=2, srcrep=1\nHALT\n", profile, ub={
        0x1000: src, 0x4000: np.full(3 * 512, SENTINEL, dtype="<u2")})
    assert r.fault is None, r.fault
    for k in range(3):
        assert np.array_equal(u16_at(m, 0x4000 + k * 1024, 256), transposed_codes(k)), k
        assert (u16_at(m, 0x4000 + k * 1024 + 512, 256) == SENTINEL).all(), k


def test_srcrep_zero_reads_one_tile_for_every_repeat():
    m, r = run("VTRANS.u16 [0x4000], [0x1000], repeat=2, srcrep=0\nHALT\n", ub={0x1000: tile_codes(7)})
    assert r.fault is None, r.fault
    assert np.array_equal(u16_at(m, 0x4000, 512), np.concatenate([transposed_codes(7)] * 2))


def test_full_overlap_transposes_in_place():
    src = np.concatenate([tile_codes(r) for r in range(2)])
    m, r = run("VTRANS.f16 [0x1000], [0x1000], repeat=2\nHALT\n", ub={0x1000: src})
    assert r.fault is None, r.fault
    assert np.array_equal(u16_at(m, 0x1000, 512), np.concatenate([transposed_codes(0), transposed_codes(1)]))


@pytest.mark.parametrize(("repeat", "transposed"), [(1, True), (2, False), (3, True), (4095, True)])
def test_in_place_with_zero_strides_transposes_again_each_repeat(repeat, transposed):
    # every tile is the same tile in place (full overlap): each reads what the one before wrote
    m, r = run(f"VTRANS.f16 [0x1000], [0x1000], repeat={repeat}, dstrep=0, srcrep=0\nHALT\n",
               ub={0x1000: tile_codes(3)})
    assert r.fault is None, r.fault
    assert np.array_equal(u16_at(m, 0x1000, 256), transposed_codes(3) if transposed else tile_codes(3))


def test_a_later_tile_reads_what_an_earlier_one_wrote_exactly():
    # dst = src + 512, strides 1: tile 0 writes tile 1's source (exactly), so tile 1 transposes it back
    m, r = run("VTRANS.f16 [0x1200], [0x1000], repeat=2\nHALT\n", ub={
        0x1000: np.concatenate([tile_codes(0), tile_codes(1)])})
    assert r.fault is None, r.fault
    assert np.array_equal(u16_at(m, 0x1200, 256), transposed_codes(0))
    assert np.array_equal(u16_at(m, 0x1400, 256), tile_codes(0))


def test_a_destination_over_an_earlier_tiles_source_is_allowed():
    # src tiles 0x1000, 0x1200; dst tiles 0xD00, 0xF00: tile 1's destination covers half of tile 0's
    # source, which tile 0 has read already
    m, r = run("VTRANS.f16 [0xD00], [0x1000], repeat=2\nHALT\n", ub={
        0x1000: np.concatenate([tile_codes(0), tile_codes(1)])})
    assert r.fault is None, r.fault
    assert np.array_equal(u16_at(m, 0xD00, 256), transposed_codes(0))
    assert np.array_equal(u16_at(m, 0xF00, 256), transposed_codes(1))
    assert np.array_equal(u16_at(m, 0x1100, 128), tile_codes(0)[128:])  # its second half untouched


@pytest.mark.parametrize("text", [
    "VTRANS.f16 [0x1100], [0x1000]",  # a tile's destination half over its own source
    "VTRANS.f16 [0xF00], [0x1000]",
    "VTRANS.f16 [0x1300], [0x1000], repeat=2",  # tile 0's destination over half of tile 1's source
    "VTRANS.u16 [0x1000], [0x1020], repeat=3, dstrep=1, srcrep=0",
])
def test_partial_overlap_is_a_fault(text):
    _, r = run(text + "\nHALT\n")
    assert r.fault is not None and first_line(r.fault) == "VTRANS: dst and src overlap other than exactly"


def test_vtrans_addresses_are_checked():
    _, r = run("MOV S1, 0x1010\nVTRANS.f16 [0x2000], [S1]\nHALT\n")
    assert first_line(r.fault) == "VTRANS: UB address 0x1010 is not 32-byte aligned"
    _, r = run("VTRANS.f16 [0x3FE00], [0x0], repeat=2\nHALT\n")
    assert "outside UB" in r.fault.message
    _, r = run("VTRANS.f16 [0x2FE00], [0x0]\nHALT\n", "a2")  # a2's UB ends at 0x30000: the tile fits
    assert r.fault is None


@pytest.mark.parametrize(("text", "message"), [
    ("VTRANS.bf16 [0x0], [0x200]", "VTRANS does not take .bf16 (takes .s16, .u16, .f16)"),
    ("VTRANS.u8 [0x0], [0x200]", "VTRANS does not take .u8 (takes .s16, .u16, .f16)"),
    ("VTRANS.f32 [0x0], [0x200]", "VTRANS does not take .f32 (takes .s16, .u16, .f16)"),
    ("VTRANS.s32 [0x0], [0x200]", "VTRANS does not take .s32 (takes .s16, .u16, .f16)"),
    ("VTRANS.f16 [0x0], [0x200], repeat=0", "repeat: value 0 out of range 1..4095"),
    ("VTRANS.f16 [0x0], [0x200], repeat=4096", "repeat: value 4096 out of range 1..4095"),
    ("VTRANS.f16 [0x0], [0x200], dstrep=4096", "dstrep: value 4096 out of range 0..4095"),
])
def test_vtrans_assembly_errors(text, message):
    with pytest.raises(AsmError, match="error: " + message.replace(".", r"\.").replace("(", r"\(")
                       .replace(")", r"\)")):
        assemble(text + "\nHALT\n")


# ----------------------------------------------------------------------------------------------
# VTRANS5HD

# 16 source blocks at scattered places (a permutation of 32-byte slots from 0x4000) and 16 destination
# blocks elsewhere, in another order
SRC_BLOCKS = [0x4000 + 32 * k for k in (5, 0, 9, 14, 3, 12, 1, 7, 15, 2, 10, 4, 13, 6, 11, 8)]
DST_BLOCKS = [0x8000 + 64 * k for k in (3, 1, 0, 2, 15, 4, 8, 5, 6, 7, 9, 11, 10, 13, 12, 14)]
SRC_LIST, DST_LIST = 0x100, 0x180


def lists(src=SRC_BLOCKS, dst=DST_BLOCKS, at=(SRC_LIST, DST_LIST)) -> dict:
    return {at[0]: np.array(src, dtype="<u8"), at[1]: np.array(dst, dtype="<u8")}


def block_codes16(addresses, offset: int = 0) -> dict:
    """Source block i (at ``addresses[i] + offset``) holds 0x100 * i + e at element e."""
    return {a + offset: (0x100 * i + np.arange(16)).astype("<u2") for i, a in enumerate(addresses)}


@pytest.mark.parametrize("profile", ["950", "a2"])
@pytest.mark.parametrize("t", ["f16", "s16", "u16"])
def test_5hd_16_bit_takes_element_j_of_block_i(profile, t):
    m, r = run(f"VTRANS5HD.{t} [{DST_LIST:#x}], [{SRC_LIST:#x}]\nHALT\n", profile,
               {**lists(), **block_codes16(SRC_BLOCKS)})
    assert r.fault is None, r.fault
    for j, d in enumerate(DST_BLOCKS):
        # element i of destination block j = element j of source block i = 0x100 * i + j
        assert list(u16_at(m, d, 16)) == [0x100 * i + j for i in range(16)], j
    assert list(u16_at(m, DST_BLOCKS[2], 3)) == [2, 0x102, 0x202]


def test_5hd_bf16_runs_on_the_950():
    m, r = run(f"VTRANS5HD.bf16 [{DST_LIST:#x}], [{SRC_LIST:#x}]\nHALT\n", "950",
               {**lists(), **block_codes16(SRC_BLOCKS)})
    assert r.fault is None, r.fault
    assert list(u16_at(m, DST_BLOCKS[15], 16)) == [0x100 * i + 15 for i in range(16)]


def test_5hd_bf16_is_refused_on_a2():
    with pytest.raises(ProgramError, match=r"error: VTRANS5HD\.bf16 needs the 950 profile \(a2 has no bf16 "
                                           r"TransDataTo5HD\)"):
        machine(f"VTRANS5HD.bf16 [{DST_LIST:#x}], [{SRC_LIST:#x}]\nHALT\n", "a2")


def byte_code(i: int, e: int) -> int:
    """Byte e of source block i: 16 * i + e in the low half, (16 * i + e - 16) xor 0x5A in the high half
    (each half's 256 bytes all distinct, and the halves told apart)."""
    return 16 * i + e if e < 16 else (16 * i + e - 16) ^ 0x5A


def byte_codes(addresses) -> dict:
    return {a: np.array([byte_code(i, e) for e in range(32)], dtype=np.uint8) for i, a in enumerate(addresses)}


@pytest.mark.parametrize(("srchigh", "dsthigh"), [(0, 0), (1, 0), (0, 1), (1, 1)])
@pytest.mark.parametrize("t", ["u8", "s8"])
def test_5hd_8_bit_fills_half_blocks(t, srchigh, dsthigh):
    fields = "".join(f", {k}={v}" for k, v in (("srchigh", srchigh), ("dsthigh", dsthigh)) if v)
    fill = {d: np.full(32, 0xEE, dtype=np.uint8) for d in DST_BLOCKS}
    m, r = run(f"VTRANS5HD.{t} [{DST_LIST:#x}], [{SRC_LIST:#x}]{fields}\nHALT\n", "950",
               {**lists(), **byte_codes(SRC_BLOCKS), **fill})
    assert r.fault is None, r.fault
    hs, hd = 16 * srchigh, 16 * dsthigh
    for j, d in enumerate(DST_BLOCKS):
        block = m.ub[d:d + 32]
        # byte hd + i of destination block j = byte hs + j of source block i
        assert list(block[hd:hd + 16]) == [byte_code(i, hs + j) for i in range(16)], j
        other = block[16 - hd:32 - hd]
        assert (other == 0xEE).all(), j  # the other half is not written


def test_5hd_8_bit_default_is_the_low_halves():
    m, r = run(f"VTRANS5HD.u8 [{DST_LIST:#x}], [{SRC_LIST:#x}]\nHALT\n", "a2",
               {**lists(), **byte_codes(SRC_BLOCKS)})
    assert r.fault is None, r.fault
    assert list(m.ub[DST_BLOCKS[1]:DST_BLOCKS[1] + 4]) == [1, 17, 33, 49]  # byte 1 of blocks 0..3


# Races of the 8-bit form are named on the bytes it writes (13.5: "the other 16 bytes of each destination
# block are not written"; 13.12 and section 12: a footprint is the bytes written): one half of each
# destination block. Its reads (the lists, the source blocks) are still counted by whole blocks.

def races_of(m) -> list:
    return [(r.kind, r.first["line"], r.second["line"], r.space, r.start, r.end) for r in m.races()]


def two_calls(first: str, second: str) -> str:
    call = f"VTRANS5HD.u8 [{DST_LIST:#x}], [{SRC_LIST:#x}]"
    return f"{call}{first}\n{call}{second}\nHALT\n"


def test_5hd_8_bit_low_and_high_calls_into_the_same_blocks_do_not_race_on_a2():
    # The 8-bit NCHW -> NC1HWC0 idiom: a call fills the low halves of the destination blocks, a second
    # the high halves. On a2 two V instructions are not ordered (section 12), but they write disjoint
    # bytes: no race. Byte i of destination block j = byte j of source block i, byte 16 + i = byte
    # 16 + j of it.
    m, r = run(two_calls("", ", srchigh=1, dsthigh=1"), "a2", {**lists(), **byte_codes(SRC_BLOCKS)})
    assert r.fault is None, r.fault
    assert races_of(m) == []
    for j, d in enumerate(DST_BLOCKS):
        assert list(m.ub[d:d + 16]) == [byte_code(i, j) for i in range(16)], j
        assert list(m.ub[d + 16:d + 32]) == [byte_code(i, 16 + j) for i in range(16)], j


def test_5hd_8_bit_calls_into_the_same_halves_race_on_those_bytes_on_a2():
    # Both write the high halves: a WAW, named on the first bytes both write: the high half of the
    # lowest destination block, 0x8000 (DST_BLOCKS[2]): 0x8010..0x801F.
    m, r = run(two_calls(", dsthigh=1", ", srchigh=1, dsthigh=1"), "a2", {**lists(), **byte_codes(SRC_BLOCKS)})
    assert r.fault is None, r.fault
    assert races_of(m) == [("WAW", 1, 2, "ub", 0x8010, 0x8020)]


@pytest.mark.parametrize("profile", ["950", "a2"])
@pytest.mark.parametrize(("addr", "race"), [(0x8014, False), (0x8004, True)])
def test_a_scalar_store_beside_a_5hd_8_bit_half_block(profile, addr, race):
    # The call writes the low halves (0x8000..0x800F of block 0x8000); a scalar store on S right after
    # it, with no flag, writes 4 bytes: in the high half, no race; in the low half, a WAW on its 4 bytes.
    m, r = run(f"VTRANS5HD.u8 [{DST_LIST:#x}], [{SRC_LIST:#x}]\nMOV S1, 7\nST.u32 [{addr:#x}], S1\nHALT\n",
               profile, {**lists(), **byte_codes(SRC_BLOCKS)})
    assert r.fault is None, r.fault
    assert races_of(m) == ([("WAW", 1, 3, "ub", addr, addr + 4)] if race else [])


@pytest.mark.parametrize(("repeat", "srcrep", "dstrep", "offsets"), [
    (1, 2, 3, [(64, 96)]),  # the documented quirk: one iteration starts a whole stride in
    (1, 0, 0, [(0, 0)]),
    (2, 2, 3, [(0, 0), (64, 96)]),  # more iterations: iteration r at r * stride
    (3, 1, 1, [(0, 0), (32, 32), (64, 64)]),
])
def test_5hd_iteration_offsets(repeat, srcrep, dstrep, offsets):
    # lists name blocks 256 bytes apart, so every offset below 256 stays clear of the other blocks
    src = [0x4000 + 256 * i for i in range(16)]
    dst = [0xC000 + 256 * j for j in range(16)]
    ub = lists(src, dst)
    for r_, (so, _) in enumerate(offsets):
        for i, a in enumerate(src):
            ub[a + so] = (0x1000 * r_ + 0x100 * i + np.arange(16)).astype("<u2")
    m, res = run(f"VTRANS5HD.f16 [{DST_LIST:#x}], [{SRC_LIST:#x}], repeat={repeat}, srcrep={srcrep}, "
                 f"dstrep={dstrep}\nHALT\n", ub=ub)
    assert res.fault is None, res.fault
    for r_, (_, do) in enumerate(offsets):
        for j, d in enumerate(dst):
            assert list(u16_at(m, d + do, 16)) == [0x1000 * r_ + 0x100 * i + j for i in range(16)], (r_, j)
    if repeat == 1 and dstrep:
        assert (u16_at(m, dst[0], 16) == 0).all()  # nothing at the listed address itself


def test_5hd_repeat_zero_does_nothing_and_reads_no_list():
    m, r = run("VTRANS5HD.f16 [0x180], [0x100], repeat=0\nHALT\n", ub={0x100: np.full(32, 0x1234, dtype="<u8")})
    assert r.fault is None, r.fault


def test_5hd_reads_the_lists_when_it_starts():
    # The lists come from GM by DMA, ordered before the transpose by a flag: the scalar unit hands the
    # transpose over before they land, and it uses what the DMA wrote, not what UB held then.
    gm = np.concatenate([np.array(SRC_BLOCKS, dtype="<u8"), np.array(DST_BLOCKS, dtype="<u8")]).view(np.uint8)
    stale = {SRC_LIST: np.array([0x6000 + 32 * i for i in range(16)], dtype="<u8"),
             DST_LIST: np.array([0x7000 + 32 * i for i in range(16)], dtype="<u8")}
    text = (f"DMA.GM2UB [{SRC_LIST:#x}], gm[0x0], len=8\nSETFLAG MTE2, V, 0\nWAITFLAG MTE2, V, 0\n"
            f"VTRANS5HD.u16 [{DST_LIST:#x}], [{SRC_LIST:#x}]\nHALT\n")
    m = machine(text, ub={**stale, **block_codes16(SRC_BLOCKS)})
    m.write("gm", 0, gm)
    r = m.run()
    assert r.fault is None and not r.races, (r.fault, r.races)
    assert list(u16_at(m, DST_BLOCKS[4], 16)) == [0x100 * i + 4 for i in range(16)]
    assert (m.ub[0x7000:0x7200] == 0).all()


def test_5hd_chained_iterations_keep_their_order():
    # iteration 0 writes the blocks iteration 1 reads (dst list = src list + 0x200, both strides 16
    # blocks): iteration 1 transposes iteration 0's result back
    src = [0x4000 + 32 * i for i in range(16)]
    dst = [0x4200 + 32 * j for j in range(16)]
    m, r = run(f"VTRANS5HD.u16 [{DST_LIST:#x}], [{SRC_LIST:#x}], repeat=2, srcrep=16, dstrep=16\nHALT\n",
               ub={**lists(src, dst), **block_codes16(src)})
    assert r.fault is None, r.fault
    for j in range(16):
        assert list(u16_at(m, 0x4200 + 32 * j, 16)) == [0x100 * i + j for i in range(16)]
        assert list(u16_at(m, 0x4400 + 32 * j, 16)) == [0x100 * j + i for i in range(16)]  # the original


def test_5hd_a_block_written_twice_keeps_the_later_write():
    # [vcore] dstlist[3] and dstlist[7] name one block: block order, so j = 7's elements are kept; with
    # dstrep=0 two iterations write the same blocks: iteration 1's are kept (srcrep=16: its own sources)
    dst = [0x8000 + 64 * j for j in range(16)]
    dst[3] = dst[7]
    later = {0x4200 + 32 * i: (0x1000 + 0x100 * i + np.arange(16)).astype("<u2") for i in range(16)}
    src = [0x4000 + 32 * i for i in range(16)]
    m, r = run(f"VTRANS5HD.u16 [{DST_LIST:#x}], [{SRC_LIST:#x}]\nHALT\n", ub={**lists(src, dst), **block_codes16(src)})
    assert r.fault is None, r.fault
    assert list(u16_at(m, dst[7], 16)) == [0x100 * i + 7 for i in range(16)]
    m, r = run(f"VTRANS5HD.u16 [{DST_LIST:#x}], [{SRC_LIST:#x}], repeat=2, srcrep=16\nHALT\n",
               ub={**lists(src, DST_BLOCKS), **block_codes16(src), **later})
    assert r.fault is None, r.fault
    assert list(u16_at(m, DST_BLOCKS[5], 16)) == [0x1000 + 0x100 * i + 5 for i in range(16)]


@pytest.mark.parametrize(("src", "dst", "extra", "message"), [
    ([0x4000] * 3 + [0x1234] + [0x4000] * 12, DST_BLOCKS, "",
     "VTRANS5HD: srclist[3] = 0x1234 is not 32-byte aligned"),
    (SRC_BLOCKS, [*DST_BLOCKS[:7], 0x40000, *DST_BLOCKS[8:]], "",
     "VTRANS5HD: dstlist[7] = 0x40000 is outside UB (UB size 0x40000)"),
    (SRC_BLOCKS, [*DST_BLOCKS[:7], 0x3FFF0, *DST_BLOCKS[8:]], "",
     "VTRANS5HD: dstlist[7] = 0x3fff0 is not 32-byte aligned"),
    (SRC_BLOCKS, [0x3FFE0, *DST_BLOCKS[1:]], ", repeat=2, dstrep=1",
     "VTRANS5HD: dstlist[0] = 0x3ffe0 plus iteration 1's offset 0x20 is outside UB (UB size 0x40000)"),
    (SRC_BLOCKS, [0x3FFE0, *DST_BLOCKS[1:]], ", dstrep=1",
     "VTRANS5HD: dstlist[0] = 0x3ffe0 plus iteration 0's offset 0x20 is outside UB (UB size 0x40000)"),
    (SRC_BLOCKS, [*DST_BLOCKS[:2], SRC_BLOCKS[5], *DST_BLOCKS[3:]], "",
     f"VTRANS5HD: iteration 0's destination block {SRC_BLOCKS[5]:#x} (dstlist[2]) is its source block "
     f"srclist[5]"),
])
def test_5hd_faults_name_the_list_entry(src, dst, extra, message):
    _, r = run(f"VTRANS5HD.f16 [{DST_LIST:#x}], [{SRC_LIST:#x}]{extra}\nHALT\n", ub=lists(src, dst))
    assert r.fault is not None and first_line(r.fault) == message


def test_5hd_overlap_is_of_one_iteration():
    # [vcore] iteration 1's destination block is iteration 0's source block: not a fault (iteration 0
    # read it first); only a block that is a destination and a source of one iteration is
    src = [0x4000 + 32 * i for i in range(16)]  # iteration 1: 0x4200 + 32 * i (srcrep=16)
    dst = [0x3FE0] + [0x8000 + 32 * j for j in range(1, 16)]  # iteration 1: 32 bytes on (dstrep=1)
    later = {0x4200 + 32 * i: (0x1000 + 0x100 * i + np.arange(16)).astype("<u2") for i in range(16)}
    m, r = run(f"VTRANS5HD.u16 [{DST_LIST:#x}], [{SRC_LIST:#x}], repeat=2, dstrep=1, srcrep=16\nHALT\n",
               ub={**lists(src, dst), **block_codes16(src), **later})
    assert r.fault is None, r.fault
    assert list(u16_at(m, 0x3FE0, 16)) == [0x100 * i for i in range(16)]  # iteration 0 read block 0x4000 first
    assert list(u16_at(m, 0x4000, 16)) == [0x1000 + 0x100 * i for i in range(16)]  # iteration 1 wrote it


@pytest.mark.parametrize(("text", "message"), [
    ("VTRANS5HD.f32 [0x80], [0x0]",
     "VTRANS5HD.f32: the 32-bit layout is documented only by a figure; split the data into 16-bit halves"),
    ("VTRANS5HD.s32 [0x80], [0x0]",
     "VTRANS5HD.s32: the 32-bit layout is documented only by a figure; split the data into 16-bit halves"),
    ("VTRANS5HD.u32 [0x80], [0x0]",
     "VTRANS5HD.u32: the 32-bit layout is documented only by a figure; split the data into 16-bit halves"),
    ("VTRANS5HD.f16 [0x80], [0x0], srchigh=1", "field srchigh= needs type s8 or u8"),
    ("VTRANS5HD.u16 [0x80], [0x0], dsthigh=0", "field dsthigh= needs type s8 or u8"),
    ("VTRANS5HD.f16 [0x80], [0x0], repeat=256", "repeat: value 256 out of range 0..255"),
    ("VTRANS5HD.f16 [0x80], [0x0], srcrep=65536", "srcrep: value 65536 out of range 0..65535"),
])
def test_5hd_assembly_errors(text, message):
    with pytest.raises(AsmError) as caught:
        assemble(text + "\nHALT\n")
    assert f"error: {message}" in str(caught.value)


# ----------------------------------------------------------------------------------------------
# NCHW (2, 32, 16, 16) -> NC1HWC0 (2, 2, 16, 16, 16): the contiguous-transpose scenario of 13.5


NCHW_PROGRAM = """\
; for each (n, c1): 16 iterations, one a 16-element run of H*W; source block i is channel c1 * 16 + i
; (srcrep=1: the next 16 elements of every channel), destination block j is position hw = 16 * r + j
; of the (n, c1) slab, its 16 channels c0 (dstrep=16: 16 positions of 32 bytes further on)
    MOV S1, 0x10000      ; the lists: (n, c1) = k at 0x10000 + 256 * k, source list then destination list
    MOV S2, 0
again:
    ADD S3, S1, 128
    VTRANS5HD.f16 [S3], [S1], repeat=16, srcrep=1, dstrep=16
    ADD S1, S1, 256
    ADD S2, S2, 1
    BLT S2, 4, again
    HALT
"""


def test_nchw_to_nc1hwc0():
    n_, c_, h_, w_, c0 = 2, 32, 16, 16, 16
    x = (np.arange(n_ * c_ * h_ * w_) * 7 % 65536).astype("<u2")  # f16 bit patterns, all distinct
    in_base, out_base = 0x0, 0x8000
    ub = {in_base: x}
    for k in range(4):
        n, c1 = divmod(k, 2)
        src = [in_base + ((n * c_ + c1 * c0 + i) * h_ * w_) * 2 for i in range(16)]
        dst = [out_base + ((n * 2 + c1) * h_ * w_ + j) * c0 * 2 for j in range(16)]
        ub.update(lists(src, dst, at=(0x10000 + 256 * k, 0x10000 + 256 * k + 128)))
    m, r = run(NCHW_PROGRAM, ub=ub)
    assert r.fault is None, r.fault
    out = u16_at(m, out_base, n_ * c_ * h_ * w_).reshape(2, 2, 16, 16, 16)
    nchw = x.reshape(2, 32, 16, 16)
    # NC1HWC0: out[n, c1, h, w, c0] = in[n, c1 * 16 + c0, h, w]
    for n, c1, h, w, k in [(0, 0, 0, 0, 0), (0, 0, 0, 1, 0), (1, 1, 15, 15, 15), (0, 1, 3, 7, 9), (1, 0, 8, 2, 5)]:
        assert out[n, c1, h, w, k] == nchw[n, c1 * 16 + k, h, w]
    want = nchw.reshape(2, 2, 16, 16, 16).transpose(0, 1, 3, 4, 2)
    assert np.array_equal(out, want)


# ----------------------------------------------------------------------------------------------
# one numpy pass per instruction: Python work does not grow with the tiles or iterations


def test_work_does_not_grow_with_tiles_or_iterations():
    from tests.emulator.test_complexity import looped, python_calls

    setup = ("".join(f".ub {0x100 + 8 * i:#x}, u64, {0x4000 + 32 * i:#x}\n" for i in range(16))
             + "".join(f".ub {0x180 + 8 * j:#x}, u64, {0x8000 + 32 * j:#x}\n" for j in range(16)))

    def program(repeat: int, tiles: int) -> str:
        # chained tiles (the same tile in place, each repeat reading the one before's result), tiles
        # apart, and TransDataTo5HD iterations a block apart (sources up to 0x6200, destinations 0xA200)
        return setup + looped(f"VTRANS.f16 [0x20000], [0x20000], repeat={tiles}, dstrep=0, srcrep=0\n"
                              f"VTRANS.u16 [0x30000], [0x10000], repeat={tiles}\n"
                              f"VTRANS5HD.u8 [0x180], [0x100], repeat={repeat}, srcrep=1, dstrep=1")

    for timed in (False, True):
        python_calls(program(2, 2), timed=timed)  # warm caches and lazy imports
        small, large = python_calls(program(2, 2), timed=timed), python_calls(program(255, 64), timed=timed)
        # 20 runs of the loop: a Python step per tile or iteration would add thousands of calls; the
        # chains' pointer jumping adds a few numpy calls per doubling (6 rounds for 64 tiles), once
        # per static instruction and distance
        assert large - small <= 100, (timed, small, large)
