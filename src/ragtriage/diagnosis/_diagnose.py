"""Diagnose whole runs: every question's verdict and the per-stage breakdown."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..metrics import QuestionView
from ._model import QuestionDiagnosis, RunDiagnosis, build_breakdown
from ._pipeline import OK, detected_stages, diagnose_view, stage_order


class DiagnosableRun(Protocol):
    """What diagnosing a run reads: an evaluated run (`ragtriage.evaluation.RunEvaluation`)."""

    @property
    def name(self) -> str: ...
    @property
    def views(self) -> Sequence[QuestionView]: ...
    @property
    def k(self) -> int | None: ...
    @property
    def evidence_level(self) -> str: ...
    @property
    def no_result(self) -> Sequence[str]: ...
    @property
    def k_used(self) -> bool: ...
    @property
    def diagnosis(self) -> RunDiagnosis: ...


class DiagnosableEvaluation(Protocol):
    """What `diagnose` reads: an evaluation's runs (`ragtriage.evaluation.Evaluation`)."""

    @property
    def runs(self) -> Sequence[DiagnosableRun]: ...


def run_diagnosis(
    name: str,
    questions: Sequence[QuestionDiagnosis],
    *,
    k: int | None,
    evidence_level: str,
    no_result: Sequence[str] = (),
    k_used: bool = True,
) -> RunDiagnosis:
    """One run's diagnosis from its questions' verdicts (in evaluation-set order)."""
    order = stage_order()
    return RunDiagnosis(
        run=name,
        questions=tuple(questions),
        breakdown=build_breakdown(questions, order),
        stages=order,
        k=k,
        evidence_level=evidence_level,
        no_result=tuple(no_result),
        k_used=k_used,
    )


def diagnose_run(run: DiagnosableRun) -> RunDiagnosis:
    """Diagnose one evaluated run again (reads `run.views`), e.g. after `register_stage`: the
    detected stages its diagnosis carries are explained again, every registered stage is
    checked on every view.

    An evaluated run already carries its diagnosis (`run.diagnosis`).
    """
    detected = detected_stages()
    registered = frozenset(stage_order()) - detected - {OK}
    verdicts = [
        diagnose_view(view, registered | detected.intersection(verdict.stages))
        for view, verdict in zip(run.views, run.diagnosis.questions, strict=True)
    ]
    return run_diagnosis(
        run.name,
        verdicts,
        k=run.k,
        evidence_level=run.evidence_level,
        no_result=run.no_result,
        k_used=run.k_used,
    )


def diagnose(evaluation: DiagnosableEvaluation) -> tuple[RunDiagnosis, ...]:
    """Diagnose every run of an evaluation again, in the evaluation's run order.

    An evaluation already carries its diagnoses (`evaluation.diagnoses`).
    """
    return tuple(diagnose_run(run) for run in evaluation.runs)
