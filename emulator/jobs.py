"""Work handed to a pipe: what it reads and writes and how to perform it.

The scalar unit decodes an instruction, resolves its addresses from the scalar registers at
dispatch, and submits a ``Job``. One protocol for every job: ``perform()`` reads its sources and
returns its writes, and changes nothing itself. A write is ``(array, index, values)``, meaning
``array[index] = values``, or ``(array, index, values, where)``, meaning ``np.copyto(array[index],
values, where=where)``; ``values`` may be a view of the state. ``perform`` returns a tuple of
writes, or one write on its own (the register instructions' usual case, which saves a tuple).
The engine alone decides when the writes land (``land``): at once in a program-order run; in a
timed one, at the job's end, with their values taken at its start (``hold``, in
``emulator.timing.data_movement``).

Footprints are lists of ``(space, runs)``: ``runs`` is either one half-open range of 32-byte
blocks as a tuple ``(lo, hi)`` (registers and contiguous operands, compared without numpy), or an
(n, 2) int64 array of sorted, disjoint ranges. A contiguous operand is one run, whatever its size,
so comparing footprints costs the same for ``repeat=1`` and ``repeat=255``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vcore.isa.types import BLOCK_BYTES

EMPTY_RUNS = np.zeros((0, 2), dtype=np.int64)
PIPES = ("S", "V", "MTE2", "MTE3")  # the pipes a job runs on
QUEUED = ("V", "MTE2", "MTE3")  # those that queue what the scalar unit hands them


def runs_of(ids: np.ndarray) -> np.ndarray:
    """Sorted disjoint runs covering a set of block ids (any order, repeats allowed)."""
    ids = np.unique(np.asarray(ids, dtype=np.int64))
    if ids.size == 0:
        return EMPTY_RUNS
    breaks = np.flatnonzero(np.diff(ids) != 1)
    starts = np.concatenate(([ids[0]], ids[breaks + 1]))
    ends = np.concatenate((ids[breaks] + 1, [ids[-1] + 1]))
    return np.stack((starts, ends), axis=1)


def merge_runs(runs: np.ndarray) -> np.ndarray:
    """Sort and merge overlapping or touching runs."""
    if len(runs) <= 1:
        return runs
    runs = runs[np.argsort(runs[:, 0], kind="stable")]
    reach = np.maximum.accumulate(runs[:, 1])
    new = np.concatenate(([True], runs[1:, 0] > reach[:-1]))
    starts = runs[new, 0]
    ends = np.maximum.reduceat(runs[:, 1], np.flatnonzero(new))
    return np.stack((starts, ends), axis=1)


def span(space: str, lo: int, hi: int):
    """The blocks covering bytes [lo, hi) of a space."""
    if hi <= lo:
        return space, EMPTY_RUNS
    return space, (lo // BLOCK_BYTES, (hi - 1) // BLOCK_BYTES + 1)


def blocks(space: str, byte_addresses: np.ndarray) -> tuple[str, np.ndarray]:
    """The blocks holding the given byte addresses."""
    return space, runs_of(np.asarray(byte_addresses, dtype=np.int64) // BLOCK_BYTES)


# Each register is its own space of 8 blocks, so register footprints never need merging.
V_SPACES = tuple(f"V{i}" for i in range(32))
P_SPACES = tuple(f"P{i}" for i in range(8))
REGISTER_SPACES = frozenset(V_SPACES + P_SPACES)
_WHOLE = (0, 8)
NOTHING: dict = {}  # the footprint of a job that touches nothing (never mutated)


def vreg(index: int):
    """A vector register: its own space ``Vn`` of 8 blocks (256 bytes)."""
    return V_SPACES[index], _WHOLE


def preg(index: int):
    """A mask register: 256 entries, its own space ``Pn`` of 8 blocks of 32."""
    return P_SPACES[index], _WHOLE


def _as_array(runs) -> np.ndarray:
    return np.array([runs], dtype=np.int64) if isinstance(runs, tuple) else runs


def footprint(entries) -> dict:
    """A list of ``(space, runs)`` as ``space -> (runs, first block, end block)``, merged per space.
    ``runs`` is None for a single run, so most comparisons are between plain ints. Binders build
    the static footprints of an instruction once; the engine treats them as read-only."""
    out: dict = {}
    arrays: dict = {}
    for space, entry in entries:
        if entry.__class__ is tuple:
            lo, hi = entry
            if hi <= lo:
                continue
            previous = out.get(space)
            if previous is None:
                out[space] = (None, lo, hi)
                continue
            if previous[0] is None and lo <= previous[2] and previous[1] <= hi:
                out[space] = (None, min(lo, previous[1]), max(hi, previous[2]))
                continue
            runs = _as_array(entry)
        elif not len(entry):
            continue
        else:
            runs = entry
        previous = out.get(space)
        if previous is None:
            arrays[space] = runs
        else:
            before = arrays.get(space)
            if before is None:
                before = np.array([[previous[1], previous[2]]], dtype=np.int64)
            if before.shape == runs.shape and np.array_equal(before, runs):
                continue
            runs = arrays[space] = merge_runs(np.concatenate((before, runs)))
        out[space] = (None, int(runs[0, 0]), int(runs[0, 1])) if len(runs) == 1 else \
            (runs, int(runs[0, 0]), int(runs[-1, 1]))
    return out


Writes = tuple | list  # of (array, index, values) or (array, index, values, where)


def as_writes(written) -> Writes:
    """What a perform returned, as a sequence of writes (one write on its own becomes a tuple of one)."""
    return written if not written or written[0].__class__ is tuple else (written,)


def land(writes: Writes) -> None:
    """Put a job's writes into the state."""
    for write in as_writes(writes):
        if len(write) == 3:
            array, index, values = write
            array[index] = values
        else:
            array, index, values, where = write
            np.copyto(array[index], values, where=where)


def hold(writes: Writes) -> tuple:
    """The writes with their values and masks copied now: what a timed job lands at its end,
    whatever the state does in between (a value may be a view of it)."""
    return tuple((w[0], w[1], *(np.array(x) for x in w[2:])) for w in as_writes(writes))


class Job:
    """One dynamic instruction on a pipe. The engine fills in the times and the sequence number.

    A plain class on purpose: it is made once per instruction run, so its defaults live on the
    class and ``FunctionContext.submit_register`` sets only the four fields a register instruction has."""

    pc: int
    perform: Callable[[], Writes] | None = None  # None for synchronisation jobs and repeat=0
    reads: list | tuple = ()  # [(space, runs)]
    writes: list | tuple = ()
    kind: str = "data"  # data, set, wait, barrier
    iterations: int = 0
    conflicts: Callable | None = None  # conflicts(cost_model) -> bank-conflict cycles of a tensor instruction
    # A tensor instruction's price as the vector function it is (a profile with vector functions: the
    # 950): function(cost_model) -> (cycles, bank-conflict cycles) (``emulator.functions.tensor_vf``)
    function: Callable | None = None
    nbytes: int = 0  # DMA bytes moved
    bursts: tuple | None = None  # a DMA's GM side: (address, pitch, bytes, count), ``count`` bursts
    flag: tuple | None = None  # (src pipe, dst pipe, event) of SETFLAG / WAITFLAG
    refine: Callable[[], tuple[list, list]] | None = None  # precise footprint, evaluated at the start
    seq: int = 0
    pipe: str = ""
    dispatch: int = 0
    start: int = 0
    end: int = 0
    footprint_reads: dict | None = None  # footprint(reads), by the binder when static, else the engine
    footprint_writes: dict | None = None
    cost = None  # a vector function's Cost, worked out at its launch (emulator.functions.launch)
    # Byte-exact accesses where blocks are not: space -> (base, pitch, length, count), ``count``
    # runs of ``length`` bytes every ``pitch`` (LD / ST, a DMA's GM side). Races are named on bytes.
    exact: dict | None = None
    # A job whose writes are byte-exact where its reads are not (VTRANS5HD's 8-bit half blocks): its
    # written bytes, as ``exact`` names them; its reads keep ``exact`` (None: their blocks).
    exact_writes: dict | None = None
    placed: Callable[[Job], None] | None = None  # called once the engine has fixed the job's times
    # A timed run performs it at its start before placing it: its perform sets its ``cost`` (a vector
    # function's gathers and scatters cost what their indices, data, ask of UB's sub-banks).
    priced_at_start: bool = False
    started: bool = False  # performed already (priced at its start): no start event
    lanes = None  # a gather's or scatter's active lanes' UB byte addresses and lane numbers, once performed
    s_clock: tuple | None = None  # the scalar unit's vector clock when it handed the job over (order.happens_before)
    flag_clock: tuple | None = None  # a WAITFLAG's: the clock of the SETFLAG it consumed

    def __init__(self, pc: int, perform: Callable | None, reads: list | tuple = (), writes: list | tuple = (), *,
                 kind: str = "data", iterations: int = 0, conflicts: Callable | None = None,
                 nbytes: int = 0, flag: tuple | None = None, refine: Callable | None = None,
                 footprint_reads: dict | None = None, footprint_writes: dict | None = None) -> None:
        self.pc, self.perform, self.reads, self.writes, self.kind = pc, perform, reads, writes, kind
        self.iterations, self.conflicts, self.nbytes = iterations, conflicts, nbytes
        self.flag, self.refine = flag, refine
        self.footprint_reads, self.footprint_writes = footprint_reads, footprint_writes

    def __repr__(self) -> str:
        return f"Job(pc=0x{self.pc:x}, kind={self.kind}, seq={self.seq}, {self.start}..{self.end})"
