"""The text format of causal knowledge: what its statements mean.

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
    item        := 'numeric' [interval] | 'categorical' [set] | 'range' interval | 'valid' interval
                 | 'domain' set
                 | 'targets' set | 'moves' '{' [move {',' move}] '}' | 'step' NUMBER | 'weight' NUMBER | 'max-change' NUMBER
                 | ['not'] 'immutable' | ['not'] 'protected'
                 | ['not'] 'consequence-only' | ['not'] 'must-change'
                 | 'increase-only' | 'decrease-only' | 'any-direction'
                 | 'waits' [STRING] | 'label' STRING | 'values' '{' value ':' STRING {',' value ':' STRING} '}'
    move        := (value | set) '->' (value | set) [':' NUMBER]
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
``'2'``); a numeric feature takes numbers only.  A declaration gives only the settings it
mentions (:class:`~mc3g.schema.Feature` field -> value); for the others the data's settings apply.

Comments and ASP directives.  A comment is ``# text`` (hash, space) or ``##...``.  A line whose
first non-blank characters are ``#`` and a letter (``#script``, ``#include``, ``#const``, ...) is
rejected: this file is causal knowledge, not an ASP program, and nothing in it is ever executed
or handed to a solver as program text (printed programs quote every value).

Errors are :class:`CausalSyntaxError` at ``file:line:column``, one at a time: the first syntax
error of the file, else the first problem in a feature declaration, else the first in a rule or
constraint (a rule may use a feature declared further down, so meanings are settled after the
whole file is read).  Given a list to collect them in, :func:`read` reports every problem it
can instead (each statement's first syntax error, every unknown name and value), in file order,
and leaves out the statements that have one: ``mc3g check`` lists them all.

The words and tokens are in :mod:`mc3g.causal.lexer`, the statements as written in
:mod:`mc3g.causal.syntax`; :func:`mc3g.causal.parse` and :func:`mc3g.causal.load` turn what
:func:`read` finds into a :class:`~mc3g.causal.CausalModel`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from ..exceptions import CausalSyntaxError
from ..reading import read_bytes
from ..rules import NUMERIC_OPS, Literal, format_value
from ..schema import Feature, Schema
from ..values import suggest
from .lexer import SET_OPS, Token, statements, tokens
from .statements import CausalRule, Constraint, Source, contradicts
from .syntax import Condition, Declaration, ForbidStatement, RuleStatement, StatementParser

_NAMING = ("targets", "moves", "unknown")
"""The settings that name values of a category: checked against its domain before they are laid."""


class _Resolver:
    """Settles what each statement means: features against the schema, values by feature kind."""

    def __init__(self, file: str, schema: Schema | None, declarations: list[Declaration], errors: list[CausalSyntaxError] | None = None) -> None:
        self.file = file
        self.schema = schema
        self.errors = errors
        self.features: dict[str, Feature | None] = {}
        self.refused: set[str] = set()  # declarations with a problem (collected, not raised)
        for decl in declarations:
            found = len(errors or ())
            self.features[decl.name.word] = self.declared(decl)
            if len(errors or ()) > found:
                self.refused.add(decl.name.word)

    def error(self, message: str, tok: Token) -> CausalSyntaxError:
        return CausalSyntaxError(message, self.file, tok.line, tok.column)

    def problem(self, error: CausalSyntaxError) -> None:
        _problem(error, self.errors)

    def base(self, name: Token) -> Feature | None:
        """The schema's feature of that name; with a schema, a name it lacks is an error."""
        if self.schema is None:
            return None
        if name.word not in self.schema:
            names = self.schema.feature_names
            hint = suggest(name.word, names) or f"; the features are {', '.join(names)}"
            self.problem(self.error(f"unknown feature {name.word!r}{hint}", name))
            return None
        return self.schema.feature(name.word)

    def declared(self, decl: Declaration) -> Feature | None:
        """The feature as the declaration makes it (None while its kind is unknown); the values
        it labels typed by its kind and checked against its domain."""
        base = self.base(decl.name)
        if decl.labelled:
            decl.settings["value_labels"] = self.labelled(decl, decl.settings.get("kind") or (base.kind if base else None))
        wrong = contradicts(decl.settings)
        if wrong:
            self.problem(self.error(f"{decl.name.word} is declared {wrong}", decl.name))
            return None
        if base is None and "kind" not in decl.settings:
            return None
        named = {k: v for k, v in decl.settings.items() if k in _NAMING}  # laid once their values are known to be the domain's
        settings = {k: v for k, v in decl.settings.items() if k != "value_labels" and k not in named}
        try:
            feature = (base or Feature(decl.name.word, decl.settings["kind"])).updated(**settings)
        except ValueError as e:
            self.problem(self.error(str(e), decl.name))
            return None
        found = len(self.errors or ())
        for tok in decl.named + [tok for tok, _ in decl.labelled if not feature.is_numeric]:
            self.check_domain(tok, feature)
        if len(self.errors or ()) == found:  # the values named are the domain's (else each is reported already)
            try:
                feature = feature.updated(**named)
            except ValueError as e:
                self.problem(self.error(str(e), decl.named[0] if decl.named else decl.name))
        try:
            return feature.updated(value_labels=decl.settings["value_labels"]) if decl.labelled else feature
        except ValueError as e:
            self.problem(self.error(str(e), decl.labelled[0][0]))
            return feature

    def labelled(self, decl: Declaration, kind: str | None) -> dict[str | int | float, str]:
        """The labels of ``values {...}``: a numeric feature's values are numbers, a category's
        text (``persons: values {2: "two"}`` labels '2'); of a feature whose kind is unknown, as written."""
        out: dict[str | int | float, str] = {}
        for tok, text in decl.labelled:
            key = tok.value if tok.kind == "number" and kind != "categorical" else tok.word
            if kind == "numeric" and tok.kind != "number":
                self.problem(self.error(f"expected a number for the numeric feature {decl.name.word}, found {tok.found()}", tok))
            elif key in out:
                self.problem(self.error(f"{tok.text} is labelled twice in this declaration", tok))
            else:
                out[key] = text
        return out

    def known(self, name: Token) -> Feature | None:
        return self.features[name.word] if name.word in self.features else self.base(name)

    def check_domain(self, tok: Token, feature: Feature) -> None:
        if feature.domain is not None and tok.word not in feature.domain:
            values = format_value(feature.domain)
            self.problem(self.error(f"{tok.word!r} is not a value of {feature.name}; its values are {values}{suggest(tok.word, feature.domain)}", tok))

    def literal(self, cond: Condition) -> Literal:
        feature = self.known(cond.feature)
        if feature is not None and feature.kind == "categorical" and cond.op in NUMERIC_OPS:
            self.problem(self.error(f"{feature.name} is categorical, so it cannot be compared with {cond.op!r}; use ==, !=, in or not in", cond.op_token))
            return Literal(cond.feature.word, "==", cond.values[0].word)  # a stand-in: the statement is left out
        values = [self.value(tok, feature) for tok in cond.values]
        try:
            return Literal(cond.feature.word, cond.op, tuple(values) if cond.op in SET_OPS else values[0])
        except ValueError as e:  # reported where the condition is; a stand-in keeps the other problems coming
            self.problem(self.error(str(e), cond.op_token))
            return Literal(cond.feature.word, "==", str(values[0]) if values else "")

    def value(self, tok: Token, feature: Feature | None) -> str | int | float:
        if feature is not None and feature.kind == "categorical":
            self.check_domain(tok, feature)
            return tok.word
        if tok.kind == "number":
            return tok.value
        if feature is not None:
            self.problem(self.error(f"expected a number for the numeric feature {feature.name}, found {tok.found()}", tok))
        return tok.word

    def rule(self, rule: RuleStatement) -> CausalRule | None:
        effect = self.literal(rule.effect)
        cause = [self.literal(c) for c in rule.cause]
        try:
            return CausalRule(effect, tuple(cause), rule.constraint, rule.source, rule.comment)
        except ValueError as e:
            self.problem(CausalSyntaxError(str(e), self.file, rule.source.line, rule.source.column))
            return None

    def constraint(self, forbid: ForbidStatement) -> Constraint:
        return Constraint(tuple(self.literal(c) for c in forbid.conditions), forbid.source, forbid.comment)


# -- entry points --------------------------------------------------------------------------------
class Parsed(NamedTuple):
    """What a text says: per-feature settings (name -> field -> value) in the order declared, where
    each feature was declared, the causal rules and the constraints."""

    features: dict[str, dict[str, Any]]
    sources: dict[str, Source]
    rules: tuple[CausalRule, ...]
    constraints: tuple[Constraint, ...]


def read(text: str, file: str = "<string>", schema: Schema | None = None, errors: list[CausalSyntaxError] | None = None) -> Parsed:
    """Read causal knowledge; with ``schema``, every feature must be one of its features and every
    value fit the feature's kind and domain.  Raises :class:`CausalSyntaxError`; given ``errors``,
    collects every problem there instead (in file order) and leaves out the statements that have one."""
    parsed = _statements(text, file, errors)
    declarations: dict[str, Declaration] = {}
    for s in parsed:
        if isinstance(s, Declaration):
            first = declarations.setdefault(s.name.word, s)
            if first is not s:
                _continued(first, s, file, errors)
    resolver = _Resolver(file, schema, list(declarations.values()), errors)
    rules: list[CausalRule] = []
    constraints: list[Constraint] = []
    for s in parsed:  # in file order, so the first error is the one reported
        found = len(errors or ())
        if isinstance(s, RuleStatement):
            rule = resolver.rule(s)
            if rule is not None and len(errors or ()) == found:
                rules.append(rule)
        elif isinstance(s, ForbidStatement):
            constraint = resolver.constraint(s)
            if len(errors or ()) == found:
                constraints.append(constraint)
    kept = {name: d for name, d in declarations.items() if name not in resolver.refused}
    features = {name: d.settings for name, d in kept.items()}
    sources = {name: Source(file, d.name.line, d.name.column) for name, d in kept.items()}
    if errors is not None:
        errors.sort(key=lambda e: (e.line, e.column))
    return Parsed(features, sources, tuple(rules), tuple(constraints))


def _continued(first: Declaration, more: Declaration, file: str, errors: list[CausalSyntaxError] | None) -> None:
    """A feature's items over several lines: a later declaration adds its items to the first;
    an item set on both is refused (which of the two would hold is no one's guess)."""
    twice = [key for key in more.settings if key in first.settings]
    if twice:
        where = f"on line {first.name.line} and on line {more.name.line}"
        message = f"feature {more.name.word!r} sets {', '.join(k.replace('_', '-') for k in twice)} twice: {where}"
        _problem(CausalSyntaxError(message, file, more.name.line, more.name.column), errors)
        return
    first.settings.update(more.settings)
    first.named.extend(more.named)
    first.labelled.extend(more.labelled)


def _statements(text: str, file: str, errors: list[CausalSyntaxError] | None) -> list[Declaration | RuleStatement | ForbidStatement]:
    """The statements of ``text`` as written; when collecting ``errors``, a statement with a
    syntax error is left out, and an error of the lexer (an unclosed quote) ends the reading."""
    if errors is None:
        return [StatementParser(s, file).statement() for s in statements(tokens(text, file))]
    out = []
    try:
        for s in statements(tokens(text, file)):
            try:
                out.append(StatementParser(s, file).statement())
            except CausalSyntaxError as e:
                errors.append(e)
    except CausalSyntaxError as e:
        errors.append(e)
    return out


def _problem(error: CausalSyntaxError, errors: list[CausalSyntaxError] | None) -> None:
    """Raise ``error``, or collect it in ``errors`` and go on."""
    if errors is None:
        raise error
    errors.append(error)


def read_file(path: str | Path) -> str:
    """The text of a UTF-8 causal-knowledge file (a byte-order mark dropped)."""
    path = Path(path)
    data = read_bytes(path, "causal knowledge file")  # a missing file is a MissingFileError, also a FileNotFoundError
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line_start = data.rfind(b"\n", 0, e.start) + 1
        column = len(data[line_start : e.start].decode("utf-8", "replace")) + 1
        message = f"the file is not UTF-8 text: byte 0x{data[e.start]:02x} cannot be decoded"
        raise CausalSyntaxError(message, str(path), data.count(b"\n", 0, e.start) + 1, column) from None
    return text.removeprefix("\ufeff")
