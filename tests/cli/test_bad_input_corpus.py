"""A corpus of bad inputs, each run through the real ``vcore`` command in a subprocess.

Every case checks what CONTRACT.md section 4 promises a user who got something wrong:

- the exit status: 2 for bad usage, an assembly error or a decode error; 1 for a runtime fault
  (out-of-range or misaligned access, a limit, a deadlock);
- a message on stderr that names the place: ``FILE:LINE:COL: error: ...`` then the source line
  and a caret under the column for assembly errors; the pc and the source line (file:line and
  the statement's text) for runtime faults; the offending file or option for usage errors;
- never a Python traceback, on stdout or stderr.

The expectations come from the contract (and, for the exact line and column, from counting by
hand on the source text), not from what the code happens to print: message wording is only
asserted where it is the name of the thing at fault (a field, a register, a file, an option).

Speed: a subprocess costs about 0.3 s of CPU, so the selected cases are all launched at once,
a few at a time on a thread pool, by one session fixture; each test then checks its own result.
For the same reason every range edge of section 2 is also checked in one program (the case
range-all-edges-in-one-file, one statement per line, each diagnostic at its own line) besides the
sample that runs one program per case. Inputs are generated in temporary directories. Known bugs
are kept as strict xfails whose reason says what the contract wants and what happens.
"""

from __future__ import annotations

import os
import re
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

# The session fixture runs every selected case at once: under pytest-xdist the module must stay on one
# worker, or each worker runs all of them (115 s each). make test passes --dist loadfile, which keeps
# it there; the group mark says so to --dist loadgroup too.
pytestmark = pytest.mark.xdist_group("bad_input_corpus")
VCORE = Path(sys.executable).with_name("vcore")
WORKERS = max(2, min(4, (os.cpu_count() or 2) + 1))
PROG = "prog.asm"


@dataclass(frozen=True)
class Case:
    """One bad input: ``build`` writes the inputs into a fresh directory and returns the arguments
    after ``vcore``; ``check`` asserts on the finished process (with that directory)."""

    id: str
    build: Callable[[Path], list]
    check: Callable[[subprocess.CompletedProcess, Path], None]
    marks: tuple = ()
    stdin: str | None = None


@dataclass
class Outcome:
    directory: Path
    result: subprocess.CompletedProcess | None = None
    error: BaseException | None = None
    argv: list = field(default_factory=list)


def _run(argv: list, cwd: Path, stdin: str | None) -> subprocess.CompletedProcess:
    return subprocess.run([VCORE, *map(str, argv)], capture_output=True, text=True, timeout=60, cwd=cwd,
                          input=stdin if stdin is not None else "", check=False)


# ---------------------------------------------------------------------------------------------------
# Checks shared by every case
# ---------------------------------------------------------------------------------------------------

def _no_traceback(r: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout, r.stderr[-3000:]


def _status(r: subprocess.CompletedProcess, want: int) -> None:
    assert r.returncode == want, f"exit status {r.returncode}, want {want}\nstderr:\n{r.stderr[-3000:]}"


def _has(text: str, *words: str) -> None:
    low = text.lower()
    for word in words:
        assert word.lower() in low, f"{word!r} not in:\n{text[-3000:]}"


def _check(condition, message: str) -> None:
    assert condition, message[-3000:]


def _passes(check: Callable, *args) -> bool:
    try:
        check(*args)
    except AssertionError:
        return False
    return True


def _statement_text(source_line: str) -> str:
    """The statement as a fault should quote it: without its labels, comment or indentation."""
    code = re.split(r";|//", source_line, maxsplit=1)[0]
    code = re.sub(r"^\s*(?:[A-Za-z_][A-Za-z0-9_]*\s*:\s*)+", "", code)
    return code.strip()


def _located(r: subprocess.CompletedProcess, path: Path, source: str, line: int, col: int, *words: str) -> None:
    """``FILE:LINE:COL: error: MESSAGE`` then the source line and a caret under COL."""
    lines = r.stderr.splitlines()
    head = f"{path}:{line}:{col}: error:"
    at = next((i for i, text in enumerate(lines) if text.startswith(head)), None)
    assert at is not None, f"no {head!r} in stderr:\n{r.stderr[-3000:]}"
    _has(lines[at][len(head):], *words)
    want_source = source.split("\n")[line - 1].removesuffix("\r")
    assert len(lines) > at + 2, f"no source and caret lines after the message:\n{r.stderr[-3000:]}"
    shown, caret = lines[at + 1], lines[at + 2]
    if len(want_source) > 120:  # docs/language.md: a long line is shown as 100 columns around the caret, ... marks
        cut = shown.removeprefix("...").removesuffix("...")
        start = want_source.find(cut)
        assert len(cut) <= 100 and start >= 0 and (start > 0) == shown.startswith("..."), (shown, want_source)
        shown, want_source = cut, want_source[start:start + len(cut)]
        caret, col = caret[3 if start else 0:], col - start
    assert shown == want_source, (shown, want_source)
    assert caret.find("^") == col - 1 and not caret[:col - 1].strip(), f"caret not under column {col}:\n{caret!r}"


def _names_fault(r: subprocess.CompletedProcess, where: str, line: int | None, pc: int, text: str) -> None:
    """A runtime fault names the pc and the source line (file:line and the statement's text)."""
    if line is not None:
        assert f"{where}:{line}:" in r.stderr, f"{where}:{line}: not in:\n{r.stderr[-3000:]}"
    else:
        assert where in r.stderr, r.stderr[-3000:]
    assert re.search(rf"\bpc 0x0*{pc:x}\b", r.stderr, re.IGNORECASE), f"pc 0x{pc:04x} not in:\n{r.stderr[-3000:]}"
    assert text in r.stderr, f"{text!r} not in:\n{r.stderr[-3000:]}"


# ---------------------------------------------------------------------------------------------------
# Case constructors
# ---------------------------------------------------------------------------------------------------

def _xfail(reason: str) -> tuple:
    return (pytest.mark.xfail(strict=True, reason=reason),)


def _write_prog(d: Path, source: str | bytes, name: str = PROG) -> Path:
    path = d / name
    if isinstance(source, bytes):
        path.write_bytes(source)
    else:
        path.write_text(source, newline="")
    return path


def asm_error(case_id: str, source: str, line: int, col: int, *words: str, marks: tuple = (),
              args: tuple = ()) -> Case:
    """An assembly error: exit 2, located at LINE:COL with the source line and a caret."""
    def build(d: Path) -> list:
        return ["run", _write_prog(d, source), "--report", "none", *args]

    def check(r, d: Path) -> None:
        _status(r, 2)
        _located(r, d / PROG, source, line, col, *words)

    return Case(case_id, build, check, marks)


def asm_cmd_error(case_id: str, source: str, line: int, col: int, *words: str) -> Case:
    """Like asm_error, through ``vcore asm``; a failed assembly writes no output file."""
    def build(d: Path) -> list:
        return ["asm", _write_prog(d, source), "-o", d / "out.vbin"]

    def check(r, d: Path) -> None:
        _status(r, 2)
        _located(r, d / PROG, source, line, col, *words)
        assert not (d / "out.vbin").exists()

    return Case(case_id, build, check)


def fault(case_id: str, source: str, line: int, pc: int, *words: str, args: tuple = (),
          marks: tuple = ()) -> Case:
    """A runtime fault: exit 1, naming file:line, the pc and the statement's text."""
    def build(d: Path) -> list:
        return ["run", _write_prog(d, source), "--report", "none", *args]

    def check(r, d: Path) -> None:
        _status(r, 1)
        text = _statement_text(source.split("\n")[line - 1])
        _names_fault(r, str(d / PROG), line, pc, text)
        _has(r.stderr, *words)

    return Case(case_id, build, check, marks)


def usage(case_id: str, build: Callable[[Path], list], *words: str, status: int = 2, marks: tuple = (),
          stdin: str | None = None) -> Case:
    """A usage or file error: the exit status, and stderr naming the file or option. A word may
    hold ``{d}``, the case's directory."""
    def check(r, d: Path) -> None:
        _status(r, status)
        _has(r.stderr, *(w.replace("{d}", str(d)) for w in words))

    return Case(case_id, build, check, marks, stdin)


def warning(case_id: str, source: str, *words: str) -> Case:
    """Not an error: the run succeeds (exit 0) and stderr carries a warning."""
    def build(d: Path) -> list:
        return ["run", _write_prog(d, source), "--report", "none"]

    def check(r, d: Path) -> None:
        _status(r, 0)
        _has(r.stderr, "warning", *words)

    return Case(case_id, build, check)


def assembles_or_located(case_id: str, source: str, line: int, marks: tuple = ()) -> Case:
    """A large but valid input: it assembles and runs (exit 0), or is refused with a clean located
    error (exit 2, FILE:LINE:COL); it never crashes."""
    def build(d: Path) -> list:
        return ["run", _write_prog(d, source), "--report", "none"]

    def check(r, d: Path) -> None:
        _no_traceback(r)
        assert r.returncode in (0, 2), f"exit status {r.returncode}:\n{r.stderr[-2000:]}"
        if r.returncode == 2:
            assert re.search(rf"^{re.escape(str(d / PROG))}:{line}:\d+: error:", r.stderr, re.MULTILINE), \
                r.stderr[-2000:]

    return Case(case_id, build, check, marks)


# ---------------------------------------------------------------------------------------------------
# .vbin files made by hand (docs/encoding.md), and a few good programs to spoil
# ---------------------------------------------------------------------------------------------------

HEADER = struct.Struct("<8sHHIIIII")
RECORD = struct.Struct("<BBBBII")
NOP, HALT = 0x55, 0x56
# VADD.f16 [0x1000], [0x0], [0x800], repeat=2: the worked example of docs/encoding.md
VADD_WORDS = (0x2000000001000110, 0x0101010020202040)


def vbin(words=(NOP, HALT), records: bytes = b"", nrecords: int = 0, *, magic: bytes = b"VCOREBIN",
         version: int = 1, flags: int = 0, reserved: int = 0, nwords: int | None = None,
         crc: int | None = None) -> bytes:
    body = struct.pack(f"<{len(words)}Q", *words) + records
    return HEADER.pack(magic, version, flags, len(words) if nwords is None else nwords, nrecords, len(records),
                       zlib.crc32(body) if crc is None else crc, reserved) + body


def _flip(blob: bytes, at: int) -> bytes:
    spoiled = bytearray(blob)
    spoiled[at] ^= 0x5A
    return bytes(spoiled)


def _npy_bytes(array: np.ndarray) -> bytes:
    import io

    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=array.dtype.hasobject)
    return buffer.getvalue()


OK_PROGRAM = "    NOP\n    HALT\n"


def _ok(d: Path) -> Path:
    return _write_prog(d, OK_PROGRAM, "ok.asm")


def _file(name: str, content: bytes | str | Callable[[], bytes]):
    """A builder step: write ``content`` to ``d/name`` and return its path."""
    def write(d: Path) -> Path:
        data = content() if callable(content) else content
        path = d / name
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data)
        return path

    return write


def run_file(name: str, content, *extra: str) -> Callable[[Path], list]:
    return lambda d: ["run", _file(name, content)(d), "--report", "none", *extra]


def run_ok(*extra: str | Callable[[Path], object]) -> Callable[[Path], list]:
    """``vcore run ok.asm EXTRA...``; an extra given as a function of the directory is called."""
    return lambda d: ["run", _ok(d), "--report", "none", *(e(d) if callable(e) else e for e in extra)]


def _load(space_addr: str, name: str, content) -> Callable[[Path], str]:
    return lambda d: f"{space_addr}={_file(name, content)(d)}"


# ---------------------------------------------------------------------------------------------------
# 1. Assembler diagnostics: one case per class (columns counted by hand, 1-based)
# ---------------------------------------------------------------------------------------------------
#        1234567890123456789012345678901234567890
T3 = "VADD.f16 [0], [0], [0], "  # 24 characters: a field after it starts at column 25, its value later
TU = "VEXP.f16 [0], [0], "        # 19 characters: a field starts at column 20
TS = "VADDS.f16 [0], [0], 1.0, "  # 25 characters: a field starts at column 26
DMA = "DMA.GM2UB [0], gm[0], "     # 22 characters: a field starts at column 23

CYCLE = ".equ A, B\n.equ B, C\n.equ C, A\nMOV S1, A\n"

ASSEMBLER = [
    asm_error("unknown-mnemonic", "NOP\n    HALTT\n", 2, 5, "HALTT"),
    asm_error("unknown-type-suffix", "VADD.f17 [0], [0], [0]\n", 1, 6, "f17"),
    asm_error("type-not-taken", "VADD.s8 [0], [0], [0]\n", 1, 6, "s8"),
    asm_error("missing-operand", "VADD.f16 [0], [0] ; c\n", 1, 18, "src1"),
    asm_error("extra-operand", T3 + "[0]\n", 1, 25),
    asm_error("wrong-kind-vreg-for-ub", "VADD.f16 V0, [0], [0]\n", 1, 10, "V0"),
    asm_error("unknown-keyword", T3 + "repaet=2\n", 1, 25, "repaet"),
    asm_error("duplicate-keyword", T3 + "repeat=1, repeat=2\n", 1, 35, "repeat"),
    asm_error("required-keyword-missing", "DMA.UB2GM gm[0], [0]\n", 1, 21, "len"),
    asm_error("count-with-repeat", T3 + "count=5, repeat=2\n", 1, 25, "count", "repeat"),
    asm_error("bad-number-binary", "MOV S1, 0b102\n", 1, 9, "0b102"),
    asm_error("bad-character", "MOV S1, 3 $ 4\n", 1, 11, "$"),
    asm_error("undefined-label", "JMP nowhere\n", 1, 5, "nowhere"),
    asm_error("self-referencing-equ", "MOV S1, N\n.equ N, N + 1\n", 2, 9, "N"),
    # a cycle has no one right place: any of its references (each at column 9) names it
    Case("circular-equ", lambda d: ["run", _write_prog(d, CYCLE), "--report", "none"],
         lambda r, d: (_status(r, 2), _check(any(_passes(_located, r, d / PROG, CYCLE, line, 9) for line in (1, 2, 3)),
                                             r.stderr))),
    asm_error("duplicate-label", "a:\n    NOP\na:  HALT\n", 3, 1, "a"),
    asm_error("bad-directive", ".ubfil 0, f16, 1, 1.0\n", 1, 1, "ubfil"),
    asm_error("unterminated-paren", "MOV S1, (1 + 2\n", 1, 15, ")"),
    asm_error("unterminated-bracket", "VF.BEGIN\nVLD.f16 V0, [S1\nVF.END\n", 2, 16, "]"),
    asm_error("tab-indented-caret", "\tMOV S1, 1 / 0\n", 1, 14),
    asm_error("crlf-line-endings", "NOP\r\nFROB\r\nHALT\r\n", 2, 1, "FROB"),
    asm_error("offset-not-multiple-of-32", "VF.BEGIN\nVLD.f16 V0, [S1 + 16]\nVF.END\n", 2, 13, "32"),
    asm_cmd_error("asm-command-reports-and-writes-nothing", "NOP\n    VADD.f16 [0], [0], [0], dstblk=0\n", 2, 36,
                  "dstblk"),
    # Inputs that are valid but large must not crash the assembler (no traceback, a clean exit).
    assembles_or_located("deeply-nested-parens", "MOV S1, " + "(" * 600 + "1" + ")" * 600 + "\n", 1),
    assembles_or_located("long-sum-expression", "MOV S1, " + " + ".join(["1"] * 1200) + "\n", 1),
    assembles_or_located("long-forward-equ-chain",
                         "MOV S1, A0\n" + "".join(f".equ A{i}, A{i + 1} + 1\n" for i in range(600)) + ".equ A600, 0\n",
                         1),
    asm_error("huge-decimal-literal", "MOV S1, " + "9" * 5000 + "\n", 1, 9),
    # Conditional assembly (CONTRACT 13.8): each misuse with its message, word for word.
    asm_error("if-without-endif", "    NOP\n.if 1\n    NOP\n", 2, 1, "'.if' has no '.endif'"),
    asm_error("endif-without-if", "    NOP\n.endif\n", 2, 1, "'.endif' without '.if'"),
    asm_error("else-without-if", "  .else\n", 1, 3, "'.else' without '.if'"),
    asm_error("elif-without-if", ".elif 1\n", 1, 1, "'.elif' without '.if'"),
    asm_error("elif-after-else", ".if 0\n.else\n.elif 1\n.endif\n", 3, 1, "'.elif' after '.else'"),
    asm_error("second-else", ".if 0\n.else\n.else\n.endif\n", 3, 1, "a second '.else'"),
    asm_error("label-on-if", "top: .if 1\n.endif\n", 1, 1, "a label cannot stand on a .if line"),
    asm_error("extra-text-after-else", ".if 0\n.else junk\n.endif\n", 2, 7, "extra text after '.else'"),
    asm_error("extra-text-after-endif", ".if 1\n.endif 1\n", 2, 8, "extra text after '.endif'"),
    asm_error("if-nested-too-deep", ".if 1\n" * 65 + ".endif\n" * 65, 65, 1, ".if nested deeper than 64"),
    asm_error("if-straddles-macro", ".macro M\n    NOP\n.if 1\n.endm\n.endif\n", 4, 1,
              "'.if' at line 3 is not closed before '.endm'"),
    asm_error("if-straddles-rept", ".rept 2\n.if 1\n.endr\n.endif\n", 3, 1,
              "'.if' at line 2 is not closed before '.endr'"),
    asm_error("label-in-if", "top: NOP\n.if top > 0\n.endif\n", 2, 5,
              "labels have no value during conditional assembly; use .equ"),
    asm_error("undefined-in-if", ".if TILE > 64\n.endif\n", 1, 5, "undefined symbol 'TILE' in .if"),
    asm_error("defined-outside-if", "    MOV S1, defined(TILE)\n", 1, 13,
              "defined(NAME) is valid only in .if/.elif expressions"),
    asm_error("error-directive", ".equ TILE, 48\n.if TILE % 32 != 0\n  .error \"TILE must be a multiple of 32\"\n"
              ".endif\n", 3, 3, "TILE must be a multiple of 32"),
    asm_cmd_error("error-directive-writes-nothing", '    NOP\n.error "stop here"\n', 2, 1, "stop here"),
    asm_error("special-register-name-as-label", "    NOP\nAR:\n    HALT\n", 2, 1,
              "'AR' is a reserved name (a special register's): a label cannot be called that"),
    # -- part three: integer division and predicate rearrangement (CONTRACT 13.2, 13.7) --
    asm_error("int-vdiv-on-a2", "    VDIV.s32 [0x20000], [0x0], [0x10000]\n", 1, 5,
              "VDIV.s32 needs the 950 profile: the a2 divides only f16 and f32", args=("--profile", "a2")),
    asm_error("int-vrem-on-a2", "    NOP\n    VREM.u16 [0x20000], [0x0], [0x10000]\n", 2, 5,
              "VREM.u16 needs the 950 profile", args=("--profile", "a2")),
    asm_error("vdiv-8-bit", "VF.BEGIN\n    VDIV.s8 V0, V1, V2, P0\nVF.END\n", 2, 10, "VDIV does not take .s8"),
    asm_error("vrem-float", "VF.BEGIN\n    VREM.f32 V0, V1, V2, P0\nVF.END\n", 2, 10, "VREM does not take .f32"),
    asm_error("pintlv-equal-destinations", "VF.BEGIN\n    PINTLV.B16 P1, P1, P2, P3\nVF.END\n", 2, 20,
              "PINTLV needs two different destination registers"),
    asm_error("pdintlv-equal-destinations", "VF.BEGIN\n    PDINTLV.B8 P4, P4, P2, P3\nVF.END\n", 2, 20,
              "PDINTLV needs two different destination registers"),
    asm_error("ppack-bad-part", "VF.BEGIN\n    PPACK P1, P2, part=mid\nVF.END\n", 2, 24,
              "part= takes one of lo, hi"),
]

# ---------------------------------------------------------------------------------------------------
# 2. Every numeric range of CONTRACT.md section 2 (and docs/isa.md), just outside both edges
# ---------------------------------------------------------------------------------------------------
# (id, statement, column of the offending value, words its message names). Every edge is checked in
# one file by the case range-all-edges-in-one-file (the assembler reports every error of a file); a
# representative subset also runs alone, one program per case.

def _field_edges(form: str, name: str, lo: int, hi: int, suffix: str = "") -> list:
    prefix = {"binary": T3, "unary": TU, "scalar": TS, "dma": DMA}[form]
    col = len(prefix) + len(name) + 2  # the value starts after "name="
    return [(f"range-{form}-{name}-{value}", f"{prefix}{name}={value}{suffix}", col, (name, str(value)))
            for value in (lo - 1, hi + 1)]


EDGES = [
    *_field_edges("binary", "repeat", 0, 255),
    *_field_edges("binary", "dstblk", 1, 255),
    *_field_edges("binary", "src0blk", 0, 255),
    *_field_edges("binary", "src1blk", 0, 255),
    *_field_edges("binary", "dstrep", 0, 255),
    *_field_edges("binary", "src0rep", 0, 255),
    *_field_edges("binary", "src1rep", 0, 255),
    *_field_edges("unary", "repeat", 0, 255),
    *_field_edges("unary", "dstblk", 1, 65535),
    *_field_edges("unary", "srcblk", 0, 65535),
    *_field_edges("unary", "dstrep", 0, 4095),
    *_field_edges("unary", "srcrep", 0, 4095),
    *_field_edges("scalar", "dstblk", 1, 65535),
    *_field_edges("scalar", "srcblk", 0, 65535),
    *_field_edges("scalar", "dstrep", 0, 4095),
    *_field_edges("scalar", "srcrep", 0, 4095),
    *_field_edges("dma", "blocks", 1, 4095, ", len=1"),
    *_field_edges("dma", "len", 1, 65535),
    *_field_edges("dma", "srcgap", 0, 65535, ", len=1"),
    *_field_edges("dma", "dstgap", 0, 65535, ", len=1"),
    ("range-mask-0-f16", T3 + "mask=0", 30, ("mask",)),
    ("range-mask-129-f16", T3 + "mask=129", 30, ("mask", "129")),
    ("range-mask-0-f32", "VADD.f32 [0], [0], [0], mask=0", 30, ("mask",)),
    ("range-mask-65-f32", "VADD.f32 [0], [0], [0], mask=65", 30, ("mask", "65")),
    ("range-mask-65-unary-s32", "VABS.s32 [0], [0], mask=65", 25, ("mask", "65")),
    ("range-bitmask-zero", T3 + "mask=(0, 0)", 30, ()),
    ("range-bitmask-high-for-f32", "VADD.f32 [0], [0], [0], mask=(1, 1)", 30, ("high",)),
    ("range-bitmask-low-2^64", T3 + "mask=(1 << 64, 0)", 30, ()),
    ("range-bitmask-high-2^64", T3 + "mask=(0, 1 << 64)", 30, ()),
    ("range-count-0", T3 + "count=0", 31, ("count",)),
    ("range-count-2^32", T3 + "count=4294967296", 31, ("count",)),
    ("range-post-32768", "VLD.f16 V0, [S1], post=32768", 24, ("post", "32768")),
    ("range-post--32769", "VLD.f16 V0, [S1], post=-32769", 24, ("post", "-32769")),
    ("range-vst-post-32768", "VST.f16 [S1], V0, P0, post=32768", 28, ("post", "32768")),
    ("range-blk-256", "VLD.f16 V0, [S1], blk=256", 23, ("blk", "256")),
    ("range-blk--1", "VLD.f16 V0, [S1], blk=-1", 23, ("blk", "-1")),
    ("range-vst-blk-256", "VST.f16 [S1], V0, P0, blk=256", 27, ("blk", "256")),
    ("range-V32", "VLD.f16 V32, [S1]", 9, ("V32",)),
    ("range-V32-register-op", "VADD.f16 V0, V1, V32, P0", 18, ("V32",)),
    ("range-S32", "MOV S32, 1", 5, ("S32",)),
    ("range-S32-address", "VLD.f16 V0, [S32]", 14, ("S32",)),
    ("range-S32-scalar-operand", "VADDS.f32 [0], [0], S32", 21, ("S32",)),
    ("range-P8", "VST.f16 [S1], V0, P8", 19, ("P8",)),
    ("range-P8-carry", "VSUB.u32 V0, V1, V2, P0, carry=P8", 32, ("P8",)),
    ("range-event-8", "SETFLAG V, S, 8", 15, ("event",)),
    ("range-event--1", "WAITFLAG MTE2, V, -1", 19, ("event",)),
    ("range-pipe-unknown", "SETFLAG X, V, 0", 9, ("pipe",)),
    ("range-pipe-all-not-a-flag-pipe", "SETFLAG V, ALL, 0", 12, ("pipe",)),
    ("range-barrier-pipe", "BARRIER MTE1", 9, ("pipe",)),
    ("range-pattern", "PSET.b16 P0, VL5", 14, ("pattern",)),
    ("range-mask-width", "PSET.b64 P0, ALL", 6, ("b64",)),
    ("range-mov-imm-2^64", "MOV S1, 18446744073709551616", 9, ("18446744073709551616",)),
    ("range-mov-imm--2^63-1", "MOV S1, -9223372036854775809", 9, ("9223372036854775809",)),
    ("range-alu-imm-2^43", "ADD S1, S1, 8796093022208", 13, ("8796093022208",)),
    ("range-alu-imm--2^43-1", "SUB S1, S1, -8796093022209", 13, ("8796093022209",)),
    ("range-branch-imm-2^25", "BEQ S1, 33554432, 0", 9, ("33554432",)),
    ("range-branch-imm--2^25-1", "BNE S1, -33554433, 0", 9, ("33554433",)),
    ("range-branch-target-2^24", "JMP 0x1000000", 5, ()),
    ("range-branch-target-negative", "JMP -8", 5, ()),
    ("range-branch-target-misaligned", "JMP 4", 5, ()),
    ("range-scalar-s16-32768", "VADDS.s16 [0], [0], 32768", 21, ("32768",)),
    ("range-scalar-s16--32769", "VMULS.s16 [0], [0], -32769", 21, ("32769",)),
    ("range-scalar-u16--1", "VMAXS.u16 [0], [0], -1", 21, ("-1",)),
    ("range-scalar-u32-2^32", "VMINS.u32 [0], [0], 4294967296", 21, ("4294967296",)),
    ("range-scalar-s32-2^31", "VADDS.s32 V0, V1, 2147483648, P0", 19, ("2147483648",)),
    ("range-scalar-bits-too-wide", "VADDS.f16 [0], [0], bits(0x10000)", 21, ()),
    ("range-ub-address-negative", "VLD.f16 V0, [-32]", 13, ("-32",)),
    ("range-ub-address-2^18", "VLD.f16 V0, [0x40000]", 13, ()),
    ("range-ub-offset-131072", "VLD.f16 V0, [S1 + 131072]", 13, ("131072",)),
    ("range-ub-offset--131104", "VLD.f16 V0, [S1 - 131104]", 13, ("131104",)),
    ("range-gm-address-2^32", "DMA.GM2UB [0], gm[0x100000000], len=1", 16, ()),
    ("range-gm-address-negative", "DMA.UB2GM gm[-1], [0], len=1", 11, ("-1",)),
    ("range-gm-offset-2^26", "DMA.GM2UB [0], gm[S1 + 0x4000000], len=1", 16, ()),
    ("range-gm-offset--2^26-1", "DMA.GM2UB [0], gm[S1 - 0x4000001], len=1", 16, ()),
    ("range-data-s8-128", ".ub 0, s8, 1, -128, 128", 21, ("128",)),
    ("range-data-s8--129", ".ub 0, s8, -129", 12, ("-129",)),
    ("range-data-u8--1", ".gm 0, u8, 0, -1", 15, ("-1",)),
    ("range-data-u16-65536", ".ub 0, u16, 65536", 13, ("65536",)),
    ("range-fill-count-0", ".ubfill 0, f16, 0, 1.0", 17, ()),
    ("range-fill-count-2^32", ".gmfill 0, u8, 4294967296, 1", 16, ()),
    ("range-data-address-negative", ".ub -1, u8, 1", 5, ("-1",)),
    ("range-data-address-2^32", ".gm 0x100000000, u8, 1", 5, ()),
]

# one program per case: a sample of fields, registers, immediates and addresses
ALONE = {
    "range-binary-repeat--1", "range-binary-repeat-256", "range-binary-dstblk-0", "range-binary-src1blk-256",
    "range-unary-dstblk-65536", "range-unary-dstrep-4096", "range-scalar-srcrep-4096", "range-dma-blocks-0",
    "range-dma-len-65536", "range-dma-dstgap-65536", "range-mask-129-f16", "range-mask-65-f32",
    "range-bitmask-zero", "range-count-0", "range-post-32768", "range-blk-256", "range-V32", "range-S32",
    "range-P8", "range-event-8", "range-mov-imm-2^64", "range-scalar-s16-32768", "range-ub-offset-131072",
    "range-gm-address-2^32", "range-data-s8-128", "range-fill-count-0",
}


def _all_edges(d: Path) -> list:
    return ["run", _write_prog(d, "".join(text + "\n" for _, text, _, _ in EDGES)), "--report", "none"]


def _check_all_edges(r, d: Path) -> None:
    _status(r, 2)
    source = "".join(text + "\n" for _, text, _, _ in EDGES)
    missed = []
    for line, (edge_id, _, col, words) in enumerate(EDGES, start=1):
        try:
            _located(r, d / PROG, source, line, col, *words)
        except AssertionError as err:
            missed.append(f"{edge_id} (line {line}): {str(err).splitlines()[0]}")
    assert not missed, "\n".join(missed)


def _alone(text: str) -> tuple[str, int]:
    """A statement as a program of its own, and its line: a register statement inside a vector
    function (CONTRACT 7), so that its range is the program's only error."""
    if re.search(r"\b[VP]\d+\b|^PSET", text):
        return f"VF.BEGIN\n{text}\nVF.END\n", 2
    return text + "\n", 1


RANGES = [
    *(asm_error(edge_id, *_alone(text), col, *words) for edge_id, text, col, words in EDGES if edge_id in ALONE),
    Case("range-all-edges-in-one-file", _all_edges, _check_all_edges),
]

# ---------------------------------------------------------------------------------------------------
# 3. Runtime faults: misaligned and out-of-range accesses, from immediates and from registers
# ---------------------------------------------------------------------------------------------------
# pcs are byte offsets: MOV, ADD, VLD, VST, PSET, PLD, PST, VGATHER, NOP, VF.BEGIN, VF.END, LOOP,
# ENDLOOP are one word (8 bytes); tensor binary/unary and DMA two (16); tensor scalar forms three
# (24); a mask/count field adds two. Register instructions run inside vector functions (CONTRACT 7):
# a fault there names the inner instruction's pc and line.

GATHER_F16 = (".ub 0x100, u16, 0, 1, {idx}\nMOV S1, {base}\nMOV S2, 0x100\nVF.BEGIN\nPSET.b16 P0, VL3\n"
              "VLD.u16 V0, [S2]\n")

FAULTS = [
    # misaligned, from immediates
    fault("misaligned-tensor-dst-imm", "VADD.f16 [0x10], [0], [0]\n", 1, 0x0, "align"),
    fault("misaligned-tensor-src0-imm", "NOP\nVADD.f16 [0x20], [0x10], [0]\n", 2, 0x8, "align"),
    fault("misaligned-vld-imm", "VF.BEGIN\nVLD.f16 V0, [0x10]\nVF.END\n", 2, 0x8, "align"),
    fault("misaligned-dma-ub-side", "DMA.GM2UB [0x10], gm[0], len=1\n", 1, 0x0, "align"),
    # misaligned, from registers
    fault("misaligned-vld-register", "MOV S1, 0x7\nVF.BEGIN\nVLD.f16 V0, [S1]\nVF.END\n", 3, 0x10, "align"),
    fault("misaligned-scalar-op-src-register", "MOV S3, 0x30\nVMULS.f32 [0], [S3 + 32], 2.0, repeat=3\n", 2, 0x8,
          "align"),
    fault("misaligned-gather-base-register",
          "MOV S1, 0x11\nVF.BEGIN\nPSET.b16 P0, ALL\nVGATHER.f16 V1, [S1], V0, P0\nVF.END\n", 4, 0x18, "align"),
    fault("misaligned-after-post-increment",
          "MOV S1, 0\nVF.BEGIN\nPSET.b16 P0, ALL\nVLD.f16 V0, [S1], post=8\nVST.f16 [0x1000], V0, P0\n"
          "VLD.f16 V1, [S1]\nVF.END\n", 6, 0x28, "align"),
    # out of range, from immediates: register ops and tensor operands past the end of UB
    fault("vld-past-end-of-ub-imm", "VF.BEGIN\nVLD.f16 V0, [0x3ff80]\nVF.END\n", 2, 0x8, "UB"),
    # (the MOV inside the function: its scalar lane sets the function's S1)
    fault("vst-past-end-of-ub-datablock-mode",
          "VF.BEGIN\nPSET.b16 P0, ALL\nMOV S1, 0x3fe00\nVST.f16 [S1], V0, P0, blk=255\nVF.END\n", 4, 0x18, "UB"),
    fault("tensor-dst-past-end-repeat", "VADD.f16 [0x3ff00], [0], [0], repeat=2\n", 1, 0x0, "UB"),
    # out of range, from registers
    fault("unary-src-past-end-block-stride", "VSQRT.f32 [0], [0x3ff00], srcblk=8\n", 1, 0x0, "UB"),
    fault("vld-register-at-end-of-ub", "MOV S1, 0x40000\nVF.BEGIN\nVLD.f16 V0, [S1]\nVF.END\n", 3, 0x10, "UB"),
    fault("vst-register-negative", "MOV S1, -64\nVF.BEGIN\nPSET.b16 P0, ALL\nVST.f16 [S1], V0, P0\nVF.END\n",
          4, 0x18, "UB"),
    # in a hardware loop: the third pass reads 0x40000.., and the message says which pass
    fault("vld-past-end-in-a-hardware-loop",
          "MOV S1, 0x3fe00\nVF.BEGIN\nLOOP 3\nVLD.f16 V0, [S1], post=128\nENDLOOP\nVF.END\n", 4, 0x18, "UB",
          "(iteration 3 of 3 of the LOOP at line 3 (LOOP 3))"),
    # DMA past the end of GM and UB
    fault("dma-gm-source-past-end", "DMA.GM2UB [0], gm[0xffffe0], len=2\n", 1, 0x0, "GM"),
    fault("dma-gm-register-past-end", "MOV S2, 0x1000000\nDMA.UB2GM gm[S2], [0], len=1\n", 2, 0x8, "GM"),
    fault("dma-gm-past-small-gm-size", "DMA.GM2UB [0], gm[0x100], len=1\n", 1, 0x0, "GM",
          args=("--gm-size", "256")),
    fault("dma-largest-transfer", "DMA.GM2UB [0], gm[0], blocks=4095, len=65535\n", 1, 0x0,
          args=("--gm-size", str(1 << 32))),
    # gather / scatter indices: the index vector is built in UB, loaded, then used
    fault("gather-f16-index-past-end",
          GATHER_F16.format(idx=128, base=0x3ff00) + "VGATHER.f16 V1, [S1], V0, P0\nVF.END\n", 7, 0x28, "UB", "128"),
    fault("gather-s8-index-past-end",
          GATHER_F16.format(idx=256, base=0x3ff00) + "VGATHER.s8 V1, [S1], V0, P0\nVF.END\n", 7, 0x28, "UB", "256"),
    fault("scatter-u32-index-max",
          ".ub 0x100, u32, 0, 0xffffffff\nMOV S1, 0\nMOV S2, 0x100\nVF.BEGIN\nPSET.b32 P0, VL2\nVLD.u32 V0, [S2]\n"
          "VSCATTER.u32 [S1], V1, V0, P0\nVF.END\n", 7, 0x28, "UB", "4294967295"),
    # control reaching the middle of an instruction
    Case("jump-into-an-instruction",
         lambda d: ["run", _write_prog(d, "a: VADD.f16 [0], [0], [0]\n    JMP a + 8\n"), "--report", "none"],
         lambda r, d: (_status(r, 1), _names_fault(r, str(d / PROG), 2, 0x10, "JMP a + 8"))),
    # data directives that do not fit the memory: placed before the run, so no pc, but the line is the place
    Case("data-directive-past-end-of-ub",
         lambda d: ["run", _write_prog(d, "    NOP\n.ub 0x3fff0, f32, 1, 2, 3, 4, 5\n"), "--report", "none"],
         lambda r, d: (_status(r, 1), _has(r.stderr, f"{d / PROG}:2:", ".ub 0x3fff0, f32, 1, 2, 3, 4, 5"))),
    Case("data-directive-past-small-gm",
         lambda d: ["run", _write_prog(d, "NOP\n.gmfill 0xf0, f32, 8, 1.0\n"), "--report", "none",
                    "--gm-size", "256"],
         lambda r, d: (_status(r, 1), _has(r.stderr, f"{d / PROG}:2:", ".gmfill 0xf0, f32, 8, 1.0"))),
    # limits
    fault("max-instructions-infinite-loop", "loop: JMP loop\n", 1, 0x0, "--max-instructions",
          args=("--max-instructions", "1000")),
    fault("max-cycles-infinite-loop", "    NOP\nloop: JMP loop\n", 2, 0x8, "--max-cycles",
          args=("--max-cycles", "5000")),
    fault("max-cycles-one-long-instruction", "VEXP.f32 [0], [0], repeat=255\n", 1, 0x0, "--max-cycles",
          args=("--max-cycles", "100")),
    # deadlocks: the waiting WAITFLAG is named
    fault("deadlock-wait-without-set", "WAITFLAG MTE2, V, 0\nHALT\n", 1, 0x0, "deadlock"),
    fault("deadlock-scalar-pipe-waits", "NOP\nWAITFLAG V, S, 3\nHALT\n", 2, 0x8, "deadlock"),
    fault("deadlock-second-wait", "SETFLAG MTE2, V, 0\nWAITFLAG MTE2, V, 0\nWAITFLAG MTE2, V, 0\n", 3, 0x10,
          "deadlock"),
    Case("deadlock-two-pipes-wait-for-each-other",
         lambda d: ["run", _write_prog(d, "WAITFLAG V, MTE2, 0\nDMA.GM2UB [0], gm[0], len=1\nWAITFLAG MTE2, V, 0\n"
                                          "SETFLAG V, MTE2, 0\n"), "--report", "none"],
         lambda r, d: (_status(r, 1), _has(r.stderr, "deadlock", f"{d / PROG}:", "WAITFLAG V, MTE2, 0",
                                           "WAITFLAG MTE2, V, 0"))),
    # --strict makes a race a fault (CONTRACT 3.7)
    fault("strict-race-is-a-fault",
          ".gmfill 0x0, f32, 64, 2.0\nDMA.GM2UB [0x0], gm[0x0], len=8\nVADDS.f32 [0x100], [0x0], 10.0\nHALT\n",
          3, 0x10, "DMA.GM2UB [0x0], gm[0x0], len=8", args=("--strict",)),
    # a flag set twice is not an error: a warning, and the run succeeds
    warning("flag-set-twice", "SETFLAG V, MTE2, 0\nSETFLAG V, MTE2, 0\nHALT\n", "flag"),
]

# ---------------------------------------------------------------------------------------------------
# 4. Program files: .vbin that is truncated, foreign, corrupt or empty; missing files; directories
# ---------------------------------------------------------------------------------------------------

def _good_vbin() -> bytes:
    return vbin((NOP, *VADD_WORDS, HALT), RECORD.pack(0, 1, 1, 0, 0x0, 256) + b"\x00\x3c" + b"\0" * 6, 1)


def _vbin_case(case_id: str, content, *words: str, status: int = 2, command: str = "run") -> Case:
    def build(d: Path) -> list:
        path = _file("prog.vbin", content)(d)
        return [command, path] + (["--report", "none"] if command == "run" else [])

    return usage(case_id, build, "{d}/prog.vbin", *words, status=status)


def _record(space=0, kind=0, code=1, zero=0, addr=0, count=1, payload=b"\0" * 8) -> bytes:
    return RECORD.pack(space, kind, code, zero, addr, count) + payload


def _from_source(source: str) -> bytes:
    from vcore.assembler import assemble
    from vcore.isa.program import to_bytes

    return to_bytes(assemble(source, "x.asm"))


def _vbin_fault(d: Path) -> list:
    return ["run", _file("f.vbin", _from_source("MOV S1, 0x7\nVF.BEGIN\nVLD.f16 V0, [S1]\nVF.END\n"))(d), "--report",
            "none"]


FILES = [
    usage("control-good-vbin-runs", lambda d: ["run", _file("prog.vbin", _good_vbin)(d), "--dump", "ub:0:f16:2"],
          status=0),
    _vbin_case("vbin-empty", b""),
    _vbin_case("vbin-truncated-header", lambda: _good_vbin()[:20]),
    _vbin_case("vbin-truncated-body", lambda: _good_vbin()[:-4]),
    _vbin_case("vbin-png-header", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(40)),
    _vbin_case("vbin-text-renamed", b"hello, I am not a program\n"),
    _vbin_case("vbin-crc-body-byte-flipped", lambda: _flip(_good_vbin(), 40)),
    _vbin_case("vbin-flipped-byte-disasm", lambda: _flip(_good_vbin(), 33), command="disasm"),
    _vbin_case("vbin-version-2", lambda: vbin(version=2)),
    _vbin_case("vbin-unknown-opcode", lambda: vbin((0xFF,))),
    _vbin_case("vbin-instruction-cut-in-half", lambda: vbin(VADD_WORDS[:1])),
    _vbin_case("vbin-field-out-of-range", lambda: vbin((VADD_WORDS[0], VADD_WORDS[1] & ~(1 << 13)))),
    _vbin_case("vbin-record-runs-past-file", lambda: vbin(records=_record(count=100), nrecords=1)),
    _vbin_case("vbin-record-past-ub", lambda: vbin(records=_record(kind=1, code=5, addr=0x40000, payload=b"\1"
                                                                   + b"\0" * 7), nrecords=1), "UB", status=1),
    Case("vbin-fault-names-pc-and-disassembly", _vbin_fault,
         lambda r, d: (_status(r, 1), _names_fault(r, str(d / "f.vbin"), None, 0x10, "VLD.f16 V0, [S1]"))),
    usage("program-missing", lambda d: ["run", d / "missing.asm"], "{d}/missing.asm"),
    usage("program-is-a-directory", lambda d: ["run", d], "{d}"),
    usage("program-not-utf8", run_file("bin.asm", b"\xff\xfe\x00\x01NOP\x80\n"), "bin.asm"),
    usage("asm-output-directory-missing", lambda d: ["asm", _ok(d), "-o", d / "no" / "such" / "x.vbin"], "x.vbin"),
    Case("debug-bad-commands",
         lambda d: ["debug", _write_prog(d, "MOV S1, 5\nHALT\n")],
         lambda r, d: _has(r.stdout + r.stderr, "frob", "nowhere", "V99", "S32", "0x40000", "'x'"),
         stdin="frob\nbreak nowhere\nprint V99.f16\nprint S32\nprint ub:0x40000:f16:1\nwatch ub:zz:1\nback\n"
               "step x\ncontinue\nnext\nquit\n"),
    usage("debug-program-missing", lambda d: ["debug", d / "missing.asm"], "{d}/missing.asm", stdin="quit\n"),
]

# ---------------------------------------------------------------------------------------------------
# 5. --load and --dump
# ---------------------------------------------------------------------------------------------------

def _object_npy() -> bytes:
    return _npy_bytes(np.array([{"a": 1}, None], dtype=object))


def _f32_npy() -> bytes:
    return _npy_bytes(np.arange(64, dtype="<f4"))


def _huge_shape_npy() -> bytes:
    import io

    from numpy.lib import format as npy_format

    buffer = io.BytesIO()
    npy_format.write_array_header_1_0(buffer, {"descr": "<f4", "fortran_order": False, "shape": (1 << 40,)})
    return buffer.getvalue() + bytes(64)


def _unreadable(d: Path) -> str:
    if os.geteuid() != 0:
        path = _file("secret.bin", b"\1" * 32)(d)
        path.chmod(0)
        return f"ub:0={path}"
    # root reads anything: a path through a regular file cannot be opened either
    return f"ub:0={_file('plain.bin', b'x')(d)}/secret.bin"


LOADS = [
    usage("load-pickled-object-npy", run_ok("--load", _load("ub:0", "obj.npy", _object_npy)), "obj.npy"),
    usage("load-text-named-npy", run_ok("--load", _load("ub:0", "t.npy", "this is not numpy\n")), "t.npy"),
    usage("load-npy-truncated-data", run_ok("--load", _load("ub:0", "d.npy", lambda: _f32_npy()[:150])), "d.npy"),
    # regression: numpy used to try to allocate the 4 TiB the header claims (a MemoryError traceback)
    usage("load-npy-header-claims-huge-shape", run_ok("--load", _load("ub:0", "huge.npy", _huge_shape_npy)),
          "huge.npy"),
    usage("load-missing-file", run_ok("--load", lambda d: f"ub:0={d / 'missing.bin'}"), "missing.bin"),
    usage("load-unreadable", run_ok("--load", _unreadable), "secret.bin"),
    usage("load-raw-past-end-of-ub", run_ok("--load", _load("ub:0x3fff0", "big.bin", b"\1" * 64)), "big.bin"),
    usage("load-past-end-of-small-gm", run_ok("--gm-size", "64", "--load", _load("gm:0x20", "g.bin", b"\1" * 64)),
          "g.bin"),
    usage("load-spec-without-file", run_ok("--load", "ub:0"), "--load"),
    usage("load-spec-negative-address", run_ok("--load", _load("ub:-32", "x.bin", b"\1")), "-32"),
]

DUMPS = [
    usage("dump-missing-count", run_ok("--dump", "ub:0x0:f16"), "ub:0x0:f16"),
    usage("dump-bad-space", run_ok("--dump", "xx:0:f16:1"), "xx"),
    usage("dump-bad-type", run_ok("--dump", "ub:0:f17:1"), "f17"),
    usage("dump-address-negative", run_ok("--dump", "ub:-2:f16:1"), "ub:-2:f16:1"),
    usage("dump-past-end-of-ub", run_ok("--dump", "ub:0x3fffe:f16:2"), "ub:0x3fffe:f16:2"),
    usage("dump-past-end-of-small-gm", run_ok("--gm-size", "64", "--dump", "gm:0x40:u8:1"), "gm:0x40:u8:1"),
    usage("dump-to-missing-directory", run_ok("--dump", lambda d: f"ub:0:f16:2={d / 'no' / 'x.npy'}"), "x.npy"),
]

# ---------------------------------------------------------------------------------------------------
# 6. Profiles, --gm-size and the other options
# ---------------------------------------------------------------------------------------------------

def _profile_file(name: str, edit: Callable[[str], str] | bytes) -> Callable[[Path], Path]:
    def write(d: Path) -> Path:
        path = d / name
        if isinstance(edit, bytes):
            path.write_bytes(edit)
            return path
        from vcore.emulator.profiles.profile import builtin_text

        text = builtin_text("950")
        edited = edit(text)
        assert edited != text, "the edit did not apply"
        path.write_text(edited)
        return path

    return write


# The line of "[machine]" in the built-in profile, counted here (the header comment above it may grow).
_PROFILE_LINES = (Path(__file__).parents[2] / "emulator/profiles/950.toml").read_text().splitlines()
_MACHINE_LINE = _PROFILE_LINES.index("[machine]") + 1


def _profile_case(case_id: str, edit, *words: str) -> Case:
    return usage(case_id, run_ok("--profile", _profile_file("mine.toml", edit)), "mine.toml", *words)


PROFILES = [
    usage("profile-unknown-name", run_ok("--profile", "910"), "910"),
    usage("profile-empty-name", run_ok("--profile", ""), "profile"),
    usage("profile-missing-toml", run_ok("--profile", lambda d: d / "nope.toml"), "nope.toml"),
    _profile_case("profile-toml-syntax-error", lambda t: t.replace("[machine]", "[machine", 1),
                  f"line {_MACHINE_LINE}"),
    _profile_case("profile-unknown-key", lambda t: t.replace("[machine]", "[machine]\nturbo = 1", 1), "turbo"),
    _profile_case("profile-string-for-number", lambda t: t.replace("clock_ghz = 1.65", 'clock_ghz = "fast"', 1),
                  "clock_ghz"),
    _profile_case("profile-not-text", b"\xff\xfe\x00\x80garbage"),
    usage("profile-nan-number",
          lambda d: ["run", _write_prog(d, "DMA.GM2UB [0], gm[0], len=1\n"), "--report", "none", "--profile",
                     _profile_file("nan.toml", lambda t: re.sub(r"(?m)^gm2ub_bytes_per_cycle = [0-9.]+",
                                                                   "gm2ub_bytes_per_cycle = nan", t, count=1))(d)],
          "nan.toml", "gm2ub_bytes_per_cycle"),  # regression: nan passed the check and crashed the first DMA
]

OPTIONS = [
    usage("gm-size-0", run_ok("--gm-size", "0"), "--gm-size"),
    usage("gm-size-negative", run_ok("--gm-size", "-1"), "--gm-size"),
    usage("gm-size-2^40", run_ok("--gm-size", str(1 << 40)), "--gm-size"),
    usage("gm-size-not-a-number", run_ok("--gm-size", "lots"), "--gm-size"),
    usage("max-instructions-0", run_ok("--max-instructions", "0"), "--max-instructions"),
    usage("max-cycles-negative", run_ok("--max-cycles", "-5"), "--max-cycles"),
    usage("unknown-option", run_ok("--bogus"), "--bogus"),
]

# ---------------------------------------------------------------------------------------------------
# Part three, register rearrangement (CONTRACT 13.3, 13.6, 13.12): VINTLV, VDINTLV, VPACK, VUNPACK,
# VHIST and VCONV ..., sat; and transposes (CONTRACT 13.5): VTRANS and VTRANS5HD, every assembly error,
# refusal and fault, the contract's texts word for word where it gives them
# ---------------------------------------------------------------------------------------------------

_5HD_SRC = ".ub 0x0, u64, " + ", ".join(hex(0x4000 + 32 * i) for i in range(16)) + "\n"
_5HD_DST = ".ub 0x80, u64, " + ", ".join(hex(0x8000 + 32 * j) for j in range(16)) + "\n"
_5HD_32 = "the 32-bit layout is documented only by a figure; split the data into 16-bit halves"


def _in_function(line: str) -> str:
    return f"VF.BEGIN\n    {line}\nVF.END\nHALT\n"


def _refused_on_a2(case_id: str, source: str, line: int, col: int, *words: str) -> Case:
    """Valid on the 950, refused on the a2 when loaded: exit 2, ``FILE:LINE:COL: error: MESSAGE`` first
    (then the statement, as the loader quotes it), nothing on stdout."""
    def build(d: Path) -> list:
        return ["run", _write_prog(d, source), "--report", "none", "--profile", "a2"]

    def check(r, d: Path) -> None:
        _status(r, 2)
        head = f"{d / PROG}:{line}:{col}: error:"
        lines = r.stderr.splitlines()
        _check(bool(lines) and lines[0].startswith(head), f"{r.stderr[-3000:]!r} does not start with {head!r}")
        _has(lines[0], *words)
        _check(lines[1].strip() == source.split("\n")[line - 1].strip() and lines[2].strip().startswith("^"),
               f"the statement and a caret do not follow: {r.stderr[-3000:]!r}")
        _check(r.stdout == "", "a refused program printed a report")

    return Case(case_id, build, check)


REGISTER_REARRANGEMENT = [
    asm_error("vintlv-same-destinations", _in_function("VINTLV.f16 V2, V2, V0, V1"), 2, 20,
              "VINTLV needs two different destination registers"),
    asm_error("vdintlv-same-destinations", _in_function("VDINTLV.u8 V3, V3, V0, V0"), 2, 20,
              "VDINTLV needs two different destination registers"),
    asm_error("vintlv-64-bit-type", _in_function("VINTLV.s64 V2, V3, V0, V1"), 2, 12, ".s64"),
    asm_error("vpack-pair-not-supported", _in_function("VPACK.u8.s32 V1, V0"), 2, 11,
              "VPACK.u8.s16, VPACK.u8.u16, VPACK.u16.s32, VPACK.u16.u32"),
    asm_error("vpack-signed-destination", _in_function("VPACK.s8.s16 V1, V0"), 2, 11,
              "VPACK.u8.s16, VPACK.u8.u16, VPACK.u16.s32, VPACK.u16.u32"),
    asm_error("vunpack-sign-mismatch", _in_function("VUNPACK.s16.u8 V1, V0"), 2, 13,
              "VUNPACK.s16.s8, VUNPACK.u16.u8, VUNPACK.s32.s16, VUNPACK.u32.u16"),
    asm_error("vunpack-one-type", _in_function("VUNPACK.s16 V1, V0"), 2, 13, "VUNPACK.D.S"),
    asm_error("vpack-part-number", _in_function("VPACK.u8.s16 V1, V0, part=1"), 2, 31, "part=", "lo", "hi"),
    asm_error("vhist-no-bin", _in_function("VHIST.FREQ V1, V0, P0"), 2, 11, "VHIST.FREQ.BIN0", "VHIST.CUM.BIN1"),
    asm_error("vhist-bin2", _in_function("VHIST.CUM.BIN2 V1, V0, P0"), 2, 11, "VHIST.CUM.BIN1"),
    asm_error("vhist-typed", _in_function("VHIST.f16 V1, V0, P0"), 2, 11, "VHIST.K.BINn"),
    asm_error("vconv-sat-with-value", _in_function("VCONV.f16.f32 V1, V0, P0, sat=1"), 2, 31, "sat"),
    asm_error("vconv-sat-twice", _in_function("VCONV.f16.f32 V1, V0, P0, sat, sat"), 2, 36, "sat"),
    asm_error("vadd-takes-no-sat", _in_function("VADD.f16 V1, V0, V0, P0, sat"), 2, 30, "VADD"),
    _refused_on_a2("vconv-sat-tensor-on-a2", "VCONV.f16.f32 [0x200], [0x0], sat\nHALT\n", 1, 1,
                   "VCONV.f16.f32 sat needs the 950 profile", "a2"),
]

TRANSPOSES = [
    asm_error("vtrans-bf16", "VTRANS.bf16 [0x0], [0x200]\n", 1, 8, "VTRANS does not take .bf16"),
    asm_error("vtrans-8-bit", "VTRANS.u8 [0x0], [0x200]\n", 1, 8, "VTRANS does not take .u8"),
    asm_error("vtrans-32-bit", "VTRANS.f32 [0x0], [0x200]\n", 1, 8, "VTRANS does not take .f32"),
    asm_error("vtrans-repeat-0", "VTRANS.f16 [0x0], [0x200], repeat=0\n", 1, 35, "repeat", "1..4095"),
    asm_error("vtrans-srcrep-4096", "VTRANS.f16 [0x0], [0x200], srcrep=4096\n", 1, 35, "srcrep", "0..4095"),
    asm_error("vtrans5hd-f32", "VTRANS5HD.f32 [0x80], [0x0]\n", 1, 11, f"VTRANS5HD.f32: {_5HD_32}"),
    asm_error("vtrans5hd-s32", "VTRANS5HD.s32 [0x80], [0x0]\n", 1, 11, f"VTRANS5HD.s32: {_5HD_32}"),
    asm_error("vtrans5hd-u32", "VTRANS5HD.u32 [0x80], [0x0]\n", 1, 11, f"VTRANS5HD.u32: {_5HD_32}"),
    asm_error("vtrans5hd-srchigh-16-bit", "VTRANS5HD.f16 [0x80], [0x0], srchigh=1\n", 1, 38, "srchigh",
              "s8 or u8"),
    asm_error("vtrans5hd-dsthigh-16-bit", "VTRANS5HD.s16 [0x80], [0x0], dsthigh=0\n", 1, 38, "dsthigh",
              "s8 or u8"),
    asm_error("vtrans5hd-repeat-256", "VTRANS5HD.u8 [0x80], [0x0], repeat=256\n", 1, 36, "repeat", "0..255"),
    _refused_on_a2("vtrans5hd-bf16-on-a2", "    VTRANS5HD.bf16 [0x80], [0x0]\n    HALT\n", 1, 5,
                   "VTRANS5HD.bf16 needs the 950 profile (a2 has no bf16 TransDataTo5HD)"),
    fault("vtrans-partial-overlap", "VTRANS.f16 [0x1100], [0x1000]\n", 1, 0x0,
          "VTRANS: dst and src overlap other than exactly"),
    fault("vtrans-partial-overlap-with-a-later-tile", "NOP\nVTRANS.f16 [0x1300], [0x1000], repeat=2\n", 2, 0x8,
          "VTRANS: dst and src overlap other than exactly"),
    fault("vtrans-misaligned-register", "MOV S1, 0x1010\nVTRANS.f16 [0x2000], [S1]\n", 2, 0x8, "align"),
    fault("vtrans-past-ub", "VTRANS.f16 [0x3FE00], [0x0], repeat=2\n", 1, 0x0, "outside UB"),
    fault("vtrans5hd-list-entry-misaligned",
          ".ub 0x0, u64, 0x4000, 0x4020, 0x4040, 0x1234\n" + _5HD_DST + "VTRANS5HD.f16 [0x80], [0x0]\n", 3, 0x0,
          "VTRANS5HD: srclist[3] = 0x1234 is not 32-byte aligned"),
    fault("vtrans5hd-list-entry-outside-ub",
          _5HD_SRC + ".ub 0x80, u64, 0x40000\n" + "VTRANS5HD.f16 [0x80], [0x0]\n", 3, 0x0,
          "VTRANS5HD: dstlist[0] = 0x40000 is outside UB (UB size 0x40000)"),
    fault("vtrans5hd-iteration-past-ub",
          _5HD_SRC + ".ub 0x80, u64, 0x3FFE0\n" + "VTRANS5HD.f16 [0x80], [0x0], dstrep=1\n", 3, 0x0,
          "VTRANS5HD: dstlist[0] = 0x3ffe0 plus iteration 0's offset 0x20 is outside UB (UB size 0x40000)"),
    fault("vtrans5hd-destination-is-a-source",
          _5HD_SRC + ".ub 0x80, u64, 0x8000, 0x4060\n" + "VTRANS5HD.u8 [0x80], [0x0]\n", 3, 0x0,
          "VTRANS5HD: iteration 0's destination block 0x4060 (dstlist[1]) is its source block srclist[3]"),
    fault("vtrans5hd-list-past-ub", "VTRANS5HD.f16 [0x3FFE0], [0x0]\n", 1, 0x0, "outside UB"),
]

# -- part three: compaction and sort (CONTRACT 13.4, 13.6, 13.10) --
_SPR_FLAG = "SETFLAG V, S, 0\nWAITFLAG V, S, 0\n"
COMPACTION_SORT = [
    asm_error("spr-gathermask-src1rep-fixed", "VGATHERM.f16 [0x100], [0x0], 1, src1rep=1\n", 1, 41,
              "src1rep has no effect with a fixed pattern"),
    asm_error("spr-gathermask-bit-mask", "VGATHERM.f16 [0x100], [0x0], 1, mask=(1, 0)\n", 1, 38,
              "VGATHERM takes mask=N (elements per iteration), not a bit mask or count="),
    asm_error("spr-gathermask-count", "VGATHERM.u32 [0x100], [0x0], [0x200], count=40\n", 1, 45,
              "VGATHERM takes mask=N (elements per iteration), not a bit mask or count="),
    asm_error("spr-gathermask-pattern-8", "VGATHERM.f16 [0x100], [0x0], 8\n", 1, 30, "pattern 8 out of range 1..7"),
    asm_error("spr-mov-ar-inside-function", "VF.BEGIN\nMOV S1, AR\nVF.END\n", 2, 1,
              "MOV Sd, AR cannot be inside a vector function"),
    asm_error("spr-sort32-misaligned-score", "VSORT32.f32 [0x1000], [0x40], [0x800]\n", 1, 23,
              "VSORT32 score address 0x40 is not aligned to 128 bytes"),
    asm_error("spr-mrgsort-repeat-two-queues", "VMRGSORT.f32 [0x1000], [0x0], [0x18], len=(3, 2), repeat=2\n", 1, 58,
              "VMRGSORT repeat=2 needs 4 contiguous queues of equal length and stop=0"),
    asm_error("spr-mrgsort-len-count", "VMRGSORT.f32 [0x1000], [0x0], [0x18], len=(3, 2, 1)\n", 1, 43,
              "len= gives 3 lengths for 2 queues"),
    asm_error("spr-mrgsort-len-range", "VMRGSORT.f32 [0x1000], [0x0], [0x18], len=(3, 4096)\n", 1, 47,
              "len: 4096 out of range 0..4095"),
    _refused_on_a2("spr-a2-gathermask-s8", "NOP\nVGATHERM.s8 [0x100], [0x0], 7\n", 2, 1,
                "VGATHERM.s8 needs the 950 profile (a2 has no 8-bit GatherMask)"),
    _refused_on_a2("spr-a2-mov-ar", "MOV S1, AR\n", 1, 1, "MOV Sd, AR needs the 950 profile"),
    fault("spr-gathermask-overlap", "VGATHERM.u16 [0x20], [0x0], 7\nHALT\n", 1, 0x0,
          "VGATHERM: dst overlaps src0 other than exactly"),
    fault("spr-mrgsort-overlap", "VMRGSORT.f32 [0x0], [0x10], [0x100], len=(3, 2)\nHALT\n", 1, 0x0,
          "VMRGSORT: dst overlaps q0"),
    fault("spr-mrgsort-register-length", "MOV S5, 4096\nVMRGSORT.f32 [0x1000], [0x0], [0x18], len=(S5, 2)\n", 2, 0x8,
          "out of range 0..4095"),
    fault("spr-mrgsort-repeat-registers", "MOV S1, 0x20\n"
          "VMRGSORT.f32 [0x1000], [0x0], [S1], [0x30], [0x48], len=(3, 3, 3, 3), repeat=2\n", 2, 0x8,
          "VMRGSORT repeat=2 needs 4 contiguous queues of equal length and stop=0"),
    fault("spr-sort32-misaligned-register", "MOV S1, 0x20\nVSORT32.f16 [0x1000], [S1], [0x800]\n", 2, 0x8,
          "VSORT32 score address 0x20 is not aligned to 64 bytes"),
    fault("spr-strict-race-on-rsvdcnt", "VGATHERM.u16 [0x1000], [0x0], 1\nMOV S1, RSVDCNT\nHALT\n", 2, 0x10,
          "spr", args=("--strict",)),
    warning("spr-repeat-zero-on-the-950", "VSORT32.f16 [0x1000], [0x0], [0x800], repeat=0\nHALT\n",
            "repeat=0 is not guaranteed to be a no-operation on the 950"),
    # (ours: the contract gives no text for a cnt= that is not a scalar register, or for cnt=S0)
    asm_error("spr-squeeze-count-not-a-register", "VF.BEGIN\nVSQZ.f32 V1, V0, P0, cnt=P1\nVF.END\n", 2, 26,
              "cnt= takes a scalar register S0..S31"),
    warning("spr-squeeze-count-s0", "VF.BEGIN\nVSQZ.f32 V1, V0, P0, cnt=S0\nVF.END\nHALT\n",
            "cnt= writes S0, which reads as 0 and ignores writes"),
]

# -- part three: distribution modes of register loads and stores (CONTRACT 13.1, 13.2): assembly errors at
# the operand, run-time faults with the pc and line --
_DIST = "VF.BEGIN\nPSET.b32 P0, ALL\n{}\nVF.END\n"
DIST_MODES = [
    asm_error("dist-width", _DIST.format("VST.f16 [S1], V0, P0, dist=pack4_b32"), 3, 28,
              "dist=pack4_b32 stores 8-bit elements: write VST.s8 or VST.u8, not VST.f16"),
    asm_error("dist-unknown", _DIST.format("VLD.u16 V0, [S1], dist=unpack_16"), 3, 24,
              "unknown load distribution 'unpack_16'; did you mean unpack_b16?"),
    asm_error("dist-two-registers", _DIST.format("VLD.f32 V0, [S1], dist=dintlv_b32"), 3, 24,
              "dist=dintlv_b32 loads two registers: VLD.T Vd0, Vd1, [Sa], dist=dintlv_b32"),
    asm_error("dist-mask-ignored", _DIST.format("VST.s16 [S1], V0, V1, P0, dist=intlv_b16"), 3, 23,
              "VST dist=intlv_b16 ignores the mask: remove the mask operand"),
    asm_error("dist-same-destinations", _DIST.format("VLD.s16 V3, V3, [S1], dist=dintlv_b16"), 3, 13,
              "VLD dist=dintlv_b16 needs two different destination registers"),
    asm_error("dist-constant-misaligned", _DIST.format("VLD.f32 V0, [0x1002], dist=brc_b32"), 3, 13,
              "VLD dist=brc_b32 needs a 4-byte aligned address; 0x1002 is not"),
    asm_error("dist-pack-b64", _DIST.format("VST.u16 [S1], V0, P0, dist=pack_b64"), 3, 28,
              "dist=pack_b64 needs 64-bit lanes, which vcore does not have"),
    fault("dist-register-misaligned", "MOV S3, 0x3F010\n" + _DIST.format("VST.s8 [S3], V2, P0, dist=pack4_b32"),
          4, 0x18, "VST dist=pack4_b32: address 0x3F010 is not 32-byte aligned"),
    fault("dist-past-end-of-ub", "MOV S1, 0x3FF00\n" + _DIST.format("VLD.u8 V0, V1, [S1], dist=dintlv_b8"),
          4, 0x18, "VLD dist=dintlv_b8", "UB"),
]

# -- blocks beyond the chip's cores (CONTRACT 14): --blocks B and the SYNCALL it refuses. The refusal's text
# is vcore's own (the contract asks for exit 2 at SYNCALL's line, and gives no words) --
BLOCKS = [
    asm_error("blocks-syncall-beyond-the-cores", "    MOV S1, BLOCKIDX\n    SYNCALL\n    HALT\n", 2, 5,
              "SYNCALL in a launch of 3 blocks on 2 cores: the barrier could never be met",
              args=("--blocks", "3", "--cores", "2")),
    usage("blocks-0", run_ok("--blocks", "0"), "--blocks must be 1..65535"),
    usage("blocks-65536", run_ok("--blocks", "65536"), "--blocks must be 1..65535"),
    usage("blocks-cores-beyond-the-a2-chip", run_ok("--cores", "49", "--profile", "a2"), "--cores must be 1..48"),
    usage("blocks-dump-past-the-cores-used", run_ok("--blocks", "70", "--dump", "ub64:0x0:u32:1"), "ub64"),
]

# -- traces of whole kernels (issue 33): --trace-time, the time axis of a trace (a kernel's --trace is no
# longer refused: --blocks 4 --trace draws the kernel) --
TRACES = [
    usage("trace-time-without-trace", run_ok("--cores", "2", "--trace-time", "cycles"),
          "--trace-time sets the time axis of a trace: give --trace FILE.json too"),
    usage("trace-time-unknown", run_ok("--trace", lambda d: str(d / "t.json"), "--trace-time", "ns"),
          "--trace-time", "'ns' is not one of 'real', 'cycles'"),
]


# -- issue 33, item 1: vcore sweep on Dask (a scheduler named twice, a scheduler file that is missing or
# not one): one message naming the option, exit 2 --
_SWEPT = ".equ N, 1\nHALT\n"


def _scheduler_file(text: str | None) -> Callable[[Path], list]:
    def build(d: Path) -> list:
        if text is not None:
            (d / "scheduler.json").write_text(text)
        return ["sweep", _write_prog(d, _SWEPT), "-D", "N=1,2", "--scheduler-file", d / "scheduler.json",
                "--dask-timeout", "0.5"]

    return build


SWEEP_ON_DASK = [
    usage("dask-scheduler-named-twice",
          lambda d: ["sweep", _write_prog(d, _SWEPT), "-D", "N=1,2", "--dask", "tcp://127.0.0.1:1",
                     "--scheduler-file", d / "scheduler.json"],
          "vcore: error: --dask and --scheduler-file both name a scheduler: give one"),
    usage("dask-scheduler-file-missing", _scheduler_file(None),
          "vcore: error: --scheduler-file {d}/scheduler.json: no such file, none came within 0.5 s"),
    usage("dask-scheduler-file-not-json", _scheduler_file("Scheduler at tcp://127.0.0.1:8786\n"),
          "vcore: error: --scheduler-file {d}/scheduler.json: not a scheduler file"),
]

CASES = [*ASSEMBLER, *RANGES, *FAULTS, *FILES, *LOADS, *DUMPS, *PROFILES, *OPTIONS, *REGISTER_REARRANGEMENT,
         *TRANSPOSES, *COMPACTION_SORT, *DIST_MODES, *BLOCKS, *SWEEP_ON_DASK, *TRACES]
PARAMS = [pytest.param(case, id=case.id, marks=case.marks) for case in CASES]


def test_case_ids_are_unique():
    ids = [case.id for case in CASES]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


# ---------------------------------------------------------------------------------------------------
# The runner: every selected case at once, on a few threads; each test checks its own outcome
# ---------------------------------------------------------------------------------------------------

# Session-scoped: a module fixture is torn down whenever its worker runs another module's test between
# two of this module's, and was made again (a second run of every case, 115 s, under make test's xdist).
@pytest.fixture(scope="session")
def outcomes(request, tmp_path_factory) -> dict[str, Outcome]:
    selected = {item.callspec.params["case"].id for item in request.session.items
                if isinstance(getattr(getattr(item, "callspec", None), "params", {}).get("case"), Case)}
    base = tmp_path_factory.mktemp("corpus")
    results: dict[str, Outcome] = {}
    jobs = []
    for number, case in enumerate(c for c in CASES if c.id in selected):
        directory = base / f"{number:03d}"
        directory.mkdir()
        outcome = results[case.id] = Outcome(directory)
        try:
            outcome.argv = case.build(directory)
        except Exception as err:  # reported by the case's own test
            outcome.error = err
            continue
        jobs.append((outcome, case))

    def launch(job):
        outcome, case = job
        try:
            outcome.result = _run(outcome.argv, outcome.directory, case.stdin)
        except Exception as err:  # a hang (timeout) is the case's failure, not the whole module's
            outcome.error = err

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        list(pool.map(launch, jobs))
    return results


@pytest.mark.parametrize("case", PARAMS)
def test_bad_input(case: Case, outcomes):
    outcome = outcomes[case.id]
    if outcome.error is not None:
        raise outcome.error
    r = outcome.result
    _no_traceback(r)
    case.check(r, outcome.directory)
