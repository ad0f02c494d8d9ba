"""Foreign file formats ragtriage reads and writes directly (TREC qrels and runs)."""

from .trec_files import (
    Qrels,
    TrecRun,
    first_line_problem,
    nothing_to_read,
    parse_qrels,
    parse_run,
    qrels_to_evalset,
    ranking_key,
    read_qrels,
    read_run,
    run_to_native,
    snapshot_for,
    write_qrels,
    write_run,
)

__all__ = [
    "Qrels",
    "TrecRun",
    "first_line_problem",
    "nothing_to_read",
    "parse_qrels",
    "parse_run",
    "qrels_to_evalset",
    "ranking_key",
    "read_qrels",
    "read_run",
    "run_to_native",
    "snapshot_for",
    "write_qrels",
    "write_run",
]
