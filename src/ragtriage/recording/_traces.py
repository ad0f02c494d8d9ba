"""One traced request as the recorder sees it, and the rules that turn it into a result.

Shared by the OpenInference trace importer and the LangChain callback handler, so that a
pipeline recorded either way gives the same result line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from ..errors import InputError, Problem, again, found_text, option_problem
from ..schemas import EvalSet, Outcome, QuestionResult, final_ranking_of
from ..validation import ranking_problems
from ._question import validation_problems


@dataclass(frozen=True)
class TraceDocument:
    """One document a retriever or reranker returned, as traced."""

    position: int
    """Its position in the returned list (0 = best)."""
    doc_id: str | None
    """`document.id`, when the trace carries one."""
    score: float | None
    """`document.score`, when traced."""
    content: str | None
    """`document.content`: the text returned."""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    """`document.metadata`, decoded."""


@dataclass(frozen=True)
class TraceRecord:
    """What one request (one trace, or one root LangChain run) did."""

    trace_id: str
    """The trace ID (or run ID) as reported to the user."""
    question: str | None
    """The chain's input text."""
    question_key: str | None = None
    """The value of the ID attribute the user named, when found."""
    retrievals: tuple[tuple[TraceDocument, ...], ...] = ()
    """Each retriever call's documents, in call order."""
    rerankings: tuple[tuple[TraceDocument, ...], ...] = ()
    """Each reranker call's output documents, in call order."""
    prompts: tuple[str, ...] = ()
    """The text sent to the model(s): every input message's content."""
    llm_outputs: tuple[str, ...] = ()
    """The model outputs, in call order."""
    final_output: str | None = None
    """The chain's final output when it is text."""
    prompt_tokens: int | None = None
    """Prompt tokens over the model calls, when traced."""
    completion_tokens: int | None = None
    """Completion tokens over the model calls, when traced."""
    cost_usd: float | None = None
    """Cost over the model calls, when traced."""
    latency_ms: float | None = None
    """Duration of the whole request."""
    stage_latency_ms: Mapping[str, float] = field(default_factory=dict)
    """Time in `retrieval`, `rerank` and `generation`."""


_ONCE = "chunks of one document share its ID: take the ID from a key that names the chunk"


def _doc_id(
    doc: TraceDocument, id_key: str | None, where: str, file: str, qid: str
) -> tuple[str | None, Problem | None]:
    if doc.doc_id:
        return doc.doc_id, None
    if id_key is not None:
        value = doc.metadata.get(id_key)
        if isinstance(value, str) and value:
            return value, None
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value), None
    source = "document.id" + (f" or metadata key {id_key!r}" if id_key else "")
    found = "neither" if id_key else "no document.id (name a metadata key with --id-key)"
    keys = sorted(doc.metadata)
    if id_key and keys:
        found += f"; metadata keys: {', '.join(keys)}"
    return None, Problem(file, qid, f"{where}.documents.{doc.position}", f"a {source}", found)


def context_from_prompts(
    ranking: Sequence[tuple[str, TraceDocument]], prompts: Sequence[str]
) -> list[dict[str, Any]] | None:
    """The context actually sent: the final ranking's documents whose text the prompt holds.

    Traces record what was retrieved and what the model received, not which documents the
    prompt was built from; a document counts as sent when its exact text occurs in a message
    sent to the model. Without a model call there is no context (a retrieval-only run).
    """
    if not prompts:
        return None
    return [
        {"id": doc_id, "text": doc.content}
        for doc_id, doc in ranking
        if doc.content and any(doc.content in prompt for prompt in prompts)
    ]


def refusal_regex(pattern: str | None) -> re.Pattern[str] | None:
    """`--refusal-pattern` compiled (None: no pattern); `InputError` for a pattern that is not
    a regular expression, or is empty (it would match every answer: all refused)."""
    if pattern is None:
        return None
    found = "an empty pattern (it matches every answer: every answer would be a refusal)"
    if not isinstance(pattern, str):  # from Python: 5 is no pattern, not a TypeError
        found = found_text(pattern)
    elif pattern:
        try:
            return re.compile(pattern)
        except re.error as exc:
            found = f"{pattern!r} ({exc})"
    raise InputError([option_problem("--refusal-pattern", "a regular expression", found)])


def result_from_trace(
    trace: TraceRecord,
    question_id: str,
    *,
    file: str,
    id_key: str | None = None,
    refusal_pattern: str | None = None,
) -> QuestionResult:
    """The run result of one traced request; `InputError` lists every document without an ID
    and every ID a ranking holds twice.

    Candidates are the retriever's documents in order, the reranked list the reranker's output,
    the context the final ranking's documents whose text reached the model, the answer the
    chain's text output (else the last model output). The outcome is `refused` when the answer
    matches `refusal_pattern`, else `answered`.
    """
    refusal = refusal_regex(refusal_pattern)
    if len(trace.retrievals) > 1 or len(trace.rerankings) > 1:
        found = f"{len(trace.retrievals)} retriever and {len(trace.rerankings)} reranker calls"
        expected = "at most one retriever and one reranker call per request"
        raise InputError([Problem(file, question_id, f"trace {trace.trace_id}", expected, found)])
    problems: list[Problem] = []
    stages: list[tuple[str, list[tuple[str, TraceDocument]]]] = []
    for where, calls, run_field in (
        ("retriever", trace.retrievals, "candidates"),
        ("reranker", trace.rerankings, "reranked"),
    ):
        ranking = []
        first: dict[str, int] = {}
        for doc in calls[0] if calls else ():
            place = f"trace {trace.trace_id}: {where}"
            doc_id, problem = _doc_id(doc, id_key, place, file, question_id)
            if problem is not None:
                problems.append(problem)
            elif doc_id is not None:
                ranking.append((doc_id, doc))
                # a run holds each ID once per list (chunks of one document share its ID)
                if (repeat := again(first, doc_id, doc.position, repr(doc_id))) is not None:
                    expected = f"each document ID at most once in the {run_field} ({_ONCE})"
                    where_at = f"{place}.documents.{doc.position}"
                    problems.append(Problem(file, question_id, where_at, expected, repeat))
        stages.append((where, ranking))
    if problems:
        raise InputError(problems)
    candidates, reranked = stages[0][1], stages[1][1] if trace.rerankings else None
    answer = trace.final_output
    if answer is None and trace.llm_outputs:
        answer = trace.llm_outputs[-1]
    outcome: Outcome | None = None
    if answer is not None:
        refused = refusal is not None and refusal.search(answer)
        outcome = "refused" if refused else "answered"
    data: dict[str, Any] = {
        "question_id": question_id,
        "candidates": [{"id": i, "score": d.score} for i, d in candidates],
        "reranked": None
        if reranked is None
        else [{"id": i, "score": d.score} for i, d in reranked],
        "context": context_from_prompts(final_ranking_of(reranked, candidates), trace.prompts),
        "answer": answer,
        "outcome": outcome,
        "latency_ms": trace.latency_ms,
        "stage_latency_ms": dict(sorted(trace.stage_latency_ms.items())),
        "cost_usd": trace.cost_usd,
    }
    if trace.prompt_tokens is not None or trace.completion_tokens is not None:
        data["usage"] = {
            "prompt_tokens": trace.prompt_tokens or 0,
            "completion_tokens": trace.completion_tokens or 0,
        }
    try:
        result = QuestionResult.model_validate(data)
    except ValidationError as exc:
        raise InputError(validation_problems(exc, file, question_id)) from None
    # `evaluate`'s rules for one result (a reranker's documents among the retriever's ...)
    if broken := ranking_problems(result):
        where = f"trace {trace.trace_id}: "
        raise InputError([Problem(file, question_id, where + f, e, v) for f, e, v in broken])
    return result


def question_key(value: Any) -> str | None:
    """A question ID as a trace attribute or a run's metadata holds it: text, or a whole
    number as its text (not a boolean); None for anything else."""
    return str(value) if isinstance(value, str | int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class Match:
    """How one trace was matched to an evaluation question, or why it was not."""

    trace_id: str
    """The trace."""
    question_id: str | None
    """The matched question, None when unmatched."""
    reason: str
    """How it matched (`id attribute`, `question text`) or why not."""


class QuestionMatcher:
    """Matches a trace to an evaluation question by a named ID attribute or by exact text.

    Nothing is guessed: an unknown ID, a text that no question has, or a text that several
    questions share leaves the trace unmatched, with the reason.
    """

    def __init__(self, evalset: EvalSet, id_attribute: str | None = None) -> None:
        self.id_attribute = id_attribute
        """The attribute holding the question ID (None: match by question text)."""
        self._ids = {q.id for q in evalset.questions}
        by_text: dict[str, list[str]] = {}
        for q in evalset.questions:
            by_text.setdefault(q.text, []).append(q.id)
        self._by_text = by_text

    def match(self, trace: TraceRecord) -> Match:
        """The question this trace answered, or the reason it matches none."""
        if self.id_attribute is not None:
            key = trace.question_key
            if key is None:
                return Match(trace.trace_id, None, f"no attribute {self.id_attribute!r}")
            if key not in self._ids:
                return Match(trace.trace_id, None, f"{self.id_attribute} {key!r} is no question ID")
            return Match(trace.trace_id, key, "id attribute")
        if trace.question is None:
            return Match(trace.trace_id, None, "no input text on the root span")
        found = self._by_text.get(trace.question, [])
        if not found:
            return Match(trace.trace_id, None, f"no question has the text {trace.question!r}")
        if len(found) > 1:
            return Match(
                trace.trace_id,
                None,
                f"questions {', '.join(found)} share the text {trace.question!r}",
            )
        return Match(trace.trace_id, found[0], "question text")
