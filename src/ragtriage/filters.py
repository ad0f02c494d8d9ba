"""Question filters shared by every command: by tag, split, diagnosed stage and ID pattern.

Values of one kind are alternatives (`--tag a --tag b`: either tag); different kinds must all
hold (`--tag a --split dev`: tag a and split dev). ID patterns are shell-style globs matched
case-sensitively (`exact-*`, `q-00?`). A stage matches a question whose diagnosis has that stage
as its primary or a secondary stage in at least one of the runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

from .schemas import Question

if TYPE_CHECKING:
    from .evaluation import Evaluation
    from .loading import Dataset


@dataclass(frozen=True)
class QuestionSelection:
    """Which questions a command looks at; the empty selection keeps every question."""

    tags: tuple[str, ...] = ()
    """Keep questions carrying any of these tags."""
    splits: tuple[str, ...] = ()
    """Keep questions in any of these splits."""
    stages: tuple[str, ...] = ()
    """Keep questions diagnosed with any of these stages (primary or secondary)."""
    ids: tuple[str, ...] = ()
    """Keep questions whose ID matches any of these glob patterns."""

    @property
    def empty(self) -> bool:
        """True when nothing is filtered."""
        return not (self.tags or self.splits or self.stages or self.ids)

    def matches_question(self, question: Question) -> bool:
        """The tag, split and ID conditions (everything that needs no diagnosis)."""
        if self.tags and not set(self.tags) & set(question.tags):
            return False
        if self.splits and question.split not in self.splits:
            return False
        return not self.ids or any(fnmatchcase(question.id, pattern) for pattern in self.ids)

    def describe(self) -> str:
        """The selection as one line (`all questions` when empty)."""
        parts = []
        for name, values in (
            ("tag", self.tags), ("split", self.splits), ("stage", self.stages), ("id", self.ids)
        ):
            if values:
                parts.append(f"{name} {' or '.join(values)}")
        return " and ".join(parts) if parts else "all questions"


def evaluate_selected(
    dataset: Dataset, selection: QuestionSelection, **options: object
) -> Evaluation:
    """`evaluate` restricted to the selected questions, in one pass: the tag, split and ID
    conditions are its question filter, and the engine keeps of those the questions whose
    diagnosis has a selected stage (`columnar.evaluate`'s `stages`).

    Aggregates, slices and diagnoses then cover exactly the selected questions.
    """
    from .columnar import evaluate

    return evaluate(
        dataset,
        question_filter=selection.matches_question,
        stages=selection.stages,
        **options,  # type: ignore[arg-type]
    )
