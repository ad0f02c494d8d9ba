"""Vega-Lite chart specifications, built with Altair: the stage funnel and stages by slice.

Charts are data plus a declarative spec; the page draws them with vega-embed, whose code is
inlined (see `_assets.py`). Colours and orders are fixed here so that the same inputs give
the same spec, byte for byte.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import altair as alt

from ...diagnosis import RunDiagnosis
from ...evaluation import RunEvaluation
from ...metrics import QuestionView

FUNNEL_STEPS: tuple[str, ...] = (
    "required evidence",
    "among candidates",
    "after reranking",
    "in context",
    "supported",
    "covered",
)
"""The funnel's steps, in pipeline order; each keeps the questions that passed all before it."""

_PALETTE = (
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
_OK_COLOUR = "#c7c7c7"


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


def _all_groups(view: QuestionView, items: Sequence[str]) -> bool:
    return view.groups_satisfied(items) == len(view.question.required_evidence)


def _passes(view: QuestionView) -> list[bool]:
    """Per funnel step after the first: whether this question passes it (cumulatively)."""
    final = view.reranked if view.reranked is not None else view.candidates
    claims = view.claims or ()
    checks = [
        _all_groups(view, view.candidates),
        _all_groups(view, final),
        _all_groups(view, view.context),
        view.outcome == "answered" and bool(claims) and all(c.state == "supported" for c in claims),
        # A question without reference facts has nothing left to miss.
        all(f.state == "covered" for f in view.facts),
    ]
    passed, out = True, []
    for check in checks:
        passed = passed and check
        out.append(passed)
    return out


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


def funnel_spec(steps: Sequence[FunnelStep]) -> dict[str, Any]:
    """A grouped bar chart: one bar per run for each funnel step."""
    rows = [
        {
            "run": s.run,
            "step": s.step,
            "questions": s.questions,
            "share": (s.questions / s.total) if s.total else None,
            "label": f"{s.questions}/{s.total}",
        }
        for s in steps
    ]
    runs = list(dict.fromkeys(s.run for s in steps))
    base = alt.Chart({"values": rows}).encode(
        y=alt.Y("step:N", sort=list(FUNNEL_STEPS), title=None),
        yOffset=alt.YOffset("run:N", sort=runs),
        color=alt.Color(
            "run:N", sort=runs, scale=alt.Scale(domain=runs, range=list(_PALETTE)), title="run"
        ),
    )
    bars = base.mark_bar().encode(
        x=alt.X("questions:Q", title="questions still on track"),
        tooltip=[
            alt.Tooltip("run:N"),
            alt.Tooltip("step:N"),
            alt.Tooltip("label:N", title="questions"),
            alt.Tooltip("share:Q", format=".0%"),
        ],
    )
    text = base.mark_text(align="left", dx=3, fontSize=10).encode(
        x=alt.X("questions:Q"), text=alt.Text("label:N")
    )
    chart = (bars + text).properties(width=520, height=alt.Step(14))
    return _spec(chart)


def stages_spec(diagnoses: Sequence[RunDiagnosis], order: Sequence[str]) -> dict[str, Any]:
    """Stacked bars of primary failure stages per slice (worst slice first), one row per run."""
    rows: list[dict[str, Any]] = []
    slice_order: list[str] = []
    for diagnosis in diagnoses:
        for sl in (diagnosis.breakdown.overall, *diagnosis.breakdown.worst_first()):
            if sl.key not in slice_order:
                slice_order.append(sl.key)
            for count in sl.stages:
                if count.primary:
                    rows.append(
                        {
                            "run": diagnosis.run,
                            "slice": sl.key,
                            "stage": count.stage,
                            "questions": count.primary,
                            "share": count.primary / sl.questions,
                            "of": sl.questions,
                        }
                    )
    failing = [s for s in order if s != "ok"]
    colours = [_PALETTE[i % len(_PALETTE)] for i in range(len(failing))]
    domain = [*failing, "ok"]
    chart = (
        alt.Chart({"values": rows})
        .mark_bar()
        .encode(
            y=alt.Y("slice:N", sort=slice_order, title=None),
            x=alt.X(
                "share:Q",
                stack="zero",
                axis=alt.Axis(format="%"),
                title="share of the slice's questions (primary stage)",
            ),
            color=alt.Color(
                "stage:N",
                scale=alt.Scale(domain=domain, range=[*colours, _OK_COLOUR]),
                title="primary stage",
            ),
            order=alt.Order("stage_rank:Q"),
            tooltip=[
                alt.Tooltip("run:N"),
                alt.Tooltip("slice:N"),
                alt.Tooltip("stage:N"),
                alt.Tooltip("questions:Q"),
                alt.Tooltip("of:Q", title="questions in slice"),
                alt.Tooltip("share:Q", format=".0%"),
            ],
        )
        .transform_calculate(stage_rank=f"indexof({domain!r}, datum.stage)")
        .properties(width=520, height=alt.Step(16))
    )
    runs = list(dict.fromkeys(d.run for d in diagnoses))
    if len(runs) > 1:
        chart = chart.facet(row=alt.Row("run:N", sort=runs, title=None))
    return _spec(chart)


def _spec(chart: alt.TopLevelMixin) -> dict[str, Any]:
    spec: dict[str, Any] = chart.to_dict(validate=False)
    return spec
