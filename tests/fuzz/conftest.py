"""Set-up of the fuzzers (tests/fuzz): import paths, and the count of inputs tried, printed at the end.

This folder has no ``__init__.py`` (an ``emulator``/``isa`` package of tests would shadow the real
ones); its modules are imported by their unique base names, with this folder on ``sys.path``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for p in (str(ROOT), str(HERE)):
    if p not in sys.path:
        sys.path.insert(0, p)

import fuzz_support  # noqa: E402


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """``fuzz: N inputs tried`` per property and in total, on stderr (shown with -q too)."""
    fuzz_support.emit_summary()
