"""trec-eval: one call for the command (kept apart from the evaluation stack, which it
does not need, so the command imports only the TREC reader and scorer)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from typing import TYPE_CHECKING, Literal, get_args

from ..errors import InputError, Problem, choice_problems, flag_problems
from ..executors import ExecutorName, check_ray_address
from ..paths import PathArg, as_names, check_paths

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

    check_paths(("qrels", qrels), ("run", run))
    problems = choice_problems(("--executor", executor, get_args(ExecutorName)))
    problems += flag_problems(("--allow-missing", allow_missing), ("--allow-extra", allow_extra))
    if problems:
        raise InputError(problems)
    chosen = list(as_names(metrics, "metrics")) or list(DEFAULT_TREC_MEASURES)
    check_ray_address(executor, ray_address)
    _refuse_empty(qrels, run)
    policy = QuestionPolicy(allow_missing=allow_missing, allow_extra=allow_extra)
    where = RayExecutor(ray_address) if executor == "ray" else nullcontext(LocalExecutor())
    with where as started:
        return evaluate_trec(
            qrels, run, metrics=chosen, policy=policy, executor=started, averaging=averaging
        )


def _refuse_empty(qrels: PathArg, run: PathArg) -> None:
    """An empty qrels (or run) file would score no question (or every one as an empty
    ranking) and exit 0: refused first, with any file that cannot be read (a pair without
    an empty file goes on to the reader, which reports every problem of both)."""
    from ..formats import first_line_problem

    files: list[tuple[PathArg, Literal["qrels", "run"]]] = [(qrels, "qrels"), (run, "run")]
    problems: list[Problem] = []
    empty = False
    for path, kind in files:
        try:
            problem = first_line_problem(path, kind)
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        if problem is not None:
            problems.append(problem)
            empty = True
    if empty:
        raise InputError(problems)
