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

    What the block made and kept is handed to the oldest generation when it ends, not
    scanned there and then: resumed, the collector would first scan every object made in
    the block as young (half a second at 100,000 questions). The oldest generation is
    scanned, as before, when it has grown enough. Where the program has frozen objects
    itself (`gc.freeze`), they are left frozen and the block's objects stay young.
    """
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            if not gc.get_freeze_count():
                gc.freeze()  # every tracked object, the block's included, set aside ...
                gc.unfreeze()  # ... and back, into the oldest generation
            gc.enable()
