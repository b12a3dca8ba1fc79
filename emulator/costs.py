"""What each instruction costs, from the profile alone: every cycle is a named parameter times a rule.

- Scalar instructions occupy S for ``scalar.*`` cycles; handing an instruction to another pipe
  costs ``scalar.issue``.
- A tensor instruction occupies V for ``iterations * lanes / (elements_per_cycle * sustained)``
  cycles plus its bank-conflict cycles, and its results land ``tensor.startup`` cycles later.
- A register instruction occupies V for ``ceil(lanes / elements_per_cycle)`` cycles (at least one)
  and its result is ready ``*_latency`` cycles after it issues.
- DMA costs ``*_latency + bytes / *_bytes_per_cycle`` on its MTE pipe.
"""

from __future__ import annotations

import math

from attrs import frozen

from emulator.banks import BankRules, conflict_cycles
from emulator.profile import Profile
from isa import Inst

BINARY_OPS = {"add", "sub", "mul", "max", "min", "adds", "muls", "maxs", "mins"}
TRANSCENDENTAL = {"exp", "ln", "sqrt"}
_WIDTH_INDEX = {1: 0, 2: 1, 4: 2}


@frozen
class Cost:
    """``occupancy``: cycles the pipe is busy; ``latency``: cycles from start to results landing."""

    occupancy: int
    latency: int
    conflicts: int = 0


class CostModel:
    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.scalar = profile["scalar"]
        self.sync = profile["sync"]
        self.tensor = profile["tensor"]
        self.register = profile["register"]
        self.dma = profile["dma"]
        self.banks = BankRules(profile["banks"]["kind"], profile["banks"]["beats"])
        # Conflicts depend on addresses modulo this: 950 interleaves on bits [8:5]; a2's tier is bits [17:16].
        self.bank_period = 512 if self.banks.kind == "950" else 1 << 18

    # -- the scalar pipe -----------------------------------------------------------------------
    def s_cycles(self, inst: Inst) -> int:
        """Cycles the instruction occupies S when the scalar unit reads it."""
        family = inst.row.family
        if family in ("mov", "alu"):
            return self.scalar["mul"] if inst.row.op == "mul" else self.scalar["alu"]
        if family in ("branch", "jump"):
            return self.scalar["branch"]
        if family in ("nop", "halt"):
            return self.scalar["nop"]
        return self.scalar["issue"]

    # -- the other pipes -----------------------------------------------------------------------
    def tensor_iteration_cycles(self, inst: Inst) -> float:
        op = inst.row.op
        per_cycle = self.tensor["elements_per_cycle"][op][0 if inst.type.size == 2 else 1]
        if op in BINARY_OPS:
            sustained = self.tensor["sustained_binary"]
        elif op in TRANSCENDENTAL:
            sustained = self.tensor["sustained_transcendental"][0 if inst.type.size == 2 else 1]
        else:
            sustained = self.tensor["sustained_unary"]
        return inst.type.lanes / (per_cycle * sustained)

    def tensor_conflicts(self, reads, writes, iterations: int) -> int:
        """Bank-conflict cycles of a tensor instruction's (sampled) block addresses."""
        per = conflict_cycles(self.banks, reads, writes)
        conflicts = int(per.sum())
        if per.size < iterations:  # identical iterations beyond the sampled ones
            conflicts = round(conflicts * iterations / max(per.size, 1))
        return conflicts

    def tensor_cost(self, inst: Inst, job) -> Cost:
        conflicts = job.conflicts(self) if job.conflicts is not None else 0
        busy = max(1, math.ceil(job.iterations * self.tensor_iteration_cycles(inst)) + conflicts)
        return Cost(busy, busy + self.tensor["startup"], conflicts)

    def register_cost(self, inst: Inst) -> Cost:
        row, reg = inst.row, self.register
        family, op = row.family, row.op
        if family in ("pset", "pupdate", "pld", "pst"):
            return Cost(1, reg["mask_latency"])
        if family == "vld":
            return Cost(1, reg["load_latency"])
        if family == "vst":
            return Cost(1, reg["store_latency"])
        size = inst.type.size
        width = _WIDTH_INDEX[size]
        if family in ("vgather_ub", "vscatter"):
            lanes = 64 if size == 4 else 128
            return Cost(max(1, math.ceil(lanes / reg["elements_per_cycle"]["gather"][width])), reg["gather_latency"])
        if family == "vgather_reg":
            return Cost(1, reg["alu_latency"])
        per_cycle = reg["elements_per_cycle"][op][width]
        if op == "add" and inst.type.name == "f32":
            per_cycle = reg["elements_per_cycle"]["float32_add"]
        latency = reg["transcendental_latency"] if op in TRANSCENDENTAL else reg["alu_latency"]
        return Cost(max(1, math.ceil(inst.type.lanes / per_cycle)), latency)

    def dma_cost(self, inst: Inst, job) -> Cost:
        direction = inst.row.op
        cycles = self.dma[f"{direction}_latency"] + math.ceil(job.nbytes / self.dma[f"{direction}_bytes_per_cycle"])
        return Cost(cycles, cycles)

    def sync_cost(self, kind: str) -> Cost:
        cycles = self.sync[{"set": "setflag", "wait": "waitflag", "barrier": "barrier"}[kind]]
        return Cost(cycles, cycles)

    def job_cost(self, inst: Inst, job) -> Cost:
        if job.kind != "data":
            return self.sync_cost(job.kind)
        family = inst.row.family
        if family == "tensor":
            return self.tensor_cost(inst, job)
        if family == "dma":
            return self.dma_cost(inst, job)
        return self.register_cost(inst)

