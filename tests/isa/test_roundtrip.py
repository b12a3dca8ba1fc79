"""Properties of the binary form: encode/decode are inverses, disasm/asm preserve the .vbin byte for byte,
and no input bytes or words make the decoders raise anything but their own error types."""

from __future__ import annotations

import contextlib
import struct
import zlib

import pytest
import strategies as S  # tests/strategies.py: tests/conftest.py puts tests/ on the path
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from vcore import isa
from vcore.assembler import assemble, disassemble
from vcore.isa import DecodeError, Inst, Mask, MaskMode, RegOrImm, UbRef, decode, decode_program, encode, problems
from vcore.isa.program import DataRecord, Program, VbinError, from_bytes, to_bytes
from vcore.isa.types import TYPES

# isa.values.bits_value casts NaN bit patterns through numpy, which warns; the values are still right.
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _row(mnemonic: str, form: str) -> isa.Instruction:
    return next(r for r in isa.TABLE if r.mnemonic == mnemonic and r.form == form)


# -- encode / decode ----------------------------------------------------------------------------

ROWS = [pytest.param(row, id=f"{row.mnemonic}-{row.form}") for row in isa.TABLE]


@pytest.mark.parametrize("row", ROWS)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_decode_inverts_encode_for_every_row(row, data):
    """Per row, so that no row goes untested (a row the generator cannot satisfy fails here)."""
    inst = data.draw(S.inst_of_row(row).filter(S.valid))
    words = encode(inst)
    assert words[0] & 0xFF == row.opcode
    assert len(words) == row.words + (2 if inst.mask is not None else 0) == inst.words
    assert all(0 <= w < 1 << 64 for w in words)
    assert decode(words, 0) == inst
    # The instruction decodes the same with other words around it.
    assert decode([0x55, *words, 0x56], 1) == inst


@FAST
@given(S.insts())
def test_decode_inverts_encode(inst):
    assert decode(encode(inst), 0) == inst


# -- disassemble / assemble ---------------------------------------------------------------------

def _assert_same_bytes(program: Program) -> None:
    text = disassemble(program)
    again = assemble(text, "roundtrip.asm")
    assert to_bytes(again) == to_bytes(program), text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(S.programs(max_insts=8, max_records=3))
def test_disassembly_reassembles_to_identical_bytes(program):
    _assert_same_bytes(program)


@FAST
@given(S.insts())
def test_every_single_instruction_reassembles(inst):
    """In the smallest program that holds it validly (a register row inside VF.BEGIN ... VF.END)."""
    placed = S.in_context(inst)
    program = Program(words=placed.words)
    assert placed.own_words(program.words) == tuple(encode(inst))
    _assert_same_bytes(program)


@pytest.mark.parametrize("row", ROWS)
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_row_reassembles_in_its_context(row, data):
    """Instructions of each row, so that none (VF.END, ENDLOOP, ...) is left to chance."""
    inst = data.draw(S.inst_of_row(row).filter(S.valid))
    _assert_same_bytes(Program(words=S.in_context(inst).words))


@settings(max_examples=200, deadline=None)
@given(st.lists(S.data_records(), min_size=1, max_size=6))
def test_data_records_reassemble(records):
    """Float payloads include nan/-nan/payload NaNs, +-inf, -0.0 and subnormals (see strategies.py)."""
    program = Program(words=(), data=tuple(records))
    blob = to_bytes(program)
    assert from_bytes(blob).data == program.data
    _assert_same_bytes(program)


@pytest.mark.parametrize("type_name", S.DATA_TYPES)
def test_every_special_float_and_int_pattern_reassembles(type_name):
    """Deterministic sweep of the special bit patterns (all 256 values for the 8-bit types)."""
    t = TYPES[type_name]
    if t.size == 1:
        patterns = list(range(256))
    elif t.is_float:
        patterns = S._float_specials(type_name)
    else:
        top = (1 << t.bits) - 1
        patterns = [0, 1, top, top >> 1, (top >> 1) + 1]
    fmt = {1: "<B", 2: "<H", 4: "<I", 8: "<Q"}[t.size]
    payload = b"".join(struct.pack(fmt, p) for p in patterns)
    program = Program(words=(), data=(DataRecord("ub", "list", type_name, 0, len(patterns), payload),))
    _assert_same_bytes(program)


@pytest.mark.parametrize("mnemonic", ["VADDS", "VMULS", "VMAXS", "VMINS"])
def test_scalar_immediate_special_patterns_reassemble(mnemonic):
    row = _row(mnemonic, "tensor-scalar")
    for type_name in row.types:
        t = TYPES[type_name]
        patterns = S._float_specials(type_name) if t.is_float else [0, 1, (1 << t.bits) - 1]
        for bits in patterns:
            inst = Inst(row, t, (UbRef(None, 0), UbRef(None, 32), RegOrImm(None, bits)), (1, 1, 1, 8, 8))
            assert problems(inst) == []
            _assert_same_bytes(Program(words=tuple(encode(inst))))


def test_branch_targets_inside_and_outside_the_text_reassemble():
    """A target at an instruction start becomes a label; one inside an instruction or past the end
    is printed as a number; both re-assemble to the same words."""
    src = "top: VADD.f16 [0], [0], [0], mask=3\nBEQ S1, S2, top\nBNE S1, 0, 8\nJMP 0xFFFFF8\nBLT S1, -1, end\nend:\n"
    program = assemble(src, "t.asm")
    text = disassemble(program)
    assert "0x8" in text and "0xfffff8" in text  # not instruction starts: numeric
    _assert_same_bytes(program)


# -- robustness: decoders raise only their own errors ------------------------------------------

@FAST
@given(st.lists(st.integers(0, (1 << 64) - 1), min_size=1, max_size=6))
def test_random_words_raise_only_decode_error(words):
    try:
        inst = decode(words, 0)
    except DecodeError:
        return
    # Whatever decodes is canonical: it encodes back to the very words it came from.
    assert encode(inst) == list(words[: inst.words])


@st.composite
def _near_valid_words(draw):
    """Words with a valid opcode and sparse bits, so the decoder gets past the opcode check."""
    row = draw(st.sampled_from(isa.TABLE))
    n = row.words + draw(st.integers(0, 3))
    words = []
    for _ in range(n):
        bits = draw(st.lists(st.integers(0, 63), max_size=6))
        words.append(sum(1 << b for b in set(bits)))
    words[0] = (words[0] & ~0xFF) | row.opcode
    return words


@FAST
@given(_near_valid_words())
def test_near_valid_words_decode_canonically_or_raise_decode_error(words):
    try:
        inst = decode(words, 0)
    except DecodeError as err:
        assert err.pc == 0
        return
    assert encode(inst) == list(words[: inst.words])


@FAST
@given(st.lists(st.integers(0, (1 << 64) - 1), max_size=8))
@example([273_187_086_026_614_656, 0])  # a VCONV whose round= field is 7, past the six modes (found by this test)
def test_decode_program_raises_only_decode_error(words):
    with contextlib.suppress(DecodeError):
        decode_program(words)


@FAST
@given(st.binary(max_size=200))
def test_random_bytes_raise_only_vbin_error(blob):
    with contextlib.suppress(VbinError):
        from_bytes(blob)


def _with_header(body: bytes, nwords: int, nrecords: int, data_size: int, *, version=1, flags=0,
                 reserved=0, crc=None) -> bytes:
    crc = zlib.crc32(body) if crc is None else crc
    return struct.pack("<8sHHIIIII", b"VCOREBIN", version, flags, nwords, nrecords, data_size, crc, reserved) + body


@FAST
@given(st.binary(max_size=120), st.integers(0, 20), st.integers(0, 8))
def test_random_body_with_a_valid_header_raises_only_vbin_error(body, nwords, nrecords):
    """A correct magic, version and checksum around random bytes: records are parsed for real."""
    data_size = max(0, len(body) - 8 * nwords)
    blob = _with_header(body, nwords, nrecords, data_size)
    try:
        program = from_bytes(blob)
    except VbinError:
        return
    with contextlib.suppress(DecodeError):
        decode_program(program.words)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(S.programs(max_insts=4, max_records=2), st.data())
def test_mutated_vbin_raises_only_vbin_error(program, data):
    blob = bytearray(to_bytes(program))
    how = data.draw(st.sampled_from(["flip", "truncate", "append", "flip-and-fix-crc"]))
    if how == "truncate":
        blob = blob[: data.draw(st.integers(0, len(blob) - 1))]
    elif how == "append":
        blob += data.draw(st.binary(min_size=1, max_size=16))
    else:
        at = data.draw(st.integers(0, len(blob) - 1))
        blob[at] ^= data.draw(st.integers(1, 255))
        if how == "flip-and-fix-crc" and len(blob) >= 32:
            blob[24:28] = struct.pack("<I", zlib.crc32(bytes(blob[32:])))
    try:
        loaded = from_bytes(bytes(blob))
    except VbinError:
        return
    with contextlib.suppress(DecodeError):
        decode_program(loaded.words)


_RECORD = struct.Struct("<BBBBII")
MALFORMED = {
    "empty": b"",
    "short-magic": b"VCORE",
    "magic-only": b"VCOREBIN",
    "text": b"hello world, this is not a vcore binary at all...",
    "version-2": _with_header(b"", 0, 0, 0, version=2),
    "flags-set": _with_header(b"", 0, 0, 0, flags=1),
    "reserved-set": _with_header(b"", 0, 0, 0, reserved=1),
    "bad-crc": _with_header(b"", 0, 0, 0, crc=1),
    "truncated-words": _with_header(b"\0" * 8, 1, 0, 0)[:-1],
    "trailing-byte": _with_header(b"\0" * 8, 0, 0, 0) + b"x",
    "record-mask-type": _with_header(_RECORD.pack(0, 0, 12, 0, 0, 1) + b"\1" + b"\0" * 7, 0, 1, 20),
    "record-bad-space": _with_header(_RECORD.pack(2, 0, 5, 0, 0, 1) + b"\1" + b"\0" * 7, 0, 1, 20),
    "record-bad-kind": _with_header(_RECORD.pack(0, 2, 5, 0, 0, 1) + b"\1" + b"\0" * 7, 0, 1, 20),
    "record-unknown-type": _with_header(_RECORD.pack(0, 0, 16, 0, 0, 1) + b"\1" + b"\0" * 7, 0, 1, 20),
    "record-nonzero-pad": _with_header(_RECORD.pack(0, 0, 5, 0, 0, 1) + b"\1" + b"\0" * 6 + b"\1", 0, 1, 20),
    "record-count-0": _with_header(_RECORD.pack(0, 0, 5, 0, 0, 0), 0, 1, 12),
    "record-zero-byte-set": _with_header(_RECORD.pack(0, 0, 5, 1, 0, 1) + b"\1" + b"\0" * 7, 0, 1, 20),
    "record-past-end": _with_header(_RECORD.pack(0, 0, 5, 0, 0, 9) + b"\1" + b"\0" * 7, 0, 1, 20),
    "records-miscounted": _with_header(_RECORD.pack(0, 0, 5, 0, 0, 1) + b"\1" + b"\0" * 7, 0, 2, 20),
    "data-size-too-big": _with_header(_RECORD.pack(0, 0, 5, 0, 0, 1) + b"\1" + b"\0" * 15, 0, 1, 28),
}


@pytest.mark.parametrize("blob", list(MALFORMED.values()), ids=list(MALFORMED))
def test_malformed_containers_are_refused(blob):
    with pytest.raises(VbinError):
        from_bytes(blob)


def test_decoder_rejects_reserved_bits():
    """docs/encoding.md: every bit outside the row's fields must be zero."""
    with pytest.raises(DecodeError):
        decode([0x55 | 1 << 8])  # NOP with bit 8 set
    with pytest.raises(DecodeError):
        decode([0x464 | 1 << 11])  # BARRIER ALL with a bit above the pipe field
    with pytest.raises(DecodeError):
        decode([0x564])  # BARRIER pipe code 5 does not exist
    with pytest.raises(DecodeError):
        decode([0x20 | 1 << 8 | 3 << 52])  # VLD blk bits set but its presence bit (60) clear
    with pytest.raises(DecodeError):
        decode([0x110, 0x4101010020202020, 0, 0])  # bit mask of (0, 0)
    with pytest.raises(DecodeError):
        decode([0x310, 0x4101010020202020, 0, 1])  # f32 bit mask with HIGH != 0
    with pytest.raises(DecodeError):
        decode([0x110, 0x2101010020202020, 129, 0])  # mask=129 for f16
    with pytest.raises(DecodeError):
        decode([0x110])  # text ends inside a two-word instruction
    with pytest.raises(DecodeError):
        decode([0x110, 0x2101010020202020, 5])  # text ends inside the mask words
    with pytest.raises(DecodeError):
        decode([0xFF])  # unknown opcode


# -- non-canonical values: each was a bug once; these keep them fixed ---------------------------

def test_count_mode_words_with_a_repeat_reassemble_or_are_refused():
    """count= excludes repeat= in the language, so words with both must not decode to unassemblable text."""
    # VADD.f16 [0], [0], [0] with repeat=5 (5 << 69) and mask mode 3 (3 << 125), count word 10.
    words = [0x110, 0x61010100202020A0, 10, 0]
    try:
        decode(words)
    except DecodeError:
        return  # refusing the non-canonical words is one correct answer
    _assert_same_bytes(Program(words=tuple(words)))  # re-assembling them is the other


@pytest.mark.parametrize("record", [
    DataRecord("ub", "fill", "f32", 0, (1 << 32) - 1, b"\0\0\0\0"),
    DataRecord("gm", "list", "u8", 0xFFFFFFFF, 2, b"\1\2"),
])
def test_records_past_4gib_are_refused_or_reassemble(record):
    blob = to_bytes(Program(words=(), data=(record,)))
    try:
        program = from_bytes(blob)
    except VbinError:
        return
    _assert_same_bytes(program)


@pytest.mark.parametrize("case", ["register-with-imm", "explicit-all-mask", "mask-on-unmasked-row", "mask-on-nop"])
def test_problems_accepts_only_what_round_trips(case):
    if case == "register-with-imm":
        inst = Inst(_row("MOV", "scalar-mov"), None, (1, RegOrImm(3, 7)), ())
    elif case == "explicit-all-mask":
        inst = Inst(_row("VADD", "tensor-binary"), TYPES["f16"], (UbRef(None, 0),) * 3, (1, 1, 1, 1, 8, 8, 8),
                    Mask(MaskMode.ALL))
    elif case == "mask-on-unmasked-row":
        inst = Inst(_row("VLD", "reg-load"), TYPES["f16"], (0, UbRef(1, 0)), (0, None, 0),
                    Mask(MaskMode.CONTINUOUS, 3))
    else:  # problems() itself crashes (AssertionError) on a mask for an untyped row
        inst = Inst(_row("NOP", "none"), None, (), (), Mask(MaskMode.CONTINUOUS, 3))
    if not problems(inst):
        assert decode(encode(inst)) == inst
