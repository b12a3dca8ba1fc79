"""The regression guard of issue 5: Python-side work per instruction does not grow with repeat,
lanes or transfer size. Counting Python function calls is deterministic, unlike wall-clock time."""

import sys

import pytest

from vcore.assembler import assemble
from vcore.emulator import Machine
from vcore.isa import TABLE


def python_calls(text: str, profile: str = "950", timed: bool = False) -> int:
    """The calls of a run with every loop run pass by pass and every pass scheduled (``fast_loops=False``):
    the per-instruction path guarded here. (How many passes a loop in closed form or a tiling loop in
    steady state takes to settle depends on timing: tests/timing/test_fast_loops.py and
    test_tiling_replay.py guard those ways.)"""
    machine = Machine(assemble(text), profile)
    machine.timed_data = machine.timed_data or timed
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        if event in ("call", "c_call"):  # Python functions and builtins (numpy's C functions too)
            calls += 1

    sys.setprofile(count)
    try:
        result = machine.run(fast_loops=False)
    finally:
        sys.setprofile(None)
    assert result.fault is None, result.fault
    return calls


LOOPS = 20


def looped(body: str) -> str:
    return f"MOV S7, 0\nloop:\n{body}\nADD S7, S7, 1\nBLT S7, {LOOPS}, loop\nHALT\n"


def assert_flat(small: int, large: int) -> None:
    # The large run may miss a few more caches once; a Python loop over its iterations or lanes
    # would add at least one call per iteration of every one of the LOOPS runs (thousands here).
    assert large - small <= 60, (small, large)


@pytest.mark.parametrize("profile", ["950", "a2"])
@pytest.mark.parametrize(("binary", "unary"), [
    ("", ""),
    (", dstblk=2, src0blk=2, src1blk=2, dstrep=16, src0rep=16, src1rep=16",
     ", dstblk=2, srcblk=2, dstrep=16, srcrep=16"),
    (", mask=(0x5555, 0x5555)", ", mask=100"),
    (", src1rep=0, src1blk=0", ", srcrep=0"),
])
def test_tensor_work_does_not_grow_with_repeat(profile, binary, unary):
    def program(repeat: int) -> str:
        # Operands 32 KiB apart (60 iterations of stride 16 span 30 KiB): no iteration reads what
        # another wrote, so each instruction is one numpy pass.
        return looped(f"VADD.f16 [0x10000], [0x0], [0x8000], repeat={repeat}{binary}\n"
                      f"VMULS.f16 [0x18000], [0x10000], 2.0, repeat={repeat}{unary}")

    # repeat=2, not 1: with a block stride, one iteration is one run of blocks and two are many,
    # which takes a (constant) numpy path of its own. Each program runs once first: the 950 prices a
    # tensor instruction as its vector function once per place of its operands, and keeps the price
    # (test_tensor_function_price_is_worked_out_in_closed_form guards that work).
    for repeat in (2, 60):
        python_calls(program(repeat), profile)
    assert_flat(python_calls(program(2), profile), python_calls(program(60), profile))


def test_tensor_function_price_is_worked_out_in_closed_form():
    """The 950's price of a tensor instruction (its vector function's schedule, worked out once per place
    of its operands) feeds the scheduler iteration by iteration only until the schedule repeats, then
    takes the rest at once: 100 and 250 iterations cost the same work the first time. (These layouts
    repeat within some 80 iterations; one whose three operands share a bank every iteration repeats
    only after some 250: its price then costs a pass an iteration, once.)"""
    def program(repeat: int) -> str:
        return looped(f"VADD.f16 [0x20000], [0x0], [0x10100], repeat={repeat}\n"
                      f"VMULS.f16 [0x30000], [0x0], 2.0, repeat={repeat}")

    python_calls(program(3))  # lazy imports
    assert_flat(python_calls(program(100)), python_calls(program(250)))


def test_counter_mode_work_does_not_grow_with_count():
    for count in (64, 7000):  # (each priced once first, as above)
        python_calls(looped(f"VADD.f32 [0x10000], [0x0], [0x8000], count={count}"))
    assert_flat(python_calls(looped("VADD.f32 [0x10000], [0x0], [0x8000], count=64")),
                python_calls(looped("VADD.f32 [0x10000], [0x0], [0x8000], count=7000")))


def test_dma_work_does_not_grow_with_blocks_or_length():
    # One pipe only: how many transfers of two pipes overlap in time (and so are compared for
    # races) depends on their length, which is timing, not Python work per byte.
    python_calls("DMA.GM2UB [0x0], gm[0x0], blocks=2, len=1, srcgap=3\n")  # warm numpy's lazy imports
    small = python_calls(looped("DMA.GM2UB [0x0], gm[0x0], blocks=2, len=1, srcgap=3"))
    large = python_calls(looped("DMA.GM2UB [0x0], gm[0x0], blocks=512, len=8, srcgap=3"))
    assert_flat(small, large)


def test_scalar_work_is_a_few_calls_per_instruction():
    def loop(n: int) -> str:
        return f"MOV S1, 0\nloop: ADD S1, S1, 1\nBLT S1, {n}, loop\nHALT\n"

    # ADD: its closure, the operation and the 64-bit wrap; BLT: its closure and the compare.
    assert python_calls(loop(2000)) - python_calls(loop(1000)) <= 5 * 1000 + 5


def asc_sub(passes: int) -> str:
    """programs/asc_sub_loop.asm's function (PUPDATE, two VLDs, VSUB, VST in a hardware loop), with
    its buffers 64 KiB apart so that any number of passes up to 256 keeps them apart."""
    return f"""\
    MOV S1, {passes * 128}
    MOV S2, 0x0
    MOV S3, 0x10000
    MOV S4, 0x20000
    VF.BEGIN
    LOOP {passes}
        PUPDATE.b16 P0, S1
        VLD.f16  V0, [S2], post=128
        VLD.f16  V1, [S3], post=128
        VSUB.f16 V2, V0, V1, P0
        VST.f16  [S4], V2, P0, post=128
    ENDLOOP
    VF.END
    HALT
"""


@pytest.mark.parametrize(("timed", "per_instruction"), [
    # (measured 145.9 and 149.3 calls a pass of 6 instructions, 24.3 and 24.9 an instruction, and 152.75,
    # 25.5, for whichever case a process runs first: its 128 passes hold one-time work. With UB's ports on
    # both sides of an access a pass waits some 16 cycles; the scheduler adds up a stall's cycles when it
    # ends and reads a cycle's use once: 163.9 first and 160.5 when it counted each stall cycle on its own)
    (False, 26),  # data in program order
    (True, 26),  # timed: the function is one job, so its two events are not per pass
])  # (not a2: it has no vector functions and refuses the program)
def test_register_loop_work_is_a_fixed_number_of_calls_per_instruction(timed, per_instruction):
    # 64 passes of the loop against 128: the extra 64 passes are 384 instructions (ENDLOOP included).
    # Each is its binder's closure, its job, its place in the function's schedule and its numpy
    # operations: a fixed number of calls, the same for every pass. A Python loop over the 128 lanes
    # of the VSUB or the VST alone would add at least 128 calls a pass, more than the bound leaves.
    def calls(passes: int) -> int:
        return python_calls(asc_sub(passes), "950", timed=timed)

    per_pass = (calls(128) - calls(64)) / 64
    assert per_pass <= 6 * per_instruction, per_pass


def test_a_program_order_run_queues_no_events(monkeypatch):
    # Data in program order: a job is performed at dispatch, so no start or end event is pushed.
    import heapq

    pushed = []
    monkeypatch.setattr(heapq, "heappush", lambda heap, item: pushed.append(item))
    machine = Machine(assemble(asc_sub(8)))
    machine.run()
    assert not machine.ran_timed
    assert pushed == []
    timed = Machine(assemble(asc_sub(8)))
    timed.timed_data = True
    timed.run()
    assert len(pushed) == 2  # a start and an end for the one function: its 40 instructions are inside it


def test_a_run_without_bf16_or_fp8_never_imports_ml_dtypes():
    # Its import costs most of the 0.5 s that `vcore run` of an empty program may take (issue 5).
    import subprocess

    code = ("import sys\nfrom vcore.assembler import assemble\nfrom vcore.emulator import Machine\n"
            "m = Machine(assemble('VF.BEGIN\\nVADD.f16 V2, V0, V1, P0\\nVSUB.f32 V3, V0, V1, P0\\nVF.END\\nHALT\\n'))\n"
            "m.run()\nm.report().to_json()\nassert 'ml_dtypes' not in sys.modules, 'ml_dtypes imported'\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("line", [
    "VADD.f32 [0x20000], [0x20000], [0x0], dstrep=0, src0rep=0",
    "VMAX.f16 [0x20000], [0x0], [0x20000], dstrep=0, src1rep=0, src0rep=1, mask=(0x5555, 0x5555)",
    "VMUL.bf16 [0x20000], [0x20000], [0x0], dstrep=0, src0rep=0, dstblk=2, src0blk=2, mask=100",
    "VADDS.s32 [0x20000], [0x20000], 3, dstrep=0, srcrep=0",
])
def test_the_accumulate_idiom_does_not_grow_with_repeat(line):
    # Later iterations read what earlier ones wrote, through the accumulator (the destination and
    # a source the same blocks, repeat stride 0): one numpy fold, not a pass per iteration.
    def program(repeat: int, timed: bool) -> str:
        n = repeat * (64 if ".f32" in line or ".s32" in line else 128)
        counter = timed and "mask" not in line  # counter mode: a partial last iteration
        tail = f"count={n - 5}" if counter else f"repeat={repeat}"
        return f".ubfill 0x0, u16, 65536, 0x3c01\n{line}, {tail}\nHALT\n"

    for timed in (False, True):
        for repeat in (2, 255):  # warm the geometry caches of both shapes
            python_calls(program(repeat, timed), timed=timed)
        small, large = python_calls(program(2, timed), timed=timed), python_calls(program(255, timed), timed=timed)
        assert abs(large - small) < 30, (timed, small, large)


# The example of every row that iterates by repeat= (isa.forms: a tensor form's shape reads it on every
# row, checked at import; isa/table.py writes them with operands 64 KiB apart: no iteration of 255 reads
# what another wrote), and a few more paths of the same shapes no example takes.
# (VMRGSORT of 2 or 3 queues takes repeat=0 or 1 alone, CONTRACT 13.6: its 4-queue form repeats)
ONCE_ONLY = ("tensor-merge2", "tensor-merge3")
TENSOR_EXAMPLES = [row.example for row in TABLE if row.keyword("repeat") is not None and row.form not in ONCE_ONLY]
MORE_PATHS = ["VCONV.s32.f16 [0x20000], [0x0], srcrep=4, round=round", "VCADD.s32 [0x20000], [0x0], dstrep=3"]


def test_every_tensor_row_is_covered_here():
    from vcore.emulator.semantics.registry import BINDERS, FORMS_OF
    from vcore.emulator.semantics.tensor import bind_tensor
    from vcore.isa.forms import FORMS

    # every row the tensor shape binds, and every row of a form timed as a tensor transfer, iterates
    tensor_rows = [row for row in TABLE if BINDERS[row.family] is bind_tensor or "tensor" in FORMS[row.form].classes]
    assert tensor_rows and {row.example for row in tensor_rows if row.form not in ONCE_ONLY} <= set(TENSOR_EXAMPLES)
    assert {row.form for row in TABLE if BINDERS[row.family] is bind_tensor} <= set(FORMS_OF["tensor"])
    assert all("repeat=" not in line and "count=" not in line for line in TENSOR_EXAMPLES + MORE_PATHS)


@pytest.mark.parametrize("line", TENSOR_EXAMPLES + MORE_PATHS)
@pytest.mark.parametrize("timed", [False, True])
def test_new_tensor_forms_do_not_grow_with_repeat(line, timed):
    def program(repeat: int) -> str:
        mem = ".ubfill 0x0, u32, 32768, 0x3c003c00\n.ubfill 0x30000, u8, 8192, 0x5a\n"
        return mem + looped(f"{line}, repeat={repeat}")

    for repeat in (2, 255):  # warm the geometry caches, lazy imports and the 950's function prices
        python_calls(program(repeat), timed=timed)
    assert_flat(python_calls(program(2), timed=timed), python_calls(program(255), timed=timed))


def test_new_register_forms_are_a_fixed_number_of_calls_per_instruction():
    body = """\
        VLD.f32 V0, [S2], post=64
        VCONV.f16.f32 V1, V0, P0, round=trunc, part=1
        VCMPS.GT.f32 P1, V0, 0.5, P0
        VSEL.f32 V2, V0, V3, P1
        VDUP.f32 V3, V2, P1
        VARANGE.s32 V4, 7
        PXOR P2, P1, P0
        VNEG.f32 V5, V2, P2
        VST.f32 [S4], V5, P0, post=64
"""

    def calls(passes: int) -> int:
        return python_calls(f"MOV S2, 0\nMOV S4, 0x20000\nVF.BEGIN\nPSET.b32 P0, ALL\nLOOP {passes}\n{body}"
                            f"ENDLOOP\nVF.END\nHALT\n")

    # Measured 256 calls a pass of 10 instructions (ENDLOOP included): a conversion by a rounding mode
    # is some 30 numpy calls, a compare or select a few. A loop over the 64 lanes of any of them
    # would add at least 64 calls a pass.
    per_pass = (calls(128) - calls(64)) / 64
    assert per_pass <= 300, per_pass


def test_register_reductions_are_a_fixed_number_of_calls_per_instruction():
    body = """\
        VLD.f16 V0, [S2], post=128
        VREDUCE.SUM.f16 V1, V0, P0
        VREDUCE.MAX.s16 V2, V0, P0
        VREDUCE.MIN.f16 V3, V0, P0
        VREDUCE.SUM.u16 V4, V0, P0
"""

    def calls(passes: int) -> int:
        return python_calls(f"MOV S2, 0\nVF.BEGIN\nPSET.b16 P0, ALL\nLOOP {passes}\n{body}ENDLOOP\nVF.END\nHALT\n")

    # Measured 206 calls a pass of 6 instructions (ENDLOOP included): some 45 numpy calls a reduction.
    # A loop over the 128 lanes of one of them would add at least 128 calls a pass.
    per_pass = (calls(128) - calls(64)) / 64
    assert per_pass <= 300, per_pass


def test_a_per_datablock_reduction_leaving_blocks_on_a2_does_not_grow_with_repeat():
    # One instruction, not the loop of the tests above: looped, a longer instruction holds more of
    # the loop's later ones in the queue, and their race checks (not its lanes) add calls.
    def program(repeat: int) -> str:
        line = f"VCGMAX.f32 [0x20000], [0x0], mask=(0xF0, 0), repeat={repeat}"
        return f".ubfill 0x0, u32, 32768, 0x3c003c00\n{line}\nHALT\n"

    python_calls(program(64), "a2")
    assert_flat(python_calls(program(64), "a2"), python_calls(program(255), "a2"))
