"""Evaluation: the result of scoring runs (`Evaluation`, `RunEvaluation`, `QuestionRecord`)
and how one run's result is put together from its records (the engine, `columnar`, scores)."""

from ..validation import LevelChoice
from ._assemble import (
    assemble_run,
    run_evidence_level,
    slice_rows,
)
from ._result import (
    ALL_QUESTIONS,
    NO_RESULT,
    Evaluation,
    FieldFilter,
    IdsCheck,
    QuestionFields,
    QuestionFilter,
    QuestionRecord,
    RunEvaluation,
    ViewBuilder,
    k_note,
    no_result_note,
    option_problems,
    selected_by,
)

__all__ = [
    "ALL_QUESTIONS",
    "NO_RESULT",
    "Evaluation",
    "FieldFilter",
    "IdsCheck",
    "LevelChoice",
    "QuestionFields",
    "QuestionFilter",
    "QuestionRecord",
    "RunEvaluation",
    "ViewBuilder",
    "assemble_run",
    "k_note",
    "no_result_note",
    "option_problems",
    "run_evidence_level",
    "selected_by",
    "slice_rows",
]
