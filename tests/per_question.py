"""The per-question path behind the command line, for tests that check the engine against it.

`Request.evaluate` scores native files with the columnar engine. Until the per-question path
(`load_dataset`, then `evaluate` question by question) is retired to the test oracle, tests run
a command both ways and compare the reports: inside `per_question_path()`, every command
loads the files as models and scores them with `Request.evaluate_loaded`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import pytest
from click.testing import CliRunner, Result

from ragtriage.cli.main import cli
from ragtriage.evaluation import Evaluation
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
    loaded = request.load(command, notify, example_runs_once=example_runs_once)
    return request.evaluate_loaded(loaded, metrics, notify)


@contextmanager
def per_question_path() -> Iterator[None]:
    """Every `Request.evaluate` in the block goes through the per-question path."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Request, "evaluate", evaluate_per_question)
        yield


def invoke(algorithm: str, args: Sequence[str]) -> Result:
    """`ragtriage ARGS` by the engine (`columnar`) or the per-question path (`reference`)."""
    with per_question_path() if algorithm == "reference" else contextlib.nullcontext():
        return CliRunner().invoke(cli, list(args))
