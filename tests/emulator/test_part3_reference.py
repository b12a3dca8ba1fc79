"""Differential tests of CONTRACT 13.2, 13.3, 13.7 and 13.10 (part three): vcore against the independent
oracle ``tests/reference.py``, through the public API only (``vcore.load_text``, ``Machine.write``,
``run``, ``read``, ``races``).

Expected values come from the oracle (written from the contract alone) or are written out by hand from
the contract's own examples; never from the emulator's code. Everything is compared bit for bit.

* PSET ``M3`` / ``M4`` at every width (13.10: the lanes whose index is a multiple of 3 or 4), as a mask
  stored with PST and as the mask of a VST; the Squeeze example's count (4 x 64 f32 lanes under M4
  give 64).
* Register ``VDIV`` / ``VREM`` for s16 u16 s32 u32 under random masks (lanes outside Pm zero, the
  destination holding other data before; in place over either source), random lanes rich in MIN,
  -1, 0, 1, MAX; tensor forms with repeat, block and repeat strides, masks of both kinds and counts,
  over a destination of other data (lanes outside the mask keep it); the contract's values by hand
  (-7 / 2 = -3, -2**31 / -1 = -2**31, -32768 / -1 = -32768, x / 0 = all ones, MIN % -1 = 0, x % 0 = x);
  the whole FloorMod sequence of 13.7 against the oracle's run of it and against Python's ``%``.
* ``PLD dist=norm|us|ds``, ``PST dist=norm|pack`` (random bytes and masks, every byte around the store
  checked), ``PPACK`` / ``PUNPACK`` with ``part=lo|hi`` or none, in place; PUNPACK twice turning a b8
  bit mask into a b32 predicate (13.2's "where" example) used by a VSEL; ``PINTLV.Bw`` /
  ``PDINTLV.Bw`` for w = 8, 16, 32 with sources repeated or equal to a destination; ``PSEL``.
* ``VINTLV.T`` / ``VDINTLV.T`` for every 8-, 16- and 32-bit type (``VINTLV V0, V1, V0, V1`` in place),
  with the contract's printed orders; ``VPACK.D.S`` and ``VUNPACK.D.S`` for every pair with
  ``part=lo|hi`` or none (the other half of a VPACK destination zero; sign or zero extension by S).

Registers are set from UB in a prologue (``VLD.u8``, ``PLD``) and stored in an epilogue (``PST`` for
masks, ``VST.u8`` under ``PSET.b8 P7, ALL`` for vectors), inside the one vector function that runs the
code under test (CONTRACT 7); the regions read and written never meet, and every run must report no
race. Every test is marked ``part3``: these instructions are new, and until vcore has them the tests
fail at assembly.
"""

from __future__ import annotations

import numpy as np
import pytest
import strategies
from emu_support import bits_bytes, pack_mask, unpack_mask
from hypothesis import HealthCheck, Phase, currently_in_test_context, given, note, settings
from hypothesis import strategies as st

import vcore
from tests import reference as R

pytestmark = pytest.mark.part3
# The instructions these tests name that vcore has not built yet (issue 31 is built in steps): the next
# step deletes the mark from each test as its instruction lands.

SETTINGS = settings(max_examples=60, deadline=None, database=None, print_blob=True,
                    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large, HealthCheck.large_base_example])

UINT = {1: np.dtype("<u1"), 2: np.dtype("<u2"), 4: np.dtype("<u4")}
INT_DIV = R.INT_DIV_TYPES                         # s16 u16 s32 u32
ALL_TYPES = ("s8", "u8", "e4m3", "e5m2", "f16", "bf16", "s16", "u16", "f32", "s32", "u32")
PATTERNS = ("ALL", "ALLF", "VL1", "VL3", "VL16", "VL64", "M3", "M4", "H", "Q")

# UB layout of a run: inputs of the prologue, the code's own UB operands, outputs of the epilogue.
IN_V = 0x0000        # V inputs, 256 bytes each (V0..V15)
IN_P = 0x1000        # P inputs, 64 bytes each (P0..P7)
MEM = 0x2000         # UB the code under test reads (PLD dist=...)
MEM_OUT = 0x3000     # UB the code under test writes (PST dist=...)
OUT_V = 0x4000       # V outputs, 256 bytes each
OUT_P = 0x6000       # P outputs, 32 bytes each (PST norm)


# -- running register code ----------------------------------------------------------------------------

def show(text: str) -> None:
    """The program, in hypothesis's report of a failing example (plain tests name it in their asserts)."""
    if currently_in_test_context():
        note(text)


def run_function(body: str, *, v=None, p=None, dump_v=(), dump_p=(), writes=()):
    """``body`` inside one vector function on the 950 profile: V registers set from ``v`` (k -> 256
    bytes) and P from ``p`` (k -> 256 bools) first, then the body, then ``dump_v`` / ``dump_p`` stored.
    ``writes`` are ``(addr, uint8 array)`` put in UB before the run. Returns (machine, {k: bytes},
    {k: bools})."""
    v, p = v or {}, p or {}
    lines = [f"VLD.u8 V{k}, [0x{IN_V + 256 * k:x}]" for k in v]
    lines += [f"PLD P{k}, [0x{IN_P + 64 * k:x}]" for k in p]
    lines.append(body.strip("\n"))
    lines += [f"PST [0x{OUT_P + 32 * k:x}], P{k}" for k in dump_p]
    if dump_v:
        lines.append("PSET.b8 P7, ALL")
        lines += [f"VST.u8 [0x{OUT_V + 256 * k:x}], V{k}, P7" for k in dump_v]
    text = "VF.BEGIN\n" + "\n".join(lines) + "\nVF.END\nHALT\n"
    show(text)
    m = vcore.load_text(text, profile="950")
    for k, data in v.items():
        m.write("ub", IN_V + 256 * k, np.asarray(data, dtype=np.uint8))
    for k, bits in p.items():
        m.write("ub", IN_P + 64 * k, pack_mask(bits))
    for addr, data in writes:
        m.write("ub", addr, np.asarray(data, dtype=np.uint8))
    r = m.run()
    assert r.fault is None, f"{r.fault}\n{text}"
    assert not m.races(), f"unexpected races: {m.races()}\n{text}"
    vs = {k: m.read("ub", OUT_V + 256 * k, "u8", 256) for k in dump_v}
    ps = {k: unpack_mask(m.read("ub", OUT_P + 32 * k, "u8", 32)) for k in dump_p}
    return m, vs, ps


def run_tensor(text: str, ub: np.ndarray):
    """Tensor code (no function) with ``ub`` written at 0; returns the machine."""
    show(text)
    m = vcore.load_text(text + "\nHALT\n", profile="950")
    m.write("ub", 0, ub)
    r = m.run()
    assert r.fault is None, f"{r.fault}\n{text}"
    return m




def lane_list(data, t: str) -> list[int]:
    return [R.decode(int(b), t) for b in np.ascontiguousarray(data).view(UINT[R.SIZE[t]])]


def assert_bytes(got, want, what: str) -> None:
    got, want = np.asarray(got, dtype=np.uint8), np.asarray(want, dtype=np.uint8)
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, (f"{what}: {bad.size} bytes differ, first at {int(bad[0])}: "
                           f"got {got[bad[:8]].tolist()}, want {want[bad[:8]].tolist()}")


def assert_mask(got, want, what: str) -> None:
    got, want = np.asarray(got, dtype=bool), np.asarray(want, dtype=bool)
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, f"{what}: bits {bad[:16].tolist()} differ (got set: {np.nonzero(got)[0][:16].tolist()})"


# -- strategies ---------------------------------------------------------------------------------------

@st.composite
def vregs(draw, t: str):
    """A register of lanes of ``t``: each lane any bit pattern, the edge values (0, 1, all ones, MAX,
    MIN; for floats the specials) drawn often."""
    lanes = 256 // R.SIZE[t]
    return bits_bytes(draw(st.lists(strategies.element_bits(t), min_size=lanes, max_size=lanes)), t)


@st.composite
def masks(draw):
    """256 mask bits: random bits (so a lane may have only some of its bits), or a PSET pattern."""
    kind = draw(st.sampled_from(["bits", "bits", "pattern", "sparse"]))
    if kind == "pattern":
        return R.pset(draw(st.sampled_from([8, 16, 32])), draw(st.sampled_from(PATTERNS)))
    word = draw(st.integers(0, (1 << 256) - 1))
    if kind == "sparse":
        word &= draw(st.integers(0, (1 << 256) - 1))
    return np.array([bool(word >> k & 1) for k in range(256)], dtype=bool)


def part_field(part) -> str:
    return "" if part is None else f", part={part}"


# -- 13.10: PSET M3 / M4 ------------------------------------------------------------------------------

@pytest.mark.parametrize("w", [8, 16, 32])
@pytest.mark.parametrize("pattern", ["M3", "M4"])
def test_pset_m3_m4_set_the_lanes_whose_index_is_a_multiple(w, pattern):
    size = w // 8
    t = {1: "u8", 2: "u16", 4: "u32"}[size]
    ones = np.full(256, 0xFF, dtype=np.uint8)
    sentinel = np.full(256, 0x5A, dtype=np.uint8)
    m, _, ps = run_function(f"PSET.b{w} P0, {pattern}\nVST.{t} [0x{MEM_OUT:x}], V0, P0", v={0: ones},
                            dump_p=[0], writes=[(MEM_OUT, sentinel)])
    want = R.pset(w, pattern)
    step = int(pattern[1])
    # by hand (13.10): lane i (bits i*size .. i*size + size - 1) is set exactly when i % step == 0
    assert list(want) == [k // size % step == 0 for k in range(256)]
    assert_mask(ps[0], want, f"PSET.b{w} {pattern}")
    stored = sentinel.copy()
    R.vst(stored, 0, ones, want, t)
    assert_bytes(m.read("ub", MEM_OUT, "u8", 256), stored, f"VST.{t} under PSET.b{w} {pattern}")


def test_m4_squeeze_example_count():
    """13.10: "64 f32 outputs from 4 x 64 lanes with M4" fits only the index reading."""
    _, _, ps = run_function("PSET.b32 P0, M4", dump_p=[0])
    assert sum(bool(ps[0][4 * i]) for i in range(64)) * 4 == 64
    assert [i for i in range(64) if ps[0][4 * i]][:4] == [0, 4, 8, 12]


# -- 13.7: integer VDIV / VREM, register --------------------------------------------------------------

@SETTINGS
@given(st.data())
def test_register_int_div_matches_the_reference(data):
    t = data.draw(st.sampled_from(INT_DIV), label="t")
    op = data.draw(st.sampled_from(["div", "rem"]), label="op")
    a, b = data.draw(vregs(t), label="a"), data.draw(vregs(t), label="b")
    old = data.draw(vregs("u8"), label="old Vd")
    pm = data.draw(masks(), label="P0")
    d = data.draw(st.sampled_from([2, 0, 1]), label="Vd")        # a fresh register, or in place
    v = {0: a, 1: b} if d in (0, 1) else {0: a, 1: b, 2: old}
    _, vs, _ = run_function(f"V{op.upper()}.{t} V{d}, V0, V1, P0", v=v, p={0: pm}, dump_v=[d])
    want = R.vop(op, t, a, b, pm)
    assert_bytes(vs[d], want, f"V{op.upper()}.{t} V{d}, V0, V1, P0")


MIN32, MIN16 = -(1 << 31), -(1 << 15)
DIV_CASES = [  # (t, a, b, a / b, a % b): the contract's 13.7 examples and their neighbours, by hand
    ("s32", -7, 2, -3, -1), ("s32", 7, -2, -3, 1), ("s32", -7, -2, 3, -1), ("s16", -7, 2, -3, -1),
    ("s32", MIN32, -1, MIN32, 0), ("s16", MIN16, -1, MIN16, 0),
    ("s32", 123, 0, -1, 123), ("s16", -5, 0, -1, -5), ("u16", 5, 0, 0xFFFF, 5), ("u32", 9, 0, 0xFFFFFFFF, 9),
    ("u32", 0xFFFFFFFF, 2, 0x7FFFFFFF, 1), ("u16", 0xFFFF, 0xFFFF, 1, 0), ("s32", MIN32, 3, -715827882, -2),
]


def test_register_int_div_contract_values():
    for t in INT_DIV:
        cases = [c for c in DIV_CASES if c[0] == t]
        a = bits_bytes([R.encode(c[1], t) for c in cases], t)
        b = bits_bytes([R.encode(c[2], t) for c in cases], t)
        va = np.zeros(256, dtype=np.uint8)
        vb = np.zeros(256, dtype=np.uint8)
        va[:a.size], vb[:b.size] = a, b
        n = len(cases)
        pm = R.make_mask(R.SIZE[t], [True] * n)              # lanes past the cases: 0 / 0, inactive
        _, vs, _ = run_function(f"VDIV.{t} V2, V0, V1, P0\nVREM.{t} V3, V0, V1, P0", v={0: va, 1: vb},
                                p={0: pm}, dump_v=[2, 3])
        assert lane_list(vs[2], t)[:n] == [c[3] for c in cases], f"VDIV.{t}"
        assert lane_list(vs[3], t)[:n] == [c[4] for c in cases], f"VREM.{t}"
        assert not vs[2][n * R.SIZE[t]:].any() and not vs[3][n * R.SIZE[t]:].any(), "inactive lanes zero"
        assert_bytes(vs[2], R.vdiv_int(t, va, vb, pm), f"VDIV.{t} vs the reference")
        assert_bytes(vs[3], R.vrem(t, va, vb, pm), f"VREM.{t} vs the reference")


# -- 13.7: integer VDIV / VREM, tensor ----------------------------------------------------------------

@st.composite
def tensor_masks(draw, t: str):
    lanes = 256 // R.SIZE[t]
    mode = draw(st.sampled_from(["none", "cont", "bit", "count"]))
    if mode == "none":
        return None, None
    if mode == "cont":
        return draw(st.one_of(st.sampled_from([1, lanes - 1, lanes]), st.integers(1, lanes))), None
    if mode == "count":
        return None, draw(st.integers(1, 3 * lanes))
    low = draw(st.integers(1, (1 << 64) - 1))
    high = 0 if R.SIZE[t] == 4 else draw(st.integers(0, (1 << 64) - 1))
    return (low, high), None


@SETTINGS
@given(st.data())
def test_tensor_int_div_matches_the_reference(data):
    t = data.draw(st.sampled_from(INT_DIV), label="t")
    op = data.draw(st.sampled_from(["div", "rem"]), label="op")
    mask, count = data.draw(tensor_masks(t), label="mask, count")
    repeat = 1 if count is not None else data.draw(st.integers(1, 3), label="repeat")
    dst_blk = data.draw(st.integers(1, 2), label="dstblk")
    src_blk = tuple(data.draw(st.integers(0, 2), label="srcblk") for _ in range(2))
    dst_rep = data.draw(st.sampled_from([8, 16]), label="dstrep")
    src_rep = tuple(data.draw(st.sampled_from([0, 8, 16]), label="srcrep") for _ in range(2))
    ub = np.zeros(0x18000, dtype=np.uint8)
    for base in (0x0, 0x8000):                       # two registers of lanes, repeated over 2 KiB
        pair = np.concatenate([data.draw(vregs(t), label=f"src at {base:#x}") for _ in range(2)])
        ub[base:base + 0x800] = np.resize(pair, 0x800)
    ub[0x10000:0x18000] = np.resize(data.draw(vregs("u8"), label="old dst"), 0x8000)
    fields = [f"repeat={repeat}"] if count is None else [f"count={count}"]
    fields += [f"dstblk={dst_blk}", f"src0blk={src_blk[0]}", f"src1blk={src_blk[1]}", f"dstrep={dst_rep}",
               f"src0rep={src_rep[0]}", f"src1rep={src_rep[1]}"]
    if mask is not None:
        fields.append(f"mask={mask}" if isinstance(mask, int) else f"mask=(0x{mask[0]:x}, 0x{mask[1]:x})")
    m = run_tensor(f"V{op.upper()}.{t} [0x10000], [0x0], [0x8000], " + ", ".join(fields), ub)
    want = ub.copy()
    R.tensor_op(want, op, t, 0x10000, (0x0, 0x8000), repeat=repeat, dst_blk=dst_blk, src_blk=src_blk,
                dst_rep=dst_rep, src_rep=src_rep, mask=mask, count=count)
    assert_bytes(m.read("ub", 0, "u8", want.size), want, f"tensor V{op.upper()}.{t}")


def test_tensor_int_div_contract_values():
    ub = np.full(0x400, 0xAB, dtype=np.uint8)
    ub[0x000:0x010] = bits_bytes([R.encode(x, "s32") for x in (-7, MIN32, 5, 8)], "s32")
    ub[0x100:0x110] = bits_bytes([R.encode(x, "s32") for x in (2, -1, 0, 3)], "s32")
    m = run_tensor("VDIV.s32 [0x200], [0x0], [0x100], mask=3\nVREM.s32 [0x300], [0x0], [0x100], mask=(0b1011, 0)",
                   ub)
    assert lane_list(m.read("ub", 0x200, "u8", 16), "s32") == [-3, MIN32, -1, R.decode(0xABABABAB, "s32")]
    assert lane_list(m.read("ub", 0x300, "u8", 16), "s32") == [-1, 0, R.decode(0xABABABAB, "s32"), 2]
    want = ub.copy()
    R.tensor_div_int(want, "s32", 0x200, 0x0, 0x100, mask=3)
    R.tensor_rem(want, "s32", 0x300, 0x0, 0x100, mask=(0b1011, 0))
    assert_bytes(m.read("ub", 0, "u8", 0x400), want, "tensor VDIV / VREM vs the reference")


# -- 13.7: the FloorMod sequence ----------------------------------------------------------------------

FLOORMOD = """
VREM.s32  V2, V0, V1, P0
VXOR.s32  V3, V2, V1, P0
VCMPS.LT.s32 P1, V3, 0, P0
VCMPS.NE.s32 P2, V2, 0, P0
PAND P1, P1, P2
VADD.s32  V4, V2, V1, P1
VSEL.s32  V2, V4, V2, P1
"""


def _check_floormod(a, b, pm):
    _, vs, ps = run_function(FLOORMOD, v={0: a, 1: b}, p={0: pm}, dump_v=[2, 3, 4], dump_p=[1, 2])
    want = R.floormod_sequence(a, b, pm)
    for k in (2, 3, 4):
        assert_bytes(vs[k], want[f"V{k}"], f"V{k} after the FloorMod sequence")
    for k in (1, 2):
        assert_mask(ps[k], want[f"P{k}"], f"P{k} after the FloorMod sequence")
    return vs[2]


def test_floormod_sequence_contract_values():
    xs = [7, -7, 7, -7, 6, -6, MIN32, MIN32, 5, -5, 0, 3, (1 << 31) - 1, -1]
    ys = [2, 2, -2, -2, 3, 3, -1, 0, 0, 0, 5, -7, MIN32, MIN32]
    want = [x % y if y else x for x, y in zip(xs, ys)]          # Python's %, the sign of the divisor
    assert want[:4] == [1, 1, -1, -1]
    a = np.zeros(256, dtype=np.uint8)
    b = np.zeros(256, dtype=np.uint8)
    a[:4 * len(xs)] = bits_bytes([R.encode(x, "s32") for x in xs], "s32")
    b[:4 * len(ys)] = bits_bytes([R.encode(y, "s32") for y in ys], "s32")
    v2 = _check_floormod(a, b, R.pset(32, "ALL"))
    assert lane_list(v2, "s32")[:len(xs)] == [R.decode(R.encode(w, "s32"), "s32") for w in want]


@SETTINGS
@given(a=vregs("s32"), b=vregs("s32"), pm=masks())
def test_floormod_sequence_matches_the_reference(a, b, pm):
    v2 = _check_floormod(a, b, pm)
    active = [R.lane_active(pm, i, 4) for i in range(64)]
    want = [R.decode(R.floormod_lane(x, y), "s32") if act else 0
            for x, y, act in zip(lane_list(a, "u32"), lane_list(b, "u32"), active)]
    assert lane_list(v2, "s32") == want


# -- 13.2: PLD / PST with dist= -----------------------------------------------------------------------

@SETTINGS
@given(st.data())
def test_pld_dist_matches_the_reference(data):
    dist = data.draw(st.sampled_from([None, "norm", "us", "ds"]), label="dist")
    align = {None: 32, "norm": 32, "us": 16, "ds": 32}[dist]
    addr = MEM + align * data.draw(st.integers(0, 4), label="offset")
    image = np.frombuffer(data.draw(st.binary(min_size=256, max_size=256), label="UB"), dtype=np.uint8)
    field = "" if dist is None else f", dist={dist}"
    d = data.draw(st.integers(0, 3), label="Pd")
    _, _, ps = run_function(f"PLD P{d}, [0x{addr:x}]{field}", p={d: np.ones(256, dtype=bool)}, dump_p=[d],
                            writes=[(MEM, image)])
    ub = np.zeros(0x8000, dtype=np.uint8)
    ub[MEM:MEM + 256] = image
    assert_mask(ps[d], R.pld(ub, addr, dist or "norm"), f"PLD dist={dist}")


@SETTINGS
@given(st.data())
def test_pst_dist_matches_the_reference(data):
    dist = data.draw(st.sampled_from([None, "norm", "pack"]), label="dist")
    align = 16 if dist == "pack" else 32
    addr = MEM_OUT + 64 + align * data.draw(st.integers(0, 4), label="offset")
    pm = data.draw(masks(), label="P1")
    old = np.frombuffer(data.draw(st.binary(min_size=256, max_size=256), label="old UB"), dtype=np.uint8)
    field = "" if dist is None else f", dist={dist}"
    m, _, _ = run_function(f"PST [0x{addr:x}], P1{field}", p={1: pm}, writes=[(MEM_OUT, old)])
    want = np.zeros(0x8000, dtype=np.uint8)
    want[MEM_OUT:MEM_OUT + 256] = old
    R.pst(want, addr, pm, dist or "norm")
    assert_bytes(m.read("ub", MEM_OUT, "u8", 256), want[MEM_OUT:MEM_OUT + 256], f"PST dist={dist}")


def test_pld_pst_by_hand():
    image = np.zeros(64, dtype=np.uint8)
    image[0], image[1], image[16], image[63] = 0b1010_0101, 0x01, 0x80, 0x80
    m, _, ps = run_function(f"PLD P1, [0x{MEM:x}], dist=us\nPLD P2, [0x{MEM:x}], dist=ds\n"
                            f"PST [0x{MEM_OUT:x}], P2, dist=pack", dump_p=[1, 2], writes=[(MEM, image)])
    # us: UB bits 0, 2, 5, 7, 8 each twice; bit 135 (byte 16) is past the 16 bytes read
    assert np.nonzero(ps[1])[0].tolist() == [0, 1, 4, 5, 10, 11, 14, 15, 16, 17]
    # ds: Pd bit k = UB bit 2k: UB bits 0, 2, 8 -> 0, 1, 4; bit 135 is odd, dropped; bit 511 odd too
    assert np.nonzero(ps[2])[0].tolist() == [0, 1, 4]
    # pack: UB bit k = P2 bit 2k: P2 bits 0 and 4 -> UB bits 0 and 2; 16 bytes
    assert m.read("ub", MEM_OUT, "u8", 16).tolist() == [0b101] + [0] * 15


# -- 13.2: PPACK / PUNPACK, PINTLV / PDINTLV, PSEL ------------------------------------------------------

@SETTINGS
@given(st.data())
def test_ppack_punpack_match_the_reference(data):
    op = data.draw(st.sampled_from(["PPACK", "PUNPACK"]), label="op")
    part = data.draw(st.sampled_from([None, "lo", "hi"]), label="part")
    ps_ = data.draw(masks(), label="Ps")
    d = data.draw(st.sampled_from([2, 1]), label="Pd")               # P1 is the source: 1 is in place
    p = {1: ps_} if d == 1 else {1: ps_, 2: data.draw(masks(), label="old Pd")}
    _, _, got = run_function(f"{op} P{d}, P1{part_field(part)}", p=p, dump_p=[d])
    fn = R.ppack if op == "PPACK" else R.punpack
    assert_mask(got[d], fn(ps_, part or "lo"), f"{op} P{d}, P1{part_field(part)}")


def test_punpack_twice_turns_a_b8_bit_mask_into_b32():
    """13.2: `PLD P1, [Sm]`, `PUNPACK P2, P1`, `PUNPACK P3, P2` (elements 0..63 as b32), then the
    "where" select of f32 data."""
    rng = np.random.default_rng(13)
    packed = rng.integers(0, 256, 32, dtype=np.uint8)
    x = rng.standard_normal(64).astype(np.float32).view(np.uint8).copy()
    y = rng.standard_normal(64).astype(np.float32).view(np.uint8).copy()
    _, vs, ps = run_function(f"MOV S1, 0x{MEM:x}\nPLD P1, [S1]\nPUNPACK P2, P1\nPUNPACK P3, P2\n"
                             "VSEL.f32 V2, V0, V1, P3", v={0: x, 1: y}, dump_v=[2], dump_p=[2, 3],
                             writes=[(MEM, packed)])
    bits = unpack_mask(packed)
    want_p3 = np.zeros(256, dtype=bool)
    want_p3[0::4][:64] = bits[:64]                     # element k < 64 at bit 4k; the other bits 0
    assert_mask(ps[3], want_p3, "PUNPACK twice")
    assert_mask(ps[3], R.punpack(R.punpack(bits)), "PUNPACK twice vs the reference")
    assert_mask(ps[2], R.punpack(bits), "PUNPACK once")
    want = np.concatenate([x[4 * k:4 * k + 4] if bits[k] else y[4 * k:4 * k + 4] for k in range(64)])
    assert_bytes(vs[2], want, "VSEL.f32 under the unpacked mask")


@SETTINGS
@given(st.data())
def test_pintlv_pdintlv_match_the_reference(data):
    op = data.draw(st.sampled_from(["PINTLV", "PDINTLV"]), label="op")
    w = data.draw(st.sampled_from([8, 16, 32]), label="w")
    d0, d1 = data.draw(st.lists(st.integers(0, 3), min_size=2, max_size=2, unique=True), label="Pd0, Pd1")
    a, b = data.draw(st.integers(0, 3), label="Pa"), data.draw(st.integers(0, 3), label="Pb")
    p = {k: data.draw(masks(), label=f"P{k}") for k in range(4)}
    _, _, got = run_function(f"{op}.B{w} P{d0}, P{d1}, P{a}, P{b}", p=p, dump_p=[d0, d1])
    fn = R.pintlv if op == "PINTLV" else R.pdintlv
    want0, want1 = fn(w, p[a], p[b])                   # from the sources' old values (13.12)
    assert_mask(got[d0], want0, f"{op}.B{w} Pd0")
    assert_mask(got[d1], want1, f"{op}.B{w} Pd1")


def test_pintlv_by_hand():
    # .B16 (groups of 2 bits): Pa group 0 = (1, 0), Pb group 0 = (0, 1) -> Pd0 bits 0 and 3
    pa = np.zeros(256, dtype=bool)
    pb = np.zeros(256, dtype=bool)
    pa[0] = pb[1] = pb[255] = True
    _, _, got = run_function("PINTLV.B16 P2, P3, P0, P1\nPDINTLV.B16 P4, P5, P2, P3", p={0: pa, 1: pb},
                             dump_p=[2, 3, 4, 5])
    assert np.nonzero(got[2])[0].tolist() == [0, 3]
    assert np.nonzero(got[3])[0].tolist() == [255]       # Pb group 127 is s[255] = Pd1 group 127
    assert_mask(got[4], pa, "PDINTLV undoes PINTLV (Pd0)")
    assert_mask(got[5], pb, "PDINTLV undoes PINTLV (Pd1)")


@SETTINGS
@given(st.data())
def test_psel_matches_the_reference(data):
    regs = [data.draw(st.integers(0, 3), label=n) for n in ("Pd", "Pa", "Pb", "Pm")]
    p = {k: data.draw(masks(), label=f"P{k}") for k in range(4)}
    d, a, b, pm = regs
    _, _, got = run_function(f"PSEL P{d}, P{a}, P{b}, P{pm}", p=p, dump_p=[d])
    assert_mask(got[d], R.psel(p[a], p[b], p[pm]), f"PSEL P{d}, P{a}, P{b}, P{pm}")


# -- 13.3: VINTLV / VDINTLV, VPACK / VUNPACK ----------------------------------------------------------

@SETTINGS
@given(st.data())
def test_vintlv_vdintlv_match_the_reference(data):
    op = data.draw(st.sampled_from(["VINTLV", "VDINTLV"]), label="op")
    t = data.draw(st.sampled_from(ALL_TYPES), label="t")
    d0, d1 = data.draw(st.lists(st.integers(0, 3), min_size=2, max_size=2, unique=True), label="Vd0, Vd1")
    a, b = data.draw(st.integers(0, 3), label="Va"), data.draw(st.integers(0, 3), label="Vb")
    v = {k: data.draw(vregs(t), label=f"V{k}") for k in range(4)}
    _, vs, _ = run_function(f"{op}.{t} V{d0}, V{d1}, V{a}, V{b}", v=v, dump_v=[d0, d1])
    fn = R.vintlv if op == "VINTLV" else R.vdintlv
    want0, want1 = fn(t, v[a], v[b])
    assert_bytes(vs[d0], want0, f"{op}.{t} Vd0")
    assert_bytes(vs[d1], want1, f"{op}.{t} Vd1")


@pytest.mark.parametrize("t", ["f16", "u16", "s32"])
def test_vintlv_vdintlv_contract_orders(t):
    """13.3's printed orders (src0 = 1..512, src1 = 513..1024 gives dst0 = [1 513 2 ...], dst1 =
    [257 769 ...]; DeInterleave dst0 = [1 3 5 ...]), at one register: Va = 1..L, Vb = L+1..2L. Also
    ``VINTLV V0, V1, V0, V1`` in place."""
    lanes = 256 // R.SIZE[t]
    a = bits_bytes([R.encode(i, t) for i in range(1, lanes + 1)], t)
    b = bits_bytes([R.encode(i, t) for i in range(lanes + 1, 2 * lanes + 1)], t)
    _, vs, _ = run_function(f"VINTLV.{t} V2, V3, V0, V1\nVDINTLV.{t} V4, V5, V0, V1\nVINTLV.{t} V0, V1, V0, V1",
                            v={0: a, 1: b}, dump_v=[0, 1, 2, 3, 4, 5])
    half = lanes // 2
    d0 = [x for i in range(1, half + 1) for x in (i, lanes + i)]
    d1 = [x for i in range(half + 1, lanes + 1) for x in (i, lanes + i)]
    assert lane_list(vs[2], t) == d0 and lane_list(vs[3], t) == d1
    assert lane_list(vs[0], t) == d0 and lane_list(vs[1], t) == d1, "in place"
    assert lane_list(vs[4], t) == list(range(1, 2 * lanes + 1, 2))
    assert lane_list(vs[5], t) == list(range(2, 2 * lanes + 1, 2))


@SETTINGS
@given(st.data())
def test_vpack_matches_the_reference(data):
    dst_t, src_t = data.draw(st.sampled_from(R.VPACK_PAIRS), label="(D, S)")
    part = data.draw(st.sampled_from([None, "lo", "hi"]), label="part")
    a = data.draw(vregs(src_t), label="Va")
    d = data.draw(st.sampled_from([1, 0]), label="Vd")               # V0 is the source: 0 is in place
    v = {0: a} if d == 0 else {0: a, 1: data.draw(vregs("u8"), label="old Vd")}
    _, vs, _ = run_function(f"VPACK.{dst_t}.{src_t} V{d}, V0{part_field(part)}", v=v, dump_v=[d])
    assert_bytes(vs[d], R.vpack(dst_t, src_t, a, part or "lo"), f"VPACK.{dst_t}.{src_t}{part_field(part)}")


@SETTINGS
@given(st.data())
def test_vunpack_matches_the_reference(data):
    dst_t, src_t = data.draw(st.sampled_from(R.VUNPACK_PAIRS), label="(D, S)")
    part = data.draw(st.sampled_from([None, "lo", "hi"]), label="part")
    a = data.draw(vregs(src_t), label="Va")
    d = data.draw(st.sampled_from([1, 0]), label="Vd")
    v = {0: a} if d == 0 else {0: a, 1: data.draw(vregs("u8"), label="old Vd")}
    _, vs, _ = run_function(f"VUNPACK.{dst_t}.{src_t} V{d}, V0{part_field(part)}", v=v, dump_v=[d])
    assert_bytes(vs[d], R.vunpack(dst_t, src_t, a, part or "lo"), f"VUNPACK.{dst_t}.{src_t}{part_field(part)}")


def test_vpack_vunpack_by_hand():
    a = np.zeros(256, dtype=np.uint8)
    a[:8] = bits_bytes([R.encode(x, "s16") for x in (-1, 0x1234, MIN16, 0x7F80)], "s16")
    b = np.zeros(256, dtype=np.uint8)
    b[:4] = [0xFF, 0x7F, 0x80, 0x01]
    b[128:130] = [0x80, 0x02]
    _, vs, _ = run_function("VPACK.u8.s16 V2, V0\nVPACK.u8.s16 V3, V0, part=hi\nVUNPACK.s16.s8 V4, V1\n"
                            "VUNPACK.u16.u8 V5, V1\nVUNPACK.s16.s8 V6, V1, part=hi",
                            v={0: a, 1: b}, dump_v=[2, 3, 4, 5, 6])
    assert vs[2][:5].tolist() == [0xFF, 0x34, 0x00, 0x80, 0] and not vs[2][128:].any()   # truncation
    assert vs[3][128:132].tolist() == [0xFF, 0x34, 0x00, 0x80] and not vs[3][:128].any()
    assert lane_list(vs[4], "s16")[:4] == [-1, 127, -128, 1]                               # sign extension
    assert lane_list(vs[5], "u16")[:4] == [0xFF, 0x7F, 0x80, 1]                            # zero extension
    assert lane_list(vs[6], "s16")[:3] == [-128, 2, 0]                                     # elements 128..
