"""``VSQZ ..., cnt=Sn`` (CONTRACT 13.4, [vcore]): the function's own copy of Sn := k, the lanes the
mask keeps, so that the function itself can use the count (an address, a loop count, a PUPDATE).

Such a function is laid out as its data moves, when its V job starts: these tests pin what that gives
(data, counts, races, a paused run, the trace), each expected value worked out by hand from the data.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from trace_format import check_trace

from vcore.assembler import assemble
from vcore.assembler.diagnostics import AsmError
from vcore.emulator import Machine
from vcore.emulator.trace import trace_events

# Rows of 64 f32 at 0x0, 0x100, ...; a row keeps its elements above 0.5. Each row's kept elements go to
# the output at S3, which moves on by k * 4 bytes rounded up to 32 (the function computes it from cnt=).
COMPACT = """\
    MOV S1, 0x0
    MOV S3, 0x4000
    VF.BEGIN
        PSET.b32 P0, ALL
        LOOP 3
            VLD.f32 V0, [S1], post=64
            VCMPS.GT.f32 P1, V0, 0.5, P0
            VSQZ.f32 V1, V0, P1, cnt=S5
            VST.f32 [S3], V1, P0
            MEMBAR
            ADD S6, S5, 7
            SHR S6, S6, 3
            SHL S6, S6, 5
            ADD S3, S3, S6
        ENDLOOP
    VF.END
    BARRIER ALL
    HALT
"""


def machine(text: str, writes=()) -> Machine:
    m = Machine(assemble(text, "cnt.asm"), "950")
    for addr, data in writes:
        m.write("ub", addr, np.asarray(data).view(np.uint8))
    return m


def rows() -> np.ndarray:
    x = np.random.default_rng(7).random((3, 64)).astype("<f4")
    x[1, :] = 0.0  # a row that keeps nothing: the output does not move
    x[2, ::9] = 0.9  # and one that keeps at least these
    return x


def expected(x: np.ndarray) -> tuple[np.ndarray, list]:
    """By hand: each row's kept elements at the output's place, the place moving by ceil(k / 8) * 32 bytes;
    the full 256-byte register is stored each time (zeros after the kept ones)."""
    out = np.zeros(0x1000 // 4, dtype="<f4")
    at, ks = 0, []
    for row in x:
        kept = row[row > 0.5]
        ks.append(len(kept))
        block = np.zeros(64, dtype="<f4")
        block[:len(kept)] = kept
        out[at:at + 64] = block
        at += -(-len(kept) // 8) * 8
    return out, ks


def test_the_count_moves_the_output_as_the_data_says():
    x = rows()
    m = machine(COMPACT, [(0x0, x)])
    r = m.run()
    assert r.fault is None and not m.races()
    want, ks = expected(x)
    assert ks[1] == 0 and ks[0] > 0
    assert m.read("ub", 0x4000, "f32", want.size).tolist() == want.tolist()


def test_a_loop_counted_by_cnt_runs_k_times():
    """LOOP S5 after VSQZ ..., cnt=S5: its body runs k times (the report's per-pc count)."""
    text = """\
    VF.BEGIN
        PSET.b16 P0, M3
        VSQZ.f16 V1, V0, P0, cnt=S5
        LOOP S5
            VADDS.f16 V2, V2, 1.0, P0
        ENDLOOP
        PSET.b16 P2, ALL
        VST.f16 [0x100], V2, P2
    VF.END
    BARRIER ALL
    HALT
"""
    m = machine(text)
    m.run()
    k = len(range(0, 128, 3))  # M3 on 128 f16 lanes: the lanes whose index is a multiple of 3
    assert m.counts()[0x20] == k
    got = m.read("ub", 0x100, "f16", 128)
    assert got[::3].tolist() == [float(k)] * len(got[::3])
    assert got[1::3].tolist() == [0.0] * len(got[1::3])


def test_a_paused_run_gives_what_the_whole_run_gives():
    x = rows()
    whole = machine(COMPACT, [(0x0, x)])
    whole.run()
    m = machine(COMPACT, [(0x0, x)])
    seen = []
    result = m.run(pause_after=1)
    while result.paused:
        state = m.function_state()
        if state is not None:
            seen.append(state.s[5])
        result = m.run(pause_after=m.executed + 1)
    assert result.fault is None
    assert m.read("ub", 0x4000, "f32", 1024).tolist() == whole.read("ub", 0x4000, "f32", 1024).tolist()
    _, ks = expected(x)
    assert [k for k in ks if k] == [k for k in dict.fromkeys(seen) if k], "the debugger shows S5 = k"
    assert m.report().to_json() == whole.report().to_json()


def test_its_footprint_is_what_it_touched_once_it_started():
    """Until it starts it could touch any of UB; once started, a DMA into bytes it never touches is no
    race, and one into bytes it reads is (its footprint is what it did)."""
    base = """\
    MOV S1, 0x0
    MOV S3, 0x4000
    DMA.GM2UB [{dst}], gm[0x0], len=8
    VF.BEGIN
        PSET.b32 P0, ALL
        VLD.f32 V0, [S1]
        VSQZ.f32 V1, V0, P0, cnt=S5
        VST.f32 [S3], V1, P0
    VF.END
    BARRIER ALL
    HALT
"""
    apart = machine(base.format(dst="0x8000"))
    apart.run()
    assert apart.races() == []
    meets = machine(base.format(dst="0x0"))
    meets.run()
    assert [(r.kind, r.space) for r in meets.races()] == [("RAW", "ub")]


def test_a_race_inside_it_is_named_with_both_lines():
    text = """\
    VF.BEGIN
        PSET.b32 P0, ALL
        VSQZ.f32 V1, V0, P0, cnt=S5
        VST.f32 [0x100], V1, P0
        VLD.f32 V2, [0x100]
        VST.f32 [0x200], V2, P0
    VF.END
    BARRIER ALL
    HALT
"""
    m = machine(text)
    m.run()
    races = m.races()
    assert [(r.kind, r.first["line"], r.second["line"]) for r in races] == [("RAW", 4, 5)]


def test_the_trace_shows_its_instructions():
    m = machine(COMPACT, [(0x0, rows())])
    r = m.run(trace=True)
    events = check_trace(trace_events(r))["traceEvents"]
    inside = [e for e in events if e.get("ph") == "X" and e["cat"] == "V" and e["args"].get("line") in (6, 7, 8, 9)]
    assert {e["args"]["line"] for e in inside} == {6, 7, 8, 9}  # VLD, VCMPS, VSQZ, VST: each pass
    assert len(inside) == 12
    json.dumps(events)


@pytest.mark.parametrize(("field", "message"), [
    ("cnt=P1", "cnt= takes a scalar register S0..S31"),
    ("cnt=5", "cnt= takes a scalar register S0..S31"),
])
def test_cnt_takes_a_scalar_register(field, message):
    with pytest.raises(AsmError, match=message):
        assemble(f"VF.BEGIN\nVSQZ.f32 V1, V0, P0, {field}\nVF.END\n", "bad.asm")


def test_a_fault_the_count_leads_to_names_its_instruction():
    """An address worked out from k that leaves UB faults at the load that uses it, with its loop pass."""
    text = """\
    VF.BEGIN
        PSET.b32 P0, ALL
        LOOP 2
            VSQZ.f32 V1, V0, P0, cnt=S5
            SHL S6, S5, 20
            VLD.f32 V2, [S6]
        ENDLOOP
    VF.END
    HALT
"""
    m = machine(text)
    r = m.run()
    assert r.fault is not None
    assert r.fault.pc == 0x28  # the VLD: 64 lanes kept, 64 << 20 is past UB
    assert "iteration 1 of 2" in r.fault.message


def test_max_instructions_inside_it():
    text = """\
    VF.BEGIN
        PSET.b32 P0, VL4
        VSQZ.f32 V1, V0, P0, cnt=S5
        LOOP S5
            VADDS.f32 V2, V2, 1.0, P0
        ENDLOOP
    VF.END
    HALT
"""
    m = machine(text)
    r = m.run(max_instructions=5)
    assert r.fault is not None and "--max-instructions" in r.fault.message
