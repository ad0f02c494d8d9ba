"""Stage-aware and rank-aware retrieval measures at a chosen cut-off k.

Every measure here is not applicable to questions that are not answerable or have no required
evidence (as `evidence_recall`). Retrieved IDs resolve to documents, chunks or spans per the
evidence level the run was evaluated at (reported as `evidence_level`).

Relevance of a ranked item: walking the ranking from the top, an item is relevant when it
satisfies a required group that no earlier item satisfied; it then takes that group (the
highest-graded one when it satisfies several). So alternatives of one group count once, and a
second chunk of an already-found document is not relevant twice. Its gain is the group's grade.

Rank measures read the final ranking: the reranked list when reranking ran, else the candidates.
Formulas follow trec_eval (`P_k`, `recip_rank` on the run cut to k, `ndcg_cut_k` with linear
gain, `map_cut_k`); `context_precision@k` is trec_eval's AP cut at k, divided by the number of
required groups (not by the relevant items retrieved, as Ragas' ID-based variant does), so a
ranking that finds one of three required documents at rank 1 scores 1/3, not 1.

Each measure also has a rank form (`RankForm`): the same values for many rankings at once,
over arrays of grades (`trec-eval`, the columnar path). Its sums over ranks run left to
right, one rank column at a time, so each question's float additions happen in the same
order as the per-question loop: values are bit-identical to it, not merely close. A question
with no relevant item has no value (denominator 0), as an unanswerable question has none.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ._registry import MetricSpec, PerQuestion, RankColumns, RankForm, Score, register

if TYPE_CHECKING:
    from ._views import QuestionView


NOT_APPLICABLE = "not answerable, or no required evidence"


def _applicable(view: QuestionView) -> bool:
    return view.question.answerability == "answerable" and bool(view.question.required_evidence)


def relevance_gains(view: QuestionView, items: Sequence[str]) -> tuple[int, ...]:
    """Per ranked item, the grade of the required group it newly satisfies (0 when none).

    The walk is greedy from the top, so the gains of a prefix are the prefix of the gains.
    """
    groups = view.question.required_evidence
    index, level = view.index, view.level
    documents = (
        [{index.document_of(req) for req in group.any_of} for group in groups]
        if level == "document"
        else None
    )
    open_groups = list(range(len(groups)))
    gains = []
    for item in items:
        best: int | None = None
        doc = index.document_of(item) if documents is not None else ""
        for number in open_groups:
            group = groups[number]
            hit = (
                doc in documents[number]
                if documents is not None
                else any(index.matches(req, item, level) for req in group.any_of)
            )
            if hit and (best is None or group.grade > groups[best].grade):
                best = number
        if best is None:
            gains.append(0)
        else:
            open_groups.remove(best)
            gains.append(groups[best].grade)
    return tuple(gains)


_last: tuple[QuestionView, tuple[int, ...]] | None = None


def _top(view: QuestionView, params: Mapping[str, int]) -> tuple[int, ...]:
    # Several measures ask about the same view in a row: keep the last full-ranking gains.
    global _last
    last = _last
    if last is None or last[0] is not view:
        last = (view, relevance_gains(view, view.ranking))
        _last = last
    return last[1][: params["k"]]


def _recall_candidates(view: QuestionView, params: Mapping[str, int]) -> Score | None:
    if not _applicable(view):
        return None
    found = view.groups_satisfied(view.candidates[: params["k"]])
    return Score(found, len(view.question.required_evidence))


def _recall_reranked(view: QuestionView, params: Mapping[str, int]) -> Score | None:
    if not _applicable(view) or view.reranked is None:
        return None
    found = view.groups_satisfied(view.reranked[: params["k"]])
    return Score(found, len(view.question.required_evidence))


def _hit_rate(view: QuestionView, params: Mapping[str, int]) -> Score | None:
    if not _applicable(view):
        return None
    return Score(int(any(_top(view, params))), 1)


def _mrr(view: QuestionView, params: Mapping[str, int]) -> Score | None:
    if not _applicable(view):
        return None
    for rank, gain in enumerate(_top(view, params), start=1):
        if gain:
            return Score(1 / rank, 1)
    return Score(0, 1)


def _precision(view: QuestionView, params: Mapping[str, int]) -> Score | None:
    if not _applicable(view):
        return None
    return Score(sum(1 for gain in _top(view, params) if gain), params["k"])


def _context_precision(view: QuestionView, params: Mapping[str, int]) -> Score | None:
    if not _applicable(view):
        return None
    total, found = 0.0, 0
    for rank, gain in enumerate(_top(view, params), start=1):
        if gain:
            found += 1
            total += found / rank
    return Score(total, len(view.question.required_evidence))


def _dcg(gains: Sequence[int]) -> float:
    total = 0.0
    for position, gain in enumerate(gains):
        if gain:
            total += gain / math.log2(position + 2)
    return total


def _ndcg(view: QuestionView, params: Mapping[str, int]) -> Score | None:
    if not _applicable(view):
        return None
    ideal = sorted((g.grade for g in view.question.required_evidence), reverse=True)
    return Score(_dcg(_top(view, params)), _dcg(ideal[: params["k"]]))


def _hits(grades: np.ndarray, k: int) -> np.ndarray:
    hits: np.ndarray = (grades[:, :k] > 0).sum(axis=1, dtype=np.int64)
    return hits


def _recall_columns(a: RankColumns, k: int) -> PerQuestion:
    return PerQuestion(_hits(a.grades, k).astype(np.float64), a.n_relevant.astype(np.float64))


def _precision_columns(a: RankColumns, k: int) -> PerQuestion:
    den = np.where(a.n_relevant > 0, float(k), 0.0)
    return PerQuestion(_hits(a.grades, k).astype(np.float64), den)


def _hit_rate_columns(a: RankColumns, k: int) -> PerQuestion:
    den = (a.n_relevant > 0).astype(np.float64)
    return PerQuestion((_hits(a.grades, k) > 0).astype(np.float64), den)


def _mrr_columns(a: RankColumns, k: int) -> PerQuestion:
    relevant = a.grades[:, :k] > 0
    found = relevant.any(axis=1)
    first = relevant.argmax(axis=1) + 1
    # As `_mrr`: 1/rank over 1 (the same IEEE division), a miss 0/1.
    num = np.where(found, 1.0 / first, 0.0)
    return PerQuestion(num, (a.n_relevant > 0).astype(np.float64))


def _dcg_columns(gains: np.ndarray, k: int) -> np.ndarray:
    acc = np.zeros(gains.shape[0], dtype=np.float64)
    # math.log2, not np.log2: numpy's SIMD log2 may differ from libm in the last bit.
    for column in range(min(k, gains.shape[1])):
        acc += gains[:, column] / math.log2(column + 2)
    return acc


def _ndcg_columns(a: RankColumns, k: int) -> PerQuestion:
    dcg = _dcg_columns(a.grades[:, :k].clip(min=0), k)  # only the top k: less memory
    ideal = _dcg_columns(a.ideal, k)
    # As `_ndcg`: DCG over ideal DCG (> 0 whenever a relevant item exists).
    applies = a.n_relevant > 0
    return PerQuestion(np.where(applies, dcg, 0.0), np.where(applies, ideal, 0.0))


def _ap_columns(a: RankColumns, k: int) -> PerQuestion:
    relevant = a.grades[:, :k] > 0
    hits = np.zeros(relevant.shape[0], dtype=np.int64)
    acc = np.zeros(relevant.shape[0], dtype=np.float64)
    for column in range(relevant.shape[1]):
        hit = relevant[:, column]
        hits += hit
        acc += np.where(hit, hits / (column + 1), 0.0)
    return PerQuestion(acc, a.n_relevant.astype(np.float64))


_Compute = Callable[["QuestionView", Mapping[str, int]], Score | None]


def _spec(
    name: str, kind: str, summary: str, formula: str, compute: _Compute, requires: str,
    aliases: tuple[str, ...] = (), rank: RankForm | None = None,
) -> MetricSpec:
    return register(
        MetricSpec(
            name=name,
            layer="retrieval",
            direction="higher",
            averaging="macro",
            kind=kind,  # type: ignore[arg-type]
            summary=summary,
            formula=formula,
            denominator="answerable questions with required evidence (macro average)",
            not_applicable=NOT_APPLICABLE
            + ("; no reranking stage" if name == "recall_reranked" else ""),
            requires=("question.required_evidence", requires),
            compute=compute,
            params=("k",),
            aliases=aliases,
            rank=rank,
        )
    )


# Registered in the order `trec-eval` lists its measures.
RECALL_CANDIDATES = _spec(
    "recall_candidates", "ratio",
    "Share of required evidence groups among the first k candidates (before reranking).",
    "groups satisfied by candidates[:k] / required groups", _recall_candidates, "result.candidates",
    ("recall",),
    RankForm("recall", "relevant documents in the top k / relevant documents", _recall_columns),
)
RECALL_RERANKED = _spec(
    "recall_reranked", "ratio",
    "Share of required evidence groups in the top k after reranking.",
    "groups satisfied by reranked[:k] / required groups", _recall_reranked, "result.reranked",
)
PRECISION = _spec(
    "precision", "ratio",
    "Share of the top k positions of the final ranking holding newly found required evidence.",
    "relevant items in ranking[:k] / k (trec_eval P_k: a shorter ranking still divides by k)",
    _precision, "final ranking",
    ("P",),
    RankForm("precision", "relevant documents in the top k / k", _precision_columns),
)
HIT_RATE = _spec(
    "hit_rate", "boolean",
    "Whether any required evidence is in the top k of the final ranking.",
    "1 when a relevant item is in ranking[:k], else 0", _hit_rate, "final ranking",
    ("success",),
    RankForm(
        "hit_rate", "1 when a relevant document is in the top k, else 0", _hit_rate_columns
    ),
)
MRR = _spec(
    "mrr", "ratio",
    "Reciprocal rank of the first relevant item within the top k of the final ranking.",
    "1 / rank of the first relevant item in ranking[:k]; 0 when none", _mrr, "final ranking",
    ("rr", "recip_rank"),
    RankForm(
        "mrr", "1 / rank of the first relevant document within the top k (0 if none)", _mrr_columns
    ),
)
NDCG = _spec(
    "ndcg", "ratio",
    "Normalised discounted cumulative gain at k, linear gain = evidence grade (trec_eval).",
    "sum grade_r / log2(r + 1) over ranking[:k] / the same for the ideal ordering of groups",
    _ndcg, "final ranking, evidence grades",
    (),
    RankForm(
        "ndcg", "DCG@k / ideal DCG@k, linear gain, log2(rank + 1) discount", _ndcg_columns
    ),
)
CONTEXT_PRECISION = _spec(
    "context_precision", "ratio",
    "Rank-aware precision: average precision over the top k (trec_eval map_cut).",
    "sum over relevant items at rank r <= k of precision@r / required groups",
    _context_precision, "final ranking",
    ("ap", "map"),
    RankForm(
        "ap", "sum of precision at each relevant rank within k / relevant documents", _ap_columns
    ),
)
