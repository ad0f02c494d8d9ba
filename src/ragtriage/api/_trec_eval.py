"""trec-eval: one call for the command (kept apart from the evaluation stack, which it
does not need, so the command imports only the TREC reader and scorer)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import RequestError
from ..executors import ExecutorName
from ..paths import PathArg

if TYPE_CHECKING:
    from ..columnar import AveragingRule, TrecEvaluation


def trec_eval_files(
    qrels: PathArg,
    run: PathArg,
    *,
    metrics: Sequence[str] = (),
    allow_missing: bool = False,
    allow_extra: bool = False,
    averaging: AveragingRule = "relevant",
    executor: ExecutorName = "local",
    ray_address: str | None = None,
) -> TrecEvaluation:
    """`ragtriage trec-eval QRELS RUN ...`: rank measures of a TREC run against TREC qrels."""
    from ..columnar import DEFAULT_TREC_MEASURES, QuestionPolicy, evaluate_trec
    from ..executors import LocalExecutor, RayExecutor

    if ray_address is not None and executor != "ray":
        raise RequestError("--ray-address needs --executor ray")
    policy = QuestionPolicy(allow_missing=allow_missing, allow_extra=allow_extra)
    chosen = list(metrics) or list(DEFAULT_TREC_MEASURES)
    if executor == "ray":
        with RayExecutor(ray_address) as ray_engine:
            return evaluate_trec(
                qrels, run, metrics=chosen, policy=policy, engine=ray_engine, averaging=averaging
            )
    return evaluate_trec(
        qrels, run, metrics=chosen, policy=policy, engine=LocalExecutor(), averaging=averaging
    )
