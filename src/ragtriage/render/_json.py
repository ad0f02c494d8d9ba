"""The JSON report: a stable contract CI scripts parse. Sorted keys, no timestamps."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator, Sequence
from itertools import repeat
from typing import Any

import numpy as np

from .._collector import no_cycle_collection
from ..calibration import LabelSources
from ..columnar import row_columns, score_codes
from ..detectors import mask_text
from ..diagnosis import QuestionDiagnosis
from ..evaluation import Evaluation, RunEvaluation
from ..fileio import json_float, json_text, plain_json
from ..loading import report_head
from ..metrics import Aggregate, Measure, Score
from ._aggregate_json import aggregate_json
from ._boundaries import boundaries_json
from ._diagnosis import breakdown_json, question_diagnosis_json


def score_json(measure: Measure, score: Score | None) -> float | bool | None:
    """A per-question value: float for ratios, true/false for booleans, null when n/a."""
    if score is None:
        return None
    if measure.spec.kind == "boolean":
        return bool(score.numerator)
    return score.value


def _flagged(run: RunEvaluation, name: str, agg: Aggregate) -> dict[str, Any]:
    # A measure computed from the generator's own labels says so wherever it appears.
    out = aggregate_json(agg)
    if name in run.self_labelled:
        out["self_labelled"] = True
    return out


def label_sources_json(sources: LabelSources) -> dict[str, Any]:
    """Where one measure's counted labels came from, and the calibration behind the judge's."""
    return {
        "human": sources.human,
        "judge": sources.judge,
        "judges": [j.model_dump(mode="json", exclude_none=True) for j in sources.judges],
        "calibrated": sources.calibrated,
        "mark": sources.mark(),
        "calibration": (
            {
                "judges": [
                    {
                        "judge": m.judge.model_dump(mode="json", exclude_none=True),
                        "item_kind": m.kind,
                        "items": m.items,
                        "cohen_kappa": m.kappa,
                        "agreement": m.agreement,
                        "record": m.record,
                    }
                    for m in sources.calibration
                ]
            }
            if sources.calibrated
            else None
        ),
    }


def _provenance(run: RunEvaluation) -> dict[str, Any]:
    """The run's provenance, its free-text notes masked like every shown text."""
    data = run.provenance.model_dump(mode="json")
    if data.get("notes"):
        data["notes"] = mask_text(data["notes"])
    return data


def _verdicts(run: RunEvaluation) -> Sequence[QuestionDiagnosis]:
    """Each record's diagnosis, in record order (the diagnosis's own list when it is in that
    order, as the engine makes it)."""
    found = run.diagnosis.questions
    if len(found) == len(run.questions) and all(
        verdict.question_id == rec.question_id
        for verdict, rec in zip(found, run.questions, strict=True)
    ):
        return found
    by_id = {verdict.question_id: verdict for verdict in found}
    return [by_id[rec.question_id] for rec in run.questions]


def run_json(run: RunEvaluation) -> dict[str, Any]:
    """One run's section of the report (with its diagnosis breakdown), without its
    `questions` entries (`evaluation_text` writes them)."""
    found = run.diagnosis
    return {
        "name": run.name,
        "k": run.k,
        "k_used": run.k_used,
        "no_result": list(run.no_result),
        "evidence_level": run.evidence_level,
        "provenance": _provenance(run),
        "summary": {name: _flagged(run, name, agg) for name, agg in run.summary.items()},
        "slices": {
            key: {name: _flagged(run, name, agg) for name, agg in aggs.items()}
            for key, aggs in run.slices.items()
        },
        "label_sources": {
            name: label_sources_json(found) for name, found in run.label_sources.items()
        },
        "boundaries": boundaries_json(run.boundaries),
        "diagnosis_breakdown": breakdown_json(found.breakdown),
    }


def evaluation_json(evaluation: Evaluation, questions: bool = True) -> dict[str, Any]:
    """The whole report as plain data, read back from its text (`evaluation_text`, which
    alone makes the runs' `questions` entries); `questions` False: without them."""
    if questions:
        data: dict[str, Any] = json.loads(
            b"".join(
                piece.encode("utf-8", "surrogatepass") if isinstance(piece, str) else piece
                for piece in evaluation_text(evaluation)
            )
        )
        return data
    return {
        **report_head(evaluation.tool_version, evaluation.sources),
        "options": {
            "label_policy": evaluation.label_policy,
            "allow_unreviewed": evaluation.allow_unreviewed,
            "allow_missing": evaluation.allow_missing,
            "accept_self_labelling": evaluation.accept_self_labelling,
        },
        "metrics": [
            {
                "name": m.name,
                "layer": m.spec.layer,
                "direction": m.spec.direction,
                "averaging": m.spec.averaging,
                "kind": m.spec.kind,
            }
            for m in evaluation.measures
        ],
        "runs": [run_json(run) for run in evaluation.runs],
        "calibration_notes": list(evaluation.calibration_notes),
        "selection": evaluation.selection,
    }


_PIECE = 2_000
"""Question entries made, written and dropped at a time."""

_WRAP = ("[\n  [\n    [\n      ", "\n      ]\n    ]\n  ]\n]\n")
"""Around a piece written in three lists: where a run's `questions` list sits in the report
(runs list, run object), six spaces in, its entries eight."""

_HELD = "[\n        0"
"""The start of a later piece's list, which holds a 0 before the entries: the piece starts at
the `,` after it, which joins them to the entries before."""


def _piece(
    run: RunEvaluation, measures: tuple[Measure, ...], verdicts: Sequence[QuestionDiagnosis],
    start: int, stop: int,
) -> str | memoryview:
    """The entries `start:stop` (at least one) of a run's `questions` list as they sit in
    it, each indented eight spaces and joined by `,\n`: the first piece from the list's `[`,
    a later one from the `,\n` before its first entry, without the closing bracket (the
    writer indents them, in one call for the piece). As orjson wrote them (UTF-8 bytes, not
    copied nor decoded); as text where `json` wrote them (`plain_json`: it may hold a lone
    surrogate, which the file's writer refuses)."""
    with no_cycle_collection():  # a few acyclic dicts and lists per question
        entries: list[Any] = _entries(run, measures, verdicts, start, stop)
        written = plain_json([[[entries if start == 0 else [0, *entries]]]])
    head, tail = _WRAP
    text = written if isinstance(written, str) else memoryview(written)
    return text[len(head) + (0 if start == 0 else len(_HELD)) : len(text) - len(tail)]


def _entries(
    run: RunEvaluation, measures: tuple[Measure, ...], verdicts: Sequence[QuestionDiagnosis],
    start: int, stop: int,
) -> list[dict[str, Any]]:
    """The entries `start:stop` of a run's `questions` list: each record's id, labels, every
    measure's value and the IDs behind them, with its diagnosis; made a field at a time over
    the records, tuples as they are (written as lists by `plain_json`), each entry's
    keys inserted in sorted order: orjson sorts them again, a third faster when in order."""
    records = run.questions[start:stop]
    columns = row_columns([r.scores for r in records], [m.name for m in measures])
    fields = {
        "id": [r.question_id for r in records], "tags": [r.tags for r in records],
        "split": [r.split for r in records], "answerability": [r.answerability for r in records],
        "outcome": [r.outcome for r in records], "details": [r.details for r in records],
        **{m.name: _score_values(m, columns[m.name]) for m in measures},
        "diagnosis": list(map(question_diagnosis_json, verdicts[start:stop])),
    }
    keys = sorted(fields)
    rows = zip(*map(fields.__getitem__, keys), strict=True)
    return list(map(dict, map(zip, repeat(keys), rows)))  # no Python step per entry


def _score_values(measure: Measure, scores: Sequence[Score | None]) -> list[Any]:
    """`score_json` of each score, a float as `json_float` gives it, made once per distinct
    score present (`columnar.score_codes`)."""
    codes, distinct = score_codes(scores)
    written = np.empty(len(distinct), dtype=object)
    for n in np.flatnonzero(np.bincount(codes, minlength=len(distinct))).tolist():
        value = score_json(measure, distinct[n])
        written[n] = json_float(value) if type(value) is float else value
    values: list[Any] = written[codes].tolist()
    return values


def evaluation_text(evaluation: Evaluation) -> Iterator[str | memoryview]:
    """The report's JSON text, `dumps(evaluation_json(evaluation))` byte for byte, in pieces
    (text, or UTF-8 bytes where orjson wrote the question entries, `_piece`):
    `_PIECE` questions' entries at a time are made, written and dropped in turn, so the whole
    document is never held (a million questions' report is larger than the evaluation
    itself). They are made in this process: made by forked processes while this one wrote,
    they took half as much CPU again (copying the pages the workers touched, sending the
    text back) for no shorter wall time on two CPUs."""
    mark = f"questions-{secrets.token_hex(16)}"
    head = evaluation_json(evaluation, questions=False)
    for n, run in enumerate(head["runs"]):
        run["questions"] = f"{mark}-{n}"
    text = json_text(head)
    for n, run in enumerate(evaluation.runs):
        before, text = text.split(f'"{mark}-{n}"', 1)
        yield before
        size = len(run.questions)
        if not size:
            yield "[]"
            continue
        verdicts = _verdicts(run)
        for start in range(0, size, _PIECE):
            yield _piece(run, evaluation.measures, verdicts, start, start + _PIECE)
        yield "\n      ]"
    yield text


dumps = json_text
"""A report's JSON text: the one writer, `fileio.json_text` (sorted keys, UTF-8 kept
readable, two-space indent, trailing newline)."""
