"""Profiles: the machine and timing parameters, read from TOML (built-in ``950`` and ``a2``, or a file).

One declaration says what a profile holds: ``schema()``, a JSON Schema (2020-12) made from the built-in
``950`` profile, the model every profile matches (exactly its keys, each of the same kind: a whole
number, a number, a list of as many numbers, a string or true/false), with the ranges of ``RULES``
on top; the ``jsonschema`` package checks a profile against it (emulator/json_schema.py), so that a
user's copy can neither miss a parameter nor carry one that nothing reads. A failure is one message
naming the key.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from pathlib import Path

from attrs import frozen

BUILTIN = ("950", "a2")
SCHEMA = "950"  # the built-in profile whose keys every profile has
MAX_UB = 1 << 18  # the UB operand encoding addresses at most 256 KiB
BANK_KINDS = ("a2", "950")
INSTRUCTION_SETS = ("950", "a2")


class ProfileError(Exception):
    """A profile that cannot be found or does not hold exactly the expected keys."""


@frozen
class Profile:
    name: str
    table: dict
    source_text: str

    @property
    def ub_size(self) -> int:
        return self.table["machine"]["ub_size"]

    @property
    def clock_ghz(self) -> float:
        return float(self.table["machine"]["clock_ghz"])

    def __getitem__(self, section: str) -> dict:
        return self.table[section]


def builtin_text(name: str) -> str:
    return resources.files("vcore.emulator.profiles").joinpath(f"{name}.toml").read_text()


# Ranges on top of the kinds, by key (a key ending in ``_latency`` in [register], a number or a table of
# them, is at least 1 too): the keywords, and what the message says the value must be.
RULES = {
    "machine.ub_size": ({"minimum": 1024, "maximum": MAX_UB, "multipleOf": 256},
                        f"a multiple of 256 in 1024..{MAX_UB}"),
    "machine.clock_ghz": ({"maximum": 100}, "in (0, 100]"),
    "machine.isa": ({"enum": list(INSTRUCTION_SETS)}, f"one of {', '.join(INSTRUCTION_SETS)}"),
    "banks.kind": ({"enum": list(BANK_KINDS)}, f"one of {', '.join(BANK_KINDS)}"),
    "banks.beats": ({"enum": [1, 2, 4, 8]}, "1, 2, 4 or 8"),
    "register.issue_width": ({"minimum": 1}, "at least 1"),
    "register.register_writes": ({"minimum": 1}, "at least 1"),
    "register.ub_reads": ({"minimum": 1, "maximum": 7}, "in 1..7"),
    "chip.cores": ({"minimum": 1}, "at least 1"),
}
# A result lands at least a cycle after its instruction starts: a job that ended as it started would
# land before it had read its sources.
LATENCY_RULE = ({"minimum": 1}, "at least 1")


def _kind(model, name: str) -> dict:
    """The schema of a value of the model's kind at ``name`` (dotted), with its rule."""
    if isinstance(model, dict):
        # (unknown keys, then missing ones, are said before the values of the others)
        node = {"type": "object", "additionalProperties": False, "required": list(model),
                "properties": {key: _kind(value, f"{name}.{key}" if name else key) for key, value in model.items()}}
    elif isinstance(model, bool):
        node = {"type": "boolean"}
    elif isinstance(model, str):
        node = {"type": "string"}
    elif isinstance(model, int):
        node = {"type": "integer", "minimum": 0}
    elif isinstance(model, float):
        node = {"type": "number", "exclusiveMinimum": 0}
    else:  # a list of as many positive numbers
        node = {"type": "array", "minItems": len(model), "maxItems": len(model),
                "items": {"type": "number", "exclusiveMinimum": 0}}
    parts = name.split(".")
    latency = parts[0] == "register" and len(parts) in (2, 3) and parts[1].endswith("_latency")
    rule = RULES.get(name) or (LATENCY_RULE if latency and not isinstance(model, dict) else None)
    if rule is not None and node["type"] == "array":  # (a list: each of its numbers)
        node = {**node, "items": {**node["items"], **rule[0]}, "description": f"must hold numbers of {rule[1]}"}
    elif rule is not None:
        node = {**node, **rule[0], "description": f"must be {rule[1]}"}
    return node


def schema() -> dict:
    """What every profile holds, as a JSON Schema: the built-in 950 profile's keys and kinds, and RULES."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "vcore profile", **_kind(tomllib.loads(builtin_text(SCHEMA)), "")}


@cache
def _schema():
    """The validator of ``schema()`` and the profile texts it has found good (each is checked once)."""
    from vcore.emulator.json_schema import strict_validator  # noqa: PLC0415  (jsonschema loads with the first profile)

    return strict_validator(schema()), set()


_KINDS = {"object": "be a table", "boolean": "be true or false", "string": "be a string",
          "integer": "be a whole number", "number": "be a number"}


def _message(error, root: dict, origin: str) -> tuple[bool, str]:
    """(whether a range, not a kind, failed; the message naming the key) of a jsonschema error."""
    path, value, keyword, node = list(error.absolute_path), error.instance, error.validator, error.schema
    if path and isinstance(path[-1], int):  # an element of a list: said of the list
        path, node = path[:-1], root
        for key in path[:-1]:
            node = node["properties"][key]
        node = node["properties"][path[-1]]
        name = ".".join(path)
        if keyword == "minimum" and "description" in node:  # positive, but below the key's range
            return True, f"{origin}: {name} {node['description']}"
        if keyword == "exclusiveMinimum" or isinstance(value, float):  # (a float the number type refused: NaN, inf)
            return False, f"{origin}: '{name}' must hold positive finite numbers"
        return False, f"{origin}: '{name}' must be a list of {node['minItems']} numbers"
    name = ".".join(path)
    if keyword == "additionalProperties":
        key = next(k for k in value if k not in node["properties"])
        full = f"{name}.{key}" if name else key
        if origin in BUILTIN and origin != SCHEMA:  # a built-in profile: the schema may be the one that lacks it
            return False, (f"{origin}: key '{full}' is not in the {SCHEMA} profile, the schema every profile "
                           f"matches ({SCHEMA}.toml lacks it, or {origin}.toml has it too many)")
        return False, f"{origin}: unknown key '{full}'"
    if keyword == "required":
        key = next(k for k in error.validator_value if k not in value)
        return False, f"{origin}: missing key '{f'{name}.{key}' if name else key}'"
    if "description" in node and keyword in ("minimum", "maximum", "multipleOf", "enum"):
        return True, f"{origin}: {name} {node['description']}"
    if node["type"] == "array":
        return False, f"{origin}: '{name}' must be a list of {node['minItems']} numbers"
    if node["type"] == "number" and (keyword == "exclusiveMinimum" or isinstance(value, float)):
        return False, f"{origin}: '{name}' must be a positive finite number"  # (or NaN, or infinity)
    if keyword == "minimum":
        return False, f"{origin}: '{name}' must not be negative"
    return False, f"{origin}: '{name}' must {_KINDS[node['type']]}"


def parse_profile(text: str, origin: str) -> Profile:
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ProfileError(f"{origin}: malformed TOML: {err}") from None
    check_table(table, origin, text)
    return Profile(table["name"], table, text)


def check_table(table: dict, origin: str, text: str | None = None) -> None:
    """Raise ProfileError unless the table holds exactly the schema's keys with values in range (the
    first failure of a kind, then of a range). ``text``: the TOML it was read from, checked once."""
    validator, good = _schema()
    if text is not None and text in good:
        return
    errors = [_message(error, validator.schema, origin) for error in validator.iter_errors(table)]
    if errors:  # the first of a kind, else the first of a range
        raise ProfileError(min(errors, key=lambda e: e[0])[1])
    if table["tensor"]["as_function"] and not table["machine"]["vector_functions"]:  # (across two sections)
        raise ProfileError(f"{origin}: tensor.as_function needs machine.vector_functions")
    if text is not None:
        good.add(text)


def load_profile(name_or_path: str) -> Profile:
    """A built-in profile by name, or a TOML file by path."""
    if name_or_path in BUILTIN:
        return parse_profile(builtin_text(name_or_path), name_or_path)
    path = Path(name_or_path)
    if path.suffix.lower() != ".toml" and not path.exists():
        raise ProfileError(f"unknown profile '{name_or_path}' (built-in: {', '.join(BUILTIN)}; or a FILE.toml)")
    try:
        text = path.read_text()
    except OSError as err:
        raise ProfileError(f"{name_or_path}: cannot read profile: {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise ProfileError(f"{name_or_path}: not a text file") from None
    return parse_profile(text, name_or_path)
