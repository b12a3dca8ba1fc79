"""The emulator refuses to start half-built: every table row must have semantics (a binder for its
family) and a price (its scheduling class priced by every built-in profile). Run once, at import."""

from __future__ import annotations

from emulator.costs import check_classes
from emulator.profile import BUILTIN, load_profile
from emulator.semantics import missing_families
from isa import TABLE


class IncompleteEmulator(RuntimeError):
    """A row the emulator cannot run or price: a developer's mistake, found before any program runs."""


def problems() -> list[str]:
    found = [f"family {family!r} has no semantics (no @implements binder)" for family in missing_families()]
    return found + check_classes(TABLE, [load_profile(name) for name in BUILTIN])


def check_emulator() -> None:
    found = problems()
    if found:
        raise IncompleteEmulator("the emulator is incomplete:\n  " + "\n  ".join(found))
