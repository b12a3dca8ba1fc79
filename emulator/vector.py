"""Register (vector function) instructions: loads, stores, compute with zeroing, gather, scatter, masks.

A vector register is 256 bytes; a mask register 256 bools, one per byte of VL: a w-byte lane i is
active when entry i*w is set, and writers set all w entries of a lane.
"""

from __future__ import annotations

import numpy as np

from emulator import numerics
from emulator.faults import Fault, hex_signed
from emulator.jobs import NOTHING, Job, blocks, footprint, preg, span, vreg
from emulator.semantics import implements
from emulator.state import ALL_LANES
from isa import Inst
from isa.types import BLOCK_BYTES, TYPES, VL_BYTES

_S_MIN, _S_MAX = -(1 << 63), (1 << 63) - 1  # a scalar register's range
_BLOCK_LANES = np.arange(VL_BYTES) // BLOCK_BYTES  # which datablock each register byte is in
_BYTE_IN_BLOCK = np.arange(VL_BYTES) % BLOCK_BYTES


def active_lanes(p: np.ndarray, width: int) -> np.ndarray:
    """Lane activity of a mask register for lanes of ``width`` bytes."""
    return p[::width]


def lanes_to_mask(active: np.ndarray, width: int) -> np.ndarray:
    return np.repeat(active, width)


def _register_bytes(addr: int, blk: int | None) -> np.ndarray | None:
    """UB byte offsets of a register's 256 bytes in datablock mode (None: contiguous)."""
    if blk is None:
        return None
    return addr + _BLOCK_LANES * blk * BLOCK_BYTES + _BYTE_IN_BLOCK


def _block_operand(addr: int, blk: int) -> dict:
    """The footprint of a VLD/VST operand in datablock mode: 8 blocks ``blk`` apart. (A
    contiguous operand is one run of blocks, which the run closures write out themselves.)"""
    return footprint([blocks("ub", addr + np.arange(8) * blk * BLOCK_BYTES)])


def _scalar_value(m, ref, etype):
    return numerics.element_of_bits(ref.imm if ref.reg is None else m.s[ref.reg], etype)


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


@implements("vld")
def bind_vld(inst: Inst, pc: int):
    vd, ref = inst.operands
    next_pc = pc + inst.size
    access, blk = _accessor(inst, ref, "VLD")
    writes = footprint([vreg(vd)])

    def run(m):
        addr = access(m)
        if blk is None:
            def perform():
                data = m.ub[addr:addr + VL_BYTES].copy()
                return lambda: m.v.__setitem__(vd, data)

            reads = {"ub": (None, addr >> 5, (addr + VL_BYTES - 1 >> 5) + 1)}  # the blocks of VL bytes
            m.submit_register(pc, perform, reads, writes)
            return next_pc
        where = _register_bytes(addr, blk)

        def perform_blocks():
            data = m.ub[where]
            return lambda: m.v.__setitem__(vd, data)

        m.submit(Job(pc, perform_blocks, footprint_reads=_block_operand(addr, blk), footprint_writes=writes))
        return next_pc

    return run


@implements("vst")
def bind_vst(inst: Inst, pc: int):
    ref, vs, pm = inst.operands
    width = inst.type.size
    next_pc = pc + inst.size
    access, blk = _accessor(inst, ref, "VST")
    reads = footprint([vreg(vs), preg(pm)])

    def run(m):
        addr = access(m)
        if blk is None:
            def perform():  # the sources are read now (copies); the active lanes land at the end
                lanes = m.lane_masks[width].get(m.p[pm].tobytes()) or m.lane_mask(pm, width)
                data = m.v[vs].copy()
                target = m.ub[addr:addr + VL_BYTES]
                if lanes is ALL_LANES:
                    return lambda: np.copyto(target, data)
                return lambda: np.copyto(target, data, where=lanes[1])

            writes = {"ub": (None, addr >> 5, (addr + VL_BYTES - 1 >> 5) + 1)}  # the blocks of VL bytes
            m.submit_register(pc, perform, reads, writes)
            return next_pc
        where = _register_bytes(addr, blk)

        def perform_blocks():
            byte_on = lanes_to_mask(active_lanes(m.p[pm], width), width)
            picked = m.v[vs][byte_on]
            return lambda: m.ub.__setitem__(where[byte_on], picked)

        m.submit(Job(pc, perform_blocks, footprint_reads=reads, footprint_writes=_block_operand(addr, blk)))
        return next_pc

    return run


def _computer(inst: Inst, srcs: tuple, pm: int, vd: int):
    """``compute(m, scalar) -> landing`` of a register compute instruction: the kernel on the
    sources as they are now, inactive lanes zeroed; the landing writes the result into Vd."""
    etype = inst.type
    width = etype.size
    fn = numerics.kernel(inst.row.op, etype)
    name = etype.name
    va, vb = srcs if len(srcs) == 2 else (srcs[0], None)
    word = np.dtype(f"<u{width}")

    def compute(m, scalar=None):
        views = m.v_as[name]
        result = fn((views[va],) if vb is None else (views[va], views[vb]), scalar)
        lanes = m.lane_masks[width].get(m.p[pm].tobytes()) or m.lane_mask(pm, width)
        if lanes is ALL_LANES:
            target = views[vd]
        else:
            result = np.multiply(result.view(word), lanes[0])
            target = m.v_words[width][vd]
        return lambda: np.copyto(target, result)

    return compute


@implements("vbinary")
def bind_vbinary(inst: Inst, pc: int):
    vd, va, vb, pm = inst.operands
    next_pc = pc + inst.size
    carry = inst.kw("carry") if inst.row.keyword("carry") is not None else None
    if carry is not None:
        def run_carry(m):
            def perform():
                on = active_lanes(m.p[pm], 4)
                a = m.v[va].view("<u4").astype(np.uint64)
                b = m.v[vb].view("<u4").astype(np.uint64)
                total = a + (~b & 0xFFFFFFFF) + 1  # {carry, d} = {0,a} + {0,~b} + 1
                d = (total & 0xFFFFFFFF).astype("<u4")
                d[~on] = 0
                borrow = lanes_to_mask((total >> 32).astype(bool) & on, 4)

                def land() -> None:
                    m.p[carry] = borrow
                    m.v[vd] = d.view(np.uint8)

                return land

            m.submit(Job(pc, perform, [vreg(va), vreg(vb), preg(pm)], [vreg(vd), preg(carry)]))
            return next_pc

        return run_carry

    compute = _computer(inst, (va, vb), pm, vd)
    reads, writes = footprint([vreg(va), vreg(vb), preg(pm)]), footprint([vreg(vd)])

    def run(m):
        m.submit_register(pc, lambda: compute(m), reads, writes)
        return next_pc

    return run


@implements("vunary")
def bind_vunary(inst: Inst, pc: int):
    vd, va, pm = inst.operands
    next_pc = pc + inst.size
    compute = _computer(inst, (va,), pm, vd)
    reads, writes = footprint([vreg(va), preg(pm)]), footprint([vreg(vd)])

    def run(m):
        m.submit_register(pc, lambda: compute(m), reads, writes)
        return next_pc

    return run


@implements("vscalar")
def bind_vscalar(inst: Inst, pc: int):
    vd, va, ref, pm = inst.operands
    next_pc = pc + inst.size
    compute = _computer(inst, (va,), pm, vd)
    reads, writes = footprint([vreg(va), preg(pm)]), footprint([vreg(vd)])

    def run(m):
        scalar = _scalar_value(m, ref, inst.type)  # Sn is read at dispatch, like every scalar operand
        m.submit_register(pc, lambda: compute(m, scalar), reads, writes)
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


@implements("vgather_ub", refines=True)
def bind_vgather_ub(inst: Inst, pc: int):
    vd, ref, vi, pm = inst.operands
    etype = inst.type
    lane_width = 4 if etype.size == 4 else 2
    next_pc = pc + inst.size

    def run(m):
        base = m.ub_block_address(ref, "VGATHER")

        def addresses():
            idx = m.v[vi].view(_index_type(etype)).astype(np.int64)
            on = active_lanes(m.p[pm], lane_width)
            return idx, on, base + idx[on] * etype.size

        def perform():
            idx, on, start = addresses()
            if start.size and (start.min() < 0 or start.max() + etype.size > m.ub.size):
                lane = int(np.flatnonzero(on)[np.argmax((start < 0) | (start + etype.size > m.ub.size))])
                raise Fault(f"VGATHER: index {int(idx[lane])} of lane {lane} reads outside UB "
                            f"(byte {hex_signed(base + int(idx[lane]) * etype.size)}, UB size 0x{m.ub.size:x})")
            if etype.size == 1:
                out = np.zeros(128, dtype="<u2")
                out[on] = m.ub[start]
            else:
                out = np.zeros(idx.size, dtype=f"<u{etype.size}")
                out[on] = m.view("ub", TYPES[f"u{etype.bits}"])[start // etype.size]
            return lambda: m.v.__setitem__(vd, out.view(np.uint8))

        def refine():
            _, _, start = addresses()
            return [blocks("ub", start), vreg(vi), preg(pm)], [vreg(vd)]

        reach = span("ub", base, _index_reach(m, base, etype))
        m.submit(Job(pc, perform, [reach, vreg(vi), preg(pm)], [vreg(vd)], refine=refine))
        return next_pc

    return run


@implements("vgather_reg")
def bind_vgather_reg(inst: Inst, pc: int):
    vd, vs, vi = inst.operands
    etype = inst.type
    udt = f"<u{etype.size}" if etype.size > 1 else "u1"
    lanes = etype.lanes
    next_pc = pc + inst.size

    def perform_on(m):
        idx = m.v[vi].view(udt).astype(np.int64) % lanes
        out = m.v[vs].view(udt)[idx].view(np.uint8)  # fancy indexing: a copy
        return lambda: m.v.__setitem__(vd, out)

    def run(m):
        m.submit(Job(pc, lambda: perform_on(m), [vreg(vs), vreg(vi)], [vreg(vd)]))
        return next_pc

    return run


@implements("vscatter", refines=True)
def bind_vscatter(inst: Inst, pc: int):
    ref, vs, vi, pm = inst.operands
    etype = inst.type
    next_pc = pc + inst.size
    udt = TYPES[f"u{etype.bits}"]

    def run(m):
        base = m.ub_block_address(ref, "VSCATTER")

        def addresses():
            idx = m.v[vi].view(_index_type(etype)).astype(np.int64)
            on = active_lanes(m.p[pm], etype.size)
            return idx, on, base + idx[on] * etype.size

        def perform():
            idx, on, start = addresses()
            if start.size and (start.min() < 0 or start.max() + etype.size > m.ub.size):
                lane = int(np.flatnonzero(on)[np.argmax((start < 0) | (start + etype.size > m.ub.size))])
                raise Fault(f"VSCATTER: index {int(idx[lane])} of lane {lane} writes outside UB "
                            f"(byte {hex_signed(base + int(idx[lane]) * etype.size)}, UB size 0x{m.ub.size:x})")
            values = m.v[vs].view(f"<u{etype.size}")[on]  # boolean indexing: a copy
            # Ascending lane order: numpy keeps the last write, so the higher lane wins.
            return lambda: m.view("ub", udt).__setitem__(start // etype.size, values)

        def refine():
            _, _, start = addresses()
            return [vreg(vs), vreg(vi), preg(pm)], [blocks("ub", start)]

        reach = span("ub", base, _index_reach(m, base, etype))
        m.submit(Job(pc, perform, [vreg(vs), vreg(vi), preg(pm)], [reach], refine=refine))
        return next_pc

    return run


def pattern_lanes(pattern: str, lanes: int) -> int:
    if pattern == "ALL":
        return lanes
    if pattern == "ALLF":
        return 0
    if pattern.startswith("VL"):
        return min(int(pattern[2:]), lanes)
    return {"M3": lanes - lanes % 3, "M4": lanes - lanes % 4, "H": lanes // 2, "Q": lanes // 4}[pattern]


@implements("pset")
def bind_pset(inst: Inst, pc: int):
    pd, pattern = inst.operands
    width = inst.type.size
    value = lanes_to_mask(np.arange(256 // width) < pattern_lanes(pattern, 256 // width), width)
    next_pc = pc + inst.size

    def run(m):
        m.submit(Job(pc, lambda: lambda: m.p.__setitem__(pd, value), [], [preg(pd)]))
        return next_pc

    return run


@implements("pupdate")
def bind_pupdate(inst: Inst, pc: int):
    pd, sc = inst.operands
    width = inst.type.size
    lanes = 256 // width
    # The mask of the first n lanes, for every n: a row of this table, chosen at dispatch.
    masks = list(np.repeat(np.arange(lanes)[None, :] < np.arange(lanes + 1)[:, None], width, axis=1))
    writes = footprint([preg(pd)])
    next_pc = pc + inst.size

    def run(m):
        s = m.s
        count = s[sc]
        # The scalar side happens at dispatch, in program order: Sn -= lanes, down to 0 (never wraps).
        if count > lanes:
            value = masks[lanes]
            if sc:
                s[sc] = count - lanes
        else:
            value = masks[count if count > 0 else 0]
            if sc:
                s[sc] = 0

        def land():
            m.p[pd] = value

        m.submit_register(pc, lambda: land, NOTHING, writes)  # it reads nothing: its writes are known now
        return next_pc

    return run


@implements("pld")
def bind_pld(inst: Inst, pc: int):
    pd, ref = inst.operands
    next_pc = pc + inst.size

    def run(m):
        addr = m.ub_block_address(ref, "PLD")
        m.check_ub(addr, addr + 32, "PLD")

        def perform():
            bits = np.unpackbits(m.ub[addr:addr + 32], bitorder="little").astype(bool)
            return lambda: m.p.__setitem__(pd, bits)

        m.submit(Job(pc, perform, [span("ub", addr, addr + 32)], [preg(pd)]))
        return next_pc

    return run


@implements("pst")
def bind_pst(inst: Inst, pc: int):
    ref, ps = inst.operands
    next_pc = pc + inst.size

    def run(m):
        addr = m.ub_block_address(ref, "PST")
        m.check_ub(addr, addr + 32, "PST")

        def perform():
            packed = np.packbits(m.p[ps], bitorder="little")
            return lambda: m.ub.__setitem__(slice(addr, addr + 32), packed)

        m.submit(Job(pc, perform, [preg(ps)], [span("ub", addr, addr + 32)]))
        return next_pc

    return run
