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
    from assembler import assemble
    from emulator import Machine

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
