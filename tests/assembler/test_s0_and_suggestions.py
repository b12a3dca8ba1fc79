"""Two assembler papercuts: a write to S0 (which reads as 0 and ignores writes) is warned about with its
line and caret, and an unknown mnemonic gets a suggestion only of the same kind of operation, or a
plain statement that vcore has no such instruction yet."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import strategies as S  # tests/strategies.py: tests/conftest.py puts tests/ on the path

from vcore import isa
from vcore.assembler import AsmError, assemble
from vcore.assembler.suggest import PLANNED
from vcore.isa import MNEMONICS

VCORE = str(Path(sys.executable).with_name("vcore"))


REGISTER_ROW = isa.MNEMONICS["VLD"][0]  # any register row: they all need VF.BEGIN ... VF.END around them
REGISTER_LINES = ("VLD", "VST", "PUPDATE", "VADDS")  # the register instructions below (VADDS in its register form)


def _placed(line: str):
    """``line`` in the smallest program that holds it: a register instruction inside a function."""
    return S.in_context(REGISTER_ROW if line.startswith(REGISTER_LINES) else isa.MNEMONICS["NOP"][0], text=line)


def _warnings(source: str) -> list[tuple[int, int, str]]:
    return [(w.location.line, w.location.col, w.message) for w in assemble(source, "t.asm").warnings]


@pytest.mark.parametrize(("line", "col", "what"), [
    ("MOV S0, 10", 5, "MOV writes S0"),
    ("ADD S0, S1, 1", 5, "ADD writes S0"),
    ("SUB S0, S0, 1", 5, "SUB writes S0"),
    ("SHL S0, S2, S3", 5, "SHL writes S0"),
    ("PUPDATE.b16 P0, S0", 17, "PUPDATE writes S0"),
    ("VLD.f16 V0, [S0], post=128", 19, "post= updates the base register S0"),
    ("VST.f16 [S0], V0, P0, post=128", 23, "post= updates the base register S0"),
])
def test_a_destination_s0_is_warned_about(line, col, what):
    placed = _placed(line)
    found = _warnings(f"NOP\n{placed.text}")
    assert len(found) == 1, found
    assert found[0][:2] == (1 + placed.line, col)
    assert what in found[0][2] and "ignores writes" in found[0][2]


@pytest.mark.parametrize("line", [
    "MOV S1, S0", "ADD S1, S0, 1", "BNE S0, 0, end", "VLD.f16 V0, [S0]", "VLD.f16 V0, [S0], post=0",
    "VADDS.f16 V0, V1, S0, P0", "PUPDATE.b16 P0, S3", "DMA.GM2UB [S0], gm[S0], len=1",
])
def test_reading_s0_is_not_warned_about(line):
    assert _warnings(f"{_placed(line).text}end:\n") == []


def test_the_cli_prints_the_warning_with_its_caret_and_exits_0(tmp_path):
    path = tmp_path / "loop.asm"
    path.write_text("    MOV S0, 3\nloop:\n    SUB S0, S0, 1\n    BNE S0, 0, loop\n")
    r = subprocess.run([VCORE, "asm", str(path), "-o", str(tmp_path / "loop.vbin")], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0
    lines = r.stderr.splitlines()
    assert lines[0].startswith(f"{path}:1:9: warning: MOV writes S0")
    assert lines[1:3] == ["    MOV S0, 3", "        ^~"]
    assert lines[3].startswith(f"{path}:3:9: warning: SUB writes S0")
    assert (tmp_path / "loop.vbin").exists()
    r = subprocess.run([VCORE, "run", str(path), "--report", "none"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "warning: MOV writes S0" in r.stderr


def _unknown(mnemonic: str) -> str:
    with pytest.raises(AsmError) as info:
        assemble(f"NOP\n    {mnemonic} V0, V1\n", "t.asm")
    (diag,) = info.value.diagnostics
    assert (diag.location.line, diag.location.col) == (2, 5)
    return diag.message


@pytest.mark.parametrize(("mnemonic", "what"), [  # the suggestions' names of what the table lacks yet
    (name, what) for name, (what, planned) in PLANNED.items() if planned.split(".")[0] not in MNEMONICS])
def test_an_operation_vcore_lacks_is_said_plainly(mnemonic, what):
    message = _unknown(mnemonic)
    assert f"vcore has no {what}" in message and "yet" in message, message
    assert "did you mean" not in message  # VCMP was "did you mean JMP", VCAST "VST" (and VDIV, before it was, "VLD")


def test_vcast_names_the_mnemonic_it_will_have():
    assert "VCONV" in _unknown("VCAST")


@pytest.mark.parametrize(("name", "meant"), [
    ("DIV", "VDIV"), ("VCAST", "VCONV.D.S"), ("CAST", "VCONV.D.S"), ("COMPARE", "VCMP.C"), ("VCMPV", "VCMP.C"),
    ("SELECT", "VSEL"), ("DUPLICATE", "VDUP"), ("REDUCESUM", "VCADD"),
])
def test_a_name_for_an_instruction_vcore_has_now_points_to_it(name, meant):
    assert _unknown(name).endswith(f"did you mean {meant}?")


@pytest.mark.parametrize(("typo", "meant"), [
    ("VADDD", "VADD"), ("VMUK", "VMUL"), ("HALTT", "HALT"), ("SETFLG", "SETFLAG"), ("JPM", "JMP"),
    ("BQE", "BEQ"), ("VGATER", "VGATHER"), ("DMA.GM2U", "DMA.GM2UB"), ("BARIER", "BARRIER"), ("PSTE", "PST"),
])
def test_a_typo_still_gets_its_instruction(typo, meant):
    assert _unknown(typo).endswith(f"did you mean {meant}?")


@pytest.mark.parametrize("word", ["FOO", "VLOAD2", "XYZZY", "VFOO"])
def test_no_look_alike_of_another_kind(word):
    message = _unknown(word)
    assert "did you mean" not in message and "no such instruction" in message, message


def test_vreduce_without_its_operation_says_how_it_is_written():
    with pytest.raises(AsmError) as info:
        assemble("VF.BEGIN\n    VREDUCE.f32 V0, V1, P0\n    VREDUCE.AVG.f32 V0, V1, P0\nVF.END\n", "t.asm")
    found = [(d.location.line, d.location.col, d.message) for d in info.value.diagnostics]
    assert found == [(2, 13, "VREDUCE is written VREDUCE.O.T, O one of SUM, MAX, MIN (e.g. VREDUCE.MIN.f16)"),
                     (3, 13, "unknown operation '.avg': VREDUCE takes SUM, MAX, MIN")], found
