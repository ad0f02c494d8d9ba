"""tau2-bench `banking_knowledge`: bank documents and customer tasks -> snapshot + evalset."""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from ..errors import InputError, ProblemCollector, again, counted, found_text, id_list
from ..fileio import decode, open_input, parse_json, refuse_blank
from ..paths import PathArg, as_path, file_suffix
from ..schemas import (
    IDENTIFIER_EXPECTED,
    Document,
    EvalSet,
    EvidenceGroup,
    Question,
    Scalar,
    Snapshot,
    plain_ids,
)

TAU2_ATTRIBUTION: dict[str, Scalar] = {
    "source": "tau2-bench banking_knowledge domain (Sierra Research)",
    "license": "MIT",
    "paper": "τ²-Bench, arXiv 2506.07982",
    "packaged_in": (
        "PyPI wheel inspect-evals==0.28.0, inspect_evals/tau2/data/domains/banking_knowledge/"
    ),
}
"""Where the data comes from; written into the produced files' metadata (keep it)."""


@dataclass(frozen=True)
class Tau2Data:
    """The imported snapshot and evaluation set."""

    snapshot: Snapshot
    """698 documents (title and content)."""
    evalset: EvalSet
    """One question per task; query = the scenario instructions."""
    notes: tuple[str, ...] = ()
    """What the user should know of the conversion (tasks imported as unanswerable)."""


TAU2_MAX_BYTES = 64 * 1024 * 1024
"""The most bytes a tau2 file may hold, after decompression (the real files hold about 1 MB
each; the bound also bounds the memory a hostile file can take)."""

_CHUNK = 1024 * 1024


def _read_bounded(path: Path, label: str, limit: int) -> bytes | None:
    """The file's bytes (gunzipped for `.gz`), or None when there are more than `limit`.

    Read a chunk at a time so that a small gzip that inflates to gigabytes is stopped at the
    bound instead of being inflated whole.
    """
    parts: list[bytes] = []
    total = 0
    with open_input(path, label) as raw:
        handle: BinaryIO | gzip.GzipFile = (
            gzip.GzipFile(fileobj=raw) if file_suffix(path) == ".gz" else raw
        )
        while chunk := handle.read(_CHUNK):
            total += len(chunk)
            if total > limit:
                return None
            parts.append(chunk)
    return b"".join(parts)


def _load(path: Path, collector: ProblemCollector, limit: int = TAU2_MAX_BYTES) -> Any:
    label = str(path)
    try:
        data = _read_bounded(path, label, limit)
        if data is None:
            unpacked = " unpacked" if file_suffix(path) == ".gz" else ""
            collector.add(
                label, None, "(file)", f"at most {limit} bytes{unpacked}", f"more than {limit}"
            )
            return None
        text = decode(data, label)
        refuse_blank(text, label, "a JSON document")
        return parse_json(text, label)
    except InputError as exc:
        collector.extend(exc.problems)
    except (OSError, EOFError) as exc:
        collector.add(label, None, "(file)", "a readable (gzip) file", type(exc).__name__)
    return None


def _str_field(
    record: Any, key: str, label: str, where: str, qid: str | None, collector: ProblemCollector
) -> str | None:
    value = record.get(key) if isinstance(record, dict) else None
    if not isinstance(value, str) or not value.strip():
        missing = not isinstance(record, dict) or key not in record
        found = "nothing" if missing else found_text(value)
        collector.add(label, qid, f"{where}.{key}", "a non-empty string", found)
        return None
    return value


def _id_field(
    record: Any, key: str, label: str, where: str, collector: ProblemCollector
) -> str | None:
    """`_str_field` for an ID, which holds no control character (`schemas.Identifier`)."""
    value = _str_field(record, key, label, where, None, collector)
    if value is not None and not plain_ids((value,)):
        collector.add(label, None, f"{where}.{key}", IDENTIFIER_EXPECTED, found_text(value))
        return None
    return value


def _records(data: Any, what: str, label: str, collector: ProblemCollector) -> list[Any]:
    """A file's top-level array of `what` (documents, tasks); none, with a problem, when the
    file holds no array or an empty one."""
    if not isinstance(data, list):
        collector.add(label, None, "(top level)", f"a JSON array of {what}s", found_text(data))
        return []
    if not data:
        collector.add(label, None, "(top level)", f"at least one {what}", "an empty array")
    return data


def _documents(
    data: Any, label: str, collector: ProblemCollector
) -> tuple[list[Document], set[str]]:
    """The documents, and every ID the file gives one: a task requiring a document refused
    for another field is not told that it is absent."""
    documents = []
    seen: set[str] = set()
    for index, record in enumerate(_records(data, "document", label, collector)):
        where = f"[{index}]"
        doc_id = _id_field(record, "id", label, where, collector)
        title = _str_field(record, "title", label, where, None, collector)
        content = _str_field(record, "content", label, where, None, collector)
        if doc_id in seen:
            collector.add(
                label, None, f"{where}.id", "unique document IDs", f"{doc_id!r} more than once"
            )
            continue
        if doc_id is None:
            continue
        seen.add(doc_id)
        if title is not None and content is not None:
            documents.append(
                Document(id=doc_id, title=title, text=content, metadata={"source": "tau2-bench"})
            )
    return documents, seen


def _questions(
    data: Any, known: set[str] | None, label: str, collector: ProblemCollector
) -> list[Question]:
    questions = []
    first: dict[str, int] = {}
    for index, record in enumerate(_records(data, "task", label, collector)):
        task_id = _id_field(record, "id", label, f"[{index}]", collector)
        if not isinstance(record, dict):
            continue
        # A task without a usable ID is still checked, its fields named by its position.
        at = "" if task_id is not None else f"[{index}]."
        if task_id is not None and (repeat := again(first, task_id, index, repr(task_id))):
            collector.add(label, task_id, f"[{index}].id", "unique task IDs", repeat)
        scenario = record.get("user_scenario")
        instructions = _str_field(
            scenario if isinstance(scenario, dict) else None,
            "instructions",
            label,
            f"{at}user_scenario",
            task_id,
            collector,
        )
        required = record.get("required_documents")
        if not isinstance(required, list) or not all(isinstance(item, str) for item in required):
            found = "nothing" if "required_documents" not in record else found_text(required)
            where, expected = f"{at}required_documents", "a list of document IDs"
            collector.add(label, task_id, where, expected, found)
            continue
        listed: dict[str, int] = {}
        for n, item in enumerate(required):
            if known is not None and item not in known:
                expected = "IDs of documents in documents.json.gz"
                collector.add(label, task_id, f"{at}required_documents", expected, repr(item))
            # Merged, a repeat would change the input; the record importers refuse one too.
            if (repeat := again(listed, item, n, repr(item))) is not None:
                where = f"{at}required_documents[{n}]"
                collector.add(label, task_id, where, "each document at most once per task", repeat)
        if instructions is None or task_id is None:
            continue
        groups = [EvidenceGroup(any_of=[item]) for item in required]
        questions.append(
            Question(
                id=task_id,
                text=instructions,
                answerability="answerable" if groups else "unanswerable",
                required_evidence=groups,
            )
        )
    return questions


def import_tau2(directory: PathArg) -> Tau2Data:
    """Read `documents.json.gz` and `tasks.json`; raise `InputError` listing every problem.

    Each task becomes a question whose text is `user_scenario.instructions` and whose required
    evidence is one group per `required_documents` entry (every listed document is needed).
    """
    directory = as_path(directory)
    collector = ProblemCollector()
    docs_path, tasks_path = directory / "documents.json.gz", directory / "tasks.json"
    raw_docs = _load(docs_path, collector)
    documents, named = (
        _documents(raw_docs, str(docs_path), collector) if raw_docs is not None else ([], set())
    )
    raw_tasks = _load(tasks_path, collector)
    # Without a readable array of documents, unknown-ID checks would only repeat its problem.
    known = named if isinstance(raw_docs, list) else None
    questions = (
        _questions(raw_tasks, known, str(tasks_path), collector) if raw_tasks is not None else []
    )
    collector.raise_if_any()
    snapshot = Snapshot(
        snapshot_id="tau2-banking-knowledge", documents=documents, metadata=dict(TAU2_ATTRIBUTION)
    )
    evalset = EvalSet(
        evalset_id="tau2-banking-knowledge-tasks",
        snapshot_id=snapshot.snapshot_id,
        questions=questions,
        metadata={
            **TAU2_ATTRIBUTION,
            "query": "user_scenario.instructions",
            "evidence": "required_documents, one group each",
        },
    )
    # An answerable question needs evidence: such a task can only be unanswerable; say so.
    bare = [q.id for q in questions if not q.required_evidence]
    one = len(bare) == 1
    what = "an unanswerable question" if one else "unanswerable questions"
    note = (
        f"{counted(len(bare), 'task')} list{'s' if one else ''} no required documents "
        f"({id_list(bare)}): imported as {what}, whose retrieval measures are not applicable"
    )
    return Tau2Data(snapshot, evalset, (note,) if bare else ())
