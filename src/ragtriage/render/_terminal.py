"""The width terminal tables are laid out for."""

from __future__ import annotations

import os

MIN_WIDTH = 80
"""Terminal tables are never narrower than this (a narrower terminal folds the lines)."""
MAX_WIDTH = 200
"""Terminal tables are never wider than this, and this wide when no terminal is attached."""


def terminal_width() -> int:
    """The width terminal tables are laid out for, clamped to 80-200 columns.

    `COLUMNS` (a positive integer) wins; else the width of the terminal that stdout, stderr
    or stdin is attached to (so `ragtriage evaluate ... | less` still fits the screen);
    else 200: with no terminal (a file, CI logs) nothing is folded that need not be.
    """
    raw = os.environ.get("COLUMNS", "").strip()
    width = int(raw) if raw.isdecimal() and int(raw) > 0 else None
    if width is None:
        for fd in (1, 2, 0):
            try:
                width = os.get_terminal_size(fd).columns
            except OSError:
                continue
            break
    if not width:
        return MAX_WIDTH
    return max(MIN_WIDTH, min(MAX_WIDTH, width))
