"""Rank measures of a native run (`ndcg@k`, `mrr@k`, `recall_candidates@k`, ...) as arrays.

Each stage's ranking becomes a `RankArrays` (the form `trec-eval` scores), and every measure
is its registry entry's rank form over it: one computation for both commands. The grade of a
ranked item follows `metrics.ranking.relevance_gains`: walking the ranking from the top, an
item is relevant when it satisfies a required group no earlier item satisfied, and carries
that group's grade. The arrays model a unit satisfying one group of its question (`Matcher`);
questions where a unit satisfies several are scored by the reference functions (exotic rows).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..metrics import Measure, PerQuestion, RankForm
from ..metrics.ranking import RECALL_CANDIDATES
from ._arrays import RankArrays
from ._native_layers import ANSWERABLE, Matcher, _owner, group_of
from ._native_read import Codes, EvalColumns
from ._native_run import RunColumns

_STAGE = {"recall_candidates": "candidates", "recall_reranked": "reranked"}
"""The stage a rank measure reads when it is not the final ranking."""


def _form(measure: Measure) -> RankForm:
    # recall_reranked has no rank form of its own (trec-eval has no reranked stage): it is
    # recall over the reranked list.
    form = measure.spec.rank or RECALL_CANDIDATES.rank
    if form is None:  # registered with one (metrics.ranking)
        raise ValueError(f"{measure.name} has no rank form")
    return form


def _grades(
    flat: tuple[np.ndarray, np.ndarray], run: RunColumns, ev: EvalColumns, codes: Codes,
    level_document: np.ndarray, m: Matcher, width: int,
) -> tuple[np.ndarray, np.ndarray]:
    """(questions, width) grades of one stage's rankings (rows in set order) and lengths."""
    items, offsets = flat
    owner = _owner(offsets)
    rows = run.row[owner]
    rank = np.arange(items.size, dtype=np.int64) - offsets[owner]
    groups = group_of(m, codes, level_document, rows, items)
    # A group's first item in file order is its first in its ranking (one result per
    # question, ranks in order): only that one is relevant.
    hit = np.flatnonzero(groups >= 0)
    _, first = np.unique(groups[hit], return_index=True)
    new = hit[first]
    n = len(ev.ids)
    grades = np.zeros((n, width), dtype=np.int32)
    keep = new[rank[new] < width]
    grades[rows[keep], rank[keep]] = ev.group_grade[groups[keep]]
    lengths = np.zeros(n, dtype=np.int64)
    lengths[run.row] = np.diff(offsets)
    return grades, lengths


def _ideal(ev: EvalColumns, width: int) -> np.ndarray:
    """(questions, width): each question's group grades, highest first."""
    group_row = _owner(ev.group_offsets)
    order = np.lexsort((-ev.group_grade, group_row))
    position = np.arange(order.size, dtype=np.int64) - ev.group_offsets[group_row]
    ideal = np.zeros((len(ev.ids), width), dtype=np.int32)
    keep = position < width
    ideal[group_row[keep], position[keep]] = ev.group_grade[order][keep]
    return ideal


def rank_scores(
    ev: EvalColumns, run: RunColumns, codes: Codes, level_document: np.ndarray, m: Matcher,
    measures: Sequence[Measure],
) -> dict[str, PerQuestion]:
    """Per question (set order), every measure of `measures` with a cut-off, by name."""
    ranked = [x for x in measures if x.spec.params == ("k",)]
    if not ranked:
        return {}
    depth = max(dict(x.params)["k"] for x in ranked)
    longest = max(
        int(np.diff(run.candidates[1]).max(initial=0)), int(np.diff(run.reranked[1]).max(initial=0))
    )
    width = max(1, min(depth, longest))  # a column of zeros when every ranking is empty
    n_groups = np.diff(ev.group_offsets)
    applies = (ev.answerability == ANSWERABLE) & (n_groups > 0)
    has_reranked = np.zeros(len(ev.ids), dtype=bool)
    has_reranked[run.row] = run.has_reranked
    ideal = _ideal(ev, min(depth, int(n_groups.max(initial=0))))
    candidates = _grades(run.candidates, run, ev, codes, level_document, m, width)
    reranked = _grades(run.reranked, run, ev, codes, level_document, m, width)
    ids = tuple(ev.ids)
    stages = {
        "candidates": RankArrays(ids, *candidates, np.where(applies, n_groups, 0), ideal),
        "reranked": RankArrays(
            ids, *reranked, np.where(applies & has_reranked, n_groups, 0), ideal
        ),
        "final": RankArrays(
            ids,
            np.where(has_reranked[:, None], reranked[0], candidates[0]),
            np.where(has_reranked, reranked[1], candidates[1]),
            np.where(applies, n_groups, 0),
            ideal,
        ),
    }
    out = {}
    for x in ranked:
        part = _form(x).compute(stages[_STAGE.get(x.spec.name, "final")], dict(x.params)["k"])
        # Not applicable is 0 / 0, as `PerQuestion.from_scores` writes it (a needs-
        # clarification question may name evidence its ranking finds).
        applies = part.denominator > 0
        out[x.name] = PerQuestion(np.where(applies, part.numerator, 0.0), part.denominator)
    return out
