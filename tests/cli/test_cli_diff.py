"""`vcore diff A.json B.json` on reports written by hand, so every expected figure is known."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

VCORE = str(Path(sys.executable).with_name("vcore"))


def report(total, v_busy, rows, stalls=None):
    """A report with every key the schema (docs/report.schema.json) requires; the figures are the test's."""
    def pipe(busy):
        return {"busy_cycles": busy, "instructions": 1, "utilisation": busy / total}

    return {"schema": "vcore.report/1", "profile": "950", "total_cycles": total, "time_us": total / 1650,
            "instructions": len(rows), "pipes": {"S": pipe(3), "V": pipe(v_busy), "MTE2": pipe(0), "MTE3": pipe(0)},
            "stalls": stalls or {}, "races": [], "per_pc": rows, "scalars": {}, "dumps": {}, "verdict": "bound by V"}


def row(pc, line, text, count, cycles, bank=0, stalls=None, iterations=8):
    return {"pc": pc, "line": line, "text": text, "pipe": "V", "count": count, "cycles": cycles,
            "iterations": iterations, "bank_conflict_cycles": bank, "stalls": stalls or {}}


def run_diff(tmp_path, a, b):
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a))
    pb.write_text(json.dumps(b))
    return subprocess.run([VCORE, "diff", str(pa), str(pb)], capture_output=True, text=True, timeout=60)


def test_totals_pipes_and_the_cause_of_each_change(tmp_path):
    old = report(200, 180, [row(0, 2, "VADD.f16 [0x8000], [0x0], [0x400], repeat=8", 1, 40, bank=16),
                            row(16, 3, "WAITFLAG MTE2, V, 0", 1, 1, stalls={"flag_wait": 90}),
                            row(24, 4, "VMULS.f16 [0x9000], [0x8000], 2.0, repeat=8", 1, 24)],
                 {"bank_conflict": 16, "flag_wait": 90})
    new = report(150, 130, [row(0, 2, "VADD.f16 [0x8000], [0x0], [0x1100], repeat=8", 1, 24),
                            row(16, 3, "WAITFLAG MTE2, V, 0", 1, 1, stalls={"flag_wait": 56}),
                            row(24, 4, "VMULS.f16 [0x9000], [0x8000], 2.0, repeat=8", 1, 24)],
                 {"bank_conflict": 0, "flag_wait": 56})
    r = run_diff(tmp_path, old, new)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "total cycles         200 -> 150        -50 (-25.0%), 1.33x as fast" in out
    assert "V            180        130  -50 (-27.8%)" in out
    assert "bank conflict           16        0  -16 (-100.0%)" in out
    assert "flag wait               90       56  -34 (-37.8%)" in out
    lines = out.splitlines()
    vadd = next(i for i, line in enumerate(lines) if "VADD.f16 [0x8000], [0x0], [0x400]" in line)
    assert "-16" in lines[vadd] and "bank conflicts -16" in lines[vadd] and "[0x1100]" in lines[vadd]
    wait = next(i for i, line in enumerate(lines) if "WAITFLAG" in line)
    assert "flag wait -34" in lines[wait]
    assert "(1 instruction(s) unchanged)" in out  # the VMULS


def test_instructions_only_in_one_report_and_run_counts(tmp_path):
    old = report(100, 90, [row(0, 2, "VADD.f16 [0x0], [0x0], [0x0]", 4, 40), row(8, 3, "VEXP.f16 [0x0], [0x0]", 1, 9)])
    new = report(60, 50, [row(0, 2, "VADD.f16 [0x0], [0x0], [0x0]", 2, 20), row(8, 3, "HALT", 1, 1)])
    r = run_diff(tmp_path, old, new)
    assert r.returncode == 0, r.stderr
    assert "runs 4 -> 2" in r.stdout
    assert "only in old:" in r.stdout and "VEXP.f16 [0x0], [0x0]" in r.stdout
    assert "only in new:" in r.stdout


def test_a_file_that_is_not_a_report_is_named(tmp_path):
    (tmp_path / "a.json").write_text("{}")
    (tmp_path / "b.json").write_text("not json")
    r = subprocess.run([VCORE, "diff", str(tmp_path / "a.json"), str(tmp_path / "b.json")], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2
    assert "a.json: error: not a vcore report" in r.stderr and "Traceback" not in r.stderr
