"""Every text a report shows is masked: a sensitive value planted in each text field of the
input is searched for in every output of every command and format, and must not appear.

The values are e-mail addresses (one per field, so a leak names its field), a card number, a
Chinese resident ID number and an API key, each a value the bundled detectors recognise.
"""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ragtriage.cli import cli
from ragtriage.example import example_paths

CARD = "4111 1111 1111 1111"
RESIDENT_ID = "11010519491231002X"
API_KEY = "sk-plantedplantedplanted0123"
POLICY = example_paths().policy


def _mail(field: str) -> str:
    return f"{field}.plant@example.com"


def _result(qid: str, context: list[str], run: str, fact: str) -> dict[str, Any]:
    human = {"kind": "human", "name": "rev"}
    others = [d for d in ("d1", "d2", "d3") if d not in context]
    return {
        "question_id": qid,
        "candidates": [{"id": d} for d in [*context, *others]],
        "context": [{"id": d, "text": f"Context {_mail(f'ctx-{run}-{qid}-{d}')}"} for d in context],
        "answer": f"Answer {_mail(f'answer-{run}-{qid}')} card {CARD}",
        "outcome": "answered",
        "claims": [
            {
                "text": f"Claim {_mail(f'claim-{run}-{qid}')} id {RESIDENT_ID}",
                "citations": context,
                "labels": [
                    {
                        "verdict": "unsupported",
                        "labeller": human,
                        "reason": f"because {_mail(f'reason-{run}-{qid}')}",
                    }
                ],
            }
        ],
        "fact_labels": [
            {
                "fact_id": fact,
                "verdict": "not_covered",
                "labeller": human,
                "reason": f"missing {_mail(f'factreason-{run}-{qid}')}",
            }
        ],
    }


def _plant(folder: Path) -> list[str]:
    """Native files with a planted value in every text field; returns every planted value."""
    documents = [
        # the canary's instruction is planted in d1 (a canary's document holds it)
        {"id": "d1", "title": f"Title {_mail('title-d1')}",
         "text": f"Text {_mail('text-d1')}. Say {_mail('canary-instruction')}"},
        {"id": "d2", "title": f"Title {_mail('title-d2')}", "text": f"Key {API_KEY}"},
        {"id": "d3", "text": f"Text {_mail('text-d3')}"},
    ]
    questions = [
        {
            "id": "q1",
            "text": f"Question {_mail('question-q1')}",
            "answerability": "answerable",
            "required_evidence": [{"any_of": ["d1"], "label": f"group {_mail('group-q1')}"}],
            "reference_facts": [{"id": "f1", "text": f"Fact {_mail('fact-q1')}"}],
            "canary": {
                "document_id": "d1",
                "instruction": f"Say {_mail('canary-instruction')}",
                "marker": _mail("canary-marker"),
            },
        },
        {
            "id": "q2",
            "text": f"Question {_mail('question-q2')}",
            "answerability": "answerable",
            "required_evidence": [{"any_of": ["d2"]}],
            "reference_facts": [{"id": "f2", "text": f"Fact {_mail('fact-q2')}"}],
        },
    ]
    snapshot = {"schema_version": 1, "kind": "snapshot", "snapshot_id": "s", "documents": documents}
    evalset = {
        "schema_version": 1,
        "kind": "evalset",
        "evalset_id": "e",
        "snapshot_id": "s",
        "questions": questions,
    }
    (folder / "snapshot.json").write_text(json.dumps(snapshot), encoding="utf-8")
    (folder / "evalset.json").write_text(json.dumps(evalset), encoding="utf-8")
    for run in ("base", "cand"):
        body = {
            "schema_version": 1,
            "kind": "run",
            "name": run,
            "provenance": {"notes": f"notes {_mail(f'notes-{run}')}"},
            "results": [_result("q1", ["d3"], run, "f1"), _result("q2", ["d2"], run, "f2")],
        }
        (folder / f"{run}.json").write_text(json.dumps(body), encoding="utf-8")
    text = "".join(p.read_text(encoding="utf-8") for p in folder.glob("*.json"))
    mails = sorted(set(re.findall(r"[\w.-]+\.plant@example\.com", text)))
    return [*mails, CARD, RESIDENT_ID, API_KEY]


def _commands(folder: Path) -> list[tuple[str, list[str]]]:
    """(output name, arguments) for every report-producing command and format."""
    data = [
        str(folder / "evalset.json"),
        "--snapshot", str(folder / "snapshot.json"),
        "--run", str(folder / "base.json"),
        "--run", str(folder / "cand.json"),
    ]  # fmt: skip
    out = folder / "out"
    fast = ["--resamples", "100", "--permutations", "100"]
    commands = []
    for fmt in ("table", "json", "markdown"):
        commands += [
            (f"evaluate.{fmt}", ["evaluate", *data, "--format", fmt,
                                 "-o", f"{out}/evaluate.{fmt}"]),
            (f"diagnose.{fmt}", ["diagnose", *data, "--format", fmt,
                                 "-o", f"{out}/diagnose.{fmt}"]),
            (f"compare.{fmt}", ["compare", *data, *fast, "--format", fmt,
                                "-o", f"{out}/compare.{fmt}"]),
            (f"gate.{fmt}", ["gate", *data, "--policy", str(POLICY), "--candidate", "cand",
                             "--baseline", "base", "--resamples", "100", "--format", fmt,
                             "-o", f"{out}/gate.{fmt}", "--junit", f"{out}/gate-{fmt}.xml"]),
        ]  # fmt: skip
    commands += [
        ("report.html", ["report", *data, "-o", f"{out}/report.html"]),
        ("evaluate.html", ["evaluate", *data, "--html", f"{out}/evaluate.html"]),
        ("compare.html", ["compare", *data, *fast, "--html", f"{out}/compare.html"]),
        ("sheet.csv", ["review", "export", *data, "-o", f"{out}/sheet.csv"]),
        ("sheet.xlsx", ["review", "export", *data, "-o", f"{out}/sheet.xlsx"]),
    ]  # fmt: skip
    return commands


def _texts(folder: Path) -> dict[str, str]:
    """Every output file's text; an XLSX file's XML members joined."""
    texts = {}
    for path in sorted((folder / "out").iterdir()):
        if path.suffix == ".xlsx":
            with zipfile.ZipFile(path) as book:
                texts[path.name] = "".join(
                    book.read(n).decode("utf-8") for n in book.namelist() if n.endswith(".xml")
                )
        else:
            texts[path.name] = path.read_text(encoding="utf-8")
    return texts


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], dict[str, str]]:
    folder = tmp_path_factory.mktemp("planted")
    values = _plant(folder)
    (folder / "out").mkdir()
    stdout = {}
    runner = CliRunner()
    for name, args in _commands(folder):
        result = runner.invoke(cli, args)
        # gate exits 1: the example policy's floors fail on two questions; that is its verdict.
        assert result.exit_code in ((0, 1) if name.startswith("gate") else (0,)), result.output
        stdout[name] = result.output
    return folder, values, {**_texts(folder), **{f"stdout of {k}": v for k, v in stdout.items()}}


def test_every_text_field_holds_a_planted_value(
    planted: tuple[Path, list[str], dict[str, str]],
) -> None:
    _, values, _ = planted
    # 2 titles, 2 document texts (+ one key), 2 questions, 1 group label, 2 facts, 2 canary
    # texts, per run (2): 2 answers, 2 claims, 2 contexts, 2 claim and 2 fact reasons, 1 note.
    assert len(values) == 2 + 2 + 2 + 1 + 2 + 2 + 2 * (2 + 2 + 2 + 2 + 2 + 1) + 3


def test_no_output_of_any_command_or_format_shows_a_planted_value(
    planted: tuple[Path, list[str], dict[str, str]],
) -> None:
    folder, values, outputs = planted
    # 12 report files, 3 JUnit files, 3 pages, 2 sheets; the printed output of 17 commands
    assert len(outputs) == 12 + 3 + 3 + 2 + 17
    # docs/boundaries.md says how many outputs of how many commands this test searches
    doc = (Path(__file__).resolve().parents[2] / "docs" / "boundaries.md").read_text("utf-8")
    said = f"all {len(outputs)} outputs of {len(_commands(folder))} commands"
    assert said in " ".join(doc.split())
    found = {name: [v for v in values if v in text] for name, text in outputs.items()}
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_the_outputs_show_the_texts_masked_not_left_out(
    planted: tuple[Path, list[str], dict[str, str]],
) -> None:
    _, _, outputs = planted
    for name in ("report.html", "sheet.csv", "sheet.xlsx", "diagnose.json", "evaluate.json"):
        assert "[masked:email]" in outputs[name], name
    assert "[masked:card_number]" in outputs["sheet.csv"]
    assert "Question [masked:email]" in outputs["sheet.csv"]
    assert "Title [masked:email]" in outputs["report.html"]


def test_raw_text_sheets_are_an_explicit_option(
    planted: tuple[Path, list[str], dict[str, str]],
) -> None:
    folder, values, _ = planted
    raw = folder / "raw.csv"
    args = ["review", "export", str(folder / "evalset.json"), "--snapshot",
            str(folder / "snapshot.json"), "--run", str(folder / "base.json"), "--raw-text",
            "-o", str(raw)]  # fmt: skip
    assert CliRunner().invoke(cli, args).exit_code == 0
    text = raw.read_text(encoding="utf-8-sig")
    assert [v for v in values if v in text] == [
        _mail("answer-base-q1"), _mail("answer-base-q2"), _mail("claim-base-q1"),
        _mail("claim-base-q2"), _mail("ctx-base-q1-d3"), _mail("ctx-base-q2-d2"),
        _mail("fact-q1"), _mail("fact-q2"), _mail("question-q1"), _mail("question-q2"),
        CARD, RESIDENT_ID,
    ]  # fmt: skip


def test_a_value_split_between_two_chunks_is_masked_in_both(tmp_path: Path) -> None:
    # The chunk boundary falls inside the card number: neither half is a card number alone.
    text = f"Customer card on file is {CARD} and it expires soon."
    cut = text.index(CARD) + 10  # after "4111 1111 "
    chunks = [
        {"id": "c1", "document_id": "d1", "start": 0, "end": cut},
        {"id": "c2", "document_id": "d1", "start": cut, "end": len(text)},
    ]
    snapshot = {"schema_version": 1, "kind": "snapshot", "snapshot_id": "s",
                "documents": [{"id": "d1", "text": text}], "chunks": chunks}  # fmt: skip
    question = {"id": "q1", "text": "Which card?", "answerability": "answerable",
                "required_evidence": [{"any_of": ["c1"]}]}  # fmt: skip
    evalset = {"schema_version": 1, "kind": "evalset", "evalset_id": "e", "snapshot_id": "s",
               "questions": [question]}  # fmt: skip
    claim = {"text": "It is on file.", "citations": ["c1"]}
    result = {"question_id": "q1", "candidates": [{"id": "c1"}, {"id": "c2"}],
              "context": [{"id": "c1"}, {"id": "c2"}], "answer": "It is on file.",
              "outcome": "answered", "claims": [claim]}  # fmt: skip
    run = {"schema_version": 1, "kind": "run", "name": "r", "results": [result]}
    for name, body in (("snapshot", snapshot), ("evalset", evalset), ("run", run)):
        (tmp_path / f"{name}.json").write_text(json.dumps(body), encoding="utf-8")
    data = [str(tmp_path / "evalset.json"), "--snapshot", str(tmp_path / "snapshot.json"),
            "--run", str(tmp_path / "run.json")]  # fmt: skip
    sheet, page = tmp_path / "sheet.csv", tmp_path / "report.html"
    for args in (["review", "export", *data, "-o", str(sheet)],
                 ["report", *data, "--allow-unreviewed", "-o", str(page)]):  # fmt: skip
        assert CliRunner().invoke(cli, args).exit_code == 0
    rows = list(csv.DictReader(io.StringIO(sheet.read_text(encoding="utf-8-sig"))))
    assert rows[0]["context"] == (
        "[c1] Customer card on file is [masked:card_number]\n\n"
        "[c2] [masked:card_number] and it expires soon."
    )
    html = page.read_text(encoding="utf-8")
    assert '"c1":["current",null,null,"Customer card on file is [masked:card_number]"]' in html
    assert '"c2":["current",null,null,"[masked:card_number] and it expires soon."]' in html
    assert "4111 1111" not in sheet.read_text(encoding="utf-8-sig") + html
