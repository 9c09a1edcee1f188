"""Wachter et al.'s gradient counterfactuals, a baseline for the MC3G comparison (the paper's Table 1).

S. Wachter, B. Mittelstadt and C. Russell, "Counterfactual explanations without opening the black
box: automated decisions and the GDPR", Harvard Journal of Law & Technology 31(2), 2017.  A
counterfactual x' minimises ``lambda * (f(x') - target)**2 + d(x, x')``, d being the L1 distance
weighted by the inverse median absolute deviation (MAD) of each feature, with lambda raised until
the prediction flips.

The search runs where the model is differentiable: in the output of its ColumnTransformer
(one-hot categories, standardised numbers).  The gradients of logistic regression and of the
multilayer perceptron are written out in numpy (:class:`SigmoidNetwork`), so no autodiff library
is needed.  Each step is a gradient step on the prediction term followed by the L1 term's
proximal step (a soft threshold, the exact form of its subgradient step), so features the
gradient does not push keep exactly their value.  Every iterate is decoded to a real row
(category = largest one-hot coordinate; numbers unscaled, rounded where the training column is
integral, clipped to its range) and the answers are re-checked with the real ``model.predict``.
Like the original method it knows no causal knowledge (``causal`` is taken, to be built like every
method of :mod:`mc3g.methods`, and ignored): only ``features_to_vary`` restricts it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.special import expit
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder, StandardScaler

from ..exceptions import InputError
from ..models import typed_frame
from ._base import Baseline

STEP = 0.05  # gradient step, in MAD units of the encoded columns
DOUBLE_EVERY = 25  # steps between two doublings of lambda
RESTART_NOISE = 0.1  # std (MAD units) of the seeded start perturbation of restarts 1..k-1
BISECTIONS = 12  # halvings of the step that flipped the decoded point, to land near the boundary

_UNSUPPORTED = "Wachter counterfactuals need a differentiable model: LogisticRegression or MLPClassifier, optionally after a ColumnTransformer; got {}"

# Derivative of each MLP activation written in terms of its output a (what the forward pass keeps).
_ACTIVATIONS: dict[str, tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray]]] = {
    "identity": (lambda x: x, lambda a: np.ones_like(a)),
    "relu": (lambda x: np.maximum(x, 0.0), lambda a: (a > 0).astype(float)),
    "tanh": (np.tanh, lambda a: 1.0 - a * a),
    "logistic": (expit, lambda a: a * (1.0 - a)),
}


class SigmoidNetwork:
    """P(classes_[1] | z) of a fitted binary LogisticRegression or MLPClassifier as a function of
    its input z, with the gradient by backpropagation (logistic regression is the network without
    hidden layers)."""

    def __init__(self, coefs: Sequence[np.ndarray], intercepts: Sequence[np.ndarray], activation: str) -> None:
        self.coefs = list(coefs)
        self.intercepts = list(intercepts)
        self.activation, self.derivative = _ACTIVATIONS[activation]

    @classmethod
    def from_estimator(cls, estimator: Any) -> SigmoidNetwork:
        if isinstance(estimator, LogisticRegression):
            if estimator.coef_.shape[0] != 1:
                raise InputError(f"Wachter counterfactuals are for binary classifiers; classes {estimator.classes_}")
            return cls([estimator.coef_.T], [estimator.intercept_], "identity")
        if isinstance(estimator, MLPClassifier):
            if estimator.out_activation_ != "logistic" or estimator.n_outputs_ != 1:
                raise InputError(f"Wachter counterfactuals are for binary classifiers; classes {estimator.classes_}")
            return cls(estimator.coefs_, estimator.intercepts_, estimator.activation)
        raise InputError(_UNSUPPORTED.format(type(estimator).__name__))

    def probability(self, z: np.ndarray) -> float:
        for W, b in zip(self.coefs[:-1], self.intercepts[:-1]):
            z = self.activation(z @ W + b)
        return float(expit(z @ self.coefs[-1][:, 0] + self.intercepts[-1][0]))

    def value_and_grad(self, z: np.ndarray) -> tuple[float, np.ndarray]:
        outputs = [z]
        for W, b in zip(self.coefs[:-1], self.intercepts[:-1]):
            outputs.append(self.activation(outputs[-1] @ W + b))
        p = float(expit(outputs[-1] @ self.coefs[-1][:, 0] + self.intercepts[-1][0]))
        grad = p * (1.0 - p) * self.coefs[-1][:, 0]  # d p / d (last layer's output)
        for W, a in zip(reversed(self.coefs[:-1]), reversed(outputs[1:])):
            grad = (grad * self.derivative(a)) @ W.T
        return p, grad


@dataclass(frozen=True)
class _Categorical:
    """One feature's one-hot block; ``values[i]`` is encoded by a 1 in ``columns[i]`` (the dropped
    category of ``OneHotEncoder(drop=...)``, if any, is last and encoded by all zeros)."""

    feature: str
    columns: np.ndarray
    values: tuple[Any, ...]

    def choose(self, block: np.ndarray) -> int:
        """The category with the largest coordinate (the dropped one scores 1 - the others' sum)."""
        scores = block if len(self.values) == len(self.columns) else np.append(block, 1.0 - block.sum())
        return int(np.argmax(scores))

    def one_hot(self, choice: int) -> np.ndarray:
        return np.eye(len(self.values), len(self.columns))[choice]

    def relax(self, block: np.ndarray) -> np.ndarray:
        """The nearest point of the relaxed one-hot set: coordinates >= 0 summing to 1 (to at most
        1 with a dropped category).  Raising one category then lowers the others, so that the
        decoded category follows the relaxed point."""
        clipped = np.maximum(block, 0.0)
        if len(self.values) > len(self.columns) and clipped.sum() <= 1.0:
            return clipped
        ordered = np.sort(block)[::-1]
        excess = np.cumsum(ordered) - 1.0
        last = np.nonzero(ordered * np.arange(1, len(ordered) + 1) > excess)[0][-1]
        return np.maximum(block - excess[last] / (last + 1), 0.0)


def _input_names(columns: Any, names: np.ndarray) -> list[str]:
    """A ColumnTransformer column selection as column names."""
    if isinstance(columns, str):
        return [columns]
    if isinstance(columns, slice):
        return list(names[columns])
    picked = np.asarray(columns)
    return list(names[picked]) if picked.dtype.kind in "biu" else [str(c) for c in picked]


def _is_passthrough(transformer: Any) -> bool:
    return transformer == "passthrough" or (isinstance(transformer, FunctionTransformer) and transformer.func is None)


class _Encoding:
    """The map between rows of the original columns and the model's encoded input, and back.

    Numbers z = (x - mean) / scale (passthrough: mean 0, scale 1); categories one-hot.  A feature
    whose encoded block the search left untouched decodes to the row's own value, so that even a
    category unknown to the encoder, or a float that does not survive unscaling, stays as it was.
    """

    def __init__(self, preprocessor: ColumnTransformer | None, X_train: pd.DataFrame) -> None:
        self.preprocessor = preprocessor
        self.columns = list(X_train.columns)
        self.categorical: list[_Categorical] = []
        numeric: list[tuple[str, int, float, float]] = []  # feature, encoded column, mean, scale
        if preprocessor is None:
            numeric = [(col, i, 0.0, 1.0) for i, col in enumerate(self.columns)]
        else:
            names = np.asarray(getattr(preprocessor, "feature_names_in_", self.columns), dtype=object)
            for name, transformer, selection in preprocessor.transformers_:
                out = preprocessor.output_indices_.get(name, slice(0, 0))
                encoded = np.arange(out.start, out.stop)
                if (isinstance(transformer, str) and transformer == "drop") or not len(encoded):
                    continue
                features = _input_names(selection, names)
                if isinstance(transformer, OneHotEncoder):
                    self._add_one_hot(transformer, features, encoded)
                elif isinstance(transformer, StandardScaler):
                    means = transformer.mean_ if transformer.with_mean else np.zeros(len(features))
                    scales = transformer.scale_ if transformer.with_std else np.ones(len(features))
                    numeric += [(f, int(c), float(m), float(s)) for f, c, m, s in zip(features, encoded, means, scales)]
                elif _is_passthrough(transformer):
                    numeric += [(f, int(c), 0.0, 1.0) for f, c in zip(features, encoded)]
                else:
                    raise InputError(_UNSUPPORTED.format(f"a ColumnTransformer step {type(transformer).__name__}"))
        self.numeric_features = [f for f, *_ in numeric]
        self.numeric_columns = np.array([c for _, c, _, _ in numeric], dtype=int)
        self.mean = np.array([m for *_, m, _ in numeric], dtype=float)
        self.scale = np.array([s for *_, s in numeric], dtype=float)
        values = [X_train[f].to_numpy(dtype=float) for f in self.numeric_features]
        self.integral = np.array([bool(np.all(v == np.round(v))) for v in values], dtype=bool)
        self.low = np.array([v.min() for v in values], dtype=float)
        self.high = np.array([v.max() for v in values], dtype=float)

        Z = self.encode(X_train)
        self.width = Z.shape[1]
        self.box = (Z.min(axis=0), Z.max(axis=0))
        mad = np.median(np.abs(Z - np.median(Z, axis=0)), axis=0)
        self.mad_weights = 1.0 / np.where(mad > 0, mad, 1.0)

    def _add_one_hot(self, encoder: OneHotEncoder, features: list[str], encoded: np.ndarray) -> None:
        if encoder.min_frequency is not None or encoder.max_categories is not None:
            raise InputError(_UNSUPPORTED.format("a OneHotEncoder that groups infrequent categories"))
        start = 0
        for i, (feature, categories) in enumerate(zip(features, encoder.categories_)):
            dropped = None if encoder.drop_idx_ is None else encoder.drop_idx_[i]
            values = list(categories) if dropped is None else [*np.delete(categories, dropped), categories[dropped]]
            width = len(categories) - (dropped is not None)
            self.categorical.append(_Categorical(feature, encoded[start : start + width], tuple(values)))
            start += width

    def encode(self, frame: pd.DataFrame) -> np.ndarray:
        if self.preprocessor is None:
            return frame[self.columns].to_numpy(dtype=float)
        Z = self.preprocessor.transform(frame)
        return np.asarray(Z.toarray() if sparse.issparse(Z) else Z, dtype=float)

    def mask(self, features: Sequence[str]) -> np.ndarray:
        """True on the encoded columns of ``features``."""
        wanted = set(features)
        mask = np.zeros(self.width, dtype=bool)
        mask[self.numeric_columns[[f in wanted for f in self.numeric_features]]] = True
        for block in self.categorical:
            mask[block.columns] = block.feature in wanted
        return mask

    def _decoded(self, z: np.ndarray, z0: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[int | None]]:
        """Decoded numbers, which of them moved, and the category chosen in each categorical block
        (None where the block is untouched)."""
        moved = z[self.numeric_columns] != z0[self.numeric_columns]
        x = z[self.numeric_columns] * self.scale + self.mean
        x = np.clip(np.where(self.integral, np.round(x), x), self.low, self.high)
        choices = [None if np.array_equal(z[b.columns], z0[b.columns]) else b.choose(z[b.columns]) for b in self.categorical]
        return x, moved, choices

    def project(self, z: np.ndarray, z0: np.ndarray) -> np.ndarray:
        """The encoding of the row that ``z`` decodes to."""
        x, moved, choices = self._decoded(z, z0)
        out = z.copy()
        out[self.numeric_columns] = np.where(moved, (x - self.mean) / self.scale, z0[self.numeric_columns])
        for block, choice in zip(self.categorical, choices):
            if choice is not None:
                out[block.columns] = block.one_hot(choice)
        return out

    def decode(self, z: np.ndarray, z0: np.ndarray, row: pd.Series) -> list[Any]:
        """The row (original columns) that ``z`` encodes; columns the model does not see stay as in ``row``."""
        x, moved, choices = self._decoded(z, z0)
        values = {col: row[col] for col in self.columns}
        for feature, value, is_moved, integral in zip(self.numeric_features, x, moved, self.integral):
            if is_moved:
                values[feature] = int(value) if integral else float(value)
        for block, choice in zip(self.categorical, choices):
            if choice is not None:
                values[block.feature] = block.values[choice]
        return [values[col] for col in self.columns]


def _split(model: Any) -> tuple[ColumnTransformer | None, Any]:
    """(preprocessor or None, final estimator); TypeError for a pipeline of other steps."""
    if not isinstance(model, Pipeline):
        return None, model
    steps = [step for _, step in model.steps if step is not None and not isinstance(step, str)]  # None, "passthrough"
    if len(steps) == 1:
        return None, steps[0]
    if len(steps) == 2 and isinstance(steps[0], ColumnTransformer):
        return steps[0], steps[1]
    raise InputError(_UNSUPPORTED.format("a Pipeline of " + ", ".join(type(s).__name__ for s in steps)))


@dataclass
class _Search:
    """Wachter's optimisation for one row in the encoded space.

    The step is preconditioned by the distance weights w (a plain proximal step in MAD units,
    u = w * z), which makes it independent of the encoded columns' scales.
    """

    network: SigmoidNetwork
    encoding: _Encoding
    z0: np.ndarray
    free: np.ndarray
    weights: np.ndarray
    positive: bool  # the desired class is classes_[1]

    def __post_init__(self) -> None:
        self.target = 1.0 if self.positive else 0.0
        self.low = np.minimum(self.encoding.box[0], self.z0)
        self.high = np.maximum(self.encoding.box[1], self.z0)

    def flips(self, z: np.ndarray) -> bool:
        """Does the row that ``z`` decodes to get the desired class?  (predict: p > 0.5 is classes_[1])"""
        return (self.network.probability(self.encoding.project(z, self.z0)) > 0.5) == self.positive

    def loss_gradient(self, z: np.ndarray) -> np.ndarray:
        """Gradient of (f(z) - target)**2 on the free columns."""
        p, grad = self.network.value_and_grad(z)
        return np.where(self.free, 2.0 * (p - self.target) * grad, 0.0)

    def step(self, z: np.ndarray, lam: float) -> np.ndarray:
        """A gradient step on lambda * (f - target)**2, the L1 term's soft threshold, then back
        into the training box and the relaxed one-hot sets."""
        moved = z - STEP * lam * self.loss_gradient(z) / self.weights**2 - self.z0
        shrunk = np.sign(moved) * np.maximum(np.abs(moved) - STEP / self.weights, 0.0)
        z = np.clip(self.z0 + shrunk, self.low, self.high)  # fixed columns: no gradient, so no move
        for block in self.encoding.categorical:
            if not np.array_equal(z[block.columns], self.z0[block.columns]):
                z[block.columns] = block.relax(z[block.columns])
        return z

    def run(self, start: np.ndarray, boost: float, max_iter: int) -> np.ndarray | None:
        """The encoding of the first decoded row on the path from ``start`` that flips, or None.

        lambda starts at ``boost`` times the value below which no coordinate's gradient outweighs
        its L1 pull and doubles every DOUBLE_EVERY steps; the step that flips is bisected back
        towards the boundary.
        """
        ratio = np.max(np.abs(self.loss_gradient(start)) / self.weights)
        if ratio == 0:  # flat (e.g. every ReLU off): the gradient shows no way
            return None
        lam = boost / ratio
        previous, z = self.z0, start
        for it in range(max_iter + 1):
            if self.flips(z):
                return self._bisect(previous, z)
            if it == max_iter:
                break
            previous, z = z, self.step(z, lam)
            if (it + 1) % DOUBLE_EVERY == 0:
                lam *= 2.0
        return None

    def _bisect(self, outside: np.ndarray, inside: np.ndarray) -> np.ndarray:
        for _ in range(BISECTIONS):
            middle = (outside + inside) / 2.0
            if self.flips(middle):
                inside = middle
            else:
                outside = middle
        return self.encoding.project(inside, self.z0)


class WachterExplainer(Baseline):
    """Wachter counterfactuals for a fitted binary LogisticRegression or MLPClassifier, or a
    Pipeline of a ColumnTransformer (OneHotEncoder, StandardScaler, passthrough) and one of them.

    ``fit`` reads the network's weights and the encoding once.  For each row, restart 0 starts at
    the row; restarts 1..k-1 start from a perturbation of it (seeded by ``seed`` and the restart)
    with a larger initial lambda (2**r times restart 0's), which moves more features at once;
    ``max_iter`` bounds each restart's steps; ``mad_weighted=False`` drops the MAD weights.  Only
    rows that ``model.predict`` gives the desired class are kept, duplicates once: possibly fewer
    than ``k``.  ``k``, ``features_to_vary`` and ``desired_class`` are as for MC3G; ``causal`` is
    ignored (the method knows no causal knowledge).
    """

    name = "wachter"

    def __init__(
        self,
        model: Any,
        causal: Any = None,
        *,
        k: int = 1,
        features_to_vary: str | Sequence[str] = "all",
        desired_class: Any = "opposite",
        mad_weighted: bool = True,
        max_iter: int = 500,
        seed: int = 0,
    ) -> None:
        super().__init__(model, causal, k=k, features_to_vary=features_to_vary, desired_class=desired_class)
        self.mad_weighted = mad_weighted
        self.max_iter = max_iter
        self.seed = seed

    def _fit(self, X: pd.DataFrame) -> None:
        preprocessor, estimator = _split(self.model)
        self.network_ = SigmoidNetwork.from_estimator(estimator)
        self.encoding_ = _Encoding(preprocessor, X)

    def _numeric(self, X: pd.DataFrame) -> list[str]:
        one_hot = {block.feature for block in self.encoding_.categorical}
        return [c for c in super()._numeric(X) if c not in one_hot]

    def _search(self, row: pd.Series, desired: Any, k: int) -> tuple[pd.DataFrame, str]:
        encoding = self.encoding_
        z0 = encoding.encode(typed_frame([list(row)], self.dtypes_))[0]
        free = encoding.mask(self.vary_)
        weights = encoding.mad_weights if self.mad_weighted else np.ones(encoding.width)
        search = _Search(self.network_, encoding, z0, free, weights, positive=desired == self.classes_[1])
        found: dict[tuple[Any, ...], list[Any]] = {}  # each decoded row once
        for r in range(k):
            noise = np.random.default_rng([self.seed, r]).normal(0.0, RESTART_NOISE, encoding.width) / weights
            start = z0 if r == 0 else np.clip(z0 + np.where(free, noise, 0.0), search.low, search.high)
            z = search.run(start, boost=2.0 ** (r + 1), max_iter=self.max_iter)
            if z is not None:
                decoded = encoding.decode(z, z0, row)
                found.setdefault(tuple(decoded), decoded)
        frame = typed_frame(list(found.values()), self.dtypes_)
        if not frame.empty:
            frame = frame[self.model.predict(frame) == desired].reset_index(drop=True)
        reason = f"no gradient path of at most {self.max_iter} steps (from {k} start(s)) changing only {self.vary_} reached a row the model gives {desired!r}."
        return frame, reason
