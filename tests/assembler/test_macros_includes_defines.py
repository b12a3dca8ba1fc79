"""CONTRACT 9: .include, .macro/.endm with \\@, .rept/.endr, -D NAME=VALUE (winning over .equ); a
diagnostic inside a macro or an included file names both places. Expected words and places are
worked out by hand from the source text."""

from __future__ import annotations

import pytest

from vcore.assembler import AsmError, assemble, parse_define
from vcore.isa import decode_program


def _texts(program) -> list[str]:
    return [text for _, text in sorted((pc, s.text) for pc, s in program.source.items())]


def _errors(text: str, filename: str = "t.asm", **kw) -> list[tuple[str, int, int, str, list[str]]]:
    with pytest.raises(AsmError) as info:
        assemble(text, filename, **kw)
    out = []
    for d in info.value.diagnostics:
        notes = [f"{s.file}:{s.line}:{s.col}: {s.what}" for s in d.location.via]
        out.append((d.location.file, d.location.line, d.location.col, d.message, notes))
    return out


def test_a_macro_expands_its_arguments_and_gives_each_use_its_own_labels():
    text = """\
.macro COUNTDOWN reg, n
    MOV \\reg, \\n
again\\@:
    SUB \\reg, \\reg, 1
    BNE \\reg, 0, again\\@
.endm
start: COUNTDOWN S1, 3
    COUNTDOWN S2, 0x10
    HALT
"""
    program = assemble(text)
    assert _texts(program) == ["MOV S1, 3", "SUB S1, S1, 1", "BNE S1, 0, again1",
                               "MOV S2, 0x10", "SUB S2, S2, 1", "BNE S2, 0, again2", "HALT"]
    assert program.labels == {"start": 0, "again1": 8, "again2": 32}
    # Each statement's line is the line of the program it came from: the use.
    assert [program.source[pc].line for pc in sorted(program.source)] == [7, 7, 7, 8, 8, 8, 9]
    from vcore.emulator import Machine

    m = Machine(program)
    r = m.run()
    assert r.fault is None and (m.s[1], m.s[2]) == (0, 0)


def test_rept_repeats_its_lines_with_a_count_from_a_constant_or_a_define():
    text = ".equ UNROLL, 3\n.rept UNROLL * 2 - 1\n    ADD S1, S1, 2\n.endr\n    HALT\n"
    assert _texts(assemble(text)).count("ADD S1, S1, 2") == 5
    assert _texts(assemble(text, defines={"UNROLL": 1})).count("ADD S1, S1, 2") == 1
    assert _texts(assemble(".rept 0\n    NOP\n.endr\nHALT\n")) == ["HALT"]
    nested = ".rept 2\n.rept 3\n    NOP\n.endr\n    ADD S1, S1, 1\n.endr\nHALT\n"
    assert _texts(assemble(nested)) == ["NOP"] * 3 + ["ADD S1, S1, 1"] + ["NOP"] * 3 + ["ADD S1, S1, 1", "HALT"]


def test_a_define_wins_over_the_equ_and_stands_alone_too():
    text = ".equ TILE, 64\n    MOV S1, TILE\n    MOV S2, EXTRA + TILE\n    HALT\n"
    words = decode_program(assemble(text, defines={"TILE": 128, "EXTRA": 1}).words)
    assert [inst.operands[1].imm for _, inst in words[:2]] == [128, 129]
    assert _errors(text)[0][3].startswith("undefined symbol 'EXTRA'")
    assert _errors("TILE: HALT\n", defines={"TILE": 1})[0][1:4] == (
        1, 1, "'TILE' is defined with -D, so a label cannot be called that")


@pytest.mark.parametrize(("text", "want"), [
    ("TILE=64", ("TILE", 64)), ("N=0x40", ("N", 64)), ("N = 4 * 16 ", ("N", 64)), ("N=-1", ("N", -1)),
])
def test_parse_define(text, want):
    assert parse_define(text) == want


@pytest.mark.parametrize(("text", "reason"), [
    ("TILE", "write -D NAME=VALUE"), ("=3", "is not a name"), ("S3=1", "register name"),
    ("VADD=1", "is an instruction"), ("N=1/0", "division by zero"), ("N=x", "undefined symbol 'x'"),
    ("N=1.5", "expected an integer"),
])
def test_a_bad_define_says_why(text, reason):
    with pytest.raises(ValueError, match=reason):
        parse_define(text)


def test_the_api_takes_a_define_as_an_int_or_as_minus_d_writes_it():
    # (a string value raised a TypeError from inside the assembler; issue 30's note)
    text = "    MOV S1, TILE\n    HALT\n"
    for value in (64, "64", "4 * 16", "0x40"):
        assert decode_program(assemble(text, defines={"TILE": value}).words)[0][1].operands[1].imm == 64
    for value, reason in ((1.5, "an int or a constant expression"), (True, "an int or a constant expression"),
                          ("4 *", "expected an operand"), ("S1", "expected an expression")):
        with pytest.raises(ValueError, match=reason):
            assemble(text, defines={"TILE": value})


def test_include_is_relative_to_the_including_file(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "ops.asm").write_text('.include "consts.asm"\n.macro INC r\n    ADD \\r, \\r, STEP\n.endm\n')
    (tmp_path / "lib" / "consts.asm").write_text(".equ STEP, 5\n")
    main = tmp_path / "main.asm"
    main.write_text('.include "lib/ops.asm"\n    INC S1\n    INC S1\n    HALT\n')
    program = assemble(main.read_text(), str(main))
    assert _texts(program) == ["ADD S1, S1, STEP", "ADD S1, S1, STEP", "HALT"]
    assert decode_program(program.words)[0][1].operands[2].imm == 5


def test_a_diagnostic_in_a_macro_names_the_body_line_and_the_use(tmp_path):
    lib = tmp_path / "lib.asm"
    lib.write_text(".macro LOADK r, k\n    MOV \\r, \\k + 1\n.endm\n")
    main = tmp_path / "main.asm"
    main.write_text('NOP\n.include "lib.asm"\n    LOADK S1, nosuch\nHALT\n')
    ((file, line, col, message, notes),) = _errors(main.read_text(), str(main))
    # The error is at the argument as it stands in the body line after substitution: col 13 of
    # "    MOV S1, nosuch + 1"; the note names the use (main.asm line 3, column 5).
    assert (file, line, col, message) == (str(lib), 2, 13, "undefined symbol 'nosuch'")
    assert notes == [f"{main}:3:5: in the use of macro LOADK here"]
    with pytest.raises(AsmError) as info:
        assemble(main.read_text(), str(main))
    assert str(info.value).splitlines() == [
        f"{lib}:2:13: error: undefined symbol 'nosuch'", "    MOV S1, nosuch + 1", "            ^~~~~~",
        f"{main}:3:5: note: in the use of macro LOADK here"]


def test_a_diagnostic_in_an_included_file_names_the_include_line(tmp_path):
    (tmp_path / "bad.asm").write_text("    VFOO V0\n")
    main = tmp_path / "main.asm"
    main.write_text('HALT\n  .include "bad.asm"\n')
    ((file, line, col, message, notes),) = _errors(main.read_text(), str(main))
    assert (file, line, col) == (str(tmp_path / "bad.asm"), 1, 5) and message.startswith("unknown mnemonic 'VFOO'")
    assert notes == [f"{main}:2:3: in the file included here"]


def test_a_diagnostic_in_a_rept_is_told_once_with_its_repetition():
    ((_, line, col, message, notes),) = _errors(".rept 3\n    MOV S1, nosuch\n.endr\n")
    assert (line, col, message, notes) == (2, 13, "undefined symbol 'nosuch'",
                                           ["t.asm:1:1: in repetition 1 of 3 of the .rept here"])


@pytest.mark.parametrize(("text", "want"), [
    (".macro M a, b\n    MOV \\a, \\b\n.endm\n    M S1\n", (4, 5, "macro M takes 2 arguments (a, b), given 1")),
    (".macro M\n    NOP\n.endm\n    M 1\n", (4, 5, "macro M takes 0 arguments (none), given 1")),
    (".macro M a\n    MOV S1, \\b\n.endm\n", (2, 13, "macro M has no parameter 'b' (its parameters: a)")),
    (".macro M\n    M\n.endm\n    M\n", (2, 5, "macro uses nested deeper than 64 (does M use itself?)")),
    (".macro VADD a\n.endm\n", (1, 1, "'VADD' is an instruction: a macro cannot be called that")),
    (".macro M\n.endm\n.macro M\n.endm\n", (3, 1, "duplicate macro 'M' (first defined at t.asm:1)")),
    (".macro M\n    NOP\n", (1, 1, ".macro without its .endm")),
    ("    NOP\n.endm\n", (2, 1, ".endm without a .macro before it")),
    (".endr\n", (1, 1, ".endr without a .rept before it")),
    (".rept 2\n", (1, 1, ".rept without its .endr")),
    ("l: NOP\n.rept l\n.endr\n", (2, 7, "'l' is a label: a .rept count must be a constant (.equ or -D)")),
    (".rept N\n.endr\n.equ N, 2\n", (1, 7, "undefined symbol 'N' (a .rept count may use only constants defined "
                                           "above it)")),
    (".rept -1\n.endr\n", (1, 1, ".rept count -1 out of range 0..65536")),
    (".rept 40000\n    NOP\n    NOP\n.endr\n",
     (1, 1, ".rept 40000 of 2 lines passes the expansion limit of 65536 lines")),
    (".rept\n.endr\n", (1, 1, ".rept is written .rept COUNT")),
    ('.include "nowhere.asm"\n', (1, 1, 'cannot include "nowhere.asm" (nowhere.asm): No such file or directory')),
    (".include nowhere.asm\n", (1, 1, '.include is written .include "path.asm"')),
])
def test_bad_macros_repeats_and_includes_are_located(text, want):
    found = _errors(text)
    assert found[0][1:4] == want, found


def test_a_recursive_include_is_refused(tmp_path):
    (tmp_path / "a.asm").write_text('.include "b.asm"\n')
    (tmp_path / "b.asm").write_text('NOP\n.include "a.asm"\n')
    main = tmp_path / "a.asm"
    ((file, line, col, message, notes),) = _errors(main.read_text(), str(main))
    assert (file, line, col, message) == (str(tmp_path / "b.asm"), 2, 1,
                                          'recursive .include: "a.asm" is already being included')
    assert notes == [f"{main}:1:1: in the file included here"]


def test_the_cli_takes_defines_on_asm_run_and_debug(tmp_path):
    from click.testing import CliRunner

    from vcore.cli import main

    prog = tmp_path / "p.asm"
    prog.write_text(".equ N, 2\n.rept N\n    ADD S1, S1, 3\n.endr\n    HALT\n")
    runner = CliRunner()
    r = runner.invoke(main, ["run", str(prog), "-D", "N=5", "--report", "json"])
    assert r.exit_code == 0, r.output
    assert '"instructions": 6' in r.output
    r = runner.invoke(main, ["asm", str(prog), "-D", "N=0x3", "-o", str(tmp_path / "p.vbin"), "--listing"])
    assert r.exit_code == 0 and r.output.count("ADD S1, S1, 3") == 3
    r = runner.invoke(main, ["debug", str(prog), "-D", "N=1"], input="run\nprint S1\nquit\n")
    assert r.exit_code == 0 and "3" in r.output
    r = runner.invoke(main, ["run", str(prog), "-D", "S1=1"])
    assert r.exit_code == 2 and "'S1' is a register name" in r.output and "Traceback" not in r.output
    r = runner.invoke(main, ["run", str(tmp_path / "p.vbin"), "-D", "N=1"])
    assert r.exit_code == 2 and "already assembled" in r.output
