"""CONTRACT 13.10 (2.3): RSVDCNT, AR and MRGCNT0..MRGCNT3 are reserved names, in any case, as BLOCKIDX
and BLOCKNUM are: not labels, not .equ or -D constants, and not constants in an expression. (Reading
them with MOV Sd, AR is not in vcore yet: a use says the name is reserved.)"""

from __future__ import annotations

import pytest

from vcore.assembler import AsmError, assemble, parse_define

NAMES = ["RSVDCNT", "AR", "MRGCNT0", "MRGCNT1", "MRGCNT2", "MRGCNT3", "ar", "MrgCnt3"]


def _errors(text: str) -> list[tuple[int, int, str]]:
    with pytest.raises(AsmError) as info:
        assemble(text, "t.asm")
    return [(d.location.line, d.location.col, d.message) for d in info.value.diagnostics]


@pytest.mark.parametrize("name", NAMES)
def test_a_special_register_name_is_no_label_and_no_constant(name):
    assert _errors(f"{name}:\n    HALT\n") == [
        (1, 1, f"'{name}' is a reserved name (a special register's): a label cannot be called that")]
    assert _errors(f".equ {name}, 4\n    HALT\n") == [
        (1, 6, f"'{name}' is a reserved name (a special register's): a constant cannot be called that")]
    #        123456789
    assert _errors(f"    ADD S1, S1, {name}\n") == [
        (1, 17, f"{name.upper()} is reserved for a special register: it is not a constant")]
    with pytest.raises(ValueError, match=rf"^-D {name}=3: '{name}' is a reserved name \(a special register's\)$"):
        parse_define(f"{name}=3")


def test_names_that_only_look_alike_are_free():
    program = assemble("ARX: NOP\n.equ MRGCNT4, 1\n.equ RSVD, 2\n    MOV S1, MRGCNT4 + RSVD\n    JMP ARX\n", "t.asm")
    assert program.labels == {"ARX": 0}
