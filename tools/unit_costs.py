"""Own work by unit: what a black box's search does for one person, how often, and what each
costs (docs/benchmarks.md):

    python tools/unit_costs.py NAME KIND PROFILE   # NAME adult|german, KIND gbm|rf|lr|mlp|xgb

For the box ``mc3g bench blackbox`` fits (its first 30 refused test rows, K = 3), it explains
each person once and prints, per person, each unit of the search's own work: how many, the CPU
each costs and their share of the own work (the search's CPU less the model's ``predict``):

- streams: solver programs built and grounded (``StateStream``, one per problem searched);
- states: states the solver read and priced for the streams (``StateStream.take``; a stream's
  reading includes its windows' states read past what was asked);
- rows drawn: rows drawn around the person and keyed (``Hunt.drawn``, ``Hunt.samples``);
- frames: rows put in frames for the model (``BlackBox.frame``);
- rule sets: local FOLD-SE rule sets learned (``local_rules``);
- rows priced: rows the model accepted priced under the knowledge (``Accepted._price``);
- garbage collection: the interpreter's pauses, which land inside whichever unit runs (so they
  are counted in both; ``gc.callbacks``), counted by its full collections, which take most of it.

Two units are split further, into what clingo itself does and what is left to Python: a
stream's parsing, grounding and first optimum (``Control.add``, ``Control.ground``), and the
states' enumeration (the solver's solves less the Python that reads each model in its
callback).  clingo's part is the least this design can spend on a unit while it reads as many
states and builds a program per search.  A line before the units gives the median person's own
work and the median of clingo's part (each the median of its own, over the people).

What is left is everything else: ranking, sectioning, bookkeeping.  The units show what a
design must change to reach a given own work: a count that falls, or a cost that does.
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from typing import Any


def main(name: str, kind: str, profile: str) -> None:
    import clingo

    from mc3g.bench.blackbox import _fit
    from mc3g.hunt import accepted, hunt, phases
    from mc3g.models import BlackBox
    from mc3g.search import StateStream, solver

    fitted = _fit(name, kind, 30, 3, profile)
    seconds: Counter[str] = Counter()
    counts: Counter[str] = Counter()

    def timed(owner: Any, attribute: str, unit: str | Callable[[], str], count: Callable[..., int]) -> None:
        """Time ``owner.attribute`` under ``unit`` (or the unit it names when called)."""
        inner = getattr(owner, attribute)

        def wrapper(*args: Any) -> Any:
            named = unit if isinstance(unit, str) else unit()
            start = time.process_time()
            try:
                out = inner(*args)
            finally:
                seconds[named] += time.process_time() - start
            counts[named] += count(args, out)
            return out

        setattr(owner, attribute, wrapper)

    timed(StateStream, "__init__", "streams", lambda args, out: 1)
    timed(StateStream, "take", "states", lambda args, out: 0)
    keep = StateStream._keep

    def kept(stream: StateStream, page: Any) -> None:
        counts["states"] += len(page.states)
        keep(stream, page)

    StateStream._keep = kept  # type: ignore[method-assign]
    timed(clingo.Control, "add", "clingo setting up", lambda args, out: 0)
    timed(clingo.Control, "ground", "clingo setting up", lambda args, out: 0)
    timed(solver._Enumeration, "upto", "solving", lambda args, out: 0)
    timed(solver._Enumeration, "_read", "models read", lambda args, out: 0)
    starting, begin = [False], StateStream.__init__
    # A stream's first optimum is its set-up's, later ones its reading's.
    timed(solver._Enumeration, "optimum", lambda: "clingo setting up" if starting[0] else "solving", lambda args, out: 0)

    def begun(stream: StateStream, *args: Any) -> None:
        starting[0] = True
        try:
            begin(stream, *args)
        finally:
            starting[0] = False

    StateStream.__init__ = begun  # type: ignore[method-assign]
    timed(hunt.Hunt, "drawn", "rows drawn", lambda args, out: len(out))
    # The rows local rules learn from are the last draw's first when it is drawn (counted there),
    # else drawn for them alone.
    timed(hunt.Hunt, "samples", "rows drawn", lambda args, out: 0 if args[1].drawn else len(out))
    timed(BlackBox, "frame", "frames", lambda args, out: len(out))
    timed(phases, "local_rules", "rule sets", lambda args, out: 1)
    timed(accepted.Accepted, "_price", "rows priced", lambda args, out: len(args[1]))
    paused = [0.0]

    def pause(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            paused[0] = time.process_time()
        else:
            pause_seconds, full = time.process_time() - paused[0], info["generation"] == 2
            seconds["garbage collection"] += pause_seconds
            counts["garbage collection"] += full
            seconds["full collections"] += pause_seconds if full else 0.0

    box, people = fitted.ours_box, len(fitted.refused)
    gc.callbacks.append(pause)
    cpu, model = time.process_time(), box.cpu
    own_each, clingo_each = [], []  # each person's own work and clingo's part of it, ms

    def inside() -> dict[str, float]:
        """clingo's part of a unit: a stream's parsing, grounding and first optimum; the states'
        solves less the models read in them."""
        return {"streams": seconds["clingo setting up"], "states": seconds["solving"] - seconds["models read"]}

    def clingo_part() -> float:
        return sum(inside().values())

    for _, row in fitted.refused.iterrows():
        person_cpu, person_model, person_clingo = time.process_time(), box.cpu, clingo_part()
        fitted.mc3g.explain(row)
        own_each.append((time.process_time() - person_cpu - (box.cpu - person_model)) * 1000)
        clingo_each.append((clingo_part() - person_clingo) * 1000)
    gc.callbacks.remove(pause)
    own = (time.process_time() - cpu - (box.cpu - model)) * 1000 / people  # ms a person
    print(f"{name} {kind} {profile}, {people} people: own work {own:.1f} ms a person")
    middle, clingo_middle = statistics.median(own_each), statistics.median(clingo_each)  # each the median of its own
    print(f"  the median person: own work {middle:.1f} ms, of which clingo {clingo_middle:.1f} ms")
    clingo_units = inside()
    units = ("streams", "states", "rows drawn", "frames", "rule sets", "rows priced", "garbage collection")
    for unit in units:
        n, s = counts[unit] / people, seconds[unit] * 1000 / people
        spent = seconds["full collections"] * 1000 / people if unit == "garbage collection" else s  # each: a full collection
        each = f"{spent * 1000 / n:8.1f} µs each" if n else " " * 16
        print(f"  {unit:20s} {n:8.1f} a person {each}  {s:6.1f} ms  {s / own:5.0%}")
        if unit in clingo_units:
            part = clingo_units[unit] * 1000 / people
            print(f"    {'of which clingo':18s} {'':36s}  {part:6.1f} ms  {part / own:5.0%}")
    rest = own - sum(seconds[u] for u in units[:-1]) * 1000 / people  # the collections are inside the units
    print(f"  {'the rest':20s} {'':36s}  {rest:6.1f} ms  {rest / own:5.0%}")


if __name__ == "__main__":
    main(*sys.argv[1:])
