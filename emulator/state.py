"""Machine state: UB, GM, scalar, vector and mask registers, and the access helpers on them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from vcore.emulator.faults import Fault, check_aligned, check_range
from vcore.emulator.memory_data import memory_bytes, type_named
from vcore.isa.types import TYPES
from vcore.isa.values import dtype_of

if TYPE_CHECKING:
    from vcore.emulator.profiles.profile import Profile
    from vcore.emulator.timing.engine import Engine

S_MASK = (1 << 64) - 1
S_SIGN = 1 << 63
MAX_GM_SIZE = 1 << 32
ALL_LANES = ("all lanes",)  # State.lane_mask: every lane is enabled (truthy, like the pairs it stands beside)
_LANE_MASKS_KEPT = 4096  # distinct masks cached per lane width before the cache starts again


def active_lanes(p: np.ndarray, width: int) -> np.ndarray:
    """Lane activity of a mask register for lanes of ``width`` bytes: a mask register holds 256
    bools, one per byte of VL, and a w-byte lane i is active when entry i*w is set (``p`` may have
    leading axes: a loop's passes, ``emulator.functions.fast_data``)."""
    return p[..., ::width]


def lanes_to_mask(active: np.ndarray, width: int) -> np.ndarray:
    """A mask register's 256 entries from the activity of its lanes: writers set all w entries of a lane."""
    return np.repeat(active, width, axis=-1)


def wrap64(value: int) -> int:
    """A Python int as the signed 64-bit value a scalar register holds."""
    value &= S_MASK
    return value - (1 << 64) if value & S_SIGN else value


class _RegisterViews(dict):
    """element type name -> the 32 vector registers viewed as that type, made when first asked for
    (so ml_dtypes, slow to import, is loaded only by a program that uses bf16)."""

    def __init__(self, v: np.ndarray) -> None:
        super().__init__()
        self.v = v

    def __missing__(self, name: str) -> list:
        views = self[name] = [self.v[i].view(dtype_of(TYPES[name])) for i in range(32)]
        return views


class _RegisterRows(dict):
    """element type name -> the vector register file viewed as that type, one row a register (a
    write target: ``rows[vd] = values``), made when first asked for."""

    def __init__(self, v: np.ndarray) -> None:
        super().__init__()
        self.v = v

    def __missing__(self, name: str) -> np.ndarray:
        rows = self[name] = self.v.view(dtype_of(TYPES[name]))
        return rows


def register_file() -> tuple:
    """Zeroed V and P registers, with V's typed views: each vector register as an array of each
    element type (register instructions index these lists instead of viewing a row of ``v`` every
    time), and the file as rows of each type. ``(v, p, v_as, v_rows)``."""
    v = np.zeros((32, 256), dtype=np.uint8)
    return v, np.zeros((8, 256), dtype=np.bool_), _RegisterViews(v), _RegisterRows(v)


# The special registers the vector unit writes and the scalar unit reads (CONTRACT 13.4, 13.6), as the bytes
# of the race space ``spr``: name -> (byte offset, bytes). Each instruction's register is a block of its own,
# so that only accesses to one register meet: RSVDCNT (VGATHERM), AR (VSQZ ..., ar; CLRAR), MRGCNT0..3 (VMRGSORT).
SPR_PLACES = {"RSVDCNT": (0, 8), "AR": (32, 8), **{f"MRGCNT{k}": (64 + 2 * k, 2) for k in range(4)}}
SPR_BYTES = 96


class State:
    """The architectural state: it owns UB, GM, the scalar, vector and mask registers, and their typed
    views. Memories are uint8 arrays; registers are plain arrays too."""

    def __init__(self, ub_size: int, gm_size: int, gm: np.ndarray | None = None) -> None:
        """``gm``: GM's bytes when they are given (a kernel's core maps the kernel's), else zeros."""
        if not 0 < gm_size <= MAX_GM_SIZE:
            raise ValueError(f"GM size {gm_size} out of range 1..{MAX_GM_SIZE}")
        self.ub = np.zeros(ub_size, dtype=np.uint8)
        self.gm = np.zeros(gm_size, dtype=np.uint8) if gm is None else gm
        self.s = [0] * 32
        self.v, self.p, self.v_as, self.v_rows = register_file()
        self.spr = np.zeros(SPR_BYTES, dtype=np.uint8)  # the special registers (``SPR_PLACES``), zero at the start
        self.views: dict = {}  # (space, element type name) -> a typed view of the whole memory
        self.lane_masks: dict = {1: {}, 2: {}, 4: {}}  # per lane width: mask bytes -> lane_mask()

    def lane_mask(self, pm: int, width: int):
        """The lanes of ``width`` bytes that mask register ``pm`` enables, as a pair of arrays
        (1 or 0 per lane as a word of that width, True or False per byte), or ALL_LANES when every
        lane is. Cached by the register's contents, so each distinct mask is worked out once."""
        cache = self.lane_masks[width]
        key = self.p[pm].tobytes()
        found = cache.get(key)
        if found is None:
            lanes = self.p[pm][::width]
            found = ALL_LANES if lanes.all() else (lanes.astype(f"<u{width}"), np.repeat(lanes, width))
            if len(cache) >= _LANE_MASKS_KEPT:
                cache.clear()
            cache[key] = found
        return found

    def memory(self, space: str) -> np.ndarray:
        return self.ub if space == "ub" else self.gm if space == "gm" else self.spr

    def view(self, space: str, etype) -> np.ndarray:
        """A typed view of a whole memory (its size is a multiple of every element size)."""
        key = (space, etype.name)
        view = self.views.get(key)
        if view is None:
            view = self.views[key] = self.memory(space).view(dtype_of(etype))
        return view

    def set_s(self, index: int, value: int) -> None:
        if index:
            self.s[index] = wrap64(value)

    def ub_block_address(self, ref, what: str) -> int:
        """The UB address of an operand, checked to be 32-byte aligned."""
        addr = ref.offset if ref.reg is None else self.s[ref.reg] + ref.offset
        check_aligned(addr, what)
        return addr

    def check_ub(self, start: int, end: int, what: str) -> None:
        check_range("UB", self.ub.size, start, end, what)

    def check_gm(self, start: int, end: int, what: str) -> None:
        check_range("GM", self.gm.size, start, end, what)

    def read_bytes(self, space: str, addr: int, count: int) -> np.ndarray:
        mem = self.memory(space)
        check_range(space.upper(), mem.size, addr, addr + count, "read")
        return mem[addr:addr + count]

    def write(self, space: str, addr: int, values, type: str | None = None, *, stacklevel: int = 2) -> None:
        """Copy values into UB or GM at ``addr``: with ``type`` (``"f32"``, ``"s8"``, ...) a list,
        tuple, number or array converted to that type (a ValueError names the first value that does
        not convert); without one, a numpy array's bytes (little endian) or raw ``bytes`` as they
        are, with a DataWarning for a float64 array (vcore has no such type). A plain list without
        a type is a TypeError. See emulator/memory_data.py. (``stacklevel``: the warning's, as
        ``warnings.warn`` takes it, for a caller that passes its own caller's values on.)"""
        raw = memory_bytes(space, addr, values, type, stacklevel=stacklevel)
        mem = self.memory(space)
        if addr < 0 or addr + raw.size > mem.size:
            raise Fault(f"{raw.size} bytes at {space}:0x{addr:x} run past the end of {space.upper()} "
                        f"(size 0x{mem.size:x})")
        mem[addr:addr + raw.size] = raw

    def read(self, space: str, addr: int, type_name: str, count: int) -> np.ndarray:
        """``count`` elements of ``type_name`` at ``addr`` (a copy); a ValueError for a type vcore has not."""
        etype = type_named(type_name)
        raw = self.read_bytes(space, addr, count * etype.size)
        return raw.copy().view(dtype_of(etype))


__all__ = ["MAX_GM_SIZE", "Fault", "State", "register_file", "wrap64"]


class CoreState(State):
    """What one core's instructions run on outside a vector function (each binder's ``run`` gets
    it): it owns the core's architectural state (``State``), and holds the profile, the core's
    place in a kernel (``core`` of ``cores``, and ``gm_log``, the record of its GM accesses a kernel
    keeps; None on its own) and the engine's entry points its instructions hand their jobs to
    (``submit``, and ``scalar_access`` for LD and ST)."""

    def __init__(self, profile: Profile, gm_size: int, core: int, cores: int, gm: np.ndarray | None = None) -> None:
        super().__init__(profile.ub_size, gm_size, gm)
        self.profile = profile
        self.core, self.cores = core, cores
        self.gm_log: list | None = None  # (write, addr, bytes, pitch, blocks, pc, job) of each GM access
        self.submit = self.scalar_access = None

    def connect(self, engine: Engine) -> None:
        """Hand this core's jobs to ``engine`` from now on."""
        self.submit = engine.submit
        self.scalar_access = engine.scalar_access

    def load_data(self, program) -> None:
        """Place a program's data directives (``.ub``, ``.gm``, ``.ubfill``, ``.gmfill``) into memory; a
        directive past the end of its memory is a fault at the directive's place."""
        places = program.data_source or ()
        for k, rec in enumerate(program.data):
            mem = self.memory(rec.space)
            if rec.addr + rec.nbytes > mem.size:
                fault = Fault(f".{rec.space}{'fill' if rec.kind == 'fill' else ''} data at 0x{rec.addr:x} "
                              f"({rec.nbytes} bytes) runs past the end of {rec.space.upper()} (size 0x{mem.size:x})")
                if k < len(places):  # the directive's place, as an assembly error names it
                    line, col, text = places[k]
                    fault.where = f"{program.filename}:{line}:{col}"
                    fault.message += f"\n{text}"
                raise fault
            if rec.kind == "fill":
                element = np.frombuffer(rec.payload, dtype=np.uint8)
                mem[rec.addr:rec.addr + rec.nbytes] = np.tile(element, rec.count)
            else:
                mem[rec.addr:rec.addr + rec.nbytes] = np.frombuffer(rec.payload, dtype=np.uint8)
