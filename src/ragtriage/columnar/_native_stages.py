"""What each stage's items of a native run are, found once per run for the measures, the
stage flags and the explanations: which required group each satisfies (the `Matcher`, the
package's one matching rule, at every evidence level), which are stale, closed to the asker
or of another version than the question's, which cited IDs are in the context, whether the
canary reached it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from ._native_read import Codes, EvalColumns, closed as closed_to
from ._native_run import RunColumns


def _owner(offsets: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(offsets.size - 1, dtype=np.int64), np.diff(offsets))


def owners(offsets: np.ndarray, at: np.ndarray) -> np.ndarray:
    """`_owner(offsets)[at]`: the list (of the consecutive lists `offsets` bounds) holding each
    position of `at`, found by a binary search each instead of the owner of every position
    (at a million results `Explained` spent 0.4 s on the owners of 30 million items, to read
    those of a few)."""
    found: np.ndarray = np.searchsorted(offsets, at, side="right") - 1
    return found


def _spans(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """The positions `starts[n]:ends[n]` of every n, one after another, and where each n's
    begin among them (`len(starts) + 1` bounds): a chunk's items read with one `tolist` per
    column, instead of a slice per question."""
    lengths = ends - starts
    bounds = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=bounds[1:])
    at = np.arange(int(bounds[-1]), dtype=np.int64) + np.repeat(starts - bounds[:-1], lengths)
    return at, bounds.tolist()


def listed(ids: Sequence[str], flat: tuple[np.ndarray, np.ndarray], at: int) -> tuple[str, ...]:
    """The IDs (`ids`: each snapshot code's) of list `at` of `flat` (codes, offsets)."""
    items, offsets = flat
    return tuple([ids[code] for code in items[offsets[at] : offsets[at + 1]].tolist()])


def first_found(first: list[list[int]]) -> tuple[tuple[int | None, int | None, int | None], ...]:
    """Required groups' first satisfying positions (`Explained`'s rows, as lists; -1: none) as
    a view holds them (None: none)."""
    return tuple([
        (None if c < 0 else c, None if r < 0 else r, None if x < 0 else x) for c, r, x in first
    ])


def distinct(values: np.ndarray) -> np.ndarray:
    """`values`' distinct values, ascending, as `np.unique` gives them, by numpy's default
    sort (vectorised for the CPU; equal integers need no stable order) instead of
    `np.unique`'s hash table, which misses the cache on nearly every value of a large array
    (a million keys: 0.65 s, against 0.01 s). The stable sort, a merge sort, is as fast on
    runs already in order but took 0.41 s for 5 million random codes, against 0.05 s."""
    ordered = np.sort(values)
    fresh = np.ones(ordered.size, dtype=bool)
    fresh[1:] = ordered[1:] != ordered[:-1]
    kept: np.ndarray = ordered[fresh]
    return kept


def distinct_codes(codes: np.ndarray, size: int) -> np.ndarray:
    """The distinct values of `codes` (each in `range(size)`), ascending, as `distinct` gives
    them: a mark per value instead of a sort (10 million codes of 100,000: 0.02 s, against
    0.9 s)."""
    marked = np.zeros(size, dtype=bool)
    marked[codes] = True
    return np.flatnonzero(marked)


def _count(owner: np.ndarray, mask: np.ndarray, n: int) -> np.ndarray:
    """Per owner, how many entries are True."""
    return np.bincount(owner[mask], minlength=n).astype(np.int64)


@dataclass(frozen=True)
class Matcher:
    """Which required groups a retrieved item satisfies, for every question at once, at each
    question's evidence level: the package's one matching rule, as sorted integer keys.

    A key is `row * units + unit`, where a unit is the item's document (document and span
    levels) or the item itself (chunk level). At span level a key's alternative also names
    the interval an item must overlap (a required chunk's; a required document's is the
    whole document, as is a retrieved document's), so two chunks of one document match only
    where their spans overlap."""

    keys: np.ndarray
    """Sorted keys, one per (question, unit, group) (span level: per required alternative)."""
    groups: np.ndarray
    """The global group of each key (ascending within a key)."""
    units: int
    """Key stride: the number of snapshot codes, plus one."""
    by_document: np.ndarray
    """Per question: its unit is an item's document."""
    codes: Codes
    """The snapshot's codes (an item's document and span)."""
    spans: tuple[np.ndarray, np.ndarray] | None
    """At span level, per key, the span an item must overlap: (starts, ends), a required
    document's from -1 to `WHOLE` (any item of it); None at the other levels."""
    unique: bool
    """No key repeats: an item meets at most one required alternative of its question."""
    present: np.ndarray
    """A filter of the keys, a bit per unit modulo 64 in one word per question: bit
    `unit & 63` of `present[row]` is set for every key's unit, and for few others, so a
    look-up is searched for only where it may be found. A stage's items come a question at
    a time: their words are read in order (a table indexed by the whole key, as large as
    the keys, would miss the cache on nearly every item of a large run)."""


def build_matcher(
    ev: EvalColumns, codes: Codes, level_document: np.ndarray, spans: bool = False
) -> Matcher:
    """Index every required alternative of every question by (question, unit).

    `level_document`: per question, evidence is matched by document (else by chunk ID);
    `spans`: at span level (with `level_document` all True), by overlapping spans.
    """
    units = int(codes.document_of.size) + 1
    group_row = _owner(ev.group_offsets)
    alt_row = group_row[ev.alt_group]
    unit = np.where(level_document[alt_row], codes.document_of[ev.alt_code], ev.alt_code)
    columns = [alt_row * units + unit, ev.alt_group]
    if spans:  # alternatives in one document differ by their spans
        columns += [codes.start[ev.alt_code], codes.end[ev.alt_code]]
    order = np.lexsort(columns[::-1])
    columns = [column[order] for column in columns]
    fresh = np.ones(order.size, dtype=bool)
    fresh[1:] = np.logical_or.reduce([column[1:] != column[:-1] for column in columns])
    keys, groups, *span = [column[fresh] for column in columns]
    present = np.zeros(len(ev.ids), dtype=np.uint64)
    row, unit = np.divmod(keys, units)
    starts = np.flatnonzero(np.diff(row, prepend=-1))  # each row's keys, in order
    present[row[starts]] = np.bitwise_or.reduceat(_bit(unit), starts) if keys.size else 0
    return Matcher(
        keys, groups, units, level_document, codes, (span[0], span[1]) if spans else None,
        bool(np.all(keys[1:] != keys[:-1])), present,
    )


def _bit(units: np.ndarray) -> np.ndarray:
    """Each unit's bit in a `Matcher.present` word."""
    bits: np.ndarray = np.left_shift(np.uint64(1), (units & 63).astype(np.uint64))
    return bits


_EMPTY = np.zeros(0, dtype=np.int64)

BLOCK = 1 << 16
"""Items worked on at once where a stage's items are matched: each temporary array is half
a MB, reused from block to block in memory already mapped and in the cache, where a whole
run's (20 million candidates at a million questions, 160 MB an array) would be fresh memory
each time, mapped and zeroed by the kernel, and read back from main memory."""


def blocks(offsets: np.ndarray) -> list[tuple[int, int]]:
    """Consecutive ranges [start, stop) of the lists whose `offsets` are given (ragged lists,
    one after another), covering them all, of about `BLOCK` items each (a list is never
    split)."""
    lists = int(offsets.size) - 1
    cuts = np.searchsorted(offsets, np.arange(0, int(offsets[-1]), BLOCK)).tolist()
    return list(pairwise(sorted({0, lists, *cuts})))


def matches(m: Matcher, rows: np.ndarray, items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (item, group) pair where `items[at]`, retrieved for question `rows[at]`,
    satisfies the global required group `group`, as two arrays: sorted by `at`, then by
    group, each pair once."""
    if items.size == 0 or m.keys.size == 0:
        return _EMPTY, _EMPTY
    unit = np.where(m.by_document[rows], m.codes.document_of[items], items)
    # Only the items the filter lets through are searched for (most items match nothing).
    maybe = np.flatnonzero(m.present[rows] & _bit(unit))
    keys = rows[maybe] * m.units + unit[maybe]
    first = np.searchsorted(m.keys, keys)
    if m.unique:  # the common case: one look-up per item
        found = np.flatnonzero(m.keys[np.minimum(first, m.keys.size - 1)] == keys)
        at, where = maybe[found], first[found]
    else:
        count = np.searchsorted(m.keys, keys, side="right") - first
        found = np.repeat(np.arange(keys.size, dtype=np.int64), count)
        offsets = np.cumsum(count) - count
        at = maybe[found]
        where = first[found] + np.arange(at.size, dtype=np.int64) - offsets[found]
    groups = m.groups[where]
    if m.spans is not None:
        item, (start, end) = items[at], m.spans
        overlap = (m.codes.start[item] < end[where]) & (start[where] < m.codes.end[item])
        at, groups = at[overlap], groups[overlap]
        once = np.ones(at.size, dtype=bool)  # two alternatives of a group in one document
        once[1:] = (at[1:] != at[:-1]) | (groups[1:] != groups[:-1])
        at, groups = at[once], groups[once]
    return at, groups


@dataclass(frozen=True)
class StageMatch:
    """Where one stage's items (a run's candidates, reranked lists or contexts) satisfy their
    question's required groups (`matches`): found once per stage for the measures, the stage
    flags and the explanations."""

    at: np.ndarray
    """The satisfying items (flat positions, ascending), once per group each satisfies."""
    groups: np.ndarray
    """The global group each satisfies (ascending within an item)."""
    first: np.ndarray
    """Per global group: the position, in its result's list, of the first item satisfying it;
    -1 when none does."""

    @property
    def covered(self) -> np.ndarray:
        """Per global group: some item of the stage satisfies it."""
        return self.first >= 0


def match_stage(
    m: Matcher, run_rows: np.ndarray, flat: tuple[np.ndarray, np.ndarray], n_groups: int
) -> StageMatch:
    """One stage's `StageMatch`: `flat` is its (items, offsets per result), `run_rows` the
    question row of each result."""
    items, offsets = flat
    pairs = [_EMPTY], [_EMPTY]
    for start, stop in blocks(offsets):
        lo, hi = offsets[start], offsets[stop]
        at, groups = matches(
            m, np.repeat(run_rows[start:stop], np.diff(offsets[start : stop + 1])), items[lo:hi]
        )
        pairs[0].append(at + lo)
        pairs[1].append(groups)
    at, groups = np.concatenate(pairs[0]), np.concatenate(pairs[1])
    first = np.full(n_groups, -1, dtype=np.int64)
    # A group's first pair in flat order is its first item in its list (one list per question).
    found, head = np.unique(groups, return_index=True)
    first[found] = at[head] - offsets[owners(offsets, at[head])]
    return StageMatch(at, groups, first)


def match_stages(
    ev: EvalColumns, run: RunColumns, m: Matcher
) -> dict[str, StageMatch]:
    """The `StageMatch` of a run's candidates, reranked lists and contexts, by stage name."""
    n_groups = int(ev.group_grade.size)
    return {
        name: match_stage(m, run.row, flat, n_groups)
        for name, flat in (("candidates", run.candidates), ("reranked", run.reranked),
                           ("context", run.context))
    }


def cited_in_context(run: RunColumns, codes: Codes) -> np.ndarray:
    """Per cited ID (`run.citations`, flat per claim): it names an item of its result's final
    context (an ID the snapshot does not know never does)."""
    cited, cited_offsets = run.citations
    cited_result = _owner(run.claim_offsets)[_owner(cited_offsets)]
    ctx_items, ctx_offsets = run.context
    if not ctx_items.size:
        return np.zeros(cited.size, dtype=bool)
    units = int(codes.document_of.size) + 1  # a key stride past every snapshot code
    # In order by result already: a stable sort only merges each result's short runs (numpy's
    # default sort takes ten times as long on such keys).
    ctx_keys = np.sort(_owner(ctx_offsets) * units + ctx_items, kind="stable")
    cite_keys = np.where(cited >= 0, cited_result * units + cited, -1)
    at = np.minimum(np.searchsorted(ctx_keys, cite_keys), ctx_keys.size - 1)
    found: np.ndarray = ctx_keys[at] == cite_keys
    return found


def validly_cited(run: RunColumns, inside: np.ndarray) -> np.ndarray:
    """Per claim: it cites something, and only items of the final context (`inside`:
    `cited_in_context`). The `citation_validity` rule, also the `invalid_citation` stage's and
    the details' (`QuestionView.invalid_citations`)."""
    offsets = run.citations[1]
    outside = _count(_owner(offsets), ~inside, int(offsets.size) - 1)
    valid: np.ndarray = (np.diff(offsets) > 0) & (outside == 0)
    return valid


@dataclass(frozen=True)
class StageItems:
    """One stage's items of a run (`detectors.PERMISSION_STAGES`: the candidates, the context,
    the cited IDs, the supporting IDs), each with its result, and what is wrong with each."""

    items: np.ndarray
    """Snapshot codes, in file order (-1: a cited ID the snapshot does not know)."""
    owner: np.ndarray
    """The result of each item."""
    stale: np.ndarray
    """Its document is superseded or withdrawn (`stale_*`, the stale details and stage)."""
    closed: np.ndarray
    """Its document names access groups, none of them the asker's, for a question asked
    with user groups (`permission_leak_*`, the `permission_leak` stage)."""
    wrong_version: np.ndarray
    """Its document has a version other than the one its question applies to (cited or
    supporting: the `stale_evidence` stage of a version question)."""


def items_at_stages(ev: EvalColumns, run: RunColumns, codes: Codes) -> dict[str, StageItems]:
    """Every stage's `StageItems`, by stage name in pipeline order."""
    mask, asked = ev.user_mask[run.row], ev.asked[run.row]  # per result
    wanted = ev.wanted_version[run.row]  # per result; -1 none
    claim_owner = _owner(run.claim_offsets)
    # Without an asker's groups and a restricted document nothing is closed, and without a
    # question bound to a version nothing is of the wrong one: neither is looked up per item.
    permissions = bool(asked.any() and codes.restricted.any())
    versions = bool((wanted != -1).any())
    # Each code's marks with one entry more, read for the code -1 of a cited ID the snapshot
    # does not know (an index of -1 reads the last): such an ID has no document, so it is
    # neither stale nor closed nor of a version. No mask of the known items and no copy of
    # the codes with the unknown replaced is made per stage (160 MB each for a million
    # questions' candidates).
    stale, restricted = np.append(codes.stale, False), np.append(codes.restricted, False)
    access = np.append(codes.access, np.zeros_like(codes.access[:1]), axis=0)
    doc_version = np.append(codes.doc_version, -1)
    out: dict[str, StageItems] = {}
    for stage, items, owner in (
        ("candidates", run.candidates[0], _owner(run.candidates[1])),
        ("context", run.context[0], _owner(run.context[1])),
        ("cited", run.citations[0], claim_owner[_owner(run.citations[1])]),
        ("support", run.support[0], _owner(run.support[1])),
    ):
        closed = np.zeros(items.size, dtype=bool)
        wrong = np.zeros(items.size, dtype=bool)
        if permissions:
            closed = closed_to(access, restricted, items, mask[owner], asked[owner])
        if versions:
            version = doc_version[items]
            wrong = (version >= 0) & (wanted[owner] != -1) & (version != wanted[owner])
        out[stage] = StageItems(items, owner, stale[items], closed, wrong)
    return out


def canary_reached(
    ev: EvalColumns, run: RunColumns, codes: Codes, places: dict[int, tuple[int, ...]]
) -> np.ndarray:
    """Per result: the final context holds its canary's document, or a chunk of it whose span
    holds the instruction (`places`: `canary_places`); with the answer's marker: the
    `injection_followed` stage, `canary_obeyed` (a view's `StageFlags.canary_reached`)."""
    ctx_items, ctx_offsets = run.context
    ctx_owner = _owner(ctx_offsets)
    target = ev.canary_document[run.row]  # per result; -2: no canary
    hit = np.flatnonzero(codes.document_of[ctx_items] == target[ctx_owner])
    chunk = hit[codes.start[ctx_items[hit]] >= 0]  # the rest are the document itself
    shows = np.ones(hit.size, dtype=bool)
    shows[np.searchsorted(hit, chunk)] = [  # a chunk's span holds a place of the instruction
        any(codes.start[item] <= at <= codes.end[item] - len(ev.canary_instruction[row])
            for at in places[row])
        for item, row in zip(ctx_items[chunk], run.row[ctx_owner[chunk]].tolist(), strict=True)
    ]
    reached: np.ndarray = np.bincount(ctx_owner[hit[shows]], minlength=target.size) > 0
    return reached


@dataclass(frozen=True)
class RunStages:
    """Everything `_native_stages` finds of one run, found once for the layers (measures and
    stage flags) and the explanations (`_native_found.Explained`)."""

    matched: dict[str, StageMatch]
    """`match_stages`: candidates, reranked lists and contexts."""
    items: dict[str, StageItems]
    """`items_at_stages`: candidates, context, cited and supporting IDs."""
    cited_inside: np.ndarray
    """`cited_in_context`: per cited ID, it is in its result's final context."""
    canary: np.ndarray
    """`canary_reached`: per result."""
    injected: np.ndarray
    """`context_flags` of the instruction-like texts: per final-context item."""


def context_flags(
    column: np.ndarray, items: np.ndarray, snapshot: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    """Per final-context item (`items`), a detector's finding: its recorded text's (`column`
    1 or 0), else (-1) its snapshot text's, `snapshot` of its code."""
    found = column > 0
    side = column < 0
    found[side] = snapshot(items[side])
    return found


def find_stages(
    ev: EvalColumns, run: RunColumns, m: Matcher, codes: Codes,
    flags: Callable[[np.ndarray], np.ndarray], canaries: dict[int, tuple[int, ...]],
) -> RunStages:
    """What each stage of one run holds (`RunStages`); `flags`: whether snapshot codes' texts
    are instruction-like; `canaries`: `canary_places`."""
    return RunStages(
        match_stages(ev, run, m), items_at_stages(ev, run, codes), cited_in_context(run, codes),
        canary_reached(ev, run, codes, canaries),
        context_flags(run.context_flag, run.context[0], flags),
    )
