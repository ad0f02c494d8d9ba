"""Which questions a TREC aggregate averages over, and what a question without a relevant
document counts as: ragtriage's rule (not applicable) or trec_eval's (0).

Per-question values do not depend on the rule; only the aggregate does. The rules:

- `relevant` (default): macro over questions with at least one relevant document; a
  question without one is not applicable and left out.
- `trec_eval`: trec_eval's default. Macro over the questions that are both in the run and
  in the qrels (a qrels question is one with any judgement line, relevant or not); a
  question without a relevant document counts 0; qrels questions without a ranking are
  left out, run questions without judgements are skipped.
- `trec_eval-c`: trec_eval with `-c`. Macro over every qrels question; one without a
  relevant document, or without a ranking, counts 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np

from ..metrics import Aggregate
from ._measures import PerQuestion, aggregate_columnar

AveragingRule = Literal["relevant", "trec_eval", "trec_eval-c"]
"""Name of an averaging rule for TREC aggregates."""

AVERAGING_RULES: dict[str, str] = {
    "relevant": "macro over questions with at least one relevant document; a question"
    " without one is not applicable (ragtriage)",
    "trec_eval": "macro over questions in both the run and the qrels; a question without a"
    " relevant document counts 0 (trec_eval's default)",
    "trec_eval-c": "macro over every qrels question; a question without a relevant document"
    " or without a ranking counts 0 (trec_eval -c)",
}
"""Each rule's name and its definition in words, as reports print them."""


def average(
    label: str, parts: Sequence[PerQuestion], rule: AveragingRule, missing: np.ndarray
) -> Aggregate:
    """The aggregate of one measure under `rule`.

    `missing` marks (in row order over all parts) the qrels questions that had no ranking;
    they are scored as empty rankings and only `trec_eval-c` averages them in.
    """
    if rule == "relevant":
        return aggregate_columnar(label, parts)
    values: list[float] = []
    left_out = 0
    start = 0
    for part in parts:
        rows = missing[start : start + part.numerator.size]
        start += part.numerator.size
        den = part.denominator
        value = np.divide(part.numerator, den, out=np.zeros_like(den), where=den > 0)
        keep = ~rows if rule == "trec_eval" else np.ones_like(rows)
        values.extend(value[keep].tolist())
        left_out += int(keep.size - keep.sum())
    num = math.fsum(values)
    den_total = float(len(values))
    value_total = num / den_total if den_total else None
    return Aggregate(label, value_total, _tidy(num), _tidy(den_total), "macro", left_out)


def _tidy(number: float) -> float:
    return int(number) if float(number).is_integer() else number
