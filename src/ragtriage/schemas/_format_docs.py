"""`docs/data-format.md`, rendered from the models: an example per file kind, every field.

Field tables come from the JSON Schemas (types, defaults) and the models' field docstrings,
so the document cannot drift from the code; a test checks the committed file equals this
module's output. Regenerate with `python -m ragtriage.schemas._format_docs > docs/data-format.md`.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from ._format_intro import INTRO
from ._json_schema import SCHEMA_MODELS, json_schema
from ._shared import IDENTIFIER_PATTERN, ISO_DATE_PATTERN, TEXT_PATTERN

JSONL_RUN_EXAMPLE = (
    '{"schema_version": 1, "kind": "run", "name": "baseline", "provenance": {"k": 2}}\n'
    '{"question_id": "retention", "candidates": [{"id": "retention-v2"}], "outcome": "refused", '
    '"answer": "I cannot tell.", "claims": []}\n'
    '{"question_id": "extension", "candidates": [{"id": "retention-v1"}], "outcome": "refused", '
    '"answer": "Not documented.", "claims": []}\n'
)
"""The JSONL run shown in the document (it answers the evaluation set example)."""


_EXAMPLES: dict[str, tuple[str, dict[str, Any]]] = {
    "snapshot": (
        "The documents a system could retrieve: versions, status, what supersedes what, who "
        "may read them, and optional chunks.",
        {
            "schema_version": 1,
            "kind": "snapshot",
            "snapshot_id": "docs-2026-11",
            "documents": [
                {
                    "id": "retention-v1",
                    "text": "Logs are kept for 30 days.",
                    "version": "v1",
                    "status": "superseded",
                },
                {
                    "id": "retention-v2",
                    "text": "Logs are kept for 7 days.",
                    "version": "v2",
                    "supersedes": ["retention-v1"],
                    "effective_date": "2026-06-01",
                },
                {
                    "id": "discounts",
                    "text": "Internal: 35% enterprise discount.",
                    "access_groups": ["finance"],
                },
            ],
            "chunks": [
                {"id": "retention-v2#0", "document_id": "retention-v2", "start": 0, "end": 25}
            ],
        },
    ),
    "evalset": (
        "The questions, each with its answerability, required evidence (groups of "
        "alternatives), reference facts, tags and split.",
        {
            "schema_version": 1,
            "kind": "evalset",
            "evalset_id": "support-v1",
            "snapshot_id": "docs-2026-11",
            "questions": [
                {
                    "id": "retention",
                    "text": "How long are logs kept?",
                    "answerability": "answerable",
                    "required_evidence": [{"any_of": ["retention-v2"]}],
                    "reference_facts": [
                        {
                            "id": "7-days",
                            "text": "logs are kept 7 days",
                            "evidence": ["retention-v2"],
                        }
                    ],
                    "applies_to": {"version": "v2"},
                    "tags": ["version-conflict"],
                    "split": "regression",
                    "user_groups": ["support"],
                },
                {
                    "id": "extension",
                    "text": "Can retention be extended to a year?",
                    "answerability": "unanswerable",
                    "tags": ["no-answer"],
                },
            ],
        },
    ),
    "run": (
        "What one configuration did per question: candidates, reranked list, the context "
        "actually sent, the answer and its outcome, claims with citations and labels, fact "
        "labels, latency and cost; provenance says how it was produced.",
        {
            "schema_version": 1,
            "kind": "run",
            "name": "baseline",
            "provenance": {
                "snapshot_id": "docs-2026-11",
                "evalset_id": "support-v1",
                "retriever": {"name": "bm25", "version": "0.3"},
                "k": 2,
                "prompt_version": "answer-v1",
                "seed": 7,
            },
            "results": [
                {
                    "question_id": "retention",
                    "candidates": [
                        {"id": "retention-v1", "score": 9.1},
                        {"id": "retention-v2", "score": 8.7},
                    ],
                    "context": [{"id": "retention-v1", "text": "Logs are kept for 30 days."}],
                    "answer": "Logs are kept for 30 days. [retention-v1]",
                    "outcome": "answered",
                    "claims": [
                        {
                            "id": "c1",
                            "text": "Logs are kept for 30 days.",
                            "citations": ["retention-v1"],
                            "labels": [
                                {
                                    "verdict": "supported",
                                    "supported_by": ["retention-v1"],
                                    "labeller": {"kind": "human", "name": "mei"},
                                }
                            ],
                        }
                    ],
                    "fact_labels": [
                        {
                            "fact_id": "7-days",
                            "verdict": "not_covered",
                            "labeller": {"kind": "human", "name": "mei"},
                        }
                    ],
                    "latency_ms": 840.0,
                    "cost_usd": 0.0004,
                    "usage": {"prompt_tokens": 410, "completion_tokens": 18},
                },
                {
                    "question_id": "extension",
                    "candidates": [{"id": "retention-v2"}],
                    "context": [{"id": "retention-v2"}],
                    "answer": "The documentation does not say.",
                    "outcome": "refused",
                    "claims": [],
                },
            ],
        },
    ),
    "labels": (
        "Labels for one run kept in their own file (from a review sheet or a judge); they "
        "are attached to the run's claims and answers when loaded with `--labels`. A label "
        "may leave out `labeller` when the file gives one at the top (`labeller`, the "
        "default): it is then that label's labeller (below, the fact label's is `mei`, the "
        "claim label names its own). A label without a labeller in a file without a default "
        "is refused.",
        {
            "schema_version": 1,
            "kind": "labels",
            "run": "baseline",
            "labeller": {"kind": "human", "name": "mei"},
            "claim_labels": [
                {
                    "question_id": "retention",
                    "claim_id": "c1",
                    "label": {
                        "verdict": "cannot_judge",
                        "labeller": {
                            "kind": "judge",
                            "name": "judge-model",
                            "prompt_version": "support-v1",
                        },
                        "reason": "the context gives two retention periods",
                    },
                },
            ],
            "fact_labels": [
                {
                    "question_id": "retention",
                    "label": {"fact_id": "7-days", "verdict": "not_covered"},
                },
            ],
        },
    ),
    "article": (
        "The article's format: corpus, cases and runs in one file. Each required evidence "
        "ID is its own group; the top k of `retrievedIds` (k = 2 unless `-k` is given) is the "
        "context; reviews are attributed to a human reviewer `article-reviewer`.",
        {
            "schemaVersion": 1,
            "corpus": [{"id": "retention-v2", "text": "Logs are kept for 7 days."}],
            "cases": [
                {
                    "id": "retention",
                    "question": "How long are logs kept?",
                    "answerable": True,
                    "requiredEvidenceIds": ["retention-v2"],
                    "referenceFactIds": ["7-days"],
                }
            ],
            "runs": [
                {
                    "name": "baseline",
                    "results": [
                        {
                            "caseId": "retention",
                            "retrievedIds": ["retention-v2"],
                            "answer": "7 days. [retention-v2]",
                            "abstained": False,
                            "claims": [
                                {
                                    "text": "Logs are kept 7 days",
                                    "citationIds": ["retention-v2"],
                                    "review": {"supportedByIds": ["retention-v2"]},
                                }
                            ],
                            "review": {"coveredReferenceFactIds": ["7-days"]},
                        }
                    ],
                }
            ],
        },
    ),
}

_TITLES = {
    "snapshot": "Knowledge snapshot",
    "evalset": "Evaluation set",
    "run": "Run",
    "labels": "Labels",
    "article": "Article format (`schemaVersion: 1`)",
}


def format_examples() -> dict[str, dict[str, Any]]:
    """The example file content shown for each kind (tests validate them with the models)."""
    return {kind: example for kind, (_, example) in _EXAMPLES.items()}


def _type(node: dict[str, Any]) -> str:
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "anyOf" in node:
        return " or ".join(_type(n) for n in node["anyOf"])
    if "const" in node:
        return f"`{json.dumps(node['const'])}`"
    if "enum" in node:
        return " \\| ".join(f"`{json.dumps(v, ensure_ascii=False)}`" for v in node["enum"])
    kind = node.get("type")
    if kind == "array":
        text = f"list of {_type(node.get('items', {}))}"
        if node.get("minItems"):
            text += f" (at least {node['minItems']})"
        return text
    if kind == "object":
        return f"map of string to {_type(node.get('additionalProperties', {}))}"
    if kind == "string" and node.get("pattern") == ISO_DATE_PATTERN:
        return "date (`YYYY-MM-DD`, `YYYY-MM` or `YYYY`)"
    if kind == "string" and node.get("pattern") == IDENTIFIER_PATTERN:
        return "ID"
    if kind == "string" and node.get("pattern") == TEXT_PATTERN:
        return "text (not only whitespace)"
    if kind == "string":
        return "non-empty string" if node.get("minLength") else "string"
    if kind in ("integer", "number"):
        text = str(kind)
        if "minimum" in node:
            text += f" >= {node['minimum']}"
        if "exclusiveMinimum" in node:
            text += f" > {node['exclusiveMinimum']}"
        if "maximum" in node:
            text += f", <= {node['maximum']}"
        return text
    if kind in ("boolean", "null"):
        return str(kind)
    return "any JSON value" if not node else "scalar"


def _default(prop: dict[str, Any], required: bool) -> str:
    if required:
        return "required"
    if "default" in prop:
        return f"`{json.dumps(prop['default'], ensure_ascii=False)}`"
    # A default factory leaves no default in the JSON Schema: lists and maps start empty.
    return {"array": "`[]`", "object": "`{}`"}.get(str(prop.get("type", "")), "optional")


def _table(name: str, schema: dict[str, Any]) -> list[str]:
    lines = [f"#### {name}", "", schema.get("description", "").strip(), ""]
    lines += ["| field | type | default | meaning |", "| --- | --- | --- | --- |"]
    required = set(schema.get("required", []))
    for field, prop in schema.get("properties", {}).items():
        meaning = " ".join(str(prop.get("description", "")).split()).replace("|", "\\|")
        lines.append(
            f"| `{field}` | {_type(prop)} | {_default(prop, field in required)} | {meaning} |"
        )
    return [*lines, ""]


def _reachable(schema: dict[str, Any]) -> list[str]:
    """Definitions referenced from the top-level model, in order of first reference."""
    defs = schema.get("$defs", {})
    order: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                name = ref.rsplit("/", 1)[-1]
                if name not in order:
                    order.append(name)
                    walk(defs.get(name, {}).get("properties", {}))
            for key, value in node.items():
                if key != "$defs":
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema.get("properties", {}))
    return order


def render_format_markdown() -> str:
    """The whole data-format reference as Markdown."""
    lines = [INTRO.replace("{jsonl}", f"```\n{JSONL_RUN_EXAMPLE}```\n")]
    # A definition is written out once, unless a file kind reads it differently (a labels
    # file's labels may leave out `labeller`).
    documented: dict[str, dict[str, Any]] = {}
    for kind in SCHEMA_MODELS:
        summary, example = _EXAMPLES[kind]
        schema = json_schema(kind)
        lines += [f"## {_TITLES[kind]}", "", summary, ""]
        lines += ["```json", json.dumps(example, ensure_ascii=False, indent=2), "```", ""]
        lines += _table(SCHEMA_MODELS[kind].__name__, schema)
        for name in _reachable(schema):
            definition = schema["$defs"][name]
            if documented.get(name) == definition:
                lines += [f"#### {name}", "", f"As [above](#{name.lower()}).", ""]
                continue
            documented.setdefault(name, definition)
            lines += _table(name, definition)
    return "\n".join(lines).rstrip("\n") + "\n"


if __name__ == "__main__":
    sys.stdout.write(render_format_markdown())
