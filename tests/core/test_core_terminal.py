"""Terminal tables fit the terminal (80-200 columns), fold long cells, and show the measures
that apply to the data; `ragtriage demo` is short and ends with the next commands."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from loader_path import loader_path
from ragtriage import example
from ragtriage._console import visible
from ragtriage._markdown import md_cell, md_code
from ragtriage.cli.main import cli
from ragtriage.example import example_paths
from ragtriage.render import terminal_width
from ragtriage.starter import dataset_arguments, write_starter

GOLDEN = Path(__file__).parent / "golden"


def _run(args: list[str], columns: str | None) -> tuple[int, str]:
    env = {"COLUMNS": columns}
    out = CliRunner().invoke(cli, args, env=env)
    return out.exit_code, out.stdout


def _widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


@pytest.fixture(scope="module")
def starter(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    target = tmp_path_factory.mktemp("starter") / "my-eval"
    write_starter(target)
    return dataset_arguments(str(target))


@pytest.mark.parametrize("columns", ["80", "200"])
def test_demo_output_is_pinned(columns: str) -> None:
    code, stdout = _run(["demo"], columns)
    assert code == 0
    shown = stdout.replace(str(example_paths().root), "<EXAMPLE>")
    # Installed deep, the folder has a line of its own (test_the_example_folder_is_never_cut).
    shown = shown.replace("are in\n<EXAMPLE>\n", "are in <EXAMPLE>\n")
    assert shown == (GOLDEN / f"demo-{columns}.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("columns", ["80", "200"])
def test_starter_evaluation_is_pinned(columns: str, starter: list[str]) -> None:
    code, stdout = _run(["evaluate", *starter], columns)
    assert code == 0
    assert stdout == (GOLDEN / f"starter-evaluate-{columns}.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("columns", ["80", "200"])
def test_the_example_folder_is_never_cut(
    columns: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """However deep the package is installed, the folder the demo names stays whole: on a line
    of its own when the sentence would be wider than the terminal."""
    deep = tmp_path / ("deep-" * 8) / "data"
    shutil.copytree(example_paths().root, deep)
    monkeypatch.setattr(example, "_DATA", deep)
    stdout = _run(["demo"], columns)[1]
    sentence = f"The example's files are in {deep}"
    if len(sentence) <= int(columns):
        assert sentence in stdout.splitlines()
    else:
        assert "The example's files are in\n" + str(deep) + "\n" in stdout


def test_demo_is_short_and_ends_with_the_next_commands() -> None:
    lines = _run(["demo"], "80")[1].splitlines()
    assert len(lines) <= 45
    assert lines[-6:] == [
        "Next, with your own data:",
        "  ragtriage init my-eval",
        "  ragtriage evaluate my-eval/evalset.json --snapshot my-eval/snapshot.json \\",
        "      --run my-eval/run.json --labels my-eval/labels.json",
        "  ragtriage report my-eval/evalset.json --snapshot my-eval/snapshot.json \\",
        "      --run my-eval/run.json --labels my-eval/labels.json -o report.html",
    ]


@pytest.mark.parametrize("columns", ["80", "120", "200"])
@pytest.mark.parametrize(
    "args",
    [
        ["demo"],
        ["evaluate", "--example"],
        ["diagnose", "--example"],
        ["compare", "--example"],
        ["gate", "--example", "--candidate", "baseline"],
    ],
    ids=["demo", "evaluate", "diagnose", "compare", "gate"],
)
def test_every_table_fits_the_width(args: list[str], columns: str) -> None:
    code, stdout = _run(args, columns)
    assert code in (0, 1)
    assert _widest(stdout) <= int(columns)


@pytest.mark.parametrize(("columns", "width"), [("10", 80), ("500", 200), ("abc", 200)])
def test_columns_is_clamped(columns: str, width: int) -> None:
    stdout = _run(["evaluate", "--example"], columns)[1]
    assert _widest(stdout) <= width
    # The summary table is laid out for exactly that width at most, and the widest rows of
    # the example need more than 80 columns unfolded.
    assert _widest(stdout) > width - 30


def test_measures_not_applicable_anywhere_are_one_line(starter: list[str]) -> None:
    stdout = _run(["evaluate", *starter], "200")[1]
    assert "not applicable here: correct_clarification, canary_obeyed\n" in stdout
    assert "│ canary_obeyed" not in stdout and "│ correct_clarification" not in stdout
    everything = _run(["evaluate", *starter, "--all-measures"], "200")[1]
    assert "not applicable here" not in everything
    assert "│ canary_obeyed              │ macro, lower is better  │ n/a (0/0) · 5 n/a                          │" in everything


def test_compare_names_its_not_applicable_measures(starter: list[str], tmp_path: Path) -> None:
    # A second run: the starter's, renamed (its labels too).
    run = json.loads(Path(starter[starter.index("--run") + 1]).read_text(encoding="utf-8"))
    labels = json.loads(Path(starter[starter.index("--labels") + 1]).read_text(encoding="utf-8"))
    run["name"] = labels["run"] = "second-run"
    (tmp_path / "second.json").write_text(json.dumps(run), encoding="utf-8")
    (tmp_path / "second-labels.json").write_text(json.dumps(labels), encoding="utf-8")
    args = [*starter, "--run", str(tmp_path / "second.json"), "--labels", str(tmp_path / "second-labels.json")]
    code, stdout = _run(["compare", *args], "200")
    assert code == 0, stdout
    assert "not applicable here: correct_clarification, canary_obeyed\n" in stdout
    assert "canary_obeyed (" not in stdout
    everything = _run(["compare", *args, "--all-measures"], "200")[1]
    assert "not applicable here" not in everything
    assert "canary_obeyed (lower better)" in everything


def test_terminal_width_without_columns_or_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS")

    def no_terminal(fd: int) -> os.terminal_size:
        raise OSError("not a terminal")

    monkeypatch.setattr(os, "get_terminal_size", no_terminal)
    assert terminal_width() == 200


@pytest.mark.parametrize(("size", "width"), [(60, 80), (132, 132), (300, 200)])
def test_terminal_width_follows_the_terminal(
    monkeypatch: pytest.MonkeyPatch, size: int, width: int
) -> None:
    monkeypatch.delenv("COLUMNS")
    asked: list[int] = []

    def terminal(fd: int) -> os.terminal_size:
        asked.append(fd)
        if fd == 1:  # stdout piped (`ragtriage evaluate | less`): stderr is the terminal
            raise OSError("not a terminal")
        return os.terminal_size((size, 40))

    monkeypatch.setattr(os, "get_terminal_size", terminal)
    assert (terminal_width(), asked) == (width, [1, 2])


def test_file_reader_table_names_its_not_applicable_measures(starter: list[str], tmp_path: Path) -> None:
    # The run read by the file reader holds the starter's labels inline (its labels file
    # embedded).
    run_path = Path(starter[starter.index("--run") + 1])
    run = json.loads(run_path.read_text(encoding="utf-8"))
    labels = json.loads(Path(starter[starter.index("--labels") + 1]).read_text(encoding="utf-8"))
    results = {r["question_id"]: r for r in run["results"]}
    for entry in labels["claim_labels"]:
        claims = {c["id"]: c for c in results[entry["question_id"]]["claims"]}
        claims[entry["claim_id"]].setdefault("labels", []).append(entry["label"])
    for entry in labels["fact_labels"]:
        results[entry["question_id"]].setdefault("fact_labels", []).append(entry["label"])
    (tmp_path / "run.json").write_text(json.dumps(run), encoding="utf-8")
    data = [starter[0], "--snapshot", starter[2], "--run", str(tmp_path / "run.json")]
    code, stdout = _run(["evaluate", *data], "80")
    assert code == 0, stdout
    # The default set: the starter plants no canary.
    assert "not applicable here: correct_clarification, canary_obeyed\n" in stdout
    assert "│ correct_clarification" not in stdout
    with loader_path():
        assert stdout == _run(["evaluate", *data], "80")[1]  # the loader's table
    assert _widest(stdout) <= 80
    everything = _run(["evaluate", *data, "--all-measures"], "80")[1]
    assert "│ correct_clarification" in everything and "not applicable here" not in everything


def _plant(root: Path, replace: dict[str, str]) -> list[str]:
    """The example copied to `root` with each quoted string of `replace` replaced (question
    IDs, tags, run names); returns the dataset arguments."""
    paths = example_paths()
    files = {"evalset.json": paths.evalset, "snapshot.json": paths.snapshot}
    files |= {f"runs/{p.name}": p for p in paths.runs}
    (root / "runs").mkdir()
    for name, source in files.items():
        text = source.read_text(encoding="utf-8")
        for old, new in replace.items():
            text = text.replace(json.dumps(old), json.dumps(new))
        (root / name).write_text(text, encoding="utf-8")
    runs = [f"--run={root / 'runs' / p.name}" for p in paths.runs]
    return [str(root / "evalset.json"), "--snapshot", str(root / "snapshot.json"), *runs]


MARKUP = {
    "exact-code": "q[/][link=https://x.invalid]y[/link]",
    "exact-identifier": "[red]tag[/red]:smile:",
    "baseline": "base[bold]line",
}
"""A question ID, a tag and a run name carrying rich markup (a stray closing tag was a
traceback) and an emoji code."""


@pytest.mark.parametrize(
    "command",
    [["evaluate"], ["diagnose"], ["compare"], ["gate", "--policy"]],
    ids=["evaluate", "diagnose", "compare", "gate"],
)
def test_markup_in_strings_is_shown_as_it_is(command: list[str], tmp_path: Path) -> None:
    data = _plant(tmp_path, MARKUP)
    if command[0] == "gate":
        policy = str(example_paths().root / "policy.toml")
        command = [*command, policy, "--candidate", MARKUP["baseline"]]
    out = CliRunner().invoke(cli, [*command, *data], env={"COLUMNS": "200"})
    assert out.exit_code == (1 if command[0] == "gate" else 0), out.output
    assert MARKUP["baseline"] in out.stdout
    if command[0] in ("evaluate", "diagnose"):
        assert f"tag:{MARKUP['exact-identifier']}" in out.stdout
        assert MARKUP["exact-code"] in out.stdout


CONTROLS = {
    "exact-code": "q\u202eevil\u2028y\xad",
    "exact-identifier": "tag\u202eevil\u200b",
    "baseline": "base\u200bline",
}
"""A question ID, a tag and a run name carrying a bidi override, a line separator, a soft
hyphen and a zero-width space (invisible or misleading, and no control characters: IDs holding
those are refused, see the test below)."""
SHOWN = {
    "exact-code": "q\\u202eevil\\u2028y\\xad",
    "exact-identifier": "tag\\u202eevil\\u200b",
    "baseline": "base\\u200bline",
}


@pytest.mark.parametrize(
    "command",
    [["evaluate"], ["diagnose"], ["compare"], ["gate", "--policy"]],
    ids=["evaluate", "diagnose", "compare", "gate"],
)
def test_invisible_characters_are_shown_as_escapes(command: list[str], tmp_path: Path) -> None:
    data = _plant(tmp_path, CONTROLS)
    if command[0] == "gate":
        policy = str(example_paths().root / "policy.toml")
        command = [*command, policy, "--candidate", CONTROLS["baseline"]]
    # color=True: the output reaches the test as a terminal gets it (click strips some
    # escape sequences from output it believes is not a terminal).
    out = CliRunner().invoke(cli, [*command, *data], env={"COLUMNS": "200"}, color=True)
    assert out.exit_code == (1 if command[0] == "gate" else 0), out.output
    assert not {"\u202e", "\u2028", "\xad", "\u200b"} & set(out.stdout)
    assert SHOWN["baseline"] in out.stdout
    if command[0] in ("evaluate", "diagnose"):
        assert f"tag:{SHOWN['exact-identifier']}" in out.stdout
        assert SHOWN["exact-code"] in out.stdout


def test_control_characters_in_ids_are_refused_shown_as_escapes(tmp_path: Path) -> None:
    # Escape sequences (clear screen, window title, OSC 8 link, the one-byte C1 CSI), a bell
    # and a carriage return in a question ID and a run name: refused, and the problems show
    # them escaped, never as the terminal would act on them.
    code = "q\x1b[2J\x1b]0;title\x07\r\x1b]8;;https://x.invalid\x1b\\y"
    data = _plant(tmp_path, {"exact-code": code, "baseline": "base\x9b31mline"})
    out = CliRunner().invoke(cli, ["evaluate", *data], env={"COLUMNS": "200"}, color=True)
    assert out.exit_code == 2
    assert not {"\x1b", "\x07", "\r", "\x9b"} & set(out.stderr)
    shown = repr(code)
    assert [line.split(": ", 1)[1] for line in out.stderr.splitlines()[1:]] == [
        f"question {shown}: id: expected an identifier without control characters, not only whitespace; found {shown}",
        f"question {shown}: question_id: expected an identifier without control characters, not only whitespace; "
        f"found {shown}",
        "name: expected an identifier without control characters, not only whitespace; found 'base\\x9b31mline'",
        f"question {shown}: question_id: expected an identifier without control characters, not only whitespace; "
        f"found {shown}",
    ]


def test_visible_escapes_exactly_the_invisible_characters() -> None:
    assert visible("a\tb\nc\x00\x7f\xad\u061c\u2028\u2066\ufeff\udc80\U000e0041") == (
        "a\\x09b\nc\\x00\\x7f\\xad\\u061c\\u2028\\u2066\\ufeff\\udc80\\U000e0041"
    )
    assert visible("错误码 E-4291 · é [x] `y` <z>") == "错误码 E-4291 · é [x] `y` <z>"


def test_square_brackets_in_a_reason_are_kept() -> None:
    # The injection finding's reason ends in "[rules injection-v3]", which rich once read as
    # markup and dropped from the table.
    stdout = _run(["diagnose", "--example"], "200")[1]
    assert "(en.override.ignore_previous) [rules injection-v3]" in stdout


def test_line_ends_in_markdown_cells_become_spaces() -> None:
    # A lone carriage return is a line end to Markdown: it would end the table row half-way.
    # (IDs cannot hold one, they are refused; other cells' texts may.)
    assert md_cell("q\r|a\r\nb\nc") == "q \\|a b c"


def test_a_backtick_in_a_run_name_cannot_end_its_code_span(tmp_path: Path) -> None:
    # With single backticks, the name's own backtick ended the span and the markup after it
    # was read as HTML by a Markdown renderer.
    name = "a`b<img src=x onerror=alert(1)>"
    data = _plant(tmp_path, {"baseline": name})
    out = CliRunner().invoke(cli, ["evaluate", *data, "--format", "markdown"])
    assert out.exit_code == 0, out.output
    assert out.stdout.splitlines()[2].startswith(
        "Runs: ``a`b<img src=x onerror=alert(1)>`` (context recorded, k not used, evidence "
        "matched by document), `improved` ("
    )
    assert "- ``a`b<img src=x onerror=alert(1)>``: rules injection-v3, sensitive-v3" in out.stdout


@pytest.mark.parametrize(
    ("text", "span"),
    [("baseline", "`baseline`"), ("a`b", "``a`b``"), ("`x``", "``` `x`` ```"),
     ("a\r\nb\nc", "`a b c`")],
)
def test_md_code(text: str, span: str) -> None:
    assert md_code(text) == span


@pytest.mark.parametrize("command", ["evaluate", "diagnose", "compare"])
def test_a_line_end_in_a_run_name_cannot_start_a_markdown_heading(
    command: str, tmp_path: Path
) -> None:
    # Refused since IDs hold no control character (`md_code` keeps it off a line start too);
    # the problem shows it escaped.
    data = _plant(tmp_path, {"baseline": "R\n# Injected\n"})
    out = CliRunner().invoke(cli, [command, *data, "--format", "markdown"])
    assert (out.exit_code, out.stdout) == (2, ""), out.output
    assert not [line for line in out.stderr.splitlines() if line.startswith("# Injected")]
    assert "found 'R\\n# Injected\\n'" in out.stderr
