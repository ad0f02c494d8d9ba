"""Python's cycle collector paused for work that makes many small objects without cycles."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused (when it runs) for the block, then resumed.

    For a block that makes many small acyclic objects (reference counting frees them): the
    collector finds nothing among them, yet each of its passes scans every live object,
    an evaluation's millions included (it took about half the engine's CPU time at 20,000
    questions, and a third of writing a JSON report's questions).
    """
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            gc.enable()
