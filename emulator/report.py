"""The run report: a typed record, its JSON form (schema ``vcore.report/1``) and its text form.

A report is built from a run's result value alone (``build_report(machine.run())``, or
``Machine.report()``): this module never sees the machine, and the imports run one way.
"""

from __future__ import annotations

import math

from attrs import define, field

from vcore.emulator.order.races import race_title
from vcore.emulator.result import STALL_CAUSES, PcEntry, PipeEntry, RunResult

SCHEMA = "vcore.report/1"


@define
class Report:
    profile: str
    instructions: int
    total_cycles: int
    clock_ghz: float
    pipes: dict[str, PipeEntry]
    stalls: dict[str, int]
    races: list[dict]
    per_pc: list[PcEntry]
    scalars: dict[str, int]
    dumps: dict[str, list] = field(factory=dict)
    fault: str | None = None
    fault_kind: str | None = None
    warnings: list[str] = field(factory=list)
    # A kernel of several cores (run --cores N, --blocks B): the table is the slowest core's (with more
    # blocks than cores, the longest block's, ``slowest_block``), the rest is summed.
    cores: int | None = None
    per_core: list[dict] | None = None
    slowest_core: int | None = None
    launch: int = 0
    blocks: int | None = None
    slowest_block: int | None = None
    fast_loops: int = 0  # of ``instructions``, those run in hardware loops in closed form
    replayed: int = 0  # of ``instructions``, those of tiling loops' passes that reused the schedule before

    @property
    def time_us(self) -> float:
        return self.total_cycles / (self.clock_ghz * 1000)

    def verdict(self) -> str:
        """One line: which pipe bounds the run and what it spent its time on."""
        if self.per_core:
            mine = next(c for c in self.per_core if c["core"] == self.slowest_core)
            line = f"slowest core {self.slowest_core}: {mine['verdict']}"
            between = sum(1 for r in self.races if "cores" in r)
            who = "cores" if self.slowest_block is None else "blocks"
            return line + (f"; {between} race(s) between {who}" if between else "")
        if not self.total_cycles:
            return "nothing ran"
        pipe = max(self.pipes, key=lambda p: self.pipes[p].busy_cycles)
        share = self.pipes[pipe].busy_cycles / self.total_cycles
        causes = {k: v for k, v in self.stalls.items() if v}
        top = max(causes, key=causes.get) if causes else None
        line = f"bound by {pipe} ({share:.0%} busy)"
        if pipe in ("MTE2", "MTE3"):  # a DMA-bound run: the transfer that costs most is the cause, stalls its echo
            costly = max((e for e in self.per_pc if e.pipe == pipe), key=lambda e: e.busy_cycles, default=None)
            busy = self.pipes[pipe].busy_cycles
            if costly is not None and busy:
                line = (f"bound by {pipe} ({share:.0%} busy; most at {_place(costly)}: {costly.busy_cycles} of its "
                        f"{busy} busy cycles, {costly.busy_cycles / busy:.0%}")
                if costly.cycles > costly.busy_cycles:  # its runs overlapped one another (pipelined copies)
                    line += f"; its {costly.count} runs were in flight {costly.cycles} cycles in all, overlapping"
                line += ")"
        if top is not None:
            line += f"; largest stall: {top.replace('_', ' ')} ({causes[top]} cycles"
            worst = max(self.per_pc, key=lambda e: e.bank_conflict_cycles if top == "bank_conflict"
                        else e.stalls.get(top, 0), default=None)
            if worst is not None:
                line += f", most at {_place(worst)}"
            line += ")"
        if self.races:
            line += f"; {len(self.races)} race(s)"
        return line

    def to_json(self) -> dict:
        out = {
            "schema": SCHEMA,
            "profile": self.profile,
            "total_cycles": self.total_cycles,
            "time_us": round(self.time_us, 6),
            "instructions": self.instructions,
            "fast_loop_instructions": self.fast_loops,
            "replayed_instructions": self.replayed,
            "pipes": {p: {"busy_cycles": e.busy_cycles, "instructions": e.instructions,
                          "utilisation": round(e.utilisation, 4)} for p, e in self.pipes.items()},
            "stalls": dict(self.stalls),
            "races": self.races,
            "per_pc": [{"pc": e.pc, "line": e.line, "text": e.text, "pipe": e.pipe, "count": e.count,
                        "cycles": e.cycles, "iterations": e.iterations,
                        "bank_conflict_cycles": e.bank_conflict_cycles, "stalls": e.stalls,
                        "busy_cycles": e.busy_cycles} for e in self.per_pc],
            "scalars": self.scalars,
            "dumps": {k: [json_number(v) for v in values] for k, values in self.dumps.items()},
            "verdict": self.verdict(),
        }
        if self.cores is not None:
            out["cores"] = self.cores
            out["blocks"] = self.blocks
            out["per_core"] = self.per_core
            out["launch_cycles"] = self.launch
        if self.warnings:
            out["warnings"] = self.warnings
        if self.fault is not None:
            out["fault"] = {"kind": self.fault_kind, "message": self.fault}
        return out

    def to_text(self) -> str:
        lines = [f"profile {self.profile}: {self.total_cycles} cycles ({self.time_us:.3f} us at "
                 f"{self.clock_ghz:g} GHz), {self.instructions} instructions"]
        if self.fast_loops:
            lines.append(f"{self.fast_loops} of them in hardware loops run in closed form (the same report pass by "
                         f"pass: --no-fast-loops)")
        if self.replayed:
            lines.append(f"{self.replayed} of them in tiling-loop passes that reused the schedule of the pass before "
                         f"(the same report pass by pass: --no-fast-loops)")
        if self.slowest_block is not None:
            lines.append(f"kernel of {self.blocks} blocks on {self.cores} core(s): launch {self.launch} cycles, then "
                         f"the blocks, each later one on the first core free; the table is block "
                         f"{self.slowest_block}'s (the longest), pipes and stalls are summed over the blocks")
        elif self.cores is not None:
            lines.append(f"kernel of {self.cores} core(s): launch {self.launch} cycles, then the slowest core; the "
                         f"table is core {self.slowest_core}'s, pipes and stalls are summed over the cores")
        if self.per_pc:
            lines += ["", f"{'pc':>6}  {'line':>4}  {'pipe':<4}  {'count':>7}  {'busy':>8}  {'in flight':>9}  "
                          f"{'iters':>6}  {'bank':>5}  {'stalls':<24}  instruction"]
            for e in self.per_pc:
                line = "" if e.line is None else str(e.line)
                stalls = " ".join(f"{k}={v}" for k, v in sorted(e.stalls.items())) or "-"
                lines.append(f"0x{e.pc:04x}  {line:>4}  {e.pipe:<4}  {e.count:>7}  {e.busy_cycles:>8}  {e.cycles:>9}  "
                             f"{e.iterations:>6}  {e.bank_conflict_cycles:>5}  {stalls:<24}  {e.text}")
            lines += ["busy: its share of its pipe's busy cycles, which add up to the pipe's line below (S's line "
                      "also", "      counts the cycle S spends handing each instruction over); in flight: each run, "
                      "start to end, summed"]
        lines += ["", "pipe   busy cycles  instructions  utilisation"]
        for pipe, e in self.pipes.items():
            lines.append(f"{pipe:<5}  {e.busy_cycles:>11}  {e.instructions:>12}  {e.utilisation:>10.1%}")
        stalls = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in self.stalls.items() if v) or "none"
        lines += ["", f"stalls: {stalls}"]
        for race in self.races:
            if "cores" in race:
                a, b = race["first"], race["second"]
                who = [f"core {x['core']}" if "block" not in x else f"block {x['block']} (core {x['core']})"
                       for x in (a, b)]
                lines.append(f"race {race['kind']} between {'blocks' if 'block' in a else 'cores'}: {who[0]} line/pc "
                             f"{a.get('line') or a['pc']} vs {who[1]} line/pc {b.get('line') or b['pc']} on gm "
                             f"0x{race['start']:x}..0x{race['end']:x}")
                continue
            lines.append(f"race {race['kind']}: line/pc {race['first'].get('line') or race['first']['pc']} "
                         f"({race['first']['pipe']}) vs {race['second'].get('line') or race['second']['pc']} "
                         f"({race['second']['pipe']}) on {race['space']} 0x{race['start']:x}..0x{race['end']:x}")
        if self.per_core:
            lines.append("")
            for c in self.per_core:
                blocks = ", ".join(f"{b['block']} ({b['start']}..{b['end']})" for b in c.get("blocks", ()))
                lines.append(f"core {c['core']:>2}: {c['total_cycles']:>9} cycles, {c['instructions']:>8} "
                             f"instructions; {c['verdict']}" + (f"; blocks {blocks}" if blocks else ""))
        lines += [f"warning: {w}" for w in self.warnings]
        lines.append(f"verdict: {self.verdict()}")
        if self.fault is not None:
            lines += ["", f"stopped by a fault: {self.fault}"]
        return "\n".join(lines) + "\n"


def _place(entry: PcEntry) -> str:
    return f"line {entry.line}" if entry.line is not None else f"pc 0x{entry.pc:04x}"


def json_number(value):
    """JSON has no nan or inf: they are written as the strings "nan", "inf", "-inf"."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def element_list(array) -> list:
    """Python numbers of a typed array (floats for float types)."""
    if array.dtype.kind in "iu":
        return [int(v) for v in array]
    return [float(v) for v in array.astype("float64")]


def race_json(race) -> dict:
    strip = ("pc", "line", "pipe", "text")
    return {"kind": race.kind, "first": {k: race.first[k] for k in strip}, "second": {k: race.second[k] for k in strip},
            "space": race.space.lower(), "start": race.start, "end": race.end, "count": race.count,
            "latent": race.latent}


def race_message(race) -> str:
    """``warning: race (KIND): ...``, or ``warning: latent race (KIND): ...``."""
    return f"warning: {race_title(race)}"


def race_messages(result: RunResult) -> list[str]:
    """One warning line per race the run found."""
    return [race_message(r) for r in result.races]


def build_report(result: RunResult, dumps: dict | None = None) -> Report:
    """The report of a run that gave ``result``, with the ``dumps`` named."""
    fault = result.fault
    return Report(result.profile, result.instructions, result.total_cycles, result.clock_ghz, dict(result.pipes),
                  dict(result.stalls), [race_json(r) for r in result.races], list(result.per_pc), dict(result.scalars),
                  dumps or {}, str(fault) if fault is not None else None, fault.kind if fault is not None else None,
                  list(result.flag_warnings), fast_loops=result.fast_loop_instructions,
                  replayed=result.replayed_instructions)


__all__ = ["SCHEMA", "STALL_CAUSES", "PcEntry", "PipeEntry", "Report", "build_report", "element_list", "json_number",
           "race_message", "race_messages"]
