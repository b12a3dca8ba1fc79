"""`--load SPACE:ADDR:TYPE=FILE.npy` (a typed load) and the float64 warning, through the real command.

Expected bytes are worked out by hand (the bit patterns of 0.1, 1.5 and -2.0 in each float type) or
packed with ``struct``; they never come from vcore's own conversion.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from cli_support import program, vcore

HALT = "    HALT\n"


@pytest.fixture
def prog(tmp_path):
    return program(tmp_path, HALT, "halt.asm")


def npy(tmp_path, name, array) -> Path:
    path = tmp_path / name
    np.save(path, array)
    return path


def dumped_bytes(r, key: str) -> bytes:
    assert r.returncode == 0, r.stderr
    return bytes(json.loads(r.stdout)["dumps"][key])


# 0.1, 1.5, -2.0 in each float type, little endian, worked out by hand:
#   f32  0.1 = 1.6 * 2^-4: exponent 123, mantissa 0x4ccccd (rounded up) -> 0x3dcccccd
#   f16  0.1: exponent 11, mantissa 0x266 -> 0x2e66;  bf16 0.1: the top of 0x3dcccccd, rounded -> 0x3dcd
#   e4m3 0.1: exponent 3 (bias 7), mantissa 0.6 * 8 = 4.8 -> 5 -> 0 0011 101 = 0x1d
#   e5m2 0.1: exponent 11 (bias 15), mantissa 0.6 * 4 = 2.4 -> 2 -> 0 01011 10 = 0x2e
FLOAT_BITS = {
    "f32": (struct.pack("<3I", 0x3DCCCCCD, 0x3FC00000, 0xC0000000)),
    "f16": (struct.pack("<3H", 0x2E66, 0x3E00, 0xC000)),
    "bf16": (struct.pack("<3H", 0x3DCD, 0x3FC0, 0xC000)),
    "e4m3": bytes([0x1D, 0x3C, 0xC0]),
    "e5m2": bytes([0x2E, 0x3E, 0xC0]),
}


@pytest.mark.parametrize("type_name", sorted(FLOAT_BITS))
def test_typed_load_converts_float64_to_each_float_type(prog, tmp_path, type_name):
    x = npy(tmp_path, "x.npy", np.array([0.1, 1.5, -2.0]))  # numpy's default float64
    size = len(FLOAT_BITS[type_name])
    r = vcore("run", prog, "--report", "json", "--load", f"ub:0x40:{type_name}={x}", "--dump", f"ub:0x40:u8:{size}")
    assert dumped_bytes(r, f"ub:0x40:u8:{size}") == FLOAT_BITS[type_name]
    assert "warning" not in r.stderr  # the type was given: nothing to warn about


INT_CASES = [
    ("s8", [1, -2, 100], "<3b"), ("u8", [1, 2, 200], "<3B"), ("s16", [1, -2, -30000], "<3h"),
    ("u16", [1, 2, 65535], "<3H"), ("s32", [1, -2, -2147483648], "<3i"), ("u32", [1, 2, 4294967295], "<3I"),
]


@pytest.mark.parametrize(("type_name", "values", "layout"), INT_CASES)
def test_typed_load_converts_int64_to_each_integer_type(prog, tmp_path, type_name, values, layout):
    x = npy(tmp_path, "i.npy", np.array(values, dtype=np.int64))
    want = struct.pack(layout, *values)
    r = vcore("run", prog, "--report", "json", "--load", f"gm:0x10:{type_name.upper()}={x}",
              "--dump", f"gm:0x10:u8:{len(want)}")
    assert dumped_bytes(r, f"gm:0x10:u8:{len(want)}") == want


def test_whole_floats_load_as_integers_and_bools_as_numbers(prog, tmp_path):
    w = npy(tmp_path, "w.npy", np.array([3.0, -4.0, -0.0, 2.0 ** 31 - 1]))
    b = npy(tmp_path, "b.npy", np.array([True, False, True]))
    big = npy(tmp_path, "big.npy", np.array([1.5, -0.25], dtype=">f8"))  # big endian on disk
    r = vcore("run", prog, "--report", "json", "--load", f"ub:0x0:s32={w}", "--load", f"ub:0x20:u16={b}",
              "--load", f"ub:0x40:f32={big}", "--dump", "ub:0x0:u8:16", "--dump", "ub:0x20:u8:6",
              "--dump", "ub:0x40:u8:8")
    assert dumped_bytes(r, "ub:0x0:u8:16") == struct.pack("<4i", 3, -4, 0, 2147483647)
    assert dumped_bytes(r, "ub:0x20:u8:6") == struct.pack("<3H", 1, 0, 1)
    assert dumped_bytes(r, "ub:0x40:u8:8") == struct.pack("<2I", 0x3FC00000, 0xBE800000)


def test_float_to_float_rounds_to_nearest_even(prog, tmp_path):
    # 1 + 2^-11 lies halfway between the f16 values 1.0 and 1 + 2^-10: even is 1.0 (0x3c00);
    # 1 + 3 * 2^-11 lies halfway between 1 + 2^-10 and 1 + 2^-9: even is 1 + 2^-9 (0x3c02)
    x = npy(tmp_path, "x.npy", np.array([1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11]))
    r = vcore("run", prog, "--report", "json", "--load", f"ub:0x0:f16={x}", "--dump", "ub:0x0:u8:4")
    assert dumped_bytes(r, "ub:0x0:u8:4") == struct.pack("<2H", 0x3C00, 0x3C02)


def test_float64_without_a_type_warns_and_copies_the_doubles(prog, tmp_path):
    x = npy(tmp_path, "x.npy", np.array([0.1, 2.0]))
    r = vcore("run", prog, "--report", "json", "--load", f"ub:0x0={x}", "--dump", "ub:0x0:u8:16")
    assert r.returncode == 0
    assert dumped_bytes(r, "ub:0x0:u8:16") == struct.pack("<2d", 0.1, 2.0)  # as before: the raw doubles
    warning = [line for line in r.stderr.splitlines() if "warning" in line]
    assert len(warning) == 1, r.stderr
    assert "float64" in warning[0] and str(x) in warning[0]
    assert f"ub:0x0:f32={x}" in warning[0] and "astype" in warning[0]  # how to fix it


def test_no_warning_for_float32_or_integer_npy(prog, tmp_path):
    f = npy(tmp_path, "f.npy", np.zeros(4, dtype=np.float32))
    i = npy(tmp_path, "i.npy", np.zeros(4, dtype=np.int64))
    r = vcore("run", prog, "--report", "none", "--load", f"ub:0x0={f}", "--load", f"ub:0x40={i}")
    assert r.returncode == 0 and r.stderr == ""


def test_debug_takes_a_typed_load_and_warns_on_float64(prog, tmp_path):
    x = npy(tmp_path, "x.npy", np.array([0.1]))
    r = vcore("debug", prog, "--load", f"ub:0x0:f32={x}", stdin="print ub:0x0:u8:4\nquit\n")
    assert r.returncode == 0 and r.stderr == ""
    assert "ub:0x0:u8:4 = 205 204 204 61" in r.stdout.splitlines()  # 0x3dcccccd, little endian
    r = vcore("debug", prog, "--load", f"ub:0x0={x}", stdin="quit\n")
    assert r.returncode == 0 and "float64" in r.stderr and str(x) in r.stderr


BAD = [
    # (array, type, words the message must hold: the first offending element's index and value)
    (np.array([1, 2, 300, 400]), "s8", ["element 2", "300"]),
    (np.array([5, -1]), "u32", ["element 1", "-1"]),
    (np.array([0, 65536], dtype=np.uint64), "u16", ["element 1", "65536"]),
    (np.array([1.0, 2.5, 3.5]), "s32", ["element 1", "2.5"]),
    (np.array([1.0, np.nan]), "u8", ["element 1", "nan"]),
    (np.array([2.0 ** 31]), "s32", ["element 0", "2147483648"]),
    (np.array([[1, 2], [3, 256]]), "u8", ["(1, 1)", "256"]),
    (np.array([1.0, 1e5]), "f16", ["element 1", "100000.0", "65504"]),  # would overflow to inf
    (np.array([70000], dtype=np.int32), "f16", ["element 0", "70000"]),
    (np.array([1.0, 1e39]), "bf16", ["element 1", "1e+39"]),
    (np.array([0.5, 500.0]), "e4m3", ["element 1", "500.0", "448"]),
    (np.array([0.5, np.inf]), "e4m3", ["element 1", "inf"]),
    (np.array([1 + 2j]), "f32", ["complex128"]),
]


@pytest.mark.parametrize(("array", "type_name", "words"), BAD, ids=[f"{t}-{i}" for i, (_, t, _w) in enumerate(BAD)])
def test_a_lossy_typed_load_is_an_error(prog, tmp_path, array, type_name, words):
    x = npy(tmp_path, "bad.npy", array)
    r = vcore("run", prog, "--report", "none", "--load", f"ub:0x0:{type_name}={x}")
    assert r.returncode == 2
    message = r.stderr.strip()
    assert len(message.splitlines()) == 1, message
    assert message.startswith("vcore: error:")
    assert f"ub:0x0:{type_name}={x}" in message  # names the spec
    for word in words:
        assert word in message, message


def test_inf_and_nan_stay_in_float_types_that_have_them(prog, tmp_path):
    x = npy(tmp_path, "x.npy", np.array([np.inf, -np.inf, np.nan]))
    r = vcore("run", prog, "--report", "json", "--load", f"ub:0x0:f16={x}", "--dump", "ub:0x0:u16:3")
    assert r.returncode == 0, r.stderr
    inf, minus_inf, nan = json.loads(r.stdout)["dumps"]["ub:0x0:u16:3"]
    assert (inf, minus_inf) == (0x7C00, 0xFC00) and nan & 0x7C00 == 0x7C00 and nan & 0x3FF


@pytest.mark.parametrize(("spec", "words"), [
    ("ub:0x0:f32={raw}", ["not a .npy", "raw.bin"]),     # a typed load converts arrays only
    ("ub:0x0:f64={npy}", ["f64", "f32"]),               # not a vcore type: the message lists them
    ("ub:0x0:f32:4={npy}", ["--load", "TYPE"]),        # too many fields
])
def test_bad_typed_load_specs(prog, tmp_path, spec, words):
    raw = tmp_path / "raw.bin"
    raw.write_bytes(b"\0" * 8)
    good = npy(tmp_path, "x.npy", np.zeros(2))
    r = vcore("run", prog, "--report", "none", "--load", spec.format(raw=raw, npy=good))
    assert r.returncode == 2
    for word in words:
        assert word in r.stderr, r.stderr


def test_typed_load_past_the_end_names_the_typed_spec(prog, tmp_path):
    x = npy(tmp_path, "x.npy", np.zeros(8))  # 8 f32 = 32 bytes, 16 past the end of the 950's UB
    r = vcore("run", prog, "--report", "none", "--load", f"ub:0x3fff0:f32={x}")
    assert r.returncode == 2
    assert f"ub:0x3fff0:f32={x}" in r.stderr and "32 bytes" in r.stderr


def test_help_names_the_typed_form():
    for command in ("run", "debug"):
        r = vcore(command, "--help")
        assert "SPACE:ADDR[:TYPE]=FILE" in r.stdout
