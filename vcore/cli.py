"""The ``vcore`` command: a thin click face over the assembler and the emulator.

Every user error ends here as one message on stderr and exit status 2 (1 for a runtime fault).
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

import click
import numpy as np
from click.core import ParameterSource

from vcore import __version__, cluster, sweep
from vcore.assembler import AsmError, disassemble, listing, parse_define
from vcore.debug import Debugger, session
from vcore.diff import DiffError, diff_text, read_report
from vcore.emulator import Fault, ProfileError, ProgramError, check_program, load_profile, profile_warnings
from vcore.emulator.faults import check_range
from vcore.emulator.kernel.cores import MAX_CORES, load
from vcore.emulator.kernel.launch import MAX_BLOCKS, Launch, LaunchError
from vcore.emulator.machine import DEFAULT_GM_SIZE, DEFAULT_MAX_INSTRUCTIONS
from vcore.emulator.profiles.profile import BUILTIN, builtin_text
from vcore.emulator.report import element_list, race_messages
from vcore.emulator.state import MAX_GM_SIZE
from vcore.emulator.trace import TIME_MODES, trace_events
from vcore.formatting import format_line
from vcore.inline import InlineError, Setup, load_place, read_setup
from vcore.isa import TYPES, decode_program
from vcore.isa.functions import check
from vcore.isa.program import to_bytes
from vcore.loading import LoadError, load_program, read_program_file, read_source_file, source_text, write_atomic
from vcore.progress import Progress
from vcore.specs import SpecError, parse_dump, parse_load, read_load


class _Int(click.ParamType):
    """A whole number written as the assembler writes them: 4096, 0x1000, 0b1, 1_000."""

    name = "integer"

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        try:
            return int(str(value).replace("_", ""), 0)
        except ValueError:
            self.fail(f"'{value}' is not a whole number", param, ctx)


INT = _Int()


class _Define(click.ParamType):
    """``-D NAME=VALUE``: a constant for the assembler (it wins over a .equ of the same name)."""

    name = "NAME=VALUE"

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        try:
            return parse_define(str(value))
        except ValueError as err:
            self.fail(str(err), param, ctx)


DEFINE = _Define()
_DEFINE_HELP = "define a constant NAME (an expression); wins over a .equ NAME in the program (repeatable)"


def define_option(command):
    return click.option("-D", "defines", type=DEFINE, multiple=True, metavar="NAME=VALUE", help=_DEFINE_HELP)(command)


def _fail(message: str, status: int = 2):
    click.echo(message, err=True)
    sys.exit(status)


def _fail_loading(err: Fault, path: str):
    """A program that cannot be loaded into the machine (its data past the end of memory): exit 1,
    naming the directive's place when the program came from source."""
    _fail(str(err) if err.where else f"{path}: error: {err}", 1)


def _read(path: str, defines=(), blob: bytes | None = None, tell: bool = True):
    """The program at ``path``; its assembler warnings are told now unless ``tell`` is False (the
    caller tells them with ``_tell_warnings`` once nothing can refuse the program any more)."""
    try:
        program = read_program_file(path, dict(defines)) if blob is None else load_program(blob, path, dict(defines))
    except (AsmError, LoadError) as err:
        _fail(str(err))
    if tell:
        _tell_warnings(program)
    return program


def _tell_warnings(program, profile=None) -> None:
    """The assembler's warnings: the program is valid, but likely not what was meant. Told after any
    error that refuses the program would be, so that an error's message is the first line. With a
    profile, those its load adds (``emulator.profile_warnings``: repeat=0 on the 950)."""
    for warning in program.warnings:
        click.echo(warning.format(), err=True)
    for message in profile_warnings(program, profile) if profile is not None else ():
        click.echo(message, err=True)


def _write(path: str, data) -> None:
    try:
        write_atomic(path, data)
    except OSError as err:
        _fail(f"{path}: error: cannot write: {err.strerror or err}")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version=__version__, prog_name="vcore")
def main() -> None:
    """vcore: assemble, run and profile programs for an Ascend-style vector core."""


@main.command("asm")
@click.argument("source", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="output .vbin (default: SOURCE with .vbin)")
@click.option("--listing", "show_listing", is_flag=True, help="print address, words and source line")
@click.option("--profile", "profile_name", default="950", show_default=True,
              help="the profile the program must run on: 950, a2, or FILE.toml (register code, integer "
                   "division and 950-only conversions are refused on the a2)")
@define_option
def asm_command(source: str, output: str | None, show_listing: bool, profile_name: str, defines) -> None:
    """Assemble SOURCE into a .vbin file."""
    try:
        profile = load_profile(profile_name)
    except ProfileError as err:
        _fail(f"vcore: error: {err}")
    program = _read(source, defines, tell=False)
    if program.source is None:
        _fail(f"{source}: error: already a vcore binary, not assembly text")
    try:
        check_program(program, profile)
    except ProgramError as err:
        _fail(str(err))
    _tell_warnings(program, profile)
    _write(output or str(Path(source).with_suffix(".vbin")), to_bytes(program))
    if show_listing:
        click.echo(listing(program), nl=False)


@main.command("disasm")
@click.argument("binary", type=click.Path(dir_okay=False))
def disasm_command(binary: str) -> None:
    """Print BINARY as assembly that re-assembles to the identical file."""
    program = _read(binary)
    problems = check(decode_program(program.words))[1]
    if problems:  # its text would not assemble: refuse it as the assembler would refuse the text
        pc, message = problems[0]
        _fail(f"{binary}: error: pc 0x{pc:04x}: {message}")
    click.echo(disassemble(program), nl=False)


class _ProgramSetup:
    """The program's own setup lines (``; DEFINE``, ``; LOAD``, ``; PROFILE``, ``; RUN``: the pytest
    plugin's, read by vcore/inline.py) that a command applies: each option the command has and its
    command line does not give. The command line wins: a -D NAME over ``; DEFINE NAME``, a --load
    to the same SPACE:ADDR over that ``; LOAD`` (other loads land after the program's, on top), and
    --profile, --max-instructions, --cores, --jobs over the ``; RUN``/``; PROFILE`` value."""

    def __init__(self, command: str, path: str, text: str | None, takes: dict[str, str | None], given) -> None:
        """``takes``: option -> None when the command applies it, else why not; ``given(option)``:
        whether the command line gives it."""
        try:
            self.setup = read_setup(Path(path), text) if text is not None else Setup(Path(path))
        except InlineError as err:
            where, _, message = str(err).partition(": ")
            _fail(f"{where}: error: {message}")
        applied, refused = [], {}
        for line in self.setup.lines:
            kind = line.option.split(" ")[0]
            if given(line.option):
                continue
            if takes.get(kind) is None:
                applied.append(line)
            else:
                refused.setdefault(takes[kind], []).append(line)
        self.options = {line.option for line in applied}
        if applied:
            click.echo("vcore: applied the program's " + ", ".join(line.shown() for line in applied), err=True)
        for why, lines in refused.items():
            click.echo(f"vcore: vcore {command} does not apply the program's "
                       f"{', '.join(line.shown() for line in lines)}: {why}", err=True)

    def value(self, option: str, given):
        """The program's value of ``option`` where it applies, else ``given``."""
        return getattr(self.setup, option) if option in self.options else given

    def defines(self, given) -> dict:
        """The program's DEFINEs that apply, with the command line's -D over them."""
        return {**{n: v for n, v in self.setup.defines.items() if f"define {n}" in self.options}, **dict(given)}

    def loads(self, sizes: dict) -> list:
        """(label, LoadSpec, data) of the program's LOADs that apply (files relative to the program),
        each read no further than its memory's bytes (``sizes``: space -> bytes) from its address."""
        out = []
        for where, target, file in self.setup.loads:
            try:
                spec = parse_load(f"{target}={self.setup.path.parent / file}")
                if load_place(spec) not in self.options:
                    continue
                data, warnings = read_load(spec, sizes[spec.space])
            except SpecError as err:
                _fail(f"{where}: error: LOAD {target} = {file}: {err}")
            for message in warnings:
                click.echo(f"{where}: {message}", err=True)
            out.append((f"{where}: error: LOAD {target} = {file}", spec, data))
        return out


def _program_setup(command: str, path: str, takes: dict[str, str | None], cli_defines=(), cli_loads=(),
                   cli_options: dict[str, str] | None = None) -> tuple[bytes, _ProgramSetup]:
    """The program file's bytes (read once) and its setup lines as ``command`` applies them;
    ``cli_options``: setup option -> the command's parameter that gives it."""
    cli_options = cli_options or {}
    try:
        blob = read_source_file(path)
    except LoadError as err:
        _fail(str(err))
    names = {name for name, _ in cli_defines}
    places = set()
    for text in cli_loads:
        with contextlib.suppress(SpecError):  # a bad --load is refused with the others, later
            places.add(load_place(parse_load(text)))
    ctx = click.get_current_context()

    def given(option: str) -> bool:
        kind, _, name = option.partition(" ")
        if kind == "define":
            return name in names
        if kind == "load":
            return option in places
        return kind in cli_options and ctx.get_parameter_source(cli_options[kind]) is not ParameterSource.DEFAULT

    return blob, _ProgramSetup(command, path, source_text(blob), takes, given)


_LOAD_HELP = ("copy a file into memory first (a .npy: its array's data, as stored; else raw bytes); :TYPE "
              "(f16, f32, s32, ...) converts a .npy array to TYPE first: values must be whole numbers that fit an "
              "integer TYPE; floats round to nearest even, and one too large for a float TYPE is an error")


def _run_inputs(profile_name: str, gm_size: int, loads) -> tuple:
    """The profile, the --load specs and their files' data, checked; exits 2 on a bad one."""
    try:
        profile = load_profile(profile_name)
    except ProfileError as err:
        _fail(f"vcore: error: {err}")
    if not 1 <= gm_size <= MAX_GM_SIZE:
        _fail(f"vcore: error: --gm-size must be 1..{MAX_GM_SIZE} bytes, not {gm_size}")
    try:
        load_specs = [parse_load(s) for s in loads]
        load_data = []
        for spec in load_specs:
            data, warnings = read_load(spec, profile.ub_size if spec.space == "ub" else gm_size)
            load_data.append(data)
            for message in warnings:  # a warning only: the exit status is the run's
                click.echo(f"vcore: {message}", err=True)
    except SpecError as err:
        _fail(f"vcore: error: {err}")
    return profile, load_specs, load_data


@main.command("run")
@click.argument("program_path", metavar="PROG.asm|PROG.vbin", type=click.Path(dir_okay=False))
@click.option("--profile", "profile_name", default="950", show_default=True, help="950, a2, or FILE.toml")
@click.option("--load", "loads", multiple=True, metavar="SPACE:ADDR[:TYPE]=FILE", help=_LOAD_HELP)
@click.option("--dump", "dumps", multiple=True, metavar="SPACE:ADDR:TYPE:COUNT[=FILE.npy]",
              help="print (or save) memory after the run")
@click.option("--report", "report_format", type=click.Choice(["text", "json", "none"]), default="text",
              show_default=True)
@click.option("--report-file", type=click.Path(dir_okay=False), help="also write the JSON report here")
@click.option("--gm-size", type=INT, default=DEFAULT_GM_SIZE, show_default=True, help="bytes of GM")
@click.option("--max-instructions", type=click.IntRange(min=1), default=DEFAULT_MAX_INSTRUCTIONS,
              show_default=True, help="fault past this many executed instructions")
@click.option("--max-cycles", type=click.IntRange(min=1), default=None, help="fault past this many cycles")
@click.option("--strict", is_flag=True, help="a race is a fault, not a warning")
@click.option("--trace", "trace_file", type=click.Path(dir_okay=False),
              help="write a Chrome trace (Perfetto): a track per pipe; with --cores or --blocks, a process per core")
@click.option("--trace-time", type=click.Choice(TIME_MODES), default=None,
              help="the trace's time axis: real (the default, at the profile's clock, to the nanosecond) or cycles "
                   "(1 cycle = 1 ns, so that one-cycle slices have a width)")
@click.option("--cores", type=int, default=None,
              help="run as a kernel on N cores (1..the profile's chip.cores), block index 0..N-1; with --blocks, "
                   "the most cores to use")
@click.option("--blocks", type=int, default=None,
              help=f"run as a kernel of B blocks (1..{MAX_BLOCKS}), block index 0..B-1, on the chip's cores (or "
                   f"--cores N): a later block starts on the first core to finish")
@click.option("--jobs", type=int, default=None, help="processes to run the blocks in (default: the number of CPUs)")
@click.option("--no-fast-loops", is_flag=True,
              help="run every hardware loop pass by pass and schedule every tiling-loop pass again (the same "
                   "report, slower): docs/timing.md")
@define_option
def run_command(program_path, profile_name, loads, dumps, report_format, report_file, gm_size,
                max_instructions, max_cycles, strict, trace_file, trace_time, cores, blocks, jobs, no_fast_loops,
                defines) -> None:
    """Run a program and print its report. The program's own DEFINE, LOAD, PROFILE and RUN comment
    lines apply too (the command line wins), and stderr says which did."""
    if trace_time is not None and not trace_file:
        _fail("vcore: error: --trace-time sets the time axis of a trace: give --trace FILE.json too")
    blob, own = _program_setup("run", program_path, {
        "define": None, "load": None, "profile": None, "strict": None, "max_instructions": None,
        "cores": None, "blocks": None, "jobs": None,
    }, defines, loads, {"profile": "profile_name", "max_instructions": "max_instructions", "cores": "cores",
                        "blocks": "blocks", "jobs": "jobs"})
    defines = tuple(own.defines(defines).items())
    profile_name, strict = own.value("profile", profile_name), strict or "strict" in own.options
    max_instructions, cores = own.value("max_instructions", max_instructions), own.value("cores", cores)
    blocks = own.value("blocks", blocks)
    kernel = cores is not None or blocks is not None
    jobs = own.value("jobs", jobs) if kernel else jobs
    profile, load_specs, load_data = _run_inputs(profile_name, gm_size, loads)
    own_loads = own.loads({"ub": profile.ub_size, "gm": gm_size})
    try:
        used = Launch.of(profile, cores, blocks).cores if kernel else 1
    except LaunchError as err:
        _fail(f"vcore: error: {err}")
    if jobs is not None and jobs < 1:
        _fail(f"vcore: error: --jobs must be at least 1, not {jobs}")
    if jobs is not None and not kernel:
        _fail("vcore: error: --jobs runs the blocks of a kernel: give --cores N or --blocks B too")
    try:
        dump_specs = [parse_dump(s) for s in dumps]
    except SpecError as err:
        _fail(f"vcore: error: {err}")
    for spec in dump_specs:  # before the program is read, so its warnings do not come before the error
        if spec.core >= used:
            _fail(f"vcore: error: --dump {spec.key}: core {spec.core} does not exist: the run has {used} "
                  f"core(s), ub0..ub{used - 1}")
        try:  # and before the run, so a long run is not wasted on a bad --dump
            check_range(spec.space.upper(), profile.ub_size if spec.space == "ub" else gm_size, spec.addr,
                        spec.addr + spec.count * TYPES[spec.type].size, "read")
        except Fault as err:
            _fail(f"vcore: error: --dump {spec.key}: {err}")
    program = _read(program_path, defines, blob, tell=False)
    try:
        machine = load(program, profile, cores, gm_size, jobs, blocks)
    except ProgramError as err:
        _fail(str(err))
    except Fault as err:
        _fail_loading(err, program_path)
    _tell_warnings(program, profile)
    for label, spec, data in [*own_loads, *((f"vcore: error: --load {s.name}", s, d)
                                            for s, d in zip(load_specs, load_data, strict=True))]:
        try:
            machine.write(spec.space, spec.addr, data)
        except Fault as err:
            _fail(f"{label}: {err}")
    if not kernel:
        progress = Progress.for_stderr()
        try:
            result = machine.run(max_instructions=max_instructions, max_cycles=max_cycles, strict=strict,
                                 trace=trace_file is not None, progress=progress, fast_loops=not no_fast_loops)
        finally:
            if progress is not None:
                progress.close()
        warnings = [] if strict else race_messages(result)  # with --strict the first race is the fault
        warnings += [f"warning: {w}" for w in machine.flag_warnings()]
    else:
        result = machine.run(max_instructions, max_cycles, strict, fast_loops=not no_fast_loops,
                             trace=trace_file is not None)
        warnings = result.warnings
    for message in warnings:
        click.echo(message, err=True)
    dumped, dumped_arrays = {}, {}
    for spec in dump_specs:
        try:
            values = machine.read(spec.space, spec.addr, spec.type, spec.count, *((spec.core,) if kernel else ()))
        except Fault as err:
            _fail(f"vcore: error: --dump {spec.key}: {err}")
        if spec.file:
            buffer = io.BytesIO()
            np.save(buffer, values, allow_pickle=False)
            _write(spec.file, buffer.getvalue())
        else:
            dumped[spec.key] = element_list(values)
            dumped_arrays[spec.key] = (values, spec.type)
    report = machine.report(dumped)
    if report_file:
        _write(report_file, json.dumps(report.to_json(), indent=2) + "\n")
    if trace_file:
        _write(trace_file, json.dumps(trace_events(result, trace_time or "real")) + "\n")
    if report_format == "json":
        click.echo(json.dumps(report.to_json(), indent=2))
    else:
        for key, (values, type_name) in dumped_arrays.items():
            # floats: the shortest decimal that reads back as the same value of the type; JSON keeps exact values
            click.echo(f"{key} = {format_line(values, type_name)}")
        if report_format == "text":
            click.echo(report.to_text(), nl=False)
    if result.fault is not None:
        _fail(str(result.fault), 130 if result.fault.kind == "interrupt" else 1)


@main.command("debug")
@click.argument("program_path", metavar="PROG.asm|PROG.vbin", type=click.Path(dir_okay=False))
@click.option("--profile", "profile_name", default="950", show_default=True, help="950, a2, or FILE.toml")
@click.option("--load", "loads", multiple=True, metavar="SPACE:ADDR[:TYPE]=FILE", help=_LOAD_HELP)
@click.option("--gm-size", type=INT, default=DEFAULT_GM_SIZE, show_default=True, help="bytes of GM")
@define_option
def debug_command(program_path, profile_name, loads, gm_size, defines) -> None:
    """Step through a program: commands on stdin (help lists them). The program's own DEFINE, LOAD
    and PROFILE comment lines apply too (the command line wins)."""
    one_core = "the debugger runs one core, without run's limits"
    blob, own = _program_setup("debug", program_path, {
        "define": None, "load": None, "profile": None, "strict": one_core, "max_instructions": one_core,
        "cores": one_core, "blocks": one_core, "jobs": one_core}, defines, loads, {"profile": "profile_name"})
    defines = tuple(own.defines(defines).items())
    profile, load_specs, load_data = _run_inputs(own.value("profile", profile_name), gm_size, loads)
    program = _read(program_path, defines, blob, tell=False)
    writes = [(s.space, s.addr, d) for _, s, d in own.loads({"ub": profile.ub_size, "gm": gm_size})]
    writes += [(s.space, s.addr, d) for s, d in zip(load_specs, load_data, strict=True)]
    try:
        debugger = Debugger(program, profile, gm_size, writes)
    except ProgramError as err:
        _fail(str(err))
    except Fault as err:
        _fail_loading(err, program_path)
    _tell_warnings(program, profile)
    session(debugger)


class _SweepDefine(click.ParamType):
    """``-D NAME=V1,V2,...`` of a sweep: the values a constant takes, each a constant expression."""

    name = "NAME=V1,V2,..."

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        name, eq, values = str(value).partition("=")
        if not eq or not [v for v in values.split(",") if v.strip()]:
            self.fail(f"-D {value}: give the values to sweep, -D NAME=V1,V2,...", param, ctx)
        try:
            parsed = [parse_define(f"{name}={v}")[1] for v in values.split(",") if v.strip()]
        except ValueError as err:
            self.fail(str(err), param, ctx)
        return name.strip(), parsed


@main.command("sweep")
@click.argument("program_path", metavar="PROG.asm", type=click.Path(dir_okay=False))
@click.option("-D", "defines", type=_SweepDefine(), multiple=True, metavar="NAME=V1,V2,...",
              help="a constant and the values it takes (repeatable: every combination runs)")
@click.option("--profile", "profiles", default="950", show_default=True, help="profiles, comma-separated: 950,a2")
@click.option("--cores", type=int, default=None,
              help=f"run each as a kernel on N cores (1..{MAX_CORES}, at most the profile's chip.cores)")
@click.option("--blocks", type=int, default=None,
              help=f"run each as a kernel of B blocks (1..{MAX_BLOCKS}) on the chip's cores (or --cores N)")
@click.option("--jobs", type=int, default=None,
              help="local processes (default: the number of CPUs); given, it beats DASK_SCHEDULER_ADDRESS")
@click.option("--dask", "dask_address", metavar="ADDRESS", default=None,
              help="run on the Dask cluster whose scheduler is at ADDRESS "
                   "(pip install -e '.[cluster]' in the vcore checkout)")
@click.option("--scheduler-file", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="run on the Dask cluster whose scheduler wrote FILE (dask scheduler --scheduler-file FILE, "
                   "as dask-jobqueue, dask-mpi and batch scripts hand it over); waits for FILE to be there")
@click.option("--dask-timeout", type=click.FloatRange(min=0, min_open=True), default=sweep.DASK_TIMEOUT,
              show_default=True, metavar="SECONDS",
              help="wait this long to reach the Dask scheduler (and its file) and for a first worker")
@click.option("-o", "output", type=click.Path(dir_okay=False), default=None,
              help="write the rows to FILE.csv or FILE.json")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None,
              help="draw total cycles against the first varied constant to FILE.png "
                   "(pip install -e '.[plot]' in the vcore checkout)")
def sweep_command(program_path, defines, profiles, cores, blocks, jobs, dask_address, scheduler_file, dask_timeout,
                  output, plot_path) -> None:
    """Run a program for every combination of -D values and profiles; one row per run (the values,
    the profile, total cycles, each pipe's busy cycles, the verdict; a failed run's error). The
    program's own DEFINE, LOAD, PROFILE and RUN --cores and --blocks comment lines apply to every run
    (a swept -D, --profile, --cores and --blocks win).

    Where the runs go, the first that applies: --dask or --scheduler-file, then --jobs, then the Dask
    configuration's scheduler-address (DASK_SCHEDULER_ADDRESS, when distributed is installed), then one
    local process per CPU. On Dask, every worker must run this vcore (checked first); the dashboard
    link is printed on stderr, and on a terminal distributed's progress bar."""
    blob, own = _program_setup("sweep", program_path, {
        "define": None, "load": None, "profile": None, "cores": None, "blocks": None, "strict": "it has no --strict",
        "max_instructions": "it has no --max-instructions", "jobs": "it runs each kernel in one process",
    }, defines, (), {"profile": "profiles", "cores": "cores", "blocks": "blocks"})
    fixed = own.defines(())
    profiles, cores = own.value("profile", profiles), own.value("cores", cores)
    blocks = own.value("blocks", blocks)
    names = [name for name, _ in defines]
    if len(set(names)) != len(names):
        _fail(f"vcore: error: -D {next(n for n in names if names.count(n) > 1)} is given twice: list its values once")
    profile_names = [p.strip() for p in profiles.split(",") if p.strip()]
    if not profile_names:
        _fail("vcore: error: --profile names no profile")
    ub_sizes = []
    for name in profile_names:
        try:
            ub_sizes.append(load_profile(name).ub_size)
        except ProfileError as err:
            _fail(f"vcore: error: {err}")
    # (a load larger than one profile's UB fails that profile's rows)
    own_loads = tuple((spec.space, spec.addr, data)
                      for _, spec, data in own.loads({"ub": max(ub_sizes), "gm": DEFAULT_GM_SIZE}))
    if not defines and len(profile_names) == 1:
        _fail("vcore: error: nothing to sweep: give -D NAME=V1,V2,... or --profile A,B")
    if cores is not None and not 1 <= cores <= (MAX_CORES if blocks is None else cores):
        _fail(f"vcore: error: --cores must be 1..{MAX_CORES}, not {cores}")
    if blocks is not None and not 1 <= blocks <= MAX_BLOCKS:  # (a profile's chip.cores: its rows say)
        _fail(f"vcore: error: --blocks must be 1..{MAX_BLOCKS}, not {blocks}")
    if jobs is not None and jobs < 1:
        _fail(f"vcore: error: --jobs must be at least 1, not {jobs}")
    if output is not None and Path(output).suffix.lower() not in (".csv", ".json"):
        _fail(f"vcore: error: -o {output}: write .csv or .json")
    if dask_address is not None and scheduler_file is not None:
        _fail("vcore: error: --dask and --scheduler-file both name a scheduler: give one")
    for wanted, option, module, extra in ((dask_address, "--dask", "distributed", "cluster"),
                                          (scheduler_file, "--scheduler-file", "distributed", "cluster"),
                                          (plot_path, "--plot", "matplotlib", "plot")):
        if wanted is not None:
            try:
                __import__(module)
            except ImportError:
                _fail(f"vcore: error: {option} needs {module}: pip install -e '.[{extra}]' in the vcore checkout")
    try:
        text = blob.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        _fail(f"{program_path}: error: cannot read: {err}")
    total = len(sweep.combinations(list(defines), profile_names))
    where = cluster.scheduler(dask_address, scheduler_file, jobs)
    terminal = sys.stderr.isatty()
    # On a terminal: the progress line vcore run and calibrate use, for local runs (on Dask, distributed
    # draws its own bar)
    progress = Progress.for_stderr() if where is None else None

    def done(n: int) -> None:
        if progress is not None:
            progress.step(f"sweep: {n}/{total} runs done")

    def tell(message: str) -> None:
        click.echo(f"vcore: {message}" if message.startswith("warning:") else f"vcore: sweep: {message}", err=True)

    interrupted = False
    try:
        rows = sweep.sweep(text, program_path, list(defines), profile_names, cores, jobs, dask_address, done, fixed,
                           own_loads, dask_timeout, blocks, scheduler_file=scheduler_file, progress=terminal,
                           tell=tell)
    except sweep.DaskError as err:
        if progress is not None:
            progress.close()
        _fail(f"vcore: error: {_scheduler_named(where)}: {err}"
              f"{'; or --jobs J runs the sweep on local processes' if where.how == 'config' else ''}")
    except sweep.Interrupted as stop:  # Ctrl-C: the rows finished are kept
        rows, interrupted = stop.rows, True
        if terminal and progress is None:
            click.echo("", err=True)
    if progress is not None:
        progress.close()
    failed = sum(1 for r in rows if r["error"])
    if rows and output is None:
        click.echo(sweep.to_table(rows), nl=False)
    elif rows:
        _write(output, sweep.to_json(rows) if output.lower().endswith(".json") else sweep.to_csv(rows))
    if plot_path is not None and not interrupted:
        sweep.plot(rows, list(defines), plot_path)
    if failed:
        click.echo(f"vcore: sweep: {failed} of {len(rows)} runs failed (their rows carry the error)", err=True)
    if interrupted:
        kept = ("their rows are " + ("printed" if output is None else f"written to {output}")) if rows else \
            "nothing is written"
        _fail(f"vcore: sweep: interrupted with {len(rows)} of {total} runs finished: {kept}"
              f"{'; no plot is drawn' if plot_path is not None else ''}", 130)


def _scheduler_named(where) -> str:
    """How the command line named a sweep's scheduler, for its messages."""
    if where.how == "file":
        return f"--scheduler-file {where.what}"
    if where.how == "config":
        return f"the Dask configuration's scheduler-address {where.what} (DASK_SCHEDULER_ADDRESS)"
    return f"--dask {where.what}"


@main.command("calibrate")
@click.argument("measurements", metavar="MEASUREMENTS.toml", type=click.Path(dir_okay=False))
@click.option("--profile", "profile_name", default="950", show_default=True,
              help="the profile to fit: 950, a2, or FILE.toml")
@click.option("-o", "output", type=click.Path(dir_okay=False), default=None,
              help="write the fitted profile to FILE.toml")
def calibrate_command(measurements: str, profile_name: str, output: str | None) -> None:
    """Fit the profile parameters named in MEASUREMENTS.toml (fit = [...]) to its measured cycles by
    least squares; print each measurement's error before and after, the fitted values, and the
    parameters the data cannot determine."""
    from vcore import calibrate  # noqa: PLC0415  (scipy is imported only for a fit)

    try:
        profile = load_profile(profile_name)
        params, items = calibrate.read_file(measurements)
        for p in params:
            calibrate.get_value(profile, p)
        evaluator = calibrate.Evaluator(items, Progress.for_stderr())
        evaluator.prepare()  # a missing or bad program is said before any row
    except (ProfileError, calibrate.CalibrateError) as err:
        _fail(f"vcore: error: {err}")
    if params:
        try:
            __import__("scipy.optimize")
        except ImportError:
            _fail("vcore: error: calibrate needs scipy for the fit: pip install -e '.[fit]' in the vcore checkout")
    click.echo(f"profile {profile.name}, {len(items)} measurement(s) from {measurements}")
    # each row as soon as its entry has run (click.echo flushes); on a terminal, the entry being run
    # on stderr's progress line; after a fit, the table again with the fitted profile's columns
    try:
        before = calibrate.stream_table(evaluator, profile, click.echo)
        result = calibrate.fit(profile, params, items, evaluator, before=before)
    except calibrate.CalibrateError as err:
        _fail(f"vcore: error: {err}")
    if params:
        click.echo(calibrate.table(items, result.before, result.after), nl=False)
    for p, old, new in zip(result.params, result.start, result.values, strict=True):
        click.echo(f"fitted {p.text}: {old:g} -> {new:g}")
    for names, why in result.undetermined:
        click.echo(f"cannot determine {names}: {why}")
    if output is not None:
        try:
            text = calibrate.fitted_text(result, Path(measurements).name)
        except (calibrate.CalibrateError, ProfileError) as err:
            _fail(f"vcore: error: {err}")
        _write(output, text)


@main.command("diff")
@click.argument("old", metavar="A.json", type=click.Path(dir_okay=False))
@click.argument("new", metavar="B.json", type=click.Path(dir_okay=False))
def diff_command(old: str, new: str) -> None:
    """Compare two JSON reports (from --report-file or --report json): totals, pipes, stalls and
    instructions, old and new, with the cause of each instruction's change."""
    try:
        a, b = read_report(old), read_report(new)
    except DiffError as err:
        _fail(str(err))
    click.echo(diff_text(a, b, old, new), nl=False)


@main.group("profile")
def profile_group() -> None:
    """Timing and machine profiles."""


@profile_group.command("show")
@click.argument("name", default="950")
def profile_show(name: str) -> None:
    """Print profile NAME (950, a2, or a FILE.toml) as TOML."""
    try:
        text = builtin_text(name) if name in BUILTIN else load_profile(name).source_text
    except ProfileError as err:
        _fail(f"vcore: error: {err}")
    click.echo(text, nl=False)


if __name__ == "__main__":  # pragma: no cover
    main()
