"""Stage split over native runs: columnar arrays give the reference path's exact values."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ragtriage.columnar._native import retrieval_scores, stage_arrays
from ragtriage.evaluation import evaluate
from ragtriage.loading import Dataset, SourceFile
from ragtriage.schemas import (
    Chunk,
    Document,
    EvalSet,
    EvidenceGroup,
    Question,
    QuestionResult,
    RankedItem,
    Run,
    Snapshot,
)

DOCS = [f"d{i}" for i in range(6)]
CHUNKS = [f"c{i}" for i in range(4)]
K = 3


@st.composite
def datasets(draw: st.DrawFn) -> Dataset:
    chunks = [
        Chunk(id=c, document_id=draw(st.sampled_from(DOCS)), start=i, end=i + 3)
        for i, c in enumerate(CHUNKS)
    ]
    snapshot = Snapshot(
        snapshot_id="s", documents=[Document(id=d, text="abcdefghij") for d in DOCS], chunks=chunks
    )
    ids = DOCS + (CHUNKS if draw(st.booleans()) else [])
    questions, results = [], []
    for n in range(draw(st.integers(1, 6))):
        answerable = draw(st.booleans())
        groups = []
        if answerable:
            for _ in range(draw(st.integers(1, 3))):
                any_of = draw(st.lists(st.sampled_from(ids), min_size=1, max_size=3, unique=True))
                groups.append(EvidenceGroup(any_of=any_of, grade=draw(st.integers(1, 3))))
        questions.append(
            Question(
                id=f"q{n}",
                text="?",
                answerability="answerable" if answerable else "unanswerable",
                required_evidence=groups,
            )
        )
        candidates = draw(st.lists(st.sampled_from(ids), max_size=7, unique=True))
        reranked = None
        if draw(st.booleans()):
            reranked = [RankedItem(id=i) for i in draw(st.permutations(candidates))][:5]
        context = None
        if draw(st.booleans()):
            picked = draw(st.lists(st.sampled_from(ids), max_size=4, unique=True))
            context = [{"id": i} for i in picked]
        results.append(
            QuestionResult.model_validate(
                {
                    "question_id": f"q{n}",
                    "candidates": [{"id": i} for i in candidates],
                    "reranked": None if reranked is None else [r.model_dump() for r in reranked],
                    "context": context,
                }
            )
        )
    return Dataset(
        snapshot=snapshot,
        evalset=EvalSet(evalset_id="e", questions=questions),
        runs=(Run(name="r", results=results),),
        sources=(SourceFile("<memory>", "evalset", ""),),
    )


@settings(max_examples=60, deadline=None)
@given(dataset=datasets())
def test_stage_split_equals_reference(dataset: Dataset) -> None:
    names = [
        "evidence_recall",
        f"recall_candidates@{K}",
        f"recall_reranked@{K}",
        f"hit_rate@{K}",
        f"mrr@{K}",
        f"precision@{K}",
        f"context_precision@{K}",
        f"ndcg@{K}",
    ]
    reference = evaluate(dataset, k=K, metrics=names).runs[0]
    ours = retrieval_scores(stage_arrays(dataset, "r", K, depth=K), K)
    for name in names:
        expected = [
            None if rec.scores[name] is None else rec.scores[name].value  # type: ignore[union-attr]
            for rec in reference.questions
        ]
        assert ours[name].values() == expected, name


def test_refusal_layer_equals_reference() -> None:
    from ragtriage.columnar._native import refusal_scores
    from ragtriage.example import example_paths
    from ragtriage.loading import load_dataset

    paths = example_paths()
    dataset = load_dataset(paths.evalset, snapshot=paths.snapshot, runs=paths.runs)
    names = ["correct_refusal", "false_refusal", "correct_clarification", "needless_clarification"]
    for run in dataset.runs:
        reference = evaluate(dataset, metrics=names).runs
        records = next(r for r in reference if r.name == run.name).questions
        ours = refusal_scores(dataset, run.name)
        for name in names:
            expected = [
                None if rec.scores[name] is None else rec.scores[name].value  # type: ignore[union-attr]
                for rec in records
            ]
            assert ours[name].values() == expected, (run.name, name)
    assert sum(v is not None for v in ours["correct_refusal"].values()) > 0


@settings(max_examples=60, deadline=None)
@given(dataset=datasets())
def test_retrieval_side_diagnosis_equals_reference(dataset: Dataset) -> None:
    from ragtriage.columnar._native import LOSS_STAGES, retrieval_losses
    from ragtriage.diagnosis import diagnose_view

    views = evaluate(dataset, k=K).runs[0].views
    found = [{f.stage for f in diagnose_view(view).findings} for view in views]
    ours = retrieval_losses(stage_arrays(dataset, "r", K, depth=K))
    for stage in LOSS_STAGES:
        assert ours[stage].tolist() == [stage in stages for stages in found], stage
