"""The one console the terminal reports are drawn with: every string is shown as it is.

Question IDs, tags, run names, document IDs and messages come from the files read, so they may
hold anything. rich reads `[...]` in a printed string as markup by default (`[red]x[/red]`
would show as `x`, `[link=...]` would make a link, a stray `[/]` is a traceback) and `:name:`
as an emoji code; this console reads neither. A terminal acts on control and format
characters (an escape sequence clears the screen or sets the window title, a carriage return
overwrites the line, U+202E reverses the text after it, a zero-width space is unseen), so
each is shown as its escape instead, `\\x1b`, `\\u202e`, as `repr` writes it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Sequence
from functools import cache
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:  # rich loads with the first table drawn, not with `ragtriage --help`
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

_INVISIBLE = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\xad\u061c\u180e\u200b-\u200f\u2028-\u202e"
    "\u2060-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff\U000e0000-\U000e007f]"
)
"""Characters a terminal acts on or shows as nothing: control characters but the line end
(C0, DEL, C1), the soft hyphen, zero-width and bidirectional marks, embeddings, overrides and
isolates, line and paragraph separators, the byte-order mark, interlinear annotation marks,
lone surrogates and tag characters."""


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def escaped(text: str, characters: re.Pattern[str]) -> str:
    """`text` with each character `characters` matches written as its escape (`\\x1b`,
    `\\u202e`, as `repr` writes it)."""
    return characters.sub(_escape, text)


def visible(text: str) -> str:
    """`text` with every control, format and separator character but the line end written as
    its escape (`\\x1b`, `\\u202e`), so that a terminal shows it instead of acting on it."""
    return escaped(text, _INVISIBLE)


@cache
def _inert_console() -> type[Console]:
    """A rich console class that renders every string as plain, visible text."""
    from rich.console import Console
    from rich.text import Text

    class InertConsole(Console):
        def render_str(self, text: str, **options: Any) -> Text:
            """The string as text: never markup, never emoji codes, invisible characters
            shown."""
            # Table cells and titles are rendered with the options of the call, not the
            # console's, so the console's defaults alone would not be enough.
            options.update(markup=False, emoji=False, highlight=False)
            return super().render_str(visible(text), **options)

    return InertConsole


def text_console(file: IO[str], width: int) -> Console:
    """A console writing plain text (no colours, no markup) `width` columns wide to `file`."""
    return _inert_console()(
        file=file,
        width=width,
        force_terminal=False,
        color_system=None,
        markup=False,
        emoji=False,
        highlight=False,
    )


def text_table(
    title: str | None,
    header: Sequence[str],
    rows: Iterable[Sequence[str]],
    *,
    wrap_first: bool = True,
    fold: bool = True,
    figures: bool = False,
) -> Table:
    """A table titled `title` (none if None) with a column for each name of `header`, one row
    for each of `rows`, for `console.print`.

    A header name wraps at spaces to fit its column. With `fold`, a cell too long for its
    column wraps inside it instead of widening the table past the terminal; without, it is
    cut with an ellipsis. Without `wrap_first`, the first column (names: a measure, a metric)
    stays whole while the other columns wrap. With `figures`, every column but the first holds
    numbers and is right-justified.
    """
    from rich.table import Table

    table = Table(title=title)
    for index, name in enumerate(header):
        table.add_column(
            name,
            justify="right" if figures and index > 0 else "left",
            overflow="fold" if fold else "ellipsis",
            no_wrap=index == 0 and not wrap_first,
        )
    for row in rows:
        table.add_row(*row)
    return table


def stderr_is_terminal() -> bool:
    """Whether stderr is a terminal, where a progress bar shows (not a CI log, a pipe, a file,
    nor a closed stderr: `2>&-`, which Python holds as None)."""
    return sys.stderr is not None and sys.stderr.isatty()


def progress_bar(*, transient: bool, disable: bool = False) -> Progress:
    """A progress bar on stderr: what it counts, the bar, done of all, the time taken
    (`transient`: erased when it stops)."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        disable=disable,
        transient=transient,
    )
