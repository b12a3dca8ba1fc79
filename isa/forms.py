"""The forms of the table: each form's name and the operand shapes its rows take.

A row's ``form`` tells rows of one mnemonic apart, and the emulator's shapes read it to lay out the
operands (``emulator.semantics.tensor``, ...): a form is declared here once, with its operands' kinds,
and the table's self-check refuses a row whose form is not declared or whose operands are not the
form's. So a new form is one line here, and a misspelt one is named at import, not at its first load.
"""

from __future__ import annotations

from isa.model import Kind

_V, _P, _S, _UB = Kind.VREG, Kind.PREG, Kind.SREG, Kind.UB
_SCALAR, _SRC = Kind.SCALAR, Kind.SRC

# form -> the operand kinds of its rows (a form of two shapes lists both: LOOP and ENDLOOP)
FORMS: dict[str, tuple[tuple[Kind, ...], ...]] = {
    # tensor instructions: iterated UB to UB
    "tensor-binary": ((_UB, _UB, _UB),),
    "tensor-unary": ((_UB, _UB),),
    "tensor-scalar": ((_UB, _UB, _SCALAR),),
    "tensor-conv": ((_UB, _UB),),
    "tensor-fill": ((_UB, _SCALAR),),
    "tensor-compare": ((_UB, _UB, _UB),),
    "tensor-compare-scalar": ((_UB, _UB, _SCALAR),),
    "tensor-select": ((_UB, _UB, _UB, _UB),),
    "tensor-select-scalar": ((_UB, _UB, _SCALAR, _UB),),
    "tensor-axpy": ((_UB, _UB, _SCALAR),),
    "tensor-fma": ((_UB, _UB, _UB),),
    "tensor-brcb": ((_UB, _UB),),
    "tensor-reduce": ((_UB, _UB),),
    # register instructions: inside a vector function
    "reg-load": ((_V, _UB),),
    "reg-store": ((_UB, _V, _P),),
    "reg-binary": ((_V, _V, _V, _P),),
    "reg-unary": ((_V, _V, _P),),
    "reg-scalar": ((_V, _V, _SCALAR, _P),),
    "reg-gather-ub": ((_V, _UB, _V, _P),),
    "reg-gather-reg": ((_V, _V, _V),),
    "reg-scatter": ((_UB, _V, _V, _P),),
    "reg-conv": ((_V, _V, _P),),
    "reg-dup-scalar": ((_V, _SCALAR, _P),),
    "reg-dup-lane": ((_V, _V, _P),),
    "reg-arange": ((_V, _SCALAR),),
    "reg-compare": ((_P, _V, _V, _P),),
    "reg-compare-scalar": ((_P, _V, _SCALAR, _P),),
    "reg-select": ((_V, _V, _V, _P),),
    "reg-axpy": ((_V, _V, _SCALAR, _P),),
    "reg-fma": ((_V, _V, _V, _P),),
    "reg-reduce": ((_V, _V, _P),),
    "mask-pattern": ((_P, Kind.PATTERN),),
    "mask-update": ((_P, _S),),
    "mask-load": ((_P, _UB),),
    "mask-store": ((_UB, _P),),
    "mask-logic": ((_P, _P, _P),),
    "mask-not": ((_P, _P),),
    # the scalar unit
    "scalar-mov": ((_S, Kind.IMM),),
    "scalar-mov-wide": ((_S, Kind.IMM),),
    "scalar-mov-core": ((_S, Kind.CORE),),
    "scalar-alu": ((_S, _S, _SRC),),
    "scalar-load-ub": ((_S, Kind.UB_BYTE),),
    "scalar-load-gm": ((_S, Kind.GM),),
    "scalar-store-ub": ((Kind.UB_BYTE, _S),),
    "scalar-store-gm": ((Kind.GM, _S),),
    "branch": ((_S, _SRC, Kind.TARGET),),
    "jump": ((Kind.TARGET,),),
    "none": ((),),
    # data movement and synchronisation
    "dma-in": ((_UB, Kind.GM),),
    "dma-out": ((Kind.GM, _UB),),
    "flag": ((Kind.PIPE, Kind.PIPE, Kind.EVENT),),
    "barrier": ((Kind.BARRIER_PIPE,),),
    # the shape of vector functions
    "function": ((),),
    "loop": ((_SRC,), ()),
    "membar": ((),),
}
