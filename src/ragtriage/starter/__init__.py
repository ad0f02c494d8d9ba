"""The starter dataset `ragtriage init DIR` writes: small, commented, and valid as written.

Five questions about a fictional app over six documents, one run, its labels kept in their
own file, a release policy and a README that lists the next commands. The files live in
`files/` beside this module and are copied byte for byte, so what a user gets is what the
tests evaluate.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..fileio import check_output, file_problem, make_folder, outputs_together, write_bytes
from ..paths import PathArg, as_path

__all__ = ["STARTER_FILES", "StarterDataset", "dataset_arguments", "write_starter"]

_FILES = Path(__file__).resolve().parent / "files"

STARTER_FILES: tuple[str, ...] = (
    "README.md",
    "snapshot.json",
    "evalset.json",
    "run.json",
    "labels.json",
    "policy.toml",
)
"""The files `write_starter` writes, in this order."""


@dataclass(frozen=True)
class StarterDataset:
    """Where `write_starter` wrote the starter dataset."""

    directory: Path
    """The directory the files are in."""
    files: tuple[Path, ...]
    """Every file written, in `STARTER_FILES` order."""
    replaced: tuple[Path, ...]
    """Files that existed before and were overwritten (only with `force`)."""


def dataset_arguments(directory: str = "") -> list[str]:
    """The dataset arguments that load the starter from `directory` (`""`: the current one):
    the evaluation set, then `--snapshot`, `--run` and `--labels`."""
    prefix = f"{directory.rstrip('/')}/" if directory else ""
    return [
        f"{prefix}evalset.json",
        "--snapshot",
        f"{prefix}snapshot.json",
        "--run",
        f"{prefix}run.json",
        "--labels",
        f"{prefix}labels.json",
    ]


def write_starter(directory: PathArg, *, force: bool = False) -> StarterDataset:
    """Write the starter dataset into `directory` (created when missing).

    A directory that already holds anything is refused unless `force`; with `force` the
    starter's own files are overwritten and every other file is left as it is; a target that
    cannot be written (a directory, a read-only file) is refused before any file is written.
    """
    target = as_path(directory)
    # os.path's tests are False where a name is too long to look up: make_folder says why.
    if os.path.exists(target) and not os.path.isdir(target):
        raise file_problem(str(target), "a directory (new or empty)", "a file", "DIR")
    entries = sorted(p.name for p in target.iterdir()) if os.path.isdir(target) else []
    if entries and not force:
        shown = ", ".join(entries[:5]) + (
            f", ... ({len(entries)} in all)" if len(entries) > 5 else ""
        )
        expected = (
            "a new or empty directory (--force writes the starter files into it, "
            "overwriting files of the same name)"
        )
        raise file_problem(str(target), expected, f"a directory holding {shown}", "DIR")
    for name in STARTER_FILES if entries else ():
        check_output(target / name)
    make_folder(target)
    written, replaced = [], []
    with outputs_together():
        for name in STARTER_FILES:
            path = target / name
            if path.exists():
                replaced.append(path)
            write_bytes(path, (_FILES / name).read_bytes())
            written.append(path)
    return StarterDataset(target, tuple(written), tuple(replaced))
