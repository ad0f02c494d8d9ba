"""`import openinference` on the spans of a real instrumented LangChain pipeline."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ragtriage.cli.main import cli
from ragtriage.columnar import evaluate
from ragtriage.errors import InputError
from ragtriage.importers import import_openinference, write_native
from ragtriage.loading import load_dataset

if os.environ.get("CI") != "true":  # in CI a missing test dependency fails instead
    pytest.importorskip("langchain_core")
    pytest.importorskip("openinference.instrumentation.langchain")
    pytest.importorskip("opentelemetry.exporter.otlp.proto.common")

import recording_chain as rc

EXPECTED = {
    # The deterministic fake embedding ranks the documents the same way on every machine;
    # `test_the_chain_retrieves_what_the_import_reports` checks these against the retriever.
    "q-retention": ["retention-v2", "backup", "retention-v1"],
    "q-backup": ["regions", "quota", "backup"],
    "q-sso": ["retention-v2", "quota", "regions"],
}
TEXT = {doc_id: text for doc_id, text, _, _ in rc.DOCS}


def _hex(value: str) -> str:
    return base64.b64decode(value).hex()


def _collector_style(line: str) -> str:
    """The same export as the OTLP/JSON spec writes it (a collector's file exporter): hex IDs
    and integer enums instead of protobuf's base64 and enum names."""
    data = json.loads(line)
    for resource in data["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = _hex(span[key])
                span["kind"] = 1
                span["status"] = {"code": 1}
    return json.dumps(data)


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("traced")
    paths = rc.run_traced(directory)
    hex_path = directory / "spans.collector.jsonl"
    lines = paths["otlp"].read_text(encoding="utf-8").splitlines()
    hex_path.write_text("\n".join(_collector_style(x) for x in lines) + "\n", encoding="utf-8")
    return {**paths, "collector": hex_path}


def test_the_chain_retrieves_what_the_import_reports() -> None:
    chain = rc.build_chain()
    retriever = chain.first.steps__["context"].first
    texts = {qid: text for qid, text, _ in rc.QUESTIONS}
    for qid, ids in EXPECTED.items():
        assert [d.metadata["doc_id"] for d in retriever.invoke(texts[qid])] == ids


@pytest.mark.parametrize("kind", ["otlp", "collector", "console"])
@pytest.mark.parametrize("attribute", ["metadata.question_id", None])
def test_every_retrieved_id_rank_and_answer_arrive(
    traced: dict[str, Path], kind: str, attribute: str | None
) -> None:
    data = import_openinference(
        traced[kind],
        rc.evalset(),
        name="chain",
        id_attribute=attribute,
        id_key="doc_id",
        refusal_pattern="cannot tell",
    )
    results = {r.question_id: r for r in data.run.results}
    assert list(results) == ["q-retention", "q-backup", "q-sso"]
    for qid, ids in EXPECTED.items():
        r = results[qid]
        assert [c.id for c in r.candidates] == ids
        assert [c.score for c in r.candidates] == [None, None, None]
        assert r.reranked is None
        assert [(c.id, c.text) for c in r.context or []] == [(i, TEXT[i]) for i in ids]
        assert r.claims is None
        assert r.latency_ms is not None and r.latency_ms > 0
        assert sorted(r.stage_latency_ms) == ["generation", "retrieval"]
    assert [(r.answer, r.outcome) for r in results.values()] == [
        ("Logs are kept for 7 days.", "answered"),
        ("Backups run nightly.", "answered"),
        ("I cannot tell.", "refused"),
    ]
    assert data.run.provenance.evalset_id == "chain-questions"
    stray = [m for m in data.matches if m.question_id is None]
    reason = (
        "no attribute 'metadata.question_id'"
        if attribute
        else "no question has the text 'What is the quota?'"
    )
    assert [m.reason for m in stray] == [reason]
    assert data.unmatched_traces == tuple(stray)
    assert data.unmatched_questions == ("q-untraced",)
    assert len({m.trace_id for m in data.matches}) == 4


def test_the_three_files_give_the_same_run(traced: dict[str, Path]) -> None:
    def lines(kind: str) -> list[dict[str, Any]]:
        run = import_openinference(
            traced[kind], rc.evalset(), id_attribute="metadata.question_id", id_key="doc_id"
        ).run
        return [r.model_dump(exclude={"latency_ms", "stage_latency_ms"}) for r in run.results]

    assert lines("otlp") == lines("collector") == lines("console")


def test_a_document_without_an_id_is_reported_never_invented(traced: dict[str, Path]) -> None:
    with pytest.raises(InputError) as err:
        import_openinference(traced["otlp"], rc.evalset(), id_attribute="metadata.question_id")
    problems = err.value.problems
    assert len(problems) == 9
    first = problems[0]
    assert (first.file, first.question_id, first.expected, first.found) == (
        str(traced["otlp"]),
        "q-retention",
        "a document.id",
        "no document.id (name a metadata key with --id-key)",
    )
    assert first.field.endswith(": retriever.documents.0")
    with pytest.raises(InputError) as err:
        import_openinference(traced["otlp"], rc.evalset(), id_key="source")
    assert err.value.problems[0].expected == "a document.id or metadata key 'source'"
    assert err.value.problems[0].found == "neither; metadata keys: doc_id"


def test_a_document_id_twice_in_a_ranking_is_refused_naming_trace_field_and_id(
    traced: dict[str, Path], tmp_path: Path
) -> None:
    # chunks of one document sharing its doc_id were written as the same candidate twice,
    # which `evaluate` then refused
    chunked = tmp_path / "chunked.jsonl"
    text = traced["otlp"].read_text(encoding="utf-8")
    for chunk, document in (("retention-v1", "retention-v2"), ("quota", "regions")):
        text = text.replace(f'\\"doc_id\\": \\"{chunk}\\"', f'\\"doc_id\\": \\"{document}\\"')
    chunked.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        import_openinference(
            chunked, rc.evalset(), id_attribute="metadata.question_id", id_key="doc_id"
        )
    expected = (
        "each document ID at most once in the candidates (chunks of one document share its "
        "ID: take the ID from a key that names the chunk)"
    )
    assert [
        (p.file, p.question_id, p.field.split(": ", 1)[1], p.expected, p.found)
        for p in err.value.problems
    ] == [
        (str(chunked), "q-retention", "retriever.documents.2", expected,
         "'retention-v2' again (first at [0])"),
        (str(chunked), "q-backup", "retriever.documents.1", expected,
         "'regions' again (first at [0])"),
        (str(chunked), "q-sso", "retriever.documents.2", expected,
         "'regions' again (first at [1])"),
    ]
    assert all(p.field.startswith("trace ") for p in err.value.problems)


def test_a_question_text_shared_by_two_questions_is_not_guessed(traced: dict[str, Path]) -> None:
    evalset = rc.evalset()
    twin = evalset.questions[0].model_copy(update={"id": "q-twin"})
    doubled = evalset.model_copy(update={"questions": [*evalset.questions, twin]})
    data = import_openinference(traced["otlp"], doubled, id_key="doc_id")
    assert [r.question_id for r in data.run.results] == ["q-backup", "q-sso"]
    reasons = sorted(m.reason for m in data.unmatched_traces)
    assert reasons == [
        "no question has the text 'What is the quota?'",
        "questions q-retention, q-twin share the text 'How long are logs kept?'",
    ]
    assert data.unmatched_questions == ("q-retention", "q-untraced", "q-twin")


def test_the_imported_run_evaluates(traced: dict[str, Path], tmp_path: Path) -> None:
    evalset = rc.evalset()
    asked = evalset.model_copy(
        update={"questions": [q for q in evalset.questions if q.id != "q-untraced"]}
    )
    write_native(rc.snapshot(), tmp_path / "snapshot.json")
    write_native(asked, tmp_path / "evalset.json")
    runner = CliRunner()
    done = runner.invoke(
        cli,
        [
            "import",
            "openinference",
            str(tmp_path / "evalset.json"),
            str(traced["console"]),
            "--output",
            str(tmp_path / "chain.jsonl"),
            "--name",
            "chain",
            "--match-attribute",
            "metadata.question_id",
            "--id-key",
            "doc_id",
            "--refusal-pattern",
            "cannot tell",
        ],
    )
    assert done.exit_code == 0, done.output
    trace_id = [line for line in done.stderr.splitlines() if line.startswith("unmatched trace")]
    assert done.stderr.splitlines()[0] == f"wrote 3 results to {tmp_path / 'chain.jsonl'}"
    assert len(trace_id) == 1 and trace_id[0].endswith(": no attribute 'metadata.question_id'")
    dataset = load_dataset(
        tmp_path / "evalset.json",
        snapshot=tmp_path / "snapshot.json",
        runs=[tmp_path / "chain.jsonl"],
    )
    (run,) = evaluate(dataset, k=3, allow_unreviewed=True).runs
    recall = {q.question_id: q.scores["evidence_recall"] for q in run.questions}
    assert {q: (s.numerator, s.denominator) for q, s in recall.items() if s} == {
        "q-retention": (1, 1),
        "q-backup": (1, 1),
        "q-sso": (0, 1),
    }
    agg = run.summary["evidence_recall"]
    assert (agg.numerator, agg.denominator, agg.averaging) == (2.0, 3, "macro")
    refusals = run.summary["false_refusal"]
    assert (refusals.numerator, refusals.denominator) == (1, 3)


def test_unreadable_files_are_reported_with_line_numbers(tmp_path: Path) -> None:
    bad = tmp_path / "spans.jsonl"
    bad.write_text('{"resourceSpans": []}\n{"foo": 1}\n{"context": {"trace_id": "zz"}}\n{"broken\n')
    runner = CliRunner()
    evalset = tmp_path / "evalset.json"
    write_native(rc.evalset(), evalset)
    done = runner.invoke(
        cli,
        [
            "import",
            "openinference",
            str(evalset),
            str(bad),
            "--output",
            str(tmp_path / "r.jsonl"),
        ],
    )
    assert done.exit_code == 2
    assert done.stderr == (
        "Error: 3 problems found in the input:\n"
        f"- {bad}: line 2: expected resourceSpans (OTLP JSON), a span with context (console exporter, Phoenix) or traceId/spanId (an OTLP span); found keys foo\n"
        f"- {bad}: line 3: expected a span with a trace ID and a span ID (hex or base64); found trace ID 'zz', span ID None\n"
        f"- {bad}: line 4 column 9: expected valid JSON; found a line break or control character inside a string\n"
    )


def test_every_value_that_does_not_parse_is_reported_and_the_others_read(
    tmp_path: Path,
) -> None:
    # The first value that did not parse once ended the reading: the lines after it unread.
    bad = tmp_path / "spans.jsonl"
    bad.write_text('{"resourceSpans": []}\nnot json\n{"foo": NaN}\n{"foo": 1}\n{"broken\n')
    with pytest.raises(InputError) as info:
        import_openinference(bad, rc.evalset())
    assert [p.message() for p in info.value.problems] == [
        f"{bad}: line 2 column 1: expected valid JSON; found something that is not a JSON value",
        f"{bad}: line 3 column 9: expected a finite number; found NaN",
        f"{bad}: line 4: expected resourceSpans (OTLP JSON), a span with context (console "
        "exporter, Phoenix) or traceId/spanId (an OTLP span); found keys foo",
        f"{bad}: line 5 column 9: expected valid JSON; found a line break or control character "
        "inside a string",
    ]


@pytest.mark.parametrize(
    ("pattern", "found"),
    [
        ("(", "'(' (missing ), unterminated subpattern at position 0)"),
        ("", "an empty pattern (it matches every answer: every answer would be a refusal)"),
    ],
)
def test_a_refusal_pattern_that_is_no_regular_expression_is_refused(
    tmp_path: Path, pattern: str, found: str
) -> None:
    evalset = tmp_path / "evalset.json"
    write_native(rc.evalset(), evalset)
    missing = tmp_path / "spans.json"  # refused before the traces are read
    done = CliRunner().invoke(
        cli,
        ["import", "openinference", str(evalset), str(missing), "--refusal-pattern", pattern,
         "-o", str(tmp_path / "r.jsonl")],
    )
    assert (done.exit_code, done.stdout) == (2, "")
    assert done.stderr == (
        "Error: 1 problem found in the input:\n"
        f"- <command line>: --refusal-pattern: expected a regular expression; found {found}\n"
    )
    with pytest.raises(InputError) as info:
        import_openinference(missing, rc.evalset(), refusal_pattern=pattern)
    assert info.value.problems[0].found == found


def test_an_empty_run_name_is_refused_not_a_traceback(tmp_path: Path) -> None:
    evalset = tmp_path / "evalset.json"
    write_native(rc.evalset(), evalset)
    done = CliRunner().invoke(
        cli,
        ["import", "openinference", str(evalset), str(tmp_path / "spans.json"), "--name", "",
         "-o", str(tmp_path / "r.jsonl")],
    )
    assert (done.exit_code, done.stdout) == (2, "")
    assert done.stderr == (
        "Error: 1 problem found in the input:\n"
        "- <command line>: --name: expected a run name; found nothing\n"
    )


def test_a_base64_span_id_that_begins_with_0x_is_read_whole() -> None:
    # Protobuf's JSON mapping writes IDs in base64; 8 random bytes can encode to "0x...".
    from ragtriage.importers._spans import hex_id

    assert hex_id("0xV/NVZJ+mY=") == "d3157f355649fa66"
    assert hex_id("0x00f067aa0ba902b7") == "00f067aa0ba902b7"
    assert hex_id("APBnqgupArc=") == "00f067aa0ba902b7"
    assert hex_id("0xnot-an-id") is None


def test_a_key_or_pattern_that_is_no_str_is_refused_naming_the_option(tmp_path: Path) -> None:
    # Before: a TypeError from re.compile ("first argument must be string or compiled
    # pattern"); a key that is no str was looked up as one.
    import ragtriage.api

    evalset = tmp_path / "evalset.json"
    write_native(rc.evalset(), evalset)
    with pytest.raises(InputError) as refused:
        ragtriage.api.import_openinference_files(
            evalset, tmp_path / "spans.json", output=tmp_path / "r.jsonl",
            match_attribute=5, id_key=["id"], refusal_pattern=5,  # type: ignore[arg-type]
        )
    assert str(refused.value).splitlines() == [
        "3 problems found in the input:",
        "- <command line>: --match-attribute: expected a non-empty key; found 5",
        "- <command line>: --id-key: expected a non-empty key; found [\"id\"]",
        "- <command line>: --refusal-pattern: expected a regular expression; found 5",
    ]
    with pytest.raises(InputError) as refused:
        ragtriage.api.import_openinference_files(
            evalset, tmp_path / "spans.json", output=tmp_path / "r.jsonl",
            refusal_pattern=5,  # type: ignore[arg-type]
        )
    assert str(refused.value).splitlines() == [
        "1 problem found in the input:",
        "- <command line>: --refusal-pattern: expected a regular expression; found 5",
    ]
    assert list(tmp_path.iterdir()) == [evalset]
