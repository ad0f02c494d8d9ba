"""Builders shared by the test folders: labellers, questions and in-memory datasets."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ragtriage.loading import Dataset, SourceFile
from ragtriage.schemas import EvalSet, Run, Snapshot

HUMAN: dict[str, Any] = {"kind": "human", "name": "tester"}
JUDGE: dict[str, Any] = {"kind": "judge", "name": "judge-model", "prompt_version": "p1"}


def question(
    qid: str,
    answerability: str = "answerable",
    evidence: Sequence[Sequence[str]] = (),
    facts: Sequence[str] = (),
    **extra: Any,
) -> dict[str, Any]:
    """An evaluation question; `evidence` is a list of groups of alternatives."""
    return {
        "id": qid,
        "text": f"question {qid}?",
        "answerability": answerability,
        "required_evidence": [{"any_of": list(group)} for group in evidence],
        "reference_facts": [{"id": fact} for fact in facts],
        **extra,
    }


def make_dataset(
    docs: Sequence[dict[str, Any]],
    questions: Sequence[dict[str, Any]],
    runs: dict[str, Sequence[dict[str, Any]]],
    k: int | None = None,
    chunks: Sequence[dict[str, Any]] = (),
) -> Dataset:
    """An in-memory dataset (schema-validated models, no files)."""
    snapshot = Snapshot.model_validate(
        {"snapshot_id": "s", "documents": list(docs), "chunks": list(chunks)}
    )
    evalset = EvalSet.model_validate({"evalset_id": "e", "questions": list(questions)})
    provenance: dict[str, Any] = {} if k is None else {"k": k}
    loaded = tuple(
        Run.model_validate({"name": name, "provenance": provenance, "results": list(res)})
        for name, res in runs.items()
    )
    sources = (
        SourceFile("evalset.json", "evalset", ""),
        SourceFile("snapshot.json", "snapshot", ""),
    )
    return Dataset(snapshot, evalset, loaded, sources, run_files={n: f"{n}.json" for n in runs})


def askable(snapshot: dict[str, Any], questions: list[dict[str, Any]]) -> None:
    """Ask without a user an answerable question with an evidence group its asker may read
    none of, and bind to no version a question bound to one no document has (input errors)."""
    versions = {d.get("version") for d in snapshot["documents"]} - {None}
    for q in questions:
        if (q.get("applies_to") or {}).get("version") not in (None, *versions):
            del q["applies_to"]["version"]
    groups = {d["id"]: d.get("access_groups") for d in snapshot["documents"]}
    groups.update({c["id"]: groups.get(c["document_id"]) for c in snapshot.get("chunks", [])})
    for q in questions:
        users = set(q.get("user_groups") or ())
        if "user_groups" in q and q["answerability"] == "answerable" and any(
            all(groups.get(i) is not None and not users & set(groups[i]) for i in g["any_of"])
            for g in q["required_evidence"]
        ):
            del q["user_groups"]


def first_label_each(labels: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`labels` (a claim's, or a result's fact labels) without a labeller's second label of an
    item, which a run refuses as a label file does; left out after the draws, so that the rest
    of a generated run is as drawn."""
    seen: set[tuple[Any, str]] = set()
    out = []
    for label in labels:
        key = (label.get("fact_id"), json.dumps(label["labeller"], sort_keys=True))
        if key not in seen:
            seen.add(key)
            out.append(label)
    return out
