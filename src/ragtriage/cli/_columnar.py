"""`evaluate --engine columnar`: the option checks and the call to `evaluate_native`.

The columnar path reads a native evaluation set, its snapshot and run files straight into
arrays; options it has no equivalent for are refused by name (exit 2) rather than ignored.
"""

from __future__ import annotations

from pathlib import Path

import click

from ._dataset import DatasetOptions

UNSUPPORTED = "--engine columnar does not support {option}"
"""Usage error for an option the columnar path has no equivalent for."""


def _refused(data: DatasetOptions, html: Path | None) -> list[str]:
    """The options given that the columnar path does not take, in --help order."""
    from ..columnar import NATIVE_MEASURES

    given = [
        ("--labels", bool(data.labels)),
        ("--accept-self-labelling", data.accept_self_labelling),
        ("--versions", data.versions is not None),
        ("--calibration", bool(data.calibrations)),
        ("--tag", bool(data.selection.tags)),
        ("--split", bool(data.selection.splits)),
        ("--stage", bool(data.selection.stages)),
        ("--id", bool(data.selection.ids)),
        ("--include-holdout", data.holdout.include),
        ("--who", data.holdout.who is not None),
        ("--ledger", data.holdout.ledger is not None),
        ("--html", html is not None),
    ]
    refused = [option for option, present in given if present]
    refused += [f"--metric {name}" for name in data.metrics if name not in NATIVE_MEASURES]
    return refused


def columnar_report(data: DatasetOptions, fmt: str, html: Path | None) -> str:
    """Check the options, evaluate with `evaluate_native` and render in `fmt`."""
    from ..columnar import (
        NATIVE_MEASURES,
        evaluate_native,
        native_report_json,
        native_report_markdown,
        native_report_table,
        without_holdout_rows,
    )
    from ..holdout import HOLDOUT
    from ..render import dumps

    refused = _refused(data, html)
    if refused:
        raise click.UsageError(UNSUPPORTED.format(option=", ".join(refused)))
    evalset, snapshot, runs = data.dataset, data.snapshot, list(data.runs)
    if data.example:
        from ..example import example_paths

        paths = example_paths()
        evalset, snapshot, runs = paths.evalset, paths.snapshot, [*paths.runs, *runs]
    if evalset is None:
        raise click.UsageError("give DATASET or --example")
    if snapshot is None:
        raise click.UsageError(
            "--engine columnar needs a native evaluation set and its --snapshot"
        )
    result = evaluate_native(
        evalset,
        snapshot,
        runs,
        k=data.k,
        label_policy=data.label_policy,  # type: ignore[arg-type]
        allow_unreviewed=data.allow_unreviewed,
        evidence_level=data.evidence_level,  # type: ignore[arg-type]
    )
    hidden = sum(split == HOLDOUT for split in result.splits)
    if hidden:
        # As the reference path: the holdout is left out unless asked for (not supported here).
        click.echo(f"note: {hidden} holdout question(s) left out", err=True)
        result = without_holdout_rows(result)
    measures = list(dict.fromkeys(data.metrics)) or list(NATIVE_MEASURES)
    if fmt == "json":
        return dumps(native_report_json(result, measures))
    if fmt == "markdown":
        return native_report_markdown(result, measures)
    return native_report_table(result, measures)
