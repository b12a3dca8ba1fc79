"""Bit-mode mask words written as negative numbers, and how float data disassembles."""

from vcore.assembler import assemble, disassemble
from vcore.isa import decode
from vcore.isa.program import to_bytes


def test_negative_mask_words_are_their_twos_complement():
    # ~0 evaluates to -1: as a 64-bit mask word it is all ones (every lane), like 0xffffffffffffffff.
    a = assemble("VADD.f16 [0x0], [0x0], [0x0], mask=(~0, ~0)\n")
    b = assemble("VADD.f16 [0x0], [0x0], [0x0], mask=(0xffffffffffffffff, 0xffffffffffffffff)\n")
    assert to_bytes(a) == to_bytes(b)
    mask = decode(list(a.words)).mask
    assert (mask.low, mask.high) == ((1 << 64) - 1, (1 << 64) - 1)


def test_short_exact_floats_disassemble_as_written():
    program = assemble(".ub 0x0, f16, 65504.0, 0.5, 0.1\n.ub 0x40, e4m3, 448.0\n")
    text = disassemble(program)
    assert ".ub 0x0, f16, 65504.0, 0.5, 0.1" in text  # 0.1 is not exact in f16: its shortest form
    assert ".ub 0x40, e4m3, 448.0" in text
    assert to_bytes(assemble(text)) == to_bytes(program)
