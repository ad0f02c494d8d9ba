"""The one console the terminal reports are drawn with: every string is shown as it is.

Question IDs, tags, run names, document IDs and messages come from the files read, so they may
hold anything. rich reads `[...]` in a printed string as markup by default (`[red]x[/red]`
would show as `x`, `[link=...]` would make a link, a stray `[/]` is a traceback) and `:name:`
as an emoji code; this console reads neither.
"""

from __future__ import annotations

from typing import IO, Any

from rich.console import Console
from rich.text import Text


class _InertConsole(Console):
    """A rich console that renders every string as plain text."""

    def render_str(self, text: str, **options: Any) -> Text:
        """The string as text: never markup, never emoji codes."""
        # Table cells and titles are rendered with the options of the call, not the
        # console's, so the console's defaults alone would not be enough.
        options.update(markup=False, emoji=False, highlight=False)
        return super().render_str(text, **options)


def text_console(file: IO[str], width: int) -> Console:
    """A console writing plain text (no colours, no markup) `width` columns wide to `file`."""
    return _InertConsole(
        file=file,
        width=width,
        force_terminal=False,
        color_system=None,
        markup=False,
        emoji=False,
        highlight=False,
    )
