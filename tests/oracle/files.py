"""Reading native files as plain data (docs/data-format.md), defaults filled in by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

LIST_OF = {"snapshot": "documents", "evalset": "questions", "run": "results"}
"""The list a JSON file of each kind holds its records in (labels hold two)."""


def read(path: Path) -> dict[str, Any]:
    """A native file as one object; a JSONL file's records are put back into their lists.

    JSONL: the first line is the header, then one record per line (blank lines skipped). A
    snapshot record with `document_id` is a chunk; a labels record with `claim_id` is a claim
    label, any other a fact label.
    """
    text = path.read_text("utf-8")
    if path.suffix != ".jsonl":
        data: dict[str, Any] = json.loads(text)
        return data
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    head: dict[str, Any] = lines[0]
    records = lines[1:]
    kind = head["kind"]
    if kind == "snapshot":
        head["documents"] = [r for r in records if "document_id" not in r]
        head["chunks"] = [r for r in records if "document_id" in r]
    elif kind == "labels":
        head["claim_labels"] = [r for r in records if "claim_id" in r]
        head["fact_labels"] = [r for r in records if "claim_id" not in r]
    else:
        head[LIST_OF[kind]] = records
    return head


def claim_id(claim: dict[str, Any], position: int) -> str:
    """A claim's ID: its own, else `c1`, `c2`, ... by position (1-based)."""
    given: str | None = claim.get("id")
    return given if given is not None else f"c{position}"


def attach_labels(run: dict[str, Any], labels: dict[str, Any]) -> None:
    """Append a labels file's labels to the run's claims and fact labels (in place).

    A label without `labeller` takes the file's `labeller`. Labels come after the run's own.
    """
    default = labels.get("labeller")
    results = {res["question_id"]: res for res in run["results"]}
    for entry in labels.get("claim_labels", []):
        label = {"labeller": default, **entry["label"]}
        claims = results[entry["question_id"]].get("claims") or []
        for position, claim in enumerate(claims, start=1):
            if claim_id(claim, position) == entry["claim_id"]:
                claim.setdefault("labels", []).append(label)
    for entry in labels.get("fact_labels", []):
        label = {"labeller": default, **entry["label"]}
        results[entry["question_id"]].setdefault("fact_labels", []).append(label)


def load(
    evalset: Path, snapshot: Path, runs: list[Path], labels: list[Path]
) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """(snapshot, evaluation set, runs with their label files attached)."""
    loaded_runs = [read(path) for path in runs]
    by_name = {run["name"]: run for run in loaded_runs}
    for path in labels:
        label_set = read(path)
        attach_labels(by_name[label_set["run"]], label_set)
    return read(snapshot), read(evalset), loaded_runs
