"""Shared set-up for the emulator differential tests.

This folder deliberately has no ``__init__.py``: ``tests/`` is not a package, so with pytest's
default ``prepend`` import mode an ``__init__.py`` here would make this folder importable as the
top-level package ``emulator`` and shadow the real ``emulator`` package (for every test in the
session).  Without it, the test modules are imported by their (unique) base names.

The oracle ``tests/reference.py`` is imported as ``tests.reference`` (``tests`` is then a namespace
package rooted at the repository), so the repository root must be on ``sys.path``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for p in (str(ROOT), str(HERE)):
    if p not in sys.path:
        sys.path.insert(0, p)
