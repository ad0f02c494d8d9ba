"""One command-line grammar: the same option has the same name, type, default and help everywhere."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from ragtriage.cli.main import cli


def _walk(group: click.Group, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, click.Command]]:
    # The top-level group loads its commands lazily: ask it, as click does when one runs.
    context = click.Context(group)
    for name in sorted(group.list_commands(context)):
        command = group.get_command(context, name)
        assert command is not None
        path = (*prefix, name)
        yield " ".join(path), command
        if isinstance(command, click.Group):
            yield from _walk(command, path)


COMMANDS = dict(_walk(cli))
"""Every command and subcommand, by its full name (`review export`)."""

SHARED = (
    "--snapshot", "--run", "--labels", "-k", "--example", "--calibration", "--metric",
    "--label-policy", "--allow-unreviewed", "--accept-self-labelling", "--evidence-level",
    "--versions", "--tag", "--split", "--stage", "--id", "--include-holdout", "--who",
    "--holdout-warn-after", "--ledger", "--html", "--baseline",
    "--base-url", "--model", "--api-key-env", "--max-tokens", "--concurrency", "--timeout",
    "--executor", "--ray-address",
)
"""Options whose every field (name, type, default, help, ...) must agree across commands."""

DIFFERENT = {
    ("run", "-k"): "the context size to build (default 10), not a cut-off of a run",
    ("trec-eval", "--metric"): "rank measures of TREC files only, with their own default set",
    ("export trec", "--run"): "the one run written as a TREC run, not repeatable",
    ("calibrate", "--include-holdout"): "compares the holdout's labelled items, scores nothing",
    ("export trec", "--include-holdout"): "writes the holdout's questions, scores nothing",
}
"""Same name on purpose, different default or help: the reason is the value."""

READS_AN_EVALUATION_SET = (
    "evaluate", "diagnose", "compare", "gate", "report", "judge", "run", "calibrate",
    "review export", "review import", "export trec",
)
"""Commands whose evaluation set is the positional DATASET."""

RETIRED = ("--dataset", "-d", "--evalset", "--out-dir", "--output-dir", "--engine",
           "--generate-url", "--generate-model", "--human-from")
"""Names the grammar replaced; none may come back."""


def _options(command: click.Command) -> dict[str, click.Option]:
    found = {}
    for param in command.params:
        if isinstance(param, click.Option):
            long = [o for o in param.opts if o.startswith("--")]
            found[long[0] if long else param.opts[0]] = param
    return found


def _info(option: click.Option) -> dict[str, Any]:
    ctx = click.Context(cli)
    return {**option.to_info_dict(), "help_text": option.get_help_record(ctx)}


@pytest.mark.parametrize("name", SHARED)
def test_a_shared_option_is_the_same_in_every_command(name: str) -> None:
    seen = {
        command_name: _info(options[name])
        for command_name, command in COMMANDS.items()
        if name in (options := _options(command)) and (command_name, name) not in DIFFERENT
    }
    assert len(seen) >= 2, f"{name} is used by {sorted(seen)} only"
    first = next(iter(seen.values()))
    assert {c: info for c, info in seen.items() if info != first} == {}


def test_output_is_always_dash_o_and_the_main_output() -> None:
    users = []
    for command_name, command in COMMANDS.items():
        for param in command.params:
            if isinstance(param, click.Option) and "-o" in param.opts:
                assert param.opts == ["--output", "-o"], command_name
        option = _options(command).get("--output")
        if option is None:
            continue
        users.append(command_name)
        assert option.opts == ["--output", "-o"], command_name
        assert option.name == "output", command_name
        assert isinstance(option.type, click.Path), command_name
        assert (option.help or "").startswith("Write "), command_name
    assert users == [
        "calibrate", "compare", "demo", "diagnose", "evaluate", "gate", "import deepeval",
        "import openinference", "import ragas", "import seed", "import tau2", "import trec", "judge", "report",
        "review export", "review import", "run", "schema", "trec-eval",
    ]


def test_only_an_output_that_can_go_to_stdout_says_so() -> None:
    # `judge -o DIR` said "Write <run>.labels.json ... here instead of stdout": without -o it
    # writes no labels anywhere (it is required unless --dry-run), a folder never goes to stdout.
    says = sorted(
        name
        for name, command in COMMANDS.items()
        if "stdout" in (getattr(_options(command).get("--output"), "help", None) or "")
    )
    assert says == ["calibrate", "compare", "demo", "diagnose", "evaluate", "gate", "schema",
                    "trec-eval"]


def test_format_has_one_name_default_and_help() -> None:
    infos = [_options(c)["--format"] for c in COMMANDS.values() if "--format" in _options(c)]
    assert len(infos) == 7
    assert {(o.name, o.default, o.help) for o in infos} == {
        (
            "fmt",
            "table",
            "Output format; json is the stable contract for scripts.",
        )
    }


@pytest.mark.parametrize("name", READS_AN_EVALUATION_SET)
def test_the_evaluation_set_is_the_positional_dataset(name: str) -> None:
    arguments = [p for p in COMMANDS[name].params if isinstance(p, click.Argument)]
    assert [a.name for a in arguments][:1] == ["dataset"]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_retired_names_are_gone(name: str) -> None:
    flags = {o for p in COMMANDS[name].params for o in (*p.opts, *p.secondary_opts)}
    assert flags & set(RETIRED) == set()


@pytest.mark.parametrize("name", ["", *sorted(COMMANDS)])
def test_every_help_ends_with_examples(name: str) -> None:
    result = CliRunner().invoke(cli, [*name.split(), "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    lines = result.output.rstrip("\n").splitlines()
    start = max(i for i, line in enumerate(lines) if line.strip() == "Examples:")
    examples = lines[start + 1 :]
    assert 2 <= len(examples) <= 3, examples
    assert all(line.startswith("    ragtriage ") for line in examples), examples


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_readme_gives_every_command_its_python_call(name: str) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("| command line | Python") :]
    table = table[: table.index("\n\n")]
    rows = [line for line in table.splitlines() if line.startswith(f"| `ragtriage {name}")]
    assert rows, f"no README row for `ragtriage {name}`"
    assert all(row.split(" | ")[1].startswith("`") for row in rows)


@pytest.mark.parametrize(
    "name", [n for n, c in sorted(COMMANDS.items()) if not isinstance(c, click.Group)]
)
def test_the_grammar_table_lists_every_command(name: str) -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    cells = [line.split(" | ")[0].removeprefix("| ").strip("`") for line in doc.splitlines()
             if line.startswith("| `")]
    head, _, sub = name.partition(" ")
    assert any(
        cell.split(" ")[0] == head and (not sub or sub in cell.replace("\\|", " ").split())
        for cell in cells
    ), name


def _grammar_row(name: str, doc: str) -> str:
    head, _, sub = name.partition(" ")
    for line in doc.splitlines():
        if not line.startswith("| `"):
            continue
        cell = line.split(" | ")[0].removeprefix("| ").strip("`")
        if cell.split(" ")[0] == head and (not sub or sub in cell.replace("\\|", " ").split()):
            return line
    raise AssertionError(f"no row for `{name}` in docs/cli.md")


@pytest.mark.parametrize(
    "name", [n for n, c in sorted(COMMANDS.items()) if not isinstance(c, click.Group)]
)
def test_the_grammar_table_names_every_option(name: str) -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    row = _grammar_row(name, doc)
    named = set(re.findall(r"`(-[-\w/]+)", row))
    groups = {
        "dataset options": doc[doc.index('"Dataset options" below') : doc.index("A repeatable")],
        "endpoint options": doc[doc.index("share one group of options") :].split("\n- ")[0],
    }
    for words, text in groups.items():
        if words in row:
            named |= set(re.findall(r"`(-[-\w/]+)", text))
    flags = {f for part in named for f in part.split("/")}
    missing = [
        "/".join(option.opts)
        for option in _options(COMMANDS[name]).values()
        if option.name != "help" and not flags & {*option.opts, *option.secondary_opts}
    ]
    assert missing == [], f"docs/cli.md: the `{name}` row does not name {missing}"


def _documented_pages() -> list[Path]:
    root = Path(__file__).resolve().parents[2]
    return [
        root / "README.md",
        *sorted((root / "docs").glob("*.md")),
        root / "src" / "ragtriage" / "example" / "README.md",
    ]


_COMMAND_LINE = re.compile(r"ragtriage ([a-z][a-z-]*)(?: ([a-z][a-z0-9]*))?([^\n`]*)")


@pytest.mark.parametrize("page", _documented_pages(), ids=lambda p: p.name)
def test_documented_command_lines_use_options_the_command_takes(page: Path) -> None:
    # A line continued with a backslash, or inline code wrapped over two lines, is one command.
    text = page.read_text(encoding="utf-8").replace("\\\n", " ")
    text = re.sub(r"(?<!`)`([^`]+)`(?!`)", lambda m: "`" + m.group(1).replace("\n", " ") + "`", text)
    wrong = []
    for match in _COMMAND_LINE.finditer(text):
        head, sub, rest = match.groups()
        name = f"{head} {sub}" if f"{head} {sub}" in COMMANDS else head
        command = COMMANDS.get(name)
        if command is None or isinstance(command, click.Group):
            continue
        if name == head and sub:
            rest = f" {sub}{rest}"
        taken = {f for p in command.params for f in (*p.opts, *p.secondary_opts)} | {"--help", "-h"}
        wrong += [
            f"`ragtriage {name}` does not take {flag}: {match.group(0).strip()}"
            for flag in re.findall(r"(?<![\w/-])(--?[A-Za-z][\w-]*)", rest)
            if flag not in taken
        ]
    assert wrong == [], "\n".join(wrong)


def test_export_trec_says_its_run_is_one() -> None:
    assert _info(_options(COMMANDS["export trec"])["--run"])["help_text"] == (
        "--run PATH", "Run file (JSON or JSONL) to write as a TREC run; one."
    )


@pytest.mark.parametrize(("command", "uses"), [
    ("calibrate", "Compare on the holdout questions' labelled items too"),
    ("export trec", "Write the holdout questions too"),
])
def test_a_command_says_what_it_uses_the_holdout_for(command: str, uses: str) -> None:
    # Each said "Score holdout questions too", the text of the commands that score.
    assert _info(_options(COMMANDS[command])["--include-holdout"])["help_text"] == (
        "--include-holdout", f"{uses}; every such run is recorded in the holdout ledger."
    )
