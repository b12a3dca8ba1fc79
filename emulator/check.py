"""The emulator refuses to start half-built: every table row must have semantics (a binder for its
family, and for arithmetic a kernel for every type it takes) and a price (its scheduling class
priced by every built-in profile). Run once, at import; the table's own data (forms, classes and
their units, examples) is checked before, when ``isa`` is imported (``isa.check``)."""

from __future__ import annotations

import tomllib

from vcore.emulator.arith import numerics
from vcore.emulator.profiles.profile import BUILTIN, Profile, ProfileError, builtin_text, load_profile
from vcore.emulator.semantics import reductions
from vcore.emulator.semantics.registry import missing_bank_rules, missing_families, missing_forms
from vcore.emulator.timing.costs import check_classes, is_arithmetic
from vcore.isa import TABLE, TYPES
from vcore.isa.classes import CLASSES


class IncompleteEmulator(RuntimeError):
    """A row the emulator cannot run or price: a developer's mistake, found before any program runs."""


# Types whose numpy dtype comes from ml_dtypes, an import of about a second: at import only their op
# is checked; the test suite builds their kernels too (``missing_kernels(every_type=True)``).
_LAZY_TYPES = ("bf16", "e4m3", "e5m2")


def missing_kernels(table=TABLE, every_type: bool = False) -> list[str]:
    """Rows priced per op whose arithmetic is their op's kernel (``row.kernel``: not a conversion, a
    compare or a select, which build theirs from the type pair, the condition or the selector) and
    whose op has no kernel in ``emulator.arith.numerics`` or ``emulator.semantics.reductions``, or
    whose kernel cannot be built for a type they take."""
    found = []
    for row in table:
        if row.timing not in CLASSES or not is_arithmetic(row.timing) or not row.kernel:
            continue
        build = reductions.kernel if row.op in reductions.OPS else numerics.kernel
        if row.op not in numerics.kernel_ops() and row.op not in reductions.OPS:
            found.append(f"{row.mnemonic} ({row.form}): op {row.op!r} has no kernel in emulator.arith.numerics")
            continue
        for name in row.types:
            if name in _LAZY_TYPES and not every_type:
                continue
            try:
                build(row.op, TYPES[name])
            except (KeyError, TypeError, ValueError) as err:
                found.append(f"{row.mnemonic}.{name} ({row.form}): its kernel cannot be built ({err!r})")
    return found


def missing_price_keys(tables: dict[str, dict], table=TABLE, classes=CLASSES) -> list[str]:
    """The price keys of the classes the rows name that a built-in profile's TOML (``tables``: name -> its
    table as written, before the schema check) lacks, each named with its profile and class: a key
    taken out of the 950 profile, the schema, is named as missing there, not as one a2 should not have."""
    found = []
    for name, raw in tables.items():
        for timing in dict.fromkeys(row.timing for row in table):
            cls = classes.get(timing)
            if cls is not None and cls.price[1] not in raw.get(cls.price[0], {}):
                found.append(f"{name}: missing price key {'.'.join(cls.price)} used by class {timing}")
    return found


def _priced(table=TABLE) -> list[str]:
    """What keeps the built-in profiles from pricing the rows: a profile that does not load (named by
    the price keys it lacks, where those are why), or a row a loaded profile cannot price."""
    try:
        profiles = [load_profile(name) for name in BUILTIN]
    except ProfileError as err:
        raw = {name: tomllib.loads(builtin_text(name)) for name in BUILTIN}
        as_written = [Profile(name, tables, "") for name, tables in raw.items()]  # the rates each lacks
        return missing_price_keys(raw, table) or check_classes(table, as_written) or [str(err)]
    return check_classes(table, profiles)


def problems() -> list[str]:
    return missing_families() + missing_forms() + missing_kernels() + _priced()


def check_emulator() -> None:
    found = problems()
    found += missing_bank_rules()
    if found:
        raise IncompleteEmulator("the emulator is incomplete:\n  " + "\n  ".join(found))
