"""The JSON report's published schema (docs/report.schema.json) and vcore diff's check against it
(issue 28, item 17; issue 33, item 5): real reports (single core, races, a fault, a vector function,
dumps, kernels) match it, checked by the jsonschema package, and declare no key it does not name; a
report with a field of the wrong type, null or malformed is refused naming the file and the field,
exit 2, no traceback."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from cli_support import vcore, vcore_here

from vcore.diff import DiffError, read_report
from vcore.report_schema import SCHEMA, SchemaError, document, validate

ROOT = Path(__file__).resolve().parents[2]

# a race between two cores: both write GM 0x0 in one phase
BETWEEN_CORES = """\
    VDUP.f32 [0x0], 1.0, repeat=1
    BARRIER ALL
    DMA.UB2GM gm[0x0], [0x0], len=1
    HALT
"""


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """JSON reports as the command writes them, by name."""
    tmp = tmp_path_factory.mktemp("reports")
    (tmp / "between.asm").write_text(BETWEEN_CORES)
    runs = {
        "vadd": ["programs/vadd_basic.asm", "--dump", "ub:0x1000:f16:4"],
        "nan_dump": ["programs/vadd_basic.asm", "--dump", "ub:0x0:f32:2", "--load", f"ub:0x0={_nan_file(tmp)}"],
        "race": ["programs/race_stale_read.asm"],
        "latent": ["programs/race_latent_war.asm"],
        "function": ["programs/cookbook_softmax_vf.asm"],
        "fault": ["programs/fault_misaligned.asm"],
        "vbin": [_vbin(tmp)],
        "kernel": ["programs/kernels/add.asm", "--cores", "4", "--jobs", "1", "--dump", "ub3:0x0:f16:2"],
        "between": [tmp / "between.asm", "--cores", "2", "--jobs", "1"],
    }
    out = {}
    for name, args in runs.items():
        path = tmp / f"{name}.json"
        r = vcore_here("run", *args, "--report", "none", "--report-file", path)
        assert r.returncode in (0, 1), r.stderr
        out[name] = path
    return out


def _nan_file(tmp: Path) -> Path:
    import numpy as np

    path = tmp / "nan.npy"
    np.save(path, np.array([np.nan, np.inf], dtype=np.float32))
    return path


def _vbin(tmp: Path) -> Path:
    vcore_here("asm", ROOT / "programs/vadd_basic.asm", "-o", tmp / "vadd.vbin")
    return tmp / "vadd.vbin"


def test_real_reports_match_the_schema(reports):
    seen = {}
    for name, path in reports.items():
        data = read_report(str(path))   # the check diff runs
        validate(data)
        seen[name] = data
    assert seen["race"]["races"] and seen["latent"]["races"][0]["latent"] is True
    assert seen["fault"]["fault"]["kind"] == "fault"
    assert seen["nan_dump"]["dumps"]["ub:0x0:f32:2"] == ["nan", "inf"]
    assert seen["kernel"]["cores"] == 4 and len(seen["kernel"]["per_core"]) == 4
    assert seen["between"]["races"][0]["cores"] == [0, 1]
    assert seen["vbin"]["per_pc"][0]["line"] is None
    r = vcore_here("diff", reports["vadd"], reports["kernel"])
    assert r.returncode == 0, r.stderr


def test_the_published_schema_is_the_declaration():
    published = ROOT / "docs" / "report.schema.json"
    assert published.read_text() == document(), "run make docs (python -m vcore.report_schema --write ...)"
    assert json.loads(published.read_text())["properties"]["schema"]["const"] == "vcore.report/1"


def test_the_declaration_is_a_json_schema():
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(SCHEMA)   # (raises SchemaError naming what is wrong)


def _undeclared(value, schema: dict, path: str = "") -> list[str]:
    """The keys of ``value`` its schema does not name (an object with ``properties`` names its keys; one
    with only ``additionalProperties``, a map such as ``scalars``, takes any)."""
    while "$ref" in schema or "allOf" in schema:
        ref = schema.get("$ref") or schema["allOf"][0]["$ref"]
        schema = {**SCHEMA["$defs"][ref.removeprefix("#/$defs/")],
                  **{k: v for k, v in schema.items() if k not in ("$ref", "allOf")}}
    out = []
    if isinstance(value, dict):
        for key, item in value.items():
            if "properties" in schema and key not in schema["properties"]:
                out.append(f"{path}.{key}")
            elif "properties" in schema:
                out += _undeclared(item, schema["properties"][key], f"{path}.{key}")
            elif isinstance(schema.get("additionalProperties"), dict):
                out += _undeclared(item, schema["additionalProperties"], f"{path}.{key}")
    elif isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            out += _undeclared(item, schema["items"], f"{path}[{i}]")
    return out


def test_the_schema_names_every_key_a_report_writes(reports):
    for name, path in reports.items():
        assert _undeclared(json.loads(path.read_text()), SCHEMA) == [], name


def test_the_published_document_checks_reports_with_plain_jsonschema(reports):
    import jsonschema

    published = json.loads((ROOT / "docs" / "report.schema.json").read_text())
    for path in reports.values():
        jsonschema.validate(json.loads(path.read_text()), published)
    bad = json.loads(reports["vadd"].read_text())
    bad["per_pc"][0]["cycles"] = "many"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, published)


def _set(data: dict, where: str, value) -> dict:
    """A copy of ``data`` with the field at ``where`` (``per_pc.0.cycles``) set, or deleted for ``...``."""
    data = copy.deepcopy(data)
    *parents, last = [int(k) if k.isdigit() else k for k in where.split(".")]
    node = data
    for key in parents:
        node = node[key]
    if value is ...:
        del node[last]
    else:
        node[last] = value
    return data


# (field, new value, what the message must say): each refused, naming the field
BAD = [
    ("total_cycles", "lots", 'total_cycles must be an integer, not "lots"'),
    ("total_cycles", None, "total_cycles must be an integer, not null"),
    ("total_cycles", 1.5, "total_cycles must be an integer, not 1.5"),
    ("total_cycles", True, "total_cycles must be an integer, not true"),
    ("total_cycles", 5.0, "total_cycles must be an integer, not 5.0"),       # (diff computes with integers)
    ("time_us", float("nan"), "time_us must be a number, not NaN"),          # (Python's json reads NaN)
    ("time_us", float("inf"), "time_us must be a number, not Infinity"),
    ("total_cycles", -3, "total_cycles must be at least 0, not -3"),
    ("total_cycles", ..., "report has no 'total_cycles'"),
    ("instructions", "57", 'instructions must be an integer, not "57"'),
    ("profile", 950, "profile must be a string, not 950"),
    ("pipes", None, "pipes must be an object, not null"),
    ("pipes", [1, 2], "pipes must be an object, not [1, 2]"),
    ("pipes.V", 3, "pipes.V must be an object, not 3"),
    ("pipes.X", {"busy_cycles": 1}, "pipes: unknown key 'X'"),
    ("pipes.V.busy_cycles", "3", 'pipes.V.busy_cycles must be an integer, not "3"'),
    ("pipes.MTE2", ..., "pipes has no 'MTE2'"),
    ("stalls", None, "stalls must be an object, not null"),
    ("stalls.flag_wait", "9", 'stalls.flag_wait must be an integer, not "9"'),
    ("per_pc", "x", 'per_pc must be an array, not "x"'),
    ("per_pc.0", 3, "per_pc[0] must be an object, not 3"),
    ("per_pc.0.cycles", None, "per_pc[0].cycles must be an integer, not null"),
    ("per_pc.0.cycles", ..., "per_pc[0] has no 'cycles'"),
    ("per_pc.0.pc", "0x0", 'per_pc[0].pc must be an integer, not "0x0"'),
    ("per_pc.0.line", "3", 'per_pc[0].line must be an integer or null, not "3"'),
    ("per_pc.0.text", 5, "per_pc[0].text must be a string, not 5"),
    ("per_pc.0.text", " ", 'per_pc[0].text must not be blank'),
    ("per_pc.0.pipe", "Q", 'per_pc[0].pipe must be one of "S", "V", "MTE2", "MTE3", not "Q"'),
    ("per_pc.0.stalls", [], "per_pc[0].stalls must be an object, not []"),
    ("per_pc.0.stalls", {"drain": "1"}, 'per_pc[0].stalls.drain must be an integer, not "1"'),
    ("races", "none", 'races must be an array, not "none"'),
    ("races", [{"kind": "RAW"}], "races[0] has no 'first'"),
    ("scalars.S1", "x", 'scalars.S1 must be an integer, not "x"'),
    ("dumps.ub:0x1000:f16:4", ["a"], 'dumps.ub:0x1000:f16:4[0] must be a number or one of "nan", "inf", "-inf"'),
    ("verdict", 5, "verdict must be a string, not 5"),
    ("fault", {"kind": 3}, "fault has no 'message'"),
    ("fault", {"kind": "oops", "message": "x"}, 'fault.kind must be one of "fault", "limit", "deadlock", "race", '
                                                '"interrupt", not "oops"'),
    ("per_pc.0.busy_cycles", -1, "per_pc[0].busy_cycles must be at least 0, not -1"),
    ("scalars.S32", 1, "scalars: 'S32' does not match"),
    ("races", [{"kind": "RAW", "first": {}, "second": {}, "space": "ub", "start": 0, "end": 1, "count": 1,
                "latent": False}], "races[0].first has no 'pc'"),
    ("per_core", [{"core": 0}], "per_core[0] has no 'total_cycles'"),
]


@pytest.mark.parametrize(("where", "value", "message"), BAD, ids=[f"{w}={v!r}" for w, v, _ in BAD])
def test_a_malformed_field_is_named(reports, tmp_path, where, value, message):
    data = _set(json.loads(reports["vadd"].read_text()), where, value)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(DiffError) as info:
        read_report(str(path))
    assert str(info.value).startswith(f"{path}: error: "), info.value
    assert message in str(info.value), info.value
    with pytest.raises(SchemaError):
        validate(data)


def test_the_schema_name_is_a_constant(reports):
    data = _set(json.loads(reports["vadd"].read_text()), "schema", "vcore.report/2")
    with pytest.raises(SchemaError) as info:
        validate(data)
    assert str(info.value) == 'schema must be "vcore.report/1", not "vcore.report/2"'


def test_diff_says_it_once_and_exits_2(reports, tmp_path):
    data = json.loads(reports["vadd"].read_text())
    bad = tmp_path / "b.json"
    bad.write_text(json.dumps(_set(data, "per_pc.0.cycles", None)))
    r = vcore("diff", reports["vadd"], bad)   # the installed command
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == f"{bad}: error: per_pc[0].cycles must be an integer, not null\n"
