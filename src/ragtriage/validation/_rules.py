"""Semantic checks across files: IDs, answerability, outcomes, labels and the context.

Every check adds to one list, so the user sees every problem at once.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping

from ..errors import Problem
from ..loading import Dataset, SnapshotIndex
from ..schemas import LabelPolicy, QuestionResult, Run

_CONTEXT_HASH = re.compile(r"sha256:[0-9a-f]{64}")
"""The form of a label's `context_hash` (see `ragtriage.boundaries.labels_trust`)."""

_ARTICLE_FIELDS = {
    "candidates": "retrievedIds",
    "citations": "citationIds",
    "supported_by": "review.supportedByIds",
    "fact_labels": "review.coveredReferenceFactIds",
    "outcome": "abstained",
    "required_evidence": "requiredEvidenceIds",
    "reference_facts": "referenceFactIds",
    "results": "results",
    "documents": "corpus",
    "questions": "cases",
}


def _dupes(values: Iterable[str]) -> list[str]:
    return sorted(v for v, n in Counter(values).items() if n > 1)


class _Checker:
    def __init__(self, ds: Dataset) -> None:
        self.ds = ds
        self.problems: list[Problem] = []
        # An article file holds several runs: name the run in the field, as the file does.
        self.run_prefix = ""

    def add(self, file: str, qid: str | None, field: str, expected: str, found: str) -> None:
        if self.ds.article:
            head, _, rest = field.partition(".")
            base = head.split("[")[0]
            if base in _ARTICLE_FIELDS:
                field = _ARTICLE_FIELDS[base] + head[len(base) :] + ("." + rest if rest else "")
            for native, article in _ARTICLE_FIELDS.items():
                field = field.replace("." + native, "." + article)
            field = self.run_prefix + field
        self.problems.append(Problem(file, qid, field, expected, found))


def _snapshot_file(ds: Dataset) -> str:
    for source in ds.sources:
        if source.kind in ("snapshot", "article"):
            return source.path
    return ds.sources[0].path


def _check_snapshot(c: _Checker, index: SnapshotIndex) -> None:
    ds, file = c.ds, _snapshot_file(c.ds)
    for dup in _dupes(d.id for d in ds.snapshot.documents):
        c.add(file, None, f"documents[id={dup}]", "unique document IDs", f"{dup!r} more than once")
    for dup in _dupes(ch.id for ch in ds.snapshot.chunks):
        c.add(file, None, f"chunks[id={dup}]", "unique chunk IDs", f"{dup!r} more than once")
    for chunk in ds.snapshot.chunks:
        where = f"chunks[id={chunk.id}]"
        if chunk.id in index.documents:
            c.add(
                file,
                None,
                f"{where}.id",
                "a chunk ID distinct from every document ID",
                repr(chunk.id),
            )
        doc = index.documents.get(chunk.document_id)
        if doc is None:
            c.add(
                file,
                None,
                f"{where}.document_id",
                "the ID of a document in the snapshot",
                repr(chunk.document_id),
            )
            continue
        if not chunk.start < chunk.end <= len(doc.text):
            c.add(
                file,
                None,
                f"{where}.start/end",
                f"0 <= start < end <= {len(doc.text)} (the document's length)",
                f"start {chunk.start}, end {chunk.end}",
            )
        elif chunk.text is not None and doc.text[chunk.start : chunk.end] != chunk.text:
            c.add(
                file,
                None,
                f"{where}.text",
                "the document's text over [start, end)",
                "different text",
            )
    for doc in ds.snapshot.documents:
        for old in doc.supersedes:
            if old == doc.id or old not in index.documents:
                c.add(
                    file,
                    None,
                    f"documents[id={doc.id}].supersedes",
                    "IDs of other documents in the snapshot",
                    repr(old),
                )


def _check_evalset(c: _Checker, index: SnapshotIndex) -> None:
    ds = c.ds
    file = next(
        (s.path for s in ds.sources if s.kind in ("evalset", "article")), ds.sources[0].path
    )
    for dup in _dupes(q.id for q in ds.evalset.questions):
        c.add(file, dup, "id", "unique question IDs", f"{dup!r} more than once")
    for q in ds.evalset.questions:
        for dup in _dupes(f.id for f in q.reference_facts):
            c.add(
                file,
                q.id,
                "reference_facts.id",
                "unique fact IDs within the question",
                f"{dup!r} more than once",
            )
        for gi, group in enumerate(q.required_evidence):
            for dup in _dupes(group.any_of):
                c.add(
                    file,
                    q.id,
                    f"required_evidence[{gi}].any_of",
                    "no repeated ID within a group",
                    f"{dup!r} more than once",
                )
            for item in group.any_of:
                if not index.known(item):
                    c.add(
                        file,
                        q.id,
                        f"required_evidence[{gi}]",
                        "IDs of documents or chunks in the snapshot",
                        repr(item),
                    )
        if ds.article:
            for dup in _dupes(i for g in q.required_evidence for i in g.any_of):
                c.add(file, q.id, "required_evidence", "no repeated ID", f"{dup!r} more than once")
        for fact in q.reference_facts:
            for item in fact.evidence:
                if not index.known(item):
                    c.add(
                        file,
                        q.id,
                        f"reference_facts[id={fact.id}].evidence",
                        "IDs of documents or chunks in the snapshot",
                        repr(item),
                    )
        if q.answerability == "unanswerable" and (q.required_evidence or q.reference_facts):
            c.add(
                file,
                q.id,
                "answerability",
                "no required evidence and no reference facts for an unanswerable question",
                f"{len(q.required_evidence)} evidence group(s), "
                f"{len(q.reference_facts)} reference fact(s)",
            )
        if q.answerability == "answerable" and not q.required_evidence:
            c.add(
                file, q.id, "answerability", "required evidence for an answerable question", "none"
            )
        if ds.article and q.answerability == "answerable" and not q.reference_facts:
            c.add(file, q.id, "answerability", "reference facts for an answerable question", "none")


def _check_ranking(
    c: _Checker, file: str, res: QuestionResult, field: str, ids: list[str], index: SnapshotIndex
) -> None:
    for dup in _dupes(ids):
        c.add(file, res.question_id, field, "each ID at most once", f"{dup!r} more than once")
    for item in dict.fromkeys(ids):
        if not index.known(item):
            c.add(
                file,
                res.question_id,
                field,
                "IDs of documents or chunks in the snapshot",
                repr(item),
            )


def _check_result(
    c: _Checker,
    file: str,
    res: QuestionResult,
    k: int | None,
    index: SnapshotIndex,
    fact_ids: set[str],
    allow_unreviewed: bool,
    policy: LabelPolicy,
) -> None:
    qid = res.question_id
    _check_ranking(c, file, res, "candidates", [i.id for i in res.candidates], index)
    if res.reranked is not None:
        reranked = [i.id for i in res.reranked]
        _check_ranking(c, file, res, "reranked", reranked, index)
        candidates = {i.id for i in res.candidates}
        for item in dict.fromkeys(reranked):
            if item not in candidates and index.known(item):
                c.add(file, qid, "reranked", "IDs that were among the candidates", repr(item))
    if res.context is not None:
        _check_ranking(c, file, res, "context", [i.id for i in res.context], index)
        context = [i.id for i in res.context]
    else:
        ranking = res.reranked if res.reranked is not None else res.candidates
        context = [i.id for i in ranking][: k if k is not None else None]
    in_context = set(context)
    if res.outcome is None and res.answer is not None:
        c.add(
            file,
            qid,
            "outcome",
            "answered, refused, clarified or escalated for a result with an answer",
            "nothing",
        )
    if res.outcome is not None and (res.answer is None or not res.answer.strip()):
        c.add(
            file,
            qid,
            "answer",
            "non-empty answer text",
            "an empty answer" if res.answer is not None else "nothing",
        )
    claims = res.claims or []
    covered = [lab.fact_id for lab in res.fact_labels if lab.verdict == "covered"]
    if res.outcome in ("refused", "clarified", "escalated"):
        if claims:
            c.add(
                file,
                qid,
                "claims",
                f"no claims in a result whose outcome is {res.outcome}",
                f"{len(claims)} claim(s)",
            )
        if covered:
            c.add(
                file,
                qid,
                "fact_labels",
                f"no covered reference facts when the outcome is {res.outcome}",
                ", ".join(sorted(set(covered))),
            )
    if res.outcome == "answered" and not claims and not allow_unreviewed:
        c.add(
            file,
            qid,
            "claims",
            "at least one reviewed claim for an answered question (or --allow-unreviewed)",
            "no claims" if res.claims is not None else "claims not extracted",
        )
    for dup in _dupes(cl.id or f"c{n}" for n, cl in enumerate(claims, start=1)):
        c.add(
            file, qid, "claims.id", "unique claim IDs within the answer", f"{dup!r} more than once"
        )
    for n, claim in enumerate(claims, start=1):
        cid = claim.id or f"c{n}"
        counted = [
            lab for lab in claim.labels if policy == "human-first" or lab.labeller.kind == policy
        ]
        if not counted and res.outcome == "answered" and not allow_unreviewed:
            c.add(
                file,
                qid,
                f"claims[{cid}].labels",
                f"a review label ({policy}) for every claim (or --allow-unreviewed)",
                "no label",
            )
        for lab in claim.labels:
            if lab.verdict == "supported" and not lab.supported_by:
                c.add(
                    file,
                    qid,
                    f"claims[{cid}].supported_by",
                    "at least one supporting context ID for a supported claim",
                    "none",
                )
            if lab.verdict != "supported" and lab.supported_by:
                c.add(
                    file,
                    qid,
                    f"claims[{cid}].supported_by",
                    f"no supporting IDs for a claim labelled {lab.verdict}",
                    ", ".join(lab.supported_by),
                )
            if lab.context_hash is not None and not _CONTEXT_HASH.fullmatch(lab.context_hash):
                c.add(
                    file,
                    qid,
                    f"claims[{cid}].labels.context_hash",
                    "sha256: followed by 64 lowercase hex digits",
                    repr(lab.context_hash),
                )
            if lab.labeller.kind == "judge" and not lab.labeller.prompt_version:
                c.add(
                    file,
                    qid,
                    f"claims[{cid}].labels.labeller.prompt_version",
                    "the judge's prompt version",
                    "nothing",
                )
            for item in lab.supported_by:
                if item not in in_context:
                    shown = (
                        f"top-{k} context"
                        if res.context is None and k is not None
                        else "final context"
                    )
                    c.add(
                        file,
                        qid,
                        f"claims[{cid}].supported_by",
                        f"IDs in the {shown} ({', '.join(context) or 'empty'})",
                        repr(item),
                    )
    for flab in res.fact_labels:
        if flab.context_hash is not None and not _CONTEXT_HASH.fullmatch(flab.context_hash):
            c.add(
                file,
                qid,
                "fact_labels.context_hash",
                "sha256: followed by 64 lowercase hex digits",
                repr(flab.context_hash),
            )
        if flab.fact_id not in fact_ids:
            c.add(
                file,
                qid,
                "fact_labels.fact_id",
                f"a reference fact of the question ({', '.join(sorted(fact_ids)) or 'none'})",
                repr(flab.fact_id),
            )
        if flab.labeller.kind == "judge" and not flab.labeller.prompt_version:
            c.add(
                file,
                qid,
                "fact_labels.labeller.prompt_version",
                "the judge's prompt version",
                "nothing",
            )
    if res.outcome == "answered" and not allow_unreviewed:
        labelled = {
            flab.fact_id
            for flab in res.fact_labels
            if policy == "human-first" or flab.labeller.kind == policy
        }
        for fact in sorted(fact_ids - labelled):
            c.add(
                file,
                qid,
                "fact_labels",
                f"a coverage label for reference fact {fact!r} (or --allow-unreviewed)",
                "no label",
            )


def _check_run(
    c: _Checker,
    run: Run,
    k: int | None,
    index: SnapshotIndex,
    allow_unreviewed: bool,
    policy: LabelPolicy,
) -> None:
    file = c.ds.run_file(run.name)
    c.run_prefix = f"runs[{run.name}]." if c.ds.article else ""
    questions = {q.id: q for q in c.ds.evalset.questions}
    counts = Counter(res.question_id for res in run.results)
    for qid, n in sorted(counts.items()):
        if n > 1:
            c.add(file, qid, "results", "one result per question", f"{n} results")
        if qid not in questions:
            c.add(
                file,
                qid,
                "results.question_id",
                "a question of the evaluation set",
                "no such question",
            )
    for qid in questions:
        if qid not in counts:
            c.add(
                file, qid, "results", f"a result for every question (run {run.name!r})", "no result"
            )
    needs_k = any(res.context is None and (res.candidates or res.reranked) for res in run.results)
    if needs_k and k is None:
        c.add(
            file,
            None,
            "provenance.k",
            "a cut-off for the final context (give -k, or record the context or provenance.k)",
            "none",
        )
    for res in run.results:
        question = questions.get(res.question_id)
        facts = {f.id for f in question.reference_facts} if question else set()
        _check_result(c, file, res, k, index, facts, allow_unreviewed, policy)
    c.run_prefix = ""


def check_dataset(
    ds: Dataset,
    ks: Mapping[str, int | None],
    *,
    allow_unreviewed: bool = False,
    label_policy: LabelPolicy = "human-first",
) -> list[Problem]:
    """Every semantic problem of a dataset, given each run's cut-off."""
    index = SnapshotIndex.build(ds.snapshot)
    c = _Checker(ds)
    _check_snapshot(c, index)
    _check_evalset(c, index)
    for run in ds.runs:
        _check_run(c, run, ks.get(run.name), index, allow_unreviewed, label_policy)
    return c.problems
