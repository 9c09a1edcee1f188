"""The MC3G paper's experiments as shipped resources: decision rules, causal knowledge, person.

Each reference names its data set and split, the decision rules (``resources/NAME.rules.json``),
the causal knowledge with the paper's feature settings (``resources/NAME.causal``) and the
person the paper explains.  ``PAPER_TABLE2`` holds the numbers the paper published, so that
``mc3g reproduce table2`` can print them beside the recomputed ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Any

import pandas as pd

from .causal import CausalModel
from .datasets import JOHN, Dataset, load
from .exceptions import InputError
from .rules import RuleSet


def resource_text(filename: str) -> str:
    return resources.files("mc3g.resources").joinpath(filename).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Reference:
    name: str
    dataset: str
    split: str
    person: int | None  # the paper's person: a test-row position (German: the row with id 11), or None for John
    description: str

    @property
    def rules(self) -> RuleSet:
        return RuleSet.from_json(resource_text(f"{self.name}.rules.json"))

    def data(self) -> Dataset:
        return load(self.dataset, split=self.split)

    def causal(self, ds: Dataset | None = None) -> CausalModel:
        ds = ds or self.data()
        return CausalModel.parse(resource_text(f"{self.name}.causal"), file=f"mc3g/resources/{self.name}.causal", schema=ds.schema)

    def person_row(self, ds: Dataset | None = None) -> pd.Series:
        if self.person is None:
            return pd.Series(JOHN)
        ds = ds or self.data()
        return ds.X_test.iloc[self.person]  # German's published id is the row's position in its file

    def explainer(self, ds: Dataset | None = None, **params: Any):
        """An MC3G explainer fitted on the training split with the reference's knowledge."""
        from .explain import MC3G

        ds = ds or self.data()
        return MC3G(self.rules, self.causal(ds), schema=ds.schema, **params).fit(ds.X_train)


REFERENCES = {
    "adult": Reference("adult", "adult", "paper", 1, "Adult: marital status, relationship, sex, capital gain, education"),
    "german": Reference("german", "german", "paper", 11, "German credit: leave the FOLD-SE 'good' rules (the paper's quirk)"),
    "cars": Reference("cars", "cars", "paper", 2, "Cars: persons, safety, buying, maint; no causal rules"),
    "loan": Reference("loan", "loan", "default", None, "The paper's running example: John and his loan"),
}


def reference(name: str) -> Reference:
    try:
        return REFERENCES[name]
    except KeyError:
        raise InputError(f"no reference experiment {name!r}; there are {list(REFERENCES)}") from None


# The paper's Table 2: (nearest K=1, furthest K=20, average of the 20) per data set, mode, norm.
PAPER_TABLE2: dict[str, dict[str, dict[str, tuple[float, float, float]]]] = {
    "adult": {
        "none": {"l1": (1.012, 1.470, 1.296), "l2": (1.012, 1.221, 1.113), "l0": (1, 1, 1)},
        "explained": {"l1": (0.701, 1.031, 0.907), "l2": (0.701, 0.903, 0.829), "l0": (1, 1, 1)},
    },
    "german": {
        "none": {"l1": (3.334, 3.341, 3.337), "l2": (1.764, 1.764, 1.764), "l0": (4, 4, 4)},
        "explained": {"l1": (2.334, 2.341, 2.337), "l2": (1.453, 1.453, 1.453), "l0": (3, 3, 3)},
    },
    "cars": {
        "none": {"l1": (1, 3, 2.3), "l2": (1, 1.732, 1.499), "l0": (1, 3, 2.3)},
        "explained": {"l1": (1, 3, 2.3), "l2": (1, 1.732, 1.499), "l0": (1, 3, 2.3)},
    },
}
