"""Endless and huge inputs (issue 28, item 8): vcore reads at most what can be meant and refuses
the rest with one message, never reading until memory runs out.

- A program file (.asm or .vbin) or an included file: at most MAX_SOURCE_BYTES (32 MiB,
  docs/language.md); past it, one error naming the file and the cap.
- A --load (and a program's ; LOAD line): at most the bytes of the memory it goes into, from its
  address on (plus a .npy file's header); a file with more is refused naming the file, the bytes
  and the memory.

/dev/zero and a pipe that is never closed are the endless files: without the caps both were read
until a MemoryError.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import pytest
from cli_support import program, vcore_here

from vcore.assembler.preprocess import MAX_SOURCE_BYTES, SourceTooLarge, read_source

CAP = 32 << 20  # docs/language.md
CAP_TEXT = "33554432 bytes"
UB = 0x40000  # the 950 profile's UB
HALT = "    HALT\n"
ZERO = "/dev/zero"

pytestmark = pytest.mark.skipif(not Path(ZERO).exists(), reason="needs /dev/zero")


def _one_error(r, status: int = 2) -> str:
    assert r.returncode == status, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    return r.stderr


def test_the_cap_is_the_documented_one():
    assert MAX_SOURCE_BYTES == CAP


def test_a_file_of_exactly_the_cap_is_read_and_one_byte_more_is_refused(tmp_path):
    path = tmp_path / "sparse.asm"
    with open(path, "wb") as handle:
        handle.truncate(CAP)  # a sparse file: no 32 MiB written
    assert len(read_source(path)) == CAP
    with open(path, "ab") as handle:
        handle.write(b"x")
    with pytest.raises(SourceTooLarge) as info:
        read_source(path)
    assert CAP_TEXT in info.value.strerror


@pytest.mark.parametrize("command", ["run", "asm", "debug"])
def test_a_program_that_never_ends_is_refused_naming_the_file_and_the_cap(command):
    err = _one_error(vcore_here(command, ZERO))
    assert err.startswith(f"{ZERO}: error: ") and CAP_TEXT in err and err.count("\n") == 1, err


def test_a_sweep_over_a_program_that_never_ends_is_refused():
    err = _one_error(vcore_here("sweep", ZERO, "-D", "N=1,2"))
    assert err.startswith(f"{ZERO}: error: ") and CAP_TEXT in err and err.count("\n") == 1, err


def test_an_include_of_dev_zero_is_a_located_error(tmp_path):
    prog = program(tmp_path, 'NOP\n    .include "/dev/zero"\n' + HALT)
    err = _one_error(vcore_here("run", prog))
    head, shown, caret = err.splitlines()[:3]
    assert head.startswith(f"{prog}:2:5: error: cannot include \"/dev/zero\"") and CAP_TEXT in head, err
    assert (shown, caret) == ('    .include "/dev/zero"', "    ^~~~~~~~")


def test_a_sweep_whose_program_includes_dev_zero_gives_each_row_its_error(tmp_path):
    prog = program(tmp_path, '.equ N, 1\n.include "/dev/zero"\n' + HALT)
    r = vcore_here("sweep", prog, "-D", "N=1,2", "--jobs", "1")
    assert r.stdout.count(CAP_TEXT) == 2, r.stdout


def _endless_pipe(path: Path) -> threading.Thread:
    """A FIFO at ``path`` whose writer writes zeros until its reader goes away."""
    os.mkfifo(path)

    def write() -> None:
        try:
            with open(path, "wb") as pipe:
                while True:
                    pipe.write(bytes(1 << 16))
        except (BrokenPipeError, OSError):
            pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return writer


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_pipe_that_never_ends_stops_at_the_cap(tmp_path):
    writer = _endless_pipe(tmp_path / "endless.asm")
    err = _one_error(vcore_here("run", tmp_path / "endless.asm"))
    assert CAP_TEXT in err
    writer.join(10)
    assert not writer.is_alive()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_load_from_a_pipe_that_never_ends_stops_at_the_memory(tmp_path):
    writer = _endless_pipe(tmp_path / "endless.bin")
    prog = program(tmp_path, HALT)
    err = _one_error(vcore_here("run", prog, "--load", f"gm:0x10={tmp_path / 'endless.bin'}", "--gm-size", "4096"))
    assert err == f"vcore: error: --load gm:0x10={tmp_path / 'endless.bin'}: {tmp_path / 'endless.bin'} holds more " \
                  "than the 4080 bytes of GM from 0x10\n", err
    writer.join(10)
    assert not writer.is_alive()


@pytest.mark.parametrize(("spec", "extra", "want"), [
    ("ub:0x0", (), f"--load ub:0x0={ZERO}: {ZERO} holds more than the 262144 bytes of UB from 0x0"),
    ("ub:0x100", (), f"--load ub:0x100={ZERO}: {ZERO} holds more than the 261888 bytes of UB from 0x100"),
    ("gm:0x100", ("--gm-size", "4096"), f"--load gm:0x100={ZERO}: {ZERO} holds more than the 3840 bytes of GM from "
                                        "0x100"),
    ("ub:0x40000", (), f"--load ub:0x40000={ZERO}: address 0x40000 is past the end of UB (0x40000 bytes)"),
])
@pytest.mark.parametrize("command", ["run", "debug"])
def test_a_load_of_dev_zero_is_refused_naming_the_memory(tmp_path, command, spec, extra, want):
    prog = program(tmp_path, HALT)
    err = _one_error(vcore_here(command, prog, "--load", f"{spec}={ZERO}", *extra))
    assert err == f"vcore: error: {want}\n"


def test_a_load_that_fits_exactly_is_copied_and_one_byte_more_is_refused(tmp_path):
    prog = program(tmp_path, HALT)
    exact = tmp_path / "exact.bin"
    exact.write_bytes(bytes(range(256)) * 15 + bytes(range(0xF0)))  # 4080 bytes: GM from 0x10 of 4096
    r = vcore_here("run", prog, "--gm-size", "4096", "--load", f"gm:0x10={exact}", "--dump", "gm:0xff0:u8:16",
                   "--report", "none")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split(" = ")[1].split() == [str(v) for v in range(0xE0, 0xF0)]
    exact.write_bytes(exact.read_bytes() + b"\1")
    err = _one_error(vcore_here("run", prog, "--gm-size", "4096", "--load", f"gm:0x10={exact}"))
    assert f"{exact} holds more than the 4080 bytes of GM from 0x10" in err


def _npy(tmp_path: Path, name: str, array: np.ndarray) -> Path:
    path = tmp_path / name
    np.save(path, array)
    return path


def test_a_npy_whose_data_does_not_fit_is_refused_by_its_header(tmp_path):
    prog = program(tmp_path, HALT)
    big = _npy(tmp_path, "big.npy", np.zeros(1 << 16 | 1, dtype="<f4"))  # 262148 bytes: 4 more than UB
    err = _one_error(vcore_here("run", prog, "--load", f"ub:0x0={big}"))
    assert f"--load ub:0x0={big}: {big}'s header describes 65537 elements of float32 (262148 bytes), more than " \
           "the 262144 bytes of UB from 0x0" in err, err
    fits = _npy(tmp_path, "fits.npy", np.zeros(1 << 16, dtype="<f4"))
    assert vcore_here("run", prog, "--load", f"ub:0x0={fits}", "--report", "none").returncode == 0


def test_a_typed_load_counts_its_bytes_as_converted(tmp_path):
    prog = program(tmp_path, HALT)
    # 100000 f64 values: 800000 bytes in the file, 200000 as f16 (they fit UB), 400000 as f32 (they do not)
    wide = _npy(tmp_path, "wide.npy", np.full(100_000, 1.5))
    r = vcore_here("run", prog, "--load", f"ub:0x0:f16={wide}", "--dump", "ub:0x30d3e:f16:1", "--report", "none")
    assert (r.returncode, r.stdout) == (0, "ub:0x30d3e:f16:1 = 1.5\n"), r.stderr
    err = _one_error(vcore_here("run", prog, "--load", f"ub:0x0:f32={wide}"))
    assert "describes 100000 elements of float64 (400000 bytes as f32), more than the 262144 bytes of UB " \
           "from 0x0" in err, err


def test_a_header_that_claims_the_impossible_is_refused_before_any_data_is_read(tmp_path):
    from numpy.lib import format as npy_format

    path = tmp_path / "claims.npy"
    with open(path, "wb") as handle:
        npy_format.write_array_header_1_0(handle, {"descr": "<f4", "fortran_order": False, "shape": (1 << 62,)})
    prog = program(tmp_path, HALT)
    err = _one_error(vcore_here("run", prog, "--load", f"gm:0x0={path}"))
    assert f"{1 << 62} elements of float32" in err and "more than the 16777216 bytes of GM from 0x0" in err


def test_a_program_s_load_line_is_bounded_too(tmp_path):
    from vcore.inline import InlineError, build, read_setup

    text = f"; LOAD ub:0x0 = {ZERO}\n" + HALT
    prog = program(tmp_path, text)
    with pytest.raises(InlineError) as info:
        build(read_setup(prog, text))
    assert str(info.value) == f"{prog}:1: LOAD ub:0x0 = {ZERO}: --load ub:0x0={ZERO}: {ZERO} holds more than the " \
                              "262144 bytes of UB from 0x0"


def test_a_kernel_s_load_line_is_bounded_by_each_core_s_ub(tmp_path):
    from vcore.inline import InlineError, build, read_setup

    text = f"; RUN --cores 2 --jobs 1\n; LOAD ub:0x40 = {ZERO}\n" + HALT
    prog = program(tmp_path, text)
    with pytest.raises(InlineError) as info:
        build(read_setup(prog, text))
    assert "holds more than the 262080 bytes of UB from 0x40" in str(info.value)


def test_a_program_s_setup_lines_are_read_within_the_cap():
    from vcore.inline import read_setup

    with pytest.raises(SourceTooLarge):
        read_setup(Path(ZERO))
