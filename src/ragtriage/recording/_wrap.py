"""Decorators that record what a user's retrieve, rerank and generate functions return."""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from typing import Any, TypeVar, cast

from ..schemas import Outcome
from ._question import ContextInput, QuestionRecording, RankedInput

F = TypeVar("F", bound=Callable[..., Any])


def _wrap(
    func: F,
    stage: str,
    current: Callable[[], QuestionRecording],
    store: Callable[[QuestionRecording, Any], Any],
) -> F:
    """Time `func` as `stage` of the open question and store what it returns (`store` gives
    back what the caller gets)."""

    def done(recording: QuestionRecording, start: float, out: Any) -> Any:
        recording.stage_latency(stage, (time.perf_counter() - start) * 1000.0)
        return store(recording, out)

    if inspect.isasyncgenfunction(func):  # its items are read to the end, then handed on

        @functools.wraps(func)
        async def async_items(*args: Any, **kwargs: Any) -> Any:
            recording, start = current(), time.perf_counter()
            for item in done(recording, start, [item async for item in func(*args, **kwargs)]):
                yield item

        return cast(F, async_items)
    if inspect.iscoroutinefunction(func):

        @functools.wraps(func)
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            recording, start = current(), time.perf_counter()
            return done(recording, start, await func(*args, **kwargs))

        return cast(F, async_wrapper)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        recording, start = current(), time.perf_counter()
        return done(recording, start, func(*args, **kwargs))

    return cast(F, wrapper)


class StageWrappers:
    """The decorator half of `Recorder` (it supplies `current` and `question`)."""

    def current(self) -> QuestionRecording:  # pragma: no cover - Recorder overrides it
        """The question open in this thread or asyncio task."""
        raise NotImplementedError

    def question(
        self, question_id: str
    ) -> AbstractContextManager[QuestionRecording]:  # pragma: no cover - Recorder overrides it
        """Record one question."""
        raise NotImplementedError

    def _items(
        self, add: Callable[[QuestionRecording, Iterable[Any]], None], to_item: Any, stage: str
    ) -> Callable[[F], F]:
        """Record the returned items with `add`, each turned by `to_item` when given."""

        def store(recording: QuestionRecording, out: Iterable[Any]) -> Iterable[Any]:
            if isinstance(out, Iterator):  # read once here: the caller gets the same items
                out = list(out)
            add(recording, out if to_item is None else (to_item(x) for x in out))
            return out

        return lambda func: _wrap(func, stage, self.current, store)

    def retrieve(
        self, *, to_item: Callable[[Any], RankedInput] | None = None, stage: str = "retrieval"
    ) -> Callable[[F], F]:
        """Record the returned ranking as the open question's candidates.

        The function returns an iterable of ranking entries (IDs, `(id, score)` pairs,
        mappings with `id` and `score`), or of anything `to_item` turns into one.
        """
        return self._items(QuestionRecording.candidates, to_item, stage)

    def rerank(
        self, *, to_item: Callable[[Any], RankedInput] | None = None, stage: str = "rerank"
    ) -> Callable[[F], F]:
        """Record the returned ranking as the open question's reranked list."""
        return self._items(QuestionRecording.reranked, to_item, stage)

    def select_context(
        self, *, to_item: Callable[[Any], ContextInput] | None = None, stage: str = "context"
    ) -> Callable[[F], F]:
        """Record the returned items as the context sent: `(id, text)` pairs, mappings ..."""
        return self._items(QuestionRecording.context, to_item, stage)

    def generate(
        self,
        *,
        outcome: Callable[[str], Outcome] | None = None,
        stage: str = "generation",
    ) -> Callable[[F], F]:
        """Record the returned text as the answer; `outcome(text)` classifies it (default
        `answered`)."""

        def store(recording: QuestionRecording, out: str) -> str:
            recording.answer(out, outcome(out) if outcome else "answered")
            return out

        return lambda func: _wrap(func, stage, self.current, store)

    def per_question(self, arg: str = "question_id") -> Callable[[F], F]:
        """Record each call of the function as one question, its ID being argument `arg`.

        Stages recorded by the wrapped retrieve/rerank/generate functions it calls belong to
        that question; the result is written when the call returns.
        """

        def decorate(func: F) -> F:
            signature = inspect.signature(func)
            if arg not in signature.parameters:
                raise TypeError(f"{func.__qualname__} has no argument {arg!r}")

            def question_id(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
                # a number is the question's ID as text, as the LangChain handler reads one;
                # any other value that is no text is left to `question` to refuse
                value = signature.bind(*args, **kwargs).arguments[arg]
                number = isinstance(value, int) and not isinstance(value, bool)
                return str(value) if number else value

            if inspect.iscoroutinefunction(func):

                @functools.wraps(func)
                async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                    with self.question(question_id(args, kwargs)):
                        return await func(*args, **kwargs)

                return cast(F, async_wrapper)

            @functools.wraps(func)
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                with self.question(question_id(args, kwargs)):
                    return func(*args, **kwargs)

            return cast(F, wrapper)

        return decorate
