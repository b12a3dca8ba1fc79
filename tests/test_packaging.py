"""Packaging: every folder that ships files is a package setuptools is told about (a folder it finds
only through package-data made the first `make run` print ~30 lines of "Package 'emulator.profiles'
is absent from the packages configuration"), everything installs under the one import name vcore, a
wheel installs into a fresh environment and runs there, and `make run` installs only what running needs."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _installed_as(folder: Path) -> str:
    """The import name a folder of the repository installs as (package-dir maps isa/ to vcore.isa ...)."""
    mapping = _config()["tool"]["setuptools"]["package-dir"]
    parts = folder.relative_to(ROOT).parts
    top = next(name for name, where in mapping.items() if where == parts[0])
    return ".".join((top, *parts[1:]))


def test_every_shipped_folder_is_a_listed_package():
    setuptools = _config()["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    shipped = set()
    for top in setuptools["package-dir"].values():
        for folder in [ROOT / top, *(p for p in (ROOT / top).rglob("*") if p.is_dir())]:
            if folder.name == "__pycache__":
                continue
            if any(f.suffix in (".py", ".toml") for f in folder.iterdir() if f.is_file()):
                shipped.add(_installed_as(folder))
    assert shipped == listed, f"folders with files: {sorted(shipped)}; listed: {sorted(listed)}"
    assert set(setuptools["package-data"]) <= listed


def test_one_import_name_is_claimed():
    """Everything installs under vcore: no generic top-level name (isa, emulator, assembler) of its own."""
    setuptools = _config()["tool"]["setuptools"]
    assert {name.split(".")[0] for name in setuptools["packages"]} == {"vcore"}
    assert _config()["project"]["name"] == "vcore-emulator"


def test_the_profiles_are_package_data():
    data = _config()["tool"]["setuptools"]["package-data"]
    profiles = sorted(p.name for p in (ROOT / "emulator" / "profiles").glob("*.toml"))
    assert profiles == ["950.toml", "a2.toml"]
    assert data["vcore.emulator.profiles"] == ["*.toml"]


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


def test_a_wheel_installs_into_a_fresh_environment_and_runs(tmp_path):
    """The wheel holds vcore alone (with its sub-packages and the profiles); in a fresh virtual
    environment, outside the checkout, `import vcore`, `vcore --version` and a run work. The fresh
    environment takes numpy and the other dependencies from this one's site-packages."""
    import site
    import subprocess
    import sys
    import sysconfig
    import zipfile

    import vcore

    wheels = tmp_path / "wheels"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet",
                            "-w", str(wheels), str(ROOT)], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("*.whl")
    assert wheel.name.startswith(f"vcore_emulator-{vcore.__version__}-")
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names} == {"vcore", f"vcore_emulator-{vcore.__version__}.dist-info"}
    assert "vcore/emulator/profiles/950.toml" in names and "vcore/isa/table.py" in names
    assert any(n.endswith("licenses/LICENSE") for n in names)

    env_dir = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True, timeout=120)
    python = env_dir / "bin" / "python"
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                                "--no-index", "--quiet", str(wheel)], capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stderr
    fresh_site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                     capture_output=True, text=True, check=True).stdout.strip())
    tops = {p.name for p in fresh_site.iterdir()} - {"__pycache__", "_virtualenv.pth", "_virtualenv.py"}
    assert tops == {"vcore", f"vcore_emulator-{vcore.__version__}.dist-info"}, tops

    # The dependencies, from this environment: its site-packages after the fresh one's (a .pth file).
    deps = [p for p in (*site.getsitepackages(), sysconfig.get_paths()["purelib"]) if Path(p).is_dir()]
    (fresh_site / "zz_dependencies.pth").write_text("\n".join(deps) + "\n")
    program = tmp_path / "p.asm"
    program.write_text("    VADDS.f32 [0x100], [0x0], 1.0\n    HALT\n")
    code = ("import vcore, vcore.emulator, vcore.isa, vcore.assembler, sys\n"
            "assert vcore.__file__.startswith(sys.argv[1]), vcore.__file__\n"
            "assert vcore.emulator.__file__.startswith(sys.argv[1]), vcore.emulator.__file__\n"
            "assert 'emulator' not in sys.modules and 'isa' not in sys.modules\n"
            "print(vcore.__version__)\n")
    ran = subprocess.run([str(python), "-c", code, str(fresh_site)], capture_output=True, text=True, cwd=tmp_path,
                         timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == vcore.__version__
    cli = env_dir / "bin" / "vcore"
    version = subprocess.run([str(cli), "--version"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert version.returncode == 0 and version.stdout.strip() == f"vcore, version {vcore.__version__}", version
    run = subprocess.run([str(cli), "run", str(program)], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert run.returncode == 0 and "profile 950:" in run.stdout, run.stderr
