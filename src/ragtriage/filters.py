"""Question filters shared by every command: by tag, split, diagnosed stage and ID pattern.

Values of one kind are alternatives (`--tag a --tag b`: either tag); different kinds must all
hold (`--tag a --split dev`: tag a and split dev). An ID pattern keeps the question it names
and those it matches as a shell-style glob, case-sensitively (`exact-*`, `q-00?`). A stage
matches a question whose diagnosis has that stage as its primary or a secondary stage in at
least one of the runs.

An ID pattern that matches no question of the evaluation set is a mistake (a mistyped ID
would otherwise select nothing, silently): it is refused, every such pattern named
(`check_id_patterns`). A tag, split or stage that matches nothing is an answer (no question fails at
that stage), not a mistake: the report is empty.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, get_args

from .errors import (
    SUGGEST_LIMIT,
    InputError,
    Problem,
    Suggestions,
    found_text,
    id_list,
    option_problem,
)
from .holdout import HOLDOUT
from .paths import as_names
from .schemas import IDENTIFIER_EXPECTED, Split, plain_ids

if TYPE_CHECKING:
    from .evaluation import Evaluation, IdsCheck, QuestionFields, QuestionFilter
    from .loading import Dataset


SPLITS: tuple[str, ...] = get_args(Split)
"""The splits a question can be in (the schema's), in order."""

TAG_EXPECTED = f"a non-empty tag ({IDENTIFIER_EXPECTED})"
"""What a `--tag` that is no ID (as every question's tag is) is told it should be."""


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

    def __post_init__(self) -> None:
        # A mistyped split would select nothing, silently: refused as `--split` refuses it; so
        # is a tag that is no ID (a question's tags are IDs: none is empty or only whitespace).
        unknown = [split for split in dict.fromkeys(self.splits) if split not in SPLITS]
        expected = f"one of {', '.join(SPLITS)}"
        problems = [option_problem("--split", expected, found_text(split)) for split in unknown]
        problems += [
            option_problem("--tag", TAG_EXPECTED, found_text(tag))
            for tag in dict.fromkeys(self.tags) if not (tag and plain_ids((tag,)))
        ]
        if problems:
            raise InputError(problems)

    @classmethod
    def parted(
        cls, tags: Iterable[str], splits: Iterable[str], stages: Iterable[str], ids: Iterable[str]
    ) -> tuple[QuestionSelection, list[Problem]]:
        """The selection of the keywords' values (`as_names`) and no problem; or, when a tag or
        split is refused, the selection of the stages and IDs alone and the problems, for a
        caller that reports them with the problems of its other options (`Request.build`)."""
        stages, ids = as_names(stages, "stages"), as_names(ids, "ids")
        try:
            return cls(as_names(tags, "tags"), as_names(splits, "splits"), stages, ids), []
        except InputError as refused:
            return cls(stages=stages, ids=ids), list(refused.problems)

    @property
    def empty(self) -> bool:
        """True when nothing is filtered."""
        return not (self.tags or self.splits or self.stages or self.ids)

    def matches_question(self, question: QuestionFields) -> bool:
        """The tag, split and ID conditions (everything that needs no diagnosis)."""
        if self.tags and not set(self.tags) & set(question.tags):
            return False
        if self.splits and question.split not in self.splits:
            return False
        return not self.ids or any(id_matches(question.id, pattern) for pattern in self.ids)

    def describe(self) -> str:
        """The selection as one line (`all questions` when empty)."""
        from .evaluation import ALL_QUESTIONS

        kinds = {"tag": self.tags, "split": self.splits, "stage": self.stages, "id": self.ids}
        # A value holding ` or ` or ` and ` is quoted: it would read as two, or two filters.
        # The values are a set: each once, sorted, so one selection always reads the same.
        parts = [
            f"{name} {id_list(sorted(set(values)), ' or ', (' or ', ' and '))}"
            for name, values in kinds.items() if values
        ]
        return " and ".join(parts) if parts else ALL_QUESTIONS


def id_matches(question_id: str, pattern: str) -> bool:
    """True when `pattern` is the question's ID or a glob matching it (`faq[1]` selects the
    question `faq[1]`, and `faq1` as a glob)."""
    return question_id == pattern or fnmatchcase(question_id, pattern)


ID_EXPECTED = "the ID of a question of the evaluation set, or a glob matching one"
"""What an `--id` pattern that matches no question is told it should be."""

_GLOB = frozenset("*?[")  # a pattern with these is no mistyped ID: no "did you mean"


def check_id_patterns(patterns: Iterable[str], question_ids: Iterable[str]) -> None:
    """Raise `InputError` naming every ID pattern that no question of the evaluation set
    (`question_ids`, every one) matches: the request's check before anything is scored. The
    IDs are kept (up to `SUGGEST_LIMIT`) only while a pattern is unmatched, for a "did you
    mean"."""
    left = list(dict.fromkeys(patterns))
    seen: list[str] | None = []
    for question_id in question_ids:
        if not left:
            return
        left = [p for p in left if not id_matches(question_id, p)]
        if seen is not None:
            seen.append(question_id)
            if len(seen) > SUGGEST_LIMIT:
                seen = None
    if not left:
        return
    suggest = Suggestions(seen or ())
    raise InputError(
        [
            option_problem(
                "--id", ID_EXPECTED,
                found_text(pattern) + ("" if _GLOB & set(pattern) else suggest(pattern)),
            )
            for pattern in left
        ]
    )


@dataclass(frozen=True)
class SelectedScore:
    """What `score_selected` scored, and how many holdout questions it held and scored."""

    evaluation: Evaluation
    """The result of the selected questions."""
    held: int
    """The holdout questions the selection keeps, scored or left out (a left-out question is
    not diagnosed: its stage condition aside)."""
    looked: int
    """The holdout questions scored: kept and answered by some run (none unless the holdout
    is included)."""


def score_selected(
    score: Callable[[QuestionFilter, QuestionFilter, tuple[str, ...], IdsCheck], Evaluation],
    selection: QuestionSelection,
    include_holdout: bool,
) -> SelectedScore:
    """The questions `selection` keeps scored by `score`, which reads the files itself, the
    holdout split left out unless `include_holdout` (`Request.score_with`'s pass).

    `score(keep, held, stages, ids_check)` checks every question and scores those `keep` keeps
    and, of them, only those diagnosed with any of `stages` in some run (none: no stage
    condition; the engine's `stages`), in one pass; `held` keeps the questions the input
    holds for this request (the holdout left out unless included), which is what
    run-wide facts (self-labelling) are read from. An ID pattern matching no question of the
    input raises `InputError` (`check_id_patterns`) before anything is scored: `score` gives
    `ids_check` every question ID of the evaluation set as soon as it has read them.
    """
    from .evaluation import FieldFilter

    held: set[str] = set()  # the holdout questions selected, scored or left out
    looked: set[str] = set()  # the holdout questions kept (scored once some run answers them)
    checked: list[bool] = []

    def ids_check(question_ids: Sequence[str]) -> None:
        # Every ID, a holdout question left out included: it is one of the set too.
        check_id_patterns(selection.ids, question_ids)
        checked.append(True)

    def in_input(question: QuestionFields) -> bool:
        if question.split == HOLDOUT:
            if selection.matches_question(question):
                held.add(question.id)
            return include_holdout
        return True

    def kept(question: QuestionFields) -> bool:
        if not (in_input(question) and selection.matches_question(question)):
            return False
        if question.split == HOLDOUT:
            looked.add(question.id)
        return True

    result = score(FieldFilter(kept), FieldFilter(in_input), selection.stages, ids_check)
    if not checked:  # an unknown ID would have selected nothing, silently
        raise RuntimeError("the scoring function never gave the question IDs to ids_check")
    if looked:  # `kept` ran before the engine's stage condition, and a run may lack results
        looked.intersection_update(_answered_ids(result))
    return SelectedScore(replace(result, selection=selection.describe()), len(held), len(looked))


def _answered_ids(evaluation: Evaluation) -> set[str]:
    """The questions an evaluation scored a result of, in some run (not its `no_result`)."""
    return {r.question_id for run in evaluation.runs for r in run.questions}


def evaluate_selected(
    dataset: Dataset, selection: QuestionSelection, **options: object
) -> Evaluation:
    """`evaluate` restricted to the selected questions, in one pass: the tag, split and ID
    conditions are its question filter, and the engine keeps of those the questions whose
    diagnosis has a selected stage (`columnar.evaluate`'s `stages`).

    Aggregates, slices and diagnoses then cover exactly the selected questions. An ID
    pattern that matches no question of the dataset raises `InputError` (`check_id_patterns`),
    before anything is scored.
    """
    from .columnar import evaluate
    from .evaluation import FieldFilter

    check_id_patterns(selection.ids, (q.id for q in dataset.evalset.questions))
    result = evaluate(
        dataset,
        question_filter=FieldFilter(selection.matches_question),
        stages=selection.stages,
        **options,  # type: ignore[arg-type]
    )
    return replace(result, selection=selection.describe())
