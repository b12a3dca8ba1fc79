"""The JSON report's schema (``vcore.report/1``), as a JSON Schema document, and the checker
``vcore diff`` runs on each report before comparing.

``SCHEMA`` below is the one declaration: ``python -m vcore.report_schema --write docs/report.schema.json``
(part of ``make docs``) publishes it, and ``validate`` checks a report against it. The checker is
small and handles the part of JSON Schema (2020-12) the declaration uses, no more: ``type``,
``properties``, ``required``, ``additionalProperties``, ``items``, ``enum``, ``const``, ``minimum``,
``pattern``, ``anyOf`` and ``$ref`` to ``#/$defs/NAME`` (``title``, ``description`` and ``$schema``,
``$id`` are notes). ``KEYWORDS`` lists them; a test checks the declaration uses no other. One
difference from the standard, said in the document too: an ``integer`` is a number written without
a fraction or exponent (5, not 5.0), as vcore writes them.

Keys may be added to a report (CONTRACT section 5), so an object takes keys it does not declare,
except ``pipes``, whose keys are the four pipes.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from emulator.report import SCHEMA as SCHEMA_NAME

KEYWORDS = {"type", "properties", "required", "additionalProperties", "items", "enum", "const", "minimum",
            "pattern", "anyOf", "$ref", "$defs", "title", "description", "$schema", "$id"}
PIPES = ("S", "V", "MTE2", "MTE3")


def _count(what: str) -> dict:
    return {"type": "integer", "minimum": 0, "description": what}


def _object(description: str, required: dict, optional: dict | None = None) -> dict:
    return {"type": "object", "description": description, "properties": {**required, **(optional or {})},
            "required": list(required)}


_PIPE = _object("One pipe: its busy cycles, the instructions it ran and busy cycles / total cycles.", {
    "busy_cycles": _count("cycles the pipe was busy (summed over cores in a kernel)"),
    "instructions": _count("instructions the pipe ran"),
    "utilisation": {"type": "number", "minimum": 0, "description": "busy cycles / total cycles"},
})
_STALLS = {"type": "object", "additionalProperties": _count("cycles lost to this cause"),
           "description": "stall cycles by cause (bank_conflict, flag_wait, barrier, ...)"}
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
        "except `pipes`. An integer is written without a fraction or exponent (5, not 5.0)."),
    "type": "object",
    "$defs": {"pipe": _PIPE, "stalls": _STALLS, "instruction": _INSTRUCTION},
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
        "pipes": {"type": "object", "description": "each pipe (a kernel: summed over cores)",
                  "properties": {p: {"$ref": "#/$defs/pipe"} for p in PIPES}, "required": list(PIPES),
                  "additionalProperties": False},
        "stalls": {"$ref": "#/$defs/stalls"},
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
        "scalars": {"type": "object", "description": "the final S registers (core 0's, or the slowest core's)",
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
                "pipes": {"type": "object", "additionalProperties": {"$ref": "#/$defs/pipe"}},
                "stalls": {"$ref": "#/$defs/stalls"},
                "verdict": {"type": "string"},
            }, {"blocks": {"type": "array", "description": "the blocks it ran, in order", "items": _object(
                "A block and when it ran, in cycles after the launch.", {
                    "block": _count("its BLOCKIDX"),
                    "start": _count("the cycle it started"),
                    "end": _count("the cycle it ended"),
                })}})},
        "warnings": {"type": "array", "items": {"type": "string"}},
        "fault": _object("How a run that did not end cleanly stopped.", {
            "kind": {"type": "string", "description": "fault, limit, deadlock, race or interrupt"},
            "message": {"type": "string"},
        }),
    },
    "required": ["schema", "profile", "total_cycles", "time_us", "instructions", "pipes", "stalls", "races",
                 "per_pc", "scalars", "dumps", "verdict"],
}

_TYPES = {
    "object": ("an object", lambda v: isinstance(v, dict)),
    "array": ("an array", lambda v: isinstance(v, list)),
    "string": ("a string", lambda v: isinstance(v, str)),
    "integer": ("an integer", lambda v: isinstance(v, int) and not isinstance(v, bool)),
    "number": ("a number", lambda v: isinstance(v, int | float) and not isinstance(v, bool)),
    "boolean": ("true or false", lambda v: isinstance(v, bool)),
    "null": ("null", lambda v: v is None),
}


class SchemaError(Exception):
    """A report that does not match the schema: the message names the field (``per_pc[3].cycles``)."""


def shown(value) -> str:
    """A JSON value as the file writes it, cut short."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _field(path: str, key) -> str:
    return f"{path}[{key}]" if isinstance(key, int) else (f"{path}.{key}" if path else str(key))


def validate(value, schema: dict = SCHEMA, path: str = "", root: dict | None = None) -> None:
    """Raise SchemaError at the first place where ``value`` does not match ``schema``."""
    root = root or schema
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        validate(value, root["$defs"][name], path, root)
        return
    where = path or "the report"
    if "anyOf" in schema:
        for option in schema["anyOf"]:
            try:
                validate(value, option, path, root)
                return
            except SchemaError:
                pass
        wanted = " or ".join(_wanted(option) for option in schema["anyOf"])
        raise SchemaError(f"{where} must be {wanted}, not {shown(value)}")
    if "const" in schema and value != schema["const"]:
        raise SchemaError(f"{where} must be {shown(schema['const'])}, not {shown(value)}")
    if "enum" in schema and not any(value == v and type(value) is type(v) for v in schema["enum"]):
        raise SchemaError(f"{where} must be {_wanted(schema)}, not {shown(value)}")
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_TYPES[t][1](value) for t in types):
            raise SchemaError(f"{where} must be {_wanted(schema)}, not {shown(value)}")
    if "minimum" in schema and _TYPES["number"][1](value) and value < schema["minimum"]:
        raise SchemaError(f"{where} must be at least {schema['minimum']}, not {shown(value)}")
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        wanted = "not be blank" if schema["pattern"] == r"\S" else f"match /{schema['pattern']}/"
        raise SchemaError(f"{where} must {wanted}, not {shown(value)}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            validate(item, schema["items"], _field(path, i), root)
    if isinstance(value, dict):
        for key in schema.get("required", ()):
            if key not in value:
                raise SchemaError(f"{where} has no '{key}'")
        declared = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in declared:
                validate(item, declared[key], _field(path, key), root)
            elif extra is False:
                raise SchemaError(f"{where}: unknown key '{key}' (keys: {', '.join(declared)})")
            elif isinstance(extra, dict):
                validate(item, extra, _field(path, key), root)


def _wanted(schema: dict) -> str:
    if "enum" in schema:
        return "one of " + ", ".join(shown(v) for v in schema["enum"])
    if "type" not in schema:
        return "something else"
    types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    return " or ".join(_TYPES[t][0] for t in types)


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
