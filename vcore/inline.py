"""How a program's own comment lines set up its run: ``; DEFINE``, ``; LOAD``, ``; RUN`` and
``; PROFILE`` (the pytest plugin checks the EXPECT lines of such a run; ``make docs`` reports the
kernels of ``programs/kernels/`` through it). A bad line is an ``InlineError`` naming FILE:LINE."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from types import SimpleNamespace

import attrs

from vcore.assembler import AsmError, parse_define
from vcore.assembler.preprocess import read_source
from vcore.emulator import Fault, ProfileError, ProgramError, load_profile
from vcore.emulator.kernel.cores import MAX_CORES, Kernel, load
from vcore.emulator.kernel.launch import MAX_BLOCKS, Launch, LaunchError
from vcore.loading import LoadError, read_program_file
from vcore.specs import SpecError, parse_load, read_load

# Upper case only, so that prose in comments ("; Run it: vcore run ...") is not taken for them.
_DEFINE = re.compile(r"^\s*(?:;|//)\s*DEFINE\s+(?P<define>\S.*?)\s*$")
_LOAD = re.compile(r"^\s*(?:;|//)\s*LOAD\s+(?P<target>\S+?)\s*=\s*(?P<file>\S+)\s*$")
_RUN = re.compile(r"^\s*(?:;|//)\s*RUN\s+(?P<options>-.*?)\s*$")
_PROFILE = re.compile(r"^\s*(?:;|//)\s*PROFILE\s+(?P<name>\S+)\s*$", re.IGNORECASE)
_NUMBER_OPTIONS = {"--max-instructions": "max_instructions", "--cores": "cores", "--blocks": "blocks", "--jobs": "jobs"}


class InlineError(Exception):
    """A DEFINE, LOAD or RUN line that cannot be read or done (the message starts with FILE:LINE)."""


@attrs.frozen
class SetupLine:
    """One thing a setup line asks, with its place: ``option`` is ``define NAME``, ``load SPACE:ADDR``
    (``load ?`` for a target that does not parse), ``profile``, ``strict``, ``max_instructions``,
    ``cores``, ``blocks`` or ``jobs``; ``text`` the line's words (``; DEFINE TILE=64``, ``; RUN --cores 8``)."""

    option: str
    where: str      # FILE:LINE
    text: str

    def shown(self) -> str:
        return f"{self.text} ({self.where})"


@attrs.define
class Setup:
    """What a program's comment lines ask of its run."""

    path: Path
    profile: str = "950"
    defines: dict = attrs.field(factory=dict)
    loads: list = attrs.field(factory=list)         # (FILE:LINE, SPACE:ADDR[:TYPE], file relative to the program)
    strict: bool = False
    max_instructions: int | None = None
    cores: int | None = None
    blocks: int | None = None
    jobs: int | None = None
    profile_where: str | None = None  # FILE:LINE of the PROFILE or RUN line that named it
    lines: list = attrs.field(factory=list)         # SetupLine, in the file's order (vcore run says what it applied)

    def used_cores(self) -> int:
        """The cores the run has (``ub<K>`` names K of them): N for --cores N, the launch's for
        --blocks B (at most the profile's chip.cores), 1 for a run on one core."""
        if self.blocks is None:
            return self.cores or 1
        try:
            return Launch.of(load_profile(self.profile), self.cores, self.blocks).cores
        except (ProfileError, LaunchError):  # the run itself says what is wrong
            return self.cores or 1

    def limits(self) -> dict:
        return {"strict": self.strict, **({} if self.max_instructions is None
                                           else {"max_instructions": self.max_instructions})}


def is_setup_line(line: str) -> bool:
    return any(p.match(line) for p in (_DEFINE, _LOAD, _RUN, _PROFILE))


def run_lines(text: str) -> list[tuple[int, str]]:
    """The program's ``; RUN`` lines: (line number, the options as written), in the file's order. Each
    is one run of the program: the pytest plugin runs it once per line, commands apply the first."""
    return [(lineno, m.group("options")) for lineno, line in enumerate(text.splitlines(), start=1)
            if (m := _RUN.match(line))]


def run_names(runs: list[tuple[int, str]]) -> list[str]:
    """A short name for each run (its options without their dashes, joined by ``-``: ``profile-a2-cores-8``,
    ``strict``), for the pytest plugin's test IDs (``x.asm::profile-a2``); the second of two same
    names gets ``-2``, and so on."""
    names, seen = [], {}
    for _, options in runs:
        try:
            words = shlex.split(options)
        except ValueError:  # an unclosed quote: the run itself says what is wrong
            words = options.split()
        name = "-".join(re.sub(r"\s+", "_", w.lstrip("-")) for w in words) or "run"
        seen[name] = seen.get(name, 0) + 1
        names.append(name if seen[name] == 1 else f"{name}-{seen[name]}")
    return names


def read_setup(path: Path, text: str | None = None, run: int = 0) -> Setup:
    """The DEFINE, LOAD, PROFILE lines of the program at ``path`` and its RUN line number ``run`` (0 the
    first; the others are read, so that a bad one is still an error, but not applied)."""
    setup = Setup(Path(path))
    if text is None:
        text = read_source(setup.path).decode("utf-8-sig")
    runs_seen = 0
    for lineno, line in enumerate(text.splitlines(), start=1):
        where = f"{path}:{lineno}"
        if m := _RUN.match(line):
            runs_seen += 1
            _run_options(where, m.group("options"), setup if runs_seen - 1 == run else Setup(setup.path))
        elif m := _DEFINE.match(line):
            try:
                name, value = parse_define(m.group("define"))
            except ValueError as err:
                raise InlineError(f"{where}: {err}") from None
            setup.defines[name] = value
            setup.lines.append(SetupLine(f"define {name}", where, f"; DEFINE {m.group('define')}"))
        elif m := _LOAD.match(line):
            setup.loads.append((where, m.group("target"), m.group("file")))
            setup.lines.append(SetupLine(f"load {_place(m.group('target'))}", where,
                                         f"; LOAD {m.group('target')} = {m.group('file')}"))
        elif m := _PROFILE.match(line):
            setup.profile, setup.profile_where = m.group("name"), where
            setup.lines.append(SetupLine("profile", where, f"; PROFILE {m.group('name')}"))
    return setup


def _place(target: str) -> str:
    """``SPACE:ADDR`` of a load target (``ub:0x0:f32`` -> ``ub:0x0``), or ``?`` when it does not parse
    (the load itself then says what is wrong)."""
    try:
        spec = parse_load(f"{target}=x.npy")
    except SpecError:
        return "?"
    return f"{spec.space}:0x{spec.addr:x}"


def load_place(spec) -> str:
    """The ``load SPACE:ADDR`` option a --load spec gives (its setup line's ``option``)."""
    return f"load {spec.space}:0x{spec.addr:x}"


def _run_options(where: str, text: str, setup: Setup) -> None:
    try:
        words = shlex.split(text)
    except ValueError as err:  # an unclosed quote
        raise InlineError(f"{where}: RUN {text}: {err}") from None
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--strict":
            setup.strict = True
            setup.lines.append(SetupLine("strict", where, "; RUN --strict"))
        elif (word == "--profile" or word in _NUMBER_OPTIONS) and i + 1 < len(words):
            i += 1
            setup.lines.append(SetupLine(word.removeprefix("--").replace("-", "_"), where, f"; RUN {word} {words[i]}"))
            if word == "--profile":
                setup.profile, setup.profile_where = words[i], where
            else:
                try:
                    value = int(words[i], 0)
                except ValueError:
                    raise InlineError(f"{where}: RUN {word} {words[i]}: not a number") from None
                if (word == "--cores" and not 1 <= value <= MAX_CORES) or \
                        (word == "--blocks" and not 1 <= value <= MAX_BLOCKS) or value < 1:
                    raise InlineError(f"{where}: RUN {word} {value}: out of range")
                setattr(setup, _NUMBER_OPTIONS[word], value)
        else:
            raise InlineError(f"{where}: RUN takes --profile NAME, --strict, --max-instructions N, --cores N, "
                              f"--blocks B and --jobs J, not '{word}'")
        i += 1


def build(setup: Setup):
    """The program assembled with its DEFINEs, on a Machine (or a kernel of RUN --cores N or --blocks B,
    seen through the same methods: write, run, read, s, races, report), with its LOAD files in memory."""
    try:
        profile = load_profile(setup.profile)
    except ProfileError as err:
        raise InlineError(f"{setup.profile_where or setup.path}: {err}") from None
    try:
        program = read_program_file(setup.path, setup.defines)
        machine = load(program, profile, setup.cores, jobs=setup.jobs, blocks=setup.blocks)
        if setup.cores is not None or setup.blocks is not None:
            machine = KernelView(machine)
    except (ProgramError, AsmError, LoadError) as err:  # e.g. register instructions on a2: refused before the run
        raise InlineError(str(err)) from None
    except LaunchError as err:  # a launch the profile's chip cannot make (RUN --cores 64 on the a2)
        raise InlineError(f"{setup.path}: {err}") from None
    for where, target, file in setup.loads:
        try:
            spec = parse_load(f"{target}={setup.path.parent / file}")
            data, _ = read_load(spec, machine.memory(spec.space).size)
            machine.write(spec.space, spec.addr, data)
        except (SpecError, Fault) as err:
            raise InlineError(f"{where}: LOAD {target} = {file}: {err}") from None
    return machine


class KernelView:
    """A kernel (RUN --cores N, --blocks B) seen as the checks see a machine: core 0's S, races by kind."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel

    def write(self, space, addr, values, type=None):
        self.kernel.write(space, addr, values, type)

    def memory(self, space):
        return self.kernel.memory(space)

    def run(self, **limits):
        return self.kernel.run(**limits)

    def read(self, space, addr, type_name, count, core=0):
        return self.kernel.read(space, addr, type_name, count, core)

    def report(self):
        return self.kernel.report()

    @property
    def s(self):
        return self.kernel.scalars(0)

    def races(self):
        return [SimpleNamespace(**r) for r in self.kernel.report().races]
