"""Phoenix's span exports of the test chain, as a real Phoenix server (20.26) returned them.

tests/data/phoenix/ holds `GET /v1/projects/default/spans` (Phoenix's span shape: flattened
attributes, `span_kind` moved out of them) and `GET .../spans/otlpv1` (OTLP-shaped, snake_case,
every value kind listed with nulls); `make_phoenix_fixture.py` regenerates them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import recording_chain as rc

from ragtriage.importers import import_openinference

DATA = Path(__file__).resolve().parents[1] / "data" / "phoenix"


@pytest.mark.parametrize("name", ["spans.json", "spans.otlpv1.json"])
@pytest.mark.parametrize("attribute", ["metadata.question_id", None])
def test_phoenix_exports_import_like_the_live_traces(name: str, attribute: str | None) -> None:
    data = import_openinference(
        DATA / name,
        rc.evalset(),
        name="chain",
        id_attribute=attribute,
        id_key="doc_id",
        refusal_pattern="cannot tell",
    )
    texts = {doc_id: text for doc_id, text, _, _ in rc.DOCS}
    expected = {
        "q-retention": ["retention-v2", "backup", "retention-v1"],
        "q-backup": ["regions", "quota", "backup"],
        "q-sso": ["retention-v2", "quota", "regions"],
    }
    results = {r.question_id: r for r in data.run.results}
    assert list(results) == list(expected)
    for qid, ids in expected.items():
        assert [c.id for c in results[qid].candidates] == ids
        assert [(c.id, c.text) for c in results[qid].context or []] == [(i, texts[i]) for i in ids]
        assert sorted(results[qid].stage_latency_ms) == ["generation", "retrieval"]
    assert [(r.answer, r.outcome) for r in results.values()] == [
        ("Logs are kept for 7 days.", "answered"),
        ("Backups run nightly.", "answered"),
        ("I cannot tell.", "refused"),
    ]
    (stray,) = data.unmatched_traces
    assert stray.trace_id == "ddf9672e432994c48017808a55226bf6"
    assert data.unmatched_questions == ("q-untraced",)


def test_both_phoenix_shapes_give_the_same_run() -> None:
    runs = [
        import_openinference(DATA / name, rc.evalset(), id_key="doc_id").run
        for name in ("spans.json", "spans.otlpv1.json")
    ]
    dumped = [
        [r.model_dump(exclude={"latency_ms", "stage_latency_ms"}) for r in run.results]
        for run in runs
    ]
    assert dumped[0] == dumped[1]
    # Phoenix keeps microseconds in its own shape and nanoseconds in the OTLP one.
    for a, b in zip(runs[0].results, runs[1].results, strict=True):
        assert a.latency_ms == pytest.approx(b.latency_ms, abs=0.002)


def test_traces_matching_no_question_are_refused_not_written_as_an_empty_run(
    tmp_path: Path,
) -> None:
    # the wrong evaluation set (or attribute) gave "wrote 0 result(s)" and exit 0
    from click.testing import CliRunner

    from ragtriage.cli import cli

    evalset = tmp_path / "evalset.json"
    evalset.write_text(
        '{"schema_version": 1, "kind": "evalset", "evalset_id": "other", "questions": '
        '[{"id": "q1", "text": "Unrelated?", "answerability": "unanswerable"}]}',
        encoding="utf-8",
    )
    out, spans = tmp_path / "run.jsonl", DATA / "spans.json"
    args = ["import", "openinference", str(evalset), str(spans), "-o", str(out)]
    result = CliRunner().invoke(cli, [*args, "--match-attribute", "metadata.question_id"])
    expected = f"expected a trace matching a question of {evalset} (by --match-attribute"
    assert (result.exit_code, result.output.splitlines()) == (
        2,
        [
            "Error: 4 problems found in the input:",
            f"- {spans}: trace ddf9672e432994c48017808a55226bf6: {expected}"
            " metadata.question_id); found no attribute 'metadata.question_id'",
            f"- {spans}: trace 2f2778aa6cb2a44fd21e9b824519acae: {expected}"
            " metadata.question_id); found metadata.question_id 'q-sso' is no question ID",
            f"- {spans}: trace d0be4c4e2f2793caf4aba1006d21934e: {expected}"
            " metadata.question_id); found metadata.question_id 'q-backup' is no question ID",
            f"- {spans}: trace 396de603aabab3d4295d9ba76466a620: {expected}"
            " metadata.question_id); found metadata.question_id 'q-retention' is no question ID",
        ],
    )
    assert not out.exists()
    result = CliRunner().invoke(cli, [*args, "--match-attribute", "", "--id-key", ""])
    assert (result.exit_code, result.output.splitlines()[1:]) == (
        2,
        [
            "- <command line>: --match-attribute: expected a non-empty key; found nothing",
            "- <command line>: --id-key: expected a non-empty key; found nothing",
        ],
    )
