"""The generation stage against a fake OpenAI-compatible endpoint on loopback."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest

from ragtriage.errors import RagtriageError
from ragtriage.retrievers import (
    GENERATION_PROMPT_VERSION,
    REFUSAL_MARKER,
    GenerationConfig,
    RetrievalConfig,
    run_retrieval,
)
from ragtriage.schemas import Document, EvalSet, EvidenceGroup, Question, Snapshot

SNAPSHOT = Snapshot(
    snapshot_id="s",
    documents=[
        Document(id="refunds", text="Refunds are paid within five days."),
        Document(id="cards", text="A lost card is blocked at once."),
    ],
)
EVALSET = EvalSet(
    evalset_id="e",
    questions=[
        Question(
            id="q1",
            text="How fast are refunds paid?",
            answerability="answerable",
            required_evidence=[EvidenceGroup(any_of=["refunds"])],
        ),
        Question(id="q2", text="What is the canteen menu?", answerability="unanswerable"),
    ],
)


@pytest.fixture
def endpoint() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A chat-completions server: refuses when the question mentions the canteen, fails
    (HTTP 400) when it mentions the weather, and reports no usage when it mentions tokens."""
    seen: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append(body)
            user = body["messages"][-1]["content"]
            content = REFUSAL_MARKER if "canteen" in user else "Within five days [refunds]."
            if "weather" in user:
                self.send_error(400, "no weather here")
                return
            reply = {
                "choices": [
                    {"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 40, "completion_tokens": 6},
            }
            if "tokens" in user:
                del reply["usage"]
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/v1", seen
    server.shutdown()
    server.server_close()


def test_generation_records_answer_outcome_usage_and_provenance(
    endpoint: tuple[str, list[dict[str, Any]]], tmp_path: Path
) -> None:
    url, seen = endpoint
    out = run_retrieval(
        SNAPSHOT,
        EVALSET,
        RetrievalConfig(k=1),
        name="gen",
        cache_dir=tmp_path,
        generation=GenerationConfig(url, "fake-model"),
    )
    first, second = out.run.results
    assert (first.answer, first.outcome, first.claims) == (
        "Within five days [refunds].",
        "answered",
        None,
    )
    assert (second.answer, second.outcome) == (REFUSAL_MARKER, "refused")
    assert first.usage is not None and (
        first.usage.prompt_tokens,
        first.usage.completion_tokens,
    ) == (40, 6)
    assert sorted(first.stage_latency_ms) == ["context", "generation", "retrieval"]
    prov = out.run.provenance
    assert prov.prompt_version == GENERATION_PROMPT_VERSION
    assert prov.generator is not None and prov.generator.name == "fake-model"
    assert prov.generator.settings == {
        "endpoint_kind": "openai-compatible",
        "max_tokens": 256,
        "refusal_marker": REFUSAL_MARKER,
        "seed": 0,
        "temperature": 0.0,
    }
    assert (
        prov.notes
        == "generated answers; claims not extracted (label them with a judge or reviewers)"
    )
    sent = sorted(body["messages"][1]["content"] for body in seen)
    assert sent[0] == "Passages:\n\n(none)\n\nQuestion: What is the canteen menu?"
    assert (
        sent[1]
        == "Passages:\n\n[refunds]\nRefunds are paid within five days.\n\n"
        "Question: How fast are refunds paid?"
    )
    # a second identical run is answered from the reply cache: no new request
    run_retrieval(
        SNAPSHOT,
        EVALSET,
        RetrievalConfig(k=1),
        name="gen",
        cache_dir=tmp_path,
        generation=GenerationConfig(url, "fake-model"),
    )
    assert len(seen) == 2


def test_a_rerun_from_the_reply_cache_records_the_same_usage(
    endpoint: tuple[str, list[dict[str, Any]]], tmp_path: Path
) -> None:
    # the run records the tokens the answer took, whether the reply came from the endpoint or
    # from the cache: without latency, a rerun is byte-identical (docs/retrieval.md)
    url, seen = endpoint
    runs = [
        run_retrieval(
            SNAPSHOT,
            EVALSET,
            RetrievalConfig(k=1, record_latency=False),
            name="gen",
            cache_dir=tmp_path,
            generation=GenerationConfig(url, "fake-model"),
        ).run
        for _ in range(2)
    ]
    assert len(seen) == 2
    usages = [[r.usage.model_dump() if r.usage else None for r in run.results] for run in runs]
    assert usages == [[{"prompt_tokens": 40, "completion_tokens": 6}] * 2] * 2
    assert runs[0].model_dump() == runs[1].model_dump()


def test_an_endpoint_that_reports_no_tokens_records_no_usage(
    endpoint: tuple[str, list[dict[str, Any]]], tmp_path: Path
) -> None:
    # recorded as usage 0/0 before, from the call and from the cache: zero tokens, not unknown
    url, seen = endpoint
    asked = Question(id="t1", text="How are tokens counted?", answerability="unanswerable")
    evalset = EVALSET.model_copy(update={"questions": [asked]})
    config = RetrievalConfig(k=1, record_latency=False)
    runs = [
        run_retrieval(
            SNAPSHOT, evalset, config, name="gen", cache_dir=tmp_path,
            generation=GenerationConfig(url, "fake-model"),
        ).run
        for _ in range(2)
    ]
    assert len(seen) == 1
    assert [(r.answer, r.usage) for run in runs for r in run.results] == [
        ("Within five days [refunds].", None)
    ] * 2


def _with_weather(n: int) -> EvalSet:
    """n questions the endpoint fails on, then one it answers."""
    weather = [
        Question(id=f"w{i}", text=f"How is the weather {i}?", answerability="unanswerable")
        for i in range(n)
    ]
    return EVALSET.model_copy(update={"questions": [*weather, EVALSET.questions[0]]})


@pytest.mark.parametrize(("n", "note"), [
    (2, "2 generation calls failed, their answers are null"),
    (1, "1 generation call failed, its answer is null"),
])
def test_a_failed_call_leaves_the_answer_null_and_says_so(
    endpoint: tuple[str, list[dict[str, Any]]], n: int, note: str
) -> None:
    config = GenerationConfig(endpoint[0], "m", timeout=2.0)
    out = run_retrieval(
        SNAPSHOT, _with_weather(n), RetrievalConfig(k=1), name="gen", use_cache=False,
        generation=config,
    )
    assert [(r.answer, r.outcome) for r in out.run.results] == [(None, None)] * n + [
        ("Within five days [refunds].", "answered")
    ]
    assert out.run.provenance.notes == (
        "generated answers; claims not extracted (label them with a judge or reviewers); " + note
    )


def test_every_call_failing_is_refused(tmp_path: Path) -> None:
    # as the judge: a run of nothing but null answers looked like a finished one (exit 0)
    config = GenerationConfig("http://127.0.0.1:9/v1", "m", timeout=2.0)
    with pytest.raises(RagtriageError) as err:
        run_retrieval(
            SNAPSHOT, EVALSET, RetrievalConfig(k=1), name="gen", use_cache=False, generation=config
        )
    assert str(err.value).startswith("every generation call failed (2 of 2), no run written; "
                                     "first failure: transport error: ")
    assert str(err.value).endswith(
        "; check that a model answers at http://127.0.0.1:9/v1 (--base-url, --model)"
    )
