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
                                                    --cores N, --blocks B, --jobs J; in a kernel, EXPECT
                                                    ub<K>:... reads core K's UB and EXPECT Sn core 0's
                                                    register, each as its last block left them)
    ; EXPECT gm:0x1000:f32:4096 ~= golden.npy rtol=1e-4 atol=1e-5
                                                    memory against a .npy array within a tolerance
                                                    (|got - want| <= atol + rtol * |want|; NaN = NaN);
                                                    a failure names the worst element

Point it at folders with ``pytest --vcore-programs DIR`` (repeatable) or the ini option
``vcore_programs``. Float expectations are rounded to the element type first and compared bit for
bit (``nan`` matches any NaN), unless ``within N ulp`` is given. Every EXPECT line, ``=`` and ``~=``,
reads the memory it names: ``ub<K>:`` is core K's UB (``ub:`` core 0's), and a core past the run's
is an error. A value must be one its element type holds: an integer in the type's range (s8
-128..127, u8 0..255, ... u32 0..4294967295; ``Sn`` a signed 64-bit value), a float no larger than
the type's largest finite value (``inf`` where the type has one); it is not wrapped or rounded to inf.
A line that cannot be read or done (a bad spec, value, register, file or address) fails the program
with one line, ``FILE:LINE: what is wrong`` (every such line is named, one a line); so does a line that
starts ``EXPECT`` but is none of the forms above.

A failing program tells the whole story: every EXPECT line that failed, each with its line (and a
race that was not declared, or a fault); for an array, how many elements differ, the first few
(element, got, expected, off by, allowed) and the worst, the one furthest past its allowance.

A file named on the command line (``pytest path/to/x.asm``) is collected wherever it is, as pytest
does for a test file; the folders above are where a plain ``pytest`` looks. A program's test ID is
``x.asm``; a program with several ``; RUN`` lines runs once per line, one test each, named after the
line's options (``x.asm::profile-a2``, ``x.asm::cores-8-strict``).
"""

from __future__ import annotations

import math
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
# A line meant as an EXPECT line that none of the above read: upper case EXPECT (prose such as
# "; Expected: ..." or "; expect ..." is left alone), or EXPECT- in any case.
_ANY_EXPECT = re.compile(r"^\s*(?:;|//)\s*(?:EXPECT\b|(?i:expect-))")
_REGISTER = re.compile(r"[Ss](?P<index>\d+)")
_S_REGISTERS = 32  # S0..S31
_S_RANGE = (-(1 << 63), (1 << 63) - 1)  # an S register holds a signed 64-bit value


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
    if parent.session.isinitpath(file_path) or \
            any(folder == file_path.resolve().parent or folder in file_path.resolve().parents for folder in folders):
        return ProgramFile.from_parent(parent, path=file_path)
    return None


class ProgramFile(pytest.File):
    def collect(self):
        from vcore.inline import run_lines, run_names

        try:
            runs = run_lines(_read_text(self.path))
        except ProgramFailure:  # the item says what is wrong with the file when it runs
            runs = []
        if len(runs) < 2:  # one run: the file's own ID (x.asm, not x.asm::x.asm)
            yield ProgramItem.from_parent(self, name=self.path.name, nodeid=self.nodeid)
            return
        for k, name in enumerate(run_names(runs)):
            yield ProgramItem.from_parent(self, name=name, run=k)


def _ulps(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Distance in representable values between two arrays of one float dtype."""
    size = actual.dtype.itemsize
    as_int = {1: np.int8, 2: np.int16, 4: np.int32}[size]

    def ordered(a):
        bits = a.view(as_int).astype(np.int64)
        return np.where(bits < 0, -(bits & ((1 << (8 * size - 1)) - 1)), bits)

    return np.abs(ordered(actual) - ordered(expected))


class ProgramItem(pytest.Item):
    """One run of a program: its RUN line number ``run`` (0 the first, or the only one)."""

    def __init__(self, *, run: int = 0, **kwargs) -> None:
        super().__init__(**kwargs)
        self.run = run

    def runtest(self) -> None:
        from vcore.inline import InlineError, build, read_setup

        text = _read_text(self.path)
        try:
            setup = read_setup(self.path, text, self.run)
        except InlineError as err:
            raise ProgramFailure(str(err)) from None
        checks, faults, races = _expectations(self.path, text, setup.used_cores())
        try:
            machine = build(setup)
        except InlineError as err:
            raise ProgramFailure(str(err)) from None
        result = machine.run(**setup.limits())
        problems = []
        if faults:
            if result.fault is None:
                problems.append(f"{self.path}: expected a fault containing {faults[0]!r}, the run ended cleanly")
            problems += [f"{self.path}: fault {str(result.fault)!r} lacks {want!r}" for want in faults
                         if result.fault is not None and want not in str(result.fault)]
        elif result.fault is not None:  # the EXPECT lines describe a run that ended: they are not checked
            raise ProgramFailure(f"{self.path}: unexpected fault: {result.fault}" + (
                f"\n{self.path}: {len(checks)} EXPECT line(s) not checked (the run did not end)" if checks else ""))
        found_races = machine.races()
        found = {race.kind for race in found_races}
        if found != races:
            details = "; ".join(f"{'latent ' if getattr(r, 'latent', False) else ''}{r.kind} line {r.first['line']} / "
                                f"line {r.second['line']}" for r in found_races)
            problems.append(f"{self.path}: races {sorted(found) or 'none'} ({details or '-'}), "
                            f"expected {sorted(races) or 'none'}")
        failed = [message for check in checks if (message := check(machine)) is not None]
        if failed and len(problems) + len(failed) > 1:
            problems.insert(0, f"{self.path}: {len(failed)} of {len(checks)} EXPECT lines failed")
        if problems or failed:
            raise ProgramFailure("\n".join(problems + failed))

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, ProgramFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        name = self.path.name if self.name == self.path.name else f"{self.path.name}::{self.name}"
        return self.path, 0, f"program {name}"


def _expectations(path: Path, text: str, cores: int) -> tuple[list, list, set]:
    """The program's checks (each ``check(machine)`` gives a failure's text or None), the texts its
    EXPECT-FAULT lines want and the race kinds its EXPECT-RACE lines declare; a ProgramFailure naming
    every line that cannot be read (one a line)."""
    from vcore.inline import is_setup_line

    checks, faults, races, errors = [], [], set(), []
    for lineno, line in enumerate(text.splitlines(), start=1):
        where = f"{path}:{lineno}"
        if is_setup_line(line):
            continue
        try:
            if m := _FAULT.match(line):
                faults.append(m.group("text"))
            elif m := _CLOSE.match(line):
                checks.append(_close_check(where, m.group("what"), path.parent / m.group("file"),
                                           _tolerances(where, m.group("tolerances")), cores))
            elif m := _EXPECT.match(line):
                what, values, ulp = m.group("what"), m.group("values").split(), m.group("ulp")
                if _REGISTER.fullmatch(what):
                    checks.append(_register_check(where, what, values, ulp))
                else:
                    checks.append(_memory_check(where, what, values, ulp, cores))
            elif m := _RACE.match(line):
                races.add(m.group("kind").upper())
            elif _ANY_EXPECT.match(line):
                shown = line.strip() if len(line.strip()) <= 60 else line.strip()[:57] + "..."
                raise ProgramFailure(f"{where}: not an EXPECT line: '{shown}' (the forms: EXPECT SPACE:ADDR:TYPE:COUNT "
                                     f"= V ... [within N ulp], EXPECT SPACE:ADDR:TYPE:COUNT ~= FILE.npy [rtol=R] "
                                     f"[atol=A], EXPECT Sn = V, EXPECT-FAULT TEXT, EXPECT-RACE RAW|WAR|WAW)")
        except ProgramFailure as err:
            errors.append(str(err))
    if errors:
        raise ProgramFailure("\n".join(errors))
    if not checks and not faults:
        raise ProgramFailure(f"{path}: no EXPECT lines")
    return checks, faults, races


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
        if not 0 <= found[key.lower()] < math.inf:  # NaN passes nothing, a negative bound fails everything
            raise ProgramFailure(f"{where}: {key}={value}: a tolerance is a finite number >= 0")
    return found["rtol"], found["atol"]


def _read_text(path: Path) -> str:
    """The program's text (UTF-8, a byte-order mark skipped, as the assembler reads it), read no
    further than the assembler reads a program (``assembler.preprocess.MAX_SOURCE_BYTES``)."""
    from vcore.assembler.preprocess import read_source

    try:
        data = read_source(path)
    except OSError as err:
        raise ProgramFailure(f"{path}: cannot read: {err.strerror or err}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise ProgramFailure(f"{path}:{line}: not UTF-8 text ({err.reason} at byte {err.start})") from None


def _integer(where: str, text: str, lo: int, hi: int, holder: str) -> int:
    """``text`` as an integer that ``holder`` (``s8``, ``an S register``) holds: lo..hi."""
    try:
        value = int(text, 0)
    except ValueError:
        raise ProgramFailure(f"{where}: '{text}' is not an integer ({holder} holds whole numbers {lo}..{hi})") from None
    if not lo <= value <= hi:
        raise ProgramFailure(f"{where}: {text} is outside {holder} ({lo}..{hi})")
    return value


def _float_bits(where: str, text: str, etype) -> int:
    """The bits of ``text`` rounded to the float type ``etype``; a finite value past the type's largest
    finite one (which would round to inf, or NaN in e4m3) is an error, as is inf in e4m3."""
    from vcore.isa.values import dtype_of, float_bits

    try:
        value = float(text)
    except ValueError:
        raise ProgramFailure(f"{where}: '{text}' is not a number") from None
    bits = float_bits(value, etype)
    held = float(np.array([bits], dtype=f"<u{etype.size}").view(dtype_of(etype))[0])
    written_inf = re.fullmatch(r"[+-]?inf(inity)?", text, re.IGNORECASE) is not None
    if (math.isinf(value) and not written_inf) or (math.isfinite(value) and not math.isfinite(held)):
        import ml_dtypes

        largest = float(ml_dtypes.finfo(dtype_of(etype)).max)
        raise ProgramFailure(f"{where}: {text} is too large for {etype.name} (largest finite {largest:.8g})")
    if math.isinf(value) and math.isnan(held):
        raise ProgramFailure(f"{where}: {text}: {etype.name} has no infinity")
    return bits


def _memory_spec(where: str, what: str, cores: int):
    """The memory an EXPECT line names (SPACE:ADDR:TYPE:COUNT, ub<K> a core of the run)."""
    from vcore.specs import SpecError, parse_dump

    try:
        spec = parse_dump(what)
    except SpecError as err:
        raise ProgramFailure(f"{where}: {err}") from None
    if spec.file is not None:
        raise ProgramFailure(f"{where}: an EXPECT names memory as SPACE:ADDR:TYPE:COUNT, not '{what}'")
    if spec.core >= cores:
        raise ProgramFailure(f"{where}: {what}: the run has {cores} core(s), ub0..ub{cores - 1}")
    return spec


def _read_memory(machine, where: str, spec, cores: int) -> np.ndarray:
    """The memory ``spec`` names after the run (core K's UB for ub<K>:), or a failure naming the line."""
    from vcore.emulator import Fault

    try:
        return machine.read(spec.space, spec.addr, spec.type, spec.count, *((spec.core,) if cores > 1 else ()))
    except Fault as err:
        raise ProgramFailure(f"{where}: {spec.key}: {err}") from None


def _register_check(where: str, what: str, values: list[str], ulp: str | None):
    """EXPECT Sn = V: core 0's register at the end of the run."""
    index = int(_REGISTER.fullmatch(what).group("index"))
    if index >= _S_REGISTERS:
        raise ProgramFailure(f"{where}: there is no {what} (S0..S{_S_REGISTERS - 1})")
    if len(values) != 1:
        raise ProgramFailure(f"{where}: EXPECT {what} takes one value, not {len(values)}")
    if ulp is not None:
        raise ProgramFailure(f"{where}: 'within N ulp' is for float types, and {what} holds an integer")
    want = _integer(where, values[0], *_S_RANGE, "an S register")

    def check(machine) -> str | None:
        got = machine.s[index]
        return None if got == want else f"{where}: {what} = {got}, expected {values[0]}"

    return check


def _memory_check(where: str, what: str, values: list[str], ulp: str | None, cores: int):
    """EXPECT SPACE:ADDR:TYPE:COUNT = V ...: floats bit for bit (or within N ulp), integers exactly."""
    from vcore.isa import TYPES
    from vcore.isa.values import dtype_of

    spec = _memory_spec(where, what, cores)
    if len(values) != spec.count:
        raise ProgramFailure(f"{where}: {spec.count} elements named but {len(values)} values given")
    etype = TYPES[spec.type]
    if etype.is_float:
        bits = np.array([_float_bits(where, v, etype) for v in values], dtype=f"<u{etype.size}")
        want = bits.view(dtype_of(etype))
    else:
        if ulp is not None:
            raise ProgramFailure(f"{where}: 'within N ulp' is for float types, not {spec.type}")
        lo, hi = etype.int_range()
        want = np.array([_integer(where, v, lo, hi, spec.type) for v in values], dtype=dtype_of(etype))

    def check(machine) -> str | None:
        got = _read_memory(machine, where, spec, cores)
        if etype.is_float:
            wide_got, wide_want = got.astype(np.float64), want.astype(np.float64)
            nans = np.isnan(wide_got) | np.isnan(wide_want)
            ulps = np.where(nans, 0, _ulps(got, want))
            same = ulps <= int(ulp) if ulp is not None else got.view(f"<u{etype.size}") == bits
            bad = ~((np.isnan(wide_got) & np.isnan(wide_want)) | (~nans & same))
            with np.errstate(invalid="ignore"):
                off = np.abs(wide_got - wide_want)
            # the worst: furthest past its allowance, in ulps within N ulp, in value bit for bit
            excess = np.where(nans, np.inf, ulps - int(ulp) if ulp is not None else off)
        else:
            bad = got != want
            # (the differences of 64-bit integers are exact only as Python ints: those shown are)
            excess = np.abs(got.astype(np.float64) - want.astype(np.float64))
        if not bad.any():
            return None

        def cells(i: int) -> tuple[str, str, str, str]:
            if not etype.is_float:
                return str(got[i]), values[i], str(abs(int(got[i]) - int(want[i]))), "0"
            if nans[i]:
                return str(got[i]), values[i], "nan", f"{ulp or 0} ulp"
            return str(got[i]), values[i], f"{off[i]:.6g} ({int(ulps[i])} ulp)", f"{ulp or 0} ulp"

        if bad.sum() == 1:
            i = int(np.flatnonzero(bad)[0])
            return f"{where}: element {i} of {what} is {got[i]}, expected {values[i]} (1 of {spec.count} differ)"
        how = f"within {ulp} ulp" if ulp is not None else ("bit for bit" if etype.is_float else "exactly")
        return _differences(where, f"of {what} differ ({how})", bad, excess, cells)

    return check


def _close_check(where: str, what: str, path: Path, tolerances: tuple[float, float], cores: int):
    """EXPECT SPACE:ADDR:TYPE:COUNT ~= FILE.npy: every element within atol + rtol * |want| of the
    file's (NaN matches NaN)."""
    from vcore.specs import SpecError, read_load_file

    spec = _memory_spec(where, what, cores)
    if path.suffix.lower() != ".npy":
        raise ProgramFailure(f"{where}: EXPECT ~= compares with a .npy file, not '{path.name}'")
    try:
        want = read_load_file(str(path))
    except SpecError as err:  # (any header numpy cannot read among them: vcore.specs reads it)
        raise ProgramFailure(f"{where}: {err}") from None
    if want.dtype.kind not in "biuf":
        raise ProgramFailure(f"{where}: {path.name} holds {want.dtype} values, not integers or floats")
    if want.size != spec.count:
        raise ProgramFailure(f"{where}: {path.name} holds {want.size} elements, {what} names {spec.count}")
    want = want.reshape(-1).astype(np.float64)
    rtol, atol = tolerances

    def check(machine) -> str | None:
        got = _read_memory(machine, where, spec, cores).astype(np.float64)
        with np.errstate(invalid="ignore"):
            error = np.abs(got - want)
            allowed = atol + rtol * np.abs(want)
            bad = ~((np.isnan(got) & np.isnan(want)) | (error <= allowed))
            excess = np.nan_to_num(error - allowed, nan=np.inf, posinf=np.inf)
        if not bad.any():
            return None

        def cells(i: int) -> tuple[str, str, str, str]:
            return repr(float(got[i])), repr(float(want[i])), f"{error[i]:.6g}", f"{allowed[i]:.6g}"

        return _differences(where, f"of {what} differ from {path.name} (rtol={rtol}, atol={atol})", bad, excess, cells)

    return check


_SHOWN = 5  # the differing elements a failure lists (the first few; the worst is named above them)


def _differences(where: str, what: str, bad: np.ndarray, excess: np.ndarray, cells) -> str:
    """A failure of an array: how many of its elements differ, the worst (the largest ``excess``, its
    error past its allowance) on the first line; with more than one, the first few under it, one a
    line. ``cells(i)``: element i's got, expected, off by and allowed, as shown."""
    index = np.flatnonzero(bad)
    worst = int(index[np.argmax(excess[index])])
    got, want, off, allowed = cells(worst)
    lines = [f"{where}: {index.size} of {bad.size} elements {what}; the worst, element {worst}: {got}, expected "
             f"{want} (off by {off}, allowed {allowed})"]
    if index.size > 1:
        rows = [("element", "got", "expected", "off by", "allowed")] + \
               [(str(i), *cells(int(i))) for i in index[:_SHOWN]]
        widths = [max(len(row[c]) for row in rows) for c in range(5)]
        lines += ["    " + "  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True))
                  for row in rows]
        if index.size > _SHOWN:
            lines.append(f"    ... and {index.size - _SHOWN} more")
    return "\n".join(lines)
