"""Register memory instructions (the register-memory shape): VLD and VST, contiguous or by
datablock, VGATHER from UB, VSCATTER, and the mask loads and stores PLD and PST. This module owns
their addressing (``post=`` updates, alignment and range faults) and footprints; the data moves by
the job protocol of ``emulator.jobs``.

A vector register is 256 bytes; a mask register 256 bools, one per byte of VL: a w-byte lane i is
active when entry i*w is set, and writers set all w entries of a lane.
"""

from __future__ import annotations

import numpy as np

from vcore.emulator.faults import Fault, hex_signed
from vcore.emulator.jobs import Job, blocks, footprint, preg, span, vreg
from vcore.emulator.semantics.register_dist import bind_load, mask_bits, mode_accessor
from vcore.emulator.semantics.registry import ACCESS_BEATS, WHOLE_UB, implements
from vcore.emulator.state import ALL_LANES, active_lanes, lanes_to_mask
from vcore.isa import Inst, dist
from vcore.isa.types import BLOCK_BYTES, TYPES, VL_BYTES

_S_MIN, _S_MAX = -(1 << 63), (1 << 63) - 1  # a scalar register's range
_BLOCK_LANES = np.arange(VL_BYTES) // BLOCK_BYTES  # which datablock each register byte is in
_BYTE_IN_BLOCK = np.arange(VL_BYTES) % BLOCK_BYTES


def _register_bytes(addr: int, blk: int | None) -> np.ndarray | None:
    """UB byte offsets of a register's 256 bytes in datablock mode (None: contiguous)."""
    if blk is None:
        return None
    return addr + _BLOCK_LANES * blk * BLOCK_BYTES + _BYTE_IN_BLOCK


def _block_operand(addr: int, blk: int) -> dict:
    """The footprint of a VLD/VST operand in datablock mode: 8 blocks ``blk`` apart. (A
    contiguous operand is one run of blocks, which the run closures write out themselves.)"""
    return footprint([blocks("ub", addr + np.arange(8) * blk * BLOCK_BYTES)])


def _accessor(inst: Inst, ref, what: str):
    """``access(m) -> addr`` of a VLD/VST operand, with its keywords resolved here, once: checks
    alignment and range, and applies ``post=`` to the register. Also returns the datablock stride."""
    blk = inst.kw("blk")
    extent = (7 * blk + 1) * BLOCK_BYTES if blk is not None else VL_BYTES
    step = (inst.kw("post") or 0) * inst.type.size
    reg, offset = ref.reg, ref.offset

    def access(m) -> int:
        s = m.s
        addr = offset if reg is None else s[reg] + offset
        if addr & 31 or addr < 0 or addr + extent > m.ub.size:
            m.ub_block_address(ref, what)  # raises the alignment fault
            m.check_ub(addr, addr + extent, what)
        if step:
            moved = s[reg] + step
            if reg and _S_MIN <= moved <= _S_MAX:
                s[reg] = moved
            else:
                m.set_s(reg, moved)  # S0, or a value that wraps
        return addr

    return access, blk


@implements("vld", bank_rule=ACCESS_BEATS)
def bind_vld(inst: Inst, pc: int):
    if dist.mode_of(inst).name != "norm":  # a distribution mode (emulator.semantics.register_dist)
        return bind_load(inst, pc)
    vd, ref = inst.operands
    next_pc = pc + inst.size
    access, blk = _accessor(inst, ref, "VLD")
    writes = footprint([vreg(vd)])

    def run(m):
        addr = access(m)
        if blk is None:
            def perform():
                return m.v, vd, m.ub[addr:addr + VL_BYTES]

            reads = {"ub": (None, addr >> 5, (addr + VL_BYTES - 1 >> 5) + 1)}  # the blocks of VL bytes
            m.submit_register(pc, perform, reads, writes)
            return next_pc
        where = _register_bytes(addr, blk)

        def perform_blocks():
            return ((m.v, vd, m.ub[where]),)

        m.submit(Job(pc, perform_blocks, footprint_reads=_block_operand(addr, blk), footprint_writes=writes))
        return next_pc

    return run


@implements("vst", bank_rule=ACCESS_BEATS, masked_lanes=True)
def bind_vst(inst: Inst, pc: int):
    ref, vs, pm = inst.operands
    width = inst.type.size
    next_pc = pc + inst.size
    access, blk = _accessor(inst, ref, "VST")
    reads = footprint([vreg(vs), preg(pm)])

    def run(m):
        addr = access(m)
        if blk is None:
            def perform():  # the active lanes' bytes
                lanes = m.lane_masks[width].get(m.p[pm].tobytes()) or m.lane_mask(pm, width)
                if lanes is ALL_LANES:
                    return m.ub, slice(addr, addr + VL_BYTES), m.v[vs]
                return m.ub, slice(addr, addr + VL_BYTES), m.v[vs], lanes[1]

            writes = {"ub": (None, addr >> 5, (addr + VL_BYTES - 1 >> 5) + 1)}  # the blocks of VL bytes
            m.submit_register(pc, perform, reads, writes)
            return next_pc
        where = _register_bytes(addr, blk)

        def perform_blocks():
            byte_on = lanes_to_mask(active_lanes(m.p[pm], width), width)
            return ((m.ub, where[byte_on], m.v[vs][byte_on]),)

        m.submit(Job(pc, perform_blocks, footprint_reads=reads, footprint_writes=_block_operand(addr, blk)))
        return next_pc

    return run


def _index_reach(m, base: int, etype) -> int:
    """The end of what an index register can reach from ``base`` (u16 indices: 65536 elements;
    u32 ones: the rest of UB). The precise blocks are taken when the instruction starts."""
    if etype.size == 4:
        return m.ub.size
    return min(m.ub.size, base + 65536 * etype.size)


def _index_type(etype) -> str:
    return "<u4" if etype.size == 4 else "<u2"


def _indexed(m, base: int, vi: int, pm: int, etype, lane_width: int):
    """The indices in Vi, the active lanes (of ``lane_width`` bytes) and their elements' UB bytes."""
    idx = m.v[vi].view(_index_type(etype)).astype(np.int64)
    on = active_lanes(m.p[pm], lane_width)
    return idx, on, base + idx[on] * etype.size


def _check_lanes(m, what: str, verb: str, base: int, idx, on, start, size: int) -> None:
    """A fault naming the first active lane whose element lies outside UB."""
    if start.size and (start.min() < 0 or start.max() + size > m.ub.size):
        lane = int(np.flatnonzero(on)[np.argmax((start < 0) | (start + size > m.ub.size))])
        raise Fault(f"{what}: index {int(idx[lane])} of lane {lane} {verb} outside UB "
                    f"(byte {hex_signed(base + int(idx[lane]) * size)}, UB size 0x{m.ub.size:x})")


@implements("vgather_ub", bank_rule=WHOLE_UB, refines=True)
def bind_vgather_ub(inst: Inst, pc: int):
    vd, ref, vi, pm = inst.operands
    etype = inst.type
    lane_width = 4 if etype.size == 4 else 2
    next_pc = pc + inst.size

    def run(m):
        base = m.ub_block_address(ref, "VGATHER")

        def addresses():
            return _indexed(m, base, vi, pm, etype, lane_width)

        def perform():
            idx, on, start = addresses()
            _check_lanes(m, "VGATHER", "reads", base, idx, on, start, etype.size)
            job.lanes = start, np.flatnonzero(on)  # what the sub-banks see: addresses, lanes (functions.schedule)
            if etype.size == 1:
                out = np.zeros(128, dtype="<u2")
                out[on] = m.ub[start]
            else:
                out = np.zeros(idx.size, dtype=f"<u{etype.size}")
                out[on] = m.view("ub", TYPES[f"u{etype.bits}"])[start // etype.size]
            return ((m.v, vd, out.view(np.uint8)),)

        def refine():
            _, _, start = addresses()
            return [blocks("ub", start), vreg(vi), preg(pm)], [vreg(vd)]

        reach = span("ub", base, _index_reach(m, base, etype))
        job = Job(pc, perform, [reach, vreg(vi), preg(pm)], [vreg(vd)], refine=refine)
        m.submit(job)
        return next_pc

    return run


@implements("vscatter", bank_rule=WHOLE_UB, refines=True)
def bind_vscatter(inst: Inst, pc: int):
    ref, vs, vi, pm = inst.operands
    etype = inst.type
    next_pc = pc + inst.size
    udt = TYPES[f"u{etype.bits}"]

    def run(m):
        base = m.ub_block_address(ref, "VSCATTER")

        def addresses():
            return _indexed(m, base, vi, pm, etype, etype.size)

        def perform():
            idx, on, start = addresses()
            _check_lanes(m, "VSCATTER", "writes", base, idx, on, start, etype.size)
            job.lanes = start, np.flatnonzero(on)
            # Ascending lane order: numpy keeps the last write, so the higher lane wins.
            return ((m.view("ub", udt), start // etype.size, m.v[vs].view(f"<u{etype.size}")[on]),)

        def refine():
            _, _, start = addresses()
            return [vreg(vs), vreg(vi), preg(pm)], [blocks("ub", start)]

        reach = span("ub", base, _index_reach(m, base, etype))
        job = Job(pc, perform, [vreg(vs), vreg(vi), preg(pm)], [reach], refine=refine)
        m.submit(job)
        return next_pc

    return run


@implements("pld", "pst", bank_rule=ACCESS_BEATS)
def bind_mask_memory(inst: Inst, pc: int):
    """PLD reads 32 bytes of UB into a mask register, one bit an entry (little-endian bit order);
    PST writes a mask register's 256 entries to 32 bytes of UB the same way. With ``dist=`` (13.2):
    PLD us reads 16 bytes, each bit twice; ds 64 bytes, every other bit; PST pack writes 16 bytes of
    every other bit (``register_dist.mask_bits``)."""
    load = inst.row.family == "pld"
    reg, ref = inst.operands if load else inst.operands[::-1]
    what = inst.row.mnemonic
    next_pc = pc + inst.size
    mode = dist.mode_of(inst)
    name, nbytes = mode.name, mode.nbytes
    access = mode_accessor(inst, ref, mode) if name != "norm" else None

    def run(m):
        if access is None:
            addr = m.ub_block_address(ref, what)
            m.check_ub(addr, addr + 32, what)
        else:
            addr = access(m)
        ub = span("ub", addr, addr + nbytes)
        if load:
            def perform():
                return m.p, reg, mask_bits(name, True, m.ub[addr:addr + nbytes])

            job = Job(pc, perform, [ub], [preg(reg)])
            job.exact = {"ub": (addr, nbytes, nbytes, 1)}  # its bytes, for a function's order check
            m.submit(job)
        else:
            def perform():
                return m.ub, slice(addr, addr + nbytes), mask_bits(name, False, m.p[reg])

            m.submit(Job(pc, perform, [preg(reg)], [ub]))
        return next_pc

    return run
