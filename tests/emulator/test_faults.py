"""Runtime faults: each run must end with ``r.fault`` set, the message naming the faulting pc and
the source line, and the state that earlier instructions changed must still be there.

Program counters are worked out by hand from the instruction sizes in docs/isa.md: one 64-bit word
for register, mask, scalar, branch, DMA-free and sync instructions and for VF.BEGIN, VF.END, LOOP,
ENDLOOP and MEMBAR; two for tensor binary/unary instructions, three for tensor scalar forms, plus
two when a mask or count is given; DMA two.

Register instructions run inside vector functions (CONTRACT 7). A fault inside one names the inner
instruction (its pc and line) and, inside hardware loops, the iteration of each; it stops the run
there: nothing after the faulting instruction runs (in the function or after its VF.END), and the
function's scalar writes are gone with it. (Whether the function's stores before the fault land is
left open here.)
"""

from __future__ import annotations

import re

import emu_support as E
import numpy as np
import pytest


def assert_fault(r, pc: int, text: str, *words: str) -> str:
    assert r.fault is not None, f"expected a fault at pc 0x{pc:x} ({text})"
    msg = str(r.fault)
    assert re.search(rf"\bpc 0x0*{pc:x}\b", msg, re.IGNORECASE), f"pc 0x{pc:04x} not named in: {msg!r}"
    assert text in msg, f"source line {text!r} not in: {msg!r}"
    for w in words:
        assert w.lower() in msg.lower(), f"{w!r} not in: {msg!r}"
    return msg


# -- alignment --------------------------------------------------------------------------------

@pytest.mark.parametrize("profile", ["950", "a2"])
def test_misaligned_immediate_operand(profile):
    src = """MOV S1, 7
VADDS.f16 [0x100], [0x0], 1.0, count=4
VADD.f16 [0x210], [0x0], [0x0]
MOV S1, 8
"""
    # MOV at 0x0 (1 word), VADDS with count at 0x8 (3 + 2 words), VADD at 0x30
    m, r = E.run_program(src, profile)
    assert_fault(r, 0x30, "VADD.f16 [0x210], [0x0], [0x0]", "align")
    assert m.s[1] == 7                                       # earlier MOV kept, later one not run
    np.testing.assert_array_equal(m.read("ub", 0x100, "f16", 5), [1, 1, 1, 1, 0])
    assert not m.ub[0x200:0x400].any()


@pytest.mark.parametrize("operand", ["[0x0], [0x8]", "[0x30], [0x0]"])
def test_misaligned_immediate_source_operand(operand):
    m, r = E.run_program(f"NOP\nVADD.s32 [0x100], {operand}\n")
    assert_fault(r, 0x8, f"VADD.s32 [0x100], {operand}", "align")


def test_misaligned_register_operand():
    src = """MOV S1, 0x100
VF.BEGIN
PSET.b8 P0, ALL
VLD.f16 V0, [S1], post=8
VLD.f16 V1, [S1]
VST.u8 [0x200], V0, P0
VF.END
MOV S2, 1
"""
    # MOV 0x0, VF.BEGIN 0x8, PSET 0x10, VLD 0x18, VLD 0x20: post=8 halves moves the function's S1
    # by 16 bytes, and 0x110 is not 32-byte aligned
    ub = np.zeros(0x400, dtype=np.uint8)
    ub[0x100:0x200] = np.arange(256, dtype=np.uint8)
    m, r = E.run_program(src, "950", ub=ub)
    assert_fault(r, 0x20, "VLD.f16 V1, [S1]", "align")
    assert m.s[1] == 0x100                  # post= changed the function's copy of S1 only
    assert m.s[2] == 0                      # the run stopped in the function
    assert not m.ub[0x200:0x300].any()      # the store after the fault never ran
    np.testing.assert_array_equal(m.ub[0x100:0x200], np.arange(256, dtype=np.uint8))


def test_a_fault_in_a_hardware_loop_names_the_iteration():
    src = """MOV S1, 0x3fd00
VF.BEGIN
PSET.b32 P0, ALL
LOOP 2
LOOP 4
VLD.f32 V0, [S1], post=64
ENDLOOP
ENDLOOP
VST.f32 [0x0], V0, P0
VF.END
MOV S2, 1
"""
    # MOV 0x0, VF.BEGIN 0x8, PSET 0x10, LOOP 0x18 (line 4), LOOP 0x20 (line 5), VLD 0x28.
    # The VLD reads 0x3fd00, 0x3fe00, 0x3ff00, then 0x40000..0x400ff: past the end of the 950's
    # 256 KiB UB in iteration 4 of the inner loop, iteration 1 of the outer one.
    ub = np.zeros(0x40000, dtype=np.uint8)
    ub[0x3FD00:] = 7
    m, r = E.run_program(src, "950", ub=ub)
    msg = assert_fault(r, 0x28, "VLD.f32 V0, [S1], post=64", "UB")
    assert re.search(r"iteration 1 of 2 of the LOOP at line 4 \(LOOP 2\)", msg), msg
    assert re.search(r"iteration 4 of 4 of the LOOP at line 5 \(LOOP 4\)", msg), msg
    assert msg.index("iteration 1 of 2") < msg.index("iteration 4 of 4"), msg   # outer loop first
    assert m.s[1] == 0x3FD00 and m.s[2] == 0
    assert not m.ub[0x0:0x100].any()        # the store after the loops never ran


def test_misaligned_register_operand_of_tensor_and_gather():
    # MOV 0x0, VF.BEGIN 0x8, the instruction 0x10
    m, r = E.run_program("MOV S3, 0x48\n" + E.vf("VGATHER.f16 V0, [S3], V1, P0"), "950")
    assert_fault(r, 0x10, "VGATHER.f16 V0, [S3], V1, P0", "align")
    m, r = E.run_program("MOV S3, 0x48\n" + E.vf("PST [S3 + 32], P0"), "950")
    assert_fault(r, 0x10, "PST [S3 + 32], P0", "align")


# -- out of range -----------------------------------------------------------------------------

def test_tensor_repeat_runs_off_the_end_of_ub():
    src = """MOV S2, 5
VADDS.f16 [0x3f800], [0x0], 1.0, repeat=9
"""
    # iteration 8 writes 0x40000.. on the 950's 256 KiB UB
    m, r = E.run_program(src, "950")
    assert_fault(r, 0x8, "VADDS.f16 [0x3f800], [0x0], 1.0, repeat=9", "UB")
    assert m.s[2] == 5
    m, r = E.run_program(src.replace("repeat=9", "repeat=8"), "950")
    assert r.fault is None                                   # the last datablock is 0x3ffe0..0x3ffff


def test_tensor_source_block_stride_runs_off_the_end():
    m, r = E.run_program("VADD.f16 [0x0], [0x3ff00], [0x0], src0blk=2\n", "950")
    assert_fault(r, 0x0, "VADD.f16 [0x0], [0x3ff00], [0x0], src0blk=2", "UB")


@pytest.mark.parametrize("line", [
    "VADDS.f32 [0x0], [S1], 1.0",
    "VABS.s16 [S1], [0x0]",
    "DMA.GM2UB [S1], gm[0x0], len=1",
])
def test_a2_ub_is_192_kib(line):
    src = f"MOV S1, 0x30000\nMOV S2, 9\n{line}\n"
    m, r = E.run_program(src, "950")
    assert r.fault is None, r.fault                          # valid on the 950 (256 KiB)
    m, r = E.run_program(src, "a2")
    assert_fault(r, 0x10, line, "UB")
    assert m.s[1] == 0x30000 and m.s[2] == 9


def test_a2_last_datablock_is_fine():
    m, r = E.run_program("MOV S1, 0x2ff00\nVABS.s16 [S1], [S1]\nDMA.UB2GM gm[0x0], [S1], len=8\n", "a2")
    assert r.fault is None, r.fault


@pytest.mark.parametrize("line", [
    "VLD.f16 V0, [S1]",
    "VLD.s32 V0, [S4], blk=5",
    "VST.u8 [S1], V3, P0",
    "VST.f32 [S4], V3, P0, blk=5",
    "PST [S1 + 32], P0",
])
def test_vld_vst_past_the_end_of_ub(line):
    # S1 = 0x3ffe0: 256 bytes from there end past 0x40000; S4 = 0x3fe00 with blk=5 reaches
    # 0x3fe00 + 7*5*32 + 32 = 0x40280. P0 is all ones and V3 all ones, so a store would write
    # every byte it reaches; the store after the faulting line never runs.
    # MOV 0x0, MOV 0x8, VF.BEGIN 0x10, PSET 0x18, VLD 0x20, the line 0x28
    src = ("MOV S1, 0x3ffe0\nMOV S4, 0x3fe00\n" +
           E.vf(f"PSET.b8 P0, ALL\nVLD.u8 V3, [0x100]\n{line}\nVST.u8 [0x0], V3, P0") + "MOV S2, 1\n")
    ub = np.zeros(0x40000, dtype=np.uint8)
    ub[0x100:0x200] = 0xFF
    m, r = E.run_program(src, "950", ub=ub)
    assert_fault(r, 0x28, line, "UB")
    assert m.s[1] == 0x3FFE0 and m.s[2] == 0
    assert not m.ub[0x0:0x100].any() and not m.ub[0x3FE00:].any()


def test_vld_at_the_last_vl_of_ub_is_fine():
    ub = np.zeros(0x40000, dtype=np.uint8)
    ub[-32:] = np.arange(32)
    # post-update may point past the end (no access there): S1 = 0x40000 inside the function
    m, r, regs = E.run_function("VLD.f16 V0, [S1], post=128\nMOV S2, 0x3ffe0\nVLD.u8 V1, [S2], blk=0",
                                before="MOV S1, 0x3ff00", ub=ub, dump_v=[1], dump_s=[1, 2], base=0x30000)
    assert r.fault is None, r.fault
    assert regs.s[1] == 0x40000 and regs.s[2] == 0x3FFE0
    assert m.s[1] == 0x3FF00 and m.s[2] == 0          # the function's scalar writes are gone at VF.END
    np.testing.assert_array_equal(regs.v[1], np.tile(np.arange(32, dtype=np.uint8), 8))  # blk=0: one block 8 times


# -- gather / scatter indices -----------------------------------------------------------------

GATHER = """MOV S1, 0x3f000
MOV S2, 0x100
VF.BEGIN
PSET.b16 P0, {pattern}
PSET.b8 P1, ALL
VLD.u16 V5, [S2]
VST.u8 [0x400], V5, P1
VGATHER.s8 V0, [S1], V5, P0
VST.u8 [0x500], V0, P1
VF.END
"""
# MOV 0x0, MOV 0x8, VF.BEGIN 0x10, PSET 0x18, PSET 0x20, VLD 0x28, VST 0x30, VGATHER 0x38


def _gather_index_image():
    ub = np.zeros(0x40000, dtype=np.uint8)
    idx = np.zeros(128, dtype=np.uint16)
    idx[0] = 3
    idx[1] = 0xFFFF                   # 0x3f000 + 0xffff is past the end of UB
    ub[0x100:0x200] = idx.view(np.uint8)
    ub[0x3F003] = 0xD8                # -40
    return ub


def test_gather_index_out_of_range_faults():
    m, r = E.run_program(GATHER.format(pattern="VL2"), "950", ub=_gather_index_image())
    assert_fault(r, 0x38, "VGATHER.s8 V0, [S1], V5, P0", "UB")
    assert not m.ub[0x400:0x600].any()                       # the function's stores did not land


def test_gather_out_of_range_index_in_masked_off_lane_does_not_fault():
    m, r = E.run_program(GATHER.format(pattern="VL1"), "950", ub=_gather_index_image())
    assert r.fault is None, r.fault
    assert m.ub[0x400:0x500].view(np.uint16)[1] == 0xFFFF     # the index register as loaded
    got = m.ub[0x500:0x600].view(np.uint16)
    assert got[0] == 216 and not got[1:].any()


def test_scatter_index_out_of_range_faults_masked_off_does_not():
    src = """MOV S1, 0x3f000
MOV S2, 0x100
VF.BEGIN
PSET.b32 P0, {pattern}
VLD.u32 V5, [S2]
VLD.f32 V6, [0x200]
VSCATTER.f32 [S1], V6, V5, P0
VF.END
"""
    # MOV 0x0, MOV 0x8, VF.BEGIN 0x10, PSET 0x18, VLD 0x20, VLD 0x28, VSCATTER 0x30
    ub = np.zeros(0x40000, dtype=np.uint8)
    idx = np.zeros(64, dtype=np.uint32)
    idx[0], idx[1] = 2, 0x10000000
    ub[0x100:0x200] = idx.view(np.uint8)
    ub[0x200:0x204] = np.array([2.5], dtype=np.float32).view(np.uint8)     # V6 lane 0
    m, r = E.run_program(src.format(pattern="VL2"), "950", ub=ub)
    assert_fault(r, 0x30, "VSCATTER.f32 [S1], V6, V5, P0", "UB")
    assert not m.ub[0x3F000:0x3F010].any()                   # lane 0's element did not land
    m, r = E.run_program(src.format(pattern="VL1"), "950", ub=ub)
    assert r.fault is None, r.fault
    assert m.read("ub", 0x3F008, "f32", 1)[0] == 2.5          # lane 0 to index 2


# -- DMA --------------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "DMA.UB2GM gm[0xfffff0], [0x0], len=1",
    "DMA.GM2UB [0x0], gm[0xffffe0], len=2",
    "DMA.GM2UB [0x0], gm[0xff0000], blocks=3, len=1, srcgap=0x7fff",
    "DMA.UB2GM gm[S5], [0x0], len=1",
])
def test_dma_past_the_end_of_gm(line):
    src = f"MOV S5, 0xffffe1\nMOV S6, 4\n{line}\n"
    m, r = E.run_program(src, "950")
    assert_fault(r, 0x10, line, "GM")
    assert m.s[6] == 4


def test_dma_past_the_end_of_a_smaller_gm():
    m, r = E.run_program("DMA.UB2GM gm[0xff0], [0x0], len=1\n", "950", gm_size=4096)
    assert_fault(r, 0x0, "DMA.UB2GM gm[0xff0], [0x0], len=1", "GM")
    m, r = E.run_program("DMA.UB2GM gm[0xfe0], [0x0], len=1\n", "950", gm_size=4096)
    assert r.fault is None, r.fault


def test_dma_past_the_end_of_ub():
    m, r = E.run_program("MOV S1, 1\nDMA.GM2UB [0x3ffe0], gm[0x0], len=2\n", "950")
    assert_fault(r, 0x8, "DMA.GM2UB [0x3ffe0], gm[0x0], len=2", "UB")
    assert m.s[1] == 1


# -- control ----------------------------------------------------------------------------------

BRANCH_MID = """MOV S1, 3
JMP t + 8
NOP
t: VADD.f16 [0x0], [0x0], [0x0]
HALT
"""
# MOV 0x0, JMP 0x8, NOP 0x10, VADD 0x18..0x27 (two words), HALT 0x28: t + 8 = 0x20 is its 2nd word


def test_branch_into_the_middle_of_a_two_word_instruction():
    m, r = E.run_program(BRANCH_MID, "950")
    assert r.fault is not None
    msg = str(r.fault)
    assert re.search(r"\bpc 0x0*20\b", msg), msg
    assert m.s[1] == 3


def test_branch_into_the_middle_of_a_conditional_target():
    src = BRANCH_MID.replace("JMP t + 8", "BEQ S1, 3, t + 8")
    m, r = E.run_program(src, "950")
    assert r.fault is not None
    assert re.search(r"\bpc 0x0*20\b", str(r.fault)), str(r.fault)


# Regression: this fault once said 'at pc 0x0020: ?' with no line (CONTRACT 4: a runtime fault names
# the instruction's address and source line).
def test_branch_into_the_middle_names_a_source_line():
    m, r = E.run_program(BRANCH_MID, "950")
    msg = str(r.fault)
    # either the instruction that holds pc 0x20 or the branch that went there
    assert "VADD.f16 [0x0], [0x0], [0x0]" in msg or "JMP t + 8" in msg, msg


def test_max_instructions_on_an_infinite_loop():
    src = """MOV S1, 7
loop: ADD S2, S2, 1
JMP loop
"""
    # 10 instructions run: MOV, then ADD/JMP pairs: ADD runs 5 times; the 11th would be the JMP
    from vcore.assembler import assemble
    from vcore.emulator import Machine

    m = Machine(assemble(src), profile="950")
    r = m.run(max_instructions=10)
    msg = assert_fault(r, 0x10, "JMP loop")
    assert "10" in msg
    assert m.s[1] == 7 and m.s[2] == 5


def test_max_instructions_not_reached_is_no_fault():
    from vcore.assembler import assemble
    from vcore.emulator import Machine

    m = Machine(assemble("MOV S1, 1\nMOV S2, 2\nHALT\n"), profile="950")
    r = m.run(max_instructions=3)
    assert r.fault is None, r.fault
    assert m.s[2] == 2
