"""The report's two charts, the stage funnel and the stages by slice, as inline SVG.

Drawn here, in Python, when the page is built: the page needs no script to show them and
the report's content security policy needs nothing for them. Every text from the inputs
(run names, slice keys) is escaped, its control and format characters shown as their
escapes (`\\x1b`, `\\u202e`), and long ones are cut to fit with the whole text kept
in the tooltip (`<title>`). Colours, orders and number formats are fixed, so the same
inputs give the same bytes.
"""

from __future__ import annotations

import math
import operator
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from markupsafe import Markup, escape

from ..._console import visible
from ...diagnosis import RunDiagnosis
from ...evaluation import RunEvaluation
from ...metrics import QuestionView
from ._palette import StageStyle, fill, pattern_defs, stage_style

FUNNEL_STEPS: tuple[str, ...] = (
    "required evidence",
    "among candidates",
    "after reranking",
    "in context",
    "supported",
    "covered",
)
"""The funnel's steps, in pipeline order; each keeps the questions that passed all before it."""

PALETTE: tuple[str, ...] = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#86bcb6",
    "#d37295",
    "#fabfd2",
    "#8cd17d",
    "#b6992d",
    "#499894",
    "#a0cbe8",
)
"""Colours of runs (funnel), in order; stages have their own (`_palette.STAGE_STYLES`)."""

_FONT = 12
_PLOT_WIDTH = 520
_LABEL_MAX = 240
_BAR = 14
_GAP = 10
_PAD = 8


@dataclass(frozen=True)
class FunnelStep:
    """How many questions of one run are still on track after a pipeline step."""

    run: str
    """Run name."""
    step: str
    """One of `FUNNEL_STEPS`."""
    questions: int
    """Questions that passed this step and every step before it."""
    total: int
    """Questions entering the funnel (answerable, with required evidence)."""


def _passes(view: QuestionView) -> list[bool]:
    """Per funnel step after the first: whether this question passes it (cumulatively)."""
    claims = view.claims or ()
    first = view.evidence.first
    checks = [
        # Every required group satisfied among the candidates, the final ranking, the context.
        *(all(at[stage] is not None for at in first) for stage in range(3)),
        view.outcome == "answered" and bool(claims) and all(c.state == "supported" for c in claims),
        # A question without reference facts has nothing left to miss.
        all(f.state == "covered" for f in view.facts),
    ]
    return list(accumulate(checks, operator.and_))


def funnel(run: RunEvaluation) -> tuple[FunnelStep, ...]:
    """The stage funnel of one run over its answerable questions with required evidence."""
    entering = [
        v
        for v in run.views
        if v.question.answerability == "answerable" and v.question.required_evidence
    ]
    counts = [0] * (len(FUNNEL_STEPS) - 1)
    for view in entering:
        for i, passed in enumerate(_passes(view)):
            counts[i] += passed
    total = len(entering)
    return tuple(
        FunnelStep(run.name, step, n, total)
        for step, n in zip(FUNNEL_STEPS, [total, *counts], strict=True)
    )


# ---- drawing helpers ----


def _num(value: float) -> str:
    """A coordinate with at most two decimals and no trailing zeros (stable text)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def text_width(text: str, size: float = _FONT) -> float:
    """Estimated width of `text` in pixels: wide (CJK) characters count double."""
    units = sum(
        1.0 if unicodedata.east_asian_width(ch) in ("W", "F") else 0.6
        for ch in text
        if not unicodedata.combining(ch)
    )
    return units * size


def fit(text: str, width: float, size: float = _FONT) -> str:
    """`text` cut (with an ellipsis) to about `width` pixels."""
    if text_width(text, size) <= width:
        return text
    out = ""
    for ch in text:
        if text_width(out + ch + "…", size) > width:
            break
        out += ch
    return out + "…"


def _escaped(text: str) -> Markup:
    # Text from the inputs as the page shows it: control and format characters as their
    # escapes (`visible`), then HTML-escaped.
    return escape(visible(text))


def _label(x: float, y: float, text: str, width: float, anchor: str = "end") -> str:
    """A text label cut to `width`; the whole text is its tooltip when cut. Control and
    format characters show as their escapes (`visible`), as everywhere in the page."""
    text = visible(text)
    shown = fit(text, width)
    title = f"<title>{_escaped(text)}</title>" if shown != text else ""
    return (
        f'<text x="{_num(x)}" y="{_num(y)}" text-anchor="{anchor}" '
        f'dominant-baseline="middle">{title}{_escaped(shown)}</text>'
    )


def nice_ticks(top: float) -> list[float]:
    """Round tick values from 0 to at least `top` in about five steps: steps of 1, 2 or 5
    times a power of ten, and at least 1 (the ticks count questions)."""
    if top <= 0:
        return [0.0, 1.0]
    raw = top / 5
    power = 10 ** math.floor(math.log10(raw))
    step = max(1.0, next(m * power for m in (1, 2, 5, 10) if m * power >= raw))
    ticks = [0.0]
    while ticks[-1] < top - 1e-9:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def _axis(left: float, top: float, bottom: float, ticks: list[float], labels: list[str]) -> str:
    """Vertical grid lines with their labels under the plot."""
    span = ticks[-1] or 1.0
    parts = []
    for tick, label in zip(ticks, labels, strict=True):
        x = left + tick / span * _PLOT_WIDTH
        parts.append(
            f'<line x1="{_num(x)}" y1="{_num(top)}" x2="{_num(x)}" y2="{_num(bottom)}" '
            'stroke="#ddd"/>'
            f'<text x="{_num(x)}" y="{_num(bottom + 14)}" text-anchor="middle">'
            f"{_escaped(label)}</text>"
        )
    return "".join(parts)


def _legend(
    x0: float, y0: float, items: Sequence[tuple[str, str]], width: float
) -> tuple[str, float]:
    """Swatches and names in rows that wrap at `width`; returns the markup and its height.

    Each item is a name and its swatch's `fill` (a colour or a pattern reference).
    """
    parts, x, y = [], x0, y0
    for name, colour in items:
        shown = fit(name, 200)
        item_width = 16 + text_width(shown) + 14
        if x > x0 and x + item_width > x0 + width:
            x, y = x0, y + 18
        parts.append(
            f'<rect x="{_num(x)}" y="{_num(y - 1)}" width="12" height="12" '
            f'fill="{colour}" stroke="#555" stroke-width="0.5" data-legend="{_escaped(name)}"/>'
            + _label(x + 16, y + 5, name, 200, anchor="start")
        )
        x += item_width
    return "".join(parts), (y - y0) + 18 if items else 0.0


def _svg(width: float, height: float, title: str, body: str) -> Markup:
    return Markup(
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(width)}" height="{_num(height)}" '
        f'viewBox="0 0 {_num(width)} {_num(height)}" role="img" font-size="{_FONT}" '
        f'fill="currentColor" font-family="inherit"><title>{_escaped(title)}</title>{body}</svg>'
    )


# ---- the two charts ----


def funnel_svg(steps: Sequence[FunnelStep]) -> Markup:
    """Grouped bars: for each funnel step one bar per run, labelled `questions/total`."""
    runs = list(dict.fromkeys(s.run for s in steps))
    colour = {run: PALETTE[i % len(PALETTE)] for i, run in enumerate(runs)}
    by_key = {(s.run, s.step): s for s in steps}
    label_width = min(max((text_width(s) for s in FUNNEL_STEPS), default=0), _LABEL_MAX)
    left = _PAD + label_width + _PAD
    group = len(runs) * (_BAR + 2) - 2 + _GAP if runs else _GAP
    ticks = nice_ticks(max((s.total for s in steps), default=0))
    span = ticks[-1]
    parts: list[str] = []
    top = _PAD
    bottom = top + group * len(FUNNEL_STEPS)
    # The page is as wide as the axis, its last tick label, and the longest value label.
    right = left + _PLOT_WIDTH + text_width(f"{ticks[-1]:g}") / 2
    parts.append(_axis(left, top, bottom, ticks, [f"{t:g}" for t in ticks]))
    for row, step in enumerate(FUNNEL_STEPS):
        y0 = top + row * group + _GAP / 2
        parts.append(_label(left - _PAD, y0 + (group - _GAP) / 2, step, label_width))
        for i, run in enumerate(runs):
            s = by_key.get((run, step))
            if s is None:
                continue
            y = y0 + i * (_BAR + 2)
            bar = s.questions / span * _PLOT_WIDTH
            value = f"{s.questions}/{s.total}"
            right = max(right, left + bar + 3 + text_width(value, 10))
            share = f" ({s.questions / s.total:.0%})" if s.total else " (no questions)"
            tip = f"{run} · {step}: {s.questions}/{s.total}{share}"
            parts.append(
                f'<rect class="bar" x="{_num(left)}" y="{_num(y)}" width="{_num(bar)}" '
                f'height="{_BAR}" fill="{colour[run]}" data-run="{_escaped(run)}" '
                f'data-step="{_escaped(step)}" data-value="{s.questions}">'
                f"<title>{_escaped(tip)}</title></rect>"
                f'<text x="{_num(left + bar + 3)}" y="{_num(y + _BAR / 2)}" '
                f'dominant-baseline="middle" font-size="10">{value}</text>'
            )
    axis_title_y = bottom + 32
    parts.append(
        f'<text x="{_num(left + _PLOT_WIDTH / 2)}" y="{_num(axis_title_y)}" '
        'text-anchor="middle">questions still on track</text>'
    )
    width = math.ceil(right + _PAD)
    legend, legend_height = _legend(
        left, axis_title_y + 14, [(r, colour[r]) for r in runs], width - left
    )
    parts.append(legend)
    return _svg(width, axis_title_y + 14 + legend_height + _PAD, "Stage funnel", "".join(parts))


@dataclass(frozen=True)
class _Segment:
    stage: str
    questions: int
    of: int


def stages_svg(diagnoses: Sequence[RunDiagnosis], order: Sequence[str]) -> Markup:
    """Stacked bars of primary failure stages per slice (worst slice first), a panel per run."""
    failing = [s for s in order if s != "ok"]
    styles: dict[str, StageStyle] = {s: stage_style(s, i) for i, s in enumerate([*failing, "ok"])}
    colour = {s: fill(s, style) for s, style in styles.items()}
    rank = {s: i for i, s in enumerate([*failing, "ok"])}
    panels: list[tuple[str, list[tuple[str, list[_Segment]]]]] = []
    for diagnosis in diagnoses:
        rows = []
        for sl in (diagnosis.breakdown.overall, *diagnosis.breakdown.worst_first()):
            segments = [_Segment(c.stage, c.primary, sl.questions) for c in sl.stages if c.primary]
            segments.sort(key=lambda seg: rank.get(seg.stage, len(rank)))
            rows.append((sl.key, segments))
        panels.append((diagnosis.run, rows))
    labels = [key for _, rows in panels for key, _ in rows]
    label_width = min(max((text_width(k) for k in labels), default=0), _LABEL_MAX)
    left = _PAD + label_width + _PAD
    row_height = 16
    titled = len(panels) > 1
    parts: list[str] = []
    y = _PAD
    ticks = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    for run, rows in panels:
        if titled:
            parts.append(_label(_PAD, y + 8, run, left + _PLOT_WIDTH, anchor="start"))
            y += 20
        top = y
        bottom = top + row_height * len(rows)
        parts.append(_axis(left, top, bottom, ticks, [f"{t:.0%}" for t in ticks]))
        for key, segments in rows:
            parts.append(_label(left - _PAD, y + row_height / 2, key, label_width))
            x = left
            for seg in segments:
                width = seg.questions / seg.of * _PLOT_WIDTH
                tip = (
                    f"{run} · {key} · {seg.stage}: {seg.questions} of {seg.of} questions "
                    f"({seg.questions / seg.of:.0%})"
                )
                parts.append(
                    f'<rect class="bar" x="{_num(x)}" y="{_num(y + 1)}" width="{_num(width)}" '
                    f'height="{row_height - 2}" fill="{colour.get(seg.stage, colour["ok"])}" '
                    f'data-run="{_escaped(run)}" data-slice="{_escaped(key)}" '
                    f'data-stage="{_escaped(seg.stage)}" data-value="{seg.questions}">'
                    f"<title>{_escaped(tip)}</title></rect>"
                )
                x += width
            y += row_height
        y = bottom + 28
    parts.append(
        f'<text x="{_num(left + _PLOT_WIDTH / 2)}" y="{_num(y + 4)}" text-anchor="middle">'
        "share of the slice's questions (primary stage)</text>"
    )
    present = {seg.stage for _, rows in panels for _, segs in rows for seg in segs}
    items = [(s, colour[s]) for s in [*failing, "ok"] if s in present]
    # Patterns only for the stages drawn, so the same stages give the same bytes.
    parts.insert(0, pattern_defs({s: styles[s] for s in [*failing, "ok"] if s in present}))
    width = left + _PLOT_WIDTH + _PAD * 3
    legend, legend_height = _legend(left, y + 18, items, width - left)
    parts.append(legend)
    return _svg(width, y + 18 + legend_height + _PAD, "Failure stages by slice", "".join(parts))
