"""Every instruction family of the table has exactly one implementation."""

from __future__ import annotations


def test_no_family_is_missing():
    from emulator.semantics.registry import missing_families

    assert missing_families() == []


def test_every_table_family_has_exactly_one_binder():
    import emulator.machine  # noqa: F401  (importing the machine registers every family)
    from emulator.semantics.registry import BINDERS
    from isa import TABLE

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

    from emulator.semantics.registry import BINDERS, implements

    family = next(iter(BINDERS))
    before = BINDERS[family]
    try:
        with pytest.raises(RuntimeError):
            implements(family)(lambda inst, pc: None)
    finally:
        stolen, BINDERS[family] = BINDERS[family], before
    assert stolen is before


def test_every_table_row_binds():
    """Each row's family binder accepts a decoded instance of the row (one example program per
    form, assembled from the docs' syntax)."""
    import emulator.machine  # noqa: F401
    from assembler import assemble
    from emulator.semantics.registry import bind
    from isa import TABLE, decode_program

    src = """VADD.f16 [0x0], [0x0], [0x0]
VEXP.f32 [0x0], [0x0]
VADDS.s16 [0x0], [0x0], 1
VF.BEGIN
LOOP 2
MEMBAR
ENDLOOP
VLD.u8 V0, [S1]
VST.u8 [S1], V0, P0
VSUB.u32 V0, V1, V2, P0, carry=P1
VABS.s8 V0, V1, P0
VMAXS.f16 V0, V1, 2.0, P0
VGATHER.f16 V0, [S1], V1, P0
VGATHER.f16 V0, V1, V2
VSCATTER.f16 [S1], V0, V1, P0
PSET.b16 P0, ALL
PUPDATE.b32 P0, S1
PLD P0, [S1]
PST [S1], P0
VCONV.f16.f32 V0, V1, P0, round=odd, part=1
VDUP.f32 V0, 1.0, P0
VARANGE.s32 V0, 3
VCMP.LT.f32 P1, V0, V1, P0
VSEL.f32 V0, V1, V2, P0
PNOT P0, P1
VMLA.f32 V0, V1, V2, P0
VREDUCE.SUM.f16 V0, V1, P0
VF.END
VCONV.s32.f16 [0], [256], round=floor, srcrep=4
VCMPS.EQ.f16 [0], [256], 1.0
VSEL.f16 [0], [256], [512], [768]
LD.s32 S2, gm[S1 + 4]
ST.u8 [S1 + 3], S2
MOV S1, 1
ADD S1, S1, 1
l: BEQ S1, 0, l
JMP l
NOP
HALT
DMA.GM2UB [0x0], gm[0x0], len=1
DMA.UB2GM gm[0x0], [0x0], len=1
SETFLAG MTE2, V, 0
WAITFLAG MTE2, V, 0
BARRIER ALL
MOV S3, BLOCKIDX
SYNCALL
"""
    program = assemble(src)
    seen = set()
    for pc, inst in decode_program(program.words):
        bound = bind(inst, pc)
        assert callable(bound.run)
        seen.add(inst.row.family)
    assert seen == {row.family for row in TABLE}


def test_the_emulator_is_complete_at_import():
    """Every row has semantics and its scheduling class is priced by every built-in profile."""
    from emulator.check import problems

    assert problems() == []


def test_an_unpriced_row_or_class_is_named():
    import attrs

    from emulator.profiles.profile import load_profile
    from emulator.timing.costs import check_classes
    from isa import TABLE

    vadd = next(r for r in TABLE if r.mnemonic == "VADD" and r.form == "tensor-binary")
    vdiv = attrs.evolve(vadd, mnemonic="VFROB", op="frob")  # a new op with no price yet
    odd = attrs.evolve(vadd, mnemonic="VODD", timing="tensor.odd")  # a new class: no profile prices it yet
    lost = attrs.evolve(vadd, mnemonic="VLOST", timing="vector.odd")  # a class of no family
    profiles = [load_profile("950"), load_profile("a2")]
    found = check_classes([vadd, vdiv, odd, lost], profiles)
    assert found == ["VFROB: profile 950 lacks tensor.elements_per_cycle.frob",
                     "VFROB: profile a2 lacks tensor.elements_per_cycle.frob",
                     "VODD (tensor-binary): profile 950 lacks tensor.sustained_odd",
                     "VODD (tensor-binary): profile a2 lacks tensor.sustained_odd",
                     "VLOST (tensor-binary): scheduling class 'vector.odd' has no schedule "
                     "(a class is FAMILY.NAME, FAMILY one of scalar, sync, tensor, dma, reg, vf)"]


def test_a_new_class_is_a_profile_key_and_no_code():
    """VDIV's class ``tensor.divide`` is scheduled and priced from its name: a profile that gives
    ``tensor.sustained_divide`` prices it, and taking that key away is named as missing."""
    import attrs

    from emulator.profiles.profile import load_profile
    from emulator.timing.costs import check_classes, is_arithmetic, price_key, schedule_of
    from isa import TABLE

    assert schedule_of("tensor.divide") == "transfer" and price_key("tensor.divide") == ("tensor", "sustained_divide")
    assert is_arithmetic("tensor.divide") and is_arithmetic("reg.transcendental") and not is_arithmetic("reg.load")
    vdiv = next(r for r in TABLE if r.mnemonic == "VDIV" and r.form == "tensor-binary")
    profile = load_profile("950")
    assert check_classes([vdiv], [profile]) == []
    tensor = {k: v for k, v in profile["tensor"].items() if k != "sustained_divide"}
    without = attrs.evolve(profile, table={**profile.table, "tensor": tensor})
    assert check_classes([vdiv], [without]) == ["VDIV (tensor-binary): profile 950 lacks tensor.sustained_divide"]


def test_every_class_a_row_names_is_scheduled():
    from emulator.timing.costs import schedule_of
    from isa import TABLE

    assert [row.timing for row in TABLE if schedule_of(row.timing) is None] == []


def test_docs_timing_names_every_class():
    from pathlib import Path

    from isa import TABLE

    text = (Path(__file__).resolve().parents[2] / "docs" / "timing.md").read_text()
    assert sorted({row.timing for row in TABLE if f"`{row.timing}`" not in text}) == []


def test_an_arithmetic_row_without_a_kernel_is_named():
    import attrs

    from emulator.check import missing_kernels
    from isa import TABLE

    vadd = next(r for r in TABLE if r.mnemonic == "VADD" and r.form == "tensor-binary")
    vexp = next(r for r in TABLE if r.mnemonic == "VEXP" and r.form == "reg-unary")
    frob = attrs.evolve(vadd, mnemonic="VFROB", op="frob")
    want = "VFROB (tensor-binary): op 'frob' has no kernel in emulator.arith.numerics"
    assert missing_kernels([vadd, vexp, frob]) == [want]
    assert missing_kernels(every_type=True) == []  # bf16 and fp8 kernels too (import checks the others)
