"""The qrels of a streamed TREC run, held for matching: interned as one 64-bit (question, ID)
key per judgement (`read_judged`), and the grade of each run line found by those keys
(`row_grades`) and its question's row by the question IDs' (`question_rows`).

With exact keys (IDs of at most 8 bytes) and few judgements per question, a line is compared
with its own question's judgements directly; else the keys are searched, and hashed keys
confirmed on the strings.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from ._arrow import pa, pc
from ._keys import IdKeys, id_keys, key_width, mix
from ._trec import _arrow, _blocks, _empty_string, _Fallback, _numbers, _qrels_fast, _sorted_pairs

_SMALL_JUDGED = 16
"""Up to this many judgements per question, rows are matched by direct comparison."""


@dataclass(frozen=True)
class Judged:
    """The qrels, interned: sorted question IDs and one (question, ID) key per judgement."""

    question_values: pa.Array
    group: np.ndarray
    docs: pa.Array
    grade: np.ndarray
    width: int
    sorted_keys: np.ndarray
    key_order: np.ndarray
    by_question: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None
    """Exact keys only: (doc keys, grades) sorted by question, each question's first slot
    and count; lets a row be matched against its own question's few judgements."""
    question_keys: tuple[np.ndarray, np.ndarray] | None
    """When every question ID has at most 8 bytes: their exact keys, sorted, and the row
    of each (a run's question IDs are then looked up by binary search)."""

    @property
    def exact(self) -> bool:
        """Whether the keys are the IDs' own bytes (every judged ID fits 8), not hashes."""
        return self.width == 8

    @cached_property
    def row_of(self) -> dict[str, int]:
        """Question ID -> row (built when a question ID is too long for `question_keys`)."""
        return {qid: row for row, qid in enumerate(self.question_values.to_pylist())}


def read_judged(path: Path) -> Judged:
    """The qrels file, interned; `_Fallback` on a judgement given twice (or colliding keys)."""
    qid, doc, grade = _qrels_fast(path)
    # Hash and look up each run of equal question IDs once, not every line.
    _, run_lengths, run_qids = _blocks(qid)
    values = pc.unique(run_qids).sort()
    run_group = _numbers(pc.index_in(run_qids, value_set=values)).astype(np.int64)
    group = np.repeat(run_group, run_lengths)
    width = key_width(doc)
    ids = id_keys(doc, width)
    keys, order, distinct = _sorted_pairs(group, doc, ids)
    if not distinct:
        raise _Fallback("duplicate judgements (or colliding keys)")
    flat = doc.combine_chunks() if isinstance(doc, pa.ChunkedArray) else doc
    by_question = None
    counts = np.bincount(group, minlength=len(values))
    if ids.exact and counts.size and int(counts.max()) <= _SMALL_JUDGED:
        # Grouped by question; the order inside a question does not matter (each row
        # matches at most one of its question's distinct judgements).
        per = np.argsort(group, kind="stable")
        first = np.cumsum(counts) - counts
        by_question = (ids.keys[per], grade[per], first, counts)
    question_keys = None
    if len(values) and key_width(values) == 8:
        exact = id_keys(values).keys
        rows = np.argsort(exact)
        question_keys = (exact[rows], rows)
    return Judged(
        values, group, flat, grade, width, keys[order], order, by_question, question_keys
    )


def row_grades(judged: Judged, docs: pa.Array, groups: np.ndarray, ids: IdKeys) -> np.ndarray:
    """Each row's qrels grade (0 when unjudged), matched on (question, ID)."""
    if judged.exact and ids.exact and judged.by_question is not None:
        return _grades_direct(judged.by_question, ids.keys, groups)
    lengths = _numbers(pc.binary_length(docs))
    fits = lengths <= judged.width
    # An ID longer than every judged ID cannot be judged; blank it so keys fit the width.
    if judged.exact and ids.exact:
        keys = mix(ids.keys, groups)  # both 8-byte keys already: reuse them
    else:
        keyed = docs if bool(fits.all()) else pc.if_else(_arrow(fits), docs, _empty_string())
        keys = mix(id_keys(keyed, judged.width).keys, groups)
    # Binary search in the sorted qrels keys (built once), then confirm each hit.
    slot = np.searchsorted(judged.sorted_keys, keys)
    slot[slot == judged.sorted_keys.size] = 0
    hit = fits & (judged.sorted_keys[slot] == keys) if judged.sorted_keys.size else fits & False
    rows = np.flatnonzero(hit)
    target = judged.key_order[slot[rows]]
    same = judged.group[target] == groups[rows]
    if not judged.exact:  # hashed keys: confirm on the strings
        left = judged.docs.take(_arrow(target))
        same &= _numbers(pc.equal(left, docs.take(_arrow(rows))))
    out = np.zeros(groups.size, dtype=np.int32)
    out[rows[same]] = judged.grade[target[same]]
    return out


def _grades_direct(
    by_question: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    keys: np.ndarray,
    groups: np.ndarray,
) -> np.ndarray:
    """Exact keys, few judgements per question: compare each row with its question's
    judgements one slot at a time (no search, no hashing)."""
    judged_keys, judged_grade, first, counts = by_question
    out = np.zeros(groups.size, dtype=np.int32)
    if not judged_keys.size:
        return out
    start, count = first[groups], counts[groups]
    last = judged_keys.size - 1
    for slot in range(int(count.max()) if count.size else 0):
        where = np.minimum(start + slot, last)
        hit = (slot < count) & (judged_keys[where] == keys)
        out[hit] = judged_grade[where[hit]]
    return out


def question_rows(judged: Judged, qids: pa.Array) -> np.ndarray:
    """Each question ID's row in the qrels, -1 for a question they do not judge."""
    ids = id_keys(qids)
    if judged.question_keys is None or not ids.exact:
        # A dict built once beats a hash set rebuilt by pc.index_in for every batch.
        return np.array([judged.row_of.get(q, -1) for q in qids.to_pylist()], dtype=np.int64)
    ordered, rows = judged.question_keys
    slot = np.minimum(np.searchsorted(ordered, ids.keys), ordered.size - 1)
    return np.where(ordered[slot] == ids.keys, rows[slot], -1).astype(np.int64)
