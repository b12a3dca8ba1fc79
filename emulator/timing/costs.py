"""What each instruction costs, from the profile alone: every cycle is a named parameter times a rule.

- Scalar instructions occupy S for ``scalar.*`` cycles; handing an instruction to another pipe
  costs ``scalar.issue``.
- A tensor instruction, with ``tensor.as_function`` (the 950), occupies V for the run of the vector
  function it is (``emulator.functions.tensor_vf``), its results landing as that ends; otherwise
  (the a2, and the 950's transposes and sorts, priced by their own rates) for ``tensor.issue``
  cycles, then ``iterations * lanes / (elements_per_cycle * sustained)`` cycles plus its
  bank-conflict cycles, and its results land ``tensor.startup`` cycles later (a division, a
  transcendental or a reduction: its class's ``tensor.latency.NAME``).
- A register instruction occupies its unit inside its vector function for ``ceil(lanes /
  elements_per_cycle)`` cycles (at least one) and its result is ready ``*_latency`` cycles after it
  issues; the function (``emulator.functions.launch``) occupies V for its whole run.
- A DMA's GM bytes are counted in ``dma.gm_window`` windows: a burst that straddles more windows
  than its length needs pays a whole window for each extra one. Its data lands ``max(*_setup + bytes /
  *_burst_bytes_per_cycle, bytes / *_bytes_per_cycle)`` cycles after it starts (the sustained rate at
  most the core's share of the chip's GM bandwidth), in order with the transfers before it on its
  pipe; the pipe takes the next transfer after ``max(*_issue, bytes / *_bytes_per_cycle)``, so
  back-to-back transfers overlap.
"""

from __future__ import annotations

import math

import numpy as np
from attrs import frozen

from vcore.emulator.profiles.profile import Profile
from vcore.emulator.timing.banks import BankRules, conflict_cycles
from vcore.isa import Inst, dist
from vcore.isa.classes import CLASSES, CYCLES, INDEX, ITERATION, ONE, STRIDED

_WIDTH_INDEX = {1: 0, 2: 1, 4: 2}
# A row's scheduling class (its ``timing``) is a record of ``isa.classes``: how it is scheduled (its
# family: on S alone, as a sync job, as a transfer: tensor and DMA, iterations or bytes through a pipe,
# as a register instruction inside a vector function, or as the function's structure), the profile key
# that prices it, how its cycles are counted and whether per op. So a new class is a record and its
# profile keys, no code: ``tensor.divide`` is priced by ``tensor.sustained_divide`` in every profile.


def schedule_of(timing: str) -> str | None:
    """How a class is scheduled (scalar, sync, transfer, register, function), or None for no class."""
    cls = CLASSES.get(timing)
    return None if cls is None else cls.schedule


def price_key(timing: str) -> tuple[str, str]:
    """The profile section and key that price a class."""
    return CLASSES[timing].price


def is_arithmetic(timing: str) -> bool:
    """Whether a class's rows are priced per op: their op needs an ``elements_per_cycle`` entry in
    every profile (and, where the row says its arithmetic is its op's kernel, a kernel in
    ``emulator.arith.numerics``)."""
    return CLASSES[timing].per_op


def rate_key(inst_or_row_type: str, source: str | None) -> str:
    """The key of a per-type (or, for VCONV.D.S, per-pair "D.S") ``elements_per_cycle`` table."""
    return inst_or_row_type if source is None else f"{inst_or_row_type}.{source}"


def elements_per_cycle(entry, inst: Inst, width: int):
    """An op's rate for an instruction: a list is indexed by element width, a table by type (or pair),
    a number is the rate of every width."""
    if isinstance(entry, dict):
        return entry[rate_key(inst.type.name, inst.source.name if inst.source is not None else None)]
    if isinstance(entry, int | float):
        return entry
    return entry[width]


def _rate_keys(row) -> list[str]:
    if row.pairs:
        return sorted(f"{d}.{s}" for d, s in row.pairs)
    return list(row.types)


def _rates(row, cls) -> list[str]:
    """The ``elements_per_cycle`` entries that price a row: its op's (per op) and those its types name
    instead, or its class's (the lanes of an index register)."""
    if cls.per_op:
        return [row.op, *(entry for _, entry in row.type_rates)]
    return [cls.rate] if cls.rate else []


def check_classes(table, profiles, classes=CLASSES) -> list[str]:
    """What keeps a row from being priced: a class that is not declared, or a profile without the keys
    (its class's, and the ``elements_per_cycle`` entries that price its lanes). Empty when all is well."""
    problems = []
    for row in table:
        cls = classes.get(row.timing)
        if cls is None:
            problems.append(f"{row.mnemonic} ({row.form}): scheduling class {row.timing!r} is not declared "
                            f"(isa.classes.CLASSES)")
            continue
        for profile in profiles:
            section, key = cls.price
            for needed in (key, cls.cycles) if cls.cycles else (key,):
                if needed not in profile[section]:
                    problems.append(f"{row.mnemonic} ({row.form}): profile {profile.name} lacks {section}.{needed}")
            own = cls.name.partition(".")[2]
            if cls.own_latency and own not in profile[section].get("latency", {}):
                problems.append(f"{row.mnemonic} ({row.form}): profile {profile.name} lacks {section}.latency.{own}")
            for rate in _rates(row, cls):  # the lanes' rate, in its section's elements_per_cycle
                entry = profile[section]["elements_per_cycle"].get(rate)
                if entry is None:
                    problems.append(f"{row.mnemonic}: profile {profile.name} lacks "
                                    f"{section}.elements_per_cycle.{rate}")
                elif isinstance(entry, dict):
                    problems += [f"{row.mnemonic}.{key}: profile {profile.name} lacks "
                                 f"{section}.elements_per_cycle.{rate}.{key}"
                                 for key in _rate_keys(row) if key not in entry]
    return problems


def register_latency(entry, inst: Inst) -> int:
    """A register class's latency for an instruction: a number, or a table by operation (VREDUCE.O's
    condition, else the row's op: the transcendentals), whose entry is a number or a list by element
    width [16-bit, 32-bit] (an 8-bit type takes the 16-bit figure)."""
    if isinstance(entry, dict):
        entry = entry[inst.cond] if inst.cond in entry else entry[inst.row.op]
    if isinstance(entry, list):
        return entry[0 if inst.type.size <= 2 else 1]
    return entry


def _floor_sum(n: int, m: int, a: int, b: int) -> int:
    """The sum of (a * i + b) // m for i in 0..n-1 (a, b >= 0), in O(log m) steps: Euclid's
    reduction, so that a DMA's windows are counted without a step per burst."""
    total = 0
    while True:
        if a >= m:
            total += (n - 1) * n // 2 * (a // m)
            a %= m
        if b >= m:
            total += n * (b // m)
            b %= m
        top = a * n + b
        if top < m:
            return total
        n, b, m, a = top // m, top % m, a, m


@frozen
class Cost:
    """``occupancy``: cycles the pipe is busy; ``latency``: cycles from start to results landing."""

    occupancy: int
    latency: int
    conflicts: int = 0


class CostModel:
    def __init__(self, profile: Profile, cores: int = 1) -> None:
        """The prices of ``profile`` for one core of a kernel of ``cores``: GM transfers of all
        cores share ``chip.gm_bytes_per_cycle`` in each direction, so each core's DMA rate is at most
        its share (the cores of a kernel stream at once: each takes its slice of the same loop)."""
        self.profile = profile
        self.scalar = profile["scalar"]
        self.sync = profile["sync"]
        self.tensor = profile["tensor"]
        self.register = profile["register"]
        chip = profile["chip"]
        self.syncall = chip["syncall"]
        share = chip["gm_bytes_per_cycle"] / cores
        self.dma = {k: min(v, share) if k.endswith("bytes_per_cycle") else v for k, v in profile["dma"].items()}
        self.banks = BankRules(profile["banks"]["kind"], profile["banks"]["beats"])
        # A tensor instruction priced as the vector function it is (``emulator.functions.tensor_vf``)
        self.functions = profile["tensor"]["as_function"]
        self.function_key = repr((profile["register"], profile["banks"]))  # what prices such a function

    # -- the scalar pipe -----------------------------------------------------------------------
    def s_cycles(self, inst: Inst) -> int:
        """Cycles the instruction occupies S when the scalar unit reads it: its own price for a
        scalar class, else handing it to its pipe."""
        timing = inst.row.timing
        if schedule_of(timing) == "scalar":
            return self.scalar[price_key(timing)[1]]
        return self.scalar["issue"]

    # -- the other pipes -----------------------------------------------------------------------
    def tensor_iteration_cycles(self, inst: Inst) -> float:
        cls = CLASSES[inst.row.timing]
        if cls.occupancy == ITERATION:  # its cycles an iteration (MrgSort: a record), by element size if a list
            cycles = self.tensor[cls.price[1]]
            return cycles[inst.type.size - 1] if isinstance(cycles, list) else cycles
        lanes = inst.lanes
        width = 0 if lanes == 128 else 1
        per_cycle = elements_per_cycle(self.tensor["elements_per_cycle"][inst.row.rate_of(inst.type.name)], inst,
                                       width)
        sustained = self.tensor[price_key(inst.row.timing)[1]]
        if isinstance(sustained, list):  # per element width
            sustained = sustained[width]
        cycles = lanes / (per_cycle * sustained)
        for op in cls.adds:  # a remainder's multiply and subtract
            cycles += lanes / elements_per_cycle(self.tensor["elements_per_cycle"][op], inst, width)
        if cls.int_extra and not inst.type.is_float:  # an integer division's software sequence (CONTRACT 13.9)
            cycles += self.register[cls.int_extra]
        return cycles

    def tensor_conflicts(self, reads, writes, iterations: int, floor: float = 1.0) -> int:
        """Bank-conflict cycles of a tensor instruction's (sampled) block addresses: what the banks
        need for an iteration beyond ``floor``, the cycles the iteration takes anyway (on the 950 a
        binary op's two loads and a store take two cycles, as its banks' two reads and a write do)."""
        beats = self.banks.beats  # the banks' cycles for an iteration, against what it takes anyway
        per = np.maximum(conflict_cycles(self.banks, reads, writes) + beats - max(floor, beats), 0)
        conflicts = float(per.sum())
        if per.size < iterations:  # identical iterations beyond the sampled ones
            conflicts = conflicts * iterations / max(per.size, 1)
        return round(conflicts)

    def tensor_latency(self, inst: Inst) -> int:
        """Cycles from a tensor instruction's last iteration to its results landing: its class's
        ``tensor.latency.NAME`` where the class has a latency of its own (a division, a transcendental,
        a reduction), else ``tensor.startup``."""
        cls = CLASSES[inst.row.timing]
        return self.tensor["latency"][cls.name.partition(".")[2]] if cls.own_latency else self.tensor["startup"]

    def tensor_cost(self, inst: Inst, job) -> Cost:
        if self.functions and job.function is not None:  # the 950: the vector function it is
            cycles, conflicts = job.function(self)
            return Cost(cycles, cycles, conflicts)
        per_iteration = self.tensor_iteration_cycles(inst)
        conflicts = job.conflicts(self, max(1.0, per_iteration)) if job.conflicts is not None else 0
        busy = self.tensor["issue"] + max(1, math.ceil(job.iterations * per_iteration) + conflicts)
        return Cost(busy, busy + self.tensor_latency(inst), conflicts)

    def register_cost(self, inst: Inst) -> Cost:
        """A register instruction's cycles on its unit and its latency, as its class counts them."""
        row, reg = inst.row, self.register
        cls = CLASSES[row.timing]
        latency = register_latency(reg[cls.price[1]], inst)
        if cls.occupancy == ONE:
            return Cost(1, latency)
        if cls.occupancy == CYCLES:  # its own cycles (VINTLV, VPACK, VHIST: CONTRACT 13.9)
            cycles = reg[cls.cycles]
            return Cost(cycles, latency + cycles - 1 if cls.after_cycles else latency + cycles if cls.after_all
                        else latency)
        if cls.occupancy == STRIDED:  # a block-strided VLD / VST: the documented half rate (more if its banks need it)
            if row.keyword("blk") is not None and inst.kw("blk") not in (None, 1):  # (blk=1: one contiguous VL)
                return Cost(reg["strided_access_cycles"], latency)
            mode = dist.mode_of(inst)  # a mode that moves 512 bytes: ``register.dual_load`` / ``dual_store``
            return Cost(reg[f"dual_{cls.unit}"] if mode is not None and mode.wide else 1, latency)
        size = inst.type.size
        if cls.occupancy == INDEX:  # the lanes of its index register
            return Cost(max(1, math.ceil((64 if size == 4 else 128) / self.gather_rate(inst))), latency)
        lanes = inst.lanes
        width = _WIDTH_INDEX[256 // lanes]
        per_cycle = elements_per_cycle(reg["elements_per_cycle"][row.rate_of(inst.type.name)], inst, width)
        cycles = max(1, math.ceil(lanes / per_cycle))
        for op in cls.adds:  # a remainder: its multiply's and subtract's prices added (CONTRACT 13.9)
            cycles += max(1, math.ceil(lanes / elements_per_cycle(reg["elements_per_cycle"][op], inst, width)))
        if cls.int_extra and not inst.type.is_float:  # an integer division's software sequence: its cycles
            cycles += reg[cls.int_extra]  # hold the units, and come before the result too
            latency += reg[cls.int_extra]
        return Cost(cycles, latency)

    def gather_rate(self, inst: Inst) -> int:
        """The lanes a gather or scatter (an ``INDEX`` class) serves a cycle: ``elements_per_cycle`` of its
        class's rate at its index register's width."""
        size = inst.type.size
        return self.register["elements_per_cycle"][CLASSES[inst.row.timing].rate][_WIDTH_INDEX[size]]

    def single_issue(self, inst: Inst) -> bool:
        """Whether a register instruction issues alone: ``register.CLASS_single_issue`` (reductions, stores), or
        for a load or store whose mode moves 512 bytes ``register.dual_UNIT_single_issue``."""
        if self.register.get(f"{inst.row.timing.partition('.')[2]}_single_issue", False):
            return True
        mode = dist.mode_of(inst)
        return bool(mode is not None and mode.wide and
                    self.register.get(f"dual_{CLASSES[inst.row.timing].unit}_single_issue", False))

    def gm_bytes(self, job) -> int:
        """The GM bytes a DMA's bursts cost: each burst its length, plus a whole ``dma.gm_window`` for
        every window it straddles beyond the ``ceil(length / window)`` it needs (the hardware moves
        GM in windows: a misaligned burst fetches one more)."""
        gm, pitch, length, blocks = job.bursts
        window = self.dma["gm_window"]
        if gm % window == 0 and (pitch % window == 0 or blocks == 1):
            return job.nbytes
        # burst k touches windows gm + k * pitch .. gm + k * pitch + length - 1, all k at once
        touched = _floor_sum(blocks, window, pitch, gm + length - 1) - _floor_sum(blocks, window, pitch, gm) + blocks
        return job.nbytes + (touched - blocks * -(-length // window)) * window

    def dma_key(self, job) -> tuple:
        """What a DMA's cost follows from (``dma_cost``): the GM bytes its bursts cost. Two copies of one
        instruction with the same key cost the same."""
        return "dma", self.gm_bytes(job) if job.bursts is not None else job.nbytes

    def dma_cost(self, inst: Inst, job) -> Cost:
        """A copy's data lands after its fixed cost plus its bytes at the burst rate, or its bytes at
        the sustained rate if that is longer (msKPP's measured curves, a copy at a time); its pipe
        takes the next copy after ``*_issue`` cycles or its bytes at the sustained rate, whichever
        is longer (the hardware data_copy sample's back-to-back copies), never after its data lands."""
        d = inst.row.op
        nbytes = self.gm_bytes(job) if job.bursts is not None else job.nbytes
        sustained = nbytes / self.dma[f"{d}_bytes_per_cycle"]
        latency = max(math.ceil(self.dma[f"{d}_setup"] + nbytes / self.dma[f"{d}_burst_bytes_per_cycle"]),
                      math.ceil(sustained))
        return Cost(min(latency, max(self.dma[f"{d}_issue"], math.ceil(sustained))), latency)

    def sync_cost(self, kind: str) -> Cost:
        cycles = self.sync[{"set": "setflag", "wait": "waitflag", "barrier": "barrier", "syncall": "barrier"}[kind]]
        return Cost(cycles, cycles)

    def job_cost(self, inst: Inst, job) -> Cost:
        if job.kind != "data":
            return self.sync_cost(job.kind)
        timing = inst.row.timing
        if timing.startswith("tensor."):
            return self.tensor_cost(inst, job)
        if timing.startswith("dma."):
            return self.dma_cost(inst, job)
        if timing.startswith("vf."):  # a vector function: its launch worked out its whole run
            return job.cost
        return self.register_cost(inst)

    @staticmethod
    def is_transfer(inst: Inst) -> bool:
        """Whether the instruction is scheduled as a transfer (tensor, DMA, a vector function's
        launch) rather than a register one."""
        return schedule_of(inst.row.timing) in ("transfer", "function")
