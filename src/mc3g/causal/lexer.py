"""The words of the causal-knowledge text format: its keywords and feature items, the tokenizer,
and the grouping of tokens into statements (one a line, continued while a line ends with ``,``
or ``<-`` or a bracket is open).  The grammar is in :mod:`mc3g.causal.parser`; the printer asks
:func:`classify` when a name or value needs quotes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from ..exceptions import CausalSyntaxError
from ..values import LARGEST, TOO_LARGE

KEYWORDS = ("cause", "forbid")
"""Words that open a statement; a feature with one of these names is written in quotes."""

FLAGS: dict[str, tuple[str, Any]] = {
    "immutable": ("immutable", True),
    "protected": ("protected", True),
    "consequence-only": ("consequence_only", True),
    "must-change": ("must_change", True),
    "increase-only": ("direction", "increase"),
    "decrease-only": ("direction", "decrease"),
    "any-direction": ("direction", "any"),
}
"""Feature items without an argument: the :class:`~mc3g.schema.Feature` field each one sets, and to what."""

NEGATABLE = ("immutable", "protected", "consequence-only", "must-change")
"""Flags that ``not`` turns off (to override the data's setting)."""

NUMBERS: dict[str, str] = {"step": "step", "weight": "weight", "max-change": "max_change"}
"""Feature items with a number: the :class:`~mc3g.schema.Feature` field each one sets."""

ITEMS = ("numeric", "categorical", "range", "valid", "domain", "targets", "moves", "unknown", *NUMBERS, *FLAGS, "waits", "label", "values")

OPERATORS = ("==", "!=", "<", "<=", ">", ">=")
SET_OPS = ("in", "not in")

_NUMBER = re.compile(r"[+-]?(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d+)?", re.ASCII)
_SIMPLE_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "r": "\r", "t": "\t"}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
_BRACKETS = {"{": 1, "[": 1, "}": -1, "]": -1}


def _is_word_char(c: str) -> bool:
    return c.isalnum() or c in "_-/.+"


def classify(text: str) -> str | None:
    """How ``text`` reads when written without quotes: ``'number'``, ``'word'`` or ``None``
    (it needs quotes).  The printer asks this to decide when to quote."""
    if _NUMBER.fullmatch(text):
        return "number"
    if text and (text[0].isalnum() or text[0] == "_") and all(map(_is_word_char, text)) and any(c.isalpha() for c in text):
        return "word"
    return None


def _to_number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(text)


# -- tokens --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Token:
    """One token as written.  ``kind`` is word, number, string, op, arrow, punct, junk (anything
    the grammar has no place for, kept so the parser can say what it found), comment, newline
    or end; ``value`` is a number's value or a string's decoded text."""

    kind: str
    text: str
    line: int
    column: int
    value: Any = None

    @property
    def word(self) -> str:
        """The token as a name or a categorical value: a string's text, else as written."""
        return self.value if self.kind == "string" else self.text

    def found(self) -> str:
        return self.text if self.kind == "end" else repr(self.text)


def tokens(text: str, file: str) -> Iterator[Token]:
    """The tokens of every line, each line closed by a newline token."""
    for number, line in enumerate(text.split("\n"), 1):
        yield from _line_tokens(line.removesuffix("\r"), number, file)
        yield Token("newline", "end of line", number, len(line) + 1)


def _line_tokens(line: str, number: int, file: str) -> Iterator[Token]:
    body = line.lstrip(" \t")
    if body[:1] == "#" and body[1:2].isalpha():
        directive = re.match(r"#\w*", body).group()  # type: ignore[union-attr]
        raise CausalSyntaxError(
            f"{directive!r} looks like an ASP directive, but this file is causal knowledge, not an ASP program: "
            "its text is never executed; write a comment as '# text' (hash, space)",
            file,
            number,
            len(line) - len(body) + 1,
        )
    i = 0
    while i < len(line):
        c, column = line[i], i + 1
        if c in " \t":
            i += 1
            continue
        if c == "#":
            yield Token("comment", line[i + 1 :].strip(), number, column)
            return
        if c in "'\"":
            value, end = _string(line, i, number, file)
            yield Token("string", line[i:end], number, column, value)
        elif line.startswith("->", i):  # a move, FROM -> TO; a word stops before it
            end = i + 2
            yield Token("arrow", "->", number, column)
        elif _is_word_char(c):
            end = i
            while end < len(line) and _is_word_char(line[end]) and not line.startswith("->", end):
                end += 1
            run = line[i:end]
            kind = classify(run) or "junk"
            value = _to_number(run) if kind == "number" else None
            if value is not None and abs(value) > LARGEST:  # infinity included
                raise CausalSyntaxError(f"the number {run} is {TOO_LARGE}", file, number, column)
            yield Token(kind, run, number, column, value)
        elif c in "=!<>":
            end = i
            while end < len(line) and line[end] in "=!<>":
                end += 1
            if line[i:end] == "<" and line[end : end + 1] == "-":
                end += 1
                yield Token("arrow", "<-", number, column)
            else:
                yield Token("op" if line[i:end] in OPERATORS else "junk", line[i:end], number, column)
        else:
            end = i + 1
            yield Token("punct" if c in ":,{}[]" else "junk", c, number, column)
        i = end


def _string(line: str, start: int, number: int, file: str) -> tuple[str, int]:
    """The decoded text of the quoted string at ``line[start]`` and the index after it."""
    quote, out, i = line[start], [], start + 1
    while i < len(line) and line[i] != quote:
        if line[i] != "\\" or i + 1 == len(line):
            out.append(line[i])
            i += 1
            continue
        escape = line[i + 1]
        if escape in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[escape])
            i += 2
        elif escape in _HEX_ESCAPES:
            digits = line[i + 2 : i + 2 + _HEX_ESCAPES[escape]]
            if len(digits) < _HEX_ESCAPES[escape] or not all(d in "0123456789abcdefABCDEF" for d in digits) or int(digits, 16) > 0x10FFFF:
                raise CausalSyntaxError(f"'\\{escape}' needs {_HEX_ESCAPES[escape]} hex digits of a character code, found {digits!r}", file, number, i + 1)
            out.append(chr(int(digits, 16)))
            i += 2 + len(digits)
        else:
            raise CausalSyntaxError(f"unknown escape '\\{escape}' in a string; write a backslash as '\\\\'", file, number, i + 1)
    if i == len(line):
        raise CausalSyntaxError(f"unterminated string: expected a closing {quote} before the end of the line", file, number, start + 1)
    return "".join(out), i + 1


@dataclass
class Statement:
    tokens: list[Token]
    end: Token
    comment: str


def statements(tokens: Iterable[Token]) -> Iterator[Statement]:
    """Group tokens into statements, joining continued lines and collecting trailing comments."""
    current: list[Token] = []
    comments: list[str] = []
    depth = 0
    newline = Token("newline", "end of line", 1, 1)
    for tok in tokens:
        if tok.kind == "comment":
            if current and tok.text:
                comments.append(tok.text)
        elif tok.kind == "newline":
            newline = tok
            if current and depth == 0 and not (current[-1].kind in ("punct", "arrow") and current[-1].text in (",", "<-")):
                yield Statement(current, replace(tok, kind="end"), " ".join(comments))
                current, comments = [], []
        else:
            if tok.kind == "punct":
                depth = max(0, depth + _BRACKETS.get(tok.text, 0))
            current.append(tok)
    if current:
        yield Statement(current, Token("end", "end of file", newline.line, newline.column), " ".join(comments))
