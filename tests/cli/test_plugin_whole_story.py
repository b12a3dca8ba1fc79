"""The pytest plugin tells the whole story (issue 33, item 2): every failing EXPECT line of a program,
not only the first; for an array, how many elements differ, the first few (element, got, expected,
off by, allowed) and the worst; ``pytest path/to/x.asm`` collects a file named on the command line
wherever it is; test IDs name the file once (``x.asm``), and ``x.asm::<run>`` for a program with
several ``; RUN`` lines, which runs once per line. Each a pytest run in a temporary project, with the
plugin as installed; every number below worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest
from cli_support import failure_bodies, outcomes, plugin_run, pytest_run

# 1 2 ... 8 in f32 at UB 0x0, doubled into 0x100: 2 4 6 8 10 12 14 16.
DOUBLED = ".ub 0x0, f32, 1, 2, 3, 4, 5, 6, 7, 8\nVADD.f32 [0x100], [0x0], [0x0], mask=8\nMOV S1, 7\nHALT\n"

PROGRAMS = {
    # Three EXPECT lines fail, one passes: all three are named, each with its line.
    #   line 5: S1 is 7, not 8; line 6: element 1 is 4, not 5 (one element); line 8: element 7 is 16, not 15
    "several.asm": DOUBLED + "; EXPECT S1 = 8\n; EXPECT ub:0x100:f32:2 = 2 5\n; EXPECT ub:0x108:f32:2 = 6 8\n"
                             "; EXPECT ub:0x11c:f32:1 = 15\n",
    # want.npy = 2 5.5 6 8 12 12 9 16, rtol=0.1 atol=0.5: allowed = 0.5 + 0.1 |want| =
    #   0.7 1.05 1.1 1.3 1.7 1.7 1.4 2.1; off by 0 1.5 0 0 2 0 5 0: elements 1, 4 and 6 differ (3 of 8),
    #   past their allowance by 0.45, 0.3 and 3.6: the worst is element 6 (14 against 9).
    "close.asm": DOUBLED + "; EXPECT ub:0x100:f32:8 ~= want.npy rtol=0.1 atol=0.5\n",
    # Bit for bit, 2 5 7 9 11 13 20 16 against 2 4 6 8 10 12 14 16: elements 1..6 differ (6 of 8), the
    # first five listed and "1 more"; the worst is element 6, off by 6 (the others by 1).
    "exact.asm": DOUBLED + "; EXPECT ub:0x100:f32:8 = 2 5 7 9 11 13 20 16\n",
    # Integers, exactly: 7 and 9 where 6 and 8 are (2 of 4, off by 1 each: the worst is the first, element 2).
    "integers.asm": ".ub 0x0, s32, 1, 2, 3, 4\nVADD.s32 [0x100], [0x0], [0x0], mask=4\nHALT\n"
                    "; EXPECT ub:0x100:s32:4 = 2 4 7 9\n",
    # A race nobody declared and a wrong EXPECT: both are said.
    "race_and_value.asm": "    DMA.GM2UB [0x0], gm[0x0], len=8\n    VADD.f32 [0x100], [0x0], [0x0], mask=8\n"
                          "    MOV S1, 3\n    HALT\n; EXPECT S1 = 4\n",
    # A fault nobody expected: the EXPECT lines describe a run that ended, so they are not checked.
    "fault.asm": "MOV S1, 3\nVADD.f32 [0x1], [0x0], [0x0]\nHALT\n; EXPECT S1 = 4\n; EXPECT S2 = 0\n",
    # Two bad lines: each is named.
    "two_bad_lines.asm": "HALT\n; EXPECT S99 = 1\n; EXPECT ub:0x0:u8:1 = 300\n",
    # Two RUN lines: two tests, x.asm::profile-a2 and x.asm::cores-2-jobs-1; on a2 the function is refused.
    "runs.asm": "MOV S1, 5\nHALT\n; RUN --profile a2\n; RUN --cores 2 --jobs 1\n; EXPECT S1 = 5\n",
    "runs_a2.asm": "VF.BEGIN\n    PSET.b32 P0, ALL\nVF.END\nMOV S1, 1\nHALT\n; RUN --profile 950\n; RUN --profile a2\n"
                   "; EXPECT S1 = 1\n",
    "one_run.asm": "MOV S1, 5\nHALT\n; RUN --strict\n; EXPECT S1 = 5\n",
}


@pytest.fixture(scope="module")
def outcome(tmp_path_factory):
    """{test ID: (PASSED or FAILED, its failure's text)} of one run over the programs, and the folder."""
    folder = tmp_path_factory.mktemp("story")
    for name, text in PROGRAMS.items():
        (folder / name).write_text(text)
    np.save(folder / "want.npy", np.array([2, 5.5, 6, 8, 12, 12, 9, 16]))
    out = plugin_run(folder).stdout
    bodies = failure_bodies(out)
    return {test: (state, bodies.get(test, "")) for test, state in outcomes(out, whole_ids=True).items()}, folder, out


def body(outcome, test: str) -> list[str]:
    result, folder, out = outcome
    state, text = result[test]
    assert state == "FAILED", (test, state, out)
    assert "Traceback" not in text, text
    return text.replace(str(folder) + "/", "").splitlines()


def test_every_failing_expect_line_is_named(outcome):
    lines = body(outcome, "several.asm")
    assert lines == ["several.asm: 3 of 4 EXPECT lines failed",
                     "several.asm:5: S1 = 7, expected 8",
                     "several.asm:6: element 1 of ub:0x100:f32:2 is 4.0, expected 5 (1 of 2 differ)",
                     "several.asm:8: element 0 of ub:0x11c:f32:1 is 16.0, expected 15 (1 of 1 differ)"], lines


def test_an_array_says_how_many_differ_the_first_few_and_the_worst(outcome):
    lines = body(outcome, "close.asm")
    assert lines[0] == ("close.asm:5: 3 of 8 elements of ub:0x100:f32:8 differ from want.npy (rtol=0.1, atol=0.5); "
                        "the worst, element 6: 14.0, expected 9.0 (off by 5, allowed 1.4)"), lines
    table = [line.split() for line in lines[1:]]
    assert table == [["element", "got", "expected", "off", "by", "allowed"],
                     ["1", "4.0", "5.5", "1.5", "1.05"],
                     ["4", "10.0", "12.0", "2", "1.7"],
                     ["6", "14.0", "9.0", "5", "1.4"]], lines


def test_an_exact_array_lists_the_first_five_and_counts_the_rest(outcome):
    lines = body(outcome, "exact.asm")
    assert lines[0].startswith("exact.asm:5: 6 of 8 elements of ub:0x100:f32:8 differ (bit for bit); the worst, "
                               "element 6: 14.0, expected 20 (off by 6 ("), lines
    assert [row.split()[:4] for row in lines[2:7]] == [
        ["1", "4.0", "5", "1"], ["2", "6.0", "7", "1"], ["3", "8.0", "9", "1"], ["4", "10.0", "11", "1"],
        ["5", "12.0", "13", "1"]], lines
    assert lines[7:] == ["    ... and 1 more"], lines
    # f32 ulps: 4 and 5 are 2**21 apart (the ulp of [4, 8) is 2**-21), 8 and 9 2**20 apart
    assert f"({2**21} ulp)" in lines[2] and f"({2**20} ulp)" in lines[4], lines


def test_integers_are_compared_exactly(outcome):
    lines = body(outcome, "integers.asm")
    assert lines[0] == ("integers.asm:4: 2 of 4 elements of ub:0x100:s32:4 differ (exactly); the worst, element 2: "
                        "6, expected 7 (off by 1, allowed 0)"), lines
    assert [row.split() for row in lines[2:]] == [["2", "6", "7", "1", "0"], ["3", "8", "9", "1", "0"]], lines


def test_a_race_and_a_value_are_both_said(outcome):
    lines = body(outcome, "race_and_value.asm")
    assert len(lines) == 3 and lines[0] == "race_and_value.asm: 1 of 1 EXPECT lines failed", lines
    assert lines[1] == "race_and_value.asm: races ['RAW'] (RAW line 1 / line 2), expected none", lines
    assert lines[2] == "race_and_value.asm:5: S1 = 3, expected 4", lines


def test_an_unexpected_fault_is_said_and_the_expect_lines_are_not_checked(outcome):
    lines = body(outcome, "fault.asm")
    assert lines == ["fault.asm: unexpected fault: fault.asm:2: error: destination: UB address 0x1 is not 32-byte "
                     "aligned", "  at pc 0x0008: VADD.f32 [0x1], [0x0], [0x0]",
                     "fault.asm: 2 EXPECT line(s) not checked (the run did not end)"], lines


def test_every_bad_line_is_named(outcome):
    assert body(outcome, "two_bad_lines.asm") == [
        "two_bad_lines.asm:2: there is no S99 (S0..S31)",
        "two_bad_lines.asm:3: 300 is outside u8 (0..255)"]


def test_ids_name_the_file_once_and_each_run_of_a_program_with_several(outcome):
    result, _, out = outcome
    assert {test: state for test, (state, _) in result.items()} == {
        "several.asm": "FAILED", "close.asm": "FAILED", "exact.asm": "FAILED", "integers.asm": "FAILED",
        "race_and_value.asm": "FAILED", "two_bad_lines.asm": "FAILED", "fault.asm": "FAILED",
        "runs.asm::profile-a2": "PASSED", "runs.asm::cores-2-jobs-1": "PASSED",
        "runs_a2.asm::profile-950": "PASSED", "runs_a2.asm::profile-a2": "FAILED",
        "one_run.asm": "PASSED"}, out
    assert "a2 profile has no vector functions" in result["runs_a2.asm::profile-a2"][1]


def test_a_file_named_on_the_command_line_is_collected_wherever_it_is(tmp_path):
    # a project whose plugin folder is programs/; scratch/x.asm is outside it
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\nvcore_programs = ["programs"]\n')
    (tmp_path / "programs").mkdir()
    (tmp_path / "programs" / "in.asm").write_text("MOV S1, 2\nHALT\n; EXPECT S1 = 2\n")
    (tmp_path / "scratch").mkdir()
    (tmp_path / "scratch" / "x.asm").write_text("MOV S1, 3\nHALT\n; EXPECT S1 = 3\n")
    (tmp_path / "scratch" / "two.asm").write_text("MOV S1, 3\nHALT\n; RUN --strict\n; RUN --profile a2\n"
                                                  "; EXPECT S1 = 3\n")
    named = pytest_run(tmp_path, "-rA", "scratch/x.asm")
    assert named.returncode == 0 and "PASSED scratch/x.asm\n" in named.stdout, named.stdout
    assert "1 passed" in named.stdout, named.stdout
    # a run of one of its tests, by its ID
    one = pytest_run(tmp_path, "-rA", "scratch/two.asm::profile-a2")
    assert one.returncode == 0 and "PASSED scratch/two.asm::profile-a2\n" in one.stdout, one.stdout
    assert "1 passed" in one.stdout, one.stdout
    # the folder alone is not a place the plugin looks; the configured folder is
    assert pytest_run(tmp_path, "scratch").returncode == 5   # no tests collected
    ids = pytest_run(tmp_path, "--collect-only", "-q").stdout.splitlines()
    assert "programs/in.asm" in ids and not any("scratch" in line for line in ids), ids


def test_commands_apply_the_first_of_several_run_lines(tmp_path):
    from cli_support import vcore_here

    prog = tmp_path / "p.asm"
    prog.write_text("; RUN --max-instructions 3\n; RUN --strict\n    MOV S1, 1\n    MOV S1, 2\n    MOV S1, 3\n"
                    "    MOV S1, 4\n    HALT\n")
    r = vcore_here("run", prog, "--report", "none")
    # the first line's limit stops the run (exit 1); the second line's --strict is not applied
    assert r.returncode == 1 and "--max-instructions 3 reached" in r.stderr, r.stderr
    assert f"applied the program's ; RUN --max-instructions 3 ({prog}:1)\n" in r.stderr, r.stderr
    assert "--strict" not in r.stderr, r.stderr
    # a RUN line that cannot be read is an error, whichever run it is
    prog.write_text("; RUN --strict\n; RUN --frobnicate\n    HALT\n")
    r = vcore_here("run", prog, "--report", "none")
    assert r.returncode == 2 and r.stderr.startswith(f"{prog}:2: error: RUN takes "), r.stderr
