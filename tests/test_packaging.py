"""Packaging: every folder that ships files is a package setuptools is told about (a folder it finds
only through package-data made the first `make run` print ~30 lines of "Package 'emulator.profiles'
is absent from the packages configuration"), and `make run` installs only what running needs."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_every_shipped_folder_is_a_listed_package():
    setuptools = _config()["tool"]["setuptools"]
    listed = set(setuptools["packages"]["find"]["include"])
    tops = {name.split(".")[0] for name in listed}
    shipped = set()
    for top in tops:
        for folder in [ROOT / top, *(p for p in (ROOT / top).rglob("*") if p.is_dir())]:
            if folder.name == "__pycache__":
                continue
            if any(f.suffix in (".py", ".toml") for f in folder.iterdir() if f.is_file()):
                shipped.add(".".join(folder.relative_to(ROOT).parts))
    assert shipped == listed, f"folders with files: {sorted(shipped)}; listed: {sorted(listed)}"
    assert set(setuptools["package-data"]) <= listed


def test_the_profiles_are_package_data():
    data = _config()["tool"]["setuptools"]["package-data"]
    profiles = sorted(p.name for p in (ROOT / "emulator" / "profiles").glob("*.toml"))
    assert profiles == ["950.toml", "a2.toml"]
    assert data["emulator.profiles"] == ["*.toml"]


def test_make_run_installs_no_test_tools():
    makefile = (ROOT / "Makefile").read_text()
    recipes = dict(re.findall(r"^(\S+):[^\n]*\n((?:\t[^\n]*\n)+)", makefile, re.MULTILINE))
    run_setup = recipes["$(RUN_STAMP)"]
    assert "pip install --quiet -e ." in run_setup and "[test]" not in run_setup
    assert re.search(r"^run: \$\(RUN_STAMP\)$", makefile, re.MULTILINE)
    assert re.search(r"^test: \$\(TEST_STAMP\)$", makefile, re.MULTILINE)
    assert "'.[test]'" in recipes["$(TEST_STAMP)"]


def test_every_dependency_says_why_it_is_there():
    # (issue 33, item 6) a comment on the requirement's line, or on the lines just above it (a comment that
    # opens a group of extras, or a one-line extra's), for the dependencies and every extra
    lines = (ROOT / "pyproject.toml").read_text().splitlines()
    config = _config()["project"]
    wanted = [*config["dependencies"], *(r for extra in config["optional-dependencies"].values() for r in extra)]
    for requirement in wanted:
        at = next(i for i, line in enumerate(lines) if f'"{requirement}"' in line)
        above = lines[at - 1].strip()
        assert "#" in lines[at] or above.startswith("#") or (above.endswith("[") and lines[at - 2].strip().startswith(
            "#")), f"pyproject.toml: say why {requirement} is there (a comment on its line or above it)"
