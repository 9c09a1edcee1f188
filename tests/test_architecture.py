"""The package's import graph has no cycles, counting imports inside functions too."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "mc3g"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict[str, set[str]]:
    """mc3g module -> the mc3g modules it names in an ``import`` anywhere in its text."""
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in files}
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
                # ``from pkg import sub`` names the submodule when there is one, else pkg itself
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names]
            graph[name].update(t for t in targets if t in files and t != name)
    return graph


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


def test_the_graph_sees_function_level_and_relative_imports() -> None:
    graph = _import_graph()
    assert "mc3g.causal.lexer" in graph["mc3g.causal.parser"] and "mc3g.schema" in graph["mc3g.causal.parser"]
    assert "mc3g.rules.render" in graph["mc3g.rules.ruleset"] and "mc3g.rules" in graph["mc3g.causal.statements"]
    assert "mc3g.search" in graph["mc3g.explain.reasons"] and "joblib" not in graph["mc3g.explain.batch"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_causal_and_rules_have_no_import_cycles() -> None:
    graph = _import_graph()
    mine = {m: {t for t in ts if t.startswith(("mc3g.causal", "mc3g.rules"))} for m, ts in graph.items() if m.startswith(("mc3g.causal", "mc3g.rules"))}
    assert _cycles(mine) == []


def test_the_package_has_no_import_cycles() -> None:
    assert _cycles(_import_graph()) == []
