"""The statements of the causal-knowledge text format as written: a recursive-descent parser over
the tokens of one statement (:mod:`mc3g.causal.lexer`).  What the statements mean (features
against a schema, values by feature kind) is settled by :mod:`mc3g.causal.parser`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..exceptions import CausalSyntaxError, InputError
from ..rules import NUMERIC_OPS
from ..values import suggest, words
from .lexer import FLAGS, ITEMS, NEGATABLE, NUMBERS, OPERATORS, SET_OPS, Statement, Token
from .statements import Source


@dataclass
class Condition:
    feature: Token
    op: str
    op_token: Token
    values: list[Token]


@dataclass
class Declaration:
    """``name: items``: the settings (Feature field -> value), the value tokens of ``targets``,
    ``moves`` and ``unknown`` (``named``) and the labelled value tokens of ``values``, kept so
    their values can be checked (and typed) once the feature's kind and domain are known."""

    name: Token
    settings: dict[str, Any]
    named: list[Token]
    labelled: list[tuple[Token, str]]


@dataclass
class RuleStatement:
    effect: Condition
    cause: list[Condition]
    constraint: bool
    source: Source
    comment: str


@dataclass
class ForbidStatement:
    conditions: list[Condition]
    source: Source
    comment: str


class StatementParser:
    """Recursive descent over the tokens of one statement."""

    def __init__(self, statement: Statement, file: str) -> None:
        self.tokens = statement.tokens + [statement.end]
        self.comment = statement.comment
        self.file = file
        self.i = 0

    # -- helpers -------------------------------------------------------------------------------
    def peek(self, ahead: int = 0) -> Token:
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def next(self) -> Token:
        tok = self.peek()
        self.i = min(self.i + 1, len(self.tokens) - 1)
        return tok

    def at(self, *texts: str) -> bool:
        tok = self.peek()
        return tok.kind not in ("string", "end") and tok.text in texts

    def accept(self, text: str) -> Token | None:
        return self.next() if self.at(text) else None

    def fail(self, expected: str, hint: str = "") -> CausalSyntaxError:
        tok = self.peek()
        after = f" after {self.tokens[self.i - 1].text!r}" if self.i else ""
        return CausalSyntaxError(f"expected {expected}{after}, found {tok.found()}{hint}", self.file, tok.line, tok.column)

    def expect(self, text: str, expected: str) -> Token:
        tok = self.accept(text)
        if tok is None:
            raise self.fail(expected)
        return tok

    def words(self, tok: Token, what: str) -> str:
        """A quoted label as a sentence can hold it (:func:`mc3g.values.words`), refused where it is written."""
        try:
            return words(tok.value, what)
        except InputError as e:
            raise CausalSyntaxError(str(e), self.file, tok.line, tok.column) from None

    def take(self, kinds: Sequence[str], expected: str) -> Token:
        if self.peek().kind not in kinds:
            raise self.fail(expected)
        return self.next()

    def end(self) -> None:
        if self.peek().kind != "end":
            raise self.fail("',' or the end of the statement")

    # -- grammar -------------------------------------------------------------------------------
    def statement(self) -> Declaration | RuleStatement | ForbidStatement:
        first = self.peek()
        source = Source(self.file, first.line, first.column)
        if first.kind in ("word", "string") and self.peek(1).kind == "punct" and self.peek(1).text == ":":
            return self.declaration()
        if first.kind not in ("word", "string"):
            raise self.fail("a feature declaration (NAME: ...), a causal rule (EFFECT <- CAUSE) or 'forbid'")
        if self.accept("forbid"):
            return ForbidStatement(self.conditions(), source, self.comment)
        constraint = self.accept("cause") is None
        effect = self.condition()
        self.expect("<-", "'<-' and the cause (a causal rule is EFFECT <- CAUSE, ...)")
        return RuleStatement(effect, self.conditions(), constraint, source, self.comment)

    def conditions(self) -> list[Condition]:
        out = [self.condition()]
        while self.accept(","):
            out.append(self.condition())
        self.end()
        return out

    def condition(self) -> Condition:
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
        return Condition(feature, op, op_token, values)

    def value(self) -> Token:
        return self.take(("word", "number", "string"), "a value (a number, a word, or text in quotes)")

    def value_set(self) -> list[Token]:
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

    def declaration(self) -> Declaration:
        name = self.next()
        self.next()  # the ':'
        settings: dict[str, tuple[Any, str]] = {}
        decl = Declaration(name, {}, [], [])
        if self.peek().kind != "end":
            self.item(settings, decl)
            while self.accept(","):
                self.item(settings, decl)
            self.end()
        decl.settings = {k: v for k, (v, _) in settings.items()}
        return decl

    def labels(self, name: str) -> list[tuple[Token, str]]:
        """``{value: "words", ...}``: each value's token and its words."""
        self.expect("{", "'{' and values with their words {VALUE: \"words\", ...}")
        pairs: list[tuple[Token, str]] = []
        while True:
            value = self.value()
            self.expect(":", "':' and the value's words in quotes")
            said = self.take(("string",), "the value's words in quotes")
            pairs.append((value, self.words(said, f"feature {name!r}: the label of {value.word!r}")))
            if self.accept("}"):
                return pairs
            self.expect(",", "',' or '}'")

    def moves(self) -> list[tuple[Token, Token, float | None]]:
        """``{FROM -> TO, ...}``: the (from, to) value tokens of each move, with its effort when a
        ``: EFFORT`` follows it (else None).  Either side may be a set, which stands for every
        pair; a pair of one value with itself is left out of a set's pairs (``{a, b} -> {a, b}``:
        any move between them), and an error when written."""
        self.expect("{", "'{' and the moves a value may make {FROM -> TO, ...}")
        pairs: list[tuple[Token, Token, float | None]] = []
        if self.accept("}"):
            return pairs  # {}: no move at all
        while True:
            sources = self.value_set() if self.at("{") else [self.value()]
            self.expect("->", "'->' and the value(s) it may move to")
            at = self.peek()
            targets = self.value_set() if self.at("{") else [self.value()]
            if len(sources) == len(targets) == 1 and sources[0].word == targets[0].word:
                raise CausalSyntaxError(f"the move {sources[0].word} -> {targets[0].word} goes nowhere", self.file, at.line, at.column)
            effort = float(self.take(("number",), "the move's effort").value) if self.accept(":") else None
            pairs += [(a, b, effort) for a in sources for b in targets if a.word != b.word]
            if self.accept("}"):
                return pairs
            self.expect(",", "',' or '}'")

    def item(self, settings: dict[str, tuple[Any, str]], decl: Declaration) -> None:
        """Read one item into ``settings`` (field -> value and the item that set it); the value
        tokens of ``targets``, ``moves``, ``unknown`` and ``values`` go to ``decl`` so their values
        can be checked later."""
        tok = self.peek()
        if tok.kind != "word" or tok.text not in ITEMS + ("not",):
            raise self.fail("a feature item (" + ", ".join(ITEMS) + ")", suggest(tok.text, ITEMS) if tok.kind == "word" else "")
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
        elif word in ("range", "valid"):
            put(word, self.interval())
        elif word in ("domain", "targets", "unknown"):
            values = self.value_set()
            put(word, tuple(v.word for v in values))
            if word != "domain":
                decl.named.extend(values)
        elif word == "moves":
            pairs = self.moves()
            put("moves", tuple(sorted({(a.word, b.word) for a, b, _ in pairs})))
            if any(e is not None for *_, e in pairs):
                put("efforts", tuple((a.word, b.word, e) for a, b, e in pairs if e is not None))
            decl.named.extend(tok for a, b, _ in pairs for tok in (a, b))
        elif word == "label":
            put("label", self.words(self.take(("string",), "the feature's words in quotes"), f"feature {decl.name.word!r}: the label"))
        elif word == "waits":  # its unit of time in quotes; none for a category
            put("waits", self.next().value if self.peek().kind == "string" else "")
        elif word == "values":
            decl.labelled = self.labels(decl.name.word)
            put("value_labels", {(tok.value if tok.kind == "number" else tok.word): text for tok, text in decl.labelled})
        else:
            put(NUMBERS[word], float(self.take(("number",), "a number").value))
