"""`--stage` scores once: the engine keeps the questions of the stages in its one pass, and the
result is the one of scoring twice (a first pass for the diagnoses, then the questions they
pick), which is kept here as the oracle."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from native_layers_data import write_dataset

import ragtriage.columnar._engine_pass as engine_pass
import ragtriage.diagnosis._pipeline as pipeline
from loader_path import READERS, invoke
from ragtriage.columnar import evaluate, evaluate_native
from ragtriage.diagnosis import Finding, register_stage
from ragtriage.evaluation import ALL_QUESTIONS, Evaluation
from ragtriage.example import example_paths
from ragtriage.filters import QuestionSelection, evaluate_selected
from ragtriage.loading import load_dataset
from ragtriage.metrics import QuestionView
from ragtriage.render import dumps, evaluation_json, render_markdown
from ragtriage.schemas import Question

Score = Callable[[Callable[[Question], bool]], Evaluation]


def two_passes(score: Score, selection: QuestionSelection) -> Evaluation:
    """The oracle: `score` over the questions the tag, split and ID conditions keep, then
    again over those whose diagnosis (in any run) has a selected stage."""
    first = score(selection.matches_question)
    if not selection.stages:
        return first
    found: dict[str, list[tuple[str, ...]]] = {}
    for run in first.diagnoses:
        for verdict in run.questions:
            found.setdefault(verdict.question_id, []).append(verdict.stages)
    keep = {
        qid for qid, stages in found.items()
        if any(stage in selection.stages for verdict in stages for stage in verdict)
    }
    return score(lambda question: question.id in keep)


def _shown(evaluation: Evaluation) -> tuple[str, str, tuple[str, ...], list[bool]]:
    # What the engine scored. The record of which questions were asked for is the request's
    # (`evaluate_selected` sets it; tests/core/test_core_selection_recorded.py), and the
    # engine called with a filter function, as here, cannot name it.
    evaluation = replace(evaluation, selection=ALL_QUESTIONS)
    return (
        dumps(evaluation_json(evaluation)),
        render_markdown(evaluation),
        evaluation.calibration_notes,
        [run.k_used for run in evaluation.runs],
    )


@pytest.fixture()
def engine_passes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many times the engine read an evaluation set (one per pass)."""
    passes: list[int] = []
    read = engine_pass.read_evalset_parallel

    def counted(*args: Any, **kwargs: Any) -> Any:
        passes.append(1)
        return read(*args, **kwargs)

    monkeypatch.setattr(engine_pass, "read_evalset_parallel", counted)
    yield passes


@pytest.mark.parametrize("reader", READERS)
def test_a_stage_filter_scores_once(reader: str, engine_passes: list[int]) -> None:
    outcome = invoke(reader, ["evaluate", "--example", "--stage", "retrieval_miss", "--format",
                              "json"])
    assert outcome.exit_code == 0, outcome.output
    assert len(engine_passes) == 1
    ids = [[q["id"] for q in run["questions"]] for run in json.loads(outcome.stdout)["runs"]]
    assert ids == [["exact-code"], ["exact-code"]]


SELECTIONS = [
    QuestionSelection(stages=("retrieval_miss",)),
    QuestionSelection(stages=("ok",)),
    QuestionSelection(stages=("ok", "unsupported_claim")),
    QuestionSelection(stages=("ranking_loss", "permission_leak"), splits=("dev", "regression")),
    QuestionSelection(stages=("incomplete_answer",), tags=("multi-fact", "exact")),
    QuestionSelection(stages=("needless_escalation",)),
]


@pytest.mark.parametrize("selection", SELECTIONS, ids=QuestionSelection.describe)
def test_one_pass_is_the_two_passes_on_the_example(selection: QuestionSelection) -> None:
    paths = example_paths()
    dataset = load_dataset(paths.evalset, snapshot=paths.snapshot, runs=paths.runs)
    options: dict[str, Any] = {
        "metrics": ["evidence_recall", "claim_support", "fact_coverage", "stale_in_context"]
    }
    expected = two_passes(
        lambda keep: evaluate(dataset, question_filter=keep, **options), selection
    )
    assert _shown(evaluate_selected(dataset, selection, **options)) == _shown(expected)
    read = evaluate_native(
        paths.evalset, paths.snapshot, paths.runs, question_filter=selection.matches_question,
        stages=selection.stages, **options,
    )
    assert _shown(read) == _shown(expected)


@pytest.mark.parametrize("seed", [3, 11, 12])
@pytest.mark.parametrize(
    "stages",
    [
        ("retrieval_miss",),
        ("ok",),
        ("stale_evidence", "judge_uncertain"),
        ("permission_leak", "truncation_loss", "injection_in_context"),
    ],
)
def test_one_pass_is_the_two_passes_on_generated_data(
    tmp_path: Path, seed: int, stages: Sequence[str]
) -> None:
    evalset, snapshot, run = write_dataset(tmp_path, seed, 60)
    second = tmp_path / "second.jsonl"
    lines = run.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    # A second run answering every other question: a question it lacks is kept (or not) by
    # the first run's diagnosis alone, and listed as without a result in the second.
    second.write_text("\n".join([json.dumps({**header, "name": "r2"}), *lines[1::2]]), "utf-8")
    options: dict[str, Any] = {"metrics": None, "allow_missing": True}
    selection = QuestionSelection(stages=tuple(stages))
    files = [run, second]
    expected = two_passes(
        lambda keep: evaluate_native(evalset, snapshot, files, question_filter=keep, **options),
        selection,
    )
    assert expected.runs[1].no_result
    got = evaluate_native(evalset, snapshot, files, stages=selection.stages, **options)
    assert _shown(got) == _shown(expected)
    loaded = load_dataset(evalset, snapshot=snapshot, runs=files)
    assert _shown(evaluate_selected(loaded, selection, **options)) == _shown(expected)


def test_a_registered_stage_is_checked_on_the_views(
    monkeypatch: pytest.MonkeyPatch, engine_passes: list[int]
) -> None:
    # A stage registered with `register_stage` has no array: its check decides on each view,
    # in the same one pass, and the questions kept are those scoring twice keeps.
    def probe(view: QuestionView) -> Finding | None:
        if view.question.id not in ("regions", "sso"):
            return None
        return Finding("probe_stage", (view.question.id,), "probed")

    monkeypatch.setattr(pipeline, "_pipeline", list(pipeline._pipeline))
    register_stage("probe_stage", probe, after="incomplete_answer")
    paths = example_paths()
    dataset = load_dataset(paths.evalset, snapshot=paths.snapshot, runs=paths.runs)
    kept = {}
    for stages in (("probe_stage",), ("ok",), ("probe_stage", "ranking_loss")):
        selection = QuestionSelection(stages=stages)
        expected = two_passes(lambda keep: evaluate(dataset, question_filter=keep), selection)
        engine_passes.clear()
        got = evaluate_selected(dataset, selection)
        assert len(engine_passes) == 1
        assert _shown(got) == _shown(expected)
        kept[stages] = [[q.question_id for q in run.questions] for run in got.runs]
    ok = [
        "exact-code", "two-facts", "dead-letter", "stale-retention", "key-rotation", "free-quota",
        "log-extension", "refund", "message-size", "amqp-port", "raise-limit", "ordering",
        "pricing", "purge",
    ]
    assert kept == {
        ("probe_stage",): [["regions", "sso"]] * 2,
        ("ok",): [ok] * 2,
        ("probe_stage", "ranking_loss"): [["two-facts", "regions", "sso"]] * 2,
    }


@pytest.mark.parametrize("reader", READERS)
def test_a_look_counts_the_holdout_questions_of_the_stage(tmp_path: Path, reader: str) -> None:
    example = tmp_path / "example"
    shutil.copytree(example_paths().root, example)
    ledger = example / "evalset.holdout-ledger.jsonl"
    args = [
        "evaluate", str(example / "evalset.json"), "--snapshot", str(example / "snapshot.json"),
        "--run", str(example / "runs" / "baseline.json"), "--include-holdout", "--who", "ann",
    ]
    # Both holdout questions are `ok`: a stage they do not have scores none of them.
    outcome = invoke(reader, [*args, "--stage", "retrieval_miss"])
    assert (outcome.exit_code, outcome.stderr) == (0, "")
    assert not ledger.exists()
    outcome = invoke(reader, [*args, "--stage", "ok", "--id", "sso", "--id", "purge"])
    assert (outcome.exit_code, outcome.stderr) == (0, "")
    entries = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
    assert [(e["holdout_questions"], e["runs"], e["user"]) for e in entries] == [
        (1, ["baseline"], "ann")
    ]
