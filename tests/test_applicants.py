"""Data mc3g has never seen, from Python: a file read as pandas reads it with its faults named at
their line, knowledge drafted from it with every guess explained, checked against it, and an
explainer fitted on it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mc3g.applicants import check_knowledge, dependencies, draft, fit_file, inferred_step, people_of, person_of, protection, read_data
from mc3g.causal import parse
from mc3g.exceptions import CausalSyntaxError, DataFormatError, FileRefusedError, InputError


def lender(n: int = 600, seed: int = 3) -> pd.DataFrame:
    """A lender's file mc3g has never seen: unemployed people have no income (a dependency to
    find), amounts in whole hundreds, a record number, a weight, and the decision in words."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "record": np.arange(1, n + 1),
            "applicant_sex": rng.choice(["female", "male"], n),
            "CountryOfBirth": rng.choice(["Mexico", "India", "Germany", "Canada"], n),
            "age": rng.integers(21, 70, n),
            "job": rng.choice(["employed", "self-employed", "unemployed", "?"], n, p=[0.6, 0.2, 0.1, 0.1]),
            "income": rng.integers(10, 90, n) * 1000,
            "savings": rng.integers(0, 200, n) * 100,
            "rate": np.round(rng.uniform(1, 9, n), 2),
            "sample_weight": rng.uniform(0.5, 2.0, n),
        }
    )
    frame.loc[frame.job == "unemployed", "income"] = 0
    frame["approved"] = np.where(frame.income + frame.savings > 45_000, "yes", "no")
    return frame


@pytest.fixture(scope="module")
def lender_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("lender") / "applicants.csv"
    lender().to_csv(path, index=False)
    return path


def _write(tmp_path: Path, text: str, name: str = "data.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


# -- reading ---------------------------------------------------------------------------------------
def test_a_file_is_typed_as_pandas_types_it_with_each_row_at_its_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "age,owner,band,score\n30,True,3+,1.5\n\n41,False,2,?\n")
    data = read_data(path, categorical=["band"])
    frame = data.frame
    assert frame["age"].dtype == np.int64 and frame["owner"].dtype == bool and frame["score"].dtype == np.float64
    assert frame["band"].tolist() == ["3+", "2"] and np.isnan(frame["score"][1])  # '?' marks a missing number
    assert data.lines.tolist() == [2, 4] and data.where(1) == f"{path}, line 4"  # the blank line counted


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "is empty"),
        ("age,income\n", "has a header but no rows"),
        ("age,income\n30,1000\n40,2000,7\n", "line 3: 3 fields, but the header names 2 columns"),
        ("age,\n30,1\n", "line 1: column 2 of the header has no name"),
        ("age,age\n30,31\n", "line 1: the header names the column(s) ['age'] more than once"),
        ("age,income\n30,40000\n41,4O000\n52,38000\n", "line 3: column 'income' holds numbers and text: '4O000' here, '40000' at line 2"),
    ],
)
def test_what_pandas_would_let_pass_is_refused_at_its_line(tmp_path: Path, text: str, expected: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(InputError) as caught:
        read_data(path)
    assert str(path) in str(caught.value) and expected in str(caught.value)


def test_an_index_written_by_pandas_and_semicolons_are_read_as_pandas_users_mean_them(tmp_path: Path) -> None:
    indexed = read_data(_write(tmp_path, ",age,job\n10,30,clerk\n11,41,smith\n"))
    assert list(indexed.frame.columns) == ["age", "job"] and indexed.frame.index.tolist() == [10, 11] and indexed.lines.tolist() == [2, 3]
    semicolons = read_data(_write(tmp_path, "age;income\n30;1.5\n41;2\n", "eu.csv"))
    assert list(semicolons.frame.columns) == ["age", "income"] and semicolons.frame["income"].tolist() == [1.5, 2.0]
    with pytest.raises(DataFormatError, match="line 2: column 'income' holds numbers and text: '1,5' here"):  # a decimal comma is not guessed
        read_data(_write(tmp_path, "age;income\n30;1,5\n41;2\n", "eu.csv"))


def test_a_missing_cell_is_named_with_how_many_rows_have_one(tmp_path: Path) -> None:
    from mc3g.schema import Feature

    data = read_data(_write(tmp_path, "age,job\n30,clerk\n,smith\n41,\n52,cook\n"))
    with pytest.raises(DataFormatError, match=r"line 3: age is missing .*; 2 row\(s\) have a missing cell: fill them in, or leave those rows out"):
        data.check([Feature("age", "numeric"), Feature("job", "categorical")])


def test_a_file_that_is_not_utf8_or_not_a_table_is_named(tmp_path: Path) -> None:
    with pytest.raises(DataFormatError, match="line 3: not UTF-8"):
        read_data(_write(tmp_path, b"a,b\n1,x\n2,\xff\n"))
    with pytest.raises(FileRefusedError, match="neither a CSV nor a Parquet"):
        read_data(_write(tmp_path, "a\n1\n", "data.xlsx"))
    with pytest.raises(FileRefusedError, match="cannot be read as Parquet"):
        read_data(_write(tmp_path, "not parquet", "data.parquet"))


def test_a_parquet_file_names_rows_by_position(tmp_path: Path) -> None:
    path = tmp_path / "data.parquet"
    pd.DataFrame({"age": [30, 41], "income": [1.0, -2.5]}).to_parquet(path)
    data = read_data(path)
    assert data.lines is None and data.where(1) == f"{path}, row 1"
    assert list(data.frame.columns) == ["age", "income"]


# -- guesses -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("numbers", "step"),
    [([17, 30, 90], 1.0), ([0, 200, 1500, 40_000], 100.0), ([1.25, 3.5, 0.75], 0.25), ([19.99, 5.01], 0.01), ([np.pi, 1.0], None)],
)
def test_the_step_is_the_coarsest_every_value_is_a_multiple_of(numbers: list[float], step: float | None) -> None:
    found = inferred_step(np.asarray(numbers, dtype=np.float64))
    assert (found[0] if found else None) == pytest.approx(step) if step else found is None


@pytest.mark.parametrize(
    ("name", "values", "numeric", "expected"),
    [
        ("applicant_sex", ["1", "0"], True, "sex, by its name"),
        ("CountryOfBirth", ["x", "y"], False, "national origin, by its name"),
        ("relationship", ["Husband", "Wife", "Own-child"], False, "marital status, by values Husband, Wife"),
        ("origin", ["Mexico", "India", "Peru"], False, "national origin, by values India, Mexico, Peru"),
        ("color", ["a", "b"], False, "colour, by its name"),
        ("ethnicity", ["a", "b"], False, "ethnicity"),
        ("age", ["30", "40"], True, "it only grows"),
        ("fnlwgt", ["1", "2"], True, "a weight of the row"),
        ("foreign_worker", ["yes", "no"], False, "national origin, by its name"),
        ("number_people_liable", ["1", "2"], True, "familial status, by its name"),
        ("dependents", ["0", "3"], True, "familial status, by its name"),
        ("personal_status", ["male-single", "female-single"], False, "marital status, by its name"),
    ],
)
def test_protections_are_proposed_by_name_or_values_with_their_evidence(name: str, values: list[str], numeric: bool, expected: str) -> None:
    column = pd.Series(pd.to_numeric(values) if numeric else values)
    proposal = protection(name, column, numeric, rows=len(values))
    assert proposal is not None and expected in proposal.reason


@pytest.mark.parametrize("name", ["mortgage", "car_color", "percentage", "average_wage", "loan_origination", "foreign_exchange_liabilities"])
def test_words_that_only_contain_a_protected_one_are_left_alone(name: str) -> None:
    assert protection(name, pd.Series([1.0, 2.0, 3.0]), True, rows=3) is None


def test_age_is_proposed_as_a_wait_of_a_decade_at_most() -> None:
    proposal = protection("age_years", pd.Series([19.0, 45.0]), True, rows=2)
    assert proposal is not None and proposal.settings == {"direction": "increase", "waits": "years", "max_change": 10.0, "protected": True}


def test_a_column_with_one_value_per_row_identifies_it() -> None:
    assert "identifies the row" in protection("customer", pd.Series([f"c{i}" for i in range(50)]), False, rows=50).reason  # type: ignore[union-attr]
    assert protection("income", pd.Series(np.linspace(1, 9, 50)), True, rows=50) is None  # a number of its own per row is no identifier


def test_dependencies_hold_in_every_row_and_correlations_with_rare_values_do_not_count() -> None:
    rng = np.random.default_rng(0)
    n = 3000
    job = rng.choice(["employed", "unemployed", "retired"], n, p=[0.7, 0.2, 0.1])
    town = rng.choice(["north", "south"] + [f"village{i}" for i in range(30)], n, p=[0.49, 0.49] + [0.02 / 30] * 30)
    frame = pd.DataFrame({"job": job, "town": town, "income": np.where(job == "unemployed", 0, rng.integers(1, 90, n) * 1000)})
    frame.loc[(frame.job == "retired") & (frame.town.str.startswith("village")), "town"] = "north"  # rare values: a correlation
    found = {str(d.constraint): d for d in dependencies(frame, ["job", "town"], ["income"])}
    assert set(found) == {"forbid job == 'unemployed', income != 0", "forbid job in {'employed', 'retired'}, income < 1000"}
    unemployed = found["forbid job == 'unemployed', income != 0"]
    assert unemployed.confidence == 1 and unemployed.evidence(n).startswith(f"all {unemployed.rows:,} rows with job == 'unemployed'")


# -- the draft -----------------------------------------------------------------------------------
def test_a_draft_says_what_it_guessed_and_parses_as_it_is(lender_csv: Path) -> None:
    drafted = draft(read_data(lender_csv).frame, "approved", source="applicants.csv")
    text = drafted.to_text()
    knowledge = parse(text)
    features = knowledge.features
    assert features["income"]["step"] == 1000 and features["savings"]["step"] == 100 and features["rate"]["step"] == 0.01
    assert "step" not in features["sample_weight"] and features["sample_weight"]["immutable"] is True
    assert features["record"]["immutable"] is True and features["applicant_sex"]["immutable"] is True
    assert features["job"]["unknown"] == ("?",) and "targets" not in features["job"]  # '?': a person may have it, never advice
    assert set(drafted.protected) == {"record", "applicant_sex", "CountryOfBirth", "age", "sample_weight"}
    for line in text.splitlines():
        if not line.startswith("#") and any(word in line for word in ("immutable", "step", "unknown", "increase-only")):
            assert "# guessed:" in line, line
    assert "# forbid job == unemployed, income != 0  # all" in text
    assert not any("record" in str(d.constraint) for d in drafted.dependencies)  # an identifier's dependencies are no news


def test_no_guess_writes_kinds_and_ranges_alone(lender_csv: Path) -> None:
    text = draft(read_data(lender_csv).frame, "approved", guess=False).to_text()
    assert "# guessed" not in text and "forbid" not in text and "Dependencies" not in text and "Nothing was guessed" in text
    assert parse(text).features["income"] == {"kind": "numeric", "range": (0, 89000)}


@pytest.mark.parametrize(
    ("target", "favourable", "expected"),
    [("approvd", None, "no column 'approvd' for the decision; did you mean 'approved'?"), ("approved", "maybe", "not a value of 'approved'")],
)
def test_a_draft_refuses_a_decision_it_cannot_read(lender_csv: Path, target: str, favourable: str | None, expected: str) -> None:
    with pytest.raises(InputError, match=expected.replace("?", r"\?")):
        draft(read_data(lender_csv).frame, target, favourable=favourable)


def test_a_decision_with_one_value_is_refused() -> None:
    with pytest.raises(InputError, match="one value \\('yes'\\) in every row"):
        draft(pd.DataFrame({"a": [1, 2], "ok": ["yes", "yes"]}), "ok")


# -- checking ------------------------------------------------------------------------------------
def test_every_name_and_value_the_data_lacks_is_reported_at_its_place(lender_csv: Path, tmp_path: Path) -> None:
    knowledge = _write(
        tmp_path,
        "incme: numeric\njob: categorical {employed, self-employed, unemployed, '?', retired}\n"
        "forbid job == unemploYed, applicant_sex == femal\nforbid job == unemployed, income > 0\n"
        "approved == yes <- income > 50000\nforbid savings > 19000, income < 11000\n",
        "k.causal",
    )
    report = check_knowledge(knowledge, lender_csv, "approved")
    places = [(e.line, e.column) for e in report.errors]
    assert places == [(1, 1), (3, 15), (3, 44), (5, 1)]
    assert "did you mean 'income'?" in report.errors[0].message and "did you mean 'female'?" in report.errors[2].message
    assert [(b.source.line, b.rows) for b in report.broken] == [(6, sum((lender().savings > 19000) & (lender().income < 11000)))]
    assert report.broken[0].first[0].startswith("line ")
    assert report.notes == (f"{knowledge}:2:1: no row of the data has job 'retired'",)
    assert not report.passed


def test_rows_outside_declared_valid_values_are_counted(lender_csv: Path, tmp_path: Path) -> None:
    knowledge = _write(tmp_path, "age: valid [25, 120]\n", "k.causal")
    (broken,) = check_knowledge(knowledge, lender_csv, "approved").broken
    assert broken.rows == int((lender().age < 25).sum()) and "valid [25, 120]" in str(broken)


# -- fitting -------------------------------------------------------------------------------------
def test_fit_learns_the_refusal_and_reads_favourable_off_its_words(lender_csv: Path, tmp_path: Path) -> None:
    fitted = fit_file(lender_csv, "approved", k=2, ignore=["record"])
    assert (fitted.favourable, fitted.unfavourable, fitted.guessed) == ("yes", "no", True)
    assert fitted.score > 0.9 and {str(r.head.value) for r in fitted.rules.rules} == {"no"}
    model = lambda X: np.where((X["income"] > 40_000) | ((X["age"] > 60) & (X["income"] > 20_000)), "yes", "no")  # noqa: E731
    free = fit_file(lender_csv, "approved", model=model, refine=0)
    assert "age" in free.explainer.features_in_play_ and free.unprotected == ["age"]  # without knowledge nothing is protected: said
    knowledge = _write(tmp_path, "age: increase-only\n", "k.causal")
    assert fit_file(lender_csv, "approved", model=model, causal=knowledge, refine=0).unprotected == []


@pytest.mark.parametrize(
    ("frame", "expected"),
    [
        (pd.DataFrame({"a": [1, 2, 3, 4], "ok": [1, 0, 1, 0]}), "which value of the decision 'ok' is favourable, '0' or '1'"),
        (pd.DataFrame({"a": [1, 2, 3], "ok": ["x", "y", "z"]}), "has 3 values"),
    ],
)
def test_fit_asks_which_value_is_favourable_rather_than_guess(tmp_path: Path, frame: pd.DataFrame, expected: str) -> None:
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(InputError, match=expected):
        fit_file(path, "ok")


def test_fit_refuses_knowledge_naming_a_column_the_data_lacks(lender_csv: Path, tmp_path: Path) -> None:
    knowledge = _write(tmp_path, "age: increase-only\nforbid salary > 3\n", "k.causal")
    with pytest.raises(CausalSyntaxError, match=r"k\.causal:2:8: unknown feature 'salary'"):
        fit_file(lender_csv, "approved", causal=knowledge)


def test_a_model_with_labels_of_its_own_must_be_told_which_is_favourable(lender_csv: Path) -> None:
    def model(X: pd.DataFrame) -> np.ndarray:
        return (X["income"] > 40_000).astype(int).to_numpy()

    with pytest.raises(InputError, match=r"the model answers \['0', '1'\], which are not the values of the decision 'approved'"):
        fit_file(lender_csv, "approved", model=model)
    fitted = fit_file(lender_csv, "approved", model=model, favourable=1, refine=0)
    assert (fitted.favourable, fitted.unfavourable) == ("1", "0") and fitted.score == 1.0


def test_people_and_persons_are_checked_against_the_explainer(lender_csv: Path, tmp_path: Path) -> None:
    explainer = fit_file(lender_csv, "approved").explainer
    other = tmp_path / "other.csv"
    lender().drop(columns=["savings"]).rename(columns={"income": "Income"}).to_csv(other, index=False)
    with pytest.raises(InputError, match=r"no column\(s\) \['income', 'savings'\], which the explainer reads; did you mean 'Income'\?"):
        people_of(explainer, other)
    bad = tmp_path / "bad.csv"
    lender().assign(job=lambda f: f.job.where(f.index != 7, "astronaut")).to_csv(bad, index=False)
    with pytest.raises(DataFormatError, match="line 9: job is 'astronaut', not one of its values"):
        people_of(explainer, bad)
    with pytest.raises(InputError, match="unknown feature\\(s\\) \\['incme'\\]; did you mean 'income'\\?"):
        person_of(explainer, '{"incme": 3}')
    with pytest.raises(InputError, match="lacks the feature\\(s\\)"):
        person_of(explainer, "{}")
    with pytest.raises(InputError, match="not JSON"):
        person_of(explainer, "{age: 3}")


def test_a_text_identifier_can_be_left_out_so_new_applicants_are_explained(tmp_path: Path) -> None:
    frame = lender(300).assign(application=[f"A{i:05d}" for i in range(300)])
    path = tmp_path / "applicants.csv"
    frame.to_csv(path, index=False)
    line = next(line for line in draft(frame, "approved").to_text().splitlines() if line.startswith("application:"))
    assert "immutable" in line and "give mc3g fit --ignore application" in line
    explainer = fit_file(path, "approved", ignore=["application"]).explainer
    assert "application" not in explainer.feature_names_in_
    new = tmp_path / "new.csv"
    frame.assign(application=[f"B{i:05d}" for i in range(300)]).to_csv(new, index=False)  # every one a value never seen
    rows = people_of(explainer, new).frame
    assert (explainer.refuses(rows[list(explainer.feature_names_in_)]) == (rows.approved == "no")).mean() > 0.9
    with pytest.raises(InputError, match="--ignore names the decision"):
        fit_file(path, "approved", ignore=["approved"])
    with pytest.raises(InputError, match=r"no column\(s\) \['aplication'\], which --ignore names"):
        fit_file(path, "approved", ignore=["aplication"])
