"""Shared CLI plumbing: turning library errors into `Error: ...` and exit codes."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import click

from ..errors import RagtriageError, RequestError
from ._bounds import KType

P = ParamSpec("P")
R = TypeVar("R")

EXIT_GATE_FAILED = 1
EXIT_INVALID = 2
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143
EXIT_BROKEN_PIPE = 141

_HELD: list[Any] = []
"""The last command's result (see `held`)."""


def held(result: R) -> R:
    """`result`, kept until the next command's or the process's end: the entry point ends the
    process without freeing it (`cli.main.end`), where freeing a large evaluation one object
    at a time when its command returns took about 0.3 s at 100,000 questions."""
    _HELD[:] = [result]
    return result


def handle_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Print a user's mistake as `Error: ...` on stderr and exit 2, without a traceback.

    A `RequestError` (options missing or not going together) is shown as a usage error. An
    output file that is also one of the command's input files is refused before the work
    (`refuse_inputs_as_outputs`), and so is a text option holding an undecodable byte
    (`refuse_undecodable`).
    """

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        ctx = click.get_current_context(silent=True)
        if ctx is not None:
            refuse_inputs_as_outputs(ctx)
        try:
            if ctx is not None:
                from ._parsing import refuse_undecodable  # a command's, not `--help`'s

                refuse_undecodable(ctx)
            return func(*args, **kwargs)
        except RequestError as exc:
            from .._console import visible

            raise click.UsageError(visible(str(exc))) from None
        except RagtriageError as exc:
            say(f"Error: {exc}", err=True)
            sys.exit(EXIT_INVALID)

    return wrapper


def say(line: str, *, err: bool = False) -> None:
    """Write a line of the command's own text (a summary, a note, an error) to stdout or
    stderr. It may name run names, IDs and paths from the files read, so control and
    zero-width characters are written as their escapes (`\\x1b`), never to act on the
    terminal. A line stderr refuses is dropped: the command ends as it would have."""
    from .._console import visible  # loaded when a command speaks, not by `--help`

    if err:
        with contextlib.suppress(OSError):  # `2>/dev/full`: a note must not end the command
            click.echo(visible(line), err=True)
    else:  # a summary on stdout fails as a report there does (`to_stdout`)
        to_stdout([visible(line) + "\n"])


def write_output(text: str | Iterable[str | bytes | memoryview], output: Path | None) -> None:
    """Write a rendered report (its text, or its text in pieces: text or UTF-8 bytes) to a
    file (whole or not at all), or to stdout."""
    if output is None:
        if sys.stdout is None:  # its descriptor closed (`>&-`): click would write nothing
            raise _CannotWrite(_STDOUT_CLOSED)
        to_stdout([text] if isinstance(text, str) else text)
    else:
        from ..fileio import write_text

        write_text(output, text)


def to_stdout(pieces: Iterable[str | bytes | memoryview]) -> None:
    """Write text (or UTF-8 bytes) to stdout: a reader that stopped (`| head`) ends the command
    quietly with 141, as SIGPIPE would; a full disk with one line and exit 2, never 1."""
    try:
        for piece in pieces:
            click.echo(piece if isinstance(piece, str | bytes) else bytes(piece), nl=False)
    except BrokenPipeError:  # the reader stopped: nothing more to flush
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise click.exceptions.Exit(EXIT_BROKEN_PIPE) from None
    except OSError as exc:  # a full disk, ...
        from ..fileio import os_reason

        said = f"cannot write the report to standard output: {os_reason(exc)}"
        raise _CannotWrite(said) from None


def refuse_inputs_as_outputs(ctx: click.Context) -> None:
    """Refuse (`Error: cannot write ...`, exit 2) an output file that is also one of the
    command's input files (any other path parameter), the same file by path or by link:
    writing the report would replace the input it was made from. Two outputs of the command
    naming one file are refused alike: the second would replace the first."""
    outputs = ctx.meta.get(_OUTPUTS, set())
    if not outputs:
        return
    given: list[tuple[click.Parameter, Path]] = []
    for param in ctx.command.params:
        if not isinstance(param.type, click.Path) or param.name is None:
            continue
        value = ctx.params.get(param.name)
        values = value if isinstance(value, tuple | list) else (value,)
        given += [(param, Path(v)) for v in values if v is not None]
    from ..fileio import OutputError, refuse_overwrites
    from ._parsing import option_name

    inputs = [(option_name(p), path) for p, path in given if p.name not in outputs]
    if "ledger" in ctx.params and ctx.params["ledger"] is None:  # the one beside the set
        from ..example import example_paths
        from ..holdout import BESIDE_THE_SET, ledger_path

        dataset = ctx.params.get("dataset") or (
            example_paths().evalset if ctx.params.get("example") else None
        )
        if dataset is not None:
            inputs.append((BESIDE_THE_SET, ledger_path(dataset)))
    written = [(option_name(p), path) for p, path in given if p.name in outputs]
    try:
        refuse_overwrites(written, inputs)
    except OutputError as exc:
        raise _CannotWrite(str(exc)) from None


class _CannotWrite(click.ClickException):
    """An output target refused before the work (`Error: cannot write ...`, exit 2)."""

    exit_code = EXIT_INVALID


_OUTPUTS = "ragtriage.outputs"
"""`click.Context.meta` key: the names of the parameters naming a file the command writes."""

_STDOUT_CLOSED = "cannot write the report: standard output is closed"


def checked_output(
    folder: bool = False, stdout: bool = False
) -> Callable[[click.Context, click.Parameter, str | None], Path | None]:
    """A click callback refusing, before any work, an output target that cannot be written
    (`check_output`); `folder`: the option names a folder to write files into; `stdout`: the
    report goes to stdout without it, refused when closed. A file (not a folder) is noted as
    the command's output for `refuse_inputs_as_outputs`."""

    def callback(ctx: click.Context, param: click.Parameter, value: str | None) -> Path | None:
        if value is None and stdout and sys.stdout is None:
            raise _CannotWrite(_STDOUT_CLOSED)
        if not folder and param.name is not None:
            ctx.meta.setdefault(_OUTPUTS, set()).add(param.name)
        if value is not None:
            from ..fileio import OutputError, check_output

            try:
                check_output(value, folder=folder)  # as typed: a trailing '/' is seen
            except OutputError as exc:
                raise _CannotWrite(str(exc)) from None
        return None if value is None else Path(value)

    return callback


def output_path_option(
    *names: str, help: str, folder: bool = False
) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """An option naming a file (or `folder`) the command writes, checked before the work."""
    return click.option(
        *names,
        type=click.Path(),  # text: `checked_output` makes the Path
        default=None,
        callback=checked_output(folder),
        help=help,
    )


def with_options(
    func: Callable[..., R], options: Sequence[Callable[[Callable[..., R]], Callable[..., R]]]
) -> Callable[..., R]:
    """`func` with a group of click options, which `--help` lists in the order given."""
    decorated = func
    for option in reversed(options):
        decorated = option(decorated)
    return decorated


def packed(
    cls: type[Any], name: str, options: Sequence[Callable[[Callable[..., Any]], Any]] = ()
) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Add `options`; the command receives those named as `cls`'s fields as one `name: cls`."""

    def decorator(func: Callable[..., R]) -> Callable[..., R]:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> R:
            given = [f.name for f in dataclasses.fields(cls) if f.name in kwargs]
            kwargs[name] = cls(**{field: kwargs.pop(field) for field in given})
            return func(*args, **kwargs)

        return with_options(wrapper, options)

    return decorator


def examples(*lines: str) -> str:
    """A command's epilog: two or three example invocations, kept as written (no rewrapping)."""
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines)


FORMATS = ("table", "json", "markdown")
"""Every report format; a command whose result has no Markdown form offers the first two."""


def output_option(
    what: str, *, required: bool = False, metavar: str = "FILE"
) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """`-o/--output`: where this command's main output goes; the command receives `output`."""
    where = "" if required or metavar == "DIR" else " instead of stdout"  # files: no stdout
    return click.option(
        "--output",
        "-o",
        "output",
        type=click.Path(),  # text: `checked_output` makes the Path
        required=required,
        metavar=metavar,
        callback=checked_output(folder=metavar == "DIR", stdout=bool(where)),
        help=f"Write {what} here{where}.",
    )


def report_options(
    choices: tuple[str, ...] = FORMATS, *, html: bool = False, all_measures: bool = False
) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """`--format` and `-o/--output` of a command that writes a report, with `--html` and
    `--all-measures` where it offers them: the command receives `fmt: str`, `output: Path |
    None` (`html: Path | None`, `all_measures: bool`)."""
    options: list[Callable[[Callable[..., Any]], Callable[..., Any]]] = [
        click.option(
            "--format",
            "fmt",
            type=click.Choice(list(choices)),
            default="table",
            help="Output format; json is the stable contract for scripts.",
        ),
        output_option("the report"),
    ]
    if html:
        options.append(
            output_path_option(
                "--html",
                "html",
                help="Also write the self-contained HTML report (see `ragtriage report`) to FILE.",
            )
        )
    if all_measures:
        options.append(
            click.option(
                "--all-measures",
                is_flag=True,
                help="Show every measure in terminal tables, also those not applicable in any "
                "run (by default they are named on one line).",
            )
        )

    def decorator(func: Callable[..., R]) -> Callable[..., R]:
        return with_options(func, options)

    return decorator


dataset_argument = click.argument(
    "dataset", type=click.Path(path_type=Path), required=False, metavar="[DATASET]"
)
"""DATASET: an evaluation set (native) or an article-format file; optional with --example."""

snapshot_option = click.option(
    "--snapshot",
    type=click.Path(path_type=Path),
    default=None,
    help="Snapshot file (for a native evaluation set).",
)
"""`--snapshot FILE`: the command receives `snapshot: Path | None`."""

run_option = click.option(
    "--run",
    "runs",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Run file (JSON or JSONL); repeatable.",
)
"""`--run FILE`, repeatable: the command receives `runs: tuple[Path, ...]`."""

labels_option = click.option(
    "--labels",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Label file for a run; repeatable.",
)
"""`--labels FILE`, repeatable: the command receives `labels: tuple[Path, ...]`."""

K_HELP = "Cut-off: the top k of the final ranking is the context when a run records none."
"""-k help of every command that scores or labels runs."""

k_option = click.option("-k", "k", type=KType(), default=None, help=K_HELP)
"""`-k N`: the command receives `k: int | None`."""

self_labelling_option = click.option(
    "--accept-self-labelling",
    is_flag=True,
    help="Use judge labels made by the run's own generator (scores they affect are marked).",
)
"""`--accept-self-labelling`: the command receives `accept_self_labelling: bool`."""


def run_context_options(func: Callable[..., R]) -> Callable[..., R]:
    """`--snapshot`, `--run` (repeatable) and `-k`: the runs whose final contexts the command
    reads; it receives `snapshot`, `runs` and `k`."""
    return with_options(func, (snapshot_option, run_option, k_option))


example_option = click.option(
    "--example",
    is_flag=True,
    help="Use the bundled example instead of DATASET (its runs, baseline and improved, come "
    "first).",
)
"""`--example`: the command receives `example: bool`."""


def executor_options(func: Callable[..., R]) -> Callable[..., R]:
    """`--executor local|ray` and `--ray-address` (the cluster `ray` joins): the command
    receives `executor: str` and `ray_address: str | None`."""
    options = (
        click.option(
            "--executor",
            type=click.Choice(["local", "ray"]),
            default="local",
            help="Where the work runs: this process, or shards on a Ray cluster.",
        ),
        click.option(
            "--ray-address",
            default=None,
            help="Ray cluster to join (e.g. ray://head:10001 or auto); default: a private "
            "local Ray.",
        ),
    )
    return with_options(func, options)


def terminal_width() -> int:
    """`render.terminal_width()`: imported when a command prints, not for `--help`."""
    from ..render import terminal_width as width

    return width()

