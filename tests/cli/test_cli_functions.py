"""CONTRACT section 7 through the command line: vector functions and hardware loops as a user
meets them in `vcore run` (races on stderr, --strict, --profile a2, --trace, assembly errors) and
in `vcore debug`. Expected values are worked out by hand from the contract."""

from __future__ import annotations

import json
import re

import pytest
from cli_support import program, vcore
from trace_format import check_trace

# ----------------------------------------------------------------------------------------------
# helpers


def lines_of(text: str, needle: str) -> list[int]:
    return [i + 1 for i, line in enumerate(text.splitlines()) if needle in line]


def line_of(text: str, needle: str) -> int:
    (n,) = lines_of(text, needle)
    return n


def run_json(tmp_path, text: str, *args, name="p.asm"):
    path = program(tmp_path, text, name)
    r = vcore("run", path, "--report", "json", *args)
    return r, (json.loads(r.stdout) if r.returncode in (0, 1) and r.stdout.strip() else None)


def assert_located_error(r, name: str, lines, col: int | None = None):
    """Exit 2 and `NAME:LINE:COL: error:` on stderr for one of ``lines``."""
    assert r.returncode == 2, (r.returncode, r.stderr)
    found = re.findall(rf"{re.escape(name)}:(\d+):(\d+): error:", r.stderr)
    assert found, r.stderr
    assert any(int(line) in lines and (col is None or int(c) == col) for line, c in found), r.stderr


# ----------------------------------------------------------------------------------------------
# 5. races inside a function, as the CLI reports them


RAW = """\
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


def test_race_inside_a_function_is_a_warning_naming_both_lines(tmp_path):
    r, data = run_json(tmp_path, RAW)
    assert r.returncode == 0, r.stderr
    st, ld = line_of(RAW, "VST.f32 [S1]"), line_of(RAW, "VLD.f32 V1")
    warnings = [w for w in r.stderr.splitlines() if "race" in w.lower()]
    assert warnings, r.stderr
    w = warnings[0]
    assert "RAW" in w and f"line {st}" in w and f"line {ld}" in w, w
    assert "0x1000" in w, w  # the bytes
    races = [x for x in data["races"] if x["kind"] == "RAW"]
    assert races and races[0]["first"]["line"] == st and races[0]["second"]["line"] == ld


def test_race_inside_a_function_is_a_fault_with_strict(tmp_path):
    path = program(tmp_path, RAW)
    r = vcore("run", path, "--strict", "--report", "none")
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert f"line {line_of(RAW, 'VST.f32 [S1]')}" in r.stderr
    assert f"line {line_of(RAW, 'VLD.f32 V1')}" in r.stderr


def test_membar_removes_the_race(tmp_path):
    fenced = RAW.replace("    VLD.f32 V1, [S1]", "    MEMBAR\n    VLD.f32 V1, [S1]")
    path = program(tmp_path, fenced)
    r = vcore("run", path, "--strict", "--report", "none", "--dump", "ub:0x2000:f32:4", ok=True)
    assert "race" not in r.stderr.lower()
    r, data = run_json(tmp_path, fenced, "--strict", "--dump", "ub:0x2000:f32:64")
    assert r.returncode == 0, r.stderr
    assert data["races"] == []
    assert data["dumps"]["ub:0x2000:f32:64"] == [1.0] * 64  # the stored 1.0, not the old 9.0


def test_waw_inside_a_function(tmp_path):
    text = """\
VF.BEGIN
    PSET.b32 P0, ALL
    VST.f32 [0x1000], V0, P0
    VST.f32 [0x1000], V1, P0
VF.END
    HALT
"""
    r, data = run_json(tmp_path, text)
    assert r.returncode == 0, r.stderr
    waw = [x for x in data["races"] if x["kind"] == "WAW"]
    assert waw and (waw[0]["first"]["line"], waw[0]["second"]["line"]) == (3, 4)
    assert any("WAW" in w and "line 3" in w and "line 4" in w for w in r.stderr.splitlines()), r.stderr


# ----------------------------------------------------------------------------------------------
# 6. a2 has no vector functions


@pytest.mark.parametrize("cmd", ["run", "debug"])
def test_a2_refuses_vf_begin_with_exit_2(tmp_path, cmd):
    text = """\
    MOV S1, 0
    MOV S2, 0
VF.BEGIN
    LOOP 2
        MEMBAR
    ENDLOOP
VF.END
    HALT
"""
    path = program(tmp_path, text, "fn.asm")
    r = vcore(cmd, path, "--profile", "a2", stdin="quit\n")
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert re.search(r"fn\.asm:3:\d+: error:", r.stderr), r.stderr
    assert "950" in r.stderr, r.stderr


def test_the_same_program_runs_on_950(tmp_path):
    text = "VF.BEGIN\n    LOOP 2\n        MEMBAR\n    ENDLOOP\nVF.END\n    HALT\n"
    vcore("run", program(tmp_path, text), "--report", "none", ok=True)


# ----------------------------------------------------------------------------------------------
# 9. assembly errors


def test_register_instruction_outside_a_function_is_an_error(tmp_path):
    text = "    MOV S1, 0\n    VLD.f32 V0, [S1]\n    HALT\n"
    r = vcore("run", program(tmp_path, text, "out.asm"))
    assert_located_error(r, "out.asm", {2}, col=5)
    # and after a function's end as well
    text = "VF.BEGIN\n    PSET.b32 P0, ALL\nVF.END\n    PSET.b32 P1, ALL\n    HALT\n"
    r = vcore("run", program(tmp_path, text, "after.asm"))
    assert_located_error(r, "after.asm", {4}, col=5)
    r = vcore("asm", program(tmp_path, text, "after.asm"), "-o", tmp_path / "x.vbin")
    assert_located_error(r, "after.asm", {4}, col=5)
    assert not (tmp_path / "x.vbin").exists()


FORBIDDEN = [
    "DMA.GM2UB [0x0], gm[0x0], len=1",
    "DMA.UB2GM gm[0x0], [0x0], len=1",
    "JMP done",
    "BLT S1, 2, done",
    "HALT",
    "NOP",
    "SETFLAG V, MTE3, 0",
    "WAITFLAG MTE2, V, 0",
    "BARRIER ALL",
    "BARRIER V",
    "VADD.f16 [0], [0], [0]",
    "VADDS.f32 [0x100], [0x0], 1.0",
    "VF.BEGIN",
    "LD.u32 S1, [0x0]",
    "ST.u32 [0x0], S1",
]


@pytest.mark.parametrize("inst", FORBIDDEN)
def test_forbidden_instruction_inside_a_function(tmp_path, inst):
    text = f"""\
    MOV S1, 0
VF.BEGIN
    PSET.b32 P0, ALL
    {inst}
    VST.f32 [0x1000], V0, P0
VF.END
done:
    HALT
"""
    r = vcore("run", program(tmp_path, text, "in.asm"))
    assert_located_error(r, "in.asm", {4}, col=5)


def test_branch_into_a_function_is_an_error(tmp_path):
    text = """\
    JMP inside
VF.BEGIN
    PSET.b32 P0, ALL
inside:
    VST.f32 [0x1000], V0, P0
VF.END
    HALT
"""
    r = vcore("run", program(tmp_path, text, "br.asm"))
    assert_located_error(r, "br.asm", {1, 4, 5})


@pytest.mark.parametrize("text, lines", [
    ("    MOV S1, 0\nVF.BEGIN\n    PSET.b32 P0, ALL\n    HALT\n", {2, 4, 5}),      # no VF.END
    ("VF.BEGIN\n    LOOP 2\n        MEMBAR\nVF.END\n    HALT\n", {2, 4}),        # no ENDLOOP
    ("VF.BEGIN\n    MEMBAR\n    ENDLOOP\nVF.END\n    HALT\n", {3}),              # no LOOP
    ("    MOV S1, 0\nVF.END\n    HALT\n", {2}),                                    # no VF.BEGIN
])
def test_unbalanced_functions_and_loops_are_errors(tmp_path, text, lines):
    r = vcore("run", program(tmp_path, text, "u.asm"))
    assert_located_error(r, "u.asm", lines)


def test_fault_inside_a_function_names_its_line(tmp_path):
    text = """\
    MOV S1, 0x20
VF.BEGIN
    PSET.b32 P0, ALL
    LOOP 3
        VLD.f32 V0, [S1], post=4
    ENDLOOP
VF.END
    HALT
"""
    # iteration 1 loads at 0x20 (aligned); post=4 adds 16 bytes: iteration 2 is at 0x30, misaligned
    r = vcore("run", program(tmp_path, text, "f.asm"), "--report", "none")
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "f.asm:5" in r.stderr or "line 5" in r.stderr, r.stderr
    assert "VLD.f32 V0, [S1], post=4" in r.stderr, r.stderr


# ----------------------------------------------------------------------------------------------
# 7 / 8. report and trace


LAUNCHES = 3
MULTI = f"""\
.gmfill 0x0, f32, 768, 1.5
    DMA.GM2UB [0x0], gm[0x0], len=96
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    MOV S1, 0x0
    MOV S3, 0x4000
    MOV S5, 0
again:
VF.BEGIN
    PSET.b32 P0, ALL
    LOOP 4
        VLD.f32 V0, [S1], post=64
        VADDS.f32 V1, V0, 1.0, P0
        VST.f32 [S3], V1, P0, post=64
    ENDLOOP
VF.END
    ADD S1, S1, 1024
    ADD S3, S3, 1024
    ADD S5, S5, 1
    BLT S5, {LAUNCHES}, again
    VADDS.f32 [0x8000], [0x4000], 0.5, repeat=4
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    DMA.UB2GM gm[0x10000], [0x8000], len=32
    HALT
"""


def _slices(events):
    """(start_ns, end_ns, event) of every complete ("X") slice, on a whole-ns grid."""
    out = []
    for e in events:
        if e.get("ph") != "X":
            continue
        start = round(float(e["ts"]) * 1000)
        out.append((start, start + round(float(e["dur"]) * 1000), e))
    return out


def _pc(e):
    pc = e.get("args", {}).get("pc")
    if pc is None:
        return None
    return int(pc, 0) if isinstance(pc, str) else int(pc)


def assert_nest_or_disjoint(events):
    """On each (pid, tid), any two X slices either nest or do not overlap (Chrome trace format)."""
    tracks: dict = {}
    for s, e, ev in _slices(events):
        assert e >= s, ev
        tracks.setdefault((ev.get("pid"), ev.get("tid")), []).append((s, e, ev))
    for key, slices in tracks.items():
        slices.sort(key=lambda x: (x[0], -x[1]))
        stack: list = []
        for s, e, ev in slices:
            while stack and stack[-1][1] <= s:
                stack.pop()
            if stack:
                ps, pe, pev = stack[-1]
                assert e <= pe, (f"track {key}: '{pev['name']}' [{ps}, {pe}) and '{ev['name']}' [{s}, {e}) "
                                 "overlap without nesting")
            stack.append((s, e, ev))


def test_nest_or_disjoint_checker_catches_a_partial_overlap():
    good = [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0.0, "dur": 0.010},
            {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 0.002, "dur": 0.003},
            {"ph": "X", "name": "c", "pid": 1, "tid": 1, "ts": 0.010, "dur": 0.001},
            {"ph": "X", "name": "d", "pid": 1, "tid": 2, "ts": 0.005, "dur": 0.010}]
    assert_nest_or_disjoint(good)
    bad = [*good, {"ph": "X", "name": "e", "pid": 1, "tid": 1, "ts": 0.004, "dur": 0.003}]
    with pytest.raises(AssertionError):
        assert_nest_or_disjoint(bad)


def test_trace_shows_each_function_run_as_one_v_slice_around_its_instructions(tmp_path):
    path = program(tmp_path, MULTI)
    trace, report = tmp_path / "t.json", tmp_path / "r.json"
    vcore("run", path, "--trace", trace, "--report-file", report, "--report", "none", "--strict", ok=True)
    data = json.loads(report.read_text())
    events = json.loads(trace.read_text())["traceEvents"]

    names = {e["tid"]: e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    (v_tid,) = [t for t, n in names.items() if n == "V"]

    begin_line, end_line = line_of(MULTI, "VF.BEGIN"), line_of(MULTI, "VF.END")
    pcs = {e["line"]: e["pc"] for e in data["per_pc"]}
    begin_pc = pcs[begin_line]
    inner_pcs = {pc for line, pc in pcs.items() if begin_line < line < end_line}
    assert len(inner_pcs) >= 5  # PSET, LOOP, VLD, VADDS, VST (ENDLOOP may have an entry too)

    slices = _slices(events)
    runs_on_v = [(s, e) for s, e, ev in slices if _pc(ev) == begin_pc and ev["tid"] == v_tid]
    assert len(runs_on_v) == LAUNCHES, runs_on_v
    runs_on_v.sort()
    inner = [(s, e, ev) for s, e, ev in slices if _pc(ev) in inner_pcs]
    assert inner
    per_run = [0] * LAUNCHES
    for s, e, ev in inner:
        inside = [k for k, (rs, re_) in enumerate(runs_on_v) if rs <= s and e <= re_]
        assert inside, f"'{ev['name']}' [{s}, {e}) lies in no function run {runs_on_v}"
        per_run[inside[0]] += 1
    assert all(n > 0 for n in per_run), per_run
    # the exact cycles in args tell the same
    for _, _, ev in slices:
        if _pc(ev) in inner_pcs and "start_cycle" in ev["args"]:
            fn = [x for _, _, x in slices if _pc(x) == begin_pc and x["tid"] == v_tid
                  and x["args"]["start_cycle"] <= ev["args"]["start_cycle"]
                  and ev["args"]["end_cycle"] <= x["args"]["end_cycle"]]
            assert fn, ev
    assert_nest_or_disjoint(events)
    check_trace(json.loads(trace.read_text()))


def test_trace_tracks_nest_or_are_disjoint_for_a_single_long_function(tmp_path):
    text = """\
.ubfill 0x0, f32, 8192, 2.0
    MOV S1, 0x0
    MOV S3, 0x8000
    VADDS.f32 [0x10000], [0x0], 1.0, repeat=8
VF.BEGIN
    PSET.b32 P0, ALL
    LOOP 16
        VLD.f32 V0, [S1], post=64
        VLD.f32 V1, [S1 + 0x4000]
        VMUL.f32 V2, V0, V1, P0
        VEXP.f32 V3, V2, P0
        VDIV.f32 V4, V3, V1, P0
        VST.f32 [S3], V4, P0, post=64
    ENDLOOP
VF.END
    VADDS.f32 [0x10000], [0x8000], 1.0, repeat=8
    HALT
"""
    path = program(tmp_path, text)
    trace = tmp_path / "t.json"
    vcore("run", path, "--trace", trace, "--report", "none", ok=True)
    assert_nest_or_disjoint(check_trace(json.loads(trace.read_text()))["traceEvents"])


def test_report_counts_and_cycles_from_the_cli(tmp_path):
    r, data = run_json(tmp_path, MULTI, "--strict", "--dump", "gm:0x10000:f32:8", "--dump",
                       f"ub:0x4000:f32:{LAUNCHES * 4 * 64 + 64}")
    assert r.returncode == 0, r.stderr
    assert data["races"] == []
    assert data["dumps"]["gm:0x10000:f32:8"] == [3.0] * 8  # 1.5 + 1.0 in the function, + 0.5 after
    n = LAUNCHES * 4 * 64  # each launch wrote 4 tiles of 64 f32 (2.5); the tile after them is zero
    assert data["dumps"][f"ub:0x4000:f32:{n + 64}"] == [2.5] * n + [0.0] * 64
    by_line = {e["line"]: e for e in data["per_pc"]}

    def count(needle):
        return by_line[line_of(MULTI, needle)]["count"]

    assert count("VF.BEGIN") == LAUNCHES
    assert count("LOOP 4") == LAUNCHES                       # starts
    assert count("ENDLOOP") == LAUNCHES * 4                  # iterations
    for needle in ("VLD.f32", "VADDS.f32 V1", "VST.f32"):
        assert count(needle) == LAUNCHES * 4, needle
    begin = by_line[line_of(MULTI, "VF.BEGIN")]
    assert begin["pipe"] == "V"
    first, last = line_of(MULTI, "VF.BEGIN"), line_of(MULTI, "VF.END")
    for line, e in by_line.items():
        if first < line < last:
            # one run of an instruction inside lies within one run of the function
            assert e["count"] >= 1 and e["cycles"] / e["count"] <= begin["cycles"], e
    assert data["total_cycles"] >= begin["cycles"]
    # the scalar loop's pointers moved only by the ADDs outside
    assert data["scalars"]["S1"] == LAUNCHES * 1024 and data["scalars"]["S3"] == 0x4000 + LAUNCHES * 1024


# ----------------------------------------------------------------------------------------------
# 10. the debugger inside a function


def _values(base):
    return [base + k + 0.5 for k in range(64)]


DEBUG = f"""\
.ub 0x200, f32, {", ".join(repr(v) for v in _values(0))}
.ub 0x300, f32, {", ".join(repr(v) for v in _values(100))}
    MOV S1, 0x200
    MOV S3, 0x1000
VF.BEGIN
    PSET.b32 P0, VL3
    LOOP 2
        VLD.f32 V0, [S1], post=64
        VST.f32 [S3], V0, P0, post=64
    ENDLOOP
VF.END
    HALT
"""
L_MOV1, L_MOV3, L_BEGIN, L_PSET, L_LOOP, L_VLD, L_VST, L_ENDLOOP, L_END, L_HALT = range(3, 13)
TEXT = {L_MOV1: "MOV S1, 0x200", L_MOV3: "MOV S3, 0x1000", L_BEGIN: "VF.BEGIN", L_PSET: "PSET.b32 P0, VL3",
        L_LOOP: "LOOP 2", L_VLD: "VLD.f32 V0, [S1], post=64", L_VST: "VST.f32 [S3], V0, P0, post=64",
        L_ENDLOOP: "ENDLOOP", L_END: "VF.END", L_HALT: "HALT"}


def debug(tmp_path, commands: str) -> list[str]:
    assert DEBUG.splitlines()[L_VLD - 1].strip() == TEXT[L_VLD]
    path = program(tmp_path, DEBUG, "d.asm")
    r = vcore("debug", path, stdin=commands)
    assert r.returncode == 0, (r.stdout, r.stderr)
    return r.stdout.splitlines()


NEXT = re.compile(r"^next: line (\d+) \((.*?)\)")


def next_lines(out: list[str]) -> list[tuple[int, str]]:
    got = []
    for line in out:
        m = NEXT.match(line)
        if m:
            got.append((int(m.group(1)), line))
    return got


def test_stepping_visits_every_instruction_of_every_iteration(tmp_path):
    out = debug(tmp_path, "step\n" * 16 + "quit\n")
    seen = next_lines(out)
    for line, shown in seen:
        assert shown.startswith(f"next: line {line} ({TEXT[line]})"), shown  # it names the instruction
    # ENDLOOP and VF.END may or may not be stops of their own; every other instruction is
    order = [line for line, _ in seen if line not in (L_ENDLOOP, L_END)]
    assert order == [L_MOV1, L_MOV3, L_BEGIN, L_PSET, L_LOOP, L_VLD, L_VST, L_VLD, L_VST, L_HALT], seen
    assert any(line.startswith("the program has ended") for line in out), out


def test_print_inside_a_function_shows_the_functions_registers(tmp_path):
    out = debug(tmp_path, f"break {L_VST}\ncontinue\nprint S1\nprint V0.f32\nprint P0\nprint S3\n"
                          f"continue\nprint S1\nprint V0.f32\nprint S3\n"
                          f"delete\nbreak {L_HALT}\ncontinue\nprint S1\nprint S3\nprint ub:0x1000:f32:4\n"
                          f"print ub:0x1100:f32:4\nquit\n")
    s1 = [line for line in out if line.startswith("S1 = ")]
    s3 = [line for line in out if line.startswith("S3 = ")]
    v0 = [line for line in out if line.startswith("V0.f32 = ")]
    p0 = [line for line in out if line.startswith("P0 = ")]
    # iteration 1, before its VST: the VLD's post=64 moved the function's S1 by 64 * 4 bytes
    # iteration 2: by another 256; S3 moved by the first VST's post=64
    # after the function: the scalar unit's own S1 and S3 again
    assert s1 == [f"S1 = {0x200 + 256}", f"S1 = {0x200 + 512}", f"S1 = {0x200}"], out
    assert s3 == [f"S3 = {0x1000}", f"S3 = {0x1000 + 256}", f"S3 = {0x1000}"], out
    assert v0 == ["V0.f32 = " + " ".join(repr(v) for v in _values(0)),
                  "V0.f32 = " + " ".join(repr(v) for v in _values(100))], out
    # PSET.b32 VL3: 3 lanes of 4 bytes
    assert p0 == ["P0 = entries 0..11 (12 of 256 entries set)"], out
    # the VSTs under P0 stored lanes 0..2 only
    assert "ub:0x1000:f32:4 = 0.5 1.5 2.5 0.0" in out, out
    assert "ub:0x1100:f32:4 = 100.5 101.5 102.5 0.0" in out, out


def test_inside_a_function_print_and_watch_show_its_own_stores(tmp_path):
    # The function's stores land in the machine's UB when its V job ends; inside it, the debugger shows
    # the function's own view: before iteration 2's VST, iteration 1's store (lanes 0..2 of 0x200's
    # values at 0x1000) is there and iteration 2's (at 0x1100) is not yet.
    out = debug(tmp_path, f"break {L_VST}\ncontinue\ncontinue\nprint ub:0x1000:f32:4\nprint ub:0x1100:f32:4\n"
                          f"delete\nwatch ub:0x1100:4\ncontinue\nquit\n")
    assert "ub:0x1000:f32:4 = 0.5 1.5 2.5 0.0" in out, out
    assert "ub:0x1100:f32:4 = 0.0 0.0 0.0 0.0" in out, out
    # the watch stops right after iteration 2's VST, still inside the function: 100.5 as f32 is 0x42c90000
    changed = out.index("watch ub:0x1100:4 changed")
    assert out[changed + 1:changed + 3] == ["  old: 00 00 00 00", "  new: 00 00 c9 42"], out
    assert NEXT.match(out[changed + 3]) and int(NEXT.match(out[changed + 3]).group(1)) in (L_ENDLOOP, L_END), out


def test_breakpoint_inside_a_loop_stops_in_every_iteration(tmp_path):
    out = debug(tmp_path, f"break {L_VLD}\ncontinue\ncontinue\ncontinue\n")
    stops = [line for line, _ in next_lines(out)]
    # the start, then iteration 1 and 2 at the VLD, then the end
    assert stops[:3] == [L_MOV1, L_VLD, L_VLD], out
    assert any(line.startswith("the program has ended") for line in out), out


def test_back_inside_a_function_returns_to_the_previous_inner_instruction(tmp_path):
    out = debug(tmp_path, f"break {L_VST}\ncontinue\ncontinue\nprint S1\nback\nprint S1\nprint V0.f32\n"
                          "step\nprint S1\nprint V0.f32\nquit\n")
    seen = next_lines(out)
    # ... stopped before the VST of iteration 2; back undoes that iteration's VLD
    idx = next(i for i, line in enumerate(out) if line == f"S1 = {0x200 + 512}")
    after = out[idx + 1:]
    assert NEXT.match(after[0]) and int(NEXT.match(after[0]).group(1)) == L_VLD, after
    assert after[1] == f"S1 = {0x200 + 256}", after
    assert after[2] == "V0.f32 = " + " ".join(repr(v) for v in _values(0)), after  # iteration 1's data
    assert int(NEXT.match(after[3]).group(1)) == L_VST, after
    assert after[4] == f"S1 = {0x200 + 512}", after
    assert after[5] == "V0.f32 = " + " ".join(repr(v) for v in _values(100)), after
    assert seen


def test_back_from_the_first_inner_instruction_returns_to_vf_begin(tmp_path):
    out = debug(tmp_path, f"break {L_LOOP}\ncontinue\nback\nback\nprint P0\nstep\nstep\nprint P0\n"
                          "quit\n")
    stops = [line for line, _ in next_lines(out)]
    # start, breakpoint at LOOP, back to PSET (undone), back to VF.BEGIN, step to PSET, step to LOOP
    assert stops == [L_MOV1, L_LOOP, L_PSET, L_BEGIN, L_PSET, L_LOOP], out
    p0 = [line for line in out if line.startswith("P0 = ")]
    assert p0[-1] == "P0 = entries 0..11 (12 of 256 entries set)", out
