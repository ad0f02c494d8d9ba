"""The bundled example: a fictional queue service's docs, questions and two hand-written runs.

`example_paths()` locates the files inside the installed package; see README.md next to this
module for what each question is designed to show.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["ExamplePaths", "example_paths"]

_DATA = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class ExamplePaths:
    """Where the bundled example's files are."""

    root: Path
    """The folder holding every example file."""
    snapshot: Path
    """The knowledge snapshot (`snapshot.json`)."""
    evalset: Path
    """The evaluation set (`evalset.json`)."""
    runs: tuple[Path, ...]
    """The runs, baseline first, then improved."""
    policy: Path
    """The example release policy (`policy.toml`) for `ragtriage gate`."""


def example_paths() -> ExamplePaths:
    """Paths of the bundled example files (plain files: the package is never zipped)."""
    return ExamplePaths(
        root=_DATA,
        snapshot=_DATA / "snapshot.json",
        evalset=_DATA / "evalset.json",
        runs=(_DATA / "runs" / "baseline.json", _DATA / "runs" / "improved.json"),
        policy=_DATA / "policy.toml",
    )
