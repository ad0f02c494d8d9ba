"""Evidence groups sharing a unit, and span-level evidence, scored by the arrays.

Hand-computed cases: each value below is worked out in the comment above it, then checked
three ways: the engine on the files (`_on_files` itself; the package matches evidence only in
its arrays, so the numbers can only come from them), the engine on the files read by the
loader, and the oracle.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ragtriage.columnar import _native_eval, evaluate
from ragtriage.evaluation import Evaluation
from ragtriage.loading import load_dataset
from ragtriage.metrics import measures

from . import evaluate_files, measure_names
from .engines import compare_readers, compare_with_oracle
from .strategies import write

KS = (1, 2, 3)
NAMES = measure_names(KS)
LOG3 = math.log2(3)

TEXT = "0123456789" * 3
SNAPSHOT: dict[str, Any] = {
    "schema_version": 1, "kind": "snapshot", "snapshot_id": "s",
    "documents": [{"id": d, "text": TEXT} for d in ("d1", "d2", "d3")],
    "chunks": [
        {"id": "c1", "document_id": "d1", "start": 0, "end": 10},
        {"id": "c2", "document_id": "d1", "start": 10, "end": 20},  # touches c1
        {"id": "c3", "document_id": "d1", "start": 2, "end": 5},  # inside c1
        {"id": "c4", "document_id": "d2", "start": 0, "end": 10},  # c1's span, other document
        {"id": "c5", "document_id": "d1", "start": 5, "end": 15},  # overlaps c1 and c2
    ],
}


def _group(any_of: list[str], grade: int = 1) -> dict[str, Any]:
    return {"any_of": any_of, "grade": grade}


def _files(
    tmp_path: Path, questions: list[tuple[list[dict[str, Any]], list[str], list[str] | None]]
) -> tuple[Path, Path, Path]:
    """(evaluation set, snapshot, run): question qN requires the groups, the run ranks the
    candidates (and the reranked list, if any); k = 1, retrieval only."""
    evalset = {"schema_version": 1, "kind": "evalset", "evalset_id": "e", "questions": [
        {"id": f"q{n}", "text": f"q{n}?", "answerability": "answerable",
         "required_evidence": groups}
        for n, (groups, _, _) in enumerate(questions, start=1)
    ]}
    results = []
    for n, (_, candidates, reranked) in enumerate(questions, start=1):
        result: dict[str, Any] = {"question_id": f"q{n}",
                                  "candidates": [{"id": i} for i in candidates]}
        if reranked is not None:
            result["reranked"] = [{"id": i} for i in reranked]
        results.append(result)
    run = {"schema_version": 1, "kind": "run", "name": "r", "provenance": {"k": 1},
           "results": results}
    return (write(evalset, tmp_path / "e.json"), write(SNAPSHOT, tmp_path / "s.json"),
            write(run, tmp_path / "r.json"))


def _three(paths: tuple[Path, Path, Path], level: str) -> Evaluation:
    """The engine's evaluation of the files, checked equal to the engine's on the files read
    by the loader, and that to the oracle's."""
    evalset, snapshot, run = paths
    read = _native_eval._on_files(
        evalset, snapshot, [run], measures(NAMES), evidence_level=level, workers=1
    )
    loaded = evaluate(load_dataset(evalset, snapshot=snapshot, runs=[run]), metrics=NAMES,
                      evidence_level=level)  # the same engine, the files read by the loader
    oracle = evaluate_files(evalset, snapshot, [run], evidence_level_choice=level, rank_ks=KS)
    assert compare_with_oracle(oracle, loaded) == []
    assert compare_readers(read, loaded) == []
    return read


Pair = tuple[float, float] | None


def _scores(evaluation: Evaluation, names: list[str]) -> dict[str, list[Pair]]:
    """Per measure, every question's (numerator, denominator), None when not applicable."""
    records = evaluation.runs[0].questions
    return {
        name: [
            None if (s := r.scores[name]) is None else (s.numerator, s.denominator)
            for r in records
        ]
        for name in names
    }


def _findings(evaluation: Evaluation) -> list[dict[str, tuple[str, ...]]]:
    return [{f.stage: f.ids for f in q.findings} for q in evaluation.runs[0].diagnosis.questions]


def test_a_document_in_two_groups_takes_the_higher_grade_then_ties_the_first(
    tmp_path: Path,
) -> None:
    native = _three(_files(tmp_path, [
        # q1: d1 satisfies A (grade 1) and B (grade 3): it takes B; d2 then takes A.
        # Gains [0, 3, 1]; recall counts both groups at d1's rank.
        ([_group(["d1", "d2"], 1), _group(["d1"], 3)], ["d3", "d1", "d2"], None),
        # q2: a tie (grade 2 both): d1 takes the first group, A; d2 then takes B: [2, 2].
        ([_group(["d1"], 2), _group(["d1", "d2"], 2)], ["d1", "d2"], None),
        # q3: the groups the other way round: d1 takes A, which d2 alone satisfies: [2, 0].
        ([_group(["d1", "d2"], 2), _group(["d1"], 2)], ["d1", "d2"], None),
    ]), "auto")
    assert _scores(native, ["recall_candidates@1", "recall_candidates@2", "precision@1",
                            "precision@2", "precision@3", "hit_rate@1", "mrr@3"]) == {
        "recall_candidates@1": [(0, 2), (2, 2), (2, 2)],
        "recall_candidates@2": [(2, 2), (2, 2), (2, 2)],
        "precision@1": [(0, 1), (1, 1), (1, 1)],
        "precision@2": [(1, 2), (2, 2), (1, 2)],
        "precision@3": [(2, 3), (2, 3), (1, 3)],
        "hit_rate@1": [(0, 1), (1, 1), (1, 1)],
        "mrr@3": [(1 / 2, 1), (1, 1), (1, 1)],
    }
    assert _scores(native, ["ndcg@2", "ndcg@3", "context_precision@3"]) == {
        "ndcg@2": [(3 / LOG3, 3 + 1 / LOG3), (2 + 2 / LOG3, 2 + 2 / LOG3),
                   (2, 2 + 2 / LOG3)],
        "ndcg@3": [(3 / LOG3 + 1 / 2, 3 + 1 / LOG3), (2 + 2 / LOG3, 2 + 2 / LOG3),
                   (2, 2 + 2 / LOG3)],
        "context_precision@3": [(1 / 2 + 2 / 3, 2), (2, 2), (1, 2)],
    }
    # k = 1: the context is the first candidate; d1 alone holds both groups.
    assert _scores(native, ["evidence_recall", "recall_reranked@3"]) == {
        "evidence_recall": [(0, 2), (2, 2), (2, 2)],
        "recall_reranked@3": [None, None, None],
    }
    assert _findings(native) == [{"truncation_loss": ("d1",)}, {}, {}]


def test_a_chunk_in_two_groups_at_every_stage(tmp_path: Path) -> None:
    native = _three(_files(tmp_path, [
        # Candidates [c1, c2, d1]: c1 satisfies A (1) and B (2), takes B; c2 finds B taken;
        # a document is not its chunk at chunk level. Reranked [c2, c1]: c2 takes B, c1 A.
        ([_group(["c1"], 1), _group(["c1", "c2"], 2)], ["c1", "c2", "d1"], ["c2", "c1"]),
        ([_group(["c1"])], ["d1", "c3"], None),
    ]), "auto")
    assert _scores(native, ["recall_candidates@1", "recall_reranked@1", "recall_reranked@2",
                            "precision@1", "precision@3", "mrr@1", "ndcg@2",
                            "context_precision@2", "evidence_recall"]) == {
        "recall_candidates@1": [(2, 2), (0, 1)],
        "recall_reranked@1": [(1, 2), None],
        "recall_reranked@2": [(2, 2), None],
        "precision@1": [(1, 1), (0, 1)],
        "precision@3": [(2, 3), (0, 3)],
        "mrr@1": [(1, 1), (0, 1)],
        "ndcg@2": [(2 + 1 / LOG3, 2 + 1 / LOG3), (0, 1)],
        "context_precision@2": [(2, 2), (0, 1)],
        "evidence_recall": [(1, 2), (0, 1)],
    }
    assert _findings(native) == [{"truncation_loss": ("c1",)}, {"retrieval_miss": ("c1",)}]


def test_spans_overlap_strictly_within_one_document(tmp_path: Path) -> None:
    native = _three(_files(tmp_path, [
        ([_group(["c1"])], ["c2"], None),  # [0, 10) and [10, 20) touch: no overlap
        ([_group(["c1"])], ["c3"], None),  # [2, 5) inside [0, 10)
        ([_group(["c1"])], ["c4"], None),  # [0, 10) of another document
        ([_group(["c1"])], ["d1"], None),  # the required chunk's document
        ([_group(["d1"])], ["c2"], None),  # a chunk of the required document
        ([_group(["c3"])], ["c1"], None),  # [0, 10) holds [2, 5)
        # c3 takes A (it overlaps c1); c5 = [5, 15) overlaps c1 and c2, takes B (A is taken).
        ([_group(["c1"], 1), _group(["c2"], 3)], ["c3", "c5"], None),
        # c5 first: it takes B, the higher grade; c3 then takes A.
        ([_group(["c1"], 1), _group(["c2"], 3)], ["c5", "c3"], None),
        # c5 overlaps both alternatives of one group: one relevant item.
        ([_group(["c1", "c2"])], ["c5", "c3"], None),
    ]), "span")
    assert _scores(native, ["recall_candidates@1", "recall_candidates@2", "precision@2",
                            "ndcg@2", "context_precision@2", "evidence_recall"]) == {
        "recall_candidates@1": [(0, 1), (1, 1), (0, 1), (1, 1), (1, 1), (1, 1), (1, 2), (2, 2),
                                (1, 1)],
        "recall_candidates@2": [(0, 1), (1, 1), (0, 1), (1, 1), (1, 1), (1, 1), (2, 2), (2, 2),
                                (1, 1)],
        "precision@2": [(0, 2), (1, 2), (0, 2), (1, 2), (1, 2), (1, 2), (2, 2), (2, 2),
                        (1, 2)],
        "ndcg@2": [(0, 1), (1, 1), (0, 1), (1, 1), (1, 1), (1, 1),
                   (1 + 3 / LOG3, 3 + 1 / LOG3), (3 + 1 / LOG3, 3 + 1 / LOG3), (1, 1)],
        "context_precision@2": [(0, 1), (1, 1), (0, 1), (1, 1), (1, 1), (1, 1), (2, 2), (2, 2),
                                (1, 1)],
        "evidence_recall": [(0, 1), (1, 1), (0, 1), (1, 1), (1, 1), (1, 1), (1, 2), (2, 2),
                            (1, 1)],
    }
    assert _findings(native) == [
        {"retrieval_miss": ("c1",)}, {}, {"retrieval_miss": ("c1",)}, {}, {}, {},
        {"truncation_loss": ("c5",)}, {}, {},
    ]
