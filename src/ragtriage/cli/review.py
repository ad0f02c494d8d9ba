"""`ragtriage review export|import`: review sheets for people, read back as labels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..api import review_export_files, review_import_files
from ..errors import counted
from ._common import (
    examples,
    handle_errors,
    output_option,
    run_context_options,
    say,
)
from ._parsing import Group


@click.group(
    "review",
    cls=Group,
    epilog=examples(
        "ragtriage review export article-fixture.json -o sheet.xlsx",
        "ragtriage review import article-fixture.json sheet.xlsx --reviewer ana -o labels/",
    ),
)
def review_command() -> None:
    """Review sheets: export claims and reference facts, import the filled sheet as labels."""


@review_command.command(
    "export",
    epilog=examples(
        "ragtriage review export article-fixture.json -o sheet.xlsx",
        "ragtriage review export evalset.json --snapshot snapshot.json --run a.jsonl -o sheet.csv",
        "ragtriage review export article-fixture.json --raw-text -o sheet-unmasked.xlsx",
    ),
)
@click.argument("dataset", type=click.Path(path_type=Path))
@run_context_options
@output_option("the sheet (.xlsx or .csv)", required=True)
@click.option(
    "--raw-text",
    is_flag=True,
    help="Write question, answer, claim, context and fact text unmasked (sensitive values "
    "shown; only for reviewers allowed to see them).",
)
@handle_errors
def export_command(output: Path, **options: Any) -> None:
    """Write a review sheet: a row per claim and a row per (answer, reference fact).

    Reviewers fill `verdict` (supported / unsupported / cannot_judge for claims; covered /
    not_covered / cannot_judge for facts), `supported_by` (context IDs, comma-separated) and
    optionally `reason` and `reviewer`. Sensitive values in the texts are masked
    (`[masked:DETECTOR]`) as in every report, unless --raw-text is given.
    """
    sheet = review_export_files(output=output, **options)
    say(f"wrote {output}: {sheet.claim_rows} claim rows, {sheet.fact_rows} fact rows")
    for item in sheet.skipped:
        say(
            f"  run {item.run}, question {item.question_id}: no claim rows ({item.reason}; "
            "`ragtriage judge` extracts claims into a new run file)"
        )


@review_command.command(
    "import",
    epilog=examples(
        "ragtriage review import article-fixture.json sheet.xlsx -o labels/",
        "ragtriage review import evalset.json sheet.csv --snapshot snapshot.json --run a.jsonl "
        "--reviewer ana -o labels/",
    ),
)
@click.argument("dataset", type=click.Path(path_type=Path))
@click.argument("sheet", type=click.Path(path_type=Path))
@run_context_options
@click.option("--reviewer", help="Reviewer name for rows whose `reviewer` cell is empty.")
@click.option(
    "--force",
    is_flag=True,
    help="Replace labels of the sheet's reviewers already in a run's labels file.",
)
@output_option("<run>.labels.json", required=True, metavar="DIR")
@handle_errors
def import_command(**options: Any) -> None:
    """Read a filled SHEET (.xlsx or .csv) of DATASET as human labels, one label file per run.

    Every row must name a run, question, claim or reference fact of DATASET (and its --run
    files). A claim row's `context_ids` must be the run's final context for the question (give
    the -k the sheet was exported with) and `supported_by` must name IDs of that context.
    Rows without a verdict are listed and left out; a filled row with a wrong value
    stops the import with every problem (file, row, field, expected, found). Labels of other
    reviewers already in `<run>.labels.json` are kept; the same reviewer's are replaced only
    with --force. A sheet past the bounds of `ragtriage.review.SHEET_LIMITS` (size, unpacked
    size, compression ratio, rows, columns, cell length) is refused before it is parsed.
    """
    found = review_import_files(**options)
    imported = found.imported
    if not imported.label_sets and not imported.unfilled:  # a header alone: say so
        say(f"{options['sheet']}: no claim or fact rows to import; nothing was written")
    for n, (labels, path) in enumerate(zip(imported.label_sets, found.written, strict=True)):
        # Kept: labels by no reviewer of this sheet's labels (all of them, when the sheet has
        # none), whoever made them.
        kept = f", kept {counted(found.kept[n], 'earlier label')}" if found.kept[n] else ""
        replaced = f", replaced {found.replaced[n]} earlier" if found.replaced[n] else ""
        say(
            f"run {labels.run}: {counted(len(labels.claim_labels), 'claim label')}, "
            f"{counted(len(labels.fact_labels), 'fact label')}{kept}{replaced} -> {path}"
        )
    if imported.unfilled:
        say(f"{counted(len(imported.unfilled), 'row')} not filled yet (left out):")
        for row in imported.unfilled:
            say(f"  row {row.row}: run {row.run}, question {row.question_id}, {row.item}")
