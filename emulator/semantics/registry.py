"""The registry that ties each table family to the one function that implements it, in the module
of its shape: ``tensor`` (iterated UB to UB), ``register_lanes``, ``register_memory``, ``masks``,
``dma`` and ``scalar``. A shape owns its instructions' addressing, masks, footprints and faults;
the per-op arithmetic is a kernel of ``emulator.arith.numerics``.

A family's binder takes a decoded instruction and its pc and returns a ``Bound`` action: a closure
``run(state) -> next pc`` (the ``CoreState`` of its core, or a vector function's ``FunctionContext``)
plus what the report needs to know. ``bind`` is called once per static
instruction, so decoding and operand resolution never happen in the run loop.

Each binder also names its shape's bank rule (``BankRule``): how its accesses meet UB's banks, or
``NO_UB`` when it touches none. ``missing_bank_rules`` (run at import by ``emulator.check``) refuses
a family that names none, or one whose rule says the opposite of its rows' operands about UB.
"""

from __future__ import annotations

from collections.abc import Callable

from attrs import define, frozen

from vcore.isa import TABLE, Inst, Kind
from vcore.isa.classes import CLASSES

HALT_PC = -1


@define(slots=True)
class Bound:
    """One static instruction, ready to run."""

    pc: int
    inst: Inst
    run: Callable  # run(state) -> next pc, state a CoreState or a FunctionContext (HALT_PC stops the scalar unit)
    pipe: str


@frozen
class BankRule:
    """How a shape's accesses meet UB's banks: its name, whether it touches UB at all, and in one
    sentence what the timing model charges for them."""

    name: str
    touches_ub: bool
    says: str


NO_UB = BankRule("none", False, "touches no UB: no bank is asked")
ITERATION_BEATS = BankRule(
    "iteration beats", True, "each iteration's datablocks of every operand, served in beats: a beat that asks a "
    "bank or a bank group more than it serves takes more cycles (emulator.timing.banks)")
ACCESS_BEATS = BankRule(
    "access beats", True, "an access's 32-byte rows in beats on consecutive cycles, each beat within the bank and "
    "group ports its cycle has left beside the function's other accesses (emulator.timing.ub_ports.beats)")
WHOLE_UB = BankRule(
    "whole UB", True, "every bank group's ports for each cycle it takes, at least its lanes' cycles in the "
    "sub-banks (emulator.timing.ub_ports.whole_ub and sub_bank_cycles)")
UNBANKED = BankRule(
    "unbanked", True, "touches UB at its pipe's rate (a transfer's bandwidth, a scalar access's latency): "
    "the banks add no cycles")
_UB_KINDS = (Kind.UB, Kind.UB_BYTE)

BINDERS: dict[str, Callable[[Inst, int], Callable]] = {}
BANK_RULES: dict[str, BankRule] = {}  # family -> the bank rule its binder's shape names
# Families whose jobs refine their footprint when they start (from index registers read then): the
# scoreboard's view of them depends on when they start, so their programs always run timed.
REFINES: set[str] = set()
# Register families that read their vector sources only in the active lanes of their mask (the last
# mask-register operand, lanes of the element type's size): a loaded lane no such instruction
# enables is not used, so a race on its bytes cannot change a result (emulator.functions.races).
MASKED_LANES: set[str] = set()
# Families whose binder lays out only some forms (family -> those forms): a row of another form is named
# at import (``missing_forms``), not met as a KeyError when its first program loads.
FORMS_OF: dict[str, tuple[str, ...]] = {}


def implements(*families: str, bank_rule: BankRule | None = None, refines: bool = False, masked_lanes: bool = False,
               forms: tuple[str, ...] | None = None):
    """Register a binder ``binder(inst, pc) -> run`` for the named table families, whose shape meets
    UB's banks by ``bank_rule`` (``missing_bank_rules`` refuses a family registered without one) and
    which, where ``forms`` names them, lays out those forms alone (``missing_forms`` refuses a row of another)."""

    def register(binder):
        for family in families:
            if family in BINDERS:
                raise RuntimeError(f"family {family} implemented twice")
            BINDERS[family] = binder
            if bank_rule is not None:
                BANK_RULES[family] = bank_rule
            if refines:
                REFINES.add(family)
            if masked_lanes:
                MASKED_LANES.add(family)
            if forms is not None:
                FORMS_OF[family] = tuple(forms)
        return binder

    return register


def pipe_of(inst: Inst) -> str:
    """The pipe an instruction runs on: its row's, or for a ``flag`` row the operand its class names
    (``SchedClass.pipe_operand``: SETFLAG's source, WAITFLAG's destination, BARRIER's pipe; ALL on S)."""
    row = inst.row
    if row.pipe != "flag":
        return row.pipe
    pipe = inst.operands[CLASSES[row.timing].pipe_operand]
    return "S" if pipe == "ALL" else pipe


def bind(inst: Inst, pc: int) -> Bound:
    return Bound(pc, inst, BINDERS[inst.row.family](inst, pc), pipe_of(inst))


def missing_families(table=TABLE) -> list[str]:
    """Families of the table that no binder implements, each named with its rows (mnemonic and form)."""
    rows: dict[str, list[str]] = {}
    for row in table:
        if row.family not in BINDERS:
            rows.setdefault(row.family, []).append(f"{row.mnemonic} ({row.form})")
    return [f"family {family!r} of {', '.join(names)} has no binder: no module of emulator.semantics (each is "
            f"imported at start) registers one with @implements({family!r}, bank_rule=...)"
            for family, names in sorted(rows.items())]


def missing_forms(table=TABLE) -> list[str]:
    """Rows of a form their family's binder does not lay out (where it names the forms it takes)."""
    found = []
    for row in table:
        forms = FORMS_OF.get(row.family)
        if forms is not None and row.form not in forms:
            binder = BINDERS[row.family]
            found.append(f"{row.mnemonic} ({row.form}): the binder of family {row.family!r} ({binder.__module__}."
                         f"{binder.__name__}) lays out forms {', '.join(forms)}, not {row.form!r}: the form needs "
                         f"its layout there, or a family and binder of its own")
    return found


def missing_bank_rules(table=TABLE) -> list[str]:
    """Families with a binder whose shape names no bank rule, or a rule that touches UB when none of
    the family's rows has a UB operand, or none when one has."""
    found = []
    touching = {row.family for row in table if any(o.kind in _UB_KINDS for o in row.operands)}
    for family in BINDERS:
        rule = BANK_RULES.get(family)
        if rule is None:
            found.append(f"family {family!r} names no bank rule: its @implements needs bank_rule= (NO_UB when its "
                         f"shape touches no UB)")
        elif rule.touches_ub != (family in touching):
            rows = "some row of it has a UB operand" if family in touching else "none of its rows has a UB operand"
            found.append(f"family {family!r} names the bank rule {rule.name!r}, but {rows}")
    return found
