"""Renderings of a comparison for people: a terminal table and PR-ready Markdown (the JSON is
`_comparison_json`)."""

from __future__ import annotations

import io
from collections.abc import Sequence

from .._console import text_console, text_table
from .._markdown import md_code, md_lines, md_table, md_text
from ..errors import id_list
from ..evaluation import selected_by
from ..metrics import not_applicable_line, value_text
from ._comparison import (
    STATUS_ORDER,
    Comparison,
    MetricComparison,
    PairComparison,
    QuestionChange,
)
from ._comparison_json import PAIRING, methods
from ._pairing import TOLERANCE
from ._stats import BootstrapCI

LIST_LIMIT = 50
"""Per status (Markdown) and in the table, at most this many questions are listed."""


def paired_value(paired: float | None, whole: float | None) -> str:
    """`0.833` over the paired questions, `0.833 (all 0.786)` when the value over every
    question where the run has one differs."""
    text = value_text(paired)
    same = (paired is None and whole is None) or (
        paired is not None and whole is not None and abs(paired - whole) <= TOLERANCE
    )
    return text if same else f"{text} (all {value_text(whole)})"


def ci_text(ci: BootstrapCI | None) -> str:
    """`[-0.100, +0.250]`: an interval's bounds, signed, to 3 places; `n/a` without one."""
    return "n/a" if ci is None else f"[{ci.low:+.3f}, {ci.high:+.3f}]"


def moved_metrics(q: QuestionChange) -> list[str]:
    """`fact_coverage 0.50->1.00 (+0.50)` for every metric that improved or regressed."""
    out = []
    for ch in q.metrics:
        if ch.status not in ("improved", "regressed") or ch.base is None or ch.candidate is None:
            continue
        out.append(
            f"{ch.metric} {value_text(ch.base, 2)}->{value_text(ch.candidate, 2)} "
            f"({ch.candidate - ch.base:+.2f})"
        )
    return out


def _p(m: MetricComparison) -> str:
    if m.test is None:
        return "n/a"
    short = {
        "mcnemar_exact": "McNemar",
        "sign_flip_exact": "perm. exact",
        "sign_flip_monte_carlo": "perm. MC",
    }
    return f"{m.test.p_value:.3g} ({short.get(m.test.name, m.test.name)})"


def metric_rows(pair: PairComparison, hidden: Sequence[str] = ()) -> list[list[str]]:
    """Per metric: name, base, candidate, difference, interval, p-value, W/T/L, paired count.

    Metrics named in `hidden` are left out (the terminal table names them on one line).
    """
    return [
        [
            f"{m.metric} ({m.direction} better)",
            paired_value(m.base, m.base_all),
            paired_value(m.candidate, m.candidate_all),
            value_text(m.difference, signed=True),
            ci_text(m.ci),
            _p(m),
            f"{m.wins}/{m.ties}/{m.losses}",
            f"{m.paired} ({m.unpaired} unpaired)",
        ]
        for m in pair.metrics
        if m.metric not in hidden
    ]


def metric_header(level: float) -> list[str]:
    """Column names of `metric_rows`, with the confidence level."""
    return [
        "metric",
        "base",
        "candidate",
        "difference",
        f"{level:.0%} CI",
        "p (test)",
        "win/tie/loss",
        "paired",
    ]


def question_rows(pair: PairComparison) -> list[list[str]]:
    """Per changed question (regressions first): status, stage change, metrics that moved."""
    rows = []
    for q in pair.questions:
        if q.status == "unchanged":
            continue
        moved = moved_metrics(q)
        stage = "-" if q.stage_change is None else f"{q.base_stage} -> {q.candidate_stage}"
        rows.append([q.question_id, q.status, stage, q.split, "; ".join(moved) or "-"])
    return rows


QUESTION_HEADER = ["question", "status", "stage", "split", "metrics that moved"]


def _headline(pair: PairComparison) -> str:
    counts = ", ".join(f"{pair.count(s)} {s}" for s in STATUS_ORDER)
    return f"{pair.candidate.label} vs {pair.base.label}: {counts}"


def _provenance_rows(pair: PairComparison) -> list[list[str]]:
    return [
        [d.condition, d.base or "(not recorded)", d.candidate or "(not recorded)"]
        for d in pair.provenance.differences
    ]


def _repeat_lines(comparison: Comparison) -> list[str]:
    lines = []
    for g in comparison.groups:
        if not g.repeats:
            continue
        stats = "; ".join(
            f"{r.metric} {value_text(r.mean)} ± {value_text(r.std)}"
            for r in g.repeats
            if r.mean is not None
        )
        lines.append(
            f"{g.label}: {len(g.runs)} repeats (seeds {g.conditions.get('seed')}); "
            f"mean ± sd: {stats}"
        )
        flaky = id_list(f.question_id for f in g.flaky) or "none"
        lines.append(
            f"{g.label}: flaky questions (outcome or stage changes between repeats): {flaky}"
        )
    return lines


def render_comparison_table(
    comparison: Comparison, width: int = 140, *, all_measures: bool = False
) -> str:
    """The terminal report: per pair, the headline, provenance, metrics, then questions.

    Metrics not applicable in any run (`Comparison.not_applicable`) are named on one line
    unless `all_measures`.
    """
    hidden = () if all_measures else comparison.not_applicable()
    buffer = io.StringIO()
    console = text_console(buffer, width)
    for warning in comparison.warnings:
        console.print(f"warning: {warning}")
    for line in _repeat_lines(comparison):
        console.print(line)
    for pair in comparison.pairs:
        console.print(_headline(pair))
        if pair.left_out() is not None:
            console.print(pair.left_out())
        if pair.provenance.differences:
            header = ("condition", pair.base.label, pair.candidate.label)
            console.print(text_table("conditions that differ", header, _provenance_rows(pair)))
        console.print(
            text_table(
                f"metrics over paired questions (of {comparison.questions}"
                f"{selected_by(comparison.selection)})",
                metric_header(comparison.level),
                metric_rows(pair, hidden),
                wrap_first=False,
            )
        )
        if hidden:
            console.print(not_applicable_line(hidden))
        rows = question_rows(pair)
        title = "questions that changed, regressions first"
        console.print(text_table(title, QUESTION_HEADER, rows[:LIST_LIMIT]))
        if len(rows) > LIST_LIMIT:
            console.print(
                f"... and {len(rows) - LIST_LIMIT} more changed questions (all in --format json)"
            )
    m = methods(comparison)
    console.print(
        f"methods: {m['bootstrap']}; {m['continuous_test']}; {m['binary_test']}; {PAIRING}"
    )
    return buffer.getvalue()


def render_comparison_markdown(comparison: Comparison) -> str:
    """A pull-request comment: warnings, then per pair regressions, improvements, metrics."""
    lines = ["## ragtriage comparison", ""]
    for warning in comparison.warnings:
        lines.append(f"> **Warning:** {md_text(warning)}")
    if comparison.warnings:
        lines.append("")
    for line in _repeat_lines(comparison):
        lines += [f"- {md_text(line)}"]
    for pair in comparison.pairs:
        lines += [*([""] if lines[-1] else []), f"### {md_text(_headline(pair))}", ""]
        if pair.left_out() is not None:
            lines += [f"{md_text(str(pair.left_out()))}.", ""]
        for status in ("regressed", "mixed", "improved", "changed"):
            chosen = [q for q in pair.questions if q.status == status]
            if not chosen:
                continue
            lines.append(f"**{status.capitalize()} ({len(chosen)})**")
            lines.append("")
            for q in chosen[:LIST_LIMIT]:
                stage = q.stage_change or q.question_id
                moved = "; ".join(moved_metrics(q))
                lines.append(f"- {md_code(stage)}" + (f": {moved}" if moved else ""))
            if len(chosen) > LIST_LIMIT:
                lines.append(f"- ... and {len(chosen) - LIST_LIMIT} more (all in --format json)")
            lines.append("")
        if pair.provenance.differences:
            lines += ["Conditions that differ:", ""]
            lines += md_table(
                ["condition", pair.base.label, pair.candidate.label], _provenance_rows(pair)
            )
            lines.append("")
        of = f"{comparison.questions}{selected_by(comparison.selection)}"
        lines += [f"Metrics over paired questions (of {md_text(of)}):", ""]
        lines += md_table(metric_header(comparison.level), metric_rows(pair))
    m = methods(comparison)
    lines += [
        "",
        f"<sub>{m['bootstrap']}. {m['continuous_test']}. {m['binary_test']}. {PAIRING}.</sub>",
    ]
    return md_lines(lines) + "\n"
