"""Commands that report every problem with their command line at once.

click stops at the first: `-k 0 --label-policy foo` said only what was wrong with `-k`, and
the user learnt of the second on the next try. A command of this module's classes parses as
click does; when click refuses the command line, it is read again to find every other
problem (`line_problems`): each unknown option (the parse goes on without it), each option
taking one value given more than once, then each parameter's value, all in one usage error. A
command line with one problem is refused with click's own message; one that click reads with
an option taking one value given twice is refused too (click keeps the last without a word).
A text option holding a byte the system could not decode is refused once the line reads
(`refuse_undecodable`).
"""

from __future__ import annotations

from typing import Any

import click
from click.core import iter_params_for_processing

from ..errors import InputError, found_text, option_problem, unencodable_at


class _Collecting(click.Command):
    """`parse_args` refusing a command line with every problem it has (see the module)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """click's parse; on a problem, a usage error listing every problem found."""
        if ctx.resilient_parsing:  # completion: no refusal
            return super().parse_args(ctx, args)
        given = list(args)
        try:
            rest = super().parse_args(ctx, args)
        except click.ClickException as first:
            found = line_problems(self, ctx, given)
            if len(found) < 2:
                raise
            raise _listed(found, ctx) from first
        # One value given twice, which click takes silently (the last).
        if found := _repeated(self.make_parser(ctx).parse_args(args=given)[2]):
            raise _listed(found, ctx)
        return rest


class Command(_Collecting):
    """A click command refusing a command line with every problem it has."""


class Group(_Collecting, click.Group):
    """A click group (its own options, and each of its commands'), refusing likewise."""

    command_class = Command


def _listed(found: list[str], ctx: click.Context) -> click.UsageError:
    if len(found) == 1:
        return click.UsageError(found[0], ctx)
    listed = "\n".join(f"- {problem}" for problem in found)
    return click.UsageError(f"{len(found)} problems with the command line:\n{listed}", ctx)


def _repeated(order: list[Any]) -> list[str]:
    """An option taking one value given more than once (`-k 3 -k 5`, or `run --progress
    --no-progress`): click keeps the last and drops the others without a word. A plain flag
    given twice says one thing twice."""
    found = []
    for param in dict.fromkeys(order):
        if not isinstance(param, click.Option) or param.multiple or param.count:
            continue
        times = order.count(param)
        if times > 1 and not (param.is_flag and not param.secondary_opts):
            name = max(param.opts, key=len)
            found.append(f"{name}: expected the option at most once; found it {times} times")
    return found


def line_problems(command: click.Command, ctx: click.Context, args: list[str]) -> list[str]:
    """Every problem of `args` as `command`'s command line, each as click words it: unknown
    options in the command line's order, options given twice, then each parameter's value in the
    order click reads them (only the options' after an unknown option, whose value, if it takes
    one, would be taken for an argument)."""
    scratch = click.Context(command, parent=ctx.parent, info_name=ctx.info_name)
    parser, rest, problems = command.make_parser(scratch), list(args), []
    while True:
        try:
            opts, left, order = parser.parse_args(args=list(rest))
            break
        except click.NoSuchOption as exc:
            problems.append(exc.format_message())
            token = next(
                (at for at, arg in enumerate(rest)
                 if arg == exc.option_name or arg.startswith(f"{exc.option_name}=")),
                None,
            )
            if token is None:  # inside a cluster of short options: read no further
                return problems
            del rest[token]
        except click.ClickException as exc:  # an option without its value: read no further
            return [*problems, exc.format_message()]
    dropped = bool(problems)  # an unknown option's value, if it has one, is read as an argument:
    problems += _repeated(order)
    for param in iter_params_for_processing(order, command.get_params(scratch)):
        if dropped and not isinstance(param, click.Option):  # so no argument is judged
            continue
        try:
            left = param.handle_parse_result(scratch, opts, left)[1]
        except click.ClickException as exc:
            problems.append(exc.format_message())
    if left and not scratch.allow_extra_args and not dropped:
        plural = "s" if len(left) > 1 else ""
        problems.append(f"Got unexpected extra argument{plural} ({' '.join(left)})")
    return problems


def refuse_undecodable(ctx: click.Context) -> None:
    """Refuse (`InputError`, exit 2), every one at once, a text option or argument holding a
    byte the system could not decode (`--tag $'\\xff'`: Python holds it as a lone surrogate,
    `'\\udcff'`), which no report could write. A path may hold one (a file may be so named):
    reports show it escaped (`display_path`)."""
    problems = []
    for param in ctx.command.params:
        if isinstance(param.type, click.Path) or param.name is None:
            continue
        value = ctx.params.get(param.name)
        for text in value if isinstance(value, tuple | list) else (value,):
            if isinstance(text, str) and not text.isascii() and unencodable_at(text) is not None:
                found = f"an undecodable byte in {found_text(text)}"
                problems.append(option_problem(option_name(param), _ENCODABLE, found))
    if problems:
        raise InputError(problems)


_ENCODABLE = "text UTF-8 can encode"


def option_name(param: click.Parameter) -> str:
    """How the user gave a parameter: its longest option (`--run`), or its name in capitals."""
    if isinstance(param, click.Option):
        return max(param.opts, key=len)
    return (param.name or "").upper()
