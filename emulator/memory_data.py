"""What a write into UB or GM copies: values converted to an element type, or an array's raw bytes.

``Machine.write(space, addr, values, type)`` and a typed ``--load SPACE:ADDR:TYPE=FILE.npy`` convert
with ``convert`` below. To an integer TYPE every element must be a whole number that TYPE holds (an
integer or bool array, or a float array of whole numbers); to a float TYPE values round to nearest
even, as numpy and ml_dtypes' ``astype`` round them, and a finite value too large for TYPE (one that
would become inf, or NaN in e4m3, which has no inf) is an error, as is an infinity converted to e4m3.
NaN stays NaN. Anything else is refused with the first element that does not convert, by index and
value.

Without a type, an array's bytes are copied as they are (little endian). vcore has no 64-bit float
type, so a float64 array copied that way is most likely a mistake (values meant as f32): ``wide_floats``
says so, and the writers warn (``DataWarning`` from the API, a ``warning:`` line from the CLI).
"""

from __future__ import annotations

import warnings

import numpy as np

from vcore.isa.types import TYPES
from vcore.isa.values import dtype_of, format_value

DATA_TYPES = tuple(t.name for t in TYPES.values() if t.kind != "mask")


class ConversionError(ValueError):
    """Values that do not convert to the type asked for (the message names the first one)."""


class DataWarning(UserWarning):
    """Data written as raw bytes that were most likely meant as values of a vcore type."""


def type_named(name: str):
    """The element type ``name`` (f16, ..., u64), or a ValueError that names the types there are."""
    etype = TYPES.get(name) if isinstance(name, str) else None
    if etype is None or etype.kind == "mask":
        raise ValueError(f"vcore has no type {name!r} (types: {', '.join(DATA_TYPES)})")
    return etype


def raw_bytes(data) -> np.ndarray:
    """An array's bytes (little endian, C order) or raw bytes, as a flat uint8 array."""
    if isinstance(data, np.ndarray):
        arr = data.astype(data.dtype.newbyteorder("<"), copy=False) if data.dtype.byteorder == ">" else data
        return np.ascontiguousarray(arr).view(np.uint8).reshape(-1)
    return np.frombuffer(bytes(data), dtype=np.uint8)


def wide_floats(array) -> str | None:
    """Why copying ``array``'s bytes as they are is most likely a mistake (floats of 8 bytes or more,
    which no vcore type holds), or None."""
    if isinstance(array, np.ndarray) and array.dtype.kind == "f" and array.dtype.itemsize >= 8:
        return (f"holds {array.dtype.name} values ({array.dtype.itemsize} bytes each) and vcore has no "
                f"{array.dtype.itemsize * 8}-bit float type, so their bytes are copied as they are, not as f32")
    return None


def memory_bytes(space: str, addr: int, values, type_name: str | None = None, stacklevel: int = 1) -> np.ndarray:
    """The bytes that ``write(space, addr, values, type_name)`` copies: ``values`` (a list, a tuple,
    a number or an array) converted to ``type_name``; without a type, a numpy array's or bytes'
    own bytes, with a DataWarning for a float64 array, shown at the frame ``stacklevel`` above this
    function (1: its caller). A plain list without a type is a TypeError."""
    if type_name is not None:
        etype = type_named(type_name)
        label = f"write {space}:0x{addr:x}:{etype.name}"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")   # numpy's own on ragged lists: the error says it
                array = np.asarray(values)
        except (ValueError, TypeError):
            raise ConversionError(f"{label}: these values cannot be converted to {etype.name} (give a flat list "
                                  "of numbers or a numpy array)") from None
        try:
            return raw_bytes(convert(array, etype.name))
        except ConversionError as err:
            raise ConversionError(f"{label}: {err}") from None
    if isinstance(values, np.generic):
        values = np.asarray(values)
    if not isinstance(values, np.ndarray | bytes | bytearray | memoryview):
        raise TypeError(f"write {space}:0x{addr:x}: {type(values).__name__} values need a type, to say which "
                        f"bytes they become: write({space!r}, 0x{addr:x}, [1, 2, 3], 'f32') (or give a numpy "
                        f"array or bytes, whose bytes are copied as they are)")
    reason = wide_floats(values)
    if reason is not None:
        warnings.warn(f"write {space}:0x{addr:x}: the array {reason}; to convert them, give a type: "
                      f"write({space!r}, 0x{addr:x}, values, 'f32') (or another type)", DataWarning,
                      stacklevel=stacklevel + 1)
    return raw_bytes(values)


def _element(array: np.ndarray, flat_index: int) -> str:
    """``element 3 (300)`` of a 1-d array, ``element (1, 2) (300)`` of others."""
    where = flat_index if array.ndim == 1 else tuple(int(i) for i in np.unravel_index(flat_index, array.shape))
    value = np.ascontiguousarray(array).reshape(-1)[flat_index]
    if array.dtype.kind == "f" and array.dtype.itemsize in (2, 4):  # its shortest digits in its own type
        text = format_value(float(value), TYPES["f16" if array.dtype.itemsize == 2 else "f32"])
    elif array.dtype.kind == "f":
        text = repr(float(value))
    else:
        text = str(value.item())
    return f"element {where} ({text})" if array.ndim else f"its value ({text})"


def convert(array: np.ndarray, type_name: str) -> np.ndarray:
    """``array`` as ``type_name`` (little endian), or a ConversionError naming the first element that
    does not convert (see the module doc)."""
    etype = TYPES[type_name]
    dtype = dtype_of(etype)
    kind = array.dtype.kind
    if kind not in "biuf":
        raise ConversionError(f"{array.dtype} values cannot be converted to {type_name}")
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
            raise ConversionError(f"{_element(array, first)} is too large for {type_name} (largest finite "
                                  f"{_largest(dtype):.8g}{'; e4m3 has no infinity' if type_name == 'e4m3' else ''})")
        return converted.reshape(array.shape)
    lo, hi = etype.int_range()
    if kind == "f":
        with np.errstate(invalid="ignore"):
            whole = np.isfinite(flat) & (flat == np.floor(flat))
        if not whole.all():
            first = int(np.argmax(~whole))
            raise ConversionError(f"{_element(array, first)} is not a whole number, and {type_name} holds whole "
                                  f"numbers only ({lo}..{hi})")
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
        raise ConversionError(f"{_element(array, first)} does not fit in {type_name} ({lo}..{hi})")
    return flat.astype(dtype).reshape(array.shape)


def _largest(dtype: np.dtype) -> float:
    if dtype in (np.dtype("<f2"), np.dtype("<f4")):
        return float(np.finfo(dtype).max)
    import ml_dtypes  # noqa: PLC0415  (already loaded: dtype is one of its types)

    return float(ml_dtypes.finfo(dtype).max)
