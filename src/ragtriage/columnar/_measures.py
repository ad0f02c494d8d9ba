"""Rank measures computed for every question at once over `RankArrays`.

Per question, each measure gives a numerator and a denominator (as the reference path's
`Score`) or is not applicable: a question with no relevant document has no value for any
rank measure, as an unanswerable question has none in the reference path.

Sums over ranks run left to right, one rank column at a time, so each question's float
additions happen in the same order as a plain per-question loop (`acc += term`): values
are bit-identical to such a loop, not merely close.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, Problem
from ..metrics import PerQuestion
from ..validation import CUTOFF_EXPECTED, parse_cutoff
from ._arrays import RankArrays


def _hits(grades: np.ndarray, k: int) -> np.ndarray:
    hits: np.ndarray = (grades[:, :k] > 0).sum(axis=1, dtype=np.int64)
    return hits


def _recall(a: RankArrays, k: int) -> PerQuestion:
    return PerQuestion(_hits(a.grades, k).astype(np.float64), a.n_relevant.astype(np.float64))


def _precision(a: RankArrays, k: int) -> PerQuestion:
    den = np.where(a.n_relevant > 0, float(k), 0.0)
    return PerQuestion(_hits(a.grades, k).astype(np.float64), den)


def _hit_rate(a: RankArrays, k: int) -> PerQuestion:
    den = (a.n_relevant > 0).astype(np.float64)
    return PerQuestion((_hits(a.grades, k) > 0).astype(np.float64), den)


def _mrr(a: RankArrays, k: int) -> PerQuestion:
    relevant = a.grades[:, :k] > 0
    found = relevant.any(axis=1)
    first = relevant.argmax(axis=1) + 1
    # 1/rank as numerator 1, denominator rank keeps the value exact; a miss is 0/1.
    num = np.asarray(found, dtype=np.float64)
    den: np.ndarray = np.where(found, first, 1).astype(np.float64)
    return PerQuestion(num, np.where(a.n_relevant > 0, den, 0.0))


def _discounts(k: int) -> list[float]:
    # math.log2, not np.log2: numpy's SIMD log2 may differ from libm in the last bit.
    return [math.log2(rank + 1) for rank in range(1, k + 1)]


def _dcg(gains: np.ndarray, k: int) -> np.ndarray:
    acc = np.zeros(gains.shape[0], dtype=np.float64)
    for column, discount in enumerate(_discounts(min(k, gains.shape[1]))):
        acc += gains[:, column] / discount
    return acc


def _ndcg(a: RankArrays, k: int) -> PerQuestion:
    dcg = _dcg(a.grades.clip(min=0), k)
    ideal = _dcg(a.ideal, k)
    return PerQuestion(dcg / np.where(ideal > 0, ideal, 1.0), (a.n_relevant > 0).astype(np.float64))


def _ap(a: RankArrays, k: int) -> PerQuestion:
    relevant = a.grades[:, :k] > 0
    hits = np.zeros(relevant.shape[0], dtype=np.int64)
    acc = np.zeros(relevant.shape[0], dtype=np.float64)
    for column in range(relevant.shape[1]):
        hit = relevant[:, column]
        hits += hit
        acc += np.where(hit, hits / (column + 1), 0.0)
    return PerQuestion(acc, a.n_relevant.astype(np.float64))


@dataclass(frozen=True)
class RankMeasure:
    """A rank measure at a cut-off, e.g. `ndcg@10`."""

    name: str
    """Metric name without the cut-off."""
    k: int
    """Cut-off."""
    compute: Callable[[RankArrays, int], PerQuestion]
    """Vectorised computation."""
    summary: str
    """One line: what it measures."""
    reference: str
    """The registry metric (per-question reference path) it equals."""

    @property
    def label(self) -> str:
        """Canonical name with the cut-off (`ndcg@10`)."""
        return f"{self.name}@{self.k}"

    def per_question(self, arrays: RankArrays) -> PerQuestion:
        """Numerator and denominator for every question."""
        return self.compute(arrays, self.k)


RANK_MEASURES: dict[str, tuple[Callable[[RankArrays, int], PerQuestion], str, str]] = {
    "recall": (
        _recall,
        "relevant documents in the top k / relevant documents",
        "recall_candidates",
    ),
    "precision": (_precision, "relevant documents in the top k / k", "precision"),
    "hit_rate": (_hit_rate, "1 when a relevant document is in the top k, else 0", "hit_rate"),
    "mrr": (_mrr, "1 / rank of the first relevant document within the top k (0 if none)", "mrr"),
    "ndcg": (_ndcg, "DCG@k / ideal DCG@k, linear gain, log2(rank + 1) discount", "ndcg"),
    "ap": (
        _ap,
        "sum of precision at each relevant rank within k / relevant documents",
        "context_precision",
    ),
}
"""Columnar rank measures by name: computation, formula, and the reference-path (registry)
metric it equals. All are macro averages over questions with at least one relevant document."""

ALIASES = {
    "p": "precision",
    "map": "ap",
    "rr": "mrr",
    "recip_rank": "mrr",
    "success": "hit_rate",
    "recall_candidates": "recall",
    "context_precision": "ap",
}
"""Other spellings accepted (trec_eval / ranx names, and the registry's names)."""


def parse_rank_measure(text: str, source: str = "<command line>") -> RankMeasure:
    """Parse `name@k` (e.g. `recall@10`, `P@10`, `map@100`); bad input raises `InputError`."""
    name, sep, raw = text.strip().partition("@")
    key = ALIASES.get(name.lower(), name.lower())
    if key not in RANK_MEASURES:
        known = ", ".join(f"{m}@k" for m in RANK_MEASURES)
        raise InputError([Problem(source, None, "metric", f"one of {known}", repr(text))])
    field = f"metric {key} cut-off"
    if not sep:
        raise InputError([Problem(source, None, field, f"@k, k {CUTOFF_EXPECTED}", repr(text))])
    k = parse_cutoff(raw, source, field)
    compute, summary, reference = RANK_MEASURES[key]
    return RankMeasure(key, k, compute, summary, reference)


def parse_rank_measures(
    texts: Iterable[str], source: str = "<command line>"
) -> tuple[RankMeasure, ...]:
    """Parse several measures, reporting every bad one at once."""
    problems: list[Problem] = []
    out: list[RankMeasure] = []
    for text in texts:
        try:
            out.append(parse_rank_measure(text, source))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return tuple(out)
