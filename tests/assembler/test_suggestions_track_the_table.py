"""The "not yet in vcore" suggestions follow the table: a name the table has as a mnemonic is no
suggestion (it is not stale here), a name for an operation the table lacks says so plainly, and a name
for one the table has now points to its mnemonic."""

from __future__ import annotations

import pytest

from vcore.assembler import AsmError, assemble
from vcore.assembler.suggest import NAMES, PLANNED, unknown_mnemonic
from vcore.isa import MNEMONICS


def test_no_suggestion_is_stale():
    # A name the table has is never looked up (the assembler knows it): delete it from NAMES.
    assert sorted(set(NAMES) & set(MNEMONICS)) == []


def test_a_name_drops_out_once_the_table_has_it(monkeypatch):
    import importlib

    from vcore.assembler import suggest

    added, other = sorted(suggest.PLANNED)[:2]  # (names the table has not yet: not ones that will come)
    monkeypatch.setitem(MNEMONICS, added, MNEMONICS["VADD"])  # as if the table had it
    reloaded = importlib.reload(suggest)
    try:
        assert added in reloaded.NAMES and added not in reloaded.PLANNED
        assert other in reloaded.PLANNED
    finally:
        monkeypatch.undo()
        importlib.reload(suggest)


def _message(name: str) -> str:
    with pytest.raises(AsmError) as info:
        assemble(f"{name} V0, V1\n", "t.asm")
    (diag,) = info.value.diagnostics
    return diag.message


@pytest.mark.parametrize("name", sorted(PLANNED))
def test_each_name_says_what_the_table_has(name):
    what, planned = PLANNED[name]
    message = _message(name)
    if planned.split(".")[0] in MNEMONICS:
        assert message == f"unknown mnemonic '{name}'; did you mean {planned}?"
    else:
        assert message.startswith(f"unknown mnemonic '{name}': vcore has no {what} instruction yet"), message
    assert message == unknown_mnemonic(name, MNEMONICS)
