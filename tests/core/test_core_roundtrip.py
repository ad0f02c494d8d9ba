"""JSON round-trip of every schema model, with instances generated from the models' own types.

Each generated instance must survive dump -> JSON text -> load unchanged, and its JSON must be
valid under the committed JSON Schema of its file kind (so models and schemas agree).
"""

from __future__ import annotations

import json
import types
import typing
from pathlib import Path
from typing import Any

import annotated_types
import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from ragtriage import schemas
from ragtriage.schemas._json_schema import SCHEMA_MODELS
from ragtriage.schemas._shared import ISO_DATE_PATTERN

ROOT = Path(__file__).resolve().parents[2]


def _bounds(metadata: list[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in metadata:
        if isinstance(item, FieldInfo):  # Field(ge=...) inside Annotated
            out.update(_bounds(item.metadata))
        elif isinstance(item, annotated_types.Ge):
            out["min_value"] = item.ge
        elif isinstance(item, annotated_types.Le):
            out["max_value"] = item.le
        elif isinstance(item, annotated_types.Gt):
            out["min_value"] = item.gt + (1 if isinstance(item.gt, int) else 1e-9)
        elif isinstance(item, annotated_types.MinLen) or getattr(item, "min_length", None) is not None:
            out["min_size"] = item.min_length
    return out


def strategy_for(tp: Any, metadata: list[Any] | None = None, depth: int = 0) -> st.SearchStrategy[Any]:
    """A strategy producing valid Python values for a field type (models become instances)."""
    metadata = list(metadata or [])
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        base, *extra = typing.get_args(tp)
        return strategy_for(base, metadata + extra, depth)
    bounds = _bounds(metadata)
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*(strategy_for(arg, metadata, depth) for arg in typing.get_args(tp)))
    if tp is type(None):
        return st.none()
    if origin is typing.Literal:
        return st.sampled_from(typing.get_args(tp))
    if origin is list:
        (item,) = typing.get_args(tp)
        return st.lists(strategy_for(item, depth=depth + 1), min_size=bounds.get("min_size", 0), max_size=max(2, bounds.get("min_size", 0)))
    if origin is dict:
        key, value = typing.get_args(tp)
        return st.dictionaries(strategy_for(key), strategy_for(value), max_size=2)
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return model_strategy(tp, depth + 1)
    if tp is str and any(
        (getattr(m, "json_schema", None) or {}).get("pattern") == ISO_DATE_PATTERN
        for m in metadata
    ):
        # an IsoDate: a day, a month or a year
        return st.tuples(st.dates(), st.sampled_from([4, 7, 10])).map(lambda d: d[0].isoformat()[: d[1]])
    if tp is str and any(
        (getattr(m, "json_schema", None) or {}).get("pattern") == schemas.TEXT_PATTERN
        for m in metadata
    ):
        # a required text: not only whitespace
        return st.text(min_size=1, max_size=8).filter(schemas.is_text)
    if tp is str and any(getattr(m, "pattern", None) == schemas.IDENTIFIER_PATTERN for m in metadata):
        # an Identifier: no control character (Unicode category Cc), not only whitespace
        no_control = st.characters(blacklist_categories=["Cc", "Cs"])
        ids = st.text(no_control, min_size=bounds.get("min_size", 0), max_size=8)
        return ids.filter(lambda value: not value.isspace())
    if tp is str:
        return st.text(min_size=bounds.get("min_size", 0), max_size=8)
    if tp is bool:
        return st.booleans()
    if tp is int:
        return st.integers(min_value=bounds.get("min_value", -(2**31)), max_value=bounds.get("max_value", 2**31))
    if tp is float:
        return st.floats(min_value=bounds.get("min_value"), allow_nan=False, allow_infinity=False)
    raise NotImplementedError(f"no strategy for {tp!r}")


def model_strategy(model: type[BaseModel], depth: int = 0) -> st.SearchStrategy[BaseModel]:
    """Instances of a pydantic model: required fields always, optional ones sometimes."""
    hints = typing.get_type_hints(model, include_extras=True)
    fields: dict[str, st.SearchStrategy[Any]] = {}
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for name, info in model.model_fields.items():
        info = typing.cast(FieldInfo, info)
        metadata = list(info.metadata)
        if isinstance(info.json_schema_extra, dict) and "minItems" in info.json_schema_extra:
            # a minimum the loader checks, not the model (an evaluation set's questions)
            metadata.append(annotated_types.MinLen(typing.cast(int, info.json_schema_extra["minItems"])))
        strat = strategy_for(hints[name], metadata, depth)
        (fields if info.is_required() else optional)[name] = strat
    return st.fixed_dictionaries(fields, optional=optional).map(lambda kw: model(**kw))


def _models() -> list[type[BaseModel]]:
    found = []
    for name in schemas.__all__:
        obj = getattr(schemas, name)
        if isinstance(obj, type) and issubclass(obj, BaseModel) and obj is not schemas.StrictModel:
            found.append(obj)
    return sorted(found, key=lambda m: m.__name__)


@pytest.mark.parametrize("model", _models(), ids=lambda m: m.__name__)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_json_round_trip(model: type[BaseModel], data: st.DataObject) -> None:
    instance = data.draw(model_strategy(model))
    text = instance.model_dump_json()
    assert model.model_validate_json(text) == instance
    plain = json.loads(json.dumps(instance.model_dump(mode="json")))
    assert model.model_validate(plain) == instance


SCHEMA_OF = {model: kind for kind, model in SCHEMA_MODELS.items()}


@pytest.mark.parametrize("model", list(SCHEMA_OF), ids=lambda m: m.__name__)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_generated_files_satisfy_the_committed_schema(model: type[BaseModel], data: st.DataObject) -> None:
    schema = json.loads((ROOT / "schemas" / f"{SCHEMA_OF[model]}.schema.json").read_text(encoding="utf-8"))
    instance = data.draw(model_strategy(model))
    errors = jsonschema.Draft202012Validator(schema).iter_errors(instance.model_dump(mode="json"))
    assert [e.message for e in errors if not _across_fields(e)] == []


def _across_fields(error: jsonschema.ValidationError) -> bool:
    """Whether a schema error is of a rule across fields (the schema's `if`/`then`/`else`: a
    supported claim names its support, a judge its prompt version ...), which the checks apply
    after the models (`validation`), so a model instance may break it; in a union, whether some
    branch fails only so."""
    if {"then", "else"} & set(error.schema_path):
        return True
    branches: dict[object, list[jsonschema.ValidationError]] = {}
    for sub in error.context or []:
        branches.setdefault(sub.schema_path[0], []).append(sub)
    return error.validator == "anyOf" and any(all(map(_across_fields, b)) for b in branches.values())
