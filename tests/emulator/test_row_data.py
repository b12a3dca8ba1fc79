"""What a row carries as data is what the emulator does: every row's example runs, and the prices and
units that code once chose by an instruction's name (the f32 add's rate, the one-cycle classes, a
block-strided access, a gather's index lanes, the unit of each UB access) come from the row and its
class (``isa.classes``), with the figures worked out here by hand from the 950 profile."""

from __future__ import annotations

import math

import pytest

from vcore.assembler import assemble
from vcore.emulator import Machine, ProgramError
from vcore.emulator.functions.schedule import ub_unit
from vcore.emulator.profiles.profile import load_profile
from vcore.emulator.timing.costs import CostModel
from vcore.isa import TABLE, TYPES, Inst, decode_program
from vcore.isa.examples import program, statement

ROWS = {(row.mnemonic, row.form): row for row in TABLE}
IDS = [f"{row.mnemonic}-{row.form}" for row in TABLE]


@pytest.mark.parametrize("row", TABLE, ids=IDS)
def test_every_rows_example_is_a_complete_use_of_it(row):
    """The example assembles, holds the row, and runs to its
    end without a fault or a race on the 950; on a2 too, unless a2 has no such instruction (register
    instructions and vector functions; VREM, the 950's integer division: CONTRACT 13.7), where it is
    refused before it starts."""
    words = assemble(program(row)).words
    assert row in [inst.row for _, inst in decode_program(words)], row.example
    result = Machine(assemble(program(row)), "950").run()
    assert result.fault is None, result.fault
    assert not result.races
    if row.register or row.structure or row.mnemonic == "VREM" or row.form == "scalar-mov-ar":  # (13.4: AR: 950)
        with pytest.raises(ProgramError, match="950 profile"):
            Machine(assemble(program(row)), "a2")
    else:
        result = Machine(assemble(program(row)), "a2").run()
        assert result.fault is None and not result.races, result.fault


def test_register_examples_are_one_instruction():
    """A register instruction's example is the instruction alone (the tests frame it: one word inside
    a function, as the a2 refusal test builds a bare one)."""
    for row in TABLE:
        if row.register:
            assert row.example == statement(row), row.example
            assert len(assemble(f"VF.BEGIN\n{row.example}\nVF.END\n").words) == 3, row.example


def _inst(mnemonic: str, form: str, type_name: str | None, cond: str | None = None, **keywords) -> Inst:
    row = ROWS[(mnemonic, form)]
    values = tuple(keywords.get(k.name, k.default) for k in row.keywords)
    return Inst(row, TYPES[type_name] if type_name else None, (), values, cond=cond)


COSTS = CostModel(load_profile("950"))


@pytest.mark.parametrize(("inst", "occupancy", "latency"), [
    # f32 add: 64 lanes at float32_add = 64 a cycle, where an int32 add is 32 a cycle (add = [256, 128, 32])
    (_inst("VADD", "reg-binary", "f32"), math.ceil(64 / 64), 7),
    (_inst("VADD", "reg-binary", "s32"), math.ceil(64 / 32), 7),
    (_inst("VADD", "reg-binary", "f16"), math.ceil(128 / 128), 7),
    (_inst("VSUB", "reg-binary", "f32"), math.ceil(64 / 64), 7),
    # one cycle: masks (mask_latency 1), a mask's load and store, a register gather (alu_latency 7)
    (_inst("PSET", "mask-pattern", "b16"), 1, 1),
    (_inst("PLD", "mask-load", None), 1, 1),
    (_inst("PST", "mask-store", None), 1, 1),
    (_inst("VGATHER", "reg-gather-reg", "f16"), 1, 7),
    # a VLD or VST: one cycle, strided_access_cycles = 2 with blk= other than 1 (load_latency, store_latency
    # 9); blk=1 is a contiguous VL, one cycle
    (_inst("VLD", "reg-load", "f32"), 1, 9),
    (_inst("VLD", "reg-load", "f32", blk=1), 1, 9),
    (_inst("VLD", "reg-load", "f32", blk=2), 2, 9),
    (_inst("VST", "reg-store", "u8", blk=0), 2, 9),
    # a gather or scatter: its index register's 128 lanes (64 of 32 bits) at gather = [64, 64, 32]
    (_inst("VGATHER", "reg-gather-ub", "u8"), math.ceil(128 / 64), 18),
    (_inst("VGATHER", "reg-gather-ub", "f32"), math.ceil(64 / 32), 18),
    (_inst("VSCATTER", "reg-scatter", "f16"), math.ceil(128 / 64), 18),
    (_inst("VSCATTER", "reg-scatter", "u32"), math.ceil(64 / 32), 18),
    # transcendental: 64 f32 lanes at 16 a cycle (transcendental_latency by op and width: exp f32 16, f16 21)
    (_inst("VEXP", "reg-unary", "f32"), math.ceil(64 / 16), 16),
    (_inst("VEXP", "reg-unary", "f16"), math.ceil(128 / 16), 21),
    # a reduction: reduce_latency by operation and width (SUM f32 22, f16 24)
    (_inst("VREDUCE", "reg-reduce", "f32", cond="SUM"), 1, 22),
    (_inst("VREDUCE", "reg-reduce", "f16", cond="SUM"), 1, 24),
], ids=lambda v: f"{v.row.mnemonic}.{v.type.name if v.type else ''}{'-blk' if 'blk' in str(v) else ''}"
    if isinstance(v, Inst) else str(v))
def test_register_prices_come_from_the_class_and_the_row(inst, occupancy, latency):
    cost = COSTS.register_cost(inst)
    assert (cost.occupancy, cost.latency) == (occupancy, latency)


def test_the_unit_of_each_ub_access_is_its_class():
    units = {(row.mnemonic, row.form): ub_unit(row) for row in TABLE if row.register and ub_unit(row)}
    assert units == {("VLD", "reg-load"): "load", ("VST", "reg-store"): "store",
                     ("VGATHER", "reg-gather-ub"): "load", ("VSCATTER", "reg-scatter"): "store",
                     ("PLD", "mask-load"): "load", ("PST", "mask-store"): "store",
                     ("VLD", "reg-load-pair"): "load", ("VST", "reg-store-first"): "store",
                     ("VST", "reg-store-pack"): "store", ("VST", "reg-store-pair"): "store"}


def test_a_new_memory_row_takes_its_classes_unit(monkeypatch):
    """A memory family named nowhere in the scheduler lands on the unit its class names (it landed on
    the execute unit when units were chosen by family name)."""
    import attrs

    from vcore.isa import classes

    vst = ROWS[("VST", "reg-store")]
    vstnt = attrs.evolve(vst, mnemonic="VSTNT", family="vst_nontemporal", timing="reg.store_nt")
    monkeypatch.setitem(classes.CLASSES, "reg.store_nt", attrs.evolve(classes.CLASSES["reg.store"],
                                                                      name="reg.store_nt"))
    assert ub_unit(vstnt) == "store"
