"""What a local rule set costs to learn, two ways (docs/benchmarks.md):

    python tools/local_rules.py NAME KIND PROFILE   # NAME adult|german, KIND gbm|rf|lr|mlp|xgb

For the box ``mc3g bench blackbox`` fits (its first 30 refused test rows, K = 3), it explains
each person once and keeps the rows and verdicts of every local rule set the search learns.  Then
it learns each set again, the least CPU time of five: as the search does (``local_rules``, a
table of the model's columns), and as a user's data is learned from (``FoldSE.fit`` on the rows
as the model's frame, with its checks).  It prints the median and mean ms of each, and whether
the rules were the same every time.
"""

from __future__ import annotations

import statistics
import sys
import time

REPEATS = 5


def main(name: str, kind: str, profile: str) -> None:
    import numpy as np

    from mc3g.bench.blackbox import _fit
    from mc3g.foldse import FoldSE
    from mc3g.hunt import phases
    from mc3g.hunt.local import local_rules
    from mc3g.models import ChangedRows, typed_frame

    def fitted_rules(engine, row, changes, refusals):  # type: ignore[no-untyped-def]
        box = engine.black_box
        frame = typed_frame(ChangedRows.around(row, changes), box.dtypes)
        other = next(label for label in box.labels if label != engine.unfavourable)
        labels = np.array([engine.unfavourable if r else other for r in refusals], dtype=object)
        numeric = [f.name for f in engine.schema.features if f.is_numeric and f.name in frame.columns]
        return FoldSE(tail=0.0, target=engine.unfavourable, numeric=numeric).fit(frame, labels).rules_

    fitted, learned = _fit(name, kind, 30, 3, profile), []

    def kept(*given):  # type: ignore[no-untyped-def]
        learned.append(given)
        return local_rules(*given)

    phases.local_rules = kept  # type: ignore[attr-defined]
    for _, row in fitted.refused.iterrows():
        fitted.mc3g.explain(row)
    times: dict[str, list[float]] = {"local_rules": [], "FoldSE.fit": []}
    same = all(local_rules(*given) == fitted_rules(*given) for given in learned)
    for given in learned:
        for label, learn in (("local_rules", local_rules), ("FoldSE.fit", fitted_rules)):
            least = float("inf")
            for _ in range(REPEATS):
                start = time.process_time()
                learn(*given)
                least = min(least, time.process_time() - start)
            times[label].append(least * 1000)
    print(
        f"{name} {kind} {profile}, {len(learned)} local rule sets: "
        + "; ".join(f"{label} median {statistics.median(t):.2f} ms, mean {statistics.mean(t):.2f}" for label, t in times.items())
        + f"; the same rules: {same}"
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
