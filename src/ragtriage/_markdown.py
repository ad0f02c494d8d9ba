"""The Markdown writers of the text reports (evaluation, diagnosis, comparison, gate): one
table writer, one inline text writer, one inline code span writer and one line joiner.

Strings from the files read (run names, question and document IDs, tags, claims, rule names,
and the notes and warnings that name them) enter a report only through `md_text` (inline),
`md_cell` (a table cell) or `md_code` (a code span), never as they are: a Markdown viewer that
renders HTML would run `<script>` or `<img onerror=...>` in them. `md_text` and `md_cell`
write a `<` that could start HTML as `&lt;` (and an `&` that could start an entity as
`&amp;`); inside a code span entities are shown as written and HTML is not read at all, so
`md_code` needs only a fence its text cannot close. Control and format characters (an escape
sequence, U+202E) are written as their escapes (`\\x1b`, `\\u202e`) everywhere, since the
report may be printed to a terminal. The reports' own words and markup (headings,
`<details>`, "p < 0.05", "<= 0.1") are written as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ._console import visible

_HTML_START = re.compile(r"<(?=[A-Za-z/!?])|&(?=#?[A-Za-z0-9]+;)|\\|(?<=!)\[")
"""What in a text could make a Markdown viewer read HTML: a `<` starting a tag, a closing
tag, a comment, a declaration, a processing instruction or an autolink (`<script`, `</`,
`<!--`, `<?`, `<https:`); an `&` starting a character reference (`&lt;`, which would be shown
as `<`); a backslash (which could escape the `&` of the entity written for the `<`); the `[`
of an image (`![x](https://...)`, an `<img>` loading what the name points at), written `\\[`.
A `<` or `>` that starts none of these ("p < 0.05", "<= 0.1", "ok -> fail") is no HTML to any
viewer and is written as it is."""

_ESCAPED = {"<": "&lt;", "&": "&amp;", "\\": "\\\\", "[": "\\["}


def _no_html(text: str) -> str:
    return _HTML_START.sub(lambda m: _ESCAPED[m.group()], text)


def md_text(text: str) -> str:
    """`text` (a string from the files read, or a sentence naming one) as inline Markdown
    text: no HTML (`<script>` written `&lt;script>`, see `_HTML_START`), a backtick escaped
    (it could open a code span that a code span of the line would close, leaving that span's
    text to be read as Markdown), line ends as spaces."""
    return _one_line(_no_html(text).replace("`", "\\`"))


def md_cell(text: str) -> str:
    """`text` as one table cell: as `md_text` writes it, pipes escaped too, so the row keeps
    its cells and stays one line (a line end, `\\n`, `\\r\\n` or a lone `\\r`, which
    Markdown also reads as one, is a space)."""
    return md_text(text).replace("|", "\\|")


def _one_line(text: str) -> str:
    # A Markdown report is printed to a terminal too: control and format characters are
    # written as their escapes (`\x1b`, `\u202e`), as the terminal tables write them.
    return visible(text.replace("\r\n", " ").replace("\r", " ").replace("\n", " "))


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
