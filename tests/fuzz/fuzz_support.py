"""Shared set-up of the fuzzers: example counts, seeds, the per-property input counters, and the
record of known product bugs.

Example counts come from ``VCORE_FUZZ_EXAMPLES``:

- unset: each property runs its small default count (so ``make test`` stays fast) from a fixed seed,
  so CI is deterministic;
- set to N: every property runs N examples from a random seed (the long run, ``make fuzz``).

Every property calls ``tried(name)`` once per input; ``conftest.py`` prints the totals at the end
of the session (``fuzz: N inputs tried``), so a run says how much it explored.

Known bugs: when the product misbehaves, the failing input is kept as a regression test marked
``xfail(strict=True)`` (see ``test_fuzz_regressions.py``), and the bug's signature is listed in
``KNOWN_BUGS`` so that the properties set such inputs aside (counted as ``known bug ...``) instead of
failing on them forever. When a bug is fixed its regression test XPASSes, which fails the run (strict):
remove the signature and the ``xfail`` then.
"""

from __future__ import annotations

import itertools
import os
import sys
import traceback
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, seed, settings

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

_ENV = os.environ.get("VCORE_FUZZ_EXAMPLES", "").strip()
LONG_RUN = bool(_ENV)
EXAMPLES = int(_ENV) if LONG_RUN else None
FIXED_SEED = 20240607

COUNTS: Counter = Counter()
KNOWN_HITS: Counter = Counter()
OUTCOMES: Counter = Counter()  # how inputs went, where a property tells (not added to the inputs tried)


def tried(name: str) -> None:
    """Count one input tried by property ``name``."""
    COUNTS[name] += 1


def went(outcome: str) -> None:
    """Count one run that ended as ``outcome`` (printed beside the inputs tried)."""
    OUTCOMES[outcome] += 1


def fuzz(default_examples: int):
    """Hypothesis settings of one property: ``default_examples`` from a fixed seed, or, in a long
    run, ``VCORE_FUZZ_EXAMPLES`` from a random seed. No example database: the default run must not
    depend on earlier runs, and failures are kept as explicit regression tests instead."""
    examples = EXAMPLES if LONG_RUN else default_examples
    chosen = settings(
        max_examples=examples,
        deadline=None,
        database=None,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large,
                               HealthCheck.large_base_example],
    )

    def decorate(test):
        test = chosen(test)
        return test if LONG_RUN else seed(FIXED_SEED)(test)

    return decorate


# -- known product bugs -------------------------------------------------------------------------

class KnownBug:
    """A product bug already recorded as a strict-xfail regression test.

    ``matches(exc)`` says whether an exception is this bug: its type, and the product function (file
    suffix and function name) in which it was raised, i.e. the innermost frame outside the tests.
    """

    def __init__(self, key: str, exc_types: tuple[type, ...], where: tuple[str, str | None] | None = None,
                 text: str | None = None, line: str | None = None) -> None:
        self.key = key
        self.exc_types = exc_types
        self.where = where
        self.text = text  # a substring of the exception's message
        self.line = line  # a substring of the product source line that raised it

    def matches(self, exc: BaseException) -> bool:
        if not isinstance(exc, self.exc_types):
            return False
        if self.text is not None and self.text not in str(exc):
            return False
        if self.where is None:
            return True
        file_suffix, function = self.where
        frame = product_frame(exc)
        if frame is None or not frame.filename.endswith(file_suffix) or function not in (None, frame.name):
            return False
        return self.line is None or self.line in (frame.line or "")


class Symptom(Exception):
    """Raised by a property, never by the product, for a misbehaviour that is no exception of the
    product's (it accepted an input it must refuse, a paused run reported differently...): a
    ``KnownBug`` matching its text sets such inputs aside like an exception the product raised. A
    symptom no known bug matches fails the property."""


def accepted(broken: list[tuple[int, str]], who: str) -> Symptom:
    """What to raise when ``who`` accepted a program that ``strategies.function_problems`` found
    ``broken``: the text names the kinds of problem, so that a known bug can match one of them."""
    kinds = {kind for _, kind in broken}
    first = min(pc for pc, _ in broken)
    if "structure" in kinds:
        return Symptom(f"{who} accepted a program that breaks the shape of its vector functions (pc 0x{first:x})")
    parts = (["a branch into a vector function"] if "branch-into" in kinds else []) + \
        (["LOOP with a negative count"] if "loop-count" in kinds else [])
    return Symptom(f"{who} accepted a program with " + " and ".join(parts) + f" (pc 0x{first:x})")


RUNAWAY_COUNT = 1 << 20  # iterations of an empty hardware loop that take about a second


def runs_away(decoded) -> bool:
    """Whether a decoded program holds a hardware loop with an empty body (LOOP, then ENDLOOP) whose
    count is a register or more than ``RUNAWAY_COUNT``: known bug empty-loop-runs-away runs it that
    many times whatever --max-instructions says (2**32 - 1 times: an hour)."""
    for (_, a), (_, b) in itertools.pairwise(decoded):
        if a.row.mnemonic == "LOOP" and b.row.mnemonic == "ENDLOOP":
            count = a.operands[0]
            if count.reg is not None or count.imm > RUNAWAY_COUNT:
                return True
    return False


def set_aside_runaway(decoded) -> bool:
    """True (and counted) when the program ``runs_away`` while that bug is listed: do not run it.
    Once the bug is fixed (and its entry removed) such programs run like any other."""
    return runs_away(decoded) and known_bug(Symptom("an empty hardware loop runs past --max-instructions")) is not None


def product_frame(exc: BaseException):
    """The innermost traceback frame in product code (not in tests/ or the standard library)."""
    frames = traceback.extract_tb(exc.__traceback__)
    product = [f for f in frames if str(ROOT) in f.filename and "/tests/" not in f.filename
               and "/.venv/" not in f.filename]
    return product[-1] if product else None


# Each entry names its strict-xfail regression test in test_fuzz_regressions.py, e.g.
#     # test_register_number_past_int_digit_limit
#     KnownBug("asm-register-digit-limit", (ValueError,), ("assembler/parser.py", "register_of"), "Exceeds the limit"),
KNOWN_BUGS: list[KnownBug] = []


def known_bug(exc: BaseException) -> str | None:
    """The key of the known bug ``exc`` is, counting the hit; None for a new problem."""
    for bug in KNOWN_BUGS:
        if bug.matches(exc):
            KNOWN_HITS[bug.key] += 1
            return bug.key
    return None


def summary() -> str:
    lines = []
    for name in sorted(COUNTS):
        lines.append(f"fuzz: {COUNTS[name]} inputs tried by {name}")
    for outcome in sorted(OUTCOMES):
        lines.append(f"fuzz: {OUTCOMES[outcome]} runs {outcome}")
    for key in sorted(KNOWN_HITS):
        lines.append(f"fuzz: {KNOWN_HITS[key]} inputs set aside as known bug {key}")
    seed_text = "random seeds" if LONG_RUN else f"fixed seed {FIXED_SEED}"
    lines.append(f"fuzz: {sum(COUNTS.values())} inputs tried in total ({seed_text})")
    return "\n".join(lines)


def emit_summary() -> None:
    if COUNTS:
        stream = sys.__stderr__ or sys.stderr
        stream.write("\n" + summary() + "\n")
        stream.flush()


def load_strategies():
    """tests/strategies.py (tests/conftest.py puts tests/ on the path)."""
    import strategies

    return strategies


_VALID_BLOBS: list | None = None


def valid_programs() -> list:
    """(name, Program, .vbin bytes) of every program in programs/*.asm, assembled once."""
    global _VALID_BLOBS  # noqa: PLW0603  (a lazily built module-level cache)
    if _VALID_BLOBS is None:
        from vcore.assembler import assemble
        from vcore.isa.program import to_bytes

        out = []
        for path in sorted((ROOT / "programs").glob("*.asm")):
            program = assemble(path.read_text(), path.name)
            out.append((path.name, program, to_bytes(program)))
        _VALID_BLOBS = out
    return _VALID_BLOBS
