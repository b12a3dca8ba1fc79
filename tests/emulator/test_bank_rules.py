"""Every shape names its bank rule, how its accesses meet UB's banks, and the import check refuses a
family whose shape names none, or one that its rows' operands contradict (issue 29, outcome 1)."""

from __future__ import annotations

import pytest

from vcore import emulator  # noqa: F401  (registers every family)
from vcore.emulator.check import IncompleteEmulator, check_emulator
from vcore.emulator.semantics import registry
from vcore.emulator.semantics.registry import ACCESS_BEATS, ITERATION_BEATS, NO_UB, UNBANKED, WHOLE_UB, implements


@pytest.fixture
def scratch_registry(monkeypatch):
    """The registry's tables as copies, so that a throwaway family is gone after the test."""
    monkeypatch.setattr(registry, "BINDERS", dict(registry.BINDERS))
    monkeypatch.setattr(registry, "BANK_RULES", dict(registry.BANK_RULES))
    return registry


def test_the_emulator_as_built_passes():
    assert registry.missing_bank_rules() == []
    check_emulator()


def test_a_family_registered_without_a_bank_rule_is_refused_at_check(scratch_registry):
    @implements("vtranspose_scratch")  # a new shape that forgot to say how it meets the banks
    def bind_scratch(inst, pc):
        return None

    with pytest.raises(IncompleteEmulator, match="family 'vtranspose_scratch' names no bank rule"):
        check_emulator()


def test_a_family_that_touches_ub_cannot_name_none(scratch_registry, monkeypatch):
    monkeypatch.setitem(registry.BANK_RULES, "vld", NO_UB)  # VLD has a UB operand
    with pytest.raises(IncompleteEmulator, match="family 'vld' names the bank rule 'none', but some row"):
        check_emulator()


def test_a_family_that_touches_no_ub_cannot_name_a_ub_rule(scratch_registry, monkeypatch):
    monkeypatch.setitem(registry.BANK_RULES, "vbinary", ACCESS_BEATS)  # VADD V0, V1, V2: registers only
    with pytest.raises(IncompleteEmulator, match="family 'vbinary' names the bank rule 'access beats', but none"):
        check_emulator()


def test_the_shapes_name_the_rules_of_docs_timing():
    # docs/timing.md ("UB bank conflicts"; "UB's banks, access by access"): a tensor instruction's
    # iterations go in beats; a function's loads and stores share each cycle's ports; a gather or
    # scatter takes all of them; DMA and scalar LD/ST are priced by their pipes alone; register
    # arithmetic and the function's structure touch no UB.
    rules = registry.BANK_RULES
    assert {rules[f] for f in ("tensor", "tensor_conv", "tensor_compare", "tensor_select")} == {ITERATION_BEATS}
    assert {rules[f] for f in ("vld", "vst", "pld", "pst")} == {ACCESS_BEATS}
    assert {rules[f] for f in ("vgather_ub", "vscatter")} == {WHOLE_UB}
    assert {rules[f] for f in ("dma", "ld", "st")} == {UNBANKED}
    assert {rules[f] for f in ("vbinary", "vreduce", "pset", "alu", "vf_begin")} == {NO_UB}
