"""pyarrow for the fast TREC reader, one set of handles for every columnar module.

Imported at first use: the default install has no pyarrow, and the first use without it
raises `MissingExtra` naming ragtriage[trec].
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._optional import extra_module

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    Batch = tuple[pa.Array, pa.Array, np.ndarray]
    """A run's rows in a batch: question IDs, document IDs and scores."""
else:
    pa = extra_module("pyarrow", "trec", "the fast TREC reader")
    pc = extra_module("pyarrow.compute", "trec", "the fast TREC reader")
    pcsv = extra_module("pyarrow.csv", "trec", "the fast TREC reader")

__all__ = ["pa", "pc", "pcsv"]
