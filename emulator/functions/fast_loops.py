"""Hardware loops in closed form (docs/timing.md, "How vcore gets there quickly"): which of a vector
function's loops qualify (``shape_of``), and the item a launch holds in place of one's passes
(``FastLoop``, made by ``enter`` when the expansion reaches the loop). Its schedule is
``emulator.functions.steady``'s (pass by pass until it repeats, then extrapolated), its data
``emulator.functions.fast_data``'s (each instruction one numpy operation over every pass).

A loop qualifies when it holds register instructions alone, each of a family with a kernel over
passes, and nothing carries from one pass to the next but what is affine in the pass: every
register it reads is written earlier in the same pass or nowhere in the loop; the S registers it
changes are ``post=`` steps and PUPDATE counts (each count read by its PUPDATE alone); a scalar
data operand's S register it does not change. At the loop, with its count known, it runs in
closed form when it has at least ``FAST_MIN_PASSES`` passes, they fit the run's instruction
budget, every pass's address is in UB and aligned and no S register wraps; else pass by pass (which
faults where the program does). Its UB accesses are checked by the launch: a loop whose passes
touch a block another access writes has its data moved pass by pass (``Function.perform``).
"""

from __future__ import annotations

from typing import NamedTuple

from vcore.emulator.faults import Fault
from vcore.emulator.functions.context import FunctionContext
from vcore.emulator.functions.fast_data import kernel_of
from vcore.emulator.jobs import REGISTER_SPACES, Job, footprint
from vcore.isa.model import Kind
from vcore.isa.types import BLOCK_BYTES, VL_BYTES

FAST_MIN_PASSES = 16  # fewer passes run one by one: a closed form would not pay for itself
_S_MIN, _S_MAX = -(1 << 63), (1 << 63) - 1
_new_job = object.__new__


class LoopShape(NamedTuple):
    """A qualifying loop: what holds at every launch."""

    body: tuple  # the body indices of its instructions (after LOOP, before ENDLOOP)
    end: int  # its ENDLOOP's body index
    stepped: tuple  # the S registers post= steps
    counters: tuple  # (S register, lanes) of each PUPDATE
    kernels: tuple  # per instruction, its kernel over passes (``fast_data.kernel_of``)


class FastLoop:
    """A loop's passes in a launch's items: ``passes`` of ``shape``'s body from S as ``s`` was at the
    loop; ``jobs`` are pass 0's (their footprints), and ``bases``/``steps`` each job's UB operand's
    byte address in pass 0 and its step a pass (0 for a job without one)."""

    __slots__ = ("bases", "jobs", "passes", "s", "s1", "shape", "steps")

    def __init__(self, shape: LoopShape, passes: int, s: list, s1: list, jobs: list, bases: list,
                 steps: list) -> None:
        self.shape, self.passes, self.s, self.s1 = shape, passes, s, s1  # (s1: S after pass 0)
        self.jobs, self.bases, self.steps = jobs, bases, steps

    def s_at(self, t: int) -> list:
        """S as pass ``t`` starts."""
        s, s0 = list(self.s), self.s
        for r in self.shape.stepped:
            s[r] = s0[r] + t * (self.s1[r] - s0[r])
        for r, lanes in self.shape.counters:
            if r and t:
                s[r] = max(s0[r] - t * lanes, 0)
        return s

    @property
    def instructions(self) -> int:
        """The instructions its passes run (each pass's ENDLOOP too)."""
        return self.passes * (len(self.shape.body) + 1)

    def pass_jobs(self, t: int) -> list:
        """Pass ``t``'s jobs, as the scheduler needs them: their pcs and footprints."""
        if not t:
            return self.jobs
        out = []
        for job, step in zip(self.jobs, self.steps, strict=True):
            if step:
                moved = _new_job(Job)
                shift = t * step // BLOCK_BYTES
                moved.pc = job.pc
                if job.footprint_writes.get("ub") is not None:
                    _, lo, hi = job.footprint_writes["ub"]
                    moved.footprint_reads = job.footprint_reads
                    moved.footprint_writes = {**job.footprint_writes, "ub": (None, lo + shift, hi + shift)}
                else:
                    _, lo, hi = job.footprint_reads["ub"]
                    moved.footprint_reads = {**job.footprint_reads, "ub": (None, lo + shift, hi + shift)}
                    moved.footprint_writes = job.footprint_writes
                out.append(moved)
            else:
                out.append(job)
        return out


def shape_of(fn, i: int) -> LoopShape | None:
    """The shape of the loop whose LOOP is at body index ``i``, or None when it does not qualify."""
    end = fn.match[i]
    body = tuple(range(i + 1, end))
    kernels, stepped, counters, data = [], set(), {}, set()
    addresses: list = []
    for j in body:
        if fn.kinds[j] is not None:  # a loop, MEMBAR or the scalar lane inside
            return None
        inst = fn.insts[fn.pcs[j]]
        kernel = kernel_of(inst)
        if kernel is None:
            return None
        kernels.append(kernel)
        for value, operand in zip(inst.operands, inst.row.operands, strict=True):
            if operand.kind is Kind.UB and value.reg is not None:
                addresses.append(value.reg)
                if inst.kw("post"):
                    if not value.reg:  # (a step of S0 does nothing: left to the slow path)
                        return None
                    stepped.add(value.reg)
            elif operand.kind is Kind.SCALAR and value.reg is not None:
                data.add(value.reg)
            elif operand.kind is Kind.SREG:  # PUPDATE's count
                if value in counters:
                    return None
                counters[value] = VL_BYTES // inst.type.size
    counted = set(counters) - {0}
    if counted & (stepped | data | set(addresses)) or stepped & data:
        return None
    return LoopShape(body, end, tuple(sorted(stepped)), tuple(sorted(counters.items())), tuple(kernels))


def _carries(jobs: list) -> bool:
    """Whether a pass reads a register an earlier pass wrote (read before its write in the body)."""
    written_all = {space for job in jobs for space in job.footprint_writes if space in REGISTER_SPACES}
    written: set = set()
    for job in jobs:
        for space in job.footprint_reads:
            if space in written_all and space not in written:
                return True
        written.update(job.footprint_writes)
    return False


class _Probe(FunctionContext):
    """The function's context for running a loop's body once to see its jobs: S of its own, the
    launch's registers (no job is performed)."""

    def __init__(self, ctx, s: list) -> None:  # not FunctionContext.__init__: nothing to zero
        self.machine, self.s, self.items = ctx.machine, s, []
        self.v, self.p, self.v_as, self.v_rows = ctx.v, ctx.p, ctx.v_as, ctx.v_rows
        self.ub, self.views, self.lane_masks, self.gm = ctx.ub, ctx.views, ctx.lane_masks, ctx.gm


def enter(fn, ctx, i: int, passes: int, room: int) -> FastLoop | None:
    """The loop at body index ``i``, about to run ``passes`` times from ``ctx.s`` with ``room``
    instructions left before the run's limit: a ``FastLoop`` with S set as its passes leave it,
    or None (it runs pass by pass)."""
    if passes < FAST_MIN_PASSES:
        return None
    shapes = fn.fast_shapes  # body index -> its shape, or None; and a loop whose passes carry: None
    if i not in shapes:
        shapes[i] = shape_of(fn, i)
    shape = shapes[i]
    if shape is None or passes * (len(shape.body) + 1) > room:
        return None
    s0 = list(ctx.s)
    probe = _Probe(ctx, list(s0))
    runs = fn.runs
    try:
        for j in shape.body:
            runs[j](probe)
        first, probe.items = probe.items, []
        s1 = list(probe.s)
        for j in shape.body:
            runs[j](probe)
    except Fault:
        return None  # pass 0 or 1 faults: the slow path faults at its instruction
    second, probe.items = probe.items, None
    for job in (*first, *second):
        job.perform = None  # (only their footprints are wanted: nothing refers back to the probe)
        if job.footprint_writes is None:  # (binders set both footprints or neither)
            job.footprint_reads, job.footprint_writes = footprint(job.reads), footprint(job.writes)
    if _carries(first):  # (decided by pcs alone: once)
        shapes[i] = None
        return None
    bases, steps = [], []
    last, ub_blocks = passes - 1, ctx.ub.size // BLOCK_BYTES
    for job, again in zip(first, second, strict=True):
        entry = job.footprint_writes.get("ub") or job.footprint_reads.get("ub")
        if entry is None:
            bases.append(0)
            steps.append(0)
            continue
        moved = again.footprint_writes.get("ub") or again.footprint_reads.get("ub")
        if entry[0] is not None or moved[0] is not None:
            return None
        blocks = moved[1] - entry[1]
        if min(entry[1], entry[1] + last * blocks) < 0 or max(entry[2], entry[2] + last * blocks) > ub_blocks:
            return None  # some pass leaves UB: the slow path faults there
        step = blocks * BLOCK_BYTES
        bases.append(entry[1] * BLOCK_BYTES)
        steps.append(step)
    s = ctx.s
    for r in shape.stepped:
        moved = s0[r] + passes * (s1[r] - s0[r])
        if not _S_MIN <= moved <= _S_MAX:
            return None
        s[r] = moved
    for r, lanes in shape.counters:
        if r:
            s[r] = max(s0[r] - passes * lanes, 0)
    return FastLoop(shape, passes, s0, s1, first, bases, steps)
