"""The qrels and runs the peers' libraries write, as the fields of TREC lines.

A file's format is told by its first bytes (`file_kind`): `PAR1` Parquet, `1f 8b` gzip
(TREC text inside), `{` first (after blanks) a JSON object, else TREC text. JSON is ranx's
`save("run.json")` and pytrec_eval's dictionaries, `{"q1": {"d1": 1, ...}, ...}` (grades
integers, scores numbers); Parquet qrels are ranx's (`q_id`, `doc_id`, `score`) or
ir_measures' (`query_id`, `doc_id`, `relevance`). Each (question, document) pair becomes the
fields of one TREC line, numbered `record N` (JSON) or `row N` (Parquet, runs too), and the TREC
reader's checks then apply to it as to a line.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Literal

from .._optional import extra_module
from ..errors import InputError, ProblemCollector
from ..fileio import open_input, read_json
from ..paths import PathArg

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq
else:  # imported at first use: the default install has no pyarrow
    pa = extra_module("pyarrow", "parquet", "reading a Parquet run or qrels")
    pq = extra_module("pyarrow.parquet", "parquet", "reading a Parquet run or qrels")

FileKind = Literal["text", "gzip", "json", "parquet"]
UNITS = {"text": "line", "gzip": "line", "json": "record", "parquet": "row"}
"""What a place in a file of each kind is called in messages."""
QUESTION_COLUMNS = ("qid", "q_id", "query_id")
DOCUMENT_COLUMNS = ("docid", "doc_id")
GRADE_COLUMNS = ("grade", "relevance", "score")
"""Column names of Parquet qrels and runs (ragtriage's, ranx's, ir_measures'), first found used."""
Records = Iterator[tuple[int, list[str]]]
"""(record or row number, the fields of the TREC line it stands for)."""

TOKEN = "a TREC field: non-empty, without whitespace or NUL"
"""What `is_token` accepts, as messages say it."""
FIRST_TOKEN = TOKEN + ", not starting with #"
"""What `is_token(..., first=True)` accepts, as messages say it."""


def is_token(value: object, first: bool = False) -> bool:
    """Whether `value` can be written as one field of a TREC line and read back as itself:
    a str (a Python caller's 5 is none), non-empty, no character `str.split()` splits on, no
    NUL (refused in any text file) and, as a line's first field (`first`, the question ID),
    no `#` first (a comment line)."""
    return (
        isinstance(value, str)
        and value.split() == [value]
        and "\x00" not in value
        and not (first and value.startswith("#"))
    )


def tokens(parts: list[str], place: str, shown: str, collector: ProblemCollector) -> bool:
    """Whether a record's question and document IDs can stand in a TREC line (else a problem)."""
    for index, what, expected in ((0, "question ID", FIRST_TOKEN), (2, "document ID", TOKEN)):
        if not is_token(parts[index], first=index == 0):
            collector.add(shown, parts[0], f"{place}: {what}", expected, repr(parts[index]))
            return False
    return True


def file_kind(path: PathArg) -> FileKind:
    """The format of a TREC input by its first bytes ("text" when it cannot be read)."""
    try:
        with open_input(path) as handle:
            head = handle.read(4096)
    except InputError:  # the reader names the problem
        return "text"
    if head.startswith(b"PAR1"):
        return "parquet"
    if head.startswith(b"\x1f\x8b"):
        return "gzip"
    return "json" if head.removeprefix(b"\xef\xbb\xbf").lstrip()[:1] == b"{" else "text"


def _json_type(value: object) -> str:
    kinds = ((bool, "true or false"), (str, "a string"), (list, "an array"), (dict, "an object"))
    found = next((name for kind, name in kinds if isinstance(value, kind)), None)
    return "null" if value is None else f"{found} ({value!r:.40})" if found else repr(value)


_STARTS_JSON = "the file starts with {, so it is read as a JSON qrels or run, as ranx writes one"


def json_rows(
    path: PathArg, run: bool, collector: ProblemCollector, seen: set[str] | None = None
) -> Records:
    """(record number, TREC fields) of each (question, document) pair of a JSON object;
    `seen`, when given, receives every question ID, valid or not."""
    shown = str(path)
    try:
        data = read_json(path, shown)
    except InputError as exc:  # told by its first character: say so, as a TREC file may start so
        raise InputError([
            replace(p, expected=f"{p.expected} ({_STARTS_JSON})")
            if p.expected == "valid JSON" else p
            for p in exc.problems
        ]) from None
    value = "score" if run else "grade"
    if not isinstance(data, dict) or not data:
        expected = f"an object of question IDs, each an object of document IDs to {value}s"
        collector.add(shown, None, "(file)", expected, _json_type(data))
        return
    number = 0
    for qid, documents in data.items():
        if seen is not None:
            seen.add(qid)
        if not isinstance(documents, dict) or not documents:
            expected = f"an object of document IDs to {value}s, at least one"
            collector.add(shown, qid, "(question)", expected, _json_type(documents))
            continue
        for docid, given in documents.items():
            number += 1
            number_ok = isinstance(given, int | float) if run else isinstance(given, int)
            if isinstance(given, bool) or not number_ok:
                expected = "a number" if run else "an integer"
                collector.add(shown, qid, f"record {number}: {value}", expected, _json_type(given))
                continue
            yield number, ([qid, "Q0", docid, "0", repr(given), "json"] if run
                           else [qid, "0", docid, str(given)])


def parquet_columns(
    schema: pa.Schema, run: bool, label: str, collector: ProblemCollector
) -> list[str] | None:
    """The question, document and score (`run`) or grade columns, each the first of its names
    present; None, with a problem per missing or mistyped column."""
    names, before = [], len(collector.problems)
    for wanted in (QUESTION_COLUMNS, DOCUMENT_COLUMNS, ("score",) if run else GRADE_COLUMNS):
        name = next((name for name in wanted if name in schema.names), wanted[0])
        names.append(name)
        if name not in schema.names:
            found = f"no such column (the file has {', '.join(schema.names) or 'none'})"
            collector.add(label, None, f"column {name}", f"a column {' or '.join(wanted)}", found)
            continue
        kind = schema.field(name).type
        expected, ok = (
            ("numbers", pa.types.is_floating(kind) or pa.types.is_integer(kind))
            if wanted == ("score",)
            else ("integers", pa.types.is_integer(kind)) if wanted is GRADE_COLUMNS
            else ("strings", pa.types.is_string(kind) or pa.types.is_large_string(kind))
        )
        if not ok:
            collector.add(label, None, f"column {name}", expected, str(kind))
    return None if len(collector.problems) > before else names


def parquet_rows(
    path: PathArg, run: bool, collector: ProblemCollector, seen: set[str] | None = None
) -> Records:
    """(row number, TREC fields) of each row of a Parquet run or qrels (`parquet_columns`);
    `seen`, when given, receives every question ID, valid or not."""
    shown = str(path)
    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        collector.add(shown, None, "(file)", "a Parquet file", str(exc).splitlines()[0])
        return
    names = parquet_columns(table.schema, run, shown, collector)
    if names is None:
        return
    if not table.num_rows:  # it would score no question (or each as an empty ranking)
        expected = f"at least one row ({', '.join(names)})"
        collector.add(shown, None, "(file)", expected, "a table without rows")
    columns = [table[name].to_pylist() for name in names]
    value_field = ("score", "a finite number") if run else ("grade", "an integer")
    fields = (("question ID", FIRST_TOKEN), ("document ID", TOKEN), value_field)
    for number, row in enumerate(zip(*columns, strict=True), start=1):
        qid, docid, value = row
        if seen is not None and qid:
            seen.add(qid)
        for (field, expected), cell in zip(fields, row, strict=True):
            if cell is None:  # named as the JSON reader names it
                collector.add(shown, qid, f"row {number}: {field}", expected, "null")
        if None not in row:
            yield number, ([qid, "Q0", docid, "0", repr(value), "parquet"] if run
                           else [qid, "0", docid, str(value)])
