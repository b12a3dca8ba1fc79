"""The 950 prices a tensor instruction as the vector function it is (docs/timing.md, "Costs";
emulator/functions/tensor_vf.py): its launch, the loop's start-up, and per iteration the loads of its
sources, its operation as the register instruction of its op, and the store of its destination, by the
register section's units, ports, banks and latencies.

Two kinds of test. The equivalence tests run a tensor instruction and the function written by hand that
does the same (the same addresses, mask and iterations) on the built-in 950 profile and require the same
cycles: both pay the same launch (``vf_launch`` and one push of arguments: the hand-written functions
name at most 16 scalar registers), so the launch difference is 0. The mechanism tests work the cycles
out by hand from the profile's values (read from it, so they hold whatever the values are).
"""

from __future__ import annotations

import math

import pytest
from timing_support import row, run

from vcore.emulator import load_profile

P = load_profile("950")
REG = P["register"]


def tensor_cycles(text: str, profile="950") -> dict:
    """The per_pc row of the (only) tensor instruction of ``text``."""
    _, r, rep = run(text + "\nHALT\n", profile)
    assert r.fault is None and rep["races"] == [], (r.fault, rep["races"])
    return row(rep, text.split(maxsplit=1)[0] + " ")


def function_cycles(body: str, loop: int, setup: str = "", prologue: str = "") -> int:
    """The cycles of a hand-written function: ``setup`` on S, then VF.BEGIN, ``prologue``, LOOP ``loop``
    of ``body``, ENDLOOP, VF.END."""
    text = f"{setup}VF.BEGIN\n{prologue}LOOP {loop}\n{body}ENDLOOP\nVF.END\nHALT\n"
    _, r, rep = run(text)
    assert r.fault is None and rep["races"] == [], (r.fault, rep["races"])
    return row(rep, "VF.BEGIN")["cycles"]


ADDRESSES = "MOV S1, 0x0\nMOV S2, 0x1000\nMOV S3, 0x2000\n"

# (tensor instruction, its function by hand: setup, prologue, body, passes)
EQUIVALENTS = {
    "a binary op": (
        "VADD.f16 [0x2000], [0x0], [0x1000], repeat=8",
        ADDRESSES, "PSET.b16 P0, ALL\n",
        "VLD.f16 V0, [S1], post=128\nVLD.f16 V1, [S2], post=128\nVADD.f16 V8, V0, V1, P0\n"
        "VST.f16 [S3], V8, P0, post=128\n", 8),
    "a transcendental op": (
        "VEXP.f32 [0x2000], [0x0], repeat=16",
        ADDRESSES, "PSET.b32 P0, ALL\n",
        "VLD.f32 V0, [S1], post=64\nVEXP.f32 V8, V0, P0\nVST.f32 [S3], V8, P0, post=64\n", 16),
    "a division": (
        "VDIV.f32 [0x2000], [0x0], [0x1000], repeat=12",
        ADDRESSES, "PSET.b32 P0, ALL\n",
        "VLD.f32 V0, [S1], post=64\nVLD.f32 V1, [S2], post=64\nVDIV.f32 V8, V0, V1, P0\n"
        "VST.f32 [S3], V8, P0, post=64\n", 12),
    "a reduction": (  # one sum an iteration, at dst + r * 32: VREDUCE, and a store of lane 0
        "VCADD.f32 [0x2000], [0x0], repeat=8, dstrep=8",
        ADDRESSES, "PSET.b32 P0, ALL\n",
        "VLD.f32 V0, [S1], post=64\nVREDUCE.SUM.f32 V8, V0, P0\nVST.f32 [S3], V8, dist=first_b32, post=8\n", 8),
    "block-strided sources": (  # source 0's blocks 64 bytes apart, its iterations 512 bytes apart
        "VADD.f32 [0x4000], [0x0], [0x2000], repeat=4, src0blk=2, src0rep=16",
        "MOV S1, 0x0\nMOV S2, 0x2000\nMOV S3, 0x4000\n", "PSET.b32 P0, ALL\n",
        "VLD.f32 V0, [S1], post=128, blk=2\nVLD.f32 V1, [S2], post=64\nVADD.f32 V8, V0, V1, P0\n"
        "VST.f32 [S3], V8, P0, post=64\n", 4),
    "a mask": (  # the first 64 lanes of each iteration (the store still spans its VL in the banks)
        "VMUL.f16 [0x2000], [0x0], [0x1000], repeat=8, mask=64",
        ADDRESSES, "PSET.b16 P0, VL64\n",
        "VLD.f16 V0, [S1], post=128\nVLD.f16 V1, [S2], post=128\nVMUL.f16 V8, V0, V1, P0\n"
        "VST.f16 [S3], V8, P0, post=128\n", 8),
    "counter mode": (  # 1000 halves: 8 iterations, a PUPDATE each
        "VADD.f16 [0x2000], [0x0], [0x1000], count=1000",
        ADDRESSES + "MOV S5, 1000\n", "",
        "PUPDATE.b16 P0, S5\nVLD.f16 V0, [S1], post=128\nVLD.f16 V1, [S2], post=128\nVADD.f16 V8, V0, V1, P0\n"
        "VST.f16 [S3], V8, P0, post=128\n", 8),
    "a conflicting layout": (  # every operand in bank 0's rows: the banks price both alike
        "VADD.f32 [0x4000], [0x0], [0x2000], repeat=16",
        "MOV S1, 0x0\nMOV S2, 0x2000\nMOV S3, 0x4000\n", "PSET.b32 P0, ALL\n",
        "VLD.f32 V0, [S1], post=64\nVLD.f32 V1, [S2], post=64\nVADD.f32 V8, V0, V1, P0\n"
        "VST.f32 [S3], V8, P0, post=64\n", 16),
    "iterations in order": (  # each iteration reads the block the one before wrote: a MEMBAR each
        "VADD.f32 [0x100], [0x0], [0x1000], repeat=4",
        "MOV S1, 0x0\nMOV S2, 0x1000\nMOV S3, 0x100\n", "PSET.b32 P0, ALL\n",
        "MEMBAR\nVLD.f32 V0, [S1], post=64\nVLD.f32 V1, [S2], post=64\nVADD.f32 V8, V0, V1, P0\n"
        "VST.f32 [S3], V8, P0, post=64\n", 4),
    "a scalar form": (
        "VMULS.f32 [0x2000], [0x0], 2.0, repeat=32",
        ADDRESSES, "PSET.b32 P0, ALL\n",
        "VLD.f32 V0, [S1], post=64\nVMULS.f32 V8, V0, 2.0, P0\nVST.f32 [S3], V8, P0, post=64\n", 32),
}


@pytest.mark.parametrize("case", list(EQUIVALENTS))
def test_a_tensor_instruction_costs_what_its_function_written_by_hand_costs(case):
    tensor, setup, prologue, body, passes = EQUIVALENTS[case]
    by_hand = function_cycles(body, passes, setup, prologue)
    assert tensor_cycles(tensor)["cycles"] == by_hand


def test_two_tensor_instructions_cost_what_two_functions_cost():
    """Back to back, each is one function on V: the second starts when the first ends."""
    _, r, rep = run("VADD.f16 [0x2000], [0x0], [0x1000], repeat=8\nVEXP.f32 [0x3000], [0x0], repeat=16\nHALT\n")
    assert r.fault is None
    add, exp = (row(rep, p)["cycles"] for p in ("VADD", "VEXP"))
    assert rep["pipes"]["V"]["busy_cycles"] == add + exp


# -- by hand --------------------------------------------------------------------------------------
# The function's front end reaches its first instruction LAUNCH = vf_launch + vf_param_push (one push
# of its arguments) cycles after V starts it; its mask (PSET) issues then; the LOOP adds
# vf_loop_startup, after which iteration t's loads issue, one a cycle on the one load unit.
LAUNCH = REG["vf_launch"] + REG["vf_param_push"]
LOOP = LAUNCH + REG["vf_loop_startup"]
# The bypass (register.forward, forward_store): an instruction takes a load's result `forward` cycles before
# it lands, a store takes its data `forward_store` cycles before it lands.
F, FS = REG["forward"], REG["forward_store"]


def test_a_binary_op_by_hand():
    """VADD.f16, n iterations: src0 0x0 and src1 0x1100 in opposite halves of the banks, so an
    iteration's two loads share a cycle (two load units; each group one read in each bank; two register
    writes), iteration t's at LOOP + t (the next iteration's pair is in the other halves, but the
    groups' two reads are taken). dst 0x10000 lies past both (no iteration reads what one wrote). For n
    up to load_latency - F the loads are done before the first add issues (no register write port or
    group port is shared), so the last add issues load_latency - F after the last loads (the bypass),
    its store alu_latency - FS after that, and its data lands store_latency later:
        cycles = LOOP + (n - 1) + (load - F) + (alu - FS) + store."""
    assert REG["vf_load_units"] == 2
    for n in (1, 2, 5, REG["load_latency"] - F):
        got = tensor_cycles(f"VADD.f16 [0x10000], [0x0], [0x1100], repeat={n}")
        assert got["cycles"] == LOOP + (n - 1) + (REG["load_latency"] - F) + (REG["alu_latency"] - FS) + \
            REG["store_latency"], n
        assert got["iterations"] == n and got["bank_conflict_cycles"] == 0


def test_an_exp_uses_the_transcendental_units():
    """VEXP.f32: 64 lanes at 16 a cycle hold a transcendental unit 4 cycles. The loads run ahead two a
    cycle (iterations t and t + 1 in opposite halves of the banks): iteration t's at LOOP + t // 2, ready
    load_latency later (F sooner through the bypass). The two units take a pair of exps every 4 cycles:
    exps 2k and 2k + 1 issue together at LOOP + (L - F) + 4k, and their results land the f32 exp's
    latency T later, together, the stores taking them FS sooner, so they take the store unit in two
    cycles. For even n the last pair is k = n/2 - 1: its second store issues at LOOP + (L - F) + 4k +
    (T - FS) + 1 and its data lands store_latency later."""
    units = REG["transcendental_units"]
    assert units == 2 and REG["elements_per_cycle"]["exp"][2] == 16  # the case worked out below
    L, T = REG["load_latency"], REG["transcendental_latency"]["exp"][1]
    for n in (2, 8, 64):
        last_store = LOOP + (L - F) + 4 * (n // 2 - 1) + (T - FS) + 1
        got = tensor_cycles(f"VEXP.f32 [0x10000], [0x0], repeat={n}")["cycles"]
        assert got == last_store + REG["store_latency"], n


def test_repeat_zero_costs_the_launch_and_the_loop_start():
    # no iteration: the mask issues at LAUNCH (mask_latency 1), the LOOP moves the front end to LOOP
    assert tensor_cycles("VADD.f32 [0x2000], [0x0], [0x1000], repeat=0")["cycles"] == max(LOOP, LAUNCH + 1)


def test_a_strided_source_holds_every_ub_port_for_its_beats():
    """src0blk=2 makes source 0 a block-strided load (blk=2): its blocks 64 bytes apart fall in groups
    0, 2, 4, 6 twice, so it takes two beats (one block a group a beat; at least strided_access_cycles,
    2), and an access of more than one beat holds every group's ports for each: nothing else reaches UB
    then. Source 1 (0x2100: banks 8-15 in iteration 0, 0-7 in iteration 1) is contiguous.
    One iteration: source 0 at LOOP and LOOP + 1, source 1 at LOOP + 2; the add load_latency - F after
    that, the store alu_latency - FS later, its data store_latency after: LOOP + 2 + (L - F) + (A - FS) + St.
    Two: iteration 1's strided load needs two cycles with nothing else in UB: LOOP + 3 and + 4 (its
    result load_latency after its first, as its unit's occupancy is the beats'); its source 1 (the other
    half of the banks from iteration 0's) joins that one at LOOP + 2. So its add waits for source 0:
    LOOP + 3 + L - F, and the function ends at LOOP + 3 + (L - F) + (A - FS) + St."""
    S, L, A, St = REG["strided_access_cycles"], REG["load_latency"], REG["alu_latency"], REG["store_latency"]
    assert S == 2
    text = "VADD.f32 [0x4000], [0x0], [0x2100], repeat={n}, src0blk=2, src0rep=16"
    assert tensor_cycles(text.format(n=1))["cycles"] == LOOP + 2 + (L - F) + (A - FS) + St
    assert tensor_cycles(text.format(n=2))["cycles"] == LOOP + 3 + (L - F) + (A - FS) + St


def test_the_a2_keeps_its_tensor_rates():
    """The a2 has no vector functions: tensor.issue + 1 cycle a VADD.f32 iteration (sustained_binary
    1.0, 64 lanes at 64) + tensor.startup, for a conflict-free layout (bank_conflict_ub scenario 1)."""
    a2 = load_profile("a2")["tensor"]
    assert not a2["as_function"]
    got = tensor_cycles("VADD.f32 [0x20000], [0x0], [0x10100], repeat=64", "a2")["cycles"]
    assert got == a2["issue"] + math.ceil(64 * 64 / (64 * a2["sustained_binary"])) + a2["startup"]


def test_a_profile_without_vector_functions_cannot_price_tensor_instructions_as_functions():
    import copy

    from vcore.emulator.profiles.profile import ProfileError, check_table

    table = copy.deepcopy(load_profile("a2").table)
    table["tensor"]["as_function"] = True
    with pytest.raises(ProfileError, match=r"tensor\.as_function needs machine\.vector_functions"):
        check_table(table, "a2 edited")


def test_the_price_is_kept_by_where_the_operands_fall():
    """A tiling loop moves its operands: the price is worked out once per place in the banks' period
    (and the operands' distances), so 200 passes cost 200 times one pass when each is conflict-free."""
    one = tensor_cycles("VADD.f16 [0x2000], [0x0], [0x1100], repeat=4")["cycles"]
    loop = ("MOV S1, 0x0\nMOV S9, 200\nL: VADD.f16 [S1 + 0x2000], [S1], [S1 + 0x1100], repeat=4\n"
            "ADD S1, S1, 0x20\nSUB S9, S9, 1\nBNE S9, 0, L\n")
    _, r, rep = run(loop + "HALT\n")
    assert r.fault is None
    assert row(rep, "VADD")["cycles"] == 200 * one
