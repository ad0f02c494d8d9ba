"""One question and one run's result, resolved once: context, ranking and the counted labels."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from .files import claim_id


@dataclass(frozen=True)
class Detectors:
    """What the oracle counts as instruction-like or sensitive text: planted substrings."""

    instructions: tuple[str, ...] = ()
    """Texts holding one of these are instruction-like (`injection_in_context`)."""
    sensitive: tuple[str, ...] = ()
    """Texts holding one of these hold a sensitive value (`sensitive_in_*`)."""


class Snapshot:
    """Look-ups over a snapshot: documents, chunks, which document an ID belongs to."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.documents = {d["id"]: d for d in data["documents"]}
        self.chunks = {c["id"]: c for c in data.get("chunks", [])}
        self.replaced = {old for d in data["documents"] for old in d.get("supersedes", [])}

    def document_of(self, item: str) -> str:
        """A chunk's document ID; any other ID is its own document."""
        chunk = self.chunks.get(item)
        return chunk["document_id"] if chunk is not None else item

    def document(self, item: str) -> dict[str, Any] | None:
        """The document an ID belongs to, None when the snapshot does not know it."""
        return self.documents.get(self.document_of(item))

    def is_stale(self, item: str) -> bool:
        """The item's document has status `superseded` or `withdrawn`; without a status, it
        is superseded when another document supersedes it."""
        doc = self.document(item)
        if doc is None:
            return False
        return doc.get("status", "superseded" if doc["id"] in self.replaced else "current") \
            != "current"

    def may_read(self, item: str, user_groups: list[str] | None) -> bool:
        """A user may read a document with no `access_groups`, or sharing one of them."""
        doc = self.document(item)
        if doc is None or doc.get("access_groups") is None or user_groups is None:
            return True
        return bool(set(doc["access_groups"]) & set(user_groups))

    def text(self, item: str) -> str | None:
        """A chunk's text (stored, else its span of the document), a document's text."""
        chunk = self.chunks.get(item)
        if chunk is not None:
            if chunk.get("text") is not None:
                return str(chunk["text"])
            doc = self.documents.get(chunk["document_id"])
            return None if doc is None else doc["text"][chunk["start"] : chunk["end"]]
        doc = self.documents.get(item)
        return None if doc is None else str(doc["text"])

    def matches(self, required: str, item: str, level: str) -> bool:
        """Whether a retrieved item satisfies one required ID at an evidence level.

        document: same document; chunk: same ID; span: a chunk overlapping a required chunk
        of the same document (a document ID stands for the whole document).
        """
        if level == "document":
            return self.document_of(item) == self.document_of(required)
        if level == "chunk":
            return item == required
        want, got = self.chunks.get(required), self.chunks.get(item)
        if want is None:
            return self.document_of(item) == required
        if got is None:
            return bool(item == want["document_id"])
        return bool(
            want["document_id"] == got["document_id"]
            and got["start"] < want["end"]
            and want["start"] < got["end"]
        )


@dataclass(frozen=True)
class Claim:
    """A claim and the verdict that counts under the label policy."""

    claim_id: str
    citations: tuple[str, ...]
    state: str
    """`supported`, `unsupported`, `cannot_judge` (also: the counted labels disagree) or
    `unlabelled`."""
    supported_by: tuple[str, ...]
    labelled_by: str | None = None
    """The labeller kind of the first counted label (None: none counts)."""
    labellers: tuple[str, ...] = ()
    """The names of the counted labels' labellers, first seen first."""
    judges: tuple[dict[str, Any], ...] = ()
    """The labellers of its fresh judge labels, counted or not, in order."""
    stale: bool = False
    """Some label was made against another context."""


@dataclass(frozen=True)
class Fact:
    """A reference fact and the coverage verdict that counts."""

    fact_id: str
    state: str
    """`covered`, `not_covered`, `cannot_judge` (also: disagreement) or `unlabelled`."""
    labelled_by: str | None = None
    judges: tuple[dict[str, Any], ...] = ()
    stale: bool = False


@dataclass(frozen=True)
class View:
    """Everything a measure or a stage reads about one question of one run."""

    question: dict[str, Any]
    result: dict[str, Any]
    snapshot: Snapshot
    level: str
    k: int | None
    candidates: tuple[str, ...]
    reranked: tuple[str, ...] | None
    context: tuple[str, ...]
    context_derived: bool
    claims: tuple[Claim, ...] | None
    facts: tuple[Fact, ...]
    detectors: Detectors = field(default_factory=Detectors)

    @property
    def answerability(self) -> str:
        return str(self.question["answerability"])

    @property
    def outcome(self) -> str | None:
        return self.result.get("outcome")

    @property
    def answer(self) -> str | None:
        return self.result.get("answer")

    @property
    def groups(self) -> list[dict[str, Any]]:
        """The required evidence groups."""
        return list(self.question.get("required_evidence", []))

    @property
    def ranking(self) -> tuple[str, ...]:
        """The final ranking: the reranked list when reranking ran, else the candidates."""
        return self.reranked if self.reranked is not None else self.candidates

    def satisfies(self, group: dict[str, Any], item: str) -> bool:
        """Whether `item` satisfies a required group (any alternative matches)."""
        return any(self.snapshot.matches(req, item, self.level) for req in group["any_of"])

    def first_match(self, group: dict[str, Any], items: tuple[str, ...]) -> int | None:
        """Position of the first item satisfying the group, None when none does."""
        for position, item in enumerate(items):
            if self.satisfies(group, item):
                return position
        return None

    def groups_found(self, items: tuple[str, ...]) -> int:
        """How many required groups some item satisfies."""
        return sum(self.first_match(g, items) is not None for g in self.groups)

    def context_texts(self) -> list[str]:
        """The text of each context item: the recorded text, else the snapshot's, else ''."""
        recorded = {i["id"]: i["text"] for i in self.result.get("context") or []
                    if i.get("text") is not None}
        texts = []
        for item in self.context:
            text = recorded.get(item)
            if text is None:
                text = self.snapshot.text(item)
            texts.append(text if text is not None else "")
        return texts


def evidence_level(question: dict[str, Any], snapshot: Snapshot, choice: str) -> str:
    """`auto`: document when every required ID is a document ID, else chunk."""
    if choice != "auto":
        return choice
    ids = [i for g in question.get("required_evidence", []) for i in g["any_of"]]
    return "document" if all(i in snapshot.documents for i in ids) else "chunk"


def context_hash(
    result: dict[str, Any], context: tuple[str, ...], snapshot: Snapshot, k: int | None
) -> str:
    """sha256 of the final context's (ID, text) in order and k (labels_trust's definition)."""
    recorded = {i["id"]: i["text"] for i in result.get("context") or []
                if i.get("text") is not None}
    items = [{"id": i, "text": recorded[i] if i in recorded else snapshot.text(i)}
             for i in context]
    payload = json.dumps({"context": items, "k": k}, sort_keys=True, ensure_ascii=False,
                         separators=(",", ":"))
    return "sha256:" + hashlib.sha256(payload.encode("utf-8")).hexdigest()


def counted(labels: list[dict[str, Any]], policy: str, current: str) -> list[dict[str, Any]]:
    """The labels that count: fresh ones (no hash, or the current context's hash), then by
    policy: `human` only humans, `judge` only judges, `human-first` humans if any else judges."""
    fresh = [lab for lab in labels if lab.get("context_hash") in (None, current)]
    humans = [lab for lab in fresh if lab["labeller"]["kind"] == "human"]
    judges = [lab for lab in fresh if lab["labeller"]["kind"] == "judge"]
    if policy == "human":
        return humans
    if policy == "judge":
        return judges
    return humans or judges


def _who(
    labels: list[dict[str, Any]], policy: str, current: str
) -> dict[str, Any]:
    """What a claim's or fact's labels say of who labelled it: the kind and names of the
    counted labels' labellers, the judges among its fresh labels, whether any is stale."""
    chosen = counted(labels, policy, current)
    fresh = [lab for lab in labels if lab.get("context_hash") in (None, current)]
    return {
        "labelled_by": chosen[0]["labeller"]["kind"] if chosen else None,
        "judges": tuple(lab["labeller"] for lab in fresh if lab["labeller"]["kind"] == "judge"),
        "stale": len(fresh) < len(labels),
    }


def verdict(labels: list[dict[str, Any]]) -> str:
    """The one verdict of the counted labels; `cannot_judge` when they disagree."""
    verdicts = {lab["verdict"] for lab in labels}
    if not verdicts:
        return "unlabelled"
    return verdicts.pop() if len(verdicts) == 1 else "cannot_judge"


def build_view(
    question: dict[str, Any], result: dict[str, Any], snapshot: Snapshot, k: int | None,
    policy: str, level: str, detectors: Detectors,
) -> View:
    """Resolve one question's result: the context is the recorded one, else ranking[:k]."""
    candidates = tuple(i["id"] for i in result.get("candidates", []))
    reranked = None
    if result.get("reranked") is not None:
        reranked = tuple(i["id"] for i in result["reranked"])
    ranking = reranked if reranked is not None else candidates
    if result.get("context") is not None:
        context, derived = tuple(i["id"] for i in result["context"]), False
    else:
        context, derived = ranking[:k] if k is not None else ranking, True
    current = context_hash(result, context, snapshot, k)
    claims = None
    if result.get("claims") is not None:
        claims = []
        for position, claim in enumerate(result["claims"], start=1):
            chosen = counted(claim.get("labels", []), policy, current)
            state = verdict(chosen)
            support: tuple[str, ...] = ()
            if state in ("supported", "unsupported"):
                support = tuple(dict.fromkeys(
                    i for lab in chosen for i in lab.get("supported_by", [])))
            names = tuple(dict.fromkeys(lab["labeller"]["name"] for lab in chosen))
            claims.append(Claim(claim_id(claim, position), tuple(claim.get("citations", [])),
                                state, support, labellers=names,
                                **_who(claim.get("labels", []), policy, current)))
    facts = []
    for fact in question.get("reference_facts", []):
        mine = [lab for lab in result.get("fact_labels", []) if lab["fact_id"] == fact["id"]]
        facts.append(Fact(fact["id"], verdict(counted(mine, policy, current)),
                          **_who(mine, policy, current)))
    return View(question, result, snapshot, level, k, candidates, reranked, context, derived,
                None if claims is None else tuple(claims), tuple(facts), detectors)
