"""A malformed .npy file is one clear error naming the file (issue 28, item 14): whatever its magic,
version, header length, header dict or data, reading it for a --load (or a ; LOAD line, or an
EXPECT ~= golden) either gives its array or raises SpecError naming it; through the command, exit 2
and one line. A header numpy could not tokenize (``'shape': (3,`` cut short) let
``tokenize.TokenError`` escape as a traceback.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from cli_support import program, vcore_here
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from vcore.specs import SpecError, parse_load, read_load, read_load_file

MAGIC = b"\x93NUMPY"
UB = 0x40000


def npy(header: str | bytes, version: tuple[int, int] = (1, 0), data: bytes = b"", length: int | None = None) -> bytes:
    """A .npy file's bytes: magic, version, header length (the header's own unless ``length``), header, data."""
    raw = header.encode("latin1") if isinstance(header, str) else header
    size = len(raw) if length is None else length
    packed = struct.pack("<H", size & 0xFFFF) if version == (1, 0) else struct.pack("<I", size & 0xFFFFFFFF)
    return MAGIC + bytes(version) + packed + raw + data


def header(descr="'<f4'", fortran="False", shape="(2,)") -> str:
    return f"{{'descr': {descr}, 'fortran_order': {fortran}, 'shape': {shape}, }}\n"


MALFORMED = {
    "cut-short-header": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,\n"),  # tokenize.TokenError
    "nested-parentheses": npy("{'descr': " + "(" * 300 + "}\n"),
    "bad-magic": b"\x93NUMPZ\x01\x00" + bytes(40),
    "no-magic": b"hello, not numpy at all\n",
    "empty-file": b"",
    "magic-only": MAGIC,
    "unknown-version": MAGIC + b"\x09\x09" + bytes(40),
    "header-length-past-the-end": npy(header(), length=4000),
    "header-length-4-gib": npy(header(), version=(2, 0), length=0xFFFFFFFF),
    "header-not-a-dict": npy("[1, 2, 3]\n"),
    "header-missing-key": npy("{'descr': '<f4', 'shape': (2,), }\n"),
    "header-extra-key": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}\n"),
    "header-binary-garbage": npy(bytes(range(256))),
    "unknown-dtype": npy(header(descr="'<q9'"), data=bytes(16)),
    "dtype-a-number": npy(header(descr="5"), data=bytes(16)),
    "object-dtype": npy(header(descr="'|O'"), data=bytes(16)),
    "record-dtype": npy(header(descr="[('a', '<f4'), ('b', '<i4')]"), data=bytes(16)),
    "subarray-dtype": npy(header(descr="('<f4', (2,))"), data=bytes(16)),
    "fortran-order-a-string": npy(header(fortran="'yes'"), data=bytes(8)),
    "fortran-order-a-number": npy(header(fortran="1"), data=bytes(8)),
    "shape-negative": npy(header(shape="(-1,)"), data=bytes(8)),
    "shape-negative-pair": npy(header(shape="(-2, -3)"), data=bytes(24)),
    "shape-not-a-tuple": npy(header(shape="[2]"), data=bytes(8)),
    "shape-of-floats": npy(header(shape="(2.0,)"), data=bytes(8)),
    "truncated-data": npy(header(shape="(4,)"), data=bytes(15)),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_a_malformed_npy_is_one_spec_error_naming_the_file(tmp_path, name):
    path = tmp_path / f"{name}.npy"
    path.write_bytes(MALFORMED[name])
    with pytest.raises(SpecError) as info:
        read_load(parse_load(f"ub:0x0={path}"), UB)
    assert str(info.value).startswith(f"--load ub:0x0={path}: "), str(info.value)
    with pytest.raises(SpecError) as info:
        read_load_file(str(path))
    assert str(path) in str(info.value)


def test_the_command_says_so_in_one_line_with_exit_2(tmp_path):
    prog = program(tmp_path, "    HALT\n")
    for name, blob in MALFORMED.items():
        path = tmp_path / f"{name}.npy"
        path.write_bytes(blob)
        for spec in (f"ub:0x0={path}", f"gm:0x40:f16={path}"):
            r = vcore_here("run", prog, "--load", spec)
            assert r.returncode == 2 and r.stderr.startswith(f"vcore: error: --load {spec}"), \
                (name, r.stderr)
            assert r.stderr.count("\n") == 1, (name, r.stderr)


@pytest.mark.parametrize(("array", "descr"), [
    (np.arange(6, dtype="<f4").reshape(2, 3), None),
    (np.asfortranarray(np.arange(6, dtype="<i2").reshape(2, 3)), None),
    (np.arange(4, dtype=">f4"), None),
    (np.array(7, dtype="<u4"), None),
    (np.zeros((0, 3), dtype="<f2"), None),
])
def test_a_well_formed_npy_reads_as_numpy_reads_it(tmp_path, array, descr):
    path = tmp_path / "good.npy"
    np.save(path, array)
    got = read_load_file(str(path), UB)
    np.testing.assert_array_equal(got, np.load(path))
    assert got.dtype == np.load(path).dtype and got.shape == np.load(path).shape


def test_a_header_written_by_python_2_still_reads(tmp_path):
    path = tmp_path / "py2.npy"  # a long written 2L: numpy filters the header, vcore says nothing of it
    path.write_bytes(npy("{'descr': '<i2', 'fortran_order': False, 'shape': (2L,), }\n", data=b"\1\0\2\0"))
    assert read_load_file(str(path), UB).tolist() == [1, 2]


_TOKENS = ["{", "}", "(", ")", "[", "]", ",", ":", " ", "\n", "'descr'", "'fortran_order'", "'shape'", "'<f4'",
           "'<i2'", "'|O'", "'|V0'", "'<U3'", "'>f8'", "'<M8[s]'", "True", "False", "None", "0", "1", "-1", "3",
           "1e9", "99999999999999999999", "'", '"', "\\", "#", "L", "b'x'", "lambda", "..."]


@st.composite
def _headers(draw) -> bytes:
    """Header text near a real one (a real header with a token changed, added or dropped), or soup."""
    kind = draw(st.sampled_from(["edited", "soup", "bytes"]))
    if kind == "bytes":
        return draw(st.binary(max_size=200))
    if kind == "soup":
        return "".join(draw(st.lists(st.sampled_from(_TOKENS), max_size=40))).encode("latin1")
    tokens = ["{", "'descr'", ":", draw(st.sampled_from(_TOKENS[13:20])), ",", "'fortran_order'", ":",
              draw(st.sampled_from(["True", "False", "0", "None"])), ",", "'shape'", ":", "(",
              draw(st.sampled_from(["", "2", "2,", "2, 3", "-1,", "0,", "1e9,", "99999999999999999999,"])), ")", ",",
              "}", "\n"]
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(tokens)))
        match draw(st.sampled_from(["drop", "add", "swap"])):
            case "drop" if at < len(tokens):
                del tokens[at]
            case "add":
                tokens.insert(at, draw(st.sampled_from(_TOKENS)))
            case "swap" if at < len(tokens):
                tokens[at] = draw(st.sampled_from(_TOKENS))
    return "".join(tokens).encode("latin1")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(head=_headers(), version=st.sampled_from([(1, 0), (1, 0), (1, 0), (2, 0), (3, 0), (1, 1)]),
       length=st.one_of(st.none(), st.none(), st.none(), st.integers(0, 70000)), data=st.binary(max_size=64),
       typed=st.sampled_from([None, "f16", "s32"]))
@example(head=b"{'descr': '<f4', 'fortran_order': False, 'shape': (3,\n", version=(1, 0), length=None, data=b"",
         typed=None)
# (found by a fresh clone's run: no elements, but a length past numpy's largest; a length that is a bool)
@example(head=b"{'descr':'<f4','fortran_order':True,'shape':(99999999999999999999,0),}\n", version=(1, 0),
         length=None, data=b"", typed=None)
@example(head=b"{'descr':'<f4','fortran_order':True,'shape':(2,False),}\n", version=(1, 0), length=None, data=b"",
         typed=None)
def test_any_header_gives_an_array_or_a_spec_error(tmp_path, head, version, length, data, typed):
    path = tmp_path / "h.npy"
    path.write_bytes(npy(head, version, data, length))
    spec = parse_load(f"ub:0x0{':' + typed if typed else ''}={path}")
    try:
        got, _ = read_load(spec, UB)
    except SpecError as err:
        assert str(err).startswith(f"--load {spec.name}: ")
    else:
        assert isinstance(got, np.ndarray) and got.nbytes <= UB


def test_the_plugin_s_golden_file_is_read_the_same_way(tmp_path):
    path = tmp_path / "golden.npy"
    path.write_bytes(MALFORMED["cut-short-header"])
    with pytest.raises(SpecError, match=r"malformed \.npy file"):
        read_load_file(str(Path(path)))
