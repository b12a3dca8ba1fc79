"""CONTRACT section 7: vector functions (VF.BEGIN ... VF.END) and hardware loops (LOOP ... ENDLOOP).

Every expected value here is worked out from the contract: by hand (addresses, counts, what a
zero register or a zero mask does) or with numpy from the random input data (IEEE f32 arithmetic).
Nothing is copied from what the emulator prints. Timing is only compared relatively (one run of
an instruction inside a function cannot outlast the function; a longer dependent loop takes
longer), never as absolute cycle counts.
"""

from __future__ import annotations

import numpy as np
import pytest
from emu_support import mem_mismatches, random_elements
from trace_format import check_trace

import vcore

VL = 256
F32_LANES = 64


# ----------------------------------------------------------------------------------------------
# helpers


def run(text: str, ub: dict[int, np.ndarray] | None = None, profile: str = "950", **run_kwargs):
    """Assemble and run ``text`` on a fresh machine; ``ub`` maps addresses to byte images."""
    m = vcore.load_text(text, profile=profile)
    for addr, data in (ub or {}).items():
        m.write("ub", addr, np.asarray(data, dtype=np.uint8))
    r = m.run(**run_kwargs)
    return m, r


def ok(m, r):
    assert r.fault is None, str(r.fault)
    assert not r.paused


def line_of(text: str, needle: str) -> int:
    """The (1-based) line of ``text`` that contains ``needle``; it must be the only one."""
    hits = [i + 1 for i, line in enumerate(text.splitlines()) if needle in line]
    assert len(hits) == 1, (needle, hits)
    return hits[0]


def per_pc(m) -> dict[int, dict]:
    """The JSON report's per_pc entries by source line."""
    out = {}
    for e in m.report().to_json()["per_pc"]:
        assert e["line"] not in out, e
        out[e["line"]] = e
    return out


def count_at(pp: dict[int, dict], line: int) -> int:
    """How many times the instruction at ``line`` ran: a missing per_pc entry means it never ran."""
    return pp[line]["count"] if line in pp else 0


def ub_bytes(m, addr: int, n: int) -> np.ndarray:
    return m.read("ub", addr, "u8", n)


def f32_bytes(values) -> np.ndarray:
    return np.asarray(values, dtype="<f4").view(np.uint8)


def f32_add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Golden IEEE f32 addition of two byte images (round to nearest even, numpy)."""
    with np.errstate(all="ignore"):
        return (a.view("<f4") + b.view("<f4")).astype("<f4").view(np.uint8)


def assert_f32(m, addr: int, want: np.ndarray):
    got = ub_bytes(m, addr, len(want))
    bad = mem_mismatches(got, want, "f32", base=addr)
    assert not bad, "\n".join(bad)


def races_of(m, kind=None):
    rs = list(m.races())
    return [x for x in rs if kind is None or x.kind == kind]


# ----------------------------------------------------------------------------------------------
# 1. data: a hardware loop computes the right UB results


ADD_KERNEL = """\
    MOV S1, 0x0
    MOV S2, 0x4000
    MOV S3, 0x8000
    MOV S4, {n}
VF.BEGIN
    PSET.b32 P0, ALL
    LOOP {count}
        VLD.f32 V0, [S1], post=64
        VLD.f32 V1, [S2], post=64
        VADD.f32 V2, V0, V1, P0
        VST.f32 [S3], V2, P0, post=64
    ENDLOOP
VF.END
    HALT
"""


@pytest.mark.parametrize("form", ["imm", "reg"])
@pytest.mark.parametrize("n", [1, 7, 40])
def test_hardware_loop_adds_random_tiles(form, n):
    rng = np.random.default_rng(1000 + n + (form == "reg"))
    elems = (n + 1) * F32_LANES  # one tile more than the loop processes: it must stay untouched
    a = random_elements(rng, "f32", elems)
    b = random_elements(rng, "f32", elems)
    before = random_elements(rng, "f32", elems)  # what dst holds before the function
    text = ADD_KERNEL.format(n=n, count=n if form == "imm" else "S4")
    m, r = run(text, ub={0x0: a, 0x4000: b, 0x8000: before})
    ok(m, r)
    nb = n * VL
    assert_f32(m, 0x8000, f32_add(a[:nb], b[:nb]))
    # tile n (the first one past the loop) keeps its old bytes
    np.testing.assert_array_equal(ub_bytes(m, 0x8000 + nb, VL), before[nb:nb + VL])
    # the sources are unchanged
    np.testing.assert_array_equal(ub_bytes(m, 0x0, len(a)), a)
    np.testing.assert_array_equal(ub_bytes(m, 0x4000, len(b)), b)

    pp = per_pc(m)
    for needle in ("VLD.f32 V0", "VLD.f32 V1", "VADD.f32", "VST.f32"):
        assert count_at(pp, line_of(text, needle)) == n, needle
    assert count_at(pp, line_of(text, "LOOP ")) == 1          # LOOP counts loop starts
    assert count_at(pp, line_of(text, "ENDLOOP")) == n        # ENDLOOP counts iterations
    assert count_at(pp, line_of(text, "PSET")) == 1
    assert count_at(pp, line_of(text, "VF.BEGIN")) == 1
    # post= inside the function is gone after it: S1..S4 are what the MOVs set
    assert m.s[1:5] == [0x0, 0x4000, 0x8000, n]


@pytest.mark.parametrize("change", ["MOV S4, 0", "MOV S4, 30", "ADD S4, S4, 1", "SUB S4, S4, 1"])
def test_loop_sn_is_read_once_when_the_loop_starts(change):
    # The body changes S4 (the loop's count register) every iteration; the count stays 3.
    text = f"""\
.ubfill 0x0, f32, 64, 2.5
.ubfill 0x1000, f32, 4096, -1.0
    MOV S3, 0x1000
    MOV S4, 3
VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V0, [0x0]
    LOOP S4
        VST.f32 [S3], V0, P0, post=64
        {change}
    ENDLOOP
VF.END
    HALT
"""
    m, r = run(text)
    ok(m, r)
    got = m.read("ub", 0x1000, "f32", 4096)
    np.testing.assert_array_equal(got[:3 * 64], np.full(3 * 64, 2.5, np.float32))
    np.testing.assert_array_equal(got[3 * 64:], np.full(4096 - 3 * 64, -1.0, np.float32))
    pp = per_pc(m)
    assert count_at(pp, line_of(text, "VST.f32")) == 3
    assert count_at(pp, line_of(text, change)) == 3
    assert count_at(pp, line_of(text, "ENDLOOP")) == 3
    assert count_at(pp, line_of(text, "LOOP S4")) == 1
    assert m.s[4] == 3  # the function's writes to S4 are gone


def test_inner_loop_sn_is_read_at_each_start():
    # The inner LOOP S4 starts 3 times, with S4 = 1, 2, 3 (the outer body adds 1 after it):
    # 1 + 2 + 3 = 6 stores. Each start reads S4 anew; within a start the count is fixed.
    text = """\
.ubfill 0x0, f32, 64, 4.0
    MOV S3, 0x1000
    MOV S4, 1
    MOV S6, 1
VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V0, [0x0]
    LOOP 3
        LOOP S4
            VST.f32 [S3], V0, P0, post=64
            MOV S4, 50
        ENDLOOP ; inner
        ADD S6, S6, 1
        MOV S4, S6
    ENDLOOP ; outer
VF.END
    HALT
"""
    # pass 1: S4 = 1 -> 1 store; S6 = 2, S4 = 2. pass 2: 2 stores; S6 = 3, S4 = 3. pass 3: 3 stores.
    m, r = run(text)
    ok(m, r)
    got = m.read("ub", 0x1000, "f32", 7 * 64)
    np.testing.assert_array_equal(got[:6 * 64], np.full(6 * 64, 4.0, np.float32))
    np.testing.assert_array_equal(got[6 * 64:], np.zeros(64, np.float32))
    pp = per_pc(m)
    assert count_at(pp, line_of(text, "VST.f32")) == 6
    assert count_at(pp, line_of(text, "LOOP S4")) == 3           # starts
    assert count_at(pp, line_of(text, "ENDLOOP ; inner")) == 6   # iterations
    assert count_at(pp, line_of(text, "LOOP 3")) == 1
    assert count_at(pp, line_of(text, "ENDLOOP ; outer")) == 3
    assert m.s[4] == 1 and m.s[6] == 1


@pytest.mark.parametrize("count", ["0", "S4"])
def test_loop_of_zero_skips_the_body(count):
    text = f"""\
.ubfill 0x0, f32, 64, 3.0
.ubfill 0x1000, f32, 128, 7.0
    MOV S3, 0x1000
    MOV S4, 0
VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V0, [0x0]
    LOOP {count}
        VST.f32 [S3], V0, P0, post=64
        VADDS.f32 V0, V0, 1.0, P0
    ENDLOOP
    VST.f32 [0x2000], V0, P0
VF.END
    HALT
"""
    m, r = run(text)
    ok(m, r)
    # the body never ran: 0x1000 keeps 7.0, and V0 still holds 3.0 (no VADDS) when stored after
    np.testing.assert_array_equal(m.read("ub", 0x1000, "f32", 128), np.full(128, 7.0, np.float32))
    np.testing.assert_array_equal(m.read("ub", 0x2000, "f32", 64), np.full(64, 3.0, np.float32))
    pp = per_pc(m)
    assert count_at(pp, line_of(text, "VST.f32 [S3]")) == 0
    assert count_at(pp, line_of(text, "VADDS")) == 0
    assert count_at(pp, line_of(text, "ENDLOOP")) == 0
    assert count_at(pp, line_of(text, "LOOP ")) == 1
    assert count_at(pp, line_of(text, "VST.f32 [0x2000]")) == 1


def test_four_deep_nesting_runs_the_innermost_body_the_product_of_the_counts():
    text = """\
.ubfill 0x0, f32, 64, 1.25
    MOV S3, 0x1000
    MOV S7, 3
VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V0, [0x0]
    LOOP 2          ; L1
        LOOP S7     ; L2
            LOOP 4  ; L3
                LOOP 5  ; L4
                    VST.f32 [S3], V0, P0, post=64
                ENDLOOP ; E4
            ENDLOOP ; E3
        ENDLOOP ; E2
    ENDLOOP ; E1
VF.END
    HALT
"""
    total = 2 * 3 * 4 * 5  # 120 stores of 256 bytes: 0x1000 .. 0x1000 + 120 * 256
    m, r = run(text)
    ok(m, r)
    got = m.read("ub", 0x1000, "f32", (total + 1) * 64)
    np.testing.assert_array_equal(got[:total * 64], np.full(total * 64, 1.25, np.float32))
    np.testing.assert_array_equal(got[total * 64:], np.zeros(64, np.float32))
    pp = per_pc(m)
    assert count_at(pp, line_of(text, "VST.f32")) == total
    # LOOP counts starts, ENDLOOP counts iterations
    assert [count_at(pp, line_of(text, f"; L{k}")) for k in (1, 2, 3, 4)] == [1, 2, 6, 24]
    assert [count_at(pp, line_of(text, f"; E{k}")) for k in (1, 2, 3, 4)] == [2, 6, 24, 120]


def test_five_deep_nesting_is_an_assembly_error():
    text = """\
VF.BEGIN
    LOOP 2
        LOOP 2
            LOOP 2
                LOOP 2
                    LOOP 2
                        MEMBAR
                    ENDLOOP
                ENDLOOP
            ENDLOOP
        ENDLOOP
    ENDLOOP
VF.END
    HALT
"""
    with pytest.raises(vcore.AsmError) as err:
        vcore.load_text(text, filename="deep.asm")
    assert any(d.location.line == 6 for d in err.value.diagnostics), str(err.value)


def test_scalar_arithmetic_inside_a_function_runs_on_its_own_copy():
    # Every scalar op the contract allows inside a function, worked out by hand:
    # 5 * 3 = 15; - 3 = 12; << 8 = 0xC00; | 0x1000 = 0x1C00; ^ 0x400 = 0x1800; & 0xFF00 = 0x1800;
    # >> 1 = 0xC00; + 0x1000 = 0x1C00.
    text = """\
.ubfill 0x0, f32, 64, 6.5
VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V0, [0x0]
    MOV S7, 5
    MUL S7, S7, 3
    SUB S7, S7, 3
    SHL S7, S7, 8
    OR  S7, S7, 0x1000
    XOR S7, S7, 0x400
    AND S7, S7, 0xFF00
    SHR S7, S7, 1
    ADD S7, S7, 0x1000
    VST.f32 [S7], V0, P0
VF.END
    HALT
"""
    m, r = run(text)
    ok(m, r)
    got = m.read("ub", 0x800, "f32", (0x3000 - 0x800) // 4)
    want = np.zeros_like(got)
    want[(0x1C00 - 0x800) // 4:(0x1C00 - 0x800) // 4 + 64] = 6.5
    np.testing.assert_array_equal(got, want)
    assert m.s[7] == 0


# ----------------------------------------------------------------------------------------------
# 2. a function works on a copy of S


def test_scalar_writes_inside_a_function_are_gone_after_it():
    text = """\
.ubfill 0x0, f32, 128, 8.0
    MOV S1, 0x0
    MOV S2, 0x1000
    MOV S5, 77
VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V0, [S1], post=64
    PUPDATE.b32 P1, S5
    ADD S2, S2, 256
    MOV S6, 123
    VST.f32 [S2], V0, P0, post=64
    VST.f32 [S2], V0, P1
VF.END
    HALT
"""
    m, r = run(text)
    ok(m, r)
    # inside: S1 -> 0x100, S5 -> 77 - 64 = 13, S2 -> 0x1100 then (post=64 f32) 0x1200, S6 = 123;
    # P1 = the first min(77, 64) = 64 lanes (all of them).
    # all of it is gone at VF.END:
    assert m.s[1] == 0x0 and m.s[2] == 0x1000 and m.s[5] == 77 and m.s[6] == 0
    # ... but the function saw its own writes: the stores went to 0x1100 and 0x1200
    got = m.read("ub", 0x1000, "f32", 4 * 64)
    want = np.zeros(4 * 64, np.float32)
    want[64:3 * 64] = 8.0
    np.testing.assert_array_equal(got, want)
    data = m.report().to_json()
    assert data["scalars"]["S1"] == 0 and data["scalars"]["S2"] == 0x1000
    assert data["scalars"]["S5"] == 77 and data["scalars"]["S6"] == 0


def test_pupdate_counter_moves_inside_and_is_gone_after():
    # PUPDATE.b32 with S5 = 100: P1 = 64 lanes, S5 := 36; the second PUPDATE sees 36: P2 = 36 lanes
    text = """\
.ubfill 0x0, f32, 64, 3.0
.ubfill 0x1000, f32, 128, -2.0
    MOV S5, 100
VF.BEGIN
    VLD.f32 V0, [0x0]
    PUPDATE.b32 P1, S5
    PUPDATE.b32 P2, S5
    VST.f32 [0x1000], V0, P2
    VST.f32 [0x1100], V0, P1
VF.END
    HALT
"""
    m, r = run(text)
    ok(m, r)
    got = m.read("ub", 0x1000, "f32", 128)
    want = np.full(128, -2.0, np.float32)
    want[:36] = 3.0
    want[64:] = 3.0
    np.testing.assert_array_equal(got, want)
    assert m.s[5] == 100


def test_two_functions_each_start_from_the_scalar_units_registers():
    # The first function's post= does not carry into the second: both store to 0x1000.
    text = """\
.ubfill 0x0, f32, 64, 1.0
.ubfill 0x100, f32, 64, 2.0
    MOV S3, 0x1000
VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V0, [0x0]
    VST.f32 [S3], V0, P0, post=64
VF.END
VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V0, [0x100]
    VST.f32 [S3], V0, P0, post=64
VF.END
    HALT
"""
    m, r = run(text)
    ok(m, r)
    got = m.read("ub", 0x1000, "f32", 128)
    np.testing.assert_array_equal(got[:64], np.full(64, 2.0, np.float32))  # the second overwrote it
    np.testing.assert_array_equal(got[64:], np.zeros(64, np.float32))      # nobody stored at 0x1100
    assert m.s[3] == 0x1000


@pytest.mark.parametrize("busy_v", [False, True])
def test_function_sees_s_as_at_launch(busy_v):
    # A MOV before VF.BEGIN is seen; a MOV after VF.END is not, although the scalar unit reaches
    # it while the function still runs (busy_v: V is still busy with a long tensor instruction
    # when the function is launched, so the function also starts after the MOV).
    pre = "    VEXP.f32 [0x10000], [0x10000], repeat=200\n" if busy_v else ""
    text = f"""\
.ubfill 0x0, f32, 64, 5.0
    MOV S2, 0x4000
    MOV S2, 0x1000
{pre}VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V0, [0x0]
    LOOP 8
        VST.f32 [S2], V0, P0, post=64
    ENDLOOP
VF.END
    MOV S2, 0x4000
    HALT
"""
    m, r = run(text, trace=True)
    ok(m, r)
    np.testing.assert_array_equal(m.read("ub", 0x1000, "f32", 8 * 64), np.full(8 * 64, 5.0, np.float32))
    np.testing.assert_array_equal(m.read("ub", 0x4000, "f32", 8 * 64), np.zeros(8 * 64, np.float32))
    assert m.s[2] == 0x4000  # the scalar unit's own MOV after the function stands

    # the scalar unit went on: the MOV after VF.END started before the function had finished
    from vcore.emulator.trace import trace_events

    events = [e for e in check_trace(trace_events(r))["traceEvents"] if e.get("ph") == "X"]
    mov_line = len(text.splitlines()) - 1
    assert text.splitlines()[mov_line - 1].strip() == "MOV S2, 0x4000"
    begin_line = line_of(text, "VF.BEGIN")
    fn_end = max(e["args"]["end_cycle"] for e in events if e["args"].get("line") == begin_line)
    mov_start = min(e["args"]["start_cycle"] for e in events if e["args"].get("line") == mov_line)
    assert mov_start < fn_end


# ----------------------------------------------------------------------------------------------
# 3. V and P start zero in every function


def test_vector_registers_start_zero_in_every_function():
    text = """\
.ubfill 0x0, f32, 64, 5.0
.ubfill 0x1000, f32, 64, 9.0
.ubfill 0x1100, f32, 64, 9.0
VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V3, [0x0]
    VADDS.f32 V4, V3, 1.0, P0
    VST.f32 [0x800], V3, P0
VF.END
VF.BEGIN
    PSET.b32 P0, ALL
    VST.f32 [0x1000], V3, P0
    VADD.f32 V5, V4, V7, P0
    VST.f32 [0x1100], V5, P0
VF.END
    HALT
"""
    m, r = run(text)
    ok(m, r)
    np.testing.assert_array_equal(m.read("ub", 0x800, "f32", 64), np.full(64, 5.0, np.float32))
    # V3, V4 and V7 were never written in the second function: zeros (0 + 0 = 0)
    np.testing.assert_array_equal(m.read("ub", 0x1000, "u8", 512), np.zeros(512, np.uint8))


def test_mask_registers_start_zero_in_every_function():
    text = """\
.ubfill 0x0, f32, 64, 5.0
.ubfill 0x1000, f32, 64, 9.0
.ubfill 0x1100, f32, 64, 9.0
.ubfill 0x1200, u8, 32, 0xAB
VF.BEGIN
    PSET.b32 P0, ALL
    PSET.b32 P2, ALL
    VLD.f32 V0, [0x0]
    VST.f32 [0x800], V0, P0
VF.END
VF.BEGIN
    PSET.b32 P1, ALL
    VLD.f32 V0, [0x0]
    VST.f32 [0x1000], V0, P0
    VADDS.f32 V1, V0, 1.0, P2
    VST.f32 [0x1100], V1, P1
    PST [0x1200], P0
VF.END
    HALT
"""
    m, r = run(text)
    ok(m, r)
    np.testing.assert_array_equal(m.read("ub", 0x800, "f32", 64), np.full(64, 5.0, np.float32))
    # P0 is zero in the second function: a VST under it writes no lane, 9.0 stays
    np.testing.assert_array_equal(m.read("ub", 0x1000, "f32", 64), np.full(64, 9.0, np.float32))
    # P2 is zero: the VADDS writes every lane as zero; stored under P1 (all lanes): zeros
    np.testing.assert_array_equal(m.read("ub", 0x1100, "f32", 64), np.zeros(64, np.float32))
    # PST of the zero P0: 32 zero bytes
    np.testing.assert_array_equal(m.read("ub", 0x1200, "u8", 32), np.zeros(32, np.uint8))


# ----------------------------------------------------------------------------------------------
# 4. several launches from a scalar loop


def test_function_launched_per_tile_from_a_scalar_loop():
    tiles, per = 5, 2  # 5 launches, each a LOOP 2 over 256-byte tiles: 512 bytes per launch
    text = f"""\
    MOV S1, 0x0
    MOV S2, 0x4000
    MOV S3, 0x8000
    MOV S5, 0
tile:
VF.BEGIN
    PSET.b32 P0, ALL
    LOOP {per}
        VLD.f32 V0, [S1], post=64
        VLD.f32 V1, [S2], post=64
        VADD.f32 V2, V0, V1, P0
        VST.f32 [S3], V2, P0, post=64
    ENDLOOP
VF.END
    ADD S1, S1, 512
    ADD S2, S2, 512
    ADD S3, S3, 512
    ADD S5, S5, 1
    BLT S5, {tiles}, tile
    HALT
"""
    rng = np.random.default_rng(7)
    nb = tiles * per * VL
    a = random_elements(rng, "f32", (nb + VL) // 4)
    b = random_elements(rng, "f32", (nb + VL) // 4)
    m, r = run(text, ub={0x0: a, 0x4000: b})
    ok(m, r)
    assert_f32(m, 0x8000, f32_add(a[:nb], b[:nb]))
    np.testing.assert_array_equal(ub_bytes(m, 0x8000 + nb, VL), np.zeros(VL, np.uint8))
    pp = per_pc(m)
    assert count_at(pp, line_of(text, "VF.BEGIN")) == tiles
    assert count_at(pp, line_of(text, "PSET")) == tiles
    assert count_at(pp, line_of(text, "LOOP ")) == tiles
    for needle in ("VLD.f32 V0", "VLD.f32 V1", "VADD.f32", "VST.f32", "ENDLOOP"):
        assert count_at(pp, line_of(text, needle)) == tiles * per, needle
    assert count_at(pp, line_of(text, "BLT")) == tiles
    # only the ADDs outside move the pointers
    assert m.s[1] == tiles * 512 and m.s[2] == 0x4000 + tiles * 512 and m.s[3] == 0x8000 + tiles * 512
    assert m.s[5] == tiles
    assert races_of(m) == []


def test_instructions_count_includes_the_function_bodies():
    text = """\
    MOV S3, 0x1000
VF.BEGIN
    PSET.b32 P0, ALL
    LOOP 3
        VST.f32 [S3], V0, P0, post=64
        VST.f32 [S3], V0, P0, post=64
    ENDLOOP
VF.END
    HALT
"""
    m, r = run(text)
    ok(m, r)
    data = m.report().to_json()
    pp = per_pc(m)
    assert data["instructions"] == sum(e["count"] for e in pp.values())
    # at least: MOV, VF.BEGIN, PSET, LOOP, 6 stores, HALT (ENDLOOP / VF.END may count too)
    assert data["instructions"] >= 11
    assert r.instructions == data["instructions"]


# ----------------------------------------------------------------------------------------------
# 5. UB ordering inside a function


RAW_NO_MEMBAR = """\
.ubfill 0x0, f32, 64, 1.0
.ubfill 0x1000, f32, 64, 9.0
    MOV S1, 0x1000
VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V0, [0x0]
    VST.f32 [S1], V0, P0
    VLD.f32 V1, [S1]
    VST.f32 [0x2000], V1, P0
VF.END
    HALT
"""


def test_store_then_load_without_membar_is_a_raw_race():
    m, r = run(RAW_NO_MEMBAR)
    ok(m, r)
    st, ld = line_of(RAW_NO_MEMBAR, "VST.f32 [S1]"), line_of(RAW_NO_MEMBAR, "VLD.f32 V1")
    raw = races_of(m, "RAW")
    assert raw, m.races()
    x = raw[0]
    assert (x.first["line"], x.second["line"]) == (st, ld)
    assert x.first["pipe"] == "V" and x.second["pipe"] == "V"
    assert x.space == "ub" and x.start <= 0x1000 and x.end >= 0x1100 and x.start < x.end
    # the race is in the JSON report too, with both lines
    rep = [e for e in m.report().to_json()["races"] if e["kind"] == "RAW"]
    assert rep and rep[0]["first"]["line"] == st and rep[0]["second"]["line"] == ld


def test_store_then_load_without_membar_faults_when_strict():
    m, r = run(RAW_NO_MEMBAR, strict=True)
    assert r.fault is not None and r.fault.kind == "race", r.fault


def test_membar_orders_a_store_before_a_load():
    rng = np.random.default_rng(11)
    data = random_elements(rng, "f32", 64)
    text = RAW_NO_MEMBAR.replace("    VLD.f32 V1, [S1]", "    MEMBAR\n    VLD.f32 V1, [S1]")
    m, r = run(text, ub={0x0: data}, strict=True)
    ok(m, r)
    assert races_of(m) == []
    # the load read what the store wrote (not the 9.0 that was there before)
    np.testing.assert_array_equal(ub_bytes(m, 0x2000, VL), data)
    np.testing.assert_array_equal(ub_bytes(m, 0x1000, VL), data)


def test_in_place_update_is_ordered_by_the_register_dependency():
    # VLD x; VADD; VST x: the store's data depends on the load through V0/V1: no race.
    n = 6
    text = f"""\
    MOV S1, 0x1000
    MOV S2, 0x1000
VF.BEGIN
    PSET.b32 P0, ALL
    LOOP {n}
        VLD.f32 V0, [S1], post=64
        VADD.f32 V1, V0, V0, P0
        VST.f32 [S2], V1, P0, post=64
    ENDLOOP
VF.END
    HALT
"""
    rng = np.random.default_rng(12)
    x = random_elements(rng, "f32", n * 64)
    m, r = run(text, ub={0x1000: x}, strict=True)
    ok(m, r)
    assert races_of(m) == []
    assert_f32(m, 0x1000, f32_add(x, x))


def test_store_store_without_membar_is_a_waw_race():
    text = """\
.ubfill 0x0, f32, 64, 1.0
.ubfill 0x100, f32, 64, 2.0
VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V0, [0x0]
    VLD.f32 V1, [0x100]
    VST.f32 [0x1000], V0, P0
    VST.f32 [0x1000], V1, P0
VF.END
    HALT
"""
    m, r = run(text)
    ok(m, r)
    waw = races_of(m, "WAW")
    assert waw, m.races()
    assert (waw[0].first["line"], waw[0].second["line"]) == (line_of(text, "[0x1000], V0"),
                                                             line_of(text, "[0x1000], V1"))
    assert waw[0].space == "ub" and waw[0].start <= 0x1000 and waw[0].end >= 0x1100

    # with a MEMBAR between them: no race, and the later store's data is what stays
    fenced = text.replace("    VST.f32 [0x1000], V1", "    MEMBAR\n    VST.f32 [0x1000], V1")
    m, r = run(fenced, strict=True)
    ok(m, r)
    assert races_of(m) == []
    np.testing.assert_array_equal(m.read("ub", 0x1000, "f32", 64), np.full(64, 2.0, np.float32))


def test_load_then_unrelated_store_without_membar_is_a_war_race():
    # the store's data (V1) does not depend on the load (V0): nothing orders them
    text = """\
.ubfill 0x100, f32, 64, 2.0
VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V1, [0x100]
    MEMBAR
    VLD.f32 V0, [0x1000]
    VST.f32 [0x1000], V1, P0
    VST.f32 [0x2000], V0, P0
VF.END
    HALT
"""
    m, r = run(text)
    ok(m, r)
    war = races_of(m, "WAR")
    assert war, m.races()
    assert (war[0].first["line"], war[0].second["line"]) == (line_of(text, "VLD.f32 V0"),
                                                             line_of(text, "VST.f32 [0x1000]"))


UB_PAIRS = {
    # name: (first access, second access, race kind, what lands at 0x2000 once ordered)
    "vst-vgather": ("VST.f32 [0x1000], V0, P0", "VGATHER.f32 V3, [S1], V1, P0", "RAW", "data"),
    "vscatter-vld": ("VSCATTER.f32 [S1], V0, V1, P0", "VLD.f32 V3, [0x1000]", "RAW", "data"),
    "pst-pld": ("PST [0x1000], P0", "PLD P2, [0x1000]", "RAW", "mask"),
    "pst-vld": ("PST [0x1000], P0", "VLD.f32 V3, [0x1000]", "RAW", None),
    "vld-vscatter": ("VLD.f32 V3, [0x1000]", "VSCATTER.f32 [S1], V0, V1, P0", "WAR", None),
}


@pytest.mark.parametrize("fence", [False, True])
@pytest.mark.parametrize("pair", sorted(UB_PAIRS))
def test_every_kind_of_ub_access_inside_a_function_needs_a_membar(pair, fence):
    first, second, kind, lands = UB_PAIRS[pair]
    # a loaded register is used afterwards: a load no lane of which is used cannot race (issue 28)
    tail = {"data": "    VST.f32 [0x2000], V3, P0\n",
            "mask": "    VST.f32 [0x2000], V0, P2\n",
            None: "    VST.f32 [0x2800], V3, P0\n" if "V3" in first + second else ""}[lands]
    text = f"""\
.ubfill 0x1000, f32, 64, -3.0
.ubfill 0x2000, f32, 64, 7.0
    MOV S1, 0x1000
VF.BEGIN
    PSET.b32 P0, ALL
    VLD.u32 V1, [0x3000]
    VLD.f32 V0, [0x0]
    MEMBAR
    {first}
{"    MEMBAR" if fence else "    ; no fence"}
    {second}
    MEMBAR
{tail}VF.END
    HALT
"""
    rng = np.random.default_rng(31)
    x = random_elements(rng, "f32", 64)
    idx = np.arange(64, dtype="<u4").view(np.uint8)  # lane i: index i (u32 for a 32-bit T)
    m, r = run(text, ub={0x0: x, 0x3000: idx}, strict=fence)
    ok(m, r)
    if not fence:
        hits = races_of(m, kind)
        assert hits, m.races()
        assert (hits[0].first["line"], hits[0].second["line"]) == (line_of(text, first), line_of(text, second))
        assert hits[0].space == "ub"
        return
    assert races_of(m) == []
    if lands is not None:
        # data: the second access saw the first one's data, lane for lane;
        # mask: P2 read back P0 (all lanes), so all of x was stored under it
        np.testing.assert_array_equal(ub_bytes(m, 0x2000, VL), x)


def test_function_results_are_seen_by_later_v_work_without_flags():
    # V orders itself: a tensor instruction and another function after the function see its data.
    rng = np.random.default_rng(13)
    x = random_elements(rng, "f32", 64)
    text = """\
VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V0, [0x0]
    VADD.f32 V0, V0, V0, P0
    VST.f32 [0x1000], V0, P0
VF.END
    VADDS.f32 [0x2000], [0x1000], 0.0
VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V0, [0x1000]
    VST.f32 [0x3000], V0, P0
VF.END
    HALT
"""
    m, r = run(text, ub={0x0: x}, strict=True)
    ok(m, r)
    assert races_of(m) == []
    doubled = f32_add(x, x)
    assert_f32(m, 0x1000, doubled)
    assert_f32(m, 0x3000, doubled)
    with np.errstate(all="ignore"):
        plus0 = (doubled.view("<f4") + np.float32(0.0)).astype("<f4").view(np.uint8)
    assert_f32(m, 0x2000, plus0)


def test_function_and_mte3_need_a_flag():
    body = """\
VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V0, [0x0]
    VST.f32 [0x1000], V0, P0
VF.END
{sync}    DMA.UB2GM gm[0x0], [0x1000], len=8
    BARRIER ALL
    HALT
"""
    rng = np.random.default_rng(14)
    x = random_elements(rng, "f32", 64)
    # without a flag: a race between the function (V) and the DMA (MTE3) on 0x1000..0x1100
    m, r = run(body.format(sync=""), ub={0x0: x})
    ok(m, r)
    rs = [x for x in m.races() if x.space == "ub"]
    assert rs, m.races()
    assert rs[0].first["pipe"] == "V" and rs[0].second["pipe"] == "MTE3"
    assert rs[0].start < 0x1100 and rs[0].end > 0x1000
    # with SETFLAG V, MTE3 / WAITFLAG V, MTE3: no race, GM receives the function's data
    m, r = run(body.format(sync="    SETFLAG V, MTE3, 0\n    WAITFLAG V, MTE3, 0\n"), ub={0x0: x}, strict=True)
    ok(m, r)
    assert races_of(m) == []
    np.testing.assert_array_equal(m.read("gm", 0x0, "u8", VL), x)


def test_function_reading_a_dma_needs_a_flag():
    body = """\
    DMA.GM2UB [0x0], gm[0x0], len=8
{sync}VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V0, [0x0]
    VST.f32 [0x1000], V0, P0
VF.END
    HALT
"""
    rng = np.random.default_rng(15)
    x = random_elements(rng, "f32", 64)
    m = vcore.load_text(body.format(sync=""))
    m.write("gm", 0x0, x)
    r = m.run()
    ok(m, r)
    rs = [x for x in m.races() if x.space == "ub"]
    assert rs and rs[0].kind == "RAW", m.races()
    assert rs[0].first["pipe"] == "MTE2" and rs[0].second["pipe"] == "V"
    m = vcore.load_text(body.format(sync="    SETFLAG MTE2, V, 0\n    WAITFLAG MTE2, V, 0\n"))
    m.write("gm", 0x0, x)
    r = m.run(strict=True)
    ok(m, r)
    assert races_of(m) == []
    np.testing.assert_array_equal(ub_bytes(m, 0x1000, VL), x)


# ----------------------------------------------------------------------------------------------
# 6. a2 has no vector functions


def test_a2_refuses_a_program_with_a_function():
    text = """\
    MOV S1, 0
VF.BEGIN
    LOOP 2
        MEMBAR
    ENDLOOP
VF.END
    HALT
"""
    with pytest.raises(vcore.ProgramError) as err:
        vcore.load_text(text, profile="a2", filename="k.asm")
    msg = str(err.value)
    assert "k.asm:2:" in msg and "950" in msg


# ----------------------------------------------------------------------------------------------
# 7. the report: VF.BEGIN's cycles are the function's whole run


ACCUMULATE = """\
.ubfill 0x0, f32, 64, 0.0
    MOV S1, 0x100
VF.BEGIN
    PSET.b32 P0, ALL
    VLD.f32 V0, [0x0]
    LOOP {n}
        VLD.f32 V1, [S1], post=64
        VADD.f32 V0, V0, V1, P0
    ENDLOOP
    VDIV.f32 V2, V0, V0, P0
    VST.f32 [0x8000], V0, P0
VF.END
    HALT
"""


def test_vf_begin_cycles_cover_each_run_of_each_instruction_inside():
    n = 16
    rng = np.random.default_rng(21)
    x = rng.standard_normal(n * 64).astype("<f4")
    text = ACCUMULATE.format(n=n)
    m, r = run(text, ub={0x100: x.view(np.uint8)})
    ok(m, r)
    # data: a sequential f32 sum over the n tiles, lane by lane (the loop-carried VADD)
    acc = np.zeros(64, np.float32)
    for k in range(n):
        acc = (acc + x[k * 64:(k + 1) * 64]).astype(np.float32)
    np.testing.assert_array_equal(m.read("ub", 0x8000, "f32", 64), acc)

    pp = per_pc(m)
    begin = pp[line_of(text, "VF.BEGIN")]
    assert begin["count"] == 1 and begin["pipe"] == "V"
    fn_cycles = begin["cycles"]
    first, last = line_of(text, "VF.BEGIN"), line_of(text, "VF.END")
    inside = [e for line, e in pp.items() if first < line < last]
    assert len(inside) >= 7
    for e in inside:
        assert e["count"] >= 1
        # one run of an instruction inside lies within the function's run
        assert e["cycles"] / e["count"] <= fn_cycles, e
    # the n loop-carried VADDs wait for each other: the function takes at least n cycles
    assert fn_cycles >= n
    # a program whose only work is one function takes at least that function's time
    assert r.total_cycles >= fn_cycles
    assert m.report().to_json()["total_cycles"] == r.total_cycles


def test_a_longer_loop_takes_more_function_cycles():
    def fn_cycles(n):
        text = ACCUMULATE.format(n=n)
        m, r = run(text)
        ok(m, r)
        return per_pc(m)[line_of(text, "VF.BEGIN")]["cycles"], r.total_cycles

    c4, t4 = fn_cycles(4)
    c32, t32 = fn_cycles(32)
    c64, t64 = fn_cycles(64)
    assert c4 < c32 < c64
    assert t4 < t32 < t64


def test_vf_begin_cycles_add_up_over_launches():
    # the same function launched 3 times: VF.BEGIN's cycles are summed over its runs (each run
    # holds 8 dependent VADDs), so they are more than one run's
    one = """\
VF.BEGIN
    PSET.b32 P0, ALL
    LOOP 8
        VLD.f32 V1, [0x0]
        VADD.f32 V0, V0, V1, P0
    ENDLOOP
    VST.f32 [0x1000], V0, P0
VF.END
    HALT
"""
    three = one.replace("VF.BEGIN", "    MOV S5, 0\nagain:\nVF.BEGIN", 1).replace(
        "VF.END\n", "VF.END\n    ADD S5, S5, 1\n    BLT S5, 3, again\n")
    m1, r1 = run(one)
    m3, r3 = run(three)
    ok(m1, r1)
    ok(m3, r3)
    c1 = per_pc(m1)[line_of(one, "VF.BEGIN")]["cycles"]
    e3 = per_pc(m3)[line_of(three, "VF.BEGIN")]
    assert e3["count"] == 3
    assert e3["cycles"] > c1 and e3["cycles"] >= 3 * 8


# ----------------------------------------------------------------------------------------------
# a fault inside a function (the lead's decision: the state at the fault, as for scalar code)


@pytest.mark.parametrize("stepping", [False, True])
def test_a_fault_inside_a_function_keeps_what_ran_before_it(stepping):
    """The instructions before the faulting one ran, and their stores are in UB; the faulting one
    and everything after it did not run. The same whether the run steps (the debugger) or not."""
    text = """\
.ubfill 0x100, u8, 256, 9
    VF.BEGIN
    PSET.b8 P0, ALL
    VLD.u8 V3, [0x100]
    VST.u8 [0x0], V3, P0
    VLD.f16 V1, [0x3ffe0]
    VST.u8 [0x200], V3, P0
    VF.END
    HALT
"""
    m, r = run(text, pause_after=10**6) if stepping else run(text)
    assert r.fault is not None and r.fault.pc == 0x20  # VF.BEGIN 0x0, PSET 0x8, VLD 0x10, VST 0x18, VLD 0x20
    assert "line 6" in m.describe(r.fault.pc) or r.fault.where.endswith(":6")
    assert list(ub_bytes(m, 0x0, 4)) == [9, 9, 9, 9]  # the store before the fault landed
    assert list(ub_bytes(m, 0x200, 4)) == [0, 0, 0, 0]  # the one after it never ran


# ----------------------------------------------------------------------------------------------
# regressions found while building section 7 (worked out by hand)


def test_a_race_on_a_single_shared_block_is_found():
    # The load's 256 bytes start 224 bytes into the store's: they share the block 0x10e0..0x1100 only.
    text = """\
    VF.BEGIN
    PSET.b32 P0, ALL
    VST.f32 [0x1000], V1, P0
    VLD.f32 V2, [0x1000 + 224]
    VST.f32 [0x2000], V2, P0
    VF.END
    HALT
"""
    m, r = run(text)
    assert [(x.kind, x.first["line"], x.second["line"], x.start, x.end) for x in m.races()] == \
        [("RAW", 3, 4, 0x10e0, 0x1100)]


def test_masked_stores_touch_only_the_bytes_of_their_active_lanes():
    # VL1 of b32: lane 0 only, 4 bytes. Stores at 0x0 and 0x20 write bytes 0x0..0x3 and 0x20..0x23: no
    # WAW. A load of 0x20's VL afterwards reads the bytes the second store wrote: a RAW, named on the
    # bytes where the two meet (its lane 0, bytes 0x20..0x23, is the only one used: CONTRACT 13.12 and
    # section 7, a load no lane of which is used cannot race).
    text = """\
    VF.BEGIN
    PSET.b32 P7, VL1
    VST.u32 [0x0], V1, P7
    VST.u32 [0x20], V1, P7
    VLD.u32 V2, [0x20]
    VST.u32 [0x1000], V2, P7
    VF.END
    HALT
"""
    m, r = run(text)
    assert [(x.kind, x.first["line"], x.second["line"], x.start, x.end) for x in m.races()] == \
        [("RAW", 4, 5, 0x20, 0x24)]


def test_a_racy_function_that_writes_a_register_twice_runs_at_its_scheduled_times():
    # V5 is written by a slow gather and then by a load that needs nothing and issues first; the
    # VST/VLD pair on 0x100 races, so the data follows the schedule (registers by program order).
    text = """\
.ubfill 0x0, u32, 64, 0
.ubfill 0x100, f32, 64, 3.0
    VF.BEGIN
    PSET.b32 P0, ALL
    VLD.u32 V0, [0x0]
    VGATHER.f32 V5, [0x100], V0, P0
    VLD.f32 V5, [0x100]
    VADDS.f32 V6, V5, 1.0, P0
    VST.f32 [0x100], V6, P0
    VLD.f32 V7, [0x100]
    VST.f32 [0x200], V7, P0
    VF.END
    HALT
"""
    m, r = run(text)
    ok(m, r)
    assert ("RAW", 9, 10) in [(x.kind, x.first["line"], x.second["line"]) for x in m.races()]
    assert np.all(m.read("ub", 0x100, "f32", 64) == 4.0)  # the VADDS of the VLD's 3.0: V5 is the VLD's
    assert set(m.read("ub", 0x200, "f32", 64).tolist()) <= {3.0, 4.0}  # old or new: the race decides
