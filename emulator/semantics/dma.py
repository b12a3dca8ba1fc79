"""DMA (the transfer shape): blocks of 32-byte units between GM and UB on MTE2 and MTE3, each with
its own source and destination gap. This module owns their addressing, range faults (which say the
units in bytes) and footprints; the copy is read at the start and lands at the end.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from vcore.emulator.faults import Fault, check_range
from vcore.emulator.jobs import Job, runs_of, span
from vcore.emulator.semantics.registry import UNBANKED, implements
from vcore.isa import Inst
from vcore.isa.types import BLOCK_BYTES


def _transfer_blocks(space: str, addr: int, blocks: int, nbytes: int, pitch: int):
    """The 32-byte blocks that ``blocks`` transfers of ``nbytes`` every ``pitch`` bytes cover."""
    if blocks == 1 or pitch == nbytes:  # one span of bytes (the usual tile): no arrays
        return span(space, addr, addr + (blocks - 1) * pitch + nbytes)
    starts = addr + np.arange(blocks, dtype=np.int64) * pitch
    first = starts // BLOCK_BYTES
    count = (starts + nbytes - 1) // BLOCK_BYTES - first + 1
    width = int(count.max())
    ids = first[:, None] + np.arange(width, dtype=np.int64)[None, :]
    return space, runs_of(ids[np.arange(width)[None, :] < count[:, None]])


def dma_spans(inst: Inst) -> tuple[int, int, int, int]:
    blocks, length, srcgap, dstgap = (inst.kw(n) for n in ("blocks", "len", "srcgap", "dstgap"))
    return blocks, length * BLOCK_BYTES, (length + srcgap) * BLOCK_BYTES, (length + dstgap) * BLOCK_BYTES


def _dma_units(inst: Inst) -> str:
    """What a DMA's fields ask for in bytes: ``len`` and the gaps count 32-byte units, a usual slip."""
    blocks, nbytes, src_pitch, dst_pitch = dma_spans(inst)
    length, srcgap, dstgap = (inst.kw(n) for n in ("len", "srcgap", "dstgap"))
    text = f"len, srcgap and dstgap count {BLOCK_BYTES}-byte units: len={length} is {nbytes} bytes"
    if blocks > 1:
        text += (f", {blocks} blocks of it, one every {src_pitch} bytes of the source (len + srcgap={srcgap}) and "
                 f"every {dst_pitch} of the destination (len + dstgap={dstgap})")
    return text


@implements("dma", bank_rule=UNBANKED)
def bind_dma(inst: Inst, pc: int):
    to_ub = inst.row.op == "gm2ub"
    dst_ref, src_ref = inst.operands
    blocks, nbytes, src_pitch, dst_pitch = dma_spans(inst)
    next_pc = pc + inst.size
    src_space, dst_space = ("gm", "ub") if to_ub else ("ub", "gm")

    def run(m):
        src = src_ref.offset if src_ref.reg is None else m.s[src_ref.reg] + src_ref.offset
        dst = dst_ref.offset if dst_ref.reg is None else m.s[dst_ref.reg] + dst_ref.offset
        ub_addr = dst if to_ub else src
        if ub_addr % BLOCK_BYTES:
            raise Fault(f"DMA: UB address 0x{ub_addr:x} is not 32-byte aligned")
        src_mem, dst_mem = m.memory(src_space), m.memory(dst_space)
        try:
            check_range(src_space.upper(), src_mem.size, src, src + (blocks - 1) * src_pitch + nbytes, "DMA source")
            check_range(dst_space.upper(), dst_mem.size, dst, dst + (blocks - 1) * dst_pitch + nbytes,
                        "DMA destination")
        except Fault as fault:
            fault.message += f"; {_dma_units(inst)}"
            raise

        def perform():
            """The copy: read at the DMA's start, landing in the destination at its end."""
            if blocks == 1 or (src_pitch == nbytes and dst_pitch == nbytes):
                total = (blocks - 1) * src_pitch + nbytes
                return ((dst_mem, slice(dst, dst + total), src_mem[src:src + total]),)
            source = as_strided(src_mem[src:], shape=(blocks, nbytes), strides=(src_pitch, 1), writeable=False)
            return ((as_strided(dst_mem[dst:], shape=(blocks, nbytes), strides=(dst_pitch, 1)), Ellipsis, source),)

        job = Job(pc, perform, [_transfer_blocks(src_space, src, blocks, nbytes, src_pitch)],
                  [_transfer_blocks(dst_space, dst, blocks, nbytes, dst_pitch)], nbytes=blocks * nbytes)
        gm, pitch = (src, src_pitch) if to_ub else (dst, dst_pitch)
        job.bursts = (gm, pitch, nbytes, blocks)
        if m.gm_log is not None:  # a core of a kernel: its GM accesses, for races between cores and the merge
            m.gm_log.append((not to_ub, gm, nbytes, pitch, blocks, pc, job))
        if gm % BLOCK_BYTES:  # GM need not be aligned: its blocks then hold bytes it does not touch
            job.exact = {"gm": (gm, pitch, nbytes, blocks)}
        m.submit(job)
        return next_pc

    return run
