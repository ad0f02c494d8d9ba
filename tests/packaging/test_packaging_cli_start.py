"""A fast start: `--version` and `--help` import no command module, numpy or pydantic; a
command imports what it runs.

Structural, not timed (the timing is in `benchmarks/cli_start.py`): the modules imported
are read from `python -X importtime`, whose report names every module a run imports.
"""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner
from default_install import SRC

from ragtriage.cli.main import COMMANDS, cli

HEAVY = ("numpy", "pydantic", "pydantic_core", "rich", "jinja2", "pyarrow", "httpx")
"""Packages a start must not import."""
LIGHT_RAGTRIAGE = {"ragtriage", "ragtriage._lazy", "ragtriage._version", "ragtriage.errors",
                   "ragtriage.cli", "ragtriage.cli.main", "ragtriage.cli._common",
                   "ragtriage.cli._bounds", "ragtriage.__main__"}
"""The only ragtriage modules `--version` and `--help` import."""


def _imported(*args: str) -> tuple[set[str], str]:
    env = dict(os.environ, PYTHONPATH=str(SRC))
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ragtriage", *args],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )
    assert out.returncode == 0, out.stderr
    modules = {
        line.split("|")[2].strip()
        for line in out.stderr.splitlines()
        if line.startswith("import time:") and "|" in line and "cumulative" not in line
    }
    return modules, out.stdout


@pytest.mark.parametrize("option", ["--version", "--help"])
def test_start_imports_no_command_and_no_heavy_package(option: str) -> None:
    modules, stdout = _imported(option)
    assert "click" in modules  # the report is read right
    heavy = sorted(m for m in modules if m.partition(".")[0] in HEAVY)
    assert heavy == []
    assert "importlib.metadata" not in modules  # the version is written in the package
    assert {m for m in modules if m.startswith("ragtriage")} <= LIGHT_RAGTRIAGE
    if option == "--version":
        assert stdout.startswith("ragtriage, version ")


def test_the_installed_version_is_the_one_written_in_the_package() -> None:
    from importlib.metadata import version

    import ragtriage

    assert version("ragtriage") == ragtriage.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", ragtriage.__version__)


def test_help_lists_every_command_as_click_would() -> None:
    eager = click.Group(
        "cli", context_settings={"help_option_names": ["-h", "--help"]}, epilog=cli.epilog
    )
    for entry in COMMANDS:
        eager.add_command(entry.load())
    lazy_help = CliRunner().invoke(cli, ["--help"], terminal_width=80).stdout
    eager_help = CliRunner().invoke(eager, ["--help"], terminal_width=80).stdout
    start = "Commands:\n"
    assert lazy_help[lazy_help.index(start):] == eager_help[eager_help.index(start):]


def test_the_static_table_matches_the_commands() -> None:
    assert len({entry.name for entry in COMMANDS}) == len(COMMANDS)
    for entry in COMMANDS:
        command = entry.load()
        assert command.name == entry.name
        first = inspect.cleandoc(command.help or "").split("\n\n")[0]
        assert " ".join(first.split()) == entry.summary, entry.name


def _python(code: str) -> str:
    """The standard output of `python -c code` run with this tree's package."""
    env = dict(os.environ, PYTHONPATH=str(SRC))
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
        check=True,
    ).stdout


def test_a_json_evaluation_imports_no_text_renderer() -> None:
    code = (
        "import sys; from click.testing import CliRunner; from ragtriage.cli.main import cli;"
        "out = CliRunner().invoke(cli, ['evaluate', '--example', '--format', 'json']);"
        "assert out.exit_code == 0 and out.stdout.startswith('{'), out.output;"
        "print(sorted(m for m in sys.modules if m.partition('.')[0] == 'rich'"
        " or m.startswith('ragtriage.render')))"
    )
    # The table and Markdown renderers (and rich) are imported only for those formats.
    assert _python(code) == (
        "['ragtriage.render', 'ragtriage.render._aggregate_json', 'ragtriage.render._boundaries',"
        " 'ragtriage.render._diagnosis', 'ragtriage.render._json']\n"
    )


def test_an_unknown_command_is_a_usage_error() -> None:
    out = CliRunner().invoke(cli, ["evaluat"])
    assert out.exit_code == 2
    assert "No such command 'evaluat'" in out.stderr


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("evaluat", "Error: No such command 'evaluat'. Did you mean 'evaluate'?"),
        ("trec_eval", "Error: No such command 'trec_eval'. Did you mean 'trec-eval'?"),
        ("repot", "Error: No such command 'repot'. (Did you mean one of: 'export', 'report'?)"),
        ("xyz", "Error: No such command 'xyz'."),
    ],
)
def test_a_misspelt_command_is_told_the_close_ones(typed: str, said: str) -> None:
    # Before: no suggestion for a command of `ragtriage` (loaded lazily, click saw none),
    # where `ragtriage review exprt` had one.
    out = CliRunner().invoke(cli, [typed, "x"])
    assert out.exit_code == 2
    assert out.stderr.splitlines()[-1] == said


def test_the_file_models_are_built_without_reading_their_source() -> None:
    # The field docstrings are read where a JSON Schema is made (`schemas.json_schema`), not
    # parsed from each module's source as each model class is built (every command's cost).
    code = (
        "import linecache, ragtriage.schemas, ragtriage.calibration;"
        "print(sorted(f for f in linecache.cache if 'ragtriage' in f))"
    )
    assert _python(code) == "[]\n"
