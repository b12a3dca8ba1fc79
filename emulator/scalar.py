"""Scalar unit, control flow and synchronisation semantics (the scalar shape; DMA is emulator.dma).

Scalar registers hold signed 64-bit values; arithmetic wraps. Shifts take the count modulo 64 and
SHR is logical. Branches compare signed. Flags and barriers carry no data: their effect is on time,
which the cycle model accounts for.
"""

from __future__ import annotations

from emulator.jobs import Job
from emulator.semantics import HALT_PC, implements
from emulator.state import S_MASK, wrap64
from isa import Inst

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


@implements("mov")
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


@implements("alu")
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


@implements("branch")
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


@implements("jump")
def bind_jump(inst: Inst, pc: int):
    (target,) = inst.operands
    return lambda m: target


@implements("nop")
def bind_nop(inst: Inst, pc: int):
    next_pc = pc + inst.size
    return lambda m: next_pc


@implements("setflag", "waitflag")
def bind_flag(inst: Inst, pc: int):
    src, dst, event = inst.operands
    kind = "set" if inst.row.family == "setflag" else "wait"
    next_pc = pc + inst.size

    def run(m):
        m.submit(Job(pc, None, kind=kind, flag=(src, dst, event)))
        return next_pc

    return run


@implements("barrier")
def bind_barrier(inst: Inst, pc: int):
    next_pc = pc + inst.size

    def run(m):
        m.submit(Job(pc, None, kind="barrier"))
        return next_pc

    return run


@implements("halt")
def bind_halt(inst: Inst, pc: int):
    return lambda m: HALT_PC
