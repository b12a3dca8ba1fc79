"""A kernel's trace (``vcore run --cores N|--blocks B --trace``): a Perfetto process per core, named
``core K``, holding the slices of the blocks it ran, each at the cycle its block started there.

- ``blocks``, the first track of each core: a slice per block it ran (``block B``), so the blocks'
  boundaries and the cycles a core switches between them show.
- ``S``, ``V``, ``MTE2``, ``MTE3`` and the tracks under them, as in a core's own trace
  (``emulator.trace``).
- A SYNCALL: an instant ``SYNCALL arrival`` on the ``S`` track of each core at the cycle it arrived
  (its pipes drained), and ``SYNCALL release`` on every core at the cycle all go on, the last
  arrival plus ``chip.syncall``; an arrow goes from each core's arrival to the release on the core
  that arrived last, whose arrival released them all.
- ``chip``, a process of its own: the counter ``GM bandwidth (bytes/cycle)``, the GM bytes a cycle
  that the copies of all cores move (each copy's bytes evenly over its cycles), GM to UB and UB to
  GM; the model gives each core at most ``chip.gm_bytes_per_cycle`` / N of it (the metadata's
  ``gm_share_per_core``).

Time 0 is the cycle the cores start; the launch's cycles (``launch_cycles`` in the metadata) are in
the kernel's total but not on the time axis. The kernel's process builds the trace from what each
block's run gives back (its ``CoreTrace``) and places them in block order, so the trace is the same
for every number of processes. It keeps the slices of its blocks, in block order, up to
``KERNEL_TRACE_LIMIT``; the blocks past that show on their ``blocks`` track only, and their copies
in the counter (``truncated_slices`` says how many slices were left out).
"""

from __future__ import annotations

from attrs import define, field

from vcore.emulator.trace import Ids, Process, Timeline, gm_counter, pipe_tracks
from vcore.emulator.trace_layout import CoreTrace

KERNEL_TRACE_LIMIT = 2_000_000  # slices a kernel's trace keeps, over all its blocks


@define
class KernelTrace:
    """What a kernel's trace is drawn from: each block's place (``placed``: block, core, start, end
    and its layout, of copies alone past the limit) and each SYNCALL's arrivals ``(core, cycle, pc)``
    and release cycle."""

    profile: str
    clock_ghz: float
    cores: int
    blocks: int
    launch: int
    gm_bytes_per_cycle: float
    placed: list = field(factory=list)
    syncalls: list = field(factory=list)
    kept: int = 0  # slices kept
    dropped: int = 0  # slices left out (past the limit, or past an engine's own)
    full: bool = False  # a block's slices did not fit: no later block's are kept

    def place(self, block: int, core: int, start: int, end: int, layout: CoreTrace | None) -> None:
        """Block ``block`` ran on ``core`` from ``start`` to ``end``; its layout (None: not traced)."""
        if layout is not None:
            self.dropped += layout.dropped
            if self.full or self.kept + layout.slices > KERNEL_TRACE_LIMIT:  # past the limit: its copies alone
                self.full = True
                self.dropped += layout.slices
                layout = CoreTrace((), {}, layout.copies, layout.end)
            self.kept += layout.slices
        self.placed.append((block, core, start, end, layout))

    def syncall(self, arrivals: list[tuple[int, int, int]], release: int) -> None:
        self.syncalls.append((tuple(arrivals), release))

    def events(self, time: str = "real") -> dict:
        """The Chrome trace events, on the time axis ``time`` (``real`` or ``cycles``)."""
        timeline, ids = Timeline(self.clock_ghz, time), Ids()
        mine: list[list] = [[] for _ in range(self.cores)]
        for place in self.placed:
            mine[place[1]].append(place)
        processes = []
        for core, places in enumerate(mine):
            lanes = {}
            for *_, layout in places:
                for pipe, count in (layout.lanes if layout is not None else {}).items():
                    lanes[pipe] = max(lanes.get(pipe, 1), count)
            process = Process(core + 1, f"core {core}", [("blocks", 0), *pipe_tracks(lanes)], timeline, ids,
                              sort_index=core)
            for block, _, start, end, layout in places:
                process.slice(("blocks", 0), f"block {block}", "block", start, end,
                              {"block": block, "start_cycle": start, "end_cycle": end, "cycles": end - start})
                if layout is not None:
                    process.place(layout, start)
            processes.append(process)
        chip = Process(self.cores + 1, "chip", [], timeline, ids, sort_index=-1)  # the counter alone
        marks = self._syncalls(processes, ids)
        events = [e for p in (chip, *processes) for e in p.events if e["ph"] == "M"]
        events += [e for p in processes for e in p.events if e["ph"] != "M"]
        copies = [(pipe, start + s, start + e, nbytes) for _, _, start, _, layout in self.placed if layout is not None
                  for pipe, s, e, nbytes in layout.copies]
        events += gm_counter(sorted(copies, key=lambda c: c[1:]), timeline, chip.pid)
        events += marks
        share = self.gm_bytes_per_cycle / self.cores
        meta = {"profile": self.profile, **timeline.metadata(), "cores": self.cores, "blocks": self.blocks,
                "launch_cycles": self.launch,
                "total_cycles": self.launch + max((p[3] for p in self.placed), default=0),
                "gm_bytes_per_cycle": self.gm_bytes_per_cycle, "gm_share_per_core": round(share, 4)}
        if self.dropped:
            meta["truncated_slices"] = self.dropped
        return {"traceEvents": events, "displayTimeUnit": "ns", "metadata": meta}

    def _syncalls(self, processes: list[Process], ids: Ids) -> list[dict]:
        """Each SYNCALL's instants and arrows, to be written after every slice: at one time, a viewer
        then reads an arrival before a release, and each after the slices it binds to."""
        marks = []
        for number, (arrivals, release) in enumerate(self.syncalls, start=1):
            last = max(arrivals, key=lambda a: (a[1], -a[0]))[0]  # the last to arrive (the lowest core on a tie)
            flows = []
            for core, cycle, pc in arrivals:
                process = processes[core]
                start = len(process.events)
                process.instant(("S", 0), "SYNCALL arrival", cycle, {"syncall": number, "pc": f"0x{pc:04x}",
                                                                     "cycle": cycle})
                flows.append(ids.flow())
                process.flow_end(("S", 0), "s", flows[-1], cycle, "syncall")
                marks += process.events[start:]
                del process.events[start:]
            for core, _, pc in sorted(arrivals):
                process = processes[core]
                start = len(process.events)
                process.instant(("S", 0), "SYNCALL release", release, {"syncall": number, "pc": f"0x{pc:04x}",
                                                                       "cycle": release, "last_arrival": last})
                if core == last:
                    for flow in flows:
                        process.flow_end(("S", 0), "f", flow, release, "syncall")
                marks += process.events[start:]
                del process.events[start:]
        return marks


__all__ = ["KERNEL_TRACE_LIMIT", "KernelTrace"]
