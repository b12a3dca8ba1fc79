"""What a run gives back: one value that holds everything its report and trace are built from.

``Machine.run()`` returns a ``RunResult``. The report (``emulator.report.build_report``) and the
trace (``emulator.trace.trace_events``) read this value alone, never the machine, so the flow
runs one way: machine -> result -> report.
"""

from __future__ import annotations

from attrs import define, field, frozen

from emulator.faults import Fault

STALL_CAUSES = ("bank_conflict", "flag_wait", "barrier", "dependency", "drain", "queue_full")


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


@define
class PipeEntry:
    busy_cycles: int
    instructions: int
    utilisation: float


@frozen
class TraceLog:
    """The slices of a ``--trace`` run: ``(pipe, pc, start, end, job)`` each, with the cycle its pipe
    could start the next instruction (``releases``), the flag arrows ``(set job, wait job)`` and
    how many slices were counted and not kept (past the engine's limit), and which slices are a vector
    function's instructions (``parents``: their index -> the function's slice)."""

    slices: tuple
    releases: tuple
    flows: tuple
    dropped: int
    parents: dict = field(factory=dict)  # slice index -> index of the vector function's slice it is inside


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
    races: tuple = ()  # emulator.races.Race records, in the order found
    flag_warnings: tuple = ()
    scalars: dict = field(factory=dict)  # S0..S31 at the end
    trace: TraceLog | None = None  # only for a run with ``trace=True``
