"""The kernel zoo (programs/kernels/): each kernel is a multi-core port of a named asc-devkit sample
whose data and golden are exactly what its numpy generator makes, small enough to commit, and
docs/kernels.md is the current output of ``make docs``. (The kernels' results are checked by the
pytest plugin, which collects programs/kernels/ with the other programs.)"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

import vcore
from vcore.inline import read_setup
from vcore.kernel_doc import KERNELS, ROOT, render

NAMES = [p.stem for p in sorted(KERNELS.glob("*.asm"))]
# Kernels written for instructions not yet in vcore wait in pending/ as NAME.asm.pending (nothing
# collects them); their headers, generators and data are held to the zoo's rules already.
PENDING = {p.name.removesuffix(".asm.pending"): p for p in sorted((KERNELS / "pending").glob("*.asm.pending"))}


def _program(name):
    return PENDING.get(name, KERNELS / f"{name}.asm")


def test_the_zoo_has_ten_kernels():
    assert len(NAMES) >= 10, NAMES


@pytest.mark.parametrize("name", NAMES + list(PENDING))
def test_a_kernel_names_its_sample_runs_on_cores_and_checks_a_golden(name):
    path = _program(name)
    text = path.read_text()
    assert re.search(r"^; Kernel zoo: .+", text, re.MULTILINE), "no '; Kernel zoo: TITLE' line"
    # an asc-devkit sample (examples/...), or a public CANN operator's kernel (OWNER/REPO:PATH)
    sample = re.search(r"^; Sample: (examples/\S+|[\w.-]+/[\w.-]+:\S+)$", text, re.MULTILINE)
    assert sample, "no '; Sample: examples/...' (or '; Sample: OWNER/REPO:PATH') line"
    setup = read_setup(path, text)
    assert setup.cores and setup.cores > 1, "a kernel runs on several cores (; RUN --cores N)"
    assert "BLOCKIDX" in text, "each core takes its slice by BLOCKIDX"
    assert re.search(r"^\s+LD\.u\d+ S\d+, gm\[", text, re.MULTILINE) or "no runtime tiling" in text, \
        "a kernel reads its tiling from GM with LD (or says that the sample has no runtime tiling)"
    assert re.search(r"^; EXPECT \S+ ~= data/" + name + r"/\S+\.npy", text, re.MULTILINE)
    assert setup.loads and all(file.startswith(f"data/{name}/") for _, _, file in setup.loads)
    assert (KERNELS / "gen" / f"{name}.py").is_file()


@pytest.mark.parametrize("name", NAMES + list(PENDING))
def test_the_committed_data_is_what_the_generator_makes(name, tmp_path):
    env = {**os.environ, "VCORE_ZOO_DATA": str(tmp_path)}
    r = subprocess.run([sys.executable, str(KERNELS / "gen" / f"{name}.py")], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    made = sorted((tmp_path / name).glob("*.npy"))
    committed = sorted((KERNELS / "data" / name).glob("*.npy"))
    assert [p.name for p in made] == [p.name for p in committed]
    for new, old in zip(made, committed, strict=True):
        assert old.stat().st_size < 64 * 1024, f"{old.name} is over 64 KB"
        a, b = np.load(new), np.load(old)
        assert a.dtype == b.dtype and a.shape == b.shape, old.name
        if a.dtype.kind == "f" and old.stem.startswith("golden"):
            # numpy's float32 exp takes the CPU's SIMD code (AVX-512 or AVX2), whose results differ at
            # large arguments (gelu's golden: 2 of 8192 elements, 116 ulp of a 1e-32) between the
            # machines this runs on: a golden is checked to a relative 1e-5, ten times under the
            # samples' own tolerances; the inputs exactly.
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=0, err_msg=old.name)
        else:
            assert a.tobytes() == b.tobytes(), old.name


def test_docs_kernels_md_is_current():
    assert (ROOT / "docs" / "kernels.md").read_text() == render(), "run make docs"


def test_floor_mod_is_the_floored_modulo_at_the_int32_edges_and_minus_one_for_a_zero_divisor():
    """floor_mod.asm on inputs its generator never draws: the int32 extremes, -1, 0 and zero divisors.
    Wanted: Python's % (the floored modulo, the sign of y) for y != 0, computed on Python integers;
    -1 where y == 0 (the sample's divide-by-zero protection selects -1 whatever x % 0 gives)."""
    lo, hi = np.iinfo(np.int32).min, np.iinfo(np.int32).max
    edges = np.array([lo, lo + 1, -100001, -7, -1, 0, 1, 7, 100001, hi - 1, hi], dtype=np.int64)
    pairs = np.array([(a, b) for a in edges for b in edges], dtype=np.int64)
    rng = np.random.default_rng(31)
    rest = 8192 - len(pairs)
    x = np.concatenate([pairs[:, 0], rng.integers(lo, hi, rest, endpoint=True)]).astype(np.int32)
    y = np.concatenate([pairs[:, 1], rng.integers(lo, hi, rest, endpoint=True)]).astype(np.int32)
    y[-64:] = 0  # a whole register of zero divisors, as well as those among the edges
    want = np.array([int(a) % int(b) if b else -1 for a, b in zip(x.tolist(), y.tolist(), strict=True)],
                    dtype=np.int32)
    k = vcore.load_kernel(KERNELS / "floor_mod.asm", cores=4, jobs=1)
    k.write("gm", 0x0, x)
    k.write("gm", 0x8000, y)
    k.run()
    got = k.read("gm", 0x10000, "s32", 8192)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, [(int(x[i]), int(y[i]), int(got[i]), int(want[i])) for i in bad[:10]]
