"""Result latency by class (issue 32, outcome 3), worked out by hand.

Inside a vector function (950) an instruction's results land its class's latency after it issues
(``register.*_latency``: ALU 7, load 9, division and the transcendentals by op and width, a reduction
by operation and width), and a dependent instruction may issue ``forward`` cycles before that through
the bypass: ``forward_alu`` from an ALU result to an ALU instruction or reduction, ``forward_store``
into a store, ``forward`` otherwise. So a chain of N dependent instructions costs N times its issue-to-
issue distance plus the last latency, and independent ones pipeline at the issue width. On the a2 a
tensor instruction's results land ``tensor.latency.CLASS`` after its last iteration for a division, a
transcendental and a reduction (``tensor.startup`` for the others): a dependent one after a BARRIER V
waits that long.

The 950 runs take the pinned profile (timing_support: vf_launch 8, no parameter push) with the bypass
and the latencies set here, so each expected cycle below is arithmetic on the numbers in the test.
"""

from __future__ import annotations

import copy

import pytest
from timing_support import pinned, row, run, slices

ALU, LOAD, STORE = 7, 9, 9
FORWARD, FORWARD_ALU, FORWARD_STORE = 3, 4, 2
DIV = [22, 17]  # [16-bit, 32-bit]
EXP = [21, 16]
SUM = [24, 22]


def profile(**register):
    """The pinned 950 profile with the bypass and the latencies of this file (and ``register`` on top)."""
    from vcore.emulator.profiles.profile import Profile, check_table

    base = pinned("950")
    table = copy.deepcopy(base.table)
    table["register"].update(alu_latency=ALU, load_latency=LOAD, store_latency=STORE, forward=FORWARD,
                             forward_alu=FORWARD_ALU, forward_store=FORWARD_STORE)
    table["register"]["transcendental_latency"].update(div=DIV, exp=EXP)
    table["register"]["reduce_latency"]["SUM"] = SUM
    table["register"].update(register)
    check_table(table, "test")
    return Profile("950", table, "")


def _function(body: list[str]) -> str:
    return "    VF.BEGIN\n    PSET.b32 P0, ALL\n" + "".join(f"    {line}\n" for line in body) + "    VF.END\n    HALT\n"


def _starts(m, prefix: str) -> list[int]:
    return [start for _, start, _ in slices(m, prefix)]


@pytest.mark.parametrize("n", [1, 2, 5, 16])
def test_a_chain_of_dependent_vadds_costs_n_times_latency_less_the_bypass(n):
    # VF.BEGIN reaches V at 0; the launch's 8 cycles: PSET issues at 8, P0 lands at 9 (mask latency 1:
    # nothing comes earlier than the cycle after). The first VADDS reads V1 (never written) and P0:
    # 9, landing 9 + 7 = 16. Each next one reads the last's V0, an ALU result, as an ALU instruction:
    # 7 - 4 = 3 cycles after it issued. The last lands 7 after it issues; the function ends there.
    body = ["VADDS.f32 V0, V1, 1.0, P0"] + ["VADDS.f32 V0, V0, 1.0, P0"] * (n - 1)
    m, r, rep = run(_function(body), profile(), trace=True)
    assert _starts(m, "VADDS") == [9 + 3 * k for k in range(n)]
    assert r.total_cycles == 9 + 3 * (n - 1) + ALU == 16 + 3 * (n - 1)
    # the same chain without the bypass: a full latency a link
    m, r, rep = run(_function(body), profile(forward_alu=0, forward=0, forward_store=0), trace=True)
    assert _starts(m, "VADDS") == [9 + 7 * k for k in range(n)]
    assert r.total_cycles == 16 + 7 * (n - 1)


def test_independent_vadds_pipeline_at_the_issue_width():
    # five VADDS from V1 (never written) into V2..V6: each ready at 9 (P0); two a cycle (issue_width 2):
    # 9, 9, 10, 10, 11; the last lands 11 + 7 = 18.
    body = [f"VADDS.f32 V{k}, V1, 1.0, P0" for k in range(2, 7)]
    m, r, rep = run(_function(body), profile(), trace=True)
    assert _starts(m, "VADDS") == [9, 9, 10, 10, 11]
    assert r.total_cycles == 18


@pytest.mark.parametrize(("type_name", "latency"), [("f32", DIV[1]), ("f16", DIV[0])])
def test_a_chain_of_dependent_divisions_costs_its_latencies(type_name, latency):
    # VDIV V0 = V1 / V0, three times. The first at 9 (P0); each lands its latency (by width: f32 17,
    # f16 22) after it issues, and the next, a transcendental reader, may take it 3 (forward) earlier.
    # A division holds an issue slot for a cycle and a transcendental unit for its lanes (f32 64 / 16 =
    # 4, f16 128 / 16 = 8): two units, never both taken by a chain. The third lands at
    # 9 + 2 (latency - 3) + latency.
    body = [f"VDIV.{type_name} V0, V1, V0, P0"] * 3
    m, r, rep = run(_function(body), profile(), trace=True)
    step = latency - FORWARD
    assert _starts(m, "VDIV") == [9, 9 + step, 9 + 2 * step]
    assert r.total_cycles == 9 + 2 * step + latency
    # three independent divisions: two units, f32 4 cycles each (f16 8): 9, 9, then 9 + 4 (9 + 8)
    body = [f"VDIV.{type_name} V{k}, V1, V2, P0" for k in (3, 4, 5)]
    m, r, rep = run(_function(body), profile(), trace=True)
    hold = 4 if type_name == "f32" else 8
    assert _starts(m, "VDIV") == [9, 9, 9 + hold]
    assert r.total_cycles == 9 + hold + latency


@pytest.mark.parametrize(("type_name", "latency"), [("f32", SUM[1]), ("f16", SUM[0])])
def test_a_chain_of_dependent_reductions_costs_its_latencies(type_name, latency):
    # VREDUCE.SUM V0 <- V0, three times: each lands reduce_latency.SUM (f32 22, f16 24) after it issues;
    # a reduction's result is not an ALU one, so the next takes it 3 (forward) early. Single-issue:
    # nothing else shares its cycle, and nothing else is there.
    body = [f"VREDUCE.SUM.{type_name} V0, V0, P0"] * 3
    m, r, rep = run(_function(body), profile(), trace=True)
    step = latency - FORWARD
    assert _starts(m, "VREDUCE") == [9, 9 + step, 9 + 2 * step]
    assert r.total_cycles == 9 + 2 * step + latency


def test_the_bypass_by_producer_and_reader():
    # VLD V0 at 8 (no mask: ready at once), lands 17: the VADDS (an ALU reader of a load) may take it
    # 3 early: 14, landing 21. VEXP (a transcendental reader of an ALU result: forward, not forward_alu)
    # at 21 - 3 = 18. VST of the VEXP's V2 (f32 exp latency 16: lands 34) at 34 - 2 = 32, landing 41.
    body = ["VLD.f32 V0, [S0]", "VADDS.f32 V1, V0, 1.0, P0", "VEXP.f32 V2, V1, P0", "VST.f32 [S0 + 0x400], V2, P0"]
    m, r, rep = run(_function(body), profile(), trace=True)
    assert _starts(m, "VLD") == [8]
    assert _starts(m, "VADDS") == [14]
    assert _starts(m, "VEXP") == [18]
    assert _starts(m, "VST") == [32]
    assert r.total_cycles == 32 + STORE
    assert row(rep, "VF.BEGIN")["cycles"] == 41


# -- a2: a tensor instruction's results land its class's latency after its last iteration ----------

def _a2(**latency):
    from vcore.emulator.profiles.profile import Profile, check_table

    base = pinned("a2")
    table = copy.deepcopy(base.table)
    table["tensor"]["latency"].update(latency)
    check_table(table, "test")
    return Profile("a2", table, "")


A2_CHAIN = """\
    VDIV.f32 [0x4100], [0x0], [0x2080]
    BARRIER V
    VDIV.f32 [0x6000], [0x4100], [0x2080]
    BARRIER V
    VDIV.f32 [0x8000], [0x6000], [0x2080]
    HALT
"""


@pytest.mark.parametrize("divide", [1, 9, 20])
def test_a2_dependent_divisions_after_barriers_wait_for_the_latency(divide):
    # The pinned a2: tensor.issue 0. A VDIV.f32 iteration: 64 lanes at 32 a cycle and sustained_divide
    # 0.5 (msKPP's 4 cycles a repeat): 4 cycles; its operands' banks (src0 groups 0-7, src1 0x2080
    # groups 4-11, dst 0x4100 groups 8-15 ...) in the pinned 2 beats cost what they cost, the same
    # for the three: call its occupancy c (read off the first). Its results land c + divide after it
    # starts; the BARRIER V waits for them and takes a cycle; the next VDIV starts then. So each link
    # is c + divide + 1, and the run ends at the third's results: 3 c + 3 divide + 2.
    m, r, rep = run(A2_CHAIN, _a2(divide=divide), trace=True)
    assert r.races == ()
    (_, s0, e0), (_, s1, e1), (_, s2, e2) = slices(m, "VDIV")
    c = e0 - s0 - divide
    assert c >= 4
    assert (s1 - s0, s2 - s1) == (c + divide + 1, c + divide + 1)
    assert e2 - s2 == e1 - s1 == c + divide
    assert r.total_cycles == s0 + 3 * c + 3 * divide + 2


def test_a2_latencies_by_class():
    # A VADD lands tensor.startup (pinned 1) after its last iteration whatever the divide latency; a
    # VEXP its transcendental latency, a VCADD its reduction latency.
    p = _a2(divide=30, transcendental=12, reduce=5)
    for text, extra in (("VADD.f32 [0x4100], [0x0], [0x2080]", 1), ("VEXP.f32 [0x4100], [0x0]", 12),
                        ("VCADD.f32 [0x4100], [0x0], mask=64", 5), ("VDIV.f32 [0x4100], [0x0], [0x2080]", 30)):
        m, r, rep = run(f"    {text}\n    HALT\n", p, trace=True)
        e = row(rep, text.split()[0])
        m1, r1, rep1 = run(f"    {text}\n    HALT\n", _a2(divide=1, transcendental=1, reduce=1), trace=True)
        e1 = row(rep1, text.split()[0])
        assert e["cycles"] - e1["cycles"] == extra - 1, text


def test_the_built_in_a2_waits_for_its_documented_latencies():
    # a2.toml: a division and a transcendental land 9 cycles after their last iteration (the public
    # PTO ISA cost model's 910B3 fits: VDIV f32 4.03 x repeats + 31, VEXP f32 2.00 x repeats + 31, against
    # tensor.issue 22), a VADD tensor.startup (1) after it.
    from vcore.emulator import load_profile

    a2 = load_profile("a2")["tensor"]
    assert (a2["latency"]["divide"], a2["latency"]["transcendental"], a2["startup"], a2["issue"]) == (9, 9, 1, 22)
    # Conflict-free layouts (scenario 1 of the bank sample: src0 groups 0-7 of tier 0, src1 0x10100 groups
    # 8-15 of tier 1, dst 0x4100 groups 8-15 of tier 0). 8 repeats: a VDIV.f32 at 64 lanes / (32 a cycle x
    # 0.5 sustained) = 4 cycles a repeat: 32; a VEXP.f32 at 64 / (32 x 0.998) = 2.004: ceil(16.03) = 17;
    # a VADD.f32 at 64 / (64 x 1.0) = 1: 8. Then 22 + those + the latency.
    for text, cycles, latency in (("VDIV.f32 [0x4100], [0x0], [0x10100], repeat=8", 32, 9),
                                  ("VEXP.f32 [0x4100], [0x0], repeat=8", 17, 9),
                                  ("VADD.f32 [0x4100], [0x0], [0x10100], repeat=8", 8, 1)):
        m, r, rep = run(f"    {text}\n    HALT\n", "a2")
        assert row(rep, text.split()[0])["cycles"] == 22 + cycles + latency, text
