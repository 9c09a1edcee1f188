"""Default of credit card clients (Taiwan, 2005; Yeh and Lien, 2009; UCI data set 350, CC BY 4.0):
a card issuer's 30,000 clients, six months of their repayment status, bills and payments, and
whether each defaulted the next month.  Coded values are decoded into words; the undocumented
codes of education (0, 5, 6) and marriage (0) are read as ``unknown``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .build import AGE, NOT_NEGATIVE, Spec, make_dataset, split_80_20
from .dataset import Dataset
from .files import check_cells, decode, locate, read_table

FILE = "taiwan/default_of_credit_card_clients.csv"
MONTHS = ("September", "August", "July", "June", "May", "April")  # the columns' months, latest first
STATUS = ("pay_0", "pay_2", "pay_3", "pay_4", "pay_5", "pay_6")  # the repayment status by month (there is no pay_1)
BILLS = tuple(f"bill_amt{i}" for i in range(1, 7))
PAID = tuple(f"pay_amt{i}" for i in range(1, 7))
_COLUMNS = ("id", "limit_bal", "sex", "education", "marriage", "age", *STATUS, *BILLS, *PAID, "will_default_next_month")

TAIWAN_CODES: dict[str, dict[str, str]] = {
    "sex": {"1": "male", "2": "female"},
    "education": {"1": "graduate_school", "2": "university", "3": "high_school", "4": "others", "0": "unknown", "5": "unknown", "6": "unknown"},
    "marriage": {"1": "married", "2": "single", "3": "others", "0": "unknown"},
    "will_default_next_month": {"1": "default", "0": "no_default"},
}
_WORDS = {
    "education": {"graduate_school": "graduate school", "high_school": "high school", "others": "other education"},
    "marriage": {"others": "other"},
}


def _status_words() -> dict[int, str]:
    """The words of a repayment status (the UCI documentation's scale, -2 to 9)."""
    late = {1: "one month late", 9: "nine months or more late"} | {n: f"{n} months late" for n in range(2, 9)}
    return {-2: "no balance to pay", -1: "paid in full", 0: "minimum paid (revolving credit)", **late}


def _monthly() -> dict[str, dict[str, object]]:
    """The six months' status, bill and payment columns, each labelled with its month."""
    out: dict[str, dict[str, object]] = {}
    for month, status, bill, paid in zip(MONTHS, STATUS, BILLS, PAID):
        out[status] = {"valid": (-2.0, 9.0), "step": 1.0, "label": f"repayment status in {month}", "value_labels": _status_words(),
                       "description": f"repayment status in {month} 2005: -2 no balance, -1 paid in full, 0 minimum paid, 1-9 months late"}  # fmt: skip
        out[bill] = {"label": f"{month} bill", "description": f"bill statement in {month} 2005 (NT$; negative: a credit balance)"}
        out[paid] = {"valid": NOT_NEGATIVE, "label": f"amount paid in {month}", "description": f"amount paid in {month} 2005 (NT$)"}
    return out


def _said(column: str, label: str, description: str, **more: object) -> dict[str, object]:
    names = tuple(sorted(set(TAIWAN_CODES[column].values())))
    words = {name: _WORDS.get(column, {}).get(name, name.replace("_", " ")) for name in names}
    return {"domain": names, "label": label, "value_labels": words, "description": description, **more}


_TAIWAN = Spec(
    label="will_default_next_month",
    numeric=("limit_bal", "age", *STATUS, *BILLS, *PAID),
    features={
        "limit_bal": {"valid": NOT_NEGATIVE, "label": "credit limit", "description": "credit granted to the client and the family (NT$)"},
        "sex": _said("sex", "sex", "sex", immutable=True, protected=True),
        "education": _said("education", "education", "highest education (0, 5 and 6 undocumented: unknown)", unknown=("unknown",), protected=True),
        "marriage": _said("marriage", "marital status", "marital status (0 undocumented: unknown)", unknown=("unknown",), protected=True),
        "age": {"valid": AGE, "direction": "increase", "protected": True, "label": "age", "description": "age in years; only grows"},
        **_monthly(),
    },
)


def load_taiwan(split: str, data_dir: Path | str | None) -> Dataset:
    """The clients in a fixed stratified 80/20 split (UCI has no test file), indexed by ``id``."""
    path = locate(FILE, data_dir)
    frame = decode(read_table(path, _COLUMNS, header=_COLUMNS), TAIWAN_CODES, path)
    check_cells(frame, _TAIWAN.declared(), path)
    frame.index = pd.Index(pd.to_numeric(frame.pop("id")).astype("int64"), name="id")
    notes = (
        "UCI has no test file: stratified 80/20 split by will_default_next_month (see mc3g.datasets.build). "
        "The refusal is 'default' (the model expects the client to default next month). Codes decoded into words; "
        "education 0, 5 and 6 and marriage 0, which the UCI documentation does not define, are 'unknown'."
    )
    return make_dataset("taiwan", split, *split_80_20(frame, "will_default_next_month"), _TAIWAN, "default", notes)
