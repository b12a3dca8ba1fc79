"""How a vector instruction reads a scalar register as its SCALAR operand (issue 28, item 6, as
docs/isa.md and docs/language.md say it): Sn's low bits, as many as the element type T has, are
the element's bit pattern; the upper bits are ignored and the integer is never converted. The same
in tensor and register forms. An immediate is a number, rounded to T. Expected values from the
bit patterns by struct, by hand."""

from __future__ import annotations

import struct

import pytest

import vcore


def f32_of(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def f16_of(bits: int) -> float:
    return struct.unpack("<e", struct.pack("<H", bits))[0]


def bf16_of(bits: int) -> float:
    return f32_of(bits << 16)


def run(text: str, type_name: str, count: int = 2) -> list:
    m = vcore.load_text(text)
    r = m.run()
    assert r.fault is None, r.fault
    return m.read("ub", 0x1000, type_name, count).tolist()


def tensor(mnemonic: str, t: str, s: int, fill: str = "") -> str:
    src = "[0x0], " if mnemonic != "VDUP" else ""
    return f"{fill}    MOV S1, {s}\n    {mnemonic}.{t} [0x1000], {src}S1, count=2\n    HALT\n"


def register(mnemonic: str, t: str, s: int, fill: str = "") -> str:
    width = {"f32": "b32", "f16": "b16", "bf16": "b16", "s16": "b16"}[t]
    src = "V1, " if mnemonic != "VDUP" else ""
    return (f"{fill}    MOV S1, {s}\n    VF.BEGIN\n    PSET.{width} P0, ALL\n    VLD.{t} V1, [0x0]\n"
            f"    {mnemonic}.{t} V0, {src}S1, P0\n    VST.{t} [0x1000], V0, P0\n    VF.END\n    HALT\n")


@pytest.mark.parametrize("form", [tensor, register])
@pytest.mark.parametrize(("t", "s", "expected"), [
    ("f32", 0x3FC00000, f32_of(0x3FC00000)),                  # 1.5
    ("f32", 0x12345678_3FC00000, f32_of(0x3FC00000)),         # the upper 32 bits are ignored
    ("f32", 2, f32_of(2)),                                    # the f32 whose bits are 2, not 2.0
    ("f32", -1071644672, f32_of(0xC0200000)),                 # LD.s32's sign-extended -2.5: same low bits
    ("f16", 0x3E00, f16_of(0x3E00)),                          # 1.5
    ("f16", 0x3FC00000, f16_of(0x0000)),                      # an f32's bits: its low 16 bits, 0.0
    ("bf16", 0x3FC0, bf16_of(0x3FC0)),                        # 1.5
    ("s16", 0x10005, 5),                                      # integers: the low 16 bits too
    ("s16", -3, -3),
])
def test_vdup_of_sn_is_its_low_bits(form, t, s, expected):
    assert run(form("VDUP", t, s), t) == [expected, expected]


@pytest.mark.parametrize("form", [tensor, register])
def test_vmaxs_and_vadds_read_sn_the_same_way(form):
    below = ".ubfill 0x0, f32, 64, -1.0\n"
    assert run(form("VMAXS", "f32", 0x3E800000, below), "f32") == [0.25, 0.25]
    ones = ".ubfill 0x0, f16, 128, 1.0\n"
    assert run(form("VADDS", "f16", 0x3E00, ones), "f16") == [2.5, 2.5]


def test_an_immediate_is_a_number_rounded_to_t():
    assert run("    VDUP.f32 [0x1000], 2, count=2\n    HALT\n", "f32") == [2.0, 2.0]
    assert run("    VDUP.f16 [0x1000], 0.1, count=2\n    HALT\n", "f16") == [f16_of(0x2E66)] * 2
