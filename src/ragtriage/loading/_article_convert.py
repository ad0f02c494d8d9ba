"""Read the article format, and convert it into the native snapshot, evaluation set and runs."""

from __future__ import annotations

from typing import Any

from ..errors import ProblemCollector
from ..schemas import (
    ArticleCase,
    ArticleDataset,
    ArticleResult,
    ArticleRun,
    Claim,
    ClaimLabel,
    Document,
    EvalSet,
    EvidenceGroup,
    FactLabel,
    Labeller,
    Provenance,
    Question,
    QuestionResult,
    RankedItem,
    ReferenceFact,
    Run,
    Snapshot,
    plain_ids,
)
from ._files import validate_item
from ._items import Items, validate_list

ARTICLE_REVIEWER = Labeller(kind="human", name="article-reviewer")
"""Who the article format's embedded review labels are attributed to."""

ARTICLE_DEFAULT_K = 2
"""The article scorer's default cut-off, used when no -k is given for an article file."""

_CASES = Items(
    "cases", ArticleCase, "id",
    blank={"question": "?", "answerable": False, "requiredEvidenceIds": [], "referenceFactIds": []},
)
_RESULTS = Items(
    "results", ArticleResult, "caseId",
    blank={
        "retrievedIds": [], "answer": "", "abstained": True, "claims": [],
        "review": {"coveredReferenceFactIds": []},
    },
)


def read_article(
    data: dict[str, Any], label: str, collector: ProblemCollector
) -> ArticleDataset | None:
    """An article file, validated; with problems, what passed of it (`LoadedFile.rest`), or
    None when its header has one.

    As a native file's items are, its cases and its runs' results are each validated apart,
    a problem naming the case (`question 'c': answerable`, `question 'c': runs[r].answer`),
    and a blank one stands in for each refused; the rest (the corpus, the runs' names) is
    validated whole."""
    from pydantic import ValidationError

    try:
        return ArticleDataset.model_validate(data)
    except ValidationError:
        pass
    cases, runs = data.get("cases"), data.get("runs", [])
    if not (isinstance(cases, list) and cases and isinstance(runs, list)):
        return validate_item(ArticleDataset, data, label, collector, None)
    apart = [isinstance(run, dict) and isinstance(run.get("results"), list) for run in runs]
    heads = [{**run, "results": []} if own else run for run, own in zip(runs, apart, strict=True)]
    placeholder = {"id": "-", **(_CASES.blank or {})}
    head = validate_item(
        ArticleDataset, {**data, "cases": [placeholder], "runs": heads}, label, collector, None
    )
    passed = validate_list(cases, _CASES, label, collector)
    kept = []
    for at, run in enumerate(runs):
        if apart[at]:
            name = run.get("name")
            named = name if isinstance(name, str) and name and plain_ids((name,)) else at
            within = f"runs[{named}]."
            results = validate_list(run["results"], _RESULTS, label, collector, within=within)
            kept.append(ArticleRun.model_construct(name=name, results=results))
    return None if head is None else head.model_copy(update={"cases": passed, "runs": kept})


def convert_article(
    data: ArticleDataset, digest: str, label: str, collector: ProblemCollector
) -> tuple[Snapshot, EvalSet, list[Run]]:
    """Map an article file to native models; the top k of `retrievedIds` becomes the context.
    A covered fact its case lacks is not attached: a problem for `collector` (the dataset's
    `unattached`, reported with its other problems)."""
    tag = digest[:12]
    snapshot = Snapshot(
        snapshot_id=f"article-{tag}",
        documents=[Document(id=doc.id, text=doc.text) for doc in data.corpus],
    )
    questions = []
    facts_of: dict[str, list[str]] = {}
    for case in data.cases:
        facts_of[case.id] = list(case.referenceFactIds)
        questions.append(
            Question(
                id=case.id,
                text=case.question,
                answerability="answerable" if case.answerable else "unanswerable",
                required_evidence=[EvidenceGroup(any_of=[ev]) for ev in case.requiredEvidenceIds],
                reference_facts=[ReferenceFact(id=fact) for fact in case.referenceFactIds],
            )
        )
    evalset = EvalSet(
        evalset_id=f"article-{tag}", snapshot_id=snapshot.snapshot_id, questions=questions
    )
    runs = []
    for run in data.runs:
        results = []
        for res in run.results:
            known = facts_of.get(res.caseId, [])
            covered = res.review.coveredReferenceFactIds
            for fact in covered:
                if res.caseId in facts_of and fact not in known:
                    field = f"runs[{run.name}].review.coveredReferenceFactIds"
                    expected = f"a reference fact of the case ({', '.join(known) or 'none'})"
                    collector.add(label, res.caseId, field, expected, repr(fact))
            claims = [
                Claim(
                    id=f"c{number}",
                    text=claim.text,
                    citations=list(claim.citationIds),
                    labels=[
                        ClaimLabel(
                            verdict="supported" if claim.review.supportedByIds else "unsupported",
                            supported_by=list(claim.review.supportedByIds),
                            labeller=ARTICLE_REVIEWER,
                        )
                    ],
                )
                for number, claim in enumerate(res.claims, start=1)
            ]
            fact_labels = [
                FactLabel(
                    fact_id=fact,
                    verdict="covered" if fact in covered else "not_covered",
                    labeller=ARTICLE_REVIEWER,
                )
                for fact in known
            ]
            results.append(
                QuestionResult(
                    question_id=res.caseId,
                    candidates=[RankedItem(id=item) for item in res.retrievedIds],
                    answer=res.answer,
                    outcome="refused" if res.abstained else "answered",
                    claims=claims,
                    fact_labels=fact_labels,
                )
            )
        runs.append(
            Run(
                name=run.name,
                provenance=Provenance(
                    snapshot_id=snapshot.snapshot_id, evalset_id=evalset.evalset_id
                ),
                results=results,
            )
        )
    return snapshot, evalset, runs
