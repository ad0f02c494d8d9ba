"""A real LangChain retrieval chain (in-memory store, deterministic embedding, fake chat model),
run with OpenInference's instrumentation exporting its spans to files, or with a callback."""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragtriage.schemas import Document, EvalSet, Question, Snapshot

DOCS = (
    ("retention-v1", "Logs are kept for 30 days.", "v1", "superseded"),
    ("retention-v2", "Logs are kept for 7 days.", "v2", "current"),
    ("backup", "Backups run nightly at 02:00 UTC.", "v1", "current"),
    ("regions", "Data stays in the EU region.", "v1", "current"),
    ("sso", "Single sign-on uses SAML 2.0.", "v1", "current"),
    ("quota", "Each workspace may hold 50 GB.", "v1", "current"),
)
"""The documents: ID, text, version, status."""

QUESTIONS = (
    ("q-retention", "How long are logs kept?", "retention-v2"),
    ("q-backup", "When do backups run?", "backup"),
    ("q-sso", "Which single sign-on protocol is used?", "sso"),
    ("q-untraced", "Where is data stored?", "regions"),
)
"""The evaluation questions: ID, text, required document. The last one is never asked."""

ASKED = ("q-retention", "q-backup", "q-sso")
"""The questions the chain is asked, in order, plus one text no question has (below)."""

STRAY = "What is the quota?"
"""A request that matches no evaluation question."""

ANSWERS = ("Logs are kept for 7 days.", "Backups run nightly.", "I cannot tell.", "50 GB.")
"""The fake chat model's answers, in call order."""

K = 3
"""Documents the retriever returns."""


def snapshot() -> Snapshot:
    """The documents as a snapshot."""
    return Snapshot(
        snapshot_id="chain-docs",
        documents=[Document(id=i, text=t, version=v, status=s) for i, t, v, s in DOCS],  # type: ignore[arg-type]
    )


def evalset() -> EvalSet:
    """The questions as an evaluation set."""
    return EvalSet.model_validate(
        {
            "evalset_id": "chain-questions",
            "snapshot_id": "chain-docs",
            "questions": [
                Question.model_validate(
                    {
                        "id": qid,
                        "text": text,
                        "answerability": "answerable",
                        "required_evidence": [{"any_of": [doc]}],
                    }
                )
                for qid, text, doc in QUESTIONS
            ],
        }
    )


USAGE = {"input_tokens": 11, "output_tokens": 3, "total_tokens": 14}
"""The token counts a chat model reporting usage gives each answer (`usage_metadata`)."""


def build_chain(model_kind: str = "chat") -> Any:
    """The retrieval chain: retriever | prompt | fake model | text output. The model is a chat
    model (`chat`); one that reports its tokens in each message's `usage_metadata`, as chat
    models do (`usage`); or a completion model (`completion`, a prompt string in place of
    messages), the documents' texts then holding a line break and quotes, and the chain
    returning the answer with the question in a mapping (not text)."""
    from langchain_core.documents import Document as LCDocument
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langchain_core.language_models import (
        FakeListChatModel,
        FakeListLLM,
        GenericFakeChatModel,
    )
    from langchain_core.messages import AIMessage
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.runnables import RunnableParallel, RunnablePassthrough
    from langchain_core.vectorstores import InMemoryVectorStore

    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=64))
    quoted = model_kind == "completion"
    store.add_documents(
        [
            LCDocument(page_content=f'{text}\n"{i}"' if quoted else text, metadata={"doc_id": i})
            for i, text, _, _ in DOCS
        ]
    )
    retriever = store.as_retriever(search_kwargs={"k": K})
    prompt = ChatPromptTemplate.from_template(
        "Answer from this context:\n{context}\n\nQ: {question}"
    )

    def join(docs: Sequence[LCDocument]) -> str:
        return "\n".join(doc.page_content for doc in docs)

    model: Any = FakeListChatModel(responses=list(ANSWERS))
    if model_kind == "usage":
        reported: Any = USAGE
        messages = (AIMessage(content=a, usage_metadata=reported) for a in ANSWERS)
        model = GenericFakeChatModel(messages=messages)
    elif model_kind == "completion":
        model = FakeListLLM(responses=list(ANSWERS))
    chain = (
        {"context": retriever | join, "question": RunnablePassthrough()}
        | prompt
        | model
        | StrOutputParser()
    )
    return RunnableParallel(answer=chain, asked=RunnablePassthrough()) if quoted else chain


def requests() -> list[tuple[str | None, str]]:
    """(question ID or None, text) of each request, in order."""
    texts = {qid: text for qid, text, _ in QUESTIONS}
    return [*((qid, texts[qid]) for qid in ASKED), (None, STRAY)]


def run_chain(callbacks: Sequence[Any] = (), model_kind: str = "chat") -> list[str]:
    """Ask every request once; the question ID travels in the run's metadata."""
    chain = build_chain(model_kind)
    out = []
    for qid, text in requests():
        config: dict[str, Any] = {"callbacks": list(callbacks)}
        if qid is not None:
            config["metadata"] = {"question_id": qid}
        out.append(chain.invoke(text, config=config))
    return out


def run_traced(directory: Path, model_kind: str = "chat") -> dict[str, Path]:
    """Run the chain instrumented with OpenInference; write OTLP JSON lines (one export request
    per trace, as protobuf's JSON mapping writes it) and the console exporter's output."""
    from google.protobuf.json_format import MessageToJson
    from openinference.instrumentation.langchain import LangChainInstrumentor
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    paths = {"otlp": directory / "spans.otlp.jsonl", "console": directory / "spans.console.json"}
    memory = InMemorySpanExporter()
    with paths["console"].open("w", encoding="utf-8") as console:
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(memory))
        provider.add_span_processor(
            SimpleSpanProcessor(
                ConsoleSpanExporter(out=console, formatter=lambda s: s.to_json() + os.linesep)
            )
        )
        instrumentor = LangChainInstrumentor()
        instrumentor.instrument(tracer_provider=provider)
        try:
            with warnings.catch_warnings():
                # The instrumentation calls a LangChain method LangChain has deprecated.
                warnings.simplefilter("ignore", DeprecationWarning)
                run_chain(model_kind=model_kind)
        finally:
            instrumentor.uninstrument()
            provider.shutdown()
    spans = memory.get_finished_spans()
    by_trace: dict[int, list[Any]] = {}
    for span in spans:
        by_trace.setdefault(span.context.trace_id, []).append(span)
    lines = [MessageToJson(encode_spans(group), indent=None) for group in by_trace.values()]
    paths["otlp"].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths
