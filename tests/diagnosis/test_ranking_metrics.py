"""Stage-aware and rank-aware retrieval measures: hand-computed values and trec_eval agreement."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
import pytrec_eval
from diagnosis_builders import claim, doc, make_dataset, question, result

from ragtriage.columnar import evaluate
from ragtriage.metrics import REGISTRY, parse_measure

RANK_METRICS = (
    "recall_candidates", "recall_reranked", "hit_rate", "mrr", "precision",
    "context_precision", "ndcg",
)


def _scores(data: Any, names: list[str]) -> dict[str, dict[str, float | None]]:
    [run] = evaluate(data, metrics=names).runs
    return {
        rec.question_id: {n: (None if s is None else s.value) for n, s in rec.scores.items()}
        for rec in run.questions
    }


def test_registry_entries() -> None:
    for name in RANK_METRICS:
        spec = REGISTRY[name]
        assert (spec.layer, spec.direction, spec.averaging, spec.params) == (
            "retrieval", "higher", "macro", ("k",)
        )
    assert REGISTRY["hit_rate"].kind == "boolean"
    assert parse_measure("ndcg@10").name == "ndcg@10"


def test_alternatives_count_once_and_hand_values() -> None:
    # Groups: {a | b} and {c}. Ranking b, a, c, x: `a` satisfies an already-found group.
    data = make_dataset(
        [doc(i) for i in "abcx"],
        [question("q", evidence=[["a", "b"], ["c"]])],
        {"r": [result("q", ["b", "a", "c", "x"], claims=[claim(["b"], support=["b"])])]},
        k=4,
    )
    names = [f"{m}@4" for m in RANK_METRICS] + ["recall_candidates@1", "mrr@1"]
    got = _scores(data, names)["q"]
    assert got == {
        "recall_candidates@4": 1.0,
        "recall_reranked@4": None,  # no reranking stage ran
        "hit_rate@4": 1.0,
        "mrr@4": 1.0,
        "precision@4": 0.5,
        "context_precision@4": (1 / 1 + 2 / 3) / 2,
        "ndcg@4": (1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3)),
        "recall_candidates@1": 0.5,
        "mrr@1": 1.0,
    }


def test_graded_ndcg_and_reranked_list() -> None:
    q = question("q", evidence=[["a"], ["b"]])
    q["required_evidence"][0]["grade"] = 3
    data = make_dataset(
        [doc(i) for i in "abx"],
        [q],
        {"r": [result("q", ["a", "x", "b"], reranked=["x", "b", "a"], outcome=None)]},
        k=3,
    )
    got = _scores(data, ["ndcg@3", "recall_reranked@1", "recall_reranked@2", "mrr@3",
                         "recall_candidates@2", "precision@3"])["q"]
    assert got == {
        "ndcg@3": (1 / math.log2(3) + 3 / math.log2(4)) / (3 + 1 / math.log2(3)),
        "recall_reranked@1": 0.0,
        "recall_reranked@2": 0.5,
        "mrr@3": 0.5,
        "recall_candidates@2": 0.5,
        "precision@3": 2 / 3,
    }


def test_chunks_resolve_to_documents() -> None:
    chunks = [
        {"id": "a#1", "document_id": "a", "start": 0, "end": 4},
        {"id": "a#2", "document_id": "a", "start": 4, "end": 9},
    ]
    data = make_dataset(
        [doc("a"), doc("b")],
        [question("q", evidence=[["a"]])],
        {"r": [result("q", ["a#1", "a#2", "b"], outcome=None)]},
        k=3,
        chunks=chunks,
    )
    got = _scores(data, ["precision@3", "context_precision@3", "recall_candidates@3"])["q"]
    # The second chunk of the same document is not relevant twice.
    assert got == {"precision@3": 1 / 3, "context_precision@3": 1.0, "recall_candidates@3": 1.0}
    [run] = evaluate(data, metrics=["precision@3"]).runs
    assert run.evidence_level == "document"


def test_not_applicable_and_short_rankings() -> None:
    data = make_dataset(
        [doc("a"), doc("x")],
        [
            question("none", "unanswerable"),
            question("clarify", "needs_clarification"),
            question("short", evidence=[["a"]]),
            question("empty", evidence=[["a"]]),
        ],
        {
            "r": [
                result("none", ["a"], outcome="refused"),
                result("clarify", ["a"], outcome=None),
                result("short", ["a"], outcome=None),
                result("empty", [], outcome=None),
            ]
        },
        k=5,
    )
    names = [f"{m}@5" for m in RANK_METRICS]
    got = _scores(data, names)
    assert got["none"] == dict.fromkeys(names)
    assert got["clarify"] == dict.fromkeys(names)
    # trec_eval's P_k divides by k even when fewer items were ranked.
    assert got["short"]["precision@5"] == 0.2
    assert got["empty"] == {**dict.fromkeys(names, 0.0), "recall_reranked@5": None}
    [run] = evaluate(data, metrics=["ndcg@5"]).runs
    agg = run.summary["ndcg@5"]
    assert (agg.value, agg.numerator, agg.denominator, agg.not_applicable) == (0.5, 1, 2, 2)


Generated = tuple[Any, dict[str, dict[str, int]], dict[str, list[str]]]


def _generated(n_questions: int, seed: int) -> Generated:
    rng = random.Random(seed)
    pool = [f"d{i:03d}" for i in range(200)]
    questions, results, qrels, rankings = [], [], {}, {}
    for number in range(n_questions):
        qid = f"q{number:04d}"
        required = rng.sample(pool, rng.randint(1, 4))
        grades = {d: rng.randint(1, 3) for d in required}
        ranking = rng.sample(pool, rng.randint(1, 25))
        # Pull some required documents into the ranking at random places.
        for d in required:
            if d not in ranking and rng.random() < 0.6:
                ranking.insert(rng.randint(0, len(ranking)), d)
        q = question(qid, evidence=[[d] for d in required])
        for group, d in zip(q["required_evidence"], required, strict=True):
            group["grade"] = grades[d]
        questions.append(q)
        results.append(result(qid, ranking, outcome=None))
        qrels[qid] = grades
        rankings[qid] = ranking
    return make_dataset([doc(d) for d in pool], questions, {"r": results}, k=10), qrels, rankings


@pytest.mark.parametrize("k", [1, 3, 5, 10, 20])
def test_agrees_exactly_with_trec_eval(k: int) -> None:
    data, qrels, rankings = _generated(1200, seed=20261130 + k)
    names = [f"{m}@{k}" for m in ("recall_candidates", "precision", "ndcg", "context_precision",
                                  "mrr", "hit_rate")]
    ours = _scores(data, names)
    # Tie-free scores: rank r gets 1000 - r. recip_rank ignores cut-offs: cut the run first.
    full = {q: {d: 1000.0 - r for r, d in enumerate(items)} for q, items in rankings.items()}
    cut = {q: {d: 1000.0 - r for r, d in enumerate(items[:k])} for q, items in rankings.items()}
    measures = {f"recall.{k}", f"P.{k}", f"ndcg_cut.{k}", f"map_cut.{k}", f"success.{k}"}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(full)
    theirs_rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(cut)
    assert len(theirs) == len(ours) == 1200
    mismatches = []
    for qid, values in ours.items():
        expected = {
            f"recall_candidates@{k}": theirs[qid][f"recall_{k}"],
            f"precision@{k}": theirs[qid][f"P_{k}"],
            f"ndcg@{k}": theirs[qid][f"ndcg_cut_{k}"],
            f"context_precision@{k}": theirs[qid][f"map_cut_{k}"],
            f"mrr@{k}": theirs_rr[qid]["recip_rank"],
            f"hit_rate@{k}": theirs[qid][f"success_{k}"],
        }
        if values != expected:
            mismatches.append((qid, values, expected))
    assert mismatches == []
