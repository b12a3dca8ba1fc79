"""Scalar unit (MOV, ALU, branches, JMP, HALT, end of text) and DMA, against plain Python / the
reference ``dma``."""

from __future__ import annotations

import emu_support as E
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, assume, given, note, settings
from hypothesis import strategies as st

from tests import reference as R

SETTINGS = settings(max_examples=100, deadline=None, database=None,
                    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
                    suppress_health_check=[HealthCheck.too_slow])

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1
s64 = st.one_of(st.sampled_from([0, 1, -1, 2, I64_MIN, I64_MAX, I64_MIN + 1, I64_MAX - 1, 1 << 32, -(1 << 32)]),
                st.integers(I64_MIN, I64_MAX))


def wrap64(x: int) -> int:
    x &= (1 << 64) - 1
    return x - (1 << 64) if x >> 63 else x


def machine(text: str, profile: str = "950", **kw):
    from vcore.assembler import assemble
    from vcore.emulator import Machine

    return Machine(assemble(text), profile=profile, **kw)


def run_with_scalars(text: str, scalars: dict[int, int]):
    m = machine(text)
    for k, v in scalars.items():
        m.s[k] = v
    r = m.run()
    assert r.fault is None, f"{text}: {r.fault}"
    return m, r


ALU = {
    "ADD": lambda a, b: a + b,
    "SUB": lambda a, b: a - b,
    "MUL": lambda a, b: a * b,
    "AND": lambda a, b: a & b,
    "OR": lambda a, b: a | b,
    "XOR": lambda a, b: a ^ b,
}


# -- ALU ----------------------------------------------------------------------------------------

@SETTINGS
@given(st.sampled_from(sorted(ALU)), s64, s64)
def test_alu_register_forms_wrap_at_64_bits(op, a, b):
    text = f"{op} S3, S1, S2"
    note(text)
    m, _ = run_with_scalars(text, {1: a, 2: b})
    assert m.s[3] == wrap64(ALU[op](a, b)), (text, a, b)
    assert m.s[1] == a and m.s[2] == b


IMM44 = st.integers(-(1 << 43), (1 << 43) - 1)


@SETTINGS
@given(st.sampled_from(sorted(ALU)), s64, st.one_of(st.sampled_from([0, 1, -1, (1 << 43) - 1, -(1 << 43)]), IMM44))
def test_alu_immediate_forms(op, a, imm):
    text = f"{op} S3, S1, {imm}"
    m, _ = run_with_scalars(text, {1: a})
    assert m.s[3] == wrap64(ALU[op](a, imm)), (text, a)


@SETTINGS
@given(s64, st.integers(0, 63), st.booleans())
def test_shifts(a, n, immediate):
    shl = f"SHL S3, S1, {n}" if immediate else "SHL S3, S1, S2"
    m, _ = run_with_scalars(shl, {1: a, 2: n})
    assert m.s[3] == wrap64(a << n), (shl, a, n)
    # SHR of a non-negative value: logical and arithmetic shifts agree (the contract does not say
    # which one SHR is for negative values)
    a = abs(a) if a != I64_MIN else I64_MAX
    shr = shl.replace("SHL", "SHR")
    m, _ = run_with_scalars(shr, {1: a, 2: n})
    assert m.s[3] == a >> n, (shr, a, n)


def test_alu_golden_program():
    text = """MOV S1, 562949953421311     ; largest 50-bit immediate, 2**49 - 1
MOV S2, -562949953421312          ; smallest
ADD S3, S1, S1
SHL S4, S1, 15                    ; 2**64 - 2**15: wraps to -32768
MUL S5, S4, S4                    ; 2**30
SUB S6, S2, 1
MOV S7, S6
AND S8, S7, 0xff
OR S9, S0, -1
XOR S10, S9, 0x0f
SHR S11, S1, 9
SHL S12, S9, 63
ADD S13, S12, -1                  ; INT64_MIN - 1 wraps to INT64_MAX
MUL S14, S13, S13                 ; (2**63 - 1)**2 mod 2**64 = 1
"""
    m, _ = run_with_scalars(text, {})
    assert m.s[1] == (1 << 49) - 1
    assert m.s[2] == -(1 << 49)
    assert m.s[3] == (1 << 50) - 2
    assert m.s[4] == -32768
    assert m.s[5] == 1 << 30
    assert m.s[6] == -(1 << 49) - 1
    assert m.s[7] == m.s[6]
    assert m.s[8] == ((-(1 << 49) - 1) & 0xFF)
    assert m.s[9] == -1
    assert m.s[10] == -16
    assert m.s[11] == ((1 << 49) - 1) >> 9
    assert m.s[12] == I64_MIN
    assert m.s[13] == I64_MAX
    assert m.s[14] == 1


def test_s0_reads_zero_and_ignores_writes():
    text = """MOV S0, 5
ADD S1, S0, 1
ADD S0, S1, S1
MOV S2, S0
SUB S3, S0, 1
BEQ S0, 0, ok
MOV S4, 99
ok: MOV S5, 1
"""
    m, _ = run_with_scalars(text, {})
    assert m.s[0] == 0 and m.s[1] == 1 and m.s[2] == 0 and m.s[3] == -1
    assert m.s[4] == 0 and m.s[5] == 1


def test_s0_is_zero_as_an_address_base():
    # in a vector function (CONTRACT 7), whose copy of S0 ignores writes too
    ub = np.zeros(0x300, dtype=np.uint8)
    ub[:256] = np.arange(256, dtype=np.uint8)
    ub[0x100:0x300] = 0xEE
    m, r, regs = E.run_function("MOV S0, 0x200\nVLD.u8 V0, [S0]", before="MOV S0, 0x100", ub=ub, dump_v=[0])
    assert r.fault is None
    np.testing.assert_array_equal(regs.v[0], ub[:256])


# -- branches -----------------------------------------------------------------------------------

BRANCHES = {"BEQ": lambda a, b: a == b, "BNE": lambda a, b: a != b,
            "BLT": lambda a, b: a < b, "BGE": lambda a, b: a >= b}


@SETTINGS
@given(st.sampled_from(sorted(BRANCHES)), s64, s64, st.integers(0, 2))
def test_branches_compare_signed(op, a, b, how):
    if how == 1:
        b = a                                      # equal values often
    target = f"{op} S1, S2, yes"
    if how == 2:
        b = max(-(1 << 25), min((1 << 25) - 1, b))   # fits the branch immediate
        target = f"{op} S1, {b}, yes"
    text = f"""{target}
MOV S3, 1
HALT
yes: MOV S3, 2
"""
    m, r = run_with_scalars(text, {1: a, 2: b})
    assert m.s[3] == (2 if BRANCHES[op](a, b) else 1), (text, a, b)


@pytest.mark.parametrize("op,a,b,taken", [
    ("BLT", -1, 1, True),           # unsigned compare would say 0xfff... > 1
    ("BGE", -1, 1, False),
    ("BLT", I64_MIN, I64_MAX, True),
    ("BGE", I64_MAX, I64_MIN, True),
    ("BGE", 5, 5, True),
    ("BLT", 5, 5, False),
    ("BNE", -1, (1 << 64) - 1 - (1 << 64), False),
])
def test_branch_signed_golden(op, a, b, taken):
    m, _ = run_with_scalars(f"{op} S1, S2, yes\nMOV S3, 1\nHALT\nyes: MOV S3, 2\n", {1: a, 2: b})
    assert m.s[3] == (2 if taken else 1)


def test_backward_branch_loop_sums():
    text = """MOV S1, 0          ; i
MOV S2, 0                 ; sum
loop:
ADD S1, S1, 1
ADD S2, S2, S1
BLT S1, 100, loop
"""
    m, r = run_with_scalars(text, {})
    assert m.s[1] == 100 and m.s[2] == 5050
    assert not r.halted


def test_jmp_skips():
    m, _ = run_with_scalars("JMP skip\nMOV S1, 1\nskip: MOV S2, 2\n", {})
    assert m.s[1] == 0 and m.s[2] == 2


def test_halt_stops_the_program():
    text = """MOV S1, 1
VADDS.s32 [0x0], [0x0], 1, count=8
HALT
MOV S1, 2
VADDS.s32 [0x0], [0x0], 1, count=8
DMA.UB2GM gm[0x0], [0x0], len=1
"""
    m = machine(text)
    r = m.run()
    assert r.fault is None and r.halted
    assert m.s[1] == 1
    np.testing.assert_array_equal(m.read("ub", 0, "s32", 9), [1] * 8 + [0])
    assert not m.gm[:64].any()


def test_running_past_the_end_ends_cleanly():
    m = machine("MOV S1, 1\nADD S1, S1, 2\n")
    r = m.run()
    assert r.fault is None and not r.halted
    assert m.s[1] == 3


def test_empty_program():
    m = machine("; nothing\n")
    r = m.run()
    assert r.fault is None


# -- DMA ------------------------------------------------------------------------------------------

GM_SMALL = 1 << 20


@st.composite
def dma_cases(draw):
    direction = draw(st.sampled_from(["GM2UB", "UB2GM"]))
    blocks = draw(st.one_of(st.just(1), st.integers(1, 8)))
    length = draw(st.one_of(st.just(1), st.integers(1, 8)))
    srcgap = draw(st.one_of(st.just(0), st.integers(0, 4)))
    dstgap = draw(st.one_of(st.just(0), st.integers(0, 4)))
    ub_addr = 32 * draw(st.integers(0, 0x800))
    gm_addr = draw(st.one_of(st.integers(0, 0x8000).map(lambda x: 32 * x), st.integers(0, 0x100000)))
    gm_reg = draw(st.booleans())
    seed = draw(st.integers(0, 2**32 - 1))
    return direction, blocks, length, srcgap, dstgap, ub_addr, gm_addr, gm_reg, seed


@SETTINGS
@given(dma_cases())
def test_dma_matches_reference(case):
    direction, blocks, length, srcgap, dstgap, ub_addr, gm_addr, gm_reg, seed = case
    ub_size = E.UB_SIZE["950"]
    src_step, dst_step = (length + srcgap) * 32, (length + dstgap) * 32
    ub_step, gm_step = (dst_step, src_step) if direction == "GM2UB" else (src_step, dst_step)
    assume(ub_addr + (blocks - 1) * ub_step + length * 32 <= ub_size)
    assume(gm_addr + (blocks - 1) * gm_step + length * 32 <= GM_SMALL)

    gm_text = "gm[S1]" if gm_reg else f"gm[0x{gm_addr:x}]"
    fields = f"blocks={blocks}, len={length}, srcgap={srcgap}, dstgap={dstgap}"
    if direction == "GM2UB":
        line = f"DMA.GM2UB [0x{ub_addr:x}], {gm_text}, {fields}"
    else:
        line = f"DMA.UB2GM {gm_text}, [0x{ub_addr:x}], {fields}"
    text = (f"MOV S1, 0x{gm_addr:x}\n" if gm_reg else "") + line
    note(text)

    rng = np.random.default_rng(seed)
    ub = rng.integers(0, 256, ub_size, dtype=np.uint8)
    gm = rng.integers(0, 256, GM_SMALL, dtype=np.uint8)
    want_ub, want_gm = ub.copy(), gm.copy()
    if direction == "GM2UB":
        R.dma(want_gm, gm_addr, want_ub, ub_addr, blocks, length, srcgap, dstgap)
    else:
        R.dma(want_ub, ub_addr, want_gm, gm_addr, blocks, length, srcgap, dstgap)

    m = machine(text, gm_size=GM_SMALL)
    m.write("ub", 0, ub)
    m.write("gm", 0, gm)
    r = m.run()
    assert r.fault is None, f"{text}: {r.fault}"
    bad = E.mem_mismatches(m.ub, want_ub, "u8") + E.mem_mismatches(m.gm, want_gm, "u8")
    assert not bad, text + "\n" + "\n".join(bad)


def test_dma_round_trip_with_flags():
    # GM -> UB on MTE2, then UB -> GM on MTE3 once MTE2 is done; gaps on both sides
    text = """DMA.GM2UB [0x100], gm[0x1000], blocks=4, len=2, srcgap=1, dstgap=3
SETFLAG MTE2, MTE3, 0
WAITFLAG MTE2, MTE3, 0
DMA.UB2GM gm[0x8000], [0x100], blocks=4, len=2, srcgap=3
"""
    gm = np.zeros(0x10000, dtype=np.uint8)
    gm[0x1000:0x1000 + 4 * 96] = np.arange(4 * 96) % 251
    m = machine(text)
    m.write("gm", 0, gm)
    r = m.run()
    assert r.fault is None, r.fault
    for k in range(4):
        blk = gm[0x1000 + k * 96:0x1000 + k * 96 + 64]                      # 2 blocks + 1 gap
        np.testing.assert_array_equal(m.ub[0x100 + k * 160:0x100 + k * 160 + 64], blk)  # 2 + 3 gap
        np.testing.assert_array_equal(m.gm[0x8000 + k * 64:0x8000 + k * 64 + 64], blk)  # packed
    assert not m.ub[0x100 + 64:0x100 + 160].any()                               # the gap is untouched
    assert not m.gm[0x8000 + 256:0x8000 + 512].any()


def test_dma_unaligned_gm_address():
    # only UB operands must be 32-byte aligned
    gm = np.arange(256, dtype=np.uint8)
    m = machine("DMA.GM2UB [0x0], gm[0x3], len=1\n")
    m.write("gm", 0, gm)
    r = m.run()
    assert r.fault is None, r.fault
    np.testing.assert_array_equal(m.ub[:32], gm[3:35])
