"""Running the engine through its public API, the files read by the file reader and by the
loader, and comparing with the oracle: every per-question score, every aggregate, the
diagnosis."""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from loader_path import evaluate_by_loader
from ragtriage import evaluate_files
from ragtriage.diagnosis import diagnose
from ragtriage.evaluation import Evaluation, RunEvaluation
from ragtriage.metrics import QuestionView
from ragtriage.request import Request
from ragtriage.schemas import Labeller

from .evaluate import OracleEvaluation
from .measures import Score, canary_obeyed, holds, invalid_citations, leaked, stage_items
from .strategies import Generated, write
from .views import View

FLOAT_SUMMED = ("context_precision", "ndcg")
"""Measures the engine sums in floats term by term (ndcg: logarithms): compared to 1e-12."""


@dataclass(frozen=True)
class Files:
    evalset: Path
    snapshot: Path
    runs: list[Path]
    labels: list[Path]


def write_files(directory: Path, g: Generated, jsonl: bool) -> Files:
    suffix = ".jsonl" if jsonl else ".json"
    evalset = write(g.evalset, directory / f"evalset{suffix}")
    snapshot = write(g.snapshot, directory / f"snapshot{suffix}")
    if not g.labels:
        runs = [write(run, directory / f"run-{run['name']}{suffix}") for run in g.runs]
        return Files(evalset, snapshot, runs, [])
    apart = [write(run, directory / f"apart-{run['name']}{suffix}") for run in g.runs_apart]
    labels = [write(lab, directory / f"labels{n}{suffix}") for n, lab in enumerate(g.labels)]
    return Files(evalset, snapshot, apart, labels)


def run_by_loader(files: Files, names: list[str], options: dict[str, Any]) -> Evaluation:
    """`ragtriage evaluate` from Python, the files read by the loader (`load_dataset`, then the
    same engine)."""
    request = Request.build(files.evalset, snapshot=files.snapshot, runs=files.runs,
                            labels=files.labels, metrics=names, **options)
    return evaluate_by_loader(request, "evaluate")


def run_by_file_reader(files: Files, names: list[str], options: dict[str, Any]) -> Evaluation:
    """`ragtriage evaluate` from Python, the files read by the file reader
    (`evaluate_native`)."""
    return evaluate_files(files.evalset, snapshot=files.snapshot, runs=files.runs,
                          labels=files.labels, metrics=names, notify=quiet, **options)


def quiet(notice: object) -> None:
    """Notes (holdout left out, k not used) are not compared here."""


def same(name: str, engine: float, oracle: Fraction | float) -> bool:
    """Exact equality, except for the float-summed measures (relative 1e-12)."""
    if name.split("@")[0] in FLOAT_SUMMED:
        return math.isclose(engine, float(oracle), rel_tol=1e-12, abs_tol=1e-15)
    return engine == float(oracle)


def macro_numerator(scores: list[Score | None]) -> float:
    """The engine's macro numerator: the exactly rounded sum of the per-question values,
    each rounded to a float first."""
    return math.fsum(float(s.value) for s in scores if s is not None)


def _evidence(view: View) -> tuple[tuple[tuple[int | None, ...], ...], frozenset[str]]:
    """Per required group, its first satisfying item's position among the candidates, in the
    final ranking and in the context; and the retrieved items that satisfy some group."""
    first = tuple(
        (view.first_match(g, view.candidates), view.first_match(g, view.ranking),
         view.first_match(g, view.context))
        for g in view.groups
    )
    retrieved = {*view.candidates, *(view.reranked or ()), *view.context}
    items = frozenset(i for i in retrieved if any(view.satisfies(g, i) for g in view.groups))
    return first, items


_STAGES = ("candidates", "context", "cited", "support")
_ITEM_KEYS = (
    *(f"stale_{stage}" for stage in _STAGES),
    *(f"permission_leak_{stage}" for stage in _STAGES),
    "invalid_citation_claims",
    "canary_obeyed",
)
"""The details naming a question's stale items, unreadable documents and invalid claims."""


def _record_fields(view: View) -> tuple[Any, ...]:
    """What a record states of its question and result besides its numbers: tags, split,
    answerability, outcome, latency and cost (a number as a float, as the model holds it)."""
    q, res = view.question, view.result
    latency, cost = res.get("latency_ms"), res.get("cost_usd")
    return (
        tuple(q.get("tags", [])), q.get("split", "dev"), q["answerability"], res.get("outcome"),
        None if latency is None else float(latency), None if cost is None else float(cost),
    )


def _details(view: View) -> dict[str, tuple[str, ...]]:
    """The IDs behind a question's stale, permission and citation numbers, as a record's
    details name them (a key only when it names something)."""
    out: dict[str, tuple[str, ...]] = {}
    for stage in _STAGES:
        stale = tuple(i for i in stage_items(view, stage) if view.snapshot.is_stale(i))
        if stale:
            out[f"stale_{stage}"] = stale
    for stage in _STAGES:
        documents = leaked(view, stage)
        if documents:
            out[f"permission_leak_{stage}"] = documents
    bad = tuple(claim for claim, _ in invalid_citations(view))
    if bad:
        out["invalid_citation_claims"] = bad
    obeyed = canary_obeyed(view, view.k)  # n/a (None) or not obeyed (0): no detail
    if obeyed is not None and obeyed.numerator:
        out["canary_obeyed"] = (view.question["canary"]["document_id"],)
    return out


_SENSITIVE_LABEL = re.compile(r"(.*):[a-z_]+\[[0-9]+:[0-9]+\]", re.DOTALL)
"""A `sensitive_context` detail: the item's ID, `:`, the finding's label."""


def _answer_details(view: View) -> dict[str, Any]:
    """The details a record shows of a question's claims, facts, evidence, flagged context,
    sensitive values and stale labels (a key only when it names something). Sensitive
    values as where they are (the findings' positions are the detectors', not re-found
    here): the answer (True), the context items holding one, in context order."""
    out: dict[str, Any] = {}
    claims = view.claims or ()
    unsupported = tuple(c.claim_id for c in claims if c.state == "unsupported")
    if unsupported:
        out["unsupported_claims"] = unsupported
    uncertain = tuple(c.claim_id for c in claims if c.state in ("cannot_judge", "unlabelled"))
    answered = view.outcome == "answered"
    if answered:
        uncertain += tuple(
            f.fact_id for f in view.facts if f.state in ("cannot_judge", "unlabelled")
        )
    if uncertain:
        out["uncertain_labels"] = uncertain
    missing = tuple(f.fact_id for f in view.facts if answered and f.state == "not_covered")
    if missing:
        out["missing_facts"] = missing
    if view.answerability == "answerable":
        lacking = tuple(
            "|".join(g["any_of"]) for g in view.groups
            if view.first_match(g, view.context) is None
        )
        if lacking:
            out["missing_evidence"] = lacking
    texts = view.context_texts()
    flagged = tuple(
        item for item, text in zip(view.context, texts, strict=True)
        if holds(text, view.detectors.instructions)
    )
    if flagged:
        out["injection_flagged_context"] = flagged
    if view.answer is not None and holds(view.answer, view.detectors.sensitive):
        out["sensitive_answer"] = True
    holding = tuple(
        item for item, text in zip(view.context, texts, strict=True)
        if holds(text, view.detectors.sensitive)
    )
    if holding:
        out["sensitive_context"] = holding
    stale = tuple(c.claim_id for c in claims if c.stale)
    stale += tuple(f.fact_id for f in view.facts if f.stale)
    if stale:
        out["stale_labels"] = stale
    return out


def _shown_answer_details(details: dict[str, tuple[str, ...]]) -> dict[str, Any]:
    """A record's details as `_answer_details` states them."""
    out: dict[str, Any] = {}
    for key, ids in details.items():
        if key == "sensitive_answer":
            out[key] = True
        elif key == "sensitive_context":
            items = []
            for label in ids:
                match = _SENSITIVE_LABEL.fullmatch(label)
                items.append(label if match is None else match.group(1))
            out[key] = tuple(dict.fromkeys(items))
        elif key in _ANSWER_KEYS:
            out[key] = ids
    return out


_ANSWER_KEYS = (
    "unsupported_claims", "uncertain_labels", "missing_facts", "missing_evidence",
    "injection_flagged_context", "sensitive_answer", "sensitive_context", "stale_labels",
)
"""The details `_answer_details` states; with `_ITEM_KEYS`, every key a record shows."""


def _labels(where: str, oracle: View, view: QuestionView) -> list[str]:
    """The differences in what a question's claims and facts are labelled with: state,
    support, who counted, the claims and facts with stale labels (the judges of the fresh
    labels are compared in each run's label sources)."""
    want: list[Any] = []
    got: list[Any] = []
    for claim in oracle.claims or ():
        support = claim.supported_by if claim.state == "supported" else ()
        want.append((claim.claim_id, claim.state, support, claim.labelled_by, claim.labellers))
    for c in view.claims or ():
        got.append((c.claim_id, c.state, c.supported_by, c.labelled_by, c.labellers))
    for fact in oracle.facts:
        want.append((fact.fact_id, fact.state, fact.labelled_by))
    for f in view.facts:
        got.append((f.fact_id, f.state, f.labelled_by))
    stale = tuple(
        [c.claim_id for c in oracle.claims or () if c.stale]
        + [f.fact_id for f in oracle.facts if f.stale]
    )
    out = []
    if got != want:
        out.append(f"{where} labels: engine {got}, oracle {want}")
    if view.stale_labels != stale:
        out.append(f"{where} stale labels: engine {view.stale_labels}, oracle {stale}")
    return out


_KINDS = {"claim_support": ("claim",), "fact_coverage": ("fact",)}
"""The item kinds whose labels a measure reads (the measures of the oracle that read any)."""


def _label_sources(questions: list[Any], names: list[str]) -> dict[str, Any]:
    """Per measure reading labels: on the questions it applies to, the claims or facts whose
    counted label is a person's and a judge's, and the judges (first met) of the current
    labels of the judge-labelled ones, sorted by name and prompt version."""
    out = {}
    for name in names:
        human = judge = 0
        judges: dict[tuple[str, str], dict[str, Any]] = {}
        for oq in questions:
            if oq.scores.get(name) is None:
                continue
            for kind in _KINDS[name]:
                items = (oq.view.claims or ()) if kind == "claim" else oq.view.facts
                for item in items:
                    human += item.labelled_by == "human"
                    judge += item.labelled_by == "judge"
                    if item.labelled_by == "judge":
                        for who in item.judges:
                            key = (who["name"], who.get("prompt_version") or "")
                            judges.setdefault(key, who)
        out[name] = (
            human, judge,
            [Labeller.model_validate(judges[key]).model_dump(exclude_none=True)
             for key in sorted(judges)],
        )
    return out


def _permissions(views: list[View], ids: list[str]) -> tuple[Any, ...]:
    """A run's permission section, as the oracle finds it: per stage, the questions with an
    unreadable document, the questions checked (asked with user groups, the stage not empty)
    and the documents; the questions whose leak reached the context or the answer, with
    their documents per stage; the questions asked without user groups."""
    asked = [v.question.get("user_groups") is not None for v in views]
    stages = tuple(
        (
            stage,
            tuple(qid for qid, v in zip(ids, views, strict=True) if leaked(v, stage)),
            sum(a and bool(stage_items(v, stage)) for a, v in zip(asked, views, strict=True)),
            tuple(sorted({d for v in views for d in leaked(v, stage)})),
        )
        for stage in _STAGES
    )
    blocking = tuple(
        (qid, tuple((stage, leaked(v, stage)) for stage in _STAGES))
        for qid, v in zip(ids, views, strict=True)
        if any(leaked(v, stage) for stage in ("context", "cited", "support"))
    )
    return stages, blocking, asked.count(False)


def _summary(summary: Any) -> tuple[Any, ...]:
    """The engine's permission section in the oracle's form (`_permissions`)."""
    return (
        tuple((s.stage, s.questions_with_leak, s.questions_checked, s.documents)
              for s in summary.stages),
        tuple((c.question_id, c.leaks) for c in summary.blocking),
        summary.unchecked,
    )


def compare_with_oracle(oracle: OracleEvaluation, evaluation: Evaluation) -> list[str]:
    """Every difference between the oracle and the engine's `evaluation` (empty: none)."""
    out: list[str] = []
    # The diagnosis each run carries (what reports show), and diagnosing it again from its
    # views gives the same.
    diagnoses = [run.diagnosis for run in evaluation.runs]
    if list(diagnose(evaluation)) != diagnoses:
        out.append("diagnose(evaluation) differs from the diagnoses the evaluation carries")
    for orun, erun, drun in zip(oracle.runs, evaluation.runs, diagnoses, strict=True):
        ids = [q.question_id for q in orun.questions]
        if [r.question_id for r in erun.questions] != ids:
            return [f"{orun.name}: questions {[r.question_id for r in erun.questions]} != {ids}"]
        views = erun.views
        for oq, rec, dq, view in zip(
            orun.questions, erun.questions, drun.questions, views, strict=True
        ):
            where = f"{orun.name}/{oq.question_id}"
            fields = _record_fields(oq.view)
            shown_fields = (rec.tags, rec.split, rec.answerability, rec.outcome,
                            rec.latency_ms, rec.cost_usd)
            if shown_fields != fields or dq.tags != fields[0] or dq.split != fields[1]:
                out.append(f"{where} record: engine {shown_fields}, diagnosis "
                           f"{(dq.tags, dq.split)}, oracle {fields}")
            evidence = _evidence(oq.view)
            if (view.evidence.first, view.evidence.items) != evidence:
                out.append(f"{where} evidence: engine {view.evidence}, oracle {evidence}")
            out.extend(_labels(where, oq.view, view))
            details = _details(oq.view)
            shown = {key: ids for key, ids in rec.details.items() if key in _ITEM_KEYS}
            if shown != details:
                out.append(f"{where} details: engine {shown}, oracle {details}")
            answer_details = _answer_details(oq.view)
            shown_answer = _shown_answer_details(rec.details)
            if shown_answer != answer_details:
                out.append(f"{where} details: engine {shown_answer}, oracle {answer_details}")
            unknown = set(rec.details) - {*_ITEM_KEYS, *_ANSWER_KEYS}
            if unknown:
                out.append(f"{where} details: unknown keys {sorted(unknown)}")
            for name, want in oq.scores.items():
                got = rec.scores[name]
                if (got is None) != (want is None):
                    out.append(f"{where} {name}: engine {got}, oracle {want}")
                elif got is not None and want is not None and not (
                    same(name, got.numerator, want.numerator)
                    and same(name, got.denominator, want.denominator)
                ):
                    out.append(f"{where} {name}: engine {got.numerator}/{got.denominator}, "
                               f"oracle {want.numerator}/{want.denominator}")
            for name, count in oq.cannot_judge.items():
                if rec.cannot_judge.get(name) != count:
                    out.append(f"{where} {name} cannot_judge: engine "
                               f"{rec.cannot_judge.get(name)}, oracle {count}")
            if dq.stages != oq.stages:
                out.append(f"{where} stages: engine {dq.stages}, oracle {oq.stages}")
            found = {f.stage: f.ids for f in dq.findings}
            if found != oq.findings:
                out.append(f"{where} findings: engine {found}, oracle {oq.findings}")
        sources = _label_sources(orun.questions, list(erun.label_sources))
        shown = {
            name: (found.human, found.judge,
                   [j.model_dump(exclude_none=True) for j in found.judges])
            for name, found in erun.label_sources.items()
        }
        if shown != sources:
            out.append(f"{orun.name} label sources: engine {shown}, oracle {sources}")
        permissions = _permissions([oq.view for oq in orun.questions], ids)
        if _summary(erun.boundaries.permissions) != permissions:
            out.append(f"{orun.name} permissions: engine "
                       f"{_summary(erun.boundaries.permissions)}, oracle {permissions}")
        for name, total in orun.summary.items():
            agg = erun.summary[name]
            scores = [q.scores[name] for q in orun.questions]
            numerator = macro_numerator(scores) if total.averaging == "macro" else total.numerator
            value = None if not total.denominator else float(numerator) / float(total.denominator)
            checks = [
                (agg.averaging, total.averaging),
                (agg.not_applicable, total.not_applicable),
                (agg.cannot_judge, total.cannot_judge),
                (agg.denominator, float(total.denominator)),
            ]
            if (
                any(a != b for a, b in checks)
                or not same(name, agg.numerator, numerator)
                or (agg.value is None) != (value is None)
                or (agg.value is not None and value is not None
                    and not same(name, agg.value, value))
            ):
                out.append(f"{orun.name} summary {name}: engine {agg}, oracle {total}")
    return out


def compare_readers(read: Evaluation, loaded: Evaluation) -> list[str]:
    """Every difference between the engine's results on the files read by the file reader and
    by the loader: the measures and the runs, field by field (not the input files)."""
    out: list[str] = []
    if read.measures != loaded.measures:
        out.append(f"measures: file reader {read.measures}, loader {loaded.measures}")
    for read_run, loaded_run in zip(read.runs, loaded.runs, strict=True):
        for field in dataclasses.fields(RunEvaluation):
            if not field.compare or field.name == "questions":
                continue
            got, want = getattr(read_run, field.name), getattr(loaded_run, field.name)
            if got != want:
                out.append(f"{loaded_run.name} {field.name}: file reader {got}, loader {want}")
        read_ids = [r.question_id for r in read_run.questions]
        loaded_ids = [r.question_id for r in loaded_run.questions]
        if read_ids != loaded_ids:
            out.append(f"{loaded_run.name} questions: file reader {read_ids}, loader {loaded_ids}")
            continue
        for got, want in zip(read_run.questions, loaded_run.questions, strict=True):
            if got != want:
                out.append(f"{loaded_run.name}/{want.question_id}: file reader {got}, "
                           f"loader {want}")
    return out
