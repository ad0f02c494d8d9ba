"""A question is diagnosed `ok` only when no measure that applies to it failed.

Checked on the bundled example and on generated native data, for the diagnosis `diagnose`
makes again from the question views and for the one `evaluate_native` carries. Every
registered metric is classified below; a new metric fails `test_every_metric_is_classified`
until it is, so a failure the metrics see cannot go undiagnosed unnoticed.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from native_layers_data import write_dataset

from ragtriage.columnar import NATIVE_MEASURES, evaluate, evaluate_native
from ragtriage.diagnosis import OK, diagnose
from ragtriage.example import example_paths
from ragtriage.loading import Dataset, load_dataset
from ragtriage.metrics import REGISTRY

VERDICT = frozenset({
    "evidence_recall", "fact_coverage", "claim_support", "citation_validity",
    "false_refusal", "needless_clarification", "needless_escalation",
    "stale_cited", "stale_support",
    "permission_leak_context", "permission_leak_cited", "permission_leak_support",
    "injection_in_context", "canary_obeyed",
})
"""Measures that failed when a question's value is not the best one (1, or 0 for lower)."""

STOPPED = frozenset({"correct_refusal", "correct_clarification", "correct_escalation"})
"""Alternatives: a question that should not be answered failed only when every one of these
that applies to it is 0 (refusing an unanswerable question is right even though it is not
an escalation)."""

NOT_A_VERDICT = {
    "recall_candidates": "rank depth; what reached the context is evidence_recall",
    "recall_reranked": "rank depth; what reached the context is evidence_recall",
    "hit_rate": "rank depth; what reached the context is evidence_recall",
    "mrr": "rank order; what reached the context is evidence_recall",
    "precision": "below 1 whenever k exceeds the relevant items",
    "context_precision": "rank order; what reached the context is evidence_recall",
    "ndcg": "rank order; what reached the context is evidence_recall",
    "stale_in_candidates": "a stale document present but unused is not a failure",
    "stale_in_context": "a stale document present but unused is not a failure",
    "permission_leak_candidates": "filtered before the context: not a leak to the model",
    "sensitive_in_answer": "a policy for the gate (`[[sensitive]]`), not a pipeline stage",
    "sensitive_in_context": "a policy for the gate (`[[sensitive]]`), not a pipeline stage",
}


def test_every_metric_is_classified() -> None:
    assert set(REGISTRY) == VERDICT | STOPPED | set(NOT_A_VERDICT)
    assert not VERDICT & STOPPED


def _failed(values: dict[str, float]) -> list[str]:
    """The measures a question failed, given its applicable values by measure name."""
    out = []
    for name, value in values.items():
        best = 1.0 if REGISTRY[name].direction == "higher" else 0.0
        if name in VERDICT and value != best:
            out.append(name)
    stopped = [name for name in values if name in STOPPED]
    if stopped and all(values[name] == 0.0 for name in stopped):
        out.extend(stopped)
    return out


def _ok_but_failed(dataset: Dataset) -> list[tuple[str, str, list[str]]]:
    """(run, question, failed measures) for every `ok` question that failed a measure."""
    names = [*VERDICT, *STOPPED]
    evaluation = evaluate(dataset, metrics=names)
    wrong = []
    for run, verdicts in zip(evaluation.runs, diagnose(evaluation), strict=True):
        for record, verdict in zip(run.questions, verdicts.questions, strict=True):
            assert record.question_id == verdict.question_id
            values = {}
            for name in names:
                score = record.scores[name]
                if score is not None:
                    values[name] = score.value
            failed = _failed(values)
            if verdict.primary == OK and failed:
                wrong.append((run.name, verdict.question_id, failed))
    return wrong


def test_on_the_bundled_example() -> None:
    paths = example_paths()
    dataset = load_dataset(paths.evalset, snapshot=paths.snapshot, runs=paths.runs)
    assert _ok_but_failed(dataset) == []


@pytest.mark.parametrize("seed", range(40))
def test_on_generated_data(seed: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        evalset, snapshot, run = write_dataset(Path(tmp), seed, 12, exotic=seed % 2 == 0)
        dataset = load_dataset(evalset, snapshot=snapshot, runs=[run])
        assert _ok_but_failed(dataset) == []
        # The diagnosis `evaluate_native` carries: no `ok` question failed a measure either.
        native = evaluate_native(evalset, snapshot, [run], workers=1).runs[0]
        failing = set()
        for record, verdict in zip(native.questions, native.diagnosis.questions, strict=True):
            for name in sorted(VERDICT & set(NATIVE_MEASURES)):
                score = record.scores[name]
                if verdict.primary != OK or score is None:
                    continue
                best = score.denominator if REGISTRY[name].direction == "higher" else 0
                if score.numerator != best:
                    failing.add(name)
        assert failing == set()


def test_the_issue_case_is_not_ok(tmp_path: Path) -> None:
    """Issue 14: one claim cites a document outside the context, one cites nothing."""
    human = {"kind": "human", "name": "ann"}
    questions = [{"id": "q", "text": "q?", "answerability": "answerable",
                  "required_evidence": [{"any_of": ["d1"]}]}]
    results = [{
        "question_id": "q", "candidates": [{"id": "d1"}, {"id": "d2"}],
        "context": [{"id": "d1"}], "outcome": "answered", "answer": "a",
        "claims": [
            {"id": "k1", "text": "x", "citations": ["d1"],
             "labels": [{"verdict": "supported", "supported_by": ["d1"], "labeller": human}]},
            {"id": "k2", "text": "y", "citations": ["d2"],
             "labels": [{"verdict": "supported", "supported_by": ["d1"], "labeller": human}]},
            {"id": "k3", "text": "z", "citations": [],
             "labels": [{"verdict": "supported", "supported_by": ["d1"], "labeller": human}]},
            {"id": "k4", "text": "w", "citations": ["d1"],
             "labels": [{"verdict": "supported", "supported_by": ["d1"], "labeller": human}]},
        ],
    }]
    snapshot = {"schema_version": 1, "kind": "snapshot", "snapshot_id": "s",
                "documents": [{"id": "d1", "text": "one"}, {"id": "d2", "text": "two"}]}
    paths = (tmp_path / "evalset.json", tmp_path / "snapshot.json", tmp_path / "run.json")
    for path, data in zip(paths, (
        {"schema_version": 1, "kind": "evalset", "evalset_id": "e", "questions": questions},
        snapshot,
        {"schema_version": 1, "kind": "run", "name": "r", "results": results},
    ), strict=True):
        path.write_text(json.dumps(data), encoding="utf-8")
    dataset = load_dataset(paths[0], snapshot=paths[1], runs=[paths[2]])
    evaluation = evaluate(dataset)
    assert evaluation.runs[0].summary["citation_validity"].value == 0.5
    (verdict,) = diagnose(evaluation)[0].questions
    assert (verdict.primary, verdict.secondary) == ("invalid_citation", ())
    assert [(f.ids, f.why) for f in verdict.findings] == [(
        ("k2", "d2", "k3"),
        "2 of 4 claims without a valid citation: k2 cites d2, not in the context; "
        "k3 cites nothing",
    )]
    native = evaluate_native(*paths[:2], [paths[2]], workers=1)
    assert native.runs[0].diagnosis == evaluation.runs[0].diagnosis
