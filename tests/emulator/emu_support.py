"""Helpers for the emulator tests: running programs, random UB images, comparing memories.

Nothing here knows how the emulator computes; expected values come from ``tests/reference.py``
(the independent oracle) or are written out by hand in the tests.
"""

from __future__ import annotations

import math

import numpy as np

from tests import reference as R

UB_SIZE = {"950": 256 * 1024, "a2": 192 * 1024}
GM_SIZE = 16 << 20

_UINT = {1: np.dtype("<u1"), 2: np.dtype("<u2"), 4: np.dtype("<u4")}

# Bit patterns worth hitting for the float types: +-0, +-inf, NaNs (quiet, signalling, negative),
# smallest/largest subnormal, smallest normal, largest finite, 1.0, -1.0.
FLOAT_SPECIALS = {
    "f16": [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE00, 0x0001, 0x8001, 0x03FF,
            0x0400, 0x7BFF, 0xFBFF, 0x3C00, 0xBC00],
    "bf16": [0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0xFFC0, 0x0001, 0x8001, 0x007F,
             0x0080, 0x7F7F, 0xFF7F, 0x3F80, 0xBF80],
    "f32": [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC00000,
            0x00000001, 0x80000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000,
            0xBF800000],
    "e4m3": [0x00, 0x80, 0x7F, 0xFF, 0x7E, 0xFE, 0x01, 0x81, 0x07, 0x08, 0x38, 0xB8],
    "e5m2": [0x00, 0x80, 0x7C, 0xFC, 0x7E, 0x7D, 0x01, 0x81, 0x03, 0x04, 0x7B, 0x3C, 0xBC],
}


def int_specials(t: str) -> list[int]:
    bits = 8 * R.SIZE[t]
    top = (1 << bits) - 1
    return sorted({0, 1, top, top >> 1, (top >> 1) + 1, 2, top - 1})


def random_elements(rng: np.random.Generator, t: str, n: int, special_rate: float = 0.05) -> np.ndarray:
    """``n`` elements of type ``t`` as a uint8 array: floats mostly finite values of varied
    magnitude (and some raw random bit patterns), with specials sprinkled in; integers random bits
    with the extremes sprinkled in."""
    size = R.SIZE[t]
    if t in R.FLOAT_TYPES:
        mags = rng.standard_normal(n) * np.exp2(rng.integers(-12, 12, n).astype(np.float64))
        with np.errstate(all="ignore"):
            vals = mags.astype(np.float32).astype(R.DTYPES[t])
        bits = vals.view(_UINT[size]).copy()
        raw = rng.random(n) < 0.1
        bits[raw] = rng.integers(0, 1 << (8 * size), int(raw.sum()), dtype=np.uint64).astype(_UINT[size])
        specials = np.array(FLOAT_SPECIALS[t], dtype=np.uint64).astype(_UINT[size])
    else:
        bits = rng.integers(0, 1 << (8 * size), n, dtype=np.uint64).astype(_UINT[size])
        specials = np.array(int_specials(t), dtype=np.uint64).astype(_UINT[size])
    sp = rng.random(n) < special_rate
    bits[sp] = specials[rng.integers(0, len(specials), int(sp.sum()))]
    return bits.view(np.uint8).copy()


def random_image(rng: np.random.Generator, nbytes: int, t: str) -> np.ndarray:
    """A UB image of ``nbytes`` filled with elements of ``t``."""
    return random_elements(rng, t, nbytes // R.SIZE[t])


def mixed_image(rng: np.random.Generator, nbytes: int,
                types=("u8", "f16", "bf16", "f32", "s32", "e4m3", "e5m2")) -> np.ndarray:
    """A UB image whose 256-byte chunks each hold elements of a randomly chosen type."""
    assert nbytes % 256 == 0
    images = np.stack([random_image(rng, nbytes, t) for t in types]).reshape(len(types), -1, 256)
    pick = rng.integers(0, len(types), nbytes // 256)
    return images[pick, np.arange(nbytes // 256)].reshape(-1).copy()


def run_program(text: str, profile: str = "950", ub=None, gm=None, max_instructions=None, gm_size=None):
    """Assemble and run ``text``; ``ub``/``gm`` are optional initial images written at address 0."""
    from vcore.assembler import assemble
    from vcore.emulator import Machine

    program = assemble(text)
    kwargs = {"profile": profile}
    if gm_size is not None:
        kwargs["gm_size"] = gm_size
    m = Machine(program, **kwargs)
    if ub is not None:
        m.write("ub", 0, np.asarray(ub, dtype=np.uint8))
    if gm is not None:
        m.write("gm", 0, np.asarray(gm, dtype=np.uint8))
    r = m.run() if max_instructions is None else m.run(max_instructions=max_instructions)
    return m, r


def _bits(buf: np.ndarray, t: str) -> np.ndarray:
    return np.ascontiguousarray(buf).view(_UINT[R.SIZE[t]])


def mem_mismatches(got: np.ndarray, want: np.ndarray, t: str, ulp: int = 0, base: int = 0,
                   limit: int = 8) -> list[str]:
    """Compare two byte buffers as elements of ``t`` (element k at byte ``base + k*size``):
    equal bits, or both NaN (any payload), or (``ulp`` > 0, float types) within ``ulp`` ulp.
    Returns descriptions of the first ``limit`` bad elements (empty: equal)."""
    got = np.asarray(got, dtype=np.uint8)
    want = np.asarray(want, dtype=np.uint8)
    assert got.shape == want.shape, (got.shape, want.shape)
    size = R.SIZE[t]
    diff = np.nonzero(got != want)[0]
    if diff.size == 0:
        return []
    elems = np.unique(diff // size)
    gb = _bits(got, t)[elems]
    wb = _bits(want, t)[elems]
    g_vals = gb.view(R.DTYPES[t])
    w_vals = wb.view(R.DTYPES[t])
    ok = np.zeros(len(elems), dtype=bool)
    if t in R.FLOAT_TYPES:
        ok |= R.values_equal(g_vals, w_vals, t)
        if ulp:
            ok |= R.ulp_distance(g_vals, w_vals, t) <= ulp
    bad = elems[~ok]
    out = []
    for k in bad[:limit]:
        g = int(_bits(got, t)[k])
        w = int(_bits(want, t)[k])
        out.append(f"{t} at 0x{base + int(k) * size:x}: got 0x{g:0{2 * size}x} ({_show(g, t)}), "
                   f"want 0x{w:0{2 * size}x} ({_show(w, t)})")
    if len(bad) > limit:
        out.append(f"... {len(bad) - limit} more")
    return out


def _show(bits: int, t: str) -> str:
    v = R.decode(bits, t)
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return repr(v)


def float_literal(x: float) -> str:
    """Assembly text for a float that the assembler reads back as exactly ``x``."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    return repr(float(x))


def fault_text(r) -> str:
    return "" if r.fault is None else str(r.fault)


# -- register code in a vector function ---------------------------------------------------------
# Register instructions run only inside a vector function (CONTRACT 7), which starts with every V
# and P register zero, sees a copy of S, and whose registers are gone at VF.END. So a test that sets
# registers before register code, or looks at them after it, does so through UB, inside the same
# function: a prologue loads the wanted V (VLD.u8) and P (PLD, mask bit i = bit i % 8 of byte
# i // 8) images, an epilogue stores them. A P register is read back without assuming PST's
# packing: ``VST.u8`` of an all-ones register under it writes byte i exactly when bit i is set
# (u8 lanes are one bit wide, CONTRACT 3.1). An S register is read back as ``VADDS.u32`` of a zero
# register and S (its low 32 bits, CONTRACT 2.1), then again after ``SHR S, S, 32``.

REG_BASE = 0x38000          # the default scratch region: REG_BASE .. REG_BASE + harness.size
_V_IN, _P_IN, _ONES, _ZERO, _V_OUT, _P_OUT, _S_OUT = 0x0, 0x2000, 0x2100, 0x2200, 0x2300, 0x4300, 0x4B00
# An S register takes 512 bytes (its low and high halves, each stored from lane 0 of a register:
# a VST's footprint is its whole VL, masked lanes included, so the two stores must not overlap).


def vf(body: str) -> str:
    """``body`` as one vector function."""
    return "VF.BEGIN\n" + body.strip("\n") + "\nVF.END\n"


class Registers:
    """What the epilogue stored: ``v[k]`` 256 bytes, ``p[k]`` 256 bools, ``s[k]`` a signed int."""

    def __init__(self, v: dict, p: dict, s: dict) -> None:
        self.v, self.p, self.s = v, p, s


class FunctionHarness:
    """``body`` (register code) inside one function, with V/P set first and P/V/S stored last.

    The epilogue stores the P registers first (with a V register of its own holding all ones), then
    uses a P register (one not asked for, else one already stored) for the V and S stores, so every
    P register may be asked for; it needs one V register that is not asked for (two with S).
    ``fence`` puts a MEMBAR between the prologue, the body and the epilogue, for a body whose
    UB accesses reach the scratch region."""

    def __init__(self, body: str, v=None, p=None, dump_v=(), dump_p=(), dump_s=(), base: int = REG_BASE,
                 before: str = "", after: str = "", fence: bool = False) -> None:
        self.v_in = {k: np.asarray(a, dtype=np.uint8) for k, a in (v or {}).items()}
        self.p_in = {k: np.asarray(a, dtype=bool) for k, a in (p or {}).items()}
        self.dump_v, self.dump_p, self.dump_s, self.base = tuple(dump_v), tuple(dump_p), tuple(dump_s), base
        self.size = _S_OUT + 512 * len(self.dump_s)
        free_v = [k for k in range(31, -1, -1) if k not in self.dump_v]
        free_p = [k for k in range(7, -1, -1) if k not in self.dump_p] or [7]
        assert len(free_v) >= (2 if self.dump_s else 1), "the epilogue needs V registers of its own"
        b = base
        pro = [f"VLD.u8 V{k}, [0x{b + _V_IN + 256 * k:x}]" for k in self.v_in]
        pro += [f"PLD P{k}, [0x{b + _P_IN + 32 * k:x}]" for k in self.p_in]
        epi = []
        pa, va = free_p[0], free_v[0]
        if self.dump_p:
            epi.append(f"VLD.u8 V{va}, [0x{b + _ONES:x}]")
            epi += [f"VST.u8 [0x{self.p_addr(k):x}], V{va}, P{k}" for k in self.dump_p]
        if self.dump_v:
            epi.append(f"PSET.b8 P{pa}, ALL")
            epi += [f"VST.u8 [0x{self.v_addr(k):x}], V{k}, P{pa}" for k in self.dump_v]
        if self.dump_s:
            vb = free_v[1]
            epi += [f"PSET.b32 P{pa}, VL1", f"VLD.u8 V{va}, [0x{b + _ZERO:x}]"]
            for k in self.dump_s:
                a = self.s_addr(k)
                epi += [f"VADDS.u32 V{vb}, V{va}, S{k}, P{pa}", f"VST.u32 [0x{a:x}], V{vb}, P{pa}",
                        f"SHR S{k}, S{k}, 32",
                        f"VADDS.u32 V{vb}, V{va}, S{k}, P{pa}", f"VST.u32 [0x{a + 256:x}], V{vb}, P{pa}"]
        fences = ["MEMBAR"] if fence else []
        parts = [*pro, *(fences if pro else []), body.strip("\n"), *(fences if epi else []), *epi]
        self.text = before.rstrip("\n") + "\n" + vf("\n".join(parts)) + after

    def v_addr(self, k: int) -> int:
        return self.base + _V_OUT + 256 * k

    def p_addr(self, k: int) -> int:
        return self.base + _P_OUT + 256 * k

    def s_addr(self, k: int) -> int:
        return self.base + _S_OUT + 512 * self.dump_s.index(k)

    def writes(self) -> list:
        """The UB images to write before the run, as ``(addr, uint8 array)``: the scratch region
        zeroed, the registers' values in, a block of ones."""
        b = self.base
        out = [(b, np.zeros(self.size, dtype=np.uint8))]
        out += [(b + _V_IN + 256 * k, a) for k, a in self.v_in.items()]
        out += [(b + _P_IN + 32 * k, np.packbits(bits, bitorder="little")) for k, bits in self.p_in.items()]
        out.append((b + _ONES, np.full(256, 0xFF, dtype=np.uint8)))
        return out

    def load(self, m) -> None:
        for addr, data in self.writes():
            m.write("ub", addr, data)

    def registers(self, m) -> Registers:
        ub = m.ub
        v = {k: np.array(ub[self.v_addr(k):self.v_addr(k) + 256]) for k in self.dump_v}
        p = {}
        for k in self.dump_p:
            raw = np.array(ub[self.p_addr(k):self.p_addr(k) + 256])
            assert np.isin(raw, (0, 0xFF)).all(), f"P{k} read back as bytes other than 0 and 0xff"
            p[k] = raw == 0xFF
        s = {}
        for k in self.dump_s:
            a = self.s_addr(k)
            lo = int(np.array(ub[a:a + 4]).view("<u4")[0])
            hi = int(np.array(ub[a + 256:a + 260]).view("<u4")[0])
            x = lo | hi << 32
            s[k] = x - (1 << 64) if x >> 63 else x
        return Registers(v, p, s)


def run_function(body: str, *, ub=None, gm=None, writes=(), s=None, v=None, p=None, dump_v=(), dump_p=(),
                 dump_s=(), base: int = REG_BASE, before: str = "", after: str = "", profile: str = "950",
                 max_instructions=None, fence: bool = False, races: bool = False):
    """Run ``before``, then ``body`` as one function (registers set and read back as
    ``FunctionHarness`` does), then ``after``; ``ub``/``gm`` are images at address 0, ``writes``
    ``(addr, array)`` pairs for UB. The run must report no race unless ``races``. Returns the
    machine, the result and the registers."""
    from vcore.assembler import assemble
    from vcore.emulator import Machine

    h = FunctionHarness(body, v, p, dump_v, dump_p, dump_s, base, before, after, fence)
    m = Machine(assemble(h.text), profile=profile)
    if ub is not None:
        m.write("ub", 0, np.asarray(ub, dtype=np.uint8))
    if gm is not None:
        m.write("gm", 0, np.asarray(gm, dtype=np.uint8))
    for addr, data in writes:
        m.write("ub", addr, data)
    h.load(m)
    for k, value in (s or {}).items():
        bits = value & ((1 << 64) - 1)
        m.s[k] = bits - (1 << 64) if bits >> 63 else bits
    r = m.run() if max_instructions is None else m.run(max_instructions=max_instructions)
    assert races or not r.races, f"unexpected races: {r.races}\n{h.text}"
    return m, r, h.registers(m)


# -- bytes of masks and of element bit patterns (the part-three differential tests share these) -------

def pack_mask(bits) -> np.ndarray:
    """Mask bit k as bit k % 8 of byte k // 8 (CONTRACT 13.2)."""
    return np.packbits(np.asarray(bits, dtype=bool), bitorder="little")


def unpack_mask(data) -> np.ndarray:
    return np.unpackbits(np.asarray(data, dtype=np.uint8), bitorder="little").astype(bool)


def bits_bytes(bits, t: str) -> np.ndarray:
    """Bit patterns (ints) of type ``t`` as little-endian bytes."""
    return np.array([int(b) for b in bits], dtype=np.uint64).astype(f"<u{R.SIZE[t]}").view(np.uint8).copy()
