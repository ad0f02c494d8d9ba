"""`ragtriage demo`: a short tour of the bundled example, ending with the next commands.

`--format json` and `--format markdown` print exactly what `evaluate --example` prints; the
terminal form is shorter: the four layers, the failing stages per run, where the example's
files are, and the three commands to run next (`init`, `evaluate` on one's own data,
`report`).
"""

from __future__ import annotations

import shlex
import textwrap
from pathlib import Path

import click

from ..api import evaluate_files
from ..example import example_paths
from ..render import render_overview
from ..starter import dataset_arguments
from ._common import (
    examples,
    handle_errors,
    report_options,
    terminal_width,
    write_output,
)
from ._dataset import print_notice
from ._parsing import Command
from .evaluate import evaluate_command

STARTER_DIR = "my-eval"
"""The directory name the demo's next commands use."""


def _command(words: list[str], width: int) -> list[str]:
    """A command as shell lines of at most `width` columns where it can (`\\` continues a
    line); an option stays on one line with its value."""
    groups: list[str] = []
    for word in words:
        takes_value = bool(groups) and groups[-1].startswith("-") and " " not in groups[-1]
        if takes_value and not word.startswith("-"):
            groups[-1] += " " + shlex.quote(word)
        else:
            groups.append(shlex.quote(word))
    lines = ["  " + groups[0]]
    for group in groups[1:]:
        if len(lines[-1]) + 1 + len(group) + 2 > width:
            lines[-1] += " \\"
            lines.append("      " + group)
        else:
            lines[-1] += " " + group
    return lines


def next_steps(width: int) -> str:
    """Where the example's files are, and the three commands to run next."""
    paths = example_paths()
    files = [paths.snapshot, paths.evalset, *paths.runs, paths.policy]
    names = ", ".join(str(p.relative_to(paths.root)) for p in files)
    arguments = dataset_arguments(STARTER_DIR)
    # The folder is never cut (it is copied): on a line of its own when the sentence is wider.
    where = f"The example's files are in {paths.root}"
    whole = [where] if len(where) <= width else ["The example's files are in", str(paths.root)]
    lines = [
        "",
        *whole,
        f"({names}; README.md one folder up says what each question shows).",
        "The example's full report: ragtriage evaluate --example",
        "",
        "Next, with your own data:",
        *_command(["ragtriage", "init", STARTER_DIR], width),
        *_command(["ragtriage", "evaluate", *arguments], width),
        *_command(["ragtriage", "report", *arguments, "-o", "report.html"], width),
    ]
    out = []
    for line in lines:
        # The commands are already cut to fit, the folder never is; prose wraps at the width.
        if line.startswith("  ") or line in whole:
            out.append(line)
        else:
            out += textwrap.wrap(line, width) or [""]
    return "\n".join(out) + "\n"


@click.command(
    "demo",
    cls=Command,
    epilog=examples("ragtriage demo", "ragtriage demo --format markdown -o demo.md"),
)
@report_options(all_measures=True)
@click.pass_context
@handle_errors
def demo_command(
    ctx: click.Context, fmt: str, output: Path | None, all_measures: bool = False
) -> None:
    """Evaluate the bundled example: a baseline and an improved run of a fictional service."""
    if fmt != "table":
        # One code path: the demo's JSON and Markdown are `evaluate --example`'s.
        ctx.invoke(evaluate_command, example=True, fmt=fmt, output=output)
        return
    width = terminal_width()
    result = evaluate_files(example=True, notify=print_notice)
    overview = render_overview(result, width, all_measures=all_measures)
    write_output(overview + next_steps(width), output)
