"""The a2 profile has no vector functions, so no register instructions (CONTRACT 7): a program with one
is refused before it starts (exit status 2), naming the first such line and the 950 profile. Run
there, such programs gave wrong answers without a fault (the micro-API add sample: 6 race warnings
and all zeros). As the assembler accepts register instructions only inside a function, the line
named in a valid program is its first VF.BEGIN; a hand-made .vbin with a bare register instruction
is refused at that instruction."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import vcore, vcore_here

from vcore import isa
from vcore.assembler import assemble
from vcore.emulator import Machine, ProgramError

PROGRAMS = Path(__file__).resolve().parents[2] / "programs"

# One statement per register instruction form: each row's example (the instruction alone, valid on
# the 950 inside a function), so a new register row is refused here as soon as the table has it.
REGISTER_LINES = {(row.mnemonic, row.form): row.example for row in isa.TABLE if row.register}


def test_every_register_form_is_listed():
    # The opcode blocks 0x20..0x3F and 0xA0..0xCF hold the register instructions; each has a line above.
    forms = {(r.mnemonic, r.form) for r in isa.TABLE if 0x20 <= r.opcode < 0x40 or 0xA0 <= r.opcode < 0xD0}
    assert forms == set(REGISTER_LINES)
    assert all(len(line.splitlines()) == 1 for line in REGISTER_LINES.values())


VF_REFUSAL = ("VF.BEGIN starts a vector function, and the a2 profile has no vector functions: vector functions "
              "need the 950 profile (--profile 950)")
REGISTER_REFUSAL = "register instructions need the 950 profile (--profile 950)"


@pytest.mark.parametrize("line", REGISTER_LINES.values(), ids=[f"{m}-{f}" for m, f in REGISTER_LINES])
def test_a2_refuses_each_register_instruction_naming_its_line(tmp_path, line):
    # Register instructions live in vector functions (CONTRACT 7): the 950 runs the function, the a2
    # refuses the program at its VF.BEGIN (line 4), the first line it cannot run.
    path = tmp_path / "p.asm"
    path.write_text(f"    MOV S1, 0x100\n    MOV S2, 64\n    NOP\n    VF.BEGIN\n    {line}\n    VF.END\n    HALT\n")
    # In this process: the command of test_the_micro_api_add_sample... below, once per register form.
    assert vcore_here("run", path, "--report", "none").returncode == 0  # the 950 runs it
    r = vcore_here("run", path, "--profile", "a2")
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""  # refused before it starts: no report
    first = r.stderr.splitlines()[0]
    assert first == f"{path}:4:5: error: {VF_REFUSAL}", first
    assert r.stderr.splitlines()[1] == "    VF.BEGIN"
    assert "Traceback" not in r.stderr


def _bare_register_vbin(tmp_path, line: str):
    """A .vbin (made by hand: the assembler refuses this) whose register instruction stands outside any
    vector function, after MOV S1, 0x100 and NOP: the instruction's word, taken from the function the
    assembler accepts."""
    from vcore.isa.program import Program, to_bytes

    inside = assemble(f"MOV S1, 0x100\nNOP\nVF.BEGIN\n{line}\nVF.END\nHALT\n").words
    assert len(inside) == 6  # every word one instruction
    path = tmp_path / "bare.vbin"
    path.write_bytes(to_bytes(Program(words=inside[:2] + inside[3:4] + inside[5:])))
    return path


@pytest.mark.parametrize("line", REGISTER_LINES.values(), ids=[f"{m}-{f}" for m, f in REGISTER_LINES])
def test_a2_refuses_a_bare_register_instruction_of_a_vbin_naming_its_pc(tmp_path, line):
    path = _bare_register_vbin(tmp_path, line)
    mnemonic = line.split(".")[0].split()[0]
    r = vcore_here("run", path, "--profile", "a2")
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    first = r.stderr.splitlines()[0]
    assert first.startswith(f"{path}: error: {mnemonic} ") and first.endswith(REGISTER_REFUSAL), first
    assert r.stderr.splitlines()[1].startswith("  at pc 0x0010: "), r.stderr   # MOV 0x0, NOP 0x8
    r = vcore_here("run", path)   # the 950 refuses it too: outside a function
    assert r.returncode == 2 and "only inside a vector function" in r.stderr and "at pc 0x0010" in r.stderr, r.stderr


def test_the_first_function_line_is_named_and_debug_refuses_too(tmp_path):
    path = tmp_path / "p.asm"
    path.write_text(".ubfill 0x0, f32, 64, 1.0\n    VADD.f32 [0x100], [0x0], [0x0]\n    MOV S1, 0\n"
                    "    VF.BEGIN\n    VLD.f32 V0, [S1]\n    VST.f32 [S1], V0, P0\n    VF.END\n")
    for command in ("run", "debug"):
        r = vcore(command, path, "--profile", "a2", stdin="quit\n")
        assert r.returncode == 2, (command, r.stderr)
        assert r.stderr.startswith(f"{path}:4:5: error: {VF_REFUSAL}\n"), r.stderr


def test_the_refusal_comes_before_the_assemblers_warnings(tmp_path):
    # The error's message is the first line: a refused program's warnings (MOV to S0, line 1) are not
    # told, and a program that runs tells them as before. (The CLI fuzzer found them first.)
    path = tmp_path / "p.asm"
    path.write_text("    MOV S0, 1\n    VF.BEGIN\n    PSET.b16 P0, ALL\n    VF.END\n    HALT\n")
    for command in ("run", "debug"):
        r = vcore_here(command, path, "--profile", "a2")
        assert r.returncode == 2, (command, r.stderr)
        assert r.stderr.startswith(f"{path}:2:5: error: {VF_REFUSAL}\n"), r.stderr
        assert "warning" not in r.stderr, r.stderr
    r = vcore_here("run", path, "--report", "none")
    assert r.returncode == 0 and r.stderr.startswith(f"{path}:1:9: warning: MOV writes S0"), r.stderr


def test_a_vbin_is_refused_naming_the_pc(tmp_path):
    src, out = tmp_path / "p.asm", tmp_path / "p.vbin"
    src.write_text("    MOV S1, 0\n    VF.BEGIN\n    PSET.b16 P0, ALL\n    VF.END\n")
    assert vcore("asm", src, "-o", out).returncode == 0
    r = vcore("run", out, "--profile", "a2")
    assert r.returncode == 2
    assert r.stderr.startswith(f"{out}: error: {VF_REFUSAL}\n") and "at pc 0x0008: VF.BEGIN" in r.stderr, r.stderr


def test_the_micro_api_add_sample_is_refused_on_a2_and_runs_on_950():
    path = PROGRAMS / "asc_sub_loop.asm"
    r = vcore("run", path, "--profile", "a2")
    assert r.returncode == 2 and "950 profile" in r.stderr and "race" not in r.stderr, r.stderr
    assert vcore("run", path, "--report", "none").returncode == 0


def test_tensor_programs_still_run_on_a2(tmp_path):
    path = tmp_path / "t.asm"
    path.write_text(".ubfill 0x0, f16, 256, 1.5\n.ubfill 0x800, f16, 256, 2.25\n"
                    "    VADD.f16 [0x1000], [0x0], [0x800], repeat=2\n")
    r = vcore("run", path, "--profile", "a2", "--dump", "ub:0x1000:f16:2")
    assert r.returncode == 0, r.stderr
    assert "ub:0x1000:f16:2 = 3.75 3.75" in r.stdout  # 1.5 + 2.25


def test_the_python_api_raises_program_error():
    program = assemble("MOV S1, 0\nVF.BEGIN\nVLD.f16 V0, [S1]\nVF.END\n", "api.asm")
    with pytest.raises(ProgramError, match=r"api.asm:2:1: error: VF.BEGIN starts a vector function.*950 profile"):
        Machine(program, "a2")
    Machine(program, "950").run()


def test_a_custom_profile_says_whether_it_has_vector_functions(tmp_path):
    from vcore.emulator.profiles.profile import builtin_text

    text = builtin_text("950").replace("vector_functions = true", "vector_functions = false", 1)
    assert text != builtin_text("950")
    half = tmp_path / "half.toml"  # (without vector functions, tensor instructions cannot be priced as them)
    half.write_text(text)
    text = text.replace("as_function = true", "as_function = false", 1)
    custom = tmp_path / "novf.toml"
    custom.write_text(text)
    path = tmp_path / "p.asm"
    path.write_text("VF.BEGIN\nPSET.b16 P0, ALL\nVF.END\n")
    r = vcore("run", path, "--profile", half)
    assert r.returncode == 2 and "tensor.as_function needs machine.vector_functions" in r.stderr, r.stderr
    r = vcore("run", path, "--profile", custom)
    assert r.returncode == 2 and "the 950 profile has no vector functions" in r.stderr, r.stderr
    assert vcore("run", path, "--report", "none").returncode == 0   # the built-in 950 has them
