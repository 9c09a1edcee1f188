"""Saving and loading a fitted explainer (``MC3G.save`` / ``MC3G.load``): how large the document
is, how long loading takes against fitting, and whether the loaded explainer answers the same."""

from __future__ import annotations

import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ..causal import CausalModel
from ..explain import MC3G
from ..reference import knowledge, reference
from .table1 import BLACK_BOXES, SETTINGS, SURROGATE_TAIL, black_box


@dataclass(frozen=True)
class PersistTiming:
    dataset: str
    model: str  # "paper rules", or the black box's class
    fit_seconds: float
    size_kib: float
    save_ms: float  # best of ``repeat``
    load_ms: float  # best of ``repeat``
    people: int  # refused test rows explained by both explainers
    same_answers: bool  # every answer equal, but for the measured search time

    def to_dict(self) -> dict:
        return asdict(self)


def persist_benchmark(people: int = 20, repeat: int = 5) -> list[PersistTiming]:
    """The paper's adult rules, and the Table 1 black boxes of adult and German."""
    from ..datasets import load

    cases = []
    ds = load("adult", split="paper")
    ref = reference("adult")
    cases.append(("adult", "paper rules", MC3G(ref.rules, ref.causal(ds), schema=ds.schema), ds.X_train, ds.X_test, None))
    for name, (dataset, split) in SETTINGS.items():
        ds = load(dataset, split=split)
        model = black_box(ds, BLACK_BOXES[name])
        causal = knowledge(ds) or CausalModel()
        explainer = MC3G(model, causal, schema=ds.schema, tail=SURROGATE_TAIL[name])
        cases.append((name, type(model[-1]).__name__, explainer, ds.train.drop(columns=[ds.schema.label]), ds.test.drop(columns=[ds.schema.label]), model))
    with tempfile.TemporaryDirectory() as folder:
        return [_measure(*case, people, repeat, Path(folder) / f"{case[0]}-{case[1]}.json") for case in cases]


def _measure(name, label, explainer, X_train, X_test, model, people, repeat, path: Path) -> PersistTiming:
    start = time.perf_counter()
    explainer.fit(X_train)
    fit = time.perf_counter() - start
    save = min(_timed(lambda: explainer.save(path)) for _ in range(repeat))
    load = min(_timed(lambda: MC3G.load(path, model=model)) for _ in range(repeat))
    loaded = MC3G.load(path, model=model)
    rows = X_test[explainer.refuses(X_test)].iloc[:people]
    same = [a.to_dict(timing=False) for a in explainer.explain(rows)] == [a.to_dict(timing=False) for a in loaded.explain(rows)]
    return PersistTiming(name, label, fit, path.stat().st_size / 1024, save * 1000, load * 1000, len(rows), same)


def _timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start
