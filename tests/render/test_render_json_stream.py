"""The report's JSON text written in pieces (`render.evaluation_text`, what `ragtriage
evaluate --format json` writes) is, byte for byte, `dumps(evaluation_json(...))`."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

import ragtriage
from dataset_builders import HUMAN, make_dataset, question
from ragtriage.cli.main import cli
from ragtriage.columnar import evaluate
from ragtriage.evaluation import Evaluation
from ragtriage.render import dumps, evaluation_json, evaluation_text


def _whole(evaluation: Evaluation) -> str:
    return dumps(evaluation_json(evaluation))


def _dataset(answers: int) -> Evaluation:
    docs = [{"id": "d1", "text": "alpha"}, {"id": "d2", "text": "beta"}]
    questions = [question("q1", evidence=[["d1"]]), question("q2", evidence=[["d2"]])]
    results = [
        {
            "question_id": qid,
            "candidates": [{"id": "d1"}, {"id": "d2"}],
            "answer": "questions-0 \"quoted\" text\nover two lines",
            "outcome": "answered",
            "claims": [{"text": "c", "citations": ["d1"],
                        "labels": [{"verdict": "supported", "supported_by": ["d1"],
                                    "labeller": HUMAN}]}],
        }
        for qid in ("q1", "q2")[:answers]
    ]
    dataset = make_dataset(docs, questions, {"a": results, "b": results}, k=1)
    return evaluate(dataset, allow_missing=True)


def test_pieces_join_to_the_whole_document() -> None:
    example = ragtriage.evaluate_files(example=True, notify=lambda _: None)
    pieces = list(evaluation_text(example))
    assert "".join(pieces) == _whole(example)
    # One piece per question entry (and the text around each run's list): never one string.
    assert len(pieces) == sum(len(run.questions) for run in example.runs) + 2 * len(
        example.runs
    ) + 1


def test_runs_without_questions_and_texts_like_the_mark() -> None:
    for answers in (0, 1, 2):
        evaluation = _dataset(answers)
        assert [len(run.questions) for run in evaluation.runs] == [answers, answers]
        assert "".join(evaluation_text(evaluation)) == _whole(evaluation)
    empty = "".join(evaluation_text(_dataset(0)))
    assert '"questions": []' in empty


def test_the_command_writes_the_pieces_to_a_file_and_to_stdout(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    args = ["evaluate", "--example", "--format", "json"]
    written = CliRunner().invoke(cli, [*args, "--output", str(out)])
    printed = CliRunner().invoke(cli, args)
    assert (written.exit_code, printed.exit_code) == (0, 0)
    example = ragtriage.evaluate_files(example=True, notify=lambda _: None)
    assert out.read_text(encoding="utf-8") == printed.stdout == _whole(example)
