"""A lender's own file, model and knowledge, from the command line alone: mc3g init, check, fit,
and --explainer wherever a data set is named; every bad input named, nothing written half."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import make_column_transformer
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from typer.testing import CliRunner

from mc3g import load_model
from mc3g.applicants import fit_file, read_data
from mc3g.cli import app
from mc3g.explain import TIMINGS

runner = CliRunner()
TREE = "sklearn.tree._tree.Tree"


def lender(n: int, seed: int) -> pd.DataFrame:
    """Applicants of a lender mc3g has never seen (unemployed people earn nothing)."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "age": rng.integers(21, 70, n),
            "sex": rng.choice(["female", "male"], n),
            "employment": rng.choice(["employed", "self-employed", "unemployed"], n, p=[0.7, 0.2, 0.1]),
            "income": rng.integers(15, 120, n) * 1000,
            "debt": rng.integers(0, 40, n) * 500,
            "savings": rng.integers(0, 300, n) * 100,
        }
    )
    frame.loc[frame.employment == "unemployed", "income"] = 0
    score = frame.income / 1000 - frame.debt / 400 + frame.savings / 1500 + rng.normal(0, 8, n)
    return frame.assign(approved=np.where(score > 40, "yes", "no"))


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """applicants.csv, new.csv (people to explain, without the decision), model.skops, and the
    knowledge mc3g init drafts with its dependency uncommented."""
    from skops.io import dump

    folder = tmp_path_factory.mktemp("own")
    people = lender(700, 11)
    people.to_csv(folder / "applicants.csv", index=False)
    lender(24, 12).drop(columns="approved").to_csv(folder / "new.csv", index=False)
    encode = make_column_transformer((OneHotEncoder(handle_unknown="ignore"), ["sex", "employment"]), remainder="passthrough")
    model = make_pipeline(encode, GradientBoostingClassifier(n_estimators=40, random_state=0)).fit(people.drop(columns="approved"), people.approved)
    dump(model, folder / "model.skops")
    drafted = runner.invoke(app, ["init", str(folder / "applicants.csv"), "--target", "approved", "--favourable", "yes"])
    assert drafted.exit_code == 0, drafted.output
    knowledge = drafted.stdout.replace("# forbid employment == unemployed", "forbid employment == unemployed")
    assert knowledge != drafted.stdout
    (folder / "applicants.causal").write_text(knowledge, encoding="utf-8")
    return {name: folder / name for name in ("applicants.csv", "new.csv", "model.skops", "applicants.causal")} | {"folder": folder}


MODEL = ["--trust-type", TREE]


def _fit(files: dict[str, Path], out: Path, *extra: str) -> str:
    result = runner.invoke(
        app,
        [
            "fit",
            str(files["applicants.csv"]),
            "--target",
            "approved",
            "--favourable",
            "yes",
            "--causal",
            str(files["applicants.causal"]),
            "--out",
            str(out),
            *extra,
        ],
    )
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def black_box(files: dict[str, Path]) -> Path:
    out = files["folder"] / "explainer.json"
    output = _fit(files, out, "--model", str(files["model.skops"]), *MODEL, "-k", "2")
    assert re.search(r"agree with it on \d+\.\d% of held-out rows", output)
    return out


@pytest.fixture(scope="module")
def rules(files: dict[str, Path]) -> Path:
    out = files["folder"] / "rules.json"
    output = _fit(files, out)
    assert re.search(r"FOLD-SE rules of the refusal, learned from the file: \d+\.\d% accurate", output)
    return out


def _saved(black_box: Path, files: dict[str, Path]) -> list[str]:
    return ["--explainer", str(black_box), "--model", str(files["model.skops"]), *MODEL]


# -- init and check ------------------------------------------------------------------------------
def test_init_drafts_and_check_passes_on_it(files: dict[str, Path]) -> None:
    text = files["applicants.causal"].read_text(encoding="utf-8")
    assert "sex:" in text and "immutable" in text.split("sex:")[1].splitlines()[0]
    assert "step 1000" in text and "increase-only" in text
    result = runner.invoke(app, ["check", str(files["applicants.causal"]), "--data", str(files["applicants.csv"]), "--target", "approved"])
    assert result.exit_code == 0, result.output
    assert "every name and value is in the data, and no row breaks it" in result.output and "1 constraint" in result.output


@pytest.mark.slow
def test_init_on_adult_proposes_the_protections_and_the_spouse_dependency_and_check_passes(shared_data: Path, tmp_path: Path, adult_paper) -> None:
    """The issue's 'done when': adult's training split written to a CSV, its income the decision."""
    data, knowledge = tmp_path / "adult-train.csv", tmp_path / "adult.causal"
    adult_paper.train.to_csv(data, index=False)
    result = runner.invoke(app, ["init", str(data), "--target", "income", "--favourable", ">50K", "--out", str(knowledge)])
    assert result.exit_code == 0, result.output
    text = knowledge.read_text(encoding="utf-8")
    lines = {line.split(":")[0]: line for line in text.splitlines() if not line.startswith("#") and ":" in line}
    for name, why in (("sex", "sex, by its name"), ("race", "race, by its name"), ("native_country", "national origin, by its name")):
        assert "immutable" in lines[name].split("#")[0] and why in lines[name]
    assert "increase-only" in lines["age"] and 'waits "years"' in lines["age"] and "max-change 10" in lines["age"] and "age, by its name" in lines["age"]
    spouse = "# forbid relationship in {Husband, Wife}, marital_status not in {Married-AF-spouse, Married-civ-spouse}  # all 11,834 rows"
    assert spouse in text
    assert "native_country" not in text.split("## Dependencies")[1]  # 'no White person born in Laos' is a correlation, not a fact
    checked = runner.invoke(app, ["check", str(knowledge), "--data", str(data), "--target", "income"])
    assert checked.exit_code == 0 and "no row breaks it" in checked.output


def test_init_keeps_an_existing_file_unless_told(files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "k.causal"
    out.write_text("# my edits\n", encoding="utf-8")
    refused = runner.invoke(app, ["init", str(files["applicants.csv"]), "--target", "approved", "--out", str(out)])
    assert refused.exit_code == 2 and "exists (it may hold your edits)" in refused.output
    assert out.read_text(encoding="utf-8") == "# my edits\n"
    replaced = runner.invoke(app, ["init", str(files["applicants.csv"]), "--target", "approved", "--out", str(out), "--overwrite", "--no-guess"])
    assert replaced.exit_code == 0, replaced.output
    assert "protections proposed for none" in replaced.output and "# guessed" not in out.read_text(encoding="utf-8")
    assert [p.name for p in tmp_path.iterdir()] == ["k.causal"]  # no temporary file left behind


def test_check_exits_2_on_names_and_1_on_broken_rows(files: dict[str, Path], tmp_path: Path) -> None:
    misspelt = tmp_path / "bad.causal"
    misspelt.write_text("incme: numeric\nforbid employment == unemploied\n", encoding="utf-8")
    result = runner.invoke(app, ["check", str(misspelt), "--data", str(files["applicants.csv"]), "--target", "approved"])
    assert result.exit_code == 2
    assert f"{misspelt}:1:1: unknown feature 'incme'; did you mean 'income'?" in result.output
    assert f"{misspelt}:2:22: 'unemploied' is not a value of employment" in result.output
    broken = tmp_path / "broken.causal"
    broken.write_text("forbid employment == employed, income < 20000\n", encoding="utf-8")
    result = runner.invoke(app, ["check", str(broken), "--data", str(files["applicants.csv"])])
    assert result.exit_code == 1 and re.search(rf"{re.escape(str(broken))}:1:1: \d+ rows? of the data breaks? forbid employment == employed", result.output)


# -- fit ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("frame", "expected"),
    [
        (pd.DataFrame({"a": [1, 2, 3], "approved": ["yes"] * 3}), "one value ('yes') in every row"),
        (pd.DataFrame({"a": ["1", "2", "x3", "4"], "approved": ["yes", "no"] * 2}), "line 4: column 'a' holds numbers and text: 'x3' here"),
        (pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}), "no column 'approved' for the decision"),
    ],
)
def test_fit_refuses_bad_data_and_writes_nothing(tmp_path: Path, frame: pd.DataFrame, expected: str) -> None:
    data, out = tmp_path / "d.csv", tmp_path / "e.json"
    frame.to_csv(data, index=False)
    result = runner.invoke(app, ["fit", str(data), "--target", "approved", "--favourable", "yes", "--out", str(out)])
    assert result.exit_code == 2 and expected in result.output and "Traceback" not in result.output
    assert not out.exists()


def test_fit_refuses_knowledge_with_a_syntax_error_and_keeps_the_old_explainer(files: dict[str, Path], tmp_path: Path) -> None:
    broken, out = tmp_path / "k.causal", tmp_path / "e.json"
    broken.write_text("age: increase-only\nforbid income >> 3\n", encoding="utf-8")
    out.write_text("the explainer saved before\n", encoding="utf-8")
    result = runner.invoke(
        app, ["fit", str(files["applicants.csv"]), "--target", "approved", "--favourable", "yes", "--causal", str(broken), "--out", str(out)]
    )
    assert result.exit_code == 2 and f"{broken}:2:" in result.output
    assert out.read_text(encoding="utf-8") == "the explainer saved before\n"


# -- --explainer ---------------------------------------------------------------------------------
@pytest.mark.slow
def test_answers_through_the_explainer_equal_those_fitted_in_python(files: dict[str, Path], black_box: Path, tmp_path: Path) -> None:
    """Every refused row of a test file, through a saved black box's explainer on the command
    line, gets the answer the same explainer fitted in Python gives."""
    out = tmp_path / "answers.jsonl"
    result = runner.invoke(app, ["explain", *_saved(black_box, files), "--input", str(files["new.csv"]), "--all-refused", "--out", str(out)])
    assert result.exit_code == 0, result.output
    header, *lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    data = header["settings"]["data"]
    assert data["explainer"] == "explainer.json" and len(data["explainer_sha256"]) == 64 and data["input"] == "new.csv"
    model = load_model(files["model.skops"], trusted_types=[TREE])
    python = fit_file(files["applicants.csv"], "approved", causal=files["applicants.causal"], model=model, favourable="yes", k=2).explainer
    people = read_data(files["new.csv"]).frame
    refused = np.flatnonzero(python.refuses(people))
    assert [line["position"] for line in lines] == refused.tolist() and len(refused) >= 5
    for line, position in zip(lines, refused):
        expected = python.explain(people.iloc[position]).to_dict(timing=False)
        assert {k: v for k, v in line.items() if k not in ("position", "index")} | {"run": None} == expected | {"run": None}
        assert {k: v for k, v in line["run"].items() if k not in TIMINGS} == expected["run"]


def test_one_person_by_row_or_as_json(files: dict[str, Path], rules: Path) -> None:
    by_row = runner.invoke(app, ["explain", "--explainer", str(rules), "--input", str(files["new.csv"]), "--row", "3", "--json"])
    assert by_row.exit_code == 0, by_row.output
    person = {k: (v.item() if hasattr(v, "item") else v) for k, v in read_data(files["new.csv"]).frame.iloc[3].items()}
    as_json = runner.invoke(app, ["explain", "--explainer", str(rules), "--person", json.dumps(person), "--json"])
    assert as_json.exit_code == 0, as_json.output
    assert json.loads(by_row.stdout)["counterfactuals"] == json.loads(as_json.stdout)["counterfactuals"]
    whatif = runner.invoke(app, ["whatif", "--explainer", str(rules), "--person", json.dumps(person), "--set", "savings=29900"])
    assert whatif.exit_code == 0 and "savings" in whatif.output
    program = runner.invoke(app, ["export", "--explainer", str(rules), "--input", str(files["new.csv"]), "--row", "3"])
    assert program.exit_code == 0 and "#show" in program.stdout


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (["--person", '{"age": 30, "incme": 1}'], "unknown feature(s) ['incme']; did you mean 'income'?"),
        (["--person", '{"age": 30}'], "--person lacks the feature(s)"),
        (["--row", "3"], "--row picks people from a file: give it with --input FILE"),
        (["--input", "{new}", "--row", "3", "--mode", "none"], "--mode: the saved explainer"),
        (["--input", "{new}", "--row", "3", "--hunt", "measured"], "--hunt: the saved explainer"),
        (["--input", "{new}", "--row", "999"], "row 999 is out of range"),
    ],
)
def test_people_and_options_a_saved_explainer_cannot_take_are_refused(files: dict[str, Path], rules: Path, arguments: list[str], expected: str) -> None:
    arguments = [a.replace("{new}", str(files["new.csv"])) for a in arguments]
    result = runner.invoke(app, ["explain", "--explainer", str(rules), *arguments])
    assert result.exit_code == 2 and expected in result.output and "Traceback" not in result.output


def test_an_input_file_of_other_columns_is_refused_before_anything_is_written(files: dict[str, Path], rules: Path, tmp_path: Path) -> None:
    other, out = tmp_path / "other.csv", tmp_path / "r.jsonl"
    read_data(files["new.csv"]).frame.rename(columns={"income": "salary"}).to_csv(other, index=False)
    result = runner.invoke(app, ["explain", "--explainer", str(rules), "--input", str(other), "--all-refused", "--out", str(out)])
    assert result.exit_code == 2 and "has no column(s) ['income'], which the explainer reads" in result.output
    assert not out.exists()


@pytest.mark.slow
def test_fit_sizes_the_search_by_the_model_when_told(files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--hunt measured: a model timed as costing by the row gets fewer rows a round, and the
    saved explainer keeps what was measured (the clock is the test's: 5 ms a call, 0.5 ms a row).
    --hunt NAME=VALUE,...: those settings, kept; a name or value they cannot take is refused."""
    from mc3g.models import BlackBox

    monkeypatch.setattr(BlackBox, "cost", lambda self, X: (0.005, 5e-4))
    _fit(files, tmp_path / "measured.json", "--model", str(files["model.skops"]), *MODEL, "--hunt", "measured")
    hunt = json.loads((tmp_path / "measured.json").read_text())["black_box"]["hunt"]
    assert hunt["widest_draw"] < 16000 and hunt["section_points"] < 1024 and "last_draw" not in hunt
    _fit(files, tmp_path / "set.json", "--model", str(files["model.skops"]), *MODEL, "--hunt", "section_points=4096, draw_ahead=false")
    assert json.loads((tmp_path / "set.json").read_text())["black_box"]["hunt"] == {"section_points": 4096, "draw_ahead": False}
    for given, said in [("fast", "'fast' is no NAME=VALUE"), ("section_point=4096", "hunt has no setting ['section_point']"), ("batch=0", "hunt: batch")]:
        refused = runner.invoke(app, ["fit", str(files["applicants.csv"]), "--target", "approved", "--hunt", given, "--out", str(tmp_path / "x.json")])
        assert refused.exit_code == 2 and said in refused.output and "Traceback" not in refused.output and not (tmp_path / "x.json").exists()


@pytest.mark.slow
def test_a_black_box_needs_its_model_and_the_model_it_was_saved_with(files: dict[str, Path], black_box: Path, tmp_path: Path) -> None:
    row = ["--input", str(files["new.csv"]), "--row", "0"]
    missing = runner.invoke(app, ["explain", "--explainer", str(black_box), *row])
    assert missing.exit_code == 2 and "--model" in missing.output
    edited = tmp_path / "edited.json"
    edited.write_text(black_box.read_text(encoding="utf-8").replace(str(files["model.skops"]), str(tmp_path / "model.skops")), encoding="utf-8")
    tampered = runner.invoke(app, ["explain", "--explainer", str(edited), "--model", str(files["model.skops"]), *row])
    assert tampered.exit_code == 2 and "edited since it was saved" in " ".join(tampered.output.split())  # not blamed on the row
    people = lender(200, 5)
    model = make_pipeline(
        make_column_transformer((OneHotEncoder(handle_unknown="ignore"), ["sex", "employment"]), remainder="passthrough"),
        GradientBoostingClassifier(n_estimators=5),
    )
    from skops.io import dump

    dump(model.fit(people.drop(columns="approved"), people.approved), tmp_path / "model.skops")  # another model where the saved one was
    changed = runner.invoke(app, ["explain", "--explainer", str(black_box), "--model", str(tmp_path / "model.skops"), *MODEL, *row])
    assert changed.exit_code == 2 and "SHA-256" in changed.output


@pytest.mark.slow
def test_trust_given_at_fit_travels_with_the_explainer_for_that_models_bytes_only(files: dict[str, Path], black_box: Path, tmp_path: Path) -> None:
    """Issue 50, item 5: the types trusted at mc3g fit are not asked again of the same model
    file; another file with the same type is refused, with the exact flags to add."""
    assert json.loads(black_box.read_text(encoding="utf-8"))["black_box"]["trusted_types"] == [TREE]
    row = ["--input", str(files["new.csv"]), "--row", "0"]
    again = runner.invoke(app, ["explain", "--explainer", str(black_box), "--model", str(files["model.skops"]), *row])
    assert again.exit_code == 0, again.output
    other = tmp_path / "other.skops"
    other.write_bytes(files["model.skops"].read_bytes() + b"\0")  # other bytes: nothing is trusted for them
    refused = runner.invoke(app, ["explain", "--explainer", str(black_box), "--model", str(other), *row])
    assert refused.exit_code == 2 and f"add --trust-type {TREE}" in " ".join(refused.output.split())


def test_an_explainer_of_another_version_is_refused(files: dict[str, Path], rules: Path, tmp_path: Path) -> None:
    document = json.loads(rules.read_text(encoding="utf-8"))
    document["version"] = 99
    future = tmp_path / "future.json"
    future.write_text(json.dumps(document), encoding="utf-8")
    result = runner.invoke(app, ["explain", "--explainer", str(future), "--input", str(files["new.csv"]), "--row", "0"])
    assert result.exit_code == 2 and "version 99" in result.output and str(future) in result.output


@pytest.mark.slow
def test_the_service_serves_a_saved_explainer_named_on_the_command_line(files: dict[str, Path], black_box: Path) -> None:
    import httpx
    from conftest import live_server

    from mc3g.cli.serve import _source
    from mc3g.serve import create_app, service_of

    service = service_of(_source(None, str(black_box), str(files["model.skops"]), [TREE]))
    applicant = {"age": 40, "sex": "female", "employment": "unemployed", "income": 0, "debt": 5000, "savings": 2000}
    with live_server(create_app(service)) as url:
        answer = httpx.post(f"{url}/v1/explain", json={"applicant": applicant, "k": 1}, timeout=60).json()
        page = httpx.get(url, timeout=60)
    assert answer["status"] == "refused" and answer["counterfactuals"] and page.status_code == 200
    assert answer["counterfactuals"][0]["values"]["employment"] != "unemployed" or answer["counterfactuals"][0]["values"]["income"] == 0
    refused = runner.invoke(app, ["serve", "--config", "x.toml", "--explainer", str(black_box)])
    assert refused.exit_code == 2 and "give one of the two" in refused.output


# -- the README's walk-through ------------------------------------------------------------------
README = Path(__file__).resolve().parents[1] / "README.md"


def _walk_through() -> tuple[str, list[list[str]]]:
    """The Python that builds the example and the command blocks of the README's 'Your own data'."""
    section = README.read_text(encoding="utf-8").split("\n## Your own data\n")[1].split("\n## ")[0]
    blocks = re.findall(r"^```(\w+)\n(.*?)^```", section, flags=re.M | re.S)
    python = [code for kind, code in blocks if kind == "python"]
    commands = [[line for line in code.splitlines() if line.strip()] for kind, code in blocks if kind == "bash"]
    assert len(python) == 1 and len(commands) == 2 and len(commands[0]) <= 6
    return python[0], commands


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _serve(command: list[str], folder: Path) -> None:
    """Start the README's mc3g serve on a free port of 127.0.0.1, ask for the page and an answer,
    and stop it."""
    import os
    import subprocess
    import sys
    import time

    import httpx

    port = _free_port()
    process = subprocess.Popen([sys.executable, "-m", "mc3g.cli", *command[1:], "--port", str(port)], cwd=folder, env=os.environ.copy())
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                page = httpx.get(f"http://127.0.0.1:{port}/", timeout=30)
                break
            except httpx.TransportError:
                assert process.poll() is None and time.monotonic() < deadline, "mc3g serve did not start"
                time.sleep(0.5)
        applicant = {"age": 26, "sex": "female", "employment": "unemployed", "income": 0, "debt": 18000, "savings": 8600}
        answer = httpx.post(f"http://127.0.0.1:{port}/v1/explain", json={"applicant": applicant}, timeout=60).json()
    finally:
        process.terminate()
        process.wait(30)
    assert page.status_code == 200 and "employment" in page.text
    assert answer["status"] == "refused" and answer["counterfactuals"][0]["values"]["employment"] != "unemployed"


@pytest.mark.slow
def test_the_readme_walk_through_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's 'Your own data': its Python builds the file and the model, and every command
    runs as written, from a file mc3g has never seen to the page."""
    import shlex
    import subprocess

    python, (steps, one_person) = _walk_through()
    monkeypatch.chdir(tmp_path)
    exec(compile(python, "README.md", "exec"), {})
    outputs = []
    for line in [*steps, *one_person]:
        for command in line.split(" && "):
            words = shlex.split(command)
            if words[:2] == ["mc3g", "serve"]:
                _serve(words, tmp_path)
            elif words[0] == "mc3g":
                result = runner.invoke(app, words[1:])
                assert result.exit_code == 0, f"{command}\n{result.output}"
                outputs.append(result.output)
            else:
                subprocess.run(words, cwd=tmp_path, check=True)
    assert "forbid employment == unemployed, income != 0" in (tmp_path / "applicants.causal").read_text(encoding="utf-8").splitlines()[-1]
    assert "Refusals by sex" in outputs[-3] and (tmp_path / "results" / "_audit" / "audit.md").is_file()
    assert "Change your employment from unemployed to employed" in outputs[-1]


def test_fit_warns_when_the_rules_imitate_the_model_poorly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 50, item 4: a black box its rules imitate on fewer than 80 % of held-out rows is
    named as such when it is fitted, with what that risks."""
    from mc3g.applicants import fit_file
    from mc3g.cli.applicants import _report

    def model(frame: pd.DataFrame) -> np.ndarray:  # a decision no short rule imitates
        return np.where((frame["income"] * 7919 + frame["debt"] * 104729) % 7 < 3, "yes", "no")

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"income": rng.integers(0, 100, 400), "debt": rng.integers(0, 100, 400)})
    frame["approved"] = model(frame)
    frame.to_csv(tmp_path / "applicants.csv", index=False)
    fitted = fit_file(tmp_path / "applicants.csv", "approved", model=model, favourable="yes", refine=0)
    assert fitted.score < 0.8 and fitted.explainer.engine_.glass is None
    _report(fitted, "applicants.csv", "--model model.skops", "explainer.json", 1.0)
    assert "note: the rules agree with the model on only" in " ".join(capsys.readouterr().err.split())


@pytest.mark.parametrize("command", ["init", "fit"])
def test_out_never_replaces_a_device_or_a_named_pipe(tmp_path: Path, command: str) -> None:
    """Issue 50, item 11: ``--out`` names a named pipe (as it would a device): refused, and the
    pipe is still there, not replaced by a regular file."""
    import os
    import stat

    frame = pd.DataFrame({"income": range(40), "approved": ["yes", "no"] * 20})
    frame.to_csv(tmp_path / "applicants.csv", index=False)
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    extra = ["--overwrite"] if command == "init" else ["--favourable", "yes"]
    result = runner.invoke(app, [command, str(tmp_path / "applicants.csv"), "--target", "approved", "--out", str(pipe), *extra])
    assert result.exit_code == 2 and "is a named pipe (FIFO), not a file" in result.output, result.output
    assert stat.S_ISFIFO(os.stat(pipe).st_mode)


def test_fit_says_what_advice_may_change_from_the_knowledge_in_force(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 50, item 7: a model read exactly reads sex, which the draft makes immutable: advice
    never changes it, so it is not named; the features the search may change are."""
    from sklearn.tree import DecisionTreeClassifier

    from mc3g.applicants import fit_file
    from mc3g.cli.applicants import _report

    people = pd.read_csv(files["applicants.csv"])
    encode = make_column_transformer((OneHotEncoder(handle_unknown="ignore"), ["sex", "employment"]), remainder="passthrough")
    model = make_pipeline(encode, DecisionTreeClassifier(max_depth=4, random_state=0)).fit(people.drop(columns="approved"), people.approved)
    fitted = fit_file(files["applicants.csv"], "approved", model=model, causal=files["applicants.causal"], favourable="yes", refine=0)
    assert "sex" in fitted.explainer.engine_.triable  # the model reads it: a person may try it
    _report(fitted, "applicants.csv", "--model model.skops", "explainer.json", 1.0)
    said = re.search(r"Advice may change: ([^.]*)\.", " ".join(capsys.readouterr().out.split()))
    assert said is not None
    named = said.group(1).split(", ")
    assert "sex" not in named and {"income", "debt", "savings"} <= set(named)


def test_check_refuses_a_missing_cell_as_fit_does_and_init_says_so(tmp_path: Path) -> None:
    """Issue 50, item 8: a blank cell passed check (exit 0) and failed fit (exit 2)."""
    frame = lender(120, 3)
    frame["income"] = frame["income"].astype(float)
    frame.loc[[4, 9], "income"] = np.nan
    frame.to_csv(tmp_path / "applicants.csv", index=False)
    data, knowledge = str(tmp_path / "applicants.csv"), str(tmp_path / "applicants.causal")
    drafted = runner.invoke(app, ["init", data, "--target", "approved", "--favourable", "yes", "--out", knowledge])
    assert drafted.exit_code == 0 and "2 row(s) have a missing cell (income)" in " ".join(drafted.output.split())
    checked = runner.invoke(app, ["check", knowledge, "--data", data, "--target", "approved"])
    fitted = runner.invoke(app, ["fit", data, "--target", "approved", "--favourable", "yes", "--causal", knowledge, "--out", str(tmp_path / "e.json")])
    assert checked.exit_code == fitted.exit_code == 2
    said = "line 6: income is missing (nan)"
    assert said in " ".join(checked.output.split()) and said in " ".join(fitted.output.split())
    assert not (tmp_path / "e.json").exists()


def test_json_nested_past_pythons_stack_is_refused_as_json_naming_the_input(files: dict[str, Path], rules: Path, tmp_path: Path) -> None:
    """Issue 50, item 11: '[' * 100,000 as --explainer, --rules or --person was a RecursionError."""
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000, encoding="utf-8")
    row = ["--input", str(files["new.csv"]), "--row", "0"]
    explainer = runner.invoke(app, ["explain", "--explainer", str(deep), *row])
    decision = runner.invoke(app, ["explain", "loan", "--row", "0", "--rules", str(deep)])
    person = runner.invoke(app, ["explain", "--explainer", str(rules), "--person", "[" * 100_000])
    for result, named in ((explainer, "deep.json: not a saved explainer"), (decision, "the rule set is not JSON"), (person, "--person is not JSON")):
        assert result.exit_code == 2 and result.exception.__class__ is SystemExit, result.output[-300:]
        assert named in " ".join(result.output.split()) and "nested too deeply" in result.output


def test_a_saved_explainer_with_a_parameter_no_explainer_takes_is_damaged(files: dict[str, Path], rules: Path, tmp_path: Path) -> None:
    """Issue 50, item 11: an unknown key in a saved explainer's params was a TypeError."""
    document = json.loads(rules.read_text(encoding="utf-8"))
    document["params"]["bogus"] = 1
    del document["content_sha256"]  # as a writer that keeps no digest would leave it
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(document), encoding="utf-8")
    result = runner.invoke(app, ["explain", "--explainer", str(edited), "--input", str(files["new.csv"]), "--row", "0"])
    assert result.exit_code == 2 and result.exception.__class__ is SystemExit
    assert "a damaged saved explainer (its params hold ['bogus']" in " ".join(result.output.split())


@pytest.mark.parametrize(
    ("cells", "said"),
    [
        ({"income": [float("inf")] * 3}, "line 2: column 'income' is inf, not a finite number"),
        ({"income": [1.0, 2.0, 1e16]}, "line 4: column 'income' is 1e+16, beyond"),
        ({"tags": [[1, 2], [3], []]}, "row 0: column 'tags' holds a list ([1, 2]): a cell holds one number or one category"),
    ],
)
def test_init_and_fit_name_a_cell_no_feature_can_hold(tmp_path: Path, cells: dict, said: str) -> None:
    """Issue 50, item 11: an inf, 1e16 or a Parquet list cell failed init and fit with no line
    or column (or a draft check then refused)."""
    frame = pd.DataFrame({"income": [1.0, 2.0, 3.0], "approved": ["yes", "no", "yes"]}).assign(**cells)
    data = tmp_path / ("people.parquet" if "tags" in cells else "people.csv")
    frame.to_parquet(data) if data.suffix == ".parquet" else frame.to_csv(data, index=False)
    for command in (["init", str(data), "--target", "approved"], ["fit", str(data), "--target", "approved", "--out", str(tmp_path / "e.json")]):
        result = runner.invoke(app, command)
        assert result.exit_code == 2 and result.exception.__class__ is SystemExit and said in " ".join(result.output.split()), result.output


def test_a_file_of_the_decision_alone_is_refused(tmp_path: Path) -> None:
    """Issue 50, item 11: a file holding only the target column was a ValueError in init and fit."""
    data = tmp_path / "decisions.csv"
    pd.DataFrame({"approved": ["yes", "no", "yes"]}).to_csv(data, index=False)
    for command in (["init", str(data), "--target", "approved"], ["fit", str(data), "--target", "approved", "--out", str(tmp_path / "e.json")]):
        result = runner.invoke(app, command)
        assert result.exit_code == 2 and result.exception.__class__ is SystemExit
        assert "has no column but the decision 'approved'" in " ".join(result.output.split()), result.output


def test_init_refuses_a_categorical_column_it_does_not_have_or_the_decision(files: dict[str, Path]) -> None:
    """Issue 50, item 11: --categorical ignored an unknown column, the target and a column of numbers without a word."""
    data = str(files["applicants.csv"])
    unknown = runner.invoke(app, ["init", data, "--target", "approved", "--categorical", "incme"])
    assert unknown.exit_code == 2 and "--categorical incme: " in unknown.output and "no such column" in unknown.output
    decision = runner.invoke(app, ["init", data, "--target", "approved", "--categorical", "approved"])
    assert decision.exit_code == 2 and "that is the decision, not a feature" in decision.output
    numbers = runner.invoke(app, ["init", data, "--target", "approved", "--categorical", "debt"])
    assert numbers.exit_code == 0 and "every value of debt is a number, so it is drafted numeric" in " ".join(numbers.output.split())


def test_a_file_of_zeros_or_of_too_many_columns_is_refused_before_it_is_read_whole(files: dict[str, Path], tmp_path: Path) -> None:
    """Issue 50, item 11: 2 GB of zeros as --explainer or init's data was read whole (4.4 GB
    resident), and 10^5 columns kept init busy until it was killed."""
    zeros = tmp_path / "zeros.json"
    zeros.write_bytes(bytes(1 << 20))
    explained = runner.invoke(app, ["explain", "--explainer", str(zeros), "--input", str(files["new.csv"]), "--row", "0"])
    assert explained.exit_code == 2 and "is not text (a NUL byte at byte 0): a saved explainer is UTF-8 text" in " ".join(explained.output.split())
    drafted = runner.invoke(app, ["init", str(zeros.rename(tmp_path / "zeros.csv")), "--target", "approved"])
    assert drafted.exit_code == 2 and "a data file is UTF-8 text" in " ".join(drafted.output.split())
    wide = tmp_path / "wide.csv"
    wide.write_text(",".join(f"c{i}" for i in range(10_001)) + ",approved\n" + ",".join("0" * 10_001) + ",yes\n", encoding="utf-8")
    refused = runner.invoke(app, ["init", str(wide), "--target", "approved"])
    assert refused.exit_code == 2 and "has 10,002 columns; mc3g reads at most 10,000" in " ".join(refused.output.split())
