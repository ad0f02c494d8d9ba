"""The Markdown writers of the text reports (evaluation, diagnosis, comparison, gate): one
table writer, one inline code span writer and one line joiner."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence


def md_cell(text: str) -> str:
    """`text` as one table cell: pipes escaped, each line end (`\\n`, `\\r\\n` or a lone
    `\\r`, which Markdown also reads as a line end) a space, so the row stays one line."""
    return _one_line(text.replace("|", "\\|"))


def _one_line(text: str) -> str:
    return text.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")


def md_lines(lines: Iterable[str]) -> str:
    """The document of `lines`, each one line of it: a line end inside one (from a run name
    or a question ID) becomes a space, so a name cannot start a heading or a block of its
    own."""
    return "\n".join(_one_line(line) for line in lines)


def md_code(text: str) -> str:
    """`text` as one inline code span: fenced with one backtick more than its longest run of
    backticks (so a backtick in a run name cannot end the span and let the rest be read as
    Markdown or HTML), padded with a space where it starts or ends with one, line ends as
    spaces. Text without backticks is written as `` `text` ``."""
    text = _one_line(text)
    runs = [len(r) for r in re.findall("`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The lines of a Markdown table; every cell as `md_cell` writes it."""
    lines = ["| " + " | ".join(md_cell(h) for h in header) + " |", "|" + " --- |" * len(header)]
    return lines + ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows]
