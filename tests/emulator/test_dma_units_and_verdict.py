"""Two report papercuts: a DMA that leaves UB or GM says that ``len`` and the gaps count 32-byte units,
with the bytes its fields ask for; and a DMA-bound run's verdict names the bounding DMA pipe and its
costliest line first, before the stalls that follow from it."""

from __future__ import annotations

import emu_support as E


def test_a_dma_past_ub_says_len_counts_32_byte_units():
    # len=8192 meant as bytes: 8192 * 32 = 262144 bytes from UB 0x100 runs past the 950's 256 KiB.
    m, r = E.run_program("DMA.UB2GM gm[0x0], [0x100], len=8192\n")
    assert r.fault is not None
    message = r.fault.message
    assert "UB bytes 0x100..0x40100 outside UB" in message
    assert "count 32-byte units" in message and "len=8192 is 262144 bytes" in message


def test_a_strided_dma_past_gm_gives_the_block_pitch_in_bytes():
    # 2 blocks of len=128 (4096 bytes), the second starting (128 + 100) * 32 = 7296 bytes after the
    # first: the source ends at 0xfff000 + 7296 + 4096 = 0x1001c80, past the 16 MiB GM.
    m, r = E.run_program("DMA.GM2UB [0x0], gm[0xfff000], len=128, blocks=2, srcgap=100\n")
    message = r.fault.message
    assert "GM bytes 0xfff000..0x1001c80 outside GM" in message
    assert "len=128 is 4096 bytes" in message and "2 blocks" in message and "every 7296 bytes" in message


def test_a_dma_inside_memory_does_not_fault():
    m, r = E.run_program("DMA.UB2GM gm[0x0], [0x0], len=256\n")
    assert r.fault is None, r.fault


DMA_BOUND = """
    DMA.GM2UB [0x0], gm[0x0], len=8
    DMA.GM2UB [0x1000], gm[0x10000], len=1024
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    VADDS.f32 [0x0], [0x0], 1.0
    HALT
"""


def test_the_verdict_of_a_dma_bound_run_names_the_pipe_and_its_costliest_line_first():
    # The second DMA moves 32 KiB, the first 256 bytes: at any bandwidth the second costs most of
    # MTE2's time, and V only waits for it (a flag wait is the symptom, not the cause).
    m, r = E.run_program(DMA_BOUND)
    assert r.fault is None, r.fault
    report = m.report()
    assert report.stalls.get("flag_wait", 0) > 0
    verdict = report.verdict()
    assert verdict.startswith("bound by MTE2 (")
    head = verdict.split(";")[0] + ";" + verdict.split(";")[1]
    assert "most at line 3:" in head, verdict
    assert verdict.index("line 3") < verdict.index("largest stall")
