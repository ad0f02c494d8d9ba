"""`ragtriage review export|import`: review sheets for people, read back as labels."""

from __future__ import annotations

from pathlib import Path

import click

from ..api import review_export_files, review_import_files
from ._common import (
    examples,
    handle_errors,
    k_option,
    output_option,
    run_option,
    snapshot_option,
)


@click.group(
    "review",
    epilog=examples(
        "ragtriage review export article-fixture.json -o sheet.xlsx",
        "ragtriage review import sheet.xlsx --reviewer ana -o labels/",
    ),
)
def review_command() -> None:
    """Review sheets: export claims and reference facts, import the filled sheet as labels."""


@review_command.command(
    "export",
    epilog=examples(
        "ragtriage review export article-fixture.json -o sheet.xlsx",
        "ragtriage review export evalset.json --snapshot snapshot.json --run a.jsonl -o sheet.csv",
    ),
)
@click.argument("dataset", type=click.Path(path_type=Path))
@snapshot_option
@run_option
@k_option
@output_option("the sheet (.xlsx or .csv)", required=True)
@handle_errors
def export_command(
    dataset: Path, snapshot: Path | None, runs: tuple[Path, ...], k: int | None, output: Path
) -> None:
    """Write a review sheet: a row per claim and a row per (answer, reference fact).

    Reviewers fill `verdict` (supported / unsupported / cannot_judge for claims; covered /
    not_covered / cannot_judge for facts), `supported_by` (context IDs, comma-separated) and
    optionally `reason` and `reviewer`.
    """
    sheet = review_export_files(dataset, snapshot=snapshot, runs=runs, k=k, output=output)
    click.echo(f"wrote {output}: {sheet.claim_rows} claim rows, {sheet.fact_rows} fact rows")
    for item in sheet.skipped:
        click.echo(
            f"  run {item.run}, question {item.question_id}: no claim rows ({item.reason}; "
            "`ragtriage judge` extracts claims into a new run file)"
        )


@review_command.command(
    "import",
    epilog=examples(
        "ragtriage review import sheet.xlsx -o labels/",
        "ragtriage review import sheet.csv --reviewer ana -o labels/",
    ),
)
@click.argument("sheet", type=click.Path(path_type=Path))
@click.option("--reviewer", help="Reviewer name for rows whose `reviewer` cell is empty.")
@output_option("<run>.labels.json", required=True, metavar="DIR")
@handle_errors
def import_command(sheet: Path, reviewer: str | None, output: Path) -> None:
    """Read a filled SHEET (.xlsx or .csv) as human labels, one label file per run.

    Rows without a verdict are listed and left out; a filled row with a wrong value stops
    the import with every problem (file, row, field, expected, found).
    """
    found = review_import_files(sheet, reviewer=reviewer, output=output)
    imported = found.imported
    for labels, path in zip(imported.label_sets, found.written, strict=True):
        click.echo(
            f"run {labels.run}: {len(labels.claim_labels)} claim labels, "
            f"{len(labels.fact_labels)} fact labels -> {path}"
        )
    if imported.unfilled:
        click.echo(f"{len(imported.unfilled)} rows not filled yet (left out):")
        for row in imported.unfilled:
            click.echo(f"  row {row.row}: run {row.run}, question {row.question_id}, {row.item}")
