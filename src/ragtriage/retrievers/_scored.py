"""A ranking of units with scores, best first, with ties broken by unit ID."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class Scored:
    """One ranked unit."""

    unit: int
    """Position of the unit in the index's unit list."""
    score: float
    """The stage's score (higher is better)."""


def top(
    scores: npt.NDArray[np.float32],
    order_key: npt.NDArray[np.int64],
    depth: int,
    *,
    positive_only: bool,
    allowed: npt.NDArray[np.bool_] | None = None,
) -> list[Scored]:
    """The `depth` best units by score; equal scores are ordered by `order_key` (ID order).

    `allowed` (one flag per unit) removes units before ranking, as a retrieval filter does.
    """
    keep = scores > 0 if positive_only else np.ones(len(scores), dtype=bool)
    if allowed is not None:
        keep &= allowed
    candidates = np.flatnonzero(keep)
    if len(candidates) == 0:
        return []
    # Sort by score descending, then by ID rank: the same inputs always give the same order.
    order = np.lexsort((order_key[candidates], -scores[candidates].astype(np.float64)))
    chosen = candidates[order[:depth]]
    return [Scored(int(i), float(scores[i])) for i in chosen]
