"""The bootstrap as first written, kept as the oracle of `ragtriage.compare`'s faster one.

It draws the same random numbers in the same order (one seeded stream per label, batches of
the same size), so the faster arithmetic must give the same interval bit for bit. Unlike
`two_level_oracle`, agreement here is draw for draw, not distributional.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ragtriage.compare import PairedSample
from ragtriage.compare._stats import _BATCH_CELLS, expanded_tail, seeded_rng

FloatArray = NDArray[np.float64]


def _compact(num: FloatArray, den: FloatArray) -> tuple[FloatArray, FloatArray, NDArray[np.int64]]:
    order = np.argsort(np.isnan(num), axis=1, kind="stable")
    num_c = np.take_along_axis(num, order, axis=1)
    den_c = np.take_along_axis(den, order, axis=1)
    counts = (~np.isnan(num)).sum(axis=1).astype(np.int64)
    return np.nan_to_num(num_c), np.nan_to_num(den_c), counts


def _copy_draw(
    rng: np.random.Generator,
    num: FloatArray,
    den: FloatArray,
    counts: NDArray[np.int64],
    picks: NDArray[np.int64],
) -> tuple[FloatArray, FloatArray]:
    width = num.shape[1]
    copies = counts[picks]
    uniform = rng.random((*picks.shape, width))
    chosen = np.minimum((uniform * copies[..., None]).astype(np.int64), copies[..., None] - 1)
    used = np.arange(width)[None, None, :] < copies[..., None]
    cells = picks[..., None] * width + chosen
    draw_num = np.where(used, num.ravel()[cells], 0.0).sum(axis=2) / copies
    draw_den = np.where(used, den.ravel()[cells], 0.0).sum(axis=2) / copies
    return draw_num.sum(axis=1), draw_den.sum(axis=1)


def bootstrap_bounds(
    sample: PairedSample, *, resamples: int, seed: int, label: str, level: float = 0.95
) -> tuple[float, float]:
    """The interval's (low, high) as the first implementation computed it."""
    rng = seeded_rng(seed, "bootstrap:" + label)
    n = sample.size
    if sample.repeated:
        base = _compact(sample.base_num, sample.base_den)
        cand = _compact(sample.cand_num, sample.cand_den)
        width = max(sample.base_num.shape[1], sample.cand_num.shape[1])
    else:
        bn, bd = sample.base_num[:, 0], sample.base_den[:, 0]
        cn, cd = sample.cand_num[:, 0], sample.cand_den[:, 0]
        width = 1
    batch = max(1, _BATCH_CELLS // max(1, n * width * (4 if sample.repeated else 2)))
    stats: list[FloatArray] = []
    done = 0
    while done < resamples:
        size = min(batch, resamples - done)
        picks = rng.integers(0, n, (size, n))
        if sample.repeated:
            bn2, bd2 = _copy_draw(rng, *base, picks)
            cn2, cd2 = _copy_draw(rng, *cand, picks)
        else:
            bn2, bd2, cn2, cd2 = (a[picks].sum(1) for a in (bn, bd, cn, cd))
        stats.append(cn2 / cd2 - bn2 / bd2)
        done += size
    tail = expanded_tail(level, n)
    low, high = np.quantile(np.concatenate(stats), [tail, 1.0 - tail])
    return float(low), float(high)
