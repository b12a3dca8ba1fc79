"""The command line's memory specs: ``--load SPACE:ADDR[:TYPE]=FILE`` and ``--dump SPACE:ADDR:TYPE:COUNT[=FILE]``.

A typed load (``ub:0x0:f32=x.npy``) converts the ``.npy`` array to TYPE before its bytes are copied,
by the rules of ``Machine.write(space, addr, values, TYPE)`` (emulator/memory_data.py): to an integer
TYPE every element must be a whole number that TYPE holds; to a float TYPE values round to nearest
even, and a finite value too large for TYPE is an error. Anything else is refused with the first
element that does not convert, by index and value.

A load reads no more than fits in the memory it goes into, from its address to the end (and a
.npy file's header): a file that holds more, /dev/zero or an endless pipe, is refused. Any .npy
file but a plain array's (bad magic or version, a header numpy cannot parse, an object, record or
sub-array dtype, a negative shape, too little data) is a SpecError naming it.
"""

from __future__ import annotations

import io
import math
import re
import warnings

import numpy as np
from attrs import frozen

from vcore.emulator.memory_data import DATA_TYPES, ConversionError, convert, raw_bytes, wide_floats
from vcore.emulator.state import MAX_GM_SIZE
from vcore.isa import TYPES

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
        raise SpecError(f"memory space must be ub, ub<K> (core K's, in --dump) or gm, not '{text}', in '{spec}'")
    return space


@frozen
class DumpSpec:
    space: str
    addr: int
    type: str
    count: int
    file: str | None
    key: str  # the spec as written, without =FILE
    core: int = 0  # ub<K>: core K's UB in a kernel (ub: is core 0)


@frozen
class LoadSpec:
    space: str
    addr: int
    file: str
    type: str | None = None  # convert the .npy array to this element type first

    @property
    def name(self) -> str:
        """The spec as the messages write it: ``ub:0x0:f32=x.npy``."""
        return f"{self.space}:0x{self.addr:x}" + (f":{self.type}" if self.type else "") + f"={self.file}"


def parse_dump(spec: str) -> DumpSpec:
    body, _, file = spec.partition("=")
    parts = body.split(":")
    if len(parts) != 4:
        raise SpecError(f"--dump takes SPACE:ADDR:TYPE:COUNT[=FILE.npy], not '{spec}'")
    core = 0
    named = re.fullmatch(r"ub(\d+)", parts[0].lower())
    if named:  # ub<K>: core K of a kernel
        core = int(named.group(1))
        space = "ub"
    else:
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
    return DumpSpec(space, addr, etype, count, file or None, body, core)


def parse_load(spec: str) -> LoadSpec:
    target, eq, file = spec.partition("=")
    parts = target.split(":")
    if not eq or not file or len(parts) not in (2, 3):
        raise SpecError(f"--load takes SPACE:ADDR=FILE or SPACE:ADDR:TYPE=FILE.npy, not '{spec}'")
    space, addr = _space(parts[0], spec), _int(parts[1], "address", spec)
    etype = None
    if len(parts) == 3:
        etype = parts[2].lower()
        if etype not in DATA_TYPES:
            raise SpecError(f"unknown element type '{parts[2]}' in '{spec}' (types: {', '.join(DATA_TYPES)})")
        if not file.lower().endswith(".npy"):
            raise SpecError(f"a typed load converts a .npy array, and '{file}' is not a .npy file, in '{spec}' "
                            f"(load raw bytes without the type: {space}:{parts[1]}={file})")
    return LoadSpec(space, addr, file, etype)


# What of a .npy file comes before its data: the magic, the version, the header's length and the
# header (numpy writes a few hundred bytes and refuses a header of over 10000).
_NPY_HEAD = 1 << 14


def _malformed(path: str, why) -> SpecError:
    return SpecError(f"{path}: malformed .npy file ({why})")


def _npy_header(path: str, head: bytes) -> tuple[tuple[int, ...], bool, np.dtype, int]:
    """The shape, fortran order and dtype that a .npy file's first bytes give, and where its data
    starts; SpecError for anything but a plain array's header."""
    stream = io.BytesIO(head)
    try:
        with warnings.catch_warnings():  # a header from Python 2 reads as well, without a word
            warnings.simplefilter("ignore")
            version = np.lib.format.read_magic(stream)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
            elif version in ((2, 0), (3, 0)):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
            else:
                raise ValueError(f"unknown format version {version[0]}.{version[1]}")
    # numpy parses the header's text as a Python literal: garbage raises what that parsing meets
    # (ValueError, SyntaxError, tokenize.TokenError, TypeError, RecursionError, ...), each the same
    # mistake here.
    except Exception as err:
        why = err.args[0] if err.args and isinstance(err.args[0], str) else type(err).__name__
        raise _malformed(path, why) from None
    if any(type(n) is not int for n in shape):  # (numpy takes True as a length; bool is an int)
        raise _malformed(path, f"shape {shape} holds {next(n for n in shape if type(n) is not int)!r}, not a length")
    if any(n < 0 for n in shape):
        raise _malformed(path, f"shape {shape} has a negative length")
    if dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None:
        raise SpecError(f"{path}: .npy arrays of objects, records or sub-arrays cannot be loaded")
    return shape, fortran, dtype, stream.tell()


def read_load_file(path: str, room: int = MAX_GM_SIZE, type_name: str | None = None,
                   into: str = "") -> np.ndarray | bytes:
    """A .npy file's array (never unpickled) or any other file's raw bytes, read no further than
    the ``room`` bytes it may take in memory (``into`` names them, "the 64 bytes of UB from 0x0"):
    a file that holds more is refused, so /dev/zero or an endless pipe ends. A .npy array's elements
    take their own size there, or that of ``type_name`` (a typed load's)."""
    into = into or f"the {room} bytes a load may take"
    try:
        with open(path, "rb") as handle:
            if not path.lower().endswith(".npy"):
                data = handle.read(room + 1)
                if len(data) > room:
                    raise SpecError(f"{path} holds more than {into}")
                return data
            head = handle.read(_NPY_HEAD)
            shape, fortran, dtype, offset = _npy_header(path, head)
            count = math.prod(shape)
            taken = count * (TYPES[type_name].size if type_name else dtype.itemsize)
            if taken > room:
                raise SpecError(f"{path}'s header describes {count} elements of {dtype} ({taken} bytes"
                                f"{f' as {type_name}' if type_name else ''}), more than {into}")
            claimed = count * dtype.itemsize
            data = head[offset:offset + claimed]
            if len(data) < claimed:
                data += handle.read(claimed - len(data))
    except OSError as err:
        raise SpecError(f"{path}: cannot read: {err.strerror or err}") from None
    if len(data) < claimed:
        raise SpecError(f"{path}: truncated .npy file: its header describes {claimed} bytes, the file holds "
                        f"{len(data)}")
    try:  # no elements (or elements of no bytes) fit any room, but not every shape fits numpy
        if dtype.itemsize == 0:
            return np.zeros(shape, dtype)
        flat = np.frombuffer(data, dtype=dtype, count=count)
        return flat.reshape(shape[::-1]).T if fortran else flat.reshape(shape)
    except ValueError as err:  # a length of 0 beside one past numpy's largest dimension
        raise SpecError(f"{path}: its header's shape {shape} cannot be held: {err}") from None


def read_load(spec: LoadSpec, memory_size: int) -> tuple[np.ndarray, list[str]]:
    """The bytes that ``spec`` copies into memory (its array converted to its type, if it has one),
    as a flat uint8 array, and any warnings about them. ``memory_size``: the bytes of the memory it
    goes into (UB or GM); a file with more data than fit from the spec's address on is refused,
    having been read no further."""
    space = spec.space.upper()
    if spec.addr >= memory_size:
        raise SpecError(f"--load {spec.name}: address 0x{spec.addr:x} is past the end of {space} "
                        f"(0x{memory_size:x} bytes)")
    room = memory_size - spec.addr
    try:
        data = read_load_file(spec.file, room, spec.type, f"the {room} bytes of {space} from 0x{spec.addr:x}")
    except SpecError as err:  # the spec names the file: "--load ub:0x0=x.npy: malformed .npy file (...)"
        raise SpecError(f"--load {spec.name}: {str(err).removeprefix(f'{spec.file}: ')}") from None
    if spec.type is not None:
        return raw_bytes(convert_array(data, spec.type, spec.name)), []
    told = []
    reason = wide_floats(data)
    if reason is not None:
        told.append(
            f"warning: --load {spec.name}: {spec.file} {reason}; to convert them, use --load "
            f"{spec.space}:0x{spec.addr:x}:f32={spec.file} (or another TYPE), or save the array with "
            f".astype(np.float32)")
    return raw_bytes(data), told


def convert_array(array, type_name: str, name: str) -> np.ndarray:
    """``array`` as ``type_name`` (little endian), or a SpecError naming the load ``name`` and the
    first element that does not convert (the rules: emulator/memory_data.py, as Machine.write's)."""
    if not isinstance(array, np.ndarray):  # parse_load lets only .npy files have a type
        raise SpecError(f"--load {name}: a typed load needs a .npy file")
    try:
        return convert(array, type_name)
    except ConversionError as err:
        raise SpecError(f"--load {name}: {err}") from None
