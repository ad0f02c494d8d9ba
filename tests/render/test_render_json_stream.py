"""The report's JSON text written in pieces (`render.evaluation_text`, what `ragtriage
evaluate --format json` writes) is, byte for byte, `dumps(evaluation_json(...))`."""

from __future__ import annotations

import gc
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from pytest import MonkeyPatch

import ragtriage
from dataset_builders import HUMAN, make_dataset, question
from ragtriage.cli.main import cli
from ragtriage.columnar import evaluate
from ragtriage.evaluation import Evaluation
from ragtriage.metrics import Score
from ragtriage.render import _json, dumps, evaluation_json, evaluation_text


def _whole(evaluation: Evaluation) -> str:
    return dumps(evaluation_json(evaluation))


def _joined(pieces: Iterable[str | memoryview]) -> str:
    """The pieces' text: a piece is text, or UTF-8 bytes (orjson's)."""
    return "".join(p if isinstance(p, str) else str(p, "utf-8") for p in pieces)


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
    assert _joined(pieces) == _whole(example)
    # Per run: the text before its list, one piece per `_PIECE` entries, the list's end; then
    # the text after the last run. The example's runs each hold fewer than `_PIECE` entries.
    assert [len(run.questions) for run in example.runs] == [15, 15]
    assert len(pieces) == 3 * len(example.runs) + 1


def test_entries_written_a_piece_at_a_time(monkeypatch: MonkeyPatch) -> None:
    example = ragtriage.evaluate_files(example=True, notify=lambda _: None)
    whole = _whole(example)
    for piece in (1, 2, 7, 15, 16):
        monkeypatch.setattr(_json, "_PIECE", piece)
        pieces = list(evaluation_text(example))
        assert _joined(pieces) == whole
        assert len(pieces) == 2 * (-(-15 // piece) + 2) + 1


def test_a_piece_is_written_as_the_whole_document_writes_it() -> None:
    """A piece's entries are written from the records' fields in one orjson call: a score
    orjson writes otherwise (1.5e-07) and strings UTF-8 cannot encode (lone surrogates) are
    written as `json` writes them, the tags and details in the records' order."""
    example = ragtriage.evaluate_files(example=True, notify=lambda _: None)
    run = example.runs[0]
    first, *rest = run.questions
    odd = replace(
        first,
        tags=("t\udfff", "✓"),
        details={"stale_final": ('x\ud800"\n',)},
        scores={**first.scores, "evidence_recall": Score(3.0, 2e7)},
    )
    run = replace(run, questions=(odd, *rest))
    piece = _json._piece(run, example.measures, _json._verdicts(run), 0, 2)
    assert isinstance(piece, str)  # written by `json`: it holds lone surrogates
    assert piece.startswith("[\n")
    entry = piece.removeprefix("[\n").split(",\n        {")[0].split("\n")
    assert entry == [
        '        {',
        '          "answerability": "answerable",',
        '          "canary_obeyed": null,',
        '          "citation_validity": 0.0,',
        '          "claim_support": 0.0,',
        '          "correct_clarification": null,',
        '          "correct_escalation": null,',
        '          "correct_refusal": null,',
        '          "details": {',
        '            "stale_final": [',
        '              "x\ud800\\"\\n"',
        '            ]',
        '          },',
        '          "diagnosis": {',
        '            "findings": [',
        '              {',
        '                "ids": [',
        '                  "retry-e4291"',
        '                ],',
        '                "stage": "retrieval_miss",',
        '                "why": "retry-e4291 is not among the 4 candidates"',
        '              },',
        '              {',
        '                "ids": [',
        '                  "c1"',
        '                ],',
        '                "stage": "unsupported_claim",',
        '                "why": "1 of 1 claims not supported by the context: c1"',
        '              },',
        '              {',
        '                "ids": [',
        '                  "c1"',
        '                ],',
        '                "stage": "invalid_citation",',
        '                "why": "1 of 1 claims without a valid citation: c1 cites nothing"',
        '              },',
        '              {',
        '                "ids": [',
        '                  "wait-30s"',
        '                ],',
        '                "stage": "incomplete_answer",',
        '                "why": "1 of 1 reference facts not covered: wait-30s"',
        '              }',
        '            ],',
        '            "primary": "retrieval_miss",',
        '            "secondary": [',
        '              "unsupported_claim",',
        '              "invalid_citation",',
        '              "incomplete_answer"',
        '            ]',
        '          },',
        '          "evidence_recall": 1.5e-07,',
        '          "fact_coverage": 0.0,',
        '          "false_refusal": false,',
        '          "id": "exact-code",',
        '          "injection_in_context": false,',
        '          "needless_clarification": false,',
        '          "needless_escalation": false,',
        '          "outcome": "answered",',
        '          "permission_leak_candidates": false,',
        '          "permission_leak_cited": null,',
        '          "permission_leak_context": false,',
        '          "permission_leak_support": null,',
        '          "sensitive_in_answer": false,',
        '          "split": "dev",',
        '          "stale_cited": null,',
        '          "stale_in_candidates": false,',
        '          "stale_in_context": false,',
        '          "stale_support": null,',
        '          "tags": [',
        '            "t\udfff",',
        '            "✓"',
        '          ]',
        '        }',
    ]


def test_a_later_piece_starts_at_the_comma_before_its_entries(monkeypatch: MonkeyPatch) -> None:
    """The first piece holds the list's `[`, a later one the `,` joining its first entry to
    the ones before; each ends with its last entry. Written by orjson: UTF-8 bytes."""
    example = ragtriage.evaluate_files(example=True, notify=lambda _: None)
    run = example.runs[0]
    verdicts = _json._verdicts(run)
    first, later = (_json._piece(run, example.measures, verdicts, n, n + 2) for n in (0, 2))
    assert isinstance(first, memoryview) and isinstance(later, memoryview)
    whole = _whole(example)
    at = whole.index('"questions": [\n        {') + len('"questions": ')
    text = str(first, "utf-8") + str(later, "utf-8")
    assert whole[at : at + len(text)] == text
    assert text.startswith("[\n        {\n") and str(later, "utf-8").startswith(",\n        {\n")
    assert str(first, "utf-8").endswith("\n        }") and text.endswith("\n        }")


def test_runs_without_questions_and_texts_like_the_mark() -> None:
    for answers in (0, 1, 2):
        evaluation = _dataset(answers)
        assert [len(run.questions) for run in evaluation.runs] == [answers, answers]
        assert _joined(evaluation_text(evaluation)) == _whole(evaluation)
    empty = _joined(evaluation_text(_dataset(0)))
    assert '"questions": []' in empty


def test_the_command_writes_the_pieces_to_a_file_and_to_stdout(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    args = ["evaluate", "--example", "--format", "json"]
    written = CliRunner().invoke(cli, [*args, "--output", str(out)])
    printed = CliRunner().invoke(cli, args)
    assert (written.exit_code, printed.exit_code) == (0, 0)
    example = ragtriage.evaluate_files(example=True, notify=lambda _: None)
    assert out.read_text(encoding="utf-8") == printed.stdout == _whole(example)


def test_the_cycle_collector_is_paused_while_a_piece_is_made(monkeypatch: MonkeyPatch) -> None:
    """Paused while a piece's entries are made and written, resumed after each piece (and
    left paused when it was paused before)."""
    example = ragtriage.evaluate_files(example=True, notify=lambda _: None)
    seen: list[bool] = []
    real = _json.plain_json

    def write(data: Any) -> bytes | str:
        seen.append(gc.isenabled())
        return real(data)

    monkeypatch.setattr(_json, "plain_json", write)
    pieces = evaluation_text(example)
    next(pieces)
    next(pieces)
    assert (seen, gc.isenabled()) == ([False], True)
    assert _joined(pieces) and (seen, gc.isenabled()) == ([False, False], True)
    gc.disable()
    try:
        _joined(evaluation_text(example))
        assert (seen, gc.isenabled()) == ([False] * 4, False)
    finally:
        gc.enable()
