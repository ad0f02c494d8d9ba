"""Stale evidence: superseded or withdrawn documents at each stage of a question's pipeline."""

from __future__ import annotations

from ._registry import STAGE_WHERE, MetricSpec, register

for _stage, _where in STAGE_WHERE.items():
    register(
        MetricSpec(
            name=f"stale_{'in_' if _stage in ('candidates', 'context') else ''}{_stage}",
            layer="stale",
            direction="lower",
            kind="boolean",
            summary=f"Share of questions with a superseded or withdrawn document {_where}.",
            formula=f"1 when any document {_where} is superseded or withdrawn, else 0",
            denominator=f"questions with at least one item {_where}",
            not_applicable=f"nothing {_where}",
            requires=("document.status", "result"),
        )
    )
