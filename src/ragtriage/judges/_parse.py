"""The strict parser of judge answers: one JSON object of the expected shape, or a reason why not.

An answer that does not parse is never turned into a verdict: it becomes `cannot_judge` (or a
failed extraction) with the parser's reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Annotated, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, WithJsonSchema

from ..detectors import mask_text
from ..errors import counted, shortened
from ..fileio import StrictJSONError
from ..schemas import ClaimVerdict, FactVerdict, Identifier
from ._reply_json import reply_json
from ._spec import (
    ClaimsFound,
    CoverageVerdict,
    ExtractedClaim,
    OutcomeFound,
    SupportVerdict,
)

_FENCE = re.compile(r"^```(?:json)?\s*\n?(.*?)\n?```$", re.DOTALL)
_MAX_SHOWN = 120

M = TypeVar("M", bound=BaseModel)


class _Answer(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class OutcomeAnswer(_Answer):
    """The outcome task's answer."""

    outcome: Literal["answered", "refused", "clarified"]
    """What the assistant did."""
    reason: str
    """Why."""


_Cited = Annotated[Identifier, WithJsonSchema({"type": "string", "minLength": 1})]
"""An `Identifier`, its pattern left out of the schema sent to the judge (a model's
constrained decoding need not read its escapes)."""


class ClaimItem(_Answer):
    """One extracted claim."""

    text: str = Field(min_length=1)
    """The claim."""
    citations: list[_Cited] = Field(default_factory=list)
    """Cited IDs (non-empty, without control characters, not only whitespace, as a run's claims
    require: another would make the written run file invalid)."""


class ClaimsAnswer(_Answer):
    """The claim-extraction task's answer."""

    claims: list[ClaimItem]
    """The claims, in answer order."""


class SupportAnswer(_Answer):
    """The support task's answer."""

    verdict: ClaimVerdict
    """The verdict."""
    supported_by: list[str]
    """Supporting passage IDs."""
    reason: str
    """Why."""


class CoverageAnswer(_Answer):
    """The coverage task's answer."""

    verdict: FactVerdict
    """The verdict."""
    reason: str
    """Why."""


class ParseFailure(ValueError):
    """The judge's answer is not a valid answer; the message says why."""


def _shown(text: str) -> str:
    # A reply may echo the texts it was asked about: masked like every shown text, before
    # it is shortened, so that a cut never splits a value past recognition.
    flat = " ".join(mask_text(text).split())
    return repr(shortened(flat, _MAX_SHOWN))


def parse_object(model: type[M], text: str) -> M:
    """Parse one JSON object (optionally inside a ``` fence) into `model`, or raise ParseFailure."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        data = reply_json(body)
    except json.JSONDecodeError as exc:
        raise ParseFailure(
            f"not a JSON object ({exc.msg} at char {exc.pos}): {_shown(text)}"
        ) from exc
    except StrictJSONError as exc:
        raise ParseFailure(f"refused JSON ({exc}): {_shown(text)}") from exc
    if not isinstance(data, dict):
        raise ParseFailure(f"expected a JSON object, found {type(data).__name__}: {_shown(text)}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(object)"
        raise ParseFailure(
            f"wrong shape at {where}: {first['msg']} ({counted(len(exc.errors()), 'error')}): "
            + _shown(text)
        ) from exc


def _reply(
    model: type[M], text: str | None, error: str | None, finish_reason: str | None
) -> M | str:
    """The reply as `model`, or why there is none: a transport failure (no reply) or a reply
    that does not parse (said to be truncated when the token limit cut it)."""
    if text is None:
        return error or "no answer"
    try:
        return parse_object(model, text)
    except ParseFailure as exc:
        reason = f"unparseable judge answer: {exc}"
        if finish_reason == "length":
            return f"output truncated at the token limit; {reason}"
        return reason


def _verdict_reason(verdict: str, reason: str) -> str | None:
    """The judge's reason, stripped; a `cannot_judge` without one says so."""
    if verdict == "cannot_judge" and not reason.strip():
        return "the judge answered cannot_judge without a reason"
    return reason.strip() or None


def parse_outcome(
    text: str | None, error: str | None = None, finish_reason: str | None = None
) -> OutcomeFound:
    """The outcome task's reply as an `OutcomeFound`."""
    answer = _reply(OutcomeAnswer, text, error, finish_reason)
    if isinstance(answer, str):
        return OutcomeFound(None, answer)
    return OutcomeFound(answer.outcome, answer.reason)


def parse_claims(
    text: str | None, error: str | None = None, finish_reason: str | None = None
) -> ClaimsFound:
    """The claim-extraction reply as a `ClaimsFound`."""
    answer = _reply(ClaimsAnswer, text, error, finish_reason)
    if isinstance(answer, str):
        return ClaimsFound(None, answer)
    claims = tuple(
        ExtractedClaim(" ".join(c.text.split()), tuple(dict.fromkeys(c.citations)))
        for c in answer.claims
        if c.text.strip()
    )
    return ClaimsFound(claims)


def parse_support(
    text: str | None,
    passage_ids: Sequence[str],
    error: str | None = None,
    finish_reason: str | None = None,
) -> SupportVerdict:
    """The support reply as a `SupportVerdict`; supporting IDs must be passage IDs."""
    answer = _reply(SupportAnswer, text, error, finish_reason)
    if isinstance(answer, str):
        return SupportVerdict("cannot_judge", (), answer)
    ids = tuple(dict.fromkeys(answer.supported_by))
    unknown = [i for i in ids if i not in passage_ids]
    rejected = None
    if unknown:
        rejected = (
            f"supported_by names {', '.join(map(repr, unknown))}, not a passage ID "
            f"({', '.join(passage_ids) or 'no passages'}); judge said {answer.verdict}"
        )
    elif answer.verdict == "supported" and not ids:
        rejected = "supported without a supporting passage ID"
    elif answer.verdict != "supported" and ids:
        rejected = f"{answer.verdict} with supporting IDs {', '.join(ids)}"
    if rejected is not None:
        return SupportVerdict("cannot_judge", (), f"judge answer rejected: {rejected}")
    return SupportVerdict(answer.verdict, ids, _verdict_reason(answer.verdict, answer.reason))


def parse_coverage(
    text: str | None, error: str | None = None, finish_reason: str | None = None
) -> CoverageVerdict:
    """The coverage reply as a `CoverageVerdict`."""
    answer = _reply(CoverageAnswer, text, error, finish_reason)
    if isinstance(answer, str):
        return CoverageVerdict("cannot_judge", answer)
    return CoverageVerdict(answer.verdict, _verdict_reason(answer.verdict, answer.reason))
