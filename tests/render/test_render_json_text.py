"""The JSON writer (`fileio.json_text`, `render.dumps`) writes exactly what
`json.dumps(data, sort_keys=True, ensure_ascii=False, indent=2) + "\\n"` writes (the oracle,
used here only), for every JSON-like value, and raises json's error where json raises."""

from __future__ import annotations

import enum
import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ragtriage
from ragtriage.fileio import json_float, json_text, json_text_table, plain_json
from ragtriage.render import dumps, evaluation_json


def oracle(data: Any) -> str:
    """Today's text: Python's json module with the report's options."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False, indent=2) + "\n"


class Text(str):
    """A str subclass (json writes it as a str)."""


class Count(int):
    """An int subclass (json writes int.__repr__)."""


class Ratio(float):
    """A float subclass (json writes float.__repr__)."""


class Level(enum.IntEnum):
    """An int enum (json writes its int value)."""

    LOW = 1


class Table(dict[Any, Any]):
    """A dict subclass (json writes its items)."""


# Characters the two writers could escape differently, drawn often.
_TRICKY = st.sampled_from(
    [*map(chr, range(0x20)), "\x7f", "\x80", "\u2028", "\u2029", '"', "\\", "/", "\ufeff",
     "\uffff", "\U0001f600", "\U0010ffff", "é", "<", "&"]
)
_TEXT = st.text(
    alphabet=st.one_of(st.characters(exclude_categories=("Cs",)), _TRICKY), max_size=12
)
_DECIMAL = st.tuples(st.floats(1.0, 10.0, exclude_max=True), st.integers(-330, 310)).map(
    lambda t: float(f"{t[0]!r}e{t[1]}")  # every decade, subnormals and overflow to inf
)
_NEAR = st.tuples(st.floats(1.0, 10.0, exclude_max=True), st.integers(-12, -2)).map(
    lambda t: float(f"{t[0]!r}e{t[1]}")  # the decades where the writers could disagree
)
_FLOATS = st.one_of(
    st.floats(),  # nan, +-inf, +-0.0, subnormals included (rarely: drawn again below)
    st.sampled_from([math.nan, -math.nan, math.inf, -math.inf, 0.0, -0.0]),
    _DECIMAL,
    _DECIMAL.map(lambda f: -f),
    _NEAR,
    _NEAR.map(lambda f: -f),
    st.sampled_from([1e-4, 1e-9, 1e-10, 1e16, 1e-5, 5e-324]).map(
        lambda f: math.nextafter(f, 0.0)
    ),
)
_INTS = st.one_of(
    st.integers(),
    st.sampled_from([2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**30]),
)
_PLAIN = st.one_of(st.none(), st.booleans(), _INTS, _FLOATS, _TEXT)
"""Leaves of exactly the JSON types: the documents orjson writes (bar huge ints)."""
_ODD = st.one_of(
    _TEXT.map(Text),
    st.integers(-5, 5).map(Count),
    _FLOATS.map(Ratio),
    st.just(Level.LOW),
)
"""Leaves of other types json writes: such documents are written by json itself."""
# Keys of one kind per dict (json sorts the keys before it turns them into strings, and
# refuses to sort a mix: that error is checked by its own test below).
_KEYS = st.one_of(
    st.just(st.integers()),
    st.just(st.floats()),
    st.just(st.booleans()),
    st.just(st.none()),
    st.just(_TEXT.map(Text)),
)


def _plain_containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=5),
        st.lists(children, max_size=5).map(tuple),
        st.dictionaries(_TEXT, children, max_size=5),
    )


def _odd_containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        _plain_containers(children),
        _KEYS.flatmap(lambda keys: st.dictionaries(keys, children, max_size=5)),
        st.dictionaries(_TEXT, children, max_size=5).map(Table),
    )


JSON_LIKE = st.recursive(_PLAIN, _plain_containers, max_leaves=40)
ODD_JSON_LIKE = st.recursive(st.one_of(_PLAIN, _ODD), _odd_containers, max_leaves=20)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(JSON_LIKE)
def test_the_text_is_json_dumps_text(data: Any) -> None:
    assert json_text(data) == oracle(data)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ODD_JSON_LIKE)
def test_other_types_and_keys_give_json_dumps_text(data: Any) -> None:
    assert json_text(data) == oracle(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_FLOATS)
def test_every_float_is_written_as_python_writes_it(value: float) -> None:
    assert json_text([value, {"v": value}]) == oracle([value, {"v": value}])


def test_pinned_floats() -> None:
    # The floats orjson alone writes otherwise (0.00001, 1.5e-7, null), and their neighbours.
    data = {
        "small": [1e-05, 1.5e-07, -2.5e-09, 9.999999999999999e-05, 0.0001, 1e-10, 5e-324],
        "special": [math.nan, math.inf, -math.inf, -0.0],
        "large": [1.1e16, 1e16, 9999999999999998.0, 1.7976931348623157e308],
    }
    assert json_text(data) == (
        "{\n"
        '  "large": [\n    1.1e+16,\n    1e+16,\n    9999999999999998.0,\n'
        "    1.7976931348623157e+308\n  ],\n"
        '  "small": [\n    1e-05,\n    1.5e-07,\n    -2.5e-09,\n    9.999999999999999e-05,\n'
        "    0.0001,\n    1e-10,\n    5e-324\n  ],\n"
        '  "special": [\n    NaN,\n    Infinity,\n    -Infinity,\n    -0.0\n  ]\n'
        "}\n"
    )
    assert json_text(1e-05) == "1e-05\n"


def test_pinned_keys_strings_and_ints() -> None:
    assert json_text({"b": "\x00\x1f\x7f\u2028\"\\/é", "a": (1, 2**64), "A": {}}) == (
        '{\n  "A": {},\n  "a": [\n    1,\n    18446744073709551616\n  ],\n'
        '  "b": "\\u0000\\u001f\x7f\u2028\\"\\\\/é"\n}\n'
    )
    # Non-str keys: json sorts them as numbers, then writes them as strings.
    assert json_text({10: 1, 2: 2, 1.5: 3}) == '{\n  "1.5": 3,\n  "2": 2,\n  "10": 1\n}\n'


def _as_given(data: Any) -> Any:
    """`data` with each float as `json_float` gives it (what `plain_json` is given)."""
    if type(data) is float:
        return json_float(data)
    if type(data) in (list, tuple):
        return type(data)(map(_as_given, data))
    if type(data) is dict:
        return {key: _as_given(value) for key, value in data.items()}
    return data


_LONE = st.text(alphabet=st.one_of(st.characters(categories=("Cs",)), _TRICKY), max_size=4)
"""Strings with lone surrogates (orjson refuses them; json writes them as they are)."""
_GIVEN = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(-(2**63), 2**64 - 1), _FLOATS, _TEXT, _LONE
    ),
    _plain_containers,
    max_leaves=40,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_GIVEN)
def test_plain_data_its_floats_made_so_is_written_as_json_dumps_writes_it(data: Any) -> None:
    written = plain_json(_as_given(data))
    # orjson's bytes, or where it refuses the data (a lone surrogate, ...) json's text.
    assert written == oracle(data) if isinstance(written, str) else (
        str(written, "utf-8") == oracle(data)
    )


def test_pinned_plain_json() -> None:
    floats = [json_float(value) for value in (1e-05, math.nan, -math.inf, 0.5, 1e-11)]
    assert [type(value) is float for value in floats] == [False] * 3 + [True] * 2
    assert floats[:4] == [1e-05, floats[1], -math.inf, 0.5] and math.isnan(floats[1])
    data = {"s": ("a\ud800\"\n", "✓", "\udfff"), "f": floats, "e": {}}
    assert plain_json(data) == (
        '{\n  "e": {},\n  "f": [\n    1e-05,\n    NaN,\n    -Infinity,\n    0.5,\n    1e-11\n  ],\n'
        '  "s": [\n    "a\ud800\\"\\n",\n    "✓",\n    "\udfff"\n  ]\n}\n'
    )


def test_what_json_refuses_raises_its_error() -> None:
    loop: list[Any] = []
    loop.append(loop)
    for bad, kind, message in (
        ({1: "a", "b": 2}, TypeError, "'<' not supported between instances of 'str' and 'int'"),
        ([object], TypeError, "Object of type type is not JSON serializable"),
        (loop, ValueError, "Circular reference detected"),
    ):
        with pytest.raises(kind) as caught:
            json_text(bad)
        assert str(caught.value) == message


def test_deep_nesting_beyond_orjson_is_written_by_json() -> None:
    deep: Any = 1e-05
    for _ in range(300):
        deep = [deep]
    assert json_text(deep) == oracle(deep)


def test_a_report_is_written_by_orjson_without_falling_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    report = evaluation_json(ragtriage.evaluate_files(example=True, notify=lambda _: None))
    report["runs"][0]["summary"]["tiny"] = {"value": 3e-05, "nan": math.nan}
    want = oracle(report)

    def refuse(*args: object, **kwargs: object) -> str:
        raise AssertionError("fell back to json.dumps")

    monkeypatch.setattr(json, "dumps", refuse)
    assert dumps is json_text
    assert dumps(report) == want


def _table_oracle(
    data: dict[str, Any], key: str, texts: dict[str, list[Any]], numbers: dict[str, list[float]]
) -> str:
    columns: dict[str, list[Any]] = {**texts}
    columns |= {name: [None if v != v else v for v in values] for name, values in numbers.items()}
    rows = [dict(zip(columns, row, strict=True)) for row in zip(*columns.values(), strict=True)]
    return oracle({**data, key: rows})


_HEAD = st.dictionaries(_TEXT.filter(lambda k: k != "rows"), _PLAIN, max_size=4)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    _HEAD,
    st.integers(0, 6).flatmap(
        lambda n: st.tuples(
            st.lists(_TEXT, min_size=n, max_size=n),
            st.lists(st.lists(_FLOATS, min_size=n, max_size=n), min_size=1, max_size=3),
        )
    ),
)
def test_a_table_is_written_as_json_text_writes_its_records(
    data: dict[str, Any], columns: tuple[list[str], list[list[float]]]
) -> None:
    ids, measures = columns
    numbers = {f"m{i}": values for i, values in enumerate(measures)}
    arrays = {name: np.array(values, dtype=np.float64) for name, values in numbers.items()}
    got = json_text_table(data, "rows", {"id": ids}, arrays)
    assert got == _table_oracle(data, "rows", {"id": ids}, numbers)


def test_pinned_table() -> None:
    got = json_text_table(
        {"b": 1, "z": [2]},
        "questions",
        {"id": ["q1", "q\u00e9\n"]},
        {"ap": np.array([0.5, np.nan]), "mrr": np.array([1e-05, 1 / 3])},
    )
    assert got == (
        '{\n  "b": 1,\n  "questions": [\n    {\n      "ap": 0.5,\n      "id": "q1",\n'
        '      "mrr": 1e-05\n    },\n    {\n      "ap": null,\n      "id": "q\u00e9\\n",\n'
        '      "mrr": 0.3333333333333333\n    }\n  ],\n  "z": [\n    2\n  ]\n}\n'
    )
    assert json_text_table({"a": 1}, "rows", {"id": []}, {"x": np.zeros(0)}) == (
        '{\n  "a": 1,\n  "rows": []\n}\n'
    )


def test_table_values_orjson_refuses_or_other_types_are_written_by_json() -> None:
    numbers = {"v": [1.0, math.inf]}
    arrays = {"v": np.array(numbers["v"])}
    for ids in (["\ud800", "b"], [Text("a"), "b"]):
        assert json_text_table({}, "rows", {"id": ids}, arrays) == _table_oracle(
            {}, "rows", {"id": ids}, numbers
        )


def test_a_table_key_must_be_new_and_its_columns_distinct() -> None:
    for data, texts in (({"rows": 1}, {"id": ["a"]}), ({}, {"v": ["a"]})):
        with pytest.raises(ValueError) as caught:
            json_text_table(data, "rows", texts, {"v": np.array([1.0])})
        assert str(caught.value) == "'rows' and the column names must be new and distinct"


_PLAIN_ID = st.text(
    alphabet=st.characters(exclude_categories=("Cs",), exclude_characters='"\\'), max_size=8
).filter(lambda text: not any(ord(c) < 0x20 for c in text))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(1, 5).flatmap(
        lambda n: st.tuples(
            st.lists(_PLAIN_ID, min_size=n, max_size=n),
            st.lists(st.lists(_FLOATS, min_size=n, max_size=n), min_size=0, max_size=3),
            st.lists(st.lists(_PLAIN_ID, min_size=n, max_size=n), min_size=0, max_size=2),
        )
    ),
)
def test_a_table_of_plain_text_is_joined_without_records(
    columns: tuple[list[str], list[list[float]], list[list[str]]],
) -> None:
    # Text JSON writes as itself (any character but quotes, backslashes and control
    # characters), several text columns, keys that sort around them: no record is made.
    import ragtriage.fileio._json_text as writer

    def refuse(*args: object) -> object:
        raise AssertionError("made the records")

    ids, measures, more = columns
    numbers = {f"{chr(0x60 + i)}m": values for i, values in enumerate(measures)}
    texts = {"id": ids, **{f"\u00e9{i}": strings for i, strings in enumerate(more)}}
    arrays = {name: np.array(values, dtype=np.float64) for name, values in numbers.items()}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(writer, "_records", refuse)
        got = json_text_table({"z": 1}, "rows", texts, arrays)
    assert got == _table_oracle({"z": 1}, "rows", texts, numbers)


def test_a_long_table_with_every_kind_of_float_is_written_as_its_records() -> None:
    values = [0.0, -0.0, 1.0, 100.0, 1e15, 1e16, 1.2345e16, 123456789012345.6, 0.1, 1 / 3,
              1e-4, 9.99e-5, 1e-5, 1.5e-7, 1e-10, 5e-324, 1.7976931348623157e308,
              math.nan, math.inf, -math.inf, -2.5]
    size = 30_000
    numbers = {"v": [values[row % len(values)] for row in range(size)]}
    ids = [f"q{row}\u00e9" for row in range(size)]
    got = json_text_table(
        {"a": [1]}, "questions", {"id": ids}, {"v": np.array(numbers["v"])}
    )
    assert got == _table_oracle({"a": [1]}, "questions", {"id": ids}, numbers)


def test_a_table_without_pyarrow_is_written_as_its_records(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import ragtriage.fileio._json_text as writer

    monkeypatch.setattr(writer, "has_extra", lambda extra: False)
    numbers = {"v": [0.5, math.nan]}
    got = json_text_table({}, "rows", {"id": ["a", "b"]}, {"v": np.array(numbers["v"])})
    assert got == _table_oracle({}, "rows", {"id": ["a", "b"]}, numbers) == (
        '{\n  "rows": [\n    {\n      "id": "a",\n      "v": 0.5\n    },\n'
        '    {\n      "id": "b",\n      "v": null\n    }\n  ]\n}\n'
    )


def test_a_table_without_columns_or_with_columns_of_two_lengths() -> None:
    assert json_text_table({"a": 1}, "rows", {}, {}) == '{\n  "a": 1,\n  "rows": []\n}\n'
    with pytest.raises(ValueError) as caught:
        json_text_table({}, "rows", {"id": ["a", "b"]}, {"v": np.array([1.0])})
    assert str(caught.value) == "the columns of 'rows' must have one length, not [1, 2]"
