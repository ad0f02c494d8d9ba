"""Each question's record (`QuestionRecord`) and details (`QuestionRecord.details`: the IDs
behind its numbers), put together from what the arrays and the reader found of its question
and result, without a view.

The keys, each present only when it names something, in this order: `stale_<stage>` (stale
items per stage), `invalid_citation_claims`, `unsupported_claims`, `uncertain_labels`
(claims, and an answer's facts, without a verdict that counts), `missing_facts` (an
answer's facts not covered), `missing_evidence` (an answerable question's required groups the
final context does not satisfy, each as its alternatives joined by `|`),
`permission_leak_<stage>` (documents the asker may not read), `injection_flagged_context`,
`canary_obeyed` (the canary's document, when the answer obeyed it), `sensitive_answer` and
`sensitive_context` (findings as `DETECTOR[start:end]`, a context one after its item's ID and
`:`), `stale_labels` (claims, then facts, with a label made against another context).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ..detectors import PERMISSION_STAGES, StageFlags
from ..evaluation import QuestionRecord
from ..metrics import CLAIM_STATES, FACT_STATES, FRESH, InvalidCitations, Score
from ..schemas import claim_ids
from ._native_checks import ANSWERABILITY, OUTCOMES
from ._native_read import EvalColumns
from ._native_run import RunColumns
from ._native_stages import _owner

Details = dict[str, tuple[str, ...]]
"""One question's details: key -> IDs."""

_ANSWERED = OUTCOMES["answered"]
OUTCOME_NAMES = tuple(OUTCOMES)
"""Each outcome code's name."""
ANSWERABILITY_NAMES = tuple(ANSWERABILITY)
"""Each answerability code's name."""
_ANSWERABLE = ANSWERABILITY["answerable"]
_UNSUPPORTED = CLAIM_STATES.index("unsupported")
_UNCERTAIN_CLAIM = (CLAIM_STATES.index("cannot_judge"), CLAIM_STATES.index("unlabelled"))
_NOT_COVERED = FACT_STATES.index("not_covered")
_UNCERTAIN_FACT = (FACT_STATES.index("cannot_judge"), FACT_STATES.index("unlabelled"))
_STALE_KEYS = tuple(f"stale_{stage}" for stage in PERMISSION_STAGES)
_LEAK_KEYS = tuple(f"permission_leak_{stage}" for stage in PERMISSION_STAGES)


def _any_stale(marks: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Per claim (or fact): some label of it is not fresh (made against another context)."""
    flat, offsets = marks
    seen = np.zeros(flat.size + 1, dtype=np.int64)
    np.cumsum((flat & FRESH) == 0, out=seen[1:])
    stale: np.ndarray = (seen[offsets[1:]] - seen[offsets[:-1]]) > 0
    return stale


class QuestionDetails:
    """The records and details of a run's questions from its arrays: `details(rows,
    results)`, `record(row, result, ...)`.

    `ids`: the snapshot ID of each code; `first`: per required group, the position of its
    first satisfying item among the candidates, in the final ranking and in the final context
    (-1: none); `invalid_of`: a result's claims without a valid citation
    (`Explained.invalid_of`); `stage_flags`, `flagged`,
    `snapshot_found`: what the run's `Explained` found of a result (its stale, unreadable
    and other-version items per stage; its flagged context IDs) and of a snapshot item (the
    sensitive findings of its text)."""

    def __init__(
        self, ev: EvalColumns, run: RunColumns, ids: Sequence[str],
        first: np.ndarray, invalid: tuple[np.ndarray, np.ndarray],
        invalid_of: Callable[[int], InvalidCitations],
        stage_flags: Callable[[int], StageFlags],
        flagged: Callable[[int], tuple[str, ...]],
        snapshot_found: Callable[[int], tuple[str, ...]],
    ) -> None:
        # Only what the records, details and stage rows read of the questions (not the whole
        # `EvalColumns`: its ID index and permission and version columns are freed).
        self._question_ids, self._tags, self._splits = ev.ids, ev.tags, ev.split
        self._shared_tags: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._answerability, self._fact_ids = ev.answerability, ev.facts
        self._groups = ev.group_offsets
        self._canary_named, self._group_label = ev.canary_named, ev.group_label
        self._ids = ids
        self._first, self._in_context = first, first[:, 2]
        self._invalid_of = invalid_of
        self._k, self._derived, self._has_reranked = run.k, run.context_derived, run.has_reranked
        self._candidates, self._reranked = run.candidates, run.reranked
        self._cited, self._as_written = run.citations, run.cited_as_written
        # The required groups' alternatives as (codes, offsets), read by `_listed` as a stage's
        # items are: where each group starts in `alt_code` (groups are in order).
        self._alternatives = (ev.alt_code, np.searchsorted(
            ev.alt_group, np.arange(ev.group_grade.size + 1, dtype=np.int64)
        ))
        self._claims, self._names, self._claim_state = (
            run.claim_offsets, run.claim_names, run.claim_state,
        )
        self._facts, self._fact_state = run.fact_offsets, run.fact_state
        self._outcome = run.outcome
        self._bad, self._bad_at = invalid
        self._stale_claim = _any_stale(run.claim_labels)
        self._stale_fact = _any_stale(run.fact_labels)
        self._context, self._context_at = run.context
        self._recorded_found = run.recorded_found
        owner = _owner(self._context_at)
        self._recorded = np.bincount(owner[run.context_flag >= 0], minlength=run.row.size) > 0
        # The sensitive findings of each snapshot text a context shows, by code (those with
        # any), found once for the run here (before any worker is forked); per result:
        # whether such a text is in its context.
        side = run.context_flag < 0
        self._snapshot_labels = {
            code: labels for code in np.unique(self._context[side]).tolist()
            if (labels := snapshot_found(code))
        }
        labelled = np.zeros(len(ids) + 1, dtype=bool)
        labelled[list(self._snapshot_labels)] = True
        self._shows_labelled = (
            np.bincount(owner[side & labelled[self._context]], minlength=run.row.size) > 0
        )
        self._answer_found = run.answer_found
        self._latency, self._cost = run.latency_ms, run.cost_usd
        self._stage_flags, self._flagged = stage_flags, flagged

    def tags(self, row: int) -> tuple[str, ...]:
        """The tags of question `row`, each set of tags and each tag's text held once for
        every question (a record and a diagnosis of a million questions share them)."""
        tags = self._tags[row]
        shared = self._shared_tags.get(tags)
        if shared is None:
            shared = self._shared_tags[tags] = tuple(map(sys.intern, tags))
        return shared

    def split(self, row: int) -> str:
        """The split of question `row`."""
        return self._splits[row]

    def record(
        self, row: int, result: int, tags: tuple[str, ...], scores: Mapping[str, Score | None],
        details: Details, cannot_judge: Mapping[str, int],
    ) -> QuestionRecord:
        """The record of question `row`, answered by `result`: its computed `scores`, `details`
        and `cannot_judge` counts with what the reader found of the question and result."""
        outcome = int(self._outcome[result])
        latency, cost = float(self._latency[result]), float(self._cost[result])
        return QuestionRecord(
            question_id=self._question_ids[row],
            tags=tags,
            split=self._splits[row],
            answerability=ANSWERABILITY_NAMES[self._answerability[row]],
            outcome=None if outcome < 0 else OUTCOME_NAMES[outcome],
            scores=scores,
            details=details,
            cannot_judge=cannot_judge,
            latency_ms=None if math.isnan(latency) else latency,
            cost_usd=None if math.isnan(cost) else cost,
        )

    def details(self, rows: Sequence[int], results: Sequence[int]) -> list[Details]:
        """The details of the questions `rows`, each answered by its result in `results`."""
        return [self._one(row, result) for row, result in zip(rows, results, strict=True)]

    def _one(self, row: int, result: int) -> Details:
        out: Details = {}
        flags = self._stage_flags(result)
        for key, items in zip(_STALE_KEYS, flags.stale, strict=True):
            if items:
                out[key] = items
        c0, c1 = int(self._claims[result]), int(self._claims[result + 1])
        names: list[str] = []
        stale_labels: list[str] = []
        uncertain: list[str] = []
        missing: list[str] = []
        if c1 > c0:
            names = self._claim_names(c0, c1)
            lo, hi = int(self._bad_at[result]), int(self._bad_at[result + 1])
            if hi > lo:
                out["invalid_citation_claims"] = tuple(
                    [names[claim - c0] for claim in self._bad[lo:hi].tolist()]
                )
            states = self._claim_state[c0:c1].tolist()
            unsupported = [n for n, s in zip(names, states, strict=True) if s == _UNSUPPORTED]
            if unsupported:
                out["unsupported_claims"] = tuple(unsupported)
            uncertain = [n for n, s in zip(names, states, strict=True) if s in _UNCERTAIN_CLAIM]
            stale_labels = [
                n for n, s in zip(names, self._stale_claim[c0:c1].tolist(), strict=True) if s
            ]
        facts = self._fact_ids[row]
        if facts:
            f0 = int(self._facts[result])
            fact_states = self._fact_state[f0 : f0 + len(facts)].tolist()
            if self._outcome[result] == _ANSWERED:
                uncertain += [
                    f for f, s in zip(facts, fact_states, strict=True) if s in _UNCERTAIN_FACT
                ]
                missing = [f for f, s in zip(facts, fact_states, strict=True) if s == _NOT_COVERED]
            stale_labels += [
                f for f, s in zip(
                    facts, self._stale_fact[f0 : f0 + len(facts)].tolist(), strict=True
                ) if s
            ]
        if uncertain:
            out["uncertain_labels"] = tuple(uncertain)
        if missing:
            out["missing_facts"] = tuple(missing)
        if self._answerability[row] == _ANSWERABLE:
            g0, g1 = int(self._groups[row]), int(self._groups[row + 1])
            lacking = np.flatnonzero(self._in_context[g0:g1] < 0).tolist()
            if lacking:
                out["missing_evidence"] = tuple(
                    ["|".join(self._listed(self._alternatives, g0 + g)) for g in lacking]
                )
        for key, documents in zip(_LEAK_KEYS, flags.leaked, strict=True):
            if documents:
                out[key] = documents
        flagged = self._flagged(result)
        if flagged:
            out["injection_flagged_context"] = flagged
        if flags.canary_obeyed:  # obeyed: the question has a canary
            out["canary_obeyed"] = (self._canary_named[row],)
        answer_found: tuple[str, ...] = self._answer_found[result]
        if answer_found:
            out["sensitive_answer"] = answer_found
        context = self._context_found(result)
        if context:
            out["sensitive_context"] = context
        if stale_labels:
            out["stale_labels"] = tuple(stale_labels)
        return out

    def _claim_names(self, start: int, end: int) -> list[str]:
        """The IDs of the claims `start:end` (one result's): their own, else `c1`, `c2`, ..."""
        return claim_ids(self._names[start:end].tolist())

    def _listed(self, stage: tuple[np.ndarray, np.ndarray], at: int) -> tuple[str, ...]:
        """The IDs of one result's items of a stage (`(codes, offsets)`), or of one required
        group's alternatives (the group's number among all)."""
        items, offsets = stage
        ids = self._ids
        return tuple([ids[code] for code in items[offsets[at] : offsets[at + 1]].tolist()])

    def _context_found(self, result: int) -> tuple[str, ...]:
        """The sensitive findings of a result's final-context texts, each as `ID:label`: its
        recorded text's, else the snapshot's."""
        recorded = self._recorded[result]
        if not (recorded or self._shows_labelled[result]):
            return ()
        start, end = int(self._context_at[result]), int(self._context_at[result + 1])
        codes = self._context[start:end].tolist()
        texts = self._recorded_found[start:end].tolist() if recorded else [None] * len(codes)
        out: list[str] = []
        ids, snapshot_labels = self._ids, self._snapshot_labels
        for code, found in zip(codes, texts, strict=True):
            labels = snapshot_labels.get(code, ()) if found is None else found
            if labels:
                item = ids[code]
                out += [f"{item}:{label}" for label in labels]
        return tuple(out)
