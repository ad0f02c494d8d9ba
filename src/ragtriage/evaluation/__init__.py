"""Evaluation: validate, then score every run per question and in aggregate."""

from ._evaluate import (
    NO_RESULT,
    Evaluation,
    LevelChoice,
    QuestionFilter,
    QuestionRecord,
    RunEvaluation,
    evaluate,
    input_problems,
    k_not_used_note,
    load_and_evaluate,
    no_result_note,
    question_details,
    question_record,
    run_evaluation,
    run_evidence_level,
    summarize,
)

__all__ = [
    "NO_RESULT",
    "Evaluation",
    "LevelChoice",
    "QuestionFilter",
    "QuestionRecord",
    "RunEvaluation",
    "evaluate",
    "input_problems",
    "k_not_used_note",
    "load_and_evaluate",
    "no_result_note",
    "question_details",
    "question_record",
    "run_evaluation",
    "run_evidence_level",
    "summarize",
]
