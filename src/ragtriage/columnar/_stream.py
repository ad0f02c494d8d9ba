"""Streaming a TREC run into `RankArrays`, batch by batch, in bounded memory.

Only the qrels (small) are held whole. The run is parsed by pyarrow's streaming CSV reader;
the batches are checked (fields, scores, duplicates, ranking order), matched against the
qrels, and reduced at once to grade rows of the (questions, depth) matrix, a few batches per
call, so memory grows with the number of questions, not with the run's size. A question's
lines must be contiguous (a batch boundary may cut through them: its last question is held
back for the next call); files that break that, or any check, go to the line-by-line reader
instead.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .._optional import has_extra, require_extra
from ..errors import InputError
from ..formats.trec_records import file_kind
from ..paths import PathArg, as_path
from ._arrays import RankArrays, build_rank_arrays
from ._arrow import pa, pc
from ._keys import IdKeys, id_keys
from ._qrels_match import Judged, question_rows, read_judged, row_grades
from ._sources import FileDigest, _batches, _parquet_batches, _Prefetch, import_readers, lean_layout
from ._trec import (
    STRICT,
    QuestionPolicy,
    TrecLoad,
    _arrow,
    _blocks,
    _check_fields,
    _Fallback,
    _has_duplicates,
    _numbers,
    _question_problems,
    _rank_order,
    _slow,
    reader_pool,
)

if TYPE_CHECKING:
    from ._arrow import Batch


@dataclass
class _Sink:
    """What the batches leave behind: one grade row and one length per question."""

    depth: int
    size: int
    dtype: type[np.signedinteger] = np.int32
    """The grade matrix's type: the smallest that holds every qrels grade (`_grade_type`)."""
    grades: np.ndarray = field(init=False)
    lengths: np.ndarray = field(init=False)
    seen: np.ndarray = field(init=False)
    extra: set[str] = field(default_factory=set)
    rows: int = 0
    """Run lines read (of every question, judged or not)."""
    longest: int = 0
    """The longest ranking read."""

    def __post_init__(self) -> None:
        self.grades = np.zeros((self.size, min(self.depth, 1)), dtype=self.dtype)
        self.lengths = np.zeros(self.size, dtype=np.int64)
        self.seen = np.zeros(self.size, dtype=bool)

    def kept(self) -> np.ndarray:
        """The grade matrix, as wide as the longest ranking read (up to `depth`, at least
        one column)."""
        return self.grades[:, : min(self.depth, max(1, self.longest))]

    def fit(self, longest: int) -> None:
        """Widen the grade matrix to hold `longest` ranks, up to `depth`: it is as wide as
        the longest ranking read (`kept`; its buffer at most twice that, as it grows), not
        as the largest k asked for."""
        self.longest = max(self.longest, longest)
        held = self.grades.shape[1]
        if longest > held and held < self.depth:
            grown = np.zeros((self.size, min(self.depth, max(longest, 2 * held))), self.dtype)
            grown[:, :held] = self.grades
            self.grades = grown


def _rectangular(
    judged: Judged,
    sink: _Sink,
    groups: np.ndarray,
    lengths: np.ndarray,
    ids: IdKeys,
    score: np.ndarray,
) -> bool:
    """The common case, done on (questions, length) matrices: every ranking of the batch
    has the same length, IDs are short, rankings are already in order. Returns False
    (having changed nothing) when the batch is not such a case."""
    width = int(lengths[0])
    if not (ids.exact and judged.by_question is not None and bool(np.all(lengths == width))):
        return False
    keys = ids.keys.reshape(groups.size, width)
    scores = score.reshape(groups.size, width)
    if not bool(np.all(scores[:, 1:] < scores[:, :-1])):  # ties (or not in order)
        tied = scores[:, 1:] == scores[:, :-1]
        in_order = bool(np.all(scores[:, 1:] <= scores[:, :-1])) and bool(
            np.all(~tied | (keys[:, :-1] > keys[:, 1:]))
        )
        if not in_order:
            return False
    ordered = np.sort(keys, axis=1)
    if bool(np.any(ordered[:, 1:] == ordered[:, :-1])):
        raise _Fallback("duplicate ranked documents")
    judged_keys, judged_grade, first, counts = judged.by_question
    start, count = first[groups], counts[groups]
    grades = np.zeros(keys.shape, dtype=sink.dtype)
    last = max(judged_keys.size - 1, 0)
    for slot in range(int(count.max()) if judged_keys.size else 0):
        where = np.minimum(start + slot, last)
        hit = keys == judged_keys[where][:, None]
        hit &= (slot < count)[:, None]
        np.copyto(grades, judged_grade[where][:, None], casting="same_kind", where=hit)
    keep = min(width, sink.depth)
    sink.fit(keep)
    sink.grades[groups, :keep] = grades[:, :keep]
    sink.lengths[groups] = lengths
    return True


def _consume(
    judged: Judged, sink: _Sink, qid: pa.Array, docs: pa.Array, score: np.ndarray
) -> None:
    """Score-ready grade rows for whole questions (rows grouped by question)."""
    starts, lengths, block_qids = _blocks(qid)
    # Each row's ID is its block's: the IDs are checked once per block.
    _check_fields(pa.chunked_array([block_qids]), questions=True)
    index = question_rows(judged, block_qids)
    known = index >= 0
    if not bool(known.all()):
        _skip_extra(sink, block_qids.filter(_arrow(~known)), docs, lengths, known)
        keep = np.repeat(known, lengths)
        docs, score = docs.filter(_arrow(keep)), score[keep]
        starts, lengths = starts[known], lengths[known]
    groups = index[known]
    if not groups.size:
        return
    ordered = np.sort(groups)  # (np.unique would import numpy.ma: 25 ms)
    if bool(sink.seen[groups].any()) or bool(np.any(ordered[1:] == ordered[:-1])):
        raise _Fallback("a question's lines are not contiguous")
    sink.seen[groups] = True
    ids = id_keys(docs)
    if _rectangular(judged, sink, groups, lengths, ids, score):
        return
    local = np.repeat(np.arange(groups.size), lengths)
    if _has_duplicates(local, lengths, ids, pa.chunked_array([docs])):
        raise _Fallback("duplicate ranked documents")
    rank = _rank_order(local, score, ids)
    row_group = groups[local]
    grade = row_grades(judged, docs, row_group, ids)[rank]
    offsets = np.cumsum(lengths) - lengths
    position = np.arange(local.size) - np.repeat(offsets, lengths)
    inside = position < sink.depth
    sink.fit(int(lengths.max()))
    sink.grades[row_group[inside], position[inside]] = grade[inside]
    sink.lengths[groups] = lengths


def _skip_extra(
    sink: _Sink, extra: pa.Array, docs: pa.Array, lengths: np.ndarray, known: np.ndarray
) -> None:
    """Note the questions the qrels do not judge (`extra`, one per block), whose rows are
    not scored, after the checks the line reader makes on every line: no document twice in
    one question (checked per block, so a question's blocks must be contiguous too)."""
    names = extra.to_pylist()
    if len(set(names)) < len(names) or not sink.extra.isdisjoint(names):
        raise _Fallback("a question's lines are not contiguous")
    sink.extra.update(names)
    rows = np.repeat(~known, lengths)
    extra_docs, extra_lengths = docs.filter(_arrow(rows)), lengths[~known]
    groups = np.repeat(np.arange(extra_lengths.size), extra_lengths)
    ids = id_keys(extra_docs)
    if _has_duplicates(groups, extra_lengths, ids, pa.chunked_array([extra_docs])):
        raise _Fallback("duplicate ranked documents")


def _last_start(qid: pa.Array) -> int:
    """Start of the last question's rows (looking at a growing window from the end)."""
    window = 1024
    while True:
        begin = max(0, len(qid) - window)
        tail = qid.slice(begin)
        change = _numbers(pc.not_equal(tail, qid[len(qid) - 1]))
        hits = np.flatnonzero(change)
        if hits.size or begin == 0:
            return begin + int(hits[-1]) + 1 if hits.size else 0
        window *= 4


def _grade_type(grade: np.ndarray) -> type[np.signedinteger]:
    """The smallest integer type holding every grade (int8 for the usual 0-3: a quarter of
    the memory the grade matrix takes as int32, and as many fewer pages to touch)."""
    low, high = (int(grade.min()), int(grade.max())) if grade.size else (0, 0)
    for kind in (np.int8, np.int16):
        if np.iinfo(kind).min <= low and high <= np.iinfo(kind).max:
            return kind
    return np.int32


_BATCHES_AT_ONCE = 4
"""Batches checked and matched in one call (fewer calls, each over a few megabytes)."""


def _stream(judged: Judged, batches: Iterable[Batch], depth: int) -> _Sink:
    sink = _Sink(depth, len(judged.question_values), _grade_type(judged.grade))
    held: list[Batch] = []
    for batch in batches:
        qid = batch[0]
        sink.rows += len(qid)
        if not len(qid):
            continue
        held.append(batch)
        if len(held) < _BATCHES_AT_ONCE:
            continue
        # The last batch's last question may go on in the next batch: hold it back, and
        # score everything before it in one call.
        last = _last_start(qid)
        if last == 0:
            continue  # one question through the whole batch: hold on
        head = (qid.slice(0, last), batch[1].slice(0, last), batch[2][:last])
        _consume(judged, sink, *_joined([*held[:-1], head]))
        held = [(qid.slice(last), batch[1].slice(last), batch[2][last:])]
    if held:
        _consume(judged, sink, *_joined(held))
    return sink


def _joined(parts: list[Batch]) -> Batch:
    """The rows of consecutive parts as one batch (one copy; none for one part)."""
    if len(parts) == 1:
        return parts[0]
    return (
        pa.concat_arrays([part[0] for part in parts], memory_pool=reader_pool()),
        pa.concat_arrays([part[1] for part in parts], memory_pool=reader_pool()),
        np.concatenate([part[2] for part in parts]),
    )


def load_trec(
    qrels_path: PathArg,
    run_path: PathArg,
    *,
    depth: int,
    policy: QuestionPolicy = STRICT,
) -> TrecLoad:
    """Read a qrels and a run file into arrays keeping the top `depth` ranks per question.

    Raises `InputError` listing every problem in both files (line numbers included).
    """
    qrels_path, run_path = as_path(qrels_path), as_path(run_path)
    kinds = (file_kind(qrels_path), file_kind(run_path))
    parquet = kinds[1] == "parquet"
    if parquet:
        require_extra("parquet", "reading a Parquet run")
    if not has_extra("trec") or kinds not in (("text", "text"), ("text", "parquet")):
        # The line-by-line reader does it all (without pyarrow; JSON, gzip, Parquet qrels):
        # same result, slower.
        return _slow(qrels_path, run_path, depth, policy)
    import_readers(parquet)
    lean = not parquet and lean_layout(run_path)
    digest = FileDigest(run_path, layout=lean, text=not parquet)
    batches = _Prefetch(_parquet_batches(run_path) if parquet else _batches(run_path, lean))
    qrels_digest = FileDigest(qrels_path, threaded=False)  # small: read here meanwhile
    try:
        judged = read_judged(qrels_path)
        sink = _stream(judged, batches, depth)
        digests = (qrels_digest.hexdigest(), digest.hexdigest())
        if qrels_digest.lone_returns or digest.lone_returns:
            raise _Fallback("a carriage return not followed by a line break")
        if digest.layout is not None and not digest.layout.plain(sink.rows):
            # Q0, rank and tag were not read, and the bytes do not prove them plain: read
            # the run again with them (their checks then decide).
            batches.close()
            batches = _Prefetch(_batches(run_path))
            sink = _stream(judged, batches, depth)
    except _Fallback:
        sink = None
    finally:  # the readers stopped before the line reader reads the files again
        batches.close()
        digest.close()
        qrels_digest.close()
    if sink is None:
        return _slow(qrels_path, run_path, depth, policy)
    question_ids = judged.question_values.to_pylist()
    ranked = [qid for qid, seen in zip(question_ids, sink.seen.tolist(), strict=True) if seen]
    problems, missing, extra = _question_problems(
        question_ids, [*ranked, *sink.extra], str(run_path), policy
    )
    if problems:
        raise InputError(problems)
    return TrecLoad(_assemble(judged, sink, question_ids), missing, extra, True, digests)


def _assemble(judged: Judged, sink: _Sink, question_ids: list[str]) -> RankArrays:
    none = np.zeros(0, dtype=np.int64)  # the ideal rankings need no run lines
    ideal = build_rank_arrays(question_ids, judged.group, judged.grade, none, none, sink.depth)
    return RankArrays(tuple(question_ids), sink.kept(), sink.lengths, ideal.n_relevant, ideal.ideal)
