"""The IDs a sheet may name: runs, answered questions, claims and reference facts of a dataset."""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import ProblemCollector
from ..loading import Dataset
from ..paths import SAFE_FILE_STEM, is_safe_file_stem
from ..schemas import claim_ids


def _listing(names: Iterable[str]) -> str:
    return ", ".join(names) or "none"


class KnownIds:
    """What a dataset holds, for checking each sheet row against it.

    `k` is the cut-off the sheet was exported with (`review export -k`): with it, each answer's
    final context is the one the sheet's `context_ids` show.
    """

    def __init__(self, dataset: Dataset, k: int | None = None) -> None:
        facts = {q.id: tuple(f.id for f in q.reference_facts) for q in dataset.evalset.questions}
        ks = dataset.cutoffs(k)
        self.answered: dict[str, dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {}
        self._contexts: dict[tuple[str, str], tuple[str, ...]] = {}
        for run in dataset.runs:
            by_question = {}
            for res in run.results:
                if res.outcome != "answered" or res.answer is None:
                    continue
                claims = tuple(claim_ids(c.id for c in res.claims or ()))
                by_question[res.question_id] = (claims, facts.get(res.question_id, ()))
                self._contexts[run.name, res.question_id] = res.final_context(ks[run.name])
            self.answered[run.name] = by_question
        self._named: set[str] = set()

    def final_context(self, run: str, qid: str) -> tuple[str, ...] | None:
        """The IDs of the final context of `run`'s answer to `qid`, as the run file gives it
        (None when the run did not answer the question)."""
        return self._contexts.get((run, qid))

    def check(
        self,
        file: str,
        row: int,
        kind: str,
        run: str,
        qid: str,
        item_id: str,
        collector: ProblemCollector,
    ) -> None:
        """Add a problem for a run, question, claim or fact the dataset does not have."""

        def refuse(column: str, expected: str, found: str) -> None:
            collector.add(file, qid, f"row {row}: {column}", expected, repr(found))

        if run not in self.answered:
            refuse("run", f"a run of the dataset ({_listing(self.answered)})", run)
            return
        if run not in self._named and not is_safe_file_stem(run):
            # Checked once per run: the labels file is named after it.
            self._named.add(run)
            refuse("run", SAFE_FILE_STEM, run)
        answers = self.answered[run]
        if qid not in answers:
            refuse("question_id", f"a question answered by run {run!r}", qid)
            return
        claims, facts = answers[qid]
        if not item_id:
            return  # reported by the row checks
        if kind == "claim" and item_id not in claims:
            refuse("claim_id", f"a claim of the answer ({_listing(claims)})", item_id)
        if kind == "fact" and item_id not in facts:
            refuse("fact_id", f"a reference fact of the question ({_listing(facts)})", item_id)
