"""`evaluate_native`: a native evaluation set and runs, file in -> four layers and diagnosis out.

The columnar path reads the files into arrays (`_native_read`, `_native_run`), scores every
question at once (`_native_layers`) and scores the few rows the arrays do not model with the
reference functions. When the fast checks find any problem, or the input takes a form the fast
reader does not handle, the reference path runs instead (`load_dataset`, then `evaluate`, which
diagnoses): it reports every problem with its usual message, or gives the same results.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import ValidationError

from ..detectors import default_injection_rules, detect_injection, find_sensitive, item_text
from ..diagnosis import OK, diagnose_view, stage_order
from ..errors import ProblemCollector
from ..evaluation import Evaluation, LevelChoice, QuestionFilter, evaluate
from ..loading import Dataset, SnapshotIndex, load_dataset, read_file
from ..metrics import Aggregate, Measure, PerQuestion, aggregate, build_view, measures
from ..paths import PathArg, as_path, as_paths
from ..schemas import EvalSet, LabelPolicy, Question, QuestionResult, Snapshot
from ..validation import check_dataset
from ._native_labels import Added, check_answered, read_labels, with_labels
from ._native_layers import build_matcher, run_layers
from ._native_parts import default_workers, read_evalset_parallel, read_run_parallel
from ._native_rank import rank_scores
from ._native_read import Codes, EvalColumns, record_at
from ._native_run import RunColumns
from ._trec import _Fallback


@dataclass(frozen=True)
class NativeRunResult:
    """One run: every measure and every diagnosis stage, per question and in total."""

    name: str
    """Run name."""
    k: int | None
    """Cut-off used."""
    question_ids: tuple[str, ...]
    """Questions in evaluation-set order; every array below follows it."""
    scores: Mapping[str, PerQuestion]
    """By measure name (`ndcg@10` for a rank measure), the measures asked for, in their
    order; denominator 0 = not applicable."""
    summary: Mapping[str, Aggregate]
    """Aggregates as the reference `aggregate` computes them."""
    stages: tuple[str, ...]
    """Diagnosis stages in pipeline order, `ok` last."""
    findings: Mapping[str, np.ndarray]
    """By stage: whether each question has a finding there (`ok`: no stage failed)."""
    primary: np.ndarray
    """Per question, the index in `stages` of its primary stage."""
    k_used: bool = True
    """Whether k cut any result's ranking (False: every result records its context)."""

    @property
    def cutoff(self) -> str:
        """`k=5`, or that k is not used (as `RunEvaluation.cutoff`)."""
        return "context recorded, k not used" if not self.k_used else f"k={self.k}"

    def primary_counts(self) -> dict[str, int]:
        """Questions whose primary stage is each stage."""
        counts = np.bincount(self.primary, minlength=len(self.stages))
        return {stage: int(c) for stage, c in zip(self.stages, counts.tolist(), strict=True)}

    def present_counts(self) -> dict[str, int]:
        """Questions with a finding at each stage."""
        return {stage: int(self.findings[stage].sum()) for stage in self.stages}


@dataclass(frozen=True)
class NativeEvaluation:
    """The result of `evaluate_native`."""

    runs: tuple[NativeRunResult, ...]
    """One per run, in the order given."""
    engine: Literal["columnar", "reference"]
    """Which path produced the numbers."""
    fallback: str | None = None
    """Why the reference path ran, when it did."""
    reference_rows: int = 0
    """Rows the columnar path scored with the reference functions (exotic rows)."""
    splits: tuple[str, ...] = ()
    """Each question's split, in evaluation-set order (the runs' `question_ids` order)."""
    measures: tuple[str, ...] = ()
    """The measures computed, by name, in the order asked (the default set when none was)."""


def native_json(result: NativeEvaluation) -> dict[str, Any]:
    """A `NativeEvaluation` as plain data (aggregates and diagnosis counts per run)."""
    from ..render import aggregate_json  # imported here: scoring needs no renderer

    return {
        "engine": result.engine,
        "fallback": result.fallback,
        "reference_rows": result.reference_rows,
        "runs": [
            {
                "name": run.name,
                "k": run.k,
                "questions": len(run.question_ids),
                "summary": {name: aggregate_json(a) for name, a in run.summary.items()},
                "diagnosis": {
                    "stages": list(run.stages),
                    "primary": run.primary_counts(),
                    "present": run.present_counts(),
                },
            }
            for run in result.runs
        ],
    }


def _primary(findings: Mapping[str, np.ndarray], stages: tuple[str, ...]) -> np.ndarray:
    failing = np.stack([findings[s] for s in stages[:-1]], axis=1)
    first = failing.argmax(axis=1)
    return np.where(failing.any(axis=1), first, len(stages) - 1).astype(np.int64)


def _result(
    name: str, k: int | None, ids: Sequence[str], scores: Mapping[str, PerQuestion],
    chosen: Sequence[Measure], findings: dict[str, np.ndarray], stages: tuple[str, ...],
    k_used: bool,
) -> NativeRunResult:
    primary = _primary(findings, stages)
    findings[OK] = primary == len(stages) - 1
    kept = {m.name: scores[m.name] for m in chosen}
    summary = {m.name: aggregate(m.name, m.spec.averaging, kept[m.name]) for m in chosen}
    return NativeRunResult(
        name, k, tuple(ids), kept, summary, stages, findings, primary, k_used
    )


def from_reference(
    evaluation: Evaluation, stages: tuple[str, ...] | None = None
) -> tuple[NativeRunResult, ...]:
    """The reference path's results (`evaluate`, its measures and the diagnosis it carries)
    in the columnar result form: the oracle the tests compare against."""
    order = stages or stage_order()
    out = []
    for run in evaluation.runs:
        scores = {}
        for measure in evaluation.measures:
            name = measure.name
            left_out = None
            if measure.spec.cannot_judge is not None:
                left_out = [r.cannot_judge[name] for r in run.questions]
            found = [r.scores[name] for r in run.questions]
            scores[name] = PerQuestion.from_scores(found, left_out)
        findings = {
            stage: np.array([stage in q.stages for q in run.diagnosis.questions], dtype=bool)
            for stage in order[:-1]
        }
        ids = [r.question_id for r in run.questions]
        out.append(
            _result(run.name, run.k, ids, scores, evaluation.measures, findings, order,
                    run.k_used)
        )
    return tuple(out)


_MASK_BITS = 62
"""Access groups a mask can hold (more: questions with user groups are scored one by one)."""


def _codes(snapshot: Snapshot) -> Codes:
    ids = [d.id for d in snapshot.documents] + [c.id for c in snapshot.chunks]
    code: dict[str, int] = {}
    for item in ids:
        code.setdefault(item, len(code))
    n_docs = len({d.id for d in snapshot.documents})
    document_of = np.arange(len(code), dtype=np.int64)
    stale = np.zeros(len(code), dtype=bool)
    access = np.full(len(code), -1, dtype=np.int64)
    names = sorted({g for d in snapshot.documents for g in d.access_groups or ()})
    bits = {g: 1 << n for n, g in enumerate(names)} if len(names) <= _MASK_BITS else None
    versions: dict[str, int] = {}
    doc_version = np.full(len(code), -1, dtype=np.int64)
    for doc in snapshot.documents:  # duplicate IDs send the input to the reference path
        stale[code[doc.id]] = doc.status != "current"
        if doc.version is not None:
            doc_version[code[doc.id]] = versions.setdefault(doc.version, len(versions))
        if doc.access_groups is not None and bits is not None:
            access[code[doc.id]] = sum({bits[g] for g in doc.access_groups})
    for chunk in snapshot.chunks:
        document_of[code[chunk.id]] = code[chunk.document_id]
        stale[code[chunk.id]] = stale[code[chunk.document_id]]
        access[code[chunk.id]] = access[code[chunk.document_id]]
        doc_version[code[chunk.id]] = doc_version[code[chunk.document_id]]
    return Codes(code, n_docs, document_of, stale, access, doc_version, versions, bits)


def _load_snapshot(path: Path) -> Snapshot:
    loaded = read_file(path, ProblemCollector())
    if not isinstance(loaded.content, Snapshot):
        raise _Fallback("snapshot")
    snapshot = loaded.content
    empty = Dataset(snapshot, EvalSet(evalset_id="x", questions=[]), (), (loaded.source,))
    if check_dataset(empty, {}):
        raise _Fallback("snapshot rules")
    return snapshot


class _SnapshotFlags:
    """Whether a detector finds something in a snapshot item's text, scanned once per item."""

    def __init__(self, codes: Codes, index: SnapshotIndex, finds: Callable[[str], bool]) -> None:
        self._ids = list(codes.code)
        self._index = index
        self._known: dict[int, bool] = {}
        self._finds = finds

    def __call__(self, items: np.ndarray) -> np.ndarray:
        unique, inverse = np.unique(items, return_inverse=True)
        flags = np.zeros(unique.size, dtype=bool)
        for n, item in enumerate(unique.tolist()):
            flag = self._known.get(item)
            if flag is None:
                text = item_text(self._ids[item], self._index) or ""
                flag = self._known[item] = self._finds(text)
            flags[n] = flag
        out: np.ndarray = flags[inverse.reshape(-1)]
        return out


def _reference_rows(
    rows: np.ndarray, by_row: np.ndarray, paths: tuple[Path, Path], run: RunColumns,
    index: SnapshotIndex, level: LevelChoice, policy: LabelPolicy, ev: EvalColumns,
    chosen: Sequence[Measure], scores: dict[str, PerQuestion], findings: dict[str, np.ndarray],
    added: Added,
) -> None:
    """Score exotic rows with the reference functions, writing into the arrays (`added`: the
    run's labels from label files)."""
    wanted = rows.tolist()
    questions = record_at(paths[0], "evalset", "questions", set(wanted))
    results = record_at(paths[1], "run", "results", set(by_row[rows].tolist()))
    for row in wanted:
        question = Question.model_validate(questions[row])
        result = QuestionResult.model_validate(with_labels(results[int(by_row[row])], added))
        unit_level = (
            ("document" if ev.level_document[row] else "chunk") if level == "auto" else level
        )
        view = build_view(question, result, index, unit_level, run.k, policy)
        for measure in chosen:
            score = measure.compute(view)
            part = scores[measure.name]
            part.numerator[row] = 0.0 if score is None else score.numerator
            part.denominator[row] = 0.0 if score is None else score.denominator
            left_out = measure.cannot_judge(view)
            if part.cannot_judge is not None and left_out is not None:
                part.cannot_judge[row] = left_out
        stages = diagnose_view(view).stages
        for stage, found in findings.items():
            found[row] = stage in stages


def evaluate_native(
    evalset: PathArg,
    snapshot: PathArg,
    runs: Sequence[PathArg],
    *,
    metrics: Sequence[str] | None = None,
    k: int | None = None,
    label_policy: LabelPolicy = "human-first",
    allow_unreviewed: bool = False,
    evidence_level: LevelChoice = "auto",
    question_filter: QuestionFilter | None = None,
    labels: Sequence[PathArg] = (),
    workers: int | None = None,
) -> NativeEvaluation:
    """Every measure and the diagnosis of native runs; raise `InputError` with every problem.

    `metrics` names the measures (`ndcg@10`, aliases accepted; the default set when None;
    `NATIVE_MEASURES` is every registry measure). Large JSONL files are read by `workers`
    forked processes (default: one per CPU). Every question is checked; only those
    `question_filter` keeps (all when None) are in the result. `labels`: label files, whose
    labels count as the run's own (as `load_dataset` attaches them).

    Equal to `evaluate(load_dataset(...), metrics=metrics, ...)` and the diagnosis it
    carries (see `from_reference`), question by question.
    """
    chosen = measures(metrics)
    evalset = as_path(evalset)
    snapshot = as_path(snapshot)
    runs = as_paths(runs)
    names = tuple(dict.fromkeys(m.name for m in chosen))
    try:
        return _columnar(
            evalset, snapshot, runs, chosen, k, label_policy, allow_unreviewed,
            evidence_level, workers or default_workers(), question_filter, as_paths(labels),
        )
    except _Fallback as exc:
        dataset = load_dataset(evalset, snapshot=snapshot, runs=runs, labels=labels)
        evaluation = evaluate(
            dataset,
            k=k,
            metrics=names,
            label_policy=label_policy,
            allow_unreviewed=allow_unreviewed,
            evidence_level=evidence_level,
            question_filter=question_filter,
        )
        splits = tuple(
            q.split for q in dataset.evalset.questions
            if question_filter is None or question_filter(q)
        )
        return NativeEvaluation(
            from_reference(evaluation), "reference", str(exc), 0, splits, names
        )


def native_stages(result: NativeEvaluation) -> Iterator[tuple[str, tuple[str, ...]]]:
    """Every question's stages in every run, as `QuestionDiagnosis.stages` lists them
    (primary first; `ok` alone when nothing failed): (question ID, stages)."""
    for run in result.runs:
        failing = [s for s in run.stages if s != OK]
        found = {stage: run.findings[stage].tolist() for stage in failing}
        for row, (question_id, first) in enumerate(
            zip(run.question_ids, run.primary.tolist(), strict=True)
        ):
            primary = run.stages[first]
            yield question_id, (primary, *(s for s in failing if found[s][row] and s != primary))


_KNOWN_STAGES = frozenset(
    {"permission_leak", "retrieval_miss", "ranking_loss", "truncation_loss",
     "injection_followed", "stale_evidence", "unsupported_claim", "invalid_citation",
     "incomplete_answer", "missed_refusal", "false_refusal", "needless_clarification",
     "needless_escalation", "missed_clarification",
     "judge_uncertain", "injection_in_context", OK}
)


def _columnar(
    evalset: Path, snapshot_path: Path, runs: Sequence[Path], chosen: Sequence[Measure],
    k: int | None, policy: LabelPolicy, allow_unreviewed: bool, level: LevelChoice,
    workers: int, question_filter: QuestionFilter | None, label_files: Sequence[Path],
) -> NativeEvaluation:
    stages = stage_order()
    if not set(stages) <= _KNOWN_STAGES:
        raise _Fallback(f"stages {sorted(set(stages) - _KNOWN_STAGES)}")
    snapshot = _load_snapshot(snapshot_path)
    codes = _codes(snapshot)
    index = SnapshotIndex.build(snapshot)
    ev = read_evalset_parallel(evalset, codes, workers)
    n = len(ev.ids)
    if level == "auto":
        level_document = ev.level_document
    else:
        level_document = np.full(n, level == "document", dtype=bool)
    matcher = build_matcher(ev, codes, level_document)
    rules = default_injection_rules()
    flags = _SnapshotFlags(codes, index, lambda text: bool(detect_injection(text, rules)))
    chosen = tuple({m.name: m for m in chosen}.values())
    # The sensitive-content scans of answers and contexts are paid only when asked for.
    scan_answers = any(m.spec.name == "sensitive_in_answer" for m in chosen)
    scan_contexts = any(m.spec.name == "sensitive_in_context" for m in chosen)
    sensitive = (
        _SnapshotFlags(codes, index, lambda text: bool(find_sensitive(text)))
        if scan_contexts else None
    )
    labels = read_labels(label_files)[0]
    names: set[str] = set()
    out = []
    reference_rows = 0
    answered: dict[str, list[str]] = {}
    keep = _kept(evalset, n, question_filter)
    kept_ids = [qid for qid, kept in zip(ev.ids, keep.tolist(), strict=True) if kept]
    for path in runs:
        run = read_run_parallel(
            path, ev, codes, workers, k=k, label_policy=policy,
            allow_unreviewed=allow_unreviewed, scan_answers=scan_answers,
            scan_contexts=scan_contexts, added_labels=labels,
        )
        if run.header.name in names:
            raise _Fallback("run names")
        names.add(run.header.name)
        answered[run.header.name] = [ev.ids[row] for row in run.row.tolist()]
        scores, findings = run_layers(ev, run, codes, level_document, matcher, flags, sensitive)
        scores.update(rank_scores(ev, run, codes, level_document, matcher, chosen))
        by_row = np.empty(n, dtype=np.int64)
        by_row[run.row] = np.arange(n, dtype=np.int64)
        exotic = ev.exotic | matcher.shared | run.exotic[by_row] | (level == "span")
        rows = np.flatnonzero(exotic)
        if rows.size:
            _reference_rows(
                rows, by_row, (evalset, path), run, index, level, policy, ev, chosen, scores,
                findings, labels.get(run.header.name, {}),
            )
        reference_rows += int(rows.size)
        derived = run.context_derived[by_row][keep]
        out.append(
            _result(
                run.header.name, run.k, kept_ids, _kept_scores(scores, keep), chosen,
                {stage: found[keep] for stage, found in findings.items()}, stages,
                bool(derived.size == 0 or derived.any()),
            )
        )
    check_answered(labels, names, answered)
    return NativeEvaluation(
        tuple(out), "columnar", None, reference_rows,
        tuple(split for split, kept in zip(ev.split, keep.tolist(), strict=True) if kept),
        tuple(m.name for m in chosen),
    )


def _kept(path: Path, n: int, question_filter: QuestionFilter | None) -> np.ndarray:
    """Which of the `n` questions of an evaluation set `question_filter` keeps (as models)."""
    if question_filter is None:
        return np.ones(n, dtype=bool)
    found = record_at(path, "evalset", "questions", set(range(n)))
    try:
        questions = [Question.model_validate(found[row]) for row in range(n)]
    except ValidationError as exc:  # the fast checks let it through: the reference reports it
        raise _Fallback("question model") from exc
    return np.array([question_filter(q) for q in questions], dtype=bool)


def _kept_scores(scores: Mapping[str, PerQuestion], keep: np.ndarray) -> dict[str, PerQuestion]:
    return {
        name: PerQuestion(
            part.numerator[keep], part.denominator[keep],
            None if part.cannot_judge is None else part.cannot_judge[keep],
        )
        for name, part in scores.items()
    }
