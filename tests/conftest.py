"""Set-up of every test: tests/ is on ``sys.path``, so the shared test modules there
(``strategies``, ``reference``) are imported by name. (tests/ is not a package: a package of tests
named ``emulator`` or ``isa`` would shadow the real ones.)"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)


def pytest_configure(config) -> None:
    """Every report a test makes in this process (``Report.to_json``: the CLI's JSON report, the API's)
    is checked against the published schema (docs/report.schema.json), so that a key a change adds
    to the report, or a type it changes, cannot go undeclared. (Reports made by a ``vcore`` subprocess
    are checked where the tests read them: cli_support.vcore.)"""
    import functools

    from vcore.emulator.report import Report
    from vcore.report_schema import validate

    made = Report.to_json
    if getattr(made, "checked", False):
        return

    @functools.wraps(made)
    def to_json(self) -> dict:
        data = made(self)
        validate(data)
        return data

    to_json.checked = True
    Report.to_json = to_json
