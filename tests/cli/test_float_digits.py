"""Floats in `--dump` text and in the debugger print as the shortest decimal that reads back as the
same value of their own type (f16, bf16, f32, e4m3, e5m2), not as float64 expansions.

The round-trip checks read the printed text back independently: through a float64 and numpy's or
ml_dtypes' own cast (``np.array([float(text)]).astype(T)``), and rounded once, exactly, from the
decimal (the assembler's reading of a literal). Minimality is checked by trying the two decimals
with one digit fewer on either side of the value. Literal expectations are worked out by hand.
"""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from cli_support import program, vcore

from vcore.isa import TYPES
from vcore.isa.values import float_bits

DTYPES = {"f16": np.float16, "f32": np.float32, "bf16": ml_dtypes.bfloat16, "e4m3": ml_dtypes.float8_e4m3fn,
          "e5m2": ml_dtypes.float8_e5m2}
UINTS = {1: np.uint8, 2: np.uint16, 4: np.uint32}


def _reads_back(text: str, bits: int, type_name: str) -> bool:
    dtype = DTYPES[type_name]
    with np.errstate(over="ignore", invalid="ignore"):
        through_double = np.array([float(text)]).astype(dtype).view(UINTS[np.dtype(dtype).itemsize])
    return int(through_double[0]) == bits and float_bits(Fraction(text), TYPES[type_name]) == bits


def _patterns(type_name: str) -> list[int]:
    size = np.dtype(DTYPES[type_name]).itemsize
    if size == 1:
        return list(range(256))  # every fp8 pattern
    rng = np.random.default_rng(20240611)
    top = 1 << (8 * size)
    sign = top >> 1
    exponent_shift = {"f16": 10, "bf16": 7, "f32": 23}[type_name]
    special = [0, sign, 1, sign | 1, 2, 3, (1 << exponent_shift) - 1, 1 << exponent_shift,  # zeros, subnormals
               sign - 1, top - 1, (sign - 1) >> 1,                                          # NaNs, the middle
               *(b for e in (1, 2, 30, 100, 120) for b in ((e << exponent_shift), (e << exponent_shift) | 5))]
    specials = [b for b in special if b < top]
    largest = int(np.array([np.inf], dtype=DTYPES[type_name]).view(UINTS[size])[0]) - 1  # the largest finite
    return specials + [largest, largest | sign] + [int(b) for b in rng.integers(0, top, 2500)]


@pytest.mark.parametrize("type_name", sorted(DTYPES))
def test_printed_floats_read_back_and_are_shortest(type_name):
    from vcore.formatting import format_elements

    size = np.dtype(DTYPES[type_name]).itemsize
    patterns = _patterns(type_name)
    raw = np.array(patterns, dtype=UINTS[size])
    texts = format_elements(raw.view(DTYPES[type_name]), type_name)
    for bits, text in zip(patterns, texts, strict=True):
        with np.errstate(invalid="ignore"):
            value = float(np.array([bits], dtype=UINTS[size]).view(DTYPES[type_name]).astype(np.float64)[0])
        if np.isnan(value):
            assert text == "nan"
            continue
        if np.isinf(value):
            assert text == ("inf" if value > 0 else "-inf")
            continue
        if value == 0:  # (an exact decimal has no sign of zero: read through the float64 only)
            assert text == ("-0.0" if np.signbit(value) else "0.0")
            assert int(np.array([float(text)]).astype(DTYPES[type_name]).view(UINTS[size])[0]) == bits
            continue
        assert _reads_back(text, bits, type_name), (type_name, hex(bits), text)
        digits = Decimal(text).normalize()
        n = len(digits.as_tuple().digits)
        if n > 1:  # no decimal with one digit fewer reads back: the two either side of the value do not
            exact = Decimal(abs(value))
            quantum = Decimal(1).scaleb(exact.adjusted() - (n - 2))
            below = (exact / quantum).to_integral_value(rounding="ROUND_FLOOR") * quantum
            for candidate in (below, below + quantum):
                signed = -candidate if value < 0 else candidate
                assert not _reads_back(f"{signed:e}", bits, type_name), (type_name, hex(bits), text, signed)
        if type_name in ("f16", "f32"):  # numpy's own shortest digits (Dragon4), as a number
            assert digits == Decimal(str(DTYPES[type_name](value))).normalize(), (hex(bits), text)


@pytest.mark.parametrize(("type_name", "values", "want"), [
    ("f32", [0.1, 7.5, 1e-45, 3.4028235e38, 16777216.0, 100.0], "0.1 7.5 1e-45 3.4028235e+38 16777216.0 100.0"),
    ("f16", [0.1, 65504.0, 6e-8, 1000.0], "0.1 6.55e+04 6e-08 1000.0"),
    # bf16 0.1 is 0.10009765625 (0x3dcd); 0.1 reads back. 1/3 is 0.333984375: 0.33 and 0.34 do not
    ("bf16", [0.1, 1 / 3, -2.5], "0.1 0.334 -2.5"),
    # e4m3 448 (the largest): 450 is nearer to it than to 416 or to the NaN past it; 400 and 500 are not
    ("e4m3", [0.1, 448.0, -0.0], "0.1 4.5e+02 -0.0"),
    # e5m2 0.1 is 0.09375, its neighbours 0.0859375 and 0.109375: 0.09 reads back, 0.1 does not
    ("e5m2", [0.1, 57344.0, float("inf")], "0.09 6e+04 inf"),
])
def test_known_values(type_name, values, want):
    from vcore.formatting import format_line

    assert format_line(np.array(values).astype(DTYPES[type_name]), type_name) == want


PROGRAM = """\
.ub 0x0, f32, 0.1, 0.2, nan, -nan, inf, -inf, -0.0, 1.5
.ub 0x100, f16, 0.1, 7.5
.ub 0x140, bf16, 0.1, 0.3
.ub 0x180, s16, -5, 7
    MOV S1, 0
    VF.BEGIN
    VLD.f32 V0, [S1]
    VF.END
    HALT
"""


@pytest.fixture
def prog(tmp_path):
    return program(tmp_path, PROGRAM, "f.asm")


def test_dump_text_prints_each_types_shortest_digits(prog):
    r = vcore("run", prog, "--report", "none", "--dump", "ub:0x0:f32:8", "--dump", "ub:0x100:f16:2",
              "--dump", "ub:0x140:bf16:2", "--dump", "ub:0x180:s16:2", ok=True)
    assert r.stdout.splitlines() == [
        "ub:0x0:f32:8 = 0.1 0.2 nan nan inf -inf -0.0 1.5",  # nan, inf spelled as before
        "ub:0x100:f16:2 = 0.1 7.5",
        "ub:0x140:bf16:2 = 0.1 0.3",  # bf16 0.3 is 0.30078125: 0.3 reads back
        "ub:0x180:s16:2 = -5 7",
    ]


def test_json_dumps_keep_the_exact_values(prog):
    r = vcore("run", prog, "--report", "json", "--dump", "ub:0x0:f32:2", ok=True)
    assert json.loads(r.stdout)["dumps"]["ub:0x0:f32:2"] == [float(np.float32(0.1)), float(np.float32(0.2))]


def test_debugger_print_uses_the_same_digits(prog):
    # MOV, VF.BEGIN and the VLD: paused inside the function, whose V0 the debugger prints
    r = vcore("debug", prog, stdin="step 3\nprint V0.f32\nprint ub:0x140:bf16:2\nprint ub:0x100:f16:2\nquit\n",
              ok=True)
    out = r.stdout.splitlines()
    assert out[1].startswith("next: line 8 (VF.END)"), out[1]
    assert out[2] == "V0.f32 = 0.1 0.2 nan nan inf -inf -0.0 1.5" + " 0.0" * 56
    assert out[3] == "ub:0x140:bf16:2 = 0.1 0.3"
    assert out[4] == "ub:0x100:f16:2 = 0.1 7.5"


WATCHED = """\
.ubfill 0x0, f16, 128, 1.5
    VADDS.f16 [0x1000], [0x0], 1.0
    VMULS.f16 [0x1000], [0x0], 0.1
    HALT
"""


def test_typed_watch_shows_bytes_and_values(tmp_path):
    path = tmp_path / "w.asm"
    path.write_text(WATCHED)
    r = vcore("debug", path, stdin="watch ub:0x1000:4:f16\nwatch ub:0x1000:2\ncontinue\ncontinue\nquit\n",
              ok=True)
    out = r.stdout.splitlines()
    assert out[1:3] == ["watching ub:0x1000:4:f16", "watching ub:0x1000:2"]
    # 2.5 is 0x4100. The f16 0.1 is 1638/16384 (0x2e66); times 1.5 it is 2457/16384 = 1228.5/8192, a tie
    # between f16 neighbours 2^-13 apart: even 1228/8192 = 0.14990234375 (0x30cc). Its neighbours are
    # 0.0001220703125 away, so 0.15 and 0.149 are too far; 0.1499 is the shortest that reads back.
    assert out[3:11] == [
        "watch ub:0x1000:4:f16 changed",
        "  old: 00 00 00 00",
        "       f16: 0.0 0.0",
        "  new: 00 41 00 41",
        "       f16: 2.5 2.5",
        "watch ub:0x1000:2 changed",  # no type: the bytes only
        "  old: 00 00",
        "  new: 00 41",
    ]
    assert out[11] == "next: line 3 (VMULS.f16 [0x1000], [0x0], 0.1)"
    assert out[12:20] == [
        "watch ub:0x1000:4:f16 changed",
        "  old: 00 41 00 41",
        "       f16: 2.5 2.5",
        "  new: cc 30 cc 30",
        "       f16: 0.1499 0.1499",
        "watch ub:0x1000:2 changed",
        "  old: 00 41",
        "  new: cc 30",
    ]


def test_watch_type_errors(tmp_path):
    path = tmp_path / "w.asm"
    path.write_text(WATCHED)
    out = vcore("debug", path, stdin="watch ub:0x1000:3:f16\nwatch ub:0x1000:4:f64\nhelp\nquit\n", ok=True).stdout
    assert "error: LEN 3 is not a whole number of f16 elements" in out
    assert "error: unknown element type 'f64'" in out
    assert "watch ub:ADDR:LEN[:TYPE]" in out  # the help names the typed form
