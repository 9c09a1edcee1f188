"""Results files of ``mc3g explain --all-refused --out``: whatever stops a run (kill -9, a cut-off
line, a second writer, a rerun with other settings), every refused person is in the file exactly
once, with the settings they were explained under."""

from __future__ import annotations

import fcntl
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import children, kill_all
from typer.testing import CliRunner

import mc3g
from mc3g import MC3G
from mc3g.cli import app
from mc3g.datasets import load
from mc3g.exceptions import ResultsFileError
from mc3g.explain import usable_cores
from mc3g.records import batch_settings, open_results, settings_hash
from mc3g.reference import decision_rules, knowledge

runner = CliRunner()
ALL_REFUSED = ["explain", "loan", "--all-refused", "--out"]


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _positions(path: Path) -> list[int]:
    return [line["position"] for line in _lines(path)[1:]]


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> Path:
    """Every refused person of loan, explained in one uninterrupted run."""
    path = tmp_path_factory.mktemp("clean") / "loan.jsonl"
    result = runner.invoke(app, [*ALL_REFUSED, str(path)])
    assert result.exit_code == 0, result.output
    return path


@pytest.mark.slow
def test_a_clean_run_has_a_header_then_each_refused_person_once(clean) -> None:
    header, *answers = _lines(clean)
    assert header["format"] == "mc3g.results" and header["version"] == 1
    assert header["settings_hash"] == settings_hash(header["settings"])
    settings = header["settings"]
    assert settings["data"]["name"] == "loan" and settings["run"]["profile"] == "product" and settings["run"]["k"] == 1
    assert settings["mc3g"] == mc3g.__version__ and len(settings["rules_sha256"]) == len(settings["causal_sha256"]) == 64
    ds = load("loan", "default")
    positions = [a["position"] for a in answers]
    assert len(positions) == len(set(positions)) == 630
    assert all(a["index"] == ds.test.index[a["position"]] and a["status"] == "refused" for a in answers)
    first = answers[0]
    assert (first["position"], first["index"]) == (1, 4001)  # --row 1 is the row labelled 4001
    assert first["instance"]["bank_balance"] == ds.test.iloc[1]["bank_balance"]
    assert {k: first["run"][k] for k in settings["run"]} == settings["run"]


@pytest.mark.slow
def test_a_rerun_adds_nothing(clean, tmp_path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(clean.read_bytes())
    result = runner.invoke(app, [*ALL_REFUSED, str(path)])
    assert result.exit_code == 0, result.output
    assert "630 already done, now nothing new" in result.output
    assert path.read_bytes() == clean.read_bytes()


@pytest.mark.slow
def test_a_cut_off_last_line_is_removed_and_the_rest_explained(clean, tmp_path) -> None:
    path = tmp_path / "r.jsonl"
    kept = clean.read_text(encoding="utf-8").splitlines(keepends=True)[:200]
    path.write_text("".join(kept) + '{"position": 400, "index": 44', encoding="utf-8")
    result = runner.invoke(app, [*ALL_REFUSED, str(path)])
    assert result.exit_code == 0, result.output
    assert "199 already done" in result.output
    assert sorted(_positions(path)) == sorted(_positions(clean))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("options", "named"),
    [
        (["-k", "2"], "run.k: 1 in the file, 2 now"),
        (["--mode", "none"], 'run.mode: "derived" in the file, "none" now'),
        (["--profile", "paper"], 'run.profile: "product" in the file, "paper" now'),
        (["--near"], "run.distinct: true in the file, false now"),
        (["--plausible"], "params.plausible: false in the file, true now"),
    ],
)
def test_a_rerun_under_other_settings_is_refused_naming_them(clean, tmp_path, options, named) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(clean.read_bytes())
    result = runner.invoke(app, [*ALL_REFUSED, str(path), *options])
    assert result.exit_code == 2
    assert "holds answers made under other settings" in result.output and named in result.output
    assert "--overwrite" in result.output and path.read_bytes() == clean.read_bytes()


@pytest.mark.slow
def test_another_data_set_is_refused_and_overwrite_starts_afresh(clean, tmp_path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(clean.read_bytes())
    refused = runner.invoke(app, ["explain", "cars", "--all-refused", "--out", str(path)])
    assert refused.exit_code == 2 and 'data.name: "loan" in the file, "cars" now' in refused.output
    assert path.read_bytes() == clean.read_bytes()
    fresh = runner.invoke(app, ["explain", "cars", "--all-refused", "--out", str(path), "--overwrite"])
    assert fresh.exit_code == 0, fresh.output
    header, *answers = _lines(path)
    assert header["settings"]["data"]["name"] == "cars" and len(answers) == len({a["position"] for a in answers}) > 0


@pytest.mark.slow
def test_a_second_writer_is_kept_out(clean, tmp_path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(clean.read_bytes())
    with path.open("rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        result = runner.invoke(app, [*ALL_REFUSED, str(path)])
    assert result.exit_code == 2 and "another run is writing" in result.output
    assert path.read_bytes() == clean.read_bytes()


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"row": 4001, "status": "refused"}\n', "is not an mc3g results file"),
        ("hello\n", "line 1: not a JSON object, not a line of a results file (the first line of a results file is its header)"),
        ("hello", "is not an mc3g results file (its only line is not a results header)"),
    ],
)
def test_files_that_are_not_results_files_are_refused(tmp_path, text, problem) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(text, encoding="utf-8")
    result = runner.invoke(app, [*ALL_REFUSED, str(path)])
    assert result.exit_code == 2 and problem in result.output and path.read_text(encoding="utf-8") == text


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda lines: lines[:3] + ["not json\n"] + lines[3:], "line 4: not a JSON object"),
        (lambda lines: lines + [lines[2]], "position 3 is in the file twice"),  # the second answer is position 3
        (lambda lines: lines[:2] + [lines[2].replace('"index": 4003', '"index": 9')], "holds the row labelled 9, but that row is labelled 4003"),
        (lambda lines: lines[:2] + [lines[2].replace('"position": 3', '"position": 99999')], "position 99999 is not one of the 1,000 rows"),
    ],
)
def test_damaged_lines_are_refused_by_their_number(clean, tmp_path, edit, problem) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text("".join(edit(clean.read_text(encoding="utf-8").splitlines(keepends=True))), encoding="utf-8")
    result = runner.invoke(app, [*ALL_REFUSED, str(path)])
    assert result.exit_code == 2 and problem in " ".join(result.output.split())


def test_a_directory_a_device_and_a_full_device(tmp_path) -> None:
    directory = runner.invoke(app, [*ALL_REFUSED, str(tmp_path)])
    assert directory.exit_code == 2 and "is a directory" in directory.output
    missing = runner.invoke(app, [*ALL_REFUSED, str(tmp_path / "no" / "r.jsonl")])
    assert missing.exit_code == 2 and "No such file or directory" in missing.output
    if Path("/dev/full").exists():
        full = runner.invoke(app, [*ALL_REFUSED, "/dev/full"])
        assert full.exit_code == 2 and "cannot write to /dev/full: No space left on device" in full.output


def test_a_pipe_is_written_without_resume(tmp_path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = runner.invoke(app, ["explain", "loan", "--row", "1", "--out", str(fifo), "--json"])
    reader.join(timeout=60)
    assert result.exit_code == 0, result.output
    assert "not a regular file" in result.output
    header, answer = (json.loads(line) for line in received[0].decode().splitlines())
    assert header["format"] == "mc3g.results" and (answer["position"], answer["index"]) == (1, 4001)


@pytest.mark.slow
def test_one_row_joins_a_results_file_and_is_read_back(clean, tmp_path) -> None:
    path = tmp_path / "r.jsonl"
    first = runner.invoke(app, ["explain", "loan", "--row", "0", "--out", str(path), "--json"])
    assert first.exit_code == 0, first.output
    assert _positions(path) == [0] and _lines(path)[1]["status"] == "not_refused"
    again = runner.invoke(app, ["explain", "loan", "--row", "0", "--out", str(path), "--json"])
    assert again.exit_code == 0 and "already in" in again.output and _positions(path) == [0]
    assert json.loads(again.stdout)["status"] == json.loads(first.stdout)["status"]
    assert runner.invoke(app, [*ALL_REFUSED, str(path)]).exit_code == 0
    assert sorted(_positions(path)) == sorted([0, *_positions(clean)])


def test_a_header_cut_off_mid_write_is_written_again(tmp_path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"format": "mc3g.results", "vers', encoding="utf-8")
    result = runner.invoke(app, ["explain", "loan", "--row", "1", "--out", str(path)])
    assert result.exit_code == 0, result.output
    header, answer = _lines(path)
    assert header["format"] == "mc3g.results" and answer["position"] == 1
    alone = runner.invoke(app, ["explain", "loan", "--row", "1", "--overwrite"])
    assert alone.exit_code == 2 and "give it with --out" in alone.output


@pytest.mark.slow
def test_without_out_the_answers_go_to_stdout_after_the_header() -> None:
    result = runner.invoke(app, ["explain", "cars", "--all-refused"])
    assert result.exit_code == 0, result.output
    header, answer = (json.loads(line) for line in result.stdout.splitlines()[:2])
    assert header["format"] == "mc3g.results" and {"position", "index", "status"} <= set(answer)


@pytest.mark.parametrize("n_jobs", ["1000", "0", "-2"])
def test_n_jobs_is_bounded_by_the_machine(n_jobs) -> None:
    result = runner.invoke(app, ["explain", "loan", "--all-refused", "--n-jobs", n_jobs])
    assert result.exit_code == 2
    cores = usable_cores()
    said = f"--n-jobs must be a whole number from 1 to {cores} (mc3g may use {cores} core(s) here; -1 uses them all), not {n_jobs}"
    assert said in " ".join(result.output.split())


@pytest.fixture(scope="module")
def explainer():
    ds = load("loan", "default")
    return ds, MC3G(decision_rules(ds), knowledge(ds)).fit(ds.X_train)


def test_the_library_writes_to_a_stream_and_refuses_a_position_twice(explainer, tmp_path) -> None:
    ds, e = explainer
    settings = batch_settings(e, {"name": "loan"})
    answer = e.explain(ds.X_test.iloc[1])
    stream = io.StringIO()
    results = open_results(stream, settings, list(ds.test.index))
    results.write(1, answer)
    header, line = (json.loads(text) for text in stream.getvalue().splitlines())
    assert header["settings"] == settings and (line["position"], line["index"]) == (1, 4001) and not results.resumable
    with pytest.raises(ResultsFileError, match="already holds the answer for position 1"):
        results.write(1, answer)
    with pytest.raises(ResultsFileError, match="position -1 is not one of the 1,000 rows"):
        results.write(-1, answer)
    with open_results(tmp_path / "r.jsonl", settings, list(ds.test.index)) as file:
        file.write(1, answer)
    with open_results(tmp_path / "r.jsonl", settings, list(ds.test.index)) as file:
        assert file.done == {1: 4001} and file.stored(1).to_dict(timing=False) == answer.to_dict(timing=False)


def test_settings_record_the_model_file_and_every_parameter(explainer, tmp_path) -> None:
    ds, e = explainer
    model = tmp_path / "model.bin"
    model.write_bytes(b"a model")
    settings = batch_settings(e, {"name": "loan"}, model)
    assert settings["model_sha256"] == hashlib.sha256(b"a model").hexdigest() and batch_settings(e, {"name": "loan"})["model_sha256"] is None
    assert {"plausible", "data_k", "max_states", "desired_class", "random_state"} <= set(settings["params"])
    assert "n_jobs" not in settings["params"] and "model" not in settings["params"]


@pytest.mark.slow
def test_a_run_killed_with_sigkill_resumes_to_every_person_once(clean, tmp_path) -> None:
    path = tmp_path / "r.jsonl"
    env = {**os.environ, "PYTHONPATH": str(Path(mc3g.__file__).parents[1])}
    run = subprocess.Popen([sys.executable, "-m", "mc3g.cli", *ALL_REFUSED, str(path)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while run.poll() is None and time.monotonic() < deadline and (not path.exists() or path.read_bytes().count(b"\n") < 20):
        time.sleep(0.005)
    run.send_signal(signal.SIGKILL)
    assert run.wait() == -signal.SIGKILL
    assert path.read_bytes().count(b"\n") < 631  # killed before the end
    result = runner.invoke(app, [*ALL_REFUSED, str(path)])
    assert result.exit_code == 0, result.output
    positions = _positions(path)
    assert len(positions) == len(set(positions)) and sorted(positions) == sorted(_positions(clean))
    assert _lines(path)[0] == _lines(clean)[0]


def test_a_process_watches_only_the_parent_that_started_it() -> None:
    """The watch that ends a worker with its parent leaves alone a process called by another."""
    from mc3g.explain.batch import _WATCHED, end_with_parent

    end_with_parent(os.getpid())  # this process is no child of itself: it must not end
    end_with_parent(os.getppid() + 1 if os.getppid() + 1 != os.getpid() else os.getppid() + 2)
    assert os.getpid() not in _WATCHED and not [t for t in threading.enumerate() if t.name == "mc3g-end-with-parent"]


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_worker_processes_end_with_a_killed_run(tmp_path) -> None:
    """kill -9 of ``mc3g explain --all-refused --n-jobs 2``: its worker processes end within
    seconds, instead of computing answers nobody will read."""
    path = tmp_path / "r.jsonl"
    env = {**os.environ, "PYTHONPATH": str(Path(mc3g.__file__).parents[1])}
    command = [sys.executable, "-m", "mc3g.cli", "explain", "adult", "--all-refused", "--n-jobs", "2", "--out", str(path)]
    run = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 180
        while run.poll() is None and time.monotonic() < deadline and (not path.exists() or path.read_bytes().count(b"\n") < 40):
            time.sleep(0.05)
        workers = children(run.pid, b"popen_loky_posix")
        assert run.poll() is None and len(workers) == 2, "the run should be explaining in two workers"
        run.send_signal(signal.SIGKILL)
        run.wait()
        deadline = time.monotonic() + 30
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in workers if _alive(pid)]
    finally:
        run.kill()
        run.wait()
        kill_all(workers)
