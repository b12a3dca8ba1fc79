"""Located diagnostics: every assembler error is a value with a file, line and column."""

from __future__ import annotations

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


@frozen
class Diagnostic:
    location: Location
    message: str
    source_line: str = ""
    severity: str = "error"  # or "warning": reported, and the program still assembles

    def format(self) -> str:
        loc = self.location
        text = f"{loc.file}:{loc.line}:{loc.col}: {self.severity}: {self.message}"
        if self.source_line:
            # Keep the line's tabs in the padding so the caret sits under the column on any terminal.
            pad = "".join(c if c == "\t" else " " for c in self.source_line[:loc.col - 1])
            caret = pad + "^" + "~" * max(0, min(loc.length, len(self.source_line)) - 1)
            text += f"\n{self.source_line}\n{caret}"
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
