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

from vcore.inline import read_setup
from vcore.kernel_doc import KERNELS, ROOT, render

NAMES = [p.stem for p in sorted(KERNELS.glob("*.asm"))]


def test_the_zoo_has_ten_kernels():
    assert len(NAMES) >= 10, NAMES


@pytest.mark.parametrize("name", NAMES)
def test_a_kernel_names_its_sample_runs_on_cores_and_checks_a_golden(name):
    path = KERNELS / f"{name}.asm"
    text = path.read_text()
    assert re.search(r"^; Kernel zoo: .+", text, re.MULTILINE), "no '; Kernel zoo: TITLE' line"
    sample = re.search(r"^; Sample: (examples/\S+)", text, re.MULTILINE)
    assert sample, "no '; Sample: examples/...' line"
    setup = read_setup(path, text)
    assert setup.cores and setup.cores > 1, "a kernel runs on several cores (; RUN --cores N)"
    assert "BLOCKIDX" in text, "each core takes its slice by BLOCKIDX"
    assert re.search(r"^\s+LD\.u\d+ S\d+, gm\[", text, re.MULTILINE) or "no runtime tiling" in text, \
        "a kernel reads its tiling from GM with LD (or says that the sample has no runtime tiling)"
    assert re.search(r"^; EXPECT \S+ ~= data/" + name + r"/\S+\.npy", text, re.MULTILINE)
    assert setup.loads and all(file.startswith(f"data/{name}/") for _, _, file in setup.loads)
    assert (KERNELS / "gen" / f"{name}.py").is_file()


@pytest.mark.parametrize("name", NAMES)
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
