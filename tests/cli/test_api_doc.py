"""docs/api.md is runnable: its ```python blocks are executed in order, in one namespace."""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from pathlib import Path

from vcore.emulator import load_profile

ROOT = Path(__file__).resolve().parents[2]


def test_api_doc_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "api.md").read_text(), re.DOTALL)
    assert len(blocks) >= 4
    namespace: dict = {}
    cwd, path = os.getcwd(), os.environ.get("PATH", "")
    os.chdir(ROOT)
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{path}"   # vcore as installed beside python
    try:
        for index, block in enumerate(blocks):
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(block, f"docs/api.md block {index + 1}", "exec"), namespace)
    finally:
        os.chdir(cwd)
        os.environ["PATH"] = path
    assert namespace["final"].instructions == 1 + 10 * 2 + 1


def test_readme_python_snippet():
    import vcore

    m = vcore.load_file(ROOT / "programs" / "vadd_basic.asm")
    m.run()
    assert list(m.read("ub", 0x1000, "f16", 4)) == [7.5] * 4
    # 950 by hand: VADD.f16 x2 holds V I (tensor.issue, 35) + 4 + 2 (a third access to one bank each
    # iteration) = I + 6 cycles from 0, its results at I + 7; VMULS.f16 x2 in place waits for them:
    # I + 7 + I + 4, its results 1 later: 2 I + 12 = 82, as the README shows.
    issue = load_profile("950")["tensor"]["issue"]
    assert m.report().total_cycles == 2 * issue + 12
    assert f"m.report().total_cycles                      # {2 * issue + 12}" in (ROOT / "README.md").read_text()
