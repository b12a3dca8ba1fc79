"""UB bank-conflict model: the extra cycles the datablocks of one iteration cost.

The bank rules are those of the CANN Ascend C programming guide ("avoiding UB bank conflicts") and
its best-practice samples bank_conflict_ub (a2) and bank_conflict_3510 (950); docs/timing.md, "UB
bank conflicts", states them for users.

An iteration reads 8 datablocks of 32 B from each source and writes 8 to the destination. The
hardware serves them in ``beats`` beats; beat k takes blocks ``[k*8/beats, (k+1)*8/beats)`` of every
operand (sources and destination alike). A beat needs one cycle when its blocks hit the banks
without conflict, and more when they do; :func:`conflict_cycles` returns, per iteration, the sum over
its beats of (beat cycles - 1).

``a2`` (16 bank groups x 3 banks): group = address bits [8:5], tier = bits [17:16], bank = tier * 16 +
group. Per cycle a group reads one 32-byte row and writes one, and a bank serves one access, so

    beat cycles = max(max distinct reads per group, max writes per group, max accesses per bank, 1).

A block read twice in one beat (a block stride of 0) is read once. When an iteration's destination
lines up bank for bank with one of its sources (block k of both in the same bank, for every k), the
hardware delays the write by one iteration: those writes meet the next iteration's reads instead
(the sample bank_conflict_ub, scenarios 4 and 6: no conflict), and the last one meets none.

``950`` (8 bank groups x 2 banks, low-order interleaved): group = bits [7:5], bank bit = bit 8,
bank = group * 2 + bank bit. Reads of the same address merge (distinct read addresses are counted);
writes are counted one by one. A bank serves one read or one write per cycle; a group serves two
reads, or one read and one write, per cycle:

    bank cycles  = distinct reads + writes to the bank
    group cycles = max(w, ceil((r + w) / 2))        (r distinct reads, w writes to the group)
    beat cycles  = max(all bank cycles, all group cycles, 1).

Addresses are taken at 32-byte row granularity (``addr >> 5``): UB operands are 32-byte aligned, and
"the same address" of two reads means the same 32-byte row.

Everything is computed at once over a flattened (iteration, beat) axis with ``np.bincount``, so the
cost is a few numpy calls whatever the number of iterations.
"""

from __future__ import annotations

import attrs
import numpy as np

_BLOCKS = 8          # datablocks per operand per iteration
_ROW_SHIFT = 5       # 32-byte rows
_KINDS = ("a2", "950")

_A2_GROUPS = 16
_A2_BANKS = 64       # tier (2 bits) * 16 + group; only tiers 0..2 exist in a 192 KB UB
_950_GROUPS = 8
_950_BANKS = 16


def _check_beats(_instance, _attribute, value) -> None:
    if not isinstance(value, int) or value < 1 or _BLOCKS % value:
        raise ValueError(f"beats must divide {_BLOCKS} (1, 2, 4 or 8), got {value!r}")


@attrs.frozen
class BankRules:
    kind: str = attrs.field(validator=attrs.validators.in_(_KINDS))  # "a2" or "950"
    beats: int = attrs.field(validator=_check_beats)  # a2: 2, 950: 1

    @property
    def blocks_per_beat(self) -> int:
        return _BLOCKS // self.beats

    @property
    def period(self) -> int:
        """Conflicts depend on byte addresses modulo this: the 950 interleaves its banks on address
        bits [8:5], and the a2's bank-group tier is bits [17:16]."""
        return 512 if self.kind == "950" else 1 << 18


# ----------------------------------------------------------------------------------------------
# shaping


def _as_operands(a, name: str) -> np.ndarray:
    arr = np.asarray(a, dtype=np.int64)
    if arr.ndim != 3 or arr.shape[2] != _BLOCKS:
        raise ValueError(f"{name} must have shape (iterations, operands, {_BLOCKS}), got {arr.shape}")
    return arr


def _by_beat(arr: np.ndarray, beats: int) -> np.ndarray:
    """(I, n, 8) addresses -> (I * beats, n * 8 / beats) rows of the blocks each beat touches.

    Within a beat row, the blocks of operand 0 come first, then operand 1, ... (block order kept).
    """
    it, n, _ = arr.shape
    per = _BLOCKS // beats
    return arr.reshape(it, n, beats, per).transpose(0, 2, 1, 3).reshape(it * beats, n * per)


def _counts(keys: np.ndarray, width: int, rows: int) -> np.ndarray:
    """(rows, k) keys in [0, width) -> (rows, width) occurrence counts, one bincount for all rows."""
    if keys.size == 0:
        return np.zeros((rows, width), dtype=np.int64)
    flat = (np.arange(rows, dtype=np.int64)[:, None] * width + keys).ravel()
    return np.bincount(flat, minlength=rows * width).reshape(rows, width)


def _distinct_mask(rows_addr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sort each row; return (sorted rows, mask of the first occurrence of each value in its row)."""
    s = np.sort(rows_addr, axis=1)
    first = np.ones(s.shape, dtype=bool)
    if s.shape[1] > 1:
        first[:, 1:] = s[:, 1:] != s[:, :-1]
    return s, first


# ----------------------------------------------------------------------------------------------
# per-profile beat cycles over the flattened (iteration, beat) axis


def _a2_bank(addr: np.ndarray) -> np.ndarray:
    return ((addr >> 16) & 3) * 16 + ((addr >> _ROW_SHIFT) & 15)


def _masked_counts(keys: np.ndarray, keep: np.ndarray, width: int, rows: int) -> np.ndarray:
    """Like ``_counts``, counting only the entries where ``keep``."""
    if keys.size == 0:
        return np.zeros((rows, width), dtype=np.int64)
    flat = (np.arange(rows, dtype=np.int64)[:, None] * width + keys)[keep]
    return np.bincount(flat, minlength=rows * width).reshape(rows, width)


def _a2_delayed_writes(reads: np.ndarray, writes: np.ndarray) -> np.ndarray:
    """(I, n_dst, 8) writes as the banks see them: a destination that lines up bank for bank with a
    source is written one iteration late (its row moves to the next iteration; -1 marks no write)."""
    if writes.shape[1] == 0 or reads.shape[1] == 0:
        return writes
    w_bank = _a2_bank(writes)                                   # (I, d, 8)
    r_bank = _a2_bank(reads)                                    # (I, n, 8)
    aligned = (w_bank[:, :, None, :] == r_bank[:, None, :, :]).all(axis=3).any(axis=2)   # (I, d)
    late = np.where(aligned[:, :, None], writes, -1)
    now = np.where(aligned[:, :, None], -1, writes)
    shifted = np.full_like(late, -1)
    shifted[1:] = late[:-1]
    return np.concatenate([now, shifted], axis=1)


def _a2_beats(r: np.ndarray, w: np.ndarray, rows: int) -> np.ndarray:
    s, first = _distinct_mask(r >> _ROW_SHIFT)                  # a block read twice is read once
    r_group = s & 15
    r_bank = ((s >> (16 - _ROW_SHIFT)) & 3) * 16 + r_group
    live = w >= 0
    w_row = np.where(live, w, 0) >> _ROW_SHIFT
    w_group = w_row & 15
    w_bank = ((w_row >> (16 - _ROW_SHIFT)) & 3) * 16 + w_group
    reads_per_group = _masked_counts(r_group, first, _A2_GROUPS, rows).max(axis=1)
    writes_per_group = _masked_counts(w_group, live, _A2_GROUPS, rows).max(axis=1)
    per_bank = (_masked_counts(r_bank, first, _A2_BANKS, rows) + _masked_counts(w_bank, live, _A2_BANKS, rows))
    return np.maximum(np.maximum(np.maximum(reads_per_group, writes_per_group), per_bank.max(axis=1)), 1)


def _950_bank(row_addr: np.ndarray) -> np.ndarray:
    return (row_addr & 7) * 2 + ((row_addr >> 3) & 1)


def _950_beats(r: np.ndarray, w: np.ndarray, rows: int) -> np.ndarray:
    s, first = _distinct_mask(r >> _ROW_SHIFT)
    r_bank_key = _950_bank(s)
    # distinct reads per bank: count only the first occurrence of each address of the beat
    if r_bank_key.size:
        flat = (np.arange(rows, dtype=np.int64)[:, None] * _950_BANKS + r_bank_key)[first]
        r_bank = np.bincount(flat, minlength=rows * _950_BANKS).reshape(rows, _950_BANKS)
    else:
        r_bank = np.zeros((rows, _950_BANKS), dtype=np.int64)
    w_bank = _counts(_950_bank(w >> _ROW_SHIFT), _950_BANKS, rows)
    bank_cycles = (r_bank + w_bank).max(axis=1)
    rg = r_bank.reshape(rows, _950_GROUPS, 2).sum(axis=2)
    wg = w_bank.reshape(rows, _950_GROUPS, 2).sum(axis=2)
    group_cycles = np.maximum(wg, (rg + wg + 1) // 2).max(axis=1)
    return np.maximum(np.maximum(bank_cycles, group_cycles), 1)


def _beat_cycles(rules: BankRules, reads, writes) -> np.ndarray:
    """(iterations, beats) cycles each beat needs (>= 1)."""
    reads = _as_operands(reads, "reads")
    writes = _as_operands(writes, "writes")
    if reads.shape[0] != writes.shape[0]:
        raise ValueError(f"reads and writes disagree on iterations: {reads.shape[0]} vs {writes.shape[0]}")
    it = reads.shape[0]
    rows = it * rules.beats
    if rules.kind == "a2":
        writes = _a2_delayed_writes(reads, writes)
    r = _by_beat(reads, rules.beats)
    w = _by_beat(writes, rules.beats)
    out = _a2_beats(r, w, rows) if rules.kind == "a2" else _950_beats(r, w, rows)
    return out.reshape(it, rules.beats)


# ----------------------------------------------------------------------------------------------
# public API


def conflict_cycles(rules: BankRules, reads: np.ndarray, writes: np.ndarray) -> np.ndarray:
    """Extra cycles per iteration caused by UB bank conflicts.

    reads:  int64 array (iterations, n_sources, 8): byte address of each source datablock of each iteration
    writes: int64 array (iterations, n_dst, 8) (n_dst is 0 or 1): byte addresses of destination datablocks
    returns int64 array (iterations,): sum over the iteration's beats of (beat cycles - 1)
    """
    return (_beat_cycles(rules, reads, writes) - 1).sum(axis=1).astype(np.int64)


def _one(a, name: str) -> np.ndarray:
    arr = np.asarray(a, dtype=np.int64)
    if arr.ndim == 2:
        arr = arr[None]
    if arr.ndim != 3 or arr.shape[0] != 1:
        raise ValueError(f"{name} must have shape (operands, {_BLOCKS}) or (1, operands, {_BLOCKS}), got {arr.shape}")
    return _as_operands(arr, name)


def explain(rules: BankRules, reads_one_iteration, writes_one_iteration) -> list[str]:
    """Human-readable lines naming which blocks conflict in which beat and why (for reports/docs).

    Takes one iteration: reads (n_sources, 8) and writes (n_dst, 8), or the same with a leading axis
    of length 1. The first line is a summary; then one line per beat, each followed by indented lines
    for the bank groups / banks that make it longer than one cycle.
    """
    reads = _one(reads_one_iteration, "reads")
    writes = _one(writes_one_iteration, "writes")
    cycles = _beat_cycles(rules, reads, writes)[0]
    per = rules.blocks_per_beat
    n_src = reads.shape[1]
    extra = int((cycles - 1).sum())
    lines = [f"{rules.kind} banks, {rules.beats} beat(s) of {per} block(s) per operand: +{extra} cycle(s)"]

    for beat in range(rules.beats):
        blocks = range(beat * per, (beat + 1) * per)
        # (label, block, address) of every access in the beat
        rd = [(f"src{s}", b, int(reads[0, s, b])) for s in range(n_src) for b in blocks]
        wr = [("dst" if writes.shape[1] == 1 else f"dst{d}", b, int(writes[0, d, b]))
              for d in range(writes.shape[1]) for b in blocks]
        c = int(cycles[beat])
        head = f"beat {beat} (blocks {blocks.start}-{blocks.stop - 1}): {c} cycle(s)"
        if c == 1:
            lines.append(head + ", no conflict")
            continue
        lines.append(head + f" (+{c - 1})")
        lines.extend(_explain_a2(rd, wr) if rules.kind == "a2" else _explain_950(rd, wr))
    return lines


def _fmt(acc: list[tuple[str, int, int]]) -> str:
    return ", ".join(f"{op} blk {b} @0x{a:x}" for op, b, a in acc)


def _explain_a2(rd, wr) -> list[str]:
    out = []

    def group(a: int) -> int:
        return (a >> 5) & 15

    def bank(a: int) -> int:
        return ((a >> 16) & 3) * 16 + group(a)

    seen: dict[int, list] = {}
    for x in rd:
        seen.setdefault(x[2] >> 5, []).append(x)
    for row, same in seen.items():
        if len(same) > 1:
            out.append(f"  merged: {_fmt(same)} read the same block 0x{row << 5:x} (read once)")
    distinct = [v[0] for v in seen.values()]
    for g in range(_A2_GROUPS):
        gr = [x for x in distinct if group(x[2]) == g]
        gw = [x for x in wr if group(x[2]) == g]
        if len(gr) > 1:
            out.append(f"  bank group {g}: {len(gr)} reads ({_fmt(gr)}) - one read row per group per cycle")
        if len(gw) > 1:
            out.append(f"  bank group {g}: {len(gw)} writes ({_fmt(gw)}) - one write row per group per cycle")
    for bk in range(_A2_BANKS):
        br = [x for x in distinct if bank(x[2]) == bk]
        bw = [x for x in wr if bank(x[2]) == bk]
        if len(br) + len(bw) > 1:
            out.append(f"  bank {bk} (group {bk % 16}, tier {bk // 16}): {len(br)} read(s) ({_fmt(br)}) and "
                       f"{len(bw)} write(s) ({_fmt(bw)}) - one access per bank per cycle")
    return out


def _explain_950(rd, wr) -> list[str]:
    out = []

    def bank(a: int) -> int:
        return int(_950_bank(np.int64(a >> 5)))

    # merged reads
    seen: dict[int, list] = {}
    for x in rd:
        seen.setdefault(x[2] >> 5, []).append(x)
    distinct = [v[0] for v in seen.values()]
    for row, same in seen.items():
        if len(same) > 1:
            out.append(f"  merged: {_fmt(same)} read the same address 0x{row << 5:x} (counted once)")
    for bk in range(_950_BANKS):
        br = [x for x in distinct if bank(x[2]) == bk]
        bw = [x for x in wr if bank(x[2]) == bk]
        if len(br) + len(bw) > 1:
            parts = [f"{len(br)} distinct read(s) ({_fmt(br)})" if br else "",
                     f"{len(bw)} write(s) ({_fmt(bw)})" if bw else ""]
            what = " + ".join(p for p in parts if p)
            out.append(f"  bank {bk} (group {bk // 2}, bank bit {bk % 2}): {what} - one access per bank per cycle"
                       f" -> {len(br) + len(bw)} cycles")
    for g in range(_950_GROUPS):
        r = sum(1 for x in distinct if bank(x[2]) // 2 == g)
        w = sum(1 for x in wr if bank(x[2]) // 2 == g)
        need = max(w, (r + w + 1) // 2)
        if need > 1:
            out.append(f"  bank group {g}: {r} distinct read(s), {w} write(s) - at most 2 reads or 1 read + 1 write "
                       f"per cycle -> {need} cycles")
    return out
