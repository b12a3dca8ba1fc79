"""Product bugs the fuzzers found, each as its minimal input.

A bug still present is marked ``xfail(strict=True, reason="BUG: ...")``; when it is fixed its test
XPASSes and fails the run: then delete the ``xfail`` mark and the bug's entry in
``fuzz_support.KNOWN_BUGS`` (the properties set inputs matching it aside until then). Tests without
the mark are bugs the fuzzers found that have since been fixed; they keep them fixed.
"""

from __future__ import annotations

import re

import fuzz_support as F
import pytest

from vcore import isa
from vcore.assembler import AsmError, assemble
from vcore.emulator import Machine, ProgramError
from vcore.emulator.report import build_report
from vcore.isa.program import Program

S = F.load_strategies()
REGISTER_ROW = isa.MNEMONICS["VLD"][0]  # register instructions need VF.BEGIN ... VF.END around them


def in_function(text: str) -> str:
    """Register instructions (one or a few lines) in the smallest program that holds them."""
    return S.in_context(REGISTER_ROW, text=text).text


def bug(reason: str):
    return pytest.mark.xfail(strict=True, reason=f"BUG: {reason}")


def assembles_or_diagnoses(text: str) -> None:
    """The assembler contract: a Program, or an AsmError with located diagnostics; nothing else."""
    try:
        assemble(text, "regression.asm")
    except AsmError as err:
        assert err.diagnostics


def run(text: str, profile: str = "950"):
    machine = Machine(assemble(text, "regression.asm"), profile)
    result = machine.run(max_instructions=5000, max_cycles=2_000_000)
    return machine, result


# -- assembler ----------------------------------------------------------------------------------

def test_decimal_literal_past_int_digit_limit():
    """Was: ValueError (Python's 4300-digit int() limit) from assembler/lexer.py Token.value."""
    assembles_or_diagnoses("MOV S1, " + "1" * 4301 + "\n")


def test_register_number_past_int_digit_limit():
    """Was: ValueError (the 4300-digit int() limit) from assembler/parser.py register_of."""
    assembles_or_diagnoses("MOV S" + "0" * 4300 + "1, 1\n")


@pytest.mark.parametrize("literal", ["0x_", "0b_", "0X__", "0B_"])
def test_prefix_with_only_underscores(literal):
    """Was: '0x_' lexes as an int token, then int('0x', 0) raises ValueError in assembler/lexer.py Token.value."""
    assembles_or_diagnoses(f"MOV S1, {literal}\n")


@pytest.mark.parametrize(("shape", "text"), [
    ("parentheses", "MOV S1, " + "(" * 2000 + "1" + ")" * 2000 + "\n"),  # fails from depth ~495
    ("unary minus", "MOV S1, " + "-" * 3000 + "1\n"),  # from ~990
    ("bits()", "VADDS.f16 [0], [0], " + "bits(" * 2000 + "1" + ")" * 2000 + "\n"),  # from ~495
    ("UB operand", "VLD.f16 V0, [" + "(" * 2000 + "0" + ")" * 2000 + "]\n"),
])
def test_deep_nesting(shape, text):
    """Was: RecursionError in the recursive-descent parser (assembler/parser.py parse_expr/_parse_unary)."""
    assembles_or_diagnoses(text)


def test_long_flat_expression():
    """Was: 1 + 1 + ... (~1000 terms) parses iteratively but raised RecursionError when evaluated
    (eval_int, now assembler/expressions.py Symbols.eval_int, recursed down the left-leaning tree)."""
    assembles_or_diagnoses("MOV S1, " + " + ".join(["1"] * 3000) + "\n")


def test_long_equ_chain():
    """Was: .equ constants each defined by the next, ~330 deep, raised RecursionError
    (value_of -> eval_int -> value_of ..., now in assembler/expressions.py Symbols)."""
    n = 1000
    lines = [f".equ C{i}, C{i + 1} + 1" for i in range(n)] + [f".equ C{n}, 0", "MOV S1, C0"]
    assembles_or_diagnoses("\n".join(lines) + "\n")


@pytest.mark.parametrize("literal", ["0x_", "0b_"])
# Was: '0x_' was diagnosed as 'number too long (3 characters)'.
def test_prefix_with_only_underscores_is_called_malformed(literal):
    with pytest.raises(AsmError) as err:
        assemble(f"MOV S1, {literal}\n", "regression.asm")
    assert "too long" not in err.value.diagnostics[0].message


# Was: a flat sum of 3000 terms was refused as nested too deeply (eval_int recursed down the chain).
def test_long_flat_expression_evaluates():
    program = assemble("MOV S1, " + " + ".join(["1"] * 3000) + "\n", "regression.asm")
    assert program.words == assemble("MOV S1, 3000\n", "regression.asm").words


# -- emulator -----------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [in_function("VLD.f16 V0, [1]"),
                                  "MOV S1, 1\nMOV S2, 2\n" + in_function("VLD.f16 V0, [S1]"),
                                  "MOV S1, 1\nMOV S2, 2\nVADD.f16 [S1], [0], [0]\n"])
def test_s_busy_counts_the_faulting_issue(text):
    """Was: an instruction that faults at dispatch had its issue cycle counted in S's busy_cycles
    (report.py build_report: counts * s_cycles; machine.py run counted it before op() raised) but not
    in total_cycles: S busy 1 cycle of a 0-cycle run, utilisation 1.5 after two MOVs."""
    machine, result = run(text)
    assert result.fault is not None
    out = build_report(result).to_json()
    for pipe, entry in out["pipes"].items():
        assert entry["busy_cycles"] <= out["total_cycles"], (pipe, entry, out["total_cycles"])
        assert entry["utilisation"] <= 1, (pipe, entry)


@pytest.mark.parametrize("base", ["-32", "-0x10000000000"])
@pytest.mark.parametrize("profile", ["950"])  # a2 has no register instructions
def test_vscatter_below_ub_faults(profile, base):
    """Was: no fault; emulator/vector.py bind_vscatter (perform) checked only the top of UB, so a slightly
    negative element index wrapped (numpy) to the end of UB (-32 wrote UB 0x3ffe0 on 950) and a very
    negative one raised IndexError (out of bounds for axis 0)."""
    machine, result = run(f"MOV S1, {base}\nMOV S2, 0x100\n"
                          + in_function("PSET.b16 P0, VL1\nVLD.u16 V0, [S2]\nVSCATTER.u16 [S1], V0, V1, P0")
                          + "HALT\n.ub 0x100, u16, 7\n", profile)
    assert result.fault is not None and result.fault.kind == "fault", "a write outside UB must fault"
    assert "VSCATTER" in result.fault.message
    assert not machine.ub[-64:].any()


_RANGE = re.compile(r"bytes 0x([0-9a-f]+)\.\.0x([0-9a-f]+) outside (UB|GM) \(size 0x([0-9a-f]+)\)")


def _assert_names_the_bytes(text: str) -> None:
    _, result = run(text)
    assert result.fault is not None and result.fault.kind == "fault"
    message = result.fault.message
    assert "0x-" not in message, message
    for lo, hi, _, size in _RANGE.findall(message):
        assert not (int(lo, 16) < int(hi, 16) <= int(size, 16)), f"the named range is inside memory: {message}"


@pytest.mark.parametrize("text", [
    "MOV S1, -64\n" + in_function("VLD.f16 V0, [S1]"),
    "MOV S1, -64\nVADD.f16 [S1], [0], [0]\n",
    "MOV S1, -64\nDMA.UB2GM gm[0], [S1], len=1\n",
    "MOV S7, -0x4000000\nDMA.GM2UB [0], gm[S7], len=1\n",
])
def test_fault_message_names_the_bytes_below_zero(text):
    """Was: emulator/faults.py check_range clamped the start to 0 and printed negative ends as '0x-20':
    'VLD: UB bytes 0x0..0xc0 outside UB' for an access at -0x40..0xc0, 'GM bytes 0x0..0x-3ffffe0'."""
    _assert_names_the_bytes(text)


def test_vgather_fault_names_a_negative_byte():
    """Was: VGATHER's out-of-UB fault printed a negative byte address as '0x-20' (emulator/vector.py
    bind_vgather_ub perform)."""
    _assert_names_the_bytes("MOV S1, -32\n" + in_function("PSET.b16 P0, VL1\nVGATHER.u16 V1, [S1], V0, P0"))


# -- vector functions (CONTRACT section 7) ------------------------------------------------------------

JMP_0X10 = 0x54 | 0x10 << 8  # JMP 0x10: target field [8:32)
VLD_F16 = 0x20 | 1 << 8  # VLD.f16 V0, [0x0]
LOOP_MINUS_1 = 0x72 | ((1 << 33) - 1) << 8  # LOOP -1: a 33-bit two's complement in [8:41)


def test_vbin_branch_into_a_function_is_refused():
    program = Program(words=(JMP_0X10, 0x70, 0x74, 0x71))  # JMP 0x10 / VF.BEGIN / MEMBAR / VF.END
    with pytest.raises(AsmError, match="a branch cannot go into a vector function"):
        assemble("JMP 0x10\nVF.BEGIN\nMEMBAR\nVF.END\n", "regression.asm")
    with pytest.raises(ProgramError):
        Machine(program, "950")


def test_vbin_branch_into_a_function_at_a_register_instruction_does_not_crash():
    program = Program(words=(JMP_0X10, 0x70, VLD_F16, 0x71, 0x56))  # ... VF.BEGIN / VLD.f16 V0, [0x0] / VF.END / HALT
    try:
        machine = Machine(program, "950")
    except ProgramError:
        return  # refused, as its source would be: the right answer
    result = machine.run(max_instructions=100)
    assert result.fault is not None, "a jump into a function must not run its instructions"


def test_vbin_negative_loop_count_is_refused():
    program = Program(words=(0x70, LOOP_MINUS_1, 0x73, 0x71))  # VF.BEGIN / LOOP -1 / ENDLOOP / VF.END
    with pytest.raises(ProgramError):
        Machine(program, "950")


def test_max_instructions_holds_with_vector_functions():
    # Each pass of the scalar loop: VF.BEGIN, LOOP, 10 x (VLD, ENDLOOP), VF.END, SUB, BNE: 25 instructions.
    source = ("MOV S20, 100\ntop: VF.BEGIN\nLOOP 10\nVLD.f32 V0, [S1]\nENDLOOP\nVF.END\nSUB S20, S20, 1\n"
              "BNE S20, 0, top\nHALT\n")
    for limit in (50, 1000):
        result = Machine(assemble(source, "regression.asm"), "950").run(max_instructions=limit)
        assert result.fault is not None and result.fault.kind == "limit"
        assert result.instructions <= limit, f"{result.instructions} instructions ran with --max-instructions {limit}"


def test_an_empty_hardware_loop_stops_at_max_instructions():
    source = "VF.BEGIN\nLOOP 100000\nENDLOOP\nVF.END\nHALT\n"
    result = Machine(assemble(source, "regression.asm"), "950").run(max_instructions=5000)
    assert result.fault is not None and result.fault.kind == "limit"
    assert result.instructions <= 5000


@pytest.mark.parametrize("strict", [False, True])
def test_a_paused_run_reports_the_races_inside_a_function(strict):
    # Iteration 2's VLD reads the 256 bytes at 0x140 that iteration 1's VST wrote, and no MEMBAR orders them.
    source = ("MOV S1, 0x100\nVF.BEGIN\nPSET.b32 P0, ALL\nLOOP 2\nVLD.f32 V0, [S1], post=64\n"
              "VADD.f32 V2, V0, V0, P0\nVST.f32 [S1], V2, P0\nENDLOOP\nVF.END\nHALT\n")
    plain = Machine(assemble(source, "regression.asm"), "950")
    plain.run(strict=strict)
    assert [(r["kind"], r["first"]["line"], r["second"]["line"]) for r in plain.report().to_json()["races"]] == \
        [("RAW", 7, 5)]
    paused = Machine(assemble(source, "regression.asm"), "950")
    result = paused.run(strict=strict, pause_after=1)
    while result.paused:
        result = paused.run(strict=strict, pause_after=paused.executed + 1)
    if not strict:
        assert paused.report().to_json() == plain.report().to_json()
        return
    # With --strict both stop at the race, the paused run once its steps have run the function and the
    # plain run when V starts it: how far S has got by then differs, the fault and the race do not.
    assert result.fault is not None and result.fault.kind == "race" and result.fault.pc == plain.result.fault.pc
    assert paused.report().to_json()["races"] == plain.report().to_json()["races"]


def test_unicode_digits_are_not_numbers():
    """The contract's numbers are decimal, hex and binary in ASCII: '١٢' (Arabic-Indic) is not 12."""
    with pytest.raises(AsmError):
        assemble("MOV S1, \u0661\u0662\n", "regression.asm")


def test_known_bug_keys_are_unique():
    keys = [b.key for b in F.KNOWN_BUGS]
    assert len(keys) == len(set(keys))


def test_counter_mode_memory_is_bounded():
    """Was: a counter-mode tensor instruction with repeat strides 0 (a legal accumulation) allocated
    five int64 arrays of one element per iteration in emulator/semantics/geometry.py dependency_distance
    (np.arange(1, iterations) ...): count=4294967295 on f32 (67M iterations) took 2.7 GB and 15 s
    without --max-cycles, although tensor.py's MAX_CHUNK is meant to bound the index arrays' memory."""
    import tracemalloc

    machine = Machine(assemble("VADD.f32 [0], [0x1000], [0x2000], count=268435456, dstrep=0, src0rep=0, "
                               "src1rep=0\nHALT\n", "regression.asm"), "950")
    tracemalloc.start()
    try:
        result = machine.run()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.fault is None
    assert peak < 64 << 20, f"peak {peak >> 20} MiB for one instruction"


# Found by test_fuzz_random_valid_programs_run_or_fault (it was the known bug paused-run-races): a
# pause lands every scheduled job at once (Machine.settle: the debugger's view), so a DMA dispatched
# after the pause that starts while the function is still writing, in simulated time, was not
# checked against it, and the paused run missed the race the full run named. Races by order
# (CONTRACT section 12, emulator/order/happens_before.py) name it in both, met in time (not latent) in both.
PAUSED_RACE = """\
    VF.BEGIN
    PSET.b8 P0, ALL
    VST.s32 [0x100], V0, P0
    VF.END
    DMA.UB2GM gm[0x0], [0x100], len=1
    HALT
"""


def test_a_paused_run_names_the_races_of_a_full_run():
    full = Machine(assemble(PAUSED_RACE, "race.asm"))
    full.run()
    paused = Machine(assemble(PAUSED_RACE, "race.asm"))
    result = paused.run(pause_after=1)
    while result.paused:
        result = paused.run()
    assert [(r.kind, r.first["pc"], r.second["pc"], r.latent) for r in full.races()] == [("RAW", 0x0, 0x20, False)]
    assert [(r.kind, r.first["pc"], r.second["pc"], r.latent) for r in paused.races()] == \
        [("RAW", 0x0, 0x20, False)]


# Found by test_fuzz_random_valid_programs_run_or_fault (known bug paused-function-races): the VST's
# mask P0 is all false (a function starts with P zero), so it writes no block and nothing races with
# the VLD of the same blocks before it; a launch (a full run) named a WAR between them all the same,
# a paused run, which steps through the function, did not. They must agree (on no race): both now
# check a launch's accesses with the same InnerOrder, job by job (issue 28).
MASKED_STORE = """\
    VF.BEGIN
    MEMBAR
    VLD.f16 V0, [0x0], blk=0
    VGATHER.f16 V0, [0x0], V0, P0
    VLD.u16 V0, [0x7000]
    VST.f16 [0x0], V0, P0
    VF.END
    HALT
"""


def test_a_paused_run_and_a_launch_agree_on_a_masked_store():
    full = Machine(assemble(MASKED_STORE, "store.asm"))
    full.run()
    paused = Machine(assemble(MASKED_STORE, "store.asm"))
    result = paused.run(pause_after=1)
    while result.paused:
        result = paused.run(pause_after=paused.executed + 1)
    assert [(r.kind, r.first["pc"], r.second["pc"]) for r in paused.races()] == []
    assert [(r.kind, r.first["pc"], r.second["pc"]) for r in full.races()] == []
