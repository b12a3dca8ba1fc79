"""python -m benchmarks.calibration [--fit] [--write docs/timing.md]"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from vcore import calibrate
from vcore.emulator import load_profile
from vcore.progress import Progress

HERE = Path(__file__).resolve().parent
PROFILES = ("a2", "950")
START, END = "<!-- calibration table: make docs -->", "<!-- end of the calibration table -->"


def evaluate(name: str, progress: Progress | None = None):
    params, items = calibrate.read_file(HERE / f"{name}.toml")
    return params, items, calibrate.Evaluator(items, progress).values(load_profile(name))


def row(line: str) -> None:
    print(line, flush=True)  # at once, into a pipe or a file too


def markdown() -> str:
    """The table docs/timing.md carries: each measurement, its source, measured, model, error."""
    lines = ["| profile | measurement | quantity | measured | vcore | error | source |",
             "|---|---|---|---|---|---|---|"]
    for name in PROFILES:
        _, items, model = evaluate(name, Progress.for_stderr())
        for m, v in zip(items, model, strict=True):
            err = calibrate.errors(v, m.measured) * 100
            mark = " (held out)" if m.held_out else ""
            lines.append(f"| {name} | {m.name}{mark} | {m.quantity} | {calibrate.figure(m.measured)} | "
                         f"{calibrate.figure(v)} | {err:+.1f}% | {m.source} |")
    return "\n".join(lines) + "\n"


def write(path: Path) -> None:
    text = path.read_text()
    pattern = re.compile(re.escape(START) + r".*?" + re.escape(END), re.DOTALL)
    if not pattern.search(text):
        raise SystemExit(f"{path}: no {START} ... {END} block")
    path.write_text(pattern.sub(lambda _: f"{START}\n{markdown()}{END}", text))


def main(argv: list[str]) -> int:
    if argv[:1] == ["--write"] and len(argv) == 2:
        write(Path(argv[1]))
        return 0
    for name in PROFILES:
        params, items = calibrate.read_file(HERE / f"{name}.toml")
        row(f"profile {name} ({HERE.name}/{name}.toml)")
        # each row as soon as its entry has run; on a terminal, the entry being run on stderr
        evaluator = calibrate.Evaluator(items, Progress.for_stderr())
        evaluator.prepare()
        model = calibrate.stream_table(evaluator, load_profile(name), row)
        if "--fit" in argv:
            result = calibrate.fit(load_profile(name), params, items, evaluator, before=model)
            print(calibrate.table(items, result.before, result.after), end="")
            for p, old, new in zip(result.params, result.start, result.values, strict=True):
                print(f"fitted {p.text}: {old:g} -> {new:g}")
            for names, why in result.undetermined:
                print(f"cannot determine {names}: {why}")
            target = Path(__file__).resolve().parents[2] / "emulator" / "profiles" / f"{name}.toml"
            source = f"make calibrate FIT=1, benchmarks/calibration/{name}.toml"
            target.write_text(calibrate.fitted_text(result, source))
            print(f"wrote {target}")
        row("")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
