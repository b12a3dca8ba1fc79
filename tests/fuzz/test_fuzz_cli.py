"""Fuzz the ``vcore`` command in process (click's CliRunner) with the other fuzzers' inputs.

Contract section 4: exit status 0, 1 (the program faulted) or 2 (bad usage, assembly or decode
error); errors on stderr as ``FILE:LINE:COL: error: MESSAGE`` (or ``FILE: error:`` for a file that
cannot be read as a program); never a Python traceback; after a fault the report still describes
the state at the fault; ``disasm`` prints text that ``asm`` turns back into the identical ``.vbin``.
"""

from __future__ import annotations

import atexit
import json
import re
import shutil
import tempfile
from itertools import count
from pathlib import Path

import fuzz_support as F
import pytest
import test_fuzz_asm as A
import test_fuzz_decode as D
import test_fuzz_run as R
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from assembler import disassemble
from isa.program import to_bytes
from vcore.cli import main

pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")

WORK = Path(tempfile.mkdtemp(prefix="vcore-fuzz-cli-"))
atexit.register(shutil.rmtree, WORK, ignore_errors=True)
_NAMES = count()
RUNNER = CliRunner()


def _path(suffix: str) -> Path:
    return WORK / f"f{next(_NAMES)}{suffix}"


def _invoke(args: list[str]):
    result = RUNNER.invoke(main, args, catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        exc = result.exception
        if F.known_bug(exc) is None:
            raise exc
        return None
    out, err = result.stdout, result.stderr
    assert "Traceback" not in out and "Traceback" not in err, err
    assert result.exit_code in (0, 1, 2), (result.exit_code, err)
    return result


_LOCATED = re.compile(r"^(?P<file>.+?):(?:(?P<line>\d+):(?P<col>\d+):)? error: ", re.MULTILINE)


def _check_error(result, path: Path) -> None:
    assert result.stderr.strip(), "an error without a message"
    first = result.stderr.splitlines()[0]
    m = _LOCATED.match(first)
    assert m is not None and m.group("file") in (str(path), "vcore"), first


@F.fuzz(150)
@given(st.one_of(A._soup(), A._mutated_valid(), A._respelled().map(lambda c: c[1]),
                 st.binary(max_size=64).map(lambda b: b"\xff" + b)))
def test_fuzz_cli_asm(text):
    F.tried("cli: vcore asm")
    src = _path(".asm")
    src.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
    out = _path(".vbin")
    result = _invoke(["asm", str(src), "-o", str(out), "--listing"])
    if result is None:
        return
    assert result.exit_code in (0, 2)
    if result.exit_code == 0:
        assert out.read_bytes().startswith(b"VCOREBIN")
        again = _invoke(["disasm", str(out)])
        assert again is not None and again.exit_code == 0, again.stderr if again else None
    else:
        _check_error(result, src)


_PROGRAMS = st.one_of(
    R.random_programs().map(lambda p: ("vbin", to_bytes(p))),
    R.random_programs().map(lambda p: ("asm", disassemble(p).encode())),
    D._mutated_program().map(lambda b: ("vbin", b)),
)
_DUMPS = st.lists(st.builds(lambda space, addr, t, n: f"{space}:{addr}:{t}:{n}",
                            st.sampled_from(["ub", "gm", "UB", "xx"]),
                            st.sampled_from(["0", "0x1000", "0x2ffe0", "0x3ffff", "-1", "0x1_0000_0000", "zz"]),
                            st.sampled_from(["f16", "bf16", "f32", "u8", "s32", "e4m3", "b16", "int"]),
                            st.sampled_from(["1", "8", "0", "-1", "100000"])), max_size=2)


@F.fuzz(150)
@given(_PROGRAMS, st.sampled_from(["950", "a2"]), st.booleans(), _DUMPS)
def test_fuzz_cli_run_and_disasm(case, profile, strict, dumps):
    F.tried("cli: vcore run / disasm")
    kind, blob = case
    path = _path(f".{kind}")
    path.write_bytes(blob)
    args = ["run", str(path), "--profile", profile, "--report", "json", "--max-instructions", "3000",
            "--max-cycles", "2000000"] + (["--strict"] if strict else [])
    for spec in dumps:
        args += ["--dump", spec]
    result = _invoke(args)
    if result is None:
        return
    if result.exit_code == 2:
        _check_error(result, path)
    elif result.exit_code == 1 and not result.stdout.strip():
        # A fault before the run (a data record past the end of a memory): no state to report.
        assert "runs past the end of" in result.stderr, result.stderr
        _check_error(result, path)
    else:  # 0 or 1: the report, also after a fault
        report = json.loads(result.stdout)
        assert report["schema"] == "vcore.report/1"
        assert ("fault" in report) == (result.exit_code == 1), result.stderr
    if kind == "vbin":
        listing = _invoke(["disasm", str(path)])
        if listing is not None and listing.exit_code == 0:
            text = _path(".asm")
            text.write_text(listing.stdout)
            out = _path(".vbin")
            again = _invoke(["asm", str(text), "-o", str(out)])
            assert again is not None and again.exit_code == 0, again.stderr if again else None
            assert out.read_bytes() == blob
        elif listing is not None:
            assert listing.exit_code == 2
            _check_error(listing, path)
