"""Builders for the small in-memory datasets of the boundary tests."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ragtriage.detectors import SensitiveConfig, bundled_sensitive_config
from ragtriage.loading import Dataset, SourceFile
from ragtriage.schemas import EvalSet, Run, Snapshot

HUMAN: dict[str, Any] = {"kind": "human", "name": "reviewer"}


def doc(doc_id: str, text: str | None = None, **extra: Any) -> dict[str, Any]:
    """A snapshot document."""
    return {"id": doc_id, "text": text if text is not None else f"text of {doc_id}", **extra}


def claim(
    cites: Sequence[str],
    support: Sequence[str] = (),
    labels: Sequence[dict[str, Any]] | None = None,
    text: str = "a claim",
) -> dict[str, Any]:
    """A claim with one human label (supported when `support` is given, else unsupported)."""
    if labels is None:
        verdict = "supported" if support else "unsupported"
        labels = [{"verdict": verdict, "supported_by": list(support), "labeller": HUMAN}]
    return {"text": text, "citations": list(cites), "labels": list(labels)}


def result(
    qid: str,
    context: Sequence[str],
    *,
    candidates: Sequence[str] | None = None,
    outcome: str = "answered",
    answer: str = "an answer",
    claims: Sequence[dict[str, Any]] = (),
    texts: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A result with an explicit context (texts recorded when given)."""
    ranked = list(candidates) if candidates is not None else list(context)
    items = []
    for item in context:
        entry: dict[str, Any] = {"id": item}
        if texts is not None and item in texts:
            entry["text"] = texts[item]
        items.append(entry)
    return {
        "question_id": qid,
        "candidates": [{"id": i} for i in ranked],
        "context": items,
        "answer": answer,
        "outcome": outcome,
        "claims": list(claims),
    }


def make_dataset(
    docs: Sequence[dict[str, Any]],
    questions: Sequence[dict[str, Any]],
    runs: dict[str, Sequence[dict[str, Any]]],
    provenance: dict[str, Any] | None = None,
) -> Dataset:
    """An in-memory dataset (schema-validated models, no files)."""
    snapshot = Snapshot.model_validate({"snapshot_id": "s", "documents": list(docs)})
    evalset = EvalSet.model_validate({"evalset_id": "e", "questions": list(questions)})
    loaded = tuple(
        Run.model_validate({"name": name, "provenance": provenance or {}, "results": list(res)})
        for name, res in runs.items()
    )
    sources = (
        SourceFile("evalset.json", "evalset", ""),
        SourceFile("snapshot.json", "snapshot", ""),
    )
    return Dataset(snapshot, evalset, loaded, sources, run_files={n: f"{n}.json" for n in runs})


def agreeing(
    find: Callable[[str, Any], tuple[Any, ...]], pairs: Mapping[str, tuple[Any, Any]],
    name: Callable[[Any], str], text: str,
) -> set[str]:
    """For each version's `(rules, oracle)` pair, asserts that `find(text, rules)` (with the
    prefilter) finds what `find(text, oracle)` (the same rules searching every text) finds;
    returns `VERSION:NAME` of each finding."""
    fired = set()
    for version, (rules, oracle) in pairs.items():
        found = find(text, rules)
        assert found == find(text, oracle), (version, text)
        fired |= {f"{version}:{name(f)}" for f in found}
    return fired


def sensitive_oracles(
    versions: Sequence[str], **unset: Any
) -> dict[str, tuple[SensitiveConfig, SensitiveConfig]]:
    """Each version's bundled detectors, and the same detectors with the prefilter fields in
    `unset` given those values (the oracle: `literals=None` searches every text, `digits=0`
    texts without digits too), for `agreeing`."""
    pairs = {}
    for version in versions:
        config = bundled_sensitive_config(version)
        oracle = replace(config, detectors=tuple(replace(d) for d in config.detectors))
        for det in oracle.detectors:
            for name, value in unset.items():
                object.__setattr__(det, name, value)
        pairs[version] = (config, oracle)
    return pairs
