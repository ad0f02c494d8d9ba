"""The import rule of `docs/architecture.md`, checked on the source (no import is executed).

Every import statement counts, including those inside functions and under `TYPE_CHECKING`:
a lazy import still ties two modules together.
"""

from __future__ import annotations

import ast
from collections import Counter
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "ragtriage"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported(path: Path, name: str) -> set[str]:
    """Every dotted name an import statement of the module names (modules and attributes)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            out.add(module)
            out.update(f"{module}.{alias.name}" for alias in node.names)
    return out


@cache
def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
    return {
        name: {t for t in _imported(path, name) if t in files and t != name}
        for name, path in files.items()
    }


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


def _private_imports(graph: dict[str, set[str]]) -> list[str]:
    """`importer -> module` where the module is private (`_x`) to a package the importer is
    not inside."""
    out = []
    for name, targets in graph.items():
        for target in targets:
            owner, _, leaf = target.rpartition(".")
            private = leaf.startswith("_") and not leaf.startswith("__")
            if private and not (name == owner or name.startswith(owner + ".")):
                out.append(f"{name} -> {target}")
    return sorted(out)


LAYERS: dict[str, int] = {
    # 0: foundations every layer may use
    "errors": 0, "paths": 0, "_optional": 0, "_lazy": 0, "_version": 0, "_markdown": 0,
    "_console": 0, "_collector": 0,
    "endpoint": 0,
    "executors": 0,
    "fileio": 1,
    "schemas": 2,
    "loading": 3, "formats": 3, "validation": 3,
    "detectors": 4, "versions": 4, "holdout": 4,
    "metrics": 5,
    "diagnosis": 6, "calibration": 6,
    "evaluation": 7, "columnar": 7,
    "compare": 8, "gate": 8, "filters": 8,
    "render": 9,
    "request": 10, "api": 10, "testing": 10, "cli": 10, "__main__": 10, "": 10,
    "example": 10, "starter": 10,
}
"""The layer of every package (or top-level module) of `ragtriage`: imports point down."""

BESIDE = {"judges", "retrievers", "importers", "recording", "review"}
"""Producers beside the layers: they use layers 0-4 and each other, and only the top layer
(10: the API and the CLI) uses them."""




def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _allowed(importer: str, imported: str) -> bool:
    if importer in BESIDE:
        return imported in BESIDE or LAYERS[imported] <= 4
    if imported in BESIDE:
        return LAYERS[importer] == 10
    return LAYERS[importer] >= LAYERS[imported]


def _upward_imports(graph: dict[str, set[str]]) -> set[str]:
    return {
        f"{name} -> {target}"
        for name, targets in graph.items()
        for target in targets
        if _package(name) != _package(target) and not _allowed(_package(name), _package(target))
    }


def test_the_checks_see_a_circle_and_a_private_import() -> None:
    graph = {
        "p.a": {"p.b"},
        "p.b": {"p.c._impl"},
        "p.c._impl": {"p.a"},
        "p.c": {"p.c._impl"},
        "p.d": set(),
    }
    assert _circles(graph) == [["p.a", "p.b", "p.c._impl"]]
    assert _private_imports(graph) == ["p.b -> p.c._impl"]


def test_the_graph_follows_every_kind_of_import() -> None:
    graph = _graph()
    assert "ragtriage.detectors.permissions" in graph["ragtriage.metrics.boundaries"]  # relative
    assert "ragtriage.calibration" in graph["ragtriage.api._calibrating"]  # inside a function
    assert "ragtriage.evaluation" in graph["ragtriage.render._boundaries"]  # TYPE_CHECKING


def test_no_import_circle() -> None:
    assert _circles(_graph()) == []


def test_no_import_of_another_package_private_module() -> None:
    assert _private_imports(_graph()) == []


def test_every_module_file_name_is_distinct() -> None:
    ignored = {"__init__.py", "__main__.py"}
    names = Counter(p.name for p in PACKAGE.rglob("*.py") if p.name not in ignored)
    assert sorted(name for name, count in names.items() if count > 1) == []


def test_every_package_has_a_layer() -> None:
    packages = {_package(name) for name in _graph()}
    assert sorted(packages - set(LAYERS) - BESIDE) == []


def test_the_layer_check_sees_an_upward_import() -> None:
    graph = {
        "ragtriage.metrics.x": {"ragtriage.render"},
        "ragtriage.judges.y": {"ragtriage.metrics"},
    }
    assert _upward_imports(graph) == {
        "ragtriage.metrics.x -> ragtriage.render",
        "ragtriage.judges.y -> ragtriage.metrics",
    }


def test_imports_point_down_the_layers() -> None:
    assert _upward_imports(_graph()) == set()
