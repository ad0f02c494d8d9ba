"""The oracle's `evaluate`: files in, per-question scores, aggregates and diagnosis out."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import diagnosis
from .aggregate import Aggregate, aggregate
from .files import load
from .measures import MEASURES, Score
from .views import Detectors, Snapshot, View, build_view, evidence_level


@dataclass(frozen=True)
class QuestionOutcome:
    """One question of one run: every measure's score, items left out, the diagnosis."""

    question_id: str
    scores: dict[str, Score | None]
    cannot_judge: dict[str, int]
    primary: str
    secondary: tuple[str, ...]
    findings: dict[str, tuple[str, ...]]
    view: View

    @property
    def stages(self) -> tuple[str, ...]:
        return (self.primary, *self.secondary)


@dataclass(frozen=True)
class OracleRun:
    """One run: questions in evaluation-set order, and the aggregates by measure name."""

    name: str
    k: int | None
    questions: list[QuestionOutcome]
    summary: dict[str, Aggregate]


@dataclass(frozen=True)
class OracleEvaluation:
    runs: list[OracleRun]


def score_question(
    view: View, ks: tuple[int, ...]
) -> tuple[dict[str, Score | None], dict[str, int]]:
    """Every measure on one view (rank measures once per cut-off in `ks`)."""
    scores: dict[str, Score | None] = {}
    left_out: dict[str, int] = {}
    for m in MEASURES:
        for name, k in ([(f"{m.name}@{k}", k) for k in ks] if m.ranked else [(m.name, None)]):
            scores[name] = m.compute(view, k)
            if m.cannot_judge is not None:
                left_out[name] = m.cannot_judge(view)
    return scores, left_out


def evaluate_files(
    evalset: Path,
    snapshot: Path,
    runs: list[Path],
    *,
    labels: list[Path] | None = None,
    k: int | None = None,
    label_policy: str = "human-first",
    evidence_level_choice: str = "auto",
    rank_ks: tuple[int, ...] = (1, 3, 5),
    detectors: Detectors | None = None,
    include_holdout: bool = False,
) -> OracleEvaluation:
    """Score every run. The holdout split is left out unless `include_holdout`.

    Each run's cut-off is `k`, else the run's `provenance.k`. `detectors`: the planted
    instructions and sensitive values (none by default).
    """
    detectors = detectors or Detectors()
    snap_data, evalset_data, run_data = load(evalset, snapshot, list(runs), list(labels or []))
    snap = Snapshot(snap_data)
    questions = [q for q in evalset_data["questions"]
                 if include_holdout or q.get("split", "dev") != "holdout"]
    out = []
    for run in run_data:
        run_k = k or (run.get("provenance") or {}).get("k")
        results = {res["question_id"]: res for res in run["results"]}
        records = []
        for q in questions:
            level = evidence_level(q, snap, evidence_level_choice)
            view = build_view(q, results[q["id"]], snap, run_k, label_policy, level, detectors)
            scores, left_out = score_question(view, rank_ks)
            primary, secondary, findings = diagnosis.diagnose(view)
            records.append(QuestionOutcome(q["id"], scores, left_out, primary, secondary,
                                           findings, view))
        summary = {}
        for m in MEASURES:
            for name in [f"{m.name}@{k}" for k in rank_ks] if m.ranked else [m.name]:
                counts = None
                if m.cannot_judge is not None:
                    counts = [r.cannot_judge[name] for r in records]
                summary[name] = aggregate([r.scores[name] for r in records], m.averaging, counts)
        out.append(OracleRun(run["name"], run_k, records, summary))
    return OracleEvaluation(out)
