"""The command line's memory specs: ``--load SPACE:ADDR[:TYPE]=FILE`` and ``--dump SPACE:ADDR:TYPE:COUNT[=FILE]``.

A typed load (``ub:0x0:f32=x.npy``) converts the ``.npy`` array to TYPE before its bytes are copied.
To an integer TYPE every element must be a whole number that TYPE holds (an integer or bool array,
or a float array of whole numbers); to a float TYPE values round to nearest even, as numpy and
ml_dtypes' ``astype`` round them, and a finite value too large for TYPE (one that would become inf,
or NaN in e4m3, which has no inf) is an error, as is an infinity converted to e4m3. NaN stays NaN.
Anything else is refused with the first element that does not convert, by index and value.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from attrs import frozen

from isa import TYPES
from isa.values import dtype_of
from vcore.formatting import format_line

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


def read_load(spec: LoadSpec) -> tuple[np.ndarray | bytes, list[str]]:
    """The data that ``spec`` copies into memory (converted to its type, if it has one) and any
    warnings about it."""
    data = read_load_file(spec.file)
    if spec.type is not None:
        return convert_array(data, spec.type, spec.name), []
    warnings = []
    if isinstance(data, np.ndarray) and data.dtype.kind == "f" and data.dtype.itemsize == 8:
        warnings.append(
            f"warning: --load {spec.name}: {spec.file} holds {data.dtype.name} values (8 bytes each) and vcore has "
            f"no 64-bit float type, so their bytes are copied as they are, not as f32; to convert them, use --load "
            f"{spec.space}:0x{spec.addr:x}:f32={spec.file} (or another TYPE), or save the array with "
            f".astype(np.float32)")
    return data, warnings


def _element(array: np.ndarray, flat_index: int) -> str:
    """``element 3 (300)`` of a 1-d array, ``element (1, 2) (300)`` of others."""
    where = flat_index if array.ndim == 1 else tuple(int(i) for i in np.unravel_index(flat_index, array.shape))
    value = np.ascontiguousarray(array).reshape(-1)[flat_index:flat_index + 1]
    if array.dtype.kind == "f" and array.dtype.itemsize in (2, 4):
        text = format_line(value.astype(f"<f{array.dtype.itemsize}"), "f16" if array.dtype.itemsize == 2 else "f32")
    elif array.dtype.kind == "f":
        text = repr(float(value[0]))
    else:
        text = str(value[0].item())
    return f"element {where} ({text})" if array.ndim else f"its value ({text})"


def convert_array(array, type_name: str, name: str) -> np.ndarray:
    """``array`` as ``type_name`` (little endian), or a SpecError naming the load ``name`` and the
    first element that does not convert (see the module doc)."""
    if not isinstance(array, np.ndarray):  # parse_load lets only .npy files have a type
        raise SpecError(f"--load {name}: a typed load needs a .npy file")
    etype = TYPES[type_name]
    dtype = dtype_of(etype)
    kind = array.dtype.kind
    if kind not in "biuf":
        raise SpecError(f"--load {name}: {array.dtype} values cannot be converted to {type_name}")
    flat = np.ascontiguousarray(array).reshape(-1)  # C order: the order the bytes are copied in
    if etype.is_float:
        source = flat.astype(np.float64) if kind == "f" and array.dtype.itemsize > 8 else flat
        with np.errstate(over="ignore", invalid="ignore"):
            converted = source.astype(dtype)
            wide = converted.astype(np.float32)
        if kind == "f":
            bad = (np.isfinite(flat) & ~np.isfinite(wide)) | (np.isinf(flat) & np.isnan(wide))
        else:
            bad = ~np.isfinite(wide)
        if bad.any():
            first = int(np.argmax(bad))
            raise SpecError(f"--load {name}: {_element(array, first)} is too large for {type_name} (largest finite "
                            f"{_largest(dtype):.8g}{'; e4m3 has no infinity' if type_name == 'e4m3' else ''})")
        return converted.reshape(array.shape)
    lo, hi = etype.int_range()
    if kind == "f":
        with np.errstate(invalid="ignore"):
            whole = np.isfinite(flat) & (flat == np.floor(flat))
        if not whole.all():
            first = int(np.argmax(~whole))
            raise SpecError(f"--load {name}: {_element(array, first)} is not a whole number, and {type_name} "
                            f"holds whole numbers only ({lo}..{hi})")
        wide = flat.astype(np.float64)  # exact for f16, f32, f64; the bounds are exact in it too
        bad = (wide < lo) | (wide > hi)
    elif kind == "u":
        bad = flat.astype(np.uint64) > np.uint64(hi)
    elif kind == "i":
        wide = flat.astype(np.int64)
        bad = (wide < lo) | (wide > hi)
    else:
        bad = np.zeros(flat.shape, dtype=bool)
    if bad.any():
        first = int(np.argmax(bad))
        raise SpecError(f"--load {name}: {_element(array, first)} does not fit in {type_name} ({lo}..{hi})")
    return flat.astype(dtype).reshape(array.shape)


def _largest(dtype: np.dtype) -> float:
    if dtype in (np.dtype("<f2"), np.dtype("<f4")):
        return float(np.finfo(dtype).max)
    import ml_dtypes  # noqa: PLC0415  (already loaded: dtype is one of its types)

    return float(ml_dtypes.finfo(dtype).max)
