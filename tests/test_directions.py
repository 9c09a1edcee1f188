"""Which way ``mc3g init`` lets advice move a column (issue 49, item 1): time is a wait, a history
and a career stay, an amount owed only falls, and numbers and numbered bands move only toward the
values past applicants were approved more often with."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mc3g.applicants import draft
from mc3g.applicants.directions import _bands
from mc3g.causal import CausalModel

BANDS = ["less_than0", "0equalsless_than_and_less_than200", "greater_than200"]


def _applicants(rows: int = 600, seed: int = 0) -> pd.DataFrame:
    """Past applicants whose approval rises with the account's band and the income, falls with
    the duration, and has nothing to do with the bill or the years at home."""
    rng = np.random.default_rng(seed)
    band = rng.integers(0, 3, rows)
    income = rng.integers(10, 100, rows)
    duration = rng.integers(6, 60, rows)
    score = band + income / 30 - duration / 30 + rng.normal(scale=0.5, size=rows)
    return pd.DataFrame(
        {
            "checking_account": np.array(BANDS + ["no_account"])[np.where(rng.random(rows) < 0.1, 3, band)],
            "income": income,
            "duration": duration,
            "bill_amount": rng.integers(0, 5000, rows),
            "present_residence_since": rng.integers(1, 5, rows),
            "credit_history": rng.choice(["paid", "delayed", "critical"], rows),
            "job": rng.choice(["skilled", "unskilled", "manager"], rows),
            "credit_limit": rng.integers(1, 50, rows) * 1000,
            "decision": np.where(score > np.median(score), "approved", "rejected"),
        }
    )


def test_numbered_bands_are_ordered_by_their_numbers() -> None:
    assert _bands(("greater_than200", "less_than0", "no_account", "0equalsless_than_and_less_than200")) == BANDS
    assert _bands(("less_than1", "greater_than7", "4equalsless_than_and_less_than7", "1equalsless_than_and_less_than4")) == [
        "less_than1", "1equalsless_than_and_less_than4", "4equalsless_than_and_less_than7", "greater_than7"
    ]  # fmt: skip
    assert _bands(("10th", "Bachelors", "HS-grad", "Masters", "Doctorate")) == []  # a few numbered values among many: no bands


def test_a_draft_moves_advice_only_the_way_the_data_and_the_names_say() -> None:
    knowledge = CausalModel.parse(draft(_applicants(), "decision").to_text())
    features = {name: settings for name, settings in knowledge.features.items()}
    account = features["checking_account"]
    assert set(account["moves"]) == {(BANDS[0], BANDS[1]), (BANDS[0], BANDS[2]), (BANDS[1], BANDS[2])}  # up only; no_account stays
    assert set(account["efforts"]) == {(BANDS[0], BANDS[2], 2.0)}  # two bands up cost two
    assert features["income"]["direction"] == "increase" and features["duration"]["direction"] == "decrease"
    assert features["bill_amount"]["direction"] == "decrease"  # owed, by its name: the data say nothing
    assert features["present_residence_since"]["direction"] == "increase" and features["present_residence_since"]["waits"] == "years"
    assert features["credit_history"]["immutable"] and features["job"]["immutable"] and features["credit_limit"]["immutable"]


def test_without_a_favourable_value_the_data_give_no_direction() -> None:
    frame = _applicants().replace({"decision": {"approved": "A", "rejected": "B"}})
    features = CausalModel.parse(draft(frame, "decision").to_text()).features
    assert "direction" not in features["income"] and "moves" not in features["checking_account"]
    assert features["bill_amount"]["direction"] == "decrease"  # the name still says
    named = CausalModel.parse(draft(frame, "decision", favourable="A").to_text()).features
    assert named["income"]["direction"] == "increase"
