"""Set-up of every test: tests/ is on ``sys.path``, so the shared test modules there
(``strategies``, ``reference``) are imported by name. (tests/ is not a package: a package of tests
named ``emulator`` or ``isa`` would shadow the real ones.)"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)
