"""Evaluation: validate, then score every run per question and in aggregate."""

from ._evaluate import (
    Evaluation,
    LevelChoice,
    QuestionFilter,
    QuestionRecord,
    RunEvaluation,
    evaluate,
    load_and_evaluate,
    summarize,
)

__all__ = [
    "Evaluation",
    "LevelChoice",
    "QuestionFilter",
    "QuestionRecord",
    "RunEvaluation",
    "evaluate",
    "load_and_evaluate",
    "summarize",
]
