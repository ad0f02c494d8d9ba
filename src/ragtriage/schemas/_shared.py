"""Shared building blocks for every file kind."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, StringConstraints

SCHEMA_VERSION: Literal[1] = 1
"""The version of the native file formats this release reads and writes."""


def is_schema_version(value: object) -> bool:
    """True for the version this release reads: the integer 1.

    Not `true` nor `1.0`: they equal 1 in Python, and a literal (or `!=`) compares by equality.
    """
    return type(value) is int and value == SCHEMA_VERSION


def _schema_version(value: object) -> object:
    if not is_schema_version(value):
        # the message is what was expected: problems read "schema_version: expected 1; found
        # true", as the literal's own error reads for any other value
        raise ValueError(str(SCHEMA_VERSION))
    return value


SchemaVersion = Annotated[Literal[1], BeforeValidator(_schema_version)]
"""A file's `schema_version` (`schemaVersion` in the article format): see `is_schema_version`."""

Identifier = Annotated[str, StringConstraints(min_length=1, strip_whitespace=False)]
"""A stable, non-empty identifier (document, chunk, question, fact, claim)."""

Scalar = str | int | float | bool
"""A value allowed in free-form metadata and settings maps."""


class StrictModel(BaseModel):
    """Base for every file-boundary model: strict types, unknown fields refused, immutable."""

    model_config = ConfigDict(
        strict=True, extra="forbid", frozen=True, use_attribute_docstrings=True
    )


class Labeller(StrictModel):
    """Who made a label. The system under test never labels itself."""

    kind: Literal["human", "judge"]
    """`human` for a person, `judge` for an automatic judge (model or deterministic)."""
    name: Identifier
    """The reviewer's name or ID for a human; the judge model's name for a judge."""
    prompt_version: str | None = None
    """The judge's prompt template version; required for `judge`, absent for `human`."""
    endpoint_kind: str | None = None
    """For a judge: what served it (e.g. `openai-compatible`, `llama.cpp`, `lexical`)."""
    temperature: float | None = None
    """For a judge: the sampling temperature used."""
    seed: int | None = None
    """For a judge: the sampling seed used, if any."""
