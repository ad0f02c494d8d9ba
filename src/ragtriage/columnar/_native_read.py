"""Read a native evaluation set and native runs (JSON or JSONL files, or models held in
memory, as their JSON form) straight into arrays.

Each record is parsed as plain JSON (orjson) and checked by
`_native_checks`; IDs become integer codes of the snapshot (`Codes`). No pydantic object is
built per question. Any problem (a shape the schema refuses, or one of the semantic rules
of `validation.check_dataset`) raises `_Fallback`: the caller then runs the loader,
which reports every problem with its usual message.

"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any, BinaryIO, Generic, TypeVar

import numpy as np
from pydantic import BaseModel, ValidationError

from ..errors import InputError
from ..fileio import MAX_LINE_BYTES, check_input, iter_lines, open_input, read_bytes, strip_bom
from ..schemas import EvalSet
from ._native_checks import ANSWERABILITY, applies_ok, canary_ok, loads, question_ok
from ._native_checks import ids as id_list_ok
from ._trec import _Fallback

VERSION_TAG = "version-conflict"


@dataclass(frozen=True)
class Codes:
    """Snapshot IDs as integers: documents first, then chunks."""

    code: dict[str, int]
    """ID -> code."""
    n_documents: int
    """Codes below this are documents."""
    document_of: np.ndarray
    """Code -> its document's code."""
    stale: np.ndarray
    """Code -> the document is superseded or withdrawn."""
    access: np.ndarray
    """Code -> bit masks of the access groups that may read its document (one int64 word per
    62 groups, as `group_bits` places them)."""
    restricted: np.ndarray
    """Code -> its document names access groups (False: readable by anyone)."""
    doc_version: np.ndarray
    """Code -> its document's version (an index into `versions`), -1 when it has none."""
    versions: dict[str, int]
    """Version string -> index."""
    group_bits: dict[str, tuple[int, int]]
    """Access group -> (its word, its bit in that word)."""
    start: np.ndarray
    """Code -> a chunk's first character in its document; -1 for a document (all of it)."""
    end: np.ndarray
    """Code -> one past a chunk's last character; `WHOLE` for a document."""


WHOLE = np.iinfo(np.int64).max
"""The end of a document's span (`Codes.end`): past every chunk's."""


def records(
    path: Path, kind: str, list_key: str, span: tuple[int, int] | None = None
) -> tuple[dict[str, Any], Iterator[Any]]:
    """A file's header (without the record list) and its records as parsed JSON.

    `span` (JSONL only): read only the records whose lines start in [start, end) bytes.
    """
    if path.suffix == ".jsonl":
        label = str(path)
        handle = _open(path)
        try:
            first = _first_line(handle, label)
        except InputError as exc:
            handle.close()
            raise _Fallback("header") from exc
        header = loads(first) if first else None
        if type(header) is not dict:
            handle.close()
            raise _Fallback("header")
        if span is not None:
            handle.seek(span[0])
        lines = _lines(handle, label, None if span is None else span[1])
        return header, _closing(handle, (loads(line) for line in lines if line.strip()))
    try:
        data = loads(strip_bom(read_bytes(path), str(path)))
    except InputError as exc:
        raise _Fallback("document") from exc
    if type(data) is not dict or type(data.get(list_key)) is not list:
        raise _Fallback("document")
    header = {key: value for key, value in data.items() if key != list_key}
    return header, iter(data[list_key])


def _open(path: Path) -> BinaryIO:
    try:
        return open_input(path)
    except InputError as exc:
        raise _Fallback("file") from exc


def _first_line(handle: BinaryIO, label: str) -> bytes:
    """The first non-blank line (UTF-8 byte order mark removed), or b"" at the end."""
    for number, line in iter_lines(handle, label):
        if line.strip():
            return strip_bom(line, label) if number == 1 else line
    return b""


def _lines(handle: BinaryIO, label: str, end: int | None) -> Iterator[bytes]:
    """Lines up to byte `end`; a line past the bound or an unreadable file falls back."""
    try:
        for _, line in iter_lines(handle, label, end):
            yield line
    except InputError as exc:
        raise _Fallback("line") from exc


def spans(
    path: Path, parts: int, min_bytes: int | None = None
) -> list[tuple[int, int]] | None:
    """Cut a JSONL file's records into about equal byte ranges on line starts (None: keep
    the file whole: a JSON document, or smaller than `min_bytes`, default 8 MiB, not worth
    splitting)."""
    try:
        size = check_input(path)
    except InputError:
        return None  # reading the file whole names the problem
    limit = _SPLIT_BYTES if min_bytes is None else min_bytes
    if path.suffix != ".jsonl" or parts < 2 or size < limit:
        return None
    with _open(path) as handle:
        try:
            _first_line(handle, str(path))
        except InputError as exc:
            raise _Fallback("header") from exc
        cuts = [handle.tell()]
        for n in range(1, parts):
            handle.seek(max(cuts[-1], size * n // parts))
            if len(handle.readline(MAX_LINE_BYTES + 1)) > MAX_LINE_BYTES:
                raise _Fallback("line")
            cuts.append(max(cuts[-1], handle.tell()))
    cuts.append(size)
    return list(pairwise(cuts))


_SPLIT_BYTES = 8 << 20


def _closing(handle: Any, items: Iterator[Any]) -> Iterator[Any]:
    with handle:
        yield from items


def record_at(path: Path, kind: str, list_key: str, wanted: set[int]) -> dict[int, Any]:
    """The records at these positions (0-based, header excluded), parsed again (in a JSONL
    file, only the wanted lines are parsed)."""
    if path.suffix != ".jsonl":
        _, items = records(path, kind, list_key)
        return {n: item for n, item in enumerate(items) if n in wanted}
    out: dict[int, Any] = {}
    with _open(path) as handle:
        lines = (line for line in _lines(handle, str(path), None) if line.strip())
        next(lines, None)  # the header
        for n, line in enumerate(lines):
            if n in wanted:
                out[n] = loads(line)
    return out


class Rereader:
    """A file's records read again a few at a time by position (0-based, header excluded):
    in a JSONL file each record's line is found by its byte offset (one pass over the lines
    to find them), so no read holds more than the records asked for."""

    def __init__(self, path: Path, kind: str, list_key: str) -> None:
        self._where = (path, kind, list_key)
        self._starts: list[int] | None = None
        if path.suffix == ".jsonl":
            starts, at, header = [], 0, True
            with _open(path) as handle:
                for line in handle:
                    if line.strip():
                        if not header:
                            starts.append(at)
                        header = False
                    at += len(line)
            self._starts = starts

    def at(self, wanted: Iterable[int]) -> dict[int, Any]:
        """The records at these positions, parsed."""
        path, kind, list_key = self._where
        if self._starts is None:
            return record_at(path, kind, list_key, set(wanted))
        out: dict[int, Any] = {}
        at = -1
        with _open(path) as handle:
            for n in sorted(set(wanted), key=self._starts.__getitem__):
                start = self._starts[n]
                if start != at:  # a seek drops the read buffer: only where a line is skipped
                    handle.seek(start)
                line = handle.readline()
                at = start + len(line)
                out[n] = loads(line)
        return out


M = TypeVar("M", bound=BaseModel)


class FileRecords:
    """A native file's records (an evaluation set's questions, a run's results): parsed from
    the file (a byte range of a JSONL file at a time), and read again by position as models."""

    def __init__(self, path: Path, kind: str, list_key: str) -> None:
        self.path = path
        self.kind = kind
        self.list_key = list_key
        self.label = str(path)
        """What the result names as the records' file."""
        self._again: Rereader | None = None

    def read(self, span: tuple[int, int] | None = None) -> tuple[dict[str, Any], Iterator[Any]]:
        """The header and the records (those of `span`, see `records`) as parsed JSON."""
        return records(self.path, self.kind, self.list_key, span)

    def spans(self, parts: int, min_bytes: int | None = None) -> list[tuple[int, int]] | None:
        """Byte ranges to read apart (see `spans`)."""
        return spans(self.path, parts, min_bytes)

    def models(
        self, wanted: Iterable[int], make: Callable[[Any], M]
    ) -> dict[int, M]:
        """The records at these positions, read again and made into models by `make`."""
        if self._again is None:
            self._again = Rereader(self.path, self.kind, self.list_key)
        order = list(wanted)
        found = self._again.at(order)
        return {n: make(found[n]) for n in order}

    def held(self) -> Sequence[Any] | None:
        """Models held in memory (None: read from the file when asked)."""
        return None


class ModelRecords(Generic[M]):
    """Records held as validated models (a `Dataset` in memory): read as their JSON form, the
    models themselves given back when asked for."""

    def __init__(self, header: dict[str, Any], items: Sequence[M], label: str) -> None:
        self._header = header
        self._items = items
        self.label = label
        """What the result names as the records' file."""

    def read(self, span: tuple[int, int] | None = None) -> tuple[dict[str, Any], Iterator[Any]]:
        """The header and every record, as the models' JSON form (never split)."""
        return self._header, (item.model_dump(mode="json") for item in self._items)

    def spans(self, parts: int, min_bytes: int | None = None) -> list[tuple[int, int]] | None:
        """None: read whole."""
        return None

    def models(self, wanted: Iterable[int], make: Callable[[Any], M]) -> dict[int, M]:
        """The models at these positions, as held."""
        return {n: self._items[n] for n in wanted}

    def held(self) -> Sequence[M] | None:
        """The models."""
        return self._items


Records = FileRecords | ModelRecords[Any]
"""Where a reader's records come from."""


@dataclass(frozen=True)
class EvalColumns:
    """An evaluation set as arrays, rows in file order."""

    ids: list[str]
    row_of: dict[str, int]
    answerability: np.ndarray
    tags: list[tuple[str, ...]]
    split: list[str]
    group_offsets: np.ndarray
    """Row r's groups are group_offsets[r]:group_offsets[r + 1]."""
    group_grade: np.ndarray
    alt_group: np.ndarray
    """Per alternative ID of every group: its group (global index)."""
    alt_code: np.ndarray
    facts: list[tuple[str, ...]]
    fact_offsets: np.ndarray
    level_document: np.ndarray
    """Auto evidence level per row: every required ID is a document."""
    asked: np.ndarray
    """The question names its asker's user groups (permission checks apply)."""
    user_mask: np.ndarray
    """Per row, the bit masks of the asker's access groups (`Codes.group_bits`): one int64
    word per 62 groups; 0 when the question names none."""
    version_question: np.ndarray
    """Tagged `version-conflict` or bound to a version by `applies_to`."""
    wanted_version: np.ndarray
    """Index of `applies_to.version` in `Codes.versions` (-1: none; -2: a version no
    document has)."""
    canary_document: np.ndarray
    """Code of the canary's document (-2: no canary; -1: a document the snapshot lacks)."""
    canary_marker: dict[int, str]
    """Row -> its canary's marker, for rows with a canary."""
    evalset_id: str = ""
    """The evaluation set's `evalset_id`."""


def read_evalset(
    source: Records, codes: Codes, span: tuple[int, int] | None = None
) -> EvalColumns:
    """Read and check an evaluation set (or a `span` of it); raise `_Fallback` on any problem."""
    header, items = source.read(span)
    if header.get("kind") != "evalset" or header.get("schema_version") != 1:
        raise _Fallback("evalset kind")
    try:
        EvalSet.model_validate({**header, "questions": []})
    except ValidationError as exc:
        raise _Fallback("evalset header") from exc
    code = codes.code
    ids: list[str] = []
    row_of: dict[str, int] = {}
    answerability = array("q")
    tags: list[tuple[str, ...]] = []
    split: list[str] = []
    n_groups = array("q")
    grades = array("q")
    alt_group = array("q")
    alt_code = array("q")
    facts: list[tuple[str, ...]] = []
    asked = array("q")
    user_mask = array("q")
    version_question = array("q")
    wanted_version = array("q")
    canary_document = array("q")
    canary_marker: dict[int, str] = {}
    bits, words = codes.group_bits, codes.access.shape[1]
    level = array("q")
    n_docs = codes.n_documents
    for q in items:
        if not question_ok(q):
            raise _Fallback("question shape")
        qid = q["id"]
        if row_of.setdefault(qid, len(ids)) != len(ids):
            raise _Fallback("duplicate question")
        ids.append(qid)
        kind = ANSWERABILITY[q["answerability"]]
        answerability.append(kind)
        groups = q.get("required_evidence", [])
        fact_list = q.get("reference_facts", [])
        if (kind == 1 and (groups or fact_list)) or (kind == 0 and not groups):
            raise _Fallback("answerability")
        all_docs = True
        for group in groups:
            alternatives = group["any_of"]
            found = [code.get(i, -1) for i in alternatives]
            if len(set(alternatives)) < len(alternatives) or min(found) < 0:
                raise _Fallback("evidence IDs")
            all_docs = all_docs and max(found) < n_docs
            alt_code.extend(found)
            alt_group.extend([len(grades)] * len(found))
            grades.append(group.get("grade", 1))
        n_groups.append(len(groups))
        fact_ids = tuple(f["id"] for f in fact_list)
        if len(set(fact_ids)) < len(fact_ids):
            raise _Fallback("duplicate facts")
        for fact in fact_list:
            if any(i not in code for i in fact.get("evidence", ())):
                raise _Fallback("fact evidence")
        facts.append(fact_ids)
        tag_list = tuple(q.get("tags", ()))
        tags.append(tag_list)
        split.append(q.get("split", "dev"))
        level.append(all_docs)
        users = q.get("user_groups")
        if users is not None and not id_list_ok(users):
            raise _Fallback("user_groups")
        asked.append(users is not None)
        masks = [0] * words
        for group in set(users or ()):
            if group in bits:  # a group no document names opens nothing
                word, bit = bits[group]
                masks[word] |= bit
        user_mask.extend(masks)
        applies, canary = q.get("applies_to"), q.get("canary")
        wanted = -1
        if applies is not None:
            if not applies_ok(applies):
                raise _Fallback("applies_to")
            if applies.get("version") is not None:
                wanted = codes.versions.get(applies["version"], -2)
        wanted_version.append(wanted)
        version_question.append(wanted != -1 or VERSION_TAG in tag_list)
        if canary is None:
            canary_document.append(-2)
        elif not canary_ok(canary):
            raise _Fallback("canary")
        else:
            where = code.get(canary["document_id"], -1)
            canary_document.append(-1 if where < 0 else int(codes.document_of[where]))
            canary_marker[len(ids) - 1] = canary["marker"]
    return EvalColumns(
        ids,
        row_of,
        np.array(answerability, dtype=np.int8),
        tags,
        split,
        _offsets(n_groups),
        np.array(grades, dtype=np.int64),
        np.array(alt_group, dtype=np.int64),
        np.array(alt_code, dtype=np.int64),
        facts,
        _offsets([len(f) for f in facts]),
        np.array(level, dtype=bool),
        np.array(asked, dtype=bool),
        np.array(user_mask, dtype=np.int64).reshape(-1, words),
        np.array(version_question, dtype=bool),
        np.array(wanted_version, dtype=np.int64),
        np.array(canary_document, dtype=np.int64),
        canary_marker,
        header["evalset_id"],
    )


def _offsets(counts: Sequence[int]) -> np.ndarray:
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(np.array(counts, dtype=np.int64), out=out[1:])
    return out
