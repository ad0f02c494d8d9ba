"""A filter that reads only a question's ID, tags and split (`FieldFilter`, as the request's
holdout and `--tag`/`--split`/`--id` filters are) is given what the reader read of them: no
question is parsed as a model for it; any other filter is given each question's model."""

from __future__ import annotations

from typing import Any

import pytest

import ragtriage.columnar._native_records as native_records
from ragtriage import evaluate_files
from ragtriage.columnar import evaluate_native
from ragtriage.evaluation import FieldFilter, QuestionFields
from ragtriage.example import example_paths
from ragtriage.render import dumps, evaluation_json
from ragtriage.schemas import Question


@pytest.fixture()
def models_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The question rows read as `Question` models, in the order read."""
    read: list[int] = []
    real = native_records.FileRecords.models

    def models(self: Any, wanted: Any, model: Any) -> Any:
        rows = list(wanted)
        if model is Question:
            read.extend(rows)
        return real(self, rows, model)

    monkeypatch.setattr(native_records.FileRecords, "models", models)
    return read


def _not_holdout(question: QuestionFields) -> bool:
    return question.split != "holdout"


def test_the_request_reads_as_models_only_the_questions_explained_on_a_view(
    models_read: list[int],
) -> None:
    evaluation = evaluate_files(example=True)  # the holdout left out: a filter
    assert [len(run.questions) for run in evaluation.runs] == [15, 15]
    # Four questions have a stage only a view explains: three of the baseline's (stale
    # evidence, a permission leak, an injection) and one of the improved run's (an injection).
    assert len(models_read) == 4


def test_a_field_filter_and_a_model_filter_give_the_same_evaluation(
    models_read: list[int],
) -> None:
    paths = example_paths()
    by_fields = evaluate_native(
        paths.evalset, paths.snapshot, list(paths.runs),
        question_filter=FieldFilter(_not_holdout), input_filter=FieldFilter(_not_holdout),
    )
    assert len(models_read) == 4
    by_models = evaluate_native(
        paths.evalset, paths.snapshot, list(paths.runs),
        question_filter=_not_holdout, input_filter=_not_holdout,
    )
    # The plain filters are given every question's model (17), then the views read theirs.
    assert len(models_read) == 4 + 17 + 4
    assert dumps(evaluation_json(by_fields)) == dumps(evaluation_json(by_models))
    assert [len(run.questions) for run in by_fields.runs] == [15, 15]


def test_field_filters_are_called_once_per_question_the_input_filter_first() -> None:
    # Each is called over every question in file order: the input filter, then the question
    # filter; a truthy answer keeps or holds the question.
    paths = example_paths()
    calls: list[tuple[str, str]] = []

    def called(name: str, answer: Any) -> FieldFilter:
        def keep(question: QuestionFields) -> Any:
            calls.append((name, question.id))
            return answer(question)

        return FieldFilter(keep)

    evaluation = evaluate_native(
        paths.evalset, paths.snapshot, list(paths.runs),
        question_filter=called("kept", lambda q: "yes" if q.split != "holdout" else ""),
        input_filter=called("held", lambda q: 1),
    )
    every = [
        "exact-code", "two-facts", "dead-letter", "stale-retention", "key-rotation", "regions",
        "free-quota", "log-extension", "refund", "message-size", "amqp-port", "raise-limit",
        "ordering", "pricing", "webhook-retries", "purge", "sso",
    ]
    assert calls == [("held", qid) for qid in every] + [("kept", qid) for qid in every]
    assert [len(run.questions) for run in evaluation.runs] == [15, 15]
    assert [q.id for q in evaluation.questions] == [qid for qid in every if qid not in _HELD_OUT]


_HELD_OUT = ("free-quota", "sso")  # the example's holdout questions
