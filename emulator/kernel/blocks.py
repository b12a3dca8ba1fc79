"""A launch of more blocks than cores (CONTRACT section 14): B blocks on C cores, each later block
starting on the first core to finish its block.

Every block starts as a fresh core does (UB and registers zero, the ``--load ub`` files loaded) on
GM as the kernel starts, plus its own writes: no block can see another's writes (such a launch has
no SYNCALL), so a block's run depends only on its number and the kernel's GM, and its cycles are
the same whichever core runs it and when. The blocks are run in rounds, ``CHUNK`` blocks a group
(``BlockGroup``, local or in a worker process), and taken in block order by the kernel's process
(``Rounds``): it places each block on its core (``emulator.kernel.launch.BlockSchedule``), adds its
counts to the kernel's and to its core's, lays its GM writes over GM (a higher block's byte wins, as
between cores) and keeps its GM footprint for the races between blocks
(``emulator.kernel.block_races``), found once at the end. So the result is the same for every number
of processes, and the kernel's process holds, per block, its place and its footprint: the groups
keep only the blocks that may still be asked for (each core's latest, and the longest, whose table
the report shows), never a machine per block.
"""

from __future__ import annotations

import gc

import numpy as np
from attrs import frozen

from vcore.emulator.faults import Fault
from vcore.emulator.kernel.block_races import WIDTH, between_blocks, footprint, race_text
from vcore.emulator.kernel.gm_merge import Accesses, Writes, apply_writes
from vcore.emulator.kernel.launch import BlockSchedule, CoreEnd, KernelResult, Launch, kernel_fault
from vcore.emulator.kernel.processes import StopRequest, call_each, call_groups
from vcore.emulator.machine import Machine
from vcore.emulator.profiles.profile import Profile
from vcore.emulator.report import Report, race_messages
from vcore.emulator.result import STALL_CAUSES, PipeEntry
from vcore.emulator.trace_layout import core_trace
from vcore.isa.program import Program

CHUNK = 16  # blocks a group runs in one call


@frozen
class BlockOutcome:
    """What the kernel's process takes from a block's run: how it ended, its counts, its own races
    and warnings, its GM footprint and the GM bytes it wrote, and (traced) its trace's layout."""

    block: int
    fault: str | None
    fault_kind: str | None
    cycles: int
    instructions: int
    pipes: dict  # pipe -> (busy cycles, instructions)
    stalls: dict
    loops: tuple  # (fast-loop instructions, replayed instructions)
    verdict: str
    races: list  # the block's own races (JSON form)
    warnings: tuple
    footprint: np.ndarray
    writes: Writes
    trace: object = None  # an emulator.trace_layout.CoreTrace, in the block's own cycles


class BlockGroup:
    """The blocks one process runs, one fresh Machine a block (dropped once it has run). It keeps
    each block's report, UB and S until the kernel says which it still wants (``keep``)."""

    def __init__(self, program: Program, profile: Profile, gm_size: int, launch: Launch, limits: dict,
                 gm_file: str, ub_loads: list, stop: StopRequest | None = None) -> None:
        self.program, self.profile, self.gm_size, self.launch = program, profile, gm_size, launch
        self.limits, self.gm_file, self.ub_loads = limits, gm_file, ub_loads
        self.stop = stop or StopRequest()
        self.kept: dict = {}  # block -> (report, UB, S)

    def run(self, blocks: list[int]) -> list[BlockOutcome]:
        outcomes = []
        for b in blocks:
            outcomes.append(self._block(b))
            # A block's Machine is garbage in reference cycles once it has run: collect it now (the young
            # generations: as cheap as the run), not when the collector comes to it, so that blocks
            # waiting for it do not hold their UB and GM pages.
            gc.collect(1)
        return outcomes

    def _block(self, block: int) -> BlockOutcome:
        gm = np.memmap(self.gm_file, dtype=np.uint8, mode="c", shape=(self.gm_size,))  # the kernel's, copy on write
        m = Machine(self.program, self.profile, self.gm_size, core=block, cores=self.launch.blocks, gm=gm,
                    sharing=self.launch.cores)
        m.timed_data = True  # as a core of a kernel of one block a core runs
        for space, addr, data in self.ub_loads:
            m.write(space, addr, data)
        m.log_gm_accesses()
        self.stop.run(m, self.limits)
        if m.result is None:  # Ctrl-C came before it ran: an empty run, for its report
            m.run(**self.limits, pause_after=0)
            fault = m.fault_at(Fault("interrupted", kind="interrupt"), m.pc)
        else:
            fault = m.result.fault
        accesses = Accesses.of(m.take_gm_log())
        report = m.report()
        warnings = ([] if self.limits.get("strict") else race_messages(m.result)) + \
            [f"warning: {w}" for w in m.flag_warnings()]
        self.kept[block] = (report, m.ub, tuple(m.s))
        return BlockOutcome(block, None if fault is None else str(fault), None if fault is None else fault.kind,
                            report.total_cycles, report.instructions,
                            {p: (e.busy_cycles, e.instructions) for p, e in report.pipes.items()},
                            dict(report.stalls), (report.fast_loops, report.replayed), report.verdict(),
                            list(report.races), tuple(warnings), footprint(accesses), Writes.of(m.gm, accesses),
                            core_trace(m.result) if self.limits.get("trace") else None)

    def keep(self, blocks: set) -> None:
        """Forget every block but ``blocks``."""
        self.kept = {b: v for b, v in self.kept.items() if b in blocks}

    def ends(self, blocks: list[int]) -> list[tuple]:
        """(block, report, UB, S) of each of ``blocks``."""
        return [(b, *self.kept[b]) for b in blocks]


class Rounds:
    """The kernel's process's side of a launch in rounds: it hands out the blocks, takes each one's
    outcome in block order, and gives the kernel's result and report."""

    def __init__(self, launch: Launch, profile: Profile, template: Machine, gm: np.ndarray, drawing=None) -> None:
        self.launch, self.profile, self.template, self.gm = launch, profile, template, gm
        self.drawing = drawing  # the kernel's trace (emulator.kernel.trace.KernelTrace), when traced
        self.schedule = BlockSchedule(launch.cores, profile["chip"]["block_switch"], launch.blocks)
        self.cores = [{"instructions": 0, "pipes": {}, "stalls": {}, "longest": (-1, 0, "")}
                      for _ in range(launch.cores)]
        self.total = {"instructions": 0, "pipes": {}, "stalls": {}, "loops": [0, 0]}
        self.longest = (-1, 0)  # (cycles, block) of the longest block, the lowest on a tie
        self.footprints: list[np.ndarray] = []
        self.own_races: dict = {}  # (kind, first pc, second pc, space) -> the first block's record
        self.block_warnings: dict = {}  # text -> the line naming the first block that gave it
        self.table: Report | None = None  # the longest block's report
        self.ends: list[CoreEnd] = []

    def group_of(self, block: int, groups: int) -> int:
        return block % (groups * CHUNK) // CHUNK

    def run(self, groups: list, stop: StopRequest, strict: bool) -> KernelResult:
        result = KernelResult()
        count, each = len(groups), len(groups) * CHUNK
        for first in range(0, self.launch.blocks, each):
            parts = [(list(range(first + j * CHUNK, min(self.launch.blocks, first + (j + 1) * CHUNK))),)
                     for j in range(count)]
            outcomes = sorted((o for part in call_each(groups, "run", parts) for o in part), key=lambda o: o.block)
            for o in outcomes:
                core = self._take(o)
                if o.fault is not None:  # the first block (in block order) that faulted stops the kernel
                    result.fault = Fault(f"block {o.block} (core {core}): {o.fault}", o.fault_kind or "fault")
                    break
            if result.fault is not None or stop.asked:
                break
            call_groups(groups, "keep", self._wanted())
        self._races(result, strict)
        self._collect(groups)
        result.warnings[:0] = list(self.block_warnings.values())
        result.total_cycles = self.launch.launch_cycles(self.profile) + self.schedule.finish()
        return result

    def _take(self, o: BlockOutcome) -> int:
        """Place block ``o`` and add what it did to the kernel's; its core."""
        core, start = self.schedule.place(o.cycles)
        if self.drawing is not None:
            self.drawing.place(o.block, core, start, start + o.cycles, o.trace)
        for tally in (self.total, self.cores[core]):
            tally["instructions"] += o.instructions
            for pipe, (busy, count) in o.pipes.items():
                was = tally["pipes"].get(pipe, (0, 0))
                tally["pipes"][pipe] = (was[0] + busy, was[1] + count)
            for cause, cycles in o.stalls.items():
                tally["stalls"][cause] = tally["stalls"].get(cause, 0) + cycles
        self.total["loops"][0] += o.loops[0]
        self.total["loops"][1] += o.loops[1]
        if o.cycles > self.cores[core]["longest"][0]:
            self.cores[core]["longest"] = (o.cycles, o.block, o.verdict)
        if o.cycles > self.longest[0]:
            self.longest = (o.cycles, o.block)
        apply_writes(self.gm, o.writes)  # in block order: a higher block's byte wins
        if o.footprint.size:
            rows = np.empty((len(o.footprint), WIDTH + 1), dtype=np.int64)
            rows[:, 0], rows[:, 1:] = o.block, o.footprint
            self.footprints.append(rows)
        for race in o.races:
            key = (race["kind"], race["first"]["pc"], race["second"]["pc"], race["space"])
            self.own_races.setdefault(key, dict(race, block=o.block, core=core))
        for w in o.warnings:
            self.block_warnings.setdefault(w, w.replace("warning: ", f"warning: block {o.block} (core {core}): ", 1))
        return core

    def _wanted(self) -> set:
        """The blocks the groups must keep: each core's latest and the longest."""
        return {b for b in self.schedule.last if b >= 0} | {self.longest[1]}

    def _races(self, result: KernelResult, strict: bool) -> None:
        rows = np.concatenate(self.footprints) if self.footprints else np.zeros((0, WIDTH + 1), dtype=np.int64)
        for race in between_blocks(rows, self.schedule.start, self.schedule.core, self.template.who):
            result.races.append(race)
            message = race_text(race, rounds=True)
            if strict:
                if result.fault is None:
                    result.fault = kernel_fault(message, "race", self.template.where(race["second"]["pc"]))
                return
            result.warnings.append(f"warning: {message}")

    def _collect(self, groups: list) -> None:
        """Fetch each core's latest block's UB and S, and the longest block's report."""
        wanted = sorted(self._wanted())
        asks = [([b for b in wanted if self.group_of(b, len(groups)) == j],) for j in range(len(groups))]
        got = {b: rest for part in call_each(groups, "ends", asks) for b, *rest in part}
        self.table = got[self.longest[1]][0]
        fresh = (None, self.template.ub.copy(), tuple(self.template.s))  # a core that ran no block: as it starts
        for core, block in enumerate(self.schedule.last):
            _, ub, s = got[block] if block >= 0 else fresh
            self.ends.append(CoreEnd(core, None, (), ub, s))

    # -- the report ----------------------------------------------------------------------------
    def report(self, result: KernelResult, dumps: dict) -> Report:
        """The kernel's report: the longest block's table, pipes and stalls summed over the blocks,
        a row per core with the blocks it ran."""
        table, total, cores = self.table, result.total_cycles, self.launch.cores
        pipes = {p: _pipe(self.total["pipes"].get(p, (0, 0)), total * cores) for p in table.pipes}
        stalls = {cause: self.total["stalls"].get(cause, 0) for cause in STALL_CAUSES}
        rows, ends = [], self.schedule.end
        for core, tally in enumerate(self.cores):
            blocks = self.schedule.rows(core)
            cycles = blocks[-1]["end"] if blocks else 0
            rows.append({"core": core, "total_cycles": cycles, "instructions": tally["instructions"],
                         "pipes": {p: _pipe(tally["pipes"].get(p, (0, 0)), cycles, json=True) for p in table.pipes},
                         "stalls": {c: tally["stalls"].get(c, 0) for c in STALL_CAUSES},
                         "verdict": tally["longest"][2] or "nothing ran", "blocks": blocks})
        placed = self.schedule.placed
        slowest = int(self.schedule.core[int(np.argmax(ends[:placed]))]) if placed else 0
        fault = result.fault
        return Report(table.profile, self.total["instructions"], total, table.clock_ghz, pipes, stalls,
                      [*self.own_races.values(), *result.races], list(table.per_pc), dict(table.scalars), dumps,
                      None if fault is None else str(fault), None if fault is None else fault.kind,
                      [w.removeprefix("warning: ") for w in result.warnings], cores=cores, per_core=rows,
                      slowest_core=slowest, launch=self.launch.launch_cycles(self.profile),
                      fast_loops=self.total["loops"][0], replayed=self.total["loops"][1], blocks=self.launch.blocks,
                      slowest_block=self.longest[1])


def _pipe(sums: tuple, cycles: int, json: bool = False):
    busy, count = sums
    share = busy / cycles if cycles else 0.0
    if json:
        return {"busy_cycles": busy, "instructions": count, "utilisation": round(share, 4)}
    return PipeEntry(busy, count, share)


__all__ = ["CHUNK", "BlockGroup", "BlockOutcome", "Rounds"]
