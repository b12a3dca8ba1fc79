"""A vector function's UB order: which of its accesses nothing orders (``InnerOrder``: no MEMBAR
between them, no chain of register dependencies, and for a load only the lanes a later instruction
uses; the data such a race gives is ``emulator.functions.timed``'s). It takes the launch's jobs in
program order, a chunk at a time, and keeps only what a later access can still meet
(``emulator.functions.block_state``), so a function of any length is checked in bounded memory.

The rules (CONTRACT sections 7 and 13.12, with issue 28's liveness):

- Two accesses of one launch to the same bytes of UB, at least one a write, race unless a MEMBAR
  stands between them, or the later one is a write whose data depends, through a chain of register
  results, on the earlier one (a read): a load's result feeding a store orders the pair.
- A store counts exactly the bytes it writes (``emulator.functions.access_bytes``): a masked store's
  active lanes (``norm``, the pack modes), the ``w`` bytes of ``first_*``, all of ``intlv_*``.
- A load counts only the bytes of the lanes that are used: a lane of its register is used when a
  later instruction reads it before the register is written again (or the function ends). An
  instruction of a masked family (``semantics.MASKED_LANES``) reads its vector sources only in the
  active lanes of its mask; any other reads every lane. A load of data no lane uses cannot race.
  A load whose register is still live ``_LIVE_LIMIT`` instructions later counts every lane (it is
  checked then, not held without bound). A load whose lanes are not its bytes in order counts the
  bytes its mode (or its datablocks) maps the used lanes to; a gather its active lanes' elements.
- Blocks are the fast filter: only where two accesses meet in a 32-byte block are their bytes
  compared (a 32-bit mask per block; an access of whole blocks carries none). Each block keeps, per
  static access (a "slot"), only what a later access can still race with: the latest write, or the
  first and latest read in the current MEMBAR epoch (by the read's ordinal, its count of runs so
  far), and the bytes they touched. A register's ancestry is, per load slot, the interval of
  ordinals its value depends on; a write is ordered after a block's reads of a slot when that
  interval covers the first and the latest of them (exact when a register's loads of a slot are a
  run of consecutive ordinals, as loops make them; otherwise, or where reads of other bytes of the
  block fall outside it, the later run is kept, and a race may be named that a longer memory would
  have ruled out, never one missed).
"""

from __future__ import annotations

import numpy as np

from vcore.emulator.functions.access_bytes import (
    ALL_BYTES,
    FULL,
    lane_bytes,
    of_addresses,
    of_datablocks,
    of_range,
    of_register,
    read_bytes,
    read_map,
)
from vcore.emulator.functions.block_runs import BlockRuns
from vcore.emulator.jobs import as_writes, footprint
from vcore.isa.types import BLOCK_BYTES

_LIVE_LIMIT = 1 << 16  # instructions after a load whose register is still live before it counts whole


class _At:
    """One access of a reported pair: its instruction and times (``Engine.function_races`` reads these)."""

    __slots__ = ("end", "pc", "start")

    def __init__(self, pc: int, start: int, end: int) -> None:
        self.pc, self.start, self.end = pc, start, end


def report(engine, races: list, times) -> None:
    """Hand a launch's races (``InnerOrder.finish``) to ``engine`` (``function_races``), each access
    with its times, ``times(k) -> (start, end)`` of the launch's k-th job."""
    engine.function_races([(kind, _At(first_pc, *times(first)), _At(second_pc, *times(second)), lo, hi, count)
                           for kind, first_pc, first, second_pc, second, lo, hi, count in races])


def _merge(a: dict, b: dict) -> dict:
    """Two ancestries (slot -> (first, last) ordinal): a run of one slot joins another it meets;
    two apart keep the later."""
    if a is b:
        return a
    out = dict(a)
    for slot, (lo, hi) in b.items():
        mine = out.get(slot)
        if mine is None:
            out[slot] = (lo, hi)
        elif lo <= mine[1] + 1 and mine[0] <= hi + 1:
            out[slot] = (min(lo, mine[0]), max(hi, mine[1]))
        elif lo > mine[1]:
            out[slot] = (lo, hi)
    return out


def _flow(ancestry: dict, plan, load_slot: int | None, ordinal: int) -> dict | None:
    """One job's register ancestry, in program order: the union of its sources' (returned), plus
    itself for a load of slot ``load_slot`` (its ``ordinal``-th run), given to its results."""
    mine = None
    for space in plan.reads:
        if space in ancestry:
            theirs = ancestry[space]
            mine = theirs if mine is None else _merge(mine, theirs)
    out = mine
    if load_slot is not None:
        own = {load_slot: (ordinal, ordinal)}
        out = own if mine is None else _merge(mine, own)
    for space in plan.writes:
        if out is not None:
            ancestry[space] = out
        elif space in ancestry:
            del ancestry[space]
    return mine


def _meet(runs: list) -> bool:
    """Whether any two of some runs of blocks share a block (``BlockRuns`` notes it as it merges them)."""
    merged = BlockRuns()
    merged.firsts, merged.ends = [r[0] for r in runs], [r[1] for r in runs]
    merged.footprint()
    return merged.overlap


def _entry_runs(entry) -> list:
    if entry is None:
        return []
    runs, lo, hi = entry
    return [(lo, hi)] if runs is None else [tuple(r) for r in runs.tolist()]


class InnerOrder:
    """A launch's accesses, checked as its jobs run in program order (``step``; ``flush`` now and
    then); ``finish`` ends the launch and gives its races, named by the jobs' indices in program
    order (``report`` gives them their times)."""

    def __init__(self, fn, ub: np.ndarray, jobs: list | None = None) -> None:
        """``jobs``: the launch's jobs, when they are all at hand (a short launch): register ancestry
        is then worked out only if a write meets an earlier read (``_ancestry_of``); without them
        (a long launch, made chunk by chunk) it is followed job by job."""
        self.fn = fn
        self.jobs = jobs
        self.later_ancestry: dict | None = None  # a short launch's: job index -> its sources' ancestry
        self.ub = ub
        self.plans = fn.plans
        self.slot_of = fn.ub_slots  # pc -> slot
        self.pc_of = fn.slot_pcs
        self.masked = fn.masked_lanes  # pc -> (mask register, lane width) of a masked family
        self.state = fn.block_state(ub.size // BLOCK_BYTES)
        self.epoch = self.state.next_epoch  # never used before: what earlier launches left is stale
        self.state.next_epoch = self.epoch + 1
        self.ancestry: dict = {}  # register space -> {slot: (first, last ordinal)} it depends on
        self.ordinals = [0] * len(self.pc_of)
        self.loads: dict = {}  # register space -> the pending load that wrote it (see step)
        # [k, slot, write, epoch, ordinal, runs or None, job, ancestry, byte masks or None], program order
        self.rows: list = []
        self.k = 0
        self.batches = 0  # batches of rows checked so far
        self.used_of: dict = {}  # (mask bytes, width) -> the register bytes (bits) its active lanes are in
        self.read_maps: dict = {}  # pc -> a load's byte map (``access_bytes.read_map``)
        self.found: dict = {}  # (kind, first pc, second pc) -> [first job index, second, lo, hi, count]

    # -- as the jobs run -------------------------------------------------------------------------------
    # A pending load is a list [row, used register bytes so far (bits), first block, contiguous VL?].
    def step(self, job, written, p) -> None:
        """Job ``job`` (the next in program order) has performed and returned ``written``, not yet
        landed; ``p`` is the mask register file as the job read it. Its register sources' pending
        loads learn which of their lanes it uses; its register results close the loads they overwrite."""
        k = self.k
        self.k = k + 1
        pc = job.pc
        plan = self.plans[pc]
        loads = self.loads
        if loads:
            used = -1
            for space in plan.reads:
                if space in loads:
                    if used < 0:
                        used = self._used(pc, p)
                    load = loads[space]
                    load[1] |= ALL_BYTES if space[0] == "P" else used
                    if load[1] == ALL_BYTES:  # nothing more to learn: its row is complete
                        del loads[space]
                        if load[3]:  # a VL (close_load, written out)
                            lo = load[2]
                            load[0][5] = [(lo, lo + 8)]
                        else:
                            self.close_load(load)
            for space in plan.writes:
                if space in loads:
                    self.close_load(loads[space])
                    del loads[space]
        ub = plan.ub
        mine = None
        if ub:
            if job.footprint_writes is None:  # (a binder that left them: it sets both or neither)
                job.footprint_reads, job.footprint_writes = footprint(job.reads), footprint(job.writes)
            slot = self.slot_of[pc]
            ordinal = self.ordinals[slot]
            self.ordinals[slot] = ordinal + 1
            if self.jobs is None:
                mine = _flow(self.ancestry, plan, slot if ub == 1 else None, ordinal)
            rows = self.rows
            if ub == 1:  # a load: a row whose bytes its lanes' use decides
                row = [k, slot, 0, self.epoch, ordinal, None, job, None, None]
                rows.append(row)
                entry = job.footprint_reads.get("ub")  # (None: a gather refined to no lanes)
                if entry is not None and entry[0] is None and entry[2] - entry[1] == 8:  # a VL: _geometry
                    pending = [row, 0, entry[1], True]
                else:
                    pending = [row, 0, *self._geometry(entry)]
                for space in plan.writes:
                    loads[space] = pending
            elif written and written[0].__class__ is not tuple and len(written) == 3 and not (
                    written[1].__class__ is slice and (written[1].start | written[1].stop) & 31):
                entry = job.footprint_writes.get("ub")  # a store of every lane, whole blocks
                rows.append([k, slot, 1, self.epoch, ordinal, [(entry[1], entry[2])] if entry is not None and
                             entry[0] is None else _entry_runs(entry), job, mine, None])
            else:  # a masked store, or one of some bytes of a block: the bytes it wrote
                runs, masks = self._written(job, written)
                rows.append([k, slot, 1, self.epoch, ordinal, runs, job, mine, masks])
        elif self.jobs is None:
            _flow(self.ancestry, plan, None, 0)

    def _ancestry_of(self, k: int) -> dict | None:
        """The ancestry of job ``k``'s register sources (a short launch's: worked out once, when a
        write first meets an earlier read)."""
        if self.later_ancestry is None:
            ancestry: dict = {}
            ordinals = [0] * len(self.pc_of)
            found = self.later_ancestry = {}
            for index, job in enumerate(self.jobs):
                plan = self.plans[job.pc]
                if plan.ub:
                    slot = self.slot_of[job.pc]
                    ordinal = ordinals[slot]
                    ordinals[slot] = ordinal + 1
                    mine = _flow(ancestry, plan, slot if plan.ub == 1 else None, ordinal)
                    if plan.ub == 2:
                        found[index] = mine
                else:
                    _flow(ancestry, plan, None, 0)
        return self.later_ancestry.get(k)

    def membar(self) -> None:
        self.epoch += 1
        self.state.next_epoch = self.epoch + 1

    def _used(self, pc: int, p) -> int:
        """The register bytes (bits) an instruction reads of a vector source: those of its mask's
        active lanes for a masked family, else all."""
        masked = self.masked.get(pc)
        if masked is None:
            return ALL_BYTES
        pm, width = masked
        key = (p[pm].tobytes(), width)
        used = self.used_of.get(key)
        if used is None:
            used = self.used_of[key] = lane_bytes(p[pm], width)
        return used

    def close_load(self, load: list) -> None:
        """The load's register is written again, or all its lanes are used, or the function ends: its
        row's bytes are those of the lanes used: a VL's in order, a load with a distribution mode or
        by datablock those its mode or its blocks map them to, a gather's (or any other's) all of its
        own bytes once a lane is used."""
        row, used, lo, contiguous = load
        if contiguous:
            row[5], row[8] = of_register(lo, used)
            return
        job = row[6]
        if not used:
            row[5] = []
            return
        if job.lanes is not None:  # a gather: its active lanes' elements
            size = self.fn.insts[job.pc].type.size
            row[5], row[8] = of_addresses((job.lanes[0][:, None] + np.arange(size)).reshape(-1))
            return
        if job.pc not in self.read_maps:
            self.read_maps[job.pc] = read_map(self.fn.insts[job.pc])
        idx = self.read_maps[job.pc]
        at = job.exact["ub"] if job.exact is not None else None  # (address, _, bytes, 1)
        if at is not None:  # a load with a distribution mode, a PLD
            row[5], row[8] = of_range(at[0], at[0] + at[2]) if idx is None else read_bytes(idx, used, at[0])
        elif idx is not None:  # a load by datablock
            row[5], row[8] = of_datablocks(lo, idx, used)
        else:
            row[5] = _entry_runs(job.footprint_reads.get("ub"))

    def _close_whole(self, row: list) -> None:
        """A load still live ``_LIVE_LIMIT`` instructions on: checked now, with every lane."""
        for space, load in list(self.loads.items()):
            if load[0] is row:
                del self.loads[space]
        self.close_load([row, ALL_BYTES, *self._geometry(row[6].footprint_reads.get("ub"))])

    @staticmethod
    def _geometry(entry) -> tuple:
        """A load's first block and whether it is one contiguous VL (its used lanes map to blocks)."""
        if entry is None:
            return 0, False
        return entry[1], entry[0] is None and entry[2] - entry[1] == 8

    def _written(self, job, written) -> tuple:
        """A store's runs and byte masks (``access_bytes``): the bytes its write covers, under its
        ``where`` if it has one; a scatter's, its active lanes' elements."""
        writes = as_writes(written)
        if len(writes) == 1:
            array, index = writes[0][0], writes[0][1]
            if array is self.ub:
                if index.__class__ is slice:
                    return of_range(index.start, index.stop, writes[0][3] if len(writes[0]) == 4 else None)
                return of_addresses(np.asarray(index))  # a block-strided store: its active lanes' bytes
            if job.lanes is not None:  # a scatter, through a typed view of UB
                return of_addresses((job.lanes[0][:, None] + np.arange(array.itemsize)).reshape(-1))
        return _entry_runs(job.footprint_writes.get("ub")), None

    # -- checking, once the rows' times are known -----------------------------------------------------
    def flush(self, final: bool = False) -> None:
        """Check the rows whose blocks are known (the leading ones: a load waits for its lanes' use)."""
        rows = self.rows
        ready = 0
        while ready < len(rows):
            if rows[ready][5] is None:
                if self.k - rows[ready][0] <= _LIVE_LIMIT:
                    break
                self._close_whole(rows[ready])  # held too long: count it whole
            ready += 1
        if ready:
            batch = rows[:ready]
            del rows[:ready]
            self._check(batch, final)
            self.batches += 1

    def finish(self) -> list:
        """The launch has ended: every load's lanes are known; check the rest and return its races,
        ``(kind, first pc, its job's index, second pc, its job's index, first byte, end byte, times
        found)`` per pair of instructions, the first pair of accesses found naming it (``report``)."""
        for load in self.loads.values():
            self.close_load(load)  # (a load held by two registers closes twice, the same way)
        self.loads.clear()
        self.flush(final=True)
        return [(kind, first_pc, first, second_pc, second, lo, hi, count)
                for (kind, first_pc, second_pc), (first, second, lo, hi, count) in self.found.items()]

    def _check(self, batch: list, final: bool) -> None:
        rows = [r for r in batch if r[5]]
        if not rows:
            return
        if not self.batches and final and not _meet([run for r in rows for run in r[5]]):
            return  # the launch's only batch, no two of its accesses meet (a stream: the common case)
        # one entry per (row, run), then per (row, block)
        parts = [(i, lo, hi) for i, r in enumerate(rows) for lo, hi in r[5]]
        run_row = np.array([x[0] for x in parts], dtype=np.int64)
        run_lo = np.array([x[1] for x in parts], dtype=np.int64)
        length = np.array([x[2] for x in parts], dtype=np.int64) - run_lo
        row_of = np.repeat(run_row, length)
        block = np.arange(row_of.size) - np.repeat(np.cumsum(length) - length, length) + np.repeat(run_lo, length)
        write = np.array([r[2] for r in rows], dtype=bool)[row_of]
        epoch = np.array([r[3] for r in rows], dtype=np.int64)[row_of]
        mask = None  # each entry's bytes, where some access touches only some bytes of a block
        if any(r[8] is not None for r in rows):
            mask = np.concatenate([r[8] if r[8] is not None else
                                   np.full(sum(hi - lo for lo, hi in r[5]), FULL, dtype=np.uint32) for r in rows])
        # a conflict with what came before the batch, or within it: an earlier access of the block in
        # the same epoch that shares a byte, one of the two a write
        hit = self.state.meets(row_of, block, write, epoch, mask)
        if hit.any():
            slow = np.isin(block, np.unique(block[hit]))
            self._check_slowly(rows, row_of[slow], block[slow], None if mask is None else mask[slow])
            keep = ~slow
            row_of, block, write, epoch = row_of[keep], block[keep], write[keep], epoch[keep]
            mask = None if mask is None else mask[keep]
        if row_of.size:
            columns = np.array([(r[1], r[4], r[0]) for r in rows], dtype=np.int64)[row_of]  # slot, ordinal, index
            self.note(columns[:, 0], columns[:, 1], columns[:, 2], block, write, epoch, mask=mask)

    def note(self, slot, ordinal, index, block, write, epoch, once: bool = False, mask=None) -> None:
        """Record accesses that meet nothing (``BlockState.note``)."""
        self.state.note(slot, ordinal, index, block, write, epoch, once, mask)

    def _check_slowly(self, rows: list, row_of, block, mask) -> None:
        """The blocks where accesses meet, access by access in program order: a pair is a race
        where their bytes meet (``mask``: each access's bytes of its block, None: all)."""
        state = self.state
        width = state.any_write.size
        flat_epoch, flat_bytes = state.epoch.reshape(-1), state.bytes.reshape(-1)
        first_planes = [state.first[i].reshape(-1) for i in range(2)]
        latest_planes = [state.latest[i].reshape(-1) for i in range(2)]
        slots = len(self.pc_of)
        writers = self.fn.slot_writes
        pairs: dict = {}  # (kind, (first slot, its job's index), second row) -> [first byte, end byte]
        order = np.lexsort((row_of, block))
        masks = [FULL] * order.size if mask is None else mask[order].tolist()
        for i, b, m in zip(row_of[order].tolist(), block[order].tolist(), masks, strict=True):
            k, slot, write, epoch, ordinal, _, _, ancestry, _ = rows[i]
            if write and self.jobs is not None:
                ancestry = self._ancestry_of(k)
            for q in range(slots):
                cell = q * width + b
                if flat_epoch[cell] != epoch or not (write or writers[q]):
                    continue
                met = int(flat_bytes[cell]) & m
                if not met:
                    continue
                if writers[q]:  # the latest write of slot q: RAW or WAW
                    kind = "WAW" if write else "RAW"
                    at = (q, int(latest_planes[1][cell]))
                else:  # reads of slot q: WAR unless this write's data depends on them all
                    lo, hi = int(first_planes[0][cell]), int(latest_planes[0][cell])
                    span = ancestry.get(q) if ancestry else None
                    if span is not None and span[0] <= lo and hi <= span[1]:
                        continue
                    planes = first_planes if span is None or lo < span[0] else latest_planes
                    kind = "WAR"
                    at = (q, int(planes[1][cell]))
                first, end = b * BLOCK_BYTES + (met & -met).bit_length() - 1, b * BLOCK_BYTES + met.bit_length()
                found = pairs.get((kind, at, i))
                if found is None:
                    pairs[kind, at, i] = [first, end]
                else:
                    found[0], found[1] = min(found[0], first), max(found[1], end)
            epochs, touched = (state.any_write, state.write_bytes) if write else (state.any_read, state.read_bytes)
            touched[b] = m if epochs[b] != epoch else int(touched[b]) | m
            epochs[b] = epoch
            cell = slot * width + b
            if flat_epoch[cell] != epoch:
                flat_epoch[cell], flat_bytes[cell] = epoch, m
                first_planes[0][cell], first_planes[1][cell] = ordinal, k
            else:
                flat_bytes[cell] = int(flat_bytes[cell]) | m
            latest_planes[0][cell], latest_planes[1][cell] = ordinal, k
        for (kind, (q, first), i), (lo, hi) in sorted(pairs.items(), key=lambda x: (x[0][2], x[0][1])):
            key = (kind, self.pc_of[q], rows[i][6].pc)
            known = self.found.get(key)
            if known is None:
                self.found[key] = [first, rows[i][0], lo, hi, 1]
            else:
                known[4] += 1


def byte_span(*footprints: dict) -> tuple[int, int]:
    entries = [fp["ub"] for fp in footprints if "ub" in fp]
    if not entries:
        return 0, 0
    return min(e[1] for e in entries) * BLOCK_BYTES, max(e[2] for e in entries) * BLOCK_BYTES
