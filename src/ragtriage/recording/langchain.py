"""A LangChain callback handler that feeds a `Recorder` directly (extra `ragtriage[langchain]`).

It applies the same rules as `ragtriage import openinference` (see `result_from_trace`), so a
chain recorded with the handler and one traced with OpenInference's instrumentation give the
same result lines (latencies aside: each measures its own).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from .._optional import require_extra

require_extra("langchain", "the LangChain callback handler")

from langchain_core.callbacks import BaseCallbackHandler  # noqa: E402
from langchain_core.documents import Document  # noqa: E402
from langchain_core.messages import BaseMessage  # noqa: E402
from langchain_core.outputs import LLMResult  # noqa: E402

from ..schemas import EvalSet  # noqa: E402
from ._recorder import Recorder  # noqa: E402
from ._traces import (  # noqa: E402
    Match,
    QuestionMatcher,
    TraceDocument,
    TraceRecord,
    question_key,
    refusal_regex,
    result_from_trace,
)


@dataclass
class _Request:
    """What one root run has done so far."""

    question: str | None
    question_key: str | None
    started: float
    retrievals: list[tuple[TraceDocument, ...]] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    stages: dict[str, float] = field(default_factory=dict)
    open_stages: dict[UUID, tuple[str, float]] = field(default_factory=dict)


_TOKEN_KEYS = {
    "prompt_tokens": ("prompt_tokens", "input_tokens", "prompt_token_count"),
    "completion_tokens": ("completion_tokens", "output_tokens", "candidates_token_count"),
}
"""Where a model's token counts are, by provider, as OpenInference's instrumentation reads them."""


def _token_usage(response: LLMResult) -> Mapping[str, Any]:
    """A model call's token counts where OpenInference's LangChain instrumentation reads them
    (so the trace import records the same): the `llm_output`'s `token_usage` or `usage`, else
    the first generation's message `usage_metadata` (chat models), else its `generation_info`'s."""
    output = response.llm_output or {}
    usage = output.get("token_usage") or output.get("usage")
    first = response.generations[0][0] if response.generations and response.generations[0] else None
    if not usage and first is not None:
        message = getattr(first, "message", None)
        usage = getattr(message, "usage_metadata", None)
        usage = usage or (first.generation_info or {}).get("usage_metadata")
    return usage if isinstance(usage, Mapping) else {}


def _text_of(message: BaseMessage) -> list[str]:
    content = message.content
    if isinstance(content, str):
        return [content]
    return [
        part["text"]
        for part in content
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    ]


class RecorderCallbackHandler(BaseCallbackHandler):
    """Records each top-level chain call as one question of `recorder`'s run.

    The question is the one whose ID is under `id_metadata_key` in the call's metadata
    (`config={"metadata": {"question_id": ...}}`), else the one with exactly the input text.
    Document IDs are LangChain's `Document.id`, or metadata key `id_key` when given. A call
    that matches no question is not recorded and is listed in `unmatched`; a document without
    an ID raises `InputError` (the handler raises, so the chain call fails rather than record
    an invented ID).
    """

    raise_error = True

    def __init__(
        self,
        recorder: Recorder,
        evalset: EvalSet,
        *,
        id_metadata_key: str | None = None,
        id_key: str | None = None,
        refusal_pattern: str | None = None,
    ) -> None:
        self.recorder = recorder
        """Where results go."""
        self.unmatched: list[Match] = []
        """Calls that matched no question, with the reason."""
        self._matcher = QuestionMatcher(evalset, id_metadata_key)
        self._id_metadata_key = id_metadata_key
        self._id_key = id_key
        refusal_regex(refusal_pattern)  # refused here, not at the first answer
        self._refusal_pattern = refusal_pattern
        self._lock = threading.Lock()
        self._requests: dict[UUID, _Request] = {}
        self._root_of: dict[UUID, UUID] = {}

    def _request(self, run_id: UUID) -> _Request | None:
        with self._lock:
            root = self._root_of.get(run_id)
            return None if root is None else self._requests.get(root)

    def _child(self, run_id: UUID, parent_run_id: UUID | None, stage: str | None) -> None:
        with self._lock:
            root = self._root_of.get(parent_run_id) if parent_run_id is not None else None
            if root is None:
                return
            self._root_of[run_id] = root
            if stage is not None:
                self._requests[root].open_stages[run_id] = (stage, time.perf_counter())

    def _close_stage(self, request: _Request, run_id: UUID) -> None:
        opened = request.open_stages.pop(run_id, None)
        if opened is not None:
            stage, start = opened
            ms = (time.perf_counter() - start) * 1000.0
            request.stages[stage] = request.stages.get(stage, 0.0) + ms

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """A top-level call opens a request; a nested one joins its root."""
        if parent_run_id is None:
            self._open(run_id, inputs, metadata)
        else:
            self._child(run_id, parent_run_id, None)

    def _open(
        self, run_id: UUID, inputs: Any, metadata: dict[str, Any] | None, stage: str | None = None
    ) -> None:
        key = None
        if self._id_metadata_key is not None and metadata is not None:
            key = question_key(metadata.get(self._id_metadata_key))
        request = _Request(inputs if isinstance(inputs, str) else None, key, time.perf_counter())
        if stage is not None:
            request.open_stages[run_id] = (stage, request.started)
        with self._lock:
            self._requests[run_id] = request
            self._root_of[run_id] = run_id

    def on_retriever_start(
        self,
        serialized: dict[str, Any],
        query: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Start timing retrieval; a retriever called alone is a request of its own."""
        if parent_run_id is None:
            self._open(run_id, query, metadata, "retrieval")
        else:
            self._child(run_id, parent_run_id, "retrieval")

    def on_retriever_end(
        self, documents: Sequence[Document], *, run_id: UUID, **kwargs: Any
    ) -> None:
        """The retriever's documents, in order."""
        request = self._request(run_id)
        if request is None:
            return
        docs = tuple(
            TraceDocument(
                position=n,
                doc_id=doc.id if self._id_key is None else None,
                score=None,
                content=doc.page_content,
                metadata=dict(doc.metadata),
            )
            for n, doc in enumerate(documents)
        )
        with self._lock:
            request.retrievals.append(docs)
            self._close_stage(request, run_id)
        if run_id in self._requests:  # a retriever called alone: its request ends here
            self.on_chain_end(None, run_id=run_id)

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """The messages sent to the model."""
        self._child(run_id, parent_run_id, "generation")
        request = self._request(run_id)
        if request is not None:
            with self._lock:
                request.prompts += [t for batch in messages for m in batch for t in _text_of(m)]

    def on_llm_start(
        self,
        serialized: dict[str, Any],
        prompts: list[str],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """The prompts sent to a completion model."""
        self._child(run_id, parent_run_id, "generation")
        request = self._request(run_id)
        if request is not None:
            with self._lock:
                request.prompts += list(prompts)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        """The model's output and token counts."""
        request = self._request(run_id)
        if request is None:
            return
        usage = _token_usage(response)
        with self._lock:
            request.outputs += [gen.text for batch in response.generations for gen in batch[:1]]
            for key, names in _TOKEN_KEYS.items():
                count = next((usage[n] for n in names if usage.get(n) is not None), None)
                if isinstance(count, int) and not isinstance(count, bool):
                    setattr(request, key, (getattr(request, key) or 0) + count)
            self._close_stage(request, run_id)

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """A top-level call's end writes its result."""
        with self._lock:
            request = self._requests.pop(run_id, None)
            if request is None:
                return
            for child in [c for c, root in self._root_of.items() if root == run_id]:
                del self._root_of[child]
        trace = TraceRecord(
            trace_id=str(run_id),
            question=request.question,
            question_key=request.question_key,
            retrievals=tuple(request.retrievals),
            prompts=tuple(request.prompts),
            llm_outputs=tuple(request.outputs),
            final_output=outputs if isinstance(outputs, str) else None,
            prompt_tokens=request.prompt_tokens,
            completion_tokens=request.completion_tokens,
            latency_ms=(time.perf_counter() - request.started) * 1000.0,
            stage_latency_ms=request.stages,
        )
        match = self._matcher.match(trace)
        if match.question_id is None:
            with self._lock:
                self.unmatched.append(match)
            return
        self.recorder.record(
            result_from_trace(
                trace,
                match.question_id,
                file=str(self.recorder.path),
                id_key=self._id_key,
                refusal_pattern=self._refusal_pattern,
            )
        )

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """A failed top-level call is not recorded (a later run records it)."""
        with self._lock:
            if self._requests.pop(run_id, None) is not None:
                for child in [c for c, root in self._root_of.items() if root == run_id]:
                    del self._root_of[child]

    on_retriever_error = on_chain_error  # a retriever called alone that fails: not recorded
