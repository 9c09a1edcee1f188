"""The counterfactual problem as an ASP program for clingo.

The rules are the packaged file ``mc3g.lp``, in ``#program`` parts (one per cost mode, one for
the regions of the data scheme).  Everything else the program needs is computed here as facts: candidate values (by index), their costs
as integers, and which candidate values satisfy each literal.  No user text reaches clingo except
as quoted, escaped strings, so nothing a user writes can run as code.

The derived mode is stable-model semantics doing what it is good at: ``caused(F)`` needs a
changed cause feature that is ``grounded`` (a direct action or itself caused), and a positive
loop of causes supports nothing, so rules cannot excuse each other in a circle.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterable
from fractions import Fraction
from importlib import resources

import clingo
import clingo.ast
import numpy as np

from ..rules import Literal, Rule
from .problem import Problem
from .score import Score

# The rules of the search, in parts (see the file's comments).  The solver adds the whole file,
# #program lines and all, and grounds the parts a problem needs.
ENCODING = resources.files(__package__).joinpath("mc3g.lp").read_text(encoding="utf-8")
_DIRECTIVE = re.compile(r"^#program\s+(\w+)\s*\.[ \t]*$", re.MULTILINE)


def _parts(text: str) -> dict[str, str]:
    """The rules of each ``#program`` part, by name (the comments before the first are left out)."""
    pieces = _DIRECTIVE.split(text)[1:]
    return {name: rules.strip() + "\n" for name, rules in zip(pieces[::2], pieces[1::2])}


PARTS = _parts(ENCODING)
_BUILDING = threading.Lock()  # the statements are shared: one program takes them at a time


@functools.cache
def _statements() -> tuple[clingo.ast.AST, ...]:
    """The encoding's statements, parsed on first use; no program changes them."""
    found: list[clingo.ast.AST] = []
    clingo.ast.parse_string(ENCODING, found.append)
    return tuple(found)


def add_encoding(ctl: clingo.Control) -> None:
    """The encoding's rules added to ``ctl``, as ``ctl.add`` of its text would: parsed once, each
    statement handed to the program (a person's program spent half a millisecond parsing it)."""
    statements = _statements()
    with _BUILDING, clingo.ast.ProgramBuilder(ctl) as builder:
        for statement in statements:
            builder.add(statement)


def quote(text: str) -> str:
    """A clingo string literal; the escapes make any text inert."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def comment(text: str) -> str:
    """A one-line ASP comment: a newline in a user's name or value cannot end it."""
    return "% " + " ".join(str(text).splitlines())


WEIGHT_MAX = 2**31 - 1  # clingo's weights are 32-bit integers
LEVEL_BITS = 16  # one scale is this many bits finer than the last
LEAST_BITS = 8  # the finest scale gives the cheapest change at least this many bits
MAX_SCALES = 12


def weight_cap(problem: Problem) -> int:
    """The largest weight of one value.  clingo reports a model's cost in 32 bits (a larger sum
    wraps around) and refuses a literal whose merged weights pass 32 bits (it merges the weights
    of literals it finds equivalent), so the weights of all features together must fit one."""
    return WEIGHT_MAX // max(len(problem.names), 1)


def scales(problem: Problem, cap: int) -> list[Fraction]:
    """The scales the solver may count costs at, coarsest first.  At the coarsest the dearest
    term still fits ``cap``, so no weight is capped; each next is 2^16 times finer, down to one
    that gives the cheapest nonzero term 2^8 units.  Most problems need one scale; a finer one
    is there for costs far below the dearest (a step of a number with a wide spread, under L2)."""
    terms = [t for ts in problem.numerators.values() for t in ts if t]
    if not terms:
        return [Fraction(1)]
    out = [_power_of_two_below(Fraction(cap * problem.denominator, max(terms)))]
    finest = Fraction(2**LEAST_BITS * problem.denominator, min(terms))
    while out[-1] < finest and len(out) < MAX_SCALES:
        out.append(out[-1] * 2**LEVEL_BITS)
    return out


def _power_of_two_below(x: Fraction) -> Fraction:
    p = Fraction(2) ** (x.numerator.bit_length() - x.denominator.bit_length())
    return p if p <= x else p / 2


def _exponent(power_of_two: Fraction) -> int:
    return power_of_two.numerator.bit_length() - power_of_two.denominator.bit_length()


def weights(problem: Problem, scale: Fraction, cap: int) -> dict[str, list[int]]:
    """Each candidate value's cost counted at ``scale``: the exact term times the scale, rounded
    down and capped, so a state's weights never sum to more than its cost times the scale (and,
    with no weight capped, to less than that minus one per feature)."""
    den = problem.denominator * scale.denominator
    return {n: [min(t * scale.numerator // den, cap) for t in ts] for n, ts in problem.numerators.items()}


class Program:
    """The facts and rules of one problem, with literal ids assigned as they are met; ``shared``:
    of a problem whose candidates are a model's cells, not one person's values (no costs, and
    what held for the person left to external atoms: :mod:`.shared`); not ``priced``: no costs
    (what would open a way out weighs none: a third of its facts, written and parsed for
    nothing)."""

    def __init__(self, problem: Problem, shared: bool = False, priced: bool = True) -> None:
        self.problem = problem
        self.shared = shared
        self.priced = priced and not shared
        self.lit_ids: dict[Literal, int] = {}
        self._next_id = 0  # literal ids, the decision's, the knowledge's and a model's tests together
        self.ranks: dict[str, np.ndarray] = {}  # per numeric feature, each candidate's rank
        self.lines: list[str] = []
        self.cap = weight_cap(problem)
        self.scales = scales(problem, self.cap)
        self.weights = [weights(problem, scale, self.cap) for scale in self.scales] if self.priced else []
        self._write()

    def literal(self, lit: Literal) -> int:
        i = self.lit_ids.get(lit)
        if i is None:
            i = self.lit_ids[lit] = self._truth(lit.feature, self.problem.truth(lit), str(lit))
        return i

    def _truth(self, feature: str, truth: np.ndarray, said: str) -> int:
        """A new literal id for a condition on ``feature`` with this truth over its candidates."""
        i = self._next_id
        self._next_id += 1
        self.lines.append(comment(said))
        self.lines.append(f"lit({i},{quote(feature)}).")
        run = self._run(feature, truth)
        if run is not None:
            self.lines.append(f"span({i},{run[0]},{run[1]}).")
        else:
            self.lines.extend(f"sat({i},{j})." for j in np.flatnonzero(truth))
        return i

    def _run(self, feature: str, truth: np.ndarray) -> tuple[int, int] | None:
        """The ranks (in value order) of the first and last value a literal holds for, when it
        holds for exactly the values between them: a threshold is two numbers, not a fact per
        value, which keeps the program small enough to parse and ground quickly."""
        fv = self.problem.space[feature]
        if not fv.feature.is_numeric or not truth.any():
            return None
        ranks = self.ranks.get(feature)
        if ranks is None:
            ranks = self.ranks[feature] = np.unique(np.array(fv.values, dtype=np.float64), return_inverse=True)[1].reshape(-1)
            self.lines.extend(f"rank({quote(feature)},{j},{r})." for j, r in enumerate(ranks))
        low, high = int(ranks[truth].min()), int(ranks[truth].max())
        return (low, high) if np.array_equal((ranks >= low) & (ranks <= high), truth) else None

    def _body(self, literals: Iterable[Literal]) -> list[str]:
        return [f"holds({self.literal(lit)})" for lit in literals]

    def _rule(self, rule: Rule, name: str, counter: list[int]) -> None:
        parts = self._body(rule.body)
        for exc in rule.exceptions:
            counter[0] += 1
            exc_name = f"e{counter[0]}"
            self._rule(exc, exc_name, counter)
            parts.append(f"not covers({exc_name})")
        self.lines.append(f"covers({name}) :- {', '.join(parts) if parts else '#true'}.")

    def _write(self) -> None:
        p = self.problem
        self.lines.append("% the person's features in play and their candidate values (0 = unchanged)")
        for f in p.space.features:
            name = quote(f.name)
            self.lines.append(f"feature({name}).  {comment(f'{f.name} = {f.original!r}')}")
            self.lines.extend(f"cand({name},{j}).  {comment(repr(v))}" for j, v in enumerate(f.values))
            for level, counted in enumerate(self.weights):
                self.lines.extend(f"cost({name},{j},{level},{c})." for j, c in enumerate(counted[f.name]) if c)
            if f.feature.must_change:
                self.lines.append(f"must_change({name}).")
            if f.feature.consequence_only:
                self.lines.append(f"consequence_only({name}).")
            if not (f.feature.consequence_only or f.feature.immutable):
                self.lines.append(f"actionable({name}).")
        if len(p.space.regions) > 1:
            self.lines.append("% the candidate regions (the authors' data scheme)")
            for r, region in enumerate(p.space.regions):
                self.lines.append(f"region({r}).")
                for name, indices in region.allowed.items():
                    self.lines.extend(f"rcand({r},{quote(name)},{j})." for j in indices)
        self.lines.append("% the decision rules: no rule may cover the counterfactual")
        counter = [0]
        for i, rule in enumerate(p.decision):
            self._rule(rule, f"d{i}", counter)
            self.lines.append(f":- covers(d{i}).")
        self.lines.append("% constraints of the causal knowledge")
        for combo in p.causal.forbidden:
            if p.in_play(combo):
                self.lines.append(f":- {', '.join(self._body(combo))}.")
        self.lines.append("% causal rules")
        for k, rule in enumerate(p.rules):
            self.lines.append(f"crule({k},{quote(rule.effect.feature)}).  {comment(rule)}")
            self.lines.append(f"effect_lit({k},{self.literal(rule.effect)}).")
            self.lines.extend(f"cause_lit({k},{self.literal(c)})." for c in rule.cause)
            self.lines.extend(f"cause_feature({k},{quote(g)})." for g in rule.cause_features)
            if self.shared:
                continue
            if p.truth(rule.effect)[0]:
                self.lines.append(f"effect_before({k}).")
            if p.cause_before[k]:
                self.lines.append(f"cause_before({k}).")
            self.lines.extend(f"nearest({k},{j})." for j in range(len(p.nearest[k])) if p.nearest[k][j])
        if p.score is not None:
            self._model(p.score)

    def _model(self, score: Score) -> None:
        """A model read exactly: its trees' nodes (each testing a literal of a pattern of truth),
        their leaves and the candidates' terms as integers rounded up, and the least sum."""
        leaves, terms, least = score.weights()
        names = self.problem.names
        self.lines.append(f"% the model ({score.box.kind}): its leaves and terms, each tree's and feature's in order of weight")
        trees = score.trees
        if trees is not None:
            ids = {f: [self._truth(names[f], row, f"{names[f]}: test {t} of the model") for t, row in enumerate(rows)] for f, rows in score.patterns.items()}
            inner = trees.feature >= 0
            self.lines.extend(f"root({n})." for n in trees.roots)
            nodes = zip(np.flatnonzero(inner), trees.feature[inner], trees.test[inner], trees.yes[inner], trees.no[inner])
            self.lines.extend(f"node({n},{ids[f][t]},{y},{z})." for n, f, t, y, z in nodes)
            leaf = np.flatnonzero(~inner)
            least -= self._leaves(leaf, np.searchsorted(trees.roots, leaf, side="right") - 1, leaves)
        for position, counted in terms.items():
            name = quote(names[position])
            least -= self._ranked(f"term({name},{{}},{{}}).", f"rise({name},{{}},{{}}).", np.arange(len(counted)), counted)
        self.lines.append(f"least({least}).  % what the steps above each least weight must add up to")

    def _leaves(self, leaf: np.ndarray, tree: np.ndarray, weights: np.ndarray) -> int:
        """:meth:`_ranked` for every tree at once (``tree``: each leaf's, in order): each leaf by
        the rank of its weight among its tree's distinct ones, the step up to each rank, and the
        least weights' sum.  One sort for all trees: a forest has hundreds."""
        if not len(leaf):
            return 0
        order = np.lexsort((weights, tree))
        by_tree, by_weight = tree[order], weights[order]
        first = np.r_[True, by_tree[1:] != by_tree[:-1]]  # a tree's least weight
        new = first | np.r_[True, by_weight[1:] != by_weight[:-1]]  # a distinct weight of its tree
        group = np.cumsum(new) - 1
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = group - group[first][np.cumsum(first) - 1]
        self.lines.extend(f"leaf({k},{t},{r})." for k, t, r in zip(leaf.tolist(), tree.tolist(), rank.tolist()))
        up = new & ~first
        steps = zip(by_tree[up].tolist(), rank[order][up].tolist(), (by_weight[up] - by_weight[np.flatnonzero(up) - 1]).tolist())
        self.lines.extend(f"step({t},{r},{d})." for t, r, d in steps)
        return int(by_weight[first].sum())

    def _ranked(self, item: str, step: str, keys: np.ndarray, weights: np.ndarray) -> int:
        """Facts of items (``keys``) by the rank of their weight among the distinct ones, and the
        step up to each rank; returns the least weight (what every item adds at least)."""
        distinct, rank = np.unique(weights, return_inverse=True)
        self.lines.extend(item.format(k, r) for k, r in zip(keys, rank.reshape(-1)))
        self.lines.extend(step.format(r, d) for r, d in enumerate(np.diff(distinct), 1))
        return int(distinct[0]) if len(distinct) else 0

    def parts(self) -> list[str]:
        """The parts of the encoding this problem needs, base first."""
        parts = ["base", "own" if self.shared else "unchanged"] + (["regions"] if len(self.problem.space.regions) > 1 else [])
        parts += ["model"] if self.problem.score is not None else []
        mode = self.problem.mode
        if mode == "derived":
            return parts + ["derived"]
        return parts + ["explained", "cost_explained" if mode == "explained" else "cost_all"]

    def facts(self) -> str:
        """The person's facts and the decision rules, for the part base."""
        return "\n".join(self.lines) + "\n"

    def text(self) -> str:
        """A self-contained program plain clingo runs as it is: the parts needed, then the facts."""
        p = self.problem
        costs = f"costs are integers: each value's cost x 2^{_exponent(self.scales[0])}, rounded down"
        header = comment(f"MC3G counterfactual search, mode {p.mode}, norm {p.distance.label}; {costs}")
        parts = "".join(f"% part {part} of mc3g.lp\n{PARTS[part]}" for part in self.parts())
        return header + "\n" + parts + self.facts() + "% costs are counted at scale 0\nscale(0).\n"
