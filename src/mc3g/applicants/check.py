"""A knowledge file checked against a data file (``mc3g check``): every name and value the data
does not have, at ``file:line:column``, and every statement that rows of the data break, with
how many rows and the first few of them.

The knowledge is read twice: once alone, for the kinds it declares (a column it calls
categorical is read as text), then against the data's own schema with every problem collected
(:func:`mc3g.causal.parser.read` with ``errors``), not only the first.  Rows are then checked
against what the knowledge says of every row: each constraint and each causal rule that is also
a constraint (``forbid`` its cause without its effect), and each feature's declared valid values
and domain.  Values a declared domain adds that no row has are notes, not errors: a domain may
rightly be wider than a sample.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from ..causal import CausalModel, CausalSyntaxError, Source, parse_all, read_file, statement_line
from ..rules import Literal, Table, token
from ..schema import Schema, infer_schema
from .files import DataFile, decision_classes, read_data

FIRST = 5  # rows named for each broken statement
TEXT_HINT = " (a category some of whose values look like numbers: declare it `NAME: categorical` in the knowledge)"


@dataclass(frozen=True)
class Broken:
    """A statement (at ``source``) that ``rows`` rows of the data break; ``first`` names a few."""

    source: Source
    statement: str
    rows: int
    first: tuple[str, ...]

    def __str__(self) -> str:
        more = f", ... ({self.rows - len(self.first):,} more)" if self.rows > len(self.first) else ""
        rows = "1 row of the data breaks" if self.rows == 1 else f"{self.rows:,} rows of the data break"
        return f"{self.source}: {rows} {self.statement}: {', '.join(self.first)}{more}"


@dataclass(frozen=True)
class Report:
    """What :func:`check_knowledge` found: ``errors`` (names and values the data lacks, syntax),
    ``broken`` statements, ``notes``; and the knowledge as far as it could be read."""

    knowledge: CausalModel
    data: DataFile
    errors: tuple[CausalSyntaxError, ...] = ()
    broken: tuple[Broken, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def passed(self) -> bool:
        return not self.errors and not self.broken

    @property
    def read(self) -> str:
        """What was read of the knowledge, in words."""
        model = self.knowledge
        counts = ((len(model.features), "feature declaration"), (len(model.rules), "causal rule"), (len(model.constraints), "constraint"))
        return ", ".join(f"{n} {noun}{'' if n == 1 else 's'}" for n, noun in counts)


def check_knowledge(path: str | Path, data: str | Path, target: str | None = None) -> Report:
    """Check the knowledge file ``path`` against the data file ``data`` whose decision column is
    ``target`` (not a feature; None: every column is one).  A missing cell is an
    :class:`~mc3g.exceptions.InputError`, as :func:`fit_file` raises it."""
    file = str(path)
    text = read_file(path)
    declared, _ = parse_all(text, file)  # the kinds it declares; its problems are all found below
    categorical = [name for name, settings in declared.features.items() if settings.get("kind") == "categorical"]
    rows = read_data(data, categorical=categorical, hint=TEXT_HINT)
    schema = data_schema(rows.frame, target)
    model, errors = parse_all(text, file, schema)
    model = replace(model, name=Path(path).stem)
    if not errors:  # a missing cell, as mc3g fit refuses it
        rows.check(model.schema(schema).features, missing_only=True)
    return Report(model, rows, tuple(errors), tuple(_broken(model, schema, rows)), tuple(_notes(model, schema)))


def data_schema(frame: pd.DataFrame, target: str | None) -> Schema:
    """The features of a data file as the data show them (the decision column ``target`` aside)."""
    if target is None:
        return infer_schema(frame.assign(__decision__="?"), "__decision__", "?", "data")
    return infer_schema(frame, target, next(iter(decision_classes(frame, target, "the data"))), "data")


def _broken(model: CausalModel, schema: Schema, data: DataFile) -> list[Broken]:
    table = Table.from_frame(data.frame)
    statements: list[tuple[Source | None, str, tuple[Literal, ...]]] = []
    categorical = {f.name for f in model.schema(schema).features if not f.is_numeric}
    for rule in model.rules:
        if rule.constraint:
            statements.append((rule.source, statement_line(rule, categorical), rule.cause + (rule.effect.negated(),)))
    for constraint in model.constraints:
        statements.append((constraint.source, statement_line(constraint, categorical), constraint.literals))
    out = []
    for source, text, literals in statements:
        mask = np.logical_and.reduce([lit.mask(table[lit.feature]) for lit in literals])
        out += _rows(source, text, mask, data)
    for name, settings in model.features.items():
        feature = model.schema(schema).feature(name)
        column = table[name]
        source = model.sources.get(name)
        if "valid" in settings:
            low, high = feature.valid  # type: ignore[misc]
            out += _rows(source, f"{name}: valid [{low:g}, {high:g}]", (column.numbers < low) | (column.numbers > high), data)
        if "domain" in settings:
            allowed = np.isin(column.categories, list(feature.domain or ()))
            out += _rows(source, f"{name}'s domain", ~allowed[column.codes], data)
    return out


def _rows(source: Source | None, statement: str, mask: np.ndarray, data: DataFile) -> list[Broken]:
    hits = np.flatnonzero(mask)
    if not len(hits) or source is None:
        return []
    first = tuple(data.place(int(i)) for i in hits[:FIRST])
    return [Broken(source, statement, len(hits), first)]


def _notes(model: CausalModel, schema: Schema) -> list[str]:
    """Values of a declared domain that no row has: rightly wider than the sample, or a typo."""
    notes = []
    for name, settings in model.features.items():
        if "domain" in settings and name in schema and schema.feature(name).domain is not None:
            seen = set(schema.feature(name).domain or ())
            unseen = [v for v in settings["domain"] if token(v) not in seen]
            if unseen:
                notes.append(f"{model.sources[name]}: no row of the data has {name} {', '.join(map(repr, unseen))}")
    return notes

