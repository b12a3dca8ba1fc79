"""The command line's memory specs: ``--load SPACE:ADDR=FILE`` and ``--dump SPACE:ADDR:TYPE:COUNT[=FILE]``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from attrs import frozen

from isa import TYPES

DATA_TYPES = tuple(t.name for t in TYPES.values() if t.kind != "mask")
MAX_DUMP_ELEMENTS = 1 << 26


class SpecError(Exception):
    """A malformed --load or --dump argument, or a file it names that cannot be read."""


def _int(text: str, what: str, spec: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise SpecError(f"bad {what} '{text}' in '{spec}'") from None
    if value < 0:
        raise SpecError(f"{what} must not be negative in '{spec}'")
    return value


def _space(text: str, spec: str) -> str:
    space = text.lower()
    if space not in ("ub", "gm"):
        raise SpecError(f"memory space must be ub or gm, not '{text}', in '{spec}'")
    return space


@frozen
class DumpSpec:
    space: str
    addr: int
    type: str
    count: int
    file: str | None
    key: str  # the spec as written, without =FILE


@frozen
class LoadSpec:
    space: str
    addr: int
    file: str


def parse_dump(spec: str) -> DumpSpec:
    body, _, file = spec.partition("=")
    parts = body.split(":")
    if len(parts) != 4:
        raise SpecError(f"--dump takes SPACE:ADDR:TYPE:COUNT[=FILE.npy], not '{spec}'")
    space = _space(parts[0], spec)
    addr = _int(parts[1], "address", spec)
    etype = parts[2].lower()
    if etype not in DATA_TYPES:
        raise SpecError(f"unknown element type '{parts[2]}' in '{spec}' (types: {', '.join(DATA_TYPES)})")
    count = _int(parts[3], "count", spec)
    if not 1 <= count <= MAX_DUMP_ELEMENTS:
        raise SpecError(f"count must be 1..{MAX_DUMP_ELEMENTS} in '{spec}'")
    if _ and not file:
        raise SpecError(f"missing file name after '=' in '{spec}'")
    return DumpSpec(space, addr, etype, count, file or None, body)


def parse_load(spec: str) -> LoadSpec:
    target, eq, file = spec.partition("=")
    parts = target.split(":")
    if not eq or not file or len(parts) != 2:
        raise SpecError(f"--load takes SPACE:ADDR=FILE, not '{spec}'")
    return LoadSpec(_space(parts[0], spec), _int(parts[1], "address", spec), file)


def _check_npy_size(path: str) -> None:
    """Refuse a .npy whose header claims more data than the file holds, before numpy allocates it."""
    with open(path, "rb") as handle:
        try:
            version = np.lib.format.read_magic(handle)
            if version == (1, 0):
                shape, _, dtype = np.lib.format.read_array_header_1_0(handle)
            else:
                shape, _, dtype = np.lib.format.read_array_header_2_0(handle)
        except ValueError as err:
            raise SpecError(f"{path}: malformed .npy file ({err})") from None
        claimed = int(np.prod(shape, dtype=object)) * dtype.itemsize
        held = Path(path).stat().st_size - handle.tell()
    if claimed > held:
        raise SpecError(f"{path}: truncated .npy file: its header describes {claimed} bytes, the file holds {held}")


def read_load_file(path: str) -> np.ndarray | bytes:
    """A .npy file's array (never unpickled) or any other file's raw bytes."""
    try:
        if path.lower().endswith(".npy"):
            _check_npy_size(path)
            try:
                array = np.load(path, allow_pickle=False)
            except ValueError as err:
                raise SpecError(f"{path}: not a plain .npy array ({err})") from None
            if array.dtype.hasobject or array.dtype.fields is not None:
                raise SpecError(f"{path}: .npy arrays of objects or records cannot be loaded")
            return array
        return Path(path).read_bytes()
    except OSError as err:
        raise SpecError(f"{path}: cannot read: {err.strerror or err}") from None
    except (EOFError, SyntaxError) as err:
        raise SpecError(f"{path}: malformed .npy file ({err})") from None
