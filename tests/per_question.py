"""The per-question path behind the command line, for tests that check the engine against it.

`Request.evaluate` scores a native set with the columnar engine. Until the per-question path
(`load_and_evaluate`: the files loaded as models, scored question by question) is retired to
the test oracle, tests run a command both ways and compare the reports: inside
`per_question_path()`, every command scores native sets by that path, under the same request
policy (`Request.score_with`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

import pytest
from click.testing import CliRunner, Result

from ragtriage.calibration import read_calibrations
from ragtriage.cli.main import cli
from ragtriage.evaluation import Evaluation, QuestionFilter, load_and_evaluate
from ragtriage.metrics import measures
from ragtriage.request import Notify, Request


def evaluate_per_question(
    request: Request,
    command: str = "python",
    notify: Notify | None = None,
    *,
    metrics: Sequence[str] | None = None,
    example_runs_once: bool = False,
) -> Evaluation:
    """`request.evaluate(...)` by the per-question path."""
    names = request.metric_names if metrics is None else list(metrics)
    measures(names)
    files = request.files(example_runs_once=example_runs_once)
    calibrations = read_calibrations(request.calibrations)

    def score(keep: QuestionFilter, held: QuestionFilter) -> Evaluation:
        return load_and_evaluate(
            files.dataset, snapshot=files.snapshot, runs=files.runs, labels=request.labels,
            versions=request.versions, question_filter=keep, input_filter=held, k=request.k,
            metrics=names, label_policy=request.label_policy,
            allow_unreviewed=request.allow_unreviewed, evidence_level=request.evidence_level,
            accept_self_labelling=request.accept_self_labelling,
            allow_missing=request.allow_missing, calibrations=calibrations,
        )

    result = request.score_with(score, command, notify)
    request.note_unused_k(result, notify)
    return result


@contextlib.contextmanager
def per_question_path() -> Iterator[None]:
    """Every `Request.evaluate` in the block goes through the per-question path."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Request, "evaluate", evaluate_per_question)
        yield


def invoke(algorithm: str, args: Sequence[str]) -> Result:
    """`ragtriage ARGS` by the engine (`columnar`) or the per-question path (`reference`)."""
    with per_question_path() if algorithm == "reference" else contextlib.nullcontext():
        return CliRunner().invoke(cli, list(args))
