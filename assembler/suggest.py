"""What to say about a mnemonic vcore does not know: a likely typo of an instruction of the same kind,
or, for an operation vcore does not have yet, that plainly (never a look-alike of another kind: a
divide is not a load, however close the letters).
"""

from __future__ import annotations

from vcore.isa import MNEMONICS

# Names a kernel developer types for operations (vcore's planned mnemonic, AscendC's API name, or the
# hardware's) that are not vcore's mnemonics: name -> what it is, and vcore's mnemonic for it. Until
# the table has that mnemonic, the name gets "vcore has no ... yet"; from then on, "did you mean ...".
# A name the table has as a mnemonic is never looked up here: it drops out of PLANNED by itself (and
# a test fails until it is deleted from NAMES).
NAMES = {
    "VCAST": ("type conversion", "VCONV.D.S"),
    "CAST": ("type conversion", "VCONV.D.S"),
    "DUPLICATE": ("fill (duplicate a scalar)", "VDUP"),
    "DIV": ("division", "VDIV"),
    "MOD": ("remainder", "VREM"),
    "VMOD": ("remainder", "VREM"),
    "FLOORMOD": ("remainder (FloorMod: VREM, then the sign fix of docs/semantics.md)", "VREM"),
    "VCMPV": ("compare", "VCMP.C"),
    "COMPARE": ("compare", "VCMP.C"),
    "SELECT": ("select", "VSEL"),
    "REDUCESUM": ("reduction (sum)", "VCADD"),
    "VTRANSPOSE": ("16x16 transpose", "VTRANS"),
    "TRANSPOSE": ("16x16 transpose", "VTRANS"),
    "TRANSDATATO5HD": ("multi-address transpose (TransDataTo5HD)", "VTRANS5HD"),
    "VNCHWCONV": ("multi-address transpose (TransDataTo5HD)", "VTRANS5HD"),
    "GATHERMASK": ("compaction by a pattern (GatherMask)", "VGATHERM"),
    "VREDUCEV2": ("compaction by a pattern (GatherMask)", "VGATHERM"),
    "SQUEEZE": ("register compaction (Squeeze)", "VSQZ"),
    "SORT32": ("sort of 32-record groups", "VSORT32"),
    "VBITSORT": ("sort of 32-record groups", "VSORT32"),
    "MRGSORT": ("merge sort", "VMRGSORT"),
    "VMRGSORT4": ("merge sort", "VMRGSORT"),
    "SORT": ("sort (VSORT32 sorts groups of 32, VMRGSORT merges them)", "VSORT32"),
    "HISTOGRAMS": ("histogram", "VHIST"),
    "INTERLEAVE": ("register interleave", "VINTLV"),
    "DEINTERLEAVE": ("register de-interleave", "VDINTLV"),
}
PLANNED = {name: entry for name, entry in NAMES.items() if name not in MNEMONICS}

# No mnemonic is longer: a longer word is compared with none (the comparison costs its length times
# theirs, minutes for a line of megabytes).
MAX_NAME = 64


# Kinds of operation, told apart by the mnemonic's shape: a suggestion never crosses kinds.
_BRANCHES = ("BEQ", "BNE", "BLT", "BGE", "JMP")


def _kind(word: str) -> str:
    word = word.upper()
    if word.startswith("DMA"):
        return "dma"
    if word.startswith(("SET", "WAIT", "BAR")):
        return "sync"
    if word in _BRANCHES or word[:1] in ("B", "J"):
        return "branch"
    if word.startswith(("VLD", "VST", "VGA", "VSC", "PLD", "PST")):
        return "move"  # register loads, stores, gathers and scatters
    if word.startswith("P"):
        return "mask"
    if word.startswith("V"):
        return "compute"
    return "scalar"


def _distance(a: str, b: str) -> int:
    """Edit distance with adjacent transpositions (optimal string alignment)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], prev2[j - 2] + 1)
        prev2, prev = prev, row
    return prev[-1]


def unknown_mnemonic(word: str, known, suffix: str | None = None) -> str:
    """The message for an unknown mnemonic ``word`` (written with ``.suffix``), given the mnemonics vcore has."""
    upper = word.upper()
    known = {k.upper() for k in known}
    planned = PLANNED.get(f"{upper}.{suffix.upper()}") if suffix else None
    if planned is not None:
        word = upper = f"{upper}.{suffix.upper()}"
    planned = planned or PLANNED.get(upper)
    if planned is not None:
        what, mnemonic = planned
        if mnemonic.split(".")[0] in known:  # vcore has it now, under its own name
            return f"unknown mnemonic '{word}'; did you mean {mnemonic}?"
        later = f" (planned as {mnemonic})" if mnemonic != upper else ""
        return f"unknown mnemonic '{word}': vcore has no {what} instruction yet{later}"
    # A typo: one edit (two in a long name) from an instruction of the same kind.
    limit = 1 if len(upper) < 6 else 2
    kind = _kind(upper)
    close = [] if len(upper) > MAX_NAME else sorted((_distance(upper, k), k) for k in known if _kind(k) == kind)
    close = [k for d, k in close if d <= limit]
    if close:
        return f"unknown mnemonic '{word}'; did you mean {close[0]}?"
    return f"unknown mnemonic '{word}' (vcore has no such instruction; docs/isa.md lists every one)"
