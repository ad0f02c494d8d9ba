"""Evaluation: validate, then score every run per question and in aggregate."""

from ._assemble import (
    per_question,
    question_details,
    question_level,
    question_record,
    run_evaluation,
    run_evidence_level,
    summarize,
)
from ._evaluate import evaluate, input_problems, load_and_evaluate
from ._result import (
    NO_RESULT,
    Evaluation,
    LevelChoice,
    QuestionFilter,
    QuestionRecord,
    RunEvaluation,
    ViewBuilder,
    k_not_used_note,
    no_result_note,
)

__all__ = [
    "NO_RESULT",
    "Evaluation",
    "LevelChoice",
    "QuestionFilter",
    "QuestionRecord",
    "RunEvaluation",
    "ViewBuilder",
    "evaluate",
    "input_problems",
    "k_not_used_note",
    "load_and_evaluate",
    "no_result_note",
    "per_question",
    "question_details",
    "question_level",
    "question_record",
    "run_evaluation",
    "run_evidence_level",
    "summarize",
]
