"""Two checkouts' black-box answers set side by side, person by person (docs/benchmarks.md,
issue 51: the answers on the twenty benchmark boxes the same or cheaper):

    PYTHONPATH=A/src python tools/answers.py dump A.json [N]   # the first N refused (20)
    PYTHONPATH=B/src python tools/answers.py dump B.json [N]
    python tools/answers.py compare A.json B.json

``dump`` fits Table 1's boxes of adult and German (an MLP, a random forest, gradient boosting,
an RBF SVM, nearest neighbours), each searched as a black box (``read_model="never"``) under the
shipped knowledge and the ``product`` profile, and explains the first N refused test rows at
K = 1 and at K = 3, keeping each answer's option costs.  ``compare`` says, for each box and K,
how many answers are the same, cheaper (as many options, none dearer), have more options (none
dearer), and how many are worse (fewer options, or one dearer), listing those.  Only what a
person is offered is compared: a version's wording or run record may differ.
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

KINDS = ("mlp", "rf", "gbm", "svc", "knn")
SLACK = 1e-9  # costs printed from floats: equal within this


def dump(out: str, n: str = "20") -> None:
    from threadpoolctl import threadpool_limits

    from mc3g.bench.table1 import SETTINGS, SURROGATE_TAIL, black_box
    from mc3g.causal import CausalModel
    from mc3g.datasets import load
    from mc3g.explain import MC3G
    from mc3g.reference import knowledge

    costs: dict[str, list[float]] = {}
    with threadpool_limits(limits=1):
        for name in ("adult", "german"):
            dataset, split = SETTINGS[name]
            ds = load(dataset, split=split)
            X, X_test = (frame.drop(columns=[ds.schema.label]) for frame in (ds.train, ds.test))
            known, tail = knowledge(ds) or CausalModel(), SURROGATE_TAIL[name]
            for kind in KINDS:
                model = black_box(ds, kind)
                refused = X_test[model.predict(X_test).astype(str) == ds.schema.unfavourable].iloc[: int(n)]
                for k in (1, 3):
                    explainer = MC3G(model, known, schema=ds.schema, k=k, tail=tail, profile="product", read_model="never").fit(X)
                    for i, (_, row) in enumerate(refused.iterrows()):
                        costs[f"{name} {kind} K={k} #{i}"] = [option.cost for option in explainer.explain(row).counterfactuals]
    Path(out).write_text(json.dumps(costs, indent=0))


def compare(a_path: str, b_path: str) -> None:
    a, b = (json.loads(Path(path).read_text()) for path in (a_path, b_path))
    if a.keys() != b.keys():
        print(f"{len(a.keys() ^ b.keys())} people in one file only, left out (dumped with different N?)")
    by_box: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    worse = []
    for person in a.keys() & b.keys():
        verdict = _verdict(a[person], b[person])
        by_box[person.rsplit(" #", 1)[0]][verdict] += 1
        if verdict == "worse":
            worse.append(f"  {person}: {a[person]} -> {b[person]}")
    total = sum(by_box.values(), collections.Counter())
    print(f"{sum(total.values())} answers: " + ", ".join(f"{total[v]} {v}" for v in ("same", "cheaper", "more options", "worse")))
    for box in sorted(by_box):
        print(f"  {box}: " + ", ".join(f"{count} {v}" for v, count in sorted(by_box[box].items())))
    print(f"options {sum(map(len, a.values()))} -> {sum(map(len, b.values()))}")
    print("\n".join(sorted(worse)))


def _verdict(old: list[float], new: list[float]) -> str:
    """How ``new`` options stand to ``old`` ones, place by place."""
    none_dearer = all(y <= x + SLACK for x, y in zip(old, new))
    if len(new) == len(old) and none_dearer:
        return "same" if all(abs(x - y) <= SLACK for x, y in zip(old, new)) else "cheaper"
    return "more options" if len(new) > len(old) and none_dearer else "worse"


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {"dump": dump, "compare": compare}[command](*args)
