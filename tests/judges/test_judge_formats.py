"""The judge's response formats: request bodies per format and endpoint kind (no real server)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner
from judgekit import FakeServer, claim, good_answer, serve, write_dataset

from judge_tasks import task_of
from ragtriage.cli.judge import judge_command
from ragtriage.errors import InputError
from ragtriage.judges import (
    RESPONSE_FORMATS,
    JudgeSpec,
    cache_key,
    default_response_format,
    parse_claims,
    reply_schema,
    response_format_body,
)

TASKS = ("outcome", "claims", "support", "coverage")

COVERAGE_SCHEMA = {
    "additionalProperties": False,
    "description": "The coverage task's answer.",
    "properties": {
        "verdict": {
            "enum": ["covered", "not_covered", "cannot_judge"],
            "title": "Verdict",
            "type": "string",
        },
        "reason": {"title": "Reason", "type": "string"},
    },
    "required": ["verdict", "reason"],
    "title": "CoverageAnswer",
    "type": "object",
}


def _claims_schema(*, strict_subset: bool) -> dict[str, Any]:
    """The claims reply schema; the OpenAI-style strict form has no length keywords."""
    at_least_one: dict[str, Any] = {} if strict_subset else {"minLength": 1}
    item = {
        "additionalProperties": False,
        "description": "One extracted claim.",
        "properties": {
            "text": {**at_least_one, "title": "Text", "type": "string"},
            "citations": {
                "items": {**at_least_one, "type": "string"},
                "title": "Citations",
                "type": "array",
            },
        },
        "required": ["text", "citations"],
        "title": "ClaimItem",
        "type": "object",
    }
    return {
        "$defs": {"ClaimItem": item},
        "additionalProperties": False,
        "description": "The claim-extraction task's answer.",
        "properties": {
            "claims": {"items": {"$ref": "#/$defs/ClaimItem"}, "title": "Claims", "type": "array"}
        },
        "required": ["claims"],
        "title": "ClaimsAnswer",
        "type": "object",
    }


def _spec(response_format: str, endpoint_kind: str = "openai-compatible") -> JudgeSpec:
    return JudgeSpec(
        model="m", endpoint_kind=endpoint_kind, prompt_version="v1", response_format=response_format
    )


def test_the_response_formats_and_the_default_per_endpoint_kind() -> None:
    assert RESPONSE_FORMATS == ("json_schema", "json_object", "none")
    assert [default_response_format(k) for k in ("llama.cpp", "openai-compatible", "vllm")] == [
        "json_schema",
        "json_object",
        "json_object",
    ]


def test_reply_schema_is_the_parser_model_closed() -> None:
    assert reply_schema("coverage") == COVERAGE_SCHEMA
    # `citations` has a default in the parser model; constrained output always sends it.
    assert reply_schema("claims") == _claims_schema(strict_subset=False)
    # OpenAI-style strict mode refuses length keywords: the parser still enforces them.
    assert reply_schema("claims", strict_subset=True) == _claims_schema(strict_subset=True)
    assert parse_claims('{"claims": [{"text": ""}]}').reason == (
        "unparseable judge answer: wrong shape at claims.0.text: String should have at least "
        """1 character (1 error): '{"claims": [{"text": ""}]}'"""
    )


@pytest.mark.parametrize("task", TASKS)
def test_every_good_answer_fits_its_schema(task: str) -> None:
    answer = json.loads(good_answer(task, "[refund-v2] Refunds are paid within 5 days."))
    jsonschema.validate(answer, reply_schema(task))
    jsonschema.validate(answer, reply_schema(task, strict_subset=True))


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("kind", ["openai-compatible", "vllm", "ollama", "llama.cpp"])
def test_json_object_and_none_bodies_do_not_depend_on_kind_or_task(kind: str, task: str) -> None:
    assert response_format_body(_spec("json_object", kind), task) == {"type": "json_object"}
    assert response_format_body(_spec("none", kind), task) is None


def test_json_schema_body_for_llama_cpp() -> None:
    assert response_format_body(_spec("json_schema", "llama.cpp"), "coverage") == {
        "type": "json_object",
        "schema": COVERAGE_SCHEMA,
    }
    assert response_format_body(_spec("json_schema", "llama.cpp"), "claims") == {
        "type": "json_object",
        "schema": _claims_schema(strict_subset=False),
    }


@pytest.mark.parametrize("kind", ["openai-compatible", "vllm", "ollama"])
def test_json_schema_body_openai_style(kind: str) -> None:
    assert response_format_body(_spec("json_schema", kind), "coverage") == {
        "type": "json_schema",
        "json_schema": {"name": "ragtriage_coverage", "schema": COVERAGE_SCHEMA, "strict": True},
    }
    assert response_format_body(_spec("json_schema", kind), "claims") == {
        "type": "json_schema",
        "json_schema": {
            "name": "ragtriage_claims",
            "schema": _claims_schema(strict_subset=True),
            "strict": True,
        },
    }


def test_json_schema_refuses_a_task_without_a_reply_model_and_unknown_formats() -> None:
    with pytest.raises(ValueError) as no_model:
        response_format_body(_spec("json_schema"), "generate-answer")
    assert str(no_model.value) == (
        "no reply schema for task 'generate-answer' (expected one of outcome, claims, support, "
        "coverage); use response_format 'json_object' or 'none'"
    )
    with pytest.raises(ValueError) as unknown:
        response_format_body(_spec("xml"), "support")
    assert str(unknown.value) == (
        "unknown response format 'xml' (expected one of json_schema, json_object, none)"
    )


def test_cache_key_carries_the_schema_sent() -> None:
    messages = [{"role": "user", "content": "x"}]
    keys = {
        cache_key(_spec(fmt, kind), "support", messages)
        for fmt in RESPONSE_FORMATS
        for kind in ("openai-compatible", "llama.cpp")
    }
    assert len(keys) == 6
    spec = _spec("json_schema")
    assert cache_key(spec, "support", messages) != cache_key(spec, "coverage", messages)


def _cli_args(folder: Path, url: str, *extra: str) -> list[str]:
    return [
        str(folder / "evalset.json"),
        "--snapshot",
        str(folder / "snapshot.json"),
        "--run",
        str(folder / "run.json"),
        "--output",
        str(folder / "out"),
        "--base-url",
        url,
        "--model",
        "fake-judge",
        "--no-cache",
        "--no-progress",
        *extra,
    ]


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ((), {"coverage": {"type": "json_object"}, "support": {"type": "json_object"}}),
        (
            ("--endpoint-kind", "llama.cpp"),
            {
                "coverage": {"type": "json_object", "schema": reply_schema("coverage")},
                "support": {"type": "json_object", "schema": reply_schema("support")},
            },
        ),
        (
            ("--endpoint-kind", "llama.cpp", "--response-format", "json_object"),
            {"coverage": {"type": "json_object"}, "support": {"type": "json_object"}},
        ),
        (
            ("--endpoint-kind", "vllm", "--response-format", "json_schema"),
            {
                task: {
                    "type": "json_schema",
                    "json_schema": {
                        "name": f"ragtriage_{task}",
                        "schema": reply_schema(task, strict_subset=True),
                        "strict": True,
                    },
                }
                for task in ("coverage", "support")
            },
        ),
        (("--response-format", "none"), {"coverage": None, "support": None}),
    ],
)
def test_cli_sends_the_chosen_format_per_task(
    tmp_path: Path, extra: tuple[str, ...], expected: dict[str, Any]
) -> None:
    write_dataset(tmp_path, [claim("Refunds are paid within 5 working days.", "c1")])
    with serve(FakeServer()) as server:
        result = CliRunner().invoke(judge_command, _cli_args(tmp_path, server.url, *extra))
        bodies = list(server.bodies)
    assert result.exit_code == 0, result.output
    sent = sorted(
        (task_of(b["messages"][0]["content"]), json.dumps(b.get("response_format")))
        for b in bodies
    )
    # support c1, z1; coverage q1 f1, q1 f2, q2 f1 (q3 is refused)
    assert sent == sorted(
        (task, json.dumps(expected[task]))
        for task in ("support", "support", "coverage", "coverage", "coverage")
    )


def test_api_refuses_an_unknown_response_format(tmp_path: Path) -> None:
    from ragtriage import judge_files

    write_dataset(tmp_path, [claim("Refunds are paid within 5 working days.", "c1")])
    with pytest.raises(InputError) as caught:
        judge_files(
            tmp_path / "evalset.json",
            snapshot=tmp_path / "snapshot.json",
            runs=[tmp_path / "run.json"],
            output=tmp_path / "out",
            base_url="http://127.0.0.1:9/v1",
            model="m",
            response_format="xml",
        )
    assert str(caught.value) == (
        "1 problem found in the input:\n- <command line>: --response-format: expected one of "
        "auto, json_schema, json_object, none; found 'xml'"
    )


def test_cli_refuses_an_unknown_response_format(tmp_path: Path) -> None:
    write_dataset(tmp_path, [claim("Refunds are paid within 5 working days.", "c1")])
    result = CliRunner().invoke(
        judge_command, _cli_args(tmp_path, "http://127.0.0.1:9/v1", "--response-format", "xml")
    )
    assert result.exit_code == 2
    assert (
        "Invalid value for '--response-format': 'xml' is not one of 'auto', 'json_schema', "
        "'json_object', 'none'." in result.output
    )
