"""`vcore run --trace` of a whole kernel (`--cores N`, `--blocks B`) and `--trace-time`, as a user runs
them: every trace passes the format checker (tests/trace_format.py), is the same byte for byte for
every `--jobs`, and loads in Perfetto's own trace processor where that can be had."""

from __future__ import annotations

import json
import os

import pytest
from cli_support import program, vcore, vcore_here
from trace_format import check_trace, ns

KERNEL = """\
.gmfill 0x0, f32, 2048, 1.5
    MOV S1, BLOCKIDX
    MUL S2, S1, 0x400
    DMA.GM2UB [0x0], gm[S2], len=32
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    VADDS.f32 [0x1000], [0x0], 1.0, repeat=4
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    SYNCALL
    DMA.UB2GM gm[S2 + 0x4000], [0x1000], len=32
    HALT
"""
NO_SYNCALL = KERNEL.replace("    SYNCALL\n", "")


def traced(tmp_path, text: str, *args: str) -> dict:
    path, out = program(tmp_path, text, "k.asm"), tmp_path / "t.json"
    r = vcore_here("run", path, "--report", "none", "--trace", out, *args)
    assert r.returncode == 0, r.stderr
    return check_trace(json.loads(out.read_text()))


def names(trace: dict, what: str) -> list[str]:
    return [e["args"]["name"] for e in trace["traceEvents"] if e["name"] == what]


def test_a_kernel_on_cores_is_a_process_a_core(tmp_path):
    trace = traced(tmp_path, KERNEL, "--cores", "3")
    assert names(trace, "process_name") == ["chip", "core 0", "core 1", "core 2"]
    assert names(trace, "thread_name") == ["blocks", "S", "V", "MTE2", "MTE3"] * 3
    events = trace["traceEvents"]
    assert sum(e["ph"] == "i" and e["name"] == "SYNCALL arrival" for e in events) == 3
    assert sum(e["ph"] == "i" and e["name"] == "SYNCALL release" for e in events) == 3
    assert sum(e["ph"] == "f" and e["cat"] == "syncall" for e in events) == 3
    assert any(e["ph"] == "C" for e in events) and trace["metadata"]["cores"] == 3


def test_blocks_on_fewer_cores_with_the_cycles_axis(tmp_path):
    trace = traced(tmp_path, NO_SYNCALL, "--blocks", "5", "--cores", "2", "--trace-time", "cycles")
    assert names(trace, "process_name") == ["chip", "core 0", "core 1"]
    blocks = sorted((e["args"]["block"], e["pid"] - 1) for e in trace["traceEvents"] if e.get("cat") == "block")
    assert [b for b, _ in blocks] == [0, 1, 2, 3, 4] and {c for _, c in blocks} == {0, 1}
    slices = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert all(ns(e["ts"]) == e["args"]["start_cycle"] and ns(e["dur"]) == e["args"]["cycles"] > 0 for e in slices)
    assert trace["metadata"]["time"] == "cycles" and trace["metadata"]["blocks"] == 5


@pytest.mark.parametrize("launch", [("--cores", "4"), ("--blocks", "40", "--cores", "3")], ids=["cores", "blocks"])
def test_the_trace_file_is_the_same_for_every_jobs(tmp_path, launch):
    text = KERNEL if launch[0] == "--cores" else NO_SYNCALL
    path = program(tmp_path, text, "k.asm")
    files = []
    for jobs in (1, 2, 3):
        out = tmp_path / f"t{jobs}.json"
        vcore("run", path, *launch, "--jobs", jobs, "--report", "none", "--trace", out, ok=True)
        files.append(out.read_bytes())
    assert files[0] == files[1] == files[2]
    check_trace(json.loads(files[0]))


def test_trace_time_needs_a_trace_and_is_real_or_cycles(tmp_path):
    path = program(tmp_path, KERNEL, "k.asm")
    r = vcore_here("run", path, "--trace-time", "cycles")
    assert r.returncode == 2
    assert r.stderr == "vcore: error: --trace-time sets the time axis of a trace: give --trace FILE.json too\n"
    r = vcore_here("run", path, "--trace", tmp_path / "t.json", "--trace-time", "seconds")
    assert r.returncode == 2 and "'seconds' is not one of 'real', 'cycles'" in r.stderr
    assert not (tmp_path / "t.json").exists()


def test_one_core_s_trace_on_the_cycles_axis(tmp_path):
    trace = traced(tmp_path, "    VADDS.f32 [0x100], [0x0], 1.0\n    HALT\n", "--trace-time", "cycles")
    assert names(trace, "process_name") == ["vcore (950)"]
    assert trace["metadata"]["time"] == "cycles"
    assert all(ns(e["dur"]) == e["args"]["cycles"] for e in trace["traceEvents"] if e["ph"] == "X")


def _trace_processor(path):
    """Perfetto's trace processor on ``path``, or a skip saying why it cannot be had here."""
    api = pytest.importorskip("perfetto.trace_processor",
                              reason="the perfetto package (Perfetto's Python API) is not installed: it is not a "
                                     "test extra, as its trace processor downloads a binary (pyproject.toml)")
    config = api.TraceProcessorConfig(bin_path=os.environ.get("VCORE_TRACE_PROCESSOR"), load_timeout=60)
    try:
        return api.TraceProcessor(trace=str(path), config=config)
    except Exception as err:  # whatever stops it starting: most often the download of its binary
        pytest.skip(f"Perfetto's trace processor could not start ({type(err).__name__}: {err}): the perfetto "
                    f"package downloads its trace_processor_shell binary on first use, which needs the network; "
                    f"point VCORE_TRACE_PROCESSOR at a downloaded trace_processor_shell to run this test")


def test_perfetto_s_own_trace_processor_reads_a_kernel_trace(tmp_path):
    trace = traced(tmp_path, KERNEL, "--cores", "2")
    tp = _trace_processor(tmp_path / "t.json")
    try:
        def rows(sql: str) -> list:
            return list(tp.query(sql))

        processes = sorted(r.name for r in rows("select name from process where name is not null"))
        assert processes == ["chip", "core 0", "core 1"]
        events = trace["traceEvents"]
        drawn = sum(e["ph"] in "Xb" or (e["ph"] == "i") for e in events)
        assert rows("select count(*) as n from slice")[0].n == drawn
        assert rows("select count(*) as n from flow")[0].n == len({e["id"] for e in events if e["ph"] == "s"})
        counters = {r.name for r in rows("select name from counter_track")}
        assert {"GM bandwidth (bytes/cycle) GM to UB", "GM bandwidth (bytes/cycle) UB to GM"} <= counters
        in_flight = {r.name for r in rows("select distinct t.name from slice s join track t on s.track_id = t.id "
                                          "where s.category glob '* in flight'")}
        assert in_flight <= {"V in flight", "MTE2 in flight", "MTE3 in flight"}
        problems = rows("select name, value from stats where value > 0 and severity in ('error', 'data_loss')")
        assert problems == []
    finally:
        tp.close()


def test_the_kernel_traces_docs_timing_md_shows_are_as_it_says(tmp_path):
    """docs/timing.md, "A kernel's trace": its two commands, run from the repository's root, draw what
    the text after them says."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    section = (root / "docs" / "timing.md").read_text().split("### A kernel's trace", 1)[1].split("\n## ", 1)[0]
    commands = [line.split()[1:] for line in section.splitlines() if line.startswith("    vcore run ")]
    assert [c[-1] for c in commands] == ["gelu.json", "cycles"]
    traces = []
    for command in commands:
        out = tmp_path / command[command.index("--trace") + 1]
        command[command.index("--trace") + 1] = str(out)
        vcore(*command, "--report", "none", cwd=root, ok=True)
        traces.append(check_trace(json.loads(out.read_text())))
    gelu, blocks = traces
    assert names(gelu, "process_name") == ["chip", "core 0", "core 1"]
    tracks = ["blocks", "S", "V", "V (overlap 1)", "V (overlap 2)", "V (overlap 3)", "MTE2", "MTE3"]
    assert names(gelu, "thread_name") == tracks * 2
    assert {(e["pid"], e["name"]) for e in gelu["traceEvents"] if e["ph"] == "b"} == \
        {(core, track) for core in (1, 2) for track in ("V in flight", "MTE3 in flight")}
    assert sum(e["ph"] == "s" and e["cat"] == "flag" for e in gelu["traceEvents"]) == 2 * 2
    assert names(blocks, "process_name") == ["chip", "core 0", "core 1", "core 2", "core 3"]
    assert [e["args"]["block"] for e in blocks["traceEvents"] if e.get("cat") == "block" and e["pid"] == 1] == [0, 4, 8]
    assert blocks["metadata"]["time"] == "cycles" and blocks["metadata"]["blocks"] == 12
