"""The JSON report's schema (``vcore.report/1``), as a JSON Schema (2020-12) document, and the check
``vcore diff`` runs on each report before comparing.

``SCHEMA`` below is the one declaration: ``python -m vcore.report_schema --write docs/report.schema.json``
(part of ``make docs``) publishes it, and ``validate`` checks a report against it with the
``jsonschema`` package, saying what is wrong in one line that names the field
(``per_pc[3].cycles must be an integer, not null``). The declaration names every key a report
writes (a test walks real reports for keys it does not declare); keys may be added to a report
(CONTRACT section 5), so an object takes keys it does not declare, except ``pipes``, whose keys are
the four pipes. Two differences from the standard's types, said in the document too: an
``integer`` is a number written without a fraction or exponent (5, not 5.0), as vcore writes them
(``vcore diff`` computes with them as integers), and a ``number`` is finite (JSON has no NaN or
infinity, though Python's ``json`` reads them).
"""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path

from vcore.emulator.json_schema import place, strict_validator
from vcore.emulator.report import SCHEMA as SCHEMA_NAME
from vcore.emulator.result import STALL_CAUSES

PIPES = ("S", "V", "MTE2", "MTE3")
FAULT_KINDS = ("fault", "limit", "deadlock", "race", "interrupt")


def _count(what: str) -> dict:
    return {"type": "integer", "minimum": 0, "description": what}


def _object(description: str, required: dict, optional: dict | None = None) -> dict:
    # ("required" before "properties": a missing key is said before the others' values)
    return {"type": "object", "description": description, "required": list(required),
            "properties": {**required, **(optional or {})}}


_PIPE = _object("One pipe: its busy cycles, the instructions it ran and busy cycles / total cycles.", {
    "busy_cycles": _count("cycles the pipe was busy (summed over cores in a kernel)"),
    "instructions": _count("instructions the pipe ran"),
    "utilisation": {"type": "number", "minimum": 0, "description": "busy cycles / total cycles"},
})
_STALLS = {"type": "object", "description": "stall cycles by cause (an instruction's: the causes it met)",
           "properties": {cause: _count("cycles lost to this cause") for cause in STALL_CAUSES},
           "additionalProperties": _count("cycles lost to this cause")}
_INSTRUCTION = _object("An instruction a race names.", {
    "pc": _count("its byte offset in the program's text"),
    "line": {"type": ["integer", "null"], "minimum": 1, "description": "its source line (null for a .vbin)"},
    "pipe": {"type": "string"},
    "text": {"type": "string"},
}, {"core": _count("the core that ran it (races between cores, and a kernel's races inside one core)"),
    "block": _count("the block that ran it (a kernel launched with --blocks)"),
    "where": {"type": "string", "description": "line N or pc 0xNNNN"}})

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "vcore JSON report (vcore.report/1)",
    "description": (
        "What `vcore run --report json` prints and `--report-file` writes, for one core or a kernel of "
        "several (cores, per_core). Generated from vcore/report_schema.py; `vcore diff` checks both reports "
        "against it. An object may hold keys not declared here (keys may be added; none changes meaning), "
        "except `pipes`. An integer is written without a fraction or exponent (5, not 5.0), and a number is finite."),
    "type": "object",
    # (the keys of the first reports; keys added since are declared, not required, so that a report of an
    # earlier vcore still matches)
    "required": ["schema", "profile", "total_cycles", "time_us", "instructions", "pipes", "stalls", "races",
                 "per_pc", "scalars", "dumps", "verdict"],
    "$defs": {"pipe": _PIPE, "stalls": _STALLS, "instruction": _INSTRUCTION, "pipes": {
        "type": "object", "description": "the four pipes", "properties": {p: {"$ref": "#/$defs/pipe"} for p in PIPES},
        "required": list(PIPES), "additionalProperties": False}},
    "properties": {
        "schema": {"const": SCHEMA_NAME},
        "profile": {"type": "string", "description": "the profile's name: 950, a2, or a TOML file's"},
        "total_cycles": _count("the run's cycles (a kernel: the launch, then the end of its last block)"),
        "time_us": {"type": "number", "minimum": 0, "description": "total cycles at the profile's clock"},
        "instructions": _count("instructions run (summed over cores)"),
        "fast_loop_instructions": _count("of those, the ones run in hardware loops in closed form (docs/timing.md, "
                                         "\"How vcore gets there quickly\"); 0 with --no-fast-loops"),
        "replayed_instructions": _count("of those, the ones in passes of tiling loops that reused the schedule of "
                                        "the pass before (docs/timing.md, \"How vcore gets there quickly\"); 0 with "
                                        "--no-fast-loops"),
        "pipes": {"allOf": [{"$ref": "#/$defs/pipes"}], "description": "each pipe (a kernel: summed over cores)"},
        "stalls": {"allOf": [{"$ref": "#/$defs/stalls"}],
                   "description": "the run's stall cycles by cause, every cause (a kernel: summed over cores)"},
        "races": {"type": "array", "description": "every race found, observed or latent", "items": _object(
            "A race: two unordered accesses to the same bytes, at least one a write.", {
                "kind": {"enum": ["RAW", "WAR", "WAW"]},
                "first": {"$ref": "#/$defs/instruction"},
                "second": {"$ref": "#/$defs/instruction"},
                "space": {"type": "string", "description": "ub or gm"},
                "start": _count("first byte"),
                "end": _count("byte after the last"),
                "count": {"type": "integer", "minimum": 1, "description": (
                    "times it happened (a race between blocks of a launch of more blocks than cores: the blocks "
                    "that took part)")},
                "latent": {"type": "boolean", "description": "true when the two did not overlap in this run"},
            }, {"cores": {"type": "array", "items": _count("a core"), "description": "a race between cores"},
                "blocks": {"type": "array", "items": _count("a block"),
                           "description": "a race between blocks (a kernel launched with --blocks)"},
                "core": _count("the core it happened in (a kernel's race inside one core)"),
                "block": _count("the block it happened in (a kernel's race inside one block)")})},
        "per_pc": {"type": "array", "description": "one entry per static instruction that ran", "items": _object(
            "What one static instruction did over the run.", {
                "pc": _count("its byte offset in the program's text"),
                "line": {"type": ["integer", "null"], "minimum": 1, "description": "its source line, or null"},
                "text": {"type": "string", "pattern": r"\S", "description": "the instruction as written"},
                "pipe": {"enum": list(PIPES)},
                "count": _count("times it ran"),
                "cycles": _count("cycles it occupied its pipe, summed over its runs"),
                "iterations": _count("iterations of a tensor instruction, summed"),
                "bank_conflict_cycles": _count("cycles of UB bank conflicts, summed"),
                "stalls": {"$ref": "#/$defs/stalls"},
            }, {"busy_cycles": _count("its share of its pipe's busy cycles: those of its runs no earlier run of "
                                      "the pipe covered (a pipe's entries add up to its busy_cycles)")})},
        "scalars": {"type": "object", "description": "the final S registers S0..S31, signed (a kernel: its slowest "
                    "core's)", "propertyNames": {"pattern": "^S([0-9]|[12][0-9]|3[01])$"},
                    "additionalProperties": {"type": "integer"}},
        "dumps": {"type": "object", "description": "each --dump, by its spec: the values", "additionalProperties": {
            "type": "array", "items": {"anyOf": [{"type": "number"}, {"enum": ["nan", "inf", "-inf"]}]}}},
        "verdict": {"type": "string", "description": "one line: which pipe bounds the run, and why"},
        "cores": {"type": "integer", "minimum": 1, "description": "a kernel's cores (run --cores N), the cores used"},
        "blocks": {"type": "integer", "minimum": 1,
                   "description": "a kernel's blocks (run --blocks B; --cores N alone: N)"},
        "launch_cycles": _count("a kernel's launch cost: chip.launch + chip.launch_per_block * blocks"),
        "per_core": {"type": "array", "description": "a kernel: one entry per core", "items": _object(
            "One core of a kernel.", {
                "core": _count("its number (its block's index when each core runs one block)"),
                "total_cycles": _count("its cycles: the end of its last block"),
                "instructions": _count("its instructions"),
                "pipes": {"$ref": "#/$defs/pipes"},
                "stalls": {"$ref": "#/$defs/stalls"},
                "verdict": {"type": "string", "description": "its own verdict line"},
            }, {"blocks": {"type": "array", "description": "the blocks it ran, in order", "items": _object(
                "A block and when it ran, in cycles after the launch.", {
                    "block": _count("its BLOCKIDX"),
                    "start": _count("the cycle it started"),
                    "end": _count("the cycle it ended"),
                })}})},
        "warnings": {"type": "array", "items": {"type": "string"}, "description": "warnings the run gave (flags "
                     "set and never waited for, ...), as on stderr without 'warning: '"},
        "fault": _object("How a run that did not end cleanly stopped.", {
            "kind": {"enum": list(FAULT_KINDS)},
            "message": {"type": "string", "description": "the message, naming the pc and the source line"},
        }),
    },
}

_WANTED = {"object": "an object", "array": "an array", "string": "a string", "integer": "an integer",
           "number": "a number", "boolean": "true or false", "null": "null"}


class SchemaError(Exception):
    """A report that does not match the schema: the message names the field (``per_pc[3].cycles``)."""


def shown(value) -> str:
    """A JSON value as the file writes it, cut short."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


@cache
def validator():
    """The jsonschema validator of ``SCHEMA``, with vcore's integers and numbers (the module's text says how
    they differ from the standard's); jsonschema is imported on the first call (only vcore diff and the
    tests check reports, and every vcore command imports this module)."""
    return strict_validator(SCHEMA)


def field(path) -> str:
    """A place in a report as the messages name it: ``per_pc[3].cycles``; ``the report`` for the whole."""
    return place(path) or "the report"


def message(error) -> str:
    """A jsonschema ValidationError as one line naming the field."""
    where, value, rule = field(error.absolute_path), error.instance, error.validator_value
    if error.validator == "type":
        types = rule if isinstance(rule, list) else [rule]
        return f"{where} must be {' or '.join(_WANTED[t] for t in types)}, not {shown(value)}"
    if error.validator == "required":
        return f"{where} has no '{next(key for key in rule if key not in value)}'"
    if error.validator == "additionalProperties" and rule is False:
        declared = error.schema.get("properties", {})
        return f"{where}: unknown key '{next(k for k in value if k not in declared)}' (keys: {', '.join(declared)})"
    if error.validator == "anyOf":
        return f"{where} must be {' or '.join(_wanted(option) for option in rule)}, not {shown(value)}"
    if error.validator in ("enum", "const"):
        return f"{where} must be {_wanted(error.schema)}, not {shown(value)}"
    if error.validator == "minimum":
        return f"{where} must be at least {rule}, not {shown(value)}"
    if error.validator == "pattern" and rule == r"\S":
        return f"{where} must not be blank, not {shown(value)}"
    return f"{where}: {error.message}"


def _wanted(schema: dict) -> str:
    if "enum" in schema:
        return "one of " + ", ".join(shown(v) for v in schema["enum"])
    if "const" in schema:
        return shown(schema["const"])
    types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    return " or ".join(_WANTED[t] for t in types)


def validate(value) -> None:
    """Raise SchemaError, naming the field, at the first place where ``value`` does not match ``SCHEMA``."""
    error = next(validator().iter_errors(value), None)
    if error is not None:
        raise SchemaError(message(error))


def document() -> str:
    """The schema as the published file holds it."""
    return json.dumps(SCHEMA, indent=2) + "\n"


def main(argv: list[str]) -> int:
    if argv[:1] == ["--write"] and len(argv) == 2:
        Path(argv[1]).write_text(document())
        return 0
    if argv:
        sys.stderr.write("usage: python -m vcore.report_schema [--write FILE]\n")
        return 2
    sys.stdout.write(document())
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
