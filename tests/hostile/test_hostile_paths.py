"""Paths and files a script may hand a command: `-` for stdin or stdout, a file of blank
lines. Each is refused with what it is (exit 2), never read or written as something else."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragtriage.cli.main import cli

EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "ragtriage" / "example" / "data"
DATA = ["evalset.json", "--snapshot", "snapshot.json", "--run", "runs/baseline.json"]


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(EXAMPLE, tmp_path, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), input="{}")
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    "args",
    [
        [*DATA, "--format", "json", "-o", "-"],
        [*DATA, "--html", "-"],
    ],
)
def test_an_output_of_dash_is_refused_not_written_as_a_file_named_dash(
    example: Path, args: list[str]
) -> None:
    # Before: exit 0, nothing on stdout, and a file named '-' in the folder.
    assert _invoke("evaluate", *args) == (
        2, "", "Error: cannot write -: '-' is not standard output here; name a file. Nothing "
        "was written.\n"
    )
    assert not (example / "-").exists()


def test_an_input_of_dash_says_stdin_is_not_read(example: Path) -> None:
    assert _invoke("evaluate", "-", *DATA[1:]) == (
        2, "", "Error: 1 problem found in the input:\n- -: (file): expected an existing file; "
        "found no such file ('-' is not standard input here; name a file)\n"
    )


def test_a_file_named_dash_is_read_and_written_given_with_its_folder(example: Path) -> None:
    shutil.copy(example / "evalset.json", example / "-")
    code, _, _ = _invoke("evaluate", str(example / "-"), *DATA[1:], "-o", str(example / "r"))
    assert (code, (example / "r").exists()) == (0, True)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("blank.json", " \n\t\n", "blank.json: (file): expected a JSON document; found only "
         "whitespace"),
        ("empty.json", "", "empty.json: (file): expected a JSON document; found an empty file"),
        ("blank.jsonl", "\n  \n\n", "blank.jsonl: line 1: expected a header line with kind and "
         "schema_version; found only blank lines"),
        ("empty.jsonl", "", "empty.jsonl: line 1: expected a header line with kind and "
         "schema_version; found an empty file"),
    ],
)
def test_a_file_of_blank_lines_is_named_as_such_not_as_empty(
    example: Path, name: str, text: str, message: str
) -> None:
    # Before: 'found an empty file' for a file of spaces and line breaks.
    (example / name).write_text(text, encoding="utf-8")
    assert _invoke("evaluate", *DATA, "--run", name) == (
        2, "", f"Error: 1 problem found in the input:\n- {message}\n"
    )


def test_a_path_holding_a_line_break_stays_on_its_problems_line(example: Path) -> None:
    # Before: the break started a new line, which read as a problem of its own.
    assert _invoke("evaluate", "a\n- b.json") == (
        2, "", "Error: 1 problem found in the input:\n- a\\n- b.json: (file): expected an "
        "existing file; found no such file\n"
    )
    assert _invoke("evaluate", *DATA, "-o", "x\n- y/r.json") == (
        2, "", "Error: cannot write x\\n- y/r.json: the folder 'x\\n- y' does not exist. "
        "Nothing was written.\n"
    )
