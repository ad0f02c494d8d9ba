"""A package's public names imported from their modules on first use, so that a command's
start loads only what it runs (`ragtriage --version`, `trec-eval`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_names(
    package: str, modules: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """The package's module-level `__getattr__`: `modules` maps each public name to its
    module (relative to `package`); a name found is kept in `namespace` (the package's
    globals), so it is looked up once."""

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module, package), name)
        namespace[name] = value
        return value

    return __getattr__
