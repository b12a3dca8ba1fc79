"""`vcore run` and `vcore profile show` through the real command line, in subprocesses."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from cli_support import program, vcore, vcore_here

import vcore as vcore_api

PROGRAM = """\
.ubfill 0x0, f16, 256, 1.5
.ubfill 0x800, f16, 256, 2.25
    MOV S5, 42
    VADD.f16 [0x1000], [0x0], [0x800], repeat=2
    HALT
"""


@pytest.fixture
def prog(tmp_path):
    return program(tmp_path, PROGRAM)


@pytest.mark.parametrize("dump", ["ub:0x3ffff:f16:1", "gm:0x40:u8:1"])
def test_a_bad_dump_is_the_first_line_before_the_programs_warnings(tmp_path, dump):
    # The run fuzzer's case: MOV S0 is an assembler warning, and --dump past the end of UB (the 950's is
    # 0x40000 bytes) or of a 64-byte GM an error: the error comes first, and nothing is assembled or run.
    path = program(tmp_path, "MOV S0, 1\nHALT\n")
    r = vcore_here("run", path, "--gm-size", "64", "--dump", dump)
    assert r.returncode == 2
    assert r.stderr.splitlines()[0].startswith(f"vcore: error: --dump {dump}: read: "), r.stderr
    assert "warning" not in r.stderr, r.stderr


def test_text_report_and_dump(prog):
    r = vcore("run", prog, "--dump", "ub:0x1000:f16:3")
    assert r.returncode == 0, r.stderr
    assert "ub:0x1000:f16:3 = 3.75 3.75 3.75" in r.stdout
    assert "VADD.f16 [0x1000], [0x0], [0x800], repeat=2" in r.stdout


def test_json_report_fields(prog, tmp_path):
    out = tmp_path / "r.json"
    r = vcore("run", prog, "--report", "json", "--report-file", out, "--dump", "ub:0x1000:f16:2")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report == json.loads(out.read_text())
    assert report["schema"] == "vcore.report/1"
    assert report["profile"] == "950"
    assert report["instructions"] == 3
    assert report["scalars"]["S5"] == 42 and report["scalars"]["S0"] == 0 and len(report["scalars"]) == 32
    assert report["dumps"] == {"ub:0x1000:f16:2": [3.75, 3.75]}
    vadd = next(e for e in report["per_pc"] if e["text"].startswith("VADD"))
    # The 950 prices a tensor instruction as the vector function it is (docs/timing.md; its cycles by hand:
    # tests/timing/test_tensor_functions.py): the same loads, add and stores written as one function cost
    # what the VADD does, launch for launch.
    function = vcore_api.load_text(
        "VF.BEGIN\nPSET.b16 P0, ALL\nLOOP 2\nVLD.f16 V0, [S1], post=128\nVLD.f16 V1, [S2], post=128\n"
        "VADD.f16 V2, V0, V1, P0\nVST.f16 [S3], V2, P0, post=128\nENDLOOP\nVF.END\nHALT\n")
    function.state.s[1:4] = [0x0, 0x800, 0x1000]
    function.run()
    cycles = next(e for e in function.report().per_pc if e.text == "VF.BEGIN").cycles
    assert vadd == {"pc": 8, "line": 4, "text": "VADD.f16 [0x1000], [0x0], [0x800], repeat=2", "pipe": "V",
                    "count": 1, "cycles": cycles, "iterations": 2, "bank_conflict_cycles": vadd["bank_conflict_cycles"],
                    "stalls": {}, "busy_cycles": cycles}  # the only V instruction: all of V's busy cycles are its
    assert set(report) >= {"total_cycles", "pipes", "stalls", "races"}
    assert report["pipes"]["V"] == {"busy_cycles": cycles, "instructions": 1, "utilisation": report["pipes"]["V"][
        "utilisation"]}
    assert report["stalls"].get("bank_conflict", 0) == vadd["bank_conflict_cycles"] and report["races"] == []


def test_report_none_prints_only_dumps(prog):
    r = vcore("run", prog, "--report", "none", "--dump", "ub:0x0:f16:1")
    assert r.stdout == "ub:0x0:f16:1 = 1.5\n"


def test_dump_to_npy(prog, tmp_path):
    target = tmp_path / "d.npy"
    r = vcore("run", prog, "--report", "none", "--dump", f"ub:0x1000:f16:4={target}")
    assert r.returncode == 0, r.stderr
    arr = np.load(target)
    assert arr.dtype == np.float16 and arr.tolist() == [3.75] * 4


def test_load_npy_and_raw(tmp_path):
    src = tmp_path / "l.asm"
    src.write_text("VADD.f32 [0x200], [0x0], [0x100], mask=4\n")
    np.save(tmp_path / "a.npy", np.arange(64, dtype=">f4"))  # big endian on disk: loaded as values
    (tmp_path / "b.bin").write_bytes(np.full(64, 0.5, dtype="<f4").tobytes())
    r = vcore("run", src, "--report", "none", "--load", f"ub:0x0={tmp_path / 'a.npy'}",
              "--load", f"ub:0x100={tmp_path / 'b.bin'}", "--dump", "ub:0x200:f32:5")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ub:0x200:f32:5 = 0.5 1.5 2.5 3.5 0.0"


def test_pickled_npy_is_refused(prog, tmp_path):
    bad = tmp_path / "obj.npy"
    np.save(bad, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    r = vcore("run", prog, "--load", f"ub:0x0={bad}")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and "obj.npy" in r.stderr


def test_pickle_file_named_npy_is_refused(prog, tmp_path):
    bad = tmp_path / "p.npy"
    bad.write_bytes(pickle.dumps([1, 2, 3]))
    r = vcore("run", prog, "--load", f"ub:0x0={bad}")
    assert r.returncode == 2 and "Traceback" not in r.stderr


@pytest.mark.parametrize("spec", ["ub:0x0:f16", "xx:0:f16:1", "ub:zz:f16:1", "ub:0:f17:1", "ub:0:f16:0",
                                  "ub:0:f16:2="])
def test_malformed_dump_spec(prog, spec):
    r = vcore("run", prog, "--dump", spec)
    assert r.returncode == 2 and "error" in r.stderr and "Traceback" not in r.stderr


def test_dump_past_end_of_memory(prog):
    r = vcore("run", prog, "--dump", "ub:0x3fffe:f16:2")
    assert r.returncode == 2 and "outside UB" in r.stderr


def test_load_past_end_of_memory(prog, tmp_path):
    raw = tmp_path / "big.bin"
    raw.write_bytes(b"\1" * 64)
    r = vcore("run", prog, "--load", f"ub:0x3fff0={raw}")
    assert r.returncode == 2 and f"{raw} holds more than the 16 bytes of UB from 0x3fff0" in r.stderr


def test_fault_exit_1_names_pc_and_line_and_keeps_state(tmp_path):
    src = tmp_path / "f.asm"
    src.write_text(".ubfill 0x0, f16, 128, 1.0\n    VADDS.f16 [0x100], [0x0], 1.0\n    MOV S1, 16\n"
                   "    VADD.f16 [S1], [0x0], [0x0]\n    MOV S2, 7\n")
    r = vcore("run", src, "--report", "json", "--dump", "ub:0x100:f16:1")
    assert r.returncode == 1
    # VADDS is 3 words (0x0..0x18), MOV one (0x18), so VADD stands at 0x20.
    assert f"{src}:4: error:" in r.stderr and "pc 0x0020" in r.stderr and "not 32-byte aligned" in r.stderr
    assert "VADD.f16 [S1], [0x0], [0x0]" in r.stderr and "Traceback" not in r.stderr
    report = json.loads(r.stdout)
    assert report["dumps"]["ub:0x100:f16:1"] == [2.0]
    assert report["scalars"]["S1"] == 16 and report["scalars"]["S2"] == 0
    assert report["fault"]["kind"] == "fault"


def test_a2_has_a_smaller_ub(tmp_path):
    src = tmp_path / "a2.asm"
    src.write_text("VADD.f32 [0x30000], [0x0], [0x0]\n")
    assert vcore("run", src).returncode == 0
    r = vcore("run", src, "--profile", "a2")
    assert r.returncode == 1 and "outside UB (size 0x30000)" in r.stderr


def test_max_instructions(tmp_path):
    src = tmp_path / "loop.asm"
    src.write_text("loop: JMP loop\n")
    r = vcore("run", src, "--max-instructions", "1000")
    assert r.returncode == 1 and "--max-instructions 1000" in r.stderr


@pytest.mark.parametrize("size", ["0", str((1 << 32) + 1)])
def test_gm_size_bounds(prog, size):
    r = vcore("run", prog, "--gm-size", size)
    assert r.returncode == 2 and "--gm-size" in r.stderr


def test_unknown_profile(prog):
    r = vcore("run", prog, "--profile", "910")
    assert r.returncode == 2 and "unknown profile '910'" in r.stderr


def _builtin(name: str = "950") -> str:
    return vcore("profile", "show", name).stdout


@pytest.mark.parametrize(("edit", "fragment"), [
    (lambda t: t.replace("clock_ghz = 1.65", ""), "missing key 'machine.clock_ghz'"),
    (lambda t: t.replace("[machine]", "[machine]\nturbo = 1"), "unknown key 'machine.turbo'"),
    (lambda t: t.replace("[machine]", "[machine"), "malformed TOML"),
    (lambda t: t.replace("ub_size = 262144", "ub_size = 100"), "ub_size"),
    (lambda t: t.replace("load_latency = 9", 'load_latency = "slow"'), "'register.load_latency' must be a whole"),
    (lambda t: t.replace("exp = [16, 16]", "exp = [16]"), "'tensor.elements_per_cycle.exp' must be a list of 2"),
    (lambda t: t.replace('kind = "950"', 'kind = "910"'), "banks.kind must be one of"),
])
def test_bad_profile_files(prog, tmp_path, edit, fragment):
    path = tmp_path / "p.toml"
    path.write_text(edit(_builtin()))
    r = vcore("run", prog, "--profile", path)
    assert r.returncode == 2 and fragment in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_profile_show_round_trips_through_a_file(prog, tmp_path):
    shown = vcore("profile", "show", "a2")
    assert shown.returncode == 0 and 'name = "a2"' in shown.stdout
    copy = tmp_path / "mine.toml"
    copy.write_text(shown.stdout)
    r = vcore("run", prog, "--profile", copy, "--report", "json")
    assert r.returncode == 0 and json.loads(r.stdout)["profile"] == "a2"
    assert vcore("profile", "show").stdout.startswith("# vcore machine and timing profile: Ascend 950")


def test_vbin_run_reports_disassembly(prog, tmp_path):
    out = tmp_path / "p.vbin"
    assert vcore("asm", prog, "-o", out).returncode == 0
    r = vcore("run", out, "--report", "json")
    assert r.returncode == 0, r.stderr
    entry = json.loads(r.stdout)["per_pc"][1]
    assert entry["line"] is None and entry["text"] == "VADD.f16 [0x1000], [0x0], [0x800], repeat=2"
