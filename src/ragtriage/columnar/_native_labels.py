"""Label files (`--labels`) for the columnar reader: read by the loader, their labels
added to a run's result records as the records are parsed.

Label files are small next to the runs, so each is read and validated by `loading.read_file`
(the same schema, default labeller and messages). The labels are added after the result's own
labels, as `load_dataset` attaches them; the fast checks then read them like inline labels.
A label file with any problem, for a run not given, for a question the run did not answer or
for a claim the answer does not have raises `_Fallback`: the loader then reports
every problem with its usual message.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ProblemCollector
from ..loading import SourceFile, read_file
from ..schemas import LabelSet, claim_ids
from ..validation import labeller_problems
from ._trec import _Fallback

Added = dict[str, tuple[dict[str, list[dict[str, Any]]], list[dict[str, Any]]]]
"""One run's labels from label files, by question ID: (claim labels by claim ID, fact labels)."""


def read_labels(paths: Sequence[Path]) -> tuple[dict[str, Added], tuple[SourceFile, ...]]:
    """The labels of label files by run name, and the files read (in order)."""
    collector = ProblemCollector()
    by_run: dict[str, Added] = {}
    sources = []
    for path in paths:
        loaded = read_file(path, collector)
        sources.append(loaded.source)
        labels = loaded.content
        if not isinstance(labels, LabelSet):
            raise _Fallback("labels file")
        if labels.labeller is not None and labeller_problems(labels.labeller):
            raise _Fallback("labeller")  # used or not: the loader says where
        added = by_run.setdefault(labels.run, {})
        for claim in labels.claim_labels:
            claims = added.setdefault(claim.question_id, ({}, []))[0]
            claims.setdefault(claim.claim_id, []).append(_plain(claim.label))
        for fact in labels.fact_labels:
            added.setdefault(fact.question_id, ({}, []))[1].append(_plain(fact.label))
    if collector.problems:
        raise _Fallback("labels file")
    return by_run, tuple(sources)


def _plain(label: Any) -> dict[str, Any]:
    """A validated label as a record's label is written (absent fields left out)."""
    out: dict[str, Any] = label.model_dump(mode="json", exclude_none=True)
    return out


def with_labels(result: dict[str, Any], added: Added) -> dict[str, Any]:
    """A result record with the labels of label files after its own; `_Fallback` for a claim
    label of a claim the answer does not have."""
    found = added.get(result["question_id"])
    if found is None:
        return result
    claim_labels, fact_labels = found
    claims = result.get("claims")
    ids = claim_ids(c.get("id") for c in claims or [])
    if not claim_labels.keys() <= set(ids):
        raise _Fallback("claim_labels.claim_id")
    out = dict(result)
    if claims is not None:
        out["claims"] = [
            {**c, "labels": [*c.get("labels", []), *claim_labels.get(i, [])]}
            for c, i in zip(claims, ids, strict=True)
        ]
    out["fact_labels"] = [*result.get("fact_labels", []), *fact_labels]
    return out


def check_answered(added: Mapping[str, Added], runs: Collection[str],
                   answered: Mapping[str, Collection[str]]) -> None:
    """`_Fallback` unless every label file names a run given and questions it answered."""
    for run, labels in added.items():
        if run not in runs or not labels.keys() <= set(answered[run]):
            raise _Fallback("labels for no result")
