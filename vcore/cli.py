"""The ``vcore`` command: a thin click face over the assembler and the emulator.

Every user error ends here as one message on stderr and exit status 2 (1 for a runtime fault).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from assembler import AsmError, disassemble, listing
from isa.program import to_bytes
from vcore.loading import LoadError, read_program_file, write_atomic


def _fail(message: str, status: int = 2) -> None:
    click.echo(message, err=True)
    sys.exit(status)


def _read(path: str):
    try:
        return read_program_file(path)
    except AsmError as err:
        _fail(str(err))
    except LoadError as err:
        _fail(str(err))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="vcore")
def main() -> None:
    """vcore: assemble, run and profile programs for an Ascend-style vector core."""


@main.command("asm")
@click.argument("source", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="output .vbin (default: SOURCE with .vbin)")
@click.option("--listing", "show_listing", is_flag=True, help="print address, words and source line")
def asm_command(source: str, output: str | None, show_listing: bool) -> None:
    """Assemble SOURCE into a .vbin file."""
    program = _read(source)
    if program.source is None:
        _fail(f"{source}: error: already a vcore binary, not assembly text")
    target = output or str(Path(source).with_suffix(".vbin"))
    try:
        write_atomic(target, to_bytes(program))
    except OSError as err:
        _fail(f"{target}: error: cannot write: {err.strerror or err}")
    if show_listing:
        click.echo(listing(program), nl=False)


@main.command("disasm")
@click.argument("binary", type=click.Path(dir_okay=False))
def disasm_command(binary: str) -> None:
    """Print BINARY as assembly that re-assembles to the identical file."""
    click.echo(disassemble(_read(binary)), nl=False)


if __name__ == "__main__":  # pragma: no cover
    main()
