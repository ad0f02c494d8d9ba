"""Evaluation: validate, then score every run per question and in aggregate."""

from ._assemble import (
    assemble_run,
    k_was_used,
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
    "assemble_run",
    "evaluate",
    "input_problems",
    "k_not_used_note",
    "k_was_used",
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
