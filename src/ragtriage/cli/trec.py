"""`ragtriage trec-eval`: score any IR system's TREC run against TREC qrels."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import click

from ._common import handle_errors, write_output


@click.command("trec-eval")
@click.argument("qrels", type=click.Path(path_type=Path))
@click.argument("run", type=click.Path(path_type=Path))
@click.option(
    "-m",
    "--metric",
    "metrics",
    multiple=True,
    help="Measure with cut-off: recall@k, precision@k (P@k), hit_rate@k, mrr@k, ndcg@k,"
    " ap@k (map@k); repeatable. Default: recall@10 precision@10 mrr@10 ndcg@10 ap@100.",
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
    type=click.Choice(["relevant", "trec_eval", "trec_eval-c"]),
    default="relevant",
    show_default=True,
    help="Which questions the averages cover. relevant: those with a relevant document"
    " (a question without one is not applicable); trec_eval: trec_eval's default (questions"
    " in both files, no relevant document counts 0; implies --allow-missing --allow-extra,"
    " missing questions left out); trec_eval-c: trec_eval -c (every qrels question, missing"
    " ones count 0).",
)
@click.option(
    "--per-question", is_flag=True, help="Include every question's values in the JSON report."
)
@click.option(
    "--engine",
    type=click.Choice(["local", "ray"]),
    default="local",
    show_default=True,
    help="Where scoring runs.",
)
@click.option(
    "--ray-address",
    default=None,
    help="Ray cluster to join (e.g. ray://head:10001 or auto); default: a private local Ray.",
)
@click.option(
    "--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True
)
@click.option(
    "--output", type=click.Path(path_type=Path), help="Write the report here instead of stdout."
)
@handle_errors
def trec_eval_command(
    qrels: Path,
    run: Path,
    metrics: tuple[str, ...],
    allow_missing: bool,
    allow_extra: bool,
    averaging: str,
    per_question: bool,
    engine: str,
    ray_address: str | None,
    fmt: str,
    output: Path | None,
) -> None:
    """Score the TREC run file RUN against the TREC qrels file QRELS.

    RUN may also be a Parquet file (name ending in .parquet) with columns qid, docid, score.
    """
    from ..columnar import (
        DEFAULT_TREC_MEASURES,
        AveragingRule,
        QuestionPolicy,
        evaluate_trec,
        trec_json,
        trec_table,
    )
    from ..engines import LocalEngine, RayEngine
    from ..render import dumps

    if ray_address is not None and engine != "ray":
        raise click.UsageError("--ray-address needs --engine ray")
    policy = QuestionPolicy(allow_missing=allow_missing, allow_extra=allow_extra)
    chosen = list(metrics) or list(DEFAULT_TREC_MEASURES)
    rule = cast(AveragingRule, averaging)
    if engine == "ray":
        with RayEngine(ray_address) as ray_engine:
            result = evaluate_trec(
                qrels, run, metrics=chosen, policy=policy, engine=ray_engine, averaging=rule
            )
    else:
        result = evaluate_trec(
            qrels, run, metrics=chosen, policy=policy, engine=LocalEngine(), averaging=rule
        )
    text = dumps(trec_json(result, per_question)) if fmt == "json" else trec_table(result)
    write_output(text, output)
