"""A package's lazy public names: what type checkers read (the `if TYPE_CHECKING:` imports)
and what runs (the `_LAZY` table given to `lazy_names`) name the same objects, from the same
modules, and `__all__` lists each of them once."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest
from default_install import SRC

PACKAGES = sorted(
    path.parent for path in (SRC / "ragtriage").rglob("__init__.py")
    if "lazy_names(" in path.read_text(encoding="utf-8")
)


def _module_name(package: Path) -> str:
    return ".".join(package.relative_to(SRC).parts)


def _checked_imports(package: Path) -> dict[str, str]:
    """Each name the package's `if TYPE_CHECKING:` block imports -> its relative module."""
    tree = ast.parse((package / "__init__.py").read_text(encoding="utf-8"))
    block = next(
        node for node in tree.body
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING"
    )
    found = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom), ast.dump(node)
        for alias in node.names:
            assert alias.asname == alias.name, f"{alias.name} is not re-exported as itself"
            found[alias.name] = "." * node.level + (node.module or "")
    return found


def test_packages_found() -> None:
    assert [_module_name(p) for p in PACKAGES] == [
        "ragtriage", "ragtriage.api", "ragtriage.columnar", "ragtriage.detectors",
        "ragtriage.loading", "ragtriage.metrics", "ragtriage.render", "ragtriage.validation",
    ]


@pytest.mark.parametrize("package", PACKAGES, ids=_module_name)
def test_lazy_names_match_checked_imports(package: Path) -> None:
    module = importlib.import_module(_module_name(package))
    lazy = {name: mod for mod, names in module._LAZY.items() for name in names}
    assert lazy == _checked_imports(package)
    assert len(module.__all__) == len(set(module.__all__))
    assert set(lazy) <= set(module.__all__)
    for name, relative in lazy.items():
        home = importlib.import_module(relative, module.__name__)
        assert getattr(module, name) is getattr(home, name)


def test_unknown_name_is_an_attribute_error() -> None:
    import ragtriage.detectors

    with pytest.raises(
        AttributeError, match=r"^module 'ragtriage\.detectors' has no attribute 'nothing'$"
    ):
        _ = ragtriage.detectors.nothing  # type: ignore[attr-defined]
