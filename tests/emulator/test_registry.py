"""Every instruction family of the table has exactly one implementation."""

from __future__ import annotations


def test_no_family_is_missing():
    from vcore.emulator.semantics.registry import missing_families

    assert missing_families() == []


def test_every_table_family_has_exactly_one_binder():
    import vcore.emulator.machine  # noqa: F401  (importing the machine registers every family)
    from vcore.emulator.semantics.registry import BINDERS
    from vcore.isa import TABLE

    families = {row.family for row in TABLE}
    assert families, "empty instruction table"
    missing = sorted(families - set(BINDERS))
    extra = sorted(set(BINDERS) - families)
    assert not missing, f"families without an implementation: {missing}"
    assert not extra, f"implementations of families no table row has: {extra}"
    for family in families:
        assert callable(BINDERS[family]), family


def test_registering_a_family_twice_is_refused():
    import pytest

    from vcore.emulator.semantics.registry import BINDERS, implements

    family = next(iter(BINDERS))
    before = BINDERS[family]
    try:
        with pytest.raises(RuntimeError):
            implements(family)(lambda inst, pc: None)
    finally:
        stolen, BINDERS[family] = BINDERS[family], before
    assert stolen is before


def test_every_table_row_binds():
    """Each row's family binder accepts a decoded instance of the row: its example (``isa.examples``),
    assembled, decoded and bound at every pc."""
    import vcore.emulator.machine  # noqa: F401
    from vcore.assembler import assemble
    from vcore.emulator.semantics.registry import bind
    from vcore.isa import TABLE, decode_program
    from vcore.isa.examples import program

    for row in TABLE:
        bound_rows = set()
        for pc, inst in decode_program(assemble(program(row)).words):
            bound = bind(inst, pc)
            assert callable(bound.run), (row.mnemonic, row.form)
            bound_rows.add((inst.row.mnemonic, inst.row.form))
        assert (row.mnemonic, row.form) in bound_rows, (row.mnemonic, row.form, row.example)


def test_the_emulator_is_complete_at_import():
    """Every row has semantics and its scheduling class is priced by every built-in profile."""
    from vcore.emulator.check import problems

    assert problems() == []


def test_an_unpriced_row_or_class_is_named():
    import attrs

    from vcore.emulator.profiles.profile import load_profile
    from vcore.emulator.timing.costs import check_classes
    from vcore.isa import TABLE
    from vcore.isa.classes import CLASSES, PER_OP, SchedClass

    vadd = next(r for r in TABLE if r.mnemonic == "VADD" and r.form == "tensor-binary")
    vdiv = attrs.evolve(vadd, mnemonic="VFROB", op="frob")  # a new op with no price yet
    odd = attrs.evolve(vadd, mnemonic="VODD", timing="tensor.odd")  # a new class: no profile prices it yet
    lost = attrs.evolve(vadd, mnemonic="VLOST", timing="vector.odd")  # a class with no record
    radd = next(r for r in TABLE if r.mnemonic == "VADD" and r.form == "reg-binary")
    fast = attrs.evolve(radd, mnemonic="VFAST", type_rates=(("f16", "half_add"),))  # a type's own rate, unpriced
    classes = {**CLASSES, "tensor.odd": SchedClass("tensor.odd", ("tensor", "sustained_odd"), PER_OP)}
    profiles = [load_profile("950"), load_profile("a2")]
    found = check_classes([vadd, vdiv, odd, lost, fast], profiles, classes)
    assert found == ["VFROB: profile 950 lacks tensor.elements_per_cycle.frob",
                     "VFROB: profile a2 lacks tensor.elements_per_cycle.frob",
                     "VODD (tensor-binary): profile 950 lacks tensor.sustained_odd",
                     "VODD (tensor-binary): profile a2 lacks tensor.sustained_odd",
                     "VLOST (tensor-binary): scheduling class 'vector.odd' is not declared (isa.classes.CLASSES)",
                     "VFAST: profile 950 lacks register.elements_per_cycle.half_add",
                     "VFAST: profile a2 lacks register.elements_per_cycle.half_add"]


def test_a_new_class_is_a_record_and_profile_keys_and_no_code():
    """VDIV's class ``tensor.divide`` is a record of ``isa.classes`` naming its price: a profile that
    gives ``tensor.sustained_divide`` prices it, and taking that key away is named as missing."""
    import attrs

    from vcore.emulator.profiles.profile import load_profile
    from vcore.emulator.timing.costs import check_classes, is_arithmetic, price_key, schedule_of
    from vcore.isa import TABLE

    assert schedule_of("tensor.divide") == "transfer" and price_key("tensor.divide") == ("tensor", "sustained_divide")
    assert is_arithmetic("tensor.divide") and is_arithmetic("reg.transcendental") and not is_arithmetic("reg.load")
    assert price_key("reg.permute") == ("register", "alu_latency") and price_key("sync.syncall") == ("chip", "syncall")
    assert not is_arithmetic("reg.gather") and not is_arithmetic("reg.mask") and schedule_of("vector.odd") is None
    vdiv = next(r for r in TABLE if r.mnemonic == "VDIV" and r.form == "tensor-binary")
    profile = load_profile("950")
    assert check_classes([vdiv], [profile]) == []
    tensor = {k: v for k, v in profile["tensor"].items() if k != "sustained_divide"}
    without = attrs.evolve(profile, table={**profile.table, "tensor": tensor})
    assert check_classes([vdiv], [without]) == ["VDIV (tensor-binary): profile 950 lacks tensor.sustained_divide"]
    # its own latency (tensor.latency.divide) likewise
    latency = {k: v for k, v in profile["tensor"]["latency"].items() if k != "divide"}
    without = attrs.evolve(profile, table={**profile.table, "tensor": {**profile["tensor"], "latency": latency}})
    assert check_classes([vdiv], [without]) == ["VDIV (tensor-binary): profile 950 lacks tensor.latency.divide"]


def test_every_class_a_row_names_is_scheduled():
    from vcore.emulator.timing.costs import schedule_of
    from vcore.isa import TABLE

    assert [row.timing for row in TABLE if schedule_of(row.timing) is None] == []


def test_docs_timing_class_table_is_generated():
    """docs/timing.md's class table is the one ``make docs`` generates from the class records and the
    table (each class, its rows, its cycles), so a new row or class cannot be left out of it."""
    from pathlib import Path

    from vcore.emulator.profiles.doc import class_table
    from vcore.isa import TABLE

    text = (Path(__file__).resolve().parents[2] / "docs" / "timing.md").read_text()
    assert class_table() in text, "docs/timing.md's class table is stale: run make docs"
    table = class_table()
    assert all(f"`{row.timing}`" in table for row in TABLE)


def test_the_class_table_lists_a_new_row_and_class(monkeypatch):
    import attrs

    from vcore.emulator.profiles import doc
    from vcore.isa.classes import CLASSES, SchedClass

    vadd = next(r for r in doc.TABLE if r.mnemonic == "VADD" and r.form == "tensor-binary")
    new = attrs.evolve(vadd, mnemonic="VMADEUP", opcode=0xF0, timing="tensor.fused")
    monkeypatch.setattr(doc, "TABLE", (*doc.TABLE, new))
    monkeypatch.setattr(doc, "CLASSES", {**CLASSES, "tensor.fused": SchedClass(
        "tensor.fused", ("tensor", "sustained_fused"), occupies="its own cycles", lands="its own landing")})
    assert "| `tensor.fused` | VMADEUP | its own cycles | its own landing |" in doc.class_table()


def test_an_arithmetic_row_without_a_kernel_is_named():
    import attrs

    from vcore.emulator.check import missing_kernels
    from vcore.isa import TABLE

    vadd = next(r for r in TABLE if r.mnemonic == "VADD" and r.form == "tensor-binary")
    vexp = next(r for r in TABLE if r.mnemonic == "VEXP" and r.form == "reg-unary")
    frob = attrs.evolve(vadd, mnemonic="VFROB", op="frob")
    want = "VFROB (tensor-binary): op 'frob' has no kernel in emulator.arith.numerics"
    assert missing_kernels([vadd, vexp, frob]) == [want]
    # Whether a row's arithmetic is its op's kernel is the row's (``kernel``), not its family's: a new
    # family's row is checked too, and a row whose shape builds its arithmetic (a select) is not.
    ternary = attrs.evolve(vexp, mnemonic="VFROB3", family="vternary", op="frob3")
    select = attrs.evolve(vexp, mnemonic="VPICK", family="vpick", op="pick", kernel=False)
    assert missing_kernels([ternary, select]) == [
        "VFROB3 (reg-unary): op 'frob3' has no kernel in emulator.arith.numerics"]
    assert missing_kernels(every_type=True) == []  # bf16 and fp8 kernels too (import checks the others)
