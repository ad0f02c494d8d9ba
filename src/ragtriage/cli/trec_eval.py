"""`ragtriage trec-eval`: score any IR system's TREC run against TREC qrels."""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args

import click

from ..validation import AveragingRule
from ._common import (
    examples,
    executor_options,
    handle_errors,
    held,
    report_options,
    write_output,
)
from ._parsing import Command


@click.command(
    "trec-eval",
    cls=Command,
    epilog=examples(
        "ragtriage trec-eval q.qrels bm25.run",
        "ragtriage trec-eval q.qrels bm25.run -m ndcg@10 -m recall@100 --format json -o bm25.json",
        "ragtriage trec-eval q.qrels big.parquet --per-question --executor ray --format json "
        "-o big.json",
    ),
)
@click.argument("qrels", type=click.Path(path_type=Path))
@click.argument("run", type=click.Path(path_type=Path))
@click.option(
    "-m",
    "--metric",
    "metrics",
    multiple=True,
    # The registry's rank measures (`metrics.rank_measure_names()`) and the default set,
    # written out so help needs no import of the registry; a test checks both.
    help="Measure with cut-off: recall@k (recall_candidates@k), precision@k (P@k), hit_rate@k"
    " (success@k), mrr@k (rr@k, recip_rank@k), ndcg@k, ap@k (context_precision@k, map@k);"
    " repeatable (names are case-insensitive; docs/metrics.md defines each). Default:"
    " recall@10 precision@10 mrr@10 ndcg@10 ap@100.",
)
@click.option(
    "--allow-missing",
    is_flag=True,
    help="Score qrels questions absent from the run as empty rankings"
    " instead of refusing the input.",
)
@click.option(
    "--allow-extra",
    is_flag=True,
    help="Skip run questions the qrels do not judge instead of refusing the input.",
)
@click.option(
    "--averaging",
    type=click.Choice(get_args(AveragingRule)),
    default="relevant",
    help="Which questions the averages cover. relevant: those with a relevant document"
    " (a question without one is not applicable); trec_eval: trec_eval's default (questions"
    " in both files, no relevant document counts 0; implies --allow-missing --allow-extra,"
    " missing questions left out); trec_eval-c: trec_eval -c (every qrels question, missing"
    " ones count 0).",
)
@click.option(
    "--per-question", is_flag=True, help="Include every question's values in the JSON report."
)
@executor_options
@report_options(("table", "json"))
@handle_errors
def trec_eval_command(per_question: bool, fmt: str, output: Path | None, **options: Any) -> None:
    """Score the TREC run file RUN against the TREC qrels file QRELS.

    Either may also be gzipped TREC text, ranx's or pytrec_eval's JSON ({"q1": {"d1": 1}}) or
    Parquet (columns qid/q_id/query_id, docid/doc_id, and score or, qrels, grade/relevance),
    told by the first bytes.
    """
    from ..api import trec_eval_files
    from ..render import trec_json_text, trec_table
    from ._common import terminal_width

    if per_question and fmt != "json":  # the table has no per-question part to hold them
        raise click.UsageError("--per-question needs --format json (the table shows the means)")
    result = held(trec_eval_files(**options))
    if fmt == "json":
        text = trec_json_text(result, per_question)
    else:
        text = trec_table(result, terminal_width())
    write_output(text, output)
