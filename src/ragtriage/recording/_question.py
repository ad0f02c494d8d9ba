"""One question being recorded: what each stage produced, turned into a validated result."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any

from pydantic import ValidationError

from ..errors import InputError, Problem, RagtriageError, found_text, shortened, unencodable_at
from ..schemas import ContextItem, Outcome, QuestionResult, RankedItem, Usage
from ..validation import ranking_problems

RankedInput = str | tuple[str, float | None] | RankedItem | Mapping[str, Any]
"""A ranking entry as a user's code has it: an ID, `(id, score)`, a `RankedItem` or a mapping
with `id` (and `score`)."""

ContextInput = str | tuple[str, str | None] | ContextItem | Mapping[str, Any]
"""A context entry: an ID, `(id, text)`, a `ContextItem` or a mapping with `id` (and `text`)."""


class RecordingError(RagtriageError):
    """The recorder was used in a way that would make a wrong record (a stage set twice ...)."""


def _item(
    item: RankedInput | ContextInput, model: type[RankedItem | ContextItem], field: str
) -> Any:
    """A ranking (`field` score) or context (`field` text) entry as the run schema reads it."""
    if isinstance(item, str):
        return {"id": item, field: None}
    if isinstance(item, model):
        return item.model_dump()
    if isinstance(item, tuple) and len(item) == 2:
        return {"id": item[0], field: item[1]}
    if isinstance(item, Mapping):
        return {"id": item.get("id"), field: item.get(field)}
    return item  # neither: refused by the run schema, naming the question and the field


def validation_problems(
    exc: ValidationError, file: str, question_id: str, prefix: str = ""
) -> list[Problem]:
    """Every pydantic error of a question's result as a problem naming file, question and field
    (`prefix`: the field the validated value fills, `usage.`)."""
    return [
        Problem(
            file,
            question_id,
            prefix + ".".join(str(part) for part in err["loc"]) or "(result)",
            err["msg"].removeprefix("Input should be ").removeprefix("Value error, "),
            shortened(repr(err.get("input"))),
        )
        for err in exc.errors()
    ]


def unwritable_problems(result: QuestionResult, file: str) -> list[Problem]:
    """A problem per text of `result` that UTF-8 cannot encode (its line could not be
    written)."""
    return [
        Problem(file, result.question_id, field, "text UTF-8 can encode", found)
        for field, found in unwritable_fields(result.model_dump(mode="json"), "")
    ]


def refused_problems(
    result: QuestionResult, file: str, refused: Sequence[Problem] = ()
) -> list[Problem]:
    """The `refused` calls' problems and what `evaluate` refuses in one result
    (`ranking_problems`), with, when there is any, the text no file can hold (else found when
    the line is encoded): what the recorder writes always loads."""
    where = partial(Problem, file, result.question_id)
    found = [*refused, *(where(*problem) for problem in ranking_problems(result))]
    return [*found, *unwritable_problems(result, file)] if found else []


def unwritable_fields(value: Any, field: str) -> list[tuple[str, str]]:
    """`(field, found)` for each text in a result's (or a document's) JSON that UTF-8 cannot
    encode (a lone surrogate: the line could not be written)."""
    if isinstance(value, str):
        if (at := unencodable_at(value)) is None:
            return []
        return [(field, f"a lone surrogate \\u{ord(value[at]):04x} in {found_text(value)}")]
    if isinstance(value, dict):
        parts: Iterable[tuple[Any, Any]] = value.items()
    elif isinstance(value, list):
        parts = enumerate(value)
    else:
        return []
    return [
        hit for key, item in parts for hit in unwritable_fields(item, f"{field}.{key}".lstrip("."))
    ]


class QuestionRecording:
    """What a pipeline did for one question, filled in stage by stage.

    Each stage may be set once; `result()` validates the whole against the run schema.
    Latency is measured from creation to `finish()` unless set with `latency()`.
    """

    def __init__(self, question_id: str, file: str) -> None:
        self.question_id = question_id
        """The question being answered."""
        self._file = file
        self._data: dict[str, Any] = {"question_id": question_id}
        self._stages: dict[str, float] = {}
        self._started = time.perf_counter()
        self._latency: float | None = None
        self._usage: list[int] | None = None
        self._cost: float | None = None
        self._problems: list[Problem] = []  # of calls refused, reported when the question ends

    def _set(self, key: str, value: Any) -> None:
        if key in self._data:
            raise RecordingError(
                f"question {self.question_id!r}: {key} was already recorded; "
                "each stage is recorded once per question"
            )
        self._data[key] = value

    def _listed(self, field: str, items: Iterable[Any], expected: str) -> Iterable[Any]:
        """`items`, or none with a problem when they are one text (read as a list, each of its
        characters would be an entry)."""
        if not isinstance(items, str):
            return items
        self._problems.append(
            Problem(self._file, self.question_id, field, expected, found_text(items))
        )
        return ()

    def _ranking(self, field: str, items: Iterable[Any], model: type[Any], part: str) -> None:
        expected = f"a list (IDs, (id, {part}) pairs or mappings), not one text"
        listed = self._listed(field, items, expected)
        self._set(field, [_item(item, model, part) for item in listed])

    def candidates(self, items: Iterable[RankedInput]) -> None:
        """The first-stage ranking (before reranking), best first, with scores when known."""
        self._ranking("candidates", items, RankedItem, "score")

    def reranked(self, items: Iterable[RankedInput]) -> None:
        """The ranking after reranking, best first."""
        self._ranking("reranked", items, RankedItem, "score")

    def context(self, items: Iterable[ContextInput]) -> None:
        """The context actually sent to the model: IDs and the exact text, in prompt order."""
        self._ranking("context", items, ContextItem, "text")

    def answer(self, text: str, outcome: Outcome = "answered") -> None:
        """The answer and its outcome (`answered`, `refused`, `clarified`, `escalated`)."""
        self._set("answer", text)
        self._set("outcome", outcome)

    def claim(self, text: str, citations: Iterable[str] = (), claim_id: str | None = None) -> None:
        """One claim of the answer with the IDs it cites (claims are kept in call order)."""
        claims = self._data.setdefault("claims", [])
        field, expected = f"claims.{len(claims)}.citations", "a list of IDs, not one text"
        cited = list(self._listed(field, citations, expected))
        claims.append({"id": claim_id, "text": text, "citations": cited})

    def usage(self, prompt_tokens: int, completion_tokens: int) -> None:
        """Token counts of a generation call; several calls add up."""
        try:
            Usage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
        except ValidationError as exc:
            self._problems += validation_problems(exc, self._file, self.question_id, "usage.")
            return
        if self._usage is None:
            self._usage = [0, 0]
        self._usage[0] += prompt_tokens
        self._usage[1] += completion_tokens

    def cost(self, usd: float) -> None:
        """Cost in US dollars; several calls add up."""
        if isinstance(usd, bool) or not isinstance(usd, int | float):
            self._problems.append(
                Problem(self._file, self.question_id, "cost_usd", "a number", found_text(usd))
            )
            return
        self._cost = (self._cost or 0.0) + usd

    def latency(self, ms: float) -> None:
        """Set the end-to-end latency instead of measuring it."""
        self._latency = ms

    def stage_latency(self, stage: str, ms: float) -> None:
        """Add time spent in one stage (`retrieval`, `rerank`, `generation` ...)."""
        self._stages[stage] = self._stages.get(stage, 0.0) + ms

    @contextmanager
    def stage(self, stage: str) -> Iterator[None]:
        """Measure the time spent in the `with` block as part of `stage`."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.stage_latency(stage, (time.perf_counter() - start) * 1000.0)

    def result(self) -> QuestionResult:
        """The recorded result, validated; `InputError` lists every field that is wrong."""
        data = dict(self._data)
        latency = self._latency
        if latency is None:
            latency = (time.perf_counter() - self._started) * 1000.0
        data["latency_ms"] = latency
        if self._stages:
            data["stage_latency_ms"] = dict(sorted(self._stages.items()))
        if self._usage is not None:
            data["usage"] = {"prompt_tokens": self._usage[0], "completion_tokens": self._usage[1]}
        if self._cost is not None:
            data["cost_usd"] = self._cost
        try:
            result = QuestionResult.model_validate(data)
        except ValidationError as exc:
            raise InputError(
                self._problems + validation_problems(exc, self._file, self.question_id)
            ) from None
        if problems := refused_problems(result, self._file, self._problems):
            raise InputError(problems)
        return result
