"""UB as a vector function's accesses see it, cycle by cycle: the banks and bank groups each access
takes in each of its beats, and whether a cycle still has room for a beat.

An access (VLD, VST, PLD, PST) touches 32-byte rows. It is served in beats: each beat takes a set of
its rows that the banks can serve in one cycle, first fit in row order, and the beats of one access
go to consecutive cycles. The rules are the profile's bank kind (docs/timing.md, "UB bank
conflicts"), per cycle, for all the accesses of the cycle together:

- a bank serves one access (a read of the same row twice in one access is one read);
- ``950``: a bank group (address bits [7:5]) serves two accesses, at most ``ub_reads`` reads and one
  write: two reads, or a read and a write (8 groups of 2 banks, bank bit = bit 8);
- ``a2``: a bank group (bits [8:5]) reads one row and writes one (16 groups of 3 banks, tier = bits
  [17:16]).

Reads and writes share a cycle's banks and ports alike (a write does not wait in a buffer while reads
take its group's ports). A contiguous VL (256 bytes, 32-byte aligned) touches each of the 950's 8
groups once: one beat, and two of them in a cycle fill every group. So two loads, or a load and a
store, share a cycle unless they hit a bank twice, and two loads and a store never do. A
datablock-mode access (``blk=``) on the 950 takes one block a group a beat (its 8 blocks in one group:
8 beats), and an access of more than one beat holds every group's ports for each of them: nothing
else reaches UB while it is served block by block.

A beat is four numbers for its rows: one bit per bank, a 4-bit count of accesses per group (packed),
a 4-bit count of reads per group, one bit per group written; a cycle's use is the same for its reads
and for its writes, so a fit is a few integer operations.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

_ROW = 5  # 32-byte rows


class Beat(NamedTuple):
    banks: int  # one bit per bank
    accesses: int  # per group, 4 bits: the accesses it makes there
    reads: int  # per group, 4 bits: the reads among them
    writes: int  # one bit per group it writes


class Ports(NamedTuple):
    """One bank kind's constants."""

    kind: str
    groups: int
    period_rows: int  # rows after which the banks repeat
    accesses: int  # accesses a group serves a cycle
    reads: int  # reads among them
    high: int  # the top bit of every group's 4-bit count
    access_bias: int  # per group 7 - accesses: a count past ``accesses`` sets the top bit
    read_bias: int  # per group 7 - reads


def ports_of(kind: str, ub_reads: int) -> Ports:
    """The ports of bank kind ``kind`` (``banks.kind``), its groups serving ``ub_reads`` reads a cycle
    on the 950 (``register.ub_reads``)."""
    groups, period, accesses, reads = (8, 16, max(2, ub_reads), ub_reads) if kind == "950" else (16, 1 << 13, 2, 1)
    nibbles = sum(1 << (4 * g) for g in range(groups))
    return Ports(kind, groups, period, accesses, reads, 8 * nibbles, (7 - accesses) * nibbles, (7 - reads) * nibbles)


@cache
def whole_ub(ports: Ports, write: bool) -> Beat:
    """A gather's or scatter's beat: it takes every group's ports (the hardware: a gather or
    scatter conflicts with the contiguous accesses of its cycles)."""
    every = sum(1 << (4 * g) for g in range(ports.groups))
    return Beat(0, ports.accesses * every, 0 if write else ports.reads * every,
                (1 << ports.groups) - 1 if write else 0)


def sub_bank_cycles(ports: Ports, lanes, per_cycle: int) -> int:
    """Cycles a gather's or scatter's lanes take in the sub-banks. ``lanes`` is ``(addresses, positions)``:
    its active lanes' UB byte addresses and their lane numbers; the unit serves ``per_cycle`` lanes a
    cycle in lane order (its documented rate), so lane ``i`` asks in cycle ``i // per_cycle``. A bank's
    rows are four sub-banks of 8 bytes, and the sub-banks of one number in the two banks of a group
    serve one 8-byte word a cycle between them; lanes of one cycle in the same word merge. A cycle's
    lanes take as many cycles as the word count they ask most often of one (group, sub-bank) pair, at
    least one (documented: the 950's bank_conflict sample, its sub-bank rules; the a2 documents none, and
    has no gathers: 0)."""
    addresses, positions = lanes
    if ports.kind != "950" or not len(addresses):
        return 0
    words = np.asarray(addresses, dtype=np.int64) >> 3  # 8-byte words
    cycle = np.asarray(positions, dtype=np.int64) // per_cycle
    asked = np.unique(cycle << 40 | words)  # each word once a cycle
    words, cycle = asked & ((1 << 40) - 1), asked >> 40
    pairs = ((words >> 2) & 7) * 4 + (words & 3)  # (group: address bits [7:5], sub-bank: bits [4:3])
    most = np.bincount(cycle * 32 + pairs, minlength=32 * (int(cycle[-1]) + 1)).reshape(-1, 32).max(axis=1)
    return int(np.maximum(most, 1).sum())


def _bank_group(ports: Ports, row: int) -> tuple[int, int]:
    row %= ports.period_rows
    if ports.kind == "950":
        bank = row & 15  # group = bits [7:5] of the address, bank in group = bit 8
        return bank, bank & 7
    group = row & 15
    return ((row >> (16 - _ROW)) & 3) * 16 + group, group


@cache
def beats(ports: Ports, rows: tuple, write: bool, blocks: bool = False) -> tuple:
    """The beats of one access to ``rows`` (``rows_key``), first fit; ``blocks``: a datablock-mode
    access (``blk=``), on the 950 one block a bank group a beat, and when that takes more than one
    beat, every group's ports for each."""
    if blocks and ports.kind == "950":
        per_group: dict = {}
        for row in (rows if write else dict.fromkeys(rows)):  # (a read of one row twice is one read)
            per_group[row & 7] = per_group.get(row & 7, 0) + 1
        count = max(per_group.values(), default=0)
        if count > 1:
            return (whole_ub(ports, write),) * count
    out: list = []
    seen: set = set()
    for row in rows:
        if not write and row in seen:
            continue
        seen.add(row)
        bank, group = _bank_group(ports, row)
        bit, one = 1 << bank, 1 << (4 * group)
        beat = Beat(bit, one, 0 if write else one, (1 << group) if write else 0)
        for k, have in enumerate(out):
            used = (0, 0, 0, 0, *have[:2], have.writes) if write else (0, *have[:3], 0, 0, 0)
            if fits(ports, used, beat, write) is None:
                out[k] = Beat(have.banks | bit, have.accesses + beat.accesses, have.reads + beat.reads,
                              have.writes | beat.writes)
                break
        else:
            out.append(beat)
    return tuple(out)


def fits(ports: Ports, used: list, beat: Beat, write: bool) -> str | None:
    """None when ``beat`` fits a cycle that already serves ``used`` (``[anything, its reads' banks,
    accesses and reads, its writes' banks, accesses and groups]``, as ``take`` adds them up), else
    why not: ``bank_group`` (a bank asked twice) or ``ub_port`` (a group's ports taken). Reads and
    writes share them (a group serves two reads, or a read and a write)."""
    if (used[1] | used[4]) & beat.banks:
        return "bank_group"
    if (used[2] + used[5] + beat.accesses + ports.access_bias) & ports.high:
        return "ub_port"
    if write:
        return "ub_port" if used[6] & beat.writes else None
    return "ub_port" if (used[3] + beat.reads + ports.read_bias) & ports.high else None


def take(usage: dict, used: list, cycle: int, beats: tuple, write: bool) -> None:
    """Add an access's ``beats`` to the use of the cycles from ``cycle`` on (``usage``: cycle -> its
    use, as ``fits`` reads it, its first entry the caller's; ``used``: ``cycle``'s, already there)."""
    for j, beat in enumerate(beats):
        if j:
            used = usage.get(cycle + j)
            if used is None:
                used = usage[cycle + j] = [0, 0, 0, 0, 0, 0, 0]
        if write:
            used[4] |= beat.banks
            used[5] += beat.accesses
            used[6] |= beat.writes
        else:
            used[1] |= beat.banks
            used[2] += beat.accesses
            used[3] += beat.reads


def turns(ports: Ports) -> bool:
    """Whether moving every access on by the same rows moves its banks and groups alike, so that a cycle's
    use moves with them (``turned``): on the 950 a row's bank is its number modulo 16 and its group modulo
    8, and nothing else tells rows apart; on the a2 a row's tier (bits [17:16]) does not move with its group."""
    return ports.kind == "950"


def turned(ports: Ports, used, rows: int) -> tuple:
    """A cycle's use (``take``'s, as ``fits`` reads it) as it is with every access ``rows`` rows further
    on, on banks that ``turns``: each bank bit moves to the bank ``rows`` on, each group's count and bit to
    the group ``rows`` on."""
    banks, groups = ports.period_rows, ports.groups
    b, g = rows % banks, rows % groups
    if not b:
        return tuple(used)
    all_banks, all_groups, all_nibbles = (1 << banks) - 1, (1 << groups) - 1, (1 << 4 * groups) - 1
    vwrites, read_banks, read_accesses, reads, write_banks, write_accesses, written = used
    return (vwrites, (read_banks << b | read_banks >> banks - b) & all_banks,
            (read_accesses << 4 * g | read_accesses >> 4 * (groups - g)) & all_nibbles,
            (reads << 4 * g | reads >> 4 * (groups - g)) & all_nibbles,
            (write_banks << b | write_banks >> banks - b) & all_banks,
            (write_accesses << 4 * g | write_accesses >> 4 * (groups - g)) & all_nibbles,
            (written << g | written >> groups - g) & all_groups)


def rows_key(ports: Ports, entry) -> tuple:
    """A footprint entry's rows (``(runs, first, end)`` of UB blocks, see ``emulator.jobs.footprint``)
    as the row numbers the banks see."""
    runs, lo, hi = entry
    period = ports.period_rows
    if runs is None:
        base = lo % period
        return tuple(range(base, base + hi - lo))
    base = lo - lo % period  # (rows keep their identity: two reads merge only at one address)
    return tuple(r - base for a, b in runs.tolist() for r in range(a, b))
