"""A small Chinese example written for ragtriage: 12 policy documents of a fictional company
and 12 questions (one superseded version, one HR-only document an engineer asks about and
should be refused, one more unanswerable question).

Run it end to end, offline::

    ragtriage run EVALSET --snapshot SNAPSHOT --retriever bm25 --output run.jsonl
    ragtriage evaluate EVALSET --snapshot SNAPSHOT --run run.jsonl

where `zh_example_paths()` gives SNAPSHOT and EVALSET.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["ZhExamplePaths", "zh_example_paths"]

_HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class ZhExamplePaths:
    """Where the Chinese example's files are."""

    snapshot: Path
    """The snapshot (`snapshot.json`)."""
    evalset: Path
    """The evaluation set (`evalset.json`)."""


def zh_example_paths() -> ZhExamplePaths:
    """The bundled Chinese example's files inside the installed package."""
    return ZhExamplePaths(_HERE / "snapshot.json", _HERE / "evalset.json")
