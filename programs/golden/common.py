"""What the golden scripts share (plain numpy, nothing of vcore): literals that read back exactly,
the pairwise reduction tree of docs/semantics.md, and distances in representable f32 values."""

import numpy as np

F32 = np.float32


def text(v) -> str:
    """The shortest decimal that reads back as v in its own type (checked: the assembler rounds a
    literal once, the plugin rounds float(literal) to the type)."""
    if np.isnan(v) or np.isinf(v):
        return str(v)
    s = np.format_float_positional(v, unique=True, trim="0")
    assert np.array([float(s)]).astype(type(v))[0] == v, s
    return s


def tree(lanes: np.ndarray) -> np.generic:
    """docs/semantics.md, Reductions: lane 2k + 2k+1, then pairs of those, ..., every node rounded to
    the lanes' type (numpy rounds an f16 or f32 add to its type)."""
    x = lanes
    while len(x) > 1:
        x = x[0::2] + x[1::2]
    return x[0]


def steps(a, k: int):
    """a moved k representable f32 values up (k > 0) or down."""
    a = np.asarray(a, dtype=F32)
    toward = F32(np.inf) if k > 0 else F32(-np.inf)
    for _ in range(abs(k)):
        a = np.nextafter(a, toward).astype(F32)
    return a if a.ndim else F32(a)


def ulps(a: np.ndarray, b: np.ndarray) -> int:
    """The largest distance in representable f32 values between two arrays (of any signs)."""
    def ordered(z):
        bits = np.asarray(z, dtype=F32).view(np.int32).astype(np.int64)
        return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)

    return int(np.abs(ordered(a) - ordered(b)).max())
