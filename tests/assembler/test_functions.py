"""Vector functions in the assembler (CONTRACT section 7): every rule of a function's shape is an
assembly error at the statement (or operand) that breaks it, with its exact message; valid functions
assemble to the words their rows give; and the same words, read as a ``.vbin``, are refused by the
emulator with the same message (the two share one reading of the rules, isa/functions.py).

Messages are copied from isa/functions.py (placed by assembler/structure.py); lines and columns are
counted by hand on the sources below (1-based).
"""

from __future__ import annotations

import pytest
import strategies as S  # tests/strategies.py: tests/conftest.py puts tests/ on the path

from vcore import isa
from vcore.assembler import AsmError, assemble
from vcore.emulator import Machine, ProgramError
from vcore.isa import RegOrImm, decode_program
from vcore.isa.program import Program
from vcore.isa.text import inst_text

SCALARS = "MOV, ADD, SUB, MUL, AND, OR, XOR, SHL, SHR"
REGISTER_OUTSIDE = ("{} is a register instruction, which runs only inside a vector function: put it between "
                    "VF.BEGIN and VF.END")
NOT_INSIDE = ("{} cannot be inside a vector function: a function holds register instructions, LOOP/ENDLOOP, "
              f"MEMBAR and the scalar {SCALARS}; put it before VF.BEGIN or after VF.END")
TENSOR_INSIDE = NOT_INSIDE.format("{} with UB operands is a tensor instruction, which")
OUTSIDE = "{} outside a vector function: it belongs between VF.BEGIN and VF.END"
NESTED = "VF.BEGIN inside a vector function (functions do not nest): end the open one with VF.END first"
ENDLOOP_ALONE = "ENDLOOP without a LOOP before it in this function"
LOOP_OPEN = "LOOP without an ENDLOOP before its function's VF.END"
TOO_DEEP = "hardware loops nest at most 4 deep; this LOOP is the 5th: merge two loops or split the function"
UNCLOSED = "VF.BEGIN without a VF.END: the function must end before the program does"
END_ALONE = "VF.END without a VF.BEGIN before it"
INTO = "a branch cannot go into a vector function: a function runs from its VF.BEGIN, which the branch may target"


def _errors(source: str) -> list[tuple[int, int, int, str]]:
    with pytest.raises(AsmError) as info:
        assemble(source, "t.asm")
    return [(d.location.line, d.location.col, d.location.length, d.message) for d in info.value.diagnostics]


def _mnemonics(source: str) -> list[str]:
    return [inst.row.mnemonic for _, inst in decode_program(assemble(source, "t.asm").words)]


# -- one error each: (source, line, column, length, message) ------------------------------------------

def _inside(line: str, after: str = "") -> str:
    """``line`` as the second line of a function (column 5), ``after`` after its VF.END."""
    return f"VF.BEGIN\n    {line}\nVF.END\n{after}"


CASES = [
    # a register instruction outside a function: at its mnemonic
    pytest.param("MOV S1, 0\n  VLD.f32 V0, [S1]\n", 2, 3, 3, REGISTER_OUTSIDE.format("VLD"), id="vld-outside"),
    pytest.param("VF.BEGIN\nVF.END\nPSET.b16 P0, ALL\n", 3, 1, 4, REGISTER_OUTSIDE.format("PSET"),
                 id="pset-after-a-function"),
    pytest.param("VADD.f32 V2, V0, V1, P0\n", 1, 1, 4, REGISTER_OUTSIDE.format("VADD"), id="register-vadd-outside"),
    pytest.param("\tVDIV.f16 V2, V0, V1, P0\n", 1, 2, 4, REGISTER_OUTSIDE.format("VDIV"), id="register-vdiv-outside"),
    pytest.param("PUPDATE.b32 P0, S1\n", 1, 1, 7, REGISTER_OUTSIDE.format("PUPDATE"), id="pupdate-outside"),
    pytest.param("VSCATTER.u16 [S1], V0, V1, P0\n", 1, 1, 8, REGISTER_OUTSIDE.format("VSCATTER"),
                 id="vscatter-outside"),
    # what a function may not hold: at its mnemonic
    pytest.param(_inside("DMA.GM2UB [0], gm[0], len=1"), 2, 5, 9, NOT_INSIDE.format("DMA.GM2UB"), id="dma-in-inside"),
    pytest.param(_inside("DMA.UB2GM gm[0], [0], len=1"), 2, 5, 9, NOT_INSIDE.format("DMA.UB2GM"), id="dma-out-inside"),
    pytest.param(_inside("BEQ S1, 0, out", "out: HALT\n"), 2, 5, 3, NOT_INSIDE.format("BEQ"), id="branch-inside"),
    pytest.param(_inside("JMP out", "out:\n"), 2, 5, 3, NOT_INSIDE.format("JMP"), id="jump-inside"),
    pytest.param(_inside("HALT"), 2, 5, 4, NOT_INSIDE.format("HALT"), id="halt-inside"),
    pytest.param(_inside("NOP"), 2, 5, 3, NOT_INSIDE.format("NOP"), id="nop-inside"),
    pytest.param(_inside("VADD.f16 [0], [0], [0]"), 2, 5, 4, TENSOR_INSIDE.format("VADD"), id="tensor-inside"),
    pytest.param(_inside("VEXP.f32 [0x100], [0x200], repeat=2"), 2, 5, 4, TENSOR_INSIDE.format("VEXP"),
                 id="tensor-unary-inside"),
    pytest.param(_inside("VMULS.f32 [0], [0], 2.0"), 2, 5, 5, TENSOR_INSIDE.format("VMULS"), id="tensor-scalar-inside"),
    pytest.param(_inside("SETFLAG V, MTE3, 0"), 2, 5, 7, NOT_INSIDE.format("SETFLAG"), id="setflag-inside"),
    pytest.param(_inside("WAITFLAG MTE2, V, 1"), 2, 5, 8, NOT_INSIDE.format("WAITFLAG"), id="waitflag-inside"),
    pytest.param(_inside("BARRIER V"), 2, 5, 7, NOT_INSIDE.format("BARRIER"), id="barrier-inside"),
    pytest.param("VF.BEGIN\n  VF.BEGIN\nVF.END\n", 2, 3, 8, NESTED, id="nested-vf-begin"),
    # the structure rows out of place
    pytest.param("NOP\n  LOOP 4\n", 2, 3, 4, OUTSIDE.format("LOOP"), id="loop-outside"),
    pytest.param("MEMBAR\n", 1, 1, 6, OUTSIDE.format("MEMBAR"), id="membar-outside"),
    pytest.param("VF.BEGIN\nVF.END\nENDLOOP\n", 3, 1, 7, OUTSIDE.format("ENDLOOP"), id="endloop-outside"),
    pytest.param("VF.BEGIN\n  ENDLOOP\nVF.END\n", 2, 3, 7, ENDLOOP_ALONE, id="endloop-without-loop"),
    # the outer LOOP (line 2) is the one left open: the ENDLOOP on line 4 closes the inner one
    pytest.param("VF.BEGIN\n  LOOP 3\n    LOOP 2\n    ENDLOOP\nVF.END\n", 2, 3, 4, LOOP_OPEN,
                 id="loop-without-endloop"),
    pytest.param("VF.BEGIN\n" + "".join(f"{' ' * k}LOOP {k + 1}\n" for k in range(5))
                 + "".join(f"{' ' * k}ENDLOOP\n" for k in reversed(range(5))) + "VF.END\n",
                 6, 5, 4, TOO_DEEP, id="fifth-nested-loop"),
    pytest.param("MOV S1, 1\n VF.BEGIN\nVLD.f32 V0, [S1]\n", 2, 2, 8, UNCLOSED, id="vf-begin-without-vf-end"),
    pytest.param("NOP\nVF.END\n", 2, 1, 6, END_ALONE, id="vf-end-without-vf-begin"),
    pytest.param("VF.BEGIN\nVF.END\nVF.END\n", 3, 1, 6, END_ALONE, id="vf-end-twice"),
    # what only the operands show: at the operand
    pytest.param("    JMP inside\nVF.BEGIN\ninside: MEMBAR\nVF.END\n", 1, 9, 6, INTO, id="jump-into-a-function"),
    pytest.param("VF.BEGIN\n  PSET.b16 P0, ALL\nin: VLD.f16 V0, [S1]\nVF.END\nBNE S1, 0, in\n", 5, 12, 2, INTO,
                 id="branch-back-into-a-function"),
    pytest.param("BEQ S1, S2, last\nVF.BEGIN\nlast: VF.END\n", 1, 13, 4, INTO, id="branch-to-vf-end"),
    pytest.param("JMP 0x10\nVF.BEGIN\nMEMBAR\nVF.END\n", 1, 5, 4, INTO, id="numeric-target-inside"),
    pytest.param("VF.BEGIN\n  LOOP -1\nENDLOOP\nVF.END\n", 2, 8, 2, "a loop runs 0 or more times, not -1",
                 id="loop-minus-1"),
    pytest.param("VF.BEGIN\n  LOOP 2 - 3\nENDLOOP\nVF.END\n", 2, 8, 5, "a loop runs 0 or more times, not -1",
                 id="loop-negative-expression"),
    # 33-bit signed: 2**32 - 1 is the largest count
    pytest.param("VF.BEGIN\n  LOOP 4294967296\nENDLOOP\nVF.END\n", 2, 8, 10,
                 "immediate 4294967296 out of range -4294967296..4294967295", id="loop-count-too-big"),
]


@pytest.mark.parametrize(("source", "line", "col", "length", "message"), CASES)
def test_a_broken_rule_is_one_located_error(source, line, col, length, message):
    assert _errors(source) == [(line, col, length, message)]


def test_every_broken_rule_is_reported_at_once():
    source = "\n".join([
        "LOOP 2",                      # 1 outside
        "VF.BEGIN",                    # 2
        "  NOP",                       # 3 not inside
        "  ENDLOOP",                   # 4 without LOOP
        "  LOOP S1",                   # 5 left open
        "VF.END",                      # 6
        "VLD.f16 V0, [S1]",            # 7 outside
        "JMP 0x18",                    # 8 into the function (pc 0x18: line 4)
        "VF.BEGIN",                    # 9 never closed
        "",
    ])
    assert _errors(source) == [
        (1, 1, 4, OUTSIDE.format("LOOP")),
        (3, 3, 3, NOT_INSIDE.format("NOP")),
        (4, 3, 7, ENDLOOP_ALONE),
        (5, 3, 4, LOOP_OPEN),
        (7, 1, 3, REGISTER_OUTSIDE.format("VLD")),
        (8, 5, 4, INTO),
        (9, 1, 8, UNCLOSED),
    ]


def test_the_formatted_error_has_its_caret():
    with pytest.raises(AsmError) as info:
        assemble("VF.BEGIN\n    HALT\nVF.END\n", "f.asm")
    assert str(info.value).splitlines() == [f"f.asm:2:5: error: {NOT_INSIDE.format('HALT')}", "    HALT", "    ^~~~"]


# -- valid functions ----------------------------------------------------------------------------------

def test_loops_four_deep_assemble():
    source = ("VF.BEGIN\n  LOOP 2\n    LOOP S3\n      LOOP 0\n        LOOP 4294967295\n          MEMBAR\n"
              "        ENDLOOP\n      ENDLOOP\n    ENDLOOP\n  ENDLOOP\nVF.END\n")
    program = assemble(source, "t.asm")
    insts = [inst for _, inst in decode_program(program.words)]
    assert [i.row.mnemonic for i in insts] == ["VF.BEGIN", "LOOP", "LOOP", "LOOP", "LOOP", "MEMBAR", "ENDLOOP",
                                               "ENDLOOP", "ENDLOOP", "ENDLOOP", "VF.END"]
    assert [i.operands[0] for i in insts[1:5]] == [RegOrImm(None, 2), RegOrImm(3), RegOrImm(None, 0),
                                                   RegOrImm(None, (1 << 32) - 1)]


def test_four_deep_twice_in_a_row_is_not_five_deep():
    deep = "".join("LOOP 1\n" for _ in range(4)) + "".join("ENDLOOP\n" for _ in range(4))
    assert _mnemonics(f"VF.BEGIN\n{deep}{deep}VF.END\n").count("LOOP") == 8


def test_the_contract_example_assembles():
    source = ("VF.BEGIN\n    PSET.b32 P0, ALL\n    LOOP 64\n        VLD.f32 V0, [S1], post=64\n"
              "        VLD.f32 V1, [S2], post=64\n        VADD.f32 V2, V0, V1, P0\n"
              "        VST.f32 [S3], V2, P0, post=64\n    ENDLOOP\nVF.END\n")
    assert _mnemonics(source) == ["VF.BEGIN", "PSET", "LOOP", "VLD", "VLD", "VADD", "VST", "ENDLOOP", "VF.END"]


@pytest.mark.parametrize("scalar", ["MOV S5, 7", "MOV S5, S6", "ADD S1, S1, 64", "SUB S2, S2, S3", "MUL S4, S4, 3",
                                    "AND S4, S4, 0xFF", "OR S4, S4, 1", "XOR S4, S4, S4", "SHL S4, S4, 2",
                                    "SHR S4, S4, 1"])
def test_the_scalar_lane_instructions_may_stand_inside(scalar):
    assert _mnemonics(f"VF.BEGIN\n  {scalar}\n  LOOP S5\n    VLD.f32 V0, [S1]\n  ENDLOOP\nVF.END\n")[1] == \
        scalar.split()[0]


def test_membar_and_mixed_bodies_assemble():
    source = ("MOV S1, 0x100\nVF.BEGIN\n  MOV S4, 3\n  PSET.b32 P0, ALL\n  LOOP S4\n    VLD.f32 V0, [S1]\n"
              "    VADDS.f32 V1, V0, 1.0, P0\n    VST.f32 [S1], V1, P0\n    MEMBAR\n    ADD S1, S1, 64\n"
              "  ENDLOOP\nVF.END\nHALT\n")
    assert _mnemonics(source) == ["MOV", "VF.BEGIN", "MOV", "PSET", "LOOP", "VLD", "VADDS", "VST", "MEMBAR", "ADD",
                                  "ENDLOOP", "VF.END", "HALT"]


def test_an_empty_function_and_an_empty_loop_assemble():
    assert _mnemonics("VF.BEGIN\nVF.END\nVF.BEGIN\nLOOP 3\nENDLOOP\nVF.END\n") == \
        ["VF.BEGIN", "VF.END", "VF.BEGIN", "LOOP", "ENDLOOP", "VF.END"]


def test_a_branch_may_go_to_vf_begin_and_past_vf_end():
    """A label on VF.BEGIN is the function's start (allowed); the line after VF.END is outside."""
    source = ("top: VF.BEGIN\n  PSET.b16 P0, ALL\nVF.END\nnext: ADD S1, S1, 1\nBLT S1, 3, top\nBNE S1, 9, next\n"
              "JMP 0\n")
    program = assemble(source, "t.asm")
    assert [inst.operands[-1] for _, inst in decode_program(program.words)[4:]] == [0, 0x18, 0]


def test_labels_inside_a_function_are_fine_when_no_branch_goes_there():
    assert _mnemonics("VF.BEGIN\nin: MEMBAR\nVF.END\n") == ["VF.BEGIN", "MEMBAR", "VF.END"]


def test_dotted_mnemonics_are_case_insensitive():
    assert assemble("vf.begin\n  loop s3\n  endloop\n  membar\nVf.End\n", "t.asm").words == \
        assemble("VF.BEGIN\n  LOOP S3\n  ENDLOOP\n  MEMBAR\nVF.END\n", "t.asm").words


# -- the same words as a .vbin: the emulator refuses them alike ----------------------------------------

_CONTEXT_ROWS = [isa.MNEMONICS[m][0] for m in ("NOP", "VLD", "LOOP", "ENDLOOP", "VF.BEGIN", "VF.END")]


def _line_words(line: str) -> tuple[int, ...]:
    """One statement's words, assembled in whichever minimal context makes it valid."""
    for row in _CONTEXT_ROWS:
        placed = S.in_context(row, text=line)
        try:
            program = assemble(placed.text, "line.asm")
        except AsmError:
            continue
        pcs = sorted(program.source)
        k = next(k for k, pc in enumerate(pcs) if program.source[pc].line == placed.line)
        end = pcs[k + 1] if k + 1 < len(pcs) else 8 * len(program.words)
        return program.words[pcs[k] // 8:end // 8]
    raise AssertionError(f"{line!r} assembles in no context")


VBIN_CASES = [c for c in CASES if c.id in (
    "vld-outside", "pset-after-a-function", "pupdate-outside", "dma-in-inside", "halt-inside", "nop-inside",
    "tensor-inside", "setflag-inside", "barrier-inside", "nested-vf-begin", "loop-outside", "membar-outside",
    "endloop-outside", "endloop-without-loop", "loop-without-endloop", "fifth-nested-loop",
    "vf-begin-without-vf-end", "vf-end-without-vf-begin", "vf-end-twice")]


@pytest.mark.parametrize(("source", "line", "col", "length", "message"), VBIN_CASES)
def test_a_vbin_with_the_same_words_is_refused_with_the_same_message(source, line, col, length, message):
    """Crafted words (no source map): ProgramError before the run, naming the pc and the message."""
    words, pc_of_line = [], {}
    for number, text in enumerate(source.splitlines(), 1):
        if text.strip():
            pc_of_line[number] = 8 * len(words)
            words += _line_words(text)
    with pytest.raises(ProgramError) as refused:
        Machine(Program(words=tuple(words)), "950")
    pc = pc_of_line[line]
    shown = inst_text(isa.decode(words, pc // 8))
    assert str(refused.value).splitlines() == [f"<program>: error: {message}", f"  at pc 0x{pc:04x}: {shown}"]
