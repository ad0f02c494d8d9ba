"""Rank measures of a native run (`ndcg@k`, `mrr@k`, `recall_candidates@k`, ...) as arrays.

Each stage's ranking becomes a `RankArrays` (the form `trec-eval` scores), and every measure
is its registry entry's rank form over it: one computation for both commands. The grade of a
ranked item follows the relevance rule of docs/diagnosis.md: walking the ranking from the
top, an item is relevant when it satisfies a required group no earlier item satisfied, and
carries that group's grade (the highest-graded open one when it satisfies several: `_walk`,
for the questions where some item does). Recall counts the groups satisfied within k
(`RankArrays.satisfied`), which an item satisfying two groups counts twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from operator import itemgetter

import numpy as np

from ..metrics import Measure, PerQuestion
from ..metrics.ranking import RECALL_CANDIDATES
from ._arrays import RankArrays
from ._native_layers import ANSWERABLE
from ._native_read import EvalColumns
from ._native_run import RunColumns
from ._native_stages import StageMatch, _owner

_STAGE = {"recall_candidates": "candidates", "recall_reranked": "reranked"}
"""The stage a rank measure reads when it is not the final ranking."""


def _grades(
    flat: tuple[np.ndarray, np.ndarray], run: RunColumns, ev: EvalColumns, found: StageMatch,
    width: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """One stage's rankings (rows in set order): (questions, width) grades, lengths, and
    (questions, width) required groups first satisfied at each rank (None: one per relevant
    item, no item satisfying two groups)."""
    items, offsets = flat
    owner = _owner(offsets)
    rows = run.row[owner]
    rank = np.arange(items.size, dtype=np.int64) - offsets[owner]
    at, groups = found.at, found.groups
    n = len(ev.ids)
    grades = np.zeros((n, width), dtype=np.int32)
    lengths = np.zeros(n, dtype=np.int64)
    lengths[run.row] = np.diff(offsets)
    # A group's first item in file order is its first in its ranking (one result per
    # question, ranks in order).
    _, first = np.unique(groups, return_index=True)
    several = at[1:][at[1:] == at[:-1]]  # items satisfying two groups or more
    if several.size == 0:  # each relevant item is its group's first
        keep = first[rank[at[first]] < width]
        grades[rows[at[keep]], rank[at[keep]]] = ev.group_grade[groups[keep]]
        return grades, lengths, None
    walked = np.zeros(n, dtype=bool)
    walked[rows[several]] = True
    plain = first[~walked[rows[at[first]]]]
    plain = plain[rank[at[plain]] < width]
    grades[rows[at[plain]], rank[at[plain]]] = ev.group_grade[groups[plain]]
    pick = np.flatnonzero(walked[rows[at]])
    took = _walk(at[pick], groups[pick], ev.group_grade)
    item, group = at[pick][took >= 0], took[took >= 0]
    keep = rank[item] < width
    grades[rows[item[keep]], rank[item[keep]]] = ev.group_grade[group[keep]]
    satisfied = np.zeros((n, width), dtype=np.int32)
    hit = at[first]
    hit = hit[rank[hit] < width]
    np.add.at(satisfied, (rows[hit], rank[hit]), 1)
    return grades, lengths, satisfied


def _walk(at: np.ndarray, groups: np.ndarray, group_grade: np.ndarray) -> np.ndarray:
    """The relevance rule (the oracle's `relevance`, tests/oracle/measures.py) over (item,
    group) pairs (items in ranking order, groups ascending), for the questions where an item
    satisfies several groups (rare: a small loop): an item takes the open group it satisfies
    with the highest grade (ties: the first), and a group is taken once. The group each pair's
    item took, -1 for the pairs of items that took none (one pair per item: its first)."""
    grade = group_grade.tolist()
    taken: set[int] = set()  # global groups: one set serves every question
    out = np.full(at.size, -1, dtype=np.int64)
    start = 0
    pairs = zip(at.tolist(), groups.tolist(), strict=True)
    for _, found in groupby(pairs, key=itemgetter(0)):
        satisfied = [group for _, group in found]
        open_groups = [group for group in satisfied if group not in taken]
        if open_groups:
            best = max(open_groups, key=grade.__getitem__)  # the first of equal grades
            taken.add(best)
            out[start] = best
        start += len(satisfied)
    return out


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
    ev: EvalColumns, run: RunColumns, matched: dict[str, StageMatch],
    measures: Sequence[Measure],
) -> dict[str, PerQuestion]:
    """Per question (set order), every measure of `measures` with a cut-off, by name
    (`matched`: the run's `match_stages`)."""
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
    candidates = _grades(run.candidates, run, ev, matched["candidates"], width)
    reranked = _grades(run.reranked, run, ev, matched["reranked"], width)
    ids = tuple(ev.ids)
    final_satisfied = None
    if candidates[2] is not None or reranked[2] is not None:
        found = [
            (part[0] > 0).astype(np.int32) if part[2] is None else part[2]
            for part in (candidates, reranked)
        ]
        final_satisfied = np.where(has_reranked[:, None], found[1], found[0])
    relevant = np.where(applies, n_groups, 0)
    stages = {
        "candidates": RankArrays(ids, *candidates[:2], relevant, ideal, candidates[2]),
        "reranked": RankArrays(
            ids, *reranked[:2], np.where(has_reranked, relevant, 0), ideal, reranked[2]
        ),
        "final": RankArrays(
            ids, np.where(has_reranked[:, None], reranked[0], candidates[0]),
            np.where(has_reranked, reranked[1], candidates[1]), relevant, ideal, final_satisfied,
        ),
    }
    out = {}
    for x in ranked:
        # recall_reranked has no rank form of its own (trec-eval has no reranked stage): it is
        # recall over the reranked list.
        form = x.spec.rank or RECALL_CANDIDATES.rank
        if form is None:  # registered with one (metrics.ranking)
            raise ValueError(f"{x.name} has no rank form")
        part = form.compute(stages[_STAGE.get(x.spec.name, "final")], dict(x.params)["k"])
        # Not applicable is 0 / 0, as every measure's column writes it (a needs-clarification
        # question may name evidence its ranking finds).
        applies = part.denominator > 0
        out[x.name] = PerQuestion(np.where(applies, part.numerator, 0.0), part.denominator)
    return out
