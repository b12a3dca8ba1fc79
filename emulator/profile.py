"""Profiles: the machine and timing parameters, read from TOML (built-in ``950`` and ``a2``, or a file).

Every key is required and unknown keys are refused, so a user's copy cannot silently drift.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

from attrs import frozen

BUILTIN = ("950", "a2")
MAX_UB = 1 << 18  # the UB operand encoding addresses at most 256 KiB


class ProfileError(Exception):
    """A profile that cannot be found or does not hold exactly the expected keys."""


@frozen
class Profile:
    name: str
    ub_size: int
    clock_ghz: float
    source_text: str


_SCHEMA = {"name": str, "machine": {"ub_size": int, "clock_ghz": (int, float)}}


def _check(table: dict, schema: dict, where: str, origin: str) -> None:
    for key in table:
        if key not in schema:
            raise ProfileError(f"{origin}: unknown key '{where}{key}'")
    for key, kind in schema.items():
        if key not in table:
            raise ProfileError(f"{origin}: missing key '{where}{key}'")
        value = table[key]
        if isinstance(kind, dict):
            if not isinstance(value, dict):
                raise ProfileError(f"{origin}: '{where}{key}' must be a table")
            _check(value, kind, f"{where}{key}.", origin)
        elif not isinstance(value, kind) or isinstance(value, bool):
            raise ProfileError(f"{origin}: '{where}{key}' has the wrong type ({type(value).__name__})")


def builtin_text(name: str) -> str:
    return resources.files("emulator").joinpath(f"profiles/{name}.toml").read_text()


def parse_profile(text: str, origin: str) -> Profile:
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ProfileError(f"{origin}: malformed TOML: {err}") from None
    _check(table, _SCHEMA, "", origin)
    machine = table["machine"]
    ub_size = machine["ub_size"]
    if not 1024 <= ub_size <= MAX_UB or ub_size % 256:
        raise ProfileError(f"{origin}: machine.ub_size must be a multiple of 256 in 1024..{MAX_UB}")
    if not 0 < machine["clock_ghz"] <= 100:
        raise ProfileError(f"{origin}: machine.clock_ghz must be in (0, 100]")
    return Profile(table["name"], ub_size, float(machine["clock_ghz"]), text)


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
    return parse_profile(text, name_or_path)
