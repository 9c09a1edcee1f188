"""mc3g audit on a results folder whose every number is known: eight people in two partitions,
each group's shares, costs, actions and ratios checked exactly; bands, joined groupings, the
report and its plots, and the folders it refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

pa = pytest.importorskip("pyarrow")

from mc3g.audit import COLUMNS, Band, audit, parse_groupings, preclusions, write_report  # noqa: E402
from mc3g.batch import MANIFEST  # noqa: E402
from mc3g.cli import app  # noqa: E402
from mc3g.exceptions import InputError, ResultsFileError  # noqa: E402

runner = CliRunner()
HASH = "sha256:" + "ab" * 32
PEOPLE = pd.DataFrame(
    {
        "position": range(8),
        "status": ["refused", "refused", "not_refused", "error", "refused", "no_counterfactual", "not_refused", "not_refused"],
        "refused": [True, True, False, None, True, True, False, False],
        "cost": [1.0, 3.0, None, None, 1.0, None, None, None],
        "actions": [["capital_gain"], ["capital_gain", "hours"], [], [], ["hours"], [], [], []],
        "settings_hash": [HASH] * 8,
        "sex": ["F", "F", "F", "F", "M", "M", "M", "M"],
        "race": ["A", "B", "A", "B", "A", "A", "B", "B"],
        "age": [25, 35, 60, 45, 20, 52, 33, 70],
    }
)


def _folder(path: Path, people: pd.DataFrame = PEOPLE, planned: int = 8) -> Path:
    """A results folder as mc3g batch writes it: a manifest and the people in two partitions."""
    path.mkdir(exist_ok=True)
    (path / MANIFEST).write_text(json.dumps({"format": "mc3g.batch", "version": 1, "settings": {}, "settings_hash": HASH, "plan": {"people": planned}}))
    schema = pa.Schema.from_pandas(people, preserve_index=False)  # the whole frame's: a partition of empty lists alone has no type
    people.iloc[:5].to_parquet(path / "part-00000.parquet", index=False, schema=schema)
    people.iloc[5:].to_parquet(path / "part-00001.parquet", index=False, schema=schema)
    return path


def test_each_group_has_its_shares_costs_actions_and_ratios(tmp_path) -> None:
    result = audit(_folder(tmp_path), [["sex"]], fewest=1)
    by_sex = result.tables["sex"]
    women, men = by_sex.loc["F"], by_sex.loc["M"]
    assert (women["people"], women["errors"], men["people"], men["errors"]) == (4, 1, 4, 0)
    assert women["refused"] == pytest.approx(2 / 3) and men["refused"] == 0.5  # the error has no decision
    assert women["recourse"] == 1.0 and men["recourse"] == 0.5  # one refused man has no option
    assert (women["mean"], women["median"], women["p90"]) == pytest.approx((2.0, 2.0, 2.8))
    assert (men["mean"], men["median"], men["p90"]) == (1.0, 1.0, 1.0)
    assert women["actions"] == "capital_gain 100%, hours 50%" and men["actions"] == "hours 100%"
    assert women["refused_ratio"] == pytest.approx(4 / 3) and men["refused_ratio"] == 1.0
    assert women["burden_ratio"] == 2.0 and men["burden_ratio"] == 1.0
    assert result.people == result.planned == 8 and result.settings_hash == HASH


def test_a_model_read_exactly_shows_what_it_precludes_and_a_protection_that_keeps_one_group_out(tmp_path) -> None:
    """Four refused women, none with an option, proved on the model read exactly: three kept out
    by marital status alone; of four refused men, one proved out by age's direction, one with
    no option only through imitating rules (not proved), two answered."""
    marital, older = "marital_status: immutable", "age: direction"
    people = pd.DataFrame(
        {
            "position": range(8),
            "status": ["no_counterfactual"] * 4 + ["no_counterfactual", "no_counterfactual", "refused", "refused"],
            "refused": [True] * 8,
            "cost": [None] * 6 + [1.0, 2.0],
            "actions": [[]] * 6 + [["hours"], ["hours"]],
            "guarantee": ["exact"] * 4 + ["surrogate", "exact", "exact", "exact"],
            "blocking": [[marital], [marital], [marital], [], [], [older], [], []],
            "settings_hash": [HASH] * 8,
            "sex": ["F"] * 4 + ["M"] * 4,
        }
    )
    people = pd.concat([people.assign(sex=people["sex"] + "-few"), *[people] * 5], ignore_index=True).assign(position=range(48))
    result = audit(_folder(tmp_path, people, planned=48), [["sex"]])  # twenty refused women and men, four of each a group too few to compare
    women, men = result.tables["sex"].loc["F"], result.tables["sex"].loc["M"]
    assert result.tables["sex"].loc["F-few", "precluded"] == 1.0
    assert (women["precluded"], men["precluded"]) == (1.0, 0.25)  # the man without a proof is not precluded
    assert women["blocking"] == f"{marital} 75%" and men["blocking"] == f"{older} 100%"
    assert preclusions(result) == [
        f"{older} keeps 25% of refused M out of every option, against 0% of refused F (by sex; proved on the model read exactly)",
        f"{marital} keeps 75% of refused F out of every option, against 0% of refused M (by sex; proved on the model read exactly)",
    ]
    shown = runner.invoke(app, ["audit", str(tmp_path), "--by", "sex"])
    assert shown.exit_code == 0 and f"Warning: {marital} keeps 75% of refused F" in " ".join(shown.output.split())
    assert "Blocking protections" in shown.output and "## Warnings" in (tmp_path / "_audit" / "audit.md").read_text()


def test_a_protected_characteristic_that_alone_turns_unproved_refusals_of_one_group_is_warned_of(tmp_path) -> None:
    """A model that cannot be read: four refused women with no option (not proved), three of
    whom it accepts with marital status alone changed; four refused men, one with no option that
    nothing protected turns, three answered."""
    married = "marital_status = Married-civ-spouse"
    people = pd.DataFrame(
        {
            "position": range(8),
            "status": ["no_counterfactual"] * 5 + ["refused"] * 3,
            "refused": [True] * 8,
            "cost": [None] * 5 + [1.0, 2.0, 1.0],
            "actions": [[]] * 5 + [["hours"]] * 3,
            "guarantee": ["surrogate"] * 8,
            "blocking": [[]] * 8,
            "turns_on": [[married, "sex = Male"], [married], [married], [], [], [], [], []],
            "settings_hash": [HASH] * 8,
            "sex": ["F"] * 4 + ["M"] * 4,
        }
    )
    people = pd.concat([people] * 5, ignore_index=True).assign(position=range(40))
    result = audit(_folder(tmp_path, people, planned=40), [["sex"]])
    women, men = result.tables["sex"].loc["F"], result.tables["sex"].loc["M"]
    assert (women["precluded"], women["unproved"], women["turned"]) == (0.0, 1.0, 0.75)
    assert (men["unproved"], men["turned"]) == (0.25, 0.0) and pd.isna(men["turning"])
    assert women["turning"] == "marital_status 100%, sex 33%"
    assert preclusions(result) == [
        "changing only marital_status turns the model's refusal of 75% of refused F left with no option, against 0% of refused M "
        "(by sex; asked of the model, which cannot be read: its refusals are not proved final)",
        "changing only sex turns the model's refusal of 25% of refused F left with no option, against 0% of refused M "
        "(by sex; asked of the model, which cannot be read: its refusals are not proved final)",
    ]
    shown = runner.invoke(app, ["audit", str(tmp_path), "--by", "sex"])
    assert shown.exit_code == 0 and "Warning: changing only marital_status turns" in " ".join(shown.output.split())
    assert "A protected characteristic alone turns the refusal" in shown.output
    assert "turned by a protected characteristic alone" in (tmp_path / "_audit" / "audit.md").read_text()


def test_results_written_before_models_were_read_exactly_are_still_audited(tmp_path) -> None:
    result = audit(_folder(tmp_path, PEOPLE), [["sex"]])
    assert list(result.tables["sex"]["precluded"]) == [0.0, 0.0] and preclusions(result) == []
    assert list(result.tables["sex"]["fewer"]) == [0.0, 0.0]  # nor said why fewer than K


def test_the_share_with_fewer_than_k_options_is_reported_by_group(tmp_path) -> None:
    """One of the two women with an option has fewer than K, and the results say why."""
    why = "No other state escapes the rules within the causal knowledge."
    people = PEOPLE.assign(fewer=[why, None, None, None, None, None, None, None])
    result = audit(_folder(tmp_path, people), [["sex"]])
    assert list(result.tables["sex"]["fewer"]) == [0.5, 0.0]
    shown = runner.invoke(app, ["audit", str(tmp_path), "--by", "sex"])
    assert shown.exit_code == 0 and "fewer than K" in shown.output and "fewer than K" in (tmp_path / "_audit" / "audit.md").read_text()


def test_bands_and_joined_groupings(tmp_path) -> None:
    result = audit(_folder(tmp_path), parse_groupings("age_band, sex+race"), [Band.parse("age=30,50")], fewest=1)
    bands = result.tables["age_band"]
    assert list(bands.index) == ["<30", "30-50", ">=50"] and list(bands["people"]) == [2, 3, 3]
    assert list(bands["mean"].fillna(-1)) == [1.0, 3.0, -1]  # nobody of 50 and over has an option
    assert list(bands["burden_ratio"].fillna(-1)) == [1.0, 3.0, -1]
    joined = result.tables["sex+race"]
    assert joined.loc[("F", "A"), "people"] == 2 and joined.loc[("M", "B"), "refused"] == 0.0
    assert Band.parse("age=25,35.5").labels() == ["<25", "25-35.5", ">=35.5"]


def test_a_ratio_to_the_best_needs_groups_large_enough_and_a_best_above_nothing(tmp_path) -> None:
    """Issue 50, item 9: one refused person in a band set the baseline (the others up to 7.0x);
    a group with none refused showed 0.00; a band had to be named in --by as well."""
    people = pd.concat([PEOPLE] * 20, ignore_index=True).assign(position=range(160))  # 40 women and 20 men with an option
    few = pd.DataFrame({**{c: PEOPLE[c].iloc[:1].tolist() for c in PEOPLE.columns}, "position": [160], "sex": ["X"]})  # one refused person
    result = audit(_folder(tmp_path / "a", pd.concat([people, few], ignore_index=True), planned=161), [["sex"]])
    ratios = result.tables["sex"]["burden_ratio"]
    assert ratios["M"] == 1.0 and ratios["F"] == 2.0 and pd.isna(ratios["X"])  # X's cost of 1.0 sets no baseline
    assert pd.isna(result.tables["sex"].loc["X", "refused_ratio"])
    none_refused = people.assign(refused=people["sex"].eq("F") & people["refused"].fillna(False).astype(bool))
    nobody = audit(_folder(tmp_path / "b", none_refused, planned=160), [["sex"]]).tables["sex"]
    assert nobody["refused"]["M"] == 0.0 and nobody["refused_ratio"].isna().all()  # no multiple of nothing
    banded = audit(_folder(tmp_path / "c", people, planned=160), [["sex"]], [Band.parse("age=30,50")])
    assert list(banded.tables) == ["sex", "age_band"]
    shown = runner.invoke(app, ["audit", str(tmp_path / "c"), "--by", "sex", "--band", "age=30,50"])
    assert shown.exit_code == 0 and "by age_band" in shown.output


@pytest.mark.parametrize("text", ["age", "age=", "age=50,30", "age=1,1", "=30", "age=a,b", "age=1,inf"])
def test_a_band_needs_increasing_finite_edges(text) -> None:
    with pytest.raises(InputError, match="COLUMN=EDGES"):
        Band.parse(text)


def test_what_the_audit_refuses(tmp_path) -> None:
    folder = _folder(tmp_path / "a")
    with pytest.raises(InputError, match=r"no column\(s\) \['income'\]; the people's columns are \['sex', 'race', 'age'\]"):
        audit(folder, [["income"]])
    with pytest.raises(InputError, match="'sex' is not numeric"):
        audit(folder, [["sex_band"]], [Band.parse("sex=1")])
    with pytest.raises(InputError, match="--by takes column names"):
        parse_groupings("sex,+race")
    foreign = _folder(tmp_path / "b", PEOPLE.assign(settings_hash=["sha256:other"] + [HASH] * 7))
    with pytest.raises(InputError, match=r"1 row\(s\) were made under settings other than"):
        audit(foreign, [["sex"]])
    twice = _folder(tmp_path / "c", PEOPLE.assign(position=[0, 1, 2, 3, 4, 5, 6, 1]))
    with pytest.raises(InputError, match=r"twice \(position 1\)"):
        audit(twice, [["sex"]])
    with pytest.raises(ResultsFileError, match="has no _batch.json"):
        audit(tmp_path, [["sex"]])


@pytest.mark.slow
def test_the_report_has_its_tables_and_plots(tmp_path) -> None:
    result = audit(_folder(tmp_path / "results", planned=10), parse_groupings("sex,race"), fewest=1)
    path = write_report(result, tmp_path / "report")
    text = path.read_text()
    assert "**The batch is unfinished:** 8 of its 10 people" in text
    assert "| F | 4 | 1 | 66.7% | 100.0% | 2.000 | 2.000 | 2.800 | 1.33 | 2.00 | capital_gain 100%, hours 50% |" in text
    for name in ("cost-by-sex.png", "actions-by-sex.png", "cost-by-race.png", "actions-by-race.png"):
        assert f"]({name})" in text and (tmp_path / "report" / name).read_bytes()[:4] == b"\x89PNG"


@pytest.mark.slow
def test_the_cli_prints_the_tables_and_writes_the_report(tmp_path) -> None:
    folder = _folder(tmp_path)
    result = runner.invoke(app, ["audit", str(folder), "--by", "sex,age_band", "--band", "age=30,50"])
    assert result.exit_code == 0, result.output
    assert "Refusals by sex (8 people)" in result.output and "66.7%" in result.output and "The cost of recourse by age_band" in result.output
    assert "  F: capital_gain 100%, hours 50%" in result.output
    assert (folder / "_audit" / "audit.md").exists() and (folder / "_audit" / "cost-by-age_band.png").exists()
    shown = runner.invoke(app, ["audit", str(folder), "--by", "sex", "--json", "--fewest", "1"])
    assert json.loads(shown.output)["groups"]["sex"][1] | {"actions": None} == {
        "group": "M", "people": 4, "errors": 0, "refused": 0.5, "recourse": 0.5, "mean": 1.0, "median": 1.0, "p90": 1.0,
        "actions": None, "refused_ratio": 1.0, "burden_ratio": 1.0, "precluded": 0.0, "fewer": 0.0, "blocking": None,
        "unproved": 0.5, "turned": 0.0, "turning": None,
    }  # fmt: skip
    missing = runner.invoke(app, ["audit", str(folder), "--by", "income"])
    assert missing.exit_code == 2 and "no column(s) ['income']" in missing.output


@pytest.mark.parametrize("damage", [b"", b"PAR1 cut short", b"not parquet at all, but long enough to have no footer either"])
def test_a_damaged_partition_is_named_with_its_repair(tmp_path, damage: bytes) -> None:
    """A partition file cut short or overwritten (what mc3g batch removes and redoes on a rerun)
    is named, with that rerun, instead of pyarrow's error; nothing is written."""
    folder = _folder(tmp_path / "results")
    (folder / "part-00001.parquet").write_bytes(damage)
    with pytest.raises(ResultsFileError, match=r"1 partition file\(s\) cannot be read, \['part-00001.parquet'\] \(part-00001.parquet: .*rerun the mc3g batch"):
        audit(folder, [["sex"]])
    result = runner.invoke(app, ["audit", str(folder), "--by", "sex"])
    assert result.exit_code == 2 and "cannot be read, ['part-00001.parquet']" in result.output and result.exception.__class__ is SystemExit
    assert not (folder / "_audit").exists()


@pytest.mark.slow
def test_the_report_needs_a_folder(tmp_path) -> None:
    folder = _folder(tmp_path / "results")
    existing = tmp_path / "report.md"
    existing.write_text("mine\n")
    result = runner.invoke(app, ["audit", str(folder), "--by", "sex", "--out", str(existing)])
    assert result.exit_code == 2 and f"{existing} is a file: the report needs a folder" in result.output and result.exception.__class__ is SystemExit
    assert existing.read_text() == "mine\n"
    inside = runner.invoke(app, ["audit", str(folder), "--by", "sex", "--out", str(existing / "report")])
    assert inside.exit_code == 2 and inside.exception.__class__ is SystemExit and "Traceback" not in inside.output


@pytest.mark.slow
def test_the_report_shows_any_group_value_as_text_and_names_a_plot_it_cannot_write(tmp_path, monkeypatch) -> None:
    """Issue 50, item 11: a group's HTML passed into audit.md raw, a '|' shifted its figures a
    column, a column named a/b broke the plots' file names, and a full disk left an empty PNG."""
    hostile = ["<img src=x onerror=alert(1)>", "a|b", "$x", "plain"] * 2
    people = PEOPLE.assign(**{"a/b": hostile})
    folder = _folder(tmp_path / "results", people)
    path = write_report(audit(folder, [["a/b"]], fewest=1), tmp_path / "report")
    text = path.read_text()
    assert "<img" not in text and "&lt;img src=x onerror=alert(1)&gt;" in text
    rows = [line for line in text.splitlines() if line.startswith("| a\\|b")]
    assert len(rows) == 1 and rows[0].replace("\\|", "").count("|") == len(COLUMNS) + 2  # every figure in its column
    assert (tmp_path / "report" / "cost-by-a-b.png").read_bytes()[:4] == b"\x89PNG"

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    import matplotlib.figure

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", full)
    with pytest.raises(InputError, match=r"cannot write .*cost-by-a-b\.png: No space left on device"):
        write_report(audit(folder, [["a/b"]], fewest=1), tmp_path / "again")
    assert not list((tmp_path / "again").glob("*.png"))
