"""How many states each part of a black box's search reads from the solver (docs/benchmarks.md):

    python tools/states_read.py NAME KIND PROFILE   # NAME adult|german, KIND gbm|rf|lr|mlp|xgb

For the box ``mc3g bench blackbox`` fits (its first 30 refused test rows, K = 3), it explains
each person once and prints, for each part of the search (the run record's phase names), the
states its readings asked the solver's streams for (``StateStream.take``) and the states the
solver read and priced to hand those out.  The two differ by the states read past what was
asked (a window's states are all read) and those read ahead that no reading reached.  Run it
under two versions (``PYTHONPATH=A/src`` and ``B/src``) to compare them.
"""

from __future__ import annotations

import sys
from collections import Counter


def main(name: str, kind: str, profile: str) -> None:
    from mc3g.bench.blackbox import _fit
    from mc3g.hunt import Verdicts
    from mc3g.search import StateStream

    fitted = _fit(name, kind, 30, 3, profile)
    asked: Counter[str] = Counter()
    read: Counter[str] = Counter()
    phase = [""]
    take, keep, naming = StateStream.take, StateStream._keep, Verdicts.phase.fset

    def counted_take(stream, n):  # type: ignore[no-untyped-def]
        asked[phase[0]] += max(n, 0)
        return take(stream, n)

    def counted_keep(stream, page):  # type: ignore[no-untyped-def]
        read[phase[0]] += len(page.states)
        return keep(stream, page)

    def named(verdicts, name):  # type: ignore[no-untyped-def]
        phase[0] = name
        naming(verdicts, name)

    StateStream.take, StateStream._keep = counted_take, counted_keep  # type: ignore[method-assign]
    Verdicts.phase = property(Verdicts.phase.fget, named)  # type: ignore[method-assign]
    for _, row in fitted.refused.iterrows():
        fitted.mc3g.explain(row)
    print(f"{name} {kind} {profile}, {len(fitted.refused)} people: " + "; ".join(f"{p} asked {asked[p]}, read {read[p]}" for p in asked))


if __name__ == "__main__":
    main(*sys.argv[1:])
