"""The ``dist=`` field of VLD, VST, PLD and PST as written: which mode it names, and so which row.

A mode is written by its name in any case, or AscendC's with the ``DIST_`` prefix (``isa.dist``). The
mode picks the row (``dist=dintlv_b16`` is VLD's two-destination form, ``dist=first_b32`` VST's form
without a mask), so the statement's operands are checked against that row's here, with messages that
show the form the mode takes; ``width_error`` checks T's width against the mode before the type is
read, so ``VST.f16 ..., dist=pack4_b32`` is told which types the mode stores.
"""

from __future__ import annotations

from vcore.assembler.diagnostics import LocatedError, did_you_mean
from vcore.assembler.syntax import Field, Name, Reg, Statement
from vcore.isa import TYPES, Instruction
from vcore.isa import dist as modes


def dist_field(stmt: Statement) -> Field | None:
    return next((f for f in stmt.fields if f.name == "dist"), None)


def written_mode(stmt: Statement, field: Field) -> modes.Mode:
    """The mode a ``dist=`` field names for the statement's mnemonic (a ``LocatedError`` if none)."""
    if not isinstance(field.value, Name):
        raise LocatedError(field.value_loc, f"dist= takes a distribution mode's name ({', '.join(_names(stmt))})")
    name = modes.normalize(field.value.name)
    mode = modes.BY_NAME.get((stmt.mnemonic, name))
    if mode is None:
        refused = modes.UNSUPPORTED.get((stmt.mnemonic, name))
        if refused:
            raise LocatedError(field.value_loc, refused)
        way = "load" if stmt.mnemonic in ("VLD", "PLD") else "store"
        raise LocatedError(field.value_loc, f"unknown {way} distribution '{name}'"
                           + did_you_mean(name, _names(stmt)))
    return mode


def _names(stmt: Statement) -> list[str]:
    return list(dict.fromkeys(modes.names_of(stmt.mnemonic)))


def _form(mode: modes.Mode) -> str:
    """How a statement of the mode is written: ``VLD.T Vd0, Vd1, [Sa], dist=dintlv_b32``."""
    if mode.mnemonic == "VLD":
        regs = "Vd0, Vd1, [Sa]" if mode.registers == 2 else "Vd, [Sa]"
    else:
        regs = "[Sa], " + ("Vs0, Vs1" if mode.registers == 2 else "Vs, Pm" if mode.masked else "Vs")
    return f"{mode.mnemonic}.T {regs}, dist={mode.name}"


def select(rows: tuple[Instruction, ...], stmt: Statement) -> Instruction:
    """The row of the mode the statement's ``dist=`` names (the default mode's without one), its operands
    checked against that row's form (how many registers, a mask or none)."""
    field = dist_field(stmt)
    if field is None:
        return rows[0]
    mode = written_mode(stmt, field)
    row = next(r for r in rows if r.keyword("dist") is not None and mode.family in r.keyword("dist").choices)
    if mode.mnemonic in ("VLD", "VST"):
        _check_shape(stmt, mode, field)
    return row


def _check_shape(stmt: Statement, mode: modes.Mode, field: Field) -> None:
    regs = [n for n in stmt.operands if isinstance(n, Reg)]
    vectors = [n for n in regs if n.bank == "V"]
    masks = [n for n in regs if n.bank == "P"]
    verb = "loads" if mode.load else "stores"
    if not mode.load and not mode.masked and masks:
        raise LocatedError(masks[0].loc, f"VST dist={mode.name} ignores the mask: remove the mask operand")
    if len(vectors) != mode.registers and vectors:
        count = "two registers" if mode.registers == 2 else "one register"
        raise LocatedError(field.value_loc, f"dist={mode.name} {verb} {count}: {_form(mode)}")
    if not mode.load and mode.masked and not masks and vectors:
        raise LocatedError(field.value_loc, f"dist={mode.name} needs a mask: {_form(mode)}")


def width_error(row: Instruction, stmt: Statement) -> None:
    """A mode of one T width written with a type of another: ``dist=pack4_b32 stores 8-bit elements: write
    VST.s8 or VST.u8, not VST.f16``."""
    field = dist_field(stmt)
    if field is None or row.keyword("dist") is None or stmt.suffix is None:
        return
    mode = written_mode(stmt, field)
    etype = TYPES.get(stmt.suffix)
    if not mode.width or etype is None or etype.size == mode.width:
        return
    sizes = {name: TYPES[name].size for name in row.types}
    verb = "loads" if mode.load else "stores"
    raise LocatedError(field.value_loc, f"dist={mode.name} {verb} {8 * mode.width}-bit elements: write "
                                        f"{modes.width_words(mode, row.types, sizes)}, not "
                                        f"{row.mnemonic}.{etype.name}")
