"""The three record formats ragtriage imports, as field names: Ragas-style records, the seed
article's sample record and DeepEval test cases (as ragas 0.4.3 and deepeval 4.3.1 write
them), and how each writes a list inside one string."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from contextlib import suppress
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import ProblemCollector, found_text

RecordFormat = Literal["ragas", "seed", "deepeval"]

SOURCED = re.compile(r"^deepeval_source=(?P<source>.*?),deepeval_context=(?P<context>.*)$")
"""How DeepEval writes a retrieved context with its source (`RetrievedContextData`) in every
file, and how its own readers take it apart (the same pattern)."""


@dataclass(frozen=True)
class Dialect:
    """Field names of one record format."""

    question: tuple[str, ...]
    """Keys that may hold the question (one of them must)."""
    contexts: str
    """The retrieved context texts, in rank order."""
    context_ids: str | None
    """Their IDs (same length), if the format has them."""
    response: str
    """The system's answer."""
    reference: str
    """The reference answer."""
    reference_ids: str | None
    """IDs of the contexts a correct answer needs, if the format has them."""
    reference_texts: str | None
    """Texts of the contexts a correct answer needs, if the format has them."""
    optional: frozenset[str]
    """Other keys accepted (and ignored)."""
    ids_required: bool
    """Whether `context_ids` and `reference_ids` must be given (the seed record: yes)."""
    list_text: Literal["pipe", "python-csv"] | None = None
    """How the format writes a list as one string: `pipe` (DeepEval joins items with `|`,
    in JSONL and CSV), `python-csv` (Ragas' CSV holds Python list literals), or never."""
    null_is_absent: bool = True
    """Whether a null field counts as absent (the seed record's fields are typed: no)."""


DIALECTS: dict[RecordFormat, Dialect] = {
    "ragas": Dialect(
        ("user_input", "question"),
        "retrieved_contexts",
        "retrieved_context_ids",
        "response",
        "reference",
        "reference_context_ids",
        "reference_contexts",
        frozenset(
            {
                "id",
                "multi_responses",
                "rubrics",
                "persona_name",
                "query_style",
                "query_length",
                "synthesizer_name",
            }
        ),
        False,
        "python-csv",
    ),
    "seed": Dialect(
        ("question",),
        "retrieved_contexts",
        "retrieved_context_ids",
        "response",
        "reference",
        "reference_context_ids",
        None,
        frozenset({"id"}),
        True,
        None,
        False,
    ),
    "deepeval": Dialect(
        ("input",),
        "retrieval_context",
        None,
        "actual_output",
        "expected_output",
        None,
        "context",
        frozenset(
            {
                "id",
                "additional_metadata",
                "comments",
                "completion_time",
                "custom_column_key_values",
                "expectations",
                "expected_labels",
                "expected_tools",
                "flaky",
                "images_mapping",
                "input_token_count",
                "mcp_prompts_called",
                "mcp_resources_called",
                "mcp_servers",
                "mcp_tools_called",
                "metadata",
                "multimodal",
                "name",
                "output_token_count",
                "source_file",
                "tags",
                "token_cost",
                "tools_called",
            }
        ),
        False,
        "pipe",
    ),
}


def list_fields(dialect: Dialect) -> list[str]:
    """The fields of the dialect that hold a list (of context texts or IDs)."""
    keys = (dialect.contexts, dialect.context_ids, dialect.reference_ids, dialect.reference_texts)
    return [k for k in keys if k]


def conversation(fmt: RecordFormat, record: dict[str, Any], csv_file: bool) -> str | None:
    """The `found` text refusing `record` (nulls dropped) as a conversation, which no native
    question is: a Ragas multi-turn sample, a DeepEval conversational golden or test case;
    None for a single-turn record."""
    if fmt == "deepeval" and (keys := [k for k in ("scenario", "turns") if k in record]):
        return (
            f"a conversational golden or test case (with {' and '.join(keys)}): conversational "
            "goldens and test cases are not supported"
        )
    asked = record.get("user_input") if fmt == "ragas" else None
    if csv_file and isinstance(asked, str) and asked.startswith("[{"):
        with suppress(ValueError, SyntaxError):  # Ragas' CSV writes the messages' list literal
            asked = ast.literal_eval(asked)
    if not isinstance(asked, list):
        return None
    return (
        "a multi-turn sample (user_input is a list of messages): multi-turn samples are not "
        "supported"
    )


def normalise(
    dialect: Dialect,
    record: dict[str, Any],
    csv_file: bool,
    where: str,
    label: str,
    collector: ProblemCollector,
) -> dict[str, Any] | None:
    """The record as the format means it: nulls and empty CSV cells dropped, lists written as
    strings split (DeepEval's CSV reader reads a column's empty cell as an empty list).

    None when a list cell could not be read (reported here; the record is refused, so its
    other fields are checked once that cell is fixed)."""
    readable = True
    out = {
        k: v
        for k, v in record.items()
        if (v is not None or not dialect.null_is_absent) and not (csv_file and v == "")
    }
    if csv_file and dialect.list_text == "pipe":
        out |= {k: [] for k in list_fields(dialect) if record.get(k) == ""}
    for key in list_fields(dialect):
        value = out.get(key)
        if not isinstance(value, str):
            continue
        if dialect.list_text == "pipe":
            # DeepEval's own reader: "" is an empty list, anything else splits on "|".
            out[key] = value.split("|") if value else []
        elif dialect.list_text == "python-csv" and csv_file:
            parsed, joined = _list_literal(value)
            if parsed is not None and not joined:
                out[key] = parsed
            else:
                qid = out.get("id") if isinstance(out.get("id"), str) else None
                expected = "a list of strings written as a Python list literal (Ragas' CSV)"
                found = found_text(value) + (_JOINED if joined else "")
                collector.add(label, qid, f"{where}.{key}", expected, found)
                readable = False
    return out if readable else None


_JOINED = (
    " (strings side by side without a comma, as NumPy prints an array: Python would join them"
    " into one)"
)


def _list_literal(text: str) -> tuple[list[str] | None, bool]:
    """The strings of a Python list literal (None for anything else), and whether two of them
    are written side by side, which Python joins into one (NumPy prints `['a' 'b']`)."""
    try:
        parsed = ast.literal_eval(text)
        tokens = tokenize.generate_tokens(io.StringIO(text).readline)
        written = sum(token.type == tokenize.STRING for token in tokens)
    except (ValueError, SyntaxError, tokenize.TokenError):
        return None, False
    if not isinstance(parsed, list) or not all(isinstance(v, str) for v in parsed):
        return None, False
    return parsed, written != len(parsed)
