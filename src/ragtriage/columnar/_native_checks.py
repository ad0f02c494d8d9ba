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
    is_iso_date,
    is_text,
)


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
_GRADE = EvidenceGroup.model_fields["grade"].metadata  # its `ge` and `le`, as the schema says
MIN_GROUP_GRADE = int(next(m.ge for m in _GRADE if hasattr(m, "ge")))
MAX_GROUP_GRADE = int(next(m.le for m in _GRADE if hasattr(m, "le")))


def loads(text: bytes | str) -> Any:
    """Parse one JSON text as `parse_json` would accept it; anything it would refuse
    (invalid JSON, NaN or infinite numbers, a key twice in one object) gives a marker
    object every shape check refuses, so the caller falls back to the loader.

    orjson refuses NaN and infinite numbers but keeps the last of two equal keys. A text
    that is, byte for byte, orjson's compact output of what it parsed has no key twice (the
    common case, checked first). Otherwise a key written twice shows as one colon more in
    the text than in orjson's compact output: outside strings a colon only ends a key
    (however spaced), and the strings hold the same colons in both unless the text spells
    characters as `\\u` escapes (`\\u003a` is a colon), so such texts (and those orjson
    refuses for a lone surrogate spelled so) are checked exactly by the reference parser
    instead (the backslash, rarer, is looked for first). So is a text with an integer of 19
    digits or more (`_long_integer`): orjson reads an integer beyond 64 bits as a float,
    where the reference parser keeps it exact. A value nested deeper than orjson writes (255
    levels) is past the files' bound (`MAX_DEPTH`).
    """
    data = text.encode("utf-8") if isinstance(text, str) else text
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return _reference(data) if b"\\u" in data else _INVALID
    if type(value) in (dict, list):
        try:
            compact = orjson.dumps(value)
        except orjson.JSONEncodeError:  # nested deeper than orjson writes: past `MAX_DEPTH`
            return _INVALID
        # Written as orjson writes it (line breaks after it aside): no key twice, and no
        # integer beyond 64 bits (orjson writes the float it read for one as a float).
        if data.startswith(compact) and not data[len(compact) :].strip(b"\r\n"):
            return value
        if (b"\\" in data and b"\\u" in data) or _long_integer(data):
            return _reference(data)
        if data.count(b":") != compact.count(b":"):
            return _INVALID
    elif _long_integer(data):
        return _reference(data)
    return value


def _reference(data: bytes) -> Any:
    """A text parsed by the reference parser (`_INVALID` for what it refuses)."""
    try:
        return parse_json(data.decode("utf-8"), "")
    except (InputError, UnicodeDecodeError):
        return _INVALID


_INVALID = object()


def loads_again(text: bytes) -> Any:
    """Parse again a JSON text `loads` accepted before (a record read a second time): the
    value `loads` gave, without looking for a key written twice again.

    orjson's value is `loads`'s except for an integer beyond 64 bits, which `loads` keeps
    (the reference parser) and orjson reads as a float: a text that may hold one
    (`_long_integer`) is parsed by `loads` as the first time, as is what orjson refuses.
    """
    if _long_integer(text):
        return loads(text)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return loads(text)


def _long_integer(data: bytes) -> bool:
    """Whether the JSON text `data` may hold an integer of 19 digits or more, sign aside: the
    shortest integer beyond 64 bits is -9223372036854775809.

    Each run of 19 digits or more is found by a byte translation and a plain search (much
    faster than a regex over the whole text) and counts when it is a whole number: after
    neither a point, an exponent's mark nor another sign, and followed by what follows a
    value (never the closing quote of a string). Such digits inside a string may count too:
    those texts are parsed by the reference parser, to the same value.
    """
    digits = data.translate(_DIGITS_ONLY)
    start = digits.find(_19_DIGITS)
    while start >= 0:
        end = digits.find(b" ", start)
        sign = start > 0 and data[start - 1] == _MINUS
        before = data[start - 1 - sign : start - sign]
        if before not in _NOT_BEFORE and _VALUE_END.match(data, len(data) if end < 0 else end):
            return True
        if end < 0:
            return False
        start = digits.find(_19_DIGITS, end)
    return False


_DIGITS_ONLY = bytes(ord("0") if byte in b"0123456789" else ord(" ") for byte in range(256))
"""A translation table: every ASCII digit becomes 0, every other byte a space."""
_19_DIGITS = b"0" * 19
_MINUS = ord("-")
_NOT_BEFORE = frozenset({b".", b"e", b"E", b"+", b"-"})
"""What may stand before the digits of a fraction or an exponent, never before an integer."""
_VALUE_END = re.compile(rb"[ \t\r\n]*(?:[,\]}]|\Z)")


def ids(value: Any) -> bool:
    """A list of identifiers (checked by C-level maps, not item by item)."""
    return type(value) is list and set(map(type, value)) <= _STR and "" not in value


_STR = frozenset({str})


def opt_str(value: Any) -> bool:
    """A string or null."""
    return value is None or type(value) is str


def number(value: Any) -> bool:
    """An int or float, not a bool (strict mode refuses bools as numbers)."""
    return type(value) is float or type(value) is int


def labeller_rest_ok(value: dict[str, Any]) -> bool:
    """The fields of a `Labeller` object other than `kind` and `name` (checked by the caller,
    which asks only when there are others)."""
    temperature, seed = value.get("temperature"), value.get("seed")
    return (
        value.keys() <= LABELLER_KEYS
        and opt_str(value.get("prompt_version"))
        and opt_str(value.get("endpoint_kind"))
        and (temperature is None or number(temperature))
        and (seed is None or type(seed) is int)
    )


def applies_ok(value: Any) -> bool:
    """An `AppliesTo` object."""
    return (
        type(value) is dict and value.keys() <= APPLIES_KEYS and opt_str(value.get("version"))
        and (value.get("date") is None or is_iso_date(value["date"]))
    )


def canary_ok(value: Any) -> bool:
    """A `Canary` object."""
    return (
        type(value) is dict and value.keys() == CANARY_KEYS and ids([value["document_id"]])
        and is_text(value["instruction"]) and is_text(value["marker"])
    )


_ID = itemgetter("id")
_CONTEXT_ITEM = (CONTEXT_KEYS, "text", frozenset({str, type(None)}), itemgetter("text"))
_RANKED_ITEM = (RANKED_KEYS, "score", frozenset({float, int, type(None)}), itemgetter("score"))
"""An item's allowed keys, its field other than the ID, that field's types and its getter."""


def item_codes(items: Any, code: dict[str, int], context: bool) -> list[int] | None:
    """Snapshot codes of a ranking's (or the context's) items; None when the list does not
    have the schema's shape or names an ID the snapshot does not know (both are problems).

    Checked a whole list at a time: the keys of all its items at once (every item's are
    allowed when their union is), and the code look-up also checks the ID (a known ID is a
    non-empty string).
    """
    keys, other, types, value = _CONTEXT_ITEM if context else _RANKED_ITEM
    if type(items) is not list:
        return None
    try:  # a KeyError is an unknown or missing ID, a TypeError an item or value of the wrong kind
        found = set().union(*items)
        if not found <= keys:
            return None
        # Every item is an object with an ID. Two C-level maps, no Python step per item:
        # these look-ups are a fifth of a run's reading.
        codes = list(map(code.__getitem__, map(_ID, items)))
    except (TypeError, KeyError):
        return None
    if other in found:
        try:  # the common case: every item has the field
            values = set(map(type, map(value, items)))
        except KeyError:
            values = set(map(type, map(dict.get, items, repeat(other))))
        if not values <= types:
            return None
    return codes


NO_LIST: list[Any] = []
"""An absent list (never changed)."""
_NO_STAGES: dict[str, Any] = {}
"""No stage latencies (never changed)."""


def extras_ok(res: dict[str, Any]) -> bool:
    """Latency, cost and usage fields of a `QuestionResult`."""
    latency, cost, usage = res.get("latency_ms"), res.get("cost_usd"), res.get("usage")
    stages = res.get("stage_latency_ms", _NO_STAGES)
    return (
        (latency is None or (number(latency) and latency >= 0))
        and (cost is None or (number(cost) and cost >= 0))
        and type(stages) is dict and all(map(number, stages.values()))
        and min(stages.values(), default=0) >= 0
        and (usage is None or (
            type(usage) is dict and usage.keys() == USAGE_KEYS
            and all(type(v) is int and v >= 0 for v in usage.values())
        ))
    )
