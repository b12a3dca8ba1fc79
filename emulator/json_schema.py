"""JSON Schema (2020-12) validation with the ``jsonschema`` package, as vcore's schemas mean their types:
an ``integer`` is an int, never a float with no fraction (5, not 5.0) nor a bool, and a ``number`` is a
finite int or float (JSON has no NaN or infinity; TOML and Python's ``json`` read them). The profile
schema (emulator/profiles/profile.py) and the report's (vcore/report_schema.py) are checked with it.

jsonschema is imported when the first validator is made, not with this module.
"""

from __future__ import annotations

import math


def _is_integer(_checker, value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(_checker, value) -> bool:
    return _is_integer(_checker, value) or (isinstance(value, float) and math.isfinite(value))


def strict_validator(schema: dict):
    """A jsonschema validator (Draft 2020-12) of ``schema`` with these integers and numbers."""
    from jsonschema import Draft202012Validator, validators  # noqa: PLC0415  (see the module's text)

    checker = Draft202012Validator.TYPE_CHECKER.redefine_many({"integer": _is_integer, "number": _is_number})
    return validators.extend(Draft202012Validator, type_checker=checker)(schema)


def place(path) -> str:
    """A place in a JSON value as messages name it: ``per_pc[3].cycles`` (empty for the whole value)."""
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out


__all__ = ["place", "strict_validator"]
