"""Shape checks of native records as parsed JSON (dicts), without building pydantic models.

Each check answers one question: would the schema accept this record? It is deliberately
conservative: anything it is unsure of counts as a problem, and the caller then reads the
files again with the loader, which names every problem with the usual message.
"""

from __future__ import annotations

import re
from itertools import repeat
from operator import itemgetter
from typing import Any, get_args

import orjson
from pydantic import BaseModel

from ..errors import InputError
from ..fileio import parse_json
from ..schemas import (
    Answerability,
    AppliesTo,
    Canary,
    Claim,
    ClaimLabel,
    ClaimVerdict,
    ContextItem,
    EvidenceGroup,
    FactLabel,
    FactVerdict,
    Labeller,
    Outcome,
    Question,
    QuestionResult,
    RankedItem,
    ReferenceFact,
    Split,
    Usage,
)

_KEY_END = re.compile(rb'"\s*:')
_SPACED_KEY = re.compile(rb'"[ \t\r\n]+:')
"""A key's closing quote and its colon (also matches inside strings: counted alike in the
text read and in its compact re-serialisation, see `loads`)."""

CONTEXT_HASH = re.compile(r"sha256:[0-9a-f]{64}")



def _keys(model: type[BaseModel]) -> frozenset[str]:
    """The JSON keys of a record: the model's field names (the schemas use no aliases)."""
    return frozenset(model.model_fields)


def _codes(values: Any) -> dict[str, int]:
    """A Literal type's values, each with its position as its code."""
    return {value: code for code, value in enumerate(get_args(values))}


# Record shapes and value sets, read from the schema's models (one definition).
QUESTION_KEYS = _keys(Question)
RESULT_KEYS = _keys(QuestionResult)
GROUP_KEYS = _keys(EvidenceGroup)
FACT_KEYS = _keys(ReferenceFact)
RANKED_KEYS = _keys(RankedItem)
CONTEXT_KEYS = _keys(ContextItem)
CLAIM_KEYS = _keys(Claim)
CLAIM_LABEL_KEYS = _keys(ClaimLabel)
FACT_LABEL_KEYS = _keys(FactLabel)
LABELLER_KEYS = _keys(Labeller)
APPLIES_KEYS = _keys(AppliesTo)
CANARY_KEYS = _keys(Canary)
USAGE_KEYS = _keys(Usage)
ANSWERABILITY = _codes(Answerability)
OUTCOMES = _codes(Outcome)
CLAIM_VERDICTS: tuple[str, ...] = get_args(ClaimVerdict)
FACT_VERDICTS: tuple[str, ...] = get_args(FactVerdict)
SPLITS: tuple[str, ...] = get_args(Split)


def loads(text: bytes | str) -> Any:
    """Parse one JSON text as `parse_json` would accept it; anything it would refuse
    (invalid JSON, NaN or infinite numbers, a key twice in one object) gives a marker
    object every shape check refuses, so the caller falls back to the loader.

    orjson refuses NaN and infinite numbers but keeps the last of two equal keys. A key
    written twice shows as one `"...":` more in the text than in orjson's compact output of
    what it parsed; strings hold the same `"...":` in both unless the text spells characters
    as `\\u` escapes, so such texts are checked exactly by the reference parser instead. A
    text that is, byte for byte, orjson's compact output of what it parsed has no key twice.
    """
    data = text.encode("utf-8") if isinstance(text, str) else text
    if b"\\u" in data:
        try:
            return parse_json(data.decode("utf-8"), "")
        except (InputError, UnicodeDecodeError):
            return _INVALID
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return _INVALID
    if type(value) in (dict, list):
        compact = orjson.dumps(value)
        if compact == data.rstrip(b"\r\n"):  # written as orjson writes it: no key twice
            return value
        # Counting `":` is a plain byte search; a key spaced from its colon needs the regex.
        written = len(_KEY_END.findall(data)) if _SPACED_KEY.search(data) else data.count(b'":')
        if written != compact.count(b'":'):
            return _INVALID
    return value


_INVALID = object()


def is_id(value: Any) -> bool:
    """A non-empty string (the schema's `Identifier`)."""
    return type(value) is str and bool(value)


def ids(value: Any) -> bool:
    """A list of identifiers."""
    return type(value) is list and all(type(v) is str and v for v in value)


def opt_str(value: Any) -> bool:
    """A string or null."""
    return value is None or type(value) is str


def number(value: Any) -> bool:
    """An int or float, not a bool (strict mode refuses bools as numbers)."""
    return type(value) is float or type(value) is int


def labeller_ok(value: Any) -> bool:
    """A `Labeller` object."""
    if type(value) is not dict:
        return False
    kind, name = value.get("kind"), value.get("name")
    if not (kind == "human" or kind == "judge") or type(name) is not str or not name:
        return False
    if len(value) == 2:  # kind and name only: the common case, nothing else to check
        return True
    return (
        value.keys() <= LABELLER_KEYS
        and opt_str(value.get("prompt_version"))
        and opt_str(value.get("endpoint_kind"))
        and (value.get("temperature") is None or number(value.get("temperature")))
        and (value.get("seed") is None or type(value.get("seed")) is int)
    )


def group_ok(group: Any) -> bool:
    """An `EvidenceGroup` object."""
    if type(group) is not dict or not group.keys() <= GROUP_KEYS:
        return False
    any_of = group.get("any_of")
    grade = group.get("grade", 1)
    return (
        ids(any_of)
        and bool(any_of)
        and type(grade) is int
        and grade >= 1
        and opt_str(group.get("label"))
    )


def fact_ok(fact: Any) -> bool:
    """A `ReferenceFact` object."""
    if type(fact) is not dict or not fact.keys() <= FACT_KEYS:
        return False
    return is_id(fact.get("id")) and opt_str(fact.get("text")) and ids(fact.get("evidence", []))


def applies_ok(value: Any) -> bool:
    """An `AppliesTo` object."""
    return (
        type(value) is dict
        and value.keys() <= APPLIES_KEYS
        and opt_str(value.get("version"))
        and opt_str(value.get("date"))
    )


def canary_ok(value: Any) -> bool:
    """A `Canary` object."""
    return (
        type(value) is dict
        and value.keys() == CANARY_KEYS
        and all(is_id(v) for v in value.values())
    )


def question_ok(q: Any) -> bool:
    """The plain fields of a `Question` (user_groups, applies_to and canary: by the reader)."""
    if type(q) is not dict or not q.keys() <= QUESTION_KEYS:
        return False
    text = q.get("text")
    return (
        is_id(q.get("id"))
        and type(text) is str
        and bool(text)
        and q.get("answerability") in ANSWERABILITY
        and type(q.get("required_evidence", [])) is list
        and all(group_ok(g) for g in q.get("required_evidence", []))
        and type(q.get("reference_facts", [])) is list
        and all(fact_ok(f) for f in q.get("reference_facts", []))
        and ids(q.get("tags", []))
        and q.get("split", "dev") in SPLITS
    )


_SCORE_TYPES = frozenset({float, int, type(None)})
_TEXT_TYPES = frozenset({str, type(None)})


def item_codes(items: Any, code: dict[str, int], context: bool) -> list[int] | None:
    """Snapshot codes of a ranking's (or the context's) items; None when the list does not
    have the schema's shape or names an ID the snapshot does not know (both are problems).

    Checked in bulk, not item by item: a known ID is a non-empty string, so the code
    look-up also checks the ID.
    """
    keys, other, types = (
        (CONTEXT_KEYS, "text", _TEXT_TYPES) if context else (RANKED_KEYS, "score", _SCORE_TYPES)
    )
    if type(items) is not list:
        return None
    try:  # C-level maps: a KeyError is an unknown ID, a TypeError a value of the wrong kind
        if not all(map(keys.issuperset, items)):
            return None
        codes = list(map(code.__getitem__, map(_ID, items)))
        if not set(map(type, map(dict.get, items, repeat(other)))) <= types:
            return None
    except (TypeError, KeyError):
        return None
    return codes


_ID = itemgetter("id")


def label_ok(label: Any, keys: frozenset[str]) -> bool:
    """The fields shared by claim and fact labels (verdict checked by the caller)."""
    return (
        type(label) is dict
        and label.keys() <= keys
        and labeller_ok(label.get("labeller"))
        and opt_str(label.get("reason"))
        and opt_str(label.get("context_hash"))
    )


def claim_ok(claim: Any) -> bool:
    """A `Claim` object with its labels."""
    if type(claim) is not dict or not claim.keys() <= CLAIM_KEYS:
        return False
    text = claim.get("text")
    cid = claim.get("id")
    labels = claim.get("labels", [])
    return (
        (cid is None or is_id(cid))
        and type(text) is str
        and bool(text)
        and ids(claim.get("citations", []))
        and type(labels) is list
        and all(
            label_ok(lab, CLAIM_LABEL_KEYS)
            and lab.get("verdict") in CLAIM_VERDICTS
            and ids(lab.get("supported_by", []))
            for lab in labels
        )
    )


def extras_ok(res: dict[str, Any]) -> bool:
    """Latency, cost and usage fields of a `QuestionResult`."""
    latency = res.get("latency_ms")
    cost = res.get("cost_usd")
    stages = res.get("stage_latency_ms", {})
    usage = res.get("usage")
    return (
        (latency is None or (number(latency) and latency >= 0))
        and (cost is None or (number(cost) and cost >= 0))
        and type(stages) is dict
        and all(number(v) for v in stages.values())
        and (
            usage is None
            or (
                type(usage) is dict
                and usage.keys() == USAGE_KEYS
                and all(type(v) is int and v >= 0 for v in usage.values())
            )
        )
    )


def result_ok(res: Any) -> bool:
    """Every field of a `QuestionResult` other than the rankings (`item_codes`) has the
    schema's shape."""
    if type(res) is not dict or not res.keys() <= RESULT_KEYS:
        return False
    claims = res.get("claims")
    fact_labels = res.get("fact_labels", [])
    return (
        is_id(res.get("question_id"))
        and opt_str(res.get("answer"))
        and (res.get("outcome") is None or res.get("outcome") in OUTCOMES)
        and (claims is None or (type(claims) is list and all(claim_ok(c) for c in claims)))
        and type(fact_labels) is list
        and all(
            label_ok(lab, FACT_LABEL_KEYS)
            and is_id(lab.get("fact_id"))
            and lab.get("verdict") in FACT_VERDICTS
            for lab in fact_labels
        )
        and extras_ok(res)
    )
