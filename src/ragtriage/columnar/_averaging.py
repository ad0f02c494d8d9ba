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

import numpy as np

from ..metrics import Aggregate, PerQuestion, aggregate
from ..validation import AveragingRule as AveragingRule  # the rule names, one list for all

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
    label: str, scores: PerQuestion, rule: AveragingRule, missing: np.ndarray
) -> Aggregate:
    """The aggregate of one measure under `rule`.

    `missing` marks the qrels questions that had no ranking; they are scored as empty
    rankings and only `trec_eval-c` averages them in. The trec_eval rules count a question
    without a relevant document as 0 / 1 (in the average), `trec_eval` leaves the missing
    ones out (not applicable).
    """
    if rule != "relevant":
        counted = ~missing if rule == "trec_eval" else np.ones_like(missing)
        empty = scores.denominator == 0
        scores = PerQuestion(
            np.where(empty, 0.0, scores.numerator),
            np.where(counted, np.where(empty, 1.0, scores.denominator), 0.0),
        )
    return aggregate(label, "macro", scores)
