"""The columnar form of rankings: interned questions, padded grade matrices, counts.

Every question is one row. `grades[q, r]` is the relevance grade of the document at rank
`r + 1` of question `q` (0 when it is not relevant or the ranking is shorter), so every
rank measure is a handful of column operations over all questions at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..formats.trec_files import ranking_key


@dataclass(frozen=True)
class RankArrays:
    """Rankings and relevance of many questions as arrays (row i is `question_ids[i]`)."""

    question_ids: tuple[str, ...]
    """Question IDs, one per row, sorted."""
    grades: np.ndarray
    """(questions, width) int32 (int8 or int16 from the TREC reader, when every grade fits):
    grade of the document at each rank, 0 past the ranking; as wide as the longest ranking,
    up to the depth kept (the largest k asked for)."""
    lengths: np.ndarray
    """(questions,) int64: full ranking length (may exceed depth)."""
    n_relevant: np.ndarray
    """(questions,) int64: documents judged relevant (grade > 0) for the question."""
    ideal: np.ndarray
    """(questions, <= depth) int32: the relevant grades, highest first (the ideal ranking);
    as many columns as the most relevant documents of any question, up to depth."""
    satisfied: np.ndarray | None = None
    """(questions, depth) int32: relevant items (required groups) first found at each rank,
    where one ranked item may satisfy several (a native question's evidence groups sharing a
    unit); None: each relevant document is one, `grades > 0`."""

    @property
    def depth(self) -> int:
        """How many ranks the grade matrix holds per question."""
        return int(self.grades.shape[1])

    def found(self, k: int) -> np.ndarray:
        """(questions,) int64: relevant items (required groups) found within the top k."""
        found = self.grades[:, :k] > 0 if self.satisfied is None else self.satisfied[:, :k]
        counted: np.ndarray = found.sum(axis=1, dtype=np.int64)
        return counted

    def shard(self, start: int, stop: int) -> RankArrays:
        """Rows [start, stop) as their own arrays (copies, so a shard ships alone)."""
        return RankArrays(
            self.question_ids[start:stop],
            self.grades[start:stop].copy(),
            self.lengths[start:stop].copy(),
            self.n_relevant[start:stop].copy(),
            self.ideal[start:stop].copy(),
            None if self.satisfied is None else self.satisfied[start:stop].copy(),
        )


def _position_in_group(group: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """For rows sorted by group: each group's size, and each row's position in its group."""
    counts = np.bincount(group, minlength=n_groups)
    starts = np.cumsum(counts) - counts
    return counts, np.arange(group.size, dtype=np.int64) - np.repeat(starts, counts)


def _scatter(
    n: int,
    depth: int,
    group: np.ndarray,
    values: np.ndarray,
    counts: np.ndarray,
    position: np.ndarray,
) -> np.ndarray:
    """A (n, depth) matrix with each group's first `depth` values in its row, 0-padded."""
    if counts.size and bool(np.all(counts == depth)):
        return values.astype(np.int32).reshape(n, depth)  # every ranking exactly `depth` long
    out = np.zeros(n * depth, dtype=np.int32)
    keep = position < depth
    out[group[keep] * depth + position[keep]] = values[keep]
    return out.reshape(n, depth)


def build_rank_arrays(
    question_ids: Sequence[str],
    qrels_question: np.ndarray,
    qrels_grade: np.ndarray,
    row_question: np.ndarray,
    row_grade: np.ndarray,
    depth: int,
) -> RankArrays:
    """Assemble `RankArrays` from flat rows.

    `qrels_*`: one entry per judged (question, document), in any order. `row_*`: one entry
    per ranked document, sorted by question then rank (best first). Question numbers index
    `question_ids`.
    """
    n = len(question_ids)
    row_question = row_question.astype(np.int64, copy=False)
    counts, position = _position_in_group(row_question, n)
    # As wide as the longest ranking (not the largest k asked for), at least one column.
    width = min(depth, max(1, int(counts.max()) if counts.size else 0))
    grades = _scatter(n, width, row_question, row_grade, counts, position)
    relevant = qrels_grade > 0
    rel_question = qrels_question[relevant].astype(np.int64)
    rel_grade = qrels_grade[relevant].astype(np.int32)
    order = np.lexsort((-rel_grade, rel_question))
    rel_question, rel_grade = rel_question[order], rel_grade[order]
    n_relevant, ideal_position = _position_in_group(rel_question, n)
    # The ideal ranking needs no more columns than the most relevant documents any question has.
    ideal_depth = min(depth, int(n_relevant.max()) if n_relevant.size else 0)
    ideal = _scatter(n, ideal_depth, rel_question, rel_grade, n_relevant, ideal_position)
    return RankArrays(
        tuple(question_ids), grades, counts.astype(np.int64), n_relevant.astype(np.int64), ideal
    )


def arrays_from_dicts(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Sequence[tuple[str, float]]],
    depth: int,
    question_ids: Sequence[str] | None = None,
) -> RankArrays:
    """`RankArrays` from TREC-style dicts (the slow, simple path; rankings re-sorted).

    `question_ids` defaults to the sorted qrels questions; run questions outside it are
    ignored here (the readers decide whether that is an error).
    """
    ids = sorted(qrels) if question_ids is None else list(question_ids)
    index = {qid: i for i, qid in enumerate(ids)}
    q_q: list[int] = []
    q_g: list[int] = []
    r_q: list[int] = []
    r_g: list[int] = []
    for qid in ids:
        judged = qrels.get(qid, {})
        for grade in judged.values():
            q_q.append(index[qid])
            q_g.append(grade)
        for docid, _score in sorted(run.get(qid, ()), key=ranking_key, reverse=True):
            r_q.append(index[qid])
            r_g.append(judged.get(docid, 0))
    return build_rank_arrays(
        ids, np.array(q_q, dtype=np.int64), np.array(q_g, dtype=np.int64),
        np.array(r_q, dtype=np.int64), np.array(r_g, dtype=np.int32), depth,
    )
