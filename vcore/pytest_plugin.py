"""A pytest plugin that runs ``.asm`` programs carrying their expected results inline.

Lines of a program (comments, so the program still assembles):

    ; EXPECT ub:0x2000:f16:4 = 1.0 2.0 3.0 4.0      memory after the run (gm: likewise)
    ; EXPECT ub:0x2000:f16:2 = 2.718 7.389 within 2 ulp
    ; EXPECT S1 = 5                                 a scalar register
    ; EXPECT-FAULT outside UB                       the run must fault, with this text in the message
    ; EXPECT-RACE RAW                               the run must report a race of this kind (any race
                                                    not declared so fails the program)
    ; PROFILE a2                                    run with this profile (default 950)
    ; DEFINE TILE=64                                a -D constant for the assembler (repeatable)
    ; LOAD gm:0x0 = x.npy                           copy a file (relative to the program) into
                                                    memory before the run (--load's SPACE:ADDR[:TYPE])
    ; RUN --profile a2 --strict                     run options (--profile, --strict, --max-instructions,
                                                    --cores N, --jobs J; with --cores, EXPECT ub<K>:...
                                                    reads core K's UB and EXPECT Sn core 0's register)
    ; EXPECT gm:0x1000:f32:4096 ~= golden.npy rtol=1e-4 atol=1e-5
                                                    memory against a .npy array within a tolerance
                                                    (|got - want| <= atol + rtol * |want|; NaN = NaN);
                                                    a failure names the worst element

Point it at folders with ``pytest --vcore-programs DIR`` (repeatable) or the ini option
``vcore_programs``. Float expectations are rounded to the element type first and compared bit for
bit (``nan`` matches any NaN), unless ``within N ulp`` is given.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

_EXPECT = re.compile(r"^\s*(?:;|//)\s*EXPECT\s+(?P<what>\S+)\s*=\s*(?P<values>.*?)"
                     r"(?:\s+within\s+(?P<ulp>\d+)\s+ulp)?\s*$", re.IGNORECASE)
_FAULT = re.compile(r"^\s*(?:;|//)\s*EXPECT-FAULT\s+(?P<text>.+?)\s*$", re.IGNORECASE)
_RACE = re.compile(r"^\s*(?:;|//)\s*EXPECT-RACE\s+(?P<kind>RAW|WAR|WAW)\s*$", re.IGNORECASE)
_CLOSE = re.compile(r"^\s*(?:;|//)\s*EXPECT\s+(?P<what>\S+)\s*~=\s*(?P<file>\S+)(?P<tolerances>(?:\s+\w+=\S+)*)\s*$",
                    re.IGNORECASE)


def pytest_addoption(parser) -> None:
    group = parser.getgroup("vcore")
    group.addoption("--vcore-programs", action="append", default=[], metavar="DIR",
                    help="collect .asm programs with inline EXPECT lines from DIR")
    parser.addini("vcore_programs", "folders of .asm programs with inline EXPECT lines", type="paths", default=[])


def _folders(config) -> list[Path]:
    return [Path(p).resolve() for p in config.getoption("vcore_programs")] + \
           [Path(p).resolve() for p in config.getini("vcore_programs")]


def pytest_collect_file(file_path: Path, parent):
    if file_path.suffix != ".asm":
        return None
    folders = _folders(parent.config)
    if any(folder == file_path.resolve().parent or folder in file_path.resolve().parents for folder in folders):
        return ProgramFile.from_parent(parent, path=file_path)
    return None


class ProgramFile(pytest.File):
    def collect(self):
        yield ProgramItem.from_parent(self, name=self.path.name)


def _ulps(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Distance in representable values between two arrays of one float dtype."""
    size = actual.dtype.itemsize
    as_int = {1: np.int8, 2: np.int16, 4: np.int32}[size]

    def ordered(a):
        bits = a.view(as_int).astype(np.int64)
        return np.where(bits < 0, -(bits & ((1 << (8 * size - 1)) - 1)), bits)

    return np.abs(ordered(actual) - ordered(expected))


class ProgramItem(pytest.Item):
    def runtest(self) -> None:
        from isa import TYPES
        from isa.values import dtype_of, float_bits
        from vcore.inline import InlineError, build, is_setup_line, read_setup
        from vcore.specs import parse_dump

        text = self.path.read_text()
        expects, faults, races, close = [], [], set(), []
        for lineno, line in enumerate(text.splitlines(), start=1):
            where = f"{self.path}:{lineno}"
            if is_setup_line(line):
                continue
            if m := _FAULT.match(line):
                faults.append(m.group("text"))
            elif m := _CLOSE.match(line):
                close.append((where, m.group("what"), m.group("file"), _tolerances(where, m.group("tolerances"))))
            elif m := _EXPECT.match(line):
                expects.append((lineno, m.group("what"), m.group("values").split(), m.group("ulp")))
            elif m := _RACE.match(line):
                races.add(m.group("kind").upper())
        if not expects and not faults and not close:
            raise ProgramFailure(f"{self.path}: no EXPECT lines")
        try:
            setup = read_setup(self.path, text)
            machine = build(setup)
        except InlineError as err:
            raise ProgramFailure(str(err)) from None
        cores = setup.cores
        result = machine.run(**setup.limits())
        if faults:
            if result.fault is None:
                raise ProgramFailure(f"{self.path}: expected a fault containing {faults[0]!r}, the run ended cleanly")
            for want in faults:
                if want not in str(result.fault):
                    raise ProgramFailure(f"{self.path}: fault {str(result.fault)!r} lacks {want!r}")
        elif result.fault is not None:
            raise ProgramFailure(f"{self.path}: unexpected fault: {result.fault}")
        found_races = machine.races()
        found = {race.kind for race in found_races}
        if found != races:
            details = "; ".join(f"{'latent ' if getattr(r, 'latent', False) else ''}{r.kind} line {r.first['line']} / "
                                f"line {r.second['line']}" for r in found_races)
            raise ProgramFailure(f"{self.path}: races {sorted(found) or 'none'} ({details or '-'}), "
                                 f"expected {sorted(races) or 'none'}")
        for lineno, what, values, ulp in expects:
            where = f"{self.path}:{lineno}"
            reg = re.fullmatch(r"[Ss](\d+)", what)
            if reg:
                got = machine.s[int(reg.group(1))]
                if len(values) != 1 or int(values[0], 0) != got:
                    raise ProgramFailure(f"{where}: {what} = {got}, expected {' '.join(values)}")
                continue
            spec = parse_dump(what)
            if len(values) != spec.count:
                raise ProgramFailure(f"{where}: {spec.count} elements named but {len(values)} values given")
            if spec.core >= (cores or 1):
                raise ProgramFailure(f"{where}: {what}: the run has {cores or 1} core(s), ub0..ub{(cores or 1) - 1}")
            etype = TYPES[spec.type]
            got = machine.read(spec.space, spec.addr, spec.type, spec.count, *((spec.core,) if cores else ()))
            if etype.is_float:
                bits = np.array([float_bits(float(v), etype) for v in values], dtype=f"<u{etype.size}")
                want = bits.view(dtype_of(etype))
                got64, want64 = got.astype(np.float64), want.astype(np.float64)
                if ulp is not None:
                    bad = ~((np.isnan(got64) & np.isnan(want64)) | (_ulps(got, want) <= int(ulp)))
                else:
                    bad = ~((np.isnan(got64) & np.isnan(want64)) | (got.view(f"<u{etype.size}") == bits))
            else:
                want = np.array([int(v, 0) for v in values]).astype(dtype_of(etype))
                bad = got != want
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ProgramFailure(f"{where}: element {i} of {what} is {got[i]}, expected {values[i]} "
                                     f"({int(bad.sum())} of {spec.count} differ)")
        for where, what, file, (rtol, atol) in close:
            _check_close(machine, where, what, self.path.parent / file, rtol, atol)

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, ProgramFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, 0, f"program {self.path.name}"


class ProgramFailure(Exception):
    """A program whose results differ from its EXPECT lines."""


def _tolerances(where: str, text: str) -> tuple[float, float]:
    found = {"rtol": 0.0, "atol": 0.0}
    for item in text.split():
        key, _, value = item.partition("=")
        if key.lower() not in found:
            raise ProgramFailure(f"{where}: EXPECT ~= takes rtol= and atol=, not '{key}'")
        try:
            found[key.lower()] = float(value)
        except ValueError:
            raise ProgramFailure(f"{where}: {key}={value} is not a number") from None
    return found["rtol"], found["atol"]


def _check_close(machine, where: str, what: str, path: Path, rtol: float, atol: float) -> None:
    """Memory against a .npy golden: every element within atol + rtol * |want| (NaN matches NaN)."""
    from vcore.specs import SpecError, parse_dump, read_load_file

    try:
        spec = parse_dump(what)
        want = np.asarray(read_load_file(str(path)))
    except SpecError as err:
        raise ProgramFailure(f"{where}: {err}") from None
    if not isinstance(want, np.ndarray) or want.size != spec.count:
        size = want.size if isinstance(want, np.ndarray) else "not a .npy array"
        raise ProgramFailure(f"{where}: {path.name} holds {size} elements, {what} names {spec.count}")
    got = machine.read(spec.space, spec.addr, spec.type, spec.count).astype(np.float64)
    want = want.reshape(-1).astype(np.float64)
    with np.errstate(invalid="ignore"):
        error = np.abs(got - want)
        allowed = atol + rtol * np.abs(want)
        bad = ~((np.isnan(got) & np.isnan(want)) | (error <= allowed))
    if bad.any():
        excess = np.where(bad, np.nan_to_num(error - allowed, nan=np.inf, posinf=np.inf), -np.inf)
        i = int(np.argmax(excess))
        raise ProgramFailure(f"{where}: {int(bad.sum())} of {spec.count} elements of {what} differ from {path.name} "
                             f"(rtol={rtol}, atol={atol}); the worst, element {i}: {float(got[i])!r}, "
                             f"expected {float(want[i])!r} "
                             f"(off by {error[i]:.6g}, allowed {allowed[i]:.6g})")
