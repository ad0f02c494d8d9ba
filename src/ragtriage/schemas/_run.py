"""Runs: what one system configuration did for each question, stage by stage."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BeforeValidator, ConfigDict, Field
from pydantic.config import JsonDict

from ..fileio import CUTOFF_RANGE, MAX_CUTOFF
from ._labels import ClaimLabel, FactLabel
from ._shared import (
    SCHEMA_VERSION,
    TEXT_PATTERN,
    Identifier,
    Scalar,
    SchemaVersion,
    StrictModel,
    Text,
)


def _cutoff(value: object) -> object:
    if value not in CUTOFF_RANGE:  # worded as `-k` is refused: 'an integer from 1 to 10000'
        raise ValueError(CUTOFF_RANGE.expected())
    return value


Outcome = Literal["answered", "refused", "clarified", "escalated"]
NON_ANSWERS = ("refused", "clarified", "escalated")
"""The outcomes that carry no claims and cover no reference fact."""
_COVERED: JsonDict = {"properties": {"verdict": {"const": "covered"}}, "required": ["verdict"]}


class Component(StrictModel):
    """A pipeline component and the settings it ran with."""

    name: str
    """Component name (retriever kind, reranker model, generator model ...)."""
    version: str | None = None
    """Its version."""
    settings: dict[str, Scalar] = Field(default_factory=dict)
    """Its settings (temperature, fusion constant, max tokens ...)."""


class Provenance(StrictModel):
    """The conditions a run was produced under; comparisons read these."""

    snapshot_id: Identifier | None = None
    """Knowledge snapshot the run retrieved from."""
    evalset_id: Identifier | None = None
    """Evaluation set the run answered."""
    retriever: Component | None = None
    """First-stage retriever."""
    k: Annotated[int, Field(ge=1, le=MAX_CUTOFF), BeforeValidator(_cutoff)] | None = None
    """How many items went into the final context when no explicit context is recorded."""
    filters: dict[str, Scalar] = Field(default_factory=dict)
    """Retrieval filters (version, date, permission ...)."""
    reranker: Component | None = None
    """Reranking stage, if any."""
    generator: Component | None = None
    """Answer generator (model and settings), if any."""
    prompt_version: str | None = None
    """Version of the generation prompt."""
    seed: int | None = None
    """Seed of the run, for repeated runs of one configuration."""
    notes: str | None = None
    """Free text."""
    environment: dict[str, Scalar] = Field(default_factory=dict)
    """Where the run was recorded: tool and package versions, git commit (the recorder fills it)."""


class RankedItem(StrictModel):
    """One entry of a ranking."""

    id: Identifier
    """Document or chunk ID."""
    score: float | None = None
    """The stage's score, if any."""


class ContextItem(StrictModel):
    """One item actually sent to the model."""

    id: Identifier
    """Document or chunk ID."""
    text: str | None = None
    """The exact text sent, when recorded."""


class Claim(StrictModel):
    """One factual claim extracted from the answer, with its citations and review labels."""

    id: Identifier | None = None
    """Claim ID within the answer; `c1`, `c2`, ... by position when omitted."""
    text: Text
    """The claim."""
    citations: list[Identifier] = Field(default_factory=list)
    """IDs the answer cites for this claim (an unknown ID is an invalid citation, not an error;
    an empty one is an error)."""
    labels: list[ClaimLabel] = Field(default_factory=list)
    """Review labels, from people and judges; judge labels never replace human ones."""


def claim_ids(given: Iterable[str | None], start: int = 1) -> list[str]:
    """The IDs of a result's claims, from their own IDs in order (None or empty where a claim
    has none): a claim's own `id`, else `c` and its 1-based position among the result's claims
    (`c1`, `c2`, ...). Label files, review sheets and error messages name claims this way.

    `start`: the position of the first claim given, when not all of them are (one claim's ID:
    `claim_ids([given], start=position)[0]`)."""
    return [given_id or f"c{n}" for n, given_id in enumerate(given, start=start)]


_Item = TypeVar("_Item")
_Ranking = TypeVar("_Ranking", bound=Sequence[Any])


def final_ranking_of(reranked: _Ranking | None, candidates: _Ranking) -> _Ranking:
    """A result's final ranking: its `reranked` list when reranking ran, else its candidates."""
    return candidates if reranked is None else reranked


def final_context_of(
    context: Sequence[_Item] | None,
    reranked: Sequence[_Item] | None,
    candidates: Sequence[_Item],
    k: int | None,
) -> Sequence[_Item]:
    """A result's final context: its recorded `context` when there is one, else the top `k`
    (all when None) of its final ranking (`final_ranking_of`).

    The one rule for every form of a result: its model (`QuestionResult.final_context`), its
    record as parsed and the engine's item codes."""
    if context is not None:
        return context
    ranking = final_ranking_of(reranked, candidates)
    return ranking if k is None else ranking[:k]


class Usage(StrictModel):
    """Token counts of the generation call."""

    prompt_tokens: int = Field(ge=0)
    """Tokens sent."""
    completion_tokens: int = Field(ge=0)
    """Tokens generated."""


class QuestionResult(StrictModel):
    """What the system did for one question."""

    # The checks across files refuse an answer without an outcome and the converse
    # (`validation`; `ragtriage judge` detects a missing outcome); the JSON Schema says so.
    model_config = ConfigDict(
        json_schema_extra={
            "allOf": [
                {
                    "if": {"properties": {"answer": {"type": "string"}}, "required": ["answer"]},
                    "then": {
                        "properties": {"outcome": {"type": "string"}},
                        "required": ["outcome"],
                    },
                },
                {
                    "if": {"properties": {"outcome": {"type": "string"}}, "required": ["outcome"]},
                    "then": {
                        "properties": {"answer": {"type": "string", "pattern": TEXT_PATTERN}},
                        "required": ["answer"],
                    },
                },
                # claims and covered facts are an answer's: not of a refusal nor of no answer
                {
                    "if": {
                        "properties": {"claims": {"type": "array", "minItems": 1}},
                        "required": ["claims"],
                    },
                    "then": {
                        "properties": {"outcome": {"const": "answered"}},
                        "required": ["outcome"],
                    },
                },
                {
                    "if": {
                        "properties": {"outcome": {"enum": list(NON_ANSWERS)}},
                        "required": ["outcome"],
                    },
                    "then": {"properties": {"fact_labels": {"not": {"contains": _COVERED}}}},
                },
            ]
        }
    )

    question_id: Identifier
    """The question answered."""
    candidates: list[RankedItem] = Field(default_factory=list)
    """First-stage ranking, before reranking, best first."""
    reranked: list[RankedItem] | None = None
    """Ranking after reranking, best first; `null` when there was no reranking stage."""
    context: list[ContextItem] | None = None
    """The final context actually sent; `null` means the top k of the final ranking."""
    answer: str | None = None
    """The answer text, not only whitespace; `null` for a retrieval-only run."""
    outcome: Outcome | None = None
    """`answered`, `refused`, `clarified` or `escalated`; `null` for a retrieval-only run.
    Required with an answer (`ragtriage judge` reads a run without one and detects it)."""
    claims: list[Claim] | None = None
    """Claims of the answer; `null` when not extracted yet; none when there is no answer."""
    fact_labels: list[FactLabel] = Field(default_factory=list)
    """Reference-fact coverage labels for this answer."""
    latency_ms: float | None = Field(default=None, ge=0)
    """End-to-end latency."""
    stage_latency_ms: dict[str, Annotated[float, Field(ge=0)]] = Field(default_factory=dict)
    """Latency per stage (retrieval, rerank, generation ...)."""
    cost_usd: float | None = Field(default=None, ge=0)
    """Cost of answering this question."""
    usage: Usage | None = None
    """Token usage of the generation call."""

    @property
    def ranking(self) -> list[RankedItem]:
        """The final ranking (`final_ranking_of`): reranked when reranking ran, else the
        candidates."""
        return final_ranking_of(self.reranked, self.candidates)

    def final_context(self, k: int | None) -> tuple[str, ...]:
        """IDs of the final context at the run's cut-off `k` (`final_context_of`)."""
        items: Sequence[ContextItem | RankedItem]
        items = final_context_of(self.context, self.reranked, self.candidates, k)
        return tuple(item.id for item in items)


class RunHeader(StrictModel):
    """Everything about a run except its per-question results (the first line of a JSONL run)."""

    schema_version: SchemaVersion = SCHEMA_VERSION
    """File format version."""
    kind: Literal["run"] = "run"
    """File kind marker."""
    name: Identifier
    """Run name, unique among the runs evaluated together."""
    provenance: Provenance = Field(default_factory=Provenance)
    """Conditions the run was produced under."""


class Run(RunHeader):
    """A run in one JSON document: header fields plus `results`."""

    results: list[QuestionResult]
    """One result per question."""
