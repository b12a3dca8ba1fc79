"""Source expansion before parsing (CONTRACT 9, 13.8): ``.include``, ``.macro`` ... ``.endm``,
``.rept`` ... ``.endr``, conditional assembly (``.if`` ... ``.endif``, kept by
``assembler.conditionals``) and ``.error``, as a stream of lines that each know where they came from.

``expand`` yields ``Expanded`` lines lazily, so the assembler has seen every ``.equ`` before a
``.rept`` count or a ``.if`` that uses it is evaluated (by the assembler's own ``evaluate``
callback). A ``.if`` in a macro's body is evaluated at each use, with the arguments put in, and one
in a ``.rept`` block at each repetition. Lines of a branch not taken are not read. Each
line keeps its own file and line (the caret of a diagnostic points into the macro body or the
included file) and ``via``: the uses, includes and repetitions it came through, innermost first,
which a diagnostic prints as notes.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Callable, Generator, Iterator
from pathlib import Path

from attrs import frozen

from vcore.assembler.conditionals import CONDITIONAL, Conditions, directive_place
from vcore.assembler.diagnostics import LocatedError, Location, Site
from vcore.assembler.lexer import LINE_LABELS, strip_comment

MAX_SOURCE_BYTES = 32 << 20  # the most a program file (.asm or .vbin) or an included file may hold
MAX_DEPTH = 64  # nested macro uses and includes
MAX_REPT = 1 << 16  # repetitions of one .rept
MAX_LINES = 1 << 16  # lines an expansion may produce in all (the assembler takes about 7 s for that many)
# Steps an expansion may take in all: each line it reads (in a body skipped by .rept 0 too), each
# macro use and each repetition is one. Lines bound the assembler's work; steps bound the expander's,
# which uses of an empty macro or repetitions of an empty block do without producing a line (2^40
# uses of an empty macro never ended). About 2 s at most.
MAX_STEPS = 1 << 18

_DIRECTIVE = re.compile(LINE_LABELS + r"\s*\.(include|macro|endm|rept|endr|error)\b(.*)$", re.IGNORECASE)
_ERROR_TEXT = re.compile(r'\s*"([^"]*)"\s*(?:(?:;|//).*)?$')  # after .error: "TEXT", then maybe a comment
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
# A line's labels, then its first word (a macro's name, if one is defined).
_USE = re.compile("^" + LINE_LABELS + r"\s*([A-Za-z_][A-Za-z0-9_]*)(?=\s|$)(.*)$")
_ARGUMENT = re.compile(r"\\([A-Za-z_][A-Za-z0-9_]*|@)")
_OPEN, _CLOSE = "([", ")]"


class _TooDeep(Exception):
    """Unwinds a runaway nest of macro uses or includes to the line of the program that began it
    (one error; a macro that uses itself twice would otherwise branch 2^64 ways)."""


class _OverLimit(Exception):
    """Ends the whole expansion: it passed MAX_LINES or MAX_STEPS (told once, where it did)."""


class SourceTooLarge(OSError):
    """A program or included file that holds more than MAX_SOURCE_BYTES (read no further)."""


def read_source(path: str | os.PathLike) -> bytes:
    """The bytes of a program or included file, read no further than MAX_SOURCE_BYTES: a larger
    file, /dev/zero or an endless pipe is refused (SourceTooLarge, an OSError: its strerror says why)."""
    with open(path, "rb") as handle:
        data = handle.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        raise SourceTooLarge(errno.EFBIG, f"it holds more than {MAX_SOURCE_BYTES >> 20} MiB ({MAX_SOURCE_BYTES} "
                                          "bytes), the most vcore reads of a program or included file")
    return data


@frozen
class Expanded:
    text: str
    file: str
    line: int
    via: tuple[Site, ...] = ()
    shown: str | None = None  # what a diagnostic quotes, when not ``text`` (a line's labels, split off)


@frozen
class _Macro:
    name: str
    params: tuple[str, ...]
    body: tuple[Expanded, ...]  # as defined (before substitution)
    where: Location


def split_arguments(text: str) -> list[str]:
    """Comma-separated arguments, commas inside brackets or parentheses kept."""
    out, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth = max(0, depth - 1)
        elif c == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    out.append(text[start:].strip())
    return [] if out == [""] else out


class Expander:
    """Expands one program; ``read(path)`` gives an included file's text (or raises OSError)."""

    def __init__(self, read: Callable[[str], str], evaluate: Callable[[Expanded, str, Location], int],
                 reserved: Callable[[str], bool], defined: Callable[[str], bool]) -> None:
        self.read = read
        # A .rept, .if or .elif line, its directive and its expression's place -> the value (or LocatedError).
        self.evaluate = evaluate
        self.reserved = reserved  # a name a macro cannot take (a mnemonic)
        self.conditions = Conditions(evaluate, defined, self._fail)  # defined: .ifdef's question
        self.macros: dict[str, _Macro] = {}
        self.broken: set[str] = set()  # macros whose definition failed: their uses are not told again
        self.errors: list[LocatedError] = []
        self.uses = 0  # numbers the uses of macros, for \@
        self.produced = 0
        self.steps = 0

    def _fail(self, location: Location, message: str) -> None:
        self.errors.append(LocatedError(location, message))

    def expand(self, text: str, filename: str) -> Iterator[Expanded]:
        lines = [Expanded(line.removesuffix("\r"), filename, n) for n, line in enumerate(text.split("\n"), start=1)]
        try:
            yield from self._lines(lines, () if filename.startswith("<") else (str(Path(filename).resolve()),))
        except _OverLimit:
            return

    def _step(self, at: Location | Expanded) -> None:
        """Count a step of work at ``at`` (a place, or a line: its first word); past MAX_STEPS, the
        expansion ends there."""
        self.steps += 1
        if self.steps > MAX_STEPS:
            if isinstance(at, Expanded):
                at = self._at(at, len(at.text) - len(at.text.lstrip()) + 1)
            self._fail(at, f"the expansion passes its limit of {MAX_STEPS} steps (each line read, macro use "
                           "and repetition is one)")
            raise _OverLimit

    def _lines(self, lines: list[Expanded], files: tuple[str, ...], depth: int = 0) -> Iterator[Expanded]:
        """Expand a run of lines (a file, a macro's use, a repetition). The ``.if`` blocks it opens are
        its own: it must close them (CONTRACT 13.8), and they are gone when it ends, however it ends."""
        base = self.conditions.depth()
        try:
            i = 0
            while i < len(lines):
                item = lines[i]
                i += 1
                self._step(item)
                code = strip_comment(item.text)
                conditional = CONDITIONAL.match(code)
                if conditional is not None:
                    self.conditions.directive(item, conditional, base)
                elif self.conditions.active(base):  # a branch not taken: its other lines are not read
                    i = yield from self._line(lines, i, item, code, files, depth)
            self.conditions.close(base)
        finally:
            self.conditions.drop(base)

    def _line(self, lines: list[Expanded], i: int, item: Expanded, code: str, files: tuple[str, ...], depth: int
              ) -> Generator[Expanded, None, int]:
        """Expand one line that is assembled, ``lines[i - 1]``: a directive of the expansion, a macro's
        use or a line of its own; the index of the line after it (after a block's end)."""
        found = _DIRECTIVE.match(code)
        if found is None:
            yield from self._statement(item, code, files, depth)
            return i
        labels, word, rest = found.group(1), found.group(2).lower(), found.group(3)
        if labels.strip():  # labels before the directive name the place where its lines start
            yield Expanded(labels, item.file, item.line, item.via, item.text)
        at = directive_place(item, found)
        if word == "include":
            try:
                yield from self._include(item, rest, at, files, depth)
            except _TooDeep:
                if depth:
                    raise
        elif word in ("macro", "rept"):
            end, body, closer = self._block(lines, i, word, at)
            if body is not None and not self.conditions.check_body(body, closer, "endm" if word == "macro" else "endr"):
                body = None
            if word == "macro":
                self._define(rest, body, at)
            elif body is not None:
                col = found.start(3) + len(rest) - len(rest.lstrip()) + 1
                yield from self._repeat(item, rest, col, body, at, files, depth)
            return end
        elif word == "error":
            text = _ERROR_TEXT.match(item.text, found.end(2))
            self._fail(at, text.group(1) if text is not None and text.group(1).strip() else
                       '.error is written .error "TEXT"')
        else:
            opener = ".macro" if word == "endm" else ".rept"
            self._fail(at, f".{word} without a {opener} before it")
        return i

    def _statement(self, item: Expanded, code: str, files: tuple[str, ...], depth: int) -> Iterator[Expanded]:
        """A line that is not a directive of the expansion: a macro's use, expanded, or the line itself."""
        use = _USE.match(code)
        macro = self.macros.get(use.group(2).upper()) if use is not None else None
        if macro is None and use is not None and use.group(2).upper() in self.broken:
            return
        if macro is None:
            self.produced += 1
            if self.produced > MAX_LINES:
                self._fail(self._at(item, 1), f"the expansion passes its limit of {MAX_LINES} lines")
                raise _OverLimit
            yield item
            return
        try:
            yield from self._use(macro, item, use, files, depth)
        except _TooDeep:
            if depth:
                raise

    @staticmethod
    def _at(item: Expanded, col: int, length: int = 1) -> Location:
        return Location(item.file, item.line, col, length, item.via)

    def _block(self, lines: list[Expanded], start: int, word: str, at: Location):
        """The lines of a .macro or .rept block, up to its .endm or .endr (.rept blocks nest); the
        index after it, and None for the body when it never ends; and the place of its end."""
        close = "endm" if word == "macro" else "endr"
        depth = 0
        for j in range(start, len(lines)):
            self._step(at)
            found = _DIRECTIVE.match(strip_comment(lines[j].text))
            if found is None:
                continue
            inner = found.group(2).lower()
            if inner == word and word == "rept":
                depth += 1
            elif inner == "macro" and word == "macro":
                self._fail(self._at(lines[j], 1), "a .macro inside a .macro: define macros one after another")
            elif inner == close:
                if depth == 0:
                    return j + 1, lines[start:j], directive_place(lines[j], found)
                depth -= 1
        self._fail(at, f".{word} without its .{close}")
        return len(lines), None, at

    def _define(self, rest: str, body, at: Location) -> None:
        head = rest.strip()
        name, _, params_text = head.partition(" ")
        params = [p.strip() for p in params_text.split(",")] if params_text.strip() else []
        if not name or not _NAME.match(name):
            self._fail(at, ".macro is written .macro NAME [param, ...]")
            return
        if self.reserved(name):
            self._fail(at, f"'{name}' is an instruction: a macro cannot be called that")
            return
        bad = [p for p in params if not _NAME.match(p)]
        if bad:
            self._fail(at, f"macro {name}: bad parameter name '{bad[0]}' (a parameter is a name, used as \\name)")
            return
        if len(set(params)) != len(params):
            self._fail(at, f"macro {name}: a parameter is named twice")
            return
        previous = self.macros.get(name.upper())
        if previous is not None:
            self._fail(at, f"duplicate macro '{name}' (first defined at {previous.where.file}:{previous.where.line})")
            return
        unknown = [(line, found) for line in body or () for found in _ARGUMENT.finditer(strip_comment(line.text))
                   if found.group(1) not in params and found.group(1) != "@"]
        for line, found in unknown:
            self._fail(Location(line.file, line.line, found.start() + 1, len(found.group()), line.via),
                       f"macro {name} has no parameter '{found.group(1)}'"
                       + (f" (its parameters: {', '.join(params)})" if params else " (it takes none)"))
        if unknown or body is None:
            self.broken.add(name.upper())
            return
        self.macros[name.upper()] = _Macro(name, tuple(params), tuple(body), at)

    def _use(self, macro: _Macro, item: Expanded, use, files, depth: int) -> Iterator[Expanded]:
        col = use.start(2) + 1
        at = self._at(item, col, len(use.group(2)))
        self._step(at)
        if depth >= MAX_DEPTH:
            self._fail(at, f"macro uses nested deeper than {MAX_DEPTH} (does {macro.name} use itself?)")
            raise _TooDeep
        args = split_arguments(use.group(3))
        if len(args) != len(macro.params):
            wanted = ", ".join(macro.params) if macro.params else "none"
            self._fail(at, f"macro {macro.name} takes {len(macro.params)} argument{'s' * (len(macro.params) != 1)} "
                           f"({wanted}), given {len(args)}")
            return
        self.uses += 1
        values = dict(zip(macro.params, args, strict=True))
        values["@"] = str(self.uses)
        site = Site(item.file, item.line, col, f"in the use of macro {macro.name} here")
        if use.group(1).strip():  # the use's labels stand before the body's first line
            yield Expanded(use.group(1), item.file, item.line, item.via, item.text)
        body = []
        for line in macro.body:
            text = line.text
            code = strip_comment(text)

            body.append(Expanded(_ARGUMENT.sub(lambda found: values[found.group(1)], code) + text[len(code):],
                                 line.file, line.line,
                                 (site, *item.via)))
        yield from self._lines(body, files, depth + 1)

    def _repeat(self, item: Expanded, rest: str, col: int, body, at: Location, files, depth: int
                ) -> Iterator[Expanded]:
        expr = rest.strip()
        if not expr:
            self._fail(at, ".rept is written .rept COUNT")
            return
        try:
            count = self.evaluate(item, "rept", Location(item.file, item.line, col, len(expr), item.via))
        except LocatedError as err:
            self.errors.append(err)
            return
        if not 0 <= count <= MAX_REPT:
            self._fail(at, f".rept count {count} out of range 0..{MAX_REPT}")
            return
        if self.produced + count * len(body) > MAX_LINES:
            self._fail(at, f".rept {count} of {len(body)} lines passes the expansion limit of {MAX_LINES} lines")
            return
        for k in range(count):
            self._step(at)
            site = Site(item.file, item.line, at.col, f"in repetition {k + 1} of {count} of the .rept here")
            yield from self._lines([Expanded(b.text, b.file, b.line, (site, *b.via)) for b in body], files, depth)

    def _include(self, item: Expanded, rest: str, at: Location, files, depth: int) -> Iterator[Expanded]:
        found = re.fullmatch(r'\s*"([^"]+)"\s*', rest)
        if found is None:
            self._fail(at, '.include is written .include "path.asm"')
            return
        name = found.group(1)
        base = Path(item.file).parent if not item.file.startswith("<") else Path()
        path = str(base / name)
        resolved = str(Path(path).resolve())
        if resolved in files:
            self._fail(at, f'recursive .include: "{name}" is already being included')
            return
        if depth >= MAX_DEPTH:
            self._fail(at, f".include nested deeper than {MAX_DEPTH}")
            raise _TooDeep
        try:
            text = self.read(path)
        except (OSError, UnicodeDecodeError) as err:
            reason = getattr(err, "strerror", None) or str(err)
            self._fail(at, f'cannot include "{name}" ({path}): {reason}')
            return
        site = Site(item.file, item.line, at.col, "in the file included here")
        lines = [Expanded(line.removesuffix("\r"), path, n, (site, *item.via))
                 for n, line in enumerate(text.split("\n"), start=1)]
        yield from self._lines(lines, (*files, resolved), depth + 1)
