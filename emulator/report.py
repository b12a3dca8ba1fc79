"""The run report: a typed record, its JSON form (contract section 5) and its text form."""

from __future__ import annotations

import math

from attrs import define, field

from emulator.machine import Machine, RunResult
from isa.values import dtype_of

SCHEMA = "vcore.report/1"


@define
class PcEntry:
    pc: int
    line: int | None
    text: str
    pipe: str
    count: int


@define
class Report:
    profile: str
    instructions: int
    per_pc: list[PcEntry]
    scalars: dict[str, int]
    dumps: dict[str, list] = field(factory=dict)
    fault: str | None = None
    fault_kind: str | None = None

    def to_json(self) -> dict:
        out = {
            "schema": SCHEMA,
            "profile": self.profile,
            "instructions": self.instructions,
            "per_pc": [{"pc": e.pc, "line": e.line, "text": e.text, "pipe": e.pipe, "count": e.count}
                       for e in self.per_pc],
            "scalars": self.scalars,
            "dumps": {k: [json_number(v) for v in values] for k, values in self.dumps.items()},
        }
        if self.fault is not None:
            out["fault"] = {"kind": self.fault_kind, "message": self.fault}
        return out

    def to_text(self) -> str:
        lines = [f"profile {self.profile}: {self.instructions} instructions executed"]
        if self.per_pc:
            lines.append("")
            lines.append(f"{'pc':>6}  {'line':>4}  {'pipe':<4}  {'count':>8}  instruction")
            for e in self.per_pc:
                line = "" if e.line is None else str(e.line)
                lines.append(f"0x{e.pc:04x}  {line:>4}  {e.pipe:<4}  {e.count:>8}  {e.text}")
        if self.fault is not None:
            lines += ["", f"stopped by a fault: {self.fault}"]
        return "\n".join(lines) + "\n"


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


def build_report(machine: Machine, result: RunResult, dumps: dict | None = None) -> Report:
    source = machine.program.source or {}
    per_pc = []
    for b in machine.bound:
        count = result.counts.get(b.pc, 0)
        if not count:
            continue
        src = source.get(b.pc)
        per_pc.append(PcEntry(b.pc, src.line if src else None, machine.text_at(b.pc), b.pipe, count))
    scalars = {f"S{i}": int(v) for i, v in enumerate(machine.s)}
    fault = result.fault
    return Report(machine.profile.name, result.instructions, per_pc, scalars, dumps or {},
                  str(fault) if fault is not None else None, fault.kind if fault is not None else None)


__all__ = ["SCHEMA", "PcEntry", "Report", "build_report", "dtype_of", "element_list", "json_number"]
