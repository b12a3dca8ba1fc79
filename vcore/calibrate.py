"""``vcore calibrate``: fit profile parameters to measured cycles (CONTRACT section 10).

A measurements file (TOML) names the parameters to fit and the measurements::

    fit = ["register.vf_launch", "tensor.startup"]    # as `vcore profile show` names them;
                                                      # a list element is "tensor.sustained_fma[1]"
    [[measurement]]
    program = "kernels/add.asm"     # relative to this file
    defines = { TILE = 64 }         # optional: -D values for this run
    cores = 8                       # optional
    quantity = "total"              # total cycles of the run
    measured = 12345.0

Quantities: ``total`` (total cycles), ``difference`` (total with ``defines`` minus total with
``minus``), ``ratio`` (the same two, divided), and ``busy_S``/``busy_V``/``busy_MTE2``/``busy_MTE3``
(a pipe's busy cycles, summed over cores). Optional keys a measurement may carry for the reader:
``name``, ``source`` (where the figure comes from), ``reading`` (how it was turned into cycles)
and ``held_out = true`` (shown, never fitted: a check of the model).

The fit is bounded least squares (scipy's trust-region reflective method) over the relative errors,
each parameter kept positive (a whole-number parameter stays whole: its Jacobian is taken with steps
of at least one). After it, a parameter whose column of the Jacobian is (nearly) zero or a
combination of the others is reported as one the data cannot determine.

The command prints each row of the model's table as soon as its entry has run (``stream_table``),
then, after a fit, the table with the fitted columns; when stderr is a terminal, its progress line
(vcore.progress, as ``vcore run`` uses) names the entry being run: "entry k of n: NAME".
"""

from __future__ import annotations

import copy
import json
import math
import re
import tomllib
from pathlib import Path

import numpy as np
from attrs import frozen

from vcore.assembler import AsmError
from vcore.emulator import ProfileError, ProgramError
from vcore.emulator.kernel.cores import load
from vcore.emulator.kernel.launch import LaunchError
from vcore.emulator.profiles.profile import Profile, check_table, parse_profile
from vcore.loading import LoadError, read_program_file

QUANTITIES = ("total", "difference", "ratio", "busy_S", "busy_V", "busy_MTE2", "busy_MTE3")
_KEYS = {"program", "defines", "minus", "cores", "quantity", "measured", "name", "source", "reading", "held_out"}
_PARAM = re.compile(r"^(?P<path>[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+)(?:\[(?P<index>\d+)\])?$")


class CalibrateError(Exception):
    """A measurements file that cannot be read, or a measurement that cannot be run (with its place)."""


@frozen
class Measurement:
    index: int
    name: str
    program: Path
    quantity: str
    measured: float
    defines: dict
    minus: dict | None
    cores: int | None
    source: str
    reading: str
    held_out: bool


@frozen
class Parameter:
    text: str
    path: tuple[str, ...]
    index: int | None


def _where(path: Path, i: int) -> str:
    return f"{path}: measurement {i + 1}"


def _shown(value) -> str:
    """A TOML value as the file writes it (for messages): 5, "8", true, [1, 2], 1979-05-27."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str):
        text = json.dumps(value)
    elif isinstance(value, list):
        text = "[" + ", ".join(_shown(v) for v in value) + "]"
    elif isinstance(value, dict):
        text = "{ " + ", ".join(f"{k} = {_shown(v)}" for k, v in value.items()) + " }"
    else:
        text = value.isoformat() if hasattr(value, "isoformat") else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def read_file(path: str | Path) -> tuple[list[Parameter], list[Measurement]]:
    """The parameters to fit and the measurements of a measurements file, every field's type checked
    (a CalibrateError names the file, the measurement by number, and the field)."""
    path = Path(path)
    try:
        table = tomllib.loads(path.read_text())
    except OSError as err:
        raise CalibrateError(f"{path}: cannot read: {err.strerror or err}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise CalibrateError(f"{path}: malformed TOML: {err}") from None
    unknown = set(table) - {"fit", "measurement"}
    if unknown:
        raise CalibrateError(f"{path}: unknown key '{sorted(unknown)[0]}' (a file has fit = [...] and "
                             f"[[measurement]] tables)")
    fit = table.get("fit", [])
    if not isinstance(fit, list):
        raise CalibrateError(f"{path}: fit must be a list of parameter names, like [\"tensor.startup\"], "
                             f"not {_shown(fit)}")
    params = []
    for n, text in enumerate(fit, start=1):
        if not isinstance(text, str):
            raise CalibrateError(f"{path}: fit: element {n} must be a parameter name (a string, like "
                                 f"\"tensor.startup\"), not {_shown(text)}")
        m = _PARAM.match(text)
        if not m:
            raise CalibrateError(f"{path}: fit: '{text}' is not a parameter name (SECTION.KEY or SECTION.KEY[i])")
        params.append(Parameter(text, tuple(m.group("path").split(".")),
                                None if m.group("index") is None else int(m.group("index"))))
    entries = table.get("measurement", [])
    if not isinstance(entries, list):
        raise CalibrateError(f"{path}: measurement must be [[measurement]] tables (an array of tables), "
                             f"not {_shown(entries)}")
    if not entries:
        raise CalibrateError(f"{path}: no [[measurement]] tables")
    measurements = [_measurement(path, i, e) for i, e in enumerate(entries)]
    return params, measurements


def _check_types(where: str, entry: dict) -> None:
    """Each field of a measurement has its type (the message names the field and the value)."""
    def wrong(key: str, wanted: str) -> CalibrateError:
        return CalibrateError(f"{where}: {key} must be {wanted}, not {_shown(entry[key])}")

    program = entry["program"]
    if not isinstance(program, str) or not program.strip():
        raise wrong("program", "a file name (a string, relative to this file)")
    measured = entry["measured"]
    if isinstance(measured, bool) or not isinstance(measured, int | float) or not 0 < measured < math.inf:
        raise wrong("measured", "a positive number (cycles, or a ratio)")
    if "quantity" in entry and not isinstance(entry["quantity"], str):
        raise wrong("quantity", f"one of {', '.join(QUANTITIES)} (a string)")
    for key in ("defines", "minus"):
        value = entry.get(key, {})
        if not isinstance(value, dict):
            raise wrong(key, "a table of whole numbers, like { TILE = 64 }")
        for name, v in value.items():
            if not _is_whole(v):
                raise CalibrateError(f"{where}: {key}: {name} must be a whole number, like {{ {name} = 64 }}, "
                                     f"not {_shown(v)}")
    if "cores" in entry and not (_is_whole(entry["cores"]) and 1 <= entry["cores"] <= 64):
        raise wrong("cores", "a whole number 1..64")
    for key in ("name", "source", "reading"):
        if key in entry and not isinstance(entry[key], str):
            raise wrong(key, "a string")
    if "held_out" in entry and not isinstance(entry["held_out"], bool):
        raise wrong("held_out", "true or false")


def _measurement(path: Path, i: int, entry: dict) -> Measurement:
    where = _where(path, i)
    if not isinstance(entry, dict):
        raise CalibrateError(f"{where} must be a table ([[measurement]] with program = ... and measured = ...), "
                             f"not {_shown(entry)}")
    unknown = set(entry) - _KEYS
    if unknown:
        raise CalibrateError(f"{where}: unknown key '{sorted(unknown)[0]}' (keys: {', '.join(sorted(_KEYS))})")
    for key in ("program", "measured"):
        if key not in entry:
            raise CalibrateError(f"{where}: missing '{key}'")
    _check_types(where, entry)
    quantity = entry.get("quantity", "total")
    if quantity not in QUANTITIES:
        raise CalibrateError(f"{where}: quantity '{quantity}' is not one of {', '.join(QUANTITIES)}")
    minus = entry.get("minus")
    if quantity in ("difference", "ratio") and minus is None:
        raise CalibrateError(f"{where}: quantity '{quantity}' needs minus = {{ NAME = VALUE }} (the second run)")
    program = (path.parent / entry["program"]).resolve()
    shown = " ".join([Path(entry["program"]).stem, *(f"{k}={v}" for k, v in entry.get("defines", {}).items())])
    return Measurement(i, entry.get("name", shown), program, quantity, float(entry["measured"]),
                       dict(entry.get("defines", {})), None if minus is None else dict(minus), entry.get("cores"),
                       entry.get("source", ""), entry.get("reading", ""), entry.get("held_out", False))


# -- parameters ---------------------------------------------------------------------------------

def get_value(profile: Profile, p: Parameter) -> float:
    node = profile.table
    try:
        for key in p.path:
            node = node[key]
        if p.index is not None:
            node = node[p.index]
    except (KeyError, IndexError, TypeError):
        raise CalibrateError(f"fit: profile {profile.name} has no parameter '{p.text}'") from None
    if isinstance(node, bool) or not isinstance(node, int | float):
        raise CalibrateError(f"fit: '{p.text}' is not a number in profile {profile.name}")
    return node


def is_whole(profile: Profile, p: Parameter) -> bool:
    return isinstance(get_value(profile, p), int)


def with_values(profile: Profile, params: list[Parameter], values) -> Profile:
    """A copy of the profile with the parameters set (whole-number ones rounded)."""
    table = copy.deepcopy(profile.table)
    for p, value in zip(params, values, strict=True):
        whole = is_whole(profile, p)
        node = table
        for key in p.path[:-1]:
            node = node[key]
        if p.index is None:
            node[p.path[-1]] = round(float(value)) if whole else float(value)
        else:
            node[p.path[-1]][p.index] = round(float(value)) if whole else float(value)
    check_table(table, f"profile {profile.name} with {', '.join(p.text for p in params)} fitted")
    return Profile(profile.name, table, profile.source_text)


def rewrite_text(text: str, params: list[Parameter], values, note: str = "") -> str:
    """The profile's TOML text with each parameter's value replaced in place, every other byte kept
    (tomlkit edits the document format-preserving). With ``note``, the comment of the parameter's line
    (that line's and the indented comment lines under it) ends with ``(fitted: OLD -> NEW, note)``, in
    place of an earlier such note; OLD and NEW are the line's value as written (a whole list, or
    inline table, for one of its elements)."""
    import tomlkit  # noqa: PLC0415  (only -o and make calibrate FIT=1 write a profile)

    doc = tomlkit.parse(text)
    for p, value in zip(params, values, strict=True):
        shown = tomlkit.value(f"{value:g}" if isinstance(value, float) else str(value))
        holder, key, node = doc, p.path[0], doc  # (the table whose line holds the value, and its key there)
        try:
            for name in p.path[:-1]:
                node = node[name]
                if not isinstance(node, tomlkit.items.InlineTable):
                    holder, key = node, None
                elif key is None:
                    key = name
            key = key or p.path[-1]
            old = holder[key].as_string()
            if p.index is None:
                node[p.path[-1]] = shown
            else:
                node[p.path[-1]][p.index] = shown
        except (KeyError, IndexError, TypeError):
            raise CalibrateError(f"cannot find '{p.text}' in the profile's text") from None
        if note:
            _note(holder, key, f"(fitted: {old} -> {holder[key].as_string()}, {note})")
    return tomlkit.dumps(doc)


_FITTED = re.compile(r" ?\(fitted: [^()]*(\([^()]*\)[^()]*)*\)")


def _note(table, key: str, note: str) -> None:
    """End the comment of ``key``'s line in ``table`` (and the indented comment lines under it) with
    ``note``, an earlier ``(fitted: ...)`` taken out."""
    import tomlkit  # noqa: PLC0415

    body = (table.value if isinstance(table, tomlkit.items.Table) else table).body
    at = next(i for i, (k, _) in enumerate(body) if k is not None and k.key == key)
    block = [body[at][1]]
    for k, item in body[at + 1:]:
        if k is not None or not isinstance(item, tomlkit.items.Comment) or not item.trivia.indent:
            break
        block.append(item)
    for item in block:
        item.trivia.comment = _FITTED.sub("", item.trivia.comment)
    last = block[-1].trivia
    if last.comment:
        last.comment += f" {note}"
    else:
        last.comment, last.comment_ws = f"# {note}", last.comment_ws or "  "


# -- running ------------------------------------------------------------------------------------

class Evaluator:
    """Runs the measurements' programs under a profile; programs are assembled once. With a
    ``progress`` (a vcore.progress.Progress: a terminal's), each entry is named on its progress line
    as it starts ("entry k of n: NAME")."""

    def __init__(self, measurements: list[Measurement], progress=None) -> None:
        self.measurements = measurements
        self.progress = progress
        self._programs: dict = {}

    def _program(self, m: Measurement, defines: dict):
        key = (m.program, tuple(sorted(defines.items())))
        if key not in self._programs:
            try:
                self._programs[key] = read_program_file(m.program, defines)
            except (AsmError, LoadError) as err:
                raise CalibrateError(f"{_where(Path(m.program.name), m.index)} ({m.name}): "
                                     f"{str(err).splitlines()[0]}") from None
        return self._programs[key]

    def prepare(self) -> None:
        """Assemble every measurement's programs (both runs of a difference or a ratio), so that a
        missing or bad program is a CalibrateError before anything runs."""
        for m in self.measurements:
            self._program(m, m.defines)
            if m.minus is not None:
                self._program(m, {**m.defines, **m.minus})

    def _run(self, m: Measurement, defines: dict, profile: Profile):
        program = self._program(m, defines)
        try:
            machine = load(program, profile, m.cores, jobs=1)
            result = machine.run()
        except (ProgramError, ProfileError, LaunchError) as err:  # (cores = 64 on the a2's 48)
            raise CalibrateError(f"{m.name}: {str(err).splitlines()[0]}") from None
        if result.fault is not None:
            raise CalibrateError(f"{m.name}: the run faulted: {str(result.fault).splitlines()[0]}")
        return machine.report()

    def value(self, m: Measurement, profile: Profile) -> float:
        report = self._run(m, m.defines, profile)
        if m.quantity.startswith("busy_"):
            return float(report.pipes[m.quantity.removeprefix("busy_")].busy_cycles)
        total = float(report.total_cycles)
        if m.quantity == "total":
            return total
        other = float(self._run(m, {**m.defines, **m.minus}, profile).total_cycles)
        return total - other if m.quantity == "difference" else total / other

    def each(self, profile: Profile, which=None, label: str = ""):
        """Each measurement (all, or those of ``which``) with its value, run one at a time, in order.
        The progress line names the entry while it runs (after ``label``) and is erased before the
        entry is yielded, so that what the caller prints starts on a clean line."""
        chosen = self.measurements if which is None else which
        for k, m in enumerate(chosen, start=1):
            if self.progress is not None:
                self.progress.step(f"{label}entry {k} of {len(chosen)}: {m.name}")
            try:
                value = self.value(m, profile)
            finally:
                if self.progress is not None:
                    self.progress.close()
            yield m, value

    def values(self, profile: Profile, which=None, label: str = "") -> np.ndarray:
        return np.array([v for _, v in self.each(profile, which, label)])


# -- fitting ------------------------------------------------------------------------------------

@frozen
class Fit:
    params: list
    start: list
    values: list
    before: np.ndarray          # model before the fit, per measurement
    after: np.ndarray           # after
    undetermined: list          # (parameter text, why)
    profile: Profile


def errors(model: np.ndarray, measured: np.ndarray) -> np.ndarray:
    """Relative error of the model, per measurement (0.1 = 10% over)."""
    return model / measured - 1.0


def fit(profile: Profile, params: list[Parameter], measurements: list[Measurement],
        evaluator: Evaluator | None = None, max_evaluations: int = 40, before: np.ndarray | None = None) -> Fit:
    """Least squares over the relative errors of the measurements that are not held out. ``before``:
    the model's values with ``profile`` when the caller has them already (they are not run again)."""
    evaluator = evaluator or Evaluator(measurements)
    used = [m for m in measurements if not m.held_out]
    measured = np.array([m.measured for m in used])
    start = [get_value(profile, p) for p in params]
    whole = [is_whole(profile, p) for p in params]
    if before is None:
        before = evaluator.values(profile)
    if not params or not used:
        return Fit(params, start, start, before, before, [], profile)
    from scipy.optimize import least_squares  # noqa: PLC0415  (an optional extra: the fit extra)

    def key_of(x) -> tuple:
        return tuple(round(float(v)) if w else round(float(v), 9) for v, w in zip(x, whole, strict=True))

    # the start is what ``before`` ran: its residuals need no second run
    cache: dict = {key_of(start): errors(before[[not m.held_out for m in measurements]], measured)}

    def residuals(x):
        key = key_of(x)
        if key not in cache:
            try:
                label = f"fit, run {len(cache) + 1}: "
                cache[key] = errors(evaluator.values(with_values(profile, params, key), used, label), measured)
            except ProfileError:  # a value the profile refuses (a latency below 1): far from any fit
                cache[key] = np.full(len(used), 10.0)
        return cache[key]

    def steps(x):
        return np.array([max(1.0, 0.05 * abs(v)) if w else max(1e-3, 0.05 * abs(v)) for v, w in zip(x, whole,
                                                                                                      strict=True)])

    def jacobian(x):
        base, h = residuals(x), steps(x)
        columns = []
        for j in range(len(x)):
            up = np.array(x, dtype=float)
            up[j] += h[j]
            columns.append((residuals(up) - base) / h[j])
        return np.column_stack(columns)

    x0 = np.array(start, dtype=float)
    lower = np.array([0.0 if w else 1e-6 for w in whole])   # every parameter is positive (a count may be 0)
    solution = least_squares(residuals, x0, jac=jacobian, bounds=(lower, np.full(len(x0), np.inf)),
                             method="trf", max_nfev=max_evaluations, x_scale=np.maximum(np.abs(x0), 1.0))
    values = [round(float(v)) if w else float(v) for v, w in zip(solution.x, whole, strict=True)]
    fitted = with_values(profile, params, values)
    after = evaluator.values(fitted, label="the fitted profile: ")
    return Fit(params, start, values, before, after, _undetermined(params, jacobian(solution.x)), fitted)


def _undetermined(params: list[Parameter], jac: np.ndarray) -> list[tuple[str, str]]:
    """Parameters the data cannot pin down: a zero column (no measurement moves with it), or a
    direction of near-zero singular value (a combination of parameters the data cannot tell apart)."""
    out = []
    norms = np.linalg.norm(jac, axis=0)
    for p, n in zip(params, norms, strict=True):
        if n < 1e-9:
            out.append((p.text, "no measurement changes with it"))
    live = [i for i, n in enumerate(norms) if n >= 1e-9]
    if len(live) > 1:
        scaled = jac[:, live] / norms[live]
        _, s, vt = np.linalg.svd(scaled, full_matrices=False)
        for value, vector in zip(s, vt, strict=True):
            if value < 1e-3 * s[0]:
                involved = [params[live[i]].text for i in np.flatnonzero(np.abs(vector) > 0.3)]
                out.append((" and ".join(involved), "only a combination of them is determined by the data"))
    return out


def table_head(fitted: bool = False) -> str:
    """The head line of the table (with the fitted columns after a fit)."""
    head = f"{'measurement':<44} {'quantity':<10} {'measured':>11} {'model':>11} {'error':>8}"
    return head + (f" {'fitted':>11} {'error':>8}" if fitted else "")


def table_row(m: Measurement, before: float, after: float | None = None) -> str:
    """A measurement's line of the table: measured, model, error (and the fitted model and error)."""
    name = m.name + (" (held out)" if m.held_out else "")
    e = errors(before, m.measured) * 100
    line = f"{name[:44]:<44} {m.quantity:<10} {figure(m.measured):>11} {figure(before):>11} {e:>+7.1f}%"
    if after is not None:
        line += f" {figure(after):>11} {errors(after, m.measured) * 100:>+7.1f}%"
    return line


def table_summary(measurements: list[Measurement], before: np.ndarray, after: np.ndarray | None = None) -> list[str]:
    """The table's last line, the mean and worst error over the measurements not held out (none when
    every one is held out)."""
    used = [i for i, m in enumerate(measurements) if not m.held_out]
    if not used:
        return []
    worst = max(abs(errors(before[i], measurements[i].measured)) for i in used) * 100
    mean = float(np.mean([abs(errors(before[i], measurements[i].measured)) for i in used])) * 100
    summary = f"mean |error| {mean:.1f}%, worst {worst:.1f}%"
    if after is not None:
        worst_after = max(abs(errors(after[i], measurements[i].measured)) for i in used) * 100
        mean_after = float(np.mean([abs(errors(after[i], measurements[i].measured)) for i in used])) * 100
        summary += f"; after the fit: mean {mean_after:.1f}%, worst {worst_after:.1f}%"
    return [summary + " (over the measurements that are not held out)"]


def table(measurements: list[Measurement], before: np.ndarray, after: np.ndarray | None = None) -> str:
    """Each measurement: measured, model (before and after a fit), and the errors."""
    lines = [table_head(after is not None)]
    lines += [table_row(m, before[i], None if after is None else after[i]) for i, m in enumerate(measurements)]
    return "\n".join(lines + table_summary(measurements, before, after)) + "\n"


def stream_table(evaluator: Evaluator, profile: Profile, write) -> np.ndarray:
    """Run the evaluator's measurements with ``profile`` in order, writing the model's table (as
    ``table`` gives it without a fit) a line at a time through ``write(line)``: each measurement's
    row as soon as its value is computed. Returns the values."""
    write(table_head())
    values = []
    for m, value in evaluator.each(profile):
        values.append(value)
        write(table_row(m, value))
    values = np.array(values)
    for line in table_summary(evaluator.measurements, values):
        write(line)
    return values


def figure(v: float) -> str:
    """A measured or modelled figure as the calibration tables print it: whole above 100, else 4 digits."""
    return f"{v:.0f}" if abs(v) >= 100 else f"{v:.4g}"


def fitted_text(result: Fit, source: str) -> str:
    """The fitted profile as TOML: the original text with the fitted values in place."""
    text = rewrite_text(result.profile.source_text, result.params, result.values, note=source)
    parse_profile(text, "the fitted profile")  # must still be a valid profile
    return text
