"""Diagnosis: for every question, the pipeline stage where it failed, with the proving IDs.

Stages run in pipeline order (`stage_order()`); a question's primary stage is the first that
failed, the others are secondary, and `ok` means none failed. The built-in stages and the
injection stages (`detected_stages()`) are decided by the engine over its arrays, their
functions only explaining a failure; other modules add stages with `register_stage`, whose
check decides on each question's view, in the pipeline order.
"""

from . import _injection  # noqa: F401  (registers the injection stages)
from ._diagnose import diagnose, diagnose_run, run_diagnosis
from ._model import (
    Breakdown,
    Finding,
    QuestionDiagnosis,
    RunDiagnosis,
    SliceBreakdown,
    StageCount,
    VerdictFields,
    build_breakdown,
    k_unused,
    verdict_fields,
    verdicts_from_fields,
)
from ._next_actions import (
    NEXT_ACTIONS,
    NextAction,
    diagnosis_next_actions,
    next_action,
    next_action_rows,
)
from ._pipeline import (
    INPUT_STAGES,
    OK,
    STAGES,
    VERSION_STAGES,
    Check,
    detected_stages,
    diagnose_view,
    explain_inputs,
    register_stage,
    stage_names,
    stage_order,
)
from ._stage_inputs import (
    ClaimInputs,
    EvidenceInputs,
    FactInputs,
    GroupInputs,
    QuestionInputs,
    StageInputs,
)

__all__ = [
    "INPUT_STAGES",
    "NEXT_ACTIONS",
    "OK",
    "STAGES",
    "VERSION_STAGES",
    "Breakdown",
    "Check",
    "ClaimInputs",
    "EvidenceInputs",
    "FactInputs",
    "Finding",
    "GroupInputs",
    "NextAction",
    "QuestionDiagnosis",
    "QuestionInputs",
    "RunDiagnosis",
    "SliceBreakdown",
    "StageCount",
    "StageInputs",
    "VerdictFields",
    "build_breakdown",
    "detected_stages",
    "diagnose",
    "diagnose_run",
    "diagnose_view",
    "diagnosis_next_actions",
    "explain_inputs",
    "k_unused",
    "next_action",
    "next_action_rows",
    "register_stage",
    "run_diagnosis",
    "stage_names",
    "stage_order",
    "verdict_fields",
    "verdicts_from_fields",
]
