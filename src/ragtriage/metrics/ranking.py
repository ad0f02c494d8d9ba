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

Each measure's computation is its rank form (`RankForm`): every ranking at once, over arrays
of grades (`trec-eval`, and the engine's stage rankings, `columnar/_native_rank.py`). Its sums
over ranks run left to right, one rank column at a time, so each question's float additions
happen in rank order, as the plain per-question oracle (`tests/oracle/measures.py`) adds them:
values are bit-identical to it, not merely close. A question with no relevant item has no
value (denominator 0), as an unanswerable question has none.
"""

from __future__ import annotations

import math

import numpy as np

from ._registry import MetricSpec, PerQuestion, RankColumns, RankForm, register

NOT_APPLICABLE = "not answerable, or no required evidence"


def _hits(grades: np.ndarray, k: int) -> np.ndarray:
    hits: np.ndarray = (grades[:, :k] > 0).sum(axis=1, dtype=np.int64)
    return hits


def _recall_columns(a: RankColumns, k: int) -> PerQuestion:
    return PerQuestion(a.found(k).astype(np.float64), a.n_relevant.astype(np.float64))


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
    # 1/rank over 1, a miss 0/1.
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
    # DCG over ideal DCG (> 0 whenever a relevant item exists).
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


def _spec(
    name: str, kind: str, summary: str, formula: str, requires: str,
    aliases: tuple[str, ...] = (), rank: RankForm | None = None,
) -> MetricSpec:
    return register(
        MetricSpec(
            name=name,
            layer="retrieval",
            direction="higher",
            kind=kind,  # type: ignore[arg-type]
            summary=summary,
            formula=formula,
            denominator="answerable questions with required evidence (macro average)",
            not_applicable=NOT_APPLICABLE
            + ("; no reranking stage" if name == "recall_reranked" else ""),
            requires=("question.required_evidence", requires),
            params=("k",),
            aliases=aliases,
            rank=rank,
        )
    )


# Registered in the order `trec-eval` lists its measures.
RECALL_CANDIDATES = _spec(
    "recall_candidates", "ratio",
    "Share of required evidence groups among the first k candidates (before reranking).",
    "groups satisfied by candidates[:k] / required groups", "result.candidates",
    ("recall",),
    RankForm("recall", "relevant documents in the top k / relevant documents", _recall_columns),
)
RECALL_RERANKED = _spec(
    "recall_reranked", "ratio",
    "Share of required evidence groups in the top k after reranking.",
    "groups satisfied by reranked[:k] / required groups", "result.reranked",
)
PRECISION = _spec(
    "precision", "ratio",
    "Share of the top k positions of the final ranking holding newly found required evidence.",
    "relevant items in ranking[:k] / k (trec_eval P_k: a shorter ranking still divides by k)",
    "final ranking",
    ("P",),
    RankForm("precision", "relevant documents in the top k / k", _precision_columns),
)
HIT_RATE = _spec(
    "hit_rate", "boolean",
    "Whether any required evidence is in the top k of the final ranking.",
    "1 when a relevant item is in ranking[:k], else 0", "final ranking",
    ("success",),
    RankForm(
        "hit_rate", "1 when a relevant document is in the top k, else 0", _hit_rate_columns
    ),
)
MRR = _spec(
    "mrr", "ratio",
    "Reciprocal rank of the first relevant item within the top k of the final ranking.",
    "1 / rank of the first relevant item in ranking[:k]; 0 when none", "final ranking",
    ("rr", "recip_rank"),
    RankForm(
        "mrr", "1 / rank of the first relevant document within the top k (0 if none)", _mrr_columns
    ),
)
NDCG = _spec(
    "ndcg", "ratio",
    "Normalised discounted cumulative gain at k, linear gain = evidence grade (trec_eval).",
    "sum grade_r / log2(r + 1) over ranking[:k] / the same for the ideal ordering of groups",
    "final ranking, evidence grades",
    (),
    RankForm(
        "ndcg", "DCG@k / ideal DCG@k, linear gain, log2(rank + 1) discount", _ndcg_columns
    ),
)
CONTEXT_PRECISION = _spec(
    "context_precision", "ratio",
    "Rank-aware precision: average precision over the top k (trec_eval map_cut).",
    "sum over relevant items at rank r <= k of precision@r / required groups",
    "final ranking",
    ("ap", "map"),
    RankForm(
        "ap", "sum of precision at each relevant rank within k / relevant documents", _ap_columns
    ),
)
