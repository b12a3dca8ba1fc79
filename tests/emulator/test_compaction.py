"""Compaction (CONTRACT 13.4): the tensor GatherMask VGATHERM and its count RSVDCNT, the register
Squeeze VSQZ and the AR register (CLRAR, ``MOV Sd, AR``), and the race space ``spr`` (13.10). Every
expected value is the contract's (its pattern table, its addressing rule, its Squeeze example) worked
out by hand here, never read from the code under test.
"""

from __future__ import annotations

import numpy as np
import pytest

import vcore
from vcore import AsmError, ProgramError

V_TO_S = "SETFLAG V, S, 0\nWAITFLAG V, S, 0\n"
SENTINEL = 0xBEEF

# 13.4's table, read directly: which elements of an iteration each fixed pattern keeps
PATTERN_KEEPS = {1: lambda i: i % 2 == 0, 2: lambda i: i % 2 == 1, 3: lambda i: i % 4 == 0,
                 4: lambda i: i % 4 == 1, 5: lambda i: i % 4 == 2, 6: lambda i: i % 4 == 3, 7: lambda i: True}


def run(text: str, profile: str = "950", setup=None):
    m = vcore.load_text(text, profile=profile)
    if setup is not None:
        setup(m)
    result = m.run()
    return m, result


def s(result, n: int) -> int:
    return result.scalars[f"S{n}"]


@pytest.mark.parametrize("pattern", range(1, 8))
@pytest.mark.parametrize("profile", ["950", "a2"])
def test_fixed_patterns_keep_the_contracts_elements_densely(pattern, profile):
    """u16 (128 lanes), two iterations (srcrep 8: contiguous): the kept elements of iteration 0 then of
    iteration 1, from dst; RSVDCNT their number; the bytes after them unchanged."""
    text = f"VGATHERM.u16 [0x1000], [0x0], {pattern}, repeat=2\n{V_TO_S}MOV S1, RSVDCNT\nHALT\n"

    def setup(m):
        m.write("ub", 0x0, np.arange(256), "u16")
        m.write("ub", 0x1000, [SENTINEL] * 300, "u16")

    m, result = run(text, profile, setup)
    assert result.fault is None and not result.races
    want = [r * 128 + i for r in range(2) for i in range(128) if PATTERN_KEEPS[pattern](i)]
    assert m.read("ub", 0x1000, "u16", len(want)).tolist() == want
    assert m.read("ub", 0x1000 + 2 * len(want), "u16", 300 - len(want)).tolist() == [SENTINEL] * (300 - len(want))
    assert s(result, 1) == len(want) == {1: 128, 2: 128, 7: 256}.get(pattern, 64)


def test_mask_counts_the_elements_an_iteration_considers_and_strides_address_them():
    """f32 (8 elements a datablock), mask=12, srcblk=2, srcrep=16, repeat=2, pattern 7: iteration r's
    element i is at src0 + (r * 16 + (i / 8) * 2) * 32 + (i % 8) * 4 (13.4, section 2.1)."""
    text = f"VGATHERM.f32 [0x2000], [0x0], 7, repeat=2, srcblk=2, srcrep=16, mask=12\n{V_TO_S}MOV S1, RSVDCNT\n"
    m, result = run(text, setup=lambda m: m.write("ub", 0x0, np.arange(2048, dtype=np.float32), "f32"))
    want = [float(r * 128 + (i // 8) * 16 + i % 8) for r in range(2) for i in range(12)]
    assert m.read("ub", 0x2000, "f32", 24).tolist() == want
    assert want[:12] == [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19]  # (the hand reading of the rule)
    assert s(result, 1) == 24


def test_pattern_bits_from_ub_with_src1rep():
    """[src1] form, u32 (64 lanes, 8 pattern bytes an iteration), mask=16, src1rep=1: bit i of iteration r
    is bit i % 8 of byte src1 + r * 32 + i / 8."""
    text = (f"VGATHERM.u32 [0x2000], [0x0], [0x1000], repeat=2, mask=16, src1rep=1\n{V_TO_S}"
            "MOV S1, RSVDCNT\n")

    def setup(m):
        m.write("ub", 0x0, np.arange(128) + 1000, "u32")
        m.write("ub", 0x1000, [0b10100101, 0b00000011, 0xFF, 0xFF], "u8")  # bits 16.. lie past mask=16
        m.write("ub", 0x1020, [0b10000000, 0b10000000], "u8")

    m, result = run(text, setup=setup)
    assert result.fault is None and not result.races
    want = [1000 + i for i in (0, 2, 5, 7, 8, 9)] + [1000 + 64 + i for i in (7, 15)]
    assert m.read("ub", 0x2000, "u32", 8).tolist() == want
    assert s(result, 1) == 8


def test_src1rep_zero_reads_one_pattern_every_iteration():
    text = f"VGATHERM.s16 [0x2000], [0x0], [0x1000], repeat=3\n{V_TO_S}MOV S1, RSVDCNT\n"

    def setup(m):
        m.write("ub", 0x0, np.arange(384), "s16")
        m.write("ub", 0x1000, [0b00010001] + [0] * 15, "u8")  # elements 0 and 4 of each iteration

    m, result = run(text, setup=setup)
    assert m.read("ub", 0x2000, "s16", 6).tolist() == [0, 4, 128, 132, 256, 260]
    assert s(result, 1) == 6


def test_s8_gathers_on_the_950_and_the_a2_refuses_it():
    text = f"VGATHERM.s8 [0x1000], [0x0], 6\n{V_TO_S}MOV S1, RSVDCNT\n"
    m, result = run(text, setup=lambda m: m.write("ub", 0x0, np.arange(-128, 128), "s8"))
    assert m.read("ub", 0x1000, "s8", 64).tolist() == list(range(-128 + 3, 128, 4))
    assert s(result, 1) == 64
    with pytest.raises(ProgramError, match=r"error: VGATHERM.s8 needs the 950 profile \(a2 has no 8-bit GatherMask\)"):
        vcore.load_text(text, profile="a2")


def test_in_place_gathers_and_other_overlap_faults():
    """dst == src0 gathers in place (the documented example); any other overlap is a fault [vcore]."""
    m, result = run(f"VGATHERM.u16 [0x0], [0x0], 2\n{V_TO_S}MOV S1, RSVDCNT\n",
                    setup=lambda m: m.write("ub", 0x0, np.arange(128), "u16"))
    assert result.fault is None
    assert m.read("ub", 0x0, "u16", 64).tolist() == list(range(1, 128, 2))
    _, result = run("VGATHERM.u16 [0x20], [0x0], 7\n")
    assert result.fault.message.startswith("VGATHERM: dst overlaps src0 other than exactly\n")
    _, result = run("VGATHERM.u16 [0x1000], [0x0], [0x1000]\n", setup=lambda m: m.write("ub", 0x1000, [1] * 16, "u8"))
    assert result.fault.message.startswith("VGATHERM: dst overlaps src1\n")


def test_repeat_zero_is_a_no_operation_that_sets_rsvdcnt_to_zero():
    text = (f"VGATHERM.u16 [0x1000], [0x0], 7\n{V_TO_S}MOV S1, RSVDCNT\n"
            f"VGATHERM.u16 [0x2000], [0x0], 7, repeat=0\n{V_TO_S}MOV S2, RSVDCNT\n")
    m, result = run(text, setup=lambda m: m.write("ub", 0x2000, [7] * 4, "u16"))
    assert (s(result, 1), s(result, 2)) == (128, 0)
    assert m.read("ub", 0x2000, "u16", 4).tolist() == [7] * 4


@pytest.mark.parametrize(("line", "message"), [
    ("VGATHERM.f16 [0x100], [0x0], 1, src1rep=1", "src1rep has no effect with a fixed pattern"),
    ("VGATHERM.f16 [0x100], [0x0], 1, mask=(1, 0)",
     "VGATHERM takes mask=N (elements per iteration), not a bit mask or count="),
    ("VGATHERM.f16 [0x100], [0x0], [0x200], count=40",
     "VGATHERM takes mask=N (elements per iteration), not a bit mask or count="),
    ("VGATHERM.f16 [0x100], [0x0], 8", "pattern 8 out of range 1..7"),
    ("VGATHERM.f32 [0x100], [0x0], 7, mask=65", "mask=65: continuous mask must be 1..64 for f32"),
])
def test_gathermask_assembly_errors(line, message):
    with pytest.raises(AsmError, match="error: " + message.replace("(", r"\(").replace(")", r"\)")
                       .replace(".", r"\.").replace("=", "=")):
        vcore.load_text(line + "\n")


# -- the race space spr (13.10) ---------------------------------------------------------------------

@pytest.mark.parametrize("order", ["", V_TO_S, "BARRIER ALL\n"])
def test_an_unordered_read_of_rsvdcnt_is_a_race(order):
    m, result = run(f"VGATHERM.u16 [0x1000], [0x0], 1, repeat=4\n{order}MOV S1, RSVDCNT\nHALT\n")
    if order:
        assert not result.races and s(result, 1) == 256
        return
    assert [(r.kind, r.space, r.start, r.end) for r in result.races] == [("RAW", "spr", 0, 8)]
    assert s(result, 1) == 0  # the read happens before the count lands: what the timing gives


# -- VSQZ and AR ------------------------------------------------------------------------------------

SQUEEZE_EXAMPLE = """\
MOV S1, 0x0
MOV S2, 0x1000
MOV S9, AR
VF.BEGIN
PSET.b32 P0, M4
PSET.b32 P1, VL16
CLRAR
VLD.f32 V0, [S1], post=64
VLD.f32 V1, [S1], post=64
VLD.f32 V2, [S1], post=64
VLD.f32 V3, [S1], post=64
VSQZ.f32 V4, V0, P0, ar
VSQZ.f32 V5, V1, P0, ar
VSQZ.f32 V6, V2, P0, ar
VSQZ.f32 V7, V3, P0, ar
VST.f32 [S2], V4, P1
VST.f32 [S2 + 64], V5, P1
VST.f32 [S2 + 128], V6, P1
VST.f32 [S2 + 192], V7, P1
VST.f32 [S2 + 256], V4, P0
VF.END
SETFLAG V, S, 0
WAITFLAG V, S, 0
MOV S3, AR
HALT
"""


def test_the_contracts_squeeze_example_gives_64_floats_and_ar_256():
    """13.4: four 64-lane f32 registers squeezed with M4 (lanes 0, 4, 8, ...) into a 64-float output,
    arNum = 256; lanes k..63 of each result are 0."""
    m, result = run(SQUEEZE_EXAMPLE, setup=lambda m: m.write("ub", 0x0, np.arange(256, dtype=np.float32), "f32"))
    assert result.fault is None and not result.races
    assert m.read("ub", 0x1000, "f32", 64).tolist() == [float(4 * i) for i in range(64)]
    # V4 under M4 again: lanes 0, 4, ... of the squeezed register are 0, 16, 32, 48, then zeros
    assert m.read("ub", 0x1100, "f32", 64)[::4].tolist() == [0.0, 16.0, 32.0, 48.0] + [0.0] * 12
    assert (s(result, 9), s(result, 3)) == (0, 256)  # AR starts at 0


@pytest.mark.parametrize("t", ["s8", "u16", "bf16", "e5m2", "u32"])
def test_squeeze_moves_the_active_lanes_of_every_width_in_place(t):
    """VSQZ Vd = Va (13.12: sources read first): the active lanes in increasing order, then zeros."""
    w = {"s8": 1, "u16": 2, "bf16": 2, "e5m2": 1, "u32": 4}[t]
    lanes = 256 // w
    text = f"""\
MOV S1, 0x0
MOV S2, 0x1000
MOV S3, 0x800
VF.BEGIN
PLD P0, [S3]
PSET.b8 P1, ALL
VLD.{t} V0, [S1]
VSQZ.{t} V0, V0, P0
VST.u8 [S2], V0, P1
VF.END
HALT
"""
    data = np.arange(256, dtype=np.uint8)[::-1].copy()
    active = [i for i in range(lanes) if i % 3 == 1 or i == lanes - 1]
    bits = np.zeros(256, dtype=bool)
    bits[[i * w for i in active]] = True  # lane i is active when bit i * w is set (13 conventions)

    def setup(m):
        m.write("ub", 0x0, data)
        m.write("ub", 0x800, np.packbits(bits, bitorder="little"))

    m, result = run(text, setup=setup)
    assert result.fault is None
    want = np.zeros(256, dtype=np.uint8)
    want[:len(active) * w] = data.reshape(lanes, w)[active].reshape(-1)
    assert m.read("ub", 0x1000, "u8", 256).tolist() == want.tolist()


def test_ar_accumulates_across_functions_until_clrar():
    """AR keeps its value between vector functions; CLRAR clears it; VSQZ without ``ar`` leaves it."""
    text = """\
VF.BEGIN
PSET.b16 P0, VL8
VSQZ.u16 V1, V0, P0, ar
VSQZ.u16 V1, V0, P0
VF.END
VF.BEGIN
PSET.b8 P0, H
VSQZ.s8 V1, V0, P0, ar
VF.END
BARRIER ALL
MOV S1, AR
VF.BEGIN
CLRAR
PSET.b32 P0, VL3
VSQZ.f32 V1, V0, P0, ar
VF.END
BARRIER ALL
MOV S2, AR
"""
    _, result = run(text)
    assert result.fault is None and not result.races
    assert (s(result, 1), s(result, 2)) == (8 * 2 + 128, 12)


def test_an_unordered_read_of_ar_is_a_race_and_mov_ar_has_no_place_inside_a_function():
    _, result = run("VF.BEGIN\nPSET.b32 P0, ALL\nVSQZ.f32 V1, V0, P0, ar\nVF.END\nMOV S1, AR\n")
    assert [(r.kind, r.space, r.start, r.end) for r in result.races] == [("RAW", "spr", 32, 40)]
    with pytest.raises(AsmError, match="MOV Sd, AR cannot be inside a vector function"):
        vcore.load_text("VF.BEGIN\nMOV S1, AR\nVF.END\n")
    with pytest.raises(ProgramError, match="MOV Sd, AR needs the 950 profile"):
        vcore.load_text("MOV S1, AR\n", profile="a2")


def test_vgathermask_on_the_950_leaves_ar_alone():
    text = f"""\
VF.BEGIN
PSET.b16 P0, VL4
VSQZ.u16 V1, V0, P0, ar
VF.END
VGATHERM.u16 [0x1000], [0x0], 7
{V_TO_S}MOV S1, AR
MOV S2, RSVDCNT
"""
    _, result = run(text)
    assert (s(result, 1), s(result, 2)) == (8, 128)


def test_each_core_has_its_own_special_registers(tmp_path):
    """Two cores: core c squeezes c + 1 lanes and gathers pattern 1 or 7: its own AR and RSVDCNT."""
    path = tmp_path / "k.asm"
    path.write_text("""\
MOV S1, BLOCKIDX
ADD S2, S1, 1
SHL S4, S1, 4
VF.BEGIN
PUPDATE.b32 P0, S2
VSQZ.f32 V1, V0, P0, ar
VF.END
BEQ S1, 0, even
VGATHERM.u16 [0x1000], [0x0], 7
JMP done
even:
VGATHERM.u16 [0x1000], [0x0], 1
done:
BARRIER ALL
MOV S5, AR
MOV S6, RSVDCNT
ST.s64 gm[S4], S5
ST.s64 gm[S4 + 8], S6
HALT
""")
    kernel = vcore.load_kernel(path, cores=2)
    result = kernel.run()
    assert result.fault is None
    assert kernel.read("gm", 0, "s64", 4).tolist() == [4, 64, 8, 128]


@pytest.mark.parametrize(("writer", "reader", "start"), [
    ("VGATHERM.u16 [0x1000], [0x0], 1", "MOV S1, RSVDCNT", 0),
    ("VF.BEGIN\nPSET.b16 P0, ALL\nVSQZ.u16 V1, V0, P0, ar\nVF.END", "MOV S1, AR", 32),
    ("VMRGSORT.f32 [0x1000], [0x0], [0x18], len=(3, 2)", "MOV S1, MRGCNT3", 70),
])
def test_a_read_the_timing_kept_apart_is_still_a_latent_race(writer, reader, start):
    """Section 12: S reads long after V wrote, with nothing ordering them: a latent race on spr."""
    _, result = run(f"{writer}\nMOV S2, 300\nwait:\nSUB S2, S2, 1\nBNE S2, 0, wait\n{reader}\nHALT\n")
    races = [(r.kind, r.space, r.start, r.latent) for r in result.races]
    assert races == [("RAW", "spr", start, True)]


def test_ar_counts_every_pass_of_a_long_launch():
    """A launch of more items than it keeps at once (9000 passes) lands AR as its last pass left it."""
    _, result = run("VF.BEGIN\nPSET.b32 P0, VL3\nLOOP 9000\nVSQZ.f32 V1, V0, P0, ar\nENDLOOP\nVF.END\n"
                    "BARRIER ALL\nMOV S1, AR\nHALT\n")
    assert s(result, 1) == 9000 * 3 * 4
