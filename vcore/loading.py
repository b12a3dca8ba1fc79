"""Turn a path or text into a checked ``Program``: assemble ``.asm``, read and decode ``.vbin``."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from vcore.assembler import assemble
from vcore.assembler.preprocess import read_source
from vcore.isa import DecodeError, decode_program
from vcore.isa.program import MAGIC, Program, VbinError, from_bytes


class LoadError(Exception):
    """A program file that cannot be read or decoded; the message names the file."""


def load_program(data: bytes | str, filename: str = "<input>", defines: dict[str, int] | None = None) -> Program:
    """A program from ``.vbin`` bytes or assembly text (``defines``: -D constants); raises AsmError
    or LoadError."""
    if isinstance(data, bytes) and data.startswith(MAGIC):
        if defines:
            raise LoadError(f"{filename}: error: -D applies to assembly source; this is a vcore binary, "
                            "already assembled")
        try:
            program = from_bytes(data, filename)
            decode_program(program.words)
        except (VbinError, DecodeError) as err:
            raise LoadError(f"{filename}: error: {err}") from None
        return program
    if isinstance(data, bytes):
        if filename.endswith(".vbin"):
            raise LoadError(f"{filename}: error: not a vcore binary (bad magic)")
        try:
            data = data.decode("utf-8-sig")  # a byte-order mark some editors write is not text
        except UnicodeDecodeError as err:
            raise LoadError(f"{filename}: error: neither a vcore binary nor UTF-8 assembly text ({err.reason} "
                            f"at byte {err.start})") from None
    return assemble(data, filename, defines)


def read_source_file(path: str | os.PathLike) -> bytes:
    """A program file's bytes (``.asm`` text or a ``.vbin``), or a LoadError naming it."""
    try:
        return read_source(path)
    except OSError as err:
        raise LoadError(f"{path}: error: cannot read: {err.strerror or err}") from None


def source_text(blob: bytes) -> str | None:
    """The assembly text of a program file's bytes, or None for a ``.vbin`` (or bytes that are not
    UTF-8: loading them says so)."""
    if blob.startswith(MAGIC):
        return None
    try:
        return blob.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def read_program_file(path: str | os.PathLike, defines: dict[str, int] | None = None) -> Program:
    return load_program(read_source_file(path), str(path), defines)


def _umask() -> int:
    """The process's umask, read without changing it. Linux (4.7 on) shows it as ``Umask:`` in
    /proc/self/status: reading that is safe beside other threads, where os.umask(0) and back would,
    for that moment, give a file another thread creates mode 0666. Without /proc (other systems)
    that swap is the only way, and vcore's own writes run on one thread."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: str | os.PathLike, data: bytes | str) -> None:
    """Write to a temporary file beside ``path`` and rename it into place: never a half-written file.
    The file gets the mode a plain open() would give it: an existing file's own, else 0666 less the
    umask (mkstemp makes its file 0600)."""
    target = Path(path)
    payload = data.encode() if isinstance(data, str) else data
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:  # a new file (or one we cannot stat: the replace below says what is wrong)
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), mode)
            handle.write(payload)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
