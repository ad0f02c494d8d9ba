"""The per-question data the HTML report's script reads, kept compact for 10,000 questions.

The page renders the question table and the detail view in the browser from one JSON
document. Every value there is plain data (never markup): the page inserts it with
`textContent`, so input text cannot become HTML. Short keys and omitted empty fields keep
the file small; the key legend below is the contract with `assets/report.js`.

Question (`questions[i]`): `id`, `t` text, `a` answerability, `s` split, `g` tags,
`ev` required evidence groups as `[label, [ids]]`, `f` reference facts as `[id, text]`.

Result (`results[run][i]`, aligned with `questions`): `o` outcome, `p` primary stage,
`s2` secondary stages, `w` findings as `[stage, why, [ids]]`, `v` values of the page's
measures (`TABLE_MEASURES` among those evaluated, the page's `measures` list; for sorting),
`vt` the same values as text, as the terminal and Markdown print them (`fmt_value`),
`rk` final ranking as `[id, flags, candidate rank or 0 when not a candidate]` (plus `rank`
once items were skipped), `rn` ranking length, `cd` candidates the reranker dropped as
`[id, flags, rank]`,
`gs` per required group a bitmask (1 among candidates, 2 after reranking, 4 in context),
`cx` context as `[id, flags, text or null]`, `a` answer, `cl` claims as
`[id, text, citations, state, supported_by, labelled_by, [labeller names]]`, `fs` fact
states aligned with `f` as `fact_coverage` counted them, `fn` why all of them count as not
covered whatever their labels (`answer refused`, ...; only then).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...detectors import mask_text, masked_item_text
from ...diagnosis import QuestionDiagnosis
from ...evaluation import NO_RESULT, QuestionRecord, RunEvaluation
from ...metrics import Measure, QuestionView
from ...metrics.coverage import non_answer_reason
from ...schemas import Question
from .._json import score_json
from .._text import fmt_value

REQUIRED = 1
"""Ranking flag: the item satisfies a required evidence group."""
STALE = 2
"""Ranking flag: the item's document is superseded or withdrawn."""
NOT_PERMITTED = 4
"""Ranking flag: the asking user may not read the item."""
IN_CONTEXT = 8
"""Ranking flag: the item was sent to the model."""
CITED = 16
"""Ranking flag: the answer cites the item."""
UNKNOWN = 32
"""Ranking flag: the ID is not in the snapshot."""
INSTRUCTION = 64
"""Ranking flag: a context item the injection rules flag (`ragtriage.detectors`)."""

FLAG_NAMES: tuple[tuple[str, int], ...] = (
    ("required", REQUIRED),
    ("superseded", STALE),
    ("not permitted", NOT_PERMITTED),
    ("in context", IN_CONTEXT),
    ("cited", CITED),
    ("unknown ID", UNKNOWN),
    ("instruction-like", INSTRUCTION),
)
"""Flag labels as the page shows them, in display order."""

RANKING_SHOWN = 10
"""At least this many items of the final ranking are shown (2 k when larger, up to 50)."""
SNIPPET_CHARS = 300
"""Document and context text is cut to this many characters in the report."""
ANSWER_CHARS = 4000
"""Answers are cut to this many characters in the report."""


def _cut(text: str | None, limit: int, masked: str | None = None) -> str | None:
    # Mask sensitive values before cutting, so a cut never splits one past recognition.
    text = masked if masked is not None else None if text is None else mask_text(text)
    if text is None or len(text) <= limit:
        return text
    return text[:limit] + "…"


def _recorded_snippet(view: QuestionView, item: str) -> str | None:
    """The text the run recorded for a context item, masked (as a part of its document when
    it is a chunk's span) and cut."""
    text = view.recorded.get(item)
    if text is None:
        return None
    return _cut(text, SNIPPET_CHARS, masked_item_text(item, text, view.index))


def _masked(text: str | None) -> str | None:
    return None if text is None else mask_text(text)


def question_entry(q: Question) -> dict[str, Any]:
    """The run-independent part of one question (every text masked)."""
    entry: dict[str, Any] = {"id": q.id, "t": mask_text(q.text), "a": q.answerability}
    entry["s"] = q.split
    if q.tags:
        entry["g"] = list(q.tags)
    if q.required_evidence:
        entry["ev"] = [[_masked(g.label), list(g.any_of)] for g in q.required_evidence]
    if q.reference_facts:
        entry["f"] = [[f.id, _masked(f.text)] for f in q.reference_facts]
    return entry


def _marker(view: QuestionView, record: QuestionRecord) -> Callable[[str], int]:
    """A per-question function from an item ID to its flags (computed once per item)."""
    index = view.index
    context = set(view.context)
    cited = {i for c in view.claims or () for i in c.citations}
    # The context items the evaluation found instruction-like text in.
    flagged = set(record.details.get("injection_flagged_context", ()))
    required = view.evidence.items  # the items satisfying a required group (the engine's)
    cache: dict[str, int] = {}

    def flags(item: str) -> int:
        found = cache.get(item)
        if found is not None:
            return found
        value = (
            UNKNOWN * (not index.known(item))
            | REQUIRED * (item in required)
            | STALE * index.is_stale(item)
            | NOT_PERMITTED * (not index.may_read(item, view.question.user_groups))
            | IN_CONTEXT * (item in context)
            | CITED * (item in cited)
            | INSTRUCTION * (item in flagged)
        )
        cache[item] = value
        return value

    return flags


def _rounded(value: float | bool | None) -> float | bool | None:
    # Four decimals are plenty on screen and keep 10,000 rows small.
    return round(value, 4) if isinstance(value, float) else value


def _shown(view: QuestionView) -> int:
    return min(max(RANKING_SHOWN, 2 * (view.k or 0)), 50)


def result_entry(
    view: QuestionView,
    record: QuestionRecord,
    measures: Sequence[Measure],
    diagnosis: QuestionDiagnosis | None,
) -> dict[str, Any]:
    """One run's result for one question: ranking marks, answer, claims, facts, diagnosis."""
    mark = _marker(view, record)
    entry: dict[str, Any] = {}
    if view.outcome is not None:
        entry["o"] = view.outcome
    if diagnosis is not None:
        entry["p"] = diagnosis.primary
        if diagnosis.secondary:
            entry["s2"] = list(diagnosis.secondary)
        if diagnosis.findings:
            entry["w"] = [[f.stage, f.why, list(f.ids)] for f in diagnosis.findings]
    values = [score_json(m, record.scores[m.name]) for m in measures]
    entry["v"] = [_rounded(v) for v in values]
    # The page shows the text made here: a second formatter in the script would round
    # differently (JavaScript's toFixed gives 0.13 for 0.125, Python 0.12).
    entry["vt"] = [fmt_value(v) for v in values]
    ranking = view.ranking
    cand_rank = {item: n for n, item in reversed(list(enumerate(view.candidates, start=1)))}
    limit = _shown(view)
    rows: list[list[Any]] = []
    for n, item in enumerate(ranking, start=1):
        flags = mark(item)
        # Items past the cut are kept only when they are required evidence, so the reader
        # sees how far down the ranking the evidence sat.
        if n <= limit or flags & REQUIRED:
            row = [item, flags, cand_rank.get(item, 0)]
            rows.append(row if n == len(rows) + 1 else [*row, n])
    if rows:
        entry["rk"] = rows
    if view.reranked is not None:
        # Candidates the reranker dropped (the kept ones carry their candidate rank above).
        kept = set(ranking)
        dropped = [
            [item, mark(item), n]
            for n, item in enumerate(view.candidates, start=1)
            if item not in kept and (n <= limit or mark(item) & REQUIRED)
        ]
        if dropped:
            entry["cd"] = dropped
    entry["rn"] = len(ranking)
    groups = [
        (candidate is not None) * 1 + (ranked is not None) * 2 + (context is not None) * 4
        for candidate, ranked, context in view.evidence.first
    ]
    if groups:
        entry["gs"] = groups
    if view.context:
        entry["cx"] = [
            [item, mark(item), _recorded_snippet(view, item)]
            for item in view.context
        ]
    if view.answer is not None:
        entry["a"] = _cut(view.answer, ANSWER_CHARS)
    if view.claims is not None:
        entry["cl"] = [
            [
                c.claim_id,
                mask_text(c.text),
                list(c.citations),
                c.state,
                list(c.supported_by),
                c.labelled_by,
                list(c.labellers),
            ]
            for c in view.claims
        ]
    if view.facts:
        reason = non_answer_reason(view)
        if reason is None:
            entry["fs"] = [f.state for f in view.facts]
        else:
            entry["fs"] = ["not_covered" for _ in view.facts]
            entry["fn"] = reason
    return entry


def document_entries(views: Sequence[QuestionView]) -> dict[str, list[Any]]:
    """`{id: [status, title, version, snippet]}` for every item shown in a ranking, among the
    candidates the reranker dropped, or in a context.

    Documents are listed once for the whole report rather than under every question.
    """
    wanted: set[str] = set()
    for view in views:
        limit = _shown(view)
        wanted.update(view.ranking[:limit])
        wanted.update(view.candidates[:limit])
        wanted.update(view.context)
        for group in view.question.required_evidence:
            wanted.update(group.any_of)
    out: dict[str, list[Any]] = {}
    index = views[0].index if views else None
    for item in sorted(wanted):
        if index is None or not index.known(item):
            continue
        doc = index.document(item)
        if doc is None:
            continue
        chunk = index.chunks.get(item)
        if chunk is not None:
            text = chunk.text if chunk.text is not None else doc.text[chunk.start : chunk.end]
        else:
            text = doc.text
        snippet = _cut(text, SNIPPET_CHARS, masked_item_text(item, text, index))
        out[item] = [doc.status, _masked(doc.title), doc.version, snippet]
    return out


def run_results(
    run: RunEvaluation, measures: Sequence[Measure], question_ids: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """Every question's result entry for one run (with the diagnosis it carries), in
    evaluation-set order.

    `question_ids` (default: the run's own questions) is the report's question list; a
    question the run has no result for gets `{"o": "no result", "nr": 1, "v": [null, ...],
    "vt": ["n/a", ...]}` (`nr`: the detail view says there is no result instead of showing
    an empty ranking, context and answer).
    """
    diagnoses = {q.question_id: q for q in run.diagnosis.questions}
    found = {
        record.question_id: result_entry(view, record, measures, diagnoses.get(record.question_id))
        for view, record in zip(run.views, run.questions, strict=True)
    }
    order = [r.question_id for r in run.questions] if question_ids is None else question_ids
    none = [None] * len(measures)
    missing = {"o": NO_RESULT, "nr": 1, "v": none, "vt": [fmt_value(None) for _ in none]}
    return [found.get(qid, missing) for qid in order]
