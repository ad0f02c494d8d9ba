"""Honest labels: the context hash, stale labels, and labels made by the model under test.

The context hash
----------------
A label is only valid for the exact context it was made against. `context_hash` is::

    "sha256:" + hex(sha256(utf8(json.dumps(
        {"context": [{"id": ID, "text": TEXT}, ...], "k": K},
        sort_keys=True, ensure_ascii=False, separators=(",", ":")))))

over the final context in order (the recorded `context`, else the top k of the final
ranking), where TEXT is the text actually sent (the context item's `text`, else the chunk's
text, else the chunk's span of its document, else the document's text; `null` for an ID the
snapshot does not know) and K is the run's cut-off (`null` when none applies). Changing
one character of a passage, the order or membership of the context, or k changes the hash.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import Problem
from ..fileio import content_hash
from ..loading import LabelPlace, SnapshotIndex
from ..schemas import ClaimLabel, FactLabel, QuestionResult, Run, claim_ids


def item_text(item_id: str, index: SnapshotIndex) -> str | None:
    """The snapshot's text for a document or chunk ID (None when unknown)."""
    chunk = index.chunks.get(item_id)
    if chunk is not None:
        if chunk.text is not None:
            return chunk.text
        doc = index.documents.get(chunk.document_id)
        return None if doc is None else doc.text[chunk.start : chunk.end]
    doc = index.documents.get(item_id)
    return None if doc is None else doc.text


def recorded_texts(context: Iterable[Mapping[str, Any]] | None) -> dict[str, str]:
    """The texts a result records for its context items, by ID, from its `context` as parsed
    JSON (None: no context recorded); an item without a text is left out."""
    return {item["id"]: item["text"] for item in context or () if item.get("text") is not None}


def _recorded(result: QuestionResult) -> dict[str, str]:
    """`recorded_texts` of a result model."""
    return {item.id: item.text for item in result.context or () if item.text is not None}


def sent_texts(
    recorded: Mapping[str, str], context: Sequence[str], index: SnapshotIndex
) -> list[tuple[str, str | None]]:
    """(ID, text) of each final-context item: its recorded text (`recorded`, by ID), else the
    snapshot's; None when neither has one (what the context hash reads)."""
    return [(i, recorded[i] if i in recorded else item_text(i, index)) for i in context]


def texts_of(
    recorded: Mapping[str, str], context: Sequence[str], index: SnapshotIndex
) -> tuple[tuple[str, str], ...]:
    """`sent_texts` with "" for an item without a text (what the detectors scan)."""
    pairs = sent_texts(recorded, context, index)
    return tuple((i, "" if text is None else text) for i, text in pairs)


def context_texts(
    result: QuestionResult, context: Sequence[str], index: SnapshotIndex
) -> tuple[tuple[str, str], ...]:
    """(ID, text) of each final-context item; the recorded text wins over the snapshot's."""
    return texts_of(_recorded(result), context, index)


def context_hash_of(items: Sequence[tuple[str, str | None]], k: int | None) -> str:
    """The context hash of (ID, text) pairs in order and a cut-off (see the module docstring)."""
    payload = {"context": [{"id": item_id, "text": text} for item_id, text in items], "k": k}
    return "sha256:" + content_hash(payload)


def context_hash(
    result: QuestionResult, context: Sequence[str], index: SnapshotIndex, k: int | None
) -> str:
    """The context hash of one result's final context (IDs as resolved for scoring)."""
    return context_hash_of(sent_texts(_recorded(result), context, index), k)


def label_context_hash(result: QuestionResult, index: SnapshotIndex, k: int | None) -> str:
    """The hash `evaluate` checks labels against: the context hash of the result's final
    context (`QuestionResult.final_context`) at its run's cut-off `k`."""
    return context_hash(result, result.final_context(k), index, k)


def is_stale(label: ClaimLabel | FactLabel | Mapping[str, Any], current_hash: str) -> bool:
    """True when the label (a model, or a label as parsed JSON) records a context hash that
    differs from the current one.

    A label without a recorded hash cannot be checked and is used as it is.
    """
    stamp = label.get("context_hash") if isinstance(label, Mapping) else label.context_hash
    return stamp is not None and stamp != current_hash


_Label = TypeVar("_Label", bound=ClaimLabel | FactLabel | Mapping[str, Any])


def fresh_labels(labels: Sequence[_Label], current_hash: str) -> list[_Label]:
    """The labels made against the current context (`is_stale`: a label without a recorded
    hash cannot be checked and counts)."""
    return [lab for lab in labels if not is_stale(lab, current_hash)]


@dataclass(frozen=True)
class SelfLabelling:
    """Labels of one run made by the run's own generator model."""

    run: str
    """Run name."""
    generator: str
    """The generator's name (equal to the labelling judge's name)."""
    claim_questions: tuple[str, ...]
    """Questions with a self-made claim label."""
    fact_questions: tuple[str, ...]
    """Questions with a self-made fact label."""
    places: Mapping[str, LabelPlace]
    """Per question above, where its first self-made label sits (a claim label before a fact
    label): the place `Dataset.label_file` names the file of."""


def _self_made(labels: Iterable[ClaimLabel | FactLabel], generator: str) -> bool:
    return any(lab.labeller.kind == "judge" and lab.labeller.name == generator for lab in labels)


def _first_self_made(res: QuestionResult, generator: str) -> tuple[str | None, int] | None:
    """(claim ID, or None for a fact label; position among its labels) of the result's first
    label made by `generator`; None when it has none."""
    claims = res.claims or []
    for cid, claim in zip(claim_ids(c.id for c in claims), claims, strict=True):
        for at, lab in enumerate(claim.labels):
            if _self_made((lab,), generator):
                return cid, at
    for at, fact in enumerate(res.fact_labels):
        if _self_made((fact,), generator):
            return None, at
    return None


def find_self_labelling(runs: Iterable[Run]) -> tuple[SelfLabelling, ...]:
    """Runs whose judge labels were made by the run's generator model (by name)."""
    out = []
    for run in runs:
        generator = run.provenance.generator
        if generator is None:
            continue
        name = generator.name
        places: dict[str, LabelPlace] = {}
        for res in run.results:
            if (first := _first_self_made(res, name)) is not None:
                places.setdefault(res.question_id, (run.name, res.question_id, *first))
        claim_q = tuple(qid for qid, place in places.items() if place[2] is not None)
        fact_q = tuple(res.question_id for res in run.results if _self_made(res.fact_labels, name))
        if places:
            out.append(SelfLabelling(run.name, name, claim_q, fact_q, places))
    return tuple(out)


def self_labelling_problems(
    found: Sequence[SelfLabelling], label_file: Callable[[LabelPlace], str]
) -> list[Problem]:
    """One problem per affected question, for refusing self-labelled input, naming the file of
    its first self-made label (`label_file`: `Dataset.label_file`, a label file's or the run's)."""
    problems = []
    for item in found:
        for qid in dict.fromkeys((*item.claim_questions, *item.fact_questions)):
            file = label_file(item.places[qid])
            field = "claims.labels" if qid in item.claim_questions else "fact_labels"
            name = repr(item.generator)
            expected = f"a judge other than the run's generator {name} (or --accept-self-labelling)"
            problems.append(Problem(file, qid, f"{field}.labeller.name", expected, name))
    return problems

