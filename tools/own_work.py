"""Own work per person, for comparing two versions of mc3g side by side (docs/benchmarks.md).

    python tools/own_work.py measure NAME KIND PROFILE OUT [HUNT]   # NAME adult|german, KIND gbm|rf|lr|mlp|xgb
    python tools/own_work.py compare A.json B.json [A2.json B2.json]

``measure`` fits the black box and explainer as ``mc3g bench blackbox`` does (its first 30
refused test rows, K = 3; with ``HUNT``, the search's settings as ``--hunt`` takes them, such
as ``first_states=16``) and explains each person three times: the least CPU time, less the CPU
of the model's ``predict``, is the person's own work; the rounds of questions are the run
record's.  Measured twice with one checkout, without and with ``HUNT``, two settings compare
as two versions do.  ``compare`` prints, for two such runs, how many answers are the same (and of the
others, how many are better in B: more options, or cheaper in all), the medians of own work
and the median per-person ratio B / A, and the rounds: their median, and the people answered
in two rounds or fewer.  Given a second pair, measured with the cores swapped, it prints both
orders' per-person ratios and their geometric mean: one core of this machine can run several per
cent faster than the other, and the mean takes that out (their quotient is the cores').
"""

from __future__ import annotations

import json
import math
import statistics
import sys
import time

REPEATS = 3


def measure(name: str, kind: str, profile: str, out: str, hunt: str | None = None) -> None:
    from mc3g.bench.blackbox import _fit
    from mc3g.cli.explain import hunt_given

    fitted = _fit(name, kind, 30, 3, profile, hunt_given(hunt))
    box, people = fitted.ours_box, []
    for _, row in fitted.refused.iterrows():
        least = None
        for _ in range(REPEATS):
            cpu, model = time.process_time(), box.cpu
            answer = fitted.mc3g.explain(row)
            own = (time.process_time() - cpu - (box.cpu - model)) * 1000
            least = own if least is None else min(least, own)
        people.append({"own_ms": least, "rounds": answer.run.model_rounds, "options": answer.to_dict(timing=False)["counterfactuals"]})
    with open(out, "w") as f:
        json.dump(people, f, default=str)


def compare(a_path: str, b_path: str, *swapped: str) -> None:
    a, b = (json.load(open(p)) for p in (a_path, b_path))
    if swapped:
        a2, b2 = (json.load(open(p)) for p in swapped)
        first, second = (statistics.median(y["own_ms"] / x["own_ms"] for x, y in zip(p, q)) for p, q in ((a, b), (a2, b2)))
        print(f"per person B / A {first:.3f}, cores swapped {second:.3f}: {math.sqrt(first * second):.3f} (cores {math.sqrt(first / second):.3f})", end=" | ")
    same = sum(x["options"] == y["options"] for x, y in zip(a, b))
    better = sum(_better(y, x) for x, y in zip(a, b))
    worse = sum(_better(x, y) for x, y in zip(a, b))
    median = statistics.median
    print(
        f"same {same} of {len(a)} ({better} better, {worse} worse)"
        f" | own work ms median {median(x['own_ms'] for x in a):.1f} -> {median(y['own_ms'] for y in b):.1f}"
        f" | per person B / A {median(y['own_ms'] / x['own_ms'] for x, y in zip(a, b)):.3f}"
        f" | rounds median {median(x['rounds'] for x in a):g} -> {median(y['rounds'] for y in b):g},"
        f" people at 2 or fewer {sum(x['rounds'] <= 2 for x in a)} -> {sum(y['rounds'] <= 2 for y in b)}"
    )


def _better(x: dict, y: dict) -> bool:
    """Whether person ``x``'s answer beats ``y``'s: more options, or as many costing less in all."""
    costs = [sum(o["cost"] for o in p["options"]) for p in (x, y)]
    return len(x["options"]) > len(y["options"]) or (len(x["options"]) == len(y["options"]) and costs[0] < costs[1] - 1e-9)


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {"measure": measure, "compare": compare}[command](*args)
