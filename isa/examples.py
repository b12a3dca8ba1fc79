"""A row's ``example`` as the program that runs it.

An example is written as a program writes the instruction: a tensor, scalar, DMA or sync row's example
runs as it stands (with its labels, flags or function around it where it needs them: a branch its
target, a LOOP its function); a register instruction runs only inside a vector function, so its
example is the instruction alone (one line, one word), and ``FUNCTION_FRAME`` puts it in one. The
tests that must cover every row (it assembles to its row, binds, runs, is refused on a2) read these.
"""

from __future__ import annotations

import re

from vcore.isa.model import Instruction

# The lines around a register instruction's example ("{}"): S1 and S2 are 0 there, a UB address and
# a count any example may name.
FUNCTION_FRAME = ("VF.BEGIN", "{}", "VF.END")


def program(row: Instruction) -> str:
    """The complete program of ``row``'s example (ending in HALT)."""
    lines = [line.format(row.example) for line in FUNCTION_FRAME] if row.register else [row.example]
    return "\n".join([*lines, "HALT"]) + "\n"


def statement(row: Instruction) -> str | None:
    """The line of ``row``'s example that is the row's instruction (without its label): the first whose
    mnemonic is the row's; None when none is."""
    for line in row.example.splitlines():
        m = _STATEMENT.match(line)
        if m and _mnemonic_of(m["word"]) == row.mnemonic:
            return line[m.start("word"):].strip()
    return None


_STATEMENT = re.compile(r"^\s*(?:[A-Za-z_]\w*:)?\s*(?P<word>\S+)")


def _mnemonic_of(word: str) -> str:
    """The mnemonic of a statement's first word: ``VADD.f16`` -> ``VADD``, ``VCMP.LT.f32`` -> ``VCMP``,
    ``DMA.GM2UB`` and ``VF.BEGIN`` as they are (their dotted part is the mnemonic's)."""
    upper = word.upper()
    return upper if upper.startswith(("DMA.", "VF.")) else upper.split(".")[0]
