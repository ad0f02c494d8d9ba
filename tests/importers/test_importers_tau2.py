"""The tau2 banking importer: a golden conversion, bad input, and the real data when present."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from ragtriage.errors import InputError
from ragtriage.importers import TAU2_ATTRIBUTION, import_tau2, native_text
from ragtriage.retrievers import RetrievalConfig, run_retrieval

REAL = Path(__file__).resolve().parents[3] / "shared" / "data" / "tau2-banking-knowledge"


def _write(directory: Path, documents: object, tasks: object) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    with gzip.open(directory / "documents.json.gz", "wt", encoding="utf-8") as handle:
        json.dump(documents, handle)
    (directory / "tasks.json").write_text(json.dumps(tasks), encoding="utf-8")
    return directory


DOCS = [
    {"id": "doc_a", "title": "Cards", "content": "Gold card has no annual fee."},
    {"id": "doc_b", "title": "Fees", "content": "Wire transfers cost 5 dollars."},
]
TASKS = [
    {
        "id": "task_1",
        "user_scenario": {"instructions": "You want a card without fees."},
        "required_documents": ["doc_a", "doc_b"],
    },
]


def test_golden_conversion(tmp_path: Path) -> None:
    data = import_tau2(_write(tmp_path / "t", DOCS, TASKS))
    assert json.loads(native_text(data.evalset, jsonl=False)) == {
        "schema_version": 1,
        "kind": "evalset",
        "evalset_id": "tau2-banking-knowledge-tasks",
        "snapshot_id": "tau2-banking-knowledge",
        "metadata": {
            **TAU2_ATTRIBUTION,
            "query": "user_scenario.instructions",
            "evidence": "required_documents, one group each",
        },
        "questions": [
            {
                "id": "task_1",
                "text": "You want a card without fees.",
                "answerability": "answerable",
                "required_evidence": [
                    {"any_of": ["doc_a"], "grade": 1, "label": None},
                    {"any_of": ["doc_b"], "grade": 1, "label": None},
                ],
                "reference_facts": [],
                "applies_to": None,
                "tags": [],
                "split": "dev",
                "user_groups": None,
                "canary": None,
            }
        ],
    }
    doc = data.snapshot.documents[0]
    assert (doc.id, doc.title, doc.text, doc.metadata) == (
        "doc_a",
        "Cards",
        "Gold card has no annual fee.",
        {"source": "tau2-bench"},
    )
    assert data.snapshot.metadata["license"] == "MIT"


def test_bad_input_lists_every_problem(tmp_path: Path) -> None:
    docs = [
        *DOCS,
        {"id": "doc_c", "title": "No content"},
        {"id": "doc_a", "title": "Dup", "content": "x"},
    ]
    tasks = [
        {"id": "task_1", "user_scenario": {"instructions": "Hi"}, "required_documents": ["doc_z"]},
        {"id": "task_2", "user_scenario": {}, "required_documents": []},
        {"id": "task_3", "user_scenario": {"instructions": "Hi"}},
    ]
    with pytest.raises(InputError) as info:
        import_tau2(_write(tmp_path / "bad", docs, tasks))
    docs_file, tasks_file = tmp_path / "bad" / "documents.json.gz", tmp_path / "bad" / "tasks.json"
    assert str(info.value).splitlines() == [
        "5 problems found in the input:",
        f"- {docs_file}: [2].content: expected a non-empty string; found nothing",
        f"- {docs_file}: [3].id: expected unique document IDs; found 'doc_a' more than once",
        f"- {tasks_file}: question 'task_1': required_documents: expected IDs of documents in documents.json.gz; found 'doc_z'",  # noqa: E501
        f"- {tasks_file}: question 'task_2': user_scenario.instructions: expected a non-empty string; found nothing",  # noqa: E501
        f"- {tasks_file}: question 'task_3': required_documents: expected a list of document IDs; found nothing",  # noqa: E501
    ]


def test_missing_files_are_reported(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        import_tau2(tmp_path)
    assert str(info.value).splitlines()[1:] == [
        f"- {tmp_path / 'documents.json.gz'}: (file): expected an existing file; found no such file",  # noqa: E501
        f"- {tmp_path / 'tasks.json'}: (file): expected an existing file; found no such file",
    ]


@pytest.mark.skipif(not REAL.is_dir(), reason="shared tau2 data not on this machine")
def test_real_data_imports_and_bm25_reproduces_the_published_recall(tmp_path: Path) -> None:
    data = import_tau2(REAL)
    assert (len(data.snapshot.documents), len(data.evalset.questions)) == (698, 97)
    assert (
        data.evalset.metadata["source"] == "tau2-bench banking_knowledge domain (Sierra Research)"
    )
    out = run_retrieval(
        data.snapshot, data.evalset, RetrievalConfig(k=10), name="bm25", cache_dir=tmp_path
    )
    recalls = []
    for question, result in zip(data.evalset.questions, out.run.results, strict=True):
        required = {group.any_of[0] for group in question.required_evidence}
        found = {item.id for item in result.context or []}
        recalls.append(len(required & found) / len(required))
    # The published bm25s figure on this data is 0.259 (recall@10, query = scenario text).
    assert round(sum(recalls) / len(recalls), 4) == 0.2588


def _refused(tmp: Path, tasks: list[dict[str, Any]]) -> list[str]:
    """The problems importing `tasks` gives, each without its file (tasks.json)."""
    with pytest.raises(InputError) as info:
        import_tau2(_write(tmp / "dup", DOCS, tasks))
    tasks_file = f"{tmp / 'dup' / 'tasks.json'}: "
    return [p.message().removeprefix(tasks_file) for p in info.value.problems]


def test_a_task_id_used_twice_is_refused(tmp_path: Path) -> None:
    # two questions of one ID made an evaluation set that no command could load
    tasks = [*TASKS, {**TASKS[0], "user_scenario": {"instructions": "Other."}}]
    assert _refused(tmp_path, tasks) == [
        "question 'task_1': [1].id: expected unique task IDs; found 'task_1' again (first at [0])"
    ]


def test_a_document_required_twice_by_a_task_is_refused(tmp_path: Path) -> None:
    # merged into one evidence group, the repeat changed the input without a word
    tasks = [{**TASKS[0], "required_documents": ["doc_a", "doc_b", "doc_a"]}]
    assert _refused(tmp_path, tasks) == [
        "question 'task_1': required_documents[2]: expected each document at most once per "
        "task; found 'doc_a' again (first at [0])"
    ]


def test_ids_holding_control_characters_are_problems_not_a_traceback(tmp_path: Path) -> None:
    # native files refuse them (schemas.Identifier)
    docs = [*DOCS, {"id": "doc\nc", "title": "C", "content": "x"}]
    tasks = [{**TASKS[0], "id": "task\x1b1"}]
    with pytest.raises(InputError) as info:
        import_tau2(_write(tmp_path / "bad", docs, tasks))
    docs_file, tasks_file = tmp_path / "bad" / "documents.json.gz", tmp_path / "bad" / "tasks.json"
    expected = "expected an identifier without control characters, not only whitespace"
    assert str(info.value).splitlines() == [
        "2 problems found in the input:",
        f"- {docs_file}: [2].id: {expected}; found 'doc\\nc'",
        f"- {tasks_file}: [0].id: {expected}; found 'task\\x1b1'",
    ]


def test_a_blank_file_is_named_as_such(tmp_path: Path) -> None:
    # Before: 'found an empty file' for a file of spaces and line breaks.
    directory = _write(tmp_path / "t", DOCS, TASKS)
    (directory / "tasks.json").write_text(" \n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        import_tau2(directory)
    assert str(info.value).splitlines()[1:] == [
        f"- {directory / 'tasks.json'}: (file): expected a JSON document; found only whitespace"
    ]


def test_a_document_refused_for_another_field_is_not_called_absent_from_its_file(
    tmp_path: Path,
) -> None:
    # Before, each task requiring doc_a or doc_b also got "expected IDs of documents in
    # documents.json.gz; found 'doc_a'", though both are in that file: their titles are bad.
    docs = [{**DOCS[0], "title": ""}, {"id": "doc_b", "content": "x"}]
    with pytest.raises(InputError) as info:
        import_tau2(_write(tmp_path / "bad", docs, TASKS))
    docs_file = tmp_path / "bad" / "documents.json.gz"
    assert str(info.value).splitlines() == [
        "2 problems found in the input:",
        f"- {docs_file}: [0].title: expected a non-empty string; found ''",
        f"- {docs_file}: [1].title: expected a non-empty string; found nothing",
    ]


def test_a_task_without_a_usable_id_is_still_checked_named_by_its_position(
    tmp_path: Path,
) -> None:
    # Before, only the ID was reported: the task's missing instructions and its document
    # absent from documents.json.gz came up one import later.
    tasks = [{"id": 7, "user_scenario": {}, "required_documents": ["doc_a", "doc_z", "doc_a"]}]
    assert _refused(tmp_path, tasks) == [
        "[0].id: expected a non-empty string; found 7",
        "[0].user_scenario.instructions: expected a non-empty string; found nothing",
        "[0].required_documents: expected IDs of documents in documents.json.gz; found 'doc_z'",
        "[0].required_documents[2]: expected each document at most once per task; "
        "found 'doc_a' again (first at [0])",
    ]


def test_a_task_listing_no_required_documents_is_named_in_a_note(tmp_path: Path) -> None:
    # Before, such a task silently became an unanswerable question: its retrieval measures
    # are not applicable (right), but a generated answer to it counts as a missed refusal.
    from click.testing import CliRunner

    from ragtriage.api import import_tau2_files
    from ragtriage.cli import cli

    tasks = [*TASKS, {**TASKS[0], "id": "task_2", "required_documents": []}]
    directory = _write(tmp_path / "in", DOCS, tasks)
    note = (
        "1 task lists no required documents (task_2): imported as an unanswerable question, "
        "whose retrieval measures are not applicable"
    )
    assert import_tau2(directory).notes == (note,)
    written = import_tau2_files(directory, output=tmp_path / "api")
    assert written.notes == (note,)
    result = CliRunner().invoke(cli, ["import", "tau2", str(directory), "-o", str(tmp_path / "o")])
    assert (result.exit_code, result.output) == (
        0, f"wrote 2 documents, 2 questions to {tmp_path / 'o'}\nnote: {note}\n"
    )
    assert import_tau2(_write(tmp_path / "all", DOCS, TASKS)).notes == ()
