"""Writing a user's documents as a snapshot file, validated, streamed for JSONL."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import ProblemCollector, unencodable_at
from ..fileio import atomic_output, json_line, json_text, make_folder
from ..loading import SnapshotIndex, validate_item
from ..paths import PathArg, as_path, file_suffix
from ..schemas import Document, Scalar, Snapshot
from ..validation import snapshot_problems
from ._question import unwritable_fields


def write_snapshot(
    path: PathArg,
    snapshot_id: str,
    documents: Iterable[Document | Mapping[str, Any]],
    *,
    metadata: Mapping[str, Scalar] | None = None,
) -> int:
    """Write documents (ID, text, version, status, access groups ...) as a snapshot file.

    Each document is a `Document` or a mapping with its fields. `.jsonl` gets the line format
    (header first, one document per line, streamed); anything else one JSON document. Every
    invalid document and repeated ID is reported at once (`InputError`), with every problem the
    loader would find across the documents (a `supersedes` naming no other document, a loop of
    supersession), and then nothing is written. Returns the number of documents written.
    """
    target = as_path(path)
    label = str(target)
    collector = ProblemCollector()
    header = Snapshot(snapshot_id=snapshot_id, documents=[], metadata=dict(metadata or {}))
    jsonl = file_suffix(target) == ".jsonl"
    make_folder(target.parent)
    seen: set[str] = set()
    kept: list[dict[str, Any]] = []
    # what the checks across documents read, without the texts (a streamed snapshot's texts
    # are not held)
    outline: list[Document] = []
    count = 0
    # Written whole or not at all: a problem found on the way leaves no file (fileio).
    with atomic_output(target) as handle:
        if jsonl:
            head = header.model_dump(mode="json")
            del head["documents"], head["chunks"]
            handle.write(json_line(head) + "\n")
        for index, item in enumerate(documents):
            place = "" if _named(item) else f"documents[{index}]."
            doc = (
                item
                if isinstance(item, Document)
                else validate_item(Document, item, label, collector, "id", place, "document")
            )
            if doc is None:
                continue
            if doc.id in seen:
                collector.add(label, None, f"document {doc.id!r}: id", "a unique ID", "a repeat")
                continue
            seen.add(doc.id)
            outline.append(doc.model_copy(update={"text": ""}))
            count += 1
            data = doc.model_dump(mode="json")
            if "status" not in doc.model_fields_set:  # left to the loader's rule, as unstated
                del data["status"]
            line = json_line(data)
            # a text no file can hold, named by its field with the other problems
            unwritable = unwritable_fields(data, "") if unencodable_at(line) is not None else []
            for field, found in unwritable:
                where = f"document {doc.id!r}: {field}"
                collector.add(label, None, where, "text UTF-8 can encode", found)
            if unwritable:
                continue
            if jsonl:
                handle.write(line + "\n")
            else:
                kept.append(data)
        if not jsonl:
            whole = header.model_dump(mode="json")
            whole["documents"] = kept
            handle.write(json_text(whole))
        written = Snapshot.model_construct(snapshot_id=snapshot_id, documents=outline, chunks=[])
        for field, expected, found in snapshot_problems(written, SnapshotIndex.build(written)):
            collector.add(label, None, field, expected, found)
        collector.raise_if_any()
    return count


def _named(item: object) -> bool:
    """Whether a document's problems are named by its ID (else by its place), as the loader's."""
    return isinstance(item, Mapping) and isinstance(item.get("id"), str) and item["id"] != ""
