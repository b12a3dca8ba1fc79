"""CONTRACT 13.1: the distribution modes of VLD and VST, through the public API (``vcore.load_text``,
``Machine.write``, ``run``, ``read``, ``races``).

The expected values are the contract's tables written out lane by lane in plain Python (``expect_load``,
``expect_store``), from the table rows alone: element k of UB is the T at ``Sa + k * w``, lane i of a
register the w bytes at ``i * w`` (or the width the row says). Every mode and every T width it takes,
loads and stores, full, prefix and random masks, registers and constant addresses; misaligned register
addresses fault with the contract's message, misaligned constants and every error of 13.1 are assembly
errors with the contract's text and the operand's place; the quantization example of 13.1 runs with its
own numbers. Registers come from UB in a prologue (``VLD.u8``) and go back in an epilogue (``VST.u8``
under ``PSET.b8 P7, ALL``), as in test_part3_reference.py; every run must report no race.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import vcore
from vcore.assembler import AsmError, assemble

pytestmark = pytest.mark.part3

IN_V, IN_P, MEM, OUT_V = 0x0000, 0x1000, 0x2000, 0x4000
TYPES_OF = {1: ("s8", "u8", "e4m3", "e5m2"), 2: ("f16", "bf16", "s16", "u16"), 4: ("f32", "s32", "u32")}


def run(body: str, *, v=None, p=None, dump=(), ub=(), check=True):
    """``body`` in one vector function: V registers from ``v`` (k -> 256 bytes), P from ``p`` (k -> 256
    bools), UB ``ub`` ((addr, bytes)...) first; ``dump`` registers stored after. (machine, result, {k: bytes})."""
    v, p = v or {}, p or {}
    lines = [f"VLD.u8 V{k}, [0x{IN_V + 256 * k:x}]" for k in v]
    lines += [f"PLD P{k}, [0x{IN_P + 64 * k:x}]" for k in p]
    lines.append(body.strip("\n"))
    lines.append("PSET.b8 P7, ALL")
    lines += [f"VST.u8 [0x{OUT_V + 256 * k:x}], V{k}, P7" for k in dump]
    text = "VF.BEGIN\n" + "\n".join(lines) + "\nVF.END\nHALT\n"
    m = vcore.load_text(text, profile="950")
    for k, data in v.items():
        m.write("ub", IN_V + 256 * k, np.asarray(data, dtype=np.uint8))
    for k, bits in p.items():
        m.write("ub", IN_P + 64 * k, np.packbits(np.asarray(bits, dtype=bool), bitorder="little"))
    for addr, data in ub:
        m.write("ub", addr, np.asarray(data, dtype=np.uint8))
    r = m.run()
    if check:
        assert r.fault is None, f"{r.fault}\n{text}"
        assert not m.races(), f"{m.races()}\n{text}"
    return m, r, {k: m.read("ub", OUT_V + 256 * k, "u8", 256) for k in dump}


def element(data: bytes, k: int, w: int) -> int:
    return int.from_bytes(bytes(data[k * w:(k + 1) * w]), "little")


def lanes_to_bytes(values, width: int) -> bytes:
    return b"".join(int(x).to_bytes(width, "little") for x in values)


# -- loads: the contract's table, lane by lane --------------------------------------------------------------
def expect_load(mode: str, w: int, ub: bytes) -> list[bytes]:
    """The destination register(s) of ``VLD.T ..., dist=mode`` with UB bytes ``ub`` at Sa (13.1 load table)."""
    lanes = 256 // w
    e = [element(ub, k, w) for k in range(512 // w)]
    family = mode.rsplit("_b", 1)[0] if "_b" in mode else mode
    if family == "norm":
        return [lanes_to_bytes(e[:lanes], w)]
    if family == "brc":
        return [lanes_to_bytes([e[0]] * lanes, w)]
    if family == "us":
        return [lanes_to_bytes([e[i // 2] for i in range(lanes)], w)]
    if family == "ds":
        return [lanes_to_bytes([e[2 * i] for i in range(lanes)], w)]
    if family == "unpack":  # lanes twice as wide, zero-extended; unpack_b32: bytes 8i..8i+3, then 4 zeros
        return [lanes_to_bytes(e[:lanes // 2], 2 * w)]
    if family == "unpack4":
        return [lanes_to_bytes(e[:64], 4)]
    if family == "blk":
        return [bytes(ub[:32]) * 8]
    if family == "e2b":  # every lane of datablock j = element j
        return [lanes_to_bytes([e[i // (32 // w)] for i in range(lanes)], w)]
    if family == "dintlv":
        return [lanes_to_bytes([e[2 * i] for i in range(lanes)], w),
                lanes_to_bytes([e[2 * i + 1] for i in range(lanes)], w)]
    raise AssertionError(mode)


LOAD_MODES = [("norm", w) for w in (1, 2, 4)] + [
    ("brc_b8", 1), ("brc_b16", 2), ("brc_b32", 4), ("us_b8", 1), ("us_b16", 2), ("ds_b8", 1), ("ds_b16", 2),
    ("unpack_b8", 1), ("unpack_b16", 2), ("unpack_b32", 4), ("unpack4_b8", 1), ("blk", 1), ("blk", 2), ("blk", 4),
    ("e2b_b16", 2), ("e2b_b32", 4), ("dintlv_b8", 1), ("dintlv_b16", 2), ("dintlv_b32", 4)]
ALIGN = {"brc_b8": 1, "brc_b16": 2, "brc_b32": 4, "e2b_b16": 16}


@pytest.mark.parametrize(("mode", "w"), LOAD_MODES, ids=[f"{m}-{w}" for m, w in LOAD_MODES])
@pytest.mark.parametrize("address", ["constant", "register"])
def test_every_load_mode_as_the_table_says(mode, w, address):
    rng = np.random.default_rng(zlib.crc32(f"{mode}{w}".encode()))
    image = rng.integers(0, 256, 1024, dtype=np.uint8)
    offset = ALIGN.get(mode, 32) * 3  # at the mode's alignment, not 32's (where it is finer)
    addr = MEM + offset
    t = TYPES_OF[w][int(rng.integers(0, len(TYPES_OF[w])))]
    two = mode.startswith("dintlv")
    dests = "V2, V3" if two else "V2"
    where = f"[0x{addr:x}]" if address == "constant" else f"[S1 + {offset}]"
    _, _, out = run(f"MOV S1, 0x{MEM:x}\nVLD.{t} {dests}, {where}, dist={mode}", dump=(2, 3) if two else (2,),
                    ub=[(MEM, image)])
    want = expect_load(mode, w, image[offset:].tobytes())
    for k, reg in enumerate((2, 3)[:len(want)]):
        assert out[reg].tobytes() == want[k], f"VLD.{t} dist={mode}: register {k}"


def test_load_modes_by_hand():
    """Values written out from the contract's rows: 0x7F zero-extends to 0x007F (unpack is zero extension)."""
    ub = bytes([0x7F, 0x80, 0x01, 0xFF]) + bytes(range(4, 64))
    _, _, out = run(f"VLD.s8 V1, [0x{MEM:x}], dist=unpack_b8\nVLD.s8 V2, [0x{MEM:x}], dist=us_b8\n"
                    f"VLD.s16 V3, [0x{MEM:x}], dist=brc_b16\nVLD.s8 V4, [0x{MEM:x}], dist=unpack4_b8",
                    dump=(1, 2, 3, 4), ub=[(MEM, np.frombuffer(ub, dtype=np.uint8))])
    assert out[1][:8].view("<u2").tolist() == [0x007F, 0x0080, 0x0001, 0x00FF]
    assert out[2][:6].tolist() == [0x7F, 0x7F, 0x80, 0x80, 0x01, 0x01]
    assert set(out[3].view("<u2").tolist()) == {0x807F}
    assert out[4][:8].view("<u4").tolist() == [0x7F, 0x80]


# -- stores --------------------------------------------------------------------------------------------------
def expect_store(mode: str, w: int, old: bytes, regs: list[bytes], p: np.ndarray) -> bytes:
    """UB after ``VST.T [Sa], ..., dist=mode`` over ``old`` (from Sa), with mask entries ``p`` (13.1 store table)."""
    out = bytearray(old)
    family = mode.rsplit("_b", 1)[0] if "_b" in mode else mode

    def put(k: int, value: int, width: int) -> None:
        out[k * width:(k + 1) * width] = value.to_bytes(width, "little")

    if family == "norm":
        for i in range(256 // w):
            if p[i * w]:
                put(i, element(regs[0], i, w), w)
    elif family == "first":
        put(0, element(regs[0], 0, w), w)
    elif family in ("pack", "pack4"):  # the low w bytes of each active lane of width 2w (4w): bit of that width
        wide = int(mode[-2:]) // 8
        for i in range(256 // wide):
            if p[i * wide]:
                put(i, element(regs[0], i, wide) & ((1 << (8 * w)) - 1), w)
    elif family == "intlv":
        for i in range(256 // w):
            put(2 * i, element(regs[0], i, w), w)
            put(2 * i + 1, element(regs[1], i, w), w)
    else:
        raise AssertionError(mode)
    return bytes(out)


STORE_MODES = [("norm", 1), ("norm", 2), ("norm", 4), ("norm_b8", 1), ("norm_b16", 2), ("norm_b32", 4),
               ("first_b8", 1), ("first_b16", 2), ("first_b32", 4), ("pack_b16", 1), ("pack_b32", 2),
               ("pack4_b32", 1), ("intlv_b8", 1), ("intlv_b16", 2), ("intlv_b32", 4)]
PACK_TYPES = {1: ("s8", "u8"), 2: ("s16", "u16")}


def _mask(kind: str, rng) -> np.ndarray:
    if kind == "all":
        return np.ones(256, dtype=bool)
    if kind == "prefix":
        return np.arange(256) < int(rng.integers(1, 256))
    return rng.integers(0, 2, 256).astype(bool)


@pytest.mark.parametrize(("mode", "w"), STORE_MODES, ids=[f"{m}-{w}" for m, w in STORE_MODES])
@pytest.mark.parametrize("mask", ["all", "prefix", "random"])
def test_every_store_mode_as_the_table_says(mode, w, mask):
    rng = np.random.default_rng(zlib.crc32(f"{mode}{w}{mask}".encode()))
    masked = not mode.startswith(("first", "intlv"))
    if not masked and mask != "all":
        pytest.skip("no mask")
    two = mode.startswith("intlv")
    regs = [rng.integers(0, 256, 256, dtype=np.uint8) for _ in range(2)]
    old = rng.integers(0, 256, 1024, dtype=np.uint8)
    p = _mask(mask, rng)
    types = PACK_TYPES[w] if mode.startswith("pack") else TYPES_OF[w]
    t = types[int(rng.integers(0, len(types)))]
    offset = 64 + (w if mode.startswith("first") else 32)  # a first_* store at its (finer) alignment
    operands = "V0, V1" if two else "V0, P1" if masked else "V0"
    _, _, _ = m_r_out = run(f"MOV S2, 0x{MEM:x}\nVST.{t} [S2 + {offset}], {operands}, dist={mode}",
                            v={0: regs[0], 1: regs[1]}, p={1: p}, ub=[(MEM, old)])
    m = m_r_out[0]
    got = m.read("ub", MEM, "u8", 1024).tobytes()
    want = old[:offset].tobytes() + expect_store(mode, w, old[offset:].tobytes(),
                                                 [r.tobytes() for r in regs], p)
    assert got == want, f"VST.{t} dist={mode} mask={mask}"


def test_pack_store_by_hand():
    """DIST_PACK_B16 of the uint16 example in the documents: [0x3210, 0x7654, ...] -> bytes 0x10, 0x54, ...
    (the low byte of each 16-bit lane, in place); an inactive lane leaves its byte unchanged."""
    lanes = np.array([0x3210, 0x7654, 0xBA98, 0xFEDC] * 32, dtype="<u2")
    p = np.zeros(256, dtype=bool)
    p[[0, 2, 6]] = True  # 16-bit lanes 0, 1, 3 (bit 2i); lane 2 off
    m, _, _ = run(f"VST.u8 [0x{MEM:x}], V0, P1, dist=pack_b16", v={0: lanes.view(np.uint8)}, p={1: p},
                  ub=[(MEM, np.full(256, 0xEE, dtype=np.uint8))])
    assert m.read("ub", MEM, "u8", 6).tolist() == [0x10, 0x54, 0xEE, 0xDC, 0xEE, 0xEE]


# -- the quantization example of 13.1 -------------------------------------------------------------------------
QUANT = """
        MOV S1, 0x2000
        MOV S3, 0x3000
        MOV S4, 80
        VF.BEGIN
        LOOP 2
        PUPDATE.b32 P0, S4
        VLD.f32       V0, [S1], post=64
        VCONV.f16.f32 V1, V0, P0, round=rint
        VMULS.f16     V1, V1, 0.5, P0
        VADDS.f16     V1, V1, 3.0, P0
        VCONV.s8.f16  V2, V1, P0, round=rint
        VST.s8        [S3], V2, P0, dist=pack4_b32, post=64
        ENDLOOP
        VF.END
        HALT
"""


def test_the_quant_example_of_the_contract():
    """f32 x -> s8 rint(rint_f16(x) * 0.5 + 3), 80 values over two passes of 64 lanes: the second pass's
    mask (16 lanes) writes bytes 64..79 and leaves 80..127 as they were."""
    x = (np.arange(80, dtype=np.float32) - 40.0) * 1.5 + 0.25
    m = vcore.load_text(QUANT, profile="950")
    m.write("ub", 0x2000, x)
    m.write("ub", 0x3000, np.full(128, 0x55, dtype=np.uint8))
    r = m.run()
    assert r.fault is None and not m.races()
    want = [int(np.rint(np.float16(np.float16(xi) * np.float16(0.5)) + np.float16(3.0))) for xi in x]
    got = m.read("ub", 0x3000, "s8", 128).tolist()
    assert got[:80] == want
    assert got[80:] == [0x55] * 48
    # by hand: -59.75 * 0.5 + 3 = -26.875 -> -27; 58.75 * 0.5 + 3 = 32.375 -> 32
    assert want[:3] == [-27, -26, -25] and want[-1] == 32


# -- faults and errors ----------------------------------------------------------------------------------------
def test_misaligned_register_address_faults_with_the_contract_text():
    m, r, _ = run("MOV S3, 0x3F010\nPSET.b32 P0, ALL\nVST.s8 [S3], V2, P0, dist=pack4_b32", check=False)
    assert r.fault is not None
    assert "VST dist=pack4_b32: address 0x3F010 is not 32-byte aligned" in str(r.fault)


@pytest.mark.parametrize(("body", "words"), [
    ("MOV S1, 0x1002\nVLD.f32 V0, [S1], dist=brc_b32", "VLD dist=brc_b32: address 0x1002 is not 4-byte aligned"),
    ("MOV S1, 0x100A\nVLD.u16 V0, [S1], dist=us_b16", "VLD dist=us_b16: address 0x100A is not 32-byte aligned"),
    ("MOV S1, 0x1010\nVLD.u8 V0, V1, [S1], dist=dintlv_b8", "VLD dist=dintlv_b8: address 0x1010 is not 32"),
    ("MOV S1, 0x1008\nVLD.f16 V0, [S1], dist=e2b_b16", "VLD dist=e2b_b16: address 0x1008 is not 16-byte"),
    ("MOV S1, 0x1001\nVST.s16 [S1], V0, dist=first_b16", "VST dist=first_b16: address 0x1001 is not 2-byte"),
    ("MOV S1, 0x3FF00\nVLD.u8 V0, [S1], dist=ds_b8", "VLD dist=ds_b8: UB bytes 0x3ff00..0x40100 outside UB"),
    ("MOV S1, 0x1010\nPLD P0, [S1], dist=ds", "PLD dist=ds: address 0x1010 is not 32-byte aligned"),
])
def test_misaligned_or_outside_register_addresses_fault(body, words):
    _, r, _ = run(body, check=False)
    assert r.fault is not None and words in str(r.fault), str(r.fault)


def test_post_moves_the_base_by_n_elements_at_the_mode_alignment():
    """post=N adds N * w bytes: two brc_b16 loads 2 bytes apart (post=1), two first_b8 stores 1 byte apart."""
    ub = np.arange(64, dtype=np.uint8)
    m, _, out = run(f"MOV S1, 0x{MEM:x}\nVLD.u16 V1, [S1], dist=brc_b16, post=1\nVLD.u16 V2, [S1], dist=brc_b16\n"
                    f"MOV S2, 0x3000\nVST.u8 [S2], V1, dist=first_b8, post=1\nMEMBAR\nVST.u8 [S2], V2, dist=first_b8",
                    dump=(1, 2), ub=[(MEM, ub)])
    assert out[1][:2].tolist() == [0, 1] and out[2][:2].tolist() == [2, 3]
    assert m.read("ub", 0x3000, "u8", 2).tolist() == [0, 2]


def _error(body: str):
    text = "VF.BEGIN\nPSET.b32 P0, ALL\n" + body + "\nVF.END\nHALT\n"
    with pytest.raises(AsmError) as info:
        assemble(text, "t.asm")
    d = info.value.diagnostics[0]
    return d.location.line - 2, d.location.col, d.message


@pytest.mark.parametrize(("body", "at", "message"), [
    ("VST.f16 [S1], V0, P0, dist=pack4_b32", "pack4",
     "dist=pack4_b32 stores 8-bit elements: write VST.s8 or VST.u8, not VST.f16"),
    ("VLD.f32 V0, [S1], dist=us_b16", "us_",
     "dist=us_b16 loads 16-bit elements: write VLD.f16, VLD.bf16, VLD.s16 or VLD.u16, not VLD.f32"),
    ("VLD.u16 V0, [S1], dist=unpack_16", "unpack", "unknown load distribution 'unpack_16'; did you mean unpack_b16?"),
    ("VST.u16 [S1], V0, P0, dist=pak_b16", "pak", "unknown store distribution 'pak_b16'; did you mean pack_b16?"),
    ("VLD.f32 V0, [S1], dist=dintlv_b32", "dintlv",
     "dist=dintlv_b32 loads two registers: VLD.T Vd0, Vd1, [Sa], dist=dintlv_b32"),
    ("VLD.f32 V0, V1, [S1], dist=brc_b32", "brc", "dist=brc_b32 loads one register: VLD.T Vd, [Sa], dist=brc_b32"),
    ("VST.s16 [S1], V0, dist=intlv_b16", "intlv",
     "dist=intlv_b16 stores two registers: VST.T [Sa], Vs0, Vs1, dist=intlv_b16"),
    ("VST.s16 [S1], V0, V1, P0, dist=intlv_b16", "P0", "VST dist=intlv_b16 ignores the mask: remove the mask operand"),
    ("VST.s16 [S1], V0, P0, dist=first_b16", "P0", "VST dist=first_b16 ignores the mask: remove the mask operand"),
    ("VST.u8 [S1], V0, dist=pack_b16", "pack", "dist=pack_b16 needs a mask: VST.T [Sa], Vs, Pm, dist=pack_b16"),
    ("VST.u16 [S1], V0, P0, dist=pack_b64", "pack", "dist=pack_b64 needs 64-bit lanes, which vcore does not have"),
    ("VLD.f32 V0, [0x1002], dist=brc_b32", "[", "VLD dist=brc_b32 needs a 4-byte aligned address; 0x1002 is not"),
    ("VLD.u8 V0, [0x1010], dist=us_b8", "[", "VLD dist=us_b8 needs a 32-byte aligned address; 0x1010 is not"),
    ("VLD.u8 V0, [S1], dist=us_b8, post=16", "16",
     "VLD dist=us_b8 needs a post= step of a multiple of 32 bytes; post=16 moves 16"),
    ("VLD.f16 V0, [S1 + 8], dist=e2b_b16", "[", "offset 8 from a register must be a multiple of 16"),
    ("VLD.f16 V0, V0, [S1], dist=dintlv_b16", "V0, [", "VLD dist=dintlv_b16 needs two different destination registers"),
    ("PLD P1, [S1 + 8], dist=us", "[", "offset 8 from a register must be a multiple of 16"),
    ("PST [S1], P1, dist=ds", "ds", "unknown store distribution 'ds'"),
    ("VST.f32 [S1], V0, P0, dist=norm_b16", "norm",
     "dist=norm_b16 stores 16-bit elements: write VST.f16, VST.bf16, VST.s16 or VST.u16, not VST.f32"),
    ("VLD.f32 V0, [S1], blk=2, dist=blk", "2,", "blk= is valid only with dist=norm, not with VLD dist=blk"),
])
def test_assembly_errors_of_13_1(body, at, message):
    """Each error of 13.1 with its text, at the operand it is about (``at``: where its text starts)."""
    line, col, got = _error(body)
    assert line == 1 and message in got, got
    assert col == body.index(at) + 1, (col, got)


def test_dist_synonyms_and_case():
    """DIST_ prefixed AscendC names and any case are the same mode: the same words."""
    plain = assemble("VF.BEGIN\nPSET.b32 P0, ALL\nVST.s8 [S3], V2, P0, dist=pack4_b32\nVF.END\n", "t.asm").words
    for spelling in ("DIST_PACK4_B32", "Pack4_B32", "dist_pack4_b32"):
        words = assemble(f"VF.BEGIN\nPSET.b32 P0, ALL\nVST.s8 [S3], V2, P0, dist={spelling}\nVF.END\n", "t.asm").words
        assert words == plain, spelling
    norm = assemble("VF.BEGIN\nVLD.f32 V0, [S1]\nVF.END\n", "t.asm").words
    assert assemble("VF.BEGIN\nVLD.f32 V0, [S1], dist=DIST_NORM\nVF.END\n", "t.asm").words == norm


def test_intlv_with_one_register_twice_is_allowed():
    regs = np.arange(256, dtype=np.uint8)
    m, _, _ = run(f"VST.u8 [0x{MEM:x}], V0, V0, dist=intlv_b8", v={0: regs})
    assert m.read("ub", MEM, "u8", 512).tolist() == [i // 2 for i in range(512)]


# -- races: a store's footprint is the bytes it writes (13.12) ---------------------------------------------------
@pytest.mark.parametrize(("first", "races"), [
    ("PSET.b32 P0, VL8\nVST.s8 [0x2000], V0, P0, dist=pack4_b32", False),  # bytes 0..7: block 0 alone
    ("PSET.b32 P0, ALL\nVST.s8 [0x2000], V0, P0, dist=pack4_b32", True),   # bytes 0..63: blocks 0 and 1
    ("VST.f32 [0x201C], V0, dist=first_b32", False),                       # bytes 28..31
    ("VST.f32 [0x2020], V0, dist=first_b32", True),                        # bytes 32..35
])
def test_a_store_races_only_on_the_blocks_it_writes(first, races):
    """The store, then a store of the bytes from 0x2020 on with no MEMBAR between: a race (WAW) exactly when
    the first one wrote a byte of that 32-byte block."""
    m, r, _ = run(first + "\nPSET.b8 P2, ALL\nVST.u8 [0x2020], V1, P2", check=False)
    assert r.fault is None
    assert bool(m.races()) == races, m.races()


# -- the words: offsets in the mode's alignment, old words unchanged -----------------------------------------------
def _word(line: str) -> int:
    words = assemble(f"VF.BEGIN\n{line}\nVF.END\n", "t.asm").words
    return words[1]


def test_old_words_keep_their_meaning():
    """VLD.f32 V0, [S1 + 64], post=64 (docs/encoding.md): opcode 0x20, type 3, Vd [12:17), the UB operand
    [17:36) (bit 18 set, the offset in 32-byte blocks at [5:18), S1), post [36:52), blk and dist zero."""
    ub = 1 << 18 | 2 << 5 | 1
    assert _word("VLD.f32 V0, [S1 + 64], post=64") == 0x20 | 3 << 8 | ub << 17 | 64 << 36
    assert _word("VLD.f32 V0, [S1 + 64], post=64, dist=norm") == _word("VLD.f32 V0, [S1 + 64], post=64")


def test_offsets_count_in_the_mode_alignment():
    """[Sn + EXPR] holds EXPR / alignment: 3 bytes for brc_b8 (1), 8 bytes as 2 for brc_b32 (4); dist at [61:64)."""
    assert _word("VLD.u8 V0, [S1 + 3], dist=brc_b8") == 0x20 | 5 << 8 | (1 << 18 | 3 << 5 | 1) << 17 | 1 << 61
    assert _word("VLD.f32 V0, [S1 + 8], dist=brc_b32") == 0x20 | 3 << 8 | (1 << 18 | 2 << 5 | 1) << 17 | 1 << 61
    _, _, message = _error("VLD.u8 V0, [S1 + 4096], dist=brc_b8")
    assert message == "UB offset 4096 out of range -4096..4095"


@pytest.mark.parametrize("line", [
    "VLD.u8 V0, [S1 - 5], dist=brc_b8, post=-3", "VLD.s16 V1, [S2 + 48], dist=e2b_b16", "VLD.f32 V0, [S1], dist=blk",
    "VLD.u8 V2, V3, [S1 + 64], dist=dintlv_b8, post=64", "VST.s16 [S1 + 64], V0, P0, dist=pack_b32, post=64",
    "VST.bf16 [S1 + 6], V0, dist=first_b16, post=-1", "VST.e4m3 [S1], V0, V1, dist=intlv_b8",
    "VST.u8 [S4], V1, P2, dist=pack_b16", "PLD P1, [S1 + 16], dist=us", "PLD P1, [S1 + 64], dist=ds",
    "PST [S1 - 16], P1, dist=pack", "VLD.u16 V0, [S1], dist=unpack_b16", "VLD.u32 V0, [S1], dist=unpack_b32",
])
def test_disassembly_reassembles_to_the_same_words(line):
    from vcore.assembler.disasm import disassemble

    program = assemble(f"VF.BEGIN\n{line}\nVF.END\n", "t.asm")
    text = disassemble(program)
    assert assemble(text, "t.asm").words == program.words, text
    assert "dist=" in text.splitlines()[1]


def test_words_of_a_family_without_a_mode_of_the_width_do_not_decode():
    """VLD.f32 with the family us (us_b8 and us_b16 exist, no us_b32): the decoder refuses the word."""
    from vcore import isa

    word = _word("VLD.f32 V0, [S1], dist=brc_b32") & ~(7 << 61) | 2 << 61  # family 2 (us) in [61:64)
    with pytest.raises(isa.DecodeError, match="dist=us has no mode of 32-bit elements"):
        isa.decode([word])
