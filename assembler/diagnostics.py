"""Located diagnostics: every assembler error is a value with a file, line and column."""

from __future__ import annotations

import difflib
import re

from attrs import frozen


@frozen
class Site:
    """A place a line was expanded from: a macro's use, an .include, a .rept (``what`` says which)."""

    file: str
    line: int
    col: int
    what: str


@frozen
class Location:
    file: str
    line: int  # 1-based
    col: int  # 1-based
    length: int = 1
    via: tuple[Site, ...] = ()  # the expansions the line came through, innermost first


LONG_TOKEN = 64  # longer than any name: a message shows such a token by its start and its length
_TOKEN = re.compile(rf"[\w.$]{{{LONG_TOKEN + 1},}}")
LONG_LINE = 120  # a source line longer than this is echoed as SHOWN_COLUMNS of it around the caret
SHOWN_COLUMNS = 100
_BEFORE_CARET = 40  # of the shown columns, at most this many before the caret


def source_and_caret(line: str, col: int, length: int = 1) -> str:
    """The source line, then a caret under column ``col`` and ``~`` under the rest of ``length``
    columns. A long line is cut to the columns around the caret, with ``...`` where it was cut."""
    at = max(0, col - 1)
    start, end = 0, len(line)
    if len(line) > LONG_LINE:
        start = max(0, min(at - _BEFORE_CARET, len(line) - SHOWN_COLUMNS))
        end = min(len(line), start + SHOWN_COLUMNS)
    shown = ("..." if start else "") + line[start:end] + ("..." if end < len(line) else "")
    # Keep the line's tabs in the padding so the caret sits under the column on any terminal.
    pad = ("   " if start else "") + "".join(c if c == "\t" else " " for c in line[start:at])
    pad += " " * max(0, at - len(line))  # a caret just past the line's end
    return f"{shown}\n{pad}^" + "~" * max(0, min(length, end - at) - 1)


@frozen
class Diagnostic:
    location: Location
    message: str
    source_line: str = ""
    severity: str = "error"  # or "warning": reported, and the program still assembles

    def format(self) -> str:
        loc = self.location
        message = _TOKEN.sub(lambda found: f"{found.group()[:32]}... ({len(found.group())} characters)", self.message)
        text = f"{loc.file}:{loc.line}:{loc.col}: {self.severity}: {message}"
        if self.source_line:
            text += "\n" + source_and_caret(self.source_line, loc.col, loc.length)
        for site in loc.via:
            text += f"\n{site.file}:{site.line}:{site.col}: note: {site.what}"
        return text


def _source_order(d: Diagnostic) -> tuple:
    loc = d.location
    root = loc.via[-1].line if loc.via else loc.line
    return root, loc.line, loc.col


class AsmError(Exception):
    """One or more diagnostics; ``str()`` is their formatted text, one after another."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        # In source order: by the line of the program each came from, then its own place. A problem
        # in a body that several uses or repetitions expand is told once, at the first.
        unique = {}
        for d in diagnostics:
            unique.setdefault((d.location.file, d.location.line, d.location.col, d.message, d.severity), d)
        self.diagnostics = sorted(unique.values(), key=_source_order)
        super().__init__("\n".join(d.format() for d in self.diagnostics))


class LocatedError(Exception):
    """Raised inside the assembler for one problem at one place; collected into an AsmError."""

    def __init__(self, location: Location, message: str) -> None:
        super().__init__(message)
        self.location = location
        self.message = message


def did_you_mean(word: str, choices) -> str:
    """``; did you mean X?`` for the choice closest to ``word``, or nothing when none is close."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.5)
    return f"; did you mean {close[0]}?" if close else ""
