"""A package's public names imported from their modules on first use, so that a command's
start loads only what it runs (`ragtriage --version`, `trec-eval`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from typing import Any


def lazy_names(
    package: str, modules: Mapping[str, Sequence[str]], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], list[str]]:
    """The package's module-level `__getattr__` and its lazy public names, sorted (for its
    `__all__`): `modules` maps each module (relative to `package`) to the public names it
    holds; a name found is kept in `namespace` (the package's globals), so it is looked up
    once."""
    module_of = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module, package), name)
        namespace[name] = value
        return value

    return __getattr__, sorted(module_of)
