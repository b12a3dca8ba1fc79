"""``vcore diff A.json B.json``: what changed between two reports, and why.

Totals, per pipe, stalls by cause, and per instruction: old and new cycles, the change, and its
cause (the bank-conflict, stall, run-count or iteration change that accounts for most of it).
Instructions are matched by their text (the k-th occurrence of a text in A with the k-th in B), so
a program whose addresses or lines moved still lines up; what is only in one report is listed.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from vcore.emulator.report import SCHEMA
from vcore.report_schema import SchemaError, validate


class DiffError(Exception):
    """A file that is not a vcore JSON report (or one that does not match its schema); the message
    names it, and the field."""


def read_report(path: str) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as err:
        raise DiffError(f"{path}: error: cannot read: {err.strerror or err}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise DiffError(f"{path}: error: not a JSON report ({err})") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise DiffError(f"{path}: error: not a vcore report (schema {SCHEMA!r} expected)")
    try:
        validate(data)  # docs/report.schema.json: every field diff reads has its type
    except SchemaError as err:
        raise DiffError(f"{path}: error: {err}") from None
    return data


def _change(old: float, new: float) -> str:
    delta = new - old
    if not old:
        return f"{delta:+d}" if delta else "0"
    return f"{delta:+d} ({delta / old:+.1%})"


def _pairs(old_rows: list, new_rows: list) -> tuple[list, list, list]:
    """Match instructions: the k-th occurrence of a text in old with the k-th in new; then what is
    left, by mnemonic in program order (an optimisation that moved an operand keeps its row).
    Returns (pairs, only in old, only in new)."""
    def keyed(rows):
        seen: dict = defaultdict(int)
        out = {}
        for row in rows:
            seen[row["text"]] += 1
            out[(row["text"], seen[row["text"]])] = row
        return out

    old_keyed, new_keyed = keyed(old_rows), keyed(new_rows)
    pairs = [(row, new_keyed[key]) for key, row in old_keyed.items() if key in new_keyed]
    left_old = [row for key, row in old_keyed.items() if key not in new_keyed]
    left_new = [row for key, row in new_keyed.items() if key not in old_keyed]
    by_mnemonic: dict = defaultdict(list)
    for row in left_new:
        by_mnemonic[row["text"].split()[0]].append(row)
    alone_old = []
    for row in left_old:
        candidates = by_mnemonic.get(row["text"].split()[0])
        if candidates:
            pairs.append((row, candidates.pop(0)))
        else:
            alone_old.append(row)
    alone_new = [row for rows in by_mnemonic.values() for row in rows]
    return pairs, alone_old, alone_new


def _cause(old: dict, new: dict) -> str:
    """The component whose change explains most of a row's cycle change."""
    parts = []
    if old["count"] != new["count"]:
        parts.append((abs(new["cycles"] - old["cycles"]) + 1, f"runs {old['count']} -> {new['count']}"))
    if old.get("iterations", 0) != new.get("iterations", 0):
        parts.append((abs(new["cycles"] - old["cycles"]), f"iterations {old['iterations']} -> {new['iterations']}"))
    bank = new.get("bank_conflict_cycles", 0) - old.get("bank_conflict_cycles", 0)
    if bank:
        parts.append((abs(bank), f"bank conflicts {bank:+d}"))
    stalls_old, stalls_new = old.get("stalls") or {}, new.get("stalls") or {}
    for cause in sorted(set(stalls_old) | set(stalls_new)):
        delta = stalls_new.get(cause, 0) - stalls_old.get(cause, 0)
        if delta:
            parts.append((abs(delta), f"{cause.replace('_', ' ')} {delta:+d}"))
    if not parts:
        return "-"
    parts.sort(key=lambda p: -p[0])
    return ", ".join(text for _, text in parts[:2])


def _where(row: dict) -> str:
    return f"line {row['line']}" if row.get("line") is not None else f"pc 0x{row['pc']:04x}"


def diff_text(a: dict, b: dict, a_name: str = "A", b_name: str = "B") -> str:
    lines = [f"old: {a_name} ({a.get('profile', '?')})", f"new: {b_name} ({b.get('profile', '?')})", ""]
    old_total, new_total = a["total_cycles"], b["total_cycles"]
    speed = f", {old_total / new_total:.2f}x as fast" if new_total and old_total != new_total else ""
    lines.append(f"total cycles  {old_total:>10} -> {new_total:<10} {_change(old_total, new_total)}{speed}")
    lines.append(f"instructions  {a.get('instructions', 0):>10} -> {b.get('instructions', 0):<10} "
                 f"{_change(a.get('instructions', 0), b.get('instructions', 0))}")
    lines += ["", f"{'pipe':<5} {'busy old':>10} {'busy new':>10}  change"]
    for pipe in sorted(set(a["pipes"]) | set(b["pipes"]), key=["S", "V", "MTE2", "MTE3"].index):
        old = a["pipes"].get(pipe, {}).get("busy_cycles", 0)
        new = b["pipes"].get(pipe, {}).get("busy_cycles", 0)
        lines.append(f"{pipe:<5} {old:>10} {new:>10}  {_change(old, new)}")
    causes = [c for c in dict.fromkeys([*a["stalls"], *b["stalls"]])
              if a["stalls"].get(c, 0) or b["stalls"].get(c, 0)]
    if causes:
        lines += ["", f"{'stall':<17} {'old':>8} {'new':>8}  change"]
        for cause in causes:
            old, new = a["stalls"].get(cause, 0), b["stalls"].get(cause, 0)
            lines.append(f"{cause.replace('_', ' '):<17} {old:>8} {new:>8}  {_change(old, new)}")
    races_old, races_new = len(a.get("races", [])), len(b.get("races", []))
    if races_old or races_new:
        lines += ["", f"races         {races_old:>10} -> {races_new}"]

    pairs, alone_old, alone_new = _pairs(a["per_pc"], b["per_pc"])
    changed, same = [], 0
    for old, new in pairs:
        if old["text"] == new["text"] and (old["cycles"], old["count"]) == (new["cycles"], new["count"]) \
                and _cause(old, new) == "-":
            same += 1
            continue
        changed.append((new["cycles"] - old["cycles"], old, new))
    changed.sort(key=lambda c: (-abs(c[0]), c[1]["pc"]))
    lines += ["", "instructions that changed (largest change first):"]
    if changed:
        lines.append(f"  {'old':>9} {'new':>9} {'cycles old':>10} {'new':>8} {'change':>8}  {'cause':<34} instruction")
        for delta, old, new in changed:
            text = old["text"] if old["text"] == new["text"] else f"{old['text']}  ->  {new['text']}"
            lines.append(f"  {_where(old):>9} {_where(new):>9} {old['cycles']:>10} {new['cycles']:>8} {delta:>+8}  "
                         f"{_cause(old, new):<34} {text}")
    else:
        lines.append("  none")
    if same:
        lines.append(f"  ({same} instruction(s) unchanged)")
    for label, alone in (("only in old", alone_old), ("only in new", alone_new)):
        if alone:
            lines += ["", f"{label}:"]
            lines += [f"  {_where(row):>9} {row['cycles']:>8} cycles  {row['text']}" for row in alone]
    for label, report in (("old", a), ("new", b)):
        if report.get("verdict"):
            lines.append(f"{'' if label == 'new' else chr(10)}verdict {label}: {report['verdict']}")
    return "\n".join(lines) + "\n"
