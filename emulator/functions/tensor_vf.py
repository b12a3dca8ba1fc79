"""A tensor instruction priced as the vector function it is on the 950 (docs/timing.md, "Costs"): the
950 runs every tensor (Memory-API) instruction as a vector function of register instructions, its
iterations a hardware loop of loads, the operation and a store. So its price is that function's
schedule, by the same rules, units, ports, banks and latencies as register code written by hand
(``emulator.functions.schedule``), in closed form over its iterations where the schedule repeats
(``emulator.functions.steady``): the launch (``register.vf_launch`` and one push of its arguments),
the loop's start-up, then per iteration

- a load of each source operand's datablocks (``VLD``; ``blk=`` when its block stride is not 1; a
  ``PLD`` for a select's selector bits), and of the destination when the operation reads it
  (``VAXPY``, ``VMLA``, ``VMADD``);
- the operation, as the register instruction of its op prices it (``VADD`` as the register VADD,
  ``VEXP`` on a transcendental unit, a reduction as ``VREDUCE``, issued alone; ``VREC`` and ``VRSQRT``,
  which the 950's register set lacks, at the rate of a division; ``VBRCB`` as a ``VDUP``);
- a store of the destination's datablocks (``VST``; a ``PST`` for a compare's result bits);

with its mask made once before the loop (``PSET``), or in counter mode a ``PUPDATE`` each iteration.
Iterations that read what an earlier one wrote are kept in order by a ``MEMBAR`` before every ``d``-th
iteration, ``d`` the fewest iterations from a write to a read of its blocks. The
function's cycles are from its launch to its last result: the tensor instruction holds V that long.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from vcore.emulator.functions.schedule import LOOP, MEMBAR, InnerPlan, Scheduler, bypass, limits
from vcore.emulator.functions.steady import feed_passes
from vcore.emulator.jobs import Job, runs_of
from vcore.emulator.semantics import geometry
from vcore.isa import TABLE
from vcore.isa.classes import CLASSES
from vcore.isa.types import BLOCK_BYTES

_WIDTH_INDEX = {1: 0, 2: 1, 4: 2}
# Tensor ops the 950's register set has no instruction of its own for: (register class, rate entry).
_STAND_INS = {"rec": ("reg.transcendental", "div"), "rsqrt": ("reg.transcendental", "div"),
              "brcb": ("reg.alu", "dup"), "sels": ("reg.alu", "sel")}
_REDUCE_OPS = {"cadd": "SUM", "cgadd": "SUM", "cpadd": "SUM", "cmax": "MAX", "cgmax": "MAX", "cmin": "MIN",
               "cgmin": "MIN"}
_KEPT = 4096  # prices kept, by profile, instruction and where its operands fall (more: the oldest go)
# Synthetic pcs of the function's jobs: the mask, each operand's load, the operation, the store.
_MASK, _OP, _STORE, _FIRST_LOAD = 0, 1, 2, 3


@cache
def _register_rows() -> dict:
    """The register row of each (mnemonic, op): what prices a tensor op's register twin."""
    return {(row.mnemonic, row.op): row for row in TABLE if CLASSES[row.timing].schedule == "register"}


def register_twin(inst) -> tuple[str, str]:
    """The register class and ``register.elements_per_cycle`` entry that price a tensor instruction's
    operation: its register twin's (the register row of its mnemonic and op), or a stand-in's."""
    op = inst.row.op
    if op in _REDUCE_OPS:
        return "reg.reduce", "reduce"
    row = _register_rows().get((inst.row.mnemonic, op))
    if row is not None:
        return row.timing, row.rate_of(inst.type.name)
    if op in _STAND_INS:
        return _STAND_INS[op]
    raise KeyError(f"{inst.row.mnemonic}: no register instruction prices tensor op {op!r}")


def _per_cycle(entry, inst, width: int):
    if isinstance(entry, dict):  # by type, or by pair "D.S" (a conversion)
        key = inst.type.name if inst.source is None else f"{inst.type.name}.{inst.source.name}"
        return entry[key]
    return entry if isinstance(entry, int | float) else entry[width]


def _op_plan(costs, inst, reads: tuple, writes: tuple, special_units: int) -> InnerPlan:
    """The operation's plan: its register twin's latency, cycles, unit and issue rule."""
    reg = costs.register
    name, rate = register_twin(inst)
    cls = CLASSES[name]
    latency = reg[cls.price[1]]
    if isinstance(latency, dict):  # by operation (a reduction's, else the op or its twin's rate)
        op = _REDUCE_OPS.get(inst.row.op, inst.row.op)
        latency = latency[op if op in latency else rate]
    if isinstance(latency, list):  # by width [16-bit, 32-bit]
        latency = latency[0 if inst.type.size <= 2 else 1]
    lanes = inst.lanes
    width = _WIDTH_INDEX[max(1, min(4, 256 // lanes))]
    rates = reg["elements_per_cycle"]
    cycles = max(1, math.ceil(lanes / _per_cycle(rates[rate], inst, width)))
    for op in cls.adds:  # a remainder's multiply and subtract
        cycles += max(1, math.ceil(lanes / _per_cycle(rates[op], inst, width)))
    if cls.int_extra and not inst.type.is_float:  # an integer division's software sequence: before its result too
        cycles += reg[cls.int_extra]
        latency += reg[cls.int_extra]
    occupancy, special = cycles, 0
    if "transcendental" in cls.units[1:] and special_units:  # its own unit, an issue slot for a cycle
        occupancy, special = 1, cycles
    alone = bool(reg.get(f"{name.partition('.')[2]}_single_issue", False))
    return InnerPlan(latency, occupancy, "exec", special, reads, writes,
                     sum(space[0] == "V" for space in writes), 0, False, alone, cls.reader,
                     *bypass(reg, cls, latency))


def _access_plan(costs, kind: str, strided: bool, register: str) -> InnerPlan:
    """A load or store of an operand: ``kind`` load, store, mask_load or mask_store; ``register`` the
    register it fills or empties."""
    reg = costs.register
    latency = reg["mask_latency"] if kind.startswith("mask") else reg[f"{kind}_latency"]
    occupancy = reg["strided_access_cycles"] if strided else 1
    unit = "store" if kind.endswith("store") else "load"
    alone = bool(reg.get(f"{kind}_single_issue", False))
    cls = CLASSES["reg.mask" if kind.startswith("mask") else f"reg.{unit}"]
    early = (cls.reader, *bypass(reg, cls, latency))
    if unit == "load":
        return InnerPlan(latency, occupancy, unit, 0, (), (register,), int(register[0] == "V"), 1, False, alone,
                         *early, strided)
    return InnerPlan(latency, occupancy, unit, 0, (register, "P0"), (), 0, 2, False, alone, *early, strided)


_FUNCTIONS: dict = {}  # (the profile's register section and banks, instruction) -> its TensorFunction
_PRICES: dict = {}  # (the same, where its operands fall) -> (cycles, bank-conflict cycles)


def price(costs, inst, plan, addrs: list[int]) -> tuple[int, int]:
    """The cycles and bank-conflict cycles of tensor instruction ``inst`` (its operand plan ``plan``) as
    a vector function, its operands at ``addrs`` (bytes). Kept by the profile's register section and
    banks, the instruction, and where its operands fall in the banks' period and lie to each other: a
    tiling loop's passes, and runs of the same program, work each out once."""
    period = costs.banks.period
    key = (costs.function_key, inst, *(a % period for a in addrs), *(a - addrs[0] for a in addrs))
    found = _PRICES.get(key)
    if found is None:
        fn = _FUNCTIONS.get(key[:2])
        if fn is None:
            if len(_FUNCTIONS) >= _KEPT:
                _FUNCTIONS.clear()
            fn = _FUNCTIONS[key[:2]] = TensorFunction(costs, inst, plan)
        if len(_PRICES) >= _KEPT:
            _PRICES.clear()
        found = _PRICES[key] = fn.schedule(addrs)
    return found


class TensorFunction:
    """What scheduling one static tensor instruction's function needs (the ``fn`` a ``Scheduler`` reads):
    the plans of its jobs by synthetic pc, the profile's limits, and its prices by operand places."""

    def __init__(self, costs, inst, plan) -> None:
        caps = costs.register
        self.costs = costs
        self.launch_cycles = caps["vf_launch"] + caps["vf_param_push"]  # its arguments: one push
        (self.loop_startup, self.membar_cycles, self.window, self.register_writes, self.ports, self.special_units,
         self.units) = limits(costs)
        self.scalar_cycles: dict = {}
        self.beats: dict = {}
        self.loop_schedules: dict = {}
        self.plan = plan
        self.counted = plan.count is not None
        operands = plan.operands
        sources = list(range(1, len(operands))) + ([0] if plan.reads_dst else [])
        self.loads = []  # (synthetic pc, operand index)
        self.plans: dict = {}
        registers = []
        for n, k in enumerate(sources):
            operand = operands[k]
            register = f"P{n + 1}" if operand.bits else f"V{n}"
            self.plans[_FIRST_LOAD + n] = _access_plan(costs, "mask_load" if operand.bits else "load",
                                                       _strided(operand), register)
            self.loads.append((_FIRST_LOAD + n, k))
            registers.append(register)
        dst = operands[0]
        result = "P7" if dst.bits else "V8"
        self.plans[_OP] = _op_plan(costs, inst, (*registers, "P0"), (result,), self.special_units)
        self.plans[_STORE] = _access_plan(costs, "mask_store" if dst.bits else "store", _strided(dst), result)
        mask = CLASSES["reg.mask"]
        self.plans[_MASK] = InnerPlan(caps["mask_latency"], 1, "exec", 0, () if not self.counted else ("P0",),
                                      ("P0",), 0, 0, False, bool(caps.get("mask_single_issue", False)),
                                      mask.reader, *bypass(caps, mask, caps["mask_latency"]))

    def schedule(self, addrs: list[int]) -> tuple[int, int]:
        """The function's cycles and bank-conflict cycles with its operands at ``addrs`` (bytes)."""
        sched = Scheduler(self)
        front = [] if self.counted else [_job(_MASK, None, None)]
        sched.feed([*front, (LOOP, -1)])
        passes = _Passes(self, addrs)
        if passes.passes:
            feed_passes(sched, passes, passes.period)
        result = sched.result()
        return result.cycles, sum(result.conflicts.values())


def _job(pc: int, reads, writes) -> Job:
    """A job of the function as the scheduler needs it: its (synthetic) pc and footprints."""
    job = object.__new__(Job)
    job.pc, job.footprint_reads, job.footprint_writes = pc, reads or {}, writes or {}
    return job


def _strided(operand) -> bool:
    """Whether an operand's datablocks are read or written block-strided (``blk=``, not 1)."""
    return operand.layout.blocks > 1 and operand.layout.blk != 1


def _distance(plan, addrs: list[int]) -> int:
    """The fewest iterations from one that writes blocks to a later one that reads them (``iterations``
    when none does): a MEMBAR before every that many keeps them in order."""
    dst, distance = plan.operands[0], plan.iterations
    for k in range(0 if plan.reads_dst else 1, len(plan.operands)):
        distance = min(distance, geometry.dependency_distance(plan.iterations, addrs[0] - addrs[k], dst.layout,
                                                              plan.operands[k].layout))
    return distance


class _Passes:
    """The function's loop as ``feed_passes`` walks it: ``passes`` iterations, ``pass_jobs(t)`` those of
    iteration ``t`` (each operand's datablocks at its address plus its offsets for ``t``), and the
    period of passes after which every operand falls at the same places in the banks again."""

    jobs: tuple = ()  # (no blocks to note: the tensor instruction's own footprint is its job's)
    steps: tuple = ()

    def __init__(self, fn: TensorFunction, addrs: list[int]) -> None:
        plan = fn.plan
        self.fn, self.plan, self.addrs = fn, plan, addrs
        self.passes = plan.iterations
        self.distance = _distance(plan, addrs) if plan.iterations > 1 else plan.iterations
        window = fn.ports.period_rows * BLOCK_BYTES
        self.period = self.distance if self.distance < plan.iterations else 1
        for operand in plan.operands:
            self.period = math.lcm(self.period, window // math.gcd(operand.advance % window or window, window))

    def pass_jobs(self, t: int) -> list:
        fn, plan, addrs = self.fn, self.plan, self.addrs
        operands = plan.operands
        row = t % plan.sampled
        out: list = [(MEMBAR, -1)] if t and not t % self.distance else []
        if fn.counted:
            out.append(_job(_MASK, None, None))
        for pc, k in fn.loads:
            out.append(_job(pc, {"ub": _blocks(operands[k], addrs[k], row, t)}, None))
        out.append(_job(_OP, None, None))
        out.append(_job(_STORE, None, {"ub": _blocks(operands[0], addrs[0], row, t)}))
        return out


def _blocks(operand, addr: int, row: int, t: int) -> tuple:
    """The footprint entry of an operand's datablocks in iteration ``t`` (its sampled row ``row``)."""
    first = (addr + (t - row) * operand.advance) // BLOCK_BYTES
    ids = sorted({first + int(offset) // BLOCK_BYTES for offset in operand.rows[row]})
    if ids[-1] - ids[0] + 1 == len(ids):
        return None, ids[0], ids[-1] + 1
    runs = runs_of(np.asarray(ids, dtype=np.int64))
    return runs, int(runs[0, 0]), int(runs[-1, 1])
