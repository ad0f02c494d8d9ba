"""Read one native or article file of any kind, JSON or JSONL, collecting every problem."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .._collector import no_cycle_collection
from ..errors import InputError, ProblemCollector, found_text
from ..fileio import read_json
from ..paths import PathArg, as_path, file_suffix
from ..schemas import (
    ArticleDataset,
    Chunk,
    ClaimLabelEntry,
    Document,
    EvalSet,
    FactLabelEntry,
    Labeller,
    LabelSet,
    Question,
    QuestionResult,
    Run,
    RunHeader,
    Snapshot,
    claim_ids,
    is_schema_version,
    labelled_twice,
    superseded_unless_stated,
    valid_labeller,
    with_default_labeller,
)
from ._article_convert import read_article
from ._files import (
    REQUIRED,
    SourceFile,
    display_path,
    file_sha256,
    iter_jsonl,
    parse_line,
    validate_item,
)
from ._items import Items, validate_list

KINDS = ("snapshot", "evalset", "run", "labels")

HEADER_EXPECTED = "a header line with kind and schema_version"
"""What a JSONL file's first line should have been (the file is empty, or the line is no
JSON object)."""


@dataclass(frozen=True)
class LoadedFile:
    """A file read and validated against its schema; `content` is None when it had problems."""

    source: SourceFile
    """Where it came from."""
    content: Snapshot | EvalSet | Run | LabelSet | ArticleDataset | None
    """The validated content."""
    rest: Snapshot | EvalSet | Run | LabelSet | ArticleDataset | None = None
    """Of a native file with problems in some of its items (questions, results, documents,
    labels) only, its header with the items that passed, and a blank question or result in
    place of each one refused (`Items.stand_in`): what can still be checked further
    (`load_dataset`'s `check`). None otherwise."""


@dataclass(frozen=True)
class _Layout:
    """A native kind's file: the model of its header (a JSON file without its lists, a JSONL
    file's first line) and its lists."""

    head: type[Any]
    lists: tuple[Items, ...]
    required: str | None = None
    """The list a file must have (given empty to a `head` model that has it)."""

    @property
    def keys(self) -> set[str]:
        """The keys of its lists."""
        return {items.key for items in self.lists}

    @property
    def filled(self) -> bool:
        """Whether `required` must hold an item: its field's JSON Schema says `minItems`
        (an evaluation set's `questions`)."""
        field = self.head.model_fields.get(self.required or "")
        extra = field.json_schema_extra if field is not None else None
        return isinstance(extra, dict) and extra.get("minItems") == 1

    def items_of(self, data: Any) -> Items:
        """The list a JSONL line's record belongs to."""
        if isinstance(data, dict):
            for items in self.lists:
                if items.marker is not None and items.marker in data:
                    return items
        return next(items for items in self.lists if items.marker is None)

    def head_of(
        self, header: dict[str, Any], label: str, collector: ProblemCollector, prefix: str = ""
    ) -> Any:
        """The validated header; its items are validated one by one, apart."""
        data = dict(header)
        if self.required is not None and self.required in self.head.model_fields:
            data[self.required] = []
        return validate_item(self.head, data, label, collector, None, prefix)


_BLANK_QUESTION = {"text": "?", "answerability": "unanswerable"}
"""The fields of a question that stands in for one refused, besides its ID."""

_LAYOUTS = {
    "snapshot": _Layout(
        Snapshot,
        (
            Items("documents", Document, "id", "document"),
            # A chunk names its document at the top level (a document's metadata may too).
            Items("chunks", Chunk, "id", "chunk", marker="document_id"),
        ),
        required="documents",
    ),
    "evalset": _Layout(
        EvalSet,
        (Items("questions", Question, "id", blank=_BLANK_QUESTION),),
        required="questions",
    ),
    "run": _Layout(
        RunHeader,
        (Items("results", QuestionResult, "question_id", blank={}),),
        required="results",
    ),
    "labels": _Layout(
        LabelSet,
        (
            Items(
                "claim_labels", ClaimLabelEntry, "question_id", marker="claim_id",
                name_key="claim_id",
            ),
            Items("fact_labels", FactLabelEntry, "question_id", name_key="fact_id"),
        ),
    ),
}
"""How each native kind's file is laid out."""


def _assembled(head: Any, lists: dict[str, list[Any]]) -> Any:
    """The file's content from its validated header and items (None without a header)."""
    if head is None:
        return None
    if type(head) is RunHeader:  # the model of a run's header has no `results`
        return Run.model_construct(**dict(head), results=lists["results"])
    if type(head) is Snapshot:  # its documents were validated apart: the status rule on all
        lists = {**lists, "documents": superseded_unless_stated(lists["documents"])}
    return head.model_copy(update=lists)


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
    if not isinstance(header, dict):  # a JSONL header line; a JSON file's is checked before
        collector.add(label, None, at.removesuffix(": "), HEADER_EXPECTED, found_text(header))
        return None
    kind = header.get("kind")
    if kind not in KINDS:
        found = found_text(kind) if "kind" in header else "nothing"
        collector.add(label, None, f"{at}kind", f"one of {', '.join(KINDS)}", found)
        return None
    if _unwanted(kind, wanted, label, f"{at}kind", collector):
        return None
    if not is_schema_version(header.get("schema_version")):
        found = found_text(header["schema_version"]) if "schema_version" in header else "nothing"
        collector.add(label, None, f"{at}schema_version", "1", found)
        return None
    return str(kind)


def _from_json(data: Any, label: str, collector: ProblemCollector, wanted: Wanted | None) -> Any:
    if not isinstance(data, dict):
        collector.add(label, None, "(top level)", "a JSON object", found_text(data))
        return None
    if "schemaVersion" in data:
        if not is_schema_version(data["schemaVersion"]):
            found = found_text(data["schemaVersion"])
            collector.add(label, None, "schemaVersion", "1 (the article format)", found)
            return None
        if _unwanted("article", wanted, label, "kind", collector):
            return None
        return read_article(data, label, collector)
    kind = _native_kind(data, label, collector, wanted)
    if kind is None:
        return None
    layout = _LAYOUTS[kind]
    header = {key: value for key, value in data.items() if key not in layout.keys}
    default, entries = _label_defaults(kind, header, collector)
    lists = {
        items.key: validate_list(data.get(items.key, []), items, label, entries, default)
        for items in layout.lists
    }
    _hinted(entries, collector, default)
    required = layout.required
    if required is not None and required not in data:
        collector.add(label, None, required, REQUIRED, "nothing")
    elif required is not None and layout.filled and data[required] == []:
        collector.add(label, None, required, "a list of at least 1 item", "an empty list")
    return _assembled(layout.head_of(header, label, collector), lists)


LABELLER_EXPECTED = (
    "a labeller (on the label, or `labeller` at the top of the file for every label that "
    "names none)"
)
"""What a label without a labeller, in a file without a default one, should have had."""


def _label_defaults(
    kind: str, header: dict[str, Any], collector: ProblemCollector
) -> tuple[Any, ProblemCollector]:
    """A labels file's default labeller, and a collector of its entries' problems apart (see
    `_hinted`); for another kind, None and `collector` itself."""
    if kind != "labels":
        return None, collector
    return valid_labeller(header.get("labeller")), ProblemCollector()


def _hinted(entries: ProblemCollector, collector: ProblemCollector, default: Any) -> None:
    """Pass a file's entry problems on to `collector`, a label's missing labeller pointing at
    the file-level default when there is none."""
    if entries is collector:
        return
    collector.extend(
        [
            replace(p, expected=LABELLER_EXPECTED)
            if default is None and p.field.endswith("label.labeller") and p.found == "nothing"
            else p
            for p in entries.problems
        ]
    )


def _from_jsonl(
    path: Path,
    label: str,
    collector: ProblemCollector,
    wanted: Wanted | None,
    keep: Callable[[Any], Any] | None = None,
) -> tuple[Any, dict[str, list[Any]]]:
    """The header and the lists of items (None and {} when the file's kind cannot be read);
    with `keep`, each item valid is put in its list as `keep(item)`, and one refused has no
    stand-in. The lines' own problems in line order (those of a labels file's entries kept
    apart until `_hinted`), with those of lines not read at all (not UTF-8)."""
    unread = ProblemCollector()
    lines = iter_jsonl(path, label, unread)
    first = next(lines, None)
    if first is None or unread.problems:  # no header line, or one that could not be read
        collector.extend(unread.problems)
        if not unread.problems:
            blank = path.stat().st_size > 0  # read to its end: blank lines, or no byte
            found = "only blank lines" if blank else "an empty file"
            collector.add(label, None, "line 1", HEADER_EXPECTED, found)
        return None, {}
    number, text = first
    parsed, header = parse_line(text, number, label, collector)
    if not parsed:
        return None, {}
    kind = _native_kind(header, label, collector, wanted, f"line {number}: ")
    if kind is None:
        return None, {}
    layout = _LAYOUTS[kind]
    for key in (items.key for items in layout.lists if items.key in header):
        # the lines after the header hold the lists: one in the header would be lost
        expected = f"no {key} in the header line (one record per line after it)"
        collector.add(label, None, f"line {number}: {key}", expected, found_text(header[key]))
    header = {key: value for key, value in header.items() if key not in layout.keys}
    head = layout.head_of(header, label, collector, f"line {number}: ")
    default, entries = _label_defaults(kind, header, collector)[0], unread
    lists: dict[str, list[Any]] = {items.key: [] for items in layout.lists}
    n = number
    for n, line in lines:
        parsed, data = parse_line(line, n, label, entries)
        if not parsed:
            continue
        data = with_default_labeller(data, default)
        items = layout.items_of(data)
        item = validate_item(
            items.model, data, label, entries, items.id_key, f"line {n}: ", items.record
        )
        if keep is not None:
            if item is not None:
                lists[items.key].append(keep(item))
            continue
        if item is None:
            item = items.stand_in(data)
        if item is not None:
            lists[items.key].append(item)
    if layout.filled and n == number and not entries.problems:  # not even an unread line
        expected = "at least one line after the header"
        collector.add(label, None, str(layout.required), expected, "none")
    _hinted(entries, collector, default)
    return head, lists


def _labelled_twice(content: LabelSet | Run, label: str, collector: ProblemCollector) -> None:
    """A labeller labels a claim or fact once in a file (a label file, or a run's own labels):
    a second label of theirs is refused, not merged as a disagreement (`schemas.labelled_twice`).
    A label file's are attached to the run after this, so a label given in both is taken."""
    if isinstance(content, LabelSet):
        groups: Iterable[list[tuple[_Place, Labeller]]] = [
            [((c.question_id, f"claim_labels[{c.claim_id}]", "claim", 0), c.label.labeller)
             for c in content.claim_labels]
            + [((f.question_id, f"fact_labels[{f.label.fact_id}]", "reference fact", 0),
                f.label.labeller) for f in content.fact_labels]
        ]
    else:  # a claim's or fact's labels are in its result: each result apart
        groups = map(_result_labellers, content.results)
    for group in groups:
        _labellers_once(group, label, collector)


def _labellers_once(
    group: Iterable[tuple[_Place, Labeller]], label: str, collector: ProblemCollector
) -> None:
    """A problem per item labelled more than once by one labeller in `group`."""
    who = ((place, by.kind, by.name, by.prompt_version) for place, by in group)
    for (qid, field, noun, _), named in labelled_twice(who):
        expected = f"one label by each labeller for a {noun}"
        collector.add(label, qid, field, expected, f"labelled more than once by {named}")


_Place = tuple[str, str, str, int]
"""A labelled item as `_labelled_twice` names it: question, field, noun and, in a run, the
claim's position (a repeated claim ID is refused on its own)."""


def _result_labellers(res: QuestionResult) -> list[tuple[_Place, Labeller]]:
    """The labellers of a result's own labels, each with its item."""
    qid, claims = res.question_id, res.claims or []
    return [
        ((qid, f"claims[{cid}].labels", "claim", n), lab.labeller)
        for n, (cid, c) in enumerate(zip(claim_ids(c.id for c in claims), claims, strict=True))
        for lab in c.labels
    ] + [((qid, f"fact_labels[{lab.fact_id}]", "reference fact", -1), lab.labeller)
         for lab in res.fact_labels]


@no_cycle_collection()  # a model per record, none in a cycle, as load_dataset reads them
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
    content = None
    if file_suffix(path) == ".jsonl":
        content = _assembled(*_from_jsonl(path, shown, collector, wanted))
    else:
        try:
            data = read_json(path, shown)
        except InputError as exc:
            collector.extend(exc.problems)
        else:
            content = _from_json(data, shown, collector, wanted)
    if isinstance(content, LabelSet | Run):
        _labelled_twice(content, shown, collector)
    rest = None
    if len(collector.problems) > before:
        content, rest = None, content
    kind = "article" if isinstance(content, ArticleDataset) else getattr(content, "kind", "unknown")
    # A file with problems is not hashed: it may be huge, and no report will name it.
    digest = file_sha256(path) if content is not None else ""
    return LoadedFile(SourceFile(shown, kind, digest), content, rest)
