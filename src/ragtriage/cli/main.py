"""The `ragtriage` command: a thin layer that wires arguments to the library.

Commands are loaded lazily: `ragtriage --version` and `ragtriage --help` import no command
module (nor numpy or pydantic); a command's module is imported when that command runs or
shows its own help. `--help` lists the commands from the static table below, which a test
keeps equal to the commands' own one-line help.
"""

from __future__ import annotations

import atexit
import difflib
import errno
import keyword
import os
import signal
import sys
import threading
from dataclasses import dataclass
from importlib import import_module
from types import FrameType
from typing import NoReturn

import click

from .._version import __version__
from ._common import EXIT_INTERRUPTED, EXIT_INVALID, EXIT_TERMINATED, examples


@dataclass(frozen=True)
class CommandEntry:
    """One subcommand: its name and its one-line help. Its module under `ragtriage.cli` and the
    command in it are named for it: `trec_eval.trec_eval_command` for `trec-eval`, with a
    trailing underscore for a module named by a Python keyword (`import_.import_command`)."""

    name: str
    """The name typed after `ragtriage`."""
    summary: str
    """The first paragraph of its help, which `ragtriage --help` shortens to fit a line."""

    def load(self) -> click.Command:
        """Import the command's module and return the command."""
        word = self.name.replace("-", "_")
        module = import_module(f".{word}_" if keyword.iskeyword(word) else f".{word}", __package__)
        command: click.Command = getattr(module, f"{word}_command")
        return command


COMMANDS: tuple[CommandEntry, ...] = (
    CommandEntry(
        "evaluate",
        "Score DATASET (an evaluation set or an article-format file) and its runs.",
    ),
    CommandEntry(
        "demo",
        "Evaluate the bundled example: a baseline and an improved run of a fictional service.",
    ),
    CommandEntry(
        "init",
        "Write a starter dataset into DIR: snapshot, evaluation set, run, labels, gate policy.",
    ),
    CommandEntry("schema", "Print the JSON Schema of a file KIND (generated from the models)."),
    CommandEntry(
        "diagnose",
        "Say where each question of DATASET's runs failed: primary stage, secondary ones, IDs.",
    ),
    CommandEntry("report", "Write DATASET and its runs as one HTML file."),
    CommandEntry("run", "Retrieve for every question of DATASET over --snapshot and write a run."),
    CommandEntry(
        "import",
        "Convert tau2 data, Ragas/seed/DeepEval records, TREC files or OpenInference traces.",
    ),
    CommandEntry("export", "Write native files in other formats (TREC qrels and runs)."),
    CommandEntry(
        "compare",
        "Compare the runs of DATASET (embedded, --run files, or the example's), "
        "question by question.",
    ),
    CommandEntry(
        "gate",
        "Check a run of DATASET (--candidate) against a release policy, optionally a baseline.",
    ),
    CommandEntry("trec-eval", "Score the TREC run file RUN against the TREC qrels file QRELS."),
    CommandEntry(
        "review",
        "Review sheets: export claims and reference facts, import the filled sheet as labels.",
    ),
    CommandEntry(
        "judge",
        "Label the claims and reference facts of DATASET's runs with an automatic judge.",
    ),
    CommandEntry("calibrate", "Compare a judge's labels with human labels on the same items."),
)
"""Every subcommand; each lives in its own module under `ragtriage.cli`."""

_BY_NAME = {entry.name: entry for entry in COMMANDS}


class LazyGroup(click.Group):
    """A group that imports a command's module only when that command is looked up."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Command names, sorted (as click lists them)."""
        return sorted(_BY_NAME)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command, imported now; None for an unknown name (click then says so)."""
        entry = _BY_NAME.get(cmd_name)
        return entry.load() if entry is not None else None

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """The command and its arguments. A name that is no command's is told the close ones,
        as click tells them among the commands it holds (none here: they load when named)."""
        if args and args[0] not in _BY_NAME and args[0][:1] != "-" and not ctx.resilient_parsing:
            close = sorted(difflib.get_close_matches(args[0], _BY_NAME))
            said = ", ".join(map(repr, close))
            hints = ["", f" Did you mean {said}?", f" (Did you mean one of: {said}?)"]
            ctx.fail(f"No such command {args[0]!r}.{hints[min(len(close), 2)]}")
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context) -> object:
        """Run the command; an interrupt (Ctrl-C) ends it with status 130 and SIGTERM (a CI
        cancel, `timeout`, `docker stop`) with 143, as a shell reports a command either signal
        stopped, not click's 1 (a failed gate's). Both unwind the command first, so no
        temporary output file is left and forked workers are stopped. Running out of memory,
        threads or open files (`ran_out`) is one line and status 2, not a traceback and 1."""
        main_thread = threading.current_thread() is threading.main_thread()
        before = signal.signal(signal.SIGTERM, _terminated) if main_thread else None
        hook = threading.excepthook
        threading.excepthook = lambda done: None if ran_out(done.exc_value) else hook(done)
        try:
            return super().invoke(ctx)
        except Exception as exc:
            if (what := ran_out(exc)) is None:
                raise
            click.echo(f"Error: {what}", err=True)
            raise click.exceptions.Exit(EXIT_INVALID) from None
        except KeyboardInterrupt:
            click.echo("\nAborted: interrupted (SIGINT).", err=True)
            raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
        except _Terminated:
            click.echo("\nAborted: terminated (SIGTERM).", err=True)
            raise click.exceptions.Exit(EXIT_TERMINATED) from None
        finally:
            threading.excepthook = hook
            if main_thread:  # None: a handler not set from Python, which cannot be restored
                signal.signal(signal.SIGTERM, signal.SIG_DFL if before is None else before)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of `--help`, from the static table (no command is imported)."""
        names = self.list_commands(ctx)
        # Shortened as click shortens a loaded command's help, to the same width.
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [
            (name, click.Command(name, help=_BY_NAME[name].summary).get_short_help_str(limit))
            for name in names
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


class _Terminated(BaseException):
    """SIGTERM reached the command: raised in its main thread to unwind it as Ctrl-C does (a
    BaseException, so that no `except Exception` takes it for a failure to report)."""


def _terminated(signum: int, frame: FrameType | None) -> None:
    raise _Terminated


def ran_out(exc: BaseException | None) -> str | None:
    """What the machine ran out of, when `exc` or an exception it was raised while handling
    is one of: MemoryError, a thread that could not start, too many open files (EMFILE,
    ENFILE); None for any other exception, a bug to show whole."""
    while exc is not None:
        if isinstance(exc, MemoryError):
            return "out of memory: the command needs more than this process may use (ulimit -v)"
        if isinstance(exc, RuntimeError) and "can't start new thread" in str(exc):
            return "out of memory: a thread could not start (ulimit -v, ulimit -u)"
        if isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE):
            who = "this process" if exc.errno == errno.EMFILE else "the system"
            return f"too many open files: {who} may open no more (ulimit -n)"
        exc = exc.__cause__ or exc.__context__
    return None


@click.group(
    cls=LazyGroup,
    # Every option with a default shows it in --help: one setting, inherited by each command.
    context_settings={"help_option_names": ["-h", "--help"], "show_default": True},
    epilog=examples(
        "ragtriage demo",
        "ragtriage evaluate evalset.json --snapshot snapshot.json --run a.jsonl --run b.jsonl",
        "ragtriage compare --example --format markdown",
    ),
)
@click.version_option(__version__, prog_name="ragtriage")
def cli() -> None:
    """Show where a RAG system fails, question by question."""


def main() -> NoReturn:
    """Console-script entry point: the command, then `end` with its exit status."""
    try:
        cli(prog_name="ragtriage")
    except SystemExit as done:
        end(done.code)
    end(0)


def end(code: str | int | None) -> NoReturn:
    """End the process with `code`, as `sys.exit(code)` would, once the command is done.

    The exit handlers run (`atexit`) and the standard streams are flushed; what the command
    made is then left to the operating system instead of being freed one object at a time
    with the interpreter's teardown (about 0.4 s after a 100,000-question evaluation). While
    another thread runs, the process ends as `sys.exit` ends it: that waits for the thread.
    """
    if threading.active_count() > 1:
        sys.exit(code)
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:  # as Python writes a `sys.exit` message
        print(code, file=sys.stderr)
        status = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # started without it (its descriptor closed): nothing to flush
            continue
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more to write
            status = status or 120  # Python's own status when the final flush fails
    os._exit(status)
