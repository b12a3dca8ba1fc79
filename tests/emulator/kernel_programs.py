"""Kernel programs the kernel tests share (tests/emulator/test_kernel.py, test_kernel_blocks.py,
test_kernel_trace.py), each with its cycles or results worked out by hand, and ``run_cli``, which runs
one through ``vcore run`` as a user does."""

from __future__ import annotations

from click.testing import CliRunner

from vcore.cli import main

# Block k writes its index and the block count to GM 0x100 + 8k.
IDS = """
    MOV S1, BLOCKIDX
    MOV S2, BLOCKNUM
    SHL S3, S1, 3
    ST.u32 gm[S3 + 0x100], S1
    ST.u32 gm[S3 + 0x104], S2
    HALT
"""

# Core (block) k counts S1 down from k: MOV 1 cycle, then per pass BEQ, SUB, JMP (1 each), then the
# taken BEQ (1) and HALT (1): 3k + 3 cycles on S, nothing else.
COUNTDOWN = """
    MOV S1, BLOCKIDX
loop:
    BEQ S1, 0, done
    SUB S1, S1, 1
    JMP loop
done:
    HALT
"""
# The same with a SYNCALL before HALT: core k arrives at 3k + 2, and all go on at the last arrival plus
# chip.syncall.
SYNCED = COUNTDOWN.replace("done:\n    HALT", "done:\n    SYNCALL\n    HALT")


def add_one(out: int) -> str:
    """Each core (block) copies its 256-byte slice of x (f32, at GM 0x0) to UB, adds 1, and stores it at
    GM ``out`` + its slice: a data-parallel kernel with DMA in both directions."""
    return f"""
    MOV S1, BLOCKIDX
    SHL S2, S1, 8
    DMA.GM2UB [0x0], gm[S2], len=8
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    VADDS.f32 [0x100], [0x0], 1.0
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    DMA.UB2GM gm[S2 + 0x{out:x}], [0x100], len=8
    HALT
"""


def run_cli(tmp_path, text: str, *args: str):
    """``vcore run`` of ``text`` (written to ``tmp_path / "k.asm"``) with ``args``: click's result."""
    path = tmp_path / "k.asm"
    path.write_text(text)
    return CliRunner().invoke(main, ["run", str(path), *args])
