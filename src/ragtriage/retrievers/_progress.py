"""Progress bars for indexing and querying (rich, on stderr), or nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

Advance = Callable[[int], None]


class Progress:
    """Progress bars on stderr (rich), or nothing when disabled."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    @contextmanager
    def task(self, label: str, total: int) -> Iterator[Advance]:
        """A bar for one step; yields `advance(n)`."""
        if not self.enabled:
            yield lambda n: None
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress as RichProgress,
            TextColumn,
            TimeElapsedColumn,
        )

        columns = (
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
        )
        with RichProgress(*columns, console=Console(stderr=True), transient=False) as bar:
            handle = bar.add_task(label, total=total)
            yield lambda n: bar.advance(handle, n)
