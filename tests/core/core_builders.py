"""Small builders for hand-made datasets in the core tests (dicts in, files or models out)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dataset_builders import (
    HUMAN as HUMAN,
    JUDGE as JUDGE,
    make_dataset as make_dataset,
    question as question,
)
from ragtriage.columnar import evaluate
from ragtriage.evaluation import Evaluation


def doc(doc_id: str, text: str = "text", **extra: Any) -> dict[str, Any]:
    """A snapshot document."""
    return {"id": doc_id, "text": text, **extra}


def claim(
    text: str,
    cites: Sequence[str] = (),
    verdict: str | None = "supported",
    support: Sequence[str] = (),
    labeller: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A claim with one label (none when `verdict` is None)."""
    labels = []
    if verdict is not None:
        labels.append(
            {"verdict": verdict, "supported_by": list(support), "labeller": labeller or HUMAN}
        )
    return {"text": text, "citations": list(cites), "labels": labels, **extra}


def result(
    qid: str,
    candidates: Sequence[str] = (),
    *,
    context: Sequence[str] | None = None,
    reranked: Sequence[str] | None = None,
    outcome: str | None = "answered",
    answer: str | None = "an answer",
    claims: Sequence[dict[str, Any]] | None = None,
    covered: Sequence[str] = (),
    not_covered: Sequence[str] = (),
    **extra: Any,
) -> dict[str, Any]:
    """A question result; fact labels from `covered` / `not_covered`."""
    out: dict[str, Any] = {
        "question_id": qid,
        "candidates": [{"id": i} for i in candidates],
        "answer": answer if outcome is not None else None,
        "outcome": outcome,
        "claims": list(claims) if claims is not None else ([] if outcome != "answered" else None),
        "fact_labels": [
            {"fact_id": f, "verdict": "covered", "labeller": HUMAN} for f in covered
        ]
        + [{"fact_id": f, "verdict": "not_covered", "labeller": HUMAN} for f in not_covered],
        **extra,
    }
    if context is not None:
        out["context"] = [{"id": i} for i in context]
    if reranked is not None:
        out["reranked"] = [{"id": i} for i in reranked]
    return out


def snapshot_doc(docs: Sequence[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """A snapshot file's content."""
    return {"schema_version": 1, "kind": "snapshot", "snapshot_id": "s", "documents": list(docs), **extra}


def evalset_doc(questions: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """An evaluation set file's content."""
    return {"schema_version": 1, "kind": "evalset", "evalset_id": "e", "questions": list(questions)}


def run_doc(name: str, results: Sequence[dict[str, Any]], k: int | None = None) -> dict[str, Any]:
    """A run file's content."""
    provenance: dict[str, Any] = {} if k is None else {"k": k}
    return {"schema_version": 1, "kind": "run", "name": name, "provenance": provenance, "results": list(results)}


def evaluate_one(
    docs: Sequence[dict[str, Any]],
    questions: Sequence[dict[str, Any]],
    results: Sequence[dict[str, Any]],
    k: int | None = None,
    **options: Any,
) -> Evaluation:
    """Evaluate a single run called `run` over hand-built data."""
    return evaluate(make_dataset(docs, questions, {"run": results}), k=k, **options)


def write_json(path: Path, data: Any) -> Path:
    """Write JSON (UTF-8) and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def write_files(
    tmp: Path,
    docs: Sequence[dict[str, Any]],
    questions: Sequence[dict[str, Any]],
    runs: dict[str, Sequence[dict[str, Any]]],
) -> list[str]:
    """Write snapshot, evaluation set and runs; return `evaluate` CLI arguments for them."""
    write_json(tmp / "snapshot.json", snapshot_doc(docs))
    write_json(tmp / "evalset.json", evalset_doc(questions))
    args = [str(tmp / "evalset.json"), "--snapshot", str(tmp / "snapshot.json")]
    for name, results in runs.items():
        write_json(tmp / f"{name}.json", run_doc(name, results))
        args += ["--run", str(tmp / f"{name}.json")]
    return args
