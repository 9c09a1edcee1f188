"""Load the MC3G data sets as :class:`Dataset` objects with real schemas.

Every data set comes in two splits where possible: ``uci`` (the UCI originals; a fixed stratified
80/20 split where UCI has no test file) and ``paper`` (the MC3G authors' fold-1 splits, so that
results can be compared with the paper).  Column names are the same in both splits, categorical
cells are plain Python ``str`` (object dtype) and numeric cells ``int64``/``float64``.

Each family of data sets has its module (:mod:`.adult`, :mod:`.german`, :mod:`.cars`,
:mod:`.taiwan`, :mod:`.loan`); the Taiwan clients have the ``uci`` split only; :mod:`.files` reads and checks the files and :mod:`.build` makes the Dataset.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from ..exceptions import InputError
from .adult import load_adult
from .cars import load_cars
from .dataset import Dataset
from .german import load_german
from .loan import load_loan
from .taiwan import load_taiwan

SPLITS = ("uci", "paper")
LOAN_SPLITS = ("default", "uci", "paper")

_Loader = Callable[[str, Path | str | None], Dataset]
_REGISTRY: dict[str, tuple[str, tuple[str, ...], _Loader]] = {
    "adult": ("UCI Adult census income: does a person earn more than 50K a year?", SPLITS, load_adult),
    "german": ("UCI Statlog German credit: good or bad credit risk", SPLITS, load_german),
    "cars": ("UCI Car evaluation, binarised: negative = unacceptable, positive otherwise", SPLITS,
             partial(load_cars, four_classes=False)),
    "cars4": ("UCI Car evaluation with its 4 classes unacc / acc / good / vgood", SPLITS,
              partial(load_cars, four_classes=True)),
    "taiwan": ("Default of credit card clients (Taiwan, 2005): will a card client default next month?", ("uci",), load_taiwan),
    "loan": ("synthetic loan applicants of the MC3G paper's running example (generated, no file)", LOAN_SPLITS,
             load_loan),
}  # fmt: skip


def names() -> dict[str, str]:
    """The data set names ``load`` accepts, each with a one-line description."""
    return {name: description for name, (description, _, _) in _REGISTRY.items()}


def load(name: str, split: str = "uci", data_dir: Path | str | None = None) -> Dataset:
    """Load data set ``name`` in ``split``: "uci" (the UCI originals) or "paper" (the MC3G splits).

    ``loan`` is generated and has one split, "default"; it also accepts "uci" and "paper" (same
    rows) so code looping over the splits of every data set works.  Files are read from
    ``data_dir``, else ``$MC3G_DATA_DIR``, else ``<user cache>/mc3g/data``.
    """
    if name not in _REGISTRY:
        raise InputError(f"unknown data set {name!r}; valid names are {list(_REGISTRY)}")
    _, splits, loader = _REGISTRY[name]
    if split not in splits:
        raise InputError(f"unknown split {split!r} for {name!r}; valid splits are {list(splits)}")
    return loader(split, data_dir)
