"""Reciprocal-rank fusion of several rankings."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ._scored import Scored, best_first

RRF_C = 60
"""The fusion constant: a unit at rank r (from 1) adds 1 / (RRF_C + r) per ranking."""


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[Scored]],
    order_key: npt.NDArray[np.int64],
    depth: int,
    c: int = RRF_C,
) -> list[Scored]:
    """Fuse rankings by summed reciprocal ranks; ties (as recorded) ordered by unit ID; the best
    `depth` kept."""
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            fused[item.unit] = fused.get(item.unit, 0.0) + 1.0 / (c + rank)
    return best_first((Scored(unit, score) for unit, score in fused.items()), order_key)[:depth]
