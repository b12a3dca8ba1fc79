"""Sort for top-k (CONTRACT 13.6, 13.12): VSORT32 and VMRGSORT, the records they write and the counts
MRGCNT0..3. Expected values are the contract's rules worked out by hand (a record is the score in its
low bytes and a u32 index in bytes 4..7; descending score, input order on ties, +0 = -0, NaN above
+inf; the merge takes queue 0 first on ties).
"""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest

import vcore
from vcore import AsmError

V_TO_S = "SETFLAG V, S, 0\nWAITFLAG V, S, 0\n"
COUNTS = "MOV S1, MRGCNT0\nMOV S2, MRGCNT1\nMOV S3, MRGCNT2\nMOV S4, MRGCNT3\n"
NAN = float("nan")


def records(pairs, t="f32") -> bytes:
    """(score, index) pairs as 8-byte records (f16: the score in bytes 0..1, bytes 2..3 zero)."""
    fmt = "<fI" if t == "f32" else "<eHI"
    return b"".join(struct.pack(fmt, s, i) if t == "f32" else struct.pack(fmt, s, 0, i) for s, i in pairs)


def read_records(m, addr: int, n: int, t="f32") -> list[tuple[float, int]]:
    raw = m.read("ub", addr, "u8", 8 * n).tobytes()
    out = []
    for k in range(n):
        rec = raw[8 * k:8 * k + 8]
        score = struct.unpack("<f", rec[:4])[0] if t == "f32" else struct.unpack("<e", rec[:2])[0]
        if t == "f16":
            assert rec[2:4] == b"\0\0", "f16 reserved bytes"
        out.append((score, struct.unpack("<I", rec[4:])[0]))
    return out


def same(a, b) -> bool:
    return len(a) == len(b) and all((x == y or (math.isnan(x[0]) and math.isnan(y[0]) and x[1] == y[1])) and
                                    math.copysign(1, x[0]) == math.copysign(1, y[0]) for x, y in zip(a, b))


def run(text: str, writes=(), profile="950"):
    m = vcore.load_text(text, profile=profile)
    for addr, data in writes:
        m.write("ub", addr, np.frombuffer(data, dtype=np.uint8))
    result = m.run()
    return m, result


@pytest.mark.parametrize("t", ["f32", "f16"])
@pytest.mark.parametrize("profile", ["950", "a2"])
def test_sort32_orders_by_descending_score_with_the_contracts_ties(t, profile):
    scores = [1.0, 3.0, -0.0, NAN, 2.0, 0.0, 3.0, float("inf"), -1.0, NAN, float("-inf"), 2.0] + [0.5] * 20
    score_bytes = np.array(scores, dtype=np.float32 if t == "f32" else np.float16).tobytes()
    index_bytes = np.arange(100, 132, dtype=np.uint32).tobytes()
    m, result = run(f"VSORT32.{t} [0x1000], [0x0], [0x800]\n", [(0x0, score_bytes), (0x800, index_bytes)],
                    profile)
    assert result.fault is None
    # NaN (input order), +inf, 3 (input 1 then 6), 2 (4, 11), 1, 0.5 x 20, -0 then +0 (equal: input order),
    # -1, -inf
    order = [3, 9, 7, 1, 6, 4, 11, 0, *range(12, 32), 2, 5, 8, 10]
    want = [(scores[k], 100 + k) for k in order]
    got = read_records(m, 0x1000, 32, t)
    assert same(got, want), got


def test_sort32_iterations_are_independent():
    scores = np.concatenate([np.arange(32), -np.arange(32)]).astype(np.float32)
    m, result = run("VSORT32.f32 [0x1000], [0x0], [0x800], repeat=2\n",
                    [(0x0, scores.tobytes()), (0x800, np.arange(64, dtype=np.uint32).tobytes())])
    got = read_records(m, 0x1000, 64)
    assert got[:32] == [(float(31 - k), 31 - k) for k in range(32)]
    assert got[32:] == [(-float(k), 32 + k) for k in range(32)]  # (-0 first: then -1, -2, ...)


@pytest.mark.parametrize(("line", "message"), [
    ("VSORT32.f32 [0x1000], [0x40], [0x800]", "VSORT32 score address 0x40 is not aligned to 128 bytes"),
    ("VSORT32.f16 [0x1080], [0x0], [0x800]", "VSORT32 dst address 0x1080 is not aligned to 256 bytes"),
    ("VSORT32.f16 [0x1000], [0x0], [0x820]", "VSORT32 index address 0x820 is not aligned to 128 bytes"),
    ("VSORT32.f32 [0x1000], [0x0], [0x800], mask=3", r"unknown field mask= for VSORT32"),
])
def test_sort32_assembly_errors(line, message):
    with pytest.raises(AsmError, match=message):
        vcore.load_text(line + "\n")


def test_sort32_register_address_misaligned_is_a_fault():
    _, result = run("MOV S1, 0x40\nVSORT32.f16 [0x1000], [S1], [0x800]\n")
    assert result.fault is None  # 64 bytes align an f16 score
    _, result = run("MOV S1, 0x40\nVSORT32.f32 [0x1000], [S1], [0x800]\n")
    assert result.fault.message.startswith("VSORT32 score address 0x40 is not aligned to 128 bytes")
    _, result = run("MOV S1, 0x20\nVSORT32.f16 [0x1000], [S1], [0x800]\n")
    assert result.fault.message.startswith("VSORT32 score address 0x20 is not aligned to 64 bytes")


Q0 = [(9.0, 0), (5.0, 1), (1.0, 2)]
Q1 = [(7.0, 10), (5.0, 11)]


def test_merge_of_two_queues_ties_take_queue_0_first():
    text = f"VMRGSORT.f32 [0x1000], [0x0], [0x18], len=(3, 2)\n{V_TO_S}{COUNTS}"
    m, result = run(text, [(0x0, records(Q0)), (0x18, records(Q1))])
    assert result.fault is None and not result.races
    assert read_records(m, 0x1000, 5) == [(9.0, 0), (7.0, 10), (5.0, 1), (5.0, 11), (1.0, 2)]
    assert [result.scalars[f"S{k}"] for k in range(1, 5)] == [3, 2, 0, 0]  # stop=0: the lengths


def test_stop_ends_the_merge_after_the_record_that_empties_a_queue():
    text = f"VMRGSORT.f32 [0x1000], [0x0], [0x18], len=(3, 1), stop=1\n{V_TO_S}{COUNTS}"
    m, result = run(text, [(0x0, records(Q0)), (0x18, records([(7.0, 10)])), (0x1010, b"\xAA" * 8)])
    assert read_records(m, 0x1000, 2) == [(9.0, 0), (7.0, 10)]
    assert m.read("ub", 0x1010, "u8", 8).tolist() == [0xAA] * 8  # nothing past the stop
    assert [result.scalars[f"S{k}"] for k in range(1, 5)] == [1, 1, 0, 0]


def test_empty_queues_count_zero_and_four_queues_with_two_empty_are_the_two_queue_form():
    """13.12: a 4-queue merge with two empty queues gives the records and counts of the 2-queue form."""
    two = f"VMRGSORT.f32 [0x1000], [0x0], [0x18], len=(3, 2)\n{V_TO_S}{COUNTS}"
    four = f"VMRGSORT.f32 [0x1000], [0x0], [0x200], [0x18], [0x300], len=(3, 0, 2, 0)\n{V_TO_S}{COUNTS}"
    data = [(0x0, records(Q0)), (0x18, records(Q1))]
    m2, r2 = run(two, data)
    m4, r4 = run(four, data)
    assert read_records(m4, 0x1000, 5) == read_records(m2, 0x1000, 5)
    assert [r4.scalars[f"S{k}"] for k in range(1, 5)] == [3, 0, 2, 0]
    assert [r2.scalars[f"S{k}"] for k in range(1, 3)] == [3, 2]


def test_stop_with_an_empty_queue_writes_nothing():
    text = f"VMRGSORT.f32 [0x1000], [0x0], [0x18], [0x200], len=(3, 2, 0), stop=1\n{V_TO_S}{COUNTS}"
    m, result = run(text, [(0x0, records(Q0)), (0x18, records(Q1)), (0x1000, b"\x55" * 8)])
    assert m.read("ub", 0x1000, "u8", 8).tolist() == [0x55] * 8
    assert [result.scalars[f"S{k}"] for k in range(1, 5)] == [0, 0, 0, 0]


def test_lengths_from_registers_and_an_out_of_range_register_faults():
    text = "MOV S5, 3\nMOV S6, 2\nVMRGSORT.f32 [0x1000], [0x0], [0x18], len=(S5, S6)\n"
    m, result = run(text, [(0x0, records(Q0)), (0x18, records(Q1))])
    assert read_records(m, 0x1000, 5)[-1] == (1.0, 2)
    _, result = run("MOV S5, 4096\nVMRGSORT.f32 [0x1000], [0x0], [0x18], len=(S5, 2)\n")
    assert result.fault.message.startswith("VMRGSORT: the length of queue 0 (S5 = 4096) is out of range 0..4095")


def test_an_unsorted_queue_merges_as_the_two_pointer_merge():
    """[vcore] at each step the first remaining record of highest score: 1 blocks the 5 behind it."""
    text = "VMRGSORT.f32 [0x1000], [0x0], [0x10], len=(2, 1)\n"
    m, _ = run(text, [(0x0, records([(1.0, 0), (5.0, 1)])), (0x10, records([(3.0, 2)]))])
    assert read_records(m, 0x1000, 3) == [(3.0, 2), (1.0, 0), (5.0, 1)]


def test_f16_records_are_copied_unchanged_reserved_bytes_too():
    q0 = bytes([0x00, 0x3C, 0x12, 0x34, 1, 0, 0, 0])  # 1.0, reserved 0x3412
    q1 = bytes([0x00, 0x40, 0xAB, 0xCD, 2, 0, 0, 0])  # 2.0
    m, _ = run("VMRGSORT.f16 [0x1000], [0x0], [0x8], len=(1, 1)\n", [(0x0, q0), (0x8, q1)])
    assert m.read("ub", 0x1000, "u8", 16).tobytes() == q1 + q0


def test_repeat_merges_four_contiguous_queues_per_iteration():
    rng = np.random.default_rng(7)
    scores = -np.sort(-rng.integers(0, 6, size=(2, 4, 3)), axis=2).astype(np.float32)  # each queue sorted
    pairs = [(float(scores[r, q, j]), 100 * r + 10 * q + j) for r in range(2) for q in range(4) for j in range(3)]
    text = f"VMRGSORT.f32 [0x1000], [0x0], [0x18], [0x30], [0x48], len=(3, 3, 3, 3), repeat=2\n{V_TO_S}{COUNTS}"
    m, result = run(text, [(0x0, records(pairs))])
    for r in range(2):
        chunk = pairs[12 * r:12 * r + 12]  # queue order, then position: the stable order on ties
        want = sorted(chunk, key=lambda p: -p[0])
        assert read_records(m, 0x1000 + 96 * r, 12) == want
    assert [result.scalars[f"S{k}"] for k in range(1, 5)] == [3, 3, 3, 3]


@pytest.mark.parametrize(("line", "message"), [
    ("VMRGSORT.f32 [0x1000], [0x0], [0x18], len=(3, 2), repeat=2",
     "VMRGSORT repeat=2 needs 4 contiguous queues of equal length and stop=0"),
    ("VMRGSORT.f32 [0x1000], [0x0], [0x18], [0x30], [0x48], len=(3, 3, 3, 3), repeat=2, stop=1",
     "VMRGSORT repeat=2 needs 4 contiguous queues of equal length and stop=0"),
    ("VMRGSORT.f32 [0x1000], [0x0], [0x18], [0x30], [0x50], len=(3, 3, 3, 3), repeat=3",
     "VMRGSORT repeat=3 needs 4 contiguous queues of equal length and stop=0"),
    ("VMRGSORT.f32 [0x1000], [0x0], [0x18], len=(3, 2, 1)", "len= gives 3 lengths for 2 queues: one length per queue"),
    ("VMRGSORT.f32 [0x1000], [0x0], [0x18], len=(3, 4096)", "len: 4096 out of range 0..4095"),
    ("VMRGSORT.f32 [0x1000], [0x0], [0x18]", "field len= is required"),
    ("VMRGSORT.f32 [0x1000], [0x0], [0x1C], len=(3, 2)", "VMRGSORT q1 address 0x1c is not aligned to 8 bytes"),
    ("VMRGSORT.s32 [0x1000], [0x0], [0x18], len=(3, 2)", r"VMRGSORT does not take \.s32"),
])
def test_mrgsort_assembly_errors(line, message):
    with pytest.raises(AsmError, match=message):
        vcore.load_text(line + "\n")


def test_mrgsort_run_time_faults():
    _, result = run("MOV S1, 0x18\nMOV S2, 0x30\nMOV S3, 0x50\n"
                    "VMRGSORT.f32 [0x1000], [0x0], [S1], [S2], [S3], len=(3, 3, 3, 3), repeat=2\n")
    assert result.fault.message.startswith("VMRGSORT repeat=2 needs 4 contiguous queues of equal length and stop=0")
    _, result = run("VMRGSORT.f32 [0x0], [0x10], [0x100], len=(3, 2)\n")
    assert result.fault.message.startswith("VMRGSORT: dst overlaps q0")


def test_an_unordered_read_of_mrgcnt_is_a_race():
    _, result = run("VMRGSORT.f32 [0x1000], [0x0], [0x18], len=(3, 2)\nMOV S1, MRGCNT1\n")
    assert [(r.kind, r.space, r.start, r.end) for r in result.races] == [("RAW", "spr", 66, 68)]


def top_k_program(k: int) -> str:
    return f"""\
VSORT32.f32 [0x1000], [0x0], [0x800], repeat=4
VMRGSORT.f32 [0x2000], [0x1000], [0x1100], [0x1200], [0x1300], len=(32, 32, 32, 32), stop=1
{V_TO_S}{COUNTS}ADD S5, S1, S2
ADD S5, S5, S3
ADD S5, S5, S4
"""


def test_top_k_by_sort32_and_a_stopped_merge():
    """128 scores: VSORT32 makes 4 sorted queues of 32, VMRGSORT stop=1 merges until a queue empties;
    the records written (the sum of MRGCNT0..3, at least 32) are the top ones, in order."""
    rng = np.random.default_rng(31)
    scores = rng.integers(-1000, 1000, 128).astype(np.float32)
    m, result = run(top_k_program(16), [(0x0, scores.tobytes()), (0x800, np.arange(128, dtype=np.uint32).tobytes())])
    assert result.fault is None and not result.races
    n = result.scalars["S5"]
    assert 32 <= n <= 128
    # by hand: a stable sort of (score, index) by descending score; ties: the lower group (queue), then input order
    want = sorted(((float(s), i) for i, s in enumerate(scores)), key=lambda p: -p[0])[:n]
    assert read_records(m, 0x2000, n) == want
    counts = [result.scalars[f"S{k}"] for k in range(1, 5)]
    assert counts == [sum(1 for _, i in want if i // 32 == q) for q in range(4)]
    assert 32 in counts  # the queue that emptied


def test_merge_ranks_nan_above_inf_and_equal_zeros_by_queue():
    """[vcore] as in VSORT32: a NaN before +inf; -0 and +0 equal, so queue 0 first."""
    q0 = records([(float("inf"), 0), (-0.0, 1)])
    q1 = records([(NAN, 2), (0.0, 3)])
    m, _ = run("VMRGSORT.f32 [0x1000], [0x0], [0x10], len=(2, 2)\n", [(0x0, q0), (0x10, q1)])
    got = read_records(m, 0x1000, 4)
    assert same(got, [(NAN, 2), (float("inf"), 0), (-0.0, 1), (0.0, 3)]), got
