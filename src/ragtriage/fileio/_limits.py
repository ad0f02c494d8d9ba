"""How large and how deep an input file may be: far above any real file, far below a machine."""

from __future__ import annotations

from ..errors import NumberRange

MIB = 1024 * 1024

MAX_DOCUMENT_BYTES = 256 * MIB
"""One JSON or TOML document (a whole `.json` or `.toml` file), or one text file read whole."""

MAX_LINE_BYTES = 64 * MIB
"""One line of a JSONL or TREC file."""

MAX_DEPTH = 200
"""Nesting of arrays and objects (tables) in one JSON value or TOML document."""

MAX_INT_DIGITS = 4300
"""Digits of one integer (Python's own bound on converting text to an integer)."""

MIN_GRADE, MAX_GRADE = -(2**31), 2**31 - 1
"""The relevance grades an evaluation set or a TREC qrels file may give: the engine holds
grades as 32-bit integers."""

MAX_CUTOFF = 10_000
"""Largest cut-off accepted anywhere (`-k`, `ndcg@k`, `recall@k`, a run's `provenance.k` ...):
deeper rankings are not judged in practice, and a bound keeps a typo such as `@1000000000`
from allocating."""
CUTOFF_RANGE = NumberRange(1, MAX_CUTOFF)
"""Every cut-off's range, and a ranking depth's (`--candidates`, `--rerank-depth`)."""


def size_text(size: int) -> str:
    """A byte count as a person reads it: `256 MiB`, `1.5 MiB`, `312 bytes`."""
    if size < MIB:
        return f"{size} bytes"
    mib = size / MIB
    return f"{mib:.0f} MiB" if mib == int(mib) else f"{mib:.1f} MiB"
