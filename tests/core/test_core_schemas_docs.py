"""Published artefacts stay in step with the code: JSON Schemas, docs/metrics.md, command docs."""

from __future__ import annotations

import ast
import importlib
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from ragtriage.cli.main import COMMANDS, cli
from ragtriage.errors import ProblemCollector
from ragtriage.example import example_paths
from ragtriage.loading import read_file
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


def _result(**fields: Any) -> dict[str, Any]:
    claim = {"id": "c1", "text": "Logs are kept 7 days.", "citations": ["d1"]}
    return {"question_id": "q1", "candidates": [{"id": "d1"}], "claims": [claim], **fields}


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"answer": "7 days.", "outcome": "refused"}, "'answered' was expected"),
        ({}, "'outcome' is a required property"),
        ({"answer": "No.", "outcome": "escalated", "claims": [], "fact_labels": [
            {"fact_id": "f1", "verdict": "covered", "labeller": {"kind": "human", "name": "mei"}}
        ]}, "[{'fact_id': 'f1', 'verdict': 'covered', 'labeller': {'kind': 'human', 'name': "
            "'mei'}}] should not be valid under {'contains': {'properties': {'verdict': "
            "{'const': 'covered'}}, 'required': ['verdict']}}"),
    ],
)
def test_run_schema_refuses_what_only_an_answer_carries(fields: dict[str, Any], error: str) -> None:
    # claims of a refusal or of no answer, a refusal covering a fact: the loader refuses them
    # (`validation.non_answer_problems`); the schema accepted them
    run = {"schema_version": 1, "kind": "run", "name": "r", "results": [_result(**fields)]}
    errors = list(jsonschema.Draft202012Validator(json_schema("run")).iter_errors(run))
    assert [e.message for e in errors] == [error]


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


PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
         ROOT / "src" / "ragtriage" / "example" / "README.md"]  # fmt: skip


def _unresolved(name: str) -> bool:
    parts = name.split(".")
    obj: object = importlib.import_module(parts[0])
    for n, part in enumerate(parts[1:], 2):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            try:
                obj = importlib.import_module(".".join(parts[:n]))
            except ImportError:
                return True
    return False


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_python_name_a_page_gives_exists(page: Path) -> None:
    # `ragtriage.x.y` in the text, and the imports of its Python examples (renamed API: fails)
    text = page.read_text(encoding="utf-8")
    names = set(re.findall(r"(?<![\w/])ragtriage(?:\.[A-Za-z_]\w*)+", text))
    for block in re.findall(r"```python\n(.*?)```", text, flags=re.S):
        for node in ast.walk(ast.parse(block)):
            if isinstance(node, ast.ImportFrom) and node.module:
                names |= {f"{node.module}.{alias.name}" for alias in node.names}
    assert sorted(n for n in names if _unresolved(n)) == []


def _agrees(sample: object, real: object, where: str) -> list[str]:
    """Where the README's abridged JSON differs from the report ("..." is left out)."""
    if sample == "...":
        return []
    if isinstance(sample, dict) and isinstance(real, dict):
        return [p for k, v in sample.items() if k != "..." for p in
                (_agrees(v, real[k], f"{where}.{k}") if k in real else [f"{where}.{k}: missing"])]
    if isinstance(sample, list) and isinstance(real, list):
        problems = []
        for n, item in enumerate(x for x in sample if x != "..."):
            key = next((k for k in ("id", "name", "path") if isinstance(item, dict) and k in item), None)
            match = [r for r in real if key is None or r.get(key) == item[key]] or [None]
            problems += _agrees(item, match[0] if key else real[n], f"{where}[{n}]")
        return problems
    return [] if sample == real else [f"{where}: README {sample!r}, report {real!r}"]


def test_the_readme_json_contract_is_an_excerpt_of_the_report(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### The JSON contract") :]
    sample = json.loads(re.findall(r"```json\n(.*?)```", section, flags=re.S)[0])
    monkeypatch.chdir(ROOT)
    out = CliRunner().invoke(cli, ["evaluate", "tests/data/article-fixture.json", "-k", "2",
                                   "--format", "json"])  # fmt: skip
    assert (out.exit_code, out.stderr) == (0, "")
    assert _agrees(sample, json.loads(out.stdout), "report") == []


def _schema_and_loader(kind: str, data: dict[str, object], tmp_path: Path) -> tuple[list[str], list[str]]:
    """What the printed schema of `kind` says of `data` (its errors' messages) and what the loader
    says of it written to a file (its problems' fields, expected, found)."""
    messages = [e.message for e in jsonschema.Draft202012Validator(json_schema(kind)).iter_errors(data)]
    path = tmp_path / f"{kind}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    collector = ProblemCollector()
    read_file(path, collector)
    return messages, [f"{p.field}: {p.expected}; {p.found}" for p in collector.problems]


@pytest.mark.parametrize("kind", ["snapshot", "evalset", "run", "labels"])
@pytest.mark.parametrize("field", ["schema_version", "kind"])
def test_schema_requires_the_kind_and_version_the_loader_requires(
    kind: str, field: str, tmp_path: Path
) -> None:
    example = {k: v for k, v in format_examples()[kind].items() if k != field}
    messages, problems = _schema_and_loader(kind, example, tmp_path)
    assert messages == [f"'{field}' is a required property"]
    expected = "1" if field == "schema_version" else "one of snapshot, evalset, run, labels"
    assert problems == [f"{field}: {expected}; nothing"]
    assert "default" not in json_schema(kind)["properties"][field]


def test_schema_requires_a_question_as_the_loader_does(tmp_path: Path) -> None:
    messages, problems = _schema_and_loader("evalset", {**format_examples()["evalset"], "questions": []}, tmp_path)
    assert messages == ["[] should be non-empty"]
    assert problems == ["questions: a list of at least 1 item; an empty list"]
    assert json_schema("evalset")["properties"]["questions"]["minItems"] == 1


def _evaluated(tmp_path: Path, kind: str, data: dict[str, Any]) -> tuple[list[str], list[str]]:
    """What the printed schema of `kind` says of `data` (its errors' messages), and the problems
    `ragtriage evaluate` reports of the data-format examples with `data` in place of `kind`'s."""
    messages = [e.message for e in jsonschema.Draft202012Validator(json_schema(kind)).iter_errors(data)]
    files = {k: tmp_path / f"{k}.json" for k in ("snapshot", "evalset", "run", "labels")}
    for k, path in files.items():
        path.write_text(json.dumps(data if k == kind else format_examples()[k]), encoding="utf-8")
    out = CliRunner().invoke(cli, ["evaluate", str(files["evalset"]), "--snapshot", str(files["snapshot"]),
                                   "--run", str(files["run"]), "--labels", str(files["labels"])])
    assert out.exit_code == 2
    return messages, [line.replace(f"{tmp_path}/", "") for line in out.stderr.splitlines()[1:]]


def _changed(kind: str, change: Any) -> dict[str, Any]:
    data = json.loads(json.dumps(format_examples()[kind]))
    change(data)
    return data


LEFT_TO_RAGTRIAGE = [
    # (kind, change, what docs/data-format.md names, the problem evaluate reports)
    ("snapshot", lambda d: d["documents"].append(d["documents"][0]), "IDs unique in their scope",
     "- snapshot.json: documents[id=retention-v1]: expected unique document IDs; found "
     "'retention-v1' more than once"),
    ("run", lambda d: d["results"].append(d["results"][1]), "one result per question",
     "- run.json: question 'extension': results: expected one result per question; found 2 "
     "results"),
    ("snapshot", lambda d: d["chunks"][0].update(end=99), "a chunk's span and text",
     "- snapshot.json: chunks[id=retention-v2#0].start/end: expected 0 <= start < end <= 25 "
     "(the document's length); found start 0, end 99"),
    ("snapshot", lambda d: d["chunks"][0].update(id="discounts"),
     "chunk ID that is also a document ID",
     "- snapshot.json: chunks[id=discounts].id: expected a chunk ID distinct from every "
     "document ID; found 'discounts'"),
    ("snapshot", lambda d: d["documents"][0].update(supersedes=["retention-v1"]),
     "`supersedes` naming other documents",
     "- snapshot.json: documents[id=retention-v1].supersedes: expected IDs of other documents "
     "in the snapshot; found 'retention-v1'"),
    ("run", lambda d: d["provenance"].update(k=2.0), "JSON Schema counts `2.0` as an integer",
     "- run.json: provenance.k: expected an integer from 1 to 10000; found 2.0"),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "change", "named", "problem"), LEFT_TO_RAGTRIAGE)
def test_what_the_schema_cannot_say_is_named_and_refused_by_ragtriage(
    tmp_path: Path, kind: str, change: Any, named: str, problem: str
) -> None:
    # the docs said only cross-file rules and a day past its month's end escape the schema
    messages, problems = _evaluated(tmp_path, kind, _changed(kind, change))
    assert (messages, problems) == ([], [problem])
    intro = render_format_markdown().split("**JSON or JSONL.**")[0]
    assert named in " ".join(intro.split())


def _claim_label(**label: Any) -> dict[str, Any]:
    """The labels example, its claim label changed by `label` (a None value leaves a field out)."""
    example = format_examples()["labels"]
    entry = example["claim_labels"][0]
    changed = {k: v for k, v in {**entry["label"], **label}.items() if v is not None}
    return {**example, "claim_labels": [{**entry, "label": changed}]}


def test_schema_says_a_claim_is_supported_exactly_when_its_label_names_support(tmp_path: Path) -> None:
    messages, problems = _evaluated(tmp_path, "labels", _claim_label(verdict="supported"))
    assert messages == ["'supported_by' is a required property"]
    assert problems == ["- labels.json: question 'retention': claims[c1].supported_by: expected at least one supporting context ID for a supported claim; found none"]
    messages, problems = _evaluated(tmp_path, "labels", _claim_label(supported_by=["retention-v1"]))
    assert messages == ["['retention-v1'] is expected to be empty"]
    assert problems == ["- labels.json: question 'retention': claims[c1].supported_by: expected no supporting IDs for a claim labelled cannot_judge; found retention-v1"]


def test_schema_says_a_judge_names_its_prompt_version(tmp_path: Path) -> None:
    judge = {"kind": "judge", "name": "judge-model"}
    messages, problems = _evaluated(tmp_path, "labels", _claim_label(labeller=judge))
    assert messages == ["'prompt_version' is a required property"]
    assert problems == ["- labels.json: question 'retention': claims[c1].labels.labeller.prompt_version: expected the judge's prompt version; found nothing"]
    messages, _ = _evaluated(tmp_path, "labels", _claim_label(labeller={**judge, "prompt_version": ""}))
    assert messages == ["'' should be non-empty"]


def _second_result(**changes: Any) -> dict[str, Any]:
    """The run example, its second (refused) result changed by `changes` (None leaves a field out)."""
    example = format_examples()["run"]
    first, second = example["results"]
    changed = {k: v for k, v in {**second, **changes}.items() if v is not None}
    return {**example, "results": [first, changed]}


def test_schema_says_a_result_has_an_outcome_exactly_when_it_has_an_answer(tmp_path: Path) -> None:
    messages, problems = _evaluated(tmp_path, "run", _second_result(outcome=None))
    assert messages == ["'outcome' is a required property"]
    assert problems == ["- run.json: question 'extension': outcome: expected answered, refused, clarified or escalated for a result with an answer; found nothing"]
    messages, _ = _evaluated(tmp_path, "run", {**_second_result(), "results": [{**_second_result()["results"][1], "outcome": None}]})
    assert messages == ["None is not of type 'string'"]
    messages, problems = _evaluated(tmp_path, "run", _second_result(answer=" "))
    assert messages == ["' ' does not match '\\\\S'"]
    assert problems == ["- run.json: question 'extension': answer: expected non-empty answer text; found an empty answer"]
    messages, problems = _evaluated(tmp_path, "run", _second_result(answer=None, claims=None))
    assert messages == ["'answer' is a required property"]
    assert problems[-1] == "- run.json: question 'extension': answer: expected non-empty answer text; found nothing"


@pytest.mark.parametrize(
    ("date", "schema_accepts"),
    [("2024-13-40", False), ("2024-00", False), ("2024-12-32", False), ("2024-12-00", False),
     ("2024-12-31", True), ("2024-02-30", True), ("2024-12", True), ("2024", True),
     # the year 0000 matched the pattern, and the loader refuses it
     ("0000", False), ("0000-01-01", False), ("0001", True), ("0010-01", True)],
)
def test_schema_date_pattern_refuses_months_and_days_no_calendar_has(date: str, schema_accepts: bool, tmp_path: Path) -> None:
    example = format_examples()["snapshot"]
    first, *rest = example["documents"]
    messages, problems = _schema_and_loader("snapshot", {**example, "documents": [{**first, "effective_date": date}, *rest]}, tmp_path)
    pattern = json_schema("snapshot")["$defs"]["Document"]["properties"]["effective_date"]["anyOf"][0]["pattern"]
    assert messages == ([] if schema_accepts else [f"{date!r} is not valid under any of the given schemas"])
    # what the pattern lets through and the loader refuses: a day past its month's end
    loader_accepts = schema_accepts and date != "2024-02-30"
    assert problems == ([] if loader_accepts else [f"effective_date: an ISO date (YYYY-MM-DD, or YYYY-MM or YYYY); {date!r}"])
    assert pattern == ("^([1-9][0-9]{3}|0[1-9][0-9]{2}|00[1-9][0-9]|000[1-9])"
                       "(-(0[1-9]|1[0-2])(-(0[1-9]|[12][0-9]|3[01]))?)?$")


def test_a_human_labeller_names_no_prompt_version(tmp_path: Path) -> None:
    human = {"kind": "human", "name": "mei", "prompt_version": "v1"}
    messages, problems = _evaluated(tmp_path, "labels", _claim_label(labeller=human))
    assert messages == ["'v1' is not of type 'null'"]
    assert problems == ["- labels.json: question 'retention': claims[c1].labels.labeller.prompt_version: expected none for a human labeller (a prompt version is a judge's: kind judge); found 'v1'"]
    run = format_examples()["run"]
    first, second = run["results"]
    claim = first["claims"][0]
    labelled = {**claim, "labels": [{**claim["labels"][0], "labeller": human}]}
    changed = {**run, "results": [{**first, "claims": [labelled]}, second]}
    messages, problems = _evaluated(tmp_path, "run", changed)
    assert len(messages) == 1  # the claims' union (a list or null), whose best match is:
    best = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(json_schema("run")).iter_errors(changed))
    assert best is not None and best.message == "'v1' is not of type 'null'"
    assert problems == ["- run.json: question 'retention': claims[c1].labels.labeller.prompt_version: expected none for a human labeller (a prompt version is a judge's: kind judge); found 'v1'"]
    jsonschema.Draft202012Validator(json_schema("labels")).validate(_claim_label(labeller={**human, "prompt_version": None}))


def test_schema_says_a_label_names_its_labeller_when_the_file_gives_none(tmp_path: Path) -> None:
    example = format_examples()["labels"]
    for default in ({}, {"labeller": None}):
        without = {**{k: v for k, v in example.items() if k != "labeller"}, **default}
        messages, problems = _schema_and_loader("labels", without, tmp_path)
        assert messages == ["'labeller' is a required property"]
        assert problems == ["fact_labels[7-days].label.labeller: a labeller (on the label, or `labeller` at the top of the file for every label that names none); nothing"]
