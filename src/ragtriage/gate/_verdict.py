"""The values a gate produces: one result per rule, and the whole verdict."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from .._version import __version__
from ..evaluation import ALL_QUESTIONS
from ..loading import SourceFile

Verdict = Literal["pass", "fail", "skipped"]
"""A rule's verdict."""


@dataclass(frozen=True)
class RuleResult:
    """One rule of the policy applied to the run."""

    name: str
    """The rule's name (unique within the result)."""
    kind: str
    """`block`, `no_regression`, `threshold`, `drop`, `latency` or `cost`."""
    verdict: Verdict
    """`pass`, `fail` or `skipped` (a baseline rule without a baseline)."""
    observed: float | None
    """The observed number (count, value, drop, milliseconds, dollars), None when there is none."""
    observed_text: str
    """The observation in words, with numerator and denominator where there are some."""
    limit: str
    """What the rule allows, in words."""
    detail: str
    """Why it passed or failed."""
    questions: tuple[str, ...] = ()
    """Questions that make the rule fail (offending questions), if any."""


@dataclass(frozen=True)
class GateResult:
    """Every rule's verdict for one run, and what was gated."""

    policy_name: str
    """The policy's name."""
    policy_path: str
    """The policy file."""
    policy_sha256: str
    """SHA-256 of the policy file."""
    run: str
    """The gated run."""
    baseline: str | None
    """The baseline run, if any."""
    questions: int
    """Questions gated."""
    rules: tuple[RuleResult, ...]
    """Verdicts, in policy order: block, no_regression, threshold, drop, latency, cost."""
    sources: tuple[SourceFile, ...]
    """Input files with hashes."""
    tool_version: str = __version__
    """ragtriage version."""
    no_result: tuple[str, ...] = ()
    """Questions the gated run has no result for (`allow_missing`): not gated, listed."""
    selection: str = ALL_QUESTIONS
    """Which questions were asked for (the evaluation's `selection`)."""

    @property
    def passed(self) -> bool:
        """True when no rule failed."""
        return not any(r.verdict == "fail" for r in self.rules)

    def count(self, verdict: Verdict) -> int:
        """How many rules have this verdict."""
        return sum(r.verdict == verdict for r in self.rules)


def bound_text(bound: float) -> str:
    """A policy's number as rule names and limits say it: `0.9`, `100`, and every digit where
    six would show another number (`0.9166666666666666`, not `0.916667`)."""
    return text if float(text := format(bound, "g")) == bound else repr(bound)


def beyond(value: float, op: str, bound: float, spec: str = "g", unit: str = "") -> str:
    """`value op bound` as a failed rule's detail says it (`0.792 < 0.85`), with every digit
    where rounding would show a comparison that does not hold (`0.8499999999999999 < 0.85`,
    not `0.850 < 0.85`)."""
    shown = [format(value, spec), format(bound, "g")]
    low, high = (float(t) for t in (shown if op == "<" else shown[::-1]))
    if not low < high:
        shown = [repr(value), repr(bound)]
    return f"{shown[0]}{unit} {op} {shown[1]}{unit}"


def percent_text(share: float) -> str:
    """A policy's share as a percentage with every digit of the bound (`2.5%`, `86.6%`)."""
    return format(Decimal(repr(share)).scaleb(2), "f") + "%"


def share_beyond(share: float, limit: float) -> str:
    """`share > limit` in percent as a failed rule's detail says it (`87% > 50%`): the limit
    with every digit, the share with the decimals that show the comparison holding
    (`33.33% > 33.3%`, not `33% > 33.3%`)."""
    bound = percent_text(limit)
    for places in range(18):
        shown = f"{share:.{places}%}"
        if Decimal(shown[:-1]) > Decimal(bound[:-1]):
            return f"{shown} > {bound}"
    return f"{percent_text(share)} > {bound}"
