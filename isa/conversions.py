"""The type conversions VCONV.D.S knows: its pairs, which of them round, and which only the 950 has.

A pair is written (D, S): the destination type first, as in the mnemonic (``VCONV.s32.f16``
converts f16 to s32). The rounding modes are those of the ``round=`` field, in their encoding
order; ``odd`` (round to odd) exists for f32 to f16 and f32 to bf16 only.
"""

from __future__ import annotations

ROUND_MODES = ("rint", "round", "floor", "ceil", "trunc", "odd")
ODD_PAIRS = frozenset({("f16", "f32"), ("bf16", "f32")})

# Pairs whose result can be inexact: they round, by ``round=`` (rint when it is left out).
ROUNDING_PAIRS = frozenset({
    ("f16", "f32"), ("bf16", "f32"), ("bf16", "f16"), ("f16", "bf16"),
    ("s8", "f16"), ("u8", "f16"), ("s16", "f16"), ("s32", "f16"), ("s16", "f32"), ("s32", "f32"),
    ("s32", "bf16"), ("f16", "s16"), ("f32", "s32"),
})
# Pairs that are always exact (a widening, or an integer narrowing that saturates): round= is an error.
EXACT_PAIRS = frozenset({
    ("f32", "f16"), ("f32", "bf16"), ("f16", "s8"), ("f16", "u8"), ("f32", "s16"),
    ("s16", "s32"), ("s8", "s16"), ("s16", "s8"), ("u16", "u8"), ("s32", "s16"), ("u32", "u16"),
})
PAIRS = ROUNDING_PAIRS | EXACT_PAIRS
# Pairs of the 950 alone (the A2's Cast table lacks them): f16 <-> bf16, s16 -> s8 and the integer
# widenings.
ONLY_950 = frozenset({("bf16", "f16"), ("f16", "bf16"), ("s8", "s16"),
                      ("s16", "s8"), ("u16", "u8"), ("s32", "s16"), ("u32", "u16")})

_FLOATS = ("f16", "bf16", "f32")
DESTINATIONS = tuple(sorted({d for d, _ in PAIRS}))
SOURCES = tuple(sorted({s for _, s in PAIRS}))


def sources_for(dst: str) -> list[str]:
    """The source types VCONV converts to ``dst``, sorted."""
    return sorted(s for d, s in PAIRS if d == dst)


def pair_problem(dst: str, src: str, round_mode: str | None) -> tuple[str, str] | None:
    """Why VCONV.dst.src with this ``round=`` is not an instruction, as (slot, message), or None."""
    if (dst, src) not in PAIRS:
        known = sources_for(dst)
        to = (f"VCONV.{dst} converts from " + ", ".join(known)) if known else \
            "VCONV converts to " + ", ".join(DESTINATIONS)
        return "source_type", f"no conversion from {src} to {dst}: {to}"
    if round_mode is not None:
        if (dst, src) in EXACT_PAIRS:
            integers = dst not in _FLOATS and src not in _FLOATS
            what = "never rounds (an integer it saturates or extends)" if integers else "is always exact"
            return "round", f"VCONV.{dst}.{src} {what}: it takes no round="
        if round_mode == "odd" and (dst, src) not in ODD_PAIRS:
            return "round", "round=odd (round to odd) exists for f32 to f16 and f32 to bf16 only"
    return None
