"""The problem collector shared by the semantic checks, with article field names."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable

from ..errors import Problem, Suggestions
from ..loading import Dataset, SnapshotIndex

_ARTICLE_FIELDS = {
    "candidates": "retrievedIds",
    "citations": "citationIds",
    "supported_by": "review.supportedByIds",
    "fact_labels": "review.coveredReferenceFactIds",
    "outcome": "abstained",
    "required_evidence": "requiredEvidenceIds",
    "reference_facts": "referenceFactIds",
    "results": "results",
    "question_id": "caseId",
    "documents": "corpus",
    "questions": "cases",
}

_SNAPSHOT_IDS = "IDs of documents or chunks in the snapshot"


def dupes(values: Iterable[str]) -> list[str]:
    """The values that occur more than once, sorted."""
    return sorted(v for v, n in Counter(values).items() if n > 1)


def repeats(ids: Iterable[str]) -> list[tuple[str, str]]:
    """`(expected, found)` for each ID a list holds more than once: one rule for a ranking,
    a context and a document's `supersedes` (in a snapshot or a versions file)."""
    return [("each ID at most once", f"{d!r} more than once") for d in dupes(ids)]


def check_repeats(
    add: Callable[[str, str | None, str, str, str], None], file: str, ids: Iterable[str],
    results: bool,
) -> None:
    """A problem (`add`: `Checker.add`, `ProblemCollector.add`) per question ID an evaluation
    set holds more than once, or a run answers more than once (`results`)."""
    for qid, n in sorted(Counter(ids).items()):
        if n > 1 and results:
            add(file, qid, "results", "one result per question", f"{n} results")
        elif n > 1:
            add(file, qid, "id", "unique question IDs", f"{qid!r} more than once")


def check_known_questions(
    add: Callable[[str, str | None, str, str, str], None], file: str,
    questions: Collection[str], answered: Iterable[str],
) -> None:
    """A problem (`add`, as `check_repeats`) per question a run answers (`answered`, its
    results' question IDs) that the evaluation set (`questions`, its IDs) does not hold, each
    once, in ID order."""
    names = Suggestions(questions)
    for qid in sorted(set(answered)):
        if qid not in questions:
            found = "no such question" + names(qid)
            add(file, qid, "results.question_id", "a question of the evaluation set", found)


class Checker:
    """Collects problems; in an article-format file it names fields as that format spells them."""

    def __init__(self, ds: Dataset) -> None:
        self.ds = ds
        self.problems: list[Problem] = []
        # An article file holds several runs: name the run in the field, as the file does.
        self.run_prefix = ""

    def add(self, file: str, qid: str | None, field: str, expected: str, found: str) -> None:
        """Record one problem."""
        if self.ds.article and file == self.ds.sources[0].path:  # not a native --run's
            head, _, rest = field.partition(".")
            base = head.split("[")[0]
            if base in _ARTICLE_FIELDS:
                field = _ARTICLE_FIELDS[base] + head[len(base) :] + ("." + rest if rest else "")
            for native, article in _ARTICLE_FIELDS.items():
                field = field.replace("." + native, "." + article)
            field = self.run_prefix + field
        self.problems.append(Problem(file, qid, field, expected, found))

    def repeated(
        self, file: str, qid: str | None, field: str, expected: str, values: Iterable[str]
    ) -> None:
        """Record a problem per value that occurs more than once (`dupes`)."""
        for dup in dupes(values):
            self.add(file, qid, field, expected, f"{dup!r} more than once")

    def unknown_ids(
        self, file: str, qid: str | None, field: str, ids: Iterable[str], index: SnapshotIndex
    ) -> None:
        """Record a problem per ID that names no document or chunk of the snapshot, with the
        closest known ID when one is near (`SnapshotIndex.unknown`)."""
        for item in ids:
            if not index.known(item):
                self.add(file, qid, field, _SNAPSHOT_IDS, index.unknown(item))
