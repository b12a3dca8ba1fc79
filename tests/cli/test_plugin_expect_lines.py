"""The pytest plugin's EXPECT lines read what they name and say what is wrong with them (issue 28, items
1, 2 and 19): ``ub<K>:`` is core K's UB for ``~=`` as for ``=``; an integer value outside its element
type (or a float value past its largest finite one) is an error on its line, not a wrapped value; and
every mistake in a program's own lines is ONE failure line ``FILE:LINE: what is wrong``, never a
traceback. One pytest run over a folder of programs written here; every outcome worked out by hand."""

from __future__ import annotations

import re

import numpy as np
import pytest
from cli_support import failure_bodies, outcomes, plugin_run

# Each core stores its BLOCKIDX in the u32 at UB 0x0: core K's UB holds K there.
CORES = "MOV S1, BLOCKIDX\nST.u32 [0x0], S1\nHALT\n; RUN --cores 4\n"

PROGRAMS = {
    # ---- item 1: ~= reads the core it names
    "core_close_pass.asm": CORES + "; EXPECT ub3:0x0:u32:1 ~= three.npy\n; EXPECT ub1:0x0:u32:1 ~= one.npy\n"
                                   "; EXPECT ub:0x0:u32:1 ~= zero.npy\n; EXPECT ub0:0x0:u32:1 ~= zero.npy\n",
    "core_close_fail.asm": CORES + "; EXPECT ub3:0x0:u32:1 ~= zero.npy\n",
    "core_close_missing.asm": "HALT\n; RUN --cores 2\n; EXPECT ub3:0x0:u32:1 ~= zero.npy\n",
    "core_close_single.asm": "HALT\n; EXPECT ub1:0x0:u32:1 ~= zero.npy\n",
    "core_equal_missing.asm": "HALT\n; RUN --cores 2\n; EXPECT ub2:0x0:u32:1 = 0\n",
    # ---- item 2: values outside their type. Memory holds the wrapped value, so a wrapped compare passes.
    "range_issue.asm": ".ub 0x0, s8, -24\nHALT\n; EXPECT ub:0x0:s8:1 = 1000\n",
    "range_u8_high.asm": "HALT\n; EXPECT ub:0x0:u8:1 = 256\n",
    "range_u8_low.asm": ".ub 0x0, u8, 255\nHALT\n; EXPECT ub:0x0:u8:1 = -1\n",
    "range_s16.asm": ".ub 0x0, s16, -32768\nHALT\n; EXPECT ub:0x0:s16:1 = 32768\n",
    "range_u16.asm": ".ub 0x0, u16, 65535\nHALT\n; EXPECT ub:0x0:u16:1 = -1\n",
    "range_s32.asm": ".ub 0x0, s32, -2147483648\nHALT\n; EXPECT ub:0x0:s32:1 = 0x80000000\n",
    "range_u32.asm": ".ub 0x0, u32, 4294967295\nHALT\n; EXPECT ub:0x0:u32:2 = 0 -1\n",
    "range_u32_high.asm": "HALT\n; EXPECT ub:0x0:u32:1 = 4294967296\n",
    "range_s_high.asm": "MOV S1, -0x8000000000000000\nHALT\n; EXPECT S1 = 0x8000000000000000\n",
    "range_s_low.asm": "MOV S1, 0x7fffffffffffffff\nHALT\n; EXPECT S1 = -0x8000000000000001\n",
    "range_f16.asm": ".ub 0x0, f16, inf\nHALT\n; EXPECT ub:0x0:f16:1 = 70000\n",
    "range_e4m3.asm": "HALT\n; EXPECT ub:0x0:e4m3:1 = 1000\n",
    "range_e4m3_inf.asm": "HALT\n; EXPECT ub:0x0:e4m3:1 = inf\n",
    "range_int_fraction.asm": "HALT\n; EXPECT ub:0x0:s8:1 = 1.5\n",
    "range_int_word.asm": "HALT\n; EXPECT ub:0x0:u16:1 = ten\n",
    # The bounds themselves, and infinity in a type that has it, are fine.
    "range_bounds.asm": ".ub 0x0, s8, -128, 127\n.ub 0x10, u8, 0, 255\n.ub 0x20, s16, -32768, 32767\n"
                        ".ub 0x40, u16, 65535\n.ub 0x60, s32, -2147483648, 2147483647\n.ub 0x80, u32, 4294967295\n"
                        ".ub 0xa0, f16, inf, 65504\nMOV S1, -0x8000000000000000\nMOV S2, 0x7fffffffffffffff\nHALT\n"
                        "; EXPECT ub:0x0:s8:2 = -128 127\n; EXPECT ub:0x10:u8:2 = 0 255\n"
                        "; EXPECT ub:0x20:s16:2 = -32768 32767\n; EXPECT ub:0x40:u16:1 = 0xffff\n"
                        "; EXPECT ub:0x60:s32:2 = -2147483648 2147483647\n; EXPECT ub:0x80:u32:1 = 4294967295\n"
                        "; EXPECT ub:0xa0:f16:2 = inf 65504\n"
                        "; EXPECT S1 = -0x8000000000000000\n; EXPECT S2 = 0x7fffffffffffffff\n",
    # ---- item 19: the cases, and the other lines a user can get wrong
    "bad_float_words.asm": "HALT\n; EXPECT ub:0x0:f16:2 = abc def\n",
    "bad_space.asm": "HALT\n; EXPECT zz:0x0:f16:1 = 1\n",
    "bad_register.asm": "HALT\n; EXPECT S99 = 1\n",
    "bad_register_value.asm": "HALT\n; EXPECT S1 = banana\n",
    "bad_register_values.asm": "HALT\n; EXPECT S1 = 1 2\n",
    "bad_register_cores.asm": "HALT\n; RUN --cores 2\n; EXPECT S40 = 0\n",
    "bad_ub_address.asm": "HALT\n; EXPECT ub:0x3fff0:f32:8 = 0 0 0 0 0 0 0 0\n",
    "bad_gm_address.asm": "HALT\n; EXPECT gm:0xfffffffff0:f32:1 = 0\n",
    "bad_ulp_register.asm": "HALT\n; EXPECT S1 = 0 within 2 ulp\n",
    "bad_ulp_integer.asm": "HALT\n; EXPECT ub:0x0:u32:1 = 0 within 2 ulp\n",
    "bad_spec_file.asm": "HALT\n; EXPECT ub:0x0:u32:1=out.npy = 0\n",
    "bad_close_space.asm": "HALT\n; EXPECT zz:0x0:f32:1 ~= zero.npy\n",
    "bad_close_missing.asm": "HALT\n; EXPECT ub:0x0:f32:1 ~= absent.npy\n",
    "bad_close_token.asm": "HALT\n; EXPECT ub:0x0:f32:1 ~= token.npy\n",
    "bad_close_syntax.asm": "HALT\n; EXPECT ub:0x0:f32:1 ~= syntax.npy\n",
    "bad_close_text.asm": "HALT\n; EXPECT ub:0x0:f32:1 ~= golden.txt\n",
    "bad_close_strings.asm": "HALT\n; EXPECT ub:0x0:f32:1 ~= strings.npy\n",
    "bad_close_address.asm": "HALT\n; EXPECT ub:0x3fffc:u32:4 ~= zeros4.npy\n",
    "bad_close_tolerance.asm": "HALT\n; EXPECT S1 = 0\n; EXPECT ub:0x0:u32:1 ~= zero.npy rtol 1e-4\n",
    "bad_close_nan_tolerance.asm": "HALT\n; EXPECT ub:0x0:u32:1 ~= zero.npy rtol=nan\n",
    "bad_close_negative_tolerance.asm": "HALT\n; EXPECT ub:0x0:u32:1 ~= zero.npy atol=-1\n",
    "bad_race.asm": "HALT\n; EXPECT S1 = 0\n; EXPECT-RACE FOO\n",
    "bad_fault.asm": "HALT\n; EXPECT S1 = 0\n; EXPECT-FAULT\n",
    "bad_profile.asm": "HALT\n; EXPECT S1 = 0\n; PROFILE zz\n",
    "bad_run_quote.asm": "HALT\n; EXPECT S1 = 0\n; RUN --profile \"a2\n",
    "bad_load_token.asm": "HALT\n; EXPECT S1 = 0\n; LOAD gm:0x0 = token.npy\n",
    # Prose that happens to start with the word is not an EXPECT line.
    "prose.asm": "HALT\n; Expected: S1 stays 0\n; expect nothing else\n; EXPECT S1 = 0\n",
}
BINARY = {"bad_utf8.asm": b"HALT\n; EXPECT S1 = 0\n; \xff\xfe\n"}
ENDLESS = "endless.asm"  # 33 MiB (sparse): read no further than the assembler reads a program (32 MiB)


@pytest.fixture(scope="module")
def outcome(tmp_path_factory):
    """{program: (PASSED or FAILED, the text pytest prints for its failure)} and the folder."""
    folder = tmp_path_factory.mktemp("programs")
    for name, text in PROGRAMS.items():
        (folder / name).write_text(text)
    for name, data in BINARY.items():
        (folder / name).write_bytes(data)
    with open(folder / ENDLESS, "wb") as handle:  # (pytest collects regular files only: not /dev/zero)
        handle.truncate(33 << 20)
    for name, value in {"zero": 0, "one": 1, "three": 3}.items():
        np.save(folder / f"{name}.npy", np.array([value], dtype=np.uint32))
    np.save(folder / "zeros4.npy", np.zeros(4, dtype=np.uint32))
    np.save(folder / "strings.npy", np.array(["abc"]))
    # Headers numpy cannot read: an unclosed dict (tokenize.TokenError), a bad literal (SyntaxError).
    (folder / "token.npy").write_bytes(b"\x93NUMPY\x01\x00\x20\x00{'descr': '<f4', 'fortran_order': (((\n")
    header = b"{'descr': <f4, 'fortran_order': False, 'shape': (1,), }"
    header += b" " * (63 - len(header)) + b"\n"
    (folder / "syntax.npy").write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + b"\0" * 4)
    (folder / "golden.txt").write_text("0\n")
    out = plugin_run(folder).stdout
    status, bodies = outcomes(out), failure_bodies(out)
    result = {n: (status.get(n), bodies.get(n, "")) for n in [*PROGRAMS, *BINARY, ENDLESS]}
    return result, folder, out


def failure(outcome, name: str, line: int, *fragments: str) -> None:
    """``name`` failed with one line, ``FOLDER/name:line: ...``, holding each of ``fragments``."""
    result, folder, out = outcome
    status, body = result[name]
    assert status == "FAILED", (name, status, body)
    assert "Traceback" not in body and "\n" not in body, (name, body)
    assert body.startswith(f"{folder / name}:{line}: "), (name, body)
    for fragment in fragments:
        assert fragment in body, (name, fragment, body)


def passed(outcome, name: str) -> None:
    status, body = outcome[0][name]
    assert status == "PASSED", (name, status, body)


def test_close_expectations_read_the_core_they_name(outcome):
    passed(outcome, "core_close_pass.asm")
    failure(outcome, "core_close_fail.asm", 5, "ub3:0x0:u32:1", "element 0: 3.0, expected 0.0")
    failure(outcome, "core_close_missing.asm", 3, "ub3:0x0:u32:1", "the run has 2 core(s)")
    failure(outcome, "core_close_single.asm", 2, "ub1:0x0:u32:1", "the run has 1 core(s)")
    failure(outcome, "core_equal_missing.asm", 3, "ub2:0x0:u32:1", "the run has 2 core(s)")


@pytest.mark.parametrize(("name", "fragment"), [
    ("range_issue.asm", "1000 is outside s8 (-128..127)"),
    ("range_u8_high.asm", "256 is outside u8 (0..255)"),
    ("range_u8_low.asm", "-1 is outside u8 (0..255)"),
    ("range_s16.asm", "32768 is outside s16 (-32768..32767)"),
    ("range_u16.asm", "-1 is outside u16 (0..65535)"),
    ("range_s32.asm", "0x80000000 is outside s32 (-2147483648..2147483647)"),
    ("range_u32.asm", "-1 is outside u32 (0..4294967295)"),
    ("range_u32_high.asm", "4294967296 is outside u32 (0..4294967295)"),
    ("range_s_high.asm", "0x8000000000000000 is outside an S register (-9223372036854775808..9223372036854775807)"),
    ("range_s_low.asm", "-0x8000000000000001 is outside an S register"),
    ("range_f16.asm", "70000 is too large for f16 (largest finite 65504)"),
    ("range_e4m3.asm", "1000 is too large for e4m3 (largest finite 448"),
    ("range_e4m3_inf.asm", "e4m3 has no infinity"),
    ("range_int_fraction.asm", "'1.5' is not an integer"),
    ("range_int_word.asm", "'ten' is not an integer"),
])
def test_a_value_outside_its_type_is_an_error_on_its_line(outcome, name, fragment):
    failure(outcome, name, PROGRAMS[name].count("\n"), fragment)


def test_the_bounds_of_each_type_are_values_it_holds(outcome):
    passed(outcome, "range_bounds.asm")


@pytest.mark.parametrize(("name", "line", "fragments"), [
    ("bad_float_words.asm", 2, ["'abc' is not a number"]),
    ("bad_space.asm", 2, ["memory space must be ub, ub<K> (core K's, in --dump) or gm, not 'zz'"]),
    ("bad_register.asm", 2, ["there is no S99 (S0..S31)"]),
    ("bad_register_value.asm", 2, ["'banana' is not an integer"]),
    ("bad_register_values.asm", 2, ["EXPECT S1 takes one value, not 2"]),
    ("bad_register_cores.asm", 3, ["there is no S40 (S0..S31)"]),
    ("bad_ub_address.asm", 2, ["ub:0x3fff0:f32:8", "UB"]),
    ("bad_gm_address.asm", 2, ["gm:0xfffffffff0:f32:1", "GM"]),
    ("bad_ulp_register.asm", 2, ["'within N ulp' is for float types"]),
    ("bad_ulp_integer.asm", 2, ["'within N ulp' is for float types, not u32"]),
    ("bad_spec_file.asm", 2, ["SPACE:ADDR:TYPE:COUNT"]),
    ("bad_close_space.asm", 2, ["memory space must be"]),
    ("bad_close_missing.asm", 2, ["absent.npy: cannot read"]),
    ("bad_close_token.asm", 2, ["token.npy", "malformed .npy file"]),
    ("bad_close_syntax.asm", 2, ["syntax.npy", "malformed .npy file"]),
    ("bad_close_text.asm", 2, ["golden.txt", "a .npy file"]),
    ("bad_close_strings.asm", 2, ["strings.npy", "<U3 values, not integers or floats"]),
    ("bad_close_address.asm", 2, ["ub:0x3fffc:u32:4", "UB"]),
    ("bad_close_tolerance.asm", 3, ["not an EXPECT line"]),
    ("bad_close_nan_tolerance.asm", 2, ["rtol=nan: a tolerance is a finite number >= 0"]),
    ("bad_close_negative_tolerance.asm", 2, ["atol=-1: a tolerance is a finite number >= 0"]),
    ("bad_race.asm", 3, ["not an EXPECT line", "EXPECT-RACE RAW|WAR|WAW"]),
    ("bad_fault.asm", 3, ["not an EXPECT line", "EXPECT-FAULT TEXT"]),
    ("bad_profile.asm", 3, ["unknown profile 'zz'"]),
    ("bad_run_quote.asm", 3, ["RUN", "quotation"]),
    ("bad_load_token.asm", 3, ["LOAD gm:0x0 = token.npy", "malformed .npy file"]),
    ("bad_utf8.asm", 3, ["not UTF-8 text"]),
])
def test_a_mistake_in_a_program_line_is_one_failure_naming_its_line(outcome, name, line, fragments):
    failure(outcome, name, line, *fragments)


def test_prose_that_starts_with_the_word_expect_is_left_alone(outcome):
    passed(outcome, "prose.asm")


def test_no_program_shows_a_traceback(outcome):
    out = outcome[2]
    assert "Traceback" not in out and not re.search(r"^E\s", out, re.MULTILINE), out


def test_a_program_that_never_ends_is_read_no_further_than_the_cap(outcome):
    # (issue 28, item 8: the plugin read a program with an unbounded read, as vcore run once did)
    result, folder, _ = outcome
    status, body = result[ENDLESS]
    assert status == "FAILED", (status, body)
    assert body.startswith(f"{folder / ENDLESS}: cannot read: it holds more than 32 MiB"), body
