"""Declared dependencies and imports agree: nothing declared that is not imported, nothing
imported that is not declared, and optional packages only through `ragtriage._optional`."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from default_install import SRC, modules_of, pyproject, requirement_name

from ragtriage._optional import EXTRAS

PACKAGE = SRC / "ragtriage"
GUARDS = {"require_extra", "has_extra"}
"""Calls that check an extra before its package is imported."""


def _top_level_imports(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.partition(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.partition(".")[0])
    return names


def _extra_module_calls(tree: ast.AST) -> set[str]:
    """Top-level names of the modules passed to `extra_module(...)`."""
    out = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "extra_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            out.add(str(node.args[0].value).partition(".")[0])
    return out


def _sources() -> dict[Path, ast.AST]:
    return {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(PACKAGE.rglob("*.py"))}


def _declared() -> dict[str, str]:
    """Normalised distribution name -> where it is declared (`default` or the extra)."""
    project = pyproject()
    out = {requirement_name(r): "default" for r in project["dependencies"]}  # type: ignore[union-attr]
    extras = project["optional-dependencies"]
    assert isinstance(extras, dict)
    for extra, requirements in extras.items():
        if extra in ("all", "test"):
            continue
        for requirement in requirements:
            out.setdefault(requirement_name(requirement), extra)
    return out


def test_every_declared_dependency_is_imported() -> None:
    imported: set[str] = set()
    for tree in _sources().values():
        imported |= _top_level_imports(tree) | _extra_module_calls(tree)
    unused = {
        dist: where
        for dist, where in _declared().items()
        if not (modules_of().get(dist, set()) & imported)
    }
    assert unused == {}


def test_every_third_party_import_is_declared() -> None:
    provided = {m for dist in _declared() for m in modules_of().get(dist, set())}
    undeclared = {}
    for path, tree in _sources().items():
        for name in _top_level_imports(tree) | _extra_module_calls(tree):
            if name in sys.stdlib_module_names or name in ("ragtriage", "__future__"):
                continue
            if name not in provided:
                undeclared[str(path.relative_to(SRC))] = name
    assert undeclared == {}


def _guarded(body: list[ast.stmt], index: int) -> bool:
    """Whether a statement before `body[index]` calls one of `GUARDS`."""
    for statement in body[:index]:
        for node in ast.walk(statement):
            call = isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            if call and node.func.id in GUARDS:  # type: ignore[attr-defined]
                return True
    return False


def _optional_imports(tree: ast.AST, optional: set[str]) -> list[tuple[int, str]]:
    """Imports of optional packages that no guard precedes: (line, module)."""
    bad: list[tuple[int, str]] = []

    def visit(body: list[ast.stmt], guarded: bool) -> None:
        for index, statement in enumerate(body):
            if isinstance(statement, ast.If):
                test = ast.unparse(statement.test)
                checks = test == "TYPE_CHECKING" or any(g in test for g in GUARDS)
                visit(statement.body, guarded or checks)
                visit(statement.orelse, guarded)
                continue
            if isinstance(statement, ast.Import | ast.ImportFrom):
                names = _top_level_imports(statement) & optional
                if names and not (guarded or _guarded(body, index)):
                    bad.extend((statement.lineno, name) for name in sorted(names))
                continue
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    visit(inner, guarded)
                elif isinstance(inner, list):
                    for handler in inner:
                        if isinstance(handler, ast.ExceptHandler):
                            visit(handler.body, guarded)

    assert isinstance(tree, ast.Module)
    visit(tree.body, False)
    return bad


def test_optional_packages_are_imported_only_through_optional() -> None:
    optional = {m for names in EXTRAS.values() for m in names}
    found = {
        str(path.relative_to(SRC)): bad
        for path, tree in _sources().items()
        if (bad := _optional_imports(tree, optional))
    }
    assert found == {}


def test_the_guard_check_catches_an_unguarded_import() -> None:
    optional = {"pyarrow", "httpx"}
    tree = ast.parse(
        "import pyarrow\n"
        "def f():\n    import httpx\n"
        "def g():\n    require_extra('judge', 'x')\n    import httpx\n"
        "if TYPE_CHECKING:\n    import pyarrow\n"
    )
    assert _optional_imports(tree, optional) == [(1, "pyarrow"), (3, "httpx")]


def test_no_extra_lists_a_distribution_twice() -> None:
    # Before: the test extra listed scipy twice.
    extras = pyproject()["optional-dependencies"]
    assert isinstance(extras, dict)
    repeated = {
        extra: sorted({n for n in names if names.count(n) > 1})
        for extra, requirements in extras.items()
        if len(names := [requirement_name(r) for r in requirements]) != len(set(names))
    }
    assert repeated == {}
