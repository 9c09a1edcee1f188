"""Causal knowledge written out: as the text format (so a model built in Python can be saved and
reviewed) and as an s(CASP)-style program to read next to the decision rules.

``parse(to_text(model)) == model`` for every model whose values fit its declared kinds (strings
for categorical features, numbers for numeric ones); the model's name is not part of the text.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Protocol

from ..exceptions import InputError
from ..rules import Literal, ProgramWriter, Value, predicate, token
from ..values import LARGEST
from .lexer import FLAGS, KEYWORDS, NUMBERS, SET_OPS, classify
from .statements import CausalRule, Constraint


class Knowledge(Protocol):
    """What the printer reads of a :class:`~mc3g.causal.CausalModel`."""

    @property
    def name(self) -> str: ...
    @property
    def features(self) -> Mapping[str, Mapping[str, Any]]: ...
    @property
    def rules(self) -> tuple[CausalRule, ...]: ...
    @property
    def constraints(self) -> tuple[Constraint, ...]: ...


def _number(v: float) -> str:
    if not math.isfinite(v):
        raise InputError(f"{v} cannot be written as causal knowledge: numbers must be finite")
    return f"{'-' if v < 0 else ''}1e15" if abs(v) == LARGEST else token(v)  # an open end of valid values, as people write it


def _name(name: str) -> str:
    return name if classify(name) == "word" and name not in KEYWORDS else repr(name)


def _value(v: Value, categorical: bool) -> str:
    """A value as the parser reads it back: bare when it is a word (or, for a categorical
    feature, reads as a number, whose text is then the value), quoted otherwise."""
    if not isinstance(v, str):
        return _number(v)  # type: ignore[arg-type]
    bare = classify(v) == "word" or (categorical and classify(v) == "number" and abs(float(v)) <= LARGEST)  # 1E100 is too large to read bare
    return v if bare else repr(v)


def _interval(bounds: tuple[float, float]) -> str:
    return f"[{_number(bounds[0])}, {_number(bounds[1])}]"


def _set(values: tuple, categorical: bool) -> str:
    return "{" + ", ".join(_value(v, categorical) for v in values) + "}"


def _moves(pairs: tuple[tuple[str, str], ...], efforts: tuple[tuple[str, str, float], ...] = ()) -> str:
    """Moves as ``{a -> b, c -> {d, e}: 2}``: each value with the values it may move to at the
    same effort (none written: 1)."""
    effort = {(a, b): e for a, b, e in efforts}
    by_source: dict[tuple[str, float | None], list[str]] = {}
    for a, b in pairs:
        by_source.setdefault((a, effort.get((a, b))), []).append(b)
    said = (
        f"{_value(a, True)} -> {_value(to[0], True) if len(to) == 1 else _set(tuple(to), True)}" + (f": {_number(e)}" if e is not None else "")
        for (a, e), to in by_source.items()
    )
    return "{" + ", ".join(said) + "}"


def _literal(lit: Literal, categorical: set[str]) -> str:
    is_categorical = lit.feature in categorical
    value = _set(lit.value, is_categorical) if lit.op in SET_OPS else _value(lit.value, is_categorical)  # type: ignore[arg-type]
    return f"{_name(lit.feature)} {lit.op} {value}"


def _items(settings: Mapping[str, Any]) -> list[str]:
    kind, domain, range_ = settings.get("kind"), settings.get("domain"), settings.get("range")
    items = []
    if kind == "numeric":
        items.append("numeric" + (f" {_interval(range_)}" if range_ is not None else ""))
    elif kind == "categorical":
        items.append("categorical" + (f" {_set(domain, True)}" if domain is not None else ""))
    if range_ is not None and kind != "numeric":
        items.append(f"range {_interval(range_)}")
    if settings.get("valid") is not None:
        items.append(f"valid {_interval(settings['valid'])}")
    if domain is not None and kind != "categorical":
        items.append(f"domain {_set(domain, True)}")
    if settings.get("targets") is not None:
        items.append(f"targets {_set(settings['targets'], True)}")
    if settings.get("moves") is not None:
        items.append(f"moves {_moves(settings['moves'], settings.get('efforts') or ())}")
    if settings.get("unknown"):
        items.append(f"unknown {_set(settings['unknown'], True)}")
    items += [f"{word} {_number(settings[name])}" for word, name in NUMBERS.items() if settings.get(name) is not None]
    for word, (name, value) in FLAGS.items():
        setting = settings.get(name)
        if setting == value:
            items.append(word)
        elif setting is False:
            items.append(f"not {word}")
    if settings.get("waits") is not None:
        items.append("waits" + (f" {_quoted(settings['waits'])}" if settings["waits"] else ""))
    if settings.get("label") is not None:
        items.append(f"label {_quoted(settings['label'])}")
    if settings.get("value_labels"):
        pairs = (f"{_value(v, kind == 'categorical')}: {_quoted(text)}" for v, text in settings["value_labels"].items())
        items.append("values {" + ", ".join(pairs) + "}")
    return items


def _quoted(text: str) -> str:
    """Words in double quotes as the lexer reads them back: a backslash, a quote and any
    character that is not printable escaped."""
    out = []
    for c in text:
        if c in '\\"':
            out.append("\\" + c)
        elif not c.isprintable():
            out.append(f"\\U{ord(c):08x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def _declaration(name: str, settings: Mapping[str, Any], width: int = 0) -> str:
    return f"{_name(name) + ':':<{width}} {', '.join(_items(settings))}".rstrip()


def declaration_line(name: str, settings: Mapping[str, Any], width: int = 0) -> str:
    """One feature's declaration (``name:`` padded to ``width``, then its items), as the format
    writes it; a draft of knowledge writes its own comments beside it."""
    return _declaration(name, settings, width)


def statement_line(statement: CausalRule | Constraint, categorical: set[str]) -> str:
    """A causal rule or a constraint as the format writes it, without its comment; values of the
    ``categorical`` features are written as text."""
    return _rule(statement, categorical) if isinstance(statement, CausalRule) else _constraint(statement, categorical)


def _rule(rule: CausalRule, categorical: set[str]) -> str:
    text = f"{_literal(rule.effect, categorical)} <- {', '.join(_literal(c, categorical) for c in rule.cause)}"
    return text if rule.constraint else f"cause {text}"


def _constraint(constraint: Constraint, categorical: set[str]) -> str:
    return "forbid " + ", ".join(_literal(lit, categorical) for lit in constraint.literals)


def _commented(text: str, comment: str) -> str:
    """A statement with its comment, kept on one line (a newline would end the statement)."""
    return f"{text}  # {' '.join(comment.splitlines())}" if comment else text


def _categorical(model: Knowledge) -> set[str]:
    return {name for name, settings in model.features.items() if settings.get("kind") == "categorical"}


def to_text(model: Knowledge) -> str:
    """The model in the text format: feature declarations (aligned), causal rules, constraints."""
    categorical = _categorical(model)
    width = max((len(_name(name)) + 1 for name in model.features), default=0)
    blocks = [
        [_declaration(name, settings, width) for name, settings in model.features.items()],
        [_commented(_rule(r, categorical), r.comment) for r in model.rules],
        [_commented(_constraint(c, categorical), c.comment) for c in model.constraints],
    ]
    return "".join("\n".join(block) + "\n\n" for block in blocks if block).removesuffix("\n")


def to_asp(model: Knowledge) -> str:
    """The model as an s(CASP)-style program: each statement as a comment line, then per causal
    rule i ``explained(X,feature,ri) :- cause, effect.``, and per rule that is a constraint and
    per ``forbid`` an integrity constraint ``:- body.`` (for a rule: the cause and not the effect)."""
    categorical = _categorical(model)
    writer = ProgramWriter()
    out = writer.clauses  # the writer adds the facts of ``in`` sets before their first use
    out.append(f"% {' '.join(model.name.splitlines())}")
    out.extend(f"% {_declaration(name, settings)}" for name, settings in model.features.items())
    for i, rule in enumerate(model.rules, 1):
        out.append(f"% {_commented(_rule(rule, categorical), rule.comment)}")
        out.append(f"explained(X,{predicate(rule.effect.feature)},r{i}) :- {', '.join(writer.body(rule.cause + (rule.effect,)))}.")
        if rule.constraint:
            out.append(f":- {', '.join(writer.body(rule.cause + (rule.effect.negated(),)))}.")
    for constraint in model.constraints:
        out.append(f"% {_commented(_constraint(constraint, categorical), constraint.comment)}")
        out.append(f":- {', '.join(writer.body(constraint.literals))}.")
    return "\n".join(out)
