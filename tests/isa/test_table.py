"""The instruction table: its self-check rejects malformed rows, and it covers the contract's language."""

from __future__ import annotations

import re
from pathlib import Path

import attrs
import pytest

from vcore import isa
from vcore.isa import TABLE, Kind, TableError, check_table
from vcore.isa.classes import CLASSES
from vcore.isa.model import BitField

ROOT = Path(__file__).resolve().parents[2]


def _row(mnemonic: str, form: str) -> isa.Instruction:
    return next(r for r in TABLE if r.mnemonic == mnemonic and r.form == form)


def _replace_row(row: isa.Instruction, new: isa.Instruction) -> tuple[isa.Instruction, ...]:
    return tuple(new if r is row else r for r in TABLE)


def _replace_keyword(row: isa.Instruction, name: str, **changes) -> isa.Instruction:
    keywords = tuple(attrs.evolve(k, **changes) if k.name == name else k for k in row.keywords)
    return attrs.evolve(row, keywords=keywords)


# -- the self-check --------------------------------------------------------------------------------

def test_the_real_table_passes_its_check():
    check_table(TABLE)


def test_bit_owned_twice_is_caught():
    row = _row("VADD", "tensor-binary")
    # Move src0 one bit down so that it overlaps the last bit of dst.
    fields = tuple(attrs.evolve(f, lo=f.lo - 1) if f.name == "src0" else f for f in row.fields)
    with pytest.raises(TableError, match=r"bit 30 owned by dst and src0"):
        check_table(_replace_row(row, attrs.evolve(row, fields=fields)))


def test_field_overlapping_the_opcode_is_caught():
    row = _row("NOP", "none")
    bad = attrs.evolve(row, fields=(*row.fields, BitField("extra", 7, 2)))
    with pytest.raises(TableError, match="owned by opcode and extra"):
        check_table(_replace_row(row, bad))


def test_duplicate_opcode_is_caught():
    nop, halt = _row("NOP", "none"), _row("HALT", "none")
    with pytest.raises(TableError, match=r"opcode 0x55 also used by NOP"):
        check_table(_replace_row(halt, attrs.evolve(halt, opcode=nop.opcode)))


@pytest.mark.parametrize("opcode", [0, 256])
def test_opcode_outside_eight_bits_is_caught(opcode):
    row = _row("NOP", "none")
    with pytest.raises(TableError, match="opcode"):
        check_table(_replace_row(row, attrs.evolve(row, opcode=opcode)))


@pytest.mark.parametrize(("mnemonic", "form", "name", "default"), [
    ("VADD", "tensor-binary", "repeat", 256),
    ("VADD", "tensor-binary", "dstblk", 0),  # dstblk is 1..255
    ("VEXP", "tensor-unary", "dstrep", 4096),
    ("DMA.GM2UB", "dma-in", "blocks", 0),
])
def test_default_out_of_range_is_caught(mnemonic, form, name, default):
    row = _row(mnemonic, form)
    with pytest.raises(TableError, match=f"default of {name} outside its range"):
        check_table(_replace_row(row, _replace_keyword(row, name, default=default)))


def test_range_wider_than_the_field_is_caught():
    row = _row("VADD", "tensor-binary")
    with pytest.raises(TableError, match="does not fit 8 bits"):
        check_table(_replace_row(row, _replace_keyword(row, "repeat", hi=256)))


def test_empty_range_is_caught():
    row = _row("VADD", "tensor-binary")
    with pytest.raises(TableError, match="empty range"):
        check_table(_replace_row(row, _replace_keyword(row, "repeat", lo=5, hi=4, default=None)))


def test_field_past_the_rows_words_is_caught():
    row = _row("HALT", "none")
    with pytest.raises(TableError, match="outside its 1 words"):
        check_table(_replace_row(row, attrs.evolve(row, fields=(*row.fields, BitField("x", 60, 8)))))


def test_duplicate_mnemonic_and_form_is_caught():
    nop, halt = _row("NOP", "none"), _row("HALT", "none")
    with pytest.raises(TableError, match="two rows with one mnemonic and form"):
        check_table(_replace_row(halt, attrs.evolve(halt, mnemonic=nop.mnemonic)))


def test_unknown_type_is_caught():
    row = _row("VLD", "reg-load")
    with pytest.raises(TableError, match="unknown type f64"):
        check_table(_replace_row(row, attrs.evolve(row, types=(*row.types, "f64"))))


def test_keyword_naming_a_type_the_row_lacks_is_caught():
    row = _row("VSUB", "reg-binary")
    with pytest.raises(TableError, match="names types the row lacks"):
        check_table(_replace_row(row, _replace_keyword(row, "carry", types=("f64",))))


def test_duplicate_field_names_are_caught():
    row = _row("VLD", "reg-load")
    post = row.keyword("post")
    with pytest.raises(TableError, match="duplicate operand or field names"):
        check_table(_replace_row(row, attrs.evolve(row, keywords=(*row.keywords, post))))


# -- what the rest of vcore reads off a row as data: refused at import when it does not hold -----------

def test_an_undeclared_form_is_refused_naming_the_row_and_the_form():
    # A new form name passed import and raised KeyError at its first load (the tensor shape lays out
    # the operands by form): now a form is declared with its operands, or the table is refused.
    row = _row("VADD", "tensor-binary")
    new = attrs.evolve(row, mnemonic="VMADEUP", opcode=0xF0, form="tensor-madeup")
    with pytest.raises(TableError, match=r"^VMADEUP \(tensor-madeup\): form 'tensor-madeup' is not declared"):
        check_table((*TABLE, new))


def test_operands_that_are_not_the_forms_are_refused():
    row = _row("VADD", "tensor-binary")
    with pytest.raises(TableError, match=r"^VADD \(tensor-unary\): operands \(ub, ub, ub\) are not those of form "
                                         r"'tensor-unary': \(ub, ub\)"):
        check_table(_replace_row(row, attrs.evolve(row, form="tensor-unary")))


def test_a_form_of_two_shapes_takes_either():
    from vcore.isa.forms import FORMS

    assert {tuple(o.kind for o in r.operands) for r in TABLE if r.form == "loop"} == set(FORMS["loop"].shapes)


def test_every_declared_form_has_rows():
    from vcore.isa.forms import FORMS

    assert set(FORMS) == {r.form for r in TABLE}


def test_an_undeclared_class_is_refused():
    row = _row("VSQRT", "reg-unary")
    with pytest.raises(TableError, match=r"^VSQRT \(reg-unary\): scheduling class 'reg.sqrt' is not declared"):
        check_table(_replace_row(row, attrs.evolve(row, timing="reg.sqrt")))


@pytest.mark.parametrize(("mnemonic", "form", "timing", "message"), [
    # a memory row given an execute class: it was priced by alu_latency and landed on the execute unit
    ("VST", "reg-store", "reg.alu", "class 'reg.alu' issues on the exec unit, and the row writes UB: its class must "
                                    "issue on the store unit"),
    ("VLD", "reg-load", "reg.store", "class 'reg.store' issues on the store unit, and the row reads UB: its class "
                                     "must issue on the load unit"),
    ("VSCATTER", "reg-scatter", "reg.gather", "issues on the load unit, and the row writes UB"),
    ("PSET", "mask-pattern", "reg.mask_load", "issues on the load unit, and the row touches no UB: its class must "
                                              "issue on the exec unit"),
])
def test_a_register_class_whose_unit_does_not_fit_the_rows_operands_is_refused(mnemonic, form, timing, message):
    row = _row(mnemonic, form)
    with pytest.raises(TableError, match="^" + re.escape(f"{mnemonic} ({form}): ") + ".*" + re.escape(message)):
        check_table(_replace_row(row, attrs.evolve(row, timing=timing)))


@pytest.mark.parametrize(("mnemonic", "form", "timing", "message"), [
    ("VADD", "reg-binary", "tensor.binary", "the row is a register instruction, and its class 'tensor.binary' is "
                                            "scheduled as transfer"),
    ("VADD", "tensor-binary", "reg.alu", "the row is neither a register instruction nor vector-function structure, "
                                         "and its class 'reg.alu' is scheduled as register"),
    ("LOOP", "loop", "scalar.branch", "the row is vector-function structure, and its class 'scalar.branch' is "
                                      "scheduled as scalar"),
])
def test_a_class_of_another_kind_of_row_is_refused(mnemonic, form, timing, message):
    row = next(r for r in TABLE if r.mnemonic == mnemonic and r.form == form)
    with pytest.raises(TableError, match="^" + re.escape(f"{mnemonic} ({form}): {message}")):
        check_table(_replace_row(row, attrs.evolve(row, timing=timing)))


@pytest.mark.parametrize(("mnemonic", "form", "timing", "message"), [
    # a tensor row given a scalar, DMA or sync class imported cleanly and raised KeyError at its first run
    ("VADD", "tensor-binary", "scalar.alu", "its class 'scalar.alu' is of family scalar, and form 'tensor-binary' is "
                                            "timed by classes of family tensor"),
    ("VEXP", "tensor-unary", "dma.gm2ub", "its class 'dma.gm2ub' is of family dma, and form 'tensor-unary'"),
    ("VDUP", "tensor-fill", "sync.barrier", "its class 'sync.barrier' is of family sync, and form 'tensor-fill'"),
    ("DMA.GM2UB", "dma-in", "tensor.unary", "its class 'tensor.unary' is of family tensor, and form 'dma-in' is "
                                            "timed by classes of family dma"),
    ("NOP", "none", "tensor.unary", "its class 'tensor.unary' is of family tensor, and form 'none' is timed by "
                                     "classes of family scalar or sync"),
])
def test_a_class_of_a_family_the_form_is_not_timed_by_is_refused(mnemonic, form, timing, message):
    row = _row(mnemonic, form)
    with pytest.raises(TableError, match="^" + re.escape(f"{mnemonic} ({form}): {message}")):
        check_table(_replace_row(row, attrs.evolve(row, timing=timing, pipe=CLASSES[timing].pipe)))


def test_a_row_of_a_tensor_form_without_repeat_is_refused():
    # the tensor shape iterates by repeat= (emulator.semantics.tensor): a tensor form says so in isa.forms
    row = _row("VADD", "tensor-binary")
    keywords = tuple(k for k in row.keywords if k.name != "repeat")
    with pytest.raises(TableError, match=r"^VADD \(tensor-binary\): form 'tensor-binary' reads repeat= on every "
                                         r"row \(isa.forms.FORMS\), and the row has no such field"):
        check_table(_replace_row(row, attrs.evolve(row, keywords=keywords)))


@pytest.mark.parametrize(("mnemonic", "form", "pipe", "message"), [
    ("VADD", "tensor-binary", "S", "the row runs on pipe S, and its class 'tensor.binary' on V"),
    ("DMA.UB2GM", "dma-out", "MTE2", "the row runs on pipe MTE2, and its class 'dma.ub2gm' on MTE3"),
    ("SYNCALL", "none", "flag", "the row runs on pipe flag, and its class 'sync.syncall' on S"),
    ("WAITFLAG", "flag", "V", "the row runs on pipe V, and its class 'sync.waitflag' on flag"),
])
def test_a_row_on_another_pipe_than_its_class_is_refused(mnemonic, form, pipe, message):
    row = _row(mnemonic, form)
    with pytest.raises(TableError, match="^" + re.escape(f"{mnemonic} ({form}): {message}")):
        check_table(_replace_row(row, attrs.evolve(row, pipe=pipe)))


def test_every_class_names_its_pipe():
    # the pipes of CONTRACT's table: S the scalar unit, V tensor and vector functions, MTE2 GM to UB, MTE3 UB to
    # GM; SETFLAG runs on its source pipe, WAITFLAG on its destination, BARRIER on the pipe it names
    assert {c.name: c.pipe for c in CLASSES.values() if c.family in ("dma", "sync")} == {
        "dma.gm2ub": "MTE2", "dma.ub2gm": "MTE3", "sync.setflag": "flag", "sync.waitflag": "flag",
        "sync.barrier": "flag", "sync.syncall": "S"}
    assert {c.pipe for c in CLASSES.values() if c.family in ("tensor", "reg", "vf")} == {"V"}
    assert {c.pipe for c in CLASSES.values() if c.family == "scalar"} == {"S"}
    assert [CLASSES[f"sync.{n}"].pipe_operand for n in ("setflag", "waitflag", "barrier")] == [0, 1, 0]


@pytest.mark.parametrize(("changes", "message"), [
    ({"units": ("fpu",)}, "units ('fpu',) are not an issue unit (load, store, exec) then side units"),
    ({"units": ()}, "units () are not an issue unit"),
    ({"occupancy": "lanes"}, "occupancy 'lanes' is not one of"),
    ({"whole_ub": True}, "takes every UB port but issues on no memory unit"),
    ({"rate": "gather"}, "a rate is for the 'index' occupancy alone"),
    ({"pipe": "MTE1"}, "pipe 'MTE1' is not one of S, V, MTE2, MTE3, or flag"),
    ({"pipe": "flag"}, "pipe 'flag' is not one of"),  # flag without the operand that names the pipe
])
def test_a_malformed_class_record_is_refused(changes, message):
    from vcore.isa.classes import CLASSES

    classes = {**CLASSES, "reg.alu": attrs.evolve(CLASSES["reg.alu"], **changes)}
    with pytest.raises(TableError, match=r"^scheduling class 'reg\.alu'.*" + re.escape(message)):
        check_table(TABLE, classes)


def test_a_class_of_no_family_or_with_units_outside_a_function_is_refused():
    from vcore.isa.classes import CLASSES, SchedClass

    odd = SchedClass("vector.odd", ("tensor", "odd"))
    with pytest.raises(TableError, match=re.escape("scheduling class 'vector.odd' has no schedule")):
        check_table(TABLE, {**CLASSES, "vector.odd": odd})
    busy = attrs.evolve(CLASSES["tensor.binary"], units=("exec",))
    with pytest.raises(TableError, match=re.escape("'tensor.binary' holds units ('exec',), and only a register")):
        check_table(TABLE, {**CLASSES, "tensor.binary": busy})
    # a latency of its own is a tensor class's (tensor.latency.NAME), the ALU bypass a register class's
    own = attrs.evolve(CLASSES["reg.alu"], own_latency=True)
    with pytest.raises(TableError, match=re.escape("'reg.alu': a latency of its own (tensor.latency) is a tensor")):
        check_table(TABLE, {**CLASSES, "reg.alu": own})
    alu = attrs.evolve(CLASSES["tensor.binary"], alu_result=True)
    with pytest.raises(TableError, match=re.escape("'tensor.binary': an ALU result (the bypass) is a register")):
        check_table(TABLE, {**CLASSES, "tensor.binary": alu})


def test_a_row_without_an_example_or_whose_example_is_another_instruction_is_refused():
    row = _row("VEXP", "tensor-unary")
    with pytest.raises(TableError, match=r"^VEXP \(tensor-unary\): no example"):
        check_table(_replace_row(row, attrs.evolve(row, example="")))
    with pytest.raises(TableError, match=r"^VEXP \(tensor-unary\): its example 'VLN.f16 \[0x0\], \[0x0\]' has no "
                                         r"VEXP statement"):
        check_table(_replace_row(row, attrs.evolve(row, example="VLN.f16 [0x0], [0x0]")))


def test_a_rate_for_a_type_the_row_lacks_is_refused():
    row = _row("VADD", "reg-binary")
    with pytest.raises(TableError, match=r"^VADD \(reg-binary\): type_rates name types the row lacks"):
        check_table(_replace_row(row, attrs.evolve(row, type_rates=(("f64", "float64_add"),))))


# -- properties of the real table --------------------------------------------------------------------

def test_every_row_has_a_unique_opcode():
    opcodes = [r.opcode for r in TABLE]
    assert len(opcodes) == len(set(opcodes))
    assert all(0 < op < 256 for op in opcodes)
    assert {r.opcode: r for r in TABLE} == isa.BY_OPCODE


def test_fields_are_packed_in_declaration_order_without_gaps():
    """docs/encoding.md: opcode [0:8), type [8:12) on typed rows, then operands, keywords, mask mode."""
    for row in TABLE:
        names = ["opcode"] + (["type"] if row.typed else []) + (["source_type"] if row.source_types else []) \
            + (["condition"] if row.conditions else []) + [o.name for o in row.operands] \
            + [k.name for k in row.keywords if k.encoded_bits] + (["mask_mode"] if row.has_mask else [])
        assert [f.name for f in row.fields] == names, row.mnemonic
        pos = 0
        for f in row.fields:
            assert f.lo == pos, (row.mnemonic, f.name)
            pos = f.hi
        assert row.field("opcode").width == 8
        if row.typed:
            assert (row.field("type").lo, row.field("type").width) == (8, 4)
        assert row.words == -(-pos // 64)


def test_word_counts_follow_the_documented_forms():
    """docs/encoding.md: short 1 word (register, mask, scalar, branch and sync rows); tensor binary/unary,
    conversion, compare, fill, select and DMA 2 words (so is the wide MOV); tensor scalar and the selects
    3 words. A tensor form these lists do not name (one the table gains) takes what its fields need, at
    most 3 words."""
    two = ("tensor-binary", "tensor-unary", "tensor-conv", "tensor-compare", "tensor-compare-scalar", "tensor-fill",
           "tensor-fma", "tensor-brcb", "tensor-reduce", "dma-in", "dma-out", "scalar-mov-wide")
    three = ("tensor-scalar", "tensor-select", "tensor-select-scalar", "tensor-axpy")
    # CONTRACT 2.1 and 6: these tensor forms take mask= and count=; VBRCB (6.5) repeat and strides alone.
    masked = ("tensor-binary", "tensor-unary", "tensor-scalar", "tensor-conv", "tensor-fill", "tensor-compare",
              "tensor-compare-scalar", "tensor-select", "tensor-select-scalar", "tensor-axpy", "tensor-fma",
              "tensor-reduce")
    for row in TABLE:
        if row.form in two:
            assert row.words == 2, row.mnemonic
        elif row.form in three:
            assert row.words == 3, row.mnemonic
        elif row.form.startswith("tensor-"):
            assert row.words <= 3, row.mnemonic
        else:
            assert row.words == 1, row.mnemonic
        if row.form in masked:
            assert row.has_mask, row.mnemonic
        elif not row.form.startswith("tensor-") or row.form == "tensor-brcb":
            assert not row.has_mask, row.mnemonic


# Every mnemonic of CONTRACT.md section 2, with the operand shapes the contract writes for it.
V, P, S, UB, GM = Kind.VREG, Kind.PREG, Kind.SREG, Kind.UB, Kind.GM
SCALAR = Kind.SCALAR
CONTRACT_FORMS = {
    # 2.1 tensor
    **{m: [(UB, UB, UB)] for m in ("VADD", "VSUB", "VMUL", "VMAX", "VMIN")},
    **{m: [(UB, UB)] for m in ("VEXP", "VABS", "VRELU", "VLN", "VSQRT")},
    **{m: [(UB, UB, SCALAR)] for m in ("VADDS", "VMULS", "VMAXS", "VMINS")},
    # 2.2 register
    "VLD": [(V, UB)],
    "VST": [(UB, V, P)],
    "VGATHER": [(V, UB, V, P), (V, V, V)],
    "VSCATTER": [(UB, V, V, P)],
    "PSET": [(P, Kind.PATTERN)],
    "PUPDATE": [(P, S)],
    "PLD": [(P, UB)],
    "PST": [(UB, P)],
    # 2.3 scalar, data movement, sync
    "MOV": [(S, Kind.IMM), (S, Kind.CORE)],
    **{m: [(S, S, Kind.SRC)] for m in ("ADD", "SUB", "MUL", "AND", "OR", "XOR", "SHL", "SHR")},
    **{m: [(S, Kind.SRC, Kind.TARGET)] for m in ("BEQ", "BNE", "BLT", "BGE")},
    "JMP": [(Kind.TARGET,)],
    "NOP": [()],
    "HALT": [()],
    "DMA.GM2UB": [(UB, GM)],
    "DMA.UB2GM": [(GM, UB)],
    "SETFLAG": [(Kind.PIPE, Kind.PIPE, Kind.EVENT)],
    "WAITFLAG": [(Kind.PIPE, Kind.PIPE, Kind.EVENT)],
    "BARRIER": [(Kind.BARRIER_PIPE,)],
    # 8 multi-core kernels
    "SYNCALL": [()],
    # 7 vector functions and hardware loops
    "VF.BEGIN": [()],
    "VF.END": [()],
    "LOOP": [(Kind.SRC,)],
    "ENDLOOP": [()],
    "MEMBAR": [()],
}
for _m in ("VADD", "VSUB", "VMUL", "VMAX", "VMIN"):
    CONTRACT_FORMS[_m] = [*CONTRACT_FORMS[_m], (V, V, V, P)]
for _m in ("VADDS", "VMULS", "VMAXS", "VMINS"):
    CONTRACT_FORMS[_m] = [*CONTRACT_FORMS[_m], (V, V, SCALAR, P)]
for _m in ("VEXP", "VABS", "VRELU", "VLN", "VSQRT"):
    CONTRACT_FORMS[_m] = [*CONTRACT_FORMS[_m], (V, V, P)]


@pytest.mark.parametrize("mnemonic", sorted(CONTRACT_FORMS))
def test_every_contract_mnemonic_and_form_is_in_the_table(mnemonic):
    assert mnemonic in isa.MNEMONICS, f"{mnemonic} missing from the table"
    shapes = {tuple(o.kind for o in r.operands) for r in isa.MNEMONICS[mnemonic]}
    for want in CONTRACT_FORMS[mnemonic]:
        assert want in shapes, f"{mnemonic}: no row with operands {want}"


def test_the_function_structure_rows():
    """VF.BEGIN 0x70, VF.END 0x71, LOOP 0x72, ENDLOOP 0x73, MEMBAR 0x74: one word, no type, no fields;
    ``structure`` marks exactly them, ``register`` exactly the register blocks 0x20..0x3F and 0xA0..0xCF."""
    structure = {r.mnemonic: r for r in TABLE if r.structure}
    assert {m: r.opcode for m, r in structure.items()} == {"VF.BEGIN": 0x70, "VF.END": 0x71, "LOOP": 0x72,
                                                           "ENDLOOP": 0x73, "MEMBAR": 0x74}
    for row in structure.values():
        assert (row.words, row.types, row.keywords, row.has_mask, row.register) == (1, (), (), False, False)
    (count,) = structure["LOOP"].operands
    assert (count.kind, count.bits) == (Kind.SRC, 34)  # a register flag and a 33-bit signed immediate
    assert count.imm_range() == (-(1 << 32), (1 << 32) - 1)
    assert {r.opcode for r in TABLE if r.register} == {r.opcode for r in TABLE
                                                       if 0x20 <= r.opcode < 0x40 or 0xA0 <= r.opcode < 0xD0}


def test_what_a_function_may_hold_is_the_contracts_list():
    """CONTRACT section 7: register instructions, LOOP/ENDLOOP, MEMBAR and the scalar MOV, ADD, SUB,
    MUL, AND, OR, XOR, SHL, SHR (VF.END closes the function); nothing else, VF.BEGIN neither."""
    from vcore.isa.functions import allowed_inside

    scalars = {"MOV", "ADD", "SUB", "MUL", "AND", "OR", "XOR", "SHL", "SHR"}
    for row in TABLE:
        want = row.register or row.mnemonic in scalars | {"LOOP", "ENDLOOP", "MEMBAR", "VF.END"}
        if row.form in ("scalar-mov-spr", "scalar-mov-ar"):  # 13.10: MOV Sd, AR is not (the scalar unit reads)
            want = False
        assert allowed_inside(row) == want, (row.mnemonic, row.form)


def test_contract_field_ranges_and_defaults():
    """CONTRACT.md 2.1 / 2.2 / 2.3 field tables."""
    want_binary = {"repeat": (0, 255, 1), "dstblk": (1, 255, 1), "src0blk": (0, 255, 1), "src1blk": (0, 255, 1),
                   "dstrep": (0, 255, 8), "src0rep": (0, 255, 8), "src1rep": (0, 255, 8)}
    want_unary = {"repeat": (0, 255, 1), "dstblk": (1, 65535, 1), "srcblk": (0, 65535, 1),
                  "dstrep": (0, 4095, 8), "srcrep": (0, 4095, 8)}
    want_dma = {"blocks": (1, 4095, 1), "len": (1, 65535, None), "srcgap": (0, 65535, 0), "dstgap": (0, 65535, 0)}
    for row in TABLE:
        got = {k.name: (k.lo, k.hi, k.default) for k in row.keywords}
        if row.form == "tensor-binary":
            assert got == want_binary, row.mnemonic
        elif row.form in ("tensor-unary", "tensor-scalar"):
            assert got == want_unary, row.mnemonic
        elif row.form.startswith("dma"):
            assert got == want_dma, row.mnemonic
            assert row.keyword("len").required
    for form in ("reg-load", "reg-store"):
        row = next(r for r in TABLE if r.form == form)
        assert row.keyword("post").default == 0
        assert (row.keyword("blk").lo, row.keyword("blk").optional) == (0, True)
    carry = _row("VSUB", "reg-binary").keyword("carry")
    assert carry.preg and carry.types == ("u32",) and carry.optional


def test_contract_types():
    """The types the contract gives its instructions (every form of each; an instruction it does not
    name is the table's alone)."""
    tensor = {"f16", "bf16", "f32", "s16", "u16", "s32", "u32"}
    for row in TABLE:
        if row.mnemonic == "VDIV":  # CONTRACT 6.2, and 13.7's 16- and 32-bit integers (950 only)
            assert set(row.types) == {"f16", "bf16", "f32", "s16", "u16", "s32", "u32"}, row.form
        elif row.mnemonic == "VREM":  # CONTRACT 13.7
            assert set(row.types) == {"s16", "u16", "s32", "u32"}, row.form
        elif row.mnemonic in ("VREC", "VRSQRT", "VLRELU", "VAXPY", "VMLA", "VMADD", "VCPADD"):  # float T
            assert set(row.types) == {"f16", "bf16", "f32"}, row.form
        elif row.mnemonic in ("VAND", "VOR", "VXOR", "VNOT", "VSHL", "VSHR"):  # CONTRACT 6.5: 16/32-bit integers
            assert set(row.types) == {"s16", "u16", "s32", "u32"}, row.form
        elif row.mnemonic in ("VADD", "VSUB", "VMUL", "VMAX", "VMIN", "VADDS", "VMULS", "VMAXS", "VMINS"):
            if row.form.startswith("tensor-"):  # CONTRACT 2.1: every tensor type
                assert set(row.types) == tensor, row.mnemonic
        elif row.mnemonic in ("VEXP", "VABS", "VRELU", "VLN", "VSQRT", "VNEG") and row.form == "tensor-unary":
            assert set(row.types) <= tensor and row.types, row.mnemonic
    assert set(_row("PSET", "mask-pattern").types) == {"b8", "b16", "b32"}
    assert set(_row("PUPDATE", "mask-update").types) == {"b8", "b16", "b32"}
    for form in ("reg-load", "reg-gather-ub", "reg-gather-reg"):
        assert {"e4m3", "e5m2"} <= set(next(r for r in TABLE if r.form == form).types)
    assert isa.PATTERNS == ("ALL", "ALLF", "VL1", "VL2", "VL3", "VL4", "VL8", "VL16", "VL32", "VL64", "VL128",
                            "M3", "M4", "H", "Q")
    assert isa.PIPES == ("S", "V", "MTE2", "MTE3")


# -- the generated reference ---------------------------------------------------------------------------

def test_docs_isa_md_is_up_to_date():
    from vcore.isa import docs

    on_disk = (ROOT / "docs" / "isa.md").read_text(encoding="utf-8")
    assert on_disk == docs.render(), "docs/isa.md is stale: run `make docs` to regenerate it from isa/table.py"


def test_docs_list_every_row_and_field():
    from vcore.isa import docs

    text = docs.render()
    assert f"{len(TABLE)} instruction forms." in text
    for row in TABLE:
        assert f"## {row.mnemonic} ({row.form}), opcode 0x{row.opcode:02x}" in text
        for f in row.fields:
            assert f"| [{f.lo}:{f.hi}) | {f.name} |" in text
