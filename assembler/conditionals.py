"""Conditional assembly (CONTRACT 13.8): ``.if``, ``.elif``, ``.else``, ``.endif``, ``.ifdef`` and
``.ifndef``, for the preprocessor.

``Conditions`` holds the ``.if`` blocks open around the line the preprocessor is at, innermost last.
Each run of lines it expands (a file, a macro's use, a repetition of a ``.rept``) owns the blocks it
opens: they sit above its ``base`` (the number open when it began), and it must close them, since a
block may not straddle a macro body, a ``.rept`` block or an included file. A block is in one of
three states: ``TAKING`` its current branch, ``WAITING`` for a true ``.elif`` or the ``.else``, or
``DONE`` (a branch was taken, or the block stands in a branch not taken: nothing of it is). Only
the conditional directives of a branch not taken are looked at (to count nesting and keep the
structure checked); the preprocessor skips its other lines unread. ``check_body`` checks, when a
``.macro`` or ``.rept`` block is read, that the ``.if`` blocks in it close inside it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from attrs import define

from vcore.assembler.diagnostics import LocatedError, Location
from vcore.assembler.lexer import LINE_LABELS, strip_comment

if TYPE_CHECKING:
    from vcore.assembler.preprocess import Expanded

MAX_NESTING = 64  # .if blocks open at once, wherever they were opened
CONDITIONAL = re.compile(LINE_LABELS + r"\s*\.(if|ifdef|ifndef|elif|else|endif)\b(.*)$", re.IGNORECASE)
OPENERS = ("if", "ifdef", "ifndef")
_NAME = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")
TAKING, WAITING, DONE = "taking", "waiting", "done"


@define
class Block:
    """One open ``.if`` block: the directive that opened it, where, its state, and its ``.else``
    line once one is seen."""

    word: str  # if, ifdef or ifndef
    where: Location  # of the opening directive
    state: str
    else_line: int | None = None


def _state(taken: bool | None) -> str:
    """A block's state after a test: its branch taken, or waiting for the next; DONE when the test
    was in error (no branch of the block is taken then)."""
    return DONE if taken is None else TAKING if taken else WAITING


def directive_place(item: Expanded, found: re.Match) -> Location:
    """The place of a directive found by a pattern whose group 2 is its name: its dot and name."""
    return Location(item.file, item.line, found.start(2), len(found.group(2)) + 1, item.via)


class Conditions:
    """The open ``.if`` blocks of one expansion. ``evaluate(item, word, location)`` is the value of
    the expression at ``location`` on ``item``'s ``.if`` or ``.elif`` line (or a ``LocatedError``);
    ``defined(name)`` says whether a constant is defined; ``fail(location, message)`` reports."""

    def __init__(self, evaluate: Callable[[Expanded, str, Location], int], defined: Callable[[str], bool],
                 fail: Callable[[Location, str], None]) -> None:
        self.evaluate = evaluate
        self.defined = defined
        self.fail = fail
        self.blocks: list[Block] = []

    def depth(self) -> int:
        """How many blocks are open: a run of lines takes this as its base."""
        return len(self.blocks)

    def active(self, base: int) -> bool:
        """Whether the lines of a run with this base are assembled here (it began where they were)."""
        return len(self.blocks) == base or self.blocks[-1].state == TAKING

    def directive(self, item: Expanded, found: re.Match, base: int) -> None:
        """Take a conditional directive line (``found`` by ``CONDITIONAL``) of a run with this base."""
        word, rest = found.group(2).lower(), found.group(3)
        at = directive_place(item, found)
        if found.group(1).strip():
            col = len(found.group(1)) - len(found.group(1).lstrip()) + 1
            self.fail(Location(item.file, item.line, col, len(found.group(1).strip()), item.via),
                      "a label cannot stand on a .if line")
        if word in OPENERS:
            self._open(item, word, rest, at, base)
            return
        if len(self.blocks) == base:
            self.fail(at, f"'.{word}' without '.if'")
            return
        block = self.blocks[-1]
        if word == "elif":
            self._elif(item, block, rest, at)
            return
        extra = rest.strip()
        if extra:
            col = found.start(3) + len(rest) - len(rest.lstrip()) + 1
            self.fail(Location(item.file, item.line, col, len(extra), item.via),
                      f"extra text after '.{word}' (a comment starts with ; or //)")
        if word == "endif":
            self.blocks.pop()
        elif block.else_line is not None:
            self.fail(at, f"a second '.else' for the '.{block.word}' at line {block.where.line} (its '.else' is "
                          f"at line {block.else_line})")
            block.state = DONE
        else:
            block.else_line = item.line
            block.state = TAKING if block.state == WAITING else DONE

    def _open(self, item: Expanded, word: str, rest: str, at: Location, base: int) -> None:
        """Open a block. In a branch not taken (or past the nesting limit) it is only counted: its
        operand is not evaluated and none of its branches is taken."""
        if len(self.blocks) >= MAX_NESTING:
            self.fail(at, f".if nested deeper than {MAX_NESTING}")
        taken = None
        if self.active(base) and len(self.blocks) < MAX_NESTING:
            taken = self._test(item, word, rest, at)
        self.blocks.append(Block(word, at, _state(taken)))

    def _elif(self, item: Expanded, block: Block, rest: str, at: Location) -> None:
        """An ``.elif``: its expression is evaluated only while the block waits for a branch."""
        if block.else_line is not None:
            self.fail(at, f"'.elif' after '.else' (the '.else' at line {block.else_line} comes last)")
            block.state = DONE
        elif block.state == TAKING:
            block.state = DONE
        elif block.state == WAITING:
            block.state = _state(self._test(item, "elif", rest, at))

    def _test(self, item: Expanded, word: str, rest: str, at: Location) -> bool | None:
        """Whether the branch a ``.if``, ``.ifdef``, ``.ifndef`` or ``.elif`` opens is taken; None
        when its operand is in error (reported: then no branch of the block is taken)."""
        start = at.col + len(word)  # 0-based index of the text after the directive's name
        if word in ("ifdef", "ifndef"):
            name = _NAME.match(rest)
            if name is None:
                self.fail(at, f".{word} is written .{word} NAME")
                return None
            return self.defined(name.group(1)) == (word == "ifdef")
        expr = rest.strip()
        if not expr:
            self.fail(at, f".{word} is written .{word} EXPR")
            return None
        col = start + len(rest) - len(rest.lstrip()) + 1
        try:
            return self.evaluate(item, word, Location(item.file, item.line, col, len(expr), item.via)) != 0
        except LocatedError as err:
            self.fail(err.location, err.message)
            return None

    def close(self, base: int) -> None:
        """End a run of lines with this base: a block it left open has no ``.endif``."""
        for block in self.blocks[base:]:
            self.fail(block.where, f"'.{block.word}' has no '.endif'")
        self.drop(base)

    def drop(self, base: int) -> None:
        """Forget the blocks above ``base`` (a run of lines cut short, or closed)."""
        del self.blocks[base:]

    def check_body(self, body: Sequence[Expanded], closer: Location, closer_word: str) -> bool:
        """Whether the ``.if`` blocks in a ``.macro`` or ``.rept`` body (closed by ``closer``, its
        ``.endm`` or ``.endr``) all close inside it; if not, report each one that straddles it."""
        opened: list[tuple[str, int]] = []
        ok = True
        for line in body:
            found = CONDITIONAL.match(strip_comment(line.text))
            if found is None:
                continue
            word = found.group(2).lower()
            if word in OPENERS:
                opened.append((word, line.line))
            elif not opened:
                self.fail(directive_place(line, found), f"'.{word}' without '.if'")
                ok = False
            elif word == "endif":
                opened.pop()
        for word, line in opened:
            self.fail(closer, f"'.{word}' at line {line} is not closed before '.{closer_word}'")
        return ok and not opened
