"""The Markdown writers of the text reports (evaluation, diagnosis, comparison, gate): one
table writer, one inline text writer, one inline code span writer and one line joiner.

Strings from the files read (run names, question and document IDs, tags, claims, rule names,
and the notes and warnings that name them) enter a report only through `md_text` (inline),
`md_cell` (a table cell) or `md_code` (a code span), never as they are: a Markdown viewer that
renders HTML would run `<script>` or `<img onerror=...>` in them, and one that reads
Markdown would make a link of `[t](https://...)` or emphasis of `*x*`. `md_text` and
`md_cell` write a `<` that could start HTML as `&lt;`, an `&` that could start an entity as
`&amp;` and escape what would be read as markup (`\\*x\\*`, see `_MARKUP`); inside a code
span entities are shown as written and neither HTML nor Markdown is read at all, so `md_code`
needs only a fence its text cannot close. Control and format characters (an escape
sequence, U+202E) are written as their escapes (`\\x1b`, `\\u202e`) everywhere, since the
report may be printed to a terminal. The reports' own words and markup (headings,
`<details>`, "p < 0.05", "<= 0.1") are written as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ._console import visible

_MARKUP = re.compile(
    r"<(?=[A-Za-z/!?])|&(?=#?[A-Za-z0-9]+;)|[\\`*~\[\]$]|_+|:(?=//)|(?<=[Ww]{3})\."
    r"|@(?=[\w-]+\.\w)"
)
"""What in a text a Markdown viewer (CommonMark, GitHub's GFM) would read as markup rather
than show: a `<` starting HTML (a tag, a closing tag, a comment, a declaration, a processing
instruction or an autolink: `<script`, `</`, `<!--`, `<?`, `<https:`); an `&` starting a
character reference (`&lt;`, shown as `<`); a backslash (it could escape what follows); a
backtick (a code span); `*`, `~` and `$` (emphasis, strikethrough, GitHub's math); `[` and
`]` (a link, an image or a footnote); a run of `_` unless it stands between two letters or
digits (`evidence_recall`: inside a word `_` is never emphasis); and what GFM turns into a link
without brackets: the `:` of `https://`, the `.` of `www.`, the `@` of `a@b.example`. A `<`
or `>` that starts no HTML ("p < 0.05", "<= 0.1", "ok -> fail") is written as it is."""


def _escape(match: re.Match[str]) -> str:
    found, text = match.group(), match.string
    if found == "<" or found == "&":
        return "&lt;" if found == "<" else "&amp;"
    before, after = text[match.start() - 1 : match.start()], text[match.end() : match.end() + 1]
    if found[0] == "_" and before.isalnum() and after.isalnum():
        return found
    return "".join("\\" + c for c in found)


def md_text(text: str) -> str:
    """`text` (a string from the files read, or a sentence naming one) as inline Markdown
    text that a viewer shows as written: no HTML (`<script>` written `&lt;script>`), no
    emphasis, link or code span (`\\*`, `\\[`, `\\``, see `_MARKUP`), line ends as spaces."""
    return _one_line(_MARKUP.sub(_escape, text))


def md_cell(text: str) -> str:
    """`text` as one table cell: as `md_text` writes it, pipes escaped too, so the row keeps
    its cells and stays one line (a line end, `\\n`, `\\r\\n` or a lone `\\r`, which
    Markdown also reads as one, is a space). A viewer trims a cell, so a text with space at
    an edge is quoted (`' spaced '`, not shown as `spaced`)."""
    cell = md_text(text).replace("|", "\\|")
    return f"'{cell}'" if cell != cell.strip() else cell


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
    Markdown or HTML), padded with a space where it starts or ends with one or starts and
    ends with a space (a viewer strips one from each end: `` ` base ` `` shows `base`), line
    ends as spaces. Text without backticks is written as `` `text` ``."""
    text = _one_line(text)
    runs = [len(r) for r in re.findall("`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    spaced = text.startswith(" ") and text.endswith(" ") and bool(text.strip(" "))
    pad = " " if spaced or text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The lines of a Markdown table; every cell as `md_cell` writes it."""
    lines = ["| " + " | ".join(md_cell(h) for h in header) + " |", "|" + " --- |" * len(header)]
    return lines + ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows]
