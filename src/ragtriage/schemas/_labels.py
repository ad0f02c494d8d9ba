"""Review labels: which context items support a claim, which reference facts an answer covers."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, Literal, TypeVar

from pydantic import ConfigDict, Field, ValidationError, model_validator

from ._shared import SCHEMA_VERSION, Identifier, Labeller, SchemaVersion, StrictModel

ClaimVerdict = Literal["supported", "unsupported", "cannot_judge"]
FactVerdict = Literal["covered", "not_covered", "cannot_judge"]
LabelPolicy = Literal["human-first", "human", "judge"]
"""Which labels count: human ones when present else judge ones, only human, or only judge."""

CONTEXT_HASH = re.compile(r"sha256:[0-9a-f]{64}")
"""The form of a label's `context_hash` (see `ragtriage.detectors.labels_trust`): checked where
labels are read, so that a wrong one is named with its file and place."""
CONTEXT_HASH_EXPECTED = "sha256: followed by 64 lowercase hex digits"
"""The `expected` text of every problem with a label's `context_hash`."""

_L = TypeVar("_L")
_I = TypeVar("_I", bound=Hashable)


def counted_labels(
    labels: Sequence[_L], policy: LabelPolicy, kind: Callable[[_L], str]
) -> list[_L]:
    """The labels of one claim or fact that count under `policy` (the one label choice of the
    project, for models and raw records alike); `kind` gives a label's labeller kind."""
    if len(labels) == 1:  # the common case, without looking at every kind twice
        return list(labels) if policy == "human-first" or kind(labels[0]) == policy else []
    kinds = [kind(lab) for lab in labels]
    wanted = policy if policy != "human-first" else ("human" if "human" in kinds else "judge")
    return [lab for lab, found in zip(labels, kinds, strict=True) if found == wanted]


def record_kind(label: Mapping[str, Any]) -> str:
    """A label record's (parsed JSON's) labeller kind: `counted_labels`' `kind` for records."""
    kind: str = label["labeller"]["kind"]
    return kind


def agreed_verdict(verdicts: Sequence[str]) -> str | None:
    """The verdict of one claim or fact from its counted labels' verdicts: the one they agree
    on, `cannot_judge` when they differ, None without a label (unlabelled). The one rule for
    the engine, the views and judge calibration."""
    if len(verdicts) == 1:  # the common case
        return verdicts[0]
    found = set(verdicts)
    if not found:
        return None
    return found.pop() if len(found) == 1 else "cannot_judge"


def labelled_twice(labels: Iterable[tuple[_I, str, str, str | None]]) -> list[tuple[_I, str]]:
    """Each item labelled more than once by one labeller, with that labeller as a message
    names them (a judge with its prompt version), in the order first labelled. `labels`: per
    label, its item (a claim or fact, told apart as the caller needs) and its labeller's kind,
    name and prompt version, which say who a labeller is (a judge's endpoint, temperature or
    seed make no other judge). The one rule of the loader and the file reader: within a file,
    a labeller labels an item once; a second label of theirs is not a second labeller who
    disagrees (`agreed_verdict`)."""
    return [
        (item, name if kind == "human" else f"{name} (prompt {prompt})")
        for (item, kind, name, prompt), times in Counter(labels).items()
        if times > 1
    ]


class ClaimLabel(StrictModel):
    """One labeller's verdict on one claim."""

    # The checks across files refuse the other pairs (`validation`); the JSON Schema says so.
    model_config = ConfigDict(
        json_schema_extra={
            "if": {"properties": {"verdict": {"const": "supported"}}, "required": ["verdict"]},
            "then": {"properties": {"supported_by": {"minItems": 1}}, "required": ["supported_by"]},
            "else": {"properties": {"supported_by": {"maxItems": 0}}},
        }
    )

    verdict: ClaimVerdict
    """`supported`, `unsupported`, or `cannot_judge` (a valid answer, never scored)."""
    supported_by: list[Identifier] = Field(default_factory=list)
    """Context item IDs that support the claim; non-empty exactly when `supported`."""
    labeller: Labeller
    """Who made the label."""
    reason: str | None = None
    """Why, in the labeller's words (required in spirit for `cannot_judge`)."""
    context_hash: str | None = None
    """Hash of the exact context text the label was made against, when recorded."""


class FactLabel(StrictModel):
    """One labeller's verdict on whether an answer covers one reference fact."""

    fact_id: Identifier
    """The reference fact's ID (of the question)."""
    verdict: FactVerdict
    """`covered`, `not_covered` or `cannot_judge`."""
    labeller: Labeller
    """Who made the label."""
    reason: str | None = None
    """Why, in the labeller's words."""
    context_hash: str | None = None
    """Hash of the context text the label was made against (not of the answer), when recorded."""


LABEL_LISTS = ("claim_labels", "fact_labels")
"""The lists of a labels file whose entries may take the file's default `labeller`."""


def with_default_labeller(entry: Any, default: Any) -> Any:
    """A label entry (as read) whose label names no `labeller`, given the file's `default`.

    Anything else (another shape, a label that names its labeller, no default) is returned
    as it is, for the model to validate.
    """
    if default is None or not isinstance(entry, dict):
        return entry
    label = entry.get("label")
    if not isinstance(label, dict) or "labeller" in label:
        return entry
    return {**entry, "label": {**label, "labeller": default}}


def valid_labeller(value: Any) -> Any:
    """`value` when it is a valid labeller (as read), else None (its problem is reported once,
    at the file's `labeller`, not again at every label)."""
    if value is None:
        return None
    try:
        Labeller.model_validate(value)
    except ValidationError:
        return None
    return value


class ClaimLabelEntry(StrictModel):
    """A claim label stored apart from the run, addressed by question and claim."""

    question_id: Identifier
    """The question whose answer holds the claim."""
    claim_id: Identifier
    """The claim's ID within the answer (`c1`, `c2`, ... when the run gives none)."""
    label: ClaimLabel
    """The label."""


class FactLabelEntry(StrictModel):
    """A fact label stored apart from the run, addressed by question."""

    question_id: Identifier
    """The question whose answer was labelled."""
    label: FactLabel
    """The label."""


class LabelSet(StrictModel):
    """Labels for one run, kept in their own file (e.g. from a review sheet or a judge)."""

    schema_version: SchemaVersion = SCHEMA_VERSION
    """File format version."""
    kind: Literal["labels"] = "labels"
    """File kind marker."""
    run: Identifier
    """Name of the run the labels belong to."""
    labeller: Labeller | None = None
    """The labeller of every label in this file that names none (a label's own `labeller`
    wins), e.g. the reviewer who wrote the file by hand."""
    claim_labels: list[ClaimLabelEntry] = Field(default_factory=list)
    """Claim labels."""
    fact_labels: list[FactLabelEntry] = Field(default_factory=list)
    """Fact coverage labels."""

    @model_validator(mode="before")
    @classmethod
    def _default_labeller(cls, data: Any) -> Any:
        # Labels that name no labeller take the file's, before they are validated.
        if not isinstance(data, dict):
            return data
        default = valid_labeller(data.get("labeller"))
        if default is None:
            return data
        filled = {
            key: [with_default_labeller(entry, default) for entry in data[key]]
            for key in LABEL_LISTS
            if isinstance(data.get(key), list)
        }
        return {**data, **filled}
