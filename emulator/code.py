"""A program bound to its semantics: what the run loop runs at each pc, what each instruction costs
the scalar unit, which pipe it goes to, and how a pc is named in messages and faults.
"""

from __future__ import annotations

from collections.abc import Callable

from vcore.emulator.admission import check_profile_runs, refuse
from vcore.emulator.faults import Fault
from vcore.emulator.functions.launch import Function
from vcore.emulator.profiles.profile import Profile
from vcore.emulator.semantics.registry import REFINES, Bound, bind
from vcore.emulator.timing.costs import CostModel
from vcore.isa import Inst, decode_program
from vcore.isa.functions import check
from vcore.isa.program import Program
from vcore.isa.text import inst_text


class Code:
    """Owns a program bound once: its instructions (``bound``, and by pc ``at``), the action the run
    loop calls at each 8-byte word (``ops``) and the cycles it holds the scalar unit (``issue``),
    each pc's pipe (``pipes``), and its vector functions (``functions``, by their ``VF.BEGIN``).

    ``launcher(function)`` gives the action of a function's ``VF.BEGIN``; ``inside`` is the action
    of each instruction inside a function (reached only by a run that steps through it)."""

    def __init__(self, program: Program, profile: Profile, costs: CostModel,
                 launcher: Callable[[Function], Callable], inside: Callable) -> None:
        self.program = program
        decoded = decode_program(program.words)
        check_profile_runs(program, profile, decoded)
        self.bound: list[Bound] = [bind(inst, pc) for pc, inst in decoded]
        self.at: dict[int, Bound] = {b.pc: b for b in self.bound}
        self.ops: list = [None] * len(program.words)
        self.issue = [0] * len(program.words)  # cycles each instruction occupies the scalar unit
        self.pipes: dict[int, str] = {}
        # Programs whose footprints are refined when a job starts always move data timed.
        self.refines = any(b.inst.row.family in REFINES for b in self.bound)
        for b in self.bound:
            self.ops[b.pc // 8] = b.run
            self.issue[b.pc // 8] = costs.s_cycles(b.inst)
            self.pipes[b.pc] = b.pipe
        self.functions: dict[int, Function] = self._bind_functions(decoded, costs, launcher, inside)
        self.refines = self.refines or any(f.body.driven for f in self.functions.values())

    def _bind_functions(self, decoded, costs: CostModel, launcher: Callable, inside: Callable) -> dict:
        """Find the program's vector functions (a ``.vbin`` that breaks their rules is refused as its
        source would be) and wire each ``VF.BEGIN`` to its launch."""
        spans, problems = check(decoded)
        if problems:
            pc, message = problems[0]
            refuse(self.program, pc, self.at[pc].inst, message)
        functions = {}
        for span in spans:
            function = functions[span.begin] = Function(span, self.at, costs)
            self.ops[span.begin // 8] = launcher(function)
            for pc in function.pcs:
                self.ops[pc // 8] = inside
                self.issue[pc // 8] = 0  # the function's own scalar lane runs them, not S
                self.pipes[pc] = "V"
        return functions

    # -- instructions by pc ------------------------------------------------------------------------
    def inst_at(self, pc: int) -> Inst:
        """The instruction starting at ``pc`` (a ``KeyError`` if none does; see ``instruction_at``)."""
        return self.at[pc].inst

    def instruction_at(self, pc: int) -> Inst | None:
        """The decoded instruction starting at ``pc``, or None if no instruction starts there."""
        bound = self.at.get(pc)
        return bound.inst if bound is not None else None

    # -- places, for messages ----------------------------------------------------------------------
    def where(self, pc: int) -> str:
        """``file:line`` for a pc of a program run from source, else the file and pc."""
        src = (self.program.source or {}).get(pc)
        if src is not None:
            return f"{self.program.filename}:{src.line}"
        return self.program.filename

    def text_at(self, pc: int) -> str:
        src = (self.program.source or {}).get(pc)
        if src is not None:
            return src.text
        b = self.at.get(pc)
        return inst_text(b.inst) if b is not None else "?"

    def describe(self, pc: int) -> str:
        """``line N: text`` (or ``pc 0x...: text``) of an instruction, for messages."""
        src = (self.program.source or {}).get(pc)
        return f"line {src.line} ({src.text})" if src is not None else f"pc 0x{pc:04x} ({self.text_at(pc)})"

    def who(self, pc: int) -> dict:
        """An instruction as a race record names it: pc, line, pipe, text and where."""
        src = (self.program.source or {}).get(pc)
        return {"pc": pc, "line": src.line if src is not None else None, "pipe": self.pipes.get(pc, "S"),
                "text": self.text_at(pc), "where": f"line {src.line}" if src is not None else f"pc 0x{pc:04x}"}

    def _holding(self, pc: int) -> Bound | None:
        """The instruction whose words include ``pc`` without starting there, if any."""
        return next((b for b in self.bound if b.pc < pc < b.pc + b.inst.size), None)

    def inside(self, pc: int) -> str:
        """What a jump into the middle of an instruction is, said."""
        holder = self._holding(pc)
        where = f" at {self.describe(holder.pc)}" if holder is not None else ""
        return f"control goes to pc 0x{pc:x}, inside the instruction{where}"

    def fault_at(self, fault: Fault, pc: int) -> Fault:
        """``fault`` placed at the instruction at ``pc`` (the one holding it when control reached its
        middle), with its place and source line; a fault already placed is returned as it is."""
        if fault.pc is not None:  # already placed (a fault inside a vector function names its instruction)
            return fault
        holder = self._holding(pc)
        if holder is not None:  # control reached the middle of an instruction: name that instruction
            pc = holder.pc
        fault.pc = pc
        fault.where = self.where(pc)
        fault.message = f"{fault.message}\n  at pc 0x{pc:04x}: {self.text_at(pc)}"
        return fault
