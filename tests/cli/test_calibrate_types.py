"""vcore calibrate on a measurements file whose fields have the wrong types (issue 28, item 16): each
is one message naming the file, the measurement (by number) and the field, exit 2, before anything
runs; no traceback."""

from __future__ import annotations

import pytest
from cli_support import vcore, vcore_here

from vcore import calibrate

GOOD = 'program = "p.asm"\nmeasured = 100\n'

# (the file's text, what the message must hold)
CASES = [
    ("measurement = [1, 2]\n", ["measurement 1", "must be a table", "not 1"]),
    ('measurement = ["p.asm"]\n', ["measurement 1", "must be a table", '"p.asm"']),
    (f"[[measurement]]\n{GOOD}measurement = 3\n", ["measurement 1", "unknown key 'measurement'"]),
    ("measurement = 3\n", ["measurement must be [[measurement]] tables", "not 3"]),
    ("[measurement]\nprogram = \"p.asm\"\nmeasured = 1\n", ["measurement must be [[measurement]] tables"]),
    (f"[[measurement]]\n{GOOD}[[measurement]]\nprogram = 5\nmeasured = 100\n",
     ["measurement 2", "program", "a file name", "not 5"]),
    ('[[measurement]]\nprogram = ["p.asm"]\nmeasured = 100\n', ["measurement 1", "program", '["p.asm"]']),
    ('[[measurement]]\nprogram = ""\nmeasured = 100\n', ["measurement 1", "program", "a file name"]),
    ('[[measurement]]\nprogram = "p.asm"\nmeasured = "x"\n', ["measurement 1", "measured", "positive number",
                                                              '"x"']),
    ('[[measurement]]\nprogram = "p.asm"\nmeasured = true\n', ["measurement 1", "measured", "not true"]),
    ('[[measurement]]\nprogram = "p.asm"\nmeasured = 1979-05-27\n', ["measurement 1", "measured", "1979-05-27"]),
    (f"[[measurement]]\n{GOOD}defines = 3\n", ["measurement 1", "defines", "table of whole numbers", "not 3"]),
    (f"[[measurement]]\n{GOOD}defines = {{ TILE = \"64\" }}\n", ["measurement 1", "defines", "TILE", '"64"']),
    (f"[[measurement]]\n{GOOD}defines = {{ TILE = true }}\n", ["measurement 1", "defines", "TILE", "true"]),
    (f"[[measurement]]\n{GOOD}defines = {{ TILE = 1.5 }}\n", ["measurement 1", "defines", "TILE", "1.5"]),
    (f"[[measurement]]\n{GOOD}quantity = \"difference\"\nminus = [1]\n", ["measurement 1", "minus", "[1]"]),
    (f"[[measurement]]\n{GOOD}cores = \"8\"\n", ["measurement 1", "cores", "whole number 1..64", '"8"']),
    (f"[[measurement]]\n{GOOD}cores = true\n", ["measurement 1", "cores", "true"]),
    (f"[[measurement]]\n{GOOD}cores = 8.0\n", ["measurement 1", "cores", "8.0"]),
    (f"[[measurement]]\n{GOOD}cores = 65\n", ["measurement 1", "cores", "65"]),
    (f"[[measurement]]\n{GOOD}quantity = 5\n", ["measurement 1", "quantity", "total", "not 5"]),
    (f"[[measurement]]\n{GOOD}name = 5\n", ["measurement 1", "name", "a string", "not 5"]),
    (f"[[measurement]]\n{GOOD}source = [\"a\"]\n", ["measurement 1", "source", "a string"]),
    (f"[[measurement]]\n{GOOD}reading = {{ a = 1 }}\n", ["measurement 1", "reading", "a string"]),
    (f"[[measurement]]\n{GOOD}held_out = \"yes\"\n", ["measurement 1", "held_out", "true or false", '"yes"']),
    (f"[[measurement]]\n{GOOD}held_out = 1\n", ["measurement 1", "held_out", "not 1"]),
    (f'fit = "a"\n[[measurement]]\n{GOOD}', ["fit", "list of parameter names", '"a"']),
    (f'fit = ["tensor.startup", 3]\n[[measurement]]\n{GOOD}', ["fit", "element 2", "not 3"]),
    (f"fit = true\n[[measurement]]\n{GOOD}", ["fit", "not true"]),
]


@pytest.mark.parametrize(("text", "words"), CASES, ids=range(len(CASES)))
def test_read_file_names_the_entry_and_the_field(tmp_path, text, words):
    path = tmp_path / "m.toml"
    path.write_text(text)
    with pytest.raises(calibrate.CalibrateError) as info:
        calibrate.read_file(path)
    message = str(info.value)
    assert message.startswith(f"{path}: "), message
    for w in words:
        assert w in message, message


def test_the_command_says_it_once_and_exits_2(tmp_path):
    (tmp_path / "p.asm").write_text("    HALT\n")
    for n, (text, words) in enumerate(CASES):
        path = tmp_path / f"m{n}.toml"
        path.write_text(text)
        r = vcore_here("calibrate", path)
        assert r.returncode == 2 and r.stdout == "", (text, r.stderr)
        assert r.stderr.startswith(f"vcore: error: {path}: ") and len(r.stderr.splitlines()) == 1, r.stderr
        assert all(w in r.stderr for w in words), r.stderr
    r = vcore("calibrate", tmp_path / "m5.toml")     # the installed command, once
    assert r.returncode == 2 and "measurement 2: program" in r.stderr
