"""The scheduling classes (a row's ``timing`` column): for each, how it is scheduled, which profile key
prices it, how its cycles are counted and, for a register class, the units it holds inside a vector
function (as an llvm-mca ``WriteRes<Class, [units]>`` with its ``ReleaseAtCycles``).

This is data, like the table: the cost model (``emulator.timing.costs``) and a function's schedule
(``emulator.functions.schedule``) read a row's class and never its name. The table's self-check
refuses a row whose class is not here, and a register row whose class's unit does not fit its operands
(a row that writes UB issues on the store unit, one that reads it on the load unit, any other on the
execute unit); the emulator's check at import refuses a class a built-in profile does not price.
docs/timing.md's class table is generated from these records (``make docs``).
"""

from __future__ import annotations

from attrs import frozen

# How a class family is scheduled: on S alone, as a sync job, as a transfer through its pipe (tensor
# iterations, DMA bytes), as a register instruction inside a vector function, or as the function's
# own structure (its launch, loops and MEMBARs).
SCHEDULES = {"scalar": "scalar", "sync": "sync", "tensor": "transfer", "dma": "transfer", "reg": "register",
             "vf": "function"}

# The units a vector function issues on (each with the profile's count of them a cycle), and the units
# an instruction may hold beside its issue unit.
ISSUE_UNITS = ("load", "store", "exec")
PIPES = ("S", "V", "MTE2", "MTE3")  # the pipes a class's rows run on (isa.model.PIPES)
SIDE_UNITS = ("transcendental",)

# How a class's cycles on its pipe (or its unit, inside a function) are counted:
PER_OP = "per_op"  # by its lanes at its op's ``elements_per_cycle`` (the row's ``rate_of``): priced per op
INDEX = "index"  # the lanes of its index register (128; 64 for 32-bit types) at ``elements_per_cycle[rate]``
ONE = "one"  # one cycle
STRIDED = "strided"  # one cycle, or ``register.strided_access_cycles`` with ``blk=`` (more if its banks need)
PRICE = "price"  # the priced figure itself (scalar, sync, DMA and function structure)
CYCLES = "cycles"  # the cycles its ``register`` key ``cycles`` gives (a rearrangement of fixed size: VINTLV)
ITERATION = "iteration"  # a tensor class: its priced cycles an iteration (a list: by element size, 1 then 2 bytes)
OCCUPANCIES = (PER_OP, INDEX, ONE, STRIDED, PRICE, CYCLES, ITERATION)
# How a register instruction takes a source from the bypass, by the profile key of how many cycles
# before its producer's latency it may issue: ``forward`` (any), ``forward_alu`` (an ALU instruction
# after an ALU result; any other result: ``forward``), ``forward_store`` (a store).
READERS = ("other", "alu", "store")


@frozen
class SchedClass:
    """One scheduling class: what prices it, how its cycles are counted, the units it holds."""

    name: str  # FAMILY.NAME, as rows write it in ``timing``
    price: tuple[str, str]  # the profile section and key that price it (a register class: its latency)
    occupancy: str = PRICE  # one of OCCUPANCIES
    # Inside a vector function: the unit it issues on and holds for its cycles, then any unit it holds
    # instead for those cycles, holding its issue unit one cycle (ReleaseAtCycles), where the profile
    # has such units (``register.transcendental_units``).
    units: tuple[str, ...] = ()
    rate: str = ""  # INDEX: the ``elements_per_cycle`` entry of its lanes
    whole_ub: bool = False  # it takes every UB port for its cycles (a gather or scatter: blocks known late)
    occupies: str = ""  # docs/timing.md: the cycles it occupies its pipe or unit
    lands: str = ""  # docs/timing.md: the cycles after which its results land
    # The pipe its rows run on (a row's ``pipe`` is its class's; the table's check refuses another):
    # one of PIPES, or ``flag`` for a sync class whose operand ``pipe_operand`` names it (BARRIER ALL: S).
    pipe: str = ""
    pipe_operand: int | None = None
    # Per-op cycles added to its own (a remainder: the multiply and subtract of ``a - trunc(a / b) * b``,
    # at their ``elements_per_cycle``), and the ``register`` section's key of the cycles an integer type
    # adds (a division the hardware runs as a software sequence: CONTRACT 13.7, 13.9), an instruction's
    # or a tensor iteration's.
    adds: tuple[str, ...] = ()
    int_extra: str = ""
    # CYCLES: the ``register`` key of its cycles; ``after_cycles``: its latency counts from its last cycle
    # (it lands ``latency + cycles - 1`` after it issues), not from its first; ``after_all``: it lands
    # ``latency + cycles`` after it issues (VSQZ: `alu_latency` + 5, CONTRACT 13.9).
    cycles: str = ""
    after_cycles: bool = False
    after_all: bool = False
    # A register class whose result an ALU instruction makes (add, a conversion, a rearrangement): it
    # reaches a dependent ALU instruction ``register.forward_alu`` cycles before its latency, where
    # other results reach it ``register.forward`` cycles before (the bypass; docs/timing.md).
    alu_result: bool = False
    # A tensor class with a latency of its own: its results land ``tensor.latency.NAME`` cycles after
    # its last iteration, not ``tensor.startup`` (a division, a transcendental, a reduction).
    own_latency: bool = False

    @property
    def family(self) -> str:
        return self.name.partition(".")[0]

    @property
    def schedule(self) -> str | None:
        """How it is scheduled (scalar, sync, transfer, register, function), or None for no family."""
        return SCHEDULES.get(self.family)

    @property
    def per_op(self) -> bool:
        """Whether its rows are priced per op: their op needs ``elements_per_cycle.OP`` in every profile
        (and, where the row computes element arithmetic, a kernel)."""
        return self.occupancy == PER_OP

    @property
    def unit(self) -> str | None:
        """The unit it issues on inside a vector function (None: not a register class)."""
        return self.units[0] if self.units else None

    @property
    def reader(self) -> int:
        """How a register class takes its register sources from the bypass (``READERS``): a store, an
        ALU instruction (the execute unit without a transcendental unit: a reduction too), or another
        (a transcendental instruction, a gather's index)."""
        if self.unit == "store":
            return READERS.index("store")
        return READERS.index("alu" if self.unit == "exec" and len(self.units) == 1 else "other")


def _scalar(name: str, occupies: str, lands: str) -> SchedClass:
    return SchedClass(f"scalar.{name}", ("scalar", name), occupies=occupies, lands=lands, pipe="S")


def _tensor(name: str, adds: tuple[str, ...] = (), int_extra: str = "", own_latency: bool = False) -> SchedClass:
    extra = (f"; an integer type: + `{int_extra}` an iteration" if int_extra else "") + \
        (f"; + the cycles of {' and '.join(adds)} an iteration" if adds else "")
    lands = f"occupancy + `tensor.latency.{name}`" if own_latency else "occupancy + `tensor.startup`"
    return SchedClass(f"tensor.{name}", ("tensor", f"sustained_{name}"), PER_OP,
                      occupies="with `tensor.as_function` (the 950): its vector function's run (below); else "
                               "`tensor.issue` + `ceil(iterations * lanes / (elements_per_cycle * sustained))` + "
                               f"bank-conflict cycles (that part at least 1){extra}",
                      lands=("the function's run; else " + lands), pipe="V", adds=adds, int_extra=int_extra,
                      own_latency=own_latency)


def _tensor_iteration(name: str, what: str) -> SchedClass:
    """A tensor class priced in cycles an iteration (``tensor.NAME``), not by lanes at an op's rate."""
    return SchedClass(f"tensor.{name}", ("tensor", name), ITERATION,
                      occupies=f"`tensor.issue` + `ceil(iterations x tensor.{name})` ({what}), that part at least "
                               f"1 (unbanked: UB at its rate)",
                      lands="occupancy + `tensor.startup`", pipe="V")


def _reg(name: str, occupancy: str, units: tuple[str, ...], occupies: str, *, latency: str = "",
         rate: str = "", whole_ub: bool = False, adds: tuple[str, ...] = (), int_extra: str = "",
         after_cycles: bool = False, after_all: bool = False) -> SchedClass:
    key = latency or f"{name}_latency"
    lands = {"reduce_latency": "`reduce_latency.SUM`, `.MAX`, `.MIN` (by width)",
             "transcendental_latency": "`transcendental_latency.OP` (by op and width)"}.get(key, f"`{key}`")
    if after_cycles:
        lands += f" + `{name}` - 1 (after its last cycle)"
    if after_all:
        lands += f" + `{name}`"
    # an ALU operation's result (its latency an ALU's or a conversion's) takes the ALU bypass
    return SchedClass(f"reg.{name}", ("register", key), occupancy, units, rate, whole_ub, occupies, lands, "V",
                      adds=adds, int_extra=int_extra, cycles=name if occupancy == CYCLES else "",
                      after_cycles=after_cycles, after_all=after_all,
                      alu_result=key in ("alu_latency", "convert_latency"))


def _vf(name: str, occupies: str, lands: str = "-") -> SchedClass:
    return SchedClass(f"vf.{name}", ("register", f"vf_{name}"), occupies=occupies, lands=lands, pipe="V")


_LANES = "`ceil(lanes / register.elements_per_cycle)`, at least 1"
_STRIDED = ("1, or `dual_load` / `dual_store` for a `dist=` mode that moves 512 bytes (issued alone); with `blk=` "
            "other than 1 (block-strided) `max(strided_access_cycles, the cycles its 8 blocks need in the banks)`")
_INDEX = "`ceil(lanes / elements_per_cycle.gather)`, with every UB port"
_SCALAR_ON_S = "`scalar.*` on S"
_SCALAR_MEMORY = "`scalar.*` on S (S waits for a load's value)"
_DMA_OCCUPIES = "`max(*_issue, ceil(bytes / *_bytes_per_cycle))`, at most its latency"
_DMA_LANDS = ("`max(ceil(*_setup + bytes / *_burst_bytes_per_cycle), ceil(bytes / *_bytes_per_cycle))`, and not "
              "before the copy ahead of it on its pipe")

CLASSES: dict[str, SchedClass] = {c.name: c for c in (
    *(_tensor(name) for name in ("binary", "unary", "fma")),
    # a division, a transcendental and a reduction land after latencies of their own: a chain of dependent
    # ones costs what its latencies say
    *(_tensor(name, own_latency=True) for name in ("transcendental", "reduce")),
    _tensor("divide", int_extra="int_div_extra", own_latency=True),
    _tensor("remainder", adds=("mul", "sub"), int_extra="int_div_extra", own_latency=True),
    _tensor_iteration("transpose", "cycles a 512-byte tile"),
    _tensor_iteration("trans5hd", "cycles an iteration, [8-bit, 16-bit]"),
    # CONTRACT 13.9: GatherMask an iteration, Sort32 an iteration, MrgSort a record written
    _tensor_iteration("gathermask", "cycles an iteration"),
    _tensor_iteration("sort32", "cycles an iteration of 32 records"),
    _tensor_iteration("mrgsort", "cycles a record written: its iterations are the records"),
    _reg("alu", PER_OP, ("exec",), _LANES),
    _reg("transcendental", PER_OP, ("exec", "transcendental"),
         _LANES + " (an execute slot for 1, and a transcendental unit for that); an integer VDIV: + "
         "`int_div_extra`, which its latency counts too", int_extra="int_div_extra"),
    _reg("remainder", PER_OP, ("exec", "transcendental"),
         _LANES + " at VDIV's rate, + `int_div_extra` (in its latency too), + a VMUL's and a VSUB's cycles",
         latency="transcendental_latency",
         adds=("mul", "sub"), int_extra="int_div_extra"),
    _reg("convert", PER_OP, ("exec",), _LANES),
    _reg("reduce", PER_OP, ("exec",), _LANES + ", issued alone (`reduce_single_issue`)"),
    _reg("load", STRIDED, ("load",), _STRIDED),
    _reg("store", STRIDED, ("store",), _STRIDED),
    _reg("gather", INDEX, ("load",), _INDEX, rate="gather", whole_ub=True),
    _reg("scatter", INDEX, ("store",), _INDEX, latency="gather_latency", rate="gather", whole_ub=True),
    # A permute's result takes an ALU operation's latency (no separate figure is published).
    _reg("permute", ONE, ("exec",), "1", latency="alu_latency"),
    _reg("mask", ONE, ("exec",), "1"),
    # PPACK, PUNPACK, PINTLV, PDINTLV: 1 cycle, issued alone (`mask_permute_single_issue`; CONTRACT 13.9)
    _reg("mask_permute", ONE, ("exec",), "1, issued alone (`mask_permute_single_issue`)", latency="mask_latency"),
    # VINTLV, VDINTLV (2 cycles), VPACK, VUNPACK (1) and VHIST (8): their own cycles, issued alone (the
    # documented single-issue rule, `*_single_issue`; CONTRACT 13.9)
    _reg("interleave", CYCLES, ("exec",), "`interleave`, issued alone (`interleave_single_issue`)",
         latency="alu_latency"),
    _reg("pack", CYCLES, ("exec",), "`pack`, issued alone (`pack_single_issue`)", latency="alu_latency"),
    _reg("histogram", CYCLES, ("exec",), "`histogram`, issued alone (`histogram_single_issue`)",
         latency="alu_latency", after_cycles=True),
    # VSQZ: 5 cycles, issued alone, its result `alu_latency` + 5 after it issues (CONTRACT 13.9)
    _reg("squeeze", CYCLES, ("exec",), "`squeeze`, issued alone (`squeeze_single_issue`)", latency="alu_latency",
         after_all=True),
    _reg("mask_load", ONE, ("load",), "1", latency="mask_latency"),
    _reg("mask_store", ONE, ("store",), "1", latency="mask_latency"),
    _vf("launch", "the function's whole run (below)", "the same"),
    _vf("loop_startup", "`register.vf_loop_startup` of the function's front end, each time the loop starts"),
    _vf("membar", "`register.vf_membar` (after the UB accesses before it)"),
    _vf("end", "`register.vf_end` (0: a hardware loop costs no instruction)"),
    SchedClass("dma.gm2ub", ("dma", "gm2ub_bytes_per_cycle"), occupies=_DMA_OCCUPIES, lands=_DMA_LANDS, pipe="MTE2"),
    SchedClass("dma.ub2gm", ("dma", "ub2gm_bytes_per_cycle"), occupies=_DMA_OCCUPIES, lands=_DMA_LANDS, pipe="MTE3"),
    # SETFLAG SRC, DST, EVENT runs on SRC; WAITFLAG on DST; BARRIER PIPE on PIPE
    *(SchedClass(f"sync.{name}", ("sync", name), occupies="`sync.*`", lands="the same", pipe="flag",
                 pipe_operand=operand)
      for name, operand in (("setflag", 0), ("waitflag", 1), ("barrier", 0))),
    SchedClass("sync.syncall", ("chip", "syncall"),
               occupies="every pipe of the core drains, then the core waits until the last core has arrived, "
                        "plus `chip.syncall`", lands="the same", pipe="S"),
    *(_scalar(name, _SCALAR_ON_S, "at once") for name in ("alu", "mul", "branch", "nop")),
    *(_scalar(name, _SCALAR_MEMORY, "at the end of those cycles")
      for name in ("load_ub", "load_gm", "store_ub", "store_gm")),
)}


def class_problems(cls: SchedClass) -> list[str]:
    """What makes a class record unusable: a name of no family, an unknown way of counting its cycles, or
    units that are not a register class's (an issue unit, then side units). Empty when all is well."""
    found = []
    if cls.schedule is None or not cls.name.partition(".")[2]:
        found.append(f"scheduling class {cls.name!r} has no schedule (a class is FAMILY.NAME, FAMILY one of "
                     f"{', '.join(SCHEDULES)})")
    if cls.occupancy not in OCCUPANCIES:
        found.append(f"scheduling class {cls.name!r}: occupancy {cls.occupancy!r} is not one of "
                     f"{', '.join(OCCUPANCIES)}")
    if cls.schedule == "register":
        if not cls.units or cls.units[0] not in ISSUE_UNITS or not set(cls.units[1:]) <= set(SIDE_UNITS):
            found.append(f"scheduling class {cls.name!r}: units {cls.units!r} are not an issue unit "
                         f"({', '.join(ISSUE_UNITS)}) then side units ({', '.join(SIDE_UNITS)})")
    elif cls.units:
        found.append(f"scheduling class {cls.name!r} holds units {cls.units!r}, and only a register class "
                     f"runs inside a vector function")
    if (cls.occupancy == CYCLES) != bool(cls.cycles) or ((cls.after_cycles or cls.after_all) and not cls.cycles):
        found.append(f"scheduling class {cls.name!r}: a key of its cycles is for the {CYCLES!r} occupancy alone")
    if (cls.occupancy == INDEX) != bool(cls.rate):
        found.append(f"scheduling class {cls.name!r}: a rate is for the {INDEX!r} occupancy alone")
    if cls.pipe not in (*PIPES, "flag") or (cls.pipe == "flag") != (cls.pipe_operand is not None):
        found.append(f"scheduling class {cls.name!r}: pipe {cls.pipe!r} is not one of {', '.join(PIPES)}, or flag "
                     f"with the operand that names it (pipe_operand)")
    if cls.own_latency and cls.schedule != "transfer":
        found.append(f"scheduling class {cls.name!r}: a latency of its own (tensor.latency) is a tensor class's alone")
    if cls.alu_result and cls.schedule != "register":
        found.append(f"scheduling class {cls.name!r}: an ALU result (the bypass) is a register class's alone")
    if cls.whole_ub and cls.unit not in ("load", "store"):
        found.append(f"scheduling class {cls.name!r} takes every UB port but issues on no memory unit")
    return found
