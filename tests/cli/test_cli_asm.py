"""`vcore asm` and `vcore disasm` as a user runs them: real subprocesses of the installed command."""

from __future__ import annotations

import os
import random
import re
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from vcore.assembler import assemble
from vcore.isa.program import from_bytes, to_bytes


def _vcore() -> str:
    candidate = Path(sys.executable).parent / "vcore"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("vcore")
    if found is None:
        pytest.skip("the vcore command is not installed in this environment")
    return found


VCORE = _vcore()

PROGRAM = """\
; a small program touching most operand forms
.equ OUT, 0x1000
start:
    MOV S1, OUT                     ; S1 = output base
    VF.BEGIN                        ; a vector function: register instructions run only in one
        VLD.f16 V0, [S1], post=128
    VF.END
    VADD.f16 [OUT], [0x0], [0x800], repeat=2, mask=(0x1, 0x2)
    VMULS.f32 [0x40], [0x80], -2.5, count=1000
    DMA.GM2UB [S1 + 96], gm[S2 - 5], len=4, blocks=2
    SETFLAG MTE2, V, 1
    WAITFLAG MTE2, V, 1
    BNE S1, 0, start
    BARRIER ALL
    HALT
.ub 0, f16, 1.5, -0.0, inf, nan
.gmfill 0x100, u8, 7, 0xAB
"""


def run(*args, cwd: Path, limit_memory: bool = False) -> subprocess.CompletedProcess:
    def limit():  # a guard for the tests that probe unbounded computations
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    return subprocess.run([VCORE, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=60,
                          preexec_fn=limit if limit_memory else None, check=False)


def assert_clean_failure(result: subprocess.CompletedProcess, *fragments: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    (tmp_path / "prog.asm").write_text(PROGRAM)
    return tmp_path


@pytest.fixture()
def vbin(work: Path) -> Path:
    result = run("asm", "prog.asm", "-o", "prog.vbin", cwd=work)
    assert result.returncode == 0, result.stderr
    return work / "prog.vbin"


# -- asm ---------------------------------------------------------------------------------------------

def test_asm_writes_the_vbin_of_the_source(work: Path, vbin: Path):
    blob = vbin.read_bytes()
    assert blob[:8] == b"VCOREBIN"
    assert blob == to_bytes(assemble(PROGRAM, "prog.asm"))
    program = from_bytes(blob)
    assert len(program.data) == 2


def test_asm_without_listing_prints_nothing(work: Path):
    result = run("asm", "prog.asm", "-o", "out.vbin", cwd=work)
    assert result.returncode == 0 and result.stdout == "" and result.stderr == ""


def test_asm_default_output_name(work: Path):
    result = run("asm", "prog.asm", cwd=work)
    assert result.returncode == 0, result.stderr
    assert (work / "prog.vbin").read_bytes() == to_bytes(assemble(PROGRAM, "prog.asm"))


def test_listing_shows_address_words_and_source_line(work: Path):
    result = run("asm", "prog.asm", "-o", "prog.vbin", "--listing", cwd=work)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    program = assemble(PROGRAM, "prog.asm")
    words = [f"{w:016x}" for w in program.words]
    # MOV S1, OUT at pc 0, line 4 of the source
    mov = next(line for line in lines if "MOV S1, OUT" in line)
    assert re.match(r"^0x0+\s", mov)
    assert words[0] in mov and re.search(r"\b4\b", mov)
    # VF.BEGIN (line 5), the VLD (line 6) and VF.END (line 7) are one word each, at pc 0x8, 0x10, 0x18
    for text, pc, line_no in (("VF.BEGIN", 0x8, 5), ("VLD.f16 V0, [S1], post=128", 0x10, 6), ("VF.END", 0x18, 7)):
        listed = next(line for line in lines if text in line)
        assert re.match(rf"^0x0*{pc:x}\s", listed) and words[pc // 8] in listed, listed
        assert re.search(rf"\b{line_no}\b", listed), listed
    # The VADD with a bit mask occupies 4 words at pc 0x20, all shown on its line
    vadd = next(line for line in lines if "VADD.f16" in line)
    assert re.match(r"^0x0*20\s", vadd)
    assert all(w in vadd for w in words[4:8])
    assert re.search(r"\b8\b", vadd)
    # one line per instruction, addresses increasing
    assert len(lines) == 12
    pcs = [int(line.split()[0], 16) for line in lines]
    assert pcs == sorted(pcs) and pcs[-1] == (len(program.words) - 1) * 8


def test_same_source_assembles_to_identical_bytes(work: Path):
    other = work / "sub"
    other.mkdir()
    (other / "renamed.asm").write_text(PROGRAM)
    assert run("asm", "prog.asm", "-o", "one.vbin", cwd=work).returncode == 0
    assert run("asm", "prog.asm", "-o", "two.vbin", cwd=work).returncode == 0
    assert run("asm", "renamed.asm", "-o", "three.vbin", cwd=other).returncode == 0
    one = (work / "one.vbin").read_bytes()
    assert one == (work / "two.vbin").read_bytes() == (other / "three.vbin").read_bytes()


def test_assembly_error_reports_file_line_col_and_caret(work: Path):
    (work / "bad.asm").write_text("NOP\n    VADD.f16 [0], [0], [0], repeat=256\nHALT\n")
    result = run("asm", "bad.asm", "-o", "bad.vbin", cwd=work)
    assert_clean_failure(result, "bad.asm:2:36: error: ")
    lines = result.stderr.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("bad.asm:2:36: error:"))
    assert lines[at + 1] == "    VADD.f16 [0], [0], [0], repeat=256"
    assert lines[at + 2].index("^") == 35
    assert not (work / "bad.vbin").exists()


def test_assembly_errors_all_reported(work: Path):
    (work / "bad.asm").write_text("FROB\nJMP nowhere\nMOV S1, 1 $ 2\n")
    result = run("asm", "bad.asm", "-o", "bad.vbin", cwd=work)
    assert_clean_failure(result, "bad.asm:1:1: error:", "bad.asm:2:5: error:", "bad.asm:3:11: error:")


def test_asm_of_a_missing_file(work: Path):
    assert_clean_failure(run("asm", "nope.asm", "-o", "x.vbin", cwd=work), "nope.asm")


def test_asm_into_a_missing_directory(work: Path):
    assert_clean_failure(run("asm", "prog.asm", "-o", "no/such/dir/x.vbin", cwd=work), "x.vbin")


def test_asm_of_a_binary(work: Path):
    (work / "prog.vbin").write_bytes(to_bytes(assemble(PROGRAM, "prog.asm")))
    assert_clean_failure(run("asm", "prog.vbin", "-o", "again.vbin", cwd=work), "prog.vbin")


def test_asm_of_non_utf8_text(work: Path):
    (work / "latin1.asm").write_bytes(b"NOP ; caf\xe9\n")
    assert_clean_failure(run("asm", "latin1.asm", "-o", "x.vbin", cwd=work), "latin1.asm")


# -- disasm --------------------------------------------------------------------------------------------

def test_disasm_output_reassembles_to_identical_bytes(work: Path, vbin: Path):
    result = run("disasm", "prog.vbin", cwd=work)
    assert result.returncode == 0, result.stderr
    (work / "round.asm").write_text(result.stdout)
    again = run("asm", "round.asm", "-o", "round.vbin", cwd=work)
    assert again.returncode == 0, again.stderr + result.stdout
    assert (work / "round.vbin").read_bytes() == vbin.read_bytes()
    # and the disassembly is a fixed point
    assert run("disasm", "round.vbin", cwd=work).stdout == result.stdout


def _corrupt(blob: bytes, how: str) -> bytes:
    rnd = random.Random(how)
    if how == "truncated-header":
        return blob[:20]
    if how == "truncated-body":
        return blob[:-3]
    if how == "random-bytes":
        return bytes(rnd.getrandbits(8) for _ in range(200))
    if how == "random-bytes-with-magic":
        return b"VCOREBIN" + bytes(rnd.getrandbits(8) for _ in range(200))
    if how == "flipped-word-byte":
        out = bytearray(blob)
        out[32 + 3] ^= 0x40
        return bytes(out)
    if how == "flipped-data-byte":
        out = bytearray(blob)
        out[-2] ^= 0x01
        return bytes(out)
    if how == "flipped-header-count":
        out = bytearray(blob)
        out[12] ^= 0x01
        return bytes(out)
    if how == "version-2":
        return blob[:8] + struct.pack("<H", 2) + blob[10:]
    if how == "trailing-garbage":
        return blob + b"\0" * 8
    if how == "undecodable-words-good-crc":
        body = struct.pack("<Q", 0xFF)  # unknown opcode 0xff, checksum made to match
        return struct.pack("<8sHHIIIII", b"VCOREBIN", 1, 0, 1, 0, 0, zlib.crc32(body), 0) + body
    if how == "empty":
        return b""
    raise AssertionError(how)


@pytest.mark.parametrize("how", ["truncated-header", "truncated-body", "random-bytes", "random-bytes-with-magic",
                                 "flipped-word-byte", "flipped-data-byte", "flipped-header-count", "version-2",
                                 "trailing-garbage", "undecodable-words-good-crc", "empty"])
def test_disasm_of_a_bad_vbin_fails_cleanly(work: Path, how: str):
    # The good bytes are what `vcore asm` writes (test_asm_writes_the_vbin_of_the_source checks that).
    good = to_bytes(assemble(PROGRAM, "prog.asm"))
    (work / "bad.vbin").write_bytes(_corrupt(good, how))
    result = run("disasm", "bad.vbin", cwd=work)
    assert_clean_failure(result, "bad.vbin", "error")
    assert result.stdout == ""


def test_disasm_of_a_text_file_named_vbin(work: Path):
    (work / "text.vbin").write_text("NOP\nHALT\n")
    assert_clean_failure(run("disasm", "text.vbin", cwd=work), "text.vbin", "error")


def test_disasm_of_a_missing_file(work: Path):
    assert_clean_failure(run("disasm", "missing.vbin", cwd=work), "missing.vbin")


def test_disasm_of_a_directory(work: Path):
    (work / "dir.vbin").mkdir()
    assert_clean_failure(run("disasm", "dir.vbin", cwd=work))


# -- bugs found while writing these tests, now fixed -------------------------------------------------

def test_negative_right_operand_does_not_crash(work: Path):
    (work / "neg.asm").write_text("MOV S1, 2 * -3\n")
    result = run("asm", "neg.asm", "-o", "neg.vbin", cwd=work)
    assert "Traceback" not in result.stderr
    assert result.returncode == 0, result.stderr


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs a POSIX memory limit")
def test_huge_right_operand_does_not_exhaust_memory(work: Path):
    # 0x10 & (1 << 40) is 0; evaluating it must not build a 2**40-bit integer.
    (work / "big.asm").write_text("MOV S1, 0x10 & (1 << 40)\n")
    result = run("asm", "big.asm", "-o", "big.vbin", cwd=work, limit_memory=True)
    assert "Traceback" not in result.stderr
    assert result.returncode == 0, result.stderr
