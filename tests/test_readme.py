"""The README and the docs say only what exists: every ``mc3g`` command they name runs, every link
between them reaches a file and a heading, and docs/testing.md's list of slow tests names every
file that holds one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer

from mc3g.cli import app

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COMMAND = re.compile(r"^mc3g((?: [a-z][a-z0-9-]*)+)")  # at the start of a code span or of a line of a code block
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _commands(text: str) -> set[tuple[str, ...]]:
    """``mc3g WORD [WORD ...]`` as written in code (a span or a block, not prose): the words
    that may name a command."""
    blocks = re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S)
    code = [line.strip() for block in blocks for line in block.splitlines()] + re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.S))
    return {tuple(found.split()) for snippet in code for found in COMMAND.findall(snippet)}


def _named(words: tuple[str, ...]) -> tuple[str, ...]:
    """The leading words of ``words`` that name a command or group of the CLI; the rest are
    arguments.  Fails when the first word names nothing."""
    command = typer.main.get_command(app)
    named: list[str] = []
    for word in words:
        if word not in getattr(command, "commands", {}):
            break
        command = command.commands[word]
        named.append(word)
    return tuple(named)


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return {_slug(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}


@pytest.mark.slow
@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_command_a_document_names_exists(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    missing = sorted(" ".join(words) for words in _commands(text) if not _named(words))
    assert not missing, f"{doc.name} names commands mc3g does not have: {missing}"


@pytest.mark.slow
def test_every_group_named_with_a_subcommand_has_it() -> None:
    """``mc3g bench X`` and ``mc3g data X``: the word after a group is one of its commands."""
    groups = {name for name, command in typer.main.get_command(app).commands.items() if hasattr(command, "commands")}
    wrong = set()
    for doc in DOCS:
        for words in _commands(doc.read_text(encoding="utf-8")):
            if words[0] in groups and len(words) > 1 and len(_named(words)) < 2:
                wrong.add(f"{doc.name}: mc3g {' '.join(words[:2])}")
    assert not wrong, sorted(wrong)


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_link_reaches_a_file_and_a_heading(doc: Path) -> None:
    broken = []
    for target in LINK.findall(doc.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue  # a web address: not checked here, there is no network
        path, _, anchor = target.partition("#")
        file = (doc.parent / path).resolve() if path else doc
        if not file.exists():
            broken.append(target)
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            broken.append(target)
    assert not broken, f"{doc.name} links to what is not there: {broken}"


def test_the_testing_doc_lists_every_file_of_slow_tests() -> None:
    text = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"`(test_[a-z0-9_]+\.py)`", text.split("The fast tier leaves out the tests marked `slow`:")[1].split("\n\n", 2)[1]))
    files = [p for p in (ROOT / "tests").glob("test_*.py") if p.name != Path(__file__).name]
    slow = {p.name for p in files if re.search(r"pytest\.mark\.slow|slow=True|@tiered\(", p.read_text(encoding="utf-8"))}  # tiered: a deep run marked slow
    assert listed == slow


def test_every_benchmark_table_sits_under_a_heading_naming_the_command_that_makes_it() -> None:
    """docs/benchmarks.md is today's results: each section with a table names, in its heading,
    an ``mc3g`` command that exists."""
    text = re.sub(r"```.*?```", "", (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8"), flags=re.S)
    unnamed = []
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        heading, _, body = section.partition("\n")
        if not re.search(r"^\|", body, flags=re.M):
            continue
        commands = [tuple(span.split()[1:]) for span in re.findall(r"`(mc3g [^`]+)`", heading)]
        if not any(_named(words) for words in commands):
            unnamed.append(heading)
    assert not unnamed, f"sections of docs/benchmarks.md whose tables name no command: {unnamed}"
