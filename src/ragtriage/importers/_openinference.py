"""`import openinference`: traces of an instrumented pipeline as a native run.

Spans are mapped by the OpenInference semantic conventions: the root span's `input.value` is
the question and its `output.value` the answer; RETRIEVER spans give the candidates
(`retrieval.documents.N.document.id/score/content/metadata`), RERANKER spans the reranked list
(`reranker.output_documents.N...`), LLM spans the text sent to the model
(`llm.input_messages.N.message.content`, or a completion model's `llm.prompts`), its output
and token counts. One trace is one result.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InputError, ProblemCollector
from ..fileio import parse_json
from ..paths import PathArg, as_path
from ..recording import (
    Match,
    QuestionMatcher,
    TraceDocument,
    TraceRecord,
    question_key,
    refusal_regex,
    result_from_trace,
)
from ..schemas import EvalSet, Provenance, QuestionResult, Run
from ._spans import Span, read_spans

_DOC = re.compile(
    r"^(?P<n>\d+)\.document\.(?P<field>id|score|content|metadata)(?:\.(?P<rest>.+))?$"
)
_MESSAGE = re.compile(r"^(\d+)\.message\.(?:content|contents\.(\d+)\.message_content\.text)$")


@dataclass(frozen=True)
class ImportedTraces:
    """A run read from traces, and what could not be matched."""

    run: Run
    """The run: one result per matched trace, in evaluation-set order."""
    matches: tuple[Match, ...]
    """Every trace with the question it matched (or None) and why."""
    unmatched_questions: tuple[str, ...]
    """Questions of the evaluation set that no trace answered."""

    @property
    def unmatched_traces(self) -> tuple[Match, ...]:
        """Traces that match no question, with the reason."""
        return tuple(m for m in self.matches if m.question_id is None)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _generated_text(value: str) -> str | None:
    """A completion model's text in its JSON `output.value` (LangChain's `LLMResult`:
    `generations[0][0].text`; a chat model's is in `llm.output_messages`), else None."""
    try:
        found = parse_json(value, "")
        return _text(found["generations"][0][0]["text"])
    except (InputError, LookupError, TypeError):
        return None


def _is_json(span: Span, direction: str) -> bool:
    return span.attributes.get(f"{direction}.mime_type") == "application/json"


def _documents(
    span: Span, prefix: str, label: str, collector: ProblemCollector
) -> tuple[TraceDocument, ...]:
    fields: dict[int, dict[str, Any]] = {}
    for key, value in span.attributes.items():
        if not key.startswith(prefix + "."):
            continue
        found = _DOC.match(key[len(prefix) + 1 :])
        if found is None:
            continue
        entry = fields.setdefault(int(found["n"]), {"metadata": {}})
        if found["field"] == "metadata":
            if found["rest"] is not None:  # flattened metadata (Phoenix)
                entry["metadata"][found["rest"]] = value
            elif isinstance(value, dict):
                entry["metadata"].update(value)
            elif isinstance(value, str):
                try:
                    decoded = parse_json(value, label)
                except InputError:
                    decoded = None
                if not isinstance(decoded, dict):
                    collector.add(
                        label, None, f"{span.where}: {key}", "a JSON object", repr(value)[:60]
                    )
                else:
                    entry["metadata"].update(decoded)
        else:
            entry[found["field"]] = value
    docs = []
    for n in sorted(fields):
        entry = fields[n]
        score = entry.get("score")
        if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
            collector.add(
                label, None, f"{span.where}: {prefix}.{n}.document.score", "a number", repr(score)
            )
            score = None
        doc_id = entry.get("id")
        docs.append(
            TraceDocument(
                position=n,
                doc_id=str(doc_id) if isinstance(doc_id, (str, int)) and doc_id != "" else None,
                score=None if score is None else float(score),
                content=_text(entry.get("content")),
                metadata=entry["metadata"],
            )
        )
    return tuple(docs)


def _messages(span: Span, prefix: str) -> list[str]:
    parts: list[tuple[int, int, str]] = []
    for key, value in span.attributes.items():
        if key.startswith(prefix + ".") and isinstance(value, str):
            found = _MESSAGE.match(key[len(prefix) + 1 :])
            if found is not None:
                parts.append((int(found[1]), int(found[2] or 0), value))
    return [text for _, _, text in sorted(parts)]


def _lookup(attributes: dict[str, Any], path: str) -> str | None:
    """An attribute by exact key, or a key inside an attribute holding a JSON object
    (`metadata.question_id` reads `question_id` from the `metadata` attribute)."""
    if path in attributes:
        return question_key(attributes[path])
    head, dot, rest = path.partition(".")
    while dot:
        holder = attributes.get(head)
        if isinstance(holder, str):
            try:
                holder = parse_json(holder, "")
            except InputError:
                holder = None
        if isinstance(holder, dict):
            found = _lookup({str(k): v for k, v in holder.items()}, rest)
            if found is not None:
                return found
        step, dot, rest = rest.partition(".")
        head = f"{head}.{step}"
    return None


def _ms(span: Span) -> float | None:
    if span.start_ns is None or span.end_ns is None:
        return None
    return (span.end_ns - span.start_ns) / 1e6


def _sum(values: Sequence[Any]) -> Any:
    present = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return sum(present) if present else None


def trace_record(
    trace_id: str,
    spans: Sequence[Span],
    id_attribute: str | None,
    label: str,
    collector: ProblemCollector,
) -> TraceRecord | None:
    """One trace's spans as a `TraceRecord`; None when it has no OpenInference span, or (with a
    problem) when it has several OpenInference roots.

    The request is the topmost OpenInference span: a service's own spans around it (an HTTP
    server span, say) are skipped.
    """
    by_id = {s.span_id: s for s in spans}

    def under_another(span: Span) -> bool:
        parent, seen = span.parent_id, {span.span_id}
        while parent is not None and parent in by_id and parent not in seen:
            seen.add(parent)
            if by_id[parent].kind is not None:
                return True
            parent = by_id[parent].parent_id
        return False

    roots = [s for s in spans if s.kind is not None and not under_another(s)]
    if not roots:
        return None
    if len(roots) != 1:
        expected = "one top OpenInference span per trace (one request)"
        found = f"{len(roots)}: " + ", ".join(sorted(s.name for s in roots))
        collector.add(label, None, f"trace {trace_id}", expected, found)
        return None
    root = roots[0]
    ordered = sorted(spans, key=lambda s: (s.start_ns or 0, s.where))
    by_kind = {
        kind: [s for s in ordered if s.kind == kind] for kind in ("RETRIEVER", "RERANKER", "LLM")
    }
    llms = by_kind["LLM"]
    prompts = [text for s in llms for text in _messages(s, "llm.input_messages")]
    if not prompts:  # a completion model's prompts as sent, not as its JSON input.value
        listed = [s.attributes.get("llm.prompts") for s in llms]
        prompts = [p for ps in listed if isinstance(ps, list) for p in ps if _text(p)]
    if not prompts:
        prompts = [t for s in llms if (t := _text(s.attributes.get("input.value"))) is not None]
    outputs = []
    for s in llms:
        said = _messages(s, "llm.output_messages")
        if said:
            outputs.append("".join(said))
        elif (t := _text(s.attributes.get("output.value"))) is not None:
            if not _is_json(s, "output"):
                outputs.append(t)
            elif (generated := _generated_text(t)) is not None:
                outputs.append(generated)
    key = None
    if id_attribute is not None:
        for s in [root, *ordered]:
            key = _lookup(s.attributes, id_attribute)
            if key is not None:
                break
    stages: dict[str, float] = {}
    for stage, kind in (("retrieval", "RETRIEVER"), ("rerank", "RERANKER"), ("generation", "LLM")):
        times = [m for s in by_kind[kind] if (m := _ms(s)) is not None]
        if times:
            stages[stage] = sum(times)
    return TraceRecord(
        trace_id=trace_id,
        question=None if _is_json(root, "input") else _text(root.attributes.get("input.value")),
        question_key=key,
        retrievals=tuple(
            _documents(s, "retrieval.documents", label, collector) for s in by_kind["RETRIEVER"]
        ),
        rerankings=tuple(
            _documents(s, "reranker.output_documents", label, collector)
            for s in by_kind["RERANKER"]
        ),
        prompts=tuple(prompts),
        llm_outputs=tuple(outputs),
        final_output=None
        if _is_json(root, "output")
        else _text(root.attributes.get("output.value")),
        prompt_tokens=_sum([s.attributes.get("llm.token_count.prompt") for s in llms]),
        completion_tokens=_sum([s.attributes.get("llm.token_count.completion") for s in llms]),
        cost_usd=_sum([s.attributes.get("llm.cost.total") for s in llms]),
        latency_ms=_ms(root),
        stage_latency_ms=stages,
    )


def import_openinference(
    path: PathArg,
    evalset: EvalSet,
    *,
    name: str = "imported",
    id_attribute: str | None = None,
    id_key: str | None = None,
    refusal_pattern: str | None = None,
    provenance: Provenance | None = None,
) -> ImportedTraces:
    """Read OpenInference traces (OTLP JSON, console-exporter JSON or Phoenix spans) as a run.

    A trace answers the question whose ID is in attribute `id_attribute` (a key, or a key inside
    a JSON-object attribute such as `metadata.question_id`), else the question with exactly the
    root span's input text. Document IDs come from `document.id`, else metadata key `id_key`.
    Every document without an ID is an `InputError`; unmatched traces and questions are listed.
    """
    path = as_path(path)
    label = str(path)
    refusal_regex(refusal_pattern)  # a bad pattern is refused before the traces are read
    collector = ProblemCollector()
    spans = read_spans(path, collector)
    collector.raise_if_any()
    traces: dict[str, list[Span]] = {}
    for span in spans:
        traces.setdefault(span.trace_id, []).append(span)
    built = {
        t: trace_record(t, group, id_attribute, label, collector) for t, group in traces.items()
    }
    collector.raise_if_any()
    matcher = QuestionMatcher(evalset, id_attribute)
    records = [r for r in built.values() if r is not None]
    matches = [matcher.match(r) for r in records]
    claimed: dict[str, list[str]] = {}
    for m in matches:
        if m.question_id is not None:
            claimed.setdefault(m.question_id, []).append(m.trace_id)
    final = [
        Match(
            m.trace_id,
            None,
            f"question {m.question_id} is matched by traces {', '.join(claimed[m.question_id])}",
        )
        if m.question_id is not None and len(claimed[m.question_id]) > 1
        else m
        for m in matches
    ]
    by_question = {m.question_id: r for m, r in zip(final, records, strict=True) if m.question_id}
    final += [Match(t, None, "no OpenInference spans") for t, r in built.items() if r is None]
    results: list[QuestionResult] = []
    for question in evalset.questions:
        record = by_question.get(question.id)
        if record is None:
            continue
        try:
            results.append(
                result_from_trace(
                    record, question.id, file=label, id_key=id_key, refusal_pattern=refusal_pattern
                )
            )
        except InputError as exc:
            collector.extend(exc.problems)
    collector.raise_if_any()
    base = provenance or Provenance()
    run = Run(
        name=name,
        provenance=base.model_copy(update={"evalset_id": base.evalset_id or evalset.evalset_id}),
        results=results,
    )
    missing = tuple(q.id for q in evalset.questions if q.id not in by_question)
    return ImportedTraces(run=run, matches=tuple(final), unmatched_questions=missing)
