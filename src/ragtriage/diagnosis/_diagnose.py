"""Diagnose whole runs: every question's verdict and the per-stage breakdown."""

from __future__ import annotations

from ..evaluation import Evaluation, RunEvaluation
from ._model import RunDiagnosis, build_breakdown
from ._pipeline import diagnose_view, stage_order


def diagnose_run(run: RunEvaluation) -> RunDiagnosis:
    """Diagnose every question of one evaluated run (reads `run.views`)."""
    order = stage_order()
    questions = tuple(diagnose_view(view) for view in run.views)
    return RunDiagnosis(
        run=run.name,
        questions=questions,
        breakdown=build_breakdown(questions, order),
        stages=order,
        k=run.k,
        evidence_level=run.evidence_level,
        no_result=run.no_result,
        k_used=run.k_used,
    )


def diagnose(evaluation: Evaluation) -> tuple[RunDiagnosis, ...]:
    """Diagnose every run of an evaluation, in the evaluation's run order."""
    return tuple(diagnose_run(run) for run in evaluation.runs)
