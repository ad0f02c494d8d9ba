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
from itertools import pairwise

import numpy as np

from ..detectors import NO_FLAGS, PERMISSION_STAGES, StageFlags
from ..evaluation import QuestionRecord
from ..metrics import CLAIM_STATES, FACT_STATES, FRESH, InvalidCitations, Score
from ..schemas import claim_ids
from ._native_checks import ANSWERABILITY, OUTCOMES
from ._native_layers import ANSWERABLE, ANSWERED
from ._native_read import EvalColumns
from ._native_run import RunColumns
from ._native_stages import _owner, _spans, distinct_codes

Details = dict[str, tuple[str, ...]]
"""One question's details: key -> IDs."""

OUTCOME_NAMES = tuple(OUTCOMES)
"""Each outcome code's name."""
ANSWERABILITY_NAMES = tuple(ANSWERABILITY)
"""Each answerability code's name."""
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


def _picked(mask: np.ndarray, bounds: list[int]) -> tuple[list[int], list[int]]:
    """Where `mask` holds over a chunk's spans (`_spans`' positions and bounds): each such
    position less its question's start, and where each question's begin among them."""
    where = np.flatnonzero(mask)
    cut = np.searchsorted(where, bounds)
    return (where - np.repeat(bounds[:-1], np.diff(cut))).tolist(), cut.tolist()


def _take(picked: tuple[list[int], list[int]], n: int, items: Sequence[str]) -> list[str]:
    """Question `n`'s `items` at its positions `picked` (`_picked`)."""
    positions, cut = picked
    return [items[at] for at in positions[cut[n] : cut[n + 1]]]


def _any_picked(*picked: tuple[list[int], list[int]]) -> list[bool]:
    """Per question: whether any of `picked` (`_picked`) holds some of its positions."""
    held: list[bool] = np.logical_or.reduce([np.diff(cut) > 0 for _, cut in picked]).tolist()
    return held


class QuestionDetails:
    """The records and details of a run's questions from its arrays, a chunk of questions at
    a time: `details(rows, results, stage_flags)`, `records(rows, results, ...)`.

    `ids`: the snapshot ID of each code; `first`: per required group, the position of its
    first satisfying item among the candidates, in the final ranking and in the final context
    (-1: none); `invalid_of`: a result's claims without a valid citation
    (`Explained.invalid_of`); `flagged`: what the run's `Explained` found of a result (its
    flagged context IDs); `snapshot_found`: the sensitive findings of snapshot items' texts,
    by code (`SnapshotScan.found`)."""

    def __init__(
        self, ev: EvalColumns, run: RunColumns, ids: Sequence[str],
        first: np.ndarray, invalid: tuple[np.ndarray, np.ndarray],
        invalid_of: Callable[[int], InvalidCitations],
        flagged: Callable[[int], tuple[str, ...]],
        snapshot_found: Callable[[np.ndarray], list[tuple[str, ...]]],
    ) -> None:
        # Only what the records, details and stage rows read of the questions (not the whole
        # `EvalColumns`: its ID index and permission and version columns are freed).
        self._question_ids, self._tags, self._splits = ev.ids, ev.tags, ev.split
        self._shared_tags: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._answerability, self._fact_ids = ev.answerability, ev.facts
        self._groups = ev.group_offsets
        self._canary_named, self._group_label = ev.canary_named, ev.group_label
        self.version_question = ev.version_question
        """Per question row: tagged `version-conflict` or bound to a version by `applies_to`."""
        self._ids = ids
        self._first, self._in_context = first, first[:, 2]
        self._invalid_of = invalid_of
        self._k = run.k
        self._cited, self._as_written = run.citations, run.cited_as_written
        # The required groups' alternatives as (codes, offsets), as a stage's items are: where
        # each group starts in `alt_code` (groups are in order).
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
        shown = distinct_codes(self._context[side], len(ids))
        self._snapshot_labels = {
            code: labels
            for code, labels in zip(shown.tolist(), snapshot_found(shown), strict=True) if labels
        }
        labelled = np.zeros(len(ids) + 1, dtype=bool)
        labelled[list(self._snapshot_labels)] = True
        self._shows_labelled = (
            np.bincount(owner[side & labelled[self._context]], minlength=run.row.size) > 0
        )
        self._answer_found = run.answer_found
        self._latency, self._cost = run.latency_ms, run.cost_usd
        self._flagged = flagged
        # The columns a stage row reads a number at a time (`StageRow`), as Python numbers: a
        # memoryview's item costs a third of a numpy scalar's.
        self._one_answerability, self._one_derived = (
            c.data for c in (ev.answerability, run.context_derived)
        )
        self._one_reranked, self._one_outcome, self._one_claims, self._one_facts = (
            c.data for c in (run.has_reranked, self._outcome, self._claims, self._facts)
        )
        self._one_lists = tuple(
            (codes.data, offsets.data)
            for codes, offsets in (run.candidates, run.reranked, run.context)
        )

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

    def records(
        self, rows: Sequence[int], results: Sequence[int], tags: Sequence[tuple[str, ...]],
        scores: Sequence[Mapping[str, Score | None]], details: Sequence[Details],
        cannot_judge: Sequence[Mapping[str, int]], uncertain: Sequence[Mapping[str, int]],
    ) -> list[QuestionRecord]:
        """The records of the questions `rows`, each answered by its result in `results`: its
        computed `scores`, `details`, `cannot_judge` and `uncertain` counts with what the
        reader found of the question and result (each a list in `rows` order)."""
        at = np.asarray(results, dtype=np.int64)
        answerability = self._answerability[np.asarray(rows, dtype=np.int64)].tolist()
        question_ids, splits = self._question_ids, self._splits
        return [
            QuestionRecord(
                question_id=question_ids[row],
                tags=row_tags,
                split=splits[row],
                answerability=ANSWERABILITY_NAMES[kind],
                outcome=None if outcome < 0 else OUTCOME_NAMES[outcome],
                scores=row_scores,
                details=row_details,
                cannot_judge=counts,
                uncertain=uncertain_counts,
                latency_ms=None if math.isnan(latency) else latency,
                cost_usd=None if math.isnan(cost) else cost,
            )
            for (
                row, row_tags, kind, outcome, row_scores, row_details, counts, uncertain_counts,
                latency, cost,
            ) in zip(
                rows, tags, answerability, self._outcome[at].tolist(), scores, details,
                cannot_judge, uncertain, self._latency[at].tolist(), self._cost[at].tolist(),
                strict=True,
            )
        ]

    def details(
        self, rows: Sequence[int], results: Sequence[int], stage_flags: Sequence[StageFlags]
    ) -> list[Details]:
        """The details of the questions `rows`, each answered by its result in `results` with
        its `stage_flags` (`Explained.stage_flags`): each column read once for them all and
        what each key names picked there (`_spans`, `_picked`), not sliced and tested question
        by question."""
        at, at_rows = np.asarray(results, dtype=np.int64), np.asarray(rows, dtype=np.int64)
        claim_start = self._claims[at]
        claims, claim_bounds = _spans(claim_start, self._claims[at + 1])
        names = self._names[claims].tolist()
        states = self._claim_state[claims]
        bad, bad_bounds = _spans(self._bad_at[at], self._bad_at[at + 1])
        # Each key's claims and facts, by position among its question's.
        invalid = (
            (self._bad[bad] - np.repeat(claim_start, np.diff(bad_bounds))).tolist(), bad_bounds
        )
        unsupported = _picked(states == _UNSUPPORTED, claim_bounds)
        uncertain_claims = _picked(np.isin(states, _UNCERTAIN_CLAIM), claim_bounds)
        stale_claims = _picked(self._stale_claim[claims], claim_bounds)
        # Whether a key names some claim of the question (its claims' IDs are made only then).
        claims_named = _any_picked(invalid, unsupported, uncertain_claims, stale_claims)
        fact_ids = [self._fact_ids[row] for row in rows]
        fact_start = self._facts[at]
        facts, fact_bounds = _spans(
            fact_start, fact_start + np.array([len(f) for f in fact_ids], dtype=np.int64)
        )
        states = self._fact_state[facts]
        answered = np.repeat(self._outcome[at] == ANSWERED, np.diff(fact_bounds))
        uncertain_facts = _picked(np.isin(states, _UNCERTAIN_FACT) & answered, fact_bounds)
        missing_facts = _picked((states == _NOT_COVERED) & answered, fact_bounds)
        stale_facts = _picked(self._stale_fact[facts], fact_bounds)
        facts_named = _any_picked(uncertain_facts, missing_facts, stale_facts)
        # The required groups of answerable questions the final context does not satisfy,
        # each its alternatives joined.
        groups, group_bounds = _spans(self._groups[at_rows], self._groups[at_rows + 1])
        answerable = self._answerability[at_rows] == ANSWERABLE
        lacking = (self._in_context[groups] < 0) & np.repeat(answerable, np.diff(group_bounds))
        codes, offsets = self._alternatives
        lost = groups[lacking]
        alternatives, alternative_bounds = _spans(offsets[lost], offsets[lost + 1])
        ids = self._ids
        alternative_ids = [ids[code] for code in codes[alternatives].tolist()]
        missing_evidence = [
            "|".join(alternative_ids[start:end])
            for start, end in pairwise(alternative_bounds)
        ]
        lacking_at = _picked(lacking, group_bounds)[1]
        answer_found = self._answer_found[at].tolist()
        shows = (self._recorded[at] | self._shows_labelled[at]).tolist()
        canary_named = self._canary_named
        out: list[Details] = []
        for n, (row, result, flags) in enumerate(
            zip(rows, results, stage_flags, strict=True)
        ):
            one: Details = {}
            if flags is not NO_FLAGS:
                for key, items in zip(_STALE_KEYS, flags.stale, strict=True):
                    if items:
                        one[key] = items
            uncertain: list[str] = []
            stale_labels: list[str] = []
            if claims_named[n]:
                claim_names = claim_ids(names[claim_bounds[n] : claim_bounds[n + 1]])
                for key, picked in (
                    ("invalid_citation_claims", invalid), ("unsupported_claims", unsupported)
                ):
                    if picked[1][n] < picked[1][n + 1]:
                        one[key] = tuple(_take(picked, n, claim_names))
                uncertain = _take(uncertain_claims, n, claim_names)
                stale_labels = _take(stale_claims, n, claim_names)
            missing: list[str] = []
            if facts_named[n]:
                question_facts = fact_ids[n]
                uncertain += _take(uncertain_facts, n, question_facts)
                missing = _take(missing_facts, n, question_facts)
                stale_labels += _take(stale_facts, n, question_facts)
            if uncertain:
                one["uncertain_labels"] = tuple(uncertain)
            if missing:
                one["missing_facts"] = tuple(missing)
            if lacking_at[n] < lacking_at[n + 1]:
                one["missing_evidence"] = tuple(missing_evidence[lacking_at[n] : lacking_at[n + 1]])
            if flags is not NO_FLAGS:
                for key, documents in zip(_LEAK_KEYS, flags.leaked, strict=True):
                    if documents:
                        one[key] = documents
            if flagged := self._flagged(result):
                one["injection_flagged_context"] = flagged
            if flags.canary_obeyed:  # obeyed: the question has a canary
                one["canary_obeyed"] = (canary_named[row],)
            if answer_found[n]:
                one["sensitive_answer"] = answer_found[n]
            context = self._context_found(result) if shows[n] else ()
            if context:
                one["sensitive_context"] = context
            if stale_labels:
                one["stale_labels"] = tuple(stale_labels)
            out.append(one)
        return out

    def _context_found(self, result: int) -> tuple[str, ...]:
        """The sensitive findings of a result's final-context texts, each as `ID:label`: its
        recorded text's, else the snapshot's (a result whose context shows some text with
        findings)."""
        recorded = self._recorded[result]
        start, end = int(self._context_at[result]), int(self._context_at[result + 1])
        codes = self._context[start:end].tolist()
        texts = self._recorded_found[start:end].tolist() if recorded else [None] * len(codes)
        out: list[str] = []
        ids, snapshot_labels = self._ids, self._snapshot_labels
        for code, found in zip(codes, texts, strict=True):
            labels = snapshot_labels.get(code, ()) if found is None else found
            out += [f"{ids[code]}:{label}" for label in labels]
        return tuple(out)
