"""Distribution modes of the register loads and stores (``VLD``, ``VST``, ``PLD``, ``PST`` ``dist=``).

A mode says which UB bytes an access reads or writes and how they map to register lanes. Its name
as written (``brc_b16``, ``pack4_b32``) is a *family* (``brc``, ``pack4``) and, for most families, a
width suffix that T's width fixes; the instruction words hold only the family, as its number in
the row's ``dist`` choices, so a family that exists for several widths costs no more bits than one.

Everything about a mode is data here: its UB bytes, its alignment, how many vector registers it
moves, whether a store reads a mask, whether it moves 512 bytes (two register widths, which the
950 issues alone and prices as two cycles of its unit). The assembler (``assembler.distribution``),
the encoder (``isa.encoding``) and the emulator (``emulator.semantics.register_dist``) read it.
"""

from __future__ import annotations

from attrs import frozen

from vcore.isa.model import Keyword


@frozen
class Mode:
    """One distribution mode of one instruction (mnemonic)."""

    name: str  # as written, lower case: ``brc_b16``
    family: str  # the row's choice that encodes it: ``brc``
    mnemonic: str  # VLD, VST, PLD, PST
    width: int  # T's width in bytes (0: any)
    nbytes: int  # UB bytes read, or covered by a store
    align: int  # alignment of the UB address (and of a post= step), in bytes
    registers: int = 1  # vector registers loaded or stored
    masked: bool = True  # a store that reads Pm (loads: unused)
    suffix: int = 1  # the name's width suffix over T's bits (pack_b16 of an 8-bit T: 2)

    @property
    def load(self) -> bool:
        return self.mnemonic in ("VLD", "PLD")

    @property
    def wide(self) -> bool:
        """Whether it moves 512 bytes (two registers' worth): ``ds_*``, ``dintlv_*``, ``intlv_*``."""
        return self.nbytes > 256


def _sized(family: str, mnemonic: str, widths, nbytes, align, **kw) -> list[Mode]:
    """A family with a width suffix, one mode per T width; ``nbytes`` and ``align`` may depend on it."""
    out = []
    for w in widths:
        size = nbytes(w) if callable(nbytes) else nbytes
        aligned = align(w) if callable(align) else align
        out.append(Mode(f"{family}_b{8 * w * kw.get('suffix', 1)}", family, mnemonic, w, size, aligned, **kw))
    return out


# CONTRACT 13.1 load table (one destination, then two), 13.1 store table, 13.2 mask modes.
MODES: tuple[Mode, ...] = (
    Mode("norm", "norm", "VLD", 0, 256, 32),
    *_sized("brc", "VLD", (1, 2, 4), lambda w: w, lambda w: w),
    *_sized("us", "VLD", (1, 2), 128, 32),
    *_sized("ds", "VLD", (1, 2), 512, 32),
    *_sized("unpack", "VLD", (1, 2, 4), 128, 32),
    *_sized("unpack4", "VLD", (1,), 64, 32),
    Mode("blk", "blk", "VLD", 0, 32, 32),
    *_sized("e2b", "VLD", (2,), 16, 16),
    *_sized("e2b", "VLD", (4,), 32, 32),
    *_sized("dintlv", "VLD", (1, 2, 4), 512, 32, registers=2),
    Mode("norm", "norm", "VST", 0, 256, 32),
    *_sized("norm", "VST", (1, 2, 4), 256, 32),
    *_sized("first", "VST", (1, 2, 4), lambda w: w, lambda w: w, masked=False),
    *_sized("pack", "VST", (1, 2), 128, 32, suffix=2),
    *_sized("pack4", "VST", (1,), 64, 32, suffix=4),
    *_sized("intlv", "VST", (1, 2, 4), 512, 32, registers=2, masked=False),
    Mode("norm", "norm", "PLD", 0, 32, 32),
    Mode("us", "us", "PLD", 0, 16, 16),
    Mode("ds", "ds", "PLD", 0, 64, 32),
    Mode("norm", "norm", "PST", 0, 32, 32),
    Mode("pack", "pack", "PST", 0, 16, 16),
)

BY_NAME: dict[tuple[str, str], Mode] = {(m.mnemonic, m.name): m for m in MODES}
# (mnemonic, family, T width) -> the mode the words mean; a family of any width answers for every width
_CANONICAL: dict[tuple[str, str, int], Mode] = {}
for _m in MODES:
    for _w in ((1, 2, 4) if _m.width == 0 else (_m.width,)):
        _CANONICAL.setdefault((_m.mnemonic, _m.family, _w), _m)
del _m, _w

# The ``dist`` choices of each row, in the order the words number them.
VLD_ONE = ("norm", "brc", "us", "ds", "unpack", "unpack4", "blk", "e2b")
VLD_TWO = ("dintlv",)
VST_NORM = ("norm",)
VST_PACK = ("pack", "pack4")
VST_FIRST = ("first",)
VST_TWO = ("intlv",)
PLD_MODES = ("norm", "us", "ds")
PST_MODES = ("norm", "pack")
UNSUPPORTED = {("VST", "pack_b64"): "dist=pack_b64 needs 64-bit lanes, which vcore does not have"}


def keyword(mnemonic: str, choices: tuple[str, ...], *, required: bool = False) -> Keyword:
    """The ``dist=`` field of a row whose modes are these families: their number, in as few bits as they
    need (none for a row of one family); T's width names the mode of the family."""
    bits = (len(choices) - 1).bit_length()
    names = ", ".join(m.name for m in MODES if m.mnemonic == mnemonic and m.family in choices)
    doc = f"distribution mode ({names}); the words hold its family, T's width the rest"
    return Keyword("dist", bits, 0, len(choices) - 1, default=None if required else 0, required=required,
                   choices=choices, doc=doc)


def normalize(written: str) -> str:
    """A mode name as written (any case, with or without AscendC's ``DIST_`` prefix) in vcore's spelling."""
    name = written.lower()
    return name[5:] if name.startswith("dist_") else name


def names_of(mnemonic: str) -> list[str]:
    return [m.name for m in MODES if m.mnemonic == mnemonic]


def mode_of(inst) -> Mode | None:
    """The mode an instruction's words mean (None: its row has no ``dist=``, or a family that has no mode
    of its T's width: ``problems`` refuses such words)."""
    spec = inst.row.keyword("dist")
    if spec is None:
        return None
    value = inst.kw("dist")
    if value is None or not 0 <= value < len(spec.choices):
        return None
    family = spec.choices[value]
    width = inst.type.size if inst.type is not None else 1
    return _CANONICAL.get((inst.row.mnemonic, family, width))


def alignment(inst) -> int:
    """The alignment of the instruction's UB address (and the unit of an ``[Sn + EXPR]`` offset in its
    words): its mode's, 32 bytes for any other UB operand."""
    mode = mode_of(inst)
    return 32 if mode is None else mode.align


def width_words(mode: Mode, types: tuple[str, ...], type_sizes: dict[str, int]) -> str:
    """``VST.s8 or VST.u8``: the instruction with each of its types of the mode's width; for a pack store
    its integer ones (its float types of that width take it too, but narrowing is integer work)."""
    fitting = [t for t in types if type_sizes[t] == mode.width]
    if mode.family.startswith("pack"):
        fitting = [t for t in fitting if t[0] in "su"] or fitting
    names = [f"{mode.mnemonic}.{t}" for t in fitting]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
