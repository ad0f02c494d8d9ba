"""The click type of every numeric option, made from the range the library checks
(`validation`, `endpoint`): a value outside it is a usage error (exit 2) before any work starts.

Unbounded numbers are how a typo becomes a hang or a crash: `--resamples 999999999999`
allocates for hours, `--seed -1` fails deep inside numpy, `--timeout 1e300` never times out.
A test walks every command and fails for an int or float option without a range.
"""

from __future__ import annotations

import math
from typing import Any

import click

from ..errors import NumberRange, RagtriageError


class FiniteFloatRange(click.FloatRange):
    """A float range that also refuses NaN (every comparison with NaN is false, so click's
    range check lets it through) and infinities."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


def bounded(bound: NumberRange) -> click.IntRange | FiniteFloatRange:
    """The click type of a range the library checks too (the same bound, one definition:
    `type=bounded(SEED_RANGE)`)."""
    if bound.integer:
        return click.IntRange(int(bound.low), int(bound.high))
    return FiniteFloatRange(bound.low, bound.high, min_open=bound.low_open)


class KType(click.ParamType):  # type: ignore[type-arg]
    """The cut-off k: a positive integer, with the same message as file-level checks."""

    name = "k"

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> int:
        from ..validation import parse_k

        if isinstance(value, int) and not isinstance(value, bool):
            raw: str | int = value
        else:
            raw = str(value)
        try:
            return parse_k(raw)
        except RagtriageError as exc:
            self.fail(str(exc).splitlines()[-1].removeprefix("- "), param, ctx)
