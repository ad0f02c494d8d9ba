"""Versions side file: document versions, status and supersession for corpora that lack them.

The article format has no version fields. A small JSON or TOML file maps document IDs to
`{version, status, supersedes, effective_date}`; `apply_versions` returns a copy of the dataset
whose snapshot carries them. A document that another entry `supersedes` becomes `superseded`
unless the file gives its status explicitly.

JSON: `{"retention-v2": {"version": "v2", "supersedes": ["retention-v1"]}}`
TOML: `[retention-v2]` / `version = "v2"` / `supersedes = ["retention-v1"]`
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import date
from typing import Any

from pydantic import Field

from .errors import InputError, Problem, ProblemCollector
from .fileio import read_json, read_toml
from .loading import (
    Dataset,
    SnapshotIndex,
    SourceFile,
    display_path,
    file_sha256,
    validate_item,
)
from .paths import PathArg, as_path, file_suffix
from .schemas import (
    Document,
    DocumentStatus,
    Identifier,
    IsoDate,
    StrictModel,
    declared_kind,
    superseded_unless_stated,
)
from .validation import SUPERSESSION_LOOP, repeats, supersession_loops


class VersionEntry(StrictModel):
    """Version facts about one document."""

    version: str | None = None
    """The document's version label (e.g. `v2`)."""
    status: DocumentStatus | None = None
    """`current`, `superseded` or `withdrawn`; inferred `superseded` when another entry
    supersedes it, else left as the snapshot has it."""
    supersedes: list[Identifier] = Field(default_factory=list)
    """IDs of older documents this one replaces."""
    effective_date: IsoDate | None = None
    """ISO date from which this version applies."""


def read_versions(path: PathArg, collector: ProblemCollector) -> dict[str, VersionEntry]:
    """Read a versions file (`.toml` or JSON); problems go to `collector`."""
    entries = _read_entries(path, collector) or {}
    return {doc_id: entry for doc_id, entry in entries.items() if entry is not None}


def _read_entries(
    path: PathArg, collector: ProblemCollector
) -> dict[str, VersionEntry | None] | None:
    """A versions file's entries, each validated apart (None: one the schema refused, whose
    problems went to `collector`); None when the file itself is refused (unreadable, not an
    object, another ragtriage file)."""
    path = as_path(path)
    label = str(path)
    data: Any
    try:
        data = read_toml(path, label) if file_suffix(path) == ".toml" else read_json(path, label)
    except InputError as exc:
        collector.extend(exc.problems)
        return None
    if not isinstance(data, dict):
        expected = "an object mapping document IDs to versions"
        collector.add(label, None, "(top level)", expected, type(data).__name__)
        return None
    if (kind := declared_kind(data)) is not None:  # another ragtriage file: not each field
        expected = "a versions file (document IDs mapped to versions)"
        collector.add(label, None, "kind", expected, f"a file of kind {kind!r}")
        return None
    return {
        doc_id: validate_item(VersionEntry, _iso_date(value), label, collector, None, f"{doc_id}.")
        for doc_id, value in data.items()
    }


def _iso_date(entry: Any) -> Any:
    """An entry with its `effective_date` written as a TOML date (unquoted, no time of day) as
    the ISO text the field holds."""
    if isinstance(entry, dict) and type(entry.get("effective_date")) is date:
        return {**entry, "effective_date": entry["effective_date"].isoformat()}
    return entry


def apply_versions(
    dataset: Dataset,
    versions: Mapping[str, VersionEntry | None],
    source: str,
    collector: ProblemCollector,
) -> Dataset:
    """A copy of the dataset whose documents carry the side file's versions. An entry None
    (one the schema refused) is only checked to name a document of the snapshot: what it
    gives is not known, so a loop of supersession through its document is not named (once
    mended, it may replace that document's `supersedes`)."""
    known = {doc.id for doc in dataset.snapshot.documents}
    for doc_id, given in versions.items():
        if doc_id not in known:
            collector.add(source, None, doc_id, "a document ID of the snapshot", repr(doc_id))
        for old in () if given is None else given.supersedes:
            if old not in known or old == doc_id:
                expected = "IDs of other documents of the snapshot"
                collector.add(source, None, f"{doc_id}.supersedes", expected, repr(old))
        for expected, found in repeats(() if given is None else given.supersedes):
            collector.add(source, None, f"{doc_id}.supersedes", expected, found)
    refused = {doc_id for doc_id, entry in versions.items() if entry is None}
    valid = {doc_id: entry for doc_id, entry in versions.items() if entry is not None}
    superseded = {old for entry in valid.values() for old in entry.supersedes}
    documents: list[Document] = []
    for doc in dataset.snapshot.documents:
        entry = valid.get(doc.id)
        # The entry's fields are the document's: each it gives (not None, supersedes not
        # empty) replaces the snapshot's.
        update: dict[str, Any] = {} if entry is None else entry.model_dump(exclude_defaults=True)
        documents.append(doc.model_copy(update=update) if update else doc)

    def stated(doc: Document) -> bool:  # a document the file supersedes: by its own entry
        entry = valid.get(doc.id)
        if doc.id in superseded:
            return entry is not None and entry.status is not None
        return "status" in doc.model_fields_set  # by the snapshot or the entry

    documents = superseded_unless_stated(documents, stated)
    # A loop the file closes is named here, at the entry that closes it; one the snapshot
    # holds on its own is the snapshot's problem (`check_dataset`).
    replacing = {doc_id for doc_id, entry in valid.items() if entry.supersedes}
    snapshot = dataset.snapshot.model_copy(update={"documents": documents})
    for loop in supersession_loops(SnapshotIndex.build(snapshot).superseded_by):
        at = next((n for n, doc_id in enumerate(loop[:-1]) if doc_id in replacing), None)
        if at is not None and refused.isdisjoint(loop):
            shown = (*loop[at:-1], *loop[:at], loop[at])
            collector.add(
                source, None, f"{shown[0]}.supersedes", SUPERSESSION_LOOP, " -> ".join(shown)
            )
    return dataclasses.replace(dataset, snapshot=snapshot)


def load_versions(dataset: Dataset, path: PathArg) -> Dataset:
    """Read a versions file and apply it; raise `InputError` listing every problem: with an
    entry the schema refused, the other entries' problems of the snapshot too."""
    problems, updated = versioned(dataset, path)
    if problems:
        raise InputError(problems)
    return updated


def versioned(dataset: Dataset, path: PathArg) -> tuple[tuple[Problem, ...], Dataset]:
    """No problems and the dataset with the versions file applied (`load_versions`); else
    the file's problems and the dataset with only the version labels of the entries that
    pass, so that the checks of the evaluation set know the versions the file gives."""
    path = as_path(path)
    collector = ProblemCollector()
    versions = _read_entries(path, collector)
    if versions is None:  # refused whole: its problems are in the collector
        return collector.problems, dataset
    updated = apply_versions(dataset, versions, str(path), collector)
    if collector.problems:
        labels = {doc_id: VersionEntry(version=entry.version)
                  for doc_id, entry in versions.items()
                  if entry is not None and entry.version is not None}
        return collector.problems, apply_versions(dataset, labels, "", ProblemCollector())
    source = SourceFile(display_path(path), "versions", file_sha256(path))
    return (), dataclasses.replace(updated, sources=(*updated.sources, source))
