"""Semantic checks of the snapshot and the evaluation set."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..errors import Suggestions, counted
from ..loading import Dataset, SnapshotIndex
from ..schemas import Snapshot
from ._checker import Checker, check_repeats, dupes, repeats

SUPERSESSION_LOOP = "no loop of supersession (a document cannot replace one that replaces it)"
"""The `expected` text of a loop of `supersedes` (in a snapshot or a versions file)."""


def supersession_loops(superseded_by: Mapping[str, Sequence[str]]) -> list[tuple[str, ...]]:
    """The loops of `supersedes` (A replaces B, B replaces A), each as the path from a document
    back to itself along `supersedes`; given, for each replaced document, the documents that
    replace it (`SnapshotIndex.superseded_by`: only they can be on a loop).

    A document naming itself is a problem of its own, not a loop here.
    """
    # only a document both replaced and replacing can be on a loop: in the common case (no
    # loop) most are left out by two set operations, before any walk
    both = {n for newer in superseded_by.values() for n in newer}.intersection(superseded_by)
    done: set[str] = set()
    loops: list[tuple[str, ...]] = []
    for root, first in superseded_by.items():
        if root not in both or root in done or both.isdisjoint(first):
            continue
        # depth first without recursion: a version history can be as long as the snapshot
        path, on_path, pending = [root], {root}, [iter(first)]
        while pending:
            newer = next(pending[-1], None)
            if newer is None:
                on_path.discard(path[-1])
                done.add(path.pop())
                pending.pop()
            elif newer == path[-1] or newer in done:
                continue
            elif newer in on_path:
                # walked from older to newer: read backwards, each ID replaces the next
                loops.append((newer, *reversed(path[path.index(newer) :])))
            elif newer in both:
                path.append(newer)
                on_path.add(newer)
                pending.append(iter(superseded_by[newer]))
    return loops


_READABLE = (
    "an alternative the asker (user_groups: {}) may read, as the question is answerable "
    "(else mark it unanswerable: the system should refuse this asker)"
)


def _readers(item: str, index: SnapshotIndex) -> str:
    """Who may read an item, as a problem names it."""
    doc = index.document(item)
    groups = doc.access_groups if doc else None
    return f"readable by {', '.join(groups) if groups else 'no group'}"


def _source_file(ds: Dataset, kind: str) -> str:
    """The file the dataset's `kind` (snapshot, evalset) was read from: its own, or the
    article-format file holding it (else the first file read)."""
    return next((s.path for s in ds.sources if s.kind in (kind, "article")), ds.sources[0].path)


def check_snapshot(c: Checker, index: SnapshotIndex) -> None:
    file = _source_file(c.ds, "snapshot")
    for field, expected, found in snapshot_problems(c.ds.snapshot, index):
        c.add(file, None, field, expected, found)  # a snapshot's problems name no question


def snapshot_problems(snapshot: Snapshot, index: SnapshotIndex) -> list[tuple[str, str, str]]:
    """`(field, expected, found)` for everything wrong across a snapshot's documents and chunks
    (`index`: `SnapshotIndex.build(snapshot)`): repeated IDs, chunks outside their document,
    `supersedes` naming no other document, loops of supersession, an access group twice. One
    rule for the loader and `recording.write_snapshot`."""
    out: list[tuple[str, str, str]] = []

    def add(field: str, expected: str, found: str) -> None:
        out.append((field, expected, found))

    for dup in dupes(d.id for d in snapshot.documents):
        add(f"documents[id={dup}]", "unique document IDs", f"{dup!r} more than once")
    for dup in dupes(ch.id for ch in snapshot.chunks):
        add(f"chunks[id={dup}]", "unique chunk IDs", f"{dup!r} more than once")
    document_ids = Suggestions(index.documents.keys())
    for chunk in snapshot.chunks:
        where = f"chunks[id={chunk.id}]"
        if chunk.id in index.documents:
            add(f"{where}.id", "a chunk ID distinct from every document ID", repr(chunk.id))
        doc = index.documents.get(chunk.document_id)
        if doc is None:
            found = repr(chunk.document_id) + document_ids(chunk.document_id)
            add(f"{where}.document_id", "the ID of a document in the snapshot", found)
            continue
        if not chunk.start < chunk.end <= len(doc.text):
            expected = f"0 <= start < end <= {len(doc.text)} (the document's length)"
            add(f"{where}.start/end", expected, f"start {chunk.start}, end {chunk.end}")
        elif chunk.text is not None and doc.text[chunk.start : chunk.end] != chunk.text:
            add(f"{where}.text", "the document's text over [start, end)", "different text")
    for doc in snapshot.documents:
        for old in doc.supersedes:
            if old == doc.id or old not in index.documents:
                expected = "IDs of other documents in the snapshot"
                found = repr(old) + ("" if old in index.documents else document_ids(old))
                add(f"documents[id={doc.id}].supersedes", expected, found)
        for expected, found in repeats(doc.supersedes):
            add(f"documents[id={doc.id}].supersedes", expected, found)
        for expected, found in repeats(doc.access_groups or ()):
            add(f"documents[id={doc.id}].access_groups", expected, found)
    for loop in supersession_loops(index.superseded_by):
        add(f"documents[id={loop[0]}].supersedes", SUPERSESSION_LOOP, " -> ".join(loop))
    return out


def check_evalset(c: Checker, index: SnapshotIndex) -> None:
    ds, file = c.ds, _source_file(c.ds, "evalset")
    versions = sorted({d.version for d in index.documents.values() if d.version is not None})
    check_repeats(c.add, file, (q.id for q in ds.evalset.questions), results=False)
    for q in ds.evalset.questions:
        for expected, found in repeats(q.user_groups or ()):
            c.add(file, q.id, "user_groups", expected, found)
        expected = "unique fact IDs within the question"
        c.repeated(file, q.id, "reference_facts.id", expected, (f.id for f in q.reference_facts))
        for gi, group in enumerate(q.required_evidence):
            where = f"required_evidence[{gi}]"
            c.repeated(file, q.id, f"{where}.any_of", "no repeated ID within a group", group.any_of)
            c.unknown_ids(file, q.id, where, group.any_of, index)
            shut = [i for i in group.any_of if not index.may_read(i, q.user_groups)]
            if q.answerability == "answerable" and len(shut) == len(group.any_of):
                # every alternative is one the system must not show this asker: the set
                # expects an answer a permission-respecting system has to refuse
                c.add(file, q.id, where, _READABLE.format(", ".join(q.user_groups or ()) or
                      "none"), "; ".join(f"{i!r} {_readers(i, index)}" for i in shut))
        if ds.article:
            ids = (i for g in q.required_evidence for i in g.any_of)
            c.repeated(file, q.id, "required_evidence", "no repeated ID", ids)
        for fact in q.reference_facts:
            field = f"reference_facts[id={fact.id}].evidence"
            c.unknown_ids(file, q.id, field, fact.evidence, index)
        if q.canary is not None:
            c.unknown_ids(file, q.id, "canary.document_id", (q.canary.document_id,), index)
            doc = index.document(q.canary.document_id)
            if doc is not None and q.canary.instruction not in doc.text:
                expected = f"text its document {doc.id!r} holds (the instruction as planted)"
                c.add(file, q.id, "canary.instruction", expected, repr(q.canary.instruction))
        wanted = None if q.applies_to is None else q.applies_to.version
        if wanted is not None and wanted not in versions:
            # no document of the version asked for: the question could never pass
            expected = f"a version some document has ({', '.join(versions) or 'none has one'})"
            c.add(file, q.id, "applies_to.version", expected, repr(wanted))
        if q.answerability == "unanswerable" and (q.required_evidence or q.reference_facts):
            expected = "no required evidence and no reference facts for an unanswerable question"
            groups = counted(len(q.required_evidence), "evidence group")
            found = f"{groups}, {counted(len(q.reference_facts), 'reference fact')}"
            c.add(file, q.id, "answerability", expected, found)
        if q.answerability == "answerable" and not q.required_evidence:
            expected = "required evidence for an answerable question"
            c.add(file, q.id, "answerability", expected, "none")
        if ds.article and q.answerability == "answerable" and not q.reference_facts:
            c.add(file, q.id, "answerability", "reference facts for an answerable question", "none")
