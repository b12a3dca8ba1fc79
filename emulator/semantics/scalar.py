"""Scalar unit, control flow and synchronisation semantics (the scalar shape; DMA is emulator.semantics.dma).

Scalar registers hold signed 64-bit values; arithmetic wraps. Shifts take the count modulo 64 and
SHR is logical. Branches compare signed. LD and ST read and write UB or GM at the scalar
unit's cycle, as a job of their own on S (``Engine.scalar_access``), so races with other pipes
are seen. Flags and barriers carry no data: their effect is on time, which the cycle model
accounts for.
"""

from __future__ import annotations

import numpy as np

from vcore.emulator.faults import Fault, check_range
from vcore.emulator.jobs import Job, span
from vcore.emulator.semantics.registry import HALT_PC, NO_UB, UNBANKED, implements
from vcore.emulator.state import S_MASK, wrap64
from vcore.isa import Inst
from vcore.isa.values import dtype_of

_ALU = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
    "shl": lambda a, b: a << (b & 63),
    "shr": lambda a, b: (a & S_MASK) >> (b & 63),
}
_COMPARE = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b,
    "ge": lambda a, b: a >= b,
}


@implements("mov", bank_rule=NO_UB)
def bind_mov(inst: Inst, pc: int):
    sd, src = inst.operands
    next_pc = pc + inst.size
    if src.reg is None:
        value = wrap64(src.imm)

        def run_imm(m):
            if sd:
                m.s[sd] = value
            return next_pc

        return run_imm

    sreg = src.reg

    def run(m):
        if sd:
            m.s[sd] = m.s[sreg]
        return next_pc

    return run


@implements("mov_core", bank_rule=NO_UB)
def bind_mov_core(inst: Inst, pc: int):
    """Sd = the core's block index (0..N-1) or the number of cores N of the kernel."""
    sd, which = inst.operands
    attr = "core" if which == "BLOCKIDX" else "cores"
    next_pc = pc + inst.size

    def run(m):  # m: the machine, or inside a vector function its context (whose ``machine`` it is)
        if sd:
            m.s[sd] = getattr(getattr(m, "machine", m), attr)
        return next_pc

    return run


@implements("alu", bank_rule=NO_UB)
def bind_alu(inst: Inst, pc: int):
    sd, sa, sb = inst.operands
    fn = _ALU[inst.row.op]
    next_pc = pc + inst.size
    if sb.reg is None:
        imm = sb.imm

        def run_imm(m):
            if sd:
                m.s[sd] = wrap64(fn(m.s[sa], imm))
            return next_pc

        return run_imm

    rb = sb.reg

    def run(m):
        if sd:
            m.s[sd] = wrap64(fn(m.s[sa], m.s[rb]))
        return next_pc

    return run


@implements("branch", bank_rule=NO_UB)
def bind_branch(inst: Inst, pc: int):
    sa, sb, target = inst.operands
    test = _COMPARE[inst.row.op]
    next_pc = pc + inst.size
    if sb.reg is None:
        imm = sb.imm

        def run_imm(m):
            return target if test(m.s[sa], imm) else next_pc

        return run_imm

    rb = sb.reg

    def run(m):
        return target if test(m.s[sa], m.s[rb]) else next_pc

    return run


@implements("jump", bank_rule=NO_UB)
def bind_jump(inst: Inst, pc: int):
    (target,) = inst.operands
    return lambda m: target


@implements("nop", bank_rule=NO_UB)
def bind_nop(inst: Inst, pc: int):
    next_pc = pc + inst.size
    return lambda m: next_pc


@implements("setflag", "waitflag", bank_rule=NO_UB)
def bind_flag(inst: Inst, pc: int):
    src, dst, event = inst.operands
    kind = "set" if inst.row.family == "setflag" else "wait"
    next_pc = pc + inst.size

    def run(m):
        m.submit(Job(pc, None, kind=kind, flag=(src, dst, event)))
        return next_pc

    return run


@implements("barrier", "syncall", bank_rule=NO_UB)
def bind_barrier(inst: Inst, pc: int):
    """BARRIER, and SYNCALL: every pipe of this core drains, then the core waits for the others
    (``Engine._on_s``)."""
    kind = inst.row.family
    next_pc = pc + inst.size

    def run(m):
        m.submit(Job(pc, None, kind=kind))
        return next_pc

    return run


@implements("halt", bank_rule=NO_UB)
def bind_halt(inst: Inst, pc: int):
    return lambda m: HALT_PC


def _scalar_address(m, ref, etype, what: str) -> int:
    """The byte address of an LD / ST operand, checked: aligned to T's size, inside its memory."""
    addr = ref.offset if ref.reg is None else m.s[ref.reg] + ref.offset
    if addr % etype.size:
        raise Fault(f"{what} address 0x{addr:x} is not aligned to {etype.size} bytes (the size of {etype.name})")
    return addr


@implements("ld", bank_rule=UNBANKED)
def bind_ld(inst: Inst, pc: int):
    """Sd = the T at the address, sign-extended for a signed T: read when S reaches it."""
    sd, ref = inst.operands
    etype, space = inst.type, inst.row.op
    dtype = dtype_of(etype)
    size = etype.size
    next_pc = pc + inst.size

    def run(m):
        addr = _scalar_address(m, ref, etype, "LD")
        check_range(space.upper(), m.memory(space).size, addr, addr + size, "LD")
        got = []

        def perform():
            got.append(int(m.memory(space)[addr:addr + size].view(dtype)[0]))
            return ()

        job = Job(pc, perform, [span(space, addr, addr + size)], ())
        job.exact = {space: (addr, size, size, 1)}
        if space == "gm" and m.gm_log is not None:
            m.gm_log.append((False, addr, size, size, 1, pc, job))
        m.scalar_access(job)
        if sd:
            m.s[sd] = wrap64(got[0])
        return next_pc

    return run


@implements("st", bank_rule=UNBANKED)
def bind_st(inst: Inst, pc: int):
    """The T at the address = the low bits of Ss, written when S reaches it."""
    ref, ss = inst.operands
    etype, space = inst.type, inst.row.op
    size = etype.size
    mask = (1 << etype.bits) - 1
    next_pc = pc + inst.size

    def run(m):
        addr = _scalar_address(m, ref, etype, "ST")
        check_range(space.upper(), m.memory(space).size, addr, addr + size, "ST")
        data = np.frombuffer((m.s[ss] & mask).to_bytes(size, "little"), dtype=np.uint8)
        memory = m.memory(space)
        job = Job(pc, lambda: ((memory, slice(addr, addr + size), data),), (), [span(space, addr, addr + size)])
        job.exact = {space: (addr, size, size, 1)}
        if space == "gm" and m.gm_log is not None:
            m.gm_log.append((True, addr, size, size, 1, pc, job))
        m.scalar_access(job)
        return next_pc

    return run
