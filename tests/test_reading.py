"""Every file mc3g reads is a regular file within its kind's bound: a directory, a device, a pipe
or a file too large is refused before a byte is read, with the file's name, by every reader."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mc3g import MC3G, CausalModel, reading
from mc3g.batch import input_files, partition_files, read_manifest
from mc3g.cli import app
from mc3g.datasets import load
from mc3g.exceptions import FileRefusedError, MissingFileError, ResultsFileError
from mc3g.models import load_model
from mc3g.records import open_results
from mc3g.reference import fitted_explainer
from mc3g.serve import load_config


def _folder(name: str) -> Callable[[Path], Any]:
    """A reader of a results folder whose file ``name`` is the bad file."""

    def read(bad: Path) -> Any:
        folder = bad.parent
        (folder / "_batch.json").exists() or (folder / "_batch.json").write_text("{}")
        return partition_files(folder) if name.startswith("part-") else read_manifest(folder)

    return read


# (the kind of file, the name the bad file takes, how mc3g is asked to read it)
READERS: list[tuple[str, str, Callable[[Path], Any]]] = [
    ("causal knowledge file", "k.causal", CausalModel.load),
    ("rules file", "rules.json", lambda p: fitted_explainer("loan", rules_file=p)),
    ("configuration file", "service.toml", load_config),
    ("saved explainer", "saved.json", MC3G.load),
    ("model file", "model.skops", load_model),
    ("data file", "car/car.data", lambda p: load("cars", "uci", data_dir=p.parent.parent)),
    ("batch input", "people.csv", input_files),
    ("batch manifest", "_batch.json", _folder("_batch.json")),
    ("results partition", "part-00000.parquet", _folder("part-00000.parquet")),
]
IDS = [kind for kind, _, _ in READERS]


def _bad(tmp_path: Path, name: str, what: str) -> Path:
    """At ``tmp_path/name``: a directory, a named pipe, or a link to /dev/zero."""
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if what == "directory":
        path.mkdir()
    elif what == "pipe":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    return path


NOT_FILES = [(*reader, what) for reader in READERS for what in ("directory", "pipe", "device") if (reader[0], what) != ("batch input", "directory")]


@pytest.mark.parametrize(("kind", "name", "read", "what"), NOT_FILES, ids=[f"{r[0]}-{r[3]}" for r in NOT_FILES])  # a folder of batch inputs is one
def test_every_reader_refuses_what_is_not_a_file(tmp_path: Path, kind: str, name: str, read: Callable[[Path], Any], what: str) -> None:
    bad = _bad(tmp_path, name, what)
    with pytest.raises(FileRefusedError) as refused:
        read(bad)
    said = {"directory": "a directory", "pipe": "a named pipe (FIFO)", "device": "a character device"}[what]
    assert str(refused.value) == f"{bad}: is {said}, not a file (a {kind} must be a regular file)"


@pytest.mark.parametrize(("kind", "name", "read"), READERS, ids=IDS)
def test_every_reader_bounds_the_size_of_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, name: str, read: Callable[[Path], Any]) -> None:
    monkeypatch.setitem(reading.BOUNDS, kind, 100)
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * 101)
    with pytest.raises(FileRefusedError, match=f"^{path}: is 101 bytes, more than the 100 bytes mc3g reads of a {kind}$"):
        read(path)


def test_a_results_file_is_bounded_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(reading.BOUNDS, "results file", 100)
    path = tmp_path / "out.jsonl"
    path.write_bytes(b"x" * 101)
    with pytest.raises(ResultsFileError, match="is 101 bytes, more than the 100 bytes mc3g reads of a results file"):
        open_results(path, {}, [])
    assert path.read_bytes() == b"x" * 101  # nothing written


def test_a_missing_file_is_named_and_is_a_file_not_found_error(tmp_path: Path) -> None:
    with pytest.raises(MissingFileError, match=f"^{tmp_path / 'k.causal'}: no such causal knowledge file$") as missing:
        CausalModel.load(tmp_path / "k.causal")
    assert isinstance(missing.value, FileNotFoundError)


def test_a_file_that_grows_past_its_bound_while_read_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "k.causal"
    path.write_bytes(b"x" * 50)
    monkeypatch.setattr(reading, "regular_file", lambda p, kind: Path(p))  # as if it had been small when looked at
    monkeypatch.setitem(reading.BOUNDS, "causal knowledge file", 10)
    with pytest.raises(FileRefusedError, match="grew past the 10 bytes mc3g reads of a causal knowledge file"):
        reading.read_bytes(path, "causal knowledge file")


def test_text_that_is_not_utf8_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "service.toml"
    path.write_bytes(b"[explainer]\ndataset = 'caf\xe9'\n")
    with pytest.raises(FileRefusedError, match=f"^{path}: line 2: not UTF-8 text \\(byte 0xe9\\)"):
        load_config(path)


@pytest.mark.parametrize("option", ["--causal", "--rules", "--model"])
def test_the_cli_refuses_a_device_or_a_directory_and_exits_2(tmp_path: Path, option: str) -> None:
    for bad, said in (("/dev/zero", "a character device"), (str(tmp_path), "a directory")):
        result = CliRunner().invoke(app, ["explain", "loan", "--row", "0", option, bad])
        assert result.exit_code == 2, result.output
        assert f"{bad}: is {said}, not a file" in " ".join(result.output.split())
        assert "Traceback" not in result.output
