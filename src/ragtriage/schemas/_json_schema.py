"""JSON Schema export: one schema per file kind, generated from the pydantic models.

The generated files are committed under `schemas/` at the repository root; a test checks
that they equal what this module produces, so the published schemas cannot drift.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from itertools import pairwise
from typing import Any, cast

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema

from ..fileio import file_problem, json_text
from ._article import ArticleDataset
from ._evalset import EvalSet
from ._labels import LABEL_LISTS, LabelSet
from ._run import Run
from ._snapshot import Snapshot

SCHEMA_MODELS: dict[str, type[BaseModel]] = {
    "snapshot": Snapshot,
    "evalset": EvalSet,
    "run": Run,
    "labels": LabelSet,
    "article": ArticleDataset,
}
"""The model behind each file kind, in the order they are documented."""

_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_ID_BASE = "https://ragtriage.invalid/schemas/"


def json_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of one file kind; an unknown kind raises `InputError`."""
    model = SCHEMA_MODELS.get(kind)
    if model is None:
        expected = f"one of {', '.join(SCHEMA_MODELS)}"
        raise file_problem("<command line>", expected, repr(kind), "KIND")
    schema = model.model_json_schema(mode="validation", schema_generator=_FieldDocs)
    if "kind" in model.model_fields:
        _declared(schema)
    if kind == "labels":
        _labeller_optional(schema)
    # `$schema` and `$id` make the file self-describing for editors and validators.
    return {"$schema": _DIALECT, "$id": f"{_ID_BASE}{kind}.schema.json", **schema}


class _FieldDocs(GenerateJsonSchema):
    """Pydantic's JSON Schema, each field described by its attribute docstring (as
    `use_attribute_docstrings` does) read here, where a schema is made, not when each model
    class is built: that would cost every command about 0.07 s."""

    def model_schema(self, schema: Any) -> dict[str, Any]:  # pydantic_core's ModelSchema
        out = super().model_schema(schema)
        cls: type[BaseModel] = schema["cls"]
        properties = out.get("properties", {})
        docs: dict[type, dict[str, str]] = {}
        for name, field in cls.model_fields.items():
            # The docstring of the class that annotates the field last, as pydantic reads it.
            owner = next(k for k in cls.__mro__ if name in inspect.get_annotations(k))
            if owner not in docs:
                docs[owner] = _attribute_docs(owner)
            if field.description is None and name in docs[owner] and name in properties:
                properties[name]["description"] = docs[owner][name]
        return out


def _attribute_docs(cls: type) -> dict[str, str]:
    """The attribute docstrings of `cls`'s own body: a field's is the string written right
    after its annotated assignment, indentation cleaned as a docstring's."""
    tree = cast(ast.ClassDef, ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0])
    return {
        field.target.id: inspect.cleandoc(doc.value.value)
        for field, doc in pairwise(tree.body)
        if isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name)
        and isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant)
        and isinstance(doc.value.value, str)
    }


def _declared(schema: dict[str, Any]) -> None:
    # A native file must give its version and kind (the loader reads them before the model:
    # `schema_version: expected 1; found nothing`); the models default them for Python callers.
    names = ("schema_version", "kind")
    for name in names:
        del schema["properties"][name]["default"]
    schema["required"] = [*names, *schema["required"]]


LABELLER_DEFAULT_NOTE = (
    "In a labels file it may be left out when the file gives `labeller` (the default)."
)
"""What a labels file's schema adds to a label's `labeller` (see `LabelSet.labeller`)."""


def _labeller_optional(schema: dict[str, Any]) -> None:
    # `LabelSet` fills in the file's default labeller before a label is validated, so a
    # label in a labels file may leave it out: the schema says what the reader accepts.
    for name in ("ClaimLabel", "FactLabel"):
        definition = schema["$defs"][name]
        definition["required"] = [f for f in definition["required"] if f != "labeller"]
        prop = definition["properties"]["labeller"]
        prop["description"] = f"{prop['description']} {LABELLER_DEFAULT_NOTE}"
    # ... but only in a file that gives one (`labeller` absent or null: no default).
    named = {"items": {"properties": {"label": {"required": ["labeller"]}}}}
    schema["if"] = {"properties": {"labeller": {"type": "null"}}}
    schema["then"] = {"properties": dict.fromkeys(LABEL_LISTS, named)}


def schema_text(kind: str) -> str:
    """The JSON Schema of one file kind as committed: sorted keys, two-space indent, newline."""
    return json_text(json_schema(kind))


def schema_file_name(kind: str) -> str:
    """The committed file name of a kind's schema (`run.schema.json`)."""
    return f"{kind}.schema.json"
