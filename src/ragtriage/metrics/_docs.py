"""Markdown reference of every registered metric, rendered from the registry.

`docs/metrics.md` is this module's output; a test checks the committed file equals it.
Regenerate with `python -m ragtriage.metrics._docs > docs/metrics.md`.
"""

from __future__ import annotations

import sys

from ._registry import REGISTRY, MetricSpec, layer_rank

_LAYER_TITLES = {
    "retrieval": "Retrieval: evidence recall and ranking",
    "coverage": "Reference-fact coverage",
    "support": "Answer support (faithfulness)",
    "citation": "Citations",
    "refusal": "Refusal",
    "clarification": "Clarification",
    "stale": "Stale evidence",
    "handoff": "Hand-off to a person (escalation)",
    "permission": "Permission leaks",
    "injection": "Instructions in documents",
    "sensitive": "Sensitive content",
}

_INTRO = """\
# Metrics

<!-- Generated from the metric registry by `python -m ragtriage.metrics._docs`; do not edit. -->

Every metric is computed per question first, then aggregated. An aggregate reports its
value, numerator, denominator, averaging kind and how many questions it was not applicable
to. **Macro** averaging is the mean of the per-question values over the questions where the
metric applies; **micro** averaging pools numerators and denominators over the unit named
(claims). A question where a metric is not applicable has no value (`null` in JSON, `n/a` in
tables) and is never averaged in. When every question is not applicable the aggregate's
value is `null`, never 0 or 1.

Boolean metrics are 1 or 0 per question (`true`/`false` in the JSON report) and their
aggregate is a rate. A parameterised metric is written `name@k` (e.g. `ndcg@10`).
"""


def _ordered() -> list[MetricSpec]:
    return sorted(REGISTRY.values(), key=lambda spec: (layer_rank(spec.layer), spec.name))


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_metrics_markdown() -> str:
    """The metrics reference as Markdown: an overview table, then one section per metric."""
    specs = _ordered()
    lines = [_INTRO, "## Overview", ""]
    lines.append("| metric | layer | better | averaging | per question | default |")
    lines.append("| --- | --- | --- | --- | --- | --- |")
    for spec in specs:
        lines.append(
            f"| `{spec.spelled()}` | {spec.layer} | {spec.direction} | {spec.averaging} "
            f"| {spec.kind} | {'yes' if spec.in_default_set and not spec.params else 'no'} |"
        )
    layer = None
    for spec in specs:
        if spec.layer != layer:
            layer = spec.layer
            lines += ["", f"## {_LAYER_TITLES.get(layer, layer)}"]
        lines += [
            "",
            f"### `{spec.spelled()}`",
            "",
            _cell(spec.summary),
            "",
            f"- **Layer:** {spec.layer}",
            f"- **Direction:** {spec.direction} is better",
            f"- **Averaging:** {spec.averaging}",
            f"- **Per-question value:** {spec.kind}",
            f"- **Formula:** {spec.formula}",
            f"- **Denominator:** {spec.denominator}",
            f"- **Not applicable when:** {spec.not_applicable}",
            f"- **Reads:** {', '.join(f'`{r}`' for r in spec.requires)}",
        ]
        if spec.params:
            lines.append(f"- **Parameters:** {', '.join(f'`{p}`' for p in spec.params)}")
        if spec.aliases:
            shown = ", ".join(f"`{spec.spelled(alias)}`" for alias in spec.aliases)
            lines.append(f"- **Also accepted as:** {shown} (names are case-insensitive)")
        if spec.rank is not None:
            lines.append(
                f"- **In `trec-eval`:** reported as `{spec.spelled(spec.rank.name)}`: "
                f"{spec.rank.formula} (`reference_metric` names `{spec.spelled()}`)"
            )
        if spec.counts_cannot_judge:
            lines.append(
                "- **Cannot judge:** items labelled `cannot_judge` are left out of the numerator "
                "and the denominator and counted in every aggregate (`cannot_judge` in JSON, "
                "`· N cannot judge` in the table, Markdown and HTML)"
            )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render_metrics_markdown())
