"""`evaluate --algorithm columnar`: the library call and the three renderings."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import click

from ..api import COLUMNAR_UNSUPPORTED, columnar_unsupported, evaluate_columnar
from ..request import Request
from ._dataset import print_notice


def columnar_report(
    request: Request, fmt: str, html: Path | None, all_measures: bool = False
) -> str | Iterable[str]:
    """Evaluate with the columnar algorithm and render in `fmt` (JSON: its text in pieces)."""
    from ..columnar import native_report_markdown, native_report_pieces, native_report_table

    refused = columnar_unsupported(request, also=["--html"] if html is not None else [])
    if refused:
        raise click.UsageError(COLUMNAR_UNSUPPORTED.format(option=", ".join(refused)))
    result, measures = evaluate_columnar(request, notify=print_notice)
    if fmt == "json":
        return native_report_pieces(result, measures)
    if fmt == "markdown":
        return native_report_markdown(result, measures)
    from ._common import terminal_width

    return native_report_table(result, measures, terminal_width(), all_measures=all_measures)
