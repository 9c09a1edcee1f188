"""A synthetic loan population for the MC3G paper's running example.

The bank rejects a loan iff ``bank_balance < 60000`` or ``credit_score < 620``; clearing one's
debt raises the credit score.  No public data set has exactly this structure, so the rows are
drawn from a small structural causal model (SCM) with a fixed seed:

    age            ~ uniform integer in [21, 70]
    years_employed = floor(U(0, 1) * 0.8 * (age - 18))
    annual_income  = round(exp(N(log(28000 + 1500 * years_employed), 0.35)), -2)
    debt           ~ none with p = sigmoid((annual_income - 50000) / 15000), else
                     over_10000 / up_to_10000 with equal probability
    bank_balance   = round(annual_income * (0.5 + 0.04 * (age - 21)) * exp(N(0, 0.5)), -2)
    credit_score   = clip(560 + 2 * years_employed + {none: 70, up_to_10000: 30, over_10000: 0}[debt]
                          + N(0, 30), 300, 850), and at least 620 when debt == none
    loan           = rejected iff bank_balance < 60000 or credit_score < 620, else approved

The floor of 620 for ``debt == none`` makes the paper's causal rule
``credit_score >= 620 <- debt == none`` hold in every generated row, so the data and the causal
knowledge agree.  Only numpy's ``default_rng`` draws randomness (no hash seeds, no global
state), so a seed gives the same rows on every machine with the same numpy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .build import AGE, NOT_NEGATIVE, Spec, make_dataset
from .dataset import Dataset

SEED = 2025
N_ROWS = 5000
N_TRAIN = 4000
REJECT_BALANCE = 60000
REJECT_SCORE = 620
LABEL = "loan"
UNFAVOURABLE = "rejected"
DEBT_LEVELS = ("none", "up_to_10000", "over_10000")

# The paper's John: rejected (balance and score both too low); clearing his debt would lift his
# score by 70 points in the SCM, past 620.
JOHN: dict[str, Any] = {
    "age": 38,
    "years_employed": 12,
    "annual_income": 42000,
    "debt": "over_10000",
    "bank_balance": 40000,
    "credit_score": 599,
}

FEATURES: dict[str, dict[str, Any]] = {
    "age": {"valid": AGE, "direction": "increase", "description": "age in years; only grows"},
    "years_employed": {"valid": AGE, "direction": "increase", "description": "years in employment; only grows"},
    "annual_income": {"valid": NOT_NEGATIVE, "description": "yearly income before tax"},
    "debt": {
        "domain": tuple(sorted(DEBT_LEVELS)),
        "description": "outstanding debt: none, up to 10,000 or over 10,000",
        "value_labels": {"none": "none", "up_to_10000": "up to 10,000", "over_10000": "over 10,000"},
    },
    # a balance may be negative (an overdraft), so any number is one
    "bank_balance": {"description": "money in the bank; the bank requires at least 60,000"},
    "credit_score": {
        "consequence_only": True,
        "range": (300.0, 850.0),
        "valid": (300.0, 850.0),
        "description": "credit score (300-850); changes only as a consequence (e.g. of clearing debt); the bank requires at least 620",
    },
}


def rejected(bank_balance: Any, credit_score: Any) -> Any:
    """The bank's rule (works on scalars and arrays): True where the loan is refused."""
    return (np.asarray(bank_balance) < REJECT_BALANCE) | (np.asarray(credit_score) < REJECT_SCORE)


def generate(n: int = N_ROWS, seed: int = SEED) -> pd.DataFrame:
    """``n`` people drawn from the SCM above, with the label column ``loan``."""
    rng = np.random.default_rng(seed)
    age = rng.integers(21, 71, size=n)
    years_employed = np.floor(rng.random(n) * 0.8 * (age - 18)).astype(np.int64)
    income = np.round(np.exp(rng.normal(np.log(28000 + 1500 * years_employed), 0.35)), -2).astype(np.int64)

    p_none = 1.0 / (1.0 + np.exp(-(income - 50000) / 15000))
    u = rng.random(n)
    debt = np.where(u < p_none, "none", np.where(u < p_none + (1 - p_none) / 2, "over_10000", "up_to_10000"))

    balance = np.round(income * (0.5 + 0.04 * (age - 21)) * np.exp(rng.normal(0.0, 0.5, n)), -2).astype(np.int64)

    boost = np.select([debt == "none", debt == "up_to_10000"], [70, 30], 0)
    score = np.rint(560 + 2 * years_employed + boost + rng.normal(0.0, 30.0, n))
    score = np.where(debt == "none", np.maximum(score, REJECT_SCORE), score)
    score = np.clip(score, 300, 850).astype(np.int64)

    return pd.DataFrame(
        {
            "age": age.astype(np.int64),
            "years_employed": years_employed,
            "annual_income": income,
            "debt": pd.Series(debt.tolist(), dtype=object),
            "bank_balance": balance,
            "credit_score": score,
            LABEL: pd.Series(np.where(rejected(balance, score), UNFAVOURABLE, "approved").tolist(), dtype=object),
        }
    )


_LOAN = Spec(
    label=LABEL,
    numeric=("age", "years_employed", "annual_income", "bank_balance", "credit_score"),
    features=FEATURES,
)


def load_loan(split: str, data_dir: Path | str | None) -> Dataset:
    frame = generate()
    notes = (
        f"Synthetic (mc3g.datasets.loan, seed {SEED}): the paper's running example; rejected iff "
        f"bank_balance < {REJECT_BALANCE} or credit_score < {REJECT_SCORE}. One split: "
        f"the first {N_TRAIN} rows train, the rest test (rows are independent draws)."
    )
    train, test = frame.iloc[:N_TRAIN], frame.iloc[N_TRAIN:]
    return make_dataset("loan", "default", train, test, _LOAN, UNFAVOURABLE, notes)
