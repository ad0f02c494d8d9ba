"""Published artefacts stay in step with the code: JSON Schemas, docs/metrics.md, command docs."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from ragtriage.cli.main import COMMANDS, cli
from ragtriage.example import example_paths
from ragtriage.metrics._docs import render_metrics_markdown
from ragtriage.schemas._format_docs import (
    JSONL_RUN_EXAMPLE,
    format_examples,
    render_format_markdown,
)
from ragtriage.schemas._json_schema import SCHEMA_MODELS, json_schema, schema_file_name, schema_text

ROOT = Path(__file__).resolve().parents[2]
REGENERATE = "regenerate: for k in snapshot evalset run labels article; do ragtriage schema $k --output schemas/$k.schema.json; done"


@pytest.mark.parametrize("kind", list(SCHEMA_MODELS))
def test_committed_schema_equals_generated(kind: str) -> None:
    committed = (ROOT / "schemas" / schema_file_name(kind)).read_text(encoding="utf-8")
    assert committed == schema_text(kind), REGENERATE


def test_no_stray_schema_files() -> None:
    assert sorted(p.name for p in (ROOT / "schemas").glob("*.json")) == sorted(
        schema_file_name(k) for k in SCHEMA_MODELS
    )


@pytest.mark.parametrize("kind", list(SCHEMA_MODELS))
def test_schema_is_valid_draft_2020_12(kind: str) -> None:
    schema = json_schema(kind)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["additionalProperties"] is False


def _example_files() -> list[tuple[str, Path]]:
    paths = example_paths()
    return [("snapshot", paths.snapshot), ("evalset", paths.evalset), *(("run", p) for p in paths.runs)]


@pytest.mark.parametrize(("kind", "path"), _example_files(), ids=lambda v: getattr(v, "name", v))
def test_example_files_validate_against_their_schema(kind: str, path: Path) -> None:
    schema = json.loads((ROOT / "schemas" / schema_file_name(kind)).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(json.loads(path.read_text(encoding="utf-8")))


def test_article_fixture_validates_against_the_article_schema(article_fixture: Path) -> None:
    schema = json.loads((ROOT / "schemas" / "article.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(json.loads(article_fixture.read_text(encoding="utf-8")))


def test_schema_rejects_an_unknown_field() -> None:
    bad = {"schema_version": 1, "kind": "snapshot", "snapshot_id": "s", "documents": [], "extra": 1}
    with pytest.raises(jsonschema.ValidationError) as caught:
        jsonschema.validate(bad, json_schema("snapshot"))
    assert "'extra' was unexpected" in caught.value.message


def test_schema_command_prints_and_writes(tmp_path: Path) -> None:
    runner = CliRunner()
    out = runner.invoke(cli, ["schema", "run"])
    assert (out.exit_code, out.stdout) == (0, schema_text("run"))
    target = tmp_path / "labels.schema.json"
    out = runner.invoke(cli, ["schema", "labels", "--output", str(target)])
    assert (out.exit_code, out.stdout) == (0, "")
    assert target.read_text(encoding="utf-8") == schema_text("labels")


def test_schema_command_refuses_an_unknown_kind() -> None:
    out = CliRunner().invoke(cli, ["schema", "bogus"])
    assert out.exit_code == 2
    assert out.stderr.splitlines()[-1] == (
        "Error: Invalid value for '{snapshot|evalset|run|labels|article}': 'bogus' is not one of "
        "'snapshot', 'evalset', 'run', 'labels', 'article'."
    )


def test_metrics_doc_is_generated_from_the_registry() -> None:
    committed = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    assert committed == render_metrics_markdown(), (
        "regenerate: python -m ragtriage.metrics._docs > docs/metrics.md"
    )


def _all_docs() -> str:
    texts = [(ROOT / "README.md").read_text(encoding="utf-8")]
    texts += [p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md"))]
    return "\n".join(texts)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name or "?")
def test_every_command_has_help_and_is_documented(command: object) -> None:
    name = getattr(command, "name", None)
    out = CliRunner().invoke(cli, [str(name), "--help"])
    assert out.exit_code == 0
    assert out.stdout.startswith(f"Usage: cli {name} ") or out.stdout.startswith(f"Usage: ragtriage {name} ")
    assert f"ragtriage {name}" in _all_docs(), f"document `ragtriage {name}` in README.md or docs/"


def test_data_format_doc_is_generated_from_the_models() -> None:
    committed = (ROOT / "docs" / "data-format.md").read_text(encoding="utf-8")
    assert committed == render_format_markdown(), (
        "regenerate: python -m ragtriage.schemas._format_docs > docs/data-format.md"
    )


@pytest.mark.parametrize("kind", list(SCHEMA_MODELS))
def test_data_format_examples_are_valid(kind: str) -> None:
    example = format_examples()[kind]
    SCHEMA_MODELS[kind].model_validate(example)
    jsonschema.Draft202012Validator(json_schema(kind)).validate(example)


def test_data_format_examples_evaluate_together(tmp_path: Path) -> None:
    examples = format_examples()
    for kind in ("snapshot", "evalset", "run", "labels", "article"):
        (tmp_path / f"{kind}.json").write_text(json.dumps(examples[kind]), encoding="utf-8")
    native = ["evaluate", str(tmp_path / "evalset.json"), "--snapshot", str(tmp_path / "snapshot.json"),
              "--run", str(tmp_path / "run.json"), "--labels", str(tmp_path / "labels.json")]
    (tmp_path / "jsonl-run.jsonl").write_text(JSONL_RUN_EXAMPLE, encoding="utf-8")
    jsonl = [*native[:4], "--run", str(tmp_path / "jsonl-run.jsonl")]
    for args in (native, jsonl, ["evaluate", str(tmp_path / "article.json")]):
        out = CliRunner().invoke(cli, [*args, "--format", "json"])
        assert (out.exit_code, out.stderr) == (0, "")
