"""The registry that ties each table family to the one function that implements it, in the module
of its shape: ``tensor`` (iterated UB to UB), ``register_lanes``, ``register_memory``, ``masks``,
``dma`` and ``scalar``. A shape owns its instructions' addressing, masks, footprints and faults;
the per-op arithmetic is a kernel of ``emulator.arith.numerics``.

A family's binder takes a decoded instruction and its pc and returns a ``Bound`` action: a closure
``run(machine) -> next pc`` plus what the report needs to know. ``bind`` is called once per static
instruction, so decoding and operand resolution never happen in the run loop.
"""

from __future__ import annotations

from collections.abc import Callable

from attrs import define

from isa import TABLE, Inst

HALT_PC = -1


@define(slots=True)
class Bound:
    """One static instruction, ready to run."""

    pc: int
    inst: Inst
    run: Callable  # run(machine) -> next pc (HALT_PC stops the scalar unit)
    pipe: str


BINDERS: dict[str, Callable[[Inst, int], Callable]] = {}
# Families whose jobs refine their footprint when they start (from index registers read then): the
# scoreboard's view of them depends on when they start, so their programs always run timed.
REFINES: set[str] = set()
# Register families that read their vector sources only in the active lanes of their mask (the last
# mask-register operand, lanes of the element type's size): a loaded lane no such instruction
# enables is not used, so a race on its bytes cannot change a result (emulator.functions.races).
MASKED_LANES: set[str] = set()


def implements(*families: str, refines: bool = False, masked_lanes: bool = False):
    """Register a binder ``binder(inst, pc) -> run`` for the named table families."""

    def register(binder):
        for family in families:
            if family in BINDERS:
                raise RuntimeError(f"family {family} implemented twice")
            BINDERS[family] = binder
            if refines:
                REFINES.add(family)
            if masked_lanes:
                MASKED_LANES.add(family)
        return binder

    return register


def pipe_of(inst: Inst) -> str:
    row = inst.row
    if row.pipe != "flag":
        return row.pipe
    if row.family == "setflag":
        return inst.operands[0]
    if row.family == "waitflag":
        return inst.operands[1]
    return "S" if inst.operands[0] == "ALL" else inst.operands[0]


def bind(inst: Inst, pc: int) -> Bound:
    return Bound(pc, inst, BINDERS[inst.row.family](inst, pc), pipe_of(inst))


def missing_families() -> list[str]:
    return sorted({row.family for row in TABLE} - set(BINDERS))
