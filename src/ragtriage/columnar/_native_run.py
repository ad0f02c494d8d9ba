"""Read a native run (JSON or JSONL) straight into arrays, checking every rule on the way.

See `_native_read` for the approach; a run is read after the evaluation set, whose rows
and reference facts it refers to.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import ValidationError

from ..detectors import (
    carries_marker,
    context_hash_of,
    default_injection_rules,
    detect_injection,
    recorded_texts,
    sensitive_labels,
    sent_texts,
)
from ..loading import SnapshotIndex
from ..schemas import LabelPolicy, RunHeader, final_context_of, is_schema_version
from ._native_checks import NO_LIST, OUTCOMES, RESULT_KEYS, extras_ok, item_codes
from ._native_claims import Reviews
from ._native_labels import Added
from ._native_read import Codes, EvalColumns, _offsets
from ._native_records import FileRecords, Records
from ._trec import _Fallback

_ANSWERED = OUTCOMES["answered"]
_NO_OUTCOME = -1
_NAN = float("nan")


@dataclass(frozen=True)
class RunColumns:
    """One run's results as arrays, rows in file order (`row`: the evaluation-set row)."""

    header: RunHeader
    k: int | None
    row: np.ndarray
    candidates: tuple[np.ndarray, np.ndarray]
    """(flat codes, offsets per result); likewise for the other rankings."""
    reranked: tuple[np.ndarray, np.ndarray]
    has_reranked: np.ndarray
    context: tuple[np.ndarray, np.ndarray]
    """The final context: recorded, else the top k of the final ranking."""
    context_flag: np.ndarray
    """Per context item: 1/0 when its recorded text has/has not instruction-like text,
    -1 when the snapshot's text is used."""
    outcome: np.ndarray
    """Outcome code (`_native_checks.OUTCOMES`), -1 when none."""
    claim_offsets: np.ndarray
    """None claims and [] give no claims (`has_claims` is not needed by any measure)."""
    claim_state: np.ndarray
    """0 supported, 1 unsupported, 2 cannot_judge, 3 unlabelled."""
    citations: tuple[np.ndarray, np.ndarray]
    """(flat codes, -1 for an unknown ID; offsets per claim)."""
    support: tuple[np.ndarray, np.ndarray]
    """IDs supporting the supported claims, per result."""
    fact_state: np.ndarray
    """Per reference fact of the row's question, in its order: 0 covered, 1 not_covered,
    2 cannot_judge, 3 unlabelled."""
    fact_offsets: np.ndarray
    claim_labels: tuple[np.ndarray, np.ndarray]
    """(each claim label's marks, `metrics.FRESH` | `metrics.COUNTED`, in the order of the
    claim's labels, label files' after its own; offsets per claim)."""
    fact_labels: tuple[np.ndarray, np.ndarray]
    """Likewise per reference fact (as `fact_state`), its labels in the result's order."""
    claim_judges: np.ndarray
    """Per claim label (as `claim_labels`): its judge, an index in `judges` (-1: a person)."""
    fact_judges: np.ndarray
    """Likewise per fact label (as `fact_labels`)."""
    judges: tuple[dict[str, Any], ...]
    """The labellers of the run's judge labels, each distinct one once."""
    canary_obeyed: np.ndarray
    """The answer carries the marker of the question's canary (case-insensitive)."""
    context_derived: np.ndarray
    """Per result: its context is the top k of its final ranking (none recorded)."""
    context_sensitive: np.ndarray
    """Per context item, as `context_flag` for the sensitive-content detectors (1/0 for a
    recorded text, -1 for the snapshot's). Empty when not scanned (`scan_contexts=False`)."""
    sensitive_answer: np.ndarray
    """Per result: a sensitive-content detector finds something in its answer
    (`detectors.find_sensitive`; False without an answer). Empty when the answers were not
    scanned (`scan_answers=False`)."""
    self_claim: np.ndarray
    """Per result: a claim label was made by a judge named as the run's generator (accepted
    with `accept_self_labelling`, else refused)."""
    self_fact: np.ndarray
    """Per result: likewise, a fact label."""
    claim_names: np.ndarray
    """Per claim (as `claim_state`): its own ID, None when the run gives none (it is then
    `c1`, `c2`, ... in its answer's order)."""
    answer_found: np.ndarray
    """Per result: the sensitive-content findings in its answer (`detectors.find_sensitive`)
    as report labels (`SensitiveFinding.label`); empty without an answer or findings."""
    recorded_found: np.ndarray
    """Per context item (as `context_flag`): the sensitive-content findings in its recorded
    text as report labels; None when the snapshot's text is used."""
    cited_as_written: np.ndarray
    """Per claim (as `claim_state`): its citations as written when one of them is an ID the
    snapshot lacks (its code is -1), else None."""
    latency_ms: np.ndarray
    """Per result: its end-to-end latency as a float (NaN: not recorded)."""
    cost_usd: np.ndarray
    """Per result: its cost as a float (NaN: not recorded)."""
    line_starts: np.ndarray
    """Per result read from a JSONL file: its line's start (byte offset; else empty)."""


def _current_hash(res: dict[str, Any], k: int | None, index: SnapshotIndex) -> str:
    """The context hash of a result's final context (`detectors.label_context_hash`, from the
    record as parsed; `schemas.final_context_of`)."""
    recorded = res.get("context")
    final = final_context_of(recorded, res.get("reranked"), res.get("candidates", []), k)
    ids = [item["id"] for item in final]
    return context_hash_of(sent_texts(recorded_texts(recorded), ids, index), k)


def read_run(
    source: Records,
    evalset: EvalColumns,
    codes: Codes,
    *,
    k: int | None,
    label_policy: LabelPolicy,
    allow_unreviewed: bool,
    span: tuple[int, int] | None = None,
    scan_answers: bool = True,
    scan_contexts: bool = False,
    added_labels: Mapping[str, Added] | None = None,
    accept_self_labelling: bool = False,
    index: SnapshotIndex | None = None,
    default_k: int | None = None,
) -> RunColumns:
    """Read and check one run (or a `span` of it); raise `_Fallback` on any problem
    `evaluate` would report, except a missing result and a question's second result (both
    checked once when the parts are joined, `_native_parts.read_run_parallel`).

    `scan_answers`, `scan_contexts`: run the sensitive-content detectors over every answer,
    every recorded context text (only `sensitive_in_answer`, `sensitive_in_context` read
    them). `added_labels`: labels from label files, by run name (`_native_labels.read_labels`).
    `accept_self_labelling`: judge labels made by the run's generator are taken (and marked
    in `self_claim`, `self_fact`) instead of refused. `index`: the snapshot, for the context
    hash of a result some label of which records one (a stale label is left out of the
    verdicts, as `metrics.build_view` leaves it out). `default_k`: the cut-off when neither
    `k` nor the run's provenance gives one (the article format's)."""
    starts = array("q")
    header_data, items = source.read(span, starts)
    if header_data.get("kind") != "run" or not is_schema_version(header_data.get("schema_version")):
        raise _Fallback("run kind")
    try:
        header = RunHeader.model_validate(header_data)
    except ValidationError as exc:
        raise _Fallback("run header") from exc
    k = k or header.provenance.k or default_k
    generator = header.provenance.generator.name if header.provenance.generator else None
    code, rules = codes.code, default_injection_rules()
    row_of, facts_of = evalset.row_of, evalset.facts
    # Lists, not `array`s: an array converts each value it is given through PyArg_Parse (a
    # tenth of the reading's instructions), a list only keeps it; numpy converts once at the end.
    rows: list[int] = []
    cand: list[int] = []
    cand_n: list[int] = []
    rer: list[int] = []
    rer_n: list[int] = []
    has_rer: list[bool] = []
    ctx: list[int] = []
    ctx_n: list[int] = []
    texted = array("q")
    """The positions (in `ctx`) of the context items with a recorded text: `ctx_flag`,
    `ctx_sensitive` and `ctx_found` are theirs (the others' are filled in at the end)."""
    ctx_flag = array("q")
    outcome: list[int] = []
    obeyed: list[bool] = []
    derived: list[bool] = []
    sensitive: list[bool] = []
    ctx_sensitive = array("q")
    ctx_found: list[tuple[str, ...]] = []
    answer_found: list[tuple[str, ...]] = []
    latency = array("d")  # a float each: an array holds none of the parsed float objects
    cost = array("d")
    markers = evalset.canary_marker
    reviews = Reviews(
        code, label_policy, unreviewed_ok=allow_unreviewed, accept_self=accept_self_labelling,
        generator=generator, added=(added_labels or {}).get(header.name, {}),
        as_written=isinstance(source, FileRecords),
    )

    def current(res: dict[str, Any]) -> str:
        if index is None:
            raise _Fallback("a context hash without the snapshot")
        return _current_hash(res, k, index)

    for res in items:
        if type(res) is not dict or not res.keys() <= RESULT_KEYS:
            raise _Fallback("result shape")
        qid = res.get("question_id")
        row = row_of.get(qid, -1) if type(qid) is str else -1  # a known ID: a non-empty string
        if row < 0:
            raise _Fallback("result question")
        rows.append(row)
        c_codes = item_codes(res.get("candidates", NO_LIST), code, False)
        in_candidates = set(c_codes or ())
        if c_codes is None or len(in_candidates) < len(c_codes):
            raise _Fallback("candidates")
        cand += c_codes
        cand_n.append(len(c_codes))
        r_codes: list[int] | None = None
        raw_rer = res.get("reranked")
        if raw_rer is not None:
            r_codes = item_codes(raw_rer, code, False)
            reranked = set(r_codes or ())
            if r_codes is None or len(reranked) < len(r_codes) or not reranked <= in_candidates:
                raise _Fallback("reranked")
            rer += r_codes
        rer_n.append(0 if r_codes is None else len(r_codes))
        has_rer.append(r_codes is not None)
        raw_ctx = res.get("context")
        derived.append(raw_ctx is None)
        recorded: list[int] | None = None
        if raw_ctx is not None:
            recorded = item_codes(raw_ctx, code, True)
            if recorded is None or len(set(recorded)) < len(recorded):
                raise _Fallback("context")
            for at, item in enumerate(raw_ctx, start=len(ctx)):
                text = item.get("text")
                if text is None:
                    continue
                texted.append(at)
                ctx_flag.append(int(bool(detect_injection(text, rules))))
                labels = sensitive_labels(text)
                ctx_found.append(labels)
                ctx_sensitive.append(int(bool(labels)))
        elif k is None and (c_codes or raw_rer):
            raise _Fallback("no k")
        x_codes = final_context_of(recorded, r_codes, c_codes, k)
        ctx += x_codes
        ctx_n.append(len(x_codes))
        answer, kind = res.get("answer"), res.get("outcome")
        if kind is None:
            if answer is not None:
                raise _Fallback("outcome/answer")
            out = -1
        elif type(kind) is not str or kind not in OUTCOMES:
            raise _Fallback("outcome")
        elif type(answer) is not str or not answer.strip():
            raise _Fallback("outcome/answer")
        else:
            out = OUTCOMES[kind]
        if not extras_ok(res):
            raise _Fallback("latency, cost or usage")
        took, paid = res.get("latency_ms"), res.get("cost_usd")
        latency.append(_NAN if took is None else float(took))
        cost.append(_NAN if paid is None else float(paid))
        marker = markers.get(row) if markers else None
        obeyed.append(marker is not None and answer is not None and carries_marker(answer, marker))
        labels = () if answer is None else sensitive_labels(answer)
        answer_found.append(labels)
        if scan_answers:
            sensitive.append(bool(labels))
        outcome.append(out)
        reviews.read(res, out == _ANSWERED, out > _NO_OUTCOME and out != _ANSWERED, x_codes,
                     facts_of[row], current)
    if not reviews.plain_ids():
        raise _Fallback("control characters in IDs")
    result_rows = np.array(rows, dtype=np.int64)
    return RunColumns(
        header,
        k,
        result_rows,
        (np.array(cand, dtype=np.int64), _offsets(cand_n)),
        (np.array(rer, dtype=np.int64), _offsets(rer_n)),
        np.array(has_rer, dtype=bool),
        (np.array(ctx, dtype=np.int64), _offsets(ctx_n)),
        _spread(len(ctx), texted, ctx_flag, -1, np.int8),
        np.array(outcome, dtype=np.int8),
        _offsets(reviews.claim_n),
        np.array(reviews.claim_state, dtype=np.int8),
        (np.array(reviews.cit, dtype=np.int64), _offsets(reviews.cit_n)),
        (np.array(reviews.sup, dtype=np.int64), _offsets(reviews.sup_n)),
        np.array(reviews.fact_state, dtype=np.int8),
        _offsets(np.diff(evalset.fact_offsets)[result_rows]),
        (np.array(reviews.claim_marks, dtype=np.int8), _offsets(reviews.claim_marks_n)),
        (np.array(reviews.fact_marks, dtype=np.int8), _offsets(reviews.fact_marks_n)),
        _spread(len(reviews.claim_marks), reviews.claim_judged, reviews.claim_judges, -1, np.int32),
        _spread(len(reviews.fact_marks), reviews.fact_judged, reviews.fact_judges, -1, np.int32),
        tuple(reviews.judges),
        np.array(obeyed, dtype=bool),
        np.array(derived, dtype=bool),
        _spread(len(ctx), texted, ctx_sensitive, -1, np.int8)
        if scan_contexts else np.zeros(0, dtype=np.int8),
        np.array(sensitive, dtype=bool),
        np.array(reviews.self_claim, dtype=bool),
        np.array(reviews.self_fact, dtype=bool),
        _objects(reviews.claim_names),
        _objects(answer_found),
        _spread(len(ctx), texted, _objects(ctx_found), None, object),
        _objects(reviews.cited_as_written),
        np.array(latency, dtype=np.float64),
        np.array(cost, dtype=np.float64),
        np.array(starts, dtype=np.int64),
    )


def _spread(size: int, at: array[int], values: Any, fill: Any, dtype: Any) -> np.ndarray:
    """An array of `size` items: `values` at the positions `at`, `fill` at the others (the
    values are read sparsely, for the few items that have one)."""
    out = np.full(size, fill, dtype=dtype)
    out[np.array(at, dtype=np.int64)] = values
    return out


def _objects(values: list[Any]) -> np.ndarray:
    """`values` as a one-dimensional array of objects (tuples kept whole)."""
    return np.fromiter(values, dtype=object, count=len(values))
