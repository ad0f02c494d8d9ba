"""Read a native evaluation set and native runs (JSON or JSONL) straight into arrays.

Each record is parsed as plain JSON (orjson when installed) and checked by
`_native_checks`; IDs become integer codes of the snapshot (`Codes`). No pydantic object is
built per question. Any problem (a shape the schema refuses, or one of the semantic rules
of `validation.check_dataset`) raises `_Fallback`: the caller then runs the reference loader,
which reports every problem with its usual message.

Rows that need rules the arrays do not model (permissions, canaries, version questions,
labels with a context hash) are marked `exotic`; the caller scores them with the reference
functions, one question at a time, after parsing them again from the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
from pydantic import ValidationError

from ..boundaries.injection import default_injection_rules, detect_injection
from ..schemas import EvalSet, LabelPolicy, Question, RunHeader
from . import _native_checks as chk
from ._trec import _Fallback

VERSION_TAG = "version-conflict"


@dataclass(frozen=True)
class Codes:
    """Snapshot IDs as integers: documents first, then chunks."""

    code: dict[str, int]
    """ID -> code."""
    n_documents: int
    """Codes below this are documents."""
    document_of: np.ndarray
    """Code -> its document's code."""
    stale: np.ndarray
    """Code -> the document is superseded or withdrawn."""


def records(
    path: Path, kind: str, list_key: str, span: tuple[int, int] | None = None
) -> tuple[dict[str, Any], Iterator[Any]]:
    """A file's header (without the record list) and its records as parsed JSON.

    `span` (JSONL only): read only the records whose lines start in [start, end) bytes.
    """
    if path.suffix == ".jsonl":
        handle = path.open("rb")
        first = b""
        while first is not None and not first.strip():
            first = handle.readline() or None
        header = chk.loads(first) if first is not None else None
        if type(header) is not dict:
            handle.close()
            raise _Fallback("header")
        if span is not None:
            handle.seek(span[0])
        lines = _lines(handle, None if span is None else span[1])
        return header, _closing(handle, (chk.loads(line) for line in lines if line.strip()))
    data = chk.loads(path.read_bytes())
    if type(data) is not dict or type(data.get(list_key)) is not list:
        raise _Fallback("document")
    header = {key: value for key, value in data.items() if key != list_key}
    return header, iter(data[list_key])


def _lines(handle: BinaryIO, end: int | None) -> Iterator[bytes]:
    if end is None:
        yield from handle
        return
    position = handle.tell()
    for line in handle:
        if position >= end:
            return
        position += len(line)
        yield line


def spans(path: Path, parts: int) -> list[tuple[int, int]] | None:
    """Cut a JSONL file's records into about equal byte ranges on line starts (None: keep
    the file whole: a JSON document, or too small to be worth splitting)."""
    size = path.stat().st_size
    if path.suffix != ".jsonl" or parts < 2 or size < _SPLIT_BYTES:
        return None
    with path.open("rb") as handle:
        first = handle.readline()
        while first and not first.strip():
            first = handle.readline()
        cuts = [handle.tell()]
        for n in range(1, parts):
            handle.seek(max(cuts[-1], size * n // parts))
            handle.readline()
            cuts.append(max(cuts[-1], handle.tell()))
    cuts.append(size)
    return list(pairwise(cuts))


_SPLIT_BYTES = 8 << 20


def _closing(handle: Any, items: Iterator[Any]) -> Iterator[Any]:
    with handle:
        yield from items


def record_at(path: Path, kind: str, list_key: str, wanted: set[int]) -> dict[int, Any]:
    """The records at these positions (0-based, header excluded), parsed again."""
    _, items = records(path, kind, list_key)
    return {n: item for n, item in enumerate(items) if n in wanted}


@dataclass(frozen=True)
class EvalColumns:
    """An evaluation set as arrays, rows in file order."""

    ids: list[str]
    row_of: dict[str, int]
    answerability: np.ndarray
    tags: list[tuple[str, ...]]
    split: list[str]
    group_offsets: np.ndarray
    """Row r's groups are group_offsets[r]:group_offsets[r + 1]."""
    group_grade: np.ndarray
    alt_group: np.ndarray
    """Per alternative ID of every group: its group (global index)."""
    alt_code: np.ndarray
    facts: list[tuple[str, ...]]
    fact_offsets: np.ndarray
    level_document: np.ndarray
    """Auto evidence level per row: every required ID is a document."""
    exotic: np.ndarray


def read_evalset(path: Path, codes: Codes, span: tuple[int, int] | None = None) -> EvalColumns:
    """Read and check an evaluation set (or a `span` of it); raise `_Fallback` on any problem."""
    header, items = records(path, "evalset", "questions", span)
    if header.get("kind") != "evalset" or header.get("schema_version") != 1:
        raise _Fallback("evalset kind")
    try:
        EvalSet.model_validate({**header, "questions": []})
    except ValidationError as exc:
        raise _Fallback("evalset header") from exc
    code = codes.code
    ids: list[str] = []
    row_of: dict[str, int] = {}
    answerability: list[int] = []
    tags: list[tuple[str, ...]] = []
    split: list[str] = []
    n_groups: list[int] = []
    grades: list[int] = []
    alt_group: list[int] = []
    alt_code: list[int] = []
    facts: list[tuple[str, ...]] = []
    exotic: list[bool] = []
    level: list[bool] = []
    n_docs = codes.n_documents
    for q in items:
        if not chk.question_ok(q):
            raise _Fallback("question shape")
        qid = q["id"]
        if row_of.setdefault(qid, len(ids)) != len(ids):
            raise _Fallback("duplicate question")
        ids.append(qid)
        kind = chk.ANSWERABILITY[q["answerability"]]
        answerability.append(kind)
        groups = q.get("required_evidence", [])
        fact_list = q.get("reference_facts", [])
        if (kind == 1 and (groups or fact_list)) or (kind == 0 and not groups):
            raise _Fallback("answerability")
        all_docs = True
        for group in groups:
            alternatives = group["any_of"]
            found = [code.get(i, -1) for i in alternatives]
            if len(set(alternatives)) < len(alternatives) or min(found) < 0:
                raise _Fallback("evidence IDs")
            all_docs = all_docs and max(found) < n_docs
            alt_code.extend(found)
            alt_group.extend([len(grades)] * len(found))
            grades.append(group.get("grade", 1))
        n_groups.append(len(groups))
        fact_ids = tuple(f["id"] for f in fact_list)
        if len(set(fact_ids)) < len(fact_ids):
            raise _Fallback("duplicate facts")
        for fact in fact_list:
            if any(i not in code for i in fact.get("evidence", ())):
                raise _Fallback("fact evidence")
        facts.append(fact_ids)
        tag_list = tuple(q.get("tags", ()))
        tags.append(tag_list)
        split.append(q.get("split", "dev"))
        level.append(all_docs)
        odd = q.get("applies_to") is not None or q.get("user_groups") is not None
        odd = odd or q.get("canary") is not None
        if odd:
            try:
                Question.model_validate(q)
            except ValidationError as exc:
                raise _Fallback("question fields") from exc
        exotic.append(odd or VERSION_TAG in tag_list)
    return EvalColumns(
        ids,
        row_of,
        np.array(answerability, dtype=np.int8),
        tags,
        split,
        _offsets(n_groups),
        np.array(grades, dtype=np.int64),
        np.array(alt_group, dtype=np.int64),
        np.array(alt_code, dtype=np.int64),
        facts,
        _offsets([len(f) for f in facts]),
        np.array(level, dtype=bool),
        np.array(exotic, dtype=bool),
    )


def _offsets(counts: list[int]) -> np.ndarray:
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(np.array(counts, dtype=np.int64), out=out[1:])
    return out


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
    exotic: np.ndarray


def _pick(labels: list[dict[str, Any]], policy: LabelPolicy) -> list[dict[str, Any]]:
    if len(labels) == 1:  # the common case, without building two lists
        kind = labels[0]["labeller"]["kind"]
        return labels if policy == "human-first" or kind == policy else []
    humans = [lab for lab in labels if lab["labeller"]["kind"] == "human"]
    if policy == "human":
        return humans
    judges = [lab for lab in labels if lab["labeller"]["kind"] == "judge"]
    if policy == "judge":
        return judges
    return humans or judges


def _state(chosen: list[dict[str, Any]], verdicts: tuple[str, ...]) -> int:
    if len(chosen) == 1:
        return verdicts.index(chosen[0]["verdict"])
    found = {lab["verdict"] for lab in chosen}
    if not found:
        return 3
    if len(found) > 1:
        return 2
    return verdicts.index(found.pop())


def _labels_bad(labels: list[dict[str, Any]], policy: LabelPolicy, generator: str | None) -> bool:
    for lab in labels:
        who = lab["labeller"]
        if who["kind"] == "judge" and (not who.get("prompt_version") or who["name"] == generator):
            return True
        stamp = lab.get("context_hash")
        if stamp is not None and not chk.CONTEXT_HASH.fullmatch(stamp):
            return True
    return False


def read_run(
    path: Path,
    evalset: EvalColumns,
    codes: Codes,
    *,
    k: int | None,
    label_policy: LabelPolicy,
    allow_unreviewed: bool,
    span: tuple[int, int] | None = None,
) -> RunColumns:
    """Read and check one run (or a `span` of it); raise `_Fallback` on any problem
    `evaluate` would report, except a missing result (checked when the parts are joined)."""
    header_data, items = records(path, "run", "results", span)
    if header_data.get("kind") != "run" or header_data.get("schema_version") != 1:
        raise _Fallback("run kind")
    try:
        header = RunHeader.model_validate(header_data)
    except ValidationError as exc:
        raise _Fallback("run header") from exc
    k = k or header.provenance.k
    generator = header.provenance.generator.name if header.provenance.generator else None
    code, rules = codes.code, default_injection_rules()
    row_of, facts_of = evalset.row_of, evalset.facts
    rows: list[int] = []
    seen = bytearray(len(evalset.ids))
    cand: list[int] = []
    cand_n: list[int] = []
    rer: list[int] = []
    rer_n: list[int] = []
    has_rer: list[bool] = []
    ctx: list[int] = []
    ctx_n: list[int] = []
    ctx_flag: list[int] = []
    outcome: list[int] = []
    claim_n: list[int] = []
    claim_state: list[int] = []
    cit: list[int] = []
    cit_n: list[int] = []
    sup: list[int] = []
    sup_n: list[int] = []
    fact_state: list[int] = []
    exotic: list[bool] = []
    unreviewed_ok = allow_unreviewed
    for res in items:
        if not chk.result_ok(res):
            raise _Fallback("result shape")
        row = row_of.get(res["question_id"], -1)
        if row < 0 or seen[row]:
            raise _Fallback("result question")
        seen[row] = 1
        rows.append(row)
        c_codes = chk.item_codes(res.get("candidates", []), code, False)
        if c_codes is None or len(set(c_codes)) < len(c_codes):
            raise _Fallback("candidates")
        cand.extend(c_codes)
        cand_n.append(len(c_codes))
        final = c_codes
        raw_rer = res.get("reranked")
        if raw_rer is not None:
            r_codes = chk.item_codes(raw_rer, code, False)
            if r_codes is None or len(set(r_codes)) < len(r_codes):
                raise _Fallback("reranked")
            if not set(r_codes) <= set(c_codes):
                raise _Fallback("reranked")
            rer.extend(r_codes)
            final = r_codes
        rer_n.append(0 if raw_rer is None else len(final))
        has_rer.append(raw_rer is not None)
        raw_ctx = res.get("context")
        if raw_ctx is not None:
            x_codes = chk.item_codes(raw_ctx, code, True)
            if x_codes is None or len(set(x_codes)) < len(x_codes):
                raise _Fallback("context")
            for item in raw_ctx:
                text = item.get("text")
                ctx_flag.append(-1 if text is None else int(bool(detect_injection(text, rules))))
        else:
            if k is None and (c_codes or raw_rer):
                raise _Fallback("no k")
            x_codes = final[:k] if k is not None else final
            ctx_flag.extend([-1] * len(x_codes))
        ctx.extend(x_codes)
        ctx_n.append(len(x_codes))
        in_context = set(x_codes)
        answer, kind = res.get("answer"), res.get("outcome")
        if (kind is None) != (answer is None) or (answer is not None and not answer.strip()):
            raise _Fallback("outcome/answer")
        out = -1 if kind is None else chk.OUTCOMES[kind]
        outcome.append(out)
        claims = res.get("claims") or []
        fact_labels = res.get("fact_labels", [])
        stamped = any(lab.get("context_hash") is not None for lab in fact_labels)
        if out > 0 and (claims or any(lab["verdict"] == "covered" for lab in fact_labels)):
            raise _Fallback("claims of a non-answer")
        if out == 0 and not claims and not unreviewed_ok:
            raise _Fallback("unreviewed")
        claim_ids = [c.get("id") or f"c{n}" for n, c in enumerate(claims, start=1)]
        if len(set(claim_ids)) < len(claim_ids):
            raise _Fallback("claim IDs")
        support: set[int] = set()
        for claim in claims:
            labels = claim.get("labels", [])
            if _labels_bad(labels, label_policy, generator):
                raise _Fallback("claim labels")
            counted = labels if label_policy == "human-first" else _pick(labels, label_policy)
            if not counted and out == 0 and not unreviewed_ok:
                raise _Fallback("unlabelled claim")
            for lab in labels:
                backing = lab.get("supported_by", ())
                if (lab["verdict"] == "supported") != bool(backing):
                    raise _Fallback("supported_by")
                if any(code.get(i, -1) not in in_context for i in backing):
                    raise _Fallback("supported_by")
                stamped = stamped or lab.get("context_hash") is not None
            chosen = _pick(labels, label_policy)
            state = _state(chosen, chk.CLAIM_VERDICTS)
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
        if _labels_bad(fact_labels, label_policy, generator):
            raise _Fallback("fact labels")
        by_fact: dict[str, list[dict[str, Any]]] = {}
        for lab in fact_labels:
            by_fact.setdefault(lab["fact_id"], []).append(lab)
        if not by_fact.keys() <= set(question_facts):
            raise _Fallback("fact_id")
        for fact in question_facts:
            chosen = _pick(by_fact.get(fact, []), label_policy)
            if out == 0 and not unreviewed_ok and not (
                by_fact.get(fact) if label_policy == "human-first" else chosen
            ):
                raise _Fallback("unlabelled fact")
            fact_state.append(_state(chosen, chk.FACT_VERDICTS))
        exotic.append(stamped)
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
        np.array(exotic, dtype=bool),
    )
