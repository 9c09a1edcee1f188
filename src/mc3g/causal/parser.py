"""The text format of causal knowledge: a small tokenizer and a recursive-descent parser.

A file is written by hand and read in code review, so it has one statement per line::

    # loan.causal — causal knowledge for the loan example
    debt:          categorical {none, up_to_10000, over_10000}
    bank_balance:  numeric [0, 1000000], step 100, weight 1
    credit_score:  numeric [300, 850], consequence-only
    sex:           not immutable                  # the data says immutable; here it may change

    credit_score >= 620  <-  debt == none          # a causal rule that is also a constraint
    cause relationship == Husband <- sex == Male   # 'cause': a causal rule that is NOT a constraint
    forbid relationship == Husband, sex == Female  # no consistent state has all of these

Grammar (``#`` starts a comment to the end of the line; a statement continues on the next line
while the line ends with ``,`` or ``<-`` or a ``{`` or ``[`` is open)::

    statement   := declaration | rule | constraint
    declaration := name ':' [item {',' item}]
    item        := 'numeric' [interval] | 'categorical' [set] | 'range' interval | 'domain' set
                 | 'targets' set | 'step' NUMBER | 'weight' NUMBER | ['not'] 'immutable'
                 | ['not'] 'consequence-only' | ['not'] 'must-change'
                 | 'increase-only' | 'decrease-only' | 'any-direction'
    rule        := ['cause'] condition '<-' condition {',' condition}
    constraint  := 'forbid' condition {',' condition}
    condition   := name ('=='|'!=') value | name ('<'|'<='|'>'|'>=') NUMBER
                 | name ['not'] 'in' set
    interval    := '[' NUMBER ',' NUMBER ']'
    set         := '{' value {',' value} '}'
    name, value := WORD | STRING        (a value may also be a NUMBER)

NUMBER: ``60000``, ``-4356``, ``0.5``, ``1e3``, ``60_000``.  WORD: letters, digits and
``_ - / . +``, starting with a letter, a digit or ``_`` and holding at least one letter
(``Married-civ-spouse``, ``1equalsless_than_and_less_than4``).  STRING: ``'...'`` or ``"..."``
with the escapes ``\\\\ \\' \\" \\n \\r \\t \\xhh \\uhhhh \\Uhhhhhhhh`` (Python's ``repr``), for
values such as ``'<=50K'`` or ``'car or other'``.  A value compared with a feature known to be
categorical (declared here or in the schema) is always a string (``persons == 2`` means
``'2'``); a numeric feature takes numbers only.  Fields a declaration does not mention stay
``None``: the data's settings apply.

Comments and ASP directives.  A comment is ``# text`` (hash, space) or ``##...``.  A line whose
first non-blank characters are ``#`` and a letter (``#script``, ``#include``, ``#const``, ...) is
rejected: this file is causal knowledge, not an ASP program, and nothing in it is ever executed
or handed to a solver as program text (printed programs quote every value).

Errors are :class:`CausalSyntaxError` at ``file:line:column``, one at a time: the first syntax
error of the file, else the first problem in a feature declaration, else the first in a rule or
constraint (a rule may use a feature declared further down, so meanings are settled after the
whole file is read).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..exceptions import CausalSyntaxError
from ..rules.literal import NUMERIC_OPS, Literal, format_value
from ..schema import Feature, Schema
from .model import CausalModel, CausalRule, Constraint, FeatureSpec, Source

KEYWORDS = ("cause", "forbid")
"""Words that open a statement; a feature with one of these names is written in quotes."""

FLAGS: dict[str, tuple[str, Any]] = {
    "immutable": ("immutable", True),
    "consequence-only": ("consequence_only", True),
    "must-change": ("must_change", True),
    "increase-only": ("direction", "increase"),
    "decrease-only": ("direction", "decrease"),
    "any-direction": ("direction", "any"),
}
"""Feature items without an argument: the FeatureSpec field each one sets, and to what."""

NEGATABLE = ("immutable", "consequence-only", "must-change")
"""Flags that ``not`` turns off (to override the data's setting)."""

ITEMS = ("numeric", "categorical", "range", "domain", "targets", "step", "weight", *FLAGS)

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


def _suggest(word: str, candidates: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(candidates), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


# -- tokens --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Token:
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


def _tokens(text: str, file: str) -> Iterator[_Token]:
    """The tokens of every line, each line closed by a newline token."""
    for number, line in enumerate(text.split("\n"), 1):
        yield from _line_tokens(line.removesuffix("\r"), number, file)
        yield _Token("newline", "end of line", number, len(line) + 1)


def _line_tokens(line: str, number: int, file: str) -> Iterator[_Token]:
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
            yield _Token("comment", line[i + 1 :].strip(), number, column)
            return
        if c in "'\"":
            value, end = _string(line, i, number, file)
            yield _Token("string", line[i:end], number, column, value)
        elif _is_word_char(c):
            end = i
            while end < len(line) and _is_word_char(line[end]):
                end += 1
            run = line[i:end]
            kind = classify(run) or "junk"
            yield _Token(kind, run, number, column, _to_number(run) if kind == "number" else None)
        elif c in "=!<>":
            end = i
            while end < len(line) and line[end] in "=!<>":
                end += 1
            if line[i:end] == "<" and line[end : end + 1] == "-":
                end += 1
                yield _Token("arrow", "<-", number, column)
            else:
                yield _Token("op" if line[i:end] in OPERATORS else "junk", line[i:end], number, column)
        else:
            end = i + 1
            yield _Token("punct" if c in ":,{}[]" else "junk", c, number, column)
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
class _Statement:
    tokens: list[_Token]
    end: _Token
    comment: str


def _statements(tokens: Iterable[_Token]) -> Iterator[_Statement]:
    """Group tokens into statements, joining continued lines and collecting trailing comments."""
    current: list[_Token] = []
    comments: list[str] = []
    depth = 0
    newline = _Token("newline", "end of line", 1, 1)
    for tok in tokens:
        if tok.kind == "comment":
            if current and tok.text:
                comments.append(tok.text)
        elif tok.kind == "newline":
            newline = tok
            if current and depth == 0 and not (current[-1].kind in ("punct", "arrow") and current[-1].text in (",", "<-")):
                yield _Statement(current, replace(tok, kind="end"), " ".join(comments))
                current, comments = [], []
        else:
            if tok.kind == "punct":
                depth = max(0, depth + _BRACKETS.get(tok.text, 0))
            current.append(tok)
    if current:
        yield _Statement(current, _Token("end", "end of file", newline.line, newline.column), " ".join(comments))


# -- syntax --------------------------------------------------------------------------------------
@dataclass
class _Condition:
    feature: _Token
    op: str
    op_token: _Token
    values: list[_Token]


@dataclass
class _Declaration:
    spec: FeatureSpec
    name: _Token
    targets: list[_Token]


@dataclass
class _Rule:
    effect: _Condition
    cause: list[_Condition]
    constraint: bool
    source: Source
    comment: str


@dataclass
class _Forbid:
    conditions: list[_Condition]
    source: Source
    comment: str


class _StatementParser:
    """Recursive descent over the tokens of one statement."""

    def __init__(self, statement: _Statement, file: str) -> None:
        self.tokens = statement.tokens + [statement.end]
        self.comment = statement.comment
        self.file = file
        self.i = 0

    # -- helpers -------------------------------------------------------------------------------
    def peek(self, ahead: int = 0) -> _Token:
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def next(self) -> _Token:
        tok = self.peek()
        self.i = min(self.i + 1, len(self.tokens) - 1)
        return tok

    def at(self, *texts: str) -> bool:
        tok = self.peek()
        return tok.kind not in ("string", "end") and tok.text in texts

    def accept(self, text: str) -> _Token | None:
        return self.next() if self.at(text) else None

    def fail(self, expected: str, hint: str = "") -> CausalSyntaxError:
        tok = self.peek()
        after = f" after {self.tokens[self.i - 1].text!r}" if self.i else ""
        return CausalSyntaxError(f"expected {expected}{after}, found {tok.found()}{hint}", self.file, tok.line, tok.column)

    def expect(self, text: str, expected: str) -> _Token:
        tok = self.accept(text)
        if tok is None:
            raise self.fail(expected)
        return tok

    def take(self, kinds: Sequence[str], expected: str) -> _Token:
        if self.peek().kind not in kinds:
            raise self.fail(expected)
        return self.next()

    def end(self) -> None:
        if self.peek().kind != "end":
            raise self.fail("',' or the end of the statement")

    # -- grammar -------------------------------------------------------------------------------
    def statement(self) -> _Declaration | _Rule | _Forbid:
        first = self.peek()
        source = Source(self.file, first.line, first.column)
        if first.kind in ("word", "string") and self.peek(1).kind == "punct" and self.peek(1).text == ":":
            return self.declaration()
        if first.kind not in ("word", "string"):
            raise self.fail("a feature declaration (NAME: ...), a causal rule (EFFECT <- CAUSE) or 'forbid'")
        if self.accept("forbid"):
            return _Forbid(self.conditions(), source, self.comment)
        constraint = self.accept("cause") is None
        effect = self.condition()
        self.expect("<-", "'<-' and the cause (a causal rule is EFFECT <- CAUSE, ...)")
        return _Rule(effect, self.conditions(), constraint, source, self.comment)

    def conditions(self) -> list[_Condition]:
        out = [self.condition()]
        while self.accept(","):
            out.append(self.condition())
        self.end()
        return out

    def condition(self) -> _Condition:
        feature = self.take(("word", "string"), "a feature name")
        op_token = self.peek()
        if self.accept("in"):
            op = "in"
        elif self.accept("not"):
            self.expect("in", "'in'")
            op = "not in"
        elif op_token.kind == "op":
            op = self.next().text
        else:
            raise self.fail(f"an operator ({', '.join(OPERATORS + SET_OPS)})")
        if op in SET_OPS:
            values = self.value_set()
        elif op in NUMERIC_OPS:
            values = [self.take(("number",), "a number")]
        else:
            values = [self.value()]
        return _Condition(feature, op, op_token, values)

    def value(self) -> _Token:
        return self.take(("word", "number", "string"), "a value (a number, a word, or text in quotes)")

    def value_set(self) -> list[_Token]:
        self.expect("{", "'{' and a set of values")
        values = [self.value()]
        while not self.accept("}"):
            self.expect(",", "',' or '}'")
            values.append(self.value())
        return values

    def interval(self) -> tuple[float, float]:
        self.expect("[", "'[' and a range [LOW, HIGH]")
        low = self.take(("number",), "a number")
        self.expect(",", "','")
        high = self.take(("number",), "a number")
        self.expect("]", "']'")
        return (float(low.value), float(high.value))

    def declaration(self) -> _Declaration:
        name = self.next()
        self.next()  # the ':'
        settings: dict[str, tuple[Any, str]] = {}
        targets: list[_Token] = []
        if self.peek().kind != "end":
            self.item(settings, targets)
            while self.accept(","):
                self.item(settings, targets)
            self.end()
        spec = FeatureSpec(name.word, **{k: v for k, (v, _) in settings.items()}, source=Source(self.file, name.line, name.column))
        return _Declaration(spec, name, targets)

    def item(self, settings: dict[str, tuple[Any, str]], targets: list[_Token]) -> None:
        """Read one item into ``settings`` (field -> value and the item that set it); the value
        tokens of ``targets`` go to ``targets`` so their values can be checked later."""
        tok = self.peek()
        if tok.kind != "word" or tok.text not in ITEMS + ("not",):
            raise self.fail("a feature item (" + ", ".join(ITEMS) + ")", _suggest(tok.text, ITEMS) if tok.kind == "word" else "")
        self.next()
        word = tok.text
        if word == "not":
            if not self.at(*NEGATABLE):
                raise self.fail(" or ".join(NEGATABLE))
            word = f"not {self.next().text}"

        def put(name: str, value: Any) -> None:
            if name in settings:
                earlier = settings[name][1]
                said = "is given twice" if earlier == word else f"contradicts {earlier!r}"
                raise CausalSyntaxError(f"{word!r} {said} in this declaration", self.file, tok.line, tok.column)
            settings[name] = (value, word)

        if word.startswith("not "):
            put(FLAGS[word[4:]][0], False)
        elif word in FLAGS:
            put(*FLAGS[word])
        elif word in ("numeric", "categorical"):
            put("kind", word)
            if word == "numeric" and self.at("["):
                put("range", self.interval())
            if word == "categorical" and self.at("{"):
                put("domain", tuple(v.word for v in self.value_set()))
        elif word == "range":
            put("range", self.interval())
        elif word in ("domain", "targets"):
            values = self.value_set()
            put(word, tuple(v.word for v in values))
            if word == "targets":
                targets.extend(values)
        else:  # step, weight
            put(word, float(self.take(("number",), "a number").value))


# -- meaning -------------------------------------------------------------------------------------
class _Resolver:
    """Settles what each statement means: features against the schema, values by feature kind."""

    def __init__(self, file: str, schema: Schema | None, declarations: list[_Declaration]) -> None:
        self.file = file
        self.schema = schema
        self.features: dict[str, Feature | None] = {}
        for decl in declarations:
            self.features[decl.spec.name] = self.declared(decl)

    def error(self, message: str, tok: _Token) -> CausalSyntaxError:
        return CausalSyntaxError(message, self.file, tok.line, tok.column)

    def base(self, name: _Token) -> Feature | None:
        """The schema's feature of that name; with a schema, a name it lacks is an error."""
        if self.schema is None:
            return None
        if name.word not in self.schema:
            names = self.schema.feature_names
            hint = _suggest(name.word, names) or f"; the features are {', '.join(names)}"
            raise self.error(f"unknown feature {name.word!r}{hint}", name)
        return self.schema.feature(name.word)

    def declared(self, decl: _Declaration) -> Feature | None:
        """The feature as the declaration makes it (None while its kind is unknown)."""
        base = self.base(decl.name)
        if base is None and decl.spec.kind is None:
            return None
        try:
            feature = decl.spec.apply(base)
        except ValueError as e:
            raise self.error(str(e), decl.name) from None
        for tok in decl.targets:
            self.check_domain(tok, feature)
        return feature

    def known(self, name: _Token) -> Feature | None:
        return self.features[name.word] if name.word in self.features else self.base(name)

    def check_domain(self, tok: _Token, feature: Feature) -> None:
        if feature.domain is not None and tok.word not in feature.domain:
            values = format_value(feature.domain)
            raise self.error(f"{tok.word!r} is not a value of {feature.name}; its values are {values}{_suggest(tok.word, feature.domain)}", tok)

    def literal(self, cond: _Condition) -> Literal:
        feature = self.known(cond.feature)
        if feature is not None and feature.kind == "categorical" and cond.op in NUMERIC_OPS:
            raise self.error(f"{feature.name} is categorical, so it cannot be compared with {cond.op!r}; use ==, !=, in or not in", cond.op_token)
        values = [self.value(tok, feature) for tok in cond.values]
        return Literal(cond.feature.word, cond.op, tuple(values) if cond.op in SET_OPS else values[0])

    def value(self, tok: _Token, feature: Feature | None) -> str | int | float:
        if feature is not None and feature.kind == "categorical":
            self.check_domain(tok, feature)
            return tok.word
        if tok.kind == "number":
            return tok.value
        if feature is not None:
            raise self.error(f"expected a number for the numeric feature {feature.name}, found {tok.found()}", tok)
        return tok.word

    def rule(self, rule: _Rule) -> CausalRule:
        effect = self.literal(rule.effect)
        cause = [self.literal(c) for c in rule.cause]
        try:
            return CausalRule(effect, tuple(cause), rule.constraint, rule.source, rule.comment)
        except ValueError as e:
            raise CausalSyntaxError(str(e), self.file, rule.source.line, rule.source.column) from None

    def constraint(self, forbid: _Forbid) -> Constraint:
        return Constraint(tuple(self.literal(c) for c in forbid.conditions), forbid.source, forbid.comment)


# -- entry points --------------------------------------------------------------------------------
def parse(text: str, file: str = "<string>", schema: Schema | None = None) -> CausalModel:
    """Read causal knowledge; with ``schema``, every feature must be one of its features and every
    value fit the feature's kind and domain.  Raises :class:`CausalSyntaxError`."""
    statements = [_StatementParser(s, file).statement() for s in _statements(_tokens(text, file))]
    declarations: dict[str, _Declaration] = {}
    for s in statements:
        if isinstance(s, _Declaration):
            first = declarations.setdefault(s.spec.name, s)
            if first is not s:
                message = f"feature {s.spec.name!r} is declared twice: on line {first.name.line} and on line {s.name.line}"
                raise CausalSyntaxError(message, file, s.name.line, s.name.column)
    resolver = _Resolver(file, schema, list(declarations.values()))
    rules: list[CausalRule] = []
    constraints: list[Constraint] = []
    for s in statements:  # in file order, so the first error is the one reported
        if isinstance(s, _Rule):
            rules.append(resolver.rule(s))
        elif isinstance(s, _Forbid):
            constraints.append(resolver.constraint(s))
    return CausalModel(tuple(d.spec for d in declarations.values()), tuple(rules), tuple(constraints))


def load(path: str | Path, schema: Schema | None = None) -> CausalModel:
    """Read a UTF-8 causal-knowledge file; the model is named after the file."""
    path = Path(path)
    data = path.read_bytes()  # a missing file raises FileNotFoundError naming it
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line_start = data.rfind(b"\n", 0, e.start) + 1
        column = len(data[line_start : e.start].decode("utf-8", "replace")) + 1
        message = f"the file is not UTF-8 text: byte 0x{data[e.start]:02x} cannot be decoded"
        raise CausalSyntaxError(message, str(path), data.count(b"\n", 0, e.start) + 1, column) from None
    return replace(parse(text.removeprefix("\ufeff"), str(path), schema), name=path.stem)
