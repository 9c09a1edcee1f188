"""mc3g batch on a Dask LocalCluster of two worker processes (127.0.0.1 only): every person once,
the same answers as explaining in one process, resume by partition, a rerun under other settings
refused, a failing model call kept in its row, the explainer shipped once per worker, and a
worker killed mid-run costing nobody.  The runs of whole data sets and the kill of a whole run
are marked slow."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

pytest.importorskip("distributed")

from mc3g import MC3G  # noqa: E402
from mc3g.batch import MANIFEST, RESULT_COLUMNS, Batch, dask_client, input_files, plan_input  # noqa: E402
from mc3g.cli import app  # noqa: E402
from mc3g.datasets import load  # noqa: E402
from mc3g.exceptions import InputError, ResultsFileError  # noqa: E402
from mc3g.records import batch_settings, settings_hash  # noqa: E402
from mc3g.reference import decision_rules, knowledge  # noqa: E402

runner = CliRunner()
UNPICKLED = "MC3G_TEST_UNPICKLED"  # a file each unpickled CountingModel adds a line to


@pytest.fixture(scope="module")
def client():
    with dask_client(workers=2) as c:
        yield c


@pytest.fixture(scope="module")
def loan():
    return load("loan")


@pytest.fixture(scope="module")
def explainer(loan):
    return MC3G(decision_rules(loan, "product"), knowledge(loan), schema=loan.schema).fit(loan.X_train)


@pytest.fixture(scope="module")
def people(loan) -> pd.DataFrame:
    """The first 300 of loan's test rows."""
    return loan.test.iloc[:300]


@pytest.fixture(scope="module")
def two_csvs(tmp_path_factory, people) -> Path:
    """``people`` in two CSV files of 180 and 120 rows, in a folder."""
    folder = tmp_path_factory.mktemp("csvs")
    people.iloc[:180].to_csv(folder / "a.csv", index=False)
    people.iloc[180:].to_csv(folder / "b.csv", index=False)
    return folder


@pytest.fixture(scope="module")
def answers(explainer, people) -> list:
    """``people`` explained in this process, one after another."""
    return _expected(explainer, people)


def _people(folder: Path) -> pd.DataFrame:
    return pd.read_parquet(folder).sort_values("position").reset_index(drop=True)


def _expected(explainer: MC3G, rows: pd.DataFrame) -> list:
    return [answer for _, answer in explainer.explain_each(rows[list(explainer.feature_names_in_)])]


def _same_answers(people: pd.DataFrame, answers: list) -> None:
    assert len(people) == len(answers)
    for (_, person), answer in zip(people.iterrows(), answers):
        assert person["status"] == answer.status
        assert json.loads(person["options"]) == [cf.to_dict() for cf in answer.counterfactuals]
        said = person["fewer"] if isinstance(person["fewer"], str) else None  # a column of no text reads back as NaN
        assert said == (answer.fewer if answer.counterfactuals and answer.fewer else None)  # why fewer than K, on this route too


@pytest.mark.slow
def test_every_person_once_with_the_answers_of_one_process(client, explainer, people, answers, two_csvs, tmp_path) -> None:
    with Batch(explainer, two_csvs, tmp_path, client, data={"name": "loan"}, partition_rows=64) as run:
        seen = []
        summary = run.run(seen.append)
    assert summary.partitions == 5 and summary.people == 300 and sum(seen) == 300 and summary.failed == []
    assert all(address.startswith("tcp://127.0.0.1:") for address in [client.scheduler.address, *client.scheduler_info()["workers"]])
    found = _people(tmp_path)
    assert list(found["position"]) == list(range(300))
    assert list(found["source"]) == ["a.csv"] * 180 + ["b.csv"] * 120
    assert list(found["index"]) == [*range(180), *range(120)]  # a CSV's rows are labelled by number, as pandas reads the file
    assert list(found.columns) == [*RESULT_COLUMNS, *people.columns]
    pd.testing.assert_frame_equal(found[list(people.columns)], people.reset_index(drop=True), check_dtype=False)
    _same_answers(found, answers)
    assert list(found["refused"]) == list(explainer.refuses(people[list(explainer.feature_names_in_)]))
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    assert set(found["settings_hash"]) == {manifest["settings_hash"]} == {settings_hash(manifest["settings"])}
    assert manifest["settings"]["data"]["input"]["files"][1]["name"] == "b.csv" and manifest["plan"] == {"partitions": 5, "people": 300}


@pytest.mark.slow
def test_the_local_cluster_s_workers_keep_glibc_s_own_memory_thresholds(client) -> None:
    """Dask's nannies set ``MALLOC_TRIM_THRESHOLD_`` in their workers, which fixes glibc's mmap
    threshold: a search's draws and pooled inputs then paid about a tenth of their time mapping
    each array afresh (issue 51).  The cluster mc3g starts leaves both to glibc."""
    import os

    assert set(client.run(lambda: os.environ.get("MALLOC_TRIM_THRESHOLD_")).values()) == {None}


@pytest.mark.slow
def test_the_local_cluster_s_workers_sample_no_stacks_for_the_dashboard(client) -> None:
    """A worker's profiler walks a search's deep stack every 10 ms for a dashboard no batch
    shows: the cluster mc3g starts turns it off in every worker."""
    import dask

    assert set(client.run(lambda: dask.config.get("distributed.worker.profile.enabled")).values()) == {False}


@pytest.mark.slow
def test_a_rerun_keeps_whole_partitions_and_redoes_the_rest(client, explainer, two_csvs, tmp_path) -> None:
    def run(**options):
        with Batch(explainer, two_csvs, tmp_path, client, partition_rows=64, **options) as batch:
            return batch.run()

    run()
    clean = _people(tmp_path)
    again = run()
    assert again.skipped_partitions == 5 and again.statuses == {}
    damaged = tmp_path / "part-00001.parquet"
    damaged.write_bytes(damaged.read_bytes()[:200])  # cut off mid-write
    (tmp_path / "part-00002.parquet").unlink()
    (tmp_path / ".part-00003.parquet.0123.tmp").write_bytes(b"half")  # a write a killed worker left
    redone = run()
    assert redone.skipped_partitions == 3 and sum(redone.statuses.values()) == 64 + 52  # partition 2 ends a.csv
    assert not list(tmp_path.glob(".part-*")) and len(list(tmp_path.glob("part-*.parquet"))) == 5
    pd.testing.assert_frame_equal(_people(tmp_path), clean)


@pytest.mark.slow
def test_a_rerun_under_other_settings_is_refused(client, explainer, loan, two_csvs, tmp_path) -> None:
    Batch(explainer, two_csvs, tmp_path, client, partition_rows=200).__exit__()  # the folder's manifest, before any partition
    (tmp_path / "part-00000.parquet").write_bytes(b"a partition")
    other = MC3G(decision_rules(loan, "product"), knowledge(loan), schema=loan.schema, mode="none").fit(loan.X_train)
    with pytest.raises(ResultsFileError, match='run.mode: "derived" in the file, "none" now'):
        Batch(other, two_csvs, tmp_path, client, partition_rows=200)
    with pytest.raises(ResultsFileError, match="data.input.partition_rows: 200 in the file, 100 now"):
        Batch(explainer, two_csvs, tmp_path, client, partition_rows=100)
    (two_csvs / "c.csv").write_text((two_csvs / "b.csv").read_text())
    try:
        with pytest.raises(ResultsFileError, match=r"data.input.files: \[.*\] in the file, \[.*c.csv.*\] now"):
            Batch(explainer, two_csvs, tmp_path, client, partition_rows=200)
    finally:
        (two_csvs / "c.csv").unlink()
    assert (tmp_path / "part-00000.parquet").read_bytes() == b"a partition"
    with Batch(other, two_csvs, tmp_path, client, partition_rows=200, overwrite=True):
        assert json.loads((tmp_path / MANIFEST).read_text())["settings"]["run"]["mode"] == "none"
        assert not (tmp_path / "part-00000.parquet").exists()


@pytest.mark.slow
def test_a_second_run_on_the_same_folder_is_refused(client, explainer, two_csvs, tmp_path) -> None:
    with Batch(explainer, two_csvs, tmp_path, client):
        with pytest.raises(ResultsFileError, match="another run is writing"):
            Batch(explainer, two_csvs, tmp_path, client)


@pytest.mark.slow
def test_a_folder_that_is_not_a_batch_is_left_alone(client, explainer, two_csvs, tmp_path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    for overwrite in (False, True):
        with pytest.raises(ResultsFileError, match="not the results folder of a batch"):
            Batch(explainer, two_csvs, tmp_path, client, overwrite=overwrite)
    assert (tmp_path / "notes.txt").read_text() == "mine"


@pytest.mark.slow
def test_parquet_files_keep_their_index_labels(client, explainer, people, answers, tmp_path) -> None:
    source = tmp_path / "in"
    source.mkdir()
    people.iloc[:200].to_parquet(source / "1.parquet", row_group_size=70)  # a RangeIndex from 4000, written as metadata
    people.iloc[200:].set_axis([f"id{i}" for i in range(100)]).to_parquet(source / "2.parquet")  # labels stored as a column
    (source / "_skip.parquet").write_bytes(b"not read")
    with Batch(explainer, str(source / "*.parquet"), tmp_path / "out", client, partition_rows=64) as batch:
        assert [(p.block, p.rows) for p in batch.input.partitions] == [(0, 64), (0, 6), (1, 64), (1, 6), (2, 60), (3, 64), (3, 36)]
        batch.run()
    found = _people(tmp_path / "out")
    assert list(found["index"]) == [str(i) for i in range(4000, 4200)] + [f"id{i}" for i in range(100)]
    _same_answers(found, answers)


def test_inputs_are_files_folders_or_globs_of_one_kind(tmp_path, explainer, loan) -> None:
    for name in ("b.csv", "a.csv", ".hidden.csv", "notes.txt"):
        (tmp_path / name).write_text("x\n1\n")
    assert input_files(tmp_path) == ([tmp_path / "a.csv", tmp_path / "b.csv"], "csv")
    assert input_files(str(tmp_path / "b*")) == ([tmp_path / "b.csv"], "csv")
    (tmp_path / "c.parquet").write_bytes(b"")
    with pytest.raises(InputError, match="mixes CSV and Parquet"):
        input_files(tmp_path)
    with pytest.raises(InputError, match="no such file or folder"):
        input_files(tmp_path / "missing.csv")
    with pytest.raises(InputError, match="holds no CSV or Parquet"):
        input_files(str(tmp_path / "*.json"))
    loan.test.drop(columns=["debt"]).to_parquet(tmp_path / "lacking.parquet")
    with pytest.raises(InputError, match=r"lacks the column\(s\) \['debt'\]"):
        plan_input(tmp_path / "lacking.parquet", 10, list(explainer.feature_names_in_), None)
    loan.test.assign(status=1).to_parquet(tmp_path / "clash.parquet")
    with pytest.raises(InputError, match=r"column\(s\) \['status'\] named like the results"):
        plan_input(tmp_path / "clash.parquet", 10, list(explainer.feature_names_in_), None)


def bank_rule(frame: pd.DataFrame) -> list[str]:
    """loan's refusal as a black box that cannot judge anyone aged 77 (older than anyone in its training rows) (a failing model call)."""
    if (frame["age"] == 77).any():
        raise ValueError("cannot judge age 77")
    return ["rejected" if b < 60_000 or c < 620 else "approved" for b, c in zip(frame["bank_balance"], frame["credit_score"])]


class CountingModel:
    """``bank_rule`` as an object that adds a line (its process id) to the file named by
    $MC3G_TEST_UNPICKLED each time it is unpickled."""

    def __init__(self) -> None:
        self.name = "bank"  # a state to restore: pickle calls __setstate__ only then

    def predict(self, frame: pd.DataFrame) -> list[str]:
        return bank_rule(frame)

    def __setstate__(self, state: dict) -> None:
        with open(os.environ[UNPICKLED], "a") as f:
            f.write(f"{os.getpid()}\n")


@pytest.mark.slow
def test_a_failing_model_call_stays_in_its_row_and_the_explainer_travels_once(client, loan, people, tmp_path, monkeypatch) -> None:
    unpickled = tmp_path / "unpickled"
    monkeypatch.setenv(UNPICKLED, str(unpickled))
    client.run(os.environ.__setitem__, UNPICKLED, str(unpickled))
    explainer = MC3G(CountingModel(), knowledge(loan), schema=loan.schema).fit(loan.train.drop(columns=["loan"]))
    rows = people.copy()
    rows.iloc[[3, 250], rows.columns.get_loc("age")] = 77
    rows.to_csv(tmp_path / "in.csv", index=False)
    with Batch(explainer, tmp_path / "in.csv", tmp_path / "out", client, partition_rows=30) as batch:
        summary = batch.run()
    found = _people(tmp_path / "out")
    errors = found[found["status"] == "error"]
    assert list(errors["position"]) == [3, 250] and errors["refused"].isna().all() and errors["options"].eq("[]").all()
    assert errors["error"].str.contains("cannot judge age 77").all() and found["error"].isna().sum() == 298
    assert summary.statuses["error"] == 2 and summary.partitions == 10
    _same_answers(found.drop(index=[3, 250]), _expected(explainer, people.drop(index=people.index[[3, 250]])))
    workers = set(client.run(os.getpid).values())
    by_workers = [int(pid) for pid in unpickled.read_text().split() if int(pid) in workers]
    assert len(by_workers) == len(set(by_workers)) <= 2  # once per worker, not once per partition


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_and_repeats_nobody(client, loan, tmp_path) -> None:
    ds = load("adult", split="paper")
    explainer = MC3G(decision_rules(ds, "product"), knowledge(ds), schema=ds.schema).fit(ds.X_train)
    rows = ds.test.iloc[:2000]
    rows.to_parquet(tmp_path / "adult.parquet", row_group_size=1000)
    victim = min(client.run(os.getpid).values())
    killed = []

    def advance(n: int) -> None:
        if not killed:  # the first partition is written: both workers are busy with the next ones
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    with Batch(explainer, tmp_path / "adult.parquet", tmp_path / "out", client, partition_rows=128) as batch:
        summary = batch.run(advance)
    assert killed and victim not in client.run(os.getpid).values() and summary.failed == []
    assert not list((tmp_path / "out").glob(".part-*"))  # a write the kill cut short is gone
    people = _people(tmp_path / "out")
    assert list(people["position"]) == list(range(2000))
    _same_answers(people, _expected(explainer, rows))


@pytest.mark.slow
def test_killing_the_whole_run_loses_and_repeats_nobody(tmp_path) -> None:
    ds = load("adult", split="paper")
    ds.test.iloc[:3000].to_csv(tmp_path / "adult.csv", index=False)
    command = [sys.executable, "-m", "mc3g.cli", "batch", str(tmp_path / "adult.csv"), "--dataset", "adult", "--workers", "2"]
    run = subprocess.Popen([*command, "--out", str(tmp_path / "out")], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while len(list((tmp_path / "out").glob("part-*.parquet"))) < 3 and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.02)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()
    written = len(list((tmp_path / "out").glob("part-*.parquet")))
    assert 3 <= written < 12, "the run was killed while partitions were left"
    _wait_until_gone(run.pid)
    kept = len(pd.read_parquet(tmp_path / "out"))
    resumed = subprocess.run([*command, "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=900)
    assert resumed.returncode == 0 and f"{kept:,} already done" in resumed.stderr, resumed.stderr
    clean = subprocess.run([*command, "--out", str(tmp_path / "clean")], capture_output=True, text=True, timeout=900)
    assert clean.returncode == 0, clean.stderr
    pd.testing.assert_frame_equal(_people(tmp_path / "out"), _people(tmp_path / "clean"))
    assert list(_people(tmp_path / "out")["position"]) == list(range(3000))


def _wait_until_gone(group: int) -> None:
    """Wait for every process of the killed run's group (its cluster's too) to be gone."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    raise AssertionError("processes of the killed run are still alive")


@pytest.mark.slow
def test_the_cli_runs_on_an_existing_scheduler(client, explainer, people, two_csvs, tmp_path) -> None:
    address = client.scheduler.address
    result = runner.invoke(app, ["batch", str(two_csvs), "--dataset", "loan", "--out", str(tmp_path), "--scheduler", address, "--partition-rows", "100"])
    assert result.exit_code == 0, result.output
    refused = int(explainer.refuses(people[list(explainer.feature_names_in_)]).sum())
    assert f"300 people in 4 partitions: 0 already done, now {300 - refused} not_refused, {refused} refused" in result.output
    assert "people/s" in result.output
    again = runner.invoke(app, ["batch", str(two_csvs), "--dataset", "loan", "--out", str(tmp_path), "--scheduler", address, "-k", "2"])
    assert again.exit_code == 2 and "run.k: 1 in the file, 2 now" in again.output


def test_the_cli_bounds_its_workers(two_csvs, tmp_path) -> None:
    both = runner.invoke(app, ["batch", str(two_csvs), "--dataset", "loan", "--out", str(tmp_path), "--scheduler", "tcp://127.0.0.1:1", "--workers", "2"])
    assert both.exit_code == 2 and "has its own workers" in both.output
    many = runner.invoke(app, ["batch", str(two_csvs), "--dataset", "loan", "--out", str(tmp_path), "--workers", "1000"])
    assert many.exit_code == 2 and "--workers" in many.output
    assert not tmp_path.joinpath(MANIFEST).exists()


@pytest.mark.slow
def test_every_refused_adult_row_is_answered_as_mc3g_explain_answers_it(tmp_path) -> None:
    """The issue's test: a gradient-boosted black box, every refused adult test row once, the
    same answers from mc3g batch on two workers as from mc3g explain --all-refused."""
    skops = pytest.importorskip("skops.io")
    from mc3g.bench.table1 import black_box

    ds = load("adult", split="paper")
    skops.dump(black_box(ds, "gbm"), tmp_path / "gbm.skops")
    ds.test.to_parquet(tmp_path / "adult.parquet")
    model = ["--model", str(tmp_path / "gbm.skops"), "--trust-type", "sklearn.tree._tree.Tree"]
    batch = runner.invoke(app, ["batch", str(tmp_path / "adult.parquet"), "--dataset", "adult", *model, "--out", str(tmp_path / "out"), "--workers", "2"])
    assert batch.exit_code == 0, batch.output
    explained = runner.invoke(app, ["explain", "adult", *model, "--all-refused", "--out", str(tmp_path / "explain.jsonl"), "--n-jobs", "2"])
    assert explained.exit_code == 0, explained.output
    answers = {line["position"]: line for line in map(json.loads, (tmp_path / "explain.jsonl").read_text().splitlines()[1:])}
    people = _people(tmp_path / "out")
    refused = people[people["refused"]]
    assert sorted(answers) == list(refused["position"]) and len(answers) == 5352
    for _, person in refused.iterrows():
        answer = answers[person["position"]]
        assert (person["status"], person["index"]) == (answer["status"], answer["index"])
        assert json.loads(person["options"]) == answer["counterfactuals"]
    batch_settings_ = json.loads((tmp_path / "out" / MANIFEST).read_text())["settings"]
    header = json.loads((tmp_path / "explain.jsonl").read_text().splitlines()[0])["settings"]
    assert batch_settings_["run"] == header["run"] and batch_settings_["model_sha256"] == header["model_sha256"]


@pytest.mark.slow
def test_batch_settings_name_the_input(client, explainer, two_csvs, tmp_path) -> None:
    with Batch(explainer, two_csvs, tmp_path, client, data={"name": "loan"}) as batch:
        expected = batch_settings(explainer, {"name": "loan", "input": batch.input.settings()})
        assert batch.folder.hash == settings_hash(expected)
        assert [f["name"] for f in expected["data"]["input"]["files"]] == ["a.csv", "b.csv"]


@pytest.mark.slow
def test_a_csv_whose_whole_numbers_turn_decimal_in_a_later_block_is_read_as_pandas_reads_it(client, explainer, people, tmp_path, monkeypatch) -> None:
    """Issue 50, item 11: Dask typed a column by its first block, and a decimal further on made
    the whole CSV refused, with Dask's advice and a worker's traceback."""
    import mc3g.batch.inputs as inputs

    monkeypatch.setattr(inputs, "CSV_BLOCK_BYTES", 2_000)  # blocks of a few dozen rows
    rows = people.copy()
    rows["bank_balance"] = rows["bank_balance"].round().astype(int).astype(object)  # written as whole numbers,
    rows.loc[rows.index[-1], "bank_balance"] = 40000.5  # but for the last
    rows.to_csv(tmp_path / "people.csv", index=False)
    with Batch(explainer, tmp_path / "people.csv", tmp_path / "out", client, partition_rows=128) as run:
        summary = run.run()
    assert summary.people == 300 and summary.failed == []
    found = _people(tmp_path / "out")
    assert found["bank_balance"].iloc[-1] == 40000.5
    _same_answers(found, _expected(explainer, pd.read_csv(tmp_path / "people.csv")))
