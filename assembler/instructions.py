"""One source statement as one instruction: its row, its size, and its ``isa.Inst``.

``select_row`` picks the row of a mnemonic whose operands the written ones fit (pass 1, with
``size_of``, lays out addresses from it); ``instruction`` (pass 2) reads the type, source type or
condition the mnemonic's suffixes name, counts the operands, evaluates them
(``assembler.operands``) and the keyword fields (``assembler.fields``), warns of a write to S0 that
is lost, and places the first problem ``isa.problems`` finds at the operand, field or suffix it is
about.
"""

from __future__ import annotations

from collections.abc import Callable

from attrs import evolve

from vcore.assembler import distribution
from vcore.assembler.diagnostics import LocatedError, Location, did_you_mean
from vcore.assembler.expressions import Symbols
from vcore.assembler.fields import keyword_values
from vcore.assembler.operands import KIND_WORDS, operand_value, shape_fits
from vcore.assembler.suggest import unknown_mnemonic
from vcore.assembler.syntax import Field, Name, Statement
from vcore.isa import MNEMONICS, TYPES, Inst, Instruction, Kind, problems
from vcore.isa.encoding import pairs_problem
from vcore.isa.model import UbRef
from vcore.isa.types import ElementType

Warn = Callable[[Location, str], None]  # reports a warning at a place


def all_mnemonics() -> list[str]:
    return sorted(MNEMONICS)


def select_row(stmt: Statement) -> Instruction:
    """The row of the statement's mnemonic whose operands the written ones fit (else its first row,
    whose messages then say what does not fit); an unknown mnemonic is an error."""
    rows = MNEMONICS.get(stmt.mnemonic)
    if rows is None:
        raise LocatedError(stmt.mnemonic_loc, unknown_mnemonic(stmt.mnemonic, all_mnemonics(), stmt.suffix))
    if rows[0].keyword("dist") is not None:  # VLD, VST, PLD, PST: the distribution mode picks the row
        return distribution.select(rows, stmt)
    fitting = [row for row in rows if all(shape_fits(o.kind, n) for o, n in zip(row.operands, stmt.operands,
                                                                                strict=False))]
    # A row of as many operands as written first (VSQZ Vd, Va, Pm, ar; VMRGSORT's 2, 3 or 4 queues).
    return next((row for row in fitting if len(row.operands) == len(stmt.operands)), fitting[0] if fitting else rows[0])


def size_of(row: Instruction, stmt: Statement) -> int:
    """The bytes the statement takes: its row's words, and two more for a written mask."""
    masked = row.has_mask and any(f.name in ("mask", "count") for f in stmt.fields)
    return (row.words + (2 if masked else 0)) * 8


def element_type(row: Instruction, stmt: Statement) -> tuple[ElementType | None, ElementType | None, str | None]:
    """The type, the source type (VCONV.D.S, VPACK.D.S) and the condition (VCMP.C.T; VHIST.K.BINn, a
    condition of two dotted parts) the mnemonic names."""
    if row.conditions and not row.typed:  # VHIST.K.BINn: both dotted parts are the condition
        if stmt.suffix is None or stmt.suffix2 is None or f"{stmt.suffix}.{stmt.suffix2}".upper() not in row.conditions:
            raise LocatedError(stmt.suffix_loc or stmt.mnemonic_loc,
                               f"{row.mnemonic} is written {row.mnemonic}.{row.part}, one of "
                               + ", ".join(f"{row.mnemonic}.{c}" for c in row.conditions))
        return None, None, f"{stmt.suffix}.{stmt.suffix2}".upper()
    if row.conditions:
        if stmt.suffix is None or stmt.suffix2 is None:
            raise LocatedError(stmt.suffix_loc or stmt.mnemonic_loc,
                               f"{row.mnemonic} is written {row.mnemonic}.{row.part}.T, {row.part} one of "
                               f"{', '.join(row.conditions)} (e.g. {row.mnemonic}.{row.conditions[-1]}.f16)")
        cond = stmt.suffix.upper()
        if cond not in row.conditions:
            raise LocatedError(stmt.suffix_loc, f"unknown {row.part_word} '.{stmt.suffix}': {row.mnemonic} "
                                                "takes " + ", ".join(row.conditions))
        return _one_type(row, row.types, stmt.suffix2, stmt.suffix2_loc, stmt), None, cond
    if row.source_types:
        if stmt.suffix is None or stmt.suffix2 is None:
            _, d, s = row.example.split()[0].split(".")  # the pair of the row's example
            raise LocatedError(stmt.suffix_loc or stmt.mnemonic_loc,
                               f"{row.mnemonic} names two types, destination then source: "
                               f"{row.mnemonic}.D.S ({row.mnemonic}.{d}.{s} {_PAIR_VERBS[row.op]} {s} to {d})")
        if row.keyword("round") is None and stmt.suffix in TYPES and stmt.suffix2 in TYPES:
            problem = pairs_problem(row, stmt.suffix, stmt.suffix2)  # VPACK, VUNPACK: name every pair
            if problem is not None:
                raise LocatedError(stmt.suffix_loc, problem)
        dst = _one_type(row, row.types, stmt.suffix, stmt.suffix_loc, stmt)
        src = _one_type(row, row.source_types, stmt.suffix2, stmt.suffix2_loc, stmt)
        return dst, src, None
    if stmt.suffix2 is not None:
        raise LocatedError(stmt.suffix2_loc, f"{row.mnemonic} takes one type suffix")
    if not row.typed:
        if stmt.suffix is not None:
            raise LocatedError(stmt.suffix_loc, f"{row.mnemonic} takes no type suffix")
        return None, None, None
    return _one_type(row, row.types, stmt.suffix, stmt.suffix_loc, stmt), None, None


_PAIR_VERBS = {"conv": "converts", "pack": "packs", "unpack": "unpacks"}


def _one_type(row: Instruction, allowed, suffix: str | None, loc, stmt: Statement) -> ElementType:
    choices = ", ".join("." + t for t in allowed)
    if suffix is None:
        raise LocatedError(stmt.mnemonic_loc, f"{row.mnemonic} needs a type suffix ({choices})")
    etype = TYPES.get(suffix)
    if etype is None:
        raise LocatedError(loc, f"unknown type '.{suffix}'{did_you_mean(suffix, TYPES)}")
    if etype.name not in allowed:
        reason = dict(row.refused).get(etype.name)
        if reason is not None:
            raise LocatedError(loc, reason)
        raise LocatedError(loc, f"{row.mnemonic} does not take .{etype.name} (takes {choices})")
    return etype


def instruction(symbols: Symbols, row: Instruction, stmt: Statement, warn: Warn) -> Inst:
    """The statement as an instruction of ``row`` (a ``LocatedError`` at the first problem)."""
    distribution.width_error(row, stmt)
    etype, source, cond = element_type(row, stmt)
    stmt = flags_written(row, stmt)
    if len(stmt.operands) > len(row.operands):
        extra = stmt.operands[len(row.operands)]
        raise LocatedError(extra.loc, f"unexpected operand: {row.mnemonic} takes {len(row.operands)}")
    if len(stmt.operands) < len(row.operands):
        missing = row.operands[len(stmt.operands)]
        raise LocatedError(stmt.end, f"missing operand {missing.name} ({KIND_WORDS[missing.kind]}) "
                                     f"for {row.syntax}")
    operands = tuple(operand_value(symbols, o, n, etype) for o, n in zip(row.operands, stmt.operands, strict=True))
    keywords, mask, given = keyword_values(symbols, row, stmt)
    inst = Inst(row, etype, operands, keywords, mask, source, cond)
    warn_s0_written(row, stmt, inst, given, warn)
    found = problems(inst)
    if found:
        slot, message = found[0]
        where = {o.name: n.loc for o, n in zip(row.operands, stmt.operands, strict=True)}
        where.update({name: f.value_loc for name, f in given.items()})
        where["type"] = stmt.suffix_loc or stmt.mnemonic_loc
        where["condition"] = stmt.suffix_loc or stmt.mnemonic_loc
        if row.conditions:
            where["type"] = stmt.suffix2_loc
        where["source_type"] = stmt.suffix2_loc or stmt.mnemonic_loc
        raise LocatedError(where.get(slot, stmt.end), message)
    return inst


def flags_written(row: Instruction, stmt: Statement) -> Statement:
    """The statement with its trailing operands past the row's that are the bare name of one of its
    fields read as those fields: a flag (``VCONV.f16.f32 V0, V1, P0, sat``), or a field without its
    value, which ``keyword_values`` then names."""
    flags = {k.name for k in row.keywords}
    operands = list(stmt.operands)
    moved = []
    while len(operands) > len(row.operands) and isinstance(operands[-1], Name) and operands[-1].name.lower() in flags:
        name = operands.pop()
        moved.insert(0, Field(name.name.lower(), None, name.loc, name.loc))
    if not moved:
        return stmt
    return evolve(stmt, operands=tuple(operands), fields=(*moved, *stmt.fields))


def warn_s0_written(row: Instruction, stmt: Statement, inst: Inst, given: dict[str, Field], warn: Warn) -> None:
    """S0 reads as 0 and ignores writes: a destination S0 (or a post= base S0) is almost surely a
    slip (a loop counter in S0 never counts), so say so, though the program is valid."""
    for operand, node, value in zip(row.operands, stmt.operands, inst.operands, strict=True):
        if operand.writes and value == 0:
            warn(node.loc, f"{row.mnemonic} writes S0, which reads as 0 and ignores writes: "
                           f"the result is lost (use S1..S31)")
        elif (operand.kind is Kind.UB and isinstance(value, UbRef) and value.reg == 0
              and "post" in given and inst.kw("post")):
            warn(given["post"].loc, "post= updates the base register S0, which ignores writes: the "
                                    "address never moves (use S1..S31)")
    for spec, value in zip(row.keywords, inst.keywords, strict=True):
        if spec.sreg and value == 0:
            warn(given[spec.name].value_loc, f"{spec.name}= writes S0, which reads as 0 and ignores writes: "
                                             f"the count is lost (use S1..S31)")
