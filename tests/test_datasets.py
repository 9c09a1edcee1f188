"""The data set loaders against the shared copies of the UCI files and the paper splits."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mc3g import datasets
from mc3g.datasets import DataFormatError, DataNotFoundError, loan
from mc3g.datasets.german import GERMAN_CODES, GERMAN_DISCREPANCIES

ADULT_NUMERIC = ["age", "fnlwgt", "education_num", "capital_gain", "capital_loss", "hours_per_week"]
LOAN_NUMERIC = ["age", "years_employed", "annual_income", "bank_balance", "credit_score"]
GERMAN_NUMERIC = [
    "duration_months", "credit_amount", "installment_rate", "present_residence_since", "age_years",
    "number_existing_credits", "number_people_liable",
]  # fmt: skip


@functools.cache
def cached(name: str, split: str = "uci") -> datasets.Dataset:
    """Each data set read once per test session (tests never modify the frames)."""
    return datasets.load(name, split)


@pytest.fixture
def adult_uci() -> datasets.Dataset:
    return cached("adult", "uci")


@pytest.fixture
def adult_paper() -> datasets.Dataset:
    return cached("adult", "paper")


def both(ds: datasets.Dataset) -> pd.DataFrame:
    return pd.concat([ds.train, ds.test])


# --- names, sizes, labels --------------------------------------------------------------------


def test_names_lists_every_data_set_with_a_description() -> None:
    listed = datasets.names()
    assert list(listed) == ["adult", "german", "cars", "cars4", "taiwan", "loan"]
    assert all(isinstance(d, str) and d for d in listed.values())


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "split", "n_train", "n_test"),
    [
        ("adult", "uci", 32561, 16281),
        ("adult", "paper", 26048, 6513),
        ("german", "uci", 800, 200),
        ("german", "paper", 800, 200),
        ("cars", "uci", 1382, 346),
        ("cars", "paper", 1382, 346),
        ("cars4", "uci", 1382, 346),
        ("cars4", "paper", 1382, 346),
        ("loan", "default", 4000, 1000),
        ("taiwan", "uci", 24000, 6000),
    ],
)
def test_row_counts(name: str, split: str, n_train: int, n_test: int) -> None:
    ds = cached(name, split)
    assert (len(ds.train), len(ds.test)) == (n_train, n_test)
    assert (ds.name, ds.split) == (name, split)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "split", "classes", "unfavourable"),
    [
        ("adult", "uci", ("<=50K", ">50K"), "<=50K"),
        ("adult", "paper", ("<=50K", ">50K"), "<=50K"),
        ("german", "uci", ("bad", "good"), "bad"),
        ("german", "paper", ("bad", "good"), "bad"),  # the paper's rules describe "good"; see the paper profile
        ("cars", "uci", ("negative", "positive"), "negative"),
        ("cars", "paper", ("negative", "positive"), "negative"),
        ("cars4", "paper", ("acc", "good", "unacc", "vgood"), "unacc"),
        ("loan", "default", ("approved", "rejected"), "rejected"),
        ("taiwan", "uci", ("default", "no_default"), "default"),
    ],
)
def test_labels(name: str, split: str, classes: tuple[str, ...], unfavourable: str) -> None:
    ds = cached(name, split)
    assert ds.schema.classes == classes
    assert ds.schema.unfavourable == unfavourable
    assert set(both(ds)[ds.schema.label]) == set(classes)


@pytest.mark.slow
def test_adult_uci_labels_lose_the_test_dots_and_keep_question_marks(adult_uci: datasets.Dataset) -> None:
    assert set(adult_uci.test["income"]) == {"<=50K", ">50K"}
    assert adult_uci.test["income"].value_counts()["<=50K"] == 12435
    # data/README.md: 2,399 training rows and 1,221 test rows have a "?".
    assert (adult_uci.train == "?").any(axis=1).sum() == 2399
    assert (adult_uci.test == "?").any(axis=1).sum() == 1221
    assert "?" in adult_uci.schema.feature("workclass").domain


@pytest.mark.slow
def test_adult_columns_agree_across_splits(adult_uci: datasets.Dataset, adult_paper: datasets.Dataset) -> None:
    assert list(adult_uci.train.columns) == [
        "age", "workclass", "fnlwgt", "education", "education_num", "marital_status", "occupation",
        "relationship", "race", "sex", "capital_gain", "capital_loss", "hours_per_week", "native_country", "income",
    ]  # fmt: skip
    paper_columns = [c for c in adult_uci.train.columns if c not in ("education", "capital_loss")]
    assert list(adult_paper.train.columns) == paper_columns
    assert adult_paper.schema.feature_names == paper_columns[:-1]


@pytest.mark.slow
def test_adult_paper_capital_gain_is_gain_minus_loss(adult_uci: datasets.Dataset, adult_paper: datasets.Dataset) -> None:
    assert adult_paper.schema.feature("capital_gain").range == (-4356.0, 99999.0)
    net = adult_uci.train["capital_gain"] - adult_uci.train["capital_loss"]
    assert sorted(both(adult_paper)["capital_gain"]) == sorted(net)  # the paper split partitions adult.data


# --- dtypes and schemas ----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "split", "numeric"),
    [
        ("adult", "uci", ADULT_NUMERIC),
        ("german", "uci", GERMAN_NUMERIC),
        ("german", "paper", GERMAN_NUMERIC),
        ("cars", "paper", []),
        ("loan", "default", LOAN_NUMERIC),
    ],
)
def test_dtypes_are_int64_or_object_of_str(name: str, split: str, numeric: list[str]) -> None:
    data = both(cached(name, split))
    for col in data.columns:
        if col in numeric:
            assert data[col].dtype == np.int64, col
        else:
            assert data[col].dtype == object, col
            assert all(type(v) is str for v in data[col]), col


@pytest.mark.slow
def test_adult_schema_metadata(adult_uci: datasets.Dataset) -> None:
    schema = adult_uci.schema
    assert schema.numeric == ADULT_NUMERIC
    assert {f.name for f in schema.features if f.immutable} == {"race", "sex", "native_country"}
    assert {f.name for f in schema.features if f.direction == "increase"} == {"age", "education_num"}
    assert all(f.description for f in schema.features)
    age = schema.feature("age")
    assert age.range == (17.0, 90.0) and age.step == 1.0
    # domains cover train and test; ranges come from train only
    assert schema.feature("native_country").domain == tuple(sorted(set(both(adult_uci)["native_country"])))
    assert schema.feature("hours_per_week").range == (
        float(adult_uci.train["hours_per_week"].min()),
        float(adult_uci.train["hours_per_week"].max()),
    )


def test_paper_settings_restrict_the_schema_not_the_frames() -> None:
    german = cached("german", "paper")
    assert german.schema.feature_names == [
        "checking_account_status", "credit_history", "property", "duration_months", "credit_amount",
        "present_employment_since", "job",
    ]  # fmt: skip
    assert len(german.train.columns) == 21
    assert german.schema.feature("duration_months").range == (4.0, 72.0)
    assert german.schema.feature("credit_amount").range == (250.0, 18424.0)
    cars = cached("cars", "paper")
    assert cars.schema.feature_names == ["persons", "safety", "buying", "maint"]
    assert list(cars.train.columns) == ["buying", "maint", "doors", "persons", "lug_boot", "safety", "class"]


def test_german_schema_metadata_and_notes() -> None:
    uci, paper = cached("german", "uci"), cached("german", "paper")
    assert {f.name for f in uci.schema.features if f.immutable} == {"personal_status", "foreign_worker"}
    assert uci.schema.feature("age_years").direction == "increase"
    assert set(uci.schema.numeric) == set(GERMAN_NUMERIC)
    assert "foreign_worker" in uci.schema.notes and "foreign_worker" in paper.schema.notes
    assert "random_state=0" in uci.schema.notes
    assert "'good'" in paper.schema.notes


def test_cars_are_all_categorical_strings_and_nothing_is_immutable() -> None:
    ds = cached("cars", "uci")
    assert ds.schema.categorical == ds.schema.feature_names and not ds.schema.numeric
    assert not any(f.immutable for f in ds.schema.features)
    assert ds.schema.feature("persons").domain == ("2", "4", "more")
    assert ds.schema.feature("doors").domain == ("2", "3", "4", "5more")
    assert set(cached("cars", "paper").train["doors"]) == {"2", "3", "4", "morethanfive"}


# --- German decoding -------------------------------------------------------------------------


def test_german_codes_cover_the_uci_documentation(shared_data: Path) -> None:
    documented = set(re.findall(r"\bA\d+\b", (shared_data / "README.md").read_text()))
    decoded = {code for col, table in GERMAN_CODES.items() if col != "credit_risk" for code in table}
    assert documented == decoded


def test_german_uci_decoding_agrees_with_the_paper_split() -> None:
    uci, paper = both(cached("german", "uci")), both(cached("german", "paper"))
    # The paper ids are positions within each file, so rows are matched on the numeric columns,
    # which are unique per row of german.data.
    matched = uci.merge(paper, on=GERMAN_NUMERIC, suffixes=("_uci", "_paper"), validate="1:1")
    assert len(matched) == 1000
    categorical = [c for c in uci.columns if c not in GERMAN_NUMERIC]
    for col in categorical:
        same = matched[f"{col}_uci"] == matched[f"{col}_paper"]
        if col in GERMAN_DISCREPANCIES:
            assert not same.any(), col
        else:
            assert same.all(), col
    assert GERMAN_DISCREPANCIES == ("foreign_worker",)
    assert (uci["foreign_worker"] == "yes").sum() == 963  # UCI: A201 = yes, 963 rows


def test_german_uci_split_is_stratified_and_traceable() -> None:
    ds = cached("german", "uci")
    assert ds.train["credit_risk"].value_counts().to_dict() == {"good": 560, "bad": 240}
    assert ds.test["credit_risk"].value_counts().to_dict() == {"good": 140, "bad": 60}
    assert sorted([*ds.train.index, *ds.test.index]) == list(range(1000))
    first = pd.concat([ds.train, ds.test]).loc[0]  # german.data line 1: A11 6 ... 1169
    assert (first["checking_account_status"], first["duration_months"], first["credit_amount"]) == (
        "less_than0",
        6,
        1169,
    )
    again = datasets.load("german", "uci")
    pd.testing.assert_frame_equal(ds.test, again.test)


def test_german_paper_index_is_the_published_id() -> None:
    ds = cached("german", "paper")
    assert ds.test.index.name == "id" and list(ds.test.index) == list(range(200))
    assert ds.test.loc[0, "credit_amount"] == 5951


# --- cars ------------------------------------------------------------------------------------


def test_cars_uci_split_is_stratified_on_the_four_classes() -> None:
    cars, cars4 = cached("cars", "uci"), cached("cars4", "uci")
    assert cars4.test["class"].value_counts().to_dict() == {"unacc": 242, "acc": 77, "good": 14, "vgood": 13}
    assert cars.test["class"].value_counts().to_dict() == {"negative": 242, "positive": 104}
    assert list(cars.test.index) == list(cars4.test.index)
    assert set(cars.train["doors"]) == {"2", "3", "4", "5more"}


def test_cars4_paper_recovers_the_uci_classes() -> None:
    cars, cars4 = cached("cars", "paper"), cached("cars4", "paper")
    counts = both(cars4)["class"].value_counts().to_dict()
    assert counts == {"unacc": 1210, "acc": 384, "good": 69, "vgood": 65}
    binarised = both(cars4)["class"].map(lambda c: "negative" if c == "unacc" else "positive")
    assert list(binarised) == list(both(cars)["class"])
    pd.testing.assert_frame_equal(cars.train.drop(columns="class"), cars4.train.drop(columns="class"))


# --- loan ------------------------------------------------------------------------------------


def test_loan_is_deterministic_and_obeys_the_bank_rule() -> None:
    first, second = loan.generate(), loan.generate()
    pd.testing.assert_frame_equal(first, second)
    assert not first.equals(loan.generate(seed=loan.SEED + 1))
    expected = np.where((first["bank_balance"] < 60000) | (first["credit_score"] < 620), "rejected", "approved")
    assert list(first["loan"]) == list(expected)
    share = first["loan"].value_counts(normalize=True)
    assert share["rejected"] >= 0.25 and share["approved"] >= 0.25
    assert first["credit_score"].between(300, 850).all()
    # the paper's causal rule credit_score >= 620 <- debt == none holds in every row
    assert (first.loc[first["debt"] == "none", "credit_score"] >= 620).all()
    assert set(first["debt"]) == set(loan.DEBT_LEVELS)


def test_loan_dataset_schema_and_john() -> None:
    ds = cached("loan")
    assert cached("loan", "paper").split == "default"
    pd.testing.assert_frame_equal(pd.concat([ds.train, ds.test]), loan.generate())
    score = ds.schema.feature("credit_score")
    assert score.consequence_only and score.range == (300.0, 850.0)
    assert ds.schema.feature("age").direction == "increase"
    john = loan.JOHN
    assert set(john) == set(ds.schema.feature_names)
    assert loan.rejected(john["bank_balance"], john["credit_score"])
    for name, value in john.items():
        feature = ds.schema.feature(name)
        if feature.is_numeric:
            assert feature.range[0] <= value <= feature.range[1], name
        else:
            assert value in feature.domain, name
    # plausible: people like John (same debt, a score within 10 points of his) occur
    near = ds.train[(ds.train["debt"] == "over_10000") & ds.train["credit_score"].between(589, 609)]
    assert len(near) >= 20


# --- errors ----------------------------------------------------------------------------------


def test_unknown_name_or_split_lists_the_valid_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown data set 'iris'.*adult.*german.*cars.*cars4.*loan"):
        datasets.load("iris")
    with pytest.raises(ValueError, match=r"unknown split 'test' for 'adult'.*uci.*paper"):
        datasets.load("adult", "test")
    with pytest.raises(ValueError, match=r"default"):
        datasets.load("loan", "nope")


def test_missing_uci_file_says_where_it_looked_and_what_to_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MC3G_DATA_DIR", str(tmp_path))
    with pytest.raises(DataNotFoundError) as caught:
        datasets.load("adult", "uci")
    message = str(caught.value)
    assert isinstance(caught.value, FileNotFoundError)
    assert str(tmp_path / "adult" / "adult.data") in message
    assert "mc3g data download" in message and "MC3G_DATA_DIR" in message


def test_missing_paper_split_says_where_to_put_it(tmp_path: Path) -> None:
    with pytest.raises(DataNotFoundError) as caught:
        datasets.load("german", "paper", data_dir=tmp_path)
    message = str(caught.value)
    assert str(tmp_path / "paper-splits" / "german" / "train_fold_1.csv") in message
    assert "MC3G authors" in message and "mc3g data download" not in message


def _german_with(tmp_path: Path, shared_data: Path, line: int, edit) -> Path:
    lines = (shared_data / "german" / "german.data").read_text().splitlines()
    fields = lines[line - 1].split()
    edit(fields)
    lines[line - 1] = " ".join(fields)
    (tmp_path / "german").mkdir()
    (tmp_path / "german" / "german.data").write_text("\n".join(lines) + "\n")
    return tmp_path / "german" / "german.data"


def test_unknown_code_is_reported_with_file_and_line(tmp_path: Path, shared_data: Path) -> None:
    path = _german_with(tmp_path, shared_data, 7, lambda f: f.__setitem__(0, "A15"))
    with pytest.raises(DataFormatError, match=rf"{re.escape(str(path))}, line 7: checking_account_status is 'A15'"):
        datasets.load("german", data_dir=tmp_path)


def test_wrong_field_count_is_reported_with_file_and_line(tmp_path: Path, shared_data: Path) -> None:
    path = _german_with(tmp_path, shared_data, 3, lambda f: f.pop())
    with pytest.raises(DataFormatError, match=rf"{re.escape(str(path))}, line 3: expected 21 fields, found 20"):
        datasets.load("german", data_dir=tmp_path)


@pytest.mark.parametrize(
    ("cell", "why"), [("?", "'\\?', not a number"), ("abc", "'abc', not a number"), ("inf", "'inf', not a finite number"), ("1e308", "1e\\+308, beyond")]
)
def test_a_non_number_in_a_numeric_column_is_refused_at_its_line(tmp_path: Path, shared_data: Path, cell: str, why: str) -> None:
    path = _german_with(tmp_path, shared_data, 5, lambda f: f.__setitem__(1, cell))
    with pytest.raises(DataFormatError, match=rf"{re.escape(str(path))}, line 5: duration_months is {why}"):
        datasets.load("german", data_dir=tmp_path)


# --- every file is checked against the declared schema ---------------------------------------
def data_with(tmp_path: Path, shared_data: Path, relpath: str, line: int, field: int, value: str) -> Path:
    """A data directory like the shared one (its files linked) in which field ``field`` (0-based)
    of line ``line`` of ``relpath`` holds ``value``; the path of that file."""
    for source in shared_data.rglob("*"):
        if source.is_file():
            (tmp_path / source.relative_to(shared_data)).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / source.relative_to(shared_data)).symlink_to(source)
    path = tmp_path / relpath
    lines = path.read_text(encoding="utf-8").splitlines()
    delimiter = None if relpath.startswith("german/") else ","
    fields = lines[line - 1].split(delimiter)
    fields[field] = (" " if fields[field].startswith(" ") else "") + value
    lines[line - 1] = (delimiter or " ").join(fields)
    path.unlink()
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def defect(name: str, split: str, relpath: str, line: int, field: int, value: str, message: str, slow: bool = False) -> object:
    return pytest.param(name, split, relpath, line, field, value, message, id=f"{relpath}:{line}", marks=[pytest.mark.slow] if slow else [])


FILE_DEFECTS = [  # slow: adult's big files, read whole before they are checked
    defect("adult", "paper", "paper-splits/adult/train_fold_1.csv", 9, 4, "Klingon", "marital_status is 'Klingon', not one of its values"),
    defect("adult", "paper", "paper-splits/adult/test_fold_1.csv", 3, 0, "-40", r"age is -40, not a value a person may have \(age is from 0 to 120\)"),
    defect("adult", "paper", "paper-splits/adult/test_fold_1.csv", 4, 10, "200", r"hours_per_week is 200, not a value .* from 0 to 168\)", slow=True),
    defect("adult", "uci", "adult/adult.test", 5, 13, "Atlantis", "native_country is 'Atlantis', not one of its values", slow=True),
    defect("adult", "uci", "adult/adult.data", 2, 10, "-1", r"capital_gain is -1, not a value .* \(capital_gain is at least 0\)", slow=True),
    defect("cars", "paper", "paper-splits/cars/test_fold_1.csv", 2, 3, "seven", r"persons is 'seven', not one of its values \('2', '4', 'more'\)"),
    defect("cars", "paper", "paper-splits/cars/train_fold_1.csv", 6, 2, "5more", r"doors is '5more', not one of its values \('2', '3', '4', 'morethanfive'\)"),
    defect("cars4", "uci", "car/car.data", 10, 5, "extreme", "safety is 'extreme', not one of its values"),
    defect("german", "paper", "paper-splits/german/test_fold_1.csv", 2, 17, "astronaut", "job is 'astronaut', not one of its values"),
    defect("german", "paper", "paper-splits/german/train_fold_1.csv", 7, 13, "-3", r"age_years is -3, not a value a person may have"),
    defect("german", "uci", "german/german.data", 4, 7, "9", r"installment_rate is 9, not a value .* \(installment_rate is from 1 to 4\)"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "split", "relpath", "line", "field", "value", "message"), FILE_DEFECTS)
def test_a_file_is_checked_against_the_schema_at_its_line_and_column(
    tmp_path: Path, shared_data: Path, name: str, split: str, relpath: str, line: int, field: int, value: str, message: str
) -> None:
    path = data_with(tmp_path, shared_data, relpath, line, field, value)
    with pytest.raises(DataFormatError, match=rf"^{re.escape(str(path))}, line {line}: {message}"):
        datasets.load(name, split, data_dir=tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["adult", "german", "cars", "loan", "taiwan"])
def test_the_schemas_declare_what_a_person_may_have_and_the_data_agree(name: str) -> None:
    """Every categorical feature has its declared domain and every numeric one of a person's
    measure (ages, hours, amounts) its valid values; the shipped rows all lie inside them (a
    balance, a gain or a bill may be negative)."""
    for split in ("uci",) if name == "taiwan" else ("uci", "paper"):
        ds = cached(name, split)
        for f in ds.schema.features:
            assert (f.valid if f.is_numeric else f.domain) is not None or f.name in ("bank_balance", "capital_gain") or f.name.startswith("bill_amt"), f.name
            if f.is_numeric and f.valid is not None:
                values = both(ds)[f.name]
                assert f.valid[0] <= values.min() and values.max() <= f.valid[1], f.name
    assert cached("adult", "uci").schema.feature("age").valid == (0, 120)
    assert cached("adult", "uci").schema.feature("hours_per_week").valid == (0, 168)


def test_the_cli_names_a_bad_cell_of_a_data_file_and_exits_2(tmp_path: Path, shared_data: Path) -> None:
    from typer.testing import CliRunner

    from mc3g.cli import app

    path = data_with(tmp_path, shared_data, "paper-splits/cars/test_fold_1.csv", 2, 3, "seven")
    result = CliRunner().invoke(app, ["explain", "cars", "--all-refused"], env={"MC3G_DATA_DIR": str(tmp_path)})
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"{path}, line 2: persons is 'seven', not one of its values ('2', '4', 'more')" in result.output


# --- Taiwan --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_taiwan_codes_are_words_and_undocumented_ones_unknown() -> None:
    ds = cached("taiwan")
    clients = both(ds)
    assert clients.index.name == "id" and clients.index.is_unique and len(clients) == 30000
    assert set(clients["sex"]) == {"female", "male"} and set(clients["marriage"]) == {"married", "single", "others", "unknown"}
    assert (clients["education"] == "unknown").sum() == 14 + 280 + 51  # codes 0, 5 and 6
    assert (clients["will_default_next_month"] == "default").sum() == 6636
    assert {f.name for f in ds.schema.features if f.immutable} == {"sex"} and ds.schema.feature("age").direction == "increase"
    words = ds.schema.words()
    assert words.feature("pay_0") == "repayment status in September" and words.value("pay_0", -1) == "paid in full"
    assert words.feature("pay_amt6") == "amount paid in April" and words.value("education", "graduate_school") == "graduate school"
    assert ds.schema.feature("education").unknown == ("unknown",)
    assert ds.train["will_default_next_month"].eq("default").mean() == pytest.approx(0.2212, abs=1e-3)  # stratified


def test_a_taiwan_file_is_checked_at_its_line(tmp_path: Path, shared_data: Path) -> None:
    """A bad cell of the clients' file is named by file, line, column and value; a missing file
    says how it is made (UCI publishes a spreadsheet)."""
    source = (shared_data / "taiwan" / "default_of_credit_card_clients.csv").read_text(encoding="utf-8").splitlines()
    folder = tmp_path / "taiwan"
    folder.mkdir()
    for line, field, value, message in ((3, 2, "3", "sex is '3'"), (4, 6, "twelve", "pay_0 is 'twelve', not a number"), (2, 6, "10", "pay_0 is 10")):
        rows = [row.split(",") for row in source[:6]]
        rows[line - 1][field] = value
        (folder / "default_of_credit_card_clients.csv").write_text("\n".join(",".join(r) for r in rows) + "\n", encoding="utf-8")
        with pytest.raises(DataFormatError, match=rf"line {line}: {message}"):
            datasets.load("taiwan", data_dir=tmp_path)
    (folder / "default_of_credit_card_clients.csv").unlink()
    with pytest.raises(DataNotFoundError, match="UCI publishes the Taiwan clients as a spreadsheet"):
        datasets.load("taiwan", data_dir=tmp_path)
