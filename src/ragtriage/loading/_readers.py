"""Read one native or article file of any kind, JSON or JSONL, collecting every problem."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..errors import Problem, ProblemCollector, found_text
from ..paths import PathArg, as_path, file_suffix
from ..schemas import (
    ArticleDataset,
    Chunk,
    ClaimLabelEntry,
    Document,
    EvalSet,
    FactLabelEntry,
    LabelSet,
    Question,
    QuestionResult,
    Run,
    RunHeader,
    Snapshot,
    is_schema_version,
    valid_labeller,
    with_default_labeller,
)
from ._files import (
    REQUIRED,
    SourceFile,
    display_path,
    file_sha256,
    iter_jsonl,
    parse_line,
    read_json,
    validate_item,
    validate_line,
)

KINDS = ("snapshot", "evalset", "run", "labels")


@dataclass(frozen=True)
class LoadedFile:
    """A file read and validated against its schema; `content` is None when it had problems."""

    source: SourceFile
    """Where it came from."""
    content: Snapshot | EvalSet | Run | LabelSet | ArticleDataset | None
    """The validated content."""


def _validate_list(
    items: Any,
    key: str,
    model: type[Any],
    id_key: str | None,
    label: str,
    collector: ProblemCollector,
    record: str = "question",
    name_of: Callable[[Any], str | None] | None = None,
) -> list[Any]:
    """Validate each item of a list; `name_of` names an item in its problems (`key[NAME].`)
    when its ID (`id_key`) does not identify it alone."""
    if not isinstance(items, list):
        collector.add(label, None, key, "a list", found_text(items))
        return []
    out = []
    for index, item in enumerate(items):
        has_id = isinstance(item, dict) and isinstance(item.get(id_key or ""), str)
        prefix = "" if has_id else f"{key}[{index}]."
        name = None if name_of is None else name_of(item)
        if name is not None:
            prefix = f"{key}[{name}]."
        valid = validate_item(model, item, label, collector, id_key, prefix, record)
        if valid is not None:
            out.append(valid)
    return out


def _split_envelope(
    data: dict[str, Any], list_keys: tuple[str, ...]
) -> tuple[dict[str, Any], dict[str, Any]]:
    envelope = {key: value for key, value in data.items() if key not in list_keys}
    lists = {key: data[key] for key in list_keys if key in data}
    return envelope, lists


def _require(lists: dict[str, Any], key: str, label: str, collector: ProblemCollector) -> None:
    # A file's required list (`documents`, `questions`, `results`) is a problem when absent.
    if key not in lists:
        collector.add(label, None, key, REQUIRED, "nothing")


@dataclass(frozen=True)
class Wanted:
    """The kinds of file a caller takes (`article`: the article format) and how a message
    names them; a file of another kind is reported as such and not validated further (its
    fields would be checked against the wrong format)."""

    kinds: tuple[str, ...]
    text: str


def _unwanted(
    kind: str, wanted: Wanted | None, label: str, field: str, collector: ProblemCollector
) -> bool:
    """Whether a file of `kind` is not what the caller takes (reported to `collector`)."""
    if wanted is None or kind in wanted.kinds:
        return False
    collector.add(label, None, field, wanted.text, found_text(kind))
    return True


def _native_kind(
    header: Any, label: str, collector: ProblemCollector, wanted: Wanted | None, at: str = ""
) -> str | None:
    """A native file's kind, from its header (the JSON object, or a JSONL file's first line
    `at` its number); None, with the problem in `collector`, when the header names no known
    kind, a kind the caller does not take or another schema version."""
    kind = header.get("kind") if isinstance(header, dict) else None
    if kind not in KINDS:
        collector.add(label, None, f"{at}kind", f"one of {', '.join(KINDS)}", found_text(kind))
        return None
    if _unwanted(kind, wanted, label, f"{at}kind", collector):
        return None
    if not is_schema_version(header.get("schema_version")):
        found = found_text(header.get("schema_version", "nothing"))
        collector.add(label, None, f"{at}schema_version", "1", found)
        return None
    return str(kind)


def _from_json(data: Any, label: str, collector: ProblemCollector, wanted: Wanted | None) -> Any:
    if not isinstance(data, dict):
        collector.add(label, None, "(top level)", "a JSON object", found_text(data))
        return None
    if "schemaVersion" in data:
        if not is_schema_version(data["schemaVersion"]):
            collector.add(
                label,
                None,
                "schemaVersion",
                "1 (the article format)",
                found_text(data["schemaVersion"]),
            )
            return None
        if _unwanted("article", wanted, label, "kind", collector):
            return None
        return validate_item(ArticleDataset, data, label, collector, None)
    kind = _native_kind(data, label, collector, wanted)
    if kind is None:
        return None
    if kind == "snapshot":
        env, lists = _split_envelope(data, ("documents", "chunks"))
        docs = _validate_list(
            lists.get("documents", []), "documents", Document, "id", label, collector, "document"
        )
        chunks = _validate_list(
            lists.get("chunks", []), "chunks", Chunk, "id", label, collector, "chunk"
        )
        _require(lists, "documents", label, collector)
        head = validate_item(Snapshot, {**env, "documents": []}, label, collector, None)
        return (
            None if head is None else head.model_copy(update={"documents": docs, "chunks": chunks})
        )
    if kind == "evalset":
        env, lists = _split_envelope(data, ("questions",))
        _require(lists, "questions", label, collector)
        questions = _validate_list(
            lists.get("questions", []), "questions", Question, "id", label, collector
        )
        eval_head = validate_item(EvalSet, {**env, "questions": []}, label, collector, None)
        return None if eval_head is None else eval_head.model_copy(update={"questions": questions})
    if kind == "run":
        env, lists = _split_envelope(data, ("results",))
        _require(lists, "results", label, collector)
        results = _validate_list(
            lists.get("results", []), "results", QuestionResult, "question_id", label, collector
        )
        header = validate_item(RunHeader, env, label, collector, None)
        if header is None:
            return None
        return Run.model_construct(**dict(header), results=results)
    env, lists = _split_envelope(data, ("claim_labels", "fact_labels"))
    default = valid_labeller(env.get("labeller"))
    found = ProblemCollector()
    claims = _validate_list(
        _filled(lists.get("claim_labels", []), default),
        "claim_labels",
        ClaimLabelEntry,
        "question_id",
        label,
        found,
        name_of=lambda item: _entry_name(item, "claim_id"),
    )
    facts = _validate_list(
        _filled(lists.get("fact_labels", []), default),
        "fact_labels",
        FactLabelEntry,
        "question_id",
        label,
        found,
        name_of=lambda item: _entry_name(item, "fact_id"),
    )
    collector.extend(_labeller_hints(found.problems, default))
    label_head = validate_item(LabelSet, env, label, collector, None)
    return (
        None
        if label_head is None
        else label_head.model_copy(update={"claim_labels": claims, "fact_labels": facts})
    )


LABELLER_EXPECTED = (
    "a labeller (on the label, or `labeller` at the top of the file for every label that "
    "names none)"
)
"""What a label without a labeller, in a file without a default one, should have had."""


def _entry_name(item: Any, id_key: str) -> str | None:
    """A label entry's claim ID (or its label's fact ID): it names the entry in problems."""
    if not isinstance(item, dict):
        return None
    found = item.get(id_key)
    if found is None and isinstance(item.get("label"), dict):
        found = item["label"].get(id_key)
    return found if isinstance(found, str) and found else None


def _filled(items: Any, default: Any) -> Any:
    """Label entries as read, the file's default labeller put in those that name none."""
    if default is None or not isinstance(items, list):
        return items
    return [with_default_labeller(item, default) for item in items]


def _labeller_hints(problems: Sequence[Problem], default: Any) -> list[Problem]:
    """Problems of label entries, a missing labeller pointing at the file-level default."""
    if default is not None:
        return list(problems)
    return [
        replace(p, expected=LABELLER_EXPECTED)
        if p.field.endswith("label.labeller") and p.found == "nothing"
        else p
        for p in problems
    ]


def _from_jsonl(path: Path, label: str, collector: ProblemCollector, wanted: Wanted | None) -> Any:
    lines = iter_jsonl(path, label, collector)
    first = next(lines, None)
    if first is None:
        if not collector.problems:
            collector.add(
                label, None, "line 1", "a header line with kind and schema_version", "an empty file"
            )
        return None
    number, text = first
    parsed, header_data = parse_line(text, number, label, collector)
    if not parsed:
        return None
    kind = _native_kind(header_data, label, collector, wanted, f"line {number}: ")
    if kind is None:
        return None
    if kind == "run":
        header = validate_item(RunHeader, header_data, label, collector, None, f"line {number}: ")
        results = [
            result
            for n, line in lines
            if (result := validate_line(QuestionResult, line, n, label, collector, "question_id"))
            is not None
        ]
        return None if header is None else Run.model_construct(**dict(header), results=results)
    if kind == "evalset":
        eval_head = validate_item(EvalSet, {**header_data, "questions": []}, label, collector, None)
        questions = [
            question
            for n, line in lines
            if (question := validate_line(Question, line, n, label, collector, "id")) is not None
        ]
        return None if eval_head is None else eval_head.model_copy(update={"questions": questions})
    if kind == "snapshot":
        head = validate_item(Snapshot, {**header_data, "documents": []}, label, collector, None)
        docs: list[Document] = []
        chunks: list[Chunk] = []
        for n, line in lines:
            parsed, data = parse_line(line, n, label, collector)
            if not parsed:
                continue
            # A chunk names its document at the top level (a document's metadata may too).
            is_chunk = isinstance(data, dict) and "document_id" in data
            model: type[Document] | type[Chunk] = Chunk if is_chunk else Document
            kind_name = "chunk" if is_chunk else "document"
            record = validate_item(model, data, label, collector, "id", f"line {n}: ", kind_name)
            if isinstance(record, Chunk):
                chunks.append(record)
            elif isinstance(record, Document):
                docs.append(record)
        return (
            None if head is None else head.model_copy(update={"documents": docs, "chunks": chunks})
        )
    head_labels = validate_item(LabelSet, header_data, label, collector, None)
    default = valid_labeller(header_data.get("labeller"))
    claim_entries: list[ClaimLabelEntry] = []
    fact_entries: list[FactLabelEntry] = []
    entry_problems = ProblemCollector()
    for n, line in lines:
        parsed, data = parse_line(line, n, label, entry_problems)
        if not parsed:
            continue
        data = with_default_labeller(data, default)
        entry_model: type[ClaimLabelEntry] | type[FactLabelEntry] = (
            ClaimLabelEntry if isinstance(data, dict) and "claim_id" in data else FactLabelEntry
        )
        entry = validate_item(
            entry_model, data, label, entry_problems, "question_id", f"line {n}: "
        )
        if isinstance(entry, ClaimLabelEntry):
            claim_entries.append(entry)
        elif isinstance(entry, FactLabelEntry):
            fact_entries.append(entry)
    collector.extend(_labeller_hints(entry_problems.problems, default))
    if head_labels is None:
        return None
    return head_labels.model_copy(
        update={"claim_labels": claim_entries, "fact_labels": fact_entries}
    )


def read_file(
    path: PathArg,
    collector: ProblemCollector,
    label: str | None = None,
    wanted: Wanted | None = None,
) -> LoadedFile:
    """Read and schema-validate one file of the `wanted` kinds (None: any); problems go to
    `collector`."""
    path = as_path(path)
    shown = label or display_path(path)
    before = len(collector.problems)
    if file_suffix(path) == ".jsonl":
        content = _from_jsonl(path, shown, collector, wanted)
    else:
        data = read_json(path, shown, collector)
        content = (
            None if len(collector.problems) > before else _from_json(data, shown, collector, wanted)
        )
    if len(collector.problems) > before:
        content = None
    kind = "article" if isinstance(content, ArticleDataset) else getattr(content, "kind", "unknown")
    # A file with problems is not hashed: it may be huge, and no report will name it.
    digest = file_sha256(path) if content is not None else ""
    return LoadedFile(SourceFile(shown, kind, digest), content)
