"""Fuzz the binary readers: instruction words into ``isa.decode``, bytes into the ``.vbin`` reader.

Only ``DecodeError`` (words) and ``VbinError`` (files) may come out; anything else is a bug. What
is accepted must be canonical: decoded words encode back to themselves (and re-assemble, placed in
the smallest program that holds them: ``strategies.in_context``), and a ``.vbin`` that loads and
decodes disassembles to text that assembles back to the identical bytes (contract section 4), and
runs (briefly) with nothing but a ``Fault``. Words that decode but break the vector-function rules
(CONTRACT section 7, read by ``strategies.function_problems``: a register instruction outside a
function, unmatched loops, a branch into a function...) are refused alike by the assembler (their
disassembly is an ``AsmError``) and by the emulator (``ProgramError`` before the run, on both
profiles), never a traceback; sequences of words rich in functions and their structure rows test
that.

tests/isa/test_roundtrip.py already throws plain random words and bytes at the readers; these go
further: words near valid encodings (bit flips of real instructions, mask words with every mode),
decoding at any index of a longer text, headers with every field drawn, records built field by
field, and mutations (flip, insert, delete, truncate, splice, header fields) of the real programs in
programs/*.asm, with the CRC (and half the time the section sizes) recomputed so that the record
parser and the decoder behind it are reached.
"""

from __future__ import annotations

import struct
import zlib

import fuzz_support as F
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from vcore import isa
from vcore.assembler import AsmError, assemble, disassemble
from vcore.emulator import Fault, Machine, ProgramError
from vcore.isa import DecodeError, Inst, decode, decode_program, encode
from vcore.isa.only_950 import needs_950
from vcore.isa.program import HEADER, MAGIC, RECORD, Program, VbinError, from_bytes, to_bytes

S = F.load_strategies()

# isa.values.bits_value casts NaN bit patterns through numpy, which warns; the values are still right.
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")

U64 = (1 << 64) - 1
OPCODES = sorted(isa.BY_OPCODE)


def _unexpected(exc: BaseException) -> None:
    """Re-raise ``exc`` unless it is a known, recorded bug."""
    if F.known_bug(exc) is None:
        raise exc


# -- words --------------------------------------------------------------------------------------

def _word() -> st.SearchStrategy[int]:
    """A 64-bit word: anything, or a valid opcode with random or sparse bits above it."""
    sparse = st.lists(st.integers(0, 63), max_size=8).map(lambda bits: sum(1 << b for b in set(bits)))
    with_opcode = st.tuples(st.sampled_from(OPCODES), st.one_of(st.integers(0, U64), sparse)).map(
        lambda t: (t[1] & ~0xFF) | t[0])
    return st.one_of(st.integers(0, U64), S.edgy_int(0, U64), sparse, with_opcode)


def _check_decoded(words, index: int, inst) -> None:
    """Accepted words are canonical: they encode back to themselves and their text re-assembles in
    its context (a LOOP with a negative count is canonical words the assembler refuses)."""
    assert encode(inst) == [int(w) for w in words[index:index + inst.words]]
    placed = S.in_context(inst)
    if S.function_problems(decode_program(placed.words)):
        with pytest.raises(AsmError, match="a loop runs 0 or more times"):
            assemble(placed.text, "decoded.asm")
        return
    try:
        again = assemble(placed.text, "decoded.asm")
    except Exception as exc:
        _unexpected(exc)
        return
    assert again.words == placed.words, placed.text
    assert list(placed.own_words(again.words)) == encode(inst), placed.text


def _decode_everything(words, index: int) -> None:
    try:
        inst = decode(words, index)
    except DecodeError as err:
        assert err.pc == index * 8 or err.pc > index * 8
        assert str(err)
    except Exception as exc:
        _unexpected(exc)
    else:
        _check_decoded(words, index, inst)
    try:
        decode_program(words)
    except DecodeError:
        pass
    except Exception as exc:
        _unexpected(exc)


@F.fuzz(300)
@given(st.lists(_word(), min_size=1, max_size=10), st.data())
@example([0x55 | 1 << 63], None)
@example([0x110, 0, 0, 0], None)
def test_fuzz_decode_random_words_at_any_index(words, data):
    F.tried("decode: random words")
    index = 0 if data is None else data.draw(st.integers(0, len(words)))
    _decode_everything(words, index)


@st.composite
def _mutated_instruction_words(draw):
    """The words of a valid instruction (with neighbours), then 1-3 mutations: bit flips, a random or
    edge word, a dropped or added word."""
    inst = draw(S.insts())
    words = list(encode(inst))
    before = draw(st.lists(_word(), max_size=2))
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["flip", "flip", "flip", "word", "drop", "add", "opcode"]))
        k = draw(st.integers(0, len(words) - 1))
        if how == "flip":
            for bit in draw(st.lists(st.integers(0, 63), min_size=1, max_size=3)):
                words[k] ^= 1 << bit
        elif how == "word":
            words[k] = draw(S.edgy_int(0, U64))
        elif how == "drop" and len(words) > 1:
            del words[k]
        elif how == "add":
            words.insert(k, draw(_word()))
        elif how == "opcode":
            words[0] = (words[0] & ~0xFF) | draw(st.sampled_from(OPCODES))
    return before + words, len(before)


@F.fuzz(300)
@given(_mutated_instruction_words())
def test_fuzz_decode_mutated_instructions(case):
    F.tried("decode: mutated valid instructions")
    words, index = case
    _decode_everything(words, index)


# -- .vbin files --------------------------------------------------------------------------------

def _set_crc(blob: bytearray) -> None:
    if len(blob) >= HEADER.size:
        blob[24:28] = struct.pack("<I", zlib.crc32(bytes(blob[HEADER.size:])))


def _set_sizes(blob: bytearray) -> None:
    """Make the header's data-section size agree with the file's length (keeping nwords)."""
    if len(blob) >= HEADER.size:
        nwords = struct.unpack_from("<I", blob, 12)[0]
        data_size = len(blob) - HEADER.size - 8 * nwords
        if 0 <= data_size < 1 << 32:
            blob[20:24] = struct.pack("<I", data_size)


@st.composite
def _record(draw) -> bytes:
    """One data record, each field drawn near or at its legal values."""
    space = draw(st.sampled_from([0, 0, 1, 1, 2, 255]))
    kind = draw(st.sampled_from([0, 0, 1, 1, 2]))
    code = draw(st.integers(0, 15))
    zero = draw(st.sampled_from([0, 0, 0, 1]))
    addr = draw(st.one_of(S.edgy_int(0, 0x40000), S.edgy_int(0, (1 << 32) - 1)))
    count = draw(st.one_of(S.edgy_int(0, 64), S.edgy_int(0, (1 << 32) - 1)))
    size = {1: 2, 2: 2, 3: 4, 6: 2, 7: 2, 8: 4, 9: 4, 13: 2, 14: 4}.get(code, 1)
    wanted = size * (min(count, 64) if kind == 0 else 1)
    payload_len = draw(st.one_of(st.just(wanted), st.integers(0, 80)))
    payload = draw(st.binary(min_size=payload_len, max_size=payload_len))
    pad = -len(payload) % 8
    padding = draw(st.one_of(st.just(b"\0" * pad), st.binary(max_size=9)))
    return RECORD.pack(space, kind, code, zero, addr, count) + payload + padding


@st.composite
def _crafted_vbin(draw) -> bytes:
    """A header with every field drawn (mostly plausible), words, records, CRC fixed or not."""
    words = draw(st.lists(_word(), max_size=6))
    records = draw(st.lists(_record(), max_size=4))
    body = struct.pack(f"<{len(words)}Q", *words) + b"".join(records) + draw(st.binary(max_size=4))
    magic = draw(st.sampled_from([MAGIC, MAGIC, MAGIC, b"VCOREBIM", b"\0" * 8]))
    version = draw(st.sampled_from([1, 1, 1, 0, 2, 0xFFFF]))
    flags = draw(st.sampled_from([0, 0, 0, 1, 0x8000]))
    nwords = draw(st.one_of(st.just(len(words)), S.edgy_int(0, (1 << 32) - 1)))
    nrecords = draw(st.one_of(st.just(len(records)), S.edgy_int(0, (1 << 32) - 1)))
    data_size = draw(st.one_of(st.just(max(0, len(body) - 8 * len(words))), S.edgy_int(0, (1 << 32) - 1)))
    crc = draw(st.one_of(st.just(zlib.crc32(body)), st.integers(0, (1 << 32) - 1)))
    reserved = draw(st.sampled_from([0, 0, 0, 1]))
    blob = HEADER.pack(magic, version, flags, nwords, nrecords, data_size, crc, reserved) + body
    return blob[:draw(st.sampled_from([len(blob), len(blob), len(blob), draw(st.integers(0, len(blob)))]))]


def _check_loaded(blob: bytes) -> None:
    """Read a blob; if it loads and decodes, it must disassemble back to itself and run with at most
    a Fault."""
    try:
        program = from_bytes(blob, "fuzz.vbin")
    except VbinError as err:
        assert str(err)
        return
    except Exception as exc:
        _unexpected(exc)
        return
    try:
        decoded = decode_program(program.words)
    except DecodeError:
        return
    except Exception as exc:
        _unexpected(exc)
        return
    try:
        text = disassemble(program)
    except Exception as exc:
        _unexpected(exc)
        return
    broken = S.function_problems(decoded)
    if broken:
        _check_refused(program, text, broken)
        return
    try:
        again = to_bytes(assemble(text, "fuzz.asm"))
    except Exception as exc:
        _unexpected(exc)
        return
    assert again == blob, text
    _run_briefly(program, decoded)


def _check_refused(program: Program, text: str, broken: list) -> None:
    """Words that break the vector-function rules: the assembler refuses their disassembly, and the
    emulator refuses them before the run on either profile (the CLI's exit status 2)."""
    F.went("refused: they break the vector-function rules")
    try:
        assemble(text, "fuzz.asm")
    except AsmError:
        pass
    except Exception as exc:
        _unexpected(exc)
    else:
        raise AssertionError(f"the assembler accepted a program that breaks section 7 at {broken}:\n{text}")
    for profile in ("950", "a2"):
        try:
            Machine(program, profile)
        except ProgramError as err:
            assert str(err).startswith(f"{program.filename}: error: "), str(err)
            continue
        except Exception as exc:
            _unexpected(exc)
            continue
        _unexpected(F.accepted(broken, f"the {profile} profile"))


def _run_briefly(program: Program, decoded) -> None:
    profile = "a2" if len(program.words) % 2 else "950"
    if profile == "950" and F.set_aside_runaway(decoded):
        return
    try:
        machine = Machine(program, profile)
    except Fault:
        return  # data past the end of a memory: a user error the CLI reports (exit 1)
    except ProgramError as err:
        # only a2 refuses a valid program: it has no vector functions, nor the 950's own conversions and other
        # instructions (exit 2)
        assert profile == "a2", str(err)
        assert any(inst.row.register or inst.row.structure or needs_950(inst, "a2", "a2") is not None
                   for _, inst in decoded), str(err)
        return
    except Exception as exc:
        _unexpected(exc)
        return
    try:
        result = machine.run(max_instructions=300, max_cycles=200_000)
    except Exception as exc:
        _unexpected(exc)
        return
    fault = result.fault
    if fault is not None:
        assert fault.kind in ("fault", "limit", "deadlock"), fault.kind
        assert fault.pc is not None, str(fault)


@F.fuzz(300)
@given(st.one_of(st.binary(max_size=300), st.binary(max_size=40).map(lambda b: MAGIC + b), _crafted_vbin()))
def test_fuzz_vbin_random_and_crafted_bytes(blob):
    F.tried("vbin: random and crafted bytes")
    _check_loaded(blob)


@st.composite
def _mutated_program(draw) -> bytes:
    """A real program's .vbin with 1-4 mutations; then the CRC (and section sizes) fixed or not."""
    _, _, base = draw(st.sampled_from(F.valid_programs()))
    blob = bytearray(base)
    for _ in range(draw(st.integers(1, 4))):
        how = draw(st.sampled_from(["flip", "flip", "set", "insert", "delete", "truncate", "splice", "header",
                                    "word", "records"]))
        n = len(blob)
        # Mutations other than "header" and "truncate" hit the body (instructions and records), so
        # that with the CRC fixed the reader gets past the header.
        at = draw(st.integers(min(HEADER.size, n), n))
        if how == "flip" and n:
            at = min(at, n - 1)
            blob[at] ^= 1 << draw(st.integers(0, 7))
        elif how == "set" and n:
            at = min(at, n - 1)
            blob[at] = draw(st.sampled_from([0, 1, 0x7F, 0x80, 0xFF, draw(st.integers(0, 255))]))
        elif how == "insert":
            blob[at:at] = draw(st.binary(min_size=1, max_size=16))
        elif how == "delete":
            del blob[at:at + draw(st.integers(1, 16))]
        elif how == "truncate":
            del blob[draw(st.one_of(st.integers(0, n), st.just(at))):]
        elif how == "splice":
            _, _, other = draw(st.sampled_from(F.valid_programs()))
            start = draw(st.integers(0, len(other)))
            blob[at:at + draw(st.integers(0, 24))] = other[start:start + draw(st.integers(1, 64))]
        elif how == "header" and n >= HEADER.size:
            offset = draw(st.sampled_from([0, 8, 10, 12, 12, 16, 16, 20, 20, 28]))
            width = 2 if offset in (8, 10) else 8 if offset == 0 else 4
            old = int.from_bytes(blob[offset:offset + width], "little")
            new = draw(st.one_of(st.integers(max(0, old - 3), old + 3), S.edgy_int(0, (1 << (8 * width)) - 1)))
            blob[offset:offset + width] = (new % (1 << (8 * width))).to_bytes(width, "little")
        elif how == "word" and n >= HEADER.size + 8:
            k = draw(st.integers(0, (n - HEADER.size) // 8 - 1))
            blob[HEADER.size + 8 * k:HEADER.size + 8 * k + 8] = struct.pack("<Q", draw(_word()))
        elif how == "records" and n >= HEADER.size:
            blob += draw(_record())
            nrecords = struct.unpack_from("<I", blob, 16)[0]
            blob[16:20] = struct.pack("<I", (nrecords + 1) % (1 << 32))
    if draw(st.booleans()):  # half of the cases: a correct CRC, mostly with section sizes to match
        if draw(st.integers(0, 3)):
            _set_sizes(blob)
        _set_crc(blob)
    return bytes(blob)


@F.fuzz(300)
@given(_mutated_program())
def test_fuzz_vbin_mutated_real_programs(blob):
    F.tried("vbin: mutated programs/*.asm")
    _check_loaded(blob)


# -- words rich in vector functions: valid programs, near misses and soup -------------------------------

_STRUCTURE_ROWS = tuple(r for r in isa.TABLE if r.structure)
_REGISTER_ROWS = tuple(r for r in isa.TABLE if r.register)
_OTHER_ROWS = tuple(r for r in isa.TABLE if not r.structure and not r.register)


@st.composite
def _any_loop(draw):
    """LOOP with any count the words can hold: a register, or a 33-bit immediate (negative too)."""
    count = draw(st.one_of(st.builds(isa.RegOrImm, S.edgy_int(0, 31)),
                           st.builds(isa.RegOrImm, st.none(), S.edgy_int(-(1 << 32), (1 << 32) - 1))))
    return S.loop(count)


@st.composite
def _function_words(draw) -> Program:
    """A program (no data) whose words are mostly about functions: a valid program (S.programs) as
    is or with 1-3 instruction-level mutations (drop, duplicate, swap, insert a structure, register
    or other row, retarget a branch anywhere), or a soup of such instructions."""
    targets = st.integers(0, 24).map(lambda n: 8 * n)
    one = st.one_of(st.sampled_from(_STRUCTURE_ROWS).flatmap(S.inst_of_row), _any_loop(),
                    st.sampled_from(_REGISTER_ROWS).flatmap(S.inst_of_row),
                    st.sampled_from(_OTHER_ROWS).flatmap(lambda r: S.inst_of_row(r, targets))).filter(S.valid)
    if draw(st.integers(0, 3)) == 0:
        insts = draw(st.lists(one, max_size=14))
    else:
        insts = [inst for _, inst in decode_program(draw(S.programs(max_insts=6, max_records=0)).words)]
        for _ in range(draw(st.integers(0, 3))):
            how = draw(st.sampled_from(["drop", "double", "swap", "insert", "retarget"]))
            k = draw(st.integers(0, max(0, len(insts) - 1)))
            if how == "insert" or not insts:
                insts.insert(draw(st.integers(0, len(insts))), draw(one))
            elif how == "drop":
                del insts[k]
            elif how == "double":
                insts.insert(k, insts[k])
            elif how == "swap":
                j = draw(st.integers(0, len(insts) - 1))
                insts[k], insts[j] = insts[j], insts[k]
            else:
                branches = [i for i, inst in enumerate(insts) if inst.row.operands
                            and inst.row.operands[-1].kind is isa.Kind.TARGET]
                if branches:
                    b = draw(st.sampled_from(branches))
                    insts[b] = Inst(insts[b].row, None, (*insts[b].operands[:-1], draw(targets)), ())
    return Program(words=tuple(w for inst in insts for w in encode(inst)))


@F.fuzz(300)
@given(_function_words())
@example(Program(words=(0x120,)))  # VLD.f16 V0, [0x0] alone: refused, a register instruction outside
@example(Program(words=(0x70, 0x72, 0x71)))  # LOOP 0 without its ENDLOOP
@example(Program(words=(0x70, 0x000001FFFFFFFF72, 0x73, 0x71)))  # LOOP -1
@example(Program(words=(0x1054, 0x70, 0x74, 0x71)))  # JMP 0x10, into the function
def test_fuzz_vbin_vector_functions(program):
    F.tried("vbin: words rich in vector functions")
    _check_loaded(to_bytes(program))


def test_every_real_program_loads_and_reassembles():
    """The seeds of the mutation fuzzer are themselves valid (else it would only test the magic)."""
    assert len(F.valid_programs()) >= 10
    for name, program, blob in F.valid_programs():
        assert from_bytes(blob).words == program.words, name
        _check_loaded(blob)
