"""vcore calibrate (CONTRACT 10): measurements made with a known profile are fitted back to it from
another start; difference and ratio quantities; the report of parameters the data cannot determine;
the fitted profile keeps its comments and loads; bad files are one clear message."""

from __future__ import annotations

import tomllib

import pytest
from click.testing import CliRunner

from vcore import calibrate
from vcore.cli import main
from vcore.emulator import load_profile
from vcore.emulator.profiles.profile import parse_profile

pytest.importorskip("scipy")

# K DMAs in, one after another (each waits for the last): total = K * (setup + 256 B / burst) + the rest.
DMAS = """\
.equ K, 2
.rept K
    DMA.GM2UB [0x0], gm[0x0], len=8
    BARRIER ALL
.endr
    HALT
"""


def measure(tmp_path, profile, runs):
    """What the program measures with ``profile``: (defines, total cycles) for each run."""
    (tmp_path / "dmas.asm").write_text(DMAS)
    ev = calibrate.Evaluator([])
    out = []
    for defines in runs:
        m = calibrate.Measurement(0, "m", (tmp_path / "dmas.asm").resolve(), "total", 1.0, defines, None, None,
                                  "", "", False)
        out.append(ev.value(m, profile))
    return out


def write_file(tmp_path, fit, entries) -> str:
    lines = [f"fit = {fit!r}".replace("'", '"')]
    for e in entries:
        lines.append("[[measurement]]")
        lines += [f"{k} = {v}" for k, v in e.items()]
    path = tmp_path / "m.toml"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_a_known_setup_cost_is_recovered(tmp_path):
    a2 = load_profile("a2")
    truth = calibrate.with_values(a2, [calibrate.Parameter("dma.gm2ub_setup", ("dma", "gm2ub_setup"), None)],
                                  [237])
    runs = [{"K": 1}, {"K": 3}, {"K": 6}]
    measured = measure(tmp_path, truth, runs)
    assert measured[2] - measured[1] > 3 * 237      # the fixed cost is paid per DMA
    path = write_file(tmp_path, ["dma.gm2ub_setup"],
                      [{"program": '"dmas.asm"', "defines": f"{{ K = {r['K']} }}", "measured": v}
                       for r, v in zip(runs, measured, strict=True)])
    r = CliRunner().invoke(main, ["calibrate", path, "--profile", "a2", "-o", str(tmp_path / "fitted.toml")])
    assert r.exit_code == 0, r.output
    start = a2["dma"]["gm2ub_setup"]  # the built-in profile's, where the fit starts
    assert start != 237 and f"fitted dma.gm2ub_setup: {start} -> 237" in r.output, r.output
    assert "after the fit: mean 0.0%, worst 0.0%" in r.output, r.output
    text = (tmp_path / "fitted.toml").read_text()
    fitted = parse_profile(text, "fitted")
    assert fitted["dma"]["gm2ub_setup"] == 237
    assert "gm2ub_setup = 237         # fixed cycles of a GM -> UB copy" in text     # the comment is kept
    assert f"(fitted: {start} -> 237, m.toml)" in text
    assert tomllib.loads(text)["dma"]["ub2gm_setup"] == a2["dma"]["ub2gm_setup"]   # the rest unchanged


def test_difference_and_ratio_and_an_undetermined_parameter(tmp_path):
    a2 = load_profile("a2")
    one, four = measure(tmp_path, a2, [{"K": 1}, {"K": 4}])
    path = write_file(tmp_path, ["dma.gm2ub_setup", "dma.ub2gm_setup"], [
        {"program": '"dmas.asm"', "defines": "{ K = 4 }", "minus": "{ K = 1 }", "quantity": '"difference"',
         "measured": four - one},
        {"program": '"dmas.asm"', "defines": "{ K = 4 }", "minus": "{ K = 1 }", "quantity": '"ratio"',
         "measured": four / one, "held_out": "true"},
    ])
    r = CliRunner().invoke(main, ["calibrate", path, "--profile", "a2"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert any(line.startswith("dmas K=4") and "difference" in line and "+0.0%" in line for line in lines), r.output
    assert any("(held out)" in line and "ratio" in line for line in lines), r.output
    # no DMA out: nothing moves with the UB -> GM setup
    assert "cannot determine dma.ub2gm_setup: no measurement changes with it" in r.output


@pytest.mark.parametrize(("text", "message"), [
    ("fit = 3\n[[measurement]]\nprogram = 'a.asm'\nmeasured = 1\n", "fit must be a list"),
    ("fit = ['nosuch.key']\n[[measurement]]\nprogram = 'a.asm'\nmeasured = 1\n", "has no parameter 'nosuch.key'"),
    ("fit = []\n", "no [[measurement]] tables"),
    ("[[measurement]]\nprogram = 'a.asm'\nmeasured = -1\n", "measured must be a positive number"),
    ("[[measurement]]\nprogram = 'a.asm'\nmeasured = 1\nquantity = 'difference'\n", "needs minus ="),
    ("[[measurement]]\nprogram = 'a.asm'\nmeasured = 1\nquantity = 'speed'\n", "quantity 'speed' is not one of"),
    ("[[measurement]]\nprogram = 'missing.asm'\nmeasured = 1\n", "missing.asm"),
    ("[[measurement]]\nprogram = 'a.asm'\nmeasured = 1\ncolour = 2\n", "unknown key 'colour'"),
    ("fit = [\n", "malformed TOML"),
])
def test_bad_files_are_one_clear_message(tmp_path, text, message):
    (tmp_path / "a.asm").write_text("HALT\n")
    (tmp_path / "m.toml").write_text(text)
    r = CliRunner().invoke(main, ["calibrate", str(tmp_path / "m.toml"), "--profile", "a2"])
    assert r.exit_code == 2 and message in r.output and "Traceback" not in r.output, r.output


PROFILE_TEXT = """\
# a profile's shapes, written by hand
[dma]
gm2ub_setup = 211         # fixed cycles (measured) (fitted: 217 -> 211, an earlier fit)
bare = 5
[tensor]                  # a table with a comment
sustained = [1.0, 1.0]  # exp, [16-bit, 32-bit] (assumed)
[register]
reduce_latency = { SUM = 22, MAX = 16 }  # VREDUCE.O: traces (VCADD 22,
                          # VCMAX 16)
after = 1                 # untouched
"""


def test_the_fitted_text_changes_only_the_fitted_values_and_their_notes():
    # (issue 33, item 6: written with tomlkit, format-preserving) a plain key, an element of a list, a key
    # of an inline table, a key with no comment; every other byte stays as it was, comments and alignment too
    params = [calibrate.Parameter("dma.gm2ub_setup", ("dma", "gm2ub_setup"), None),
              calibrate.Parameter("tensor.sustained[1]", ("tensor", "sustained"), 1),
              calibrate.Parameter("register.reduce_latency.SUM", ("register", "reduce_latency", "SUM"), None),
              calibrate.Parameter("dma.bare", ("dma", "bare"), None)]
    out = calibrate.rewrite_text(PROFILE_TEXT, params, [212, 1.25, 23, 6], note="m.toml")
    assert out == """\
# a profile's shapes, written by hand
[dma]
gm2ub_setup = 212         # fixed cycles (measured) (fitted: 211 -> 212, m.toml)
bare = 6  # (fitted: 5 -> 6, m.toml)
[tensor]                  # a table with a comment
sustained = [1.0, 1.25]  # exp, [16-bit, 32-bit] (assumed) (fitted: [1.0, 1.0] -> [1.0, 1.25], m.toml)
[register]
reduce_latency = { SUM = 23, MAX = 16 }  # VREDUCE.O: traces (VCADD 22,
                          # VCMAX 16) (fitted: { SUM = 22, MAX = 16 } -> { SUM = 23, MAX = 16 }, m.toml)
after = 1                 # untouched
"""
    with pytest.raises(calibrate.CalibrateError, match=r"cannot find 'dma\.nothing' in the profile's text"):
        calibrate.rewrite_text(PROFILE_TEXT, [calibrate.Parameter("dma.nothing", ("dma", "nothing"), None)], [1])
