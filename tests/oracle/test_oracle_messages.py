"""A few problems pinned to the letter, reported alike on the files read by the loader and by
the file reader (JSON and JSONL)."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest

from .small import Small, both, messages


def unknown_candidate(s: Small) -> None:
    s.run["results"][0]["candidates"].append({"id": "d-1"})


def wrong_type(s: Small) -> None:
    s.evalset["questions"][1]["text"] = 3


def duplicate_result(s: Small) -> None:
    s.run["results"].append(dict(s.run["results"][1]))


def claims_in_refusal(s: Small) -> None:
    s.run["results"][1]["claims"] = [
        {"text": "z", "labels": [{"verdict": "unsupported", "labeller": {"kind": "human",
                                                                          "name": "ann"}}]}
    ]


def empty_document_id(s: Small) -> None:
    s.snapshot["documents"][1]["id"] = ""


def empty_candidate_id(s: Small) -> None:
    s.run["results"][0]["candidates"].append({"id": ""})


def nan_latency(s: Small) -> None:
    s.run["results"][0]["latency_ms"] = math.nan


NON_FINITE = [("score", math.nan, "NaN"), ("score", math.inf, "Infinity"),
              ("score", -math.inf, "-Infinity"), ("latency_ms", math.inf, "Infinity"),
              ("cost_usd", math.inf, "Infinity")]


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
@pytest.mark.parametrize(("field", "value", "written"), NON_FINITE)
def test_non_finite_numbers_are_refused_alike(
    tmp_path: Path, suffix: str, field: str, value: float, written: str
) -> None:
    small = Small.copy()
    result = small.run["results"][0]
    if field == "score":
        result["candidates"][0]["score"] = value
    else:
        result[field] = value
    loaded, read = both(small.paths(tmp_path, suffix))
    assert messages(loaded, tmp_path) == messages(read, tmp_path)
    (message,) = messages(loaded, tmp_path) or []
    assert message.startswith(f"r{suffix}: line {1 if suffix == '.json' else 2} column ")
    assert message.endswith(f": expected a finite number; found {written}")


# Schema problems of a JSONL record name its line (the header is line 1); rules across
# records (unknown IDs, duplicates, outcomes) do not.
CASES: list[tuple[Callable[[Small], None], str]] = [
    (unknown_candidate, "r{s}: question 'q1': candidates: expected IDs of documents or "
     "chunks in the snapshot; found 'd-1' (did you mean 'd1'?)"),
    (wrong_type, "e{s}: question 'q2': {line3}text: expected a valid string; found 3"),
    (duplicate_result, "r{s}: question 'q2': results: expected one result per question; "
     "found 2 results"),
    (claims_in_refusal, "r{s}: question 'q2': claims: expected no claims in a result whose "
     "outcome is refused; found 1 claim"),
    # An empty ID names no document: its place does.
    (empty_document_id, "s{s}: {place}id: expected a non-empty string; found an empty string"),
    (empty_candidate_id, "r{s}: question 'q1': {line2}candidates[1].id: expected a non-empty "
     "string; found an empty string"),
    (nan_latency, "r{s}: line {line} column {column}: expected a finite number; found NaN"),
]
AT = {".json": {"line": 1, "column": 349}, ".jsonl": {"line": 2, "column": 263}}
"""Where `nan_latency` puts its NaN (JSON problems name the line and column)."""


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
@pytest.mark.parametrize(("corrupt", "message"), CASES, ids=[c[0].__name__ for c in CASES])
def test_pinned_message(
    tmp_path: Path, suffix: str, corrupt: Callable[[Small], None], message: str
) -> None:
    small = Small.copy()
    corrupt(small)
    loaded, read = both(small.paths(tmp_path, suffix))
    jsonl = suffix == ".jsonl"
    want = message.format(s=suffix, line2="line 2: " if jsonl else "",
                          line3="line 3: " if jsonl else "",
                          place="line 3: " if jsonl else "documents[1].",
                          line=AT[suffix]["line"], column=AT[suffix]["column"])
    assert messages(loaded, tmp_path) == [want]
    assert messages(read, tmp_path) == [want]


def test_the_small_dataset_is_valid(tmp_path: Path) -> None:
    assert both(Small.copy().paths(tmp_path, ".json")) == (None, None)
