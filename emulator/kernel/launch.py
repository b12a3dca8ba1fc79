"""A kernel's launch: how many blocks, on how many cores, and when each block runs (CONTRACT
section 14).

A launch has B blocks (``BLOCKNUM`` = B, ``BLOCKIDX`` 0..B-1) on C cores, C = min(B, the cores
asked for, ``chip.cores``). Blocks 0..C-1 start at the launch on cores 0..C-1; each later block,
in block order, starts on the first core to finish its block (the lowest core on a tie), after
``chip.block_switch`` cycles. The kernel's time is ``chip.launch + chip.launch_per_block * B`` plus
the end of its last block. ``BlockSchedule`` places the blocks one at a time as their lengths become
known, in O(log C) each; it keeps three numbers a block (the report lists every block).
"""

from __future__ import annotations

import heapq

import numpy as np
from attrs import define, field, frozen

from vcore.emulator.admission import refuse
from vcore.emulator.faults import Fault
from vcore.emulator.profiles.profile import Profile
from vcore.emulator.report import Report
from vcore.isa import decode_program
from vcore.isa.program import Program

MAX_BLOCKS = 65535  # a launch's block dimension: 1..65535, as the CANN runtime takes it


class LaunchError(ValueError):
    """A launch the profile's chip cannot make (``--cores``, ``--blocks`` out of range)."""


@frozen
class Launch:
    """``blocks`` blocks on ``cores`` cores (the cores used); ``by_blocks``: launched with
    ``--blocks`` (else ``--cores N``, one block a core)."""

    blocks: int
    cores: int
    by_blocks: bool

    @classmethod
    def of(cls, profile: Profile, cores: int | None, blocks: int | None) -> Launch:
        """The launch that ``--cores`` and ``--blocks`` ask for; a LaunchError says what is wrong."""
        chip = profile["chip"]["cores"]
        if blocks is None:
            if cores is None or not 1 <= cores <= chip:
                raise LaunchError(f"--cores must be 1..{chip}, not {cores} (the {profile.name} profile's chip.cores "
                                  f"is {chip}; for more blocks than cores, --blocks B)")
            return cls(cores, cores, False)
        if not 1 <= blocks <= MAX_BLOCKS:
            raise LaunchError(f"--blocks must be 1..{MAX_BLOCKS}, not {blocks}")
        if cores is not None and cores < 1:
            raise LaunchError(f"--cores must be at least 1, not {cores}")
        return cls(blocks, min(blocks, chip if cores is None else min(cores, chip)), True)

    @property
    def in_rounds(self) -> bool:
        """More blocks than cores: some blocks start only when others have ended."""
        return self.blocks > self.cores

    def launch_cycles(self, profile: Profile) -> int:
        chip = profile["chip"]
        return chip["launch"] + chip["launch_per_block"] * self.blocks

    def check(self, program: Program) -> None:
        """Refuse (``ProgramError``, at its line) a SYNCALL when blocks run in rounds: the blocks
        waiting for a core could never arrive while the running ones wait for them."""
        if not self.in_rounds:
            return
        for pc, inst in decode_program(program.words):
            if inst.row.family == "syncall":
                refuse(program, pc, inst, f"SYNCALL in a launch of {self.blocks} blocks on {self.cores} cores: the "
                                          f"barrier could never be met (a block beyond the cores starts only when "
                                          f"another has ended); launch at most {self.cores} blocks, or leave "
                                          f"SYNCALL out")


@define
class KernelResult:
    """How the kernel ended: its fault (None for a clean end), the races between its blocks (or
    cores), its cycles, and with ``trace=True`` what its trace is drawn from (``trace``, an
    ``emulator.kernel.trace.KernelTrace``: ``emulator.trace.trace_events(result)`` is the trace)."""

    fault: Fault | None = None
    total_cycles: int = 0
    races: list = field(factory=list)  # race records (JSON form) between blocks
    warnings: list = field(factory=list)  # warning lines, each block's and the kernel's
    phases: int = 0
    trace: object = None  # a KernelTrace, for a run with trace=True


@frozen
class CoreEnd:
    """A core's report once the kernel has ended (None for a core of a launch in rounds, whose
    report is its blocks'), the warnings it gave, its UB and S registers, and its trace's layout
    (``emulator.trace_layout.CoreTrace``) when it was traced."""

    core: int
    report: Report | None
    warnings: tuple
    ub: np.ndarray
    s: tuple
    trace: object = None


def kernel_fault(message: str, kind: str, where: str) -> Fault:
    fault = Fault(message, kind)
    fault.where = where
    return fault


class BlockSchedule:
    """Where and when each block runs, placed in block order as each block's cycles become known."""

    def __init__(self, cores: int, switch: int, blocks: int) -> None:
        self.cores, self.switch = cores, switch
        self.core = np.zeros(blocks, dtype=np.int32)
        self.start = np.zeros(blocks, dtype=np.int64)
        self.end = np.zeros(blocks, dtype=np.int64)
        self.placed = 0
        self.free: list[tuple[int, int]] = []  # (the cycle a core finishes its block, the core): a heap
        self.last = [-1] * cores  # each core's latest block

    def place(self, cycles: int) -> tuple[int, int]:
        """Place the next block, of ``cycles`` cycles: its (core, start)."""
        b = self.placed
        if b < self.cores:
            core, start = b, 0
        else:
            finished, core = heapq.heappop(self.free)  # the earliest, then the lowest core
            start = finished + self.switch
        end = start + cycles
        heapq.heappush(self.free, (end, core))
        self.core[b], self.start[b], self.end[b] = core, start, end
        self.last[core] = b
        self.placed = b + 1
        return core, start

    def finish(self) -> int:
        """The end of the last block to end (0 before any)."""
        return int(self.end[:self.placed].max()) if self.placed else 0

    def rows(self, core: int) -> list[dict]:
        """The blocks ``core`` ran, in order, with their start and end cycles."""
        mine = np.flatnonzero(self.core[:self.placed] == core)
        return [{"block": b, "start": s, "end": e} for b, s, e in
                zip(mine.tolist(), self.start[mine].tolist(), self.end[mine].tolist(), strict=True)]


__all__ = ["MAX_BLOCKS", "BlockSchedule", "CoreEnd", "KernelResult", "Launch", "LaunchError", "kernel_fault"]
