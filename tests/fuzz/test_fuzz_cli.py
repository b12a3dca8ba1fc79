"""Fuzz the ``vcore`` command in process (click's CliRunner) with the other fuzzers' inputs.

Contract section 4: exit status 0, 1 (the program faulted) or 2 (bad usage, assembly or decode
error); errors on stderr as ``FILE:LINE:COL: error: MESSAGE`` (or ``FILE: error:`` for a file that
cannot be read as a program); never a Python traceback; after a fault the report still describes
the state at the fault; ``disasm`` prints text that ``asm`` turns back into the identical ``.vbin``.
A ``.vbin`` whose words break the vector-function rules (section 7, as ``strategies.function_problems``
reads them: e.g. a mutated program's register instruction left outside its function) is refused by
``run`` with exit status 2 on either profile, and its disassembly (if ``disasm`` prints one) by ``asm``.
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
from hypothesis import example, given
from hypothesis import strategies as st

from vcore.assembler import disassemble
from vcore.cli import main
from vcore.isa import DecodeError, decode_program
from vcore.isa.program import Program, VbinError, from_bytes, to_bytes

S = F.load_strategies()

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
    D._function_words().map(lambda p: ("vbin", to_bytes(p))),
)
_DUMPS = st.lists(st.builds(lambda space, addr, t, n: f"{space}:{addr}:{t}:{n}",
                            st.sampled_from(["ub", "gm", "UB", "xx"]),
                            st.sampled_from(["0", "0x1000", "0x2ffe0", "0x3ffff", "-1", "0x1_0000_0000", "zz"]),
                            st.sampled_from(["f16", "bf16", "f32", "u8", "s32", "e4m3", "b16", "int"]),
                            st.sampled_from(["1", "8", "0", "-1", "100000"])), max_size=2)


def _decoded(blob: bytes) -> list:
    """A .vbin's instructions ([] for a file that is not a program)."""
    try:
        return decode_program(from_bytes(blob).words)
    except (VbinError, DecodeError):
        return []


@F.fuzz(150)
@given(_PROGRAMS, st.sampled_from(["950", "a2"]), st.booleans(), _DUMPS)
@example(("vbin", to_bytes(Program(words=(0x120,)))), "950", False, [])  # VLD.f16 V0, [0x0] outside a function
@example(("vbin", to_bytes(Program(words=(0x70, 0x4072, 0x71)))), "950", True, [])  # LOOP 64 without its ENDLOOP
def test_fuzz_cli_run_and_disasm(case, profile, strict, dumps):
    F.tried("cli: vcore run / disasm")
    kind, blob = case
    path = _path(f".{kind}")
    path.write_bytes(blob)
    decoded = _decoded(blob) if kind == "vbin" else []
    broken = S.function_problems(decoded)  # where the words break the vector-function rules
    if profile == "950" and not broken and F.set_aside_runaway(decoded):
        return
    args = ["run", str(path), "--profile", profile, "--report", "json", "--max-instructions", "3000",
            "--max-cycles", "2000000"] + (["--strict"] if strict else [])
    for spec in dumps:
        args += ["--dump", spec]
    result = _invoke(args)
    if result is None:
        return
    if broken and result.exit_code != 2 and F.known_bug(F.accepted(broken, f"vcore run --profile {profile}")):
        return
    if broken:
        assert result.exit_code == 2, f"vcore run: exit {result.exit_code} for words that break section 7 at {broken}"
        F.went("of vcore refused (exit 2): the words break the vector-function rules")
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
            if broken:  # the assembler refuses the same words
                assert again is not None and again.exit_code == 2, again.stdout if again else None
                _check_error(again, text)
                return
            assert again is not None and again.exit_code == 0, again.stderr if again else None
            assert out.read_bytes() == blob
        elif listing is not None:
            assert listing.exit_code == 2
            _check_error(listing, path)
