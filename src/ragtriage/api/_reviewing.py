"""`ragtriage review export` and `review import`: sheets for people, and their labels back."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError, Problem, each_or_refused, flag_problems, problems_of
from ..fileio import outputs_together
from ..paths import PathArg, as_path, as_paths, check_paths
from ._converting import check_some_run

if TYPE_CHECKING:
    from ..review import ImportedLabels, ReviewSheet


def review_export_files(
    dataset: PathArg,
    *,
    snapshot: PathArg | None = None,
    runs: Iterable[PathArg] | PathArg = (),
    k: int | None = None,
    output: PathArg,
    raw_text: bool = False,
) -> ReviewSheet:
    """`ragtriage review export DATASET -o SHEET`: a review sheet (.xlsx or .csv) for people.

    Texts are masked like every report unless `raw_text` (`--raw-text`) is true.
    """
    from ..fileio import check_output
    from ..judges import load_judgeable
    from ..review import export_sheet

    check_paths(("dataset", dataset), ("output", output), optional=[("snapshot", snapshot)])
    check_output(output)  # as given, as the command line checks it: before the work
    k = _checked_k(k, flag_problems(("--raw-text", raw_text)))
    loaded = load_judgeable(dataset, snapshot, as_paths(runs, "runs"), k)
    check_some_run(len(loaded.runs), "review")
    return export_sheet(loaded, output, k=k, raw_text=raw_text)


@dataclass(frozen=True)
class ImportedSheet:
    """A filled review sheet read back: the labels, where they were written, what is unfilled."""

    imported: ImportedLabels
    """The label sets (one per run) and the rows without a verdict."""
    written: tuple[Path, ...]
    """One `<run>.labels.json` per label set, in the same order."""
    kept: tuple[int, ...] = ()
    """Per label set: labels of other reviewers already in its file, kept."""
    replaced: tuple[int, ...] = ()
    """Per label set: labels of the sheet's reviewers already in its file, replaced (--force)."""


def review_import_files(
    dataset: PathArg,
    sheet: PathArg,
    *,
    snapshot: PathArg | None = None,
    runs: Iterable[PathArg] | PathArg = (),
    k: int | None = None,
    reviewer: str | None = None,
    output: PathArg,
    force: bool = False,
) -> ImportedSheet:
    """`ragtriage review import DATASET SHEET -o DIR`: human labels, one file per run.

    Each run's labels go to `DIR/<run>.labels.json`, merged with other reviewers' labels already
    there; labels of the same reviewer there are replaced only with `force`. Nothing is written
    unless every run's file can be. `k` (`-k`) is the cut-off the sheet was exported with: the
    sheet's `context_ids` must be the runs' final contexts with it.
    """
    from ..judges import load_judgeable, write_model
    from ..review import import_sheet, merge_into_file
    from ..schemas import identifier_problems

    check_paths(
        ("dataset", dataset), ("sheet", sheet), ("output", output),
        optional=[("snapshot", snapshot)],
    )
    refused = identifier_problems(("--reviewer", reviewer)) + flag_problems(("--force", force))
    k = _checked_k(k, refused)  # before the files are read, not once per row
    folder = as_path(output)
    # As the sheet was exported.
    loaded = load_judgeable(dataset, snapshot, as_paths(runs, "runs"), k)
    imported = import_sheet(sheet, loaded, reviewer=reviewer, k=k)
    targets = [folder / f"{labels.run}.labels.json" for labels in imported.label_sets]
    merged = each_or_refused(
        lambda pair: merge_into_file(pair[1], pair[0], force=force),
        zip(imported.label_sets, targets, strict=True),
    )
    with outputs_together():
        written = tuple(write_model(m.labels, t) for m, t in zip(merged, targets, strict=True))
    return ImportedSheet(
        imported, written, tuple(m.kept for m in merged), tuple(m.replaced for m in merged)
    )


def _checked_k(k: int | None, problems: list[Problem]) -> int | None:
    """`k` as the command line's `-k` takes it (`validation.parse_k`); an `InputError` with
    its problem and `problems` (the call's other options) at once."""
    from ..validation import parse_k

    problems = [*problems, *(() if k is None else problems_of(parse_k, k))]
    if problems:
        raise InputError(problems)
    return None if k is None else parse_k(k)
