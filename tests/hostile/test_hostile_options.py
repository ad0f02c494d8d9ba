"""Numeric options and cut-offs out of range: a clean exit 2 before any work, for every command.

A typo in a number must not become a hang (`--resamples 999999999999`), a numpy traceback
(`ndcg@1e30`) or a run that never times out (`--timeout 1e300`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from ragtriage.cli._bounds import FiniteFloatRange, KType
from ragtriage.cli.main import cli
from ragtriage.validation import MAX_CUTOFF

SECONDS_PER_CASE = 10.0


def _walk(group: click.Group, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, click.Command]]:
    context = click.Context(group)
    for name in sorted(group.list_commands(context)):
        command = group.get_command(context, name)
        assert command is not None
        path = (*prefix, name)
        if isinstance(command, click.Group):
            yield from _walk(command, path)
        else:
            yield " ".join(path), command


COMMANDS = dict(_walk(cli))


def _numeric() -> list[tuple[str, click.Option]]:
    found = []
    for name, command in COMMANDS.items():
        for param in command.params:
            numeric = isinstance(param.type, click.types.IntParamType | click.types.FloatParamType)
            if isinstance(param, click.Option) and (numeric or isinstance(param.type, KType)):
                found.append((name, param))
    return found


NUMERIC = _numeric()


def _invoke(*args: str) -> tuple[int, str, str]:
    started = time.monotonic()
    out = CliRunner().invoke(cli, list(args))
    assert time.monotonic() - started < SECONDS_PER_CASE
    assert out.exception is None or isinstance(out.exception, SystemExit), out.exception
    return out.exit_code, out.stdout, out.stderr


def _problems(stderr: str) -> list[str]:
    """The problems an exit-2 usage error lists: its one `Error:` line's text, or each `- `
    line after `Error: N problems with the command line:`."""
    lines = stderr.splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith("Error: "))
    if not lines[at].endswith(" problems with the command line:"):
        return [lines[at].removeprefix("Error: ")]
    return [line.removeprefix("- ") for line in lines[at + 1 :]]


def test_every_numeric_option_of_every_command_is_bounded() -> None:
    assert len(NUMERIC) >= 30
    unbounded = []
    for name, option in NUMERIC:
        kind = option.type
        if isinstance(kind, KType):
            continue
        bounds = (getattr(kind, "min", None), getattr(kind, "max", None))
        if not isinstance(kind, click.IntRange | click.FloatRange) or None in bounds:
            unbounded.append(f"{name} {option.opts[0]}: {kind!r}")
        elif isinstance(kind, click.FloatRange) and not isinstance(kind, FiniteFloatRange):
            unbounded.append(f"{name} {option.opts[0]}: NaN passes {kind!r}")
    assert unbounded == []


def _past(option: click.Option) -> str:
    kind = option.type
    if isinstance(kind, KType):
        return str(MAX_CUTOFF + 1)
    assert isinstance(kind, click.IntRange | click.FloatRange) and kind.max is not None
    return str(int(kind.max) + 1) if isinstance(kind, click.IntRange) else "1e300"


@pytest.mark.parametrize(
    ("name", "option"), NUMERIC, ids=[f"{n}{o.opts[0]}" for n, o in NUMERIC]
)
def test_a_value_past_the_range_is_exit_2_before_any_work(name: str, option: click.Option) -> None:
    value = _past(option)
    code, stdout, stderr = _invoke(*name.split(), option.opts[0], value)
    assert code == 2
    assert stdout == ""
    # The command's other problems (a missing argument) are listed with it.
    named = f"Invalid value for '{option.opts[0]}'"
    last = next(problem for problem in _problems(stderr) if problem.startswith(named))
    if isinstance(option.type, KType):
        assert last == (
            f"Invalid value for '{option.opts[0]}': <command line>: -k: expected an "
            f"integer from 1 to 10000; found {value!r}"
        )
    else:
        shown = "1e+300" if value == "1e300" else value
        assert last.startswith(f"{named}: {shown} is not in the range ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("compare", "--example", "--resamples", "999999999999"),
            "Error: Invalid value for '--resamples': 999999999999 is not in the range "
            "100<=x<=100000.",
        ),
        (
            ("gate", "--example", "--seed", "-1"),
            "Error: Invalid value for '--seed': -1 is not in the range 0<=x<=4294967295.",
        ),
        (
            ("calibrate", "x", "--confidence", "nan"),
            "Error: Invalid value for '--confidence': 'nan' is not a finite number.",
        ),
        (
            ("evaluate", "--example", "-k", "1e30"),
            "Error: Invalid value for '-k': <command line>: -k: expected an integer from 1 to "
            "10000; found '1e30'",
        ),
    ],
    ids=["resamples", "seed", "confidence-nan", "k-1e30"],
)
def test_representative_option_messages(args: tuple[str, ...], message: str) -> None:
    code, _, stderr = _invoke(*args)
    assert code == 2
    assert message.removeprefix("Error: ") in _problems(stderr)


CUTOFFS = ["1e30", "10001", "1" + "0" * 5000, "0", "-3", "", " 5", "+5", "²", "１０", "5.0"]


@pytest.fixture
def trec_files(tmp_path: Path) -> tuple[Path, Path]:
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\n", encoding="utf-8")
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n", encoding="utf-8")
    return qrels, run


@pytest.mark.parametrize("cutoff", CUTOFFS)
def test_trec_eval_cutoffs_go_through_one_parser(
    trec_files: tuple[Path, Path], cutoff: str
) -> None:
    qrels, run = trec_files
    code, stdout, stderr = _invoke("trec-eval", str(qrels), str(run), "-m", f"ndcg@{cutoff}")
    assert (code, stdout) == (2, "")
    assert stderr == (
        "Error: 1 problem found in the input:\n- <command line>: metric ndcg cut-off: expected "
        f"an integer from 1 to 10000; found {cutoff!r}\n"
    )


@pytest.mark.parametrize("cutoff", CUTOFFS)
def test_registry_measure_cutoffs_go_through_the_same_parser(cutoff: str) -> None:
    code, stdout, stderr = _invoke("evaluate", "--example", "--metric", f"ndcg@{cutoff}")
    assert (code, stdout) == (2, "")
    assert stderr.splitlines()[-1] == (
        "- <command line>: metric ndcg parameter k: expected an integer from 1 to 10000; "
        f"found {cutoff!r}"
    )


def test_the_largest_cutoff_is_accepted(trec_files: tuple[Path, Path]) -> None:
    qrels, run = trec_files
    code, stdout, _ = _invoke(
        "trec-eval", str(qrels), str(run), "-m", f"ndcg@{MAX_CUTOFF}", "--format", "json"
    )
    assert code == 0
    assert '"ndcg@10000"' in stdout


def _single() -> list[tuple[str, click.Option]]:
    return [
        (name, param)
        for name, command in COMMANDS.items()
        for param in command.params
        if isinstance(param, click.Option) and not param.multiple and not param.count
        and not (param.is_flag and not param.secondary_opts)
    ]


SINGLE = _single()


@pytest.mark.parametrize(("name", "option"), SINGLE, ids=[f"{n}{o.opts[0]}" for n, o in SINGLE])
def test_an_option_of_one_value_given_twice_is_exit_2_not_the_last_kept(
    name: str, option: click.Option, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # where an output of '1' would land
    # Before: click kept the last value without a word (`-k 3 -k 5` scored at 5).
    if option.is_flag:  # an on/off pair: `--progress --no-progress`
        twice = [option.opts[0], option.secondary_opts[0]]
    else:
        twice = [option.opts[0], "1"] * 2
    code, stdout, stderr = _invoke(*name.split(), *twice)
    longest = max(option.opts, key=len)
    assert (code, stdout) == (2, "")
    assert f"{longest}: expected the option at most once; found it 2 times" in _problems(stderr)


def test_the_repeated_option_is_named_and_repeatable_options_and_flags_are_not_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert len(SINGLE) >= 150
    assert _invoke("evaluate", "--example", "-k", "3", "-o", "a.json", "-k", "5")[2].endswith(
        "\nError: -k: expected the option at most once; found it 2 times\n"
    )
    assert _problems(_invoke("run", "x", "--progress", "--no-progress")[2]) == [
        "--progress: expected the option at most once; found it 2 times",
        "Missing option '--output' / '-o'.",
    ]
    out = tmp_path / "report.json"
    code, _, stderr = _invoke(
        "evaluate", "--example", "--allow-missing", "--allow-missing", "--tag", "exact-id",
        "--tag", "version", "--format", "json", "-o", str(out),
    )
    assert (code, "Error" in stderr, out.exists()) == (0, False, True)


def test_every_problem_of_a_command_line_is_listed_at_once() -> None:
    # Before: click stopped at the first (`-k 0` alone), and the user met the next on the
    # next try.
    code, stdout, stderr = _invoke(
        "evaluate", "--example", "-k", "0", "--label-policy", "foo", "--metrics", "x",
        "-o", "a.json", "-o", "b.json",
    )
    assert (code, stdout) == (2, "")
    assert stderr == (
        "Usage: cli evaluate [OPTIONS] [DATASET]\n"
        "Try 'cli evaluate --help' for help.\n\n"
        "Error: 4 problems with the command line:\n"
        "- No such option '--metrics'. Did you mean '--metric'?\n"
        "- --output: expected the option at most once; found it 2 times\n"
        "- Invalid value for '-k': <command line>: -k: expected an integer from 1 to 10000; "
        "found '0'\n"
        "- Invalid value for '--label-policy': 'foo' is not one of 'human-first', 'human', "
        "'judge'.\n"
    )
    # Without an unknown option, the arguments are judged too: a missing one, extra ones.
    assert _problems(_invoke("trec-eval", "q.qrels", "r.run", "x", "y", "--format", "yaml")[2]) == [
        "Invalid value for '--format': 'yaml' is not one of 'table', 'json'.",
        "Got unexpected extra arguments (x y)",
    ]
    assert _problems(_invoke("export", "trec", "--zz", "--run")[2]) == [
        "No such option '--zz'.", "Option '--run' requires an argument.",
    ]
    # One problem is click's own line, as before.
    assert _invoke("evaluate", "--example", "-k", "0")[2].splitlines()[-1] == (
        "Error: Invalid value for '-k': <command line>: -k: expected an integer from 1 to "
        "10000; found '0'"
    )
