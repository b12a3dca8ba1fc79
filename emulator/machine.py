"""The machine: it holds its state, the program bound to semantics and the timing engine, and runs
the run loop.

``Machine(program, profile)`` loads the program's data directives; ``run()`` executes until HALT,
the end of the text, a fault or a limit, and returns a ``RunResult``. A fault is kept as a value
with the pc and source line, and the state stays as it was at the fault.
"""

from __future__ import annotations

import numpy as np
from attrs import evolve, frozen

from vcore.emulator.code import Code
from vcore.emulator.faults import AtSyncAll, Fault
from vcore.emulator.functions.context import FunctionContext, Workspace
from vcore.emulator.functions.launch import Function
from vcore.emulator.profiles.profile import Profile, load_profile
from vcore.emulator.report import Report, build_report
from vcore.emulator.result import RunResult, run_result
from vcore.emulator.semantics import register_all
from vcore.emulator.semantics.registry import HALT_PC
from vcore.emulator.state import CoreState
from vcore.emulator.tally import DEFAULT_MAX_INSTRUCTIONS, Tally
from vcore.emulator.timing.costs import CostModel
from vcore.emulator.timing.engine import QUEUED, Diverged, Engine, Race
from vcore.emulator.timing.replay import LoopReplay
from vcore.isa import Inst
from vcore.isa.program import Program

register_all()  # importing every shape module registers its families' semantics

DEFAULT_GM_SIZE = 16 << 20
PROGRESS_EVERY = 1 << 14  # instructions between calls of a run's progress callback


@frozen
class PipeStatus:
    """Where one pipe the scalar unit dispatches to (V, MTE2, MTE3) stands, in cycles."""

    pipe: str
    queued: int  # instructions dispatched to it that it has not yet scheduled
    free_from: int  # the cycle from which it can start its next instruction
    last_result: int  # the cycle its latest scheduled result lands


class Machine:
    """An emulated vector core with one program loaded. It holds its parts: the state its
    instructions run on (``state``, a ``CoreState``), the program bound (``code``), the timing engine
    (``engine``), the instruction counts (``tally``) and what launched vector functions run on
    (``workspace``); it owns where the run stands (``pc``, ``executed``, ``halted``, ``fault``,
    ``result``) and how it runs (``timed_data``, ``ran_timed``, ``stepping``, ``stepper``)."""

    def __init__(self, program: Program, profile: Profile | str = "950", gm_size: int = DEFAULT_GM_SIZE,
                 core: int = 0, cores: int = 1, gm: np.ndarray | None = None, sharing: int | None = None) -> None:
        self.profile = load_profile(profile) if isinstance(profile, str) else profile
        # Block ``core`` of a kernel of ``cores`` blocks (``emulator.kernel``): BLOCKIDX and BLOCKNUM, the
        # GM share of its DMA (of ``sharing`` cores at once, default ``cores``), and SYNCALL pausing until
        # the kernel sets ``syncall_release``. ``gm``: a kernel's GM as it starts, its pages copied when written.
        self.state = CoreState(self.profile, gm_size, core, cores, gm)
        self.costs = CostModel(self.profile, sharing or cores)
        self.code = Code(program, self.profile, self.costs, self._launcher, self._inside_function)
        self.engine = self._engine()
        # Data moves in program order unless the program needs it timed (see emulator.timing.engine):
        # programs whose footprints are refined when a job starts always do. ``timed_data = True``
        # before ``run()`` times any program; ``ran_timed`` says which way a run went.
        self.timed_data = False
        self.ran_timed: bool | None = None  # set as a run starts
        self.fast_loops = True  # qualifying hardware loops run in closed form (False: pass by pass)
        self.stepping = False  # a run that may pause steps through functions (emulator.functions.launch.Stepper)
        self.stepper = None
        self.workspace = Workspace()
        self.tally = Tally(len(program.words))
        self.replay = LoopReplay(self.state, self.code, self.tally)  # tiling loops in steady state
        self._limits: tuple = (None, False)  # the run's (max_cycles, trace), fixed as it starts
        self.at_syncall: int | None = None  # the arrival cycle while paused at a SYNCALL
        self.pc = 0
        self.executed = 0
        self.halted = False
        self.fault: Fault | None = None
        self.result: RunResult | None = None
        self.state.load_data(program)

    def _engine(self, old: Engine | None = None, **options) -> Engine:
        """A fresh engine for this machine, which the state's instructions hand their jobs to from
        now on; it takes the scalar unit's cycle and a kernel's SYNCALL release from ``old``."""
        state = self.state
        engine = Engine(self.code, self.costs, state.gm, state.ub.size, state.cores,
                        now=old.now if old is not None else 0, **options)
        if old is not None:
            engine.syncall_release = old.syncall_release
        state.connect(engine)
        return engine

    def _launcher(self, function: Function):
        """The run loop's action at a function's ``VF.BEGIN``: its launch, on this machine."""
        launch = function.launch
        return lambda _state: launch(self)

    def _inside_function(self, _state) -> int:
        """An instruction inside a function, reached by the run loop: a step of a function being
        stepped through; else control came from outside, which a loaded program never does."""
        if self.stepper is not None:
            return self.stepper.step(self)
        raise Fault(f"control reached {self.describe(self.pc)} inside a vector function from outside it: a "
                    f"function runs only from its VF.BEGIN")

    # -- the state, as the machine shows it -----------------------------------------------------------
    @property
    def ub(self) -> np.ndarray:
        return self.state.ub

    @property
    def gm(self) -> np.ndarray:
        return self.state.gm

    @property
    def spr(self) -> np.ndarray:
        """The special registers' bytes (``emulator.state.SPR_PLACES``: RSVDCNT, AR, MRGCNT0..3)."""
        return self.state.spr

    @property
    def s(self) -> list:
        """S0..S31 (a list, changed in place)."""
        return self.state.s

    @property
    def v(self) -> np.ndarray:
        return self.state.v

    @property
    def p(self) -> np.ndarray:
        return self.state.p

    @property
    def core(self) -> int:
        return self.state.core

    @property
    def cores(self) -> int:
        return self.state.cores

    @property
    def now(self) -> int:
        """The scalar unit's cycle: the dispatch time of the next instruction (the engine's)."""
        return self.engine.now

    @now.setter
    def now(self, cycle: int) -> None:
        self.engine.now = cycle

    @property
    def syncall_release(self) -> int | None:
        """Set by a kernel: the cycle it releases this core from the SYNCALL it waits at."""
        return self.engine.syncall_release

    @syncall_release.setter
    def syncall_release(self, cycle: int | None) -> None:
        self.engine.syncall_release = cycle

    @property
    def program(self) -> Program:
        return self.code.program

    @property
    def pipes(self) -> dict[int, str]:
        """pc -> the pipe its instruction runs on (V for those inside a vector function)."""
        return self.code.pipes

    @property
    def functions(self) -> dict[int, Function]:
        """The program's vector functions, by the pc of their ``VF.BEGIN``."""
        return self.code.functions

    def memory(self, space: str) -> np.ndarray:
        return self.state.memory(space)

    def write(self, space: str, addr: int, values, type: str | None = None) -> None:
        """Copy values into UB or GM at ``addr`` (``emulator.state.State.write``)."""
        self.state.write(space, addr, values, type, stacklevel=3)

    def read(self, space: str, addr: int, type_name: str, count: int) -> np.ndarray:
        """``count`` elements of ``type_name`` at ``addr`` (a copy); a ValueError for a type vcore has not."""
        return self.state.read(space, addr, type_name, count)

    def log_gm_accesses(self) -> None:
        """Keep a record of every GM access from now on (a core of a kernel: ``take_gm_log``)."""
        self.state.gm_log = []

    def take_gm_log(self) -> list:
        """The GM accesses recorded since the last call, ``(write, addr, bytes, pitch, blocks, pc,
        job)`` each; the record starts again."""
        log, self.state.gm_log = self.state.gm_log, []
        return log

    # -- what vector functions ask of the machine ---------------------------------------------------
    def instruction_budget(self) -> int:
        """Instructions a function launched now may run before ``--max-instructions``."""
        return self.tally.budget()

    def add_function_counts(self, counts: dict, fast: int = 0) -> None:
        """Count a launched function's instructions (``fast`` in closed form): the run loop counts VF.BEGIN."""
        self.tally.add_function(counts, fast)

    def function_state(self) -> FunctionContext | None:
        """While a paused run is inside a function: its state (S, V, P as the function sees them)."""
        return self.stepper.ctx if self.stepper is not None else None

    # -- instructions and places (``emulator.code.Code``) ----------------------------------------------
    def where(self, pc: int) -> str:
        """``file:line`` for a pc of a program run from source, else the file and pc."""
        return self.code.where(pc)

    def text_at(self, pc: int) -> str:
        return self.code.text_at(pc)

    def inst_at(self, pc: int) -> Inst:
        """The instruction starting at ``pc`` (a ``KeyError`` if none does; see ``instruction_at``)."""
        return self.code.inst_at(pc)

    def instruction_at(self, pc: int) -> Inst | None:
        """The decoded instruction starting at ``pc`` (``.row``, ``.operands``, ``.size``), or None
        if no instruction starts there (past the end, or inside a longer instruction)."""
        return self.code.instruction_at(pc)

    def is_instruction_start(self, pc: int) -> bool:
        """Whether an instruction of the program starts at ``pc``."""
        return pc in self.code.at

    def describe(self, pc: int) -> str:
        """``line N: text`` (or ``pc 0x...: text``) of an instruction, for messages."""
        return self.code.describe(pc)

    def who(self, pc: int) -> dict:
        return self.code.who(pc)

    def submit(self, job) -> None:
        """Hand a job to the engine."""
        self.engine.submit(job)

    def fault_at(self, fault: Fault, pc: int) -> Fault:
        """``fault`` placed at the instruction at ``pc`` (unless already placed)."""
        return self.code.fault_at(fault, pc)

    # -- running -----------------------------------------------------------------------------------
    def run(self, max_instructions: int = DEFAULT_MAX_INSTRUCTIONS, max_cycles: int | None = None,
            strict: bool = False, trace: bool = False, *, pause_after: int | None = None,
            breakpoints: frozenset | set | None = None, progress=None, fast_loops: bool = True) -> RunResult:
        """Run until HALT, the end of the text, a fault or a limit; the result is also kept in
        ``self.result``. The first call sets up the pipes (``max_cycles``, ``strict`` and ``trace``
        take effect then, as does ``fast_loops``: False runs every hardware loop pass by pass, which gives
        the same report, data and trace; docs/timing.md, "How vcore gets there quickly").

        To stop early and resume with another call: ``pause_after=N`` stops once N instructions have
        run in all, ``breakpoints`` (a set of pcs) stops before one of them is run (except the one
        the run resumes at). ``progress(machine)`` is called every ``PROGRESS_EVERY`` instructions.
        A paused run has ``result.paused``; its pipes have not been drained.

        A whole run moves data in program order, which is fast, unless two of its instructions
        could race: then it runs again from the start with data moved at simulated times. A run
        that pauses is timed from the start, so every pause shows the timed state."""
        args = (max_instructions, max_cycles, strict, trace, pause_after, breakpoints, progress)
        if self.result is None:
            self.fast_loops = fast_loops
            timed = self.timed_data or self.code.refines or pause_after is not None or breakpoints is not None
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
        self.tally.clear()
        self.halted, self.fault, self.result = False, None, None

    def _run(self, max_instructions: int, max_cycles: int | None, strict: bool, trace: bool,
             pause_after: int | None, breakpoints, progress, timed: bool) -> RunResult:
        if self.result is not None and not self.result.paused:
            return self.result
        if self.result is None:
            self.engine = self._engine(self.engine, strict=strict, max_cycles=max_cycles, trace=trace, timed=timed)
            self._limits, self.ran_timed = (max_cycles, trace), timed
            replays = not (timed or trace or max_cycles is not None) and self.fast_loops
            self.replay.start(self.engine if replays else None)
            self.stepping = pause_after is not None or breakpoints is not None
        tally = self.tally
        tally.limit = max_instructions
        self.at_syncall = None
        engine, state, (max_cycles, trace) = self.engine, self.state, self._limits
        trace_slice = engine.accounting.trace_slice
        ops, counts, s_cost = self.code.ops, tally.per_word, self.code.issue
        end = len(ops)
        pc, executed = self.pc, self.executed
        resumed_at = executed
        # One comparison per instruction covers the limit, the pause and the progress call.
        stop = min(max_instructions, pause_after if pause_after is not None else max_instructions)
        next_progress = executed + PROGRESS_EVERY if progress is not None else max_instructions
        # The instruction count at which to look (a list: a function's launch lowers it by the
        # instructions it runs, which this loop does not count one by one).
        check = tally.check_at
        check[0] = min(stop, next_progress)
        paused = False
        errors = np.errstate(all="ignore")  # element arithmetic follows IEEE quietly, once per run
        errors.__enter__()
        try:
            while pc != HALT_PC:
                index = pc >> 3
                if index >= end:  # past the last instruction, by running off it or by a jump: the program ends
                    break
                if executed >= check[0]:
                    executed += tally.take_extra()  # the instructions run inside functions since the last look
                    if executed >= max_instructions:
                        self.pc = pc
                        if self.stepper is not None:  # inside a function: the fault a whole run names there
                            self.stepper.at_limit(self)
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
                    raise Fault(self.code.inside(pc))
                self.pc = pc
                counts[index] += 1
                executed += 1
                began = engine.now
                try:
                    pc = op(state)
                except Fault:
                    engine.now += s_cost[index]  # it held S for its issue cycle before it faulted
                    raise
                engine.now += s_cost[index]
                if trace:
                    trace_slice("S", self.pc, began, engine.now, None)
                if max_cycles is not None and engine.now > max_cycles:
                    raise Fault(f"--max-cycles {max_cycles} reached", kind="limit")
            self.pc = pc
            self.replay.stop()
            if not paused:
                engine.finish()
        except AtSyncAll as arrived:  # a core of a kernel at a SYNCALL: it runs again once all have come
            counts[index] -= 1
            executed -= 1
            self.at_syncall, paused = arrived.arrival, True
        except Fault as fault:
            self.replay.stop()
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
        executed += tally.take_extra()
        self.halted = pc == HALT_PC
        self.pc, self.executed = pc, executed
        self.result = run_result(self, executed, paused)
        return self.result

    def settle(self) -> None:
        """Land the results of every instruction already scheduled on its pipe (the debugger's view
        after a step). Timing is unchanged; a later instruction then never reads their stale data."""
        with np.errstate(all="ignore"):  # element arithmetic follows IEEE quietly, as in run()
            self.engine.settle()

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
            fault = self.code.fault_at(fault, self.pc)
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
        return self.tally.counts()

    def fast_loop_instructions(self) -> int:
        """Of the instructions run so far, those in hardware loops run in closed form."""
        return self.tally.fast

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
        return self.engine.flag_warnings()

    def pipe_status(self) -> dict[str, PipeStatus]:
        """Where each pipe the scalar unit dispatches to stands: pipe name -> ``PipeStatus``, in the
        order V, MTE2, MTE3. (The scalar unit's own cycle is ``self.now``.)"""
        return {pipe: PipeStatus(pipe, *self.engine.pipe_state(pipe)) for pipe in QUEUED}
