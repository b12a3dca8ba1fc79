"""A vector function's body as a record (``Body``: its instructions in program order, how the
expansion treats each, its loops) and the schedules it keeps from earlier launches, by the values of
the S registers it names (``KeptSchedules``, ``replay``).
"""

from __future__ import annotations

from typing import NamedTuple

from vcore.emulator.functions.driven import driven
from vcore.emulator.functions.expand import jobs_of
from vcore.emulator.functions.schedule import END, ENDLOOP, LOOP, MEMBAR, SCALAR, Schedule
from vcore.emulator.jobs import footprint
from vcore.isa import Inst, Kind
from vcore.isa.table import FUNCTION_SCALAR_FAMILIES

_KEPT_SCHEDULES = 64  # launches' schedules kept per function (by the S values they name); more: start again


class Kept(NamedTuple):
    """A launch's schedule, kept by the values of the S registers its function names."""

    plan: Schedule  # without its items
    starts: list | None  # a short launch's jobs' times (its items are made again); None: a long one
    ends: list | None
    counts: dict  # how many times each pc ran
    instructions: int


class Body(NamedTuple):
    """A function's instructions after its ``VF.BEGIN``, in program order, by body index."""

    pcs: list  # each one's pc
    runs: list  # its action (its binder's ``run``)
    kinds: list  # how the expansion treats it (``kind_of``; None: a register instruction)
    counts: list  # a LOOP's count operand (None for the others)
    match: list  # LOOP <-> ENDLOOP, by body index
    index: dict  # pc -> body index
    insts: dict  # pc -> its instruction
    driven: bool  # some instruction sets a scalar register from vector data: laid out as its data moves

    @classmethod
    def of(cls, body: list, loops) -> Body:
        """From the body's bound instructions (``Bound``), in program order, and its ``loops``."""
        pcs = [b.pc for b in body]
        index = {pc: i for i, pc in enumerate(pcs)}
        match = [0] * len(body)
        for loop in loops:
            match[index[loop.begin]], match[index[loop.end]] = index[loop.end], index[loop.begin]
        return cls(pcs, [b.run for b in body], [kind_of(b.inst) for b in body],
                   [b.inst.operands[0] if b.inst.row.family == "loop" else None for b in body], match, index,
                   {b.pc: b.inst for b in body}, any(driven(b.inst) for b in body))


class KeptSchedules:
    """Owns a function's schedules kept from earlier launches, by the values of the S registers it
    names at launch (``Kept``). A launch's items depend on those values alone (nothing on the scalar
    lane reads data), so a launch from the same values has the same schedule: a loop that launches a
    function again and again schedules it once. Gathers and scatters (priced by their data) are not kept."""

    def __init__(self, arguments: list, keyed: list | None = None) -> None:
        self.arguments = arguments  # the S registers the function names (S0 aside), sorted
        self.keyed = arguments if keyed is None else keyed  # those its schedule depends on (``laid_out_by``)
        self.schedules: dict = {}

    def key(self, s: list) -> tuple:
        """A launch's key: the values of the S registers in ``s`` that its schedule depends on."""
        return tuple([s[r] for r in self.keyed])

    def get(self, key: tuple) -> Kept | None:
        return self.schedules.get(key)

    def keep(self, key: tuple, kept: Kept) -> None:
        if len(self.schedules) >= _KEPT_SCHEDULES:
            self.schedules.clear()
        self.schedules[key] = kept


def replay(kept: Kept, items: list) -> Schedule:
    """A kept schedule for this launch's ``items`` (the same S gave the same items): its jobs are
    these items' jobs, at the kept times."""
    for job, start, end in zip(jobs_of(items), kept.starts, kept.ends, strict=True):
        job.start = start
        job.end = end
        if job.footprint_writes is None:  # binders set both footprints or neither
            job.footprint_reads, job.footprint_writes = footprint(job.reads), footprint(job.writes)
    return kept.plan._replace(items=items)


def arguments_of(insts) -> set:
    """The scalar registers a function's instructions name (S0 aside): what its launch pushes."""
    named = set()
    for inst in insts:
        for value, operand in zip(inst.operands, inst.row.operands, strict=True):
            named.add(value if operand.kind is Kind.SREG else getattr(value, "reg", None))
    return named - {None, 0}


def laid_out_by(insts) -> set:
    """The scalar registers a function's layout depends on: all it names (``arguments_of``) but those
    named only as a register instruction's scalar data operand (VADDS's, VDUP's: an element's value,
    which no address, loop count or footprint reads). A launch's schedule is kept by their values, so
    a loop that launches a function with a new scalar each time lays it out once."""
    named = set()
    for inst in insts:
        for value, operand in zip(inst.operands, inst.row.operands, strict=True):
            if not (operand.kind is Kind.SCALAR and inst.row.register):
                named.add(value if operand.kind is Kind.SREG else getattr(value, "reg", None))
    return named - {None, 0}


def kind_of(inst: Inst) -> str | None:
    """How the expansion treats an instruction inside a function (None: a register instruction)."""
    family = inst.row.family
    if family in FUNCTION_SCALAR_FAMILIES:
        return SCALAR
    return {"loop": LOOP, "endloop": ENDLOOP, "membar": MEMBAR, "vf_end": END}.get(family)
