"""An aggregate as JSON: the one shape every report gives a measure's summary."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..metrics import Aggregate


def aggregate_json(agg: Aggregate) -> dict[str, Any]:
    """One aggregate as `{value, numerator, denominator, averaging, not_applicable}`, plus
    `cannot_judge` (items so labelled and left out) for a measure that reads such labels."""
    out: dict[str, Any] = {
        "value": agg.value,
        "numerator": agg.numerator,
        "denominator": agg.denominator,
        "averaging": agg.averaging,
        "not_applicable": agg.not_applicable,
    }
    if agg.cannot_judge is not None:
        out["cannot_judge"] = agg.cannot_judge
    return out
