"""`vcore sweep` when things go wrong around the runs: a sweep over profiles alone still plots."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from vcore import sweep as sweep_module
from vcore.cli import main

# N passes of ADD and BLT (1 cycle each on S in both profiles) after MOV, then HALT: 2N + 2 cycles.
PROGRAM = """\
.equ N, 1
    MOV S1, 0
loop:
    ADD S1, S1, 1
    BLT S1, N, loop
    HALT
"""


def sweep(tmp_path, *args):
    path = tmp_path / "loop.asm"
    path.write_text(PROGRAM)
    return CliRunner().invoke(main, ["sweep", str(path), *args], catch_exceptions=False)


def test_a_sweep_over_profiles_alone_plots_a_bar_per_profile(tmp_path):
    pytest.importorskip("matplotlib")
    r = sweep(tmp_path, "--profile", "950,a2", "--plot", str(tmp_path / "p.png"))
    assert r.exit_code == 0, r.output
    png = (tmp_path / "p.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000


def test_plot_of_profiles_draws_one_bar_each(monkeypatch):
    """The plot's own content: one bar per profile, its height the run's cycles, a failed run none."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    drawn = {}
    monkeypatch.setattr(plt.Figure, "savefig", lambda self, *a, **k: drawn.setdefault("figure", self))
    monkeypatch.setattr(plt, "close", lambda *a: None)
    rows = [{"profile": "950", "total_cycles": 104}, {"profile": "a2", "total_cycles": 90},
            {"profile": "mine.toml", "total_cycles": None}]
    sweep_module.plot(rows, [], "unused.png")
    axes = drawn["figure"].axes[0]
    assert [round(bar.get_height()) for bar in axes.patches] == [104, 90, 0]
    assert [t.get_text() for t in axes.get_xticklabels()] == ["950", "a2", "mine.toml"]
