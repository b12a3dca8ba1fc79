"""A vector function's UB order: which of its accesses nothing orders (``inner_races``: no MEMBAR
between them, no chain of register dependencies), and the data such a race gives (``perform_timed``:
the jobs at their scheduled times, registers renamed). Also the union of its accesses' blocks.
"""

from __future__ import annotations

import heapq
import itertools

import numpy as np

from emulator.jobs import as_writes, hold, land, merge_runs
from isa.types import BLOCK_BYTES


def land_noting_masks(written, ub: np.ndarray, k: int, masked: dict) -> None:
    """Land job ``k``'s writes; for a masked store to UB (one write with a ``where``), note in
    ``masked`` the blocks it wrote lanes of: only those count as touched in ``inner_races``."""
    if written and written[0].__class__ is not tuple and len(written) == 4:
        array, index, values, where = written
        np.copyto(array[index], values, where=where)
        if array is ub and index.__class__ is slice:
            masked[k] = index.start // BLOCK_BYTES + np.flatnonzero(where.reshape(-1, BLOCK_BYTES).any(axis=1))
        return
    land(written)


def perform_timed(ctx, jobs: list, plans: dict) -> None:
    """Run a launch's jobs in the order of their starts: each reads the registers program order
    gives it (the versions of its sources' producers: registers are renamed) and UB as it is at its
    start; its UB writes land at its end, its register results at once (in their own version)."""
    rows = {**{f"V{i}": (ctx.v, i) for i in range(32)}, **{f"P{i}": (ctx.p, i) for i in range(8)}}
    version: dict = {}  # (job index, register space) -> the register's bytes after that job
    latest: dict = {}  # register space -> the job index of its latest writer so far in program order
    sees = []  # per job: for each register it reads, the writer whose version it reads
    for k, job in enumerate(jobs):
        plan = plans[job.pc]  # (a register write is always of the whole register: no other source)
        sees.append([(space, latest.get(space)) for space in plan.reads])
        for space in plan.writes:
            latest[space] = k
    pending: list = []  # (end, program index, held UB writes)
    for k in sorted(range(len(jobs)), key=lambda k: (jobs[k].start, k)):
        job = jobs[k]
        while pending and pending[0][0] <= job.start:  # at one cycle, writes land before reads happen
            land(heapq.heappop(pending)[2])
        for space, writer in sees[k]:
            array, row = rows[space]
            array[row] = version[writer, space] if writer is not None else 0
        to_ub = []
        for write in as_writes(job.perform()):
            if write[0] is ctx.ub:
                to_ub.append(write)
            else:
                land((write,))
        for space in plans[job.pc].writes:
            array, row = rows[space]
            version[k, space] = array[row].copy()
        if to_ub:
            heapq.heappush(pending, (job.end, k, hold(to_ub)))
    while pending:
        land(heapq.heappop(pending)[2])


def add_runs(into: tuple, entry, k: int) -> None:
    """Add the UB blocks of one footprint entry (job ``k``'s) to ``(firsts, ends, job indices)``."""
    if entry is None:  # a scatter refined to no lanes
        return
    firsts, ends, owners = into
    blocks, lo, hi = entry
    if blocks is None:
        firsts.append(lo)
        ends.append(hi)
        owners.append(k)
    else:
        firsts.extend(blocks[:, 0].tolist())
        ends.extend(blocks[:, 1].tolist())
        owners.extend([k] * len(blocks))


def runs_of(jobs: list) -> tuple:
    """The UB blocks each job reads and writes, as ``Schedule.runs`` holds them."""
    runs: tuple = ([], [], []), ([], [], [])
    for k, job in enumerate(jobs):
        add_runs(runs[0], job.footprint_reads.get("ub"), k)
        add_runs(runs[1], job.footprint_writes.get("ub"), k)
    return runs


def as_footprint(firsts: list, ends: list) -> dict:
    """The footprint of runs of UB blocks, merged: a few runs in Python, many in numpy."""
    if not firsts:
        return {}
    if len(firsts) > 256:
        runs = merge_runs(np.stack((np.array(firsts, dtype=np.int64), np.array(ends, dtype=np.int64)), axis=1))
        first, end = int(runs[0, 0]), int(runs[-1, 1])
        return {"ub": (None, first, end) if len(runs) == 1 else (runs, first, end)}
    pairs = zip(firsts, ends, strict=True)
    if any(b < a for a, b in itertools.pairwise(firsts)):  # not in address order (two streams, say)
        pairs = sorted(pairs)
    merged: list = []
    for lo, hi in pairs:
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    if len(merged) == 1:
        return {"ub": (None, merged[0][0], merged[0][1])}
    return {"ub": (np.array(merged, dtype=np.int64), merged[0][0], merged[-1][1])}


def byte_span(*footprints: dict) -> tuple[int, int]:
    entries = [fp["ub"] for fp in footprints if "ub" in fp]
    if not entries:
        return 0, 0
    return min(e[1] for e in entries) * BLOCK_BYTES, max(e[2] for e in entries) * BLOCK_BYTES


def inner_races(jobs: list, membars: list, runs: tuple, plans: dict, masked: dict | None = None) -> list:
    """The pairs of a function's UB accesses to the same blocks, one a write, that neither a MEMBAR
    between them nor a chain of register dependencies orders: ``(kind, earlier job, later job, first
    byte, end byte)``, once per pair of jobs. One sort over every accessed block. ``masked``: per
    masked store, the blocks it wrote lanes of, which replace its whole VL."""
    (read_lo, read_hi, readers), (write_lo, write_hi, writers) = runs
    if not writers or len(readers) + len(writers) < 2:
        return []
    lo = np.array(read_lo + write_lo, dtype=np.int64)
    hi = np.array(read_hi + write_hi, dtype=np.int64)
    order = np.argsort(lo, kind="stable")
    if not (np.maximum.accumulate(hi[order])[:-1] > lo[order][1:]).any():
        return []  # no two accesses meet at all (a stream: the common case), so none can race
    if masked:  # a masked store touches only the blocks of its active lanes
        keep = [i for i, k in enumerate(writers) if k not in masked]
        write_lo = [write_lo[i] for i in keep]
        write_hi = [write_hi[i] for i in keep]
        writers = [writers[i] for i in keep]
        for k, blocks in masked.items():
            write_lo.extend(blocks.tolist())
            write_hi.extend((blocks + 1).tolist())
            writers.extend([k] * len(blocks))
        if not writers:
            return []
        lo = np.array(read_lo + write_lo, dtype=np.int64)
        hi = np.array(read_hi + write_hi, dtype=np.int64)
    owners = np.array(readers + writers, dtype=np.int64)
    writing = np.zeros(lo.size, dtype=np.int64)
    writing[len(readers):] = 1
    length = hi - lo
    access = np.repeat(np.arange(lo.size), length)  # one row per accessed block
    block = np.arange(access.size) - np.repeat(np.cumsum(length) - length, length) + lo[access]
    owner = owners[access]
    write = writing[access]
    epoch = np.searchsorted(np.array(membars, dtype=np.int64), owner, side="right") if membars else 0
    key = epoch * (int(hi.max()) + 1) + block
    order = np.lexsort((owner, key))
    key, owner, write, block = key[order], owner[order], write[order], block[order]
    starts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    sizes = np.diff(np.append(starts, key.size))
    writes_in = np.add.reduceat(write, starts)
    # how many accesses of a block are by a job other than the one before them in the block
    distinct = np.add.reduceat(np.concatenate(([1], (owner[1:] != owner[:-1]) | (key[1:] != key[:-1])))
                               .astype(np.int64), starts)
    suspects = np.flatnonzero((sizes >= 2) & (writes_in > 0) & (distinct >= 2))
    if not suspects.size:
        return []
    found: dict = {}
    for g in suspects.tolist():
        a, b = int(starts[g]), int(starts[g] + sizes[g])
        group = list(zip(owner[a:b].tolist(), write[a:b].tolist(), strict=True))
        at = int(block[a])
        for x in range(len(group)):
            first, first_writes = group[x]
            for y in range(x + 1, len(group)):
                second, second_writes = group[y]
                if first == second or not (first_writes or second_writes):
                    continue
                kind = "WAW" if first_writes and second_writes else "RAW" if first_writes else "WAR"
                pair = (kind, first, second)
                span = found.get(pair)
                found[pair] = (at, at + 1) if span is None else (min(span[0], at), max(span[1], at + 1))
    producers = _producers(jobs, plans)
    races = []
    for (kind, first, second), (lo_block, hi_block) in found.items():
        if not _depends(second, first, producers):
            races.append((kind, jobs[first], jobs[second], lo_block * BLOCK_BYTES, hi_block * BLOCK_BYTES))
    return races


def _producers(jobs: list, plans: dict) -> list:
    """Per job, the jobs whose register results it reads (its sources' latest writers)."""
    writer_of: dict = {}
    producers = []
    for k, job in enumerate(jobs):
        plan = plans[job.pc]
        producers.append([writer_of[space] for space in plan.reads if space in writer_of])
        for space in plan.writes:
            writer_of[space] = k
    return producers


def _depends(later: int, earlier: int, producers: list) -> bool:
    """Whether job ``later`` reads, through a chain of register results, a result of job ``earlier``."""
    todo, seen = [later], set()
    while todo:
        k = todo.pop()
        for p in producers[k]:
            if p == earlier:
                return True
            if p > earlier and p not in seen:
                seen.add(p)
                todo.append(p)
    return False
