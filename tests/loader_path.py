"""The loader behind the command line, for tests that check the file reader against it.

`Request.evaluate` reads a native set straight into arrays with the file reader
(`columnar.evaluate_native`).
Inside `loader_path()`, the request hands the same files and options to
`columnar.load_and_evaluate` instead: the files read by the loader as models, then scored by
the same engine, under the same request policy (`Request.score_with`). Tests run a command
both ways and compare the reports byte for byte.
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
from ragtriage.columnar import evaluate_native, load_and_evaluate
from ragtriage.errors import InputError, Problem
from ragtriage.evaluation import Evaluation
from ragtriage.render import dumps, evaluation_json
from ragtriage.request import Notify, Request


def _load_and_evaluate(
    evalset: Path,
    snapshot: Path,
    runs: Sequence[Path],
    *,
    executor: object = None,
    **options: Any,
) -> Evaluation:
    """`evaluate_native`'s call, answered by the loader."""
    del executor  # where the files are read: nothing to spread here
    return load_and_evaluate(evalset, snapshot=snapshot, runs=runs, **options)


@contextlib.contextmanager
def loader_path() -> Iterator[None]:
    """Every `Request.evaluate` in the block reads its files with the loader."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ragtriage.columnar, "evaluate_native", _load_and_evaluate)
        yield


def evaluate_by_loader(
    request: Request, command: str = "python", notify: Notify | None = None
) -> Evaluation:
    """`request.evaluate(command, notify)`, the files read by the loader."""
    with loader_path():
        return request.evaluate(command, notify)


READERS = ("loader", "file_reader")
"""`invoke`'s readers, the loader first: a test runs a command with each and compares."""


def invoke(reader: str, args: Sequence[str]) -> Result:
    """`ragtriage ARGS`, the files read by the loader (`reader` "loader") or by the file
    reader (`evaluate_native`, "file_reader")."""
    with loader_path() if reader == "loader" else contextlib.nullcontext():
        return CliRunner().invoke(cli, list(args))


def both_readers(evalset: Path, snapshot: Path, run: Path) -> list[str | list[Problem]]:
    """The file reader's outcome on the files, then the loader's: each the JSON report, or
    the problems refusing the input."""
    found: list[str | list[Problem]] = []
    for score in (
        lambda: evaluate_native(evalset, snapshot, [run], workers=1),
        lambda: load_and_evaluate(evalset, snapshot=snapshot, runs=[run]),
    ):
        try:
            found.append(dumps(evaluation_json(score())))
        except InputError as refused:
            found.append(list(refused.problems))
    return found
