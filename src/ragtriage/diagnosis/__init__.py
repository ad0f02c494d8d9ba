"""Diagnosis: for every question, the pipeline stage where it failed, with the proving IDs.

Stages run in pipeline order (`stage_order()`); a question's primary stage is the first that
failed, the others are secondary, and `ok` means none failed. Other modules add stages with
`register_stage` (e.g. injection checks), which keeps the pipeline order.
"""

from ..boundaries import stages as _boundary_stages  # noqa: F401  (registers the injection stages)
from ._diagnose import diagnose, diagnose_run, diagnose_views
from ._model import (
    Breakdown,
    Finding,
    QuestionDiagnosis,
    RunDiagnosis,
    SliceBreakdown,
    StageCount,
    build_breakdown,
)
from ._pipeline import OK, STAGES, Check, diagnose_view, register_stage, stage_order

__all__ = [
    "OK",
    "STAGES",
    "Breakdown",
    "Check",
    "Finding",
    "QuestionDiagnosis",
    "RunDiagnosis",
    "SliceBreakdown",
    "StageCount",
    "build_breakdown",
    "diagnose",
    "diagnose_run",
    "diagnose_view",
    "diagnose_views",
    "register_stage",
    "stage_order",
]
