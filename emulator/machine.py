"""The machine: state, a program bound to semantics, and the run loop.

``Machine(program, profile)`` loads the program's data directives; ``run()`` executes until HALT,
the end of the text, a fault or a limit, and returns a ``RunResult``. A fault is kept as a value
with the pc and source line, and the state stays as it was at the fault.
"""

from __future__ import annotations

import numpy as np
from attrs import evolve, frozen

from emulator.admission import check_profile_runs, refuse
from emulator.faults import AtSyncAll, Fault
from emulator.functions.launch import Function, FunctionContext
from emulator.profiles.profile import Profile, load_profile
from emulator.report import Report, build_report
from emulator.result import RunResult, run_result

# Importing the families registers their semantics.
from emulator.semantics import dma, masks, reductions, register_forms, register_lanes, register_memory, scalar, tensor  # noqa: F401
from emulator.semantics.registry import HALT_PC, REFINES, Bound, bind
from emulator.state import State, _RegisterRows, _RegisterViews
from emulator.timing.engine import QUEUED, Diverged, Engine, Race
from isa import Inst, decode_program
from isa.functions import check
from isa.program import Program
from isa.text import inst_text

DEFAULT_GM_SIZE = 16 << 20
DEFAULT_MAX_INSTRUCTIONS = 50_000_000
PROGRESS_EVERY = 1 << 14  # instructions between calls of a run's progress callback


@frozen
class PipeStatus:
    """Where one pipe the scalar unit dispatches to (V, MTE2, MTE3) stands, in cycles."""

    pipe: str
    queued: int  # instructions dispatched to it that it has not yet scheduled
    free_from: int  # the cycle from which it can start its next instruction
    last_result: int  # the cycle its latest scheduled result lands


class Machine(State):
    """An emulated vector core with one program loaded."""

    def __init__(self, program: Program, profile: Profile | str = "950", gm_size: int = DEFAULT_GM_SIZE,
                 core: int = 0, cores: int = 1) -> None:
        self.profile = load_profile(profile) if isinstance(profile, str) else profile
        # Core ``core`` of a kernel of ``cores`` (``emulator.kernel.cores``): BLOCKIDX and BLOCKNUM, the
        # GM share of its DMA, and SYNCALL pausing until the kernel sets ``syncall_release``.
        self.core, self.cores = core, cores
        self.syncall_release: int | None = None
        self.at_syncall: int | None = None  # the arrival cycle while paused at a SYNCALL
        self.gm_log: list | None = None  # the kernel's record of GM accesses: (write, addr, bytes, pitch, blocks, pc)
        super().__init__(self.profile.ub_size, gm_size)
        self.program = program
        decoded = decode_program(program.words)
        check_profile_runs(program, self.profile, decoded)
        self.bound: list[Bound] = [bind(inst, pc) for pc, inst in decoded]
        self._bound_at = {b.pc: b for b in self.bound}
        self._by_word: list = [None] * len(program.words)
        self._counts = [0] * len(program.words)
        self._s_cost = [0] * len(program.words)  # cycles each instruction occupies the scalar unit
        self.pipes: dict[int, str] = {}
        self.engine = Engine(self)
        # Data moves in program order unless the program needs it timed (see emulator.timing.engine):
        # programs whose footprints are refined when a job starts always do. ``timed_data = True``
        # before ``run()`` times any program; ``ran_timed`` says which way a run went.
        self._refines = any(b.inst.row.family in REFINES for b in self.bound)
        self.timed_data = False
        self.ran_timed: bool | None = None  # set as a run starts
        for b in self.bound:
            self._by_word[b.pc // 8] = b.run
            self._s_cost[b.pc // 8] = self.engine.costs.s_cycles(b.inst)
            self.pipes[b.pc] = b.pipe
        self._bind_functions(decoded)
        self.now = 0  # the scalar unit's cycle: the dispatch time of the next instruction
        self.pc = 0
        self.executed = 0
        self.halted = False
        self.fault: Fault | None = None
        self.result: RunResult | None = None
        self._flats = {"ub": self.ub, "gm": self.gm, **{f"V{i}": self.v[i] for i in range(32)},
                       **{f"P{i}": self.p[i] for i in range(8)}}
        self._load_data()

    def _bind_functions(self, decoded) -> None:
        """Find the program's vector functions (a ``.vbin`` that breaks their rules is refused as its
        source would be) and wire each ``VF.BEGIN`` to its launch."""
        spans, problems = check(decoded)
        if problems:
            pc, message = problems[0]
            refuse(self.program, pc, self._bound_at[pc].inst, message)
        self.functions: dict[int, Function] = {}
        self.stepping = False  # a run that may pause steps through functions (emulator.functions.launch.Stepper)
        self.stepper = None
        self._extra = 0  # instructions run inside functions, not yet in ``executed``
        self._scratch = None
        self._function_registers = None
        self.function_views: dict = {}
        for span in spans:
            function = self.functions[span.begin] = Function(span, self._bound_at, self.engine.costs)
            self._by_word[span.begin // 8] = function.launch
            for pc in function.pcs:
                self._by_word[pc // 8] = self._inside_function
                self._s_cost[pc // 8] = 0  # the function's own scalar lane runs them, not S
                self.pipes[pc] = "V"

    def _inside_function(self, m) -> int:
        """An instruction inside a function, reached by the run loop: a step of a function being
        stepped through; else control came from outside, which a loaded program never does."""
        if self.stepper is not None:
            return self.stepper.step(self)
        raise Fault(f"control reached {self.describe(self.pc)} inside a vector function from outside it: a "
                    f"function runs only from its VF.BEGIN")

    def function_registers(self) -> tuple:
        """The V and P registers launched functions run on, and their typed views (made once)."""
        if self._function_registers is None:
            v = np.zeros((32, 256), dtype=np.uint8)
            self._function_registers = (v, np.zeros((8, 256), dtype=np.bool_), _RegisterViews(v), _RegisterRows(v))
        return self._function_registers

    def function_scratch(self) -> tuple:
        """The scratch copy of UB a launched function runs on, and its typed views (made once)."""
        if self._scratch is None:
            self._scratch = np.zeros_like(self.ub)
        return self._scratch, self.function_views

    def instruction_budget(self) -> int:
        """Instructions a function launched now may run before ``--max-instructions``."""
        return self._max_instructions - sum(self._counts)

    def add_function_counts(self, counts: dict) -> None:
        """Count the instructions a launched function runs (the run loop counts only VF.BEGIN)."""
        mine = self._counts
        for pc, n in counts.items():
            mine[pc >> 3] += n
            self._extra += n
            self._check_at[0] -= n

    def function_state(self) -> FunctionContext | None:
        """While a paused run is inside a function: its state (S, V, P as the function sees them)."""
        return self.stepper.ctx if self.stepper is not None else None

    # -- memory access for users -----------------------------------------------------------------
    def _load_data(self) -> None:
        places = self.program.data_source or ()
        for k, rec in enumerate(self.program.data):
            mem = self.memory(rec.space)
            if rec.addr + rec.nbytes > mem.size:
                fault = Fault(f".{rec.space}{'fill' if rec.kind == 'fill' else ''} data at 0x{rec.addr:x} "
                              f"({rec.nbytes} bytes) runs past the end of {rec.space.upper()} (size 0x{mem.size:x})")
                if k < len(places):  # the directive's place, as an assembly error names it
                    line, col, text = places[k]
                    fault.where = f"{self.program.filename}:{line}:{col}"
                    fault.message += f"\n{text}"
                raise fault
            if rec.kind == "fill":
                element = np.frombuffer(rec.payload, dtype=np.uint8)
                mem[rec.addr:rec.addr + rec.nbytes] = np.tile(element, rec.count)
            else:
                mem[rec.addr:rec.addr + rec.nbytes] = np.frombuffer(rec.payload, dtype=np.uint8)

    # -- running -----------------------------------------------------------------------------------
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
        b = self._bound_at.get(pc)
        return inst_text(b.inst) if b is not None else "?"

    def _holding(self, pc: int) -> Bound | None:
        """The instruction whose words include ``pc`` without starting there, if any."""
        return next((b for b in self.bound if b.pc < pc < b.pc + b.inst.size), None)

    def _inside(self, pc: int) -> str:
        holder = self._holding(pc)
        where = f" at {self.describe(holder.pc)}" if holder is not None else ""
        return f"control goes to pc 0x{pc:x}, inside the instruction{where}"

    def _fault_at(self, fault: Fault, pc: int) -> Fault:
        holder = self._holding(pc)
        if holder is not None:  # control reached the middle of an instruction: name that instruction
            pc = holder.pc
        fault.pc = pc
        fault.where = self.where(pc)
        fault.message = f"{fault.message}\n  at pc 0x{pc:04x}: {self.text_at(pc)}"
        return fault

    def inst_at(self, pc: int) -> Inst:
        """The instruction starting at ``pc`` (a ``KeyError`` if none does; see ``instruction_at``)."""
        return self._bound_at[pc].inst

    def instruction_at(self, pc: int) -> Inst | None:
        """The decoded instruction starting at ``pc`` (``.row``, ``.operands``, ``.size``), or None
        if no instruction starts there (past the end, or inside a longer instruction)."""
        bound = self._bound_at.get(pc)
        return bound.inst if bound is not None else None

    def is_instruction_start(self, pc: int) -> bool:
        """Whether an instruction of the program starts at ``pc``."""
        return pc in self._bound_at

    def describe(self, pc: int) -> str:
        """``line N: text`` (or ``pc 0x...: text``) of an instruction, for messages."""
        src = (self.program.source or {}).get(pc)
        return f"line {src.line} ({src.text})" if src is not None else f"pc 0x{pc:04x} ({self.text_at(pc)})"

    def who(self, pc: int) -> dict:
        src = (self.program.source or {}).get(pc)
        return {"pc": pc, "line": src.line if src is not None else None, "pipe": self.pipes.get(pc, "S"),
                "text": self.text_at(pc), "where": f"line {src.line}" if src is not None else f"pc 0x{pc:04x}"}

    def flat(self, space: str) -> np.ndarray:
        """A space as one flat array: ub, gm, or one register (V0..V31, P0..P7)."""
        return self._flats[space]

    def submit(self, job) -> None:
        """Hand a job to the engine (each run sets ``self.submit`` to its engine's, to save a call)."""
        self.engine.submit(job)

    def fault_at(self, fault: Fault, pc: int) -> Fault:
        if fault.pc is not None:  # already placed (a fault inside a vector function names its instruction)
            return fault
        return self._fault_at(fault, pc)

    def run(self, max_instructions: int = DEFAULT_MAX_INSTRUCTIONS, max_cycles: int | None = None,
            strict: bool = False, trace: bool = False, *, pause_after: int | None = None,
            breakpoints: frozenset | set | None = None, progress=None) -> RunResult:
        """Run until HALT, the end of the text, a fault or a limit; the result is also kept in
        ``self.result``. The first call sets up the pipes (``max_cycles``, ``strict`` and ``trace``
        take effect then).

        To stop early and resume with another call: ``pause_after=N`` stops once N instructions have
        run in all, ``breakpoints`` (a set of pcs) stops before one of them is run (except the one
        the run resumes at). ``progress(machine)`` is called every ``PROGRESS_EVERY`` instructions.
        A paused run has ``result.paused``; its pipes have not been drained.

        A whole run moves data in program order, which is fast, unless two of its instructions
        could race: then it runs again from the start with data moved at simulated times. A run
        that pauses is timed from the start, so every pause shows the timed state."""
        args = (max_instructions, max_cycles, strict, trace, pause_after, breakpoints, progress)
        if self.result is None:
            timed = self.timed_data or self._refines or pause_after is not None or breakpoints is not None
            if not timed:
                start = self._save()
                try:
                    return self._run(*args, timed=False)
                except Diverged:
                    self._restore(start)
            return self._run(*args, timed=True)
        return self._run(*args, timed=self.ran_timed)

    def _save(self) -> tuple:
        """What a program-order run may change (GM is put back from the engine's undo log)."""
        return self.ub.copy(), self.v.copy(), self.p.copy(), list(self.s), self.now, self.pc, self.executed

    def _restore(self, saved: tuple) -> None:
        ub, v, p, s, self.now, self.pc, self.executed = saved
        np.copyto(self.ub, ub)
        np.copyto(self.v, v)
        np.copyto(self.p, p)
        self.s[:] = s
        self.engine.undo_gm()
        self._counts = [0] * len(self._counts)
        self._extra = 0
        self.halted, self.fault, self.result = False, None, None

    def _run(self, max_instructions: int, max_cycles: int | None, strict: bool, trace: bool,
             pause_after: int | None, breakpoints, progress, timed: bool) -> RunResult:
        if self.result is not None and not self.result.paused:
            return self.result
        if self.result is None:
            self.engine = Engine(self, strict=strict, max_cycles=max_cycles, trace=trace, timed=timed)
            self.submit = self.engine.submit
            self._max_cycles, self._trace, self.ran_timed = max_cycles, trace, timed
            self.stepping = pause_after is not None or breakpoints is not None
        self._max_instructions = max_instructions
        self.at_syncall = None
        engine, max_cycles, trace = self.engine, self._max_cycles, self._trace
        ops, counts, s_cost = self._by_word, self._counts, self._s_cost
        end = len(ops)
        pc, executed = self.pc, self.executed
        resumed_at = executed
        # One comparison per instruction covers the limit, the pause and the progress call.
        stop = min(max_instructions, pause_after if pause_after is not None else max_instructions)
        next_progress = executed + PROGRESS_EVERY if progress is not None else max_instructions
        # The instruction count at which to look (a list: a function's launch lowers it by the
        # instructions it runs, which this loop does not count one by one).
        check = self._check_at = [min(stop, next_progress)]
        paused = False
        errors = np.errstate(all="ignore")  # element arithmetic follows IEEE quietly, once per run
        errors.__enter__()
        try:
            while pc != HALT_PC:
                index = pc >> 3
                if index >= end:  # past the last instruction, by running off it or by a jump: the program ends
                    break
                if executed >= check[0]:
                    executed += self._extra  # the instructions run inside functions since the last look
                    self._extra = 0
                    if executed >= max_instructions:
                        self.pc = pc
                        raise Fault(f"--max-instructions {max_instructions} reached", kind="limit")
                    if executed >= stop:
                        paused = True
                        break
                    if executed >= next_progress:
                        self.pc, self.executed = pc, executed
                        progress(self)
                        next_progress = executed + PROGRESS_EVERY
                    check[0] = min(stop, next_progress)
                    continue
                if breakpoints is not None and pc in breakpoints and executed != resumed_at:
                    paused = True
                    break
                op = ops[index]
                if op is None:  # self.pc is still the instruction that sent control here
                    raise Fault(self._inside(pc))
                self.pc = pc
                counts[index] += 1
                executed += 1
                began = self.now
                try:
                    pc = op(self)
                except Fault:
                    self.now += s_cost[index]  # it held S for its issue cycle before it faulted
                    raise
                self.now += s_cost[index]
                if trace:
                    engine.trace_slice("S", self.pc, began, self.now, None)
                if max_cycles is not None and self.now > max_cycles:
                    raise Fault(f"--max-cycles {max_cycles} reached", kind="limit")
            self.pc = pc
            if not paused:
                engine.finish()
        except AtSyncAll as arrived:  # a core of a kernel at a SYNCALL: it runs again once all have come
            counts[index] -= 1
            executed -= 1
            self.at_syncall, paused = arrived.arrival, True
        except Fault as fault:
            self.fault = self._settle(fault)
        except KeyboardInterrupt:
            interrupted = Fault("interrupted", kind="interrupt")
            try:
                self.fault = self._settle(interrupted)
            except Diverged:  # never start again after Ctrl-C: the state is what was dispatched, done
                self.fault = interrupted
        finally:
            errors.__exit__(None, None, None)
        paused = paused and self.fault is None
        executed += self._extra
        self._extra = 0
        self.halted = pc == HALT_PC
        self.pc, self.executed = pc, executed
        self.result = run_result(self, executed, paused)
        return self.result

    def settle(self) -> None:
        """Land the results of every instruction already scheduled on its pipe (the debugger's view
        after a step). Timing is unchanged; a later instruction then never reads their stale data."""
        with np.errstate(all="ignore"):  # element arithmetic follows IEEE quietly, as in run()
            self.engine.advance(float("inf"))

    def report(self, dumps: dict | None = None) -> Report:
        """The report of the run so far (``emulator.report.Report``)."""
        if self.result is None:
            raise RuntimeError("report() before run()")
        return build_report(self.result, dumps)

    def _settle(self, fault: Fault) -> Fault:
        """The state at a fault: what was dispatched before the faulting instruction completes;
        a fault inside the engine (a job's own fault, a race, a deadlock) keeps what has started, which
        only a timed run knows."""
        timed = self.engine.timed
        if fault.pc is None:
            fault = self._fault_at(fault, self.pc)
            try:
                self.engine.finish()
            except Fault:
                if not timed:
                    raise Diverged from None
                self.engine.land_started()
        elif not timed:
            raise Diverged
        else:
            self.engine.land_started()
        return fault

    def counts(self) -> dict[int, int]:
        """How many times each instruction has run so far: pc -> count, for those that ran."""
        return {i * 8: n for i, n in enumerate(self._counts) if n}

    # -- what the run found, for the command line, the debugger and tests -------------------------
    def races(self) -> list[Race]:
        """The races the run so far has found, in the order found: copies of ``emulator.timing.engine.Race``
        records (``kind`` RAW/WAR/WAW, ``first`` and ``second`` with pc, line, pipe, text and where,
        ``space``, the bytes ``start``..``end``, how many times it happened, ``count``, and ``latent``:
        nothing orders the two, and this run's timing kept them apart)."""
        return [evolve(r, first=dict(r.first), second=dict(r.second)) for r in self.engine.all_races()]

    def flag_warnings(self) -> list[str]:
        """The warnings about flags the run so far has given: a SETFLAG that sets a flag still set
        (no WAITFLAG has taken the earlier set), each a sentence without the ``warning:`` prefix."""
        return list(self.engine.flag_warnings)

    def pipe_status(self) -> dict[str, PipeStatus]:
        """Where each pipe the scalar unit dispatches to stands: pipe name -> ``PipeStatus``, in the
        order V, MTE2, MTE3. (The scalar unit's own cycle is ``self.now``.)"""
        engine = self.engine
        return {pipe: PipeStatus(pipe, len(engine.queue[pipe]), engine.free[pipe], engine.done[pipe])
                for pipe in QUEUED}
