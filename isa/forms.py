"""The forms of the table: each form's name, the operand shapes its rows take, the families of the
scheduling classes that time them and the keywords its shape reads on every row.

A row's ``form`` tells rows of one mnemonic apart, and the emulator's shapes read it to lay out the
operands (``emulator.semantics.tensor``, ...): a form is declared here once, and the table's
self-check refuses a row whose form is not declared, whose operands are not the form's, whose class
is of a family the form's rows are not timed by (a tensor row given a scalar class imported cleanly
and raised ``KeyError`` at its first run), or that lacks a keyword its form's shape reads (a tensor
form's ``repeat=``: ``emulator.semantics.tensor`` iterates by it). So a new form is one line here, and
a misspelt one is named at import, not at its first load.
"""

from __future__ import annotations

from attrs import frozen

from vcore.isa.model import Kind

_V, _P, _S, _UB = Kind.VREG, Kind.PREG, Kind.SREG, Kind.UB
_SCALAR, _SRC = Kind.SCALAR, Kind.SRC


@frozen
class Form:
    """One form: the operand kinds of its rows (a form of two shapes lists both: LOOP and ENDLOOP), the
    class families that may time them (``isa.classes``: FAMILY.NAME) and the keywords every row of it has."""

    shapes: tuple[tuple[Kind, ...], ...]
    classes: tuple[str, ...]
    keywords: tuple[str, ...] = ()


def _tensor(*kinds: Kind) -> Form:
    """An iterated UB-to-UB form: timed as a tensor transfer, ``repeat=`` iterations (the tensor shape)."""
    return Form((kinds,), ("tensor",), ("repeat",))


def _reg(*kinds: Kind) -> Form:
    """A register form: an instruction inside a vector function."""
    return Form((kinds,), ("reg",))


def _of(family: str, *shapes: tuple[Kind, ...]) -> Form:
    return Form(shapes, (family,))


# form -> its record
FORMS: dict[str, Form] = {
    # tensor instructions: iterated UB to UB
    "tensor-binary": _tensor(_UB, _UB, _UB),
    "tensor-unary": _tensor(_UB, _UB),
    "tensor-scalar": _tensor(_UB, _UB, _SCALAR),
    "tensor-conv": _tensor(_UB, _UB),
    "tensor-fill": _tensor(_UB, _SCALAR),
    "tensor-compare": _tensor(_UB, _UB, _UB),
    "tensor-compare-scalar": _tensor(_UB, _UB, _SCALAR),
    "tensor-select": _tensor(_UB, _UB, _UB, _UB),
    "tensor-select-scalar": _tensor(_UB, _UB, _SCALAR, _UB),
    "tensor-axpy": _tensor(_UB, _UB, _SCALAR),
    "tensor-fma": _tensor(_UB, _UB, _UB),
    "tensor-brcb": _tensor(_UB, _UB),
    "tensor-reduce": _tensor(_UB, _UB),
    "tensor-transpose": _tensor(_UB, _UB),  # VTRANS: 16 x 16 tiles of 2-byte elements
    "tensor-trans5hd": _tensor(_UB, _UB),  # VTRANS5HD: the operands are address lists of 16 datablocks
    "tensor-gathermask": _tensor(_UB, _UB, Kind.FIXED),
    "tensor-gathermask-bits": _tensor(_UB, _UB, _UB),
    "tensor-sort32": _tensor(_UB, _UB, _UB),
    **{f"tensor-merge{n}": _tensor(_UB, *(_UB,) * n) for n in (2, 3, 4)},
    # register instructions: inside a vector function
    "reg-load": _reg(_V, _UB),
    "reg-store": _reg(_UB, _V, _P),
    "reg-load-pair": _reg(_V, _V, _UB),  # VLD dist=dintlv_bW (two destinations)
    "reg-store-first": _reg(_UB, _V),  # VST dist=first_bW (no mask)
    "reg-store-pair": _reg(_UB, _V, _V),  # VST dist=intlv_bW (two sources, no mask)
    "reg-store-pack": _reg(_UB, _V, _P),  # VST dist=pack_bW / pack4_b32
    "reg-binary": _reg(_V, _V, _V, _P),
    "reg-unary": _reg(_V, _V, _P),
    "reg-scalar": _reg(_V, _V, _SCALAR, _P),
    "reg-gather-ub": _reg(_V, _UB, _V, _P),
    "reg-gather-reg": _reg(_V, _V, _V),
    "reg-scatter": _reg(_UB, _V, _V, _P),
    "reg-conv": _reg(_V, _V, _P),
    "reg-dup-scalar": _reg(_V, _SCALAR, _P),
    "reg-dup-lane": _reg(_V, _V, _P),
    "reg-arange": _reg(_V, _SCALAR),
    "reg-compare": _reg(_P, _V, _V, _P),
    "reg-compare-scalar": _reg(_P, _V, _SCALAR, _P),
    "reg-select": _reg(_V, _V, _V, _P),
    "reg-axpy": _reg(_V, _V, _SCALAR, _P),
    "reg-fma": _reg(_V, _V, _V, _P),
    "reg-reduce": _reg(_V, _V, _P),
    "mask-pattern": _reg(_P, Kind.PATTERN),
    "mask-update": _reg(_P, _S),
    "mask-load": _reg(_P, _UB),
    "mask-store": _reg(_UB, _P),
    "mask-logic": _reg(_P, _P, _P),
    "mask-not": _reg(_P, _P),
    "mask-select": _reg(_P, _P, _P, _P),
    "mask-half": _reg(_P, _P),
    "mask-pair": _reg(_P, _P, _P, _P),
    "reg-pair": _reg(_V, _V, _V, _V),
    "reg-half": _reg(_V, _V),
    "reg-histogram": _reg(_V, _V, _P),
    "reg-squeeze": _reg(_V, _V, _P),
    "reg-squeeze-ar": _reg(_V, _V, _P, Kind.AR),
    "spr-clear": _reg(),
    # the scalar unit
    "scalar-mov": _of("scalar", (_S, Kind.IMM)),
    "scalar-mov-wide": _of("scalar", (_S, Kind.IMM)),
    "scalar-mov-core": _of("scalar", (_S, Kind.CORE)),
    "scalar-mov-spr": _of("scalar", (_S, Kind.SPR)),
    "scalar-mov-ar": _of("scalar", (_S, Kind.AR)),
    "scalar-alu": _of("scalar", (_S, _S, _SRC)),
    "scalar-load-ub": _of("scalar", (_S, Kind.UB_BYTE)),
    "scalar-load-gm": _of("scalar", (_S, Kind.GM)),
    "scalar-store-ub": _of("scalar", (Kind.UB_BYTE, _S)),
    "scalar-store-gm": _of("scalar", (Kind.GM, _S)),
    "branch": _of("scalar", (_S, _SRC, Kind.TARGET)),
    "jump": _of("scalar", (Kind.TARGET,)),
    "none": Form(((),), ("scalar", "sync")),  # NOP, HALT; SYNCALL
    # data movement and synchronisation
    "dma-in": _of("dma", (_UB, Kind.GM)),
    "dma-out": _of("dma", (Kind.GM, _UB)),
    "flag": _of("sync", (Kind.PIPE, Kind.PIPE, Kind.EVENT)),
    "barrier": _of("sync", (Kind.BARRIER_PIPE,)),
    # the shape of vector functions
    "function": _of("vf", ()),
    "loop": _of("vf", (_SRC,), ()),
    "membar": _of("vf", ()),
}
