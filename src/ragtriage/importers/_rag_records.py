"""Ragas-style records, the seed article's sample record and DeepEval test cases.

All three describe one question per record: the question, the retrieved contexts (with or
without IDs), the response, a reference answer, and the reference contexts (by ID or by text).
Each dialect (`_record_dialects`) names the fields; the conversion to native files, here, is shared.

The files are read as the peers' current writers produce them (ragas 0.4.3, deepeval
4.3.1): in Ragas and DeepEval records a null is an absent field (pandas and DeepEval write
null for every unset field); DeepEval's JSONL and CSV join lists with `|`, as its own
reader splits them; Ragas' CSV writes lists as Python list literals. Fields a format
defines that ragtriage does not use are accepted and listed once (`ignored_fields`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import ProblemCollector, again, found_text
from ..paths import PathArg, as_path, file_suffix
from ..schemas import (
    IDENTIFIER_EXPECTED,
    ContextItem,
    Document,
    EvalSet,
    EvidenceGroup,
    Provenance,
    Question,
    QuestionResult,
    RankedItem,
    ReferenceFact,
    Run,
    Scalar,
    Snapshot,
    plain_ids,
)
from ._record_dialects import (
    DIALECTS,
    SOURCED,
    Dialect,
    RecordFormat,
    conversation,
    list_fields,
    normalise,
)
from ._records import read_records, text_id


@dataclass(frozen=True)
class ImportedRecords:
    """Native files made from a record file."""

    snapshot: Snapshot
    """Every context seen (retrieved or referenced); one known only by ID has empty text."""
    evalset: EvalSet
    """One question per record."""
    run: Run | None
    """What the system retrieved and answered, per question; None when no record retrieved
    anything or has a response (a Ragas testset, DeepEval goldens before a run)."""
    ignored_fields: tuple[str, ...] = ()
    """Fields the format defines that held a value somewhere but ragtriage does not use."""


@dataclass(frozen=True)
class _Record:
    """Where one record's problems go: its file, its question ID and its place in the file."""

    label: str
    qid: str
    where: str
    c: ProblemCollector

    def add(self, field: str, expected: str, found: str) -> None:
        """A problem with the record's `field` (`""`: the record as a whole)."""
        place = f"{self.where}.{field}" if field else self.where
        self.c.add(self.label, self.qid, place, expected, found)


def _strings(record: dict[str, Any], key: str, at: _Record) -> list[str] | None:
    value = record.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        found = "nothing" if key not in record else found_text(value)
        at.add(key, "a list of strings", found)
        return None
    return value


def _ids(record: dict[str, Any], key: str, at: _Record) -> list[str] | None:
    """A list of IDs: strings, none empty, only whitespace or holding a control character (the
    native `Identifier`)."""
    value = _strings(record, key, at)
    if value is not None and "" in value:
        at.add(key, "a list of non-empty IDs", "an empty ID")
        return None
    if value is not None and not plain_ids(value):
        found = next(i for i in value if not plain_ids((i,)))
        at.add(key, f"a list of IDs: each {IDENTIFIER_EXPECTED}", found_text(found))
        return None
    return value


def _optional_text(record: dict[str, Any], key: str, at: _Record) -> str | None:
    value = record.get(key)
    if value is not None and not isinstance(value, str):
        at.add(key, "a string or null", found_text(value))
        return None
    return value


def _each_once(ids: list[str], shown: list[str], field: str, at: _Record) -> bool:
    """Whether no context appears twice in one list; a repeat is reported with both places
    (the native run holds each ID once per list, so merging them would change the input)."""
    first: dict[str, int] = {}
    for n, item_id in enumerate(ids):
        if (repeat := again(first, item_id, n, found_text(shown[n]))) is not None:
            at.add(f"{field}[{n}]", "each context at most once per record", repeat)
    return len(first) == len(ids)


class _Builder:
    def __init__(self, label: str, collector: ProblemCollector) -> None:
        self.label = label
        self.c = collector
        self.texts: dict[str, str] = {}
        self.placeholders: set[str] = set()
        self.sources: dict[str, str] = {}

    def context(
        self, item_id: str, text: str, field: str, at: _Record, source: str | None = None
    ) -> None:
        known = self.texts.get(item_id)
        if known is not None and known != text:
            expected = f"the same text for context {item_id!r} in every record"
            at.add(field, expected, "a different text")
        self.texts.setdefault(item_id, text)
        if source is not None and self.sources.setdefault(item_id, source) != source:
            at.add(field, f"the same source for context {item_id!r} in every record", repr(source))
        self.placeholders.discard(item_id)

    def referenced(self, item_id: str) -> None:
        if item_id not in self.texts:
            self.placeholders.add(item_id)


def _reference_ids(
    dialect: Dialect, record: dict[str, Any], at: _Record
) -> tuple[list[tuple[str, str | None]], bool] | None:
    """The record's reference contexts as (ID, text), and whether their IDs were derived from
    their texts (none given); a text is None when the record gives only the ID."""
    texts: list[str] | None = None
    if dialect.reference_texts and dialect.reference_texts in record:
        texts = _strings(record, dialect.reference_texts, at)
        if texts is None:
            return None
    if dialect.reference_ids and (dialect.ids_required or dialect.reference_ids in record):
        given = _ids(record, dialect.reference_ids, at)
        if given is None or not _each_once(given, given, dialect.reference_ids, at):
            return None
        if texts is None:
            return [(item_id, None) for item_id in given], False
        # Both lists: each ID takes its text (as the retrieved contexts' do), so a text the
        # record shows is neither lost nor allowed to differ from the ID's other texts.
        if len(given) != len(texts):
            expected = f"one ID per reference context ({len(texts)})"
            at.add(dialect.reference_ids, expected, f"{len(given)} IDs")
            return None
        return list(zip(given, texts, strict=True)), False
    if texts is not None:
        ids = [text_id(text) for text in texts]
        if not _each_once(ids, texts, str(dialect.reference_texts), at):
            return None
        return list(zip(ids, texts, strict=True)), True
    names = " or ".join(k for k in (dialect.reference_ids, dialect.reference_texts) if k)
    at.add("", f"the reference contexts ({names}) to score retrieval against", "nothing")
    return None


def _named_by_text(
    ids: list[str],
    contexts: list[str],
    references: list[tuple[str, str | None]],
    field: str,
    at: _Record,
) -> list[str]:
    """The retrieved contexts' IDs when the record gives none but names its reference contexts
    by ID and text: a retrieved text that is a reference context's takes that context's ID (a
    text two reference IDs share is a problem: which one was retrieved is unknown)."""
    named: dict[str, list[str]] = {}
    for item_id, text in references:
        if text is not None:
            named.setdefault(text, []).append(item_id)
    for n, text in enumerate(contexts):
        match named.get(text, []):
            case [item_id]:
                ids[n] = item_id
            case [_, _, *_] as both:
                expected = "retrieved context IDs: this text is more than one reference context's"
                at.add(f"{field}[{n}]", expected, f"the text of {', '.join(map(repr, both))}")
    return ids


def _shows_output(dialect: Dialect, record: Any, csv_file: bool) -> bool:
    """Whether a record retrieved something or has a response (its problems are reported
    when it is converted)."""
    if not isinstance(record, dict):
        return False
    record = normalise(dialect, record, csv_file, "", "", ProblemCollector()) or {}
    response = record.get(dialect.response)
    answered = isinstance(response, str) and bool(response.strip())
    return bool(record.get(dialect.contexts)) or answered


def _convert(
    fmt: RecordFormat,
    dialect: Dialect,
    where: str,
    record: Any,
    number: int,
    b: _Builder,
    csv_file: bool,
    no_output: bool,
) -> tuple[Question, QuestionResult] | None:
    if not isinstance(record, dict):
        b.c.add(b.label, None, where, "a JSON object (one record)", found_text(record))
        return None
    normalised = normalise(dialect, record, csv_file, where, b.label, b.c)
    if normalised is None:
        return None
    record = normalised
    raw_id = record.get("id")
    given = isinstance(raw_id, str) and raw_id != ""
    qid: str = raw_id if given and plain_ids((raw_id,)) else f"q{number:04d}"
    at = _Record(b.label, qid, where, b.c)
    if (turns := conversation(fmt, record, csv_file)) is not None:
        one = "sample" if fmt == "ragas" else "golden or test case"
        at.add("", f"a single-turn {one}", turns)
        return None
    if raw_id is not None and qid != raw_id:
        # numbering it instead would drop the ID the user gave, and its links to their data
        expected = "a non-empty string (or no `id`: records are numbered q0001, q0002, ...)"
        at.add("id", IDENTIFIER_EXPECTED if given else expected, found_text(raw_id))
    fields = (*dialect.question, *list_fields(dialect), dialect.response, dialect.reference)
    allowed = {*fields, *dialect.optional}
    for key in sorted(set(record) - allowed):
        expected = f"no such field (a {fmt} record has {', '.join(sorted(allowed))})"
        at.add(key, expected, "an unknown field")
    if dialect.ids_required and dialect.reference not in record:
        # The seed's record type has no default for `reference`: it is given, possibly null.
        at.add(dialect.reference, "a string or null (required field)", "nothing")
    present = [k for k in dialect.question if isinstance(record.get(k), str) and record[k].strip()]
    if not present:
        asked = dialect.question[0]
        found = found_text(record[asked]) if asked in record else "nothing"
        at.add(asked, "a non-empty question", found)
    elif len({record[k] for k in present}) > 1:
        at.add(present[1], f"the same text as {present[0]}", "a different question")
    absent = no_output and dialect.contexts not in record  # no record retrieved anything
    contexts = [] if absent else _strings(record, dialect.contexts, at)
    sources: list[str | None] = [None] * len(contexts or ())
    if contexts is not None and fmt == "deepeval":  # DeepEval's (source, context) markers
        marks = [SOURCED.match(text) for text in contexts]
        sources = [m["source"] if m else None for m in marks]
        contexts = [m["context"] if m else text for m, text in zip(marks, contexts, strict=True)]
    response = _optional_text(record, dialect.response, at)
    reference = _optional_text(record, dialect.reference, at)
    if fmt == "seed" and (response is None or not response.strip()):
        found = "an empty response" if response is not None else "nothing"
        at.add("response", "a non-empty response", found)
    context_ids: list[str] | None = None
    if dialect.context_ids and (dialect.ids_required or dialect.context_ids in record):
        context_ids = _ids(record, dialect.context_ids, at)
        if context_ids is not None and contexts is not None and len(context_ids) != len(contexts):
            expected = f"one ID per retrieved context ({len(contexts)})"
            at.add(dialect.context_ids, expected, f"{len(context_ids)} IDs")
            return None
    given_references = _reference_ids(dialect, record, at)
    ids: list[str] | None = None
    if contexts is not None:
        if context_ids is not None and dialect.context_ids:
            ids, field, shown = context_ids, dialect.context_ids, context_ids
        else:
            ids, field, shown = [text_id(t) for t in contexts], dialect.contexts, contexts
        if not _each_once(ids, shown, field, at):
            ids = None
    if not present or contexts is None or ids is None or given_references is None:
        return None
    references, by_text = given_references
    if context_ids is None and not by_text:
        ids = _named_by_text(ids, contexts, references, f"{dialect.contexts}", at)
    for n, (item_id, text, source) in enumerate(zip(ids, contexts, sources, strict=True)):
        b.context(item_id, text, f"{dialect.contexts}[{n}]", at, source)
    for n, (item_id, reference_text) in enumerate(references):
        if reference_text is None:
            b.referenced(item_id)
        elif context_ids is None or not by_text or reference_text not in contexts:
            b.context(item_id, reference_text, f"{dialect.reference_texts}[{n}]", at)
    groups = [[item_id] for item_id, _ in references]
    if context_ids is not None and by_text:
        groups = [
            [i for i, t in zip(ids, contexts, strict=True) if t == text] or group
            for group, (_, text) in zip(groups, references, strict=True)
        ]
    if not groups and reference is not None and reference.strip():
        expected = "at least one reference context for a record with a reference answer"
        at.add(str(dialect.reference_ids or dialect.reference_texts), expected, "none")
        return None
    question = Question(
        id=qid,
        text=record[present[0]],
        answerability="answerable" if groups else "unanswerable",
        required_evidence=[EvidenceGroup(any_of=group) for group in groups],
        reference_facts=[ReferenceFact(id="reference", text=reference)]
        if reference and reference.strip()
        else [],
    )
    answered = response is not None and bool(response.strip())
    result = QuestionResult(
        question_id=qid,
        candidates=[RankedItem(id=i) for i in ids],
        context=[ContextItem(id=i, text=b.texts[i]) for i in ids],
        answer=response if answered else None,
        outcome="answered" if answered else None,
        claims=None,
    )
    return question, result


def import_records(
    path: PathArg, fmt: RecordFormat, *, name: str = "imported", dataset_id: str | None = None
) -> ImportedRecords:
    """Convert a record file; raise `InputError` listing every problem (file, record, field).

    Each record's retrieved contexts become the run's candidates and context (all of them were
    sent, as these formats record only what reached the model); its reference contexts become
    one evidence group each; its reference answer becomes the reference fact `reference`.
    """
    path = as_path(path)
    collector = ProblemCollector()
    dialect = DIALECTS[fmt]
    builder = _Builder(str(path), collector)
    questions: list[Question] = []
    results: list[QuestionResult] = []
    records = read_records(path, collector)
    csv_file = file_suffix(path) == ".csv"
    # an evaluation set without a run: a Ragas testset, DeepEval goldens before a run
    no_output = not dialect.ids_required and not any(
        _shows_output(dialect, record, csv_file) for _, record in records
    )
    ignored: set[str] = set()
    for number, (where, record) in enumerate(records, start=1):
        if isinstance(record, dict):
            ignored |= {
                k
                for k, v in record.items()
                if v is not None and not (csv_file and v == "") and k in dialect.optional
            }
        converted = _convert(fmt, dialect, where, record, number, builder, csv_file, no_output)
        if converted is not None:
            questions.append(converted[0])
            results.append(converted[1])
    seen: set[str] = set()
    for q in questions:
        if q.id in seen:
            collector.add(str(path), q.id, "id", "unique record IDs", f"{q.id!r} more than once")
        seen.add(q.id)
    if not records and not collector.problems:
        collector.add(str(path), None, "(records)", "at least one record", "none")
    collector.raise_if_any()
    ident = dataset_id or f"{fmt}-{path.stem}"
    sourced: dict[str, dict[str, Scalar]] = {i: {"source": s} for i, s in builder.sources.items()}
    documents = [
        Document(id=i, text=t, metadata=sourced.get(i, {}))
        for i, t in sorted(builder.texts.items())
    ]
    documents += [
        Document(
            id=i,
            text="",
            metadata={"placeholder": True, "note": "referenced by ID only; text unknown"},
        )
        for i in sorted(builder.placeholders)
    ]
    meta: dict[str, Scalar] = {"imported_from": fmt, "source_file": path.name}
    snapshot = Snapshot(snapshot_id=ident, documents=documents, metadata=meta)
    evalset = EvalSet(evalset_id=ident, snapshot_id=ident, questions=questions, metadata=meta)
    provenance = Provenance(
        snapshot_id=ident,
        evalset_id=ident,
        notes=f"imported from a {fmt} record file ({path.name})",
    )
    return ImportedRecords(
        snapshot,
        evalset,
        None if no_output else Run(name=name, provenance=provenance, results=results),
        tuple(sorted(ignored - {"id"})),
    )
