"""CONTRACT section 10, `vcore sweep`: a row per combination of -D values and profiles, in the
order given; a failing combination is a row with its error; CSV, JSON and a table; the same rows
from one process, several, or a Dask cluster (a LocalCluster here); --plot draws a PNG."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from vcore.cli import main

# N passes of ADD and BLT (1 cycle each on S in both profiles), after MOV and the LD of gm[A]
# (scalar.load_gm = 100 cycles in both), then HALT: 1 + 100 + 2N + 1 = 2N + 102 cycles. A = 2 is not
# aligned for LD.u32: an assembly error, so that combination's row carries it.
PROGRAM = """
.equ N, 1
.equ A, 0
    MOV S1, 0
    LD.u32 S2, gm[A]
loop:
    ADD S1, S1, 1
    BLT S1, N, loop
    HALT
"""


def sweep(tmp_path, *args):
    path = tmp_path / "loop.asm"
    path.write_text(PROGRAM)
    return CliRunner().invoke(main, ["sweep", str(path), *args], catch_exceptions=False)


def test_every_combination_is_a_row_with_its_cycles_or_its_error(tmp_path):
    r = sweep(tmp_path, "-D", "N=1,5", "-D", "A=0,2", "--profile", "950,a2", "-o", str(tmp_path / "out.csv"),
              "--jobs", "2")
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader(io.StringIO((tmp_path / "out.csv").read_text())))
    assert [(row["N"], row["A"], row["profile"]) for row in rows] == [
        ("1", "0", "950"), ("1", "0", "a2"), ("1", "2", "950"), ("1", "2", "a2"),
        ("5", "0", "950"), ("5", "0", "a2"), ("5", "2", "950"), ("5", "2", "a2")]
    assert [row["total_cycles"] for row in rows] == ["104", "104", "", "", "112", "112", "", ""]
    assert [row["busy_S"] for row in rows if row["A"] == "0"] == ["104", "104", "112", "112"]
    assert all("not aligned to 4 bytes" in row["error"] for row in rows if row["A"] == "2")
    assert all(row["error"] == "" and row["verdict"].startswith("bound by S") for row in rows if row["A"] == "0")
    assert "4 of 8 runs failed" in r.stderr


def test_json_and_one_process_give_the_same_rows(tmp_path):
    sweep(tmp_path, "-D", "N=1,2,3", "-o", str(tmp_path / "a.json"), "--jobs", "1")
    sweep(tmp_path, "-D", "N=1,2,3", "-o", str(tmp_path / "b.csv"), "--jobs", "3")
    rows = json.loads((tmp_path / "a.json").read_text())
    assert [(r["N"], r["total_cycles"]) for r in rows] == [(1, 104), (2, 106), (3, 108)]
    again = list(csv.DictReader(io.StringIO((tmp_path / "b.csv").read_text())))
    assert [int(r["total_cycles"]) for r in again] == [104, 106, 108]


def test_without_o_a_table_is_printed(tmp_path):
    r = sweep(tmp_path, "-D", "N=2,4")
    lines = r.stdout.splitlines()
    assert lines[0].split()[:3] == ["N", "profile", "total_cycles"]
    assert [line.split()[:3] for line in lines[1:]] == [["2", "950", "106"], ["4", "950", "110"]]
    assert lines[0].split()[-2:] == ["bound", "error"] and [line.split()[-1] for line in lines[1:]] == ["S", "S"]


def test_a_dask_cluster_gives_the_same_rows(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) \
            as cluster:
        r = sweep(tmp_path, "-D", "N=1,3", "--profile", "950,a2", "--dask", cluster.scheduler_address,
                  "-o", str(tmp_path / "d.json"))
    assert r.exit_code == 0, r.output
    rows = json.loads((tmp_path / "d.json").read_text())
    assert [(r["N"], r["profile"], r["total_cycles"]) for r in rows] == [
        (1, "950", 104), (1, "a2", 104), (3, "950", 108), (3, "a2", 108)]


def test_plot_draws_cycles_against_the_first_varied_constant(tmp_path):
    pytest.importorskip("matplotlib")
    r = sweep(tmp_path, "-D", "A=0", "-D", "N=1,2,4", "--profile", "950,a2", "--plot", str(tmp_path / "s.png"))
    assert r.exit_code == 0, r.output
    assert (tmp_path / "s.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(("args", "message"), [
    (("-D", "N="), "give the values to sweep"),
    ((), "nothing to sweep"),
    (("-D", "N=1,2", "-o", "rows.txt"), "write .csv or .json"),
    (("-D", "N=1", "-D", "N=2"), "-D N is given twice"),
    (("-D", "N=1,2", "--profile", "950,nope"), "unknown profile 'nope'"),
    (("-D", "BLOCKIDX=1,2"), "reserved name"),
    (("-D", "N=1,2", "--cores", "0"), "--cores must be 1..64"),
])
def test_bad_sweeps_are_one_clear_message(tmp_path, args, message):
    r = sweep(tmp_path, *args)
    assert r.exit_code == 2 and message in r.output and "Traceback" not in r.output, r.output
