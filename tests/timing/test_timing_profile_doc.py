"""docs/timing.md documents every profile parameter, and its table is the generated one."""

from __future__ import annotations

import tomllib
from pathlib import Path

from vcore.emulator.profiles.doc import table
from vcore.emulator.profiles.profile import builtin_text

DOC = Path(__file__).resolve().parents[2] / "docs" / "timing.md"


def test_parameter_table_is_current():
    assert table() in DOC.read_text(), "docs/timing.md is stale: run make docs"


def test_every_parameter_has_a_row_and_a_meaning():
    text = table()
    def flat(d, prefix=""):
        for k, v in d.items():
            if isinstance(v, dict) and f"| `{prefix}{k}` |" not in text:  # a table written on one line is one row
                yield from flat(v, f"{prefix}{k}.")
            elif k != "name":
                yield f"{prefix}{k}"
    rows = {line.split("|")[1].strip().strip("`"): line for line in text.splitlines() if line.startswith("| `")}
    keys = list(flat(tomllib.loads(builtin_text("950"))))
    assert set(keys) == set(rows)
    # an entry of a per-op table may share its section's explanation; every other row explains itself
    unexplained = [k for k in keys if not rows[k].rstrip(" |").endswith(")") and rows[k].split("|")[4].strip() == ""
                   and ".elements_per_cycle." not in k]
    assert not unexplained, unexplained
