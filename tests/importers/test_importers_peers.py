"""Ragas and DeepEval files written by the peers' own libraries, imported unedited.

The peers (ragas 0.4.3 with langchain-community<0.4, deepeval 4.3.1) live in their own venv
(`.ci/run` builds `.venv-peers`; their langchain stack would clash with the main test venv)
and `RAGTRIAGE_PEERS_PYTHON` names its interpreter. Without it the tests skip locally and
fail in CI (CI=true).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ragtriage.cli import cli
from ragtriage.errors import InputError
from ragtriage.importers import ImportedRecords, import_records, text_id

pytestmark = pytest.mark.slow

WRITER = Path(__file__).parent / "peers" / "write_peer_files.py"


@pytest.fixture(scope="module")
def peer_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    python = os.environ.get("RAGTRIAGE_PEERS_PYTHON")
    if not python:
        if os.environ.get("CI") == "true":
            pytest.fail("RAGTRIAGE_PEERS_PYTHON is not set: .ci/run must build .venv-peers")
        pytest.skip("RAGTRIAGE_PEERS_PYTHON is not set (the peers' venv; see .ci/run)")
    out = tmp_path_factory.mktemp("peers")
    done = subprocess.run(
        [python, str(WRITER), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "DEEPEVAL_TELEMETRY_OPT_OUT": "1"},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    versions = json.loads(done.stdout.strip().splitlines()[-1])
    assert versions == {"ragas": "0.4.3", "deepeval": "4.3.1"}
    return out


def _content(data: ImportedRecords) -> dict[str, Any]:
    """What an import means, without the file name it came from."""
    return {
        "questions": [q.model_dump() for q in data.evalset.questions],
        "results": [r.model_dump() for r in data.run.results],
        "documents": [d.model_dump() for d in data.snapshot.documents],
    }


@pytest.mark.parametrize(
    "name", ["ragas_ids.jsonl", "ragas_ids_list.json", "ragas_ids_pandas.json", "ragas_ids.csv"]
)
def test_every_ragas_writer_imports_to_the_same_data(peer_files: Path, name: str) -> None:
    data = import_records(peer_files / name, "ragas")
    assert _content(data) == _content(import_records(peer_files / "ragas_ids.jsonl", "ragas"))
    first, second = data.evalset.questions
    assert [g.any_of for g in first.required_evidence] == [["doc-refund"]]
    assert first.reference_facts[0].text == "Refunds are accepted within 30 days."
    assert (second.answerability, second.required_evidence) == ("unanswerable", [])
    assert [c.id for c in data.run.results[0].context] == ["doc-refund", "doc-shipping"]
    assert data.ignored_fields == ()


def test_ragas_pandas_nulls_are_absent_fields(peer_files: Path) -> None:
    pandas = import_records(peer_files / "ragas_mixed_pandas.json", "ragas")
    assert _content(pandas) == _content(import_records(peer_files / "ragas_mixed.jsonl", "ragas"))
    second = pandas.evalset.questions[1]
    assert second.answerability == "answerable"
    assert [g.any_of[0].startswith("ctx-") for g in second.required_evidence] == [True]


@pytest.mark.parametrize("kind", ["goldens", "cases"])
@pytest.mark.parametrize("suffix", ["json", "jsonl", "csv"])
def test_every_deepeval_file_imports_to_the_same_data(
    peer_files: Path, kind: str, suffix: str
) -> None:
    data = import_records(peer_files / f"deepeval_{kind}.{suffix}", "deepeval")
    reference = import_records(peer_files / "deepeval_goldens.json", "deepeval")
    assert _content(data) == _content(reference)
    assert [len(r.context) for r in data.run.results] == [2, 2]
    assert [q.answerability for q in data.evalset.questions] == ["answerable", "answerable"]
    expected = ("additional_metadata",) if kind == "goldens" else ("token_cost",)
    assert data.ignored_fields == expected


@pytest.mark.parametrize("suffix", ["json", "jsonl", "csv"])
def test_deepeval_sourced_context_is_its_text_with_the_source_kept(
    peer_files: Path, suffix: str
) -> None:
    data = import_records(peer_files / f"deepeval_sourced.{suffix}", "deepeval")
    refund = "Refunds are accepted within 30 days of delivery."
    first = data.run.results[0].context[0]
    assert (first.id, first.text) == (text_id(refund), refund)
    assert data.evalset.questions[0].required_evidence[0].any_of == [text_id(refund)]
    assert [d.metadata for d in data.snapshot.documents if d.text == refund] == [
        {"source": "faq.md"}
    ]


def test_import_command_lists_ignored_fields_once(peer_files: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        ["import", "deepeval", str(peer_files / "deepeval_cases.jsonl"), "-o", str(tmp_path)],
    )
    assert result.exit_code == 0, result.output
    assert result.output.count("ignored fields (not used by ragtriage): token_cost\n") == 1


def test_deepeval_case_without_any_reference_is_still_refused(peer_files: Path) -> None:
    with pytest.raises(InputError) as caught:
        import_records(peer_files / "deepeval_bare.json", "deepeval")
    assert [p.message() for p in caught.value.problems] == [
        f"{peer_files / 'deepeval_bare.json'}: question 'q0001': [0]: expected the reference"
        " contexts (context) to score retrieval against; found nothing"
    ]


@pytest.mark.parametrize(
    ("name", "fmt", "where", "expected", "found"),
    [
        *(
            (name, "ragas", where, "a single-turn sample", "a multi-turn sample (user_input is a "
             "list of messages): multi-turn samples are not supported")
            for name, where in (
                ("ragas_multi.jsonl", "line 1"), ("ragas_multi_list.json", "[0]"),
                ("ragas_multi_pandas.json", "[0]"), ("ragas_multi.csv", "row 1"),
            )
        ),
        *(
            (name, "deepeval", where, "a single-turn golden or test case", "a conversational "
             "golden or test case (with scenario and turns): conversational goldens and test "
             "cases are not supported")
            for name, where in (
                ("deepeval_talk.json", "[0]"), ("deepeval_talk.jsonl", "line 1"),
                ("deepeval_talk.csv", "row 1"),
            )
        ),
    ],
)
def test_a_conversation_is_refused_once_as_such(
    peer_files: Path, name: str, fmt: str, where: str, expected: str, found: str
) -> None:
    # Before: field by field (user_input no question, retrieved_contexts missing, ...; in
    # DeepEval's three unknown fields too); Ragas' CSV took the messages' list as the question.
    with pytest.raises(InputError) as caught:
        import_records(peer_files / name, fmt)
    assert [p.message() for p in caught.value.problems] == [
        f"{peer_files / name}: question 'q0001': {where}: expected {expected}; found {found}"
    ]
