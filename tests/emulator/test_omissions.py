"""Each omission a new instruction can make is named at import (or by a test derived from the table),
with a message that says what is missing where: the proof of issue 29 (VADDRELU, VSQZ, VTRANSPOSE added
on a scratch branch) met each of these as a late or misleading failure."""

from __future__ import annotations

import re
import sys

import attrs
import numpy as np
import pytest

from vcore.assembler import assemble
from vcore.emulator import Machine, load_profile, semantics
from vcore.emulator.profiles.profile import parse_profile
from vcore.emulator.semantics import registry
from vcore.isa import TABLE, Kind, decode_program
from vcore.isa.examples import program, statement

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
    assert all(f"vcore.emulator.semantics.{name}" in sys.modules for name in names)


def test_a_new_module_in_the_package_registers_its_family_with_no_list_to_edit(scratch_registry, tmp_path,
                                                                                 monkeypatch):
    package = tmp_path / "scratch_shapes"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "transpose.py").write_text(
        "from vcore.emulator.semantics.registry import ITERATION_BEATS, implements\n\n\n"
        "@implements('vtranspose_scratch', bank_rule=ITERATION_BEATS)\n"
        "def bind_transpose(inst, pc):\n    return None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert semantics.register_all([str(package)], "scratch_shapes") == ["transpose"]
    assert "vtranspose_scratch" in scratch_registry.BINDERS
    monkeypatch.delitem(sys.modules, "scratch_shapes.transpose")


def test_a_family_no_module_implements_is_named_with_its_rows(scratch_registry):
    vadd = ROWS[("VADD", "tensor-binary")]
    transpose = attrs.evolve(vadd, mnemonic="VMADEUP", form="tensor-madeup", family="vmadeup")
    assert registry.missing_families([vadd, transpose]) == [
        "family 'vmadeup' of VMADEUP (tensor-madeup) has no binder: no module of emulator.semantics "
        "(each is imported at start) registers one with @implements('vmadeup', bank_rule=...)"]


# -- a key taken out of the 950 profile, the schema --------------------------------------------------

@pytest.fixture
def nine_fifty_without(monkeypatch):
    """``without(line)``: the built-in 950 profile as if that line were taken out of 950.toml."""
    from vcore.emulator import check
    from vcore.emulator.profiles import profile

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
    from vcore.emulator.check import problems

    nine_fifty_without("sustained_binary = 0.5")
    assert problems() == ["950: missing price key tensor.sustained_binary used by class tensor.binary"]


def test_a_rate_taken_out_of_the_950_profile_is_named_missing_there(nine_fifty_without):
    from vcore.emulator.check import problems

    nine_fifty_without("sub = [128, 64]")  # the tensor section's rate of sub
    assert problems() == ["VSUB: profile 950 lacks tensor.elements_per_cycle.sub"]


def test_a2_with_a_key_the_schema_lacks_says_which_profile_may_lack_it(nine_fifty_without):
    from vcore.emulator.profiles.profile import ProfileError, load_profile

    nine_fifty_without("sustained_binary = 0.5")
    with pytest.raises(ProfileError, match="a2: key 'tensor.sustained_binary' is not in the 950 profile, the "
                                           r"schema every profile matches \(950.toml lacks it, or a2.toml has it"):
        load_profile("a2")


# -- a form its family's binder does not lay out -----------------------------------------------------

def test_a_tensor_row_of_a_form_the_tensor_plan_does_not_lay_out_is_named():
    # a new form (VTRANSPOSE's, say) given the tensor family: bind_tensor lays out operands by form, so
    # its first load met a KeyError
    vadd = ROWS[("VADD", "tensor-binary")]
    transpose = attrs.evolve(vadd, mnemonic="VMADEUP", form="tensor-madeup")
    found = registry.missing_forms([vadd, transpose])
    assert found == [f"VMADEUP (tensor-madeup): the binder of family 'tensor' (vcore.emulator.semantics.tensor."
                     f"bind_tensor) lays out forms {', '.join(registry.FORMS_OF['tensor'])}, not 'tensor-madeup': "
                     f"the form needs its layout there, or a family and binder of its own"]


def test_the_import_check_names_a_form_the_binder_does_not_lay_out(monkeypatch):
    from vcore.emulator.check import IncompleteEmulator, check_emulator

    monkeypatch.setitem(registry.FORMS_OF, "tensor", tuple(f for f in registry.FORMS_OF["tensor"]
                                                           if f != "tensor-fma"))
    with pytest.raises(IncompleteEmulator, match=r"VMLA \(tensor-fma\): the binder of family 'tensor'"):
        check_emulator()


def test_the_forms_a_binder_lays_out_are_those_of_its_rows():
    # the tensor shape's plan lays out every tensor form of the table, and no form no row has
    from vcore.isa.forms import FORMS

    tensor_forms = {form for form, record in FORMS.items() if "tensor" in record.classes}
    # the transposes' forms have binders of their own (emulator.semantics.transpose), and lay out those alone;
    # GatherMask and the sorts are shapes of their own (CONTRACT 13.4, 13.6), each naming its forms
    assert registry.FORMS_OF["transpose"] == ("tensor-transpose",)
    assert registry.FORMS_OF["trans5hd"] == ("tensor-trans5hd",)
    sorts = set(registry.FORMS_OF["gathermask"]) | set(registry.FORMS_OF["sort"])
    assert sorts == {"tensor-gathermask", "tensor-gathermask-bits", "tensor-sort32", "tensor-merge2", "tensor-merge3",
                     "tensor-merge4"}
    own = {"tensor-transpose", "tensor-trans5hd"} | sorts
    assert set(registry.FORMS_OF["tensor"]) == tensor_forms - own


# -- what a register binder says it reads, and which lanes it reads --------------------------------
# Derived from the table: every register row's example (``isa.examples``), its registers loaded from UB
# and its results stored back, in a vector function of its own.

def _decoded(text: str, row):
    """The pc and the decoded instruction of ``row``'s statement in a program."""
    return next((pc, inst) for pc, inst in decode_program(assemble(text).words) if inst.row is row)


def _registers(row, inst, kind: Kind, start: int = 0) -> list[int]:
    """The registers of one kind among the operands from ``start`` on (and, for mask registers, the
    keyword fields that name one: VSUB's carry=)."""
    found = [value for value, operand in list(zip(inst.operands, row.operands, strict=True))[start:]
             if operand.kind is kind and operand.name not in row.distinct[1:]]  # (a second destination: PINTLV's)
    if kind is Kind.PREG and start == 0:
        found += [inst.kw(k.name) for k in row.keywords if k.preg and inst.kw(k.name) is not None]
    return sorted(set(found))


REGISTER_ROWS = [row for row in TABLE if row.register]


@pytest.mark.parametrize("row", REGISTER_ROWS, ids=[f"{r.mnemonic}-{r.form}" for r in REGISTER_ROWS])
def test_a_register_job_reads_every_register_operand_it_takes(row, monkeypatch):
    """A register binder names in its job's reads every vector and mask register among its sources
    (each operand after the first, the destination): a mask register left out (P) would let a write to
    it overtake the read in the function's schedule, and no race or dependency would see it."""
    from vcore.emulator.functions.context import FunctionContext

    jobs = []
    submit, submit_register = FunctionContext.submit, FunctionContext.submit_register
    monkeypatch.setattr(FunctionContext, "submit", lambda self, job: (jobs.append(job), submit(self, job)))
    monkeypatch.setattr(FunctionContext, "submit_register", lambda self, pc, perform, reads, *rest: (
        jobs.append((pc, reads)), submit_register(self, pc, perform, reads, *rest)))
    text = program(row)
    pc, inst = _decoded(text, row)
    assert Machine(assemble(text), "950").run().fault is None
    reads = [job[1] if isinstance(job, tuple) else job.footprint_reads or dict(job.reads) for job in jobs
             if (job[0] if isinstance(job, tuple) else job.pc) == pc]
    assert reads, f"{row.example}: no job"
    sources = {f"V{n}" for n in _registers(row, inst, Kind.VREG, 1)} | \
              {f"P{n}" for n in _registers(row, inst, Kind.PREG, 1)}
    assert sources <= set(reads[0]), f"{row.example}: its job reads {sorted(reads[0])}, not {sorted(sources)}"


def _mask(blocks) -> tuple[np.ndarray, np.ndarray]:
    """A mask register whose active bits are those of the given 32-byte blocks of a vector register, and
    which of the register's 256 bytes those blocks are."""
    mask, active = np.zeros(32, np.uint8), np.zeros(256, bool)
    for b in blocks:
        mask[4 * b:4 * b + 4] = 0xFF
        active[32 * b:32 * b + 32] = True
    return mask, active


def _results(row, vdata: dict, pdata: dict) -> np.ndarray:
    """Run ``row``'s statement on vector and mask registers loaded with the given bytes; its results
    (its destination register, its carry, what it stores at S1) as bytes."""
    _, inst = _decoded(program(row), row)
    first = row.operands[0].kind
    written_v = [inst.operands[0]] if first is Kind.VREG else []
    written_p = ([inst.operands[0]] if first is Kind.PREG else []) + \
        [inst.kw(k.name) for k in row.keywords if k.preg and inst.kw(k.name) is not None]
    lines = ["MOV S1, 0x8000", "VF.BEGIN", "PSET.b8 P7, ALL",
             *(f"PLD P{p}, [{0x1000 + 32 * p:#x}]" for p in pdata),
             *(f"VLD.u8 V{v}, [{0x2000 + 256 * v:#x}]" for v in vdata), statement(row),
             *(f"VST.u8 [{0x4000 + 256 * v:#x}], V{v}, P7" for v in written_v),
             *(f"PST [{0x6000 + 32 * p:#x}], P{p}" for p in written_p), "VF.END", "HALT"]
    machine = Machine(assemble("\n".join(lines) + "\n"), "950")
    for v, data in vdata.items():
        machine.write("ub", 0x2000 + 256 * v, data)
    for p, data in pdata.items():
        machine.write("ub", 0x1000 + 32 * p, data)
    result = machine.run()
    assert result.fault is None, result.fault
    return machine.read("ub", 0x4000, "u8", 0x4100)


# Rows whose vector sources are read in their mask's lanes only, whose family leaves masked_lanes out all
# the same: a race on a loaded register's other lanes is then reported though it cannot change a result.
# Setting it changes which races a run reports, so it is left to a change of behaviour of its own.
LEFT_UNMASKED = {"vconv": "VCONV: a lane of D reads the lane of S in the same 32-byte block, for every part="}
# Gathers and scatters read their index register in the active lanes alone too (their rule is WHOLE_UB,
# their addresses refined when they start); random indices would run past UB, so they are not run here.
MASKED_ROWS = [row for row in REGISTER_ROWS if Kind.VREG in [o.kind for o in row.operands[1:]]
               and Kind.PREG in [o.kind for o in row.operands[1:]] and row.family not in ("vgather_ub", "vscatter")]


@pytest.mark.parametrize("row", MASKED_ROWS, ids=[f"{r.mnemonic}-{r.form}" for r in MASKED_ROWS])
def test_a_family_that_reads_only_its_active_lanes_says_so(row):
    """``masked_lanes=True`` (``registry.MASKED_LANES``) says a family reads its vector sources only in
    the blocks of its mask's active lanes (``emulator.functions.races``): exactly the rows whose results
    do not change when their vector registers' other blocks do. Left out, races on lanes no result reads
    are reported; set wrongly, races that change a result are missed."""
    _, inst = _decoded(program(row), row)
    mask_register = [v for v, o in zip(inst.operands, row.operands, strict=True) if o.kind is Kind.PREG][-1]
    unchanged = True
    for seed, blocks in enumerate([(2, 5), (0, 3), (1, 6, 7)]):  # lane 0 active and not (VDUP's lane form)
        rng = np.random.default_rng(seed)
        mask, active = _mask(blocks)
        vdata = {v: rng.integers(0, 256, 256, dtype=np.uint8) for v in _registers(row, inst, Kind.VREG)}
        pdata = {p: mask if p == mask_register else rng.integers(0, 256, 32, dtype=np.uint8)
                 for p in _registers(row, inst, Kind.PREG)}
        others = {v: np.where(active, data, rng.integers(0, 256, 256, dtype=np.uint8)).astype(np.uint8)
                  for v, data in vdata.items()}
        unchanged &= bool(np.array_equal(_results(row, vdata, pdata), _results(row, others, pdata)))
    flagged = row.family in registry.MASKED_LANES
    if row.family in LEFT_UNMASKED:
        assert unchanged and not flagged, f"{row.family}: take it out of LEFT_UNMASKED"
    else:
        assert flagged == unchanged, (f"{row.example}: its results {'do not change' if unchanged else 'change'} "
                                      f"with its sources' inactive lanes, and its family {row.family!r} "
                                      f"{'says' if flagged else 'does not say'} masked_lanes=True")


# -- the tensor shape's bank rule charges its conflicts ---------------------------------------------

ITERATED = [row for row in TABLE if registry.BANK_RULES.get(row.family) is registry.ITERATION_BEATS]


@pytest.mark.parametrize("profile", ["950", "a2"])
@pytest.mark.parametrize("row", ITERATED, ids=[f"{r.mnemonic}-{r.form}" for r in ITERATED])
def test_a_family_whose_rule_is_iteration_beats_charges_conflicts(row, profile):
    """Each row of a family whose bank rule is ITERATION_BEATS, its example with every block stride 16
    (an iteration's 8 blocks of an operand 512 bytes apart: one bank group on either profile, one bank on
    the 950), is charged bank-conflict cycles (docs/timing.md, "UB bank conflicts"); a binder that gives
    its job no ``conflicts`` is charged none, silently. (The a2 has no integer division: CONTRACT 13.7.)"""
    if profile == "a2" and row.mnemonic == "VREM":
        pytest.skip("the a2 refuses VREM")
    strides = [k.name for k in row.keywords if k.name.endswith("blk")]
    assert strides, f"{row.mnemonic} ({row.form}): no block stride to lay its blocks in one bank group"
    line = re.sub(r",\s*\w*blk=\d+", "", statement(row)) + "".join(f", {name}=16" for name in strides)
    chosen = load_profile(profile)
    if row.mnemonic == "VREM" or " VDIV.s" in f" {line}" or " VDIV.u" in f" {line}":
        # An integer division's own cycles (int_div_extra, about 100 an iteration on the 950) hide the
        # conflicts' beats: price it without them, so that the conflicts show.
        text = re.sub(r"(?m)^int_div_extra = \d+", "int_div_extra = 0", chosen.source_text)
        chosen = parse_profile(text, f"{profile} without int_div_extra")
    machine = Machine(assemble(line + "\nHALT\n"), chosen)
    result = machine.run()
    assert result.fault is None, result.fault
    conflicts = sum(entry.bank_conflict_cycles for entry in result.per_pc)
    assert conflicts > 0, f"{line}: no bank-conflict cycles"


# -- a tensor binder's UB footprint names every UB operand -------------------------------------------

TENSOR_ROWS = [row for row in TABLE if row.form.startswith("tensor-")]


def _ub_operands(row, inst) -> list[tuple[int, int]]:
    """(operand index, address) of the instruction's UB operands at absolute addresses."""
    return [(k, value.offset) for k, (value, operand) in enumerate(zip(inst.operands, row.operands, strict=True))
            if operand.kind is Kind.UB and value.reg is None]


def _raw_pairs(text: str, profile: str) -> set:
    m = Machine(assemble(text), profile)
    m.run()
    return {(r.first["pc"], r.second["pc"]) for r in m.races() if r.kind == "RAW"}


@pytest.mark.parametrize("row", TENSOR_ROWS, ids=[f"{r.mnemonic}-{r.form}" for r in TENSOR_ROWS])
def test_a_tensor_job_footprint_has_every_ub_operand(row):
    """A tensor binder names each UB operand in its job's footprint: a DMA that nothing orders writing
    a source's first block just before it, or reading the destination's first block just after it,
    is a race the run names (RAW). A binder that left an operand out lost these races silently (the
    proof of issue 29 met it with a VTRANSPOSE binder that named no source). A source at the address of
    another operand cannot be told apart from it, and is not tried."""
    example = program(row)
    _, inst = _decoded(example, row)
    operands = _ub_operands(row, inst)
    tried = 0
    for k, addr in operands:
        if k and sum(a == addr for _, a in operands) > 1:
            continue
        if k == 0 and row.family != "trans5hd":  # the destination: read by a DMA out that follows
            # (VTRANS5HD's operands are its two address lists, both read: tests/timing/test_transpose_prices.py
            # checks the blocks they name)
            text = example.replace("HALT\n", f"DMA.UB2GM gm[0x100000], [{addr:#x}], len=1\nHALT\n")
            pcs = [pc for pc, i in decode_program(assemble(text).words) if i.row is row or i.row.family == "dma"]
        else:  # a source: written by a DMA in that comes before
            text = f"DMA.GM2UB [{addr:#x}], gm[0x0], len=1\n" + example
            pcs = [pc for pc, i in decode_program(assemble(text).words) if i.row.family == "dma" or i.row is row]
        assert tuple(pcs) in _raw_pairs(text, "950"), f"{row.example}: operand {k} at {addr:#x} is in no race"
        tried += 1
    assert tried, f"{row.example}: no UB operand at an absolute address to try"
