"""docs/api.md is runnable: its ```python blocks are executed in order, in one namespace."""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from pathlib import Path

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
    # The 950 prices each tensor instruction as the vector function it is: the VADD's and the VMULS's
    # cycles are worked out by hand in tests/timing/test_tensor_functions.py; here, the VMULS in place
    # waits for the VADD's results, so the run is the two functions one after the other, as the README shows.
    total = m.report().total_cycles
    vadd, vmuls = (e for e in m.report().per_pc if e.pipe == "V")
    assert total == vadd.cycles + vmuls.cycles
    assert f"m.report().total_cycles                      # {total}" in (ROOT / "README.md").read_text()
