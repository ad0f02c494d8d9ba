"""The retrieval layer and its stage split for native datasets, as arrays.

For one run of a loaded `Dataset`, every stage's ranking (candidates, reranked, final,
final context) becomes a `RankArrays` whose grades follow the reference rule of
`metrics.ranking`: walking a ranking from the top, an item is relevant when it satisfies a
required group no earlier item satisfied, and then carries that group's grade. IDs are
resolved to the evidence level's unit (the document for `document`, the ID itself for
`chunk`) and matched on (question, unit) keys.

The vectorised rule needs each unit to satisfy at most one group of its question; a
question where a unit satisfies several groups, or whose evidence level is `span`, takes its
gains from the reference function itself, so results stay identical for every question.
The answer layers (support, citations, coverage) still come from the per-question path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from ..evaluation import LevelChoice
from ..loading import Dataset, EvidenceLevel, SnapshotIndex
from ..metrics import PerQuestion, build_view, rank_specs
from ..metrics.ranking import relevance_gains
from ..schemas import Question, QuestionResult
from ._arrays import RankArrays

Rows = dict[str, list[tuple[int, ...] | None]]

STAGES = ("candidates", "reranked", "final", "context")
"""A result's rankings in pipeline order (`final`: reranked when present, else candidates)."""


@dataclass(frozen=True)
class StageArrays:
    """One run's rankings per stage, resolved to gains; rows follow `question_ids`."""

    question_ids: tuple[str, ...]
    """Questions of the evaluation set, in its order."""
    stages: dict[str, RankArrays]
    """By stage name; a question without the stage (no reranking) has no relevant groups."""
    satisfied: dict[str, np.ndarray]
    """By stage: groups first satisfied at each rank (one item may satisfy several groups,
    which recall counts and the rank measures do not)."""
    covered: dict[str, np.ndarray]
    """By stage: (questions, groups) booleans, the group satisfied at any depth."""


def _level(choice: LevelChoice, index: SnapshotIndex, question: Question) -> EvidenceLevel:
    if choice != "auto":
        return choice
    return index.evidence_level(i for g in question.required_evidence for i in g.any_of)


def _unit(index: SnapshotIndex, item: str, level: EvidenceLevel) -> str:
    return index.document_of(item) if level == "document" else item


def _stage_items(result: QuestionResult, stage: str, k: int | None) -> tuple[str, ...] | None:
    candidates = tuple(item.id for item in result.candidates)
    reranked = None if result.reranked is None else tuple(item.id for item in result.reranked)
    final = reranked if reranked is not None else candidates
    if stage == "candidates":
        return candidates
    if stage == "reranked":
        return reranked
    if stage == "final":
        return final
    if result.context is not None:
        return tuple(item.id for item in result.context)
    return final[:k] if k is not None else final


def stage_arrays(
    dataset: Dataset,
    run_name: str,
    k: int | None,
    depth: int,
    evidence_level: LevelChoice = "auto",
) -> StageArrays:
    """Gains of every stage of one run, keeping `depth` ranks (the context keeps them all).

    The dataset is assumed valid (`check_dataset` passed), as `evaluate` assumes it.
    """
    index = SnapshotIndex.build(dataset.snapshot)
    run = next(r for r in dataset.runs if r.name == run_name)
    results = {res.question_id: res for res in run.results}
    questions = dataset.evalset.questions
    n = len(questions)
    applicable = np.array(
        [q.answerability == "answerable" and bool(q.required_evidence) for q in questions]
    )
    n_groups = np.array([len(q.required_evidence) for q in questions], dtype=np.int64)
    n_groups = np.where(applicable, n_groups, 0)
    widest = max((len(q.required_evidence) for q in questions), default=0)
    ideal = np.zeros((n, min(depth, widest)), dtype=np.int32)
    for row, q in enumerate(questions):
        best = sorted((g.grade for g in q.required_evidence), reverse=True)[: ideal.shape[1]]
        ideal[row, : len(best)] = best
    stages: dict[str, RankArrays] = {}
    items_by_stage = {
        stage: [_stage_items(results[q.id], stage, k) for q in questions] for stage in STAGES
    }
    context_depth = max((len(i or ()) for i in items_by_stage["context"]), default=0)
    gain_rows, count_rows, covered_rows = _gains(
        index, questions, results, items_by_stage, k, evidence_level
    )
    satisfied: dict[str, np.ndarray] = {}
    covered: dict[str, np.ndarray] = {}
    for stage in STAGES:
        width = context_depth if stage == "context" else depth
        grades = np.zeros((n, width), dtype=np.int32)
        counts = np.zeros((n, width), dtype=np.int64)
        lengths = np.zeros(n, dtype=np.int64)
        present = np.ones(n, dtype=bool)
        for row, (gains, found) in enumerate(zip(gain_rows[stage], count_rows[stage], strict=True)):
            if gains is None or found is None:
                present[row] = False
                continue
            lengths[row] = len(gains)
            grades[row, : min(len(gains), width)] = gains[:width]
            counts[row, : min(len(found), width)] = found[:width]
        relevant = np.where(present, n_groups, 0)
        stages[stage] = RankArrays(tuple(q.id for q in questions), grades, lengths, relevant, ideal)
        satisfied[stage] = counts
        hit = np.zeros((n, widest), dtype=bool)
        for row, groups in enumerate(covered_rows[stage]):
            hit[row, list(groups)] = True
        covered[stage] = hit
    return StageArrays(tuple(q.id for q in questions), stages, satisfied, covered)


def _gains(
    index: SnapshotIndex,
    questions: Sequence[Question],
    results: dict[str, QuestionResult],
    items_by_stage: dict[str, list[tuple[str, ...] | None]],
    k: int | None,
    evidence_level: LevelChoice,
) -> tuple[Rows, Rows, dict[str, list[frozenset[int]]]]:
    """Per stage, per question: each ranked item's gain, how many groups it satisfies first
    (None when the result has no such stage), and the groups satisfied at any depth."""
    out: Rows = {stage: [] for stage in STAGES}
    first: Rows = {stage: [] for stage in STAGES}
    covered: dict[str, list[frozenset[int]]] = {stage: [] for stage in STAGES}
    for row, q in enumerate(questions):
        level = _level(evidence_level, index, q)
        group_of: dict[str, int] | None = {}
        for gi, group in enumerate(q.required_evidence):
            for unit in {_unit(index, req, level) for req in group.any_of}:
                if group_of is not None and group_of.setdefault(unit, gi) != gi:
                    group_of = None  # a unit in two groups: the reference rule decides
        if level == "span":
            group_of = None
        grades = [g.grade for g in q.required_evidence]
        view = None
        for stage in STAGES:
            items = items_by_stage[stage][row]
            if items is None:
                out[stage].append(None)
                first[stage].append(None)
                covered[stage].append(frozenset())
                continue
            if group_of is None:
                if view is None:
                    view = build_view(q, results[q.id], index, level, k, "human-first")
                out[stage].append(relevance_gains(view, items))
                running = [view.groups_satisfied(items[:n]) for n in range(len(items) + 1)]
                first[stage].append(tuple(b - a for a, b in pairwise(running)))
                covered[stage].append(
                    frozenset(gi for gi in range(len(grades)) if view.group_satisfied(gi, items))
                )
                continue
            seen: set[int] = set()
            gains = []
            for item in items:
                gi = group_of.get(_unit(index, item, level), -1)
                if gi < 0 or gi in seen:
                    gains.append(0)
                else:
                    seen.add(gi)
                    gains.append(grades[gi])
            out[stage].append(tuple(gains))
            first[stage].append(tuple(int(g > 0) for g in gains))
            covered[stage].append(frozenset(seen))
    return out, first, covered


def _groups_found(arrays: StageArrays, stage: str, k: int | None) -> PerQuestion:
    """Required groups satisfied within the top k of a stage / required groups."""
    found = arrays.satisfied[stage][:, :k].sum(axis=1, dtype=np.int64).astype(np.float64)
    return PerQuestion(found, arrays.stages[stage].n_relevant.astype(np.float64))


def retrieval_scores(arrays: StageArrays, k: int) -> dict[str, PerQuestion]:
    """The retrieval layer with its stage split, keyed by registry measure name (`name@k`).

    Recall counts the groups each stage satisfies; the measures of the final ranking are
    their registry entries' rank forms.
    """
    out = {
        "evidence_recall": _groups_found(arrays, "context", None),
        f"recall_candidates@{k}": _groups_found(arrays, "candidates", k),
        f"recall_reranked@{k}": _groups_found(arrays, "reranked", k),
    }
    for spec in rank_specs():
        if spec.rank is not None and spec.name != "recall_candidates":  # that one: above
            out[f"{spec.name}@{k}"] = spec.rank.compute(arrays.stages["final"], k)
    return out


_OUTCOME_RATES = {
    "correct_refusal": ("unanswerable", "refused"),
    "false_refusal": ("answerable", "refused"),
    "correct_clarification": ("needs_clarification", "clarified"),
    "needless_clarification": ("answerable", "clarified"),
}
"""Refusal-layer measures: (answerability they apply to, outcome they count)."""


def refusal_scores(dataset: Dataset, run_name: str) -> dict[str, PerQuestion]:
    """The refusal layer (and clarification) for every question at once, by measure name.

    A question applies when its answerability matches and the run recorded an outcome.
    """
    run = next(r for r in dataset.runs if r.name == run_name)
    outcomes = {res.question_id: res.outcome for res in run.results}
    questions = dataset.evalset.questions
    answerability = np.array([q.answerability for q in questions], dtype=object)
    outcome = np.array([outcomes.get(q.id) for q in questions], dtype=object)
    recorded = np.array([o is not None for o in outcome.tolist()])
    out = {}
    for name, (applies, counted) in _OUTCOME_RATES.items():
        den = ((answerability == applies) & recorded).astype(np.float64)
        num = ((outcome == counted) & (den > 0)).astype(np.float64)
        out[name] = PerQuestion(num, den)
    return out


LOSS_STAGES = ("retrieval_miss", "ranking_loss", "truncation_loss")
"""The diagnosis stages decided by where required evidence was lost, in pipeline order."""


def retrieval_losses(arrays: StageArrays) -> dict[str, np.ndarray]:
    """Per question, whether each retrieval-side diagnosis stage has a finding.

    A required group of an answerable question missing from the final context was lost
    where the diagnosis says: in no candidate and not in the final ranking (`retrieval_miss`),
    among the candidates but not in the reranked list (`ranking_loss`), or in the final
    ranking at any depth but not in the context (`truncation_loss`).
    """
    covered = arrays.covered
    width = covered["context"].shape[1]
    n_groups = arrays.stages["candidates"].n_relevant  # 0 unless answerable with evidence
    valid = np.arange(width)[None, :] < n_groups[:, None]
    lost = valid & ~covered["context"]
    candidates, final = covered["candidates"], covered["final"]
    return {
        "retrieval_miss": (lost & ~candidates & ~final).any(axis=1),
        "ranking_loss": (lost & candidates & ~final).any(axis=1),
        "truncation_loss": (lost & final).any(axis=1),
    }
