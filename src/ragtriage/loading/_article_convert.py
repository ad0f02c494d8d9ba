"""Convert the article format into the native snapshot, evaluation set and runs."""

from __future__ import annotations

from ..errors import ProblemCollector
from ..schemas import (
    ArticleDataset,
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
)

ARTICLE_REVIEWER = Labeller(kind="human", name="article-reviewer")
"""Who the article format's embedded review labels are attributed to."""

ARTICLE_DEFAULT_K = 2
"""The article scorer's default cut-off, used when no -k is given for an article file."""


def convert_article(
    data: ArticleDataset, digest: str, label: str, collector: ProblemCollector
) -> tuple[Snapshot, EvalSet, list[Run]]:
    """Map an article file to native models; the top k of `retrievedIds` becomes the context."""
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
