"""What a run gives back: one value that holds everything its report and trace are built from.

``Machine.run()`` returns a ``RunResult``. The report (``emulator.report.build_report``) and the
trace (``emulator.trace.trace_events``) read this value alone, never the machine, so the flow
runs one way: machine -> result -> report.
"""

from __future__ import annotations

from attrs import define, field, frozen

from vcore.emulator.faults import Fault
from vcore.emulator.jobs import PIPES

# The causes a run's stalls are counted by: the pipes' (flags, barriers, the 950 V scoreboard, a full
# queue, SYNCALL) and, inside vector functions, what kept a ready instruction from issuing: its
# launch, the instruction window, a full execute, load, store or transcendental unit, the register
# write ports, UB's ports and banks.
STALL_CAUSES = ("bank_conflict", "flag_wait", "barrier", "dependency", "drain", "queue_full", "syncall", "launch",
                "window_full", "issue_width", "load_unit", "store_unit", "transcendental_unit", "write_ports",
                "ub_port", "bank_group", "sub_bank")


@define
class PcEntry:
    """What one static instruction did over the run: how often it ran and what it cost."""

    pc: int
    line: int | None
    text: str
    pipe: str
    count: int
    cycles: int = 0
    iterations: int = 0
    bank_conflict_cycles: int = 0
    stalls: dict = field(factory=dict)
    # Its share of its pipe's busy cycles: the cycles of its runs that no earlier run on the pipe
    # covered, so a pipe's entries add up to its busy cycles, where ``cycles`` counts each run whole
    # (pipelined copies in flight together count their overlap once each). 0 inside a vector
    # function, whose VF.BEGIN holds V.
    busy_cycles: int = 0


@define
class PipeEntry:
    busy_cycles: int
    instructions: int
    utilisation: float


@frozen
class TraceLog:
    """The slices of a ``--trace`` run: ``(pipe, pc, start, end, job)`` each, with the cycle its pipe
    could start the next instruction (``releases``), the flag arrows ``(set job, wait job)`` and
    how many slices were counted and not kept (past the engine's limit), which slices are a vector
    function's instructions (``parents``: their index -> the function's slice), and the GM bytes
    each copy's cost follows from (``gm_bytes``: the index of a DMA's slice -> its bytes)."""

    slices: tuple
    releases: tuple
    flows: tuple
    dropped: int
    parents: dict = field(factory=dict)  # slice index -> index of the vector function's slice it is inside
    gm_bytes: dict = field(factory=dict)  # slice index of a DMA -> the GM bytes it moves


@define
class RunResult:
    """How a run ended (``fault`` is None for a clean end) and what it cost, per instruction and pipe."""

    instructions: int
    fault: Fault | None = None
    halted: bool = False
    counts: dict = field(factory=dict)  # pc -> times run
    total_cycles: int = 0
    paused: bool = False  # stopped by ``pause_after`` or a breakpoint; ``run()`` again resumes
    profile: str = ""
    clock_ghz: float = 1.0
    per_pc: tuple = ()  # PcEntry of each instruction that ran, in pc order
    pipes: dict = field(factory=dict)  # pipe -> PipeEntry, in the order S, V, MTE2, MTE3
    stalls: dict = field(factory=dict)  # cause -> cycles
    races: tuple = ()  # emulator.order.races.Race records, in the order found
    flag_warnings: tuple = ()
    scalars: dict = field(factory=dict)  # S0..S31 at the end
    trace: TraceLog | None = None  # only for a run with ``trace=True``
    fast_loop_instructions: int = 0  # of ``instructions``, those run in hardware loops in closed form
    replayed_instructions: int = 0  # of ``instructions``, those of tiling loops' passes that reused a schedule


def run_result(machine, executed: int, paused: bool) -> RunResult:
    """``machine``'s run so far as a value: how it ended, and what each instruction and pipe cost."""
    engine, code, counts = machine.engine, machine.code, machine.counts()
    accounting = engine.accounting
    total = engine.last_cycle()
    source = code.program.source or {}
    per_pc = []
    s_busy = 0  # S is busy for every instruction it reads (its issue slot) and for the syncs it runs
    for b in code.bound:
        count = counts.get(b.pc, 0)
        if not count:
            continue
        src = source.get(b.pc)
        stats = accounting.stats.get(b.pc)
        issue = count * code.issue[b.pc // 8]
        s_busy += issue
        pipe = code.pipes[b.pc]  # an instruction's, or V for a scalar one inside a vector function
        if stats is not None and pipe != "S":
            entry = PcEntry(b.pc, src.line if src else None, code.text_at(b.pc), pipe, count, stats.cycles,
                            stats.iterations, stats.bank_conflict, dict(stats.stalls), stats.busy)
        else:
            own = stats.cycles if stats is not None else 0
            s_busy += own
            entry = PcEntry(b.pc, src.line if src else None, code.text_at(b.pc), pipe, count, issue + own, 0, 0,
                            dict(stats.stalls) if stats is not None else {}, issue + own)
        per_pc.append(entry)
    pipes = {}
    for pipe in PIPES:
        busy = s_busy if pipe == "S" else accounting.busy[pipe]
        instructions = sum(e.count for e in per_pc if e.pipe == pipe)
        pipes[pipe] = PipeEntry(busy, instructions, busy / total if total else 0.0)
    trace = engine.trace_log() if accounting.tracing else None
    return RunResult(executed, machine.fault, machine.halted, counts, total, paused, machine.profile.name,
                     machine.profile.clock_ghz, tuple(per_pc), pipes,
                     {cause: accounting.stall_totals.get(cause, 0) for cause in STALL_CAUSES}, tuple(machine.races()),
                     tuple(engine.flag_warnings()), {f"S{i}": int(v) for i, v in enumerate(machine.s)}, trace,
                     machine.tally.fast, machine.tally.replayed)
