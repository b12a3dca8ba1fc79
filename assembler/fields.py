"""A statement's keyword fields (``repeat=``, ``post=``, ``blk=``, ``round=``, ``mask=``, ``count=``...),
and the flags written by their bare name (``sat``).

``keyword_values`` checks each written field against the row's keywords (an unknown field, with the
row's fields and the closest name, or one given twice, is an error), fills in the defaults of those
not written, and evaluates the rest: a mask register for a predicate field, one of the named choices
for a choice field, an expression otherwise. ``mask=`` (a lane count, or ``(LOW, HIGH)`` bit words)
and ``count=`` (which excludes ``repeat=`` and ``mask=``) give the instruction's ``Mask``.
"""

from __future__ import annotations

from vcore.assembler.diagnostics import LocatedError, did_you_mean
from vcore.assembler.distribution import written_mode
from vcore.assembler.expressions import Symbols
from vcore.assembler.syntax import Field, Group, Name, Reg, Statement
from vcore.isa import Instruction, Mask, MaskMode
from vcore.isa.compaction import pack_entries


def keyword_values(symbols: Symbols, row: Instruction, stmt: Statement) -> tuple[tuple, Mask | None,
                                                                                   dict[str, Field]]:
    """The row's keyword values (in the row's order), the mask, and the fields as written by name."""
    given: dict[str, Field] = {}
    for f in stmt.fields:
        if f.value is None and f.name in ("mask", "count"):
            raise LocatedError(f.loc, f"field {f.name}= needs a value")
        if f.name in given:
            raise LocatedError(f.loc, f"{f.name} given twice" if f.value is None else f"field {f.name}= given twice")
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
        elif spec.flag or f.value is None:
            if spec.flag != (f.value is None):
                raise LocatedError(f.loc, f"{spec.name} is written alone (`, {spec.name}`), without a value"
                                   if spec.flag else f"field {spec.name}= needs a value")
            values.append(1)
        elif spec.preg:
            if not (isinstance(f.value, Reg) and f.value.bank == "P"):
                raise LocatedError(f.value_loc, f"{spec.name}= takes a mask register P0..P7")
            values.append(f.value.index)
        elif spec.sreg:
            if not (isinstance(f.value, Reg) and f.value.bank == "S"):
                raise LocatedError(f.value_loc, f"{spec.name}= takes a scalar register S0..S31")
            values.append(f.value.index)
        elif spec.entries:
            values.append(_entries(symbols, spec, f))
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
            for item in value.items:
                if isinstance(item, Reg):
                    raise LocatedError(item.loc, f"register {item.bank}{item.index} cannot stand in an expression")
            mask = Mask(MaskMode.BITS, *(symbols.mask_word(item) for item in value.items))
        else:
            mask = Mask(MaskMode.CONTINUOUS, symbols.eval_int(value))
    return tuple(values), mask, given


def _entries(symbols: Symbols, spec, f: Field) -> int:
    """A tuple field (VMRGSORT's ``len=(L0, L1, ...)``): one entry per queue, each an expression
    0..``entry_max`` or a scalar register, packed as ``isa.compaction.pack_entries`` lays them out."""
    items = f.value.items if isinstance(f.value, Group) else None
    if items is None:
        raise LocatedError(f.value_loc, f"{spec.name}= is written ({', '.join(f'L{k}' for k in range(spec.entries))})"
                                        f": one length per queue")
    if len(items) != spec.entries:
        raise LocatedError(f.value_loc, f"{spec.name}= gives {len(items)} lengths for {spec.entries} queues: one "
                                        f"length per queue")
    entries = []
    for item in items:
        if isinstance(item, Reg):
            if item.bank != "S":
                raise LocatedError(item.loc, f"bad register {item.bank}{item.index}: a length is an expression "
                                             f"or a scalar register S0..S31")
            entries.append(spec.entry_max + 1 + item.index)
            continue
        value = symbols.eval_int(item)
        if not 0 <= value <= spec.entry_max:
            raise LocatedError(item.loc, f"{spec.name}: {value} out of range 0..{spec.entry_max}")
        entries.append(value)
    return pack_entries(spec, entries)
