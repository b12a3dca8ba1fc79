"""Profiles as files (CONTRACT 3.8): `vcore profile show NAME` prints a profile that `--profile FILE`
reads back to the same timing, and every cycle moves with the parameter that the rule names."""

from __future__ import annotations

import json
import math
import re

import pytest
from timing_support import vcore

from vcore.emulator import load_profile

PROGRAM = """\
.gmfill 0x0, f32, 64, 5.0
    DMA.GM2UB [0x8000], gm[0x0], len=8
    VADD.f32 [0x4100], [0x0], [0x2080]
    VEXP.f16 [0xC100], [0x0], repeat=8
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    VADD.f32 [0xC100], [0x8000], [0x2080], repeat=4
    HALT
"""


@pytest.fixture
def files(tmp_path):
    prog = tmp_path / "p.asm"
    prog.write_text(PROGRAM)
    res = vcore("profile", "show", "a2")
    assert res.returncode == 0, res.stderr
    copy = tmp_path / "a2copy.toml"
    copy.write_text(res.stdout)
    return prog, copy, res.stdout


def report(prog, profile) -> dict:
    res = vcore("run", prog, "--profile", profile, "--report", "json")
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def vadd_row(rep: dict) -> dict:
    return next(e for e in rep["per_pc"] if e["text"] == "VADD.f32 [0x4100], [0x0], [0x2080]")


def test_profile_show_round_trip(files):
    prog, copy, text = files
    builtin, from_file = report(prog, "a2"), report(prog, copy)
    assert from_file["total_cycles"] == builtin["total_cycles"]
    assert from_file["per_pc"] == builtin["per_pc"]
    assert from_file["stalls"] == builtin["stalls"]
    # showing the file gives the same text back
    res = vcore("profile", "show", copy)
    assert res.returncode == 0 and res.stdout == text


def test_editing_tensor_startup_moves_a_vadd_by_exactly_the_difference(files, tmp_path):
    prog, copy, text = files
    edited_text, n = re.subn(r"(?m)^startup = 1\b", "startup = 5", text)
    assert n == 1  # [tensor] startup, not register.function_startup
    edited = tmp_path / "a2startup5.toml"
    edited.write_text(edited_text)
    before, after = report(prog, copy), report(prog, edited)
    # VADD.f32 x1: tensor.issue 22, then 64 lanes / (64 x 1.0) = 1 cycle, and the banks need 2:
    # src1 0x2080 (groups 4-11) meets src0 (groups 0-7) in groups 4-7 (+1); occupancy 22 + 1 + 1 =
    # 24, results startup later: 24 + 1 = 25 -> 24 + 5 = 29 (+4)
    assert vadd_row(before)["cycles"] == 25
    assert vadd_row(after)["cycles"] == 29
    # nothing else about the VADD changes
    assert vadd_row(after)["bank_conflict_cycles"] == vadd_row(before)["bank_conflict_cycles"] == 1


def test_editing_tensor_startup_in_a_lone_vadd_moves_the_total(tmp_path, files):
    _, _, text = files
    prog = tmp_path / "lone.asm"
    prog.write_text("    VADD.f32 [0x4100], [0x0], [0x2080]\n    HALT\n")
    edited = tmp_path / "s5.toml"
    edited.write_text(re.sub(r"(?m)^startup = 1\b", "startup = 5", text))
    # lone VADD from cycle 0: 25 cycles (above) -> total 25 (S: 2); with startup 5: 29
    assert report(prog, "a2")["total_cycles"] == 25
    assert report(prog, edited)["total_cycles"] == 29


def test_editing_dma_setup_moves_the_dma(files, tmp_path):
    prog, _, text = files
    edited_text, n = re.subn(r"(?m)^gm2ub_setup = \d+\b", "gm2ub_setup = 275", text)
    assert n == 1
    edited = tmp_path / "setup.toml"
    edited.write_text(edited_text)
    rows = [next(e for e in report(prog, p)["per_pc"] if e["text"].startswith("DMA")) for p in ("a2", edited)]
    # 256 B: max(ceil(setup + 256 / burst), ceil(256 / 46 = 5.6)): the built-in setup (about 225) and
    # burst rate (about 80-90 B/cycle: 256 B are 3 cycles) -> ceil(275 + 256 / burst)
    dma = load_profile("a2")["dma"]
    burst = 256 / dma["gm2ub_burst_bytes_per_cycle"]
    assert [e["cycles"] for e in rows] == [math.ceil(dma["gm2ub_setup"] + burst), math.ceil(275 + burst)]


@pytest.mark.parametrize("key", ["mask_latency", "load_latency", "store_latency", "alu_latency", "gather_latency"])
def test_a_register_latency_of_zero_is_refused(key):
    # A result that landed in the cycle its instruction starts would land before the instruction
    # had read its sources (found by a review: such a job's writes never landed).
    from vcore.emulator.profiles.profile import ProfileError, builtin_text, parse_profile

    text, found = re.subn(rf"(?m)^{key} = \d+", f"{key} = 0", builtin_text("950"))
    assert found == 1
    with pytest.raises(ProfileError, match=rf"register\.{key} must be at least 1"):
        parse_profile(text, "zero.toml")
    parse_profile(text.replace(f"{key} = 0", f"{key} = 1"), "one.toml")


@pytest.mark.parametrize(("key", "entry", "zero", "one"), [
    ("transcendental_latency.exp", "exp = [21, 16]", "exp = [21, 0]", "exp = [21, 1]"),  # by op, [16, 32-bit]
    ("reduce_latency.SUM", "SUM = [24, 22]", "SUM = [0, 22]", "SUM = [1, 22]"),  # by operation and width
])
def test_a_zero_in_a_latency_table_by_width_is_refused(key, entry, zero, one):
    from vcore.emulator.profiles.profile import ProfileError, builtin_text, parse_profile

    text = builtin_text("950")
    assert text.count(entry) == 1
    with pytest.raises(ProfileError, match=rf"'register\.{key}' must hold positive finite numbers"):
        parse_profile(text.replace(entry, zero), "zero.toml")
    parse_profile(text.replace(entry, one), "one.toml")
