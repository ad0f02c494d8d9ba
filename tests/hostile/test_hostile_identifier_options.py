"""Options whose value becomes an ID of a native file (a run name, a dataset ID, a labeller's
name) are checked as the files' IDs are, before any file is read or any model is called: a
control character is exit 2 naming the option, never a pydantic traceback after the work."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ragtriage.cli.main import cli

EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "ragtriage" / "example" / "data"
DATA = [str(EXAMPLE / "evalset.json"), "--snapshot", str(EXAMPLE / "snapshot.json")]
RUN = ["--run", str(EXAMPLE / "runs" / "baseline.json")]
ENDPOINT = ["--base-url", "http://127.0.0.1:9/v1"]  # never reached: the check comes first
EXPECTED = "expected an identifier without control characters, not only whitespace"


def _problem(option: str, found: str) -> str:
    return f"- <command line>: {option}: {EXPECTED}; found {found}\n"


CASES = [
    (["judge", *DATA, *RUN, "--judge", "llm", *ENDPOINT, "--model", "gp\at", "-o", "out"],
     [_problem("--model", r"'gp\x07t'")]),
    (["run", *DATA, "-o", "run.jsonl", "--name", "bm\n25", *ENDPOINT, "--model", "m"],
     [_problem("--name", r"'bm\n25'")]),
    (["import", "ragas", "records.jsonl", "-o", "out", "--dataset-id", "set\t1"],
     [_problem("--dataset-id", r"'set\t1'")]),
    (["import", "trec", "--qrels", "q.qrels", "--trec-run", "bm\x0725.run", "--dataset-id",
      "t\x7f", "-o", "out"],
     [_problem("--dataset-id", r"'t\x7f'"),
      r"- bm\x0725.run: run name: " + EXPECTED + r"; found 'bm\x0725'" + "\n"]),
    (["import", "openinference", "evalset.json", "traces.jsonl", "-o", "run.jsonl", "--name",
      "a\x85b"],
     [_problem("--name", r"'a\x85b'")]),
    (["review", "import", *DATA, *RUN, "sheet.csv", "-o", "labels", "--reviewer", "an\aa"],
     [_problem("--reviewer", r"'an\x07a'")]),
]


@pytest.mark.parametrize(
    ("args", "problems"), CASES, ids=[c[0][0] + str(n) for n, c in enumerate(CASES)]
)
def test_an_option_that_becomes_an_id_is_checked_up_front(
    args: list[str], problems: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2
    count = "1 problem" if len(problems) == 1 else f"{len(problems)} problems"
    assert result.stderr == f"Error: {count} found in the input:\n" + "".join(problems)
    assert list(tmp_path.iterdir()) == []  # nothing written



def test_an_empty_run_name_is_refused_by_run_as_by_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `run --name ''` named the run after its retriever (`bm25`) without a word, while
    # `import openinference --name ''` refused it: one rule for both.
    monkeypatch.chdir(tmp_path)
    message = (
        "Error: 1 problem found in the input:\n"
        "- <command line>: --name: expected a run name; found nothing\n"
    )
    for args in (
        ["run", *DATA, "-o", "run.jsonl", "--name", "", "--no-cache"],
        ["import", "openinference", str(EXAMPLE / "evalset.json"), "traces.jsonl",
         "-o", "run.jsonl", "--name", ""],
    ):
        result = CliRunner().invoke(cli, args)
        assert (result.exit_code, result.stderr) == (2, message)
    assert list(tmp_path.iterdir()) == []  # nothing written
