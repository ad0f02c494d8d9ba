"""One question row's result as the diagnosis explanations read it (`StageRow`, a
`diagnosis.StageInputs`), put together from the run's arrays (`QuestionDetails`) when first
asked, without a view."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, NamedTuple, TypeVar

import numpy as np

from ..detectors import StageFlags
from ..loading import SnapshotIndex
from ..metrics import CLAIM_STATES, FACT_STATES
from ..schemas import claim_ids
from ._native_details import ANSWERABILITY_NAMES, OUTCOME_NAMES, QuestionDetails
from ._native_stages import _spans, first_found


class _Group(NamedTuple):
    any_of: tuple[str, ...]
    label: str | None


class _Question(NamedTuple):
    answerability: str
    required_evidence: tuple[_Group, ...]


class _Claim(NamedTuple):
    claim_id: str
    state: str


class _Fact(NamedTuple):
    fact_id: str
    state: str


class _Evidence(NamedTuple):
    first: tuple[tuple[int | None, int | None, int | None], ...]


T = TypeVar("T")


class _once(Generic[T]):
    """A property computed when first read and then kept on the instance: what
    `functools.cached_property` does, without the lock Python 3.11 takes on each first read
    (a lock per row part of a million rows)."""

    def __init__(self, compute: Callable[[Any], T]) -> None:
        self._compute, self._name = compute, compute.__name__

    def __get__(self, row: Any, owner: Any = None) -> T:
        value = row.__dict__[self._name] = self._compute(row)
        return value


class _Ids(Sequence[str]):
    """List `at` of `flat` (codes, offsets, as memoryviews) as IDs (`ids`: each code's), each
    looked up when read: the explanations read a ranking's length and an item or two of it,
    not every ID."""

    def __init__(self, ids: Sequence[str], flat: tuple[memoryview, memoryview], at: int) -> None:
        codes, offsets = flat
        self._ids, self._codes = ids, codes[offsets[at] : offsets[at + 1]]

    def __len__(self) -> int:
        return len(self._codes)

    def __getitem__(self, at: Any) -> Any:  # an index: its ID; a slice: a tuple of them
        codes = self._codes[at]
        return tuple(self._ids[c] for c in codes) if isinstance(at, slice) else self._ids[codes]


class ChunkGroups:
    """The required groups of a chunk of question rows, as their stage rows read them: read
    from the arrays once for the chunk (a few `tolist` calls), not sliced row by row."""

    def __init__(self, of: QuestionDetails, rows: Sequence[int]) -> None:
        at = np.asarray(rows, dtype=np.int64)
        groups, self.bounds = _spans(of._groups[at], of._groups[at + 1])
        """Row n's groups are [bounds[n], bounds[n + 1]) of the lists below."""
        self.groups: list[int] = groups.tolist()
        """Each group's index among the evaluation set's."""
        self.first = first_found(of._first[groups].tolist())
        """Each group's first satisfying positions, as a view holds them."""
        codes, offsets = of._alternatives
        alternatives, self.alternatives = _spans(offsets[groups], offsets[groups + 1])
        """Group j's alternatives are [alternatives[j], alternatives[j + 1]) of `ids`."""
        ids = of._ids
        self.ids = [ids[code] for code in codes[alternatives].tolist()]


class StageRow:
    """One question row's result as the diagnosis explanations read it
    (`diagnosis.StageInputs`), each part put together from the arrays when first asked:
    what they read of question `row` (the `n`th row of `chunk`) answered by `result` (its
    stage `flags`), against the snapshot `index`."""

    def __init__(
        self, of: QuestionDetails, chunk: ChunkGroups, n: int, row: int, result: int,
        index: SnapshotIndex, flags: StageFlags,
    ) -> None:
        self._of, self._chunk, self._n, self._row, self._result = of, chunk, n, row, result
        self.k: int | None = of._k
        self.context_derived = bool(of._one_derived[result])
        self.index, self.flags = index, flags

    @_once
    def question(self) -> _Question:
        chunk, n, labels = self._chunk, self._n, self._of._group_label
        groups, ids, bounds = chunk.groups, chunk.ids, chunk.alternatives
        required = tuple([
            _Group(tuple(ids[bounds[g] : bounds[g + 1]]), labels.get(groups[g]))
            for g in range(chunk.bounds[n], chunk.bounds[n + 1])
        ])
        return _Question(ANSWERABILITY_NAMES[self._of._one_answerability[self._row]], required)

    @property
    def outcome(self) -> str | None:
        outcome = self._of._one_outcome[self._result]
        return None if outcome < 0 else OUTCOME_NAMES[outcome]

    @_once
    def candidates(self) -> Sequence[str]:
        return _Ids(self._of._ids, self._of._one_lists[0], self._result)

    @_once
    def reranked(self) -> Sequence[str] | None:
        of, result = self._of, self._result
        return _Ids(of._ids, of._one_lists[1], result) if of._one_reranked[result] else None

    @property
    def ranking(self) -> Sequence[str]:
        reranked = self.reranked
        return self.candidates if reranked is None else reranked

    @_once
    def context(self) -> Sequence[str]:
        return _Ids(self._of._ids, self._of._one_lists[2], self._result)

    @_once
    def evidence(self) -> _Evidence:
        bounds, n = self._chunk.bounds, self._n
        return _Evidence(self._chunk.first[bounds[n] : bounds[n + 1]])

    @_once
    def claims(self) -> tuple[_Claim, ...]:
        of, result = self._of, self._result
        c0, c1 = of._one_claims[result], of._one_claims[result + 1]
        return tuple([
            _Claim(name, CLAIM_STATES[state])
            for name, state in zip(
                claim_ids(of._names[c0:c1].tolist()), of._claim_state[c0:c1].tolist(),
                strict=True,
            )
        ])

    @_once
    def facts(self) -> tuple[_Fact, ...]:
        of, row = self._of, self._row
        facts = of._fact_ids[row]
        f0 = of._one_facts[self._result]
        states = of._fact_state[f0 : f0 + len(facts)].tolist()
        return tuple([_Fact(f, FACT_STATES[s]) for f, s in zip(facts, states, strict=True)])

    @property
    def invalid_citations(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        of, result = self._of, self._result
        invalid = of._invalid_of(result)
        if not invalid:
            return ()
        c0 = of._one_claims[result]
        codes, cited_at = of._cited
        ids, claims = of._ids, self.claims
        out = []
        for claim, outside in invalid:
            at = int(cited_at[c0 + claim])
            written = of._as_written[c0 + claim]
            cited = codes[at : at + max(outside) + 1].tolist() if outside else []
            out.append((claims[claim].claim_id, tuple(
                ids[cited[n]] if cited[n] >= 0 else written[n] for n in outside
            )))
        return tuple(out)
