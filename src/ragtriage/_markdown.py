"""The one Markdown table writer of the text reports (evaluation, diagnosis, comparison)."""

from __future__ import annotations

from collections.abc import Sequence


def md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The lines of a Markdown table; pipes are escaped and newlines become spaces."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + " --- |" * len(header)]
    return lines + ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
