"""The one Markdown table writer of the text reports (evaluation, diagnosis, comparison, gate)."""

from __future__ import annotations

from collections.abc import Sequence


def md_cell(text: str) -> str:
    """`text` as one table cell: pipes escaped, each line end (`\\n`, `\\r\\n` or a lone
    `\\r`, which Markdown also reads as a line end) a space, so the row stays one line."""
    return text.replace("|", "\\|").replace("\r\n", " ").replace("\r", " ").replace("\n", " ")


def md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The lines of a Markdown table; every cell as `md_cell` writes it."""
    lines = ["| " + " | ".join(md_cell(h) for h in header) + " |", "|" + " --- |" * len(header)]
    return lines + ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows]
