"""Each omission a new instruction can make is named at import (or by a test derived from the table),
with a message that says what is missing where: the proof of issue 29 (VADDRELU, VSQZ, VTRANSPOSE added
on a scratch branch) met each of these as a late or misleading failure."""

from __future__ import annotations

import sys

import attrs
import pytest

import emulator  # noqa: F401  (registers every family)
from emulator import semantics
from emulator.semantics import registry
from isa import TABLE

ROWS = {(row.mnemonic, row.form): row for row in TABLE}


@pytest.fixture
def scratch_registry(monkeypatch):
    """The registry's tables as copies, so that a throwaway family is gone after the test."""
    for name in ("BINDERS", "BANK_RULES"):
        monkeypatch.setattr(registry, name, dict(getattr(registry, name)))
    for name in ("REFINES", "MASKED_LANES"):
        monkeypatch.setattr(registry, name, set(getattr(registry, name)))
    return registry


# -- a new shape's module joins by being in the package -------------------------------------------

def test_every_module_of_the_semantics_package_is_imported():
    import pkgutil

    names = [info.name for info in pkgutil.iter_modules(semantics.__path__)]
    assert {"tensor", "dma", "scalar", "registry"} <= set(names)
    assert all(f"emulator.semantics.{name}" in sys.modules for name in names)


def test_a_new_module_in_the_package_registers_its_family_with_no_list_to_edit(scratch_registry, tmp_path,
                                                                                 monkeypatch):
    package = tmp_path / "scratch_shapes"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "transpose.py").write_text(
        "from emulator.semantics.registry import ITERATION_BEATS, implements\n\n\n"
        "@implements('vtranspose_scratch', bank_rule=ITERATION_BEATS)\n"
        "def bind_transpose(inst, pc):\n    return None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert semantics.register_all([str(package)], "scratch_shapes") == ["transpose"]
    assert "vtranspose_scratch" in scratch_registry.BINDERS
    monkeypatch.delitem(sys.modules, "scratch_shapes.transpose")


def test_a_family_no_module_implements_is_named_with_its_rows(scratch_registry):
    vadd = ROWS[("VADD", "tensor-binary")]
    transpose = attrs.evolve(vadd, mnemonic="VTRANSPOSE", form="tensor-transpose", family="vtranspose")
    assert registry.missing_families([vadd, transpose]) == [
        "family 'vtranspose' of VTRANSPOSE (tensor-transpose) has no binder: no module of emulator.semantics "
        "(each is imported at start) registers one with @implements('vtranspose', bank_rule=...)"]


# -- a key taken out of the 950 profile, the schema --------------------------------------------------

@pytest.fixture
def nine_fifty_without(monkeypatch):
    """``without(line)``: the built-in 950 profile as if that line were taken out of 950.toml."""
    from emulator import check
    from emulator.profiles import profile

    text = profile.builtin_text("950")

    def without(line: str) -> None:
        assert line in text
        for module in (profile, check):
            monkeypatch.setattr(module, "builtin_text",
                                lambda name: text.replace(line, "", 1) if name == "950" else profile_text(name))
        profile._schema.cache_clear()

    profile_text = profile.builtin_text
    yield without
    profile._schema.cache_clear()


def test_a_price_key_taken_out_of_the_950_profile_is_named_missing_there(nine_fifty_without):
    from emulator.check import problems

    nine_fifty_without("sustained_binary = 0.5")
    assert problems() == ["950: missing price key tensor.sustained_binary used by class tensor.binary"]


def test_a_rate_taken_out_of_the_950_profile_is_named_missing_there(nine_fifty_without):
    from emulator.check import problems

    nine_fifty_without("sub = [128, 64]")  # the tensor section's rate of sub
    assert problems() == ["VSUB: profile 950 lacks tensor.elements_per_cycle.sub"]


def test_a2_with_a_key_the_schema_lacks_says_which_profile_may_lack_it(nine_fifty_without):
    from emulator.profiles.profile import ProfileError, load_profile

    nine_fifty_without("sustained_binary = 0.5")
    with pytest.raises(ProfileError, match="a2: key 'tensor.sustained_binary' is not in the 950 profile, the "
                                           r"schema every profile matches \(950.toml lacks it, or a2.toml has it"):
        load_profile("a2")


# -- a form its family's binder does not lay out -----------------------------------------------------

def test_a_tensor_row_of_a_form_the_tensor_plan_does_not_lay_out_is_named():
    # VTRANSPOSE given the tensor family: bind_tensor lays out operands by form, so its first load met a KeyError
    vadd = ROWS[("VADD", "tensor-binary")]
    transpose = attrs.evolve(vadd, mnemonic="VTRANSPOSE", form="tensor-transpose")
    found = registry.missing_forms([vadd, transpose])
    assert found == [f"VTRANSPOSE (tensor-transpose): the binder of family 'tensor' (emulator.semantics.tensor."
                     f"bind_tensor) lays out forms {', '.join(registry.FORMS_OF['tensor'])}, not 'tensor-transpose': "
                     f"the form needs its layout there, or a family and binder of its own"]


def test_the_import_check_names_a_form_the_binder_does_not_lay_out(monkeypatch):
    from emulator.check import IncompleteEmulator, check_emulator

    monkeypatch.setitem(registry.FORMS_OF, "tensor", tuple(f for f in registry.FORMS_OF["tensor"]
                                                           if f != "tensor-fma"))
    with pytest.raises(IncompleteEmulator, match=r"VMLA \(tensor-fma\): the binder of family 'tensor'"):
        check_emulator()


def test_the_forms_a_binder_lays_out_are_those_of_its_rows():
    # the tensor shape's plan lays out every tensor form of the table, and no form no row has
    from isa.forms import FORMS

    tensor_forms = {form for form, record in FORMS.items() if "tensor" in record.classes}
    assert set(registry.FORMS_OF["tensor"]) == tensor_forms
