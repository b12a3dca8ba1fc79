"""Sort for top-k (CONTRACT 13.6): VSORT32 sorts each iteration's 32 (score, index) records, VMRGSORT
merges 2, 3 or 4 queues of records and counts what it took from each in MRGCNT0..3.

A record is 8 bytes: the score (f32: bytes 0..3; f16: bytes 0..1, bytes 2..3 reserved) and a u32 index
in bytes 4..7. Scores are ranked by an integer key (``rank``): +0 equals -0, a NaN is above +inf and
NaNs are equal, so a stable sort keeps input order on ties. The merge takes, at each step, the first
remaining record of highest score, the lowest queue on ties: for a queue that is not sorted that is the
order of each record's running minimum along its queue (a record cannot leave before one ahead of it),
so one stable sort of the running minima over all queues is the whole merge.
"""

from __future__ import annotations

import numpy as np

from vcore.emulator.faults import Fault
from vcore.emulator.jobs import Job, span
from vcore.emulator.semantics.registry import UNBANKED, implements
from vcore.emulator.state import SPR_PLACES
from vcore.isa import Inst
from vcore.isa.compaction import entries_of, entry_register, repeat_rule, sort_alignments
from vcore.isa.values import dtype_of

_MRGCNT = SPR_PLACES["MRGCNT0"][0]
_NAN_RANK = np.int64(0x7FF8000000000000)  # above +inf's (0x7FF0000000000000)


def rank(scores: np.ndarray) -> np.ndarray:
    """An int64 per score that orders as the sort does: +0 = -0, NaN above +inf."""
    x = scores.astype(np.float64) + 0.0  # (-0 + 0 is +0)
    bits = x.view(np.int64)
    key = np.where(bits >= 0, bits, bits ^ np.int64(0x7FFFFFFFFFFFFFFF))
    return np.where(np.isnan(x), _NAN_RANK, key)


def _address(m, ref, name: str, mnemonic: str, align: int) -> int:
    addr = ref.offset if ref.reg is None else m.s[ref.reg] + ref.offset
    if addr % align:
        raise Fault(f"{mnemonic} {name} address 0x{addr:x} is not aligned to {align} bytes")
    return addr


@implements("sort", bank_rule=UNBANKED, refines=True,
            forms=("tensor-sort32", "tensor-merge2", "tensor-merge3", "tensor-merge4"))
def bind_sort(inst: Inst, pc: int):
    if inst.row.op == "sort32":
        return _bind_sort32(inst, pc)
    return _bind_mrgsort(inst, pc)


def _bind_sort32(inst: Inst, pc: int):
    """Iteration r: 32 scores at score + r * 32 * w, 32 u32 indices at index + r * 128, 32 records at
    dst + r * 256, by descending score (ties in input order); the f16 reserved bytes are 0."""
    repeat, etype = inst.kw("repeat"), inst.type
    w = etype.size
    aligns = sort_alignments(inst)
    names = [o.name for o in inst.row.operands]
    score_dtype = dtype_of(etype)
    next_pc = pc + inst.size

    def run(m):
        if repeat == 0:
            m.submit(Job(pc, None))
            return next_pc
        dst, score, index = (_address(m, ref, name, "VSORT32", aligns[name])
                             for ref, name in zip(inst.operands, names, strict=True))
        m.check_ub(score, score + repeat * 32 * w, "score")
        m.check_ub(index, index + repeat * 128, "index")
        m.check_ub(dst, dst + repeat * 256, "destination")

        def perform():
            scores = m.ub[score:score + repeat * 32 * w].view(score_dtype).reshape(repeat, 32)
            order = np.argsort(-rank(scores), axis=1, kind="stable")
            indices = m.ub[index:index + repeat * 128].view("<u4").reshape(repeat, 32)
            out = np.zeros((repeat, 32, 2), dtype="<u4")
            out[..., 0] = np.take_along_axis(scores.view(f"<u{w}"), order, axis=1)
            out[..., 1] = np.take_along_axis(indices, order, axis=1)
            return ((m.ub, slice(dst, dst + repeat * 256), out.view(np.uint8).reshape(-1)),)

        m.submit(Job(pc, perform, [span("ub", score, score + repeat * 32 * w), span("ub", index, index + repeat * 128)],
                     [span("ub", dst, dst + repeat * 256)], iterations=repeat))
        return next_pc

    return run


def _lengths(m, spec, value: int) -> list[int]:
    """VMRGSORT's queue lengths: constants, or scalar registers read at dispatch (checked)."""
    out = []
    for k, entry in enumerate(entries_of(spec, value)):
        reg = entry_register(spec, entry)
        if reg is None:
            out.append(entry)
            continue
        length = m.s[reg]
        if not 0 <= length <= spec.entry_max:
            raise Fault(f"VMRGSORT: the length of queue {k} (S{reg} = {length}) is out of range 0..{spec.entry_max}")
        out.append(length)
    return out


def merge(keys: np.ndarray, lengths: list[int], stop: bool) -> tuple[np.ndarray, int]:
    """The merge of one iteration: the order of its records (concatenated queue by queue, their ranks
    ``keys``) and how many are written."""
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    running = keys.copy()
    for start, n in zip(starts, lengths, strict=True):  # one accumulate per queue (4 at most)
        if n:
            running[start:start + n] = np.minimum.accumulate(keys[start:start + n])
    order = np.argsort(-running, kind="stable")
    total = len(order)
    if not stop:
        return order, total
    if min(lengths) == 0:  # an empty queue is empty from the start: nothing is written
        return order, 0
    position = np.empty(total, dtype=np.int64)
    position[order] = np.arange(total)
    last = [int(position[start + n - 1]) for start, n in zip(starts, lengths, strict=True)]
    return order, min(last) + 1


def _bind_mrgsort(inst: Inst, pc: int):
    """Merge the queues (records sorted by descending score) into dst; MRGCNTk = records taken from
    queue k. ``repeat=N`` (4 contiguous queues of one length L): iteration r at q0 + r * 4 * L * 8."""
    etype = inst.type
    w = etype.size
    queue_refs = inst.operands[1:]
    spec = inst.row.keyword("len")
    repeat, stop = inst.kw("repeat"), bool(inst.kw("stop"))
    score_dtype = dtype_of(etype)
    next_pc = pc + inst.size

    def run(m):
        lengths = _lengths(m, spec, inst.kw("len"))
        if repeat == 0:
            m.submit(Job(pc, None))
            return next_pc
        dst = _address(m, inst.operands[0], "dst", "VMRGSORT", 32)
        queues = [_address(m, ref, f"q{k}", "VMRGSORT", 8) for k, ref in enumerate(queue_refs)]
        if repeat > 1 and any(q != queues[0] + k * lengths[0] * 8 or n != lengths[0]
                              for k, (q, n) in enumerate(zip(queues, lengths, strict=True))):
            raise Fault(repeat_rule(repeat))
        per = sum(lengths)
        total = repeat * per
        for k, (q, n) in enumerate(zip(queues, lengths, strict=True)):
            end = q + (repeat * per * 8 if repeat > 1 else n * 8)
            m.check_ub(q, end, f"q{k}")
            if n and q < dst + total * 8 and dst < end:
                raise Fault(f"VMRGSORT: dst overlaps q{k}")
        m.check_ub(dst, dst + total * 8, "destination")
        reads = [span("ub", q, q + (total * 8 if repeat > 1 else n * 8)) for q, n in zip(queues, lengths, strict=True)]
        queue_of = np.repeat(np.arange(len(lengths)), lengths)

        def taken() -> tuple:
            """The records in written order (repeat rows) and how many of each iteration are written."""
            if repeat > 1:  # contiguous queues: iteration r is records r * per .. (r + 1) * per - 1 from q0
                records = m.ub[queues[0]:queues[0] + total * 8].view("<u8").reshape(repeat, per)
            else:
                records = np.concatenate([m.ub[q:q + n * 8].view("<u8") for q, n in zip(queues, lengths, strict=True)
                                          ]).reshape(1, per)
            scores = records.view(np.uint8).reshape(repeat, per, 8)[:, :, :w].copy().view(score_dtype)[..., 0]
            keys = rank(scores)
            if repeat > 1:  # stop=0 and 4 queues of one length: every iteration's order at once
                running = np.minimum.accumulate(keys.reshape(repeat, 4, -1), axis=2).reshape(repeat, per)
                order = np.argsort(-running, axis=1, kind="stable")
                return np.take_along_axis(records, order, axis=1), per, order
            order, n = merge(keys[0], lengths, stop)
            return records[:, order], n, order[None, :]

        def perform():
            out, n, order = taken()
            job.iterations = repeat * n
            counts = np.zeros(4, dtype="<u2")
            if repeat > 1 or not stop:
                counts[:len(lengths)] = lengths
            else:
                counts[:len(lengths)] = np.bincount(queue_of[order[0, :n]], minlength=len(lengths))
            return ((m.ub, slice(dst, dst + repeat * n * 8), out[:, :n].reshape(-1).view(np.uint8)),
                    (m.spr, slice(_MRGCNT, _MRGCNT + 8), counts.view(np.uint8)))

        def refine():
            _, n, _ = taken()
            return reads, [span("ub", dst, dst + repeat * n * 8), span("spr", _MRGCNT, _MRGCNT + 8)]

        job = Job(pc, perform, reads, [span("ub", dst, dst + total * 8), span("spr", _MRGCNT, _MRGCNT + 8)],
                  iterations=total, refine=refine if stop else None)
        job.priced_at_start = stop  # what it writes, and so its cycles, follow from the scores
        job.exact = {"spr": (_MRGCNT, 8, 8, 1)}  # races on MRGCNT0..3 are named on their 8 bytes
        m.submit(job)
        return next_pc

    return run
