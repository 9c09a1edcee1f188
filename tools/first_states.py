"""Where a person's first question spends its time in the solver (docs/benchmarks.md):

    python tools/first_states.py NAME KIND PROFILE   # NAME adult|german, KIND gbm|rf|lr|mlp|xgb

For the first 15 refused test rows of the box ``mc3g bench blackbox`` fits (those the rules
refuse), it builds the problem's facts, a ``clingo.Control`` with the encoding, parses the
facts and grounds; then the stream of states as the search starts it (all of those again, the
atoms looked up and the first optimum found), and reads the first question's states
(``first_states`` × K) from it; each the least CPU time of five.  It prints the medians in ms, the facts' size in kB and the states read to hand those out.
Run it under two versions (``PYTHONPATH=A/src`` and ``B/src``) to compare them.
"""

from __future__ import annotations

import statistics
import sys
import time

REPEATS = 5


def main(name: str, kind: str, profile: str) -> None:
    import clingo

    from mc3g.bench.blackbox import _fit
    from mc3g.search import StateStream, solver
    from mc3g.search.encoding import ENCODING, Program

    fitted = _fit(name, kind, 15, 3, profile)
    engine, k = fitted.mc3g.engine_, 3
    first = engine.settings.hunt.first_states * k
    people = []
    for _, row in fitted.refused.iterrows():
        instance = engine.instance(row.to_dict())
        if not engine.firing(instance):
            continue
        problem, least = engine.problem(instance, k), {}
        for _ in range(REPEATS):
            clock = [time.process_time()]
            program = Program(problem)
            facts = program.facts() + solver._counting(len(program.scales))
            clock.append(time.process_time())
            control = clingo.Control(["--warn=none", "--opt-heuristic=model", "--project=show"])
            control.add("base", [], ENCODING)
            clock.append(time.process_time())
            control.add("base", [], facts)
            clock.append(time.process_time())
            control.ground([(part, []) for part in program.parts()])
            clock.append(time.process_time())
            stream = StateStream(problem, 10 * first)
            clock.append(time.process_time())
            stream.take(first)
            clock.append(time.process_time())
            parts = ["facts", "control and encoding", "parse facts", "ground", "stream", f"read {first}"]
            for part, start, end in zip(parts, clock, clock[1:]):
                least[part] = min(least.get(part, float("inf")), (end - start) * 1000)
        least["facts kB"] = len(facts) / 1000
        least["states read"] = len(stream._pending) + len(stream._ready) + first
        people.append(least)
    medians = {part: statistics.median(p[part] for p in people) for part in people[0]}
    print(f"{name} {kind} {profile}, {len(people)} people: " + ", ".join(f"{part} {value:.1f}" for part, value in medians.items()))


if __name__ == "__main__":
    main(*sys.argv[1:])
