"""The library refuses the numeric option values the command line refuses, by the same ranges
and in the same words (option name, expected range, found value), every problem at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import pytest

import ragtriage.api
from ragtriage.cli.judge import judge_command
from ragtriage.cli.run import run_command
from ragtriage.errors import InputError
from ragtriage.judges import ClientOptions

_ENDPOINT = {"base_url": "http://127.0.0.1:9/v1", "model": "m"}


def _problems(call: Any) -> list[str]:
    with pytest.raises(InputError) as refused:
        call()
    return str(refused.value).splitlines()


def _dry_judge(article_fixture: Path, **options: Any) -> Any:
    return lambda: ragtriage.api.judge_files(
        article_fixture, dry_run=True, **_ENDPOINT, **options
    )


def test_a_negative_max_retries_is_refused_before_any_call(article_fixture: Path) -> None:
    # It used to pass: no request was ever sent and every call failed with "no attempt made".
    assert _problems(_dry_judge(article_fixture, max_retries=-1)) == [
        "1 problem found in the input:",
        "- <command line>: --max-retries: expected an integer from 0 to 20; found -1",
    ]


def test_every_value_out_of_range_is_listed_at_once(article_fixture: Path) -> None:
    assert _problems(_dry_judge(article_fixture, timeout=0, retry_delay=-0.5)) == [
        "2 problems found in the input:",
        "- <command line>: --timeout: expected a number above 0, at most 3600; found 0",
        "- <command line>: --retry-delay: expected a number from 0 to 600; found -0.5",
    ]


def test_client_options_refuse_what_the_command_line_refuses() -> None:
    assert _problems(lambda: ClientOptions("http://127.0.0.1:9/v1", max_retries=-1, backoff=1e9)) == [
        "2 problems found in the input:",
        "- <command line>: --max-retries: expected an integer from 0 to 20; found -1",
        "- <command line>: --retry-delay: expected a number from 0 to 600; found 1000000000.0",
    ]


def test_run_files_lists_its_values_out_of_range_before_reading_files(tmp_path: Path) -> None:
    def call() -> Any:
        return ragtriage.api.run_files(
            tmp_path / "missing.json",
            snapshot=tmp_path / "missing-snapshot.json",
            output=tmp_path / "run.jsonl",
            rrf_c=-1,
            chunk_sentences=0,
            chunked_snapshot=tmp_path / "chunked.json",
            concurrency=0,
        )

    assert _problems(call) == [
        "3 problems found in the input:",
        "- <command line>: --concurrency: expected an integer from 1 to 256; found 0",
        "- <command line>: --rrf-c: expected an integer from 0 to 100000; found -1",
        "- <command line>: --chunk-sentences: expected an integer from 1 to 10000; found 0",
    ]


def _outside(kind: click.ParamType) -> list[int | float]:
    """Values just outside a click range, on each side it has."""
    assert isinstance(kind, click.IntRange | click.FloatRange)
    values: list[int | float] = []
    if kind.min is not None:
        values.append(kind.min if kind.min_open else kind.min - 1)
    if kind.max is not None:
        values.append(kind.max + 1)
    return values


def _ranged(command: click.Command) -> list[tuple[str, str, int | float]]:
    """(keyword, option name, value outside its range) of every ranged option."""
    return [
        (param.name, param.opts[0], value)
        for param in command.params
        if param.name is not None and isinstance(param.type, click.IntRange | click.FloatRange)
        for value in _outside(param.type)
    ]


@pytest.mark.parametrize(("keyword", "option", "value"), _ranged(judge_command))
def test_judge_files_refuses_every_value_its_command_refuses(
    article_fixture: Path, keyword: str, option: str, value: float
) -> None:
    lines = _problems(_dry_judge(article_fixture, **{keyword: value}))
    assert lines[1].startswith(f"- <command line>: {option}: expected "), lines


@pytest.mark.parametrize(("keyword", "option", "value"), _ranged(run_command))
def test_run_files_refuses_every_value_its_command_refuses(
    tmp_path: Path, keyword: str, option: str, value: float
) -> None:
    options: dict[str, Any] = {keyword: value}
    if keyword.startswith("chunk_"):
        options["chunked_snapshot"] = tmp_path / "chunked.json"
    lines = _problems(
        lambda: ragtriage.api.run_files(
            tmp_path / "missing.json",
            snapshot=tmp_path / "missing-snapshot.json",
            output=tmp_path / "run.jsonl",
            **options,
        )
    )
    assert lines[1].startswith(f"- <command line>: {option}: expected "), lines


@pytest.mark.parametrize("value", [-1, 1_000_001])
def test_holdout_warn_after_outside_its_range_is_refused(value: int) -> None:
    # It used to pass: -1 warned at every look, as if the holdout were always overused.
    assert _problems(lambda: ragtriage.api.evaluate_files(example=True, holdout_warn_after=value)) == [
        "1 problem found in the input:",
        "- <command line>: --holdout-warn-after: expected an integer from 0 to 1000000; "
        f"found {value}",
    ]


def test_judge_files_takes_a_whole_float_k_as_evaluate_files_does(article_fixture: Path) -> None:
    # It used to be refused ("found 2.0") where evaluate_files(k=2.0) scores at k 2.
    assert _dry_judge(article_fixture, k=2.0)() == _dry_judge(article_fixture, k=2)()
    assert _problems(_dry_judge(article_fixture, k=2.5, seed=-1)) == [
        "2 problems found in the input:",
        "- <command line>: -k: expected an integer from 1 to 10000; found 2.5",
        "- <command line>: --seed: expected an integer from 0 to 4294967295; found -1",
    ]
