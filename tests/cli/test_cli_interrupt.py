"""Nothing is lost: Ctrl-C during a long run stops it cleanly with the partial report, and the
report file, dumps and trace of a faulting run are still written, whole."""

from __future__ import annotations

import json
import os
import signal
import subprocess

import numpy as np
import pytest
from cli_support import FOREVER, VCORE, wait_for_cpu
from trace_format import check_trace


@pytest.mark.skipif(os.name != "posix", reason="SIGINT delivery")
def test_ctrl_c_stops_with_the_partial_report(tmp_path):
    prog = tmp_path / "forever.asm"
    prog.write_text(FOREVER)
    report = tmp_path / "r.json"
    proc = subprocess.Popen([VCORE, "run", str(prog), "--max-instructions", "2000000000", "--report-file",
                             str(report), "--dump", "ub:0x1000:f32:2"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            # a test run started in the background (``cmd &``) ignores SIGINT, and a
                            # child inherits that: give the run the default disposition, as a terminal would
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # noqa: PLW1509
    wait_for_cpu(proc.pid)  # past start-up, well into the loop
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:  # never leave a runaway run behind (SIGINT ignored, say)
        proc.kill()
        proc.communicate()
        raise
    assert proc.returncode == 130, err
    assert "Traceback" not in out + err
    assert "interrupted" in err and "at pc 0x" in err, err
    assert "stopped by a fault" in out and "ADD S1, S1, 1" in out  # the partial text report
    data = json.loads(report.read_text())
    assert data["fault"]["kind"] == "interrupt"
    assert data["instructions"] > 1000
    # S1 counts the loop passes that dispatched; the VADDS results seen in the dump are real values.
    assert data["scalars"]["S1"] >= data["instructions"] // 3 - 1
    assert not list(tmp_path.glob(".*.tmp")), "a temporary file was left behind"


def test_outputs_are_written_after_a_fault(tmp_path):
    prog = tmp_path / "fault.asm"
    prog.write_text(".ubfill 0x0, f32, 64, 2.0\n    VADDS.f32 [0x100], [0x0], 1.0\n    MOV S1, 7\n"
                    "    VF.BEGIN\n    VLD.f32 V0, [S1]\n    VF.END\n    HALT\n")
    report, trace, dump = tmp_path / "r.json", tmp_path / "t.json", tmp_path / "d.npy"
    r = subprocess.run([VCORE, "run", str(prog), "--report-file", str(report), "--trace", str(trace),
                        "--dump", f"ub:0x100:f32:4={dump}", "--report", "none"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 1, r.stderr
    assert "fault.asm:5" in r.stderr and "VLD.f32 V0, [S1]" in r.stderr   # the instruction inside the function
    data = json.loads(report.read_text())
    assert data["fault"]["kind"] == "fault" and data["scalars"]["S1"] == 7
    # the VADDS before the fault completed: 2.0 + 1.0
    np.testing.assert_array_equal(np.load(dump), np.full(4, 3.0, dtype=np.float32))
    events = check_trace(json.loads(trace.read_text()))["traceEvents"]
    assert any(e.get("name", "").startswith("VADDS.f32") for e in events)
