"""The per-question path behind the command line, for tests that check the engine against it.

`Request.evaluate` scores a native set with the columnar engine (`evaluate_native`). Until
the per-question path (`load_and_evaluate`: the files loaded as models, scored question by
question) is retired to the test oracle, tests run a command both ways and compare the
reports: inside `per_question_path()`, the request hands the same files and options to
`load_and_evaluate` instead, under the same request policy (`Request.score_with`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import ragtriage.columnar
from ragtriage.cli.main import cli
from ragtriage.evaluation import Evaluation, load_and_evaluate
from ragtriage.request import Notify, Request


def _load_and_evaluate(
    evalset: Path,
    snapshot: Path,
    runs: Sequence[Path],
    *,
    executor: object = None,
    **options: Any,
) -> Evaluation:
    """`evaluate_native`'s call, answered by the per-question path."""
    del executor  # where the files are read: nothing to spread here
    return load_and_evaluate(evalset, snapshot=snapshot, runs=runs, **options)


@contextlib.contextmanager
def per_question_path() -> Iterator[None]:
    """Every `Request.evaluate` in the block scores by the per-question path."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ragtriage.columnar, "evaluate_native", _load_and_evaluate)
        yield


def evaluate_per_question(
    request: Request, command: str = "python", notify: Notify | None = None
) -> Evaluation:
    """`request.evaluate(command, notify)` by the per-question path."""
    with per_question_path():
        return request.evaluate(command, notify)


def invoke(algorithm: str, args: Sequence[str]) -> Result:
    """`ragtriage ARGS` by the engine (`columnar`) or the per-question path (`reference`)."""
    with per_question_path() if algorithm == "reference" else contextlib.nullcontext():
        return CliRunner().invoke(cli, list(args))
