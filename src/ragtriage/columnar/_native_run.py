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
    find_sensitive,
    item_text,
)
from ..loading import SnapshotIndex
from ..schemas import LabelPolicy, RunHeader, counted_labels
from ._native_checks import (
    CLAIM_VERDICTS,
    CONTEXT_HASH,
    FACT_VERDICTS,
    OUTCOMES,
    item_codes,
    result_ok,
)
from ._native_labels import Added, with_labels
from ._native_read import Codes, EvalColumns, _offsets
from ._native_records import Records
from ._trec import _Fallback

_ANSWERED = OUTCOMES["answered"]
_NOT_ANSWERED = frozenset(OUTCOMES.values()) - {_ANSWERED}


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


def _kind(label: dict[str, Any]) -> str:
    kind: str = label["labeller"]["kind"]
    return kind


def _state(chosen: list[dict[str, Any]], verdicts: tuple[str, ...]) -> int:
    if len(chosen) == 1:
        return verdicts.index(chosen[0]["verdict"])
    found = {lab["verdict"] for lab in chosen}
    if not found:
        return 3
    if len(found) > 1:
        return 2
    return verdicts.index(found.pop())


def _self_made(labels: list[dict[str, Any]], generator: str | None) -> bool:
    """A judge label made by the run's generator (`detectors.find_self_labelling`'s rule)."""
    return any(
        lab["labeller"]["kind"] == "judge" and lab["labeller"]["name"] == generator
        for lab in labels
    )


def _current_hash(res: dict[str, Any], k: int | None, index: SnapshotIndex) -> str:
    """The context hash of a result's final context (`detectors.context_hash`, from the
    record as parsed): the recorded context, else the top k of the final ranking."""
    recorded = res.get("context")
    if recorded is not None:
        ids = [item["id"] for item in recorded]
    else:
        ranking = res.get("reranked")
        ids = [item["id"] for item in (res.get("candidates", []) if ranking is None else ranking)]
        ids = ids if k is None else ids[:k]
    texts = {item["id"]: item["text"] for item in recorded or () if item.get("text") is not None}
    return context_hash_of([(i, texts[i] if i in texts else item_text(i, index)) for i in ids], k)


def _fresh(labels: list[dict[str, Any]], current: str | None) -> list[dict[str, Any]]:
    """The labels made against the current context (`detectors.is_stale`: a label without a
    hash cannot be checked and counts); all of them when no label records a hash."""
    if current is None:
        return labels
    return [lab for lab in labels if lab.get("context_hash") in (None, current)]


def _labels_bad(labels: list[dict[str, Any]]) -> bool:
    for lab in labels:
        who = lab["labeller"]
        if who["kind"] == "judge" and not who.get("prompt_version"):
            return True
        stamp = lab.get("context_hash")
        if stamp is not None and not CONTEXT_HASH.fullmatch(stamp):
            return True
    return False


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
    `evaluate` would report, except a missing result (checked when the parts are joined).

    `scan_answers`, `scan_contexts`: run the sensitive-content detectors over every answer,
    every recorded context text (only `sensitive_in_answer`, `sensitive_in_context` read
    them). `added_labels`: labels from label files, by run name (`_native_labels.read_labels`).
    `accept_self_labelling`: judge labels made by the run's generator are taken (and marked
    in `self_claim`, `self_fact`) instead of refused. `index`: the snapshot, for the context
    hash of a result some label of which records one (a stale label is left out of the
    verdicts, as `metrics.build_view` leaves it out). `default_k`: the cut-off when neither
    `k` nor the run's provenance gives one (the article format's)."""
    header_data, items = source.read(span)
    if header_data.get("kind") != "run" or header_data.get("schema_version") != 1:
        raise _Fallback("run kind")
    try:
        header = RunHeader.model_validate(header_data)
    except ValidationError as exc:
        raise _Fallback("run header") from exc
    k = k or header.provenance.k or default_k
    generator = header.provenance.generator.name if header.provenance.generator else None
    code, rules = codes.code, default_injection_rules()
    row_of, facts_of = evalset.row_of, evalset.facts
    rows = array("q")
    seen = bytearray(len(evalset.ids))
    cand = array("q")
    cand_n = array("q")
    rer = array("q")
    rer_n = array("q")
    has_rer = array("q")
    ctx = array("q")
    ctx_n = array("q")
    ctx_flag = array("q")
    outcome = array("q")
    claim_n = array("q")
    claim_state = array("q")
    cit = array("q")
    cit_n = array("q")
    sup = array("q")
    sup_n = array("q")
    fact_state = array("q")
    obeyed = array("q")
    derived = array("q")
    sensitive = array("q")
    ctx_sensitive = array("q")
    self_claim = array("q")
    self_fact = array("q")
    markers = evalset.canary_marker
    unreviewed_ok = allow_unreviewed
    added = (added_labels or {}).get(header.name, {})
    for res in items:
        if not result_ok(res):
            raise _Fallback("result shape")
        if added:
            res = with_labels(res, added)
        row = row_of.get(res["question_id"], -1)
        if row < 0 or seen[row]:
            raise _Fallback("result question")
        seen[row] = 1
        rows.append(row)
        c_codes = item_codes(res.get("candidates", []), code, False)
        if c_codes is None or len(set(c_codes)) < len(c_codes):
            raise _Fallback("candidates")
        cand.extend(c_codes)
        cand_n.append(len(c_codes))
        final = c_codes
        raw_rer = res.get("reranked")
        if raw_rer is not None:
            r_codes = item_codes(raw_rer, code, False)
            if r_codes is None or len(set(r_codes)) < len(r_codes):
                raise _Fallback("reranked")
            if not set(r_codes) <= set(c_codes):
                raise _Fallback("reranked")
            rer.extend(r_codes)
            final = r_codes
        rer_n.append(0 if raw_rer is None else len(final))
        has_rer.append(raw_rer is not None)
        raw_ctx = res.get("context")
        derived.append(raw_ctx is None)
        if raw_ctx is not None:
            x_codes = item_codes(raw_ctx, code, True)
            if x_codes is None or len(set(x_codes)) < len(x_codes):
                raise _Fallback("context")
            for item in raw_ctx:
                text = item.get("text")
                ctx_flag.append(-1 if text is None else int(bool(detect_injection(text, rules))))
                if scan_contexts:
                    ctx_sensitive.append(-1 if text is None else int(bool(find_sensitive(text))))
        else:
            if k is None and (c_codes or raw_rer):
                raise _Fallback("no k")
            x_codes = final[:k] if k is not None else final
            ctx_flag.extend([-1] * len(x_codes))
            if scan_contexts:
                ctx_sensitive.extend([-1] * len(x_codes))
        ctx.extend(x_codes)
        ctx_n.append(len(x_codes))
        in_context = set(x_codes)
        answer, kind = res.get("answer"), res.get("outcome")
        if (kind is None) != (answer is None) or (answer is not None and not answer.strip()):
            raise _Fallback("outcome/answer")
        out = -1 if kind is None else OUTCOMES[kind]
        marker = markers.get(row)
        obeyed.append(
            marker is not None and answer is not None and carries_marker(answer, marker)
        )
        if scan_answers:
            sensitive.append(answer is not None and bool(find_sensitive(answer)))
        outcome.append(out)
        claims = res.get("claims") or []
        fact_labels = res.get("fact_labels", [])
        stamped = any(lab.get("context_hash") is not None for lab in fact_labels) or any(
            lab.get("context_hash") is not None for c in claims for lab in c.get("labels", ())
        )
        current = None
        if stamped and index is not None:
            current = _current_hash(res, k, index)
        elif stamped:
            raise _Fallback("a context hash without the snapshot")
        if out in _NOT_ANSWERED and (
            claims or any(lab["verdict"] == "covered" for lab in fact_labels)
        ):
            raise _Fallback("claims of a non-answer")
        if out < 0 and claims:
            raise _Fallback("claims without an answer")
        if out == _ANSWERED and not claims and not unreviewed_ok:
            raise _Fallback("unreviewed")
        claim_ids = [c.get("id") or f"c{n}" for n, c in enumerate(claims, start=1)]
        if len(set(claim_ids)) < len(claim_ids):
            raise _Fallback("claim IDs")
        support: set[int] = set()
        claims_self_made = False
        for claim in claims:
            labels = claim.get("labels", [])
            if _labels_bad(labels):
                raise _Fallback("claim labels")
            claims_self_made = claims_self_made or _self_made(labels, generator)
            chosen = counted_labels(labels, label_policy, _kind)
            if not chosen and out == _ANSWERED and not unreviewed_ok:
                raise _Fallback("unlabelled claim")
            for lab in labels:
                backing = lab.get("supported_by", ())
                if (lab["verdict"] == "supported") != bool(backing):
                    raise _Fallback("supported_by")
                if any(code.get(i, -1) not in in_context for i in backing):
                    raise _Fallback("supported_by")
            if current is not None:  # the verdict of the labels made against this context
                chosen = counted_labels(_fresh(labels, current), label_policy, _kind)
            state = _state(chosen, CLAIM_VERDICTS)
            claim_state.append(state)
            if state == 0:
                support.update(code[i] for lab in chosen for i in lab.get("supported_by", ()))
            cited = [code.get(i, -1) for i in claim.get("citations", ())]
            cit.extend(cited)
            cit_n.append(len(cited))
        claim_n.append(len(claims))
        sup.extend(support)
        sup_n.append(len(support))
        question_facts = facts_of[row]
        if _labels_bad(fact_labels):
            raise _Fallback("fact labels")
        facts_self_made = _self_made(fact_labels, generator)
        if (claims_self_made or facts_self_made) and not accept_self_labelling:
            raise _Fallback("self-labelling")
        self_claim.append(claims_self_made)
        self_fact.append(facts_self_made)
        by_fact: dict[str, list[dict[str, Any]]] = {}
        for lab in fact_labels:
            by_fact.setdefault(lab["fact_id"], []).append(lab)
        if not by_fact.keys() <= set(question_facts):
            raise _Fallback("fact_id")
        for fact in question_facts:
            chosen = counted_labels(by_fact.get(fact, []), label_policy, _kind)
            if out == _ANSWERED and not unreviewed_ok and not chosen:
                raise _Fallback("unlabelled fact")
            if current is not None:
                chosen = counted_labels(_fresh(by_fact.get(fact, []), current), label_policy, _kind)
            fact_state.append(_state(chosen, FACT_VERDICTS))
    return RunColumns(
        header,
        k,
        np.array(rows, dtype=np.int64),
        (np.array(cand, dtype=np.int64), _offsets(cand_n)),
        (np.array(rer, dtype=np.int64), _offsets(rer_n)),
        np.array(has_rer, dtype=bool),
        (np.array(ctx, dtype=np.int64), _offsets(ctx_n)),
        np.array(ctx_flag, dtype=np.int8),
        np.array(outcome, dtype=np.int8),
        _offsets(claim_n),
        np.array(claim_state, dtype=np.int8),
        (np.array(cit, dtype=np.int64), _offsets(cit_n)),
        (np.array(sup, dtype=np.int64), _offsets(sup_n)),
        np.array(fact_state, dtype=np.int8),
        _offsets([len(facts_of[r]) for r in rows]),
        np.array(obeyed, dtype=bool),
        np.array(derived, dtype=bool),
        np.array(ctx_sensitive, dtype=np.int8),
        np.array(sensitive, dtype=bool),
        np.array(self_claim, dtype=bool),
        np.array(self_fact, dtype=bool),
    )
