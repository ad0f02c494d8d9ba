"""A ranking of units with scores, best first, with ties broken by unit ID."""

from __future__ import annotations

from collections.abc import Iterable
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


SCORE_DECIMALS = 6
"""Decimals a run records a score to. Units are ranked by the score as recorded, so scores
recorded alike are a tie, broken by unit ID as the run shows them."""


def recorded(score: float) -> float:
    """A score as the run records it."""
    return round(score, SCORE_DECIMALS)


def best_first(items: Iterable[Scored], order_key: npt.NDArray[np.int64]) -> list[Scored]:
    """`items` by recorded score, best first; scores recorded alike in ID order."""
    return sorted(items, key=lambda item: (-recorded(item.score), int(order_key[item.unit])))


def top(
    scores: npt.NDArray[np.float32],
    order_key: npt.NDArray[np.int64],
    depth: int,
    *,
    positive_only: bool,
    allowed: npt.NDArray[np.bool_] | None = None,
) -> list[Scored]:
    """The `depth` best units by score as recorded (rounded to `SCORE_DECIMALS`, the score
    they carry); scores recorded alike are ordered by `order_key` (ID order).

    `allowed` (one flag per unit) removes units before ranking, as a retrieval filter does.
    """
    keep = scores > 0 if positive_only else np.ones(len(scores), dtype=bool)
    if allowed is not None:
        keep &= allowed
    candidates = np.flatnonzero(keep)
    if len(candidates) == 0:
        return []
    # Sort by score descending, then by ID rank: the same inputs always give the same order.
    rounded = np.round(scores[candidates].astype(np.float64), SCORE_DECIMALS)
    order = np.lexsort((order_key[candidates], -rounded))[:depth]
    return [Scored(int(candidates[n]), float(rounded[n])) for n in order]
