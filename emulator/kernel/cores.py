"""A kernel: its blocks run one program, each a ``Machine`` with its own UB, registers and pipes; GM
is shared, and a block sees another block's GM writes only across a SYNCALL.

With no more blocks than cores (``--cores N``, or ``--blocks B`` on at least B cores), each block
has its core, and the run goes phase by phase, a phase being the stretch between two SYNCALLs. In a
phase each core runs on its own, on GM as it was when the phase began plus its own writes; at the
SYNCALL the kernel merges every core's writes into GM (``emulator.kernel.gm_merge``), names the
races between cores of the phase, and releases every core at the last arrival plus
``chip.syncall``. A core's phase depends only on its own state and on GM at the phase's start, so
the cores can run in any number of processes (``jobs``) and the result is the same for every number.
More blocks than cores run in rounds (``emulator.kernel.blocks``); the launch itself, its schedule
and its cost, is ``emulator.kernel.launch``.

Worker processes die with the process that started them (``emulator.kernel.processes``). Ctrl-C stops
every core where it is: the run ends with an ``interrupt`` fault, each core's report as far as it got.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
from attrs import frozen

from vcore.emulator.faults import Fault
from vcore.emulator.kernel.block_races import race_text as block_race_text
from vcore.emulator.kernel.blocks import BlockGroup, Rounds
from vcore.emulator.kernel.gm_merge import Accesses, Writes, apply_writes, between_cores, merge_writes
from vcore.emulator.kernel.launch import CoreEnd, KernelResult, Launch, kernel_fault
from vcore.emulator.kernel.processes import StopRequest, call_groups, close_groups, pids, start_groups
from vcore.emulator.kernel.trace import KernelTrace
from vcore.emulator.machine import DEFAULT_GM_SIZE, DEFAULT_MAX_INSTRUCTIONS, Machine
from vcore.emulator.memory_data import memory_bytes, type_named
from vcore.emulator.profiles.profile import Profile
from vcore.emulator.report import Report, race_messages
from vcore.emulator.result import STALL_CAUSES, PipeEntry
from vcore.emulator.trace_layout import core_trace
from vcore.isa.program import Program

MAX_CORES = 64  # the most cores a command line can name before the profile is known (the 950's chip.cores)


@frozen
class CoreOutcome:
    """How a core's phase ended: at a SYNCALL (``arrival``), at its end, or at a fault."""

    core: int
    state: str  # "syncall", "end" or "fault"
    pc: int
    arrival: int
    accesses: Accesses
    writes: Writes
    fault: str | None = None
    fault_kind: str | None = None


class CoreGroup:
    """The cores one process runs: each a Machine; ``phase`` runs each of them to its next SYNCALL.
    ``stop`` is the process's Ctrl-C (``emulator.kernel.processes.StopRequest``): once asked, a core
    running is interrupted and the cores after it do not run."""

    def __init__(self, program: Program, profile: Profile, gm_size: int, cores: tuple[int, ...], count: int,
                 limits: dict, gm_file: str | None = None, stop: StopRequest | None = None) -> None:
        self.machines = {}
        for core in cores:
            # Each core's GM maps the kernel's starting image copy-on-write: a page is the core's own
            # once it writes it, and the cores share the rest (a large GM on many cores fits in memory).
            gm = None if gm_file is None else np.memmap(gm_file, dtype=np.uint8, mode="c", shape=(gm_size,))
            m = Machine(program, profile, gm_size, core=core, cores=count, gm=gm)
            m.timed_data = True  # a phase must pause at its SYNCALL with every pipe drained: timed from the start
            m.log_gm_accesses()
            self.machines[core] = m
        self.limits = limits
        self.live = set(cores)
        self.stop = stop or StopRequest()

    def write(self, space: str, addr: int, data: np.ndarray) -> None:
        for m in self.machines.values():
            m.write(space, addr, data)

    def phase(self, release: int | None, delta: Writes | None, stopping: bool = False) -> list[CoreOutcome]:
        """Run each live core to its next SYNCALL, its end or a fault; ``stopping`` (the kernel was
        interrupted) runs none of them."""
        outcomes = []
        for core in sorted(self.live):
            m = self.machines[core]
            if delta is not None:
                apply_writes(m.gm, delta)
            m.syncall_release = release
            before = m.result
            if not stopping:
                self._run(m)
            accesses = Accesses.of(m.take_gm_log())
            writes = Writes.of(m.gm, accesses)
            if m.result is before:  # interrupted before it ran on: it stays where it was
                if m.result is None:  # not started: an empty run, for its report
                    m.run(**self.limits, pause_after=0)
                self.live.discard(core)
                stopped = m.fault_at(Fault("interrupted", kind="interrupt"), m.pc)  # as a run it stops says it
                outcomes.append(CoreOutcome(core, "fault", m.pc, 0, accesses, writes, str(stopped), stopped.kind))
                continue
            result = m.result
            if result.fault is not None:
                state = "fault"
            elif m.at_syncall is not None:
                state = "syncall"
            else:
                state = "end"
            if state != "syncall":
                self.live.discard(core)
            fault = result.fault
            outcomes.append(CoreOutcome(core, state, m.pc, m.at_syncall or 0, accesses, writes,
                                        None if fault is None else str(fault),
                                        None if fault is None else fault.kind))
        return outcomes

    def _run(self, m: Machine) -> None:
        """Run ``m`` on, unless Ctrl-C has come. Ctrl-C during its run is the run's ``interrupt``
        fault; just before or after the run it only stops the cores after this one."""
        self.stop.run(m, self.limits)

    def finish(self) -> list[CoreEnd]:
        ends = []
        for core, m in sorted(self.machines.items()):
            strict = self.limits.get("strict", False)
            warnings = ([] if strict else race_messages(m.result)) + [f"warning: {w}" for w in m.flag_warnings()]
            layout = core_trace(m.result) if self.limits.get("trace") else None
            ends.append(CoreEnd(core, m.report(), tuple(warnings), m.ub.copy(), tuple(m.s), layout))
        return ends


def default_jobs() -> int:
    return os.cpu_count() or 1


class Kernel:
    """One program launched as a kernel (CONTRACT sections 8 and 14): ``cores`` blocks, one a core, or
    ``blocks`` blocks on at most ``cores`` cores (default ``chip.cores``)."""

    def __init__(self, program: Program, profile: Profile, cores: int | None = None, gm_size: int = DEFAULT_GM_SIZE,
                 jobs: int | None = None, blocks: int | None = None) -> None:
        self.launch = Launch.of(profile, cores, blocks)  # a ValueError for a launch the chip cannot make
        self.launch.check(program)  # a ProgramError for a SYNCALL that could never be met
        self.program, self.profile, self.cores, self.gm_size = program, profile, self.launch.cores, gm_size
        self.blocks = self.launch.blocks
        self.jobs = max(1, min(jobs or default_jobs(), self.blocks))
        # Block 0's machine, loaded but never run here: GM as the program's data sets it, and names
        # of instructions for messages.
        self.template = Machine(program, profile, gm_size, core=0, cores=self.blocks)
        self.gm = self.template.gm
        self.loads: list = []
        self.result: KernelResult | None = None
        self.ends: list[CoreEnd] = []
        self.rounds: Rounds | None = None  # a launch in rounds, once run

    def write(self, space: str, addr: int, values, type: str | None = None) -> None:
        """Write into GM, or into every core's UB, before the run: ``values`` as ``Machine.write``
        takes them (converted to ``type`` when one is given)."""
        raw = memory_bytes(space, addr, values, type, stacklevel=2)  # converted (and warned about) once
        self.template.write(space, addr, raw)
        self.loads.append((space, addr, raw))

    def run(self, max_instructions: int = DEFAULT_MAX_INSTRUCTIONS, max_cycles: int | None = None,
            strict: bool = False, fast_loops: bool = True, trace: bool = False) -> KernelResult:
        """Run every block to its end (or the kernel to its first fault); ``fast_loops`` as ``Machine.run``.
        With ``trace``, the result's ``trace`` holds what ``emulator.trace.trace_events(result)``
        draws: a process per core, its blocks' slices on it (``emulator.kernel.trace``)."""
        limits = {"max_instructions": max_instructions, "max_cycles": max_cycles, "strict": strict,
                  "fast_loops": fast_loops, "trace": trace}
        chip = self.profile["chip"]
        drawing = KernelTrace(self.profile.name, self.profile.clock_ghz, self.cores, self.blocks,
                              self.launch.launch_cycles(self.profile), chip["gm_bytes_per_cycle"]) if trace else None
        rounds = self.launch.in_rounds
        with StopRequest().installed() as stop, tempfile.TemporaryDirectory(prefix="vcore-gm-") as folder:
            image = os.path.join(folder, "gm")  # GM as the kernel starts: the program's data and loads
            self.gm.tofile(image)
            if rounds:
                ub_loads = [load for load in self.loads if load[0] != "gm"]
                args = [(self.program, self.profile, self.gm_size, self.launch, limits, image, ub_loads)] * self.jobs
                groups = start_groups(BlockGroup, args, stop)
            else:
                args = [(self.program, self.profile, self.gm_size, tuple(range(k, self.blocks, self.jobs)),
                         self.blocks, limits, image) for k in range(self.jobs)]
                groups = self._start(args, stop)
            try:
                stop.forward = pids(groups)
                if stop.asked:  # Ctrl-C while they started
                    stop.pass_on()
                if rounds:
                    self.rounds = Rounds(self.launch, self.profile, self.template, self.gm, drawing)
                    result = self.rounds.run(groups, stop, strict)
                    self.ends = self.rounds.ends
                else:
                    result = self._in_phases(groups, strict, stop, drawing)
            finally:
                stop.forward = []
                close_groups(groups)
        result.trace = drawing
        self.result = result
        return result

    def _in_phases(self, groups, strict: bool, stop: StopRequest, drawing: KernelTrace | None) -> KernelResult:
        """One block a core: phase by phase to the end; each core's report, UB and S kept (and, for
        a trace, its layout and its SYNCALLs)."""
        for space, addr, data in self.loads:
            if space != "gm":  # (GM's are in the image)
                call_groups(groups, "write", space, addr, data)
        result = self._phases(groups, strict, stop, drawing)
        self.ends = sorted((e for part in call_groups(groups, "finish") for e in part), key=lambda e: e.core)
        if drawing is not None:
            for end in self.ends:  # block k is core k's
                drawing.place(end.core, end.core, 0, end.report.total_cycles, end.trace)
        for end in self.ends:
            result.warnings[:0] = [w.replace("warning: ", f"warning: core {end.core}: ", 1) for w in end.warnings]
        result.total_cycles = max(e.report.total_cycles for e in self.ends) + self.launch.launch_cycles(self.profile)
        return result

    def _start(self, args, stop: StopRequest) -> list:
        return start_groups(CoreGroup, args, stop)

    def _phases(self, groups, strict: bool, stop: StopRequest, drawing: KernelTrace | None) -> KernelResult:
        result = KernelResult()
        release, delta, ended = None, None, {}
        seen: dict = {}
        while True:
            outcomes = sorted((o for part in call_groups(groups, "phase", release, delta, stop.asked)
                               for o in part), key=lambda o: o.core)
            result.phases += 1
            for found in between_cores(outcomes, self.template.who):
                race = found
                key = (race["kind"], race["first"]["pc"], race["second"]["pc"])
                if key in seen:
                    seen[key]["count"] += race["count"]
                    continue
                if self.launch.by_blocks:  # block k is core k's
                    race = dict(race, first=dict(race["first"], block=race["first"]["core"]),
                                second=dict(race["second"], block=race["second"]["core"]), blocks=race["cores"])
                seen[key] = race
                result.races.append(race)
                message = block_race_text(race, rounds=False) if self.launch.by_blocks else race_text(race)
                if strict:
                    result.fault = kernel_fault(message, "race", self.template.where(race["second"]["pc"]))
                    return result
                result.warnings.append(f"warning: {message}")
            delta = merge_writes([o.writes for o in outcomes])
            apply_writes(self.gm, delta)
            # a core's own fault first, then one stopped by Ctrl-C
            faulted = sorted((o for o in outcomes if o.state == "fault"), key=lambda o: o.fault_kind == "interrupt")
            if faulted:
                first = faulted[0]
                result.fault = Fault(f"core {first.core}: {first.fault}", first.fault_kind or "fault")
                return result
            ended.update({o.core: o.pc for o in outcomes if o.state == "end"})
            waiting = [o for o in outcomes if o.state == "syncall"]
            if not waiting:
                return result
            if ended:
                core, pc = next(iter(sorted(ended.items())))
                w = waiting[0]
                at = self.template.describe(pc) if self.template.is_instruction_start(pc) else "at the end"
                result.fault = kernel_fault(
                    f"SYNCALL at {self.template.describe(w.pc)} waits forever: core {w.core} is there, but core "
                    f"{core} ended ({at}) "
                    f"without reaching it; every core must pass the same number of SYNCALLs", "deadlock",
                    self.template.where(w.pc))
                return result
            release = max(o.arrival for o in waiting) + self.profile["chip"]["syncall"]
            if drawing is not None:
                drawing.syncall([(o.core, o.arrival, o.pc) for o in waiting], release)

    # -- what the kernel gives ---------------------------------------------------------------
    def read(self, space: str, addr: int, type_name: str, count: int, core: int = 0) -> np.ndarray:
        """After the run: T elements of GM, or of core ``core``'s UB."""
        type_named(type_name)  # a ValueError naming the types, before anything is copied
        if space == "ub":  # the template shows core K's UB
            if not 0 <= core < self.cores or not self.ends:
                raise ValueError(f"core {core}'s UB: the kernel has cores 0..{self.cores - 1}"
                                 + ("" if self.ends else ", and has not run"))
            np.copyto(self.template.ub, next(e.ub for e in self.ends if e.core == core))
        return self.template.read(space, addr, type_name, count).copy()

    def scalars(self, core: int = 0) -> tuple:
        """Core ``core``'s S registers at its end."""
        return next(e.s for e in self.ends if e.core == core)

    def memory(self, space: str) -> np.ndarray:
        """GM, or core 0's UB before the run (for its size)."""
        return self.template.memory(space)

    def report(self, dumps: dict | None = None) -> Report:
        """The whole kernel's report: the slowest core's table, pipes and stalls summed over cores,
        a line per core (``per_core``)."""
        if self.result is None:
            raise RuntimeError("report() before run()")
        if self.rounds is not None:
            return self.rounds.report(self.result, dumps or {})
        reports = [e.report for e in self.ends]
        slowest = max(reports, key=lambda r: r.total_cycles)
        total = self.result.total_cycles
        pipes = {}
        for pipe in slowest.pipes:
            busy = sum(r.pipes[pipe].busy_cycles for r in reports)
            pipes[pipe] = PipeEntry(busy, sum(r.pipes[pipe].instructions for r in reports),
                                    busy / (total * self.cores) if total else 0.0)
        stalls = {cause: sum(r.stalls.get(cause, 0) for r in reports) for cause in STALL_CAUSES}
        races = [dict(r, core=e.core) for e in self.ends for r in e.report.races] + self.result.races
        per_core = [{"core": e.core, "total_cycles": e.report.total_cycles, "instructions": e.report.instructions,
                     "pipes": {p: {"busy_cycles": x.busy_cycles, "instructions": x.instructions,
                                   "utilisation": round(x.utilisation, 4)} for p, x in e.report.pipes.items()},
                     "stalls": dict(e.report.stalls), "verdict": e.report.verdict(),
                     "blocks": [{"block": e.core, "start": 0, "end": e.report.total_cycles}]} for e in self.ends]
        fault = self.result.fault
        core_of = next(e.core for e in self.ends if e.report is slowest)
        return Report(slowest.profile, sum(r.instructions for r in reports), total, slowest.clock_ghz, pipes, stalls,
                      races, list(slowest.per_pc), dict(slowest.scalars), dumps or {},
                      None if fault is None else str(fault), None if fault is None else fault.kind,
                      [w.removeprefix("warning: ") for w in self.result.warnings],
                      cores=self.cores, per_core=per_core, slowest_core=core_of,
                      launch=self.launch.launch_cycles(self.profile), fast_loops=sum(r.fast_loops for r in reports),
                      replayed=sum(r.replayed for r in reports), blocks=self.blocks)


def race_text(race: dict) -> str:
    """The sentence for a race between cores."""
    a, b = race["first"], race["second"]
    span = f"GM bytes 0x{race['start']:x}..0x{race['end']:x}"
    one = f"core {a['core']} {a['where']} ({a['pipe']}: {a['text']})"
    two = f"core {b['core']} {b['where']} ({b['pipe']}: {b['text']})"
    what = "latent race between cores" if race.get("latent") else "race between cores"
    if race["kind"] == "WAW":
        return (f"{what} (WAW): {one} and {two} both write {span} between the same SYNCALLs: which "
                f"value stays depends on timing; give each core its own bytes, or put a SYNCALL between them")
    return (f"{what} (RAW): {one} writes {span} that {two} reads between the same SYNCALLs: a core "
            f"sees another core's GM writes only after a SYNCALL; put one between the write and the read")


__all__ = ["MAX_CORES", "Kernel", "KernelResult", "default_jobs", "load", "race_text"]


def load(program: Program, profile: Profile, cores: int | None = None, gm_size: int = DEFAULT_GM_SIZE,
         jobs: int | None = None, blocks: int | None = None) -> Machine | Kernel:
    """The program on one core (a Machine) or, with ``cores`` or ``blocks``, as a kernel (run, report,
    read and write alike)."""
    if cores is None and blocks is None:
        return Machine(program, profile, gm_size)
    return Kernel(program, profile, cores, gm_size, jobs, blocks)
