"""Machine.write and read through the Python API (issue 28, item 20): a type converts values as a
typed --load does; without one, only an array or bytes is taken, and a float64 array warns as the
CLI warns; a type read that vcore has not is a ValueError naming the types."""

from __future__ import annotations

import struct
import warnings

import numpy as np
import pytest

import vcore

PROG = "    HALT\n"


@pytest.fixture
def m():
    return vcore.load_text(PROG)


def test_a_plain_list_needs_a_type(m):
    with pytest.raises(TypeError, match=r"type.*write\('ub', 0x0, \[1, 2, 3\], 'f32'\)"):
        m.write("ub", 0, [1, 2, 3])
    with pytest.raises(TypeError, match="type"):
        m.write("ub", 0, 1.5)
    assert not m.ub[:16].any()  # nothing written


def test_a_type_converts_the_values(m):
    m.write("ub", 0x0, [1, -2, 3], "s32")
    assert m.read("ub", 0x0, "s32", 3).tolist() == [1, -2, 3]
    m.write("ub", 0x20, [1.5, 0.1, -2], "f32")
    assert m.ub[0x20:0x2c].tobytes() == struct.pack("<3f", 1.5, 0.1, -2)
    m.write("ub", 0x40, (0.1, 65504), "f16")
    assert m.read("ub", 0x40, "f16", 2).tolist() == [np.float16(0.1), 65504.0]
    m.write("ub", 0x60, np.array([1.0, 2.0]), "u8")       # whole floats to an integer type
    assert m.ub[0x60:0x62].tolist() == [1, 2]
    m.write("ub", 0x80, np.array([0.5], dtype=np.float64), "f32")   # typed: no warning
    assert m.read("ub", 0x80, "f32", 1).tolist() == [0.5]
    m.write("gm", 0x100, 7, "u16")                         # a single value
    assert m.read("gm", 0x100, "u16", 1).tolist() == [7]


@pytest.mark.parametrize(("values", "type_name", "words"), [
    ([1000], "s8", ["element 0 (1000)", "does not fit in s8 (-128..127)"]),
    ([1, -1], "u32", ["element 1 (-1)", "u32"]),
    ([1.5], "s32", ["element 0 (1.5)", "not a whole number"]),
    ([1.0, 1e5], "f16", ["element 1 (100000.0)", "too large for f16", "65504"]),
    (["a"], "f32", ["cannot be converted to f32"]),
    ([[1, 2], [3]], "s32", ["cannot be converted to s32"]),
])
def test_a_value_that_does_not_convert_is_a_value_error(m, values, type_name, words):
    with pytest.raises(ValueError) as info:
        m.write("ub", 0x0, values, type_name)
    text = str(info.value)
    assert text.startswith(f"write ub:0x0:{type_name}: "), text
    for w in words:
        assert w in text, text
    assert not m.ub[:16].any()


def test_an_unknown_type_names_the_types(m):
    for call in (lambda: m.read("ub", 0, "f64", 2), lambda: m.write("ub", 0, [1.0], "f64")):
        with pytest.raises(ValueError, match=r"no type 'f64'.*f16, bf16, f32, s8, .*u64"):
            call()


def test_a_float64_array_warns_as_the_cli_does(m):
    with pytest.warns(vcore.DataWarning) as caught:
        m.write("ub", 0x0, np.array([0.1, 2.0]))
    assert m.ub[:16].tobytes() == struct.pack("<2d", 0.1, 2.0)   # the bytes, as before
    (w,) = caught
    assert issubclass(vcore.DataWarning, UserWarning)
    assert w.filename == __file__                            # points at the caller's line
    text = str(w.message)
    assert "float64" in text and "write('ub', 0x0, values, 'f32')" in text


def test_arrays_of_vcore_types_and_bytes_write_quietly(m):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.write("ub", 0x0, np.arange(4, dtype=np.float32))
        m.write("ub", 0x20, np.arange(4, dtype=np.int64))  # s64/u64 are vcore types (LD.s64): as the CLI
        m.write("ub", 0x40, b"\x01\x02")
        m.write("ub", 0x42, bytearray(b"\x03"))
    assert m.read("ub", 0x0, "f32", 4).tolist() == [0, 1, 2, 3]
    assert m.read("ub", 0x20, "s64", 4).tolist() == [0, 1, 2, 3]
    assert m.ub[0x40:0x43].tolist() == [1, 2, 3]


def test_a_kernel_takes_the_same_arguments(tmp_path):
    prog = tmp_path / "k.asm"
    prog.write_text("    HALT\n")
    k = vcore.load_kernel(prog, cores=2, jobs=1)
    with pytest.raises(TypeError, match="type"):
        k.write("gm", 0x0, [1, 2])
    with pytest.warns(vcore.DataWarning) as caught:
        k.write("gm", 0x40, np.array([0.25]))
    assert len(caught) == 1 and caught[0].filename == __file__
    k.write("gm", 0x0, [1.5, 2.5], "f32")
    k.write("ub", 0x0, [9], "s16")
    assert k.run().fault is None
    assert k.read("gm", 0x0, "f32", 2).tolist() == [1.5, 2.5]
    assert k.read("ub", 0x0, "s16", 1, core=1).tolist() == [9]
    assert k.read("gm", 0x40, "u8", 8).tobytes() == struct.pack("<d", 0.25)
    with pytest.raises(ValueError, match="no type 'f64'"):
        k.read("gm", 0x0, "f64", 1)
    with pytest.raises(ValueError, match="core 2"):
        k.read("ub", 0x0, "s16", 1, core=2)
