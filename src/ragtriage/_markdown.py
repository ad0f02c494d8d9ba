"""The Markdown writers of the text reports (evaluation, diagnosis, comparison, gate): one
table writer and one inline code span writer."""

from __future__ import annotations

import re
from collections.abc import Sequence


def md_cell(text: str) -> str:
    """`text` as one table cell: pipes escaped, each line end (`\\n`, `\\r\\n` or a lone
    `\\r`, which Markdown also reads as a line end) a space, so the row stays one line."""
    return text.replace("|", "\\|").replace("\r\n", " ").replace("\r", " ").replace("\n", " ")


def md_code(text: str) -> str:
    """`text` as one inline code span: fenced with one backtick more than its longest run of
    backticks (so a backtick in a run name cannot end the span and let the rest be read as
    Markdown or HTML), padded with a space where it starts or ends with one, line ends as
    spaces. Text without backticks is written as `` `text` ``."""
    text = text.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")
    runs = [len(r) for r in re.findall("`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The lines of a Markdown table; every cell as `md_cell` writes it."""
    lines = ["| " + " | ".join(md_cell(h) for h in header) + " |", "|" + " --- |" * len(header)]
    return lines + ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows]
