"""An aggregate as JSON: the one shape every report gives a measure's summary."""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..metrics import Aggregate


def aggregate_json(agg: Aggregate) -> dict[str, Any]:
    """One aggregate's fields under their own names but `metric` (the key it is reported
    under): `{value, numerator, denominator, averaging, not_applicable}`, plus `cannot_judge`
    (items so labelled and left out) for a measure that reads such labels."""
    out = {f.name: getattr(agg, f.name) for f in fields(agg) if f.name != "metric"}
    if agg.cannot_judge is None:
        del out["cannot_judge"]
    return out
