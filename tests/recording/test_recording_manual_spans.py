"""Spans from OpenInference's manual instrumentation (OITracer and its attribute helpers):
document IDs and scores, a reranker, token counts and cost reach the run."""

from __future__ import annotations

import os
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest

from ragtriage.errors import InputError
from ragtriage.importers import import_openinference

if os.environ.get("CI") != "true":  # in CI a missing test dependency fails instead
    pytest.importorskip("openinference.instrumentation")
    pytest.importorskip("opentelemetry.exporter.otlp.proto.common")

import recording_chain as rc

TEXT = {doc_id: text for doc_id, text, _, _ in rc.DOCS}


def _overlap(question: str, doc_id: str) -> float:
    words = set(question.lower().rstrip("?").split())
    return float(len(words & set(TEXT[doc_id].lower().rstrip(".").split())))


def run_pipeline(path: Path, retrieve_twice: bool = False, server: bool = False) -> None:
    """Word-overlap retrieval (top 4), a reranker keeping the 2 shortest, a templated answer;
    with `server`, each request inside a plain HTTP server span, plus a health check."""
    from google.protobuf.json_format import MessageToJson
    from openinference.instrumentation import (
        OITracer,
        TraceConfig,
    )
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.trace import SpanKind

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    plain = provider.get_tracer("service")
    tracer = OITracer(provider.get_tracer("manual"), config=TraceConfig())
    if server:
        with plain.start_as_current_span("GET /health", kind=SpanKind.SERVER):
            pass
    for qid, question in rc.requests()[:3]:
        outer = (
            plain.start_as_current_span("POST /ask", kind=SpanKind.SERVER)
            if server
            else nullcontext()
        )
        with outer:
            _request(tracer, qid, question, retrieve_twice)
    provider.shutdown()
    path.write_text(
        MessageToJson(encode_spans(memory.get_finished_spans()), indent=None) + "\n",
        encoding="utf-8",
    )


def _request(tracer: Any, qid: str | None, question: str, retrieve_twice: bool) -> None:
    from openinference.instrumentation import (
        Document,
        Message,
        TokenCount,
        get_input_attributes,
        get_llm_attributes,
        get_metadata_attributes,
        get_output_attributes,
        get_reranker_attributes,
        get_retriever_attributes,
        get_span_kind_attributes,
    )
    from openinference.semconv.trace import SpanAttributes

    root_attrs: dict[str, Any] = {
        **get_span_kind_attributes("chain"),
        **get_input_attributes(question),
    }
    root_attrs |= get_metadata_attributes(metadata={"question_id": qid})
    with tracer.start_as_current_span("pipeline", attributes=root_attrs) as root:
        for _ in range(2 if retrieve_twice else 1):
            with tracer.start_as_current_span(
                "retrieve", attributes=get_span_kind_attributes("retriever")
            ) as span:
                scored = sorted(
                    ((_overlap(question, d), d) for d in TEXT), key=lambda x: (-x[0], x[1])
                )[:4]
                hits = [Document(id=d, score=s, content=TEXT[d]) for s, d in scored]
                span.set_attributes(get_retriever_attributes(documents=hits))
        with tracer.start_as_current_span(
            "rerank", attributes=get_span_kind_attributes("reranker")
        ) as span:
            kept = sorted(hits, key=lambda h: (len(h["content"]), h["id"]))[:2]
            kept = [
                Document(id=h["id"], score=1.0 / (n + 1), content=h["content"])
                for n, h in enumerate(kept)
            ]
            span.set_attributes(
                get_reranker_attributes(
                    query=question, input_documents=hits, output_documents=kept, top_k=2
                )
            )
        prompt = "Context:\n" + "\n".join(h["content"] for h in kept) + f"\nQ: {question}"
        answer = f"From the context: {kept[0]['content']}"
        with tracer.start_as_current_span(
            "generate", attributes=get_span_kind_attributes("llm")
        ) as span:
            span.set_attributes(
                get_llm_attributes(
                    model_name="templated",
                    input_messages=[Message(role="user", content=prompt)],
                    output_messages=[Message(role="assistant", content=answer)],
                    token_count=TokenCount(
                        prompt=len(prompt.split()), completion=len(answer.split())
                    ),
                )
            )
            span.set_attribute(SpanAttributes.LLM_COST_TOTAL, 0.0005)
    root.set_attributes(get_output_attributes(answer))


def test_ids_scores_reranking_tokens_and_cost_arrive(tmp_path: Path) -> None:
    path = tmp_path / "spans.jsonl"
    run_pipeline(path)
    data = import_openinference(path, rc.evalset(), id_attribute="metadata.question_id")
    results = {r.question_id: r for r in data.run.results}
    assert list(results) == ["q-retention", "q-backup", "q-sso"]
    r = results["q-retention"]
    assert [(c.id, c.score) for c in r.candidates] == [
        ("retention-v1", 3.0),
        ("retention-v2", 3.0),
        ("backup", 0.0),
        ("quota", 0.0),
    ]
    assert [(c.id, c.score) for c in r.reranked or []] == [
        ("retention-v2", 1.0),
        ("retention-v1", 0.5),
    ]
    assert [(c.id, c.text) for c in r.context or []] == [
        ("retention-v2", "Logs are kept for 7 days."),
        ("retention-v1", "Logs are kept for 30 days."),
    ]
    assert r.answer == "From the context: Logs are kept for 7 days."
    assert r.usage is not None
    assert (r.usage.prompt_tokens, r.usage.completion_tokens, r.cost_usd) == (19, 9, 0.0005)
    assert sorted(r.stage_latency_ms) == ["generation", "rerank", "retrieval"]
    assert data.unmatched_traces == ()
    assert data.unmatched_questions == ("q-untraced",)


def test_two_retriever_calls_in_one_trace_are_not_guessed_between(tmp_path: Path) -> None:
    path = tmp_path / "spans.jsonl"
    run_pipeline(path, retrieve_twice=True)
    with pytest.raises(InputError) as err:
        import_openinference(path, rc.evalset(), id_attribute="metadata.question_id")
    problems = err.value.problems
    assert len(problems) == 3
    assert (problems[0].question_id, problems[0].expected, problems[0].found) == (
        "q-retention",
        "at most one retriever and one reranker call per request",
        "2 retriever and 1 reranker calls",
    )
    assert problems[0].field.startswith("trace ")


def test_a_service_span_around_the_request_is_skipped(tmp_path: Path) -> None:
    plain, wrapped = tmp_path / "plain.jsonl", tmp_path / "wrapped.jsonl"
    run_pipeline(plain)
    run_pipeline(wrapped, server=True)

    def results(path: Path) -> list[dict[str, Any]]:
        run = import_openinference(path, rc.evalset(), id_attribute="metadata.question_id").run
        return [r.model_dump(exclude={"latency_ms", "stage_latency_ms"}) for r in run.results]

    assert results(wrapped) == results(plain)
    data = import_openinference(wrapped, rc.evalset(), id_attribute="metadata.question_id")
    assert [m.reason for m in data.unmatched_traces] == ["no OpenInference spans"]


@pytest.mark.parametrize(("text", "found"), [("", "an empty file"), (" \n", "only whitespace")])
def test_an_empty_or_blank_span_file_is_named_as_such(
    tmp_path: Path, text: str, found: str
) -> None:
    # Before: 'found an empty file' for a file of spaces and line breaks too.
    (path := tmp_path / "spans.jsonl").write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        import_openinference(path, rc.evalset())
    assert str(info.value).splitlines()[1:] == [
        f"- {path}: (file): expected at least one span; found {found}"
    ]
