"""TREC-shaped runs in Parquet: one row per ranked document (needs pyarrow).

Columns: `qid` (string), `docid` (string), `score` (floating point); other columns are
ignored, as the rank and tag columns of a text run are. The ranking rule is the text format's:
score descending, equal scores by document ID descending (UTF-8 bytes).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from .._optional import extra_module
from ..errors import InputError, ProblemCollector
from ..fileio import check_input
from ..paths import PathArg, as_path
from .trec_files import TrecRun, parse_run, ranking_key, repeated_document
from .trec_records import DOCUMENT_COLUMNS, QUESTION_COLUMNS, file_kind

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq
else:  # imported at first use: the default install has no pyarrow
    pa = extra_module("pyarrow", "parquet", "reading a Parquet run")
    pq = extra_module("pyarrow.parquet", "parquet", "reading a Parquet run")

PARQUET_COLUMNS = ("qid", "docid", "score")
"""The columns a Parquet run must have."""


def run_columns(schema: pa.Schema) -> list[str]:
    """The question, document and score columns: ragtriage's names, ranx's or ir_measures'."""
    wanted = (QUESTION_COLUMNS, DOCUMENT_COLUMNS, ("score",))
    return [next((name for name in names if name in schema.names), names[0]) for names in wanted]


def schema_problems(schema: pa.Schema, label: str, collector: ProblemCollector) -> bool:
    """Record a problem per missing or mistyped column; True when the schema is usable."""
    ok = True
    for name in run_columns(schema):
        if name not in schema.names:
            found = f"no such column (the file has {', '.join(schema.names) or 'none'})"
            collector.add(label, None, f"column {name}", "present", found)
            ok = False
            continue
        kind = schema.field(name).type
        wanted = pa.types.is_floating if name == "score" else pa.types.is_string
        if not (wanted(kind) or (name != "score" and pa.types.is_large_string(kind))):
            expected = "floating-point numbers" if name == "score" else "strings"
            collector.add(label, None, f"column {name}", expected, str(kind))
            ok = False
    return ok


def parse_run_parquet(
    path: PathArg,
    collector: ProblemCollector,
    seen: set[str] | None = None,
) -> TrecRun:
    """Read a Parquet run row by row, reporting every problem with its row number (from 1)."""
    path = as_path(path)
    shown = str(path)
    try:
        check_input(path, shown)
        table = pq.read_table(path)
    except InputError as exc:
        collector.extend(exc.problems)
        return {}
    except FileNotFoundError:
        collector.add(shown, None, "(file)", "an existing file", "no such file")
        return {}
    except (pa.ArrowInvalid, OSError) as exc:
        collector.add(shown, None, "(file)", "a Parquet file", str(exc).splitlines()[0])
        return {}
    if not schema_problems(table.schema, shown, collector):
        return {}
    if not table.num_rows:  # it would score no question (or each as an empty ranking)
        expected = f"at least one row ({', '.join(PARQUET_COLUMNS)})"
        collector.add(shown, None, "(file)", expected, "a table without rows")
        return {}
    run: TrecRun = {}
    first_row: dict[tuple[str, str], int] = {}
    columns = [table[name].to_pylist() for name in run_columns(table.schema)]
    for number, (qid, docid, score) in enumerate(zip(*columns, strict=True), start=1):
        if qid is not None and seen is not None:
            seen.add(qid)
        for name, value in (("qid", qid), ("docid", docid)):
            if not value or any(ch.isspace() for ch in value):
                collector.add(
                    shown,
                    qid,
                    f"row {number}: {name}",
                    "a non-empty ID without whitespace",
                    repr(value),
                )
        if score is None or not math.isfinite(score):
            collector.add(shown, qid, f"row {number}: score", "a finite number", repr(score))
            continue
        if not qid or not docid:
            continue
        expected = "each document at most once per question"
        if repeated_document(
            first_row, qid, docid, number, expected, shown, collector, unit="row", field="docid"
        ):
            continue
        run.setdefault(qid, []).append((docid, float(score)))
    return {qid: sorted(items, key=ranking_key, reverse=True) for qid, items in run.items()}


def parse_run_file(
    path: PathArg, collector: ProblemCollector, seen: set[str] | None, comments: list[int]
) -> TrecRun:
    """A run by its first bytes (`file_kind`): Parquet (no comments), else `parse_run`'s."""
    if file_kind(as_path(path)) == "parquet":
        return parse_run_parquet(path, collector, seen)
    return parse_run(path, collector, seen, comments)


def read_run_parquet(path: PathArg) -> TrecRun:
    """Read a Parquet run; raise `InputError` listing every problem."""
    collector = ProblemCollector()
    run = parse_run_parquet(path, collector)
    collector.raise_if_any()
    return run


def write_run_parquet(run: Mapping[str, Sequence[tuple[str, float]]], path: PathArg) -> None:
    """Write a run as Parquet, questions sorted and each ranking in trec_eval order."""
    path = as_path(path)
    qids: list[str] = []
    docids: list[str] = []
    scores: list[float] = []
    for qid in sorted(run):
        for docid, score in sorted(run[qid], key=ranking_key, reverse=True):
            qids.append(qid)
            docids.append(docid)
            scores.append(float(score))
    table = pa.table(
        {
            "qid": pa.array(qids, pa.string()),
            "docid": pa.array(docids, pa.string()),
            "score": pa.array(scores, pa.float64()),
        }
    )
    pq.write_table(table, path)
