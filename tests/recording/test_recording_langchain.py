"""The LangChain callback handler gives the same run file as importing the chain's traces."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from ragtriage.errors import InputError
from ragtriage.importers import import_openinference, write_native
from ragtriage.recording import Recorder

if os.environ.get("CI") != "true":  # in CI a missing test dependency fails instead
    pytest.importorskip("langchain_core")
    pytest.importorskip("openinference.instrumentation.langchain")

import recording_chain as rc

from ragtriage.recording.langchain import RecorderCallbackHandler


def _lines(path: Path) -> list[dict[str, Any]]:
    # Latencies are measured by each side for itself; everything else must be equal.
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        data = json.loads(line)
        data.pop("latency_ms", None)
        data.pop("stage_latency_ms", None)
        out.append(data)
    return out


def test_the_handler_writes_what_the_trace_import_writes(tmp_path: Path) -> None:
    handled = tmp_path / "handled.jsonl"
    with Recorder(handled, "chain", evalset_id="chain-questions", capture=False) as recorder:
        handler = RecorderCallbackHandler(
            recorder,
            rc.evalset(),
            id_metadata_key="question_id",
            id_key="doc_id",
            refusal_pattern="cannot tell",
        )
        answers = rc.run_chain([handler])
    assert answers == list(rc.ANSWERS)
    assert [m.reason for m in handler.unmatched] == ["no attribute 'question_id'"]
    traced = rc.run_traced(tmp_path)
    imported = import_openinference(
        traced["otlp"],
        rc.evalset(),
        name="chain",
        id_attribute="metadata.question_id",
        id_key="doc_id",
        refusal_pattern="cannot tell",
    )
    write_native(imported.run, tmp_path / "imported.jsonl")
    assert _lines(handled) == _lines(tmp_path / "imported.jsonl")
    results = _lines(handled)[1:]
    assert [
        (r["question_id"], [c["id"] for c in r["candidates"]], r["outcome"]) for r in results
    ] == [
        ("q-retention", ["retention-v2", "backup", "retention-v1"], "answered"),
        ("q-backup", ["regions", "quota", "backup"], "answered"),
        ("q-sso", ["retention-v2", "quota", "regions"], "refused"),
    ]
    stages = [
        sorted(json.loads(x).get("stage_latency_ms", {}))
        for x in handled.read_text().splitlines()[1:]
    ]
    assert stages == [["generation", "retrieval"]] * 3


def _handled_as_imported(tmp_path: Path, model_kind: str) -> Path:
    """The run the handler records of the chain with `model_kind`'s model, checked to be line
    for line the run imported from the same chain's OpenInference trace."""
    handled = tmp_path / "handled.jsonl"
    with Recorder(handled, "chain", evalset_id="chain-questions", capture=False) as recorder:
        handler = RecorderCallbackHandler(
            recorder, rc.evalset(), id_metadata_key="question_id", id_key="doc_id"
        )
        rc.run_chain([handler], model_kind=model_kind)
    traced = rc.run_traced(tmp_path, model_kind=model_kind)
    imported = import_openinference(
        traced["otlp"], rc.evalset(), name="chain", id_attribute="metadata.question_id",
        id_key="doc_id",
    )
    write_native(imported.run, tmp_path / "imported.jsonl")
    assert _lines(handled) == _lines(tmp_path / "imported.jsonl")
    return handled


def test_token_counts_a_chat_model_reports_in_its_messages_are_recorded(tmp_path: Path) -> None:
    # chat models report tokens in each message's usage_metadata, which the trace import reads:
    # the handler recorded no usage
    handled = _handled_as_imported(tmp_path, "usage")
    assert [r["usage"] for r in _lines(handled)[1:]] == [
        {"completion_tokens": 3, "prompt_tokens": 11}
    ] * 3


def test_a_completion_model_s_prompt_gives_the_context_as_from_a_chat_model(
    tmp_path: Path,
) -> None:
    # a completion model's span has the prompt in llm.prompts; the import read its input.value,
    # JSON, where a text with a line break or a quote does not occur: the context was empty;
    # and its output only in a JSON output.value, which the import did not read: no answer
    handled = _handled_as_imported(tmp_path, "completion")
    assert [[c["id"] for c in r["context"]] for r in _lines(handled)[1:]] == [
        [c["id"] for c in r["candidates"]] for r in _lines(handled)[1:]
    ]
    assert _lines(handled)[1]["context"][1]["text"] == 'Logs are kept for 7 days.\n"retention-v2"'
    # the chain's output is a mapping: the answer is the model's, from its JSON output.value
    assert [r["answer"] for r in _lines(handled)[1:]] == list(rc.ANSWERS[:3])


def test_matching_by_text_records_the_same_questions(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with Recorder(path, "chain", capture=False) as recorder:
        handler = RecorderCallbackHandler(recorder, rc.evalset(), id_key="doc_id")
        rc.run_chain([handler])
    assert [r["question_id"] for r in _lines(path)[1:]] == ["q-retention", "q-backup", "q-sso"]
    assert [m.reason for m in handler.unmatched] == [
        "no question has the text 'What is the quota?'"
    ]


def test_a_document_without_an_id_fails_the_call(tmp_path: Path) -> None:
    # LangChain's in-memory store gives every document an ID; with a metadata key that no
    # document has, nothing may be invented.
    with Recorder(tmp_path / "run.jsonl", "chain", capture=False) as recorder:
        handler = RecorderCallbackHandler(recorder, rc.evalset(), id_key="source")
        with pytest.raises(InputError) as err:
            rc.build_chain().invoke("How long are logs kept?", config={"callbacks": [handler]})
    problems = err.value.problems
    assert len(problems) == 3
    assert (problems[0].question_id, problems[0].expected, problems[0].found) == (
        "q-retention",
        "a document.id or metadata key 'source'",
        "neither; metadata keys: doc_id",
    )


def test_a_document_id_twice_in_a_ranking_fails_the_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # two chunks of one document sharing its doc_id were recorded as the same candidate
    # twice, which `evaluate` then refused
    chunked = tuple(("retention-v2" if d == "retention-v1" else d, *rest) for d, *rest in rc.DOCS)
    monkeypatch.setattr(rc, "DOCS", chunked)
    with Recorder(tmp_path / "run.jsonl", "chain", capture=False) as recorder:
        handler = RecorderCallbackHandler(recorder, rc.evalset(), id_key="doc_id")
        with pytest.raises(InputError) as err:
            rc.build_chain().invoke("How long are logs kept?", config={"callbacks": [handler]})
        assert recorder.recorded == frozenset()
    (problem,) = err.value.problems
    assert (problem.question_id, problem.expected, problem.found) == (
        "q-retention",
        "each document ID at most once in the candidates (chunks of one document share its "
        "ID: take the ID from a key that names the chunk)",
        "'retention-v2' again (first at [0])",
    )
    assert problem.field.startswith("trace ")
    assert problem.field.endswith(": retriever.documents.2")


def test_a_boolean_question_id_matches_no_question_as_in_the_trace_import(
    tmp_path: Path,
) -> None:
    # the handler read metadata {"question_id": True} as the ID 'True'; the import reads no ID
    chain = rc.build_chain()
    with Recorder(tmp_path / "run.jsonl", "chain", capture=False) as recorder:
        handler = RecorderCallbackHandler(recorder, rc.evalset(), id_metadata_key="question_id")
        for value in (True, 3):
            config: Any = {"callbacks": [handler], "metadata": {"question_id": value}}
            chain.invoke("How long are logs kept?", config=config)
    assert [m.reason for m in handler.unmatched] == [
        "no attribute 'question_id'",
        "question_id '3' is no question ID",
    ]


def test_concurrent_async_calls_are_kept_apart(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    chain = rc.build_chain()
    with Recorder(path, "chain", capture=False) as recorder:
        handler = RecorderCallbackHandler(
            recorder, rc.evalset(), id_metadata_key="question_id", id_key="doc_id"
        )

        async def ask(qid: str | None, text: str) -> str:
            metadata = {"question_id": qid} if qid else {}
            return str(
                await chain.ainvoke(text, config={"callbacks": [handler], "metadata": metadata})
            )

        async def main() -> list[str]:
            return await asyncio.gather(*(ask(q, t) for q, t in rc.requests()))

        returned = asyncio.run(main())
    answered = dict(zip([q for q, _ in rc.requests()], returned, strict=True))
    results = {r["question_id"]: r for r in _lines(path)[1:]}
    assert sorted(results) == ["q-backup", "q-retention", "q-sso"]
    for qid, r in results.items():
        assert r["answer"] == answered[qid]
    assert [c["id"] for c in results["q-sso"]["candidates"]] == ["retention-v2", "quota", "regions"]
    assert len(handler.unmatched) == 1


def test_a_retriever_called_alone_is_a_request_of_its_own(tmp_path: Path) -> None:
    # A retrieval-only pipeline calls its retriever at the top: nothing was recorded and
    # nothing listed as unmatched (the trace import takes such a root span as the request).
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document as LCDocument
    from langchain_core.retrievers import BaseRetriever

    class Retriever(BaseRetriever):
        fail: bool = False

        def _get_relevant_documents(
            self, query: str, *, run_manager: CallbackManagerForRetrieverRun
        ) -> list[LCDocument]:
            if self.fail:
                raise RuntimeError("index offline")
            return [LCDocument(page_content=text, id=i) for i, text, _, _ in rc.DOCS[1:3]]

    path = tmp_path / "run.jsonl"
    with Recorder(path, "retrieval", capture=False) as recorder:
        by_id = RecorderCallbackHandler(recorder, rc.evalset(), id_metadata_key="question_id")
        by_text = RecorderCallbackHandler(recorder, rc.evalset())
        with pytest.raises(RuntimeError):
            Retriever(fail=True).invoke("When do backups run?", config={"callbacks": [by_text]})
        Retriever().invoke(
            "How long?", config={"callbacks": [by_id], "metadata": {"question_id": "q-sso"}}
        )
        Retriever().invoke("When do backups run?", config={"callbacks": [by_text]})
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    assert [(r["question_id"], r["candidates"], r["answer"]) for r in lines] == [
        (qid, [{"id": "retention-v2", "score": None}, {"id": "backup", "score": None}], None)
        for qid in ("q-sso", "q-backup")
    ]
    assert [sorted(r["stage_latency_ms"]) for r in lines] == [["retrieval"], ["retrieval"]]
    assert by_id.unmatched == by_text.unmatched == []
