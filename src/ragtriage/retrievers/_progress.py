"""Progress bars for indexing and querying (rich, on stderr), or nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .._console import progress_bar

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
        with progress_bar(transient=False) as bar:
            handle = bar.add_task(label, total=total)
            yield lambda n: bar.advance(handle, n)
