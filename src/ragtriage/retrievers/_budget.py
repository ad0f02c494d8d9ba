"""The final context budget: at most k units and, optionally, at most N characters."""

from __future__ import annotations

from collections.abc import Sequence

from ._scored import Scored
from ._units import Unit


def fit_context(
    ranking: Sequence[Scored], units: Sequence[Unit], k: int, max_chars: int | None
) -> list[Scored]:
    """The head of the ranking that fits: whole units, in rank order, until k or the budget.

    A unit that would overflow the character budget ends the context (it is not cut, and no
    lower-ranked unit is slipped in after it), so what the budget drops is exactly the tail
    of the ranking, as a truncating prompt builder would drop it.
    """
    chosen: list[Scored] = []
    used = 0
    for item in ranking:
        if len(chosen) >= k:
            break
        size = len(units[item.unit].text)
        if max_chars is not None and used + size > max_chars:
            break
        chosen.append(item)
        used += size
    return chosen
