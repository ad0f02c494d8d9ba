"""The evaluation set's questions as pydantic models, a chunk at a time, read again from the
file's records (`FileRecords.models`), so that no model is held for the whole set (a `Dataset`
in memory: its models, as held)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

from ..schemas import Question
from ._native_records import Records

AT_ONCE = 1_000
"""Questions parsed at a time when they are read in turn (`QuestionModels.chunks`)."""


class QuestionModels:
    """The evaluation set's questions as models, `AT_ONCE` at a time: a file's are validated
    again from their texts for each chunk (a JSONL file's lines, a JSON document's records
    as written once; no model is held for the whole set: models take several times the
    memory of their texts), models in memory are used as they are."""

    def __init__(self, source: Records, ids: list[str]) -> None:
        self.ids = ids
        """Every question's ID, by row."""
        self._source = source
        self._held: Sequence[Question] | None = source.held()

    def at(self, rows: Sequence[int]) -> dict[int, Question]:
        """The questions of these rows."""
        if self._held is not None:
            return {row: self._held[row] for row in rows}
        return self._source.models(rows, Question)

    def chunks(self, rows: Sequence[int] | None = None) -> Iterator[dict[int, Question]]:
        """The questions of these rows (default: all), in order, `AT_ONCE` rows at a time."""
        rows = range(len(self.ids)) if rows is None else rows
        for start in range(0, len(rows), AT_ONCE):
            yield self.at(rows[start : start + AT_ONCE])

    def of(self, rows: Sequence[int]) -> Sequence[Question]:
        """The questions of these rows as a sequence read when used (`Evaluation.questions`:
        no model is held for the whole set)."""
        return _Questions(self, rows)


class _Questions(Sequence[Question]):
    """Some rows' questions, read again from the file (a chunk at a time) when used."""

    def __init__(self, models: QuestionModels, rows: Sequence[int]) -> None:
        self._models = models
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, at: int) -> Question: ...

    @overload
    def __getitem__(self, at: slice) -> Sequence[Question]: ...

    def __getitem__(self, at: int | slice) -> Question | Sequence[Question]:
        if isinstance(at, slice):
            return _Questions(self._models, self._rows[at])
        row = self._rows[at]
        return self._models.at([row])[row]

    def __iter__(self) -> Iterator[Question]:
        for found in self._models.chunks(self._rows):
            yield from found.values()
