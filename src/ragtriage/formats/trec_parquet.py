"""TREC-shaped runs in Parquet: one row per ranked document (needs pyarrow).

Columns: `qid` (string), `docid` (string), `score` (floating point, or integers read as the
text reader reads them: each rounded to the nearest float); other columns are
ignored, as the rank and tag columns of a text run are (ranx's and ir_measures' names are
read too: `trec_records`). The ranking rule is the text format's: score descending, equal
scores by document ID descending (UTF-8 bytes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from .._optional import extra_module
from ..paths import PathArg, as_path
from .trec_files import TrecRun, ranking_key, read_run

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq
else:  # imported at first use: the default install has no pyarrow
    pa = extra_module("pyarrow", "parquet", "writing a Parquet run")
    pq = extra_module("pyarrow.parquet", "parquet", "writing a Parquet run")


def read_run_parquet(path: PathArg) -> TrecRun:
    """Read a Parquet run (`trec_records.parquet_rows`); raise `InputError` listing every
    problem."""
    return read_run(path)


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
