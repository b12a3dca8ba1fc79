"""Tokens with their source location; comments (``;`` and ``//``) end a line."""

from __future__ import annotations

import re

from attrs import frozen

from vcore.assembler.diagnostics import LocatedError, Location

_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\r\f\v]+)
  | (?P<float>(?:\d+\.\d*(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|\.\d+(?:[eE][+-]?\d+)?))
  | (?P<int>0[xX][0-9a-fA-F_]+|0[bB][01_]+|\d[\d_]*)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op><<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^~!<>()\[\],=:.])
    """,
    re.VERBOSE | re.ASCII,  # numbers are ASCII digits: not Arabic-Indic or other Unicode digits
)


# The labels a line may begin with (``a: b:``), as a regular expression's group: the preprocessor and
# conditional assembly look for their directives after them.
LINE_LABELS = r"((?:\s*[A-Za-z_.$][\w.$]*\s*:)*)"


@frozen
class Token:
    kind: str  # float, int, ident, op, end
    text: str
    location: Location

    @property
    def value(self) -> int | float:
        if self.kind == "int":
            text = self.text.replace("_", "")
            return int(text, 0) if text[:2].lower() in ("0x", "0b") else int(text)
        return float(self.text)

    def is_op(self, text: str) -> bool:
        return self.kind == "op" and self.text == text


def strip_comment(line: str) -> str:
    cut = len(line)
    for marker in (";", "//"):
        at = line.find(marker)
        if at >= 0:
            cut = min(cut, at)
    return line[:cut]


def tokenize(line: str, file: str, lineno: int, via: tuple = ()) -> list[Token]:
    """Tokens of one source line, ending with an ``end`` token placed after the last character."""
    code = strip_comment(line)
    tokens: list[Token] = []
    pos = 0
    while pos < len(code):
        m = _TOKEN.match(code, pos)
        if m is None:
            raise LocatedError(Location(file, lineno, pos + 1, 1, via), f"unexpected character {code[pos]!r}")
        kind = m.lastgroup
        if kind == "int" and m.end() < len(code) and (code[m.end()].isalnum() or code[m.end()] == "_"):
            end = m.end()
            while end < len(code) and (code[end].isalnum() or code[end] == "_"):
                end += 1
            raise LocatedError(Location(file, lineno, pos + 1, end - pos, via), f"malformed number {code[pos:end]!r}")
        if kind != "ws":
            tokens.append(Token(kind, m.group(), Location(file, lineno, pos + 1, m.end() - pos, via)))
        pos = m.end()
    tokens.append(Token("end", "", Location(file, lineno, len(code.rstrip()) + 1, 1, via)))
    return tokens
