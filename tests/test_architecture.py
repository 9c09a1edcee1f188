"""The package's layering: its rooms on floors, each importing only rooms below it; no import
cycles (counting imports inside functions too); packages meet through their public faces; the
core loads neither the data sets, the CLI nor rich; and rooms, modules and functions stay small."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "mc3g"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict[str, set[str]]:
    """mc3g module -> the mc3g modules it names in an ``import`` anywhere in its text."""
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in files}
    faces = {name: _exported(path) for name, path in files.items() if path.name == "__init__.py"}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                # ``from pkg import sub`` names the submodule when there is one and pkg's face does
                # not export that name (``from mc3g.datasets import download``: the function)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in files and a.name not in faces.get(base, ()) else base for a in node.names]
            graph[name].update(t for t in targets if t in files and t != name)
    return graph


def _exported(init: Path) -> set[str]:
    """The names in a package's ``__all__``."""
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return {e.value for e in node.value.elts if isinstance(e, ast.Constant)}  # type: ignore[attr-defined]
    return set()


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected component that has one (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


@pytest.mark.slow
def test_the_graph_sees_function_level_and_relative_imports() -> None:
    graph = _import_graph()
    assert "mc3g.causal.lexer" in graph["mc3g.causal.parser"] and "mc3g.schema" in graph["mc3g.causal.parser"]
    assert "mc3g.rules.render" in graph["mc3g.rules.ruleset"] and "mc3g.rules" in graph["mc3g.causal.statements"]
    assert "mc3g.search" in graph["mc3g.hunt.accepted"] and "joblib" not in graph["mc3g.explain.batch"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.slow
def test_causal_and_rules_have_no_import_cycles() -> None:
    graph = _import_graph()
    mine = {m: {t for t in ts if t.startswith(("mc3g.causal", "mc3g.rules"))} for m, ts in graph.items() if m.startswith(("mc3g.causal", "mc3g.rules"))}
    assert _cycles(mine) == []


@pytest.mark.slow
def test_the_package_has_no_import_cycles() -> None:
    assert _cycles(_import_graph()) == []


FLOORS: tuple[tuple[str, ...], ...] = (
    ("exceptions", "version", "protections", "resources"),
    ("reading", "values", "moves", "serialization"),
    ("params", "rules"),
    ("schema", "foldse", "models"),  # models: model files, and the one place predict is called
    ("causal", "glassbox"),  # glassbox: a model's own decision, read exactly
    ("profiles",),
    ("search", "datasets"),
    ("engine",),  # what every person's search shares: the knowledge, the settings, the problems
    ("hunt",),  # one person's search with a black box, in rounds of questions
    ("explain",),  # the explainer, its session, its answers
    ("baselines", "records", "applicants", "reference"),  # records: a batch's results file
    ("notice",),  # a notice of adverse action, from an answer and its records
    ("methods", "batch"),  # methods: MC3G and the baselines behind one interface
    ("audit",),
    ("serve",),  # the service's portfolio route reads the audit's summary
    ("bench",),  # bench models compares candidate models with the audit's own tables
    ("cli",),
)
"""The rooms of ``src/mc3g`` (its folders, and its modules without ``.py``), bottom floor first."""


def _room(module: str) -> str:
    return module.split(".")[1] if "." in module else module


@pytest.mark.slow
def test_every_room_stands_on_one_floor() -> None:
    placed = [room for floor in FLOORS for room in floor]
    assert len(placed) == len(set(placed))
    assert set(placed) == {_room(m) for m in _import_graph()} - {"mc3g"}


@pytest.mark.slow
def test_rooms_import_only_rooms_on_lower_floors() -> None:
    """So the registry of methods (``mc3g.methods``) stands above ``explain`` and ``baselines``,
    whose classes it names, and the model (``mc3g.models``) below the explainer that asks it."""
    floor = {room: number for number, rooms in enumerate(FLOORS) for room in rooms}
    upward = sorted(
        f"{module} -> {target}"
        for module, targets in _import_graph().items()
        if module != "mc3g"
        for target in targets
        if target != "mc3g" and _room(target) != _room(module) and floor[_room(target)] >= floor[_room(module)]
    )
    assert upward == []


@pytest.mark.slow
def test_packages_import_each_other_only_through_their_faces() -> None:
    """``from mc3g.search.space import x`` outside ``mc3g.search`` reaches past its public face.
    ``mc3g.bench`` has none: each of its modules is the engine of one ``mc3g bench`` command."""
    graph = _import_graph()
    packages = {name for name in graph if (PACKAGE.parent / name.replace(".", "/") / "__init__.py").exists()}
    past = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        for target in targets
        if (owner := target.rpartition(".")[0]) in packages and owner not in ("mc3g", "mc3g.bench", module) and not module.startswith(owner + ".")
    )
    assert past == []


def _loaded_by(statement: str) -> set[str]:
    code = f"import sys; {statement}; print(' '.join(sys.modules))"
    return set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split())


@pytest.mark.slow
def test_the_core_does_not_load_data_sets_the_cli_or_rich() -> None:
    """Nor Dask, Parquet files or plots.  pandas 3 loads pyarrow's core itself when it is
    installed, so only the parts mc3g would add are named."""
    heavy = ("mc3g.datasets", "mc3g.cli", "mc3g.bench", "mc3g.baselines", "rich", "typer", "platformdirs", "sklearn.model_selection", "dice_ml")
    heavy += ("skops", "onnx")  # model files: read only when one is loaded
    heavy += ("mc3g.serve", "fastapi", "starlette", "uvicorn", "jinja2", "pydantic", "httpx")  # the service: only with mc3g serve
    heavy += ("mc3g.batch", "mc3g.audit", "dask", "distributed", "pyarrow.parquet", "pyarrow.dataset", "matplotlib")  # batches and audits
    for statement in ("import mc3g", "import mc3g.causal, mc3g.rules, mc3g.search, mc3g.schema"):
        loaded = _loaded_by(statement)
        assert not {m for m in loaded if m.startswith(heavy)}, statement


@pytest.mark.slow
def test_the_command_line_loads_the_service_only_to_serve() -> None:
    """``mc3g --help`` and the other commands start without FastAPI, uvicorn or Jinja2."""
    loaded = _loaded_by("import mc3g.cli")
    assert not {m for m in loaded if m.startswith(("mc3g.serve", "fastapi", "uvicorn", "jinja2", "httpx"))}


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_module_is_over_400_lines() -> None:
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py") if (n := _lines(p)) > 400}
    assert long == {}


@pytest.mark.slow
def test_no_function_is_over_60_lines() -> None:
    long = {
        f"{p.relative_to(PACKAGE)}:{node.name}": length
        for p in PACKAGE.rglob("*.py")
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (length := node.end_lineno - node.lineno + 1) > 60  # type: ignore[operator]
    }
    assert long == {}


def test_the_black_box_reading_has_no_function_over_40_lines() -> None:
    """Issue 24: the reading checked by the model (``hunt/verified.py``) stays in small parts."""
    path = PACKAGE / "hunt" / "verified.py"
    lengths = {
        node.name: node.end_lineno - node.lineno + 1  # type: ignore[operator]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    assert lengths and max(lengths.values()) <= 40, lengths


def test_no_room_holds_over_a_fifth_of_the_lines() -> None:
    """A room is a folder right under ``src/mc3g`` (or a module there), its lines those of its .py files."""
    rooms: dict[str, int] = {}
    for p in PACKAGE.rglob("*.py"):
        room = p.relative_to(PACKAGE).parts[0]
        rooms[room] = rooms.get(room, 0) + _lines(p)
    total = sum(rooms.values())
    assert {room: f"{n / total:.1%}" for room, n in rooms.items() if n > total / 5} == {}


@pytest.mark.slow
def test_the_batch_and_the_audit_load_dask_parquet_and_plots_only_when_they_run() -> None:
    loaded = _loaded_by("import mc3g.batch, mc3g.audit")
    assert not {m for m in loaded if m.startswith(("dask", "distributed", "pyarrow.parquet", "matplotlib"))}
