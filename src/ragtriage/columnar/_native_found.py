"""What the explanations of one native run ask of its arrays, found once for the run and
handed to each question's view (`Explained`): the items that satisfy each required group and
where, the stale, unreadable and other-version items per stage, the invalid claims, the
flagged and sensitive context items, the evidence levels.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ..calibration import CalibrationRecord, LabelSources, judge_key, label_sources, measure_kinds
from ..detectors import (
    BLOCKING_STAGES,
    NO_FLAGS,
    PERMISSION_STAGES,
    PermissionCheck,
    PermissionSummary,
    StageFlags,
    StageLeaks,
)
from ..evaluation import LevelChoice, run_evidence_level
from ..loading import EvidenceLevel
from ..metrics import (
    COUNTED,
    FRESH,
    NO_EVIDENCE,
    EvidenceFound,
    Found,
    InvalidCitations,
    LabelsFound,
    Measure,
)
from ..schemas import Labeller
from ._native_details import QuestionDetails
from ._native_read import Codes, EvalColumns
from ._native_run import RunColumns
from ._native_stages import (
    RunStages,
    _owner,
    _spans,
    distinct,
    first_found,
    listed,
    owners,
    validly_cited,
)


class Explained:
    """What one run's explanations ask of the arrays, found once for the run: per result, the
    flagged final-context IDs (`detectors.flag_context`, from the scan of every text the
    measures already did) and the items satisfying a required group; per required group,
    where its first satisfying item stands in each stage (`StageMatch.first`).
    `snapshot_found`: the sensitive findings of snapshot items' texts, as report labels, by
    code (`SnapshotScan.found`: each text scanned once for every run; a recorded text's are
    the reader's)."""

    def __init__(
        self, ev: EvalColumns, run: RunColumns, codes: Codes, stages: RunStages,
        level: LevelChoice, snapshot_found: Callable[[np.ndarray], list[tuple[str, ...]]],
    ) -> None:
        matched, at_stages = stages.matched, stages.items
        self._level, self._document_level = level, ev.level_document
        self._requires = np.diff(ev.group_offsets) > 0
        items, offsets = run.context
        ids = list(codes.code)
        self._ids = ids
        self._question_ids = ev.ids
        self._flagged: dict[int, list[str]] = {}
        injected = np.flatnonzero(stages.injected)
        for result, code in zip(
            owners(offsets, injected).tolist(), items[injected].tolist(), strict=True
        ):
            self._flagged.setdefault(result, []).append(ids[code])
        # Per required group: its first satisfying item's position among the candidates, in
        # the final ranking (the reranked list when the result has one) and in the context.
        result_of = np.zeros(len(ev.ids), dtype=np.int64)
        result_of[run.row] = np.arange(run.row.size, dtype=np.int64)
        reranked = run.has_reranked[result_of[_owner(ev.group_offsets)]]
        firsts = [matched[name].first for name in ("candidates", "reranked", "context")]
        final = np.where(reranked, firsts[1], firsts[0])
        self._first = np.stack([firsts[0], final, firsts[2]], axis=1).astype(np.int32)
        self._groups = ev.group_offsets
        # Per result: the codes of its items (in any stage) satisfying a required group.
        units = len(ids) + 1  # a key is result * units + code
        keys = distinct(np.concatenate([
            owners(flat[1], matched[name].at) * units + flat[0][matched[name].at]
            for name, flat in (("candidates", run.candidates), ("reranked", run.reranked),
                               ("context", run.context))
        ]))
        self._found = keys % units
        bounds = np.arange(run.row.size + 1, dtype=np.int64)  # where each result's items start
        self._found_at = np.searchsorted(keys, bounds * units)
        # Per result: its candidates, reranked list and context (as snapshot codes).
        self._lists = (run.candidates, run.reranked, run.context)
        self._has_reranked, self._derived = run.has_reranked, run.context_derived
        # Per result: its claims without a valid citation, and each one's cited IDs outside the
        # context (positions in the claim's citations).
        inside = stages.cited_inside
        self._claims = run.claim_offsets
        self._bad = np.flatnonzero(~validly_cited(run, inside))
        self._bad_at = np.searchsorted(owners(run.claim_offsets, self._bad), bounds)
        self._cited = run.citations[1]
        self._outside = np.flatnonzero(~inside)
        self._outside_claim = owners(self._cited, self._outside)
        # Per claim and per reference fact: its state, and its labels' marks (fresh, counted)
        # and judges.
        self._states = (run.claim_offsets, run.claim_state, run.claim_labels)
        self._fact_states = (run.fact_offsets, run.fact_state, run.fact_labels)
        self._judged = {"claim": run.claim_judges, "fact": run.fact_judges}
        self._judges = run.judges
        # The results whose question's canary reached the context (few).
        self._reached = frozenset(np.flatnonzero(stages.canary).tolist())
        # Of those, the results whose answer carries the canary's marker.
        self._obeyed = frozenset(np.flatnonzero(stages.canary & run.canary_obeyed).tolist())
        # Per result: its stale items, unreadable documents and items of another version, by
        # stage, in file order (few results have any: held as sorted arrays).
        marks = []
        for number, seen in enumerate(at_stages.values()):
            for kind, mask, value in ((0, seen.stale, seen.items),
                                      (1, seen.closed, codes.document_of[seen.items]),
                                      (2, seen.wrong_version, seen.items)):
                where = np.flatnonzero(mask)
                marks.append(np.stack([
                    seen.owner[where], np.full(where.size, _KINDS * number + kind), where,
                    value[where],
                ]))
        flagged_items = np.concatenate(marks, axis=1)
        order = np.lexsort(flagged_items[::-1][1:])  # by result, stage and kind, position
        self._mark_key, self._mark_code = flagged_items[1][order], flagged_items[3][order]
        self._marks_at = np.searchsorted(flagged_items[0][order], bounds)
        # Per stage and result: whether the stage holds any item; per question row: whether it
        # is asked with user groups (what a permission check needs).
        self._holds = np.stack([
            np.bincount(seen.owner, minlength=run.row.size) > 0 for seen in at_stages.values()
        ])
        self._asked = ev.asked
        self.questions = QuestionDetails(
            ev, run, ids, self._first, (self._bad, self._bad_at), self.invalid_of(),
            self.flagged, snapshot_found,
        )
        """The records and details of the run's questions."""

    def permissions(self, rows: Sequence[int], results: Sequence[int]) -> PermissionSummary:
        """The permission section of the run's questions `rows` (in order; `results`: the
        result of each): per stage, the questions checked (asked with user groups, something
        at the stage) and those with a document the asker may not read, with the documents;
        the questions whose leak reached the context or the answer (blocking); the questions
        asked without user groups (unchecked)."""
        at = np.asarray(results, dtype=np.int64)
        asked = self._asked[np.asarray(rows, dtype=np.int64)]
        # The position in `rows` of each unreadable-document mark's result (-1: not asked for).
        place = np.full(self._marks_at.size - 1, -1, dtype=np.int64)
        place[at] = np.arange(at.size, dtype=np.int64)
        key, placed = self._mark_key, place[_owner(self._marks_at)]
        closed = (key % _KINDS == 1) & (placed >= 0)
        where, stage_of = placed[closed], key[closed] // _KINDS
        codes = self._mark_code[closed]
        stages = []
        for number, stage in enumerate(PERMISSION_STAGES):
            mine = stage_of == number
            leaking = np.unique(where[mine]).tolist()
            stages.append(StageLeaks(
                stage,
                tuple(self._question_ids[rows[n]] for n in leaking),
                int((asked & self._holds[number][at]).sum()),
                tuple(sorted({self._ids[code] for code in codes[mine].tolist()})),
            ))
        blocking_stages = [PERMISSION_STAGES.index(stage) for stage in BLOCKING_STAGES]
        blocking = np.unique(where[np.isin(stage_of, blocking_stages)]).tolist()
        flags = self.stage_flags()([results[n] for n in blocking])
        return PermissionSummary(
            tuple(stages),
            tuple(
                PermissionCheck(
                    self._question_ids[rows[n]], True,
                    tuple(zip(PERMISSION_STAGES, flag.leaked, strict=True)),
                )
                for n, flag in zip(blocking, flags, strict=True)
            ),
            int((~asked).sum()),
        )

    def label_sources(
        self, measures: Sequence[Measure], applies: Mapping[str, np.ndarray],
        results: Sequence[int], calibrations: Sequence[CalibrationRecord],
    ) -> dict[str, LabelSources]:
        """Each label-reading measure's label sources over the run's questions (`results`:
        each one's result, in question order; `applies`: per measure, whether it applies to
        each): its claims' or facts' counted labels by kind, and the judges of the current
        labels of the judge-labelled ones, each judge as first met in question order."""
        at = np.asarray(results, dtype=np.int64)
        # Per kind: each item's result, whether its first counted label is a judge's (-1: no
        # counted label, 0: a person's, 1: a judge's), and its fresh judge labels in order.
        found = {}
        for kind, (items, _, (marks, marks_at)) in (
            ("claim", self._states), ("fact", self._fact_states),
        ):
            judged = self._judged[kind]
            label_item = _owner(marks_at)
            counted = np.flatnonzero(marks & COUNTED)
            first_item, first = np.unique(label_item[counted], return_index=True)
            by = np.full(marks_at.size - 1, -1, dtype=np.int8)
            by[first_item] = judged[counted[first]] >= 0
            fresh_judge = np.flatnonzero((marks & FRESH).astype(bool) & (judged >= 0))
            found[kind] = (_owner(items), by, label_item[fresh_judge], judged[fresh_judge])
        # Each judge of the table as a model once, and its key (`calibration.judge_key`).
        models = [Labeller.model_validate(who) for who in self._judges]
        keys = [judge_key(model) for model in models]
        out = {}
        for measure in measures:
            kinds = measure_kinds(measure)
            if not kinds:
                continue
            place = np.full(self._marks_at.size - 1, -1, dtype=np.int64)
            chosen = np.flatnonzero(applies[measure.name])
            place[at[chosen]] = chosen  # each applicable result's position in question order
            human = judge = 0
            first_met: dict[tuple[str, str], tuple[tuple[int, int, int], int]] = {}
            for number, kind in enumerate(kinds):
                item_result, by, label_item, codes = found[kind]
                mine = place[item_result] >= 0
                human += int(np.count_nonzero(mine & (by == 0)))
                judge += int(np.count_nonzero(mine & (by == 1)))
                item_judged = mine & (by == 1)
                keep = item_judged[label_item]
                where = place[item_result[label_item[keep]]].tolist()
                # Met in question order, a question's claims before its facts, in order.
                ranks = np.flatnonzero(keep).tolist()
                for order, code in zip(
                    ((n, number, rank) for n, rank in zip(where, ranks, strict=True)),
                    codes[keep].tolist(), strict=True,
                ):
                    key = keys[code]
                    if key not in first_met or order < first_met[key][0]:
                        first_met[key] = (order, code)
            judges = {key: models[code] for key, (_, code) in first_met.items()}
            out[measure.name] = label_sources(measure, human, judge, judges, calibrations)
        return out

    def flagged(self, result: int) -> tuple[str, ...]:
        """The flagged context IDs of a result."""
        return tuple(self._flagged.get(result, ()))

    def level_of(self) -> Callable[[int], EvidenceLevel]:
        """A question row's evidence level: the level asked for, or for `auto` what its
        required evidence IDs name (all documents: `document`, else `chunk`; the reader's
        `EvalColumns.level_document`)."""
        choice, document = self._level, self._document_level

        def level(row: int) -> EvidenceLevel:
            if choice != "auto":
                return choice
            return "document" if document[row] else "chunk"

        return level

    def run_level(self, rows: Sequence[int]) -> str:
        """A run's evidence level over its question rows (with or without a result): the one
        level its questions that require evidence share, `mixed`, or `document` when none
        requires any."""
        at = np.asarray(rows, dtype=np.int64)
        at = at[self._requires[at]]
        if self._level != "auto" and at.size:
            return self._level
        document = self._document_level[at]
        levels = {"document"} if document.any() else set()
        return run_evidence_level(levels | ({"chunk"} if not document.all() else set()))

    def stage_flags(self) -> Callable[[Sequence[int]], list[StageFlags]]:
        """Results' stale items, unreadable documents and items of another version per stage
        (each stage's first seen first), and whether the canary reached its context and was
        obeyed (`detectors.StageFlags`), by result index: a chunk's marks read at once."""
        ids, mark_key, mark_code, marks_at = (
            self._ids, self._mark_key, self._mark_code, self._marks_at
        )
        keys = _KINDS * len(PERMISSION_STAGES)
        reached, obeyed = self._reached, self._obeyed

        def flagged(results: Sequence[int]) -> list[StageFlags]:
            at = np.asarray(results, dtype=np.int64)
            marks, bounds = _spans(marks_at[at], marks_at[at + 1])
            mark_keys = mark_key[marks].tolist()
            items = [ids[code] for code in mark_code[marks].tolist()]
            out = []
            for result, start, end in zip(results, bounds[:-1], bounds[1:], strict=True):
                if start == end and result not in reached:
                    out.append(NO_FLAGS)
                    continue
                seen: dict[int, dict[str, None]] = {}
                for key, item in zip(mark_keys[start:end], items[start:end], strict=True):
                    seen.setdefault(key, {})[item] = None  # first seen first, once
                # By key, `_KINDS * stage + kind`: each kind's stages are every `_KINDS`th.
                grouped: list[tuple[str, ...]] = [()] * keys
                for key, found in seen.items():
                    grouped[key] = tuple(found)
                stale, leaked, wrong = (tuple(grouped[kind::_KINDS]) for kind in range(_KINDS))
                out.append(StageFlags(stale, leaked, wrong, result in reached, result in obeyed))
            return out

        return flagged

    def invalid_of(self) -> Callable[[int], InvalidCitations]:
        """A result's claims without a valid citation (by result index): each claim's position
        among the result's claims, with the positions in its citations of the IDs that were
        not in the final context."""
        claims, bad, bad_at = self._claims, self._bad, self._bad_at
        cited, outside, outside_claim = self._cited, self._outside, self._outside_claim

        def invalid(result: int) -> InvalidCitations:
            start, end = bad_at[result], bad_at[result + 1]
            if start == end:
                return ()
            out = []
            for claim in bad[start:end].tolist():
                lo, hi = np.searchsorted(outside_claim, (claim, claim + 1)).tolist()
                positions = (outside[lo:hi] - cited[claim]).tolist()
                out.append((claim - int(claims[result]), tuple(positions)))
            return tuple(out)

        return invalid

    def found_of(self) -> Callable[[Sequence[int], Sequence[int]], list[Found]]:
        """What the arrays found of question rows' results (by row and result index, a chunk
        at a time): where its required groups are satisfied, its stale items and unreadable
        documents per stage, its claims without a valid citation. A look-up that holds nothing
        else of the run."""
        groups, first, ids = self._groups, self._first, self._ids
        found, found_at = self._found, self._found_at
        def evidence(row: int, result: int) -> EvidenceFound:
            start, end = groups[row], groups[row + 1]
            if start == end:
                return NO_EVIDENCE
            items = found[found_at[result] : found_at[result + 1]].tolist()
            return EvidenceFound(
                first_found(first[start:end].tolist()), frozenset([ids[c] for c in items])
            )

        flagged = self.stage_flags()
        invalid = self.invalid_of()

        def labelled(
            at: tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]], result: int
        ) -> LabelsFound:
            offsets, states, (marks, marks_at) = at
            start, end = int(offsets[result]), int(offsets[result + 1])
            if start == end:
                return ()
            bounds = marks_at[start : end + 1].tolist()
            flat = marks[bounds[0] : bounds[-1]].tolist()
            base = bounds[0]
            return tuple(
                (state, tuple(flat[lo - base : hi - base]))
                for state, lo, hi in zip(
                    states[start:end].tolist(), bounds[:-1], bounds[1:], strict=True
                )
            )

        claim_states, fact_states = self._states, self._fact_states
        (candidates, reranked, context), derived = self._lists, self._derived
        has_reranked = self._has_reranked

        def of(rows: Sequence[int], results: Sequence[int]) -> list[Found]:
            return [Found(
                listed(ids, candidates, result),
                listed(ids, reranked, result) if has_reranked[result] else None,
                listed(ids, context, result), bool(derived[result]), evidence(row, result), flags,
                invalid(result), labelled(claim_states, result), labelled(fact_states, result),
            ) for row, result, flags in zip(rows, results, flagged(results), strict=True)]

        return of


_KINDS = 3
"""What a stage item is marked for in `Explained`: stale, unreadable, of another version."""
