"""TREC reading shared by the fast and the slow path: the qrels reader, the bulk checks,
the question policy, and the line-by-line fallback.

Fast path (`_stream`): pyarrow parses the files in C++, IDs become 64-bit keys (`_keys`),
and every check (field count, numbers, finite scores, duplicates, ranking order) is a
vectorised test. When any check fails, or the layout is one the fast path does not take
(fields separated by runs of blanks, long IDs with tied scores, a question's lines not
contiguous), `_slow` reads the files again line by line with `formats.trec_files`, which names
every problem with its line number. The result never depends on the path taken.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from ..errors import InputError, Problem, ProblemCollector
from ..fileio import MAX_GRADE, MIN_GRADE, check_input, iter_lines, open_input
from ..formats.trec_files import GRADE_PATTERN, Qrels, parse_qrels, parse_run, read_through
from ..loading import file_sha256
from ._arrays import RankArrays, arrays_from_dicts
from ._arrow import pa, pc, pcsv
from ._keys import IdKeys, mix


@dataclass(frozen=True)
class QuestionPolicy:
    """How questions that are in one file but not the other are treated (strict by default)."""

    allow_missing: bool = False
    """Score a qrels question absent from the run as an empty ranking (like `trec_eval -c`)."""
    allow_extra: bool = False
    """Skip run questions that the qrels do not judge (trec_eval skips them silently)."""


STRICT = QuestionPolicy()
"""The default: every question of either file must be in the other."""


@dataclass(frozen=True)
class TrecLoad:
    """Arrays ready to score, and what the question policy did."""

    arrays: RankArrays
    """One row per scored question."""
    missing: tuple[str, ...]
    """Qrels questions with no ranking (scored as empty; only with `allow_missing`)."""
    skipped: tuple[str, ...]
    """Run questions without judgements (not scored; only with `allow_extra`)."""
    fast_path: bool
    """Whether the vectorised reader was used (False: the line-by-line reader)."""
    sha256: tuple[str, str] = ("", "")
    """SHA-256 of the qrels and the run file, as read."""
    comment_lines: tuple[int, int] = (0, 0)
    """`#` comment lines skipped in the qrels and in the run file."""


class _Fallback(Exception):
    """The fast path cannot vouch for the input; read it line by line instead."""


def _delimiter(path: Path) -> str:
    try:
        with open_input(path) as handle:
            for _, line in iter_lines(handle, str(path)):
                if line.strip():
                    return "\t" if b"\t" in line and b" " not in line.strip() else " "
    except InputError as exc:  # the line reader names the problem
        raise _Fallback("file") from exc
    return " "


@cache
def reader_pool() -> pa.MemoryPool | None:
    """The memory pool the TREC readers parse into: jemalloc where pyarrow has it.

    The readers allocate and free a few megabytes per block. pyarrow's default pool
    (mimalloc) gives freed pages back to the kernel at once, so every block's buffers are
    fresh pages the kernel zeroes again (measured on a 356 MB run: 0.2-0.7 s of system
    time); jemalloc keeps them a moment for reuse (0.05 s). None: the default pool.
    """
    try:
        return pa.jemalloc_memory_pool()
    except NotImplementedError:  # a pyarrow built without jemalloc
        return None


_BLOCK_BYTES = 1 << 20  # small blocks stay in cache and in reused memory (measured: 1 MB)


def csv_options(
    path: Path, types: Mapping[str, pa.DataType], include: Sequence[str] | None = None
) -> dict[str, object]:
    """The options pyarrow's CSV reader reads a TREC file with (the qrels, a text run): its
    columns are `types`' names, of which `include` (None: all) are parsed as `types` gives
    them; fields are split on the file's delimiter alone, without quoting or nulls, into
    `reader_pool`."""
    return {
        # One thread: the run is parsed in another meanwhile (less memory, no contention).
        "read_options": pcsv.ReadOptions(
            column_names=list(types), block_size=_BLOCK_BYTES, use_threads=False
        ),
        "parse_options": pcsv.ParseOptions(
            delimiter=_delimiter(path), quote_char=False, escape_char=False, double_quote=False
        ),
        "convert_options": pcsv.ConvertOptions(
            column_types=dict(types),
            include_columns=list(types if include is None else include),
            strings_can_be_null=False,
            null_values=[],
        ),
        "memory_pool": reader_pool(),
    }


def _read_table(path: Path, types: Mapping[str, pa.DataType]) -> pa.Table:
    try:
        if _checked_size(path) == 0:
            return pa.table({name: pa.array([], type=types[name]) for name in types})
        return pcsv.read_csv(path, **csv_options(path, types))
    # UnicodeError: also a path pyarrow cannot encode (bytes that are not UTF-8).
    except (pa.ArrowInvalid, OSError, UnicodeError) as exc:
        raise _Fallback(str(exc)) from exc


def _checked_size(path: Path) -> int:
    """The size of a regular file pyarrow may open (anything else falls back)."""
    try:
        return check_input(path)
    except InputError as exc:
        raise _Fallback("file") from exc


def _strings_clean(column: pa.ChunkedArray) -> bool:
    """No null and no empty field (pyarrow splits on single blanks: empty = repeated blanks)."""
    if column.null_count:
        return False
    for chunk in column.chunks:
        # Equal neighbouring offsets mark an empty string; cheaper than measuring lengths.
        offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32)
        offsets = offsets[chunk.offset : chunk.offset + len(chunk) + 1]
        if bool(np.any(offsets[1:] == offsets[:-1])):
            return False
    return True


_ODD_SPACE = (
    r"[\s\x{0b}\x{1c}-\x{1f}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}"
    r"\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]"
)
"""Characters Python's `str.split()` splits on: a text run cannot hold them inside an ID."""


def _plain_fields(column: pa.ChunkedArray) -> bool:
    """No field holds a character `str.split()` splits on (pyarrow splits on the delimiter
    only; the line reader would see more fields). ASCII text is checked on its bytes (none
    below `!`: blanks and control characters, also the harmless ones, go to the line
    reader); text with other characters also by `_ODD_SPACE`."""
    for chunk in column.chunks:
        offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32)
        start, stop = int(offsets[chunk.offset]), int(offsets[chunk.offset + len(chunk)])
        if start == stop:
            continue
        text = np.frombuffer(chunk.buffers()[2], dtype=np.uint8)[start:stop]
        if int(text.min()) <= 0x20:
            return False
        if int(text.max()) >= 0x80 and pc.any(pc.match_substring_regex(chunk, _ODD_SPACE)).as_py():
            return False
    return True


def _check_fields(column: pa.ChunkedArray, questions: bool = False) -> None:
    """`_Fallback` for a field the line reader would read otherwise: blank, or holding
    whitespace it splits on; `questions` (a question ID column): a comment line too, which it
    skips and counts."""
    if not (_strings_clean(column) and _plain_fields(column)):
        raise _Fallback("blank fields, or whitespace the line reader splits on")
    if questions and pc.any(pc.starts_with(column, "#")).as_py():
        raise _Fallback("comment lines")


def _numbers(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A numeric or boolean column as a numpy array, read from its buffers.

    pyarrow's `to_numpy` and `pa.array` import pandas whenever pandas is installed (0.4 s
    and more per command); columns without nulls need none of it (`_numbers`, `_arrow`).
    With nulls, `to_numpy` as before.
    """
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    if column.null_count:
        converted: np.ndarray = column.to_numpy(zero_copy_only=False)
        return converted
    parts = []
    for chunk in chunks:
        start, stop = chunk.offset, chunk.offset + len(chunk)
        data = chunk.buffers()[1]
        if pa.types.is_boolean(chunk.type):
            bits = np.unpackbits(np.frombuffer(data, np.uint8), count=stop, bitorder="little")
            parts.append(bits[start:].astype(bool))
        else:
            parts.append(np.frombuffer(data, chunk.type.to_pandas_dtype())[start:stop])
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts) if parts else np.zeros(0, column.type.to_pandas_dtype())


def _arrow(values: np.ndarray) -> pa.Array:
    """A numpy array of numbers or booleans as a pyarrow array (see `_numbers`)."""
    if values.dtype == np.bool_:
        bits = np.packbits(values, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), values.size, [None, pa.py_buffer(bits)])
    flat = np.ascontiguousarray(values)
    return pa.Array.from_buffers(
        pa.from_numpy_dtype(flat.dtype), flat.size, [None, pa.py_buffer(flat)]
    )


def _empty_string() -> pa.StringScalar:
    """The string scalar `""` (what `pa.scalar("")` gives, see `_numbers`)."""
    offsets = pa.py_buffer(np.zeros(2, np.int32))
    return pa.Array.from_buffers(pa.string(), 1, [None, offsets, pa.py_buffer(b"")])[0]


def _qrels_fast(path: Path) -> tuple[pa.ChunkedArray, pa.ChunkedArray, np.ndarray]:
    table = _read_table(
        path,
        {"qid": pa.string(), "iteration": pa.string(), "docid": pa.string(), "grade": pa.string()},
    )
    for name in ("qid", "iteration", "docid"):
        _check_fields(table[name], questions=name == "qid")
    return table["qid"], table["docid"], _grades(table["grade"])


def _grades(column: pa.ChunkedArray) -> np.ndarray:
    """The grades as integers, written as the line reader reads them (`GRADE_PATTERN`: pyarrow
    alone would also take hexadecimal, `0x10`) and from `MIN_GRADE` to `MAX_GRADE`."""
    if column.null_count or not pc.all(pc.match_substring_regex(column, _GRADE)).as_py():
        raise _Fallback("grades the line reader refuses or reads otherwise")
    try:
        grades = _numbers(pc.cast(column, pa.int64()))
    except pa.ArrowInvalid as exc:  # beyond 64 bits
        raise _Fallback(str(exc)) from exc
    if grades.size and (int(grades.min()) < MIN_GRADE or int(grades.max()) > MAX_GRADE):
        raise _Fallback("grades out of range")
    return grades


_GRADE = f"^{GRADE_PATTERN}$"


def _sorted_pairs(
    groups: np.ndarray, docs: pa.ChunkedArray, ids: IdKeys
) -> tuple[np.ndarray, np.ndarray, bool]:
    """Keys of (group, ID) pairs, their sorting order (stable), and whether the pairs are
    distinct (confirmed on the strings when the keys are hashes)."""
    keys = mix(ids.keys, groups)
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    same = np.flatnonzero(ordered[1:] == ordered[:-1])
    if same.size and not ids.exact:
        docs_flat = docs.combine_chunks()
        left, right = order[same], order[same + 1]
        same_id = pc.equal(docs_flat.take(_arrow(left)), docs_flat.take(_arrow(right)))
        real = (groups[left] == groups[right]) & _numbers(same_id)
        return keys, order, not bool(real.any())
    return keys, order, same.size == 0


def _question_problems(
    qrels_ids: Sequence[str], run_ids: Sequence[str], run_label: str, policy: QuestionPolicy
) -> tuple[list[Problem], tuple[str, ...], tuple[str, ...]]:
    judged, ranked = set(qrels_ids), set(run_ids)
    missing = tuple(sorted(judged - ranked))
    extra = tuple(sorted(ranked - judged))
    problems = []
    rules = (
        (policy.allow_missing, missing,
         "a ranking for every question of the qrels (or --allow-missing)", "no line for it"),
        (policy.allow_extra, extra, "a question the qrels judge (or --allow-extra)",
         "not in the qrels"),
    )
    for allowed, ids, expected, found in rules:
        if not allowed:
            problems += [Problem(run_label, qid, "question ID", expected, found) for qid in ids]
    return problems, missing, extra


def _slow(qrels_path: Path, run_path: Path, depth: int, policy: QuestionPolicy) -> TrecLoad:
    collector = ProblemCollector()
    judged: set[str] = set()
    ranked: set[str] = set()
    qrels_comments: list[int] = []
    run_comments: list[int] = []
    qrels: Qrels = parse_qrels(qrels_path, collector, seen=judged, comments=qrels_comments)
    run = parse_run(run_path, collector, ranked, run_comments)
    # Question sets from every line, valid or not, so a bad line does not also show up
    # as a missing question; nor does a qrels question every line (or record) of is refused.
    ranked.update(judged - qrels.keys())
    problems, missing, extra = _question_problems(
        sorted(judged), sorted(ranked), str(run_path), policy
    )
    if read_through(collector.problems):
        collector.extend(problems)
    collector.raise_if_any()
    digests = (file_sha256(qrels_path), file_sha256(run_path))
    arrays = arrays_from_dicts(qrels, run, depth)
    counts = (len(qrels_comments), len(run_comments))
    return TrecLoad(arrays, missing, extra, False, digests, counts)


def _blocks(qid: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, np.ndarray, pa.Array]:
    """Runs of equal adjacent question IDs: start row, length and the ID of each run."""
    n = len(qid)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), pa.array([], pa.string())
    if isinstance(qid, pa.ChunkedArray):  # one chunk: itself (combine_chunks would copy it)
        qid = qid.chunk(0) if qid.num_chunks == 1 else qid.combine_chunks()
    runs = pc.run_end_encode(qid, run_end_type=pa.int64())
    ends = _numbers(runs.run_ends)
    lengths = np.diff(ends, prepend=0)
    return ends - lengths, lengths, runs.values


def _rank_order(groups: np.ndarray, scores: np.ndarray, ids: IdKeys) -> np.ndarray:
    """Positions (into rows grouped by question) in ranking order.

    trec_eval's rule: score descending, equal scores by document ID descending. Most files
    are written in that order already, which a linear check confirms; otherwise sort. Equal
    scores of a question, wherever their lines are, are told apart by their IDs: IDs longer
    than 8 bytes have no exact key (`IdKeys.exact`), so those go to the line reader.
    """
    same_group = groups[1:] == groups[:-1]
    ordered = bool(np.all(~same_group | (scores[1:] <= scores[:-1])))
    order = None if ordered else np.lexsort((~ids.keys, -scores, groups))
    ranked, same = scores, same_group
    if order is not None:
        ranked, grouped = scores[order], groups[order]
        same = grouped[1:] == grouped[:-1]
    tied = np.flatnonzero(same & (ranked[1:] == ranked[:-1]))
    if tied.size and not ids.exact:
        raise _Fallback("tied scores with IDs longer than 8 bytes")
    if order is not None:
        return order
    if not tied.size or bool(np.all(ids.keys[tied] > ids.keys[tied + 1])):
        return np.arange(groups.size, dtype=np.int64)
    return np.lexsort((~ids.keys, -scores, groups))


def _has_duplicates(
    groups: np.ndarray, lengths: np.ndarray, ids: IdKeys, docs: pa.ChunkedArray
) -> bool:
    """Whether a question ranks one document twice (rows grouped by question)."""
    if not (ids.exact and lengths.size and int(lengths.max()) <= 1024):
        return not _sorted_pairs(groups, docs, ids)[2]
    # Each question's keys as one row of a padded matrix, sorted: a duplicate is two equal
    # neighbours before the padding. Done in slices of questions to bound memory.
    width = int(lengths.max())
    starts = np.cumsum(lengths) - lengths
    pad = np.iinfo(np.uint64).max
    step = max(1, 20_000_000 // width)
    for lo in range(0, lengths.size, step):
        hi = min(lo + step, lengths.size)
        first, last = int(starts[lo]), int(starts[hi - 1] + lengths[hi - 1])
        lens = lengths[lo:hi]
        row = np.repeat(np.arange(hi - lo), lens)
        position = np.arange(last - first) - np.repeat(starts[lo:hi] - first, lens)
        matrix = np.full((hi - lo, width), pad, dtype=np.uint64)
        matrix[row, position] = ids.keys[first:last]
        matrix.sort(axis=1)
        equal = matrix[:, 1:] == matrix[:, :-1]
        equal &= np.arange(1, width) < lens[:, None]
        if equal.any():
            return True
    return False
