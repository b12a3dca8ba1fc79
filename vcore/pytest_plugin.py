"""A pytest plugin that runs ``.asm`` programs carrying their expected results inline.

Lines of a program (comments, so the program still assembles):

    ; EXPECT ub:0x2000:f16:4 = 1.0 2.0 3.0 4.0      memory after the run (gm: likewise)
    ; EXPECT ub:0x2000:f16:2 = 2.718 7.389 within 2 ulp
    ; EXPECT S1 = 5                                 a scalar register
    ; EXPECT-FAULT outside UB                       the run must fault, with this text in the message
    ; EXPECT-RACE RAW                               the run must report a race of this kind (any race
                                                    not declared so fails the program)
    ; PROFILE a2                                    run with this profile (default 950)

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
_PROFILE = re.compile(r"^\s*(?:;|//)\s*PROFILE\s+(?P<name>\S+)\s*$", re.IGNORECASE)


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
        from emulator import Machine, ProgramError
        from isa import TYPES
        from isa.values import dtype_of, float_bits
        from vcore.loading import read_program_file
        from vcore.specs import parse_dump

        text = self.path.read_text()
        expects, faults, races, profile = [], [], set(), "950"
        for lineno, line in enumerate(text.splitlines(), start=1):
            if m := _FAULT.match(line):
                faults.append(m.group("text"))
            elif m := _EXPECT.match(line):
                expects.append((lineno, m.group("what"), m.group("values").split(), m.group("ulp")))
            elif m := _RACE.match(line):
                races.add(m.group("kind").upper())
            elif m := _PROFILE.match(line):
                profile = m.group("name")
        if not expects and not faults:
            raise ProgramFailure(f"{self.path}: no EXPECT lines")
        try:
            machine = Machine(read_program_file(self.path), profile)
        except ProgramError as err:  # e.g. register instructions on a2: refused before the run
            raise ProgramFailure(str(err)) from None
        result = machine.run()
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
            details = "; ".join(f"{r.kind} line {r.first['line']} / line {r.second['line']}" for r in found_races)
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
            etype = TYPES[spec.type]
            got = machine.read(spec.space, spec.addr, spec.type, spec.count)
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

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, ProgramFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, 0, f"program {self.path.name}"


class ProgramFailure(Exception):
    """A program whose results differ from its EXPECT lines."""
