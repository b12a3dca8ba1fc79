"""Profiles: the machine and timing parameters, read from TOML (built-in ``950`` and ``a2``, or a file).

The built-in ``950`` profile is the schema: a profile must have exactly its keys, each of the same
kind (a number, a list of as many numbers, or a string), so that a user's copy can neither miss a
parameter nor carry one that nothing reads.
"""

from __future__ import annotations

import math
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
    return resources.files("emulator").joinpath(f"profiles/{name}.toml").read_text()


@cache
def _schema() -> dict:
    return tomllib.loads(builtin_text(SCHEMA))


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check(table: dict, schema: dict, where: str, origin: str) -> None:
    for key in table:
        if key not in schema:
            if origin in BUILTIN and origin != SCHEMA:  # a built-in profile: the schema may be the one that lacks it
                raise ProfileError(f"{origin}: key '{where}{key}' is not in the {SCHEMA} profile, the schema every "
                                   f"profile matches ({SCHEMA}.toml lacks it, or {origin}.toml has it too many)")
            raise ProfileError(f"{origin}: unknown key '{where}{key}'")
    for key, model in schema.items():
        name = f"{where}{key}"
        if key not in table:
            raise ProfileError(f"{origin}: missing key '{name}'")
        value = table[key]
        if isinstance(model, dict):
            if not isinstance(value, dict):
                raise ProfileError(f"{origin}: '{name}' must be a table")
            _check(value, model, f"{name}.", origin)
        elif isinstance(model, list):
            if not isinstance(value, list) or len(value) != len(model) or not all(map(_is_number, value)):
                raise ProfileError(f"{origin}: '{name}' must be a list of {len(model)} numbers")
            if not all(0 < v < math.inf for v in value):  # NaN fails this too
                raise ProfileError(f"{origin}: '{name}' must hold positive finite numbers")
        elif isinstance(model, bool):
            if not isinstance(value, bool):
                raise ProfileError(f"{origin}: '{name}' must be true or false")
        elif isinstance(model, str):
            if not isinstance(value, str):
                raise ProfileError(f"{origin}: '{name}' must be a string")
        elif isinstance(model, int) and not isinstance(model, bool):
            if not isinstance(value, int) or isinstance(value, bool):
                raise ProfileError(f"{origin}: '{name}' must be a whole number")
            if value < 0:
                raise ProfileError(f"{origin}: '{name}' must not be negative")
        else:
            if not _is_number(value):
                raise ProfileError(f"{origin}: '{name}' must be a number")
            if not 0 < value < math.inf:  # NaN fails this too
                raise ProfileError(f"{origin}: '{name}' must be a positive finite number")


def parse_profile(text: str, origin: str) -> Profile:
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ProfileError(f"{origin}: malformed TOML: {err}") from None
    check_table(table, origin)
    return Profile(table["name"], table, text)


def check_table(table: dict, origin: str) -> None:
    """Raise ProfileError unless the table holds exactly the schema's keys with values in range."""
    _check(table, _schema(), "", origin)
    ub_size = table["machine"]["ub_size"]
    if not 1024 <= ub_size <= MAX_UB or ub_size % 256:
        raise ProfileError(f"{origin}: machine.ub_size must be a multiple of 256 in 1024..{MAX_UB}")
    if not table["machine"]["clock_ghz"] <= 100:
        raise ProfileError(f"{origin}: machine.clock_ghz must be in (0, 100]")
    if table["machine"]["isa"] not in INSTRUCTION_SETS:
        raise ProfileError(f"{origin}: machine.isa must be one of {', '.join(INSTRUCTION_SETS)}")
    if table["banks"]["kind"] not in BANK_KINDS:
        raise ProfileError(f"{origin}: banks.kind must be one of {', '.join(BANK_KINDS)}")
    if table["tensor"]["as_function"] and not table["machine"]["vector_functions"]:
        raise ProfileError(f"{origin}: tensor.as_function needs machine.vector_functions")
    if table["banks"]["beats"] not in (1, 2, 4, 8):
        raise ProfileError(f"{origin}: banks.beats must be 1, 2, 4 or 8")
    for key in ("issue_width", "register_writes", "ub_reads"):
        if table["register"][key] < 1:
            raise ProfileError(f"{origin}: register.{key} must be at least 1")
    if table["register"]["ub_reads"] > 7:
        raise ProfileError(f"{origin}: register.ub_reads must be at most 7")
    if table["register"]["transcendental_units"] < 0 or table["register"]["transcendental_units"] % 1:
        raise ProfileError(f"{origin}: register.transcendental_units must be a whole number, 0 or more")
    for key, value in table["register"].items():
        # A result lands at least a cycle after its instruction starts: a job that ended as it
        # started would land before it had read its sources.
        values = value.values() if isinstance(value, dict) else (value,)  # a latency may be a table by operation
        if key.endswith("_latency") and any(v < 1 for v in values):
            raise ProfileError(f"{origin}: register.{key} must be at least 1")


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
