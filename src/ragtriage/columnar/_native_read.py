"""Read a native evaluation set (its records from a file or from models held in memory, see
`_native_records`) straight into arrays; the snapshot's IDs as integer codes (`Codes`).

Each record is parsed as plain JSON (orjson) and checked by `_native_checks`; IDs become
integer codes of the snapshot. No pydantic object is built per question. Any problem (a shape
the schema refuses, or one of the semantic rules of `validation.check_dataset`) raises
`_Fallback`: the caller then runs the loader, which reports every problem with its usual
message. Runs are read likewise by `_native_run`.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np
from pydantic import ValidationError

from ..loading import SnapshotIndex
from ..schemas import EvalSet, is_schema_version, is_text, plain_ids
from ._native_checks import (
    ANSWERABILITY,
    FACT_KEYS,
    GROUP_KEYS,
    MAX_GROUP_GRADE,
    MIN_GROUP_GRADE,
    NO_LIST,
    QUESTION_KEYS,
    SPLITS,
    applies_ok,
    canary_ok,
    ids as id_list_ok,
)
from ._native_records import Records
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
    access: np.ndarray
    """Code -> bit masks of the access groups that may read its document (one int64 word per
    62 groups, as `group_bits` places them)."""
    restricted: np.ndarray
    """Code -> its document names access groups (False: readable by anyone)."""
    doc_version: np.ndarray
    """Code -> its document's version (an index into `versions`), -1 when it has none."""
    versions: dict[str, int]
    """Version string -> index."""
    group_bits: dict[str, tuple[int, int]]
    """Access group -> (its word, its bit in that word)."""
    start: np.ndarray
    """Code -> a chunk's first character in its document; -1 for a document (all of it)."""
    end: np.ndarray
    """Code -> one past a chunk's last character; `WHOLE` for a document."""


WHOLE = np.iinfo(np.int64).max
"""The end of a document's span (`Codes.end`): past every chunk's."""


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
    asked: np.ndarray
    """The question names its asker's user groups (permission checks apply)."""
    user_mask: np.ndarray
    """Per row, the bit masks of the asker's access groups (`Codes.group_bits`): one int64
    word per 62 groups; 0 when the question names none."""
    version_question: np.ndarray
    """Tagged `version-conflict` or bound to a version by `applies_to`."""
    wanted_version: np.ndarray
    """Index of `applies_to.version` in `Codes.versions` (-1: none; a version no document has
    is refused)."""
    canary_document: np.ndarray
    """Code of the canary's document (-2: no canary)."""
    canary_marker: dict[int, str]
    """Row -> its canary's marker, for rows with a canary."""
    canary_named: dict[int, str]
    """Row -> its canary's `document_id` as written, for rows with a canary."""
    canary_instruction: dict[int, str]
    """Row -> its canary's planted instruction, for rows with a canary (`canary_places`)."""
    group_label: dict[int, str]
    """Group (global index) -> its label, for labelled groups."""
    line_starts: np.ndarray
    """Per question read from a JSONL file: its line's start (byte offset; else empty)."""
    evalset_id: str = ""
    """The evaluation set's `evalset_id`."""
    recorded_snapshot_id: str | None = None
    """The `snapshot_id` the evaluation set records (None: none)."""


def closed(
    access: np.ndarray, restricted: np.ndarray, items: np.ndarray, masks: np.ndarray,
    asked: np.ndarray,
) -> np.ndarray:
    """Per item (a snapshot code into `access` and `restricted`, as `Codes` holds them, with
    its asker's group `masks` and whether the question was `asked` with user groups): the
    asker may not read it (`SnapshotIndex.may_read`)."""
    readable = ((access[items] & masks) != 0).any(axis=1)
    out: np.ndarray = restricted[items] & ~readable & asked
    return out


def read_evalset(
    source: Records, codes: Codes, span: tuple[int, int] | None = None
) -> EvalColumns:
    """Read and check an evaluation set (or a `span` of it); raise `_Fallback` on any problem.

    A span's `row_of` is left empty: the parts' join maps every question ID to its row and
    finds an ID twice once, over all the parts (`_native_parts.read_evalset_parallel`)."""
    starts = array("q")
    header, items = source.read(span, starts)
    if header.get("kind") != "evalset" or not is_schema_version(header.get("schema_version")):
        raise _Fallback("evalset kind")
    try:
        EvalSet.model_validate({**header, "questions": []})
    except ValidationError as exc:
        raise _Fallback("evalset header") from exc
    code = codes.code
    ids: list[str] = []
    answerability: list[int] = []
    tags: list[tuple[str, ...]] = []
    split: list[str] = []
    group_label: dict[int, str] = {}
    tag_sets: dict[tuple[str, ...], tuple[str, ...]] = {}
    n_groups: list[int] = []
    grades: list[int] = []
    alt_n: list[int] = []
    """Per group: its number of alternatives (`alt_group` is made from them at the end)."""
    alt_code: list[int] = []
    facts: list[tuple[str, ...]] = []
    asked: list[bool] = []
    user_mask: list[int] = []
    version_question: list[bool] = []
    wanted_version: list[int] = []
    canary_document: list[int] = []
    canary_marker: dict[int, str] = {}
    canary_named: dict[int, str] = {}
    canary_instruction: dict[int, str] = {}
    bits, words = codes.group_bits, codes.access.shape[1]
    no_groups = [0] * words
    unknown_groups: set[str] = set()
    for q in items:
        if type(q) is not dict or not q.keys() <= QUESTION_KEYS:
            raise _Fallback("question shape")
        qid, text, kind = q.get("id"), q.get("text"), q.get("answerability")
        if type(qid) is not str or not qid or not is_text(text):
            raise _Fallback("question shape")
        if type(kind) is not str or kind not in ANSWERABILITY:
            raise _Fallback("answerability")
        ids.append(qid)
        kind = ANSWERABILITY[kind]
        answerability.append(kind)
        groups = q.get("required_evidence", NO_LIST)
        fact_list = q.get("reference_facts", NO_LIST)
        if type(groups) is not list or type(fact_list) is not list:
            raise _Fallback("question shape")
        if (kind == 1 and (groups or fact_list)) or (kind == 0 and not groups):
            raise _Fallback("answerability")
        for group in groups:
            found = _group_codes(group, code)
            if "label" in group and group["label"] is not None:
                group_label[len(grades)] = group["label"]
            alt_code += found
            alt_n.append(len(found))
            grades.append(group.get("grade", 1))
        n_groups.append(len(groups))
        fact_ids = tuple([_fact_id(fact, code) for fact in fact_list])
        if len(set(fact_ids)) < len(fact_ids):
            raise _Fallback("duplicate facts")
        facts.append(fact_ids)
        tag_list = q.get("tags", NO_LIST)
        if not id_list_ok(tag_list) or q.get("split", "dev") not in SPLITS:
            raise _Fallback("question shape")
        tag_list = tuple(tag_list)
        tags.append(tag_sets.setdefault(tag_list, tag_list))  # each set of tags held once
        split.append(_SPLITS[q.get("split", "dev")])
        users = q.get("user_groups")
        if users is not None and (not id_list_ok(users) or len(set(users)) < len(users)):
            raise _Fallback("user_groups")  # a group twice: the loader names it
        asked.append(users is not None)
        if users:
            masks = [0] * words
            for group in set(users):
                if group in bits:  # a group no document names opens nothing
                    word, bit = bits[group]
                    masks[word] |= bit
                else:
                    unknown_groups.add(group)
            user_mask += masks
        else:
            user_mask += no_groups
        applies, canary = q.get("applies_to"), q.get("canary")
        wanted = -1
        if applies is not None:
            if not applies_ok(applies):
                raise _Fallback("applies_to")
            if applies.get("version") is not None:
                wanted = codes.versions.get(applies["version"], -1)
                if wanted < 0:  # the loader names a version no document has
                    raise _Fallback("applies_to version")
        wanted_version.append(wanted)
        version_question.append(wanted != -1 or VERSION_TAG in tag_list)
        if canary is None:
            canary_document.append(-2)
        elif not canary_ok(canary):
            raise _Fallback("canary")
        else:
            where = code.get(canary["document_id"], -1)
            if where < 0:  # the loader names the unknown document
                raise _Fallback("canary document")
            canary_document.append(int(codes.document_of[where]))
            canary_marker[len(ids) - 1] = canary["marker"]
            canary_named[len(ids) - 1] = canary["document_id"]
            canary_instruction[len(ids) - 1] = canary["instruction"]
    # No ID holds a control character (`schemas.Identifier`), checked once over all of them
    # (each distinct set of tags once); evidence IDs and user groups a document names are the
    # snapshot's, which the loader checked.
    facts_and_tags = chain.from_iterable(chain(facts, tag_sets))
    if not plain_ids(chain(ids, facts_and_tags, unknown_groups, canary_named.values())):
        raise _Fallback("control characters in IDs")
    alt_groups = np.repeat(np.arange(len(grades), dtype=np.int64), np.array(alt_n, dtype=np.int64))
    alt_codes = np.array(alt_code, dtype=np.int64)
    # The auto level, per row: no required alternative is a chunk (a code past the documents).
    group_row = np.repeat(np.arange(len(ids), dtype=np.int64), np.array(n_groups, dtype=np.int64))
    level = np.ones(len(ids), dtype=bool)
    level[group_row[alt_groups[alt_codes >= codes.n_documents]]] = False
    kinds, asked_rows = np.array(answerability, dtype=np.int8), np.array(asked, dtype=bool)
    user_masks = np.array(user_mask, dtype=np.int64).reshape(-1, words)
    if codes.restricted.any() and asked_rows.any():  # else every alternative is readable
        alt_row = group_row[alt_groups]
        open_alt = ~closed(codes.access, codes.restricted, alt_codes, user_masks[alt_row],
                           asked_rows[alt_row])
        answerable = kinds[group_row] == ANSWERABILITY["answerable"]
        if (answerable & (np.bincount(alt_groups[open_alt], minlength=len(grades)) == 0)).any():
            raise _Fallback("evidence the asker may not read")  # `check_evalset` names it
    return EvalColumns(
        ids,
        {} if span is not None else rows_by_id(ids),
        kinds,
        tags,
        split,
        _offsets(n_groups),
        np.array(grades, dtype=np.int64),
        alt_groups,
        alt_codes,
        facts,
        _offsets([len(f) for f in facts]),
        level,
        asked_rows,
        user_masks,
        np.array(version_question, dtype=bool),
        np.array(wanted_version, dtype=np.int64),
        np.array(canary_document, dtype=np.int64),
        canary_marker,
        canary_named,
        canary_instruction,
        group_label,
        np.array(starts, dtype=np.int64),
        header["evalset_id"],
        header.get("snapshot_id"),
    )


def canary_places(ev: EvalColumns, index: SnapshotIndex) -> dict[int, tuple[int, ...]]:
    """Row -> every place its canary's instruction starts in its document's text (where a
    chunk must reach to show it, `_native_stages.canary_reached`); `_Fallback` when it is
    nowhere (the loader names it: `validation.check_dataset`, `canary.instruction`)."""
    places: dict[int, tuple[int, ...]] = {}
    for row, instruction in ev.canary_instruction.items():
        doc = index.document(ev.canary_named[row])
        text = "" if doc is None else doc.text
        found, at = [], text.find(instruction)
        while at >= 0:
            found.append(at)
            at = text.find(instruction, at + 1)
        if not found:
            raise _Fallback("canary instruction")
        places[row] = tuple(found)
    return places


_SPLITS = {split: split for split in SPLITS}
"""Each split's name, one text for every question."""


def rows_by_id(ids: list[str]) -> dict[str, int]:
    """Each question ID's row, in one map built at once; `_Fallback` for an ID twice."""
    row_of = dict(zip(ids, range(len(ids)), strict=True))
    if len(row_of) < len(ids):
        raise _Fallback("duplicate question")
    return row_of


def _group_codes(group: Any, code: dict[str, int]) -> list[int]:
    """The codes of an `EvidenceGroup`'s alternatives; `_Fallback` for a problem (a known ID
    is a non-empty string)."""
    if type(group) is not dict or not group.keys() <= GROUP_KEYS:
        raise _Fallback("evidence group")
    alternatives, grade, label = group.get("any_of"), group.get("grade", 1), group.get("label")
    if (
        type(alternatives) is not list or not alternatives or type(grade) is not int
        or not MIN_GROUP_GRADE <= grade <= MAX_GROUP_GRADE
        or (label is not None and type(label) is not str)
    ):
        raise _Fallback("evidence group")
    try:
        found = [code[i] for i in alternatives]
    except (KeyError, TypeError):
        raise _Fallback("evidence IDs") from None
    if len(set(found)) < len(found):
        raise _Fallback("evidence IDs")
    return found


def _fact_id(fact: Any, code: dict[str, int]) -> str:
    """A `ReferenceFact`'s ID; `_Fallback` for a problem (evidence the snapshot lacks)."""
    if type(fact) is not dict or not fact.keys() <= FACT_KEYS:
        raise _Fallback("reference fact")
    fid, text, evidence = fact.get("id"), fact.get("text"), fact.get("evidence", NO_LIST)
    if type(fid) is not str or not fid or (text is not None and type(text) is not str):
        raise _Fallback("reference fact")
    if type(evidence) is not list:
        raise _Fallback("fact evidence")
    try:
        if not all(map(code.__contains__, evidence)):  # known: a non-empty string
            raise _Fallback("fact evidence")
    except TypeError:
        raise _Fallback("fact evidence") from None
    return fid


def _offsets(counts: Sequence[int] | np.ndarray) -> np.ndarray:
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(np.array(counts, dtype=np.int64), out=out[1:])
    return out
