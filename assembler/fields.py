"""A statement's keyword fields (``repeat=``, ``post=``, ``blk=``, ``round=``, ``mask=``, ``count=``...).

``keyword_values`` checks each written field against the row's keywords (an unknown field, with the
row's fields and the closest name, or one given twice, is an error), fills in the defaults of those
not written, and evaluates the rest: a mask register for a predicate field, one of the named choices
for a choice field, an expression otherwise. ``mask=`` (a lane count, or ``(LOW, HIGH)`` bit words)
and ``count=`` (which excludes ``repeat=`` and ``mask=``) give the instruction's ``Mask``.
"""

from __future__ import annotations

from assembler.diagnostics import LocatedError, did_you_mean
from assembler.distribution import written_mode
from assembler.expressions import Symbols
from assembler.syntax import Field, Group, Name, Reg, Statement
from isa import Instruction, Mask, MaskMode


def keyword_values(symbols: Symbols, row: Instruction, stmt: Statement) -> tuple[tuple, Mask | None,
                                                                                   dict[str, Field]]:
    """The row's keyword values (in the row's order), the mask, and the fields as written by name."""
    given: dict[str, Field] = {}
    for f in stmt.fields:
        if f.name in given:
            raise LocatedError(f.loc, f"field {f.name}= given twice")
        names = [k.name for k in row.keywords] + (["mask", "count"] if row.has_mask else [])
        if f.name not in names:
            fields = ", ".join(n + "=" for n in names) or "none"
            raise LocatedError(f.loc, f"unknown field {f.name}= for {row.mnemonic} (fields: {fields})"
                               + did_you_mean(f.name, names))
        given[f.name] = f
    values = []
    for spec in row.keywords:
        f = given.get(spec.name)
        if f is None:
            values.append(spec.default)
        elif spec.preg:
            if not (isinstance(f.value, Reg) and f.value.bank == "P"):
                raise LocatedError(f.value_loc, f"{spec.name}= takes a mask register P0..P7")
            values.append(f.value.index)
        elif spec.name == "dist":  # a mode's name: its family, as the row numbers them (assembler.distribution)
            values.append(spec.choices.index(written_mode(stmt, f).family))
        elif spec.choices:
            name = f.value.name.lower() if isinstance(f.value, Name) else None
            if name not in spec.choices:
                raise LocatedError(f.value_loc, f"{spec.name}= takes one of {', '.join(spec.choices)}"
                                   + (did_you_mean(name, spec.choices) if name else ""))
            values.append(spec.choices.index(name))
        else:
            values.append(symbols.eval_int(f.value))
    mask = None
    if "count" in given:
        for other in ("repeat", "mask"):
            if other in given:
                raise LocatedError(given["count"].loc, f"count= cannot be combined with {other}=")
        mask = Mask(MaskMode.COUNT, symbols.eval_int(given["count"].value))
    elif "mask" in given:
        value = given["mask"].value
        if isinstance(value, Group):
            if len(value.items) != 2:
                raise LocatedError(value.loc, "a bit mask is written (LOW, HIGH)")
            mask = Mask(MaskMode.BITS, *(symbols.mask_word(item) for item in value.items))
        else:
            mask = Mask(MaskMode.CONTINUOUS, symbols.eval_int(value))
    return tuple(values), mask, given
