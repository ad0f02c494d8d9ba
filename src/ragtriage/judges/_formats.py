"""What the judge asks the endpoint to return: a response format per task and endpoint kind.

Constrained output (`json_schema`) sends the JSON schema of the very pydantic model the
strict parser validates the reply against, so that even a small model can only produce that
shape. The parser still checks every reply: the schema narrows what comes back, it does not
replace the check.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel

from ._parse import ClaimsAnswer, CoverageAnswer, OutcomeAnswer, SupportAnswer
from ._spec import JudgeSpec

ResponseFormat = Literal["json_schema", "json_object", "none"]
"""`json_schema`: the task's reply schema (constrained output); `json_object`: any JSON
object; `none`: no response format (for endpoints that refuse one)."""
RESPONSE_FORMATS: tuple[ResponseFormat, ...] = get_args(ResponseFormat)
"""The response formats a judge can ask for."""
AUTO_RESPONSE_FORMAT = "auto"
"""The option value that picks `default_response_format(endpoint_kind)`."""
LLAMA_CPP = "llama.cpp"
"""The endpoint kind whose schema form is `{"type": "json_object", "schema": ...}`."""

REPLY_MODELS: dict[str, type[BaseModel]] = {
    "outcome": OutcomeAnswer,
    "claims": ClaimsAnswer,
    "support": SupportAnswer,
    "coverage": CoverageAnswer,
}
"""The reply model of each judge task (what `parse_<task>` validates against)."""

# Keywords outside the subset OpenAI-style strict mode accepts; a schema with them is refused.
_NOT_IN_STRICT_SUBSET = frozenset({"minLength", "maxLength", "default"})


def default_response_format(endpoint_kind: str) -> ResponseFormat:
    """`json_schema` for llama.cpp (verified against its server); `json_object` for every
    other kind, whose support for schemas depends on the server and its version."""
    return "json_schema" if endpoint_kind == LLAMA_CPP else "json_object"


def _closed(node: Any, *, strict_subset: bool) -> Any:
    """The schema with every object's properties all required and no others allowed."""
    if isinstance(node, list):
        return [_closed(item, strict_subset=strict_subset) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("properties", "$defs") and isinstance(value, dict):
            # Names, not keywords: every entry is kept, its schema closed in turn.
            out[key] = {k: _closed(v, strict_subset=strict_subset) for k, v in value.items()}
        elif key != "default" and not (strict_subset and key in _NOT_IN_STRICT_SUBSET):
            out[key] = _closed(value, strict_subset=strict_subset)
    if isinstance(node.get("properties"), dict):
        # A field with a default (e.g. a claim's `citations`) is required here: constrained
        # output is a subset of what the parser accepts, never a superset.
        out["required"] = list(node["properties"])
        out["additionalProperties"] = False
    return out


def reply_schema(task: str, *, strict_subset: bool = False) -> dict[str, Any]:
    """The JSON schema of `task`'s reply model, closed for constrained decoding.

    `strict_subset` also drops the keywords OpenAI-style strict mode refuses (`minLength`,
    `maxLength`); the parser still enforces them.
    """
    model = REPLY_MODELS.get(task)
    if model is None:
        raise ValueError(
            f"no reply schema for task {task!r} (expected one of {', '.join(REPLY_MODELS)}); "
            "use response_format 'json_object' or 'none'"
        )
    closed: dict[str, Any] = _closed(model.model_json_schema(), strict_subset=strict_subset)
    return closed


def response_format_body(spec: JudgeSpec, task: str) -> dict[str, Any] | None:
    """The request's `response_format` for one call, in the form `spec.endpoint_kind`
    understands; None when none is sent."""
    if spec.response_format == "none":
        return None
    if spec.response_format == "json_object":
        return {"type": "json_object"}
    if spec.response_format != "json_schema":
        raise ValueError(
            f"unknown response format {spec.response_format!r} "
            f"(expected one of {', '.join(RESPONSE_FORMATS)})"
        )
    if spec.endpoint_kind == LLAMA_CPP:
        # llama.cpp's servers (llama-server, and llama-cpp-python, whose `type` accepts only
        # `text` or `json_object`) turn this schema into a grammar.
        return {"type": "json_object", "schema": reply_schema(task)}
    return {
        "type": "json_schema",
        "json_schema": {
            "name": f"ragtriage_{task}",
            "schema": reply_schema(task, strict_subset=True),
            "strict": True,
        },
    }
