"""Profiles are checked against one declaration (issue 33, item 6): a JSON Schema made from the built-in
950 profile's keys and kinds with the ranges of ``RULES``, checked by the jsonschema package. Each
mistake a user can make in a profile file is one message naming the key, as the hand-written checker
before it said it (the texts worked out from the rule each key breaks)."""

from __future__ import annotations

import re

import pytest

from vcore.emulator.profiles.profile import BUILTIN, ProfileError, builtin_text, parse_profile, schema

NINE_FIFTY = builtin_text("950")


def edited(old: str, new: str) -> str:
    """The 950 profile with the line (or its start) ``old`` put as ``new``."""
    text, found = re.subn(rf"(?m)^{re.escape(old)}", new, NINE_FIFTY, count=1)
    assert found == 1, old
    return text


def test_the_declaration_is_a_json_schema_that_the_built_in_profiles_match():
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(schema())
    for name in BUILTIN:
        parse_profile(builtin_text(name), name)
    machine = schema()["properties"]["machine"]
    assert machine["required"] == ["ub_size", "clock_ghz", "vector_functions", "isa"]
    assert machine["additionalProperties"] is False
    assert machine["properties"]["ub_size"] == {"type": "integer", "minimum": 1024, "maximum": 262144,
                                                "multipleOf": 256,
                                                "description": "must be a multiple of 256 in 1024..262144"}


@pytest.mark.parametrize(("old", "new", "message"), [
    # keys: missing, unknown, a table that is not one
    ("clock_ghz = 1.65", "", "missing key 'machine.clock_ghz'"),
    ("[machine]", "[machine]\nturbo = 1", "unknown key 'machine.turbo'"),
    ("[machine]", "turbo = 1\n[machine]", "unknown key 'turbo'"),
    ("reduce_latency = { SUM = [24, 22], MAX = [17, 16], MIN = [17, 16] }", "reduce_latency = 22",
     "'register.reduce_latency' must be a table"),
    # kinds: a whole number, a number, true or false, a string, a list of as many numbers
    ("load_latency = 9", 'load_latency = "slow"', "'register.load_latency' must be a whole number"),
    ("load_latency = 9", "load_latency = 9.0", "'register.load_latency' must be a whole number"),
    ("launch = 1073", "launch = -1", "'chip.launch' must not be negative"),
    ("gm2ub_bytes_per_cycle = 61.1247", 'gm2ub_bytes_per_cycle = "x"', "'dma.gm2ub_bytes_per_cycle' must be a number"),
    ("gm2ub_bytes_per_cycle = 61.1247", "gm2ub_bytes_per_cycle = nan",
     "'dma.gm2ub_bytes_per_cycle' must be a positive finite number"),
    ("gm2ub_bytes_per_cycle = 61.1247", "gm2ub_bytes_per_cycle = inf",
     "'dma.gm2ub_bytes_per_cycle' must be a positive finite number"),
    ("gm2ub_bytes_per_cycle = 61.1247", "gm2ub_bytes_per_cycle = 0",
     "'dma.gm2ub_bytes_per_cycle' must be a positive finite number"),
    ("vector_functions = true", "vector_functions = 1", "'machine.vector_functions' must be true or false"),
    ('kind = "950"', "kind = 3", "'banks.kind' must be a string"),
    ("exp = [16, 16]\n", "exp = [16]\n", "'tensor.elements_per_cycle.exp' must be a list of 2 numbers"),
    ("exp = [16, 16]\n", "exp = 16\n", "'tensor.elements_per_cycle.exp' must be a list of 2 numbers"),
    ("exp = [16, 16]\n", 'exp = [16, "a"]\n', "'tensor.elements_per_cycle.exp' must be a list of 2 numbers"),
    ("exp = [16, 16]\n", "exp = [16, nan]\n", "'tensor.elements_per_cycle.exp' must hold positive finite numbers"),
    ("exp = [16, 16]\n", "exp = [16, 0]\n", "'tensor.elements_per_cycle.exp' must hold positive finite numbers"),
    # ranges
    ("ub_size = 262144", "ub_size = 1000", "machine.ub_size must be a multiple of 256 in 1024..262144"),
    ("ub_size = 262144", "ub_size = 524288", "machine.ub_size must be a multiple of 256 in 1024..262144"),
    ("clock_ghz = 1.65", "clock_ghz = 101", "machine.clock_ghz must be in (0, 100]"),
    ('isa = "950"', 'isa = "910"', "machine.isa must be one of 950, a2"),
    ('kind = "950"', 'kind = "910"', "banks.kind must be one of a2, 950"),
    ("beats = 1", "beats = 3", "banks.beats must be 1, 2, 4 or 8"),
    ("issue_width = 2", "issue_width = 0", "register.issue_width must be at least 1"),
    ("ub_reads = 2", "ub_reads = 8", "register.ub_reads must be in 1..7"),
    ("load_latency = 9", "load_latency = 0", "register.load_latency must be at least 1"),
    ("reduce_latency = { SUM = [24, 22],", "reduce_latency = { SUM = [0, 22],",
     "'register.reduce_latency.SUM' must hold positive finite numbers"),
    # a latency of a table below a cycle, though positive: its result would land before it read its sources
    ("reduce_latency = { SUM = [24, 22],", "reduce_latency = { SUM = [0.5, 22],",
     "register.reduce_latency.SUM must hold numbers of at least 1"),
    ("transcendental_latency = { exp = [21, 16],", "transcendental_latency = { exp = [21, 0.25],",
     "register.transcendental_latency.exp must hold numbers of at least 1"),
])
def test_a_mistake_is_one_message_naming_the_key(old, new, message):
    with pytest.raises(ProfileError) as info:
        parse_profile(edited(old, new), "mine.toml")
    assert str(info.value) == f"mine.toml: {message}"


def test_a_kind_is_said_before_a_range():
    text = edited("clock_ghz = 1.65", "clock_ghz = 101").replace("beats = 1", 'beats = "one"')
    with pytest.raises(ProfileError, match=r"^mine\.toml: 'banks\.beats' must be a whole number$"):
        parse_profile(text, "mine.toml")
