"""Shared building blocks for every file kind."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    GetCoreSchemaHandler,
    StringConstraints,
    WithJsonSchema,
)

from ..errors import Problem, found_text, option_problem

SCHEMA_VERSION: Literal[1] = 1
"""The version of the native file formats this release reads and writes."""


def is_schema_version(value: object) -> bool:
    """True for the version this release reads: the integer 1.

    Not `true` nor `1.0`: they equal 1 in Python, and a literal (or `!=`) compares by equality.
    """
    return type(value) is int and value == SCHEMA_VERSION


def declared_kind(data: object) -> str | None:
    """The kind a parsed ragtriage JSON file declares: its `kind`, or `article` for the
    article format (which has none, but a `schemaVersion`); None when it declares none."""
    if not isinstance(data, dict):
        return None
    kind = data.get("kind", "article" if "schemaVersion" in data else None)
    return kind if isinstance(kind, str) else None


def _schema_version(value: object) -> object:
    if not is_schema_version(value):
        # the message is what was expected: problems read "schema_version: expected 1; found
        # true", as the literal's own error reads for any other value
        raise ValueError(str(SCHEMA_VERSION))
    return value


SchemaVersion = Annotated[Literal[1], BeforeValidator(_schema_version)]
"""A file's `schema_version` (`schemaVersion` in the article format): see `is_schema_version`."""

_CONTROL = "\\u0000-\\u001f\\u007f-\\u009f"
"""The control characters (C0, DEL and C1) as a regex class's ranges, in the `\\uXXXX` form
Python's, pydantic's and JSON Schema's regexes all read."""
IDENTIFIER_PATTERN = f"^[^{_CONTROL}]*[^\\s{_CONTROL}][^{_CONTROL}]*$"
"""The form of an identifier: no control character (a line break or a tab in an ID would
draw as a line break or a space in reports), and not only whitespace (`' '` is no key a
reader can tell from none)."""
IDENTIFIER_EXPECTED = "an identifier without control characters, not only whitespace"
"""What an identifier field expects beyond a non-empty string, as problems say it."""
_CONTROL_CHARACTER = re.compile(f"[{_CONTROL}]")


def plain_ids(values: Iterable[str]) -> bool:
    """True when none of the strings `values` holds a control character or only whitespace
    (`Identifier`'s pattern): one regex search over them joined, for many IDs at once."""
    ids = list(values)
    return _CONTROL_CHARACTER.search("".join(ids)) is None and not any(map(str.isspace, ids))


def identifier_problems(*options: tuple[str, str | None]) -> list[Problem]:
    """A problem for each `(option, value)` whose value becomes an `Identifier` (a run name,
    a dataset ID, a labeller's name) but holds a control character, worded as the files' ID
    problems (`<command line>: --model: expected an identifier without control characters;
    found 'gp\\x07t'`): checked before any work, not when the native model is built. A value
    that is no str (from Python) is refused the same way."""
    return [
        option_problem(option, IDENTIFIER_EXPECTED, found_text(value))
        for option, value in options
        if value is not None and not (isinstance(value, str) and plain_ids((value,)))
    ]


Identifier = Annotated[
    str, StringConstraints(min_length=1, strip_whitespace=False, pattern=IDENTIFIER_PATTERN)
]
"""A stable, non-empty identifier (document, chunk, question, fact, claim, tag, group,
labeller), without control characters (`IDENTIFIER_PATTERN`)."""

ISO_DATE_EXPECTED = "an ISO date (YYYY-MM-DD, or YYYY-MM or YYYY)"
"""What a date field expects, as problems say it."""
ISO_DATE_PATTERN = (
    "^([1-9][0-9]{3}|0[1-9][0-9]{2}|00[1-9][0-9]|000[1-9])"  # a year, not 0000 (no lookahead)
    "(-(0[1-9]|1[0-2])(-(0[1-9]|[12][0-9]|3[01]))?)?$"
)
"""The form of a date field: years 0001-9999, months 01-12, days 01-31 (`is_iso_date` also
checks that it is a day of the calendar: not `2026-02-30`)."""
_ISO_DATE_NOTE = (
    "The pattern admits a day past its month's end (2026-02-30), which ragtriage refuses."
)
_ISO_DATE = re.compile(ISO_DATE_PATTERN)


def is_iso_date(value: object) -> bool:
    """True for a string holding a date of the calendar as `YYYY-MM-DD`, or a month or a year
    (`YYYY-MM`, `YYYY`; ISO 8601's reduced precision); not `2026-02-30`, nor the other forms
    `date.fromisoformat` reads (`20260101`, `2026-W01`)."""
    if type(value) is not str or not _ISO_DATE.fullmatch(value):
        return False
    try:
        date.fromisoformat(value + "-01-01"[len(value) - 4 :])  # a month or a year: its first day
    except ValueError:
        return False
    return True


def _iso_date(value: str) -> str:
    if not is_iso_date(value):
        raise ValueError(ISO_DATE_EXPECTED)
    return value


IsoDate = Annotated[
    str,
    AfterValidator(_iso_date),
    WithJsonSchema({"type": "string", "pattern": ISO_DATE_PATTERN, "$comment": _ISO_DATE_NOTE}),
]
"""A date as `YYYY-MM-DD`, `YYYY-MM` or `YYYY` (`is_iso_date`), kept as the string given."""

TEXT_EXPECTED = "a string that is not only whitespace"
"""What a required text expects beyond a non-empty string, as problems say it."""
TEXT_PATTERN = "\\S"
"""A required text's JSON Schema pattern: some character that is not whitespace."""


def is_text(value: object) -> bool:
    """True for a required text (a question, a claim, a canary's instruction and marker): a
    string with some character that is not whitespace, as an empty one has none."""
    return type(value) is str and value != "" and not value.isspace()


def _text(value: str) -> str:
    if not is_text(value):
        raise ValueError(TEXT_EXPECTED)
    return value


Text = Annotated[
    str,
    StringConstraints(min_length=1),
    AfterValidator(_text),
    WithJsonSchema({"type": "string", "minLength": 1, "pattern": TEXT_PATTERN}),
]
"""A required text: non-empty and not only whitespace (`is_text`)."""

SCALAR_EXPECTED = "a string, a number or a boolean"


class _OneProblem:
    """A union that refuses a value with one problem, not one per type (`metadata.a.str`,
    `metadata.a.int`, ...): pydantic-core's own union, given one error for when every type
    refuses (no Python call per value)."""

    def __get_pydantic_core_schema__(self, source: object, handler: GetCoreSchemaHandler) -> Any:
        one = {"custom_error_type": "scalar_type", "custom_error_message": SCALAR_EXPECTED}
        return {**handler(source), **one}  # the union's core schema, with that error


Scalar = Annotated[str | int | float | bool, _OneProblem()]
"""A value allowed in free-form metadata and settings maps."""


class StrictModel(BaseModel):
    """Base for every file-boundary model: strict types, unknown fields refused, immutable,
    finite numbers (as a file holds them: a model built in Python is checked the same)."""

    # The attribute docstrings describe the fields in the JSON Schema (`_json_schema`).
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, allow_inf_nan=False)


class Labeller(StrictModel):
    """Who made a label. The system under test never labels itself."""

    # The checks across files refuse a judge without a prompt version and a person with one
    # (`validation`); the JSON Schema says so.
    model_config = ConfigDict(
        json_schema_extra={
            "if": {"properties": {"kind": {"const": "judge"}}, "required": ["kind"]},
            "then": {
                "properties": {"prompt_version": {"type": "string", "minLength": 1}},
                "required": ["prompt_version"],
            },
            "else": {"properties": {"prompt_version": {"type": "null"}}},
        }
    )

    kind: Literal["human", "judge"]
    """`human` for a person, `judge` for an automatic judge (model or deterministic)."""
    name: Identifier
    """The reviewer's name or ID for a human; the judge model's name for a judge."""
    prompt_version: str | None = None
    """The judge's prompt template version; required for `judge`, absent (or `null`) for
    `human`: a label with one marked `human` is refused, as it would count as a person's."""
    endpoint_kind: str | None = None
    """For a judge: what served it (e.g. `openai-compatible`, `llama.cpp`, `lexical`)."""
    temperature: float | None = None
    """For a judge: the sampling temperature used."""
    seed: int | None = None
    """For a judge: the sampling seed used, if any."""
